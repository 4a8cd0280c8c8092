"""Hostile inputs (issue 20): lines built to make a regex backtrack, values no
float or int64 holds, files that are not regular files. Every case must end in
records or counted skips: never an exception, a hang or a crash of the report."""

from __future__ import annotations

import time

import pytest

from tsm_tui.sources import reading, registry
from tsm_tui.sources.base import ByteReader, SnapshotReader
from tsm_tui.sources.lines import MAX_LINE
from tsm_tui.sources.fairseq import FairseqReader
from tsm_tui.sources.generic_text import KeyValueTextReader
from helpers.wait import pilot_until, poll_until, wait_until

N = 200_000  # characters per pathological line (lines up to 1 MiB are parsed)
D = "1" * N

# shapes that made a regex super-linear (or would, if a piece of a pattern overlapped
# the next, or a pattern could start at every character of a run): long runs of
# digits, spaces, colons, commas, word characters joined by '-', '/' or '.', repeated
# phrases and bars, with a character at the end that makes the match fail.
SHAPES = {
    "digits after a key": "s:5 trl:" + D + "x",
    "digits then a dot": "s:5 loss:1." + D + ".",
    "commas in a number": "s:5 loss:1" + "," * N + "x",
    "exponent digits": "s:5 loss:1e" + D + "x",
    "digits and colons": "1:" * (N // 2),
    "colons and digits": ":1" * (N // 2),
    "spaces after a step word": "s" + " " * N + "x",
    "spaces before a colon": "step" + " " * N + ":x",
    "spaces after a param key": "num_params" + " " * N + "x",
    "a long step number": "step " + D,
    "a sample after spaces": "step 5" + " " * N + "x",
    "a tqdm-like count": D + "/x",
    "repeated overflow phrase": "gradient overflow detected " * (N // 27),
    "indented item": " " * N + "x",
    "indented item with =": " a" + " " * N + "=",
    "llm.c header": "| total_batch_size" + " " * N + "x",
    "many pairs": "s:5 " + "a:1 " * (N // 4),
    "a dict of quotes": "{'" + "'a':" * (N // 4),
    "escape sequences": "\x1b[" + "1;" * (N // 2),
    # issue 20 follow-up (audit): each of these hung a reader or the sniffing
    "build-nanogpt: digits then a letter": "1 train " + D + "x",  # (\d+\.?\d*: 60k digits > 60 s)
    "a key of dashes": "step 1 " + "a-" * (N // 2) + "=x",  # (PAIR restarted after each '-')
    "a key of slashes": "step 1 " + "a/" * (N // 2) + ": 1x",
    "a key of dots": "step 1 " + "a." * (N // 2) + "=x",
    "digits before a keras metric": D + " - loss: x",  # (keras sniffing: \d+/\d+ ... .*)
    "a keras count": D + "/1 [" + "=" * 10,
    "an epoch of digits": "Epoch 1/" + D,
    "a list of numbers": "s:5 trl:" + "1," * (N // 2) + "x",  # (template learning: a parse per number)
    "numbers and colons after a step": "step 1 " + "1:" * (N // 2),
    "repeated bars": "1/1 [" * (N // 5),
    "repeated OLMo headers": "[step=1," * (N // 8),
    "a long word": "a" * N + "x",
    "epochs and steps": "Epoch [1/5], Step [" * (N // 19) + "x",
    "epoch words": "Epoch 1 | " * (N // 10) + "Batch " + D,
    "json in a line": "[INFO] " + '{"a": ' * (N // 6),
    "tab pairs": "step\t1\t" + "a\t1\t" * (N // 4) + "x",
    "thousands": "step 1" + ",000" * (N // 4) + "x",
    "a dict of digits": "{'loss': " + D + "x",
    # the crash table and the text tap (issue 27): every text line goes through them
    "a long exception name": "a." * (N // 2) + "Error: x",
    "an exception name of dots": "." * N + "Error",
    "rank prefixes": "[rank1]:" * (N // 8) + "Traceback (most recent call last):",
    "actor prefixes": "(TaskRunner pid=1) " * (N // 19) + "x",
    "a slurm job id": "slurmstepd: error: *** JOB " + D + " ON " + "n" * N + " CANCELLED AT x",
    "an srun node": "srun: error: " + "a" * N + ": task",
    "an nccl error site": "NCCL error in: " + "a" * N,
    "a watchdog seq": "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + D + "x",
    "free text before an oom": "Error loading model:" + " " * N + "CUDA out of memory",
    "warnings before a traceback": "[WARNING] " * (N // 10) + "Traceback (most recent call last):",
    "dotted leaders": "a " + "." * N + "x",
    "an indented key": " " * N + "error_msg: CUDA out of memory",
    "shell job report": "line 3: " + D + " Killed",
    "tags in a traceback": "[rank0]: " * (N // 9) + "File x",
    # issue 26: the multi-line contexts (text_groups.py) and the HF stdout bursts
    "an epoch header of spaces": "Epoch 1/5" + " " * N + "x",
    "dashes then a letter": "-" * N + "x",
    "a table row of bars": "|" + " " * N + "|" + "1" * 10,
    "an eval header of words": "Eval " + "begin " * (N // 6) + "1",
    "a step header then spaces": "[INFO] Step 1" + " " * N + "x",
    "logging_steps digits": "logging_steps=" + D + "x",
    "many dicts": "{'loss': 1.0, 'epoch': 0.1}\n" * (N // 28),
    "a row of values": "1/50 " * (N // 5) + "x",
    "a header of names": "epoch loss " * (N // 11) + "1",
    # summary and evaluation sections (text_groups.py, fresh4 A7); a counter before a dict (A5)
    "summary headers then a colon": "x " + "train summary " * (N // 14) + ":",
    "averaged stats of one word": "Averaged stats: " + "a" * N,
    "averaged stats of meters": "Averaged stats: " + "loss: 1.0 (" * (N // 11) + "x",
    "a metriclogger test line of meters": "Test:  [1/2]  " + "loss: 1.0 (2.0)  " * (N // 17),
    "a summary line of dict openings": "\t loss=" + "{'a': 1.0, " * (N // 11),
    "epoch counters before a dict": "Epoch: " + "1 [" * (N // 3) + "{'loss': 1.0}",
    "train counters before a dict": "[Train 1/2] " * (N // 12) + "{'loss': 1.0}",
    "lr lists": "step 1 loss 1.0 " + "lr: [1, " * (N // 8),
    # fresh10: a count before its unit word (UNIT_COUNTER) and the comma cells after a step (COMMA_CELL)
    "a count before spaces": "| 1/" + " " * N + "x",
    "counts before unit words": "|  1/ 2 steps|" * (N // 14) + "x",
    "a list of ones in a cell": "batch 1 of epoch 1, loss 1.0, lr [" + "1," * (N // 2) + "x",
    "a number of commas in a cell": "batch 1 of epoch 1, loss 1" + ",1" * (N // 2) + "x",
    "cells of one word": "step 1, " + "a 1, " * (N // 5) + "a b 1",
    "of epoch words": "batch 1 of " * (N // 11) + "epoch x",
    "apex overflow phrases": "Gradient overflow.  " * (N // 20) + "Skipping step, loss scaler 0 x",
    # fresh12: numbers that end sentences (SENTENCE_STOP), an epoch a few words before a counter (EPOCH_BEFORE)
    "sentence stops": "epoch: 1. " * (N // 10) + "x",
    "digit stops": "loss: " + "1." * (N // 2) + " ",
    "digits then a stop": "loss: 1" + D + ". ",
    "epochs before a counter": "epoch 1, skip " * (N // 14) + "iteration 5, loss nan",
}
#: lines before a shape that open a multi-line context, so the shape is read inside it
CONTEXTS = {
    "a step header": ["[INFO] Step 10"],
    "an epoch header": ["Epoch 1/5"],
    "an eval section": ["Epoch 1/5", "step 10/100 - loss: 1.0", "Eval begin..."],
    "a table": ["-" * 40, "| train/ |  |"],
    "HF bars and held dicts": ["\r  1/100 [00:01<00:09, 9.9it/s]", "{'loss': 1.0, 'epoch': 0.01}"],
    "a column header": ["      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size"],
    "a validation summary": [
        "Epoch:   0 [       1/100], loss: {'total_loss': 4.8}",
        "*** Validation summary for epoch 0",
    ],
    "a training summary": ["*** Training summary for epoch 0"],
    "a metriclogger evaluation": ["Epoch: [0]  [0/10]  loss: 2.0 (2.0)", "Test:  [0/5]  loss: 1.0 (1.0)"],
}
#: the known killers, also at the longest line parsed (1 MiB)
LONG = [
    "build-nanogpt: digits then a letter",
    "a key of dashes",
    "a key of slashes",
    "digits after a key",
    "digits before a keras metric",
    "a list of numbers",
]
BOUND = 3.0  # s per line and reader: quadratic work takes minutes at 200k characters (16 s for 16k
#             digits before #20, > 60 s for the build-nanogpt line); linear work well under 0.1 s.
#             Generous on purpose (a shared, loaded CI machine): it only separates the two classes.


def _steps_until(t, step: int, timeout: float = 10.0) -> list:
    """The steps a Tailer delivers (records and Frame rows) until ``step`` is among them."""
    steps: list = []

    def drain() -> None:
        for b in t.drain():
            steps.extend(r.step for r in b.records if hasattr(r, "step") and not hasattr(r, "n"))
            steps.extend(int(s) for r in b.records if hasattr(r, "n") for s in r.step)

    poll_until(lambda: step in steps, timeout, every=0.05, tick=drain)
    return steps


def _ops(cls, line: str):
    """Everything a file's line goes through: sniffing, the line path, the chunk path
    (twice: templates are learnt from the second sighting)."""
    yield "sniff", lambda: cls.sniff("run/train.log", [line])
    raw = line.encode("utf-8", "surrogateescape")
    if issubclass(cls, ByteReader):
        yield "feed_bytes", lambda: cls("run/events.out.tfevents.1.host").feed_bytes(raw)
    elif issubclass(cls, SnapshotReader):
        if cls.read_all is not SnapshotReader.read_all:  # (MLflow's read directories: str.split only)
            yield "read_all", lambda: cls("run/trainer_state.json").read_all(raw)
    else:
        yield "feed", lambda: cls("run/train.log").feed(line)
        yield "feed_chunk", lambda: cls("run/train.log").feed_chunk((raw + b"\n") * 2)


def _timed(f) -> float:
    t = time.perf_counter()
    try:
        f()
    except ValueError:
        pass  # a snapshot that does not parse: counted by the caller
    return time.perf_counter() - t


@pytest.mark.parametrize("cls", registry.READERS, ids=lambda c: c.__name__)
@pytest.mark.slow
def test_every_reader_is_linear_on_hostile_lines(cls):
    """Every reader of the registry, every shape, every path a line takes (issue 20 and
    its audit: the hostility test used to cover seven readers, and missed two quadratic
    regexes in readers it did not run)."""
    slow = []
    cases = [(name, line) for name, line in SHAPES.items()]
    cases += [(name + " (1 MiB)", _long(SHAPES[name])) for name in LONG]
    for name, line in cases:
        for op, f in _ops(cls, line):
            t = _timed(f)
            if t > BOUND:
                slow.append(f"{op} on {name!r}: {t:.1f} s")
    assert not slow, slow


@pytest.mark.slow
def test_the_text_tap_is_linear_on_hostile_lines():
    """The crash table's regexes, the prefixes, the exception line, the context rules: every
    shape through a reader's tap, outside a traceback and inside one (issue 27)."""
    from tsm_tui.sources.text_events import TextTap

    slow = []
    cases = [(name, line) for name, line in SHAPES.items()]
    cases += [(name + " (1 MiB)", _long(SHAPES[name])) for name in LONG + ["a long exception name", "rank prefixes"]]
    for name, line in cases:
        for in_tb in (False, True):
            tap = TextTap("x")
            if in_tb:
                tap.line("Traceback (most recent call last):")
            t = _timed(lambda tap=tap, line=line: tap.line(line))
            if t > BOUND:
                slow.append(f"{name} ({'in' if in_tb else 'outside'} a traceback): {t:.1f} s")
    assert not slow, slow


@pytest.mark.parametrize("ctx", list(CONTEXTS))
@pytest.mark.slow
def test_multi_line_contexts_are_linear(ctx):
    """Each shape as the line after a context that holds it open: a step header's
    continuation, an epoch's counters, an evaluation section, a table, held HF dicts."""
    from tsm_tui.sources.hf_stdout import HFStdoutReader

    slow = []
    for cls in (KeyValueTextReader, HFStdoutReader):
        for name, line in SHAPES.items():

            def run(cls=cls, line=line):
                r = cls("run/train.log")
                for pre in CONTEXTS[ctx]:
                    r.feed(pre)
                r.feed(line)
                r.feed(line)
                r.flush()

            t = _timed(run)
            if t > BOUND:
                slow.append(f"{cls.__name__} on {name!r}: {t:.1f} s")
    assert not slow, slow


def _long(line: str) -> str:
    """The shape grown to just under 1 MiB (MAX_LINE), its last character kept."""
    body, end = line[:-1], line[-1]
    k = (MAX_LINE - 64) // len(line)
    return body[: len(body) // 2] + body[len(body) // 2 :] * k + end if k > 1 else line


def test_the_registry_sniffs_a_hostile_head_in_bounded_time(tmp_path):
    """A file whose head is one of the shapes, through open_reader (head, deep scan, tail)."""
    for i, name in enumerate(LONG):
        p = tmp_path / f"notes{i}.txt"
        p.write_text(_long(SHAPES[name]) + "\n")
        t = time.perf_counter()
        registry.open_reader(str(p))
        assert time.perf_counter() - t < BOUND, name


def test_linear_regexes_still_read_the_usual_lines():
    r = KeyValueTextReader("train.log")
    (rec,) = r.feed("s:12 trl:9.79 lr:0.000011 norm:3.01")
    assert (rec.step, rec.loss, rec.lr, rec.grad_norm) == (12, 9.79, 0.000011, 3.01)
    (rec,) = r.feed("step\t 7 : loss 1,234.5")
    assert (rec.step, rec.loss) == (7, 1234.5)
    (rec,) = r.feed("iteration 10/ 1500 | lm loss: 7.1E+00 | loss scale: 1.0 | grad norm: 1.2 |")
    assert (rec.step, rec.loss, rec.loss_scale, rec.grad_norm) == (10, 7.1, 1.0, 1.2)
    assert r.feed("step\t5 loss 1.0") == []  # a tab alone is not a step separator (as before)
    f = FairseqReader("train.log")
    (rec,) = f.feed(
        "| WARNING | fairseq.trainer | NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 64.0"
    )
    assert rec.overflow and rec.loss_scale == 64.0


# -- the report on hostile run directories (a real subprocess: a hang is a timeout) --------
import json  # noqa: E402
import os  # noqa: E402
import sqlite3  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

GOOD = "".join(f'{{"step": {i}, "loss": {4.0 - i * 0.001:.4f}}}\n' for i in range(1, 200))


def cli(*args, timeout=60, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "tsm_tui", *map(str, args)], capture_output=True, timeout=timeout, env=e
    )


def report_json(d):
    r = cli(d, "--report", "--json")
    assert r.returncode in (0, 1), r.stderr.decode(errors="replace")
    return json.loads(r.stdout)


def test_a_fifo_named_like_a_log_is_listed_not_opened(tmp_path):
    (tmp_path / "metrics.jsonl").write_text(GOOD)
    os.mkfifo(tmp_path / "train.log")
    os.symlink(tmp_path / "train.log", tmp_path / "link.log")
    rep = report_json(tmp_path)  # before: blocked forever in open()
    notes = {os.path.basename(f["path"]): f.get("note") for f in rep["files"]}
    assert "not a regular file" in notes["train.log"] and "not a regular file" in notes["link.log"]


def test_a_fifo_config_does_not_block_preflight(tmp_path):
    os.mkfifo(tmp_path / "config.yaml")
    (tmp_path / "config.json").write_text('{"max_steps": 1000, "learning_rate": 3e-4}')
    r = cli("--preflight", tmp_path, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    r = cli("--preflight", tmp_path / "config.yaml", timeout=60)
    assert r.returncode == 2 and b"not a regular file" in r.stderr


def test_an_mlflow_metric_linked_to_dev_zero_is_refused(tmp_path):
    run = tmp_path / "mlruns" / "0" / "abc"
    (run / "metrics").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_id: abc\n")
    (run / "metrics" / "loss").write_text("".join(f"1700000000000 {3 - i / 100} {i}\n" for i in range(50)))
    os.symlink("/dev/zero", run / "metrics" / "grad_norm")
    rep = report_json(tmp_path)  # before: read /dev/zero whole (GBs, then MemoryError)
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["records"] == 50 and src["skip_reasons"] == {"unreadable metric file": 1}


@pytest.mark.parametrize(
    "bad,reason",
    [
        ('{"step": 150, "loss": ' + "9" * 400 + "}", "number out of range"),
        ('{"step": 1e309, "loss": 1.0}', "step out of range"),  # (was read as a record without a step: counted)
        ('{"step": 9223372036854775808, "loss": 1.0}', "step out of range"),
        ('{"step": 150, "loss": 1.0, "skipped": 1e300}', None),
        ('{"a": ' * 100_000, "JSON nested too deeply"),
    ],
    ids=["400-digit loss", "1e309 step", "2^63 step", "1e300 counter", "deep nesting"],
)
def test_one_bad_value_is_a_counted_skip_not_an_internal_error(tmp_path, bad, reason):
    lines = GOOD.splitlines(keepends=True)
    (tmp_path / "m.jsonl").write_text("".join(lines[:100]) + bad + "\n" + "".join(lines[100:]))
    rep = report_json(tmp_path)  # before: exit 2 "internal error" (OverflowError ...)
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["records"] >= 199
    if reason:
        assert src["skip_reasons"].get(reason) == 1, src


def test_huge_steps_never_wrap_on_the_fast_paths(tmp_path):
    """Steps >= 2^63 used to wrap to -9223372036854775808 in the int64 columns (a fake resume)."""
    from tsm_tui.sources import registry

    big = 1 << 63
    p = tmp_path / "m.jsonl"
    p.write_text("".join(f'{{"step": {big + i}, "loss": 1.0}}\n' for i in range(40)) + GOOD)
    t = tmp_path / "t.log"
    t.write_text(
        "".join(f"step {big + i} loss 1.0\n" for i in range(40))
        + "".join(f"step {i} loss {3 - i / 1000:.4f}\n" for i in range(1, 200))
    )
    for path in (p, t):
        reader, _ = registry.open_reader(str(path))
        steps = [r.step for r in reading.read_records(str(path), reader)]
        assert steps == list(range(1, 200)), path
        assert reader.skip_reasons == {"step out of range": 40}


def test_a_reader_raising_is_contained_per_line(tmp_path):
    from tsm_tui.sources.generic_text import KeyValueTextReader

    class Fragile(KeyValueTextReader):
        def _line(self, line):
            if "boom" in line:
                raise RecursionError("maximum recursion depth exceeded")
            return super()._line(line)

    p = tmp_path / "t.log"
    p.write_text(
        "".join(f"step {i} loss 2.0\n" for i in range(1, 50))
        + "step 50 boom\n"
        + "".join(f"step {i} loss 2.0\n" for i in range(51, 100))
    )
    r = Fragile(str(p))
    steps = [x.step for x in reading.read_records(str(p), r)]
    assert steps == [s for s in range(1, 100) if s != 50]
    assert r.skip_reasons == {"unreadable (RecursionError)": 1}


def _wal_db(path):
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE metrics (key TEXT, value REAL, timestamp INT, run_uuid TEXT, step INT, is_nan INT)")
    con.executemany("INSERT INTO metrics VALUES (?, ?, 0, 'r1', ?, 0)", [("loss", 3 - i / 100, i) for i in range(60)])
    con.commit()
    con.close()  # the last connection checkpoints and removes -wal / -shm


def test_a_wal_mode_mlflow_db_gets_no_side_files(tmp_path):
    _wal_db(str(tmp_path / "mlflow.db"))
    before = sorted(os.listdir(tmp_path))
    rep = report_json(tmp_path)  # before: mlflow.db-wal and mlflow.db-shm appeared
    assert sorted(os.listdir(tmp_path)) == before
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["format"] == "mlflow-sqlite" and src["records"] == 60


# -- configs ------------------------------------------------------------------------------
def _laughs() -> str:
    """The 'billion laughs' as YAML mappings: 9 levels of 9 aliases, ~620 bytes, 9^8 leaves."""
    lines = ["a: &a {" + ", ".join(f"k{i}: lol" for i in range(9)) + "}"]
    prev = "a"
    for n in "bcdefgh":
        lines.append(f"{n}: &{n} {{" + ", ".join(f"{n}{i}: *{prev}" for i in range(9)) + "}")
        prev = n
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_quickly(tmp_path):
    from tsm_tui.sources.config import ConfigError, read_config_file

    bomb = _laughs()
    assert len(bomb) < 700
    (tmp_path / "config.yaml").write_text(bomb)
    with pytest.raises(ConfigError, match="alias bomb"):
        read_config_file(str(tmp_path / "config.yaml"))  # before: 12 s, 1 GB (then _flatten)
    r = cli("--preflight", tmp_path / "config.yaml", timeout=60)
    assert r.returncode == 2 and b"alias bomb" in r.stderr
    # as a run's hparams.yaml it is left out; the report still runs
    (tmp_path / "config.yaml").unlink()
    (tmp_path / "hparams.yaml").write_text(bomb)
    (tmp_path / "m.jsonl").write_text(GOOD)
    assert report_json(tmp_path)["files"]


def test_plain_yaml_with_a_few_aliases_still_loads(tmp_path):
    from tsm_tui.sources.config import read_config_file

    (tmp_path / "c.yaml").write_text("base: &b {lr: 3.0e-4, warmup: 10}\ntrain: *b\nmax_steps: 100\n")
    m, kind = read_config_file(str(tmp_path / "c.yaml"))
    assert kind == "yaml" and m["train"] == {"lr": 3e-4, "warmup": 10}


def test_out_of_range_config_values_are_ignored_not_fatal(tmp_path):
    (tmp_path / "m.jsonl").write_text(GOOD)
    (tmp_path / "config.json").write_text(
        '{"learning_rate": 1e400, "max_steps": 1e400, "n_layer": 1e308, "n_embd": 1e308, "warmup_ratio": 1e308}'
    )
    rep = report_json(tmp_path)  # before: "Out of range float values are not JSON compliant"
    assert rep["run"].get("peak_lr") is None
    r = cli(tmp_path, "--report")
    assert r.returncode in (0, 1) and b"Inf to Inf" not in r.stdout
    (tmp_path / "train.yaml").write_text(
        "n_layer: 1.0e+308\nn_embd: 4096\nmax_steps: 1000\nwarmup_steps: 10\n"
        "learning_rate: 3.0e-4\nglobal_batch_size: 1.0e+300\n"
    )
    for args in (("--preflight", tmp_path / "train.yaml"), ("--preflight", tmp_path / "train.yaml", "--json")):
        r = cli(*args)  # before: OverflowError / ZeroDivisionError -> exit 2 "internal error"
        assert r.returncode in (0, 1), r.stderr
    json.loads(r.stdout)


# -- the tailer: a bad file mid-run costs that file, never the stream -----------------------
@pytest.mark.slow
def test_follow_keeps_going_when_bad_files_appear_mid_run(tmp_path):
    from helpers.follow import Follow, line, record

    log = tmp_path / "metrics.jsonl"
    log.write_text("".join(line(record(s)) for s in range(1, 101)))
    f = Follow(tmp_path, "--json")
    try:
        assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
        # the issue's three: a notes file of deeply nested JSON, a lone CR inside a CSV
        # row, a 5,000-digit step; each used to kill the tailer thread (exit 0, no alerts)
        (tmp_path / "notes.jsonl").write_text('{"step": 1, "loss": 1.0}\n' + '{"a": ' * 50_000 + "\n")
        (tmp_path / "eval.csv").write_text('step,loss\n1,2.0\n2,"a\rb"\n3,1.5\n')
        (tmp_path / "train.log").write_text("step 1 loss 2.0\nstep " + "9" * 5000 + " loss 1.0\nstep 2 loss 1.9\n")
        os.mkfifo(tmp_path / "pipe.log")  # and a FIFO: never opened
        time.sleep(1.5)  # a rescan picks them up
        bad = record(101)
        bad["loss"] = float("nan")
        with open(log, "a") as fh:
            fh.write(line(bad))
        assert f.wait_for(lambda: any('"nonfinite"' in x and '"critical"' in x for x in f.out), timeout=15), (
            f.out[-5:],
            f.err[-5:],
        )
    finally:
        rc = f.stop()
    assert rc == 0, f.err
    assert not any("Traceback" in x for x in f.err), f.err


def test_a_tailer_survives_a_file_whose_sniffing_raises(tmp_path, monkeypatch):
    from tsm_tui.sources import registry
    from tsm_tui.sources.tail import Tailer

    real = registry.open_reader

    def flaky(p):
        if p.endswith("bad.jsonl"):
            raise MemoryError("simulated")
        return real(p)

    monkeypatch.setattr(registry, "open_reader", flaky)
    (tmp_path / "bad.jsonl").write_text(GOOD)
    (tmp_path / "good.jsonl").write_text(GOOD)
    t = Tailer(str(tmp_path), interval=0.05)
    t.start_thread()
    try:
        assert t.caught_up.wait(10)
        with open(tmp_path / "good.jsonl", "a") as fh:
            fh.write('{"step": 500, "loss": 1.0}\n')
        t.wake()
        assert 500 in _steps_until(t, 500)
        assert t.error is None and any("bad.jsonl" in e and "MemoryError" in e for e in t.drain_notes())
    finally:
        t.stop()


# -- terminal: bidi / C1 / undecodable names never reach the output raw ----------------------
RAW_BAD = ("\u202e", "\u2066", "\u200f", "\x9b", "\x9d")


def test_bidi_and_c1_from_file_names_and_keys_are_stripped_from_reports(tmp_path):
    bad_name = os.fsdecode(b"x\x9b\x9d\xe2\x80\xaegol.jsonl")  # non-UTF-8 bytes + U+202E
    (tmp_path / bad_name).write_text(GOOD)
    (tmp_path / "b\u2066.log").write_text("step 1 lo\u202ess: 2.0\n")
    for env in ({}, {"PYTHONIOENCODING": "utf-8"}):  # before: UnicodeEncodeError with utf-8
        for args in (("--report",), ("--report", "--json")):
            r = cli(tmp_path, *args, env=env)
            assert r.returncode in (0, 1), r.stderr
            out = r.stdout.decode("utf-8", "surrogateescape")
            assert not [c for c in out if c in RAW_BAD or "\udc80" <= c <= "\udcff"], out[:400]
            assert b"\x9b" not in r.stdout and b"\xc2\x9b" not in r.stdout
    rep = json.loads(cli(tmp_path, "--report", "--json").stdout)
    assert any("gol.jsonl" in f["path"] for f in rep["files"])


def test_follow_json_escapes_c1_and_bidi_but_keeps_them():
    import io

    from tsm_tui.core.record import Alert, Severity
    from tsm_tui.views.lines import Printer

    out, err = io.StringIO(), io.StringIO()
    msg = "loss of r\u202eun\x9b31m x\u00e9"
    Printer(True, out, err).alert(Alert("nonfinite", Severity.CRITICAL, 7, msg, 1.0, None, ["a"]))
    Printer(False, out, err).alert(Alert("nonfinite", Severity.CRITICAL, 7, msg, 1.0, None, ["a"]))
    js, text = out.getvalue().splitlines()
    assert not [c for c in js + text if c in RAW_BAD]
    assert json.loads(js)["message"] == msg and "x\u00e9" in js  # escaped, not lost; other text as is


# -- --on-alert: no page lost at exit, no orphan after a timeout ------------------------------
@pytest.mark.slow
def test_pages_queued_at_sigterm_are_still_run(tmp_path):
    from helpers.follow import Follow, line, record

    log = tmp_path / "m.jsonl"
    paged = tmp_path / "paged.txt"
    log.write_text("".join(line(record(s)) for s in range(1, 101)))
    f = Follow(tmp_path, "--json", "--on-alert", f"sleep 1.5; cat >> {paged}")
    try:
        assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
        with open(log, "a") as fh:
            for s in range(101, 200):  # two critical alerts: a NaN loss, then a loss that stays 5x up
                rec = record(s)
                if s == 101:
                    rec["loss"] = float("nan")
                if s >= 141:
                    rec["loss"] *= 5
                fh.write(line(rec))
        assert f.wait_for(lambda: sum('"critical"' in x for x in f.out) >= 2), f.out
    finally:
        rc = f.stop()  # SIGTERM with a page running and one queued (each takes 1.5 s)
    assert rc == 0
    crit = [json.loads(x) for x in f.out if '"critical"' in x]
    got = [json.loads(x) for x in paged.read_text().splitlines()]
    assert len(got) == len(crit) >= 2, f.err  # before: the exit waited 2 s, the second page was lost


def test_pages_that_cannot_run_before_exit_are_named():
    import io

    from tsm_tui.views.pages import AlertHook

    err = io.StringIO()
    hook = AlertHook("sleep 1", err=err)
    for s in (1, 2, 3):
        hook.submit({"check": "nonfinite", "step": s})
    hook.close(wait=0.3)
    said = err.getvalue()
    assert "still running" in said and "2 page(s) not sent" in said and "step 3" in said


@pytest.mark.slow
def test_a_hook_that_times_out_is_ended_with_its_children(tmp_path):
    from tsm_tui.views.pages import AlertHook

    pidfile = tmp_path / "child.pid"
    err = __import__("io").StringIO()
    hook = AlertHook(f"sleep 60 & echo $! > {pidfile}; wait", err=err)
    hook.timeout = 0.5
    hook.submit({"check": "nonfinite", "step": 7})
    hook.close(wait=10)
    pid = int(pidfile.read_text())

    def dead() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    if not poll_until(dead, 5, every=0.05):  # still alive: clean up, then fail
        os.kill(pid, 9)
        pytest.fail("the hook's child survived its timeout (orphaned)")
    assert "timed out" in err.getvalue() and "process group" in err.getvalue()


# -- hostile file systems -------------------------------------------------------------------
def test_a_huge_sparse_log_is_bounded(tmp_path):
    """A 2 GiB hole (truncate) with a few real lines after it: holes are NUL bytes,
    binary to the sniffer; the report stays bounded and names the file."""
    p = tmp_path / "train.log"
    with open(p, "wb") as f:
        f.truncate(2 << 30)
    (tmp_path / "m.jsonl").write_text(GOOD)
    rep = report_json(tmp_path)
    note = {os.path.basename(f["path"]): f.get("note") for f in rep["files"]}["train.log"]
    assert note and "binary" in note


def test_an_unreadable_file_is_a_note(tmp_path, monkeypatch):
    """chmod 000 does not stop root (the tests run as root): the code path is the same
    OSError, so open_regular is made to raise it."""
    from tsm_tui.core import safeio
    from tsm_tui.sources import registry

    (tmp_path / "m.jsonl").write_text(GOOD)
    (tmp_path / "secret.log").write_text("step 1 loss 2.0\n")
    os.chmod(tmp_path / "secret.log", 0)
    real = safeio.open_fd

    def denied(path):
        if path.endswith("secret.log"):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(safeio, "open_fd", denied)
    reader, fi = registry.open_reader(str(tmp_path / "secret.log"))
    assert reader is None and fi.note == "cannot read: Permission denied"


def test_a_deep_tree_is_searched_to_a_depth_and_not_followed_below(tmp_path):
    from tsm_tui.sources import log_files

    d = tmp_path
    for i in range(40):
        d = d / f"d{i}"
    d.mkdir(parents=True)
    (d / "deep.jsonl").write_text(GOOD)
    (tmp_path / "m.jsonl").write_text(GOOD)
    found = log_files.candidate_files(str(tmp_path))
    assert [os.path.basename(p) for p in found] == ["m.jsonl"]


def test_a_low_fd_limit_is_a_clear_message_not_a_traceback(tmp_path):
    """ulimit -n 16 with 40 logs: the report reads them one at a time (one fd each,
    closed after); it must not crash."""
    for i in range(40):
        (tmp_path / f"rank{i}.jsonl").write_text(GOOD)
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16)); "
        "from tsm_tui.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), "--report", "--json"], capture_output=True, timeout=120
    )
    assert r.returncode in (0, 1), r.stderr
    assert len(json.loads(r.stdout)["files"]) == 40


# --- TensorBoard resync over a zero-filled or garbage stretch (issue: 0.75 s per MiB) ------------
@pytest.mark.parametrize("kind", ["zeros", "random", "text"])
def test_tensorboard_resync_over_a_hole_is_linear_and_finds_the_next_record(tmp_path, kind):
    import time as _time

    from helpers.livefiles import curve as _curve, tb_records

    from tsm_tui.sources import reading as _reading, registry as _registry

    size = 16 << 20
    hole = {
        "zeros": b"\0" * size,
        "random": os.urandom(size),
        "text": (b"Traceback (most recent call last): 12345\n" * (size // 40))[:size],
    }[kind]
    p = tmp_path / "events.out.tfevents.1796000000.node.1.0"
    p.write_bytes(
        tb_records([_curve(s) for s in range(1, 50)], header=True)
        + hole
        + tb_records([_curve(s) for s in range(50, 100)])
    )
    reader, _ = _registry.open_reader(str(p))
    t0 = _time.perf_counter()
    recs = list(_reading.read_records(str(p), reader))
    took = _time.perf_counter() - t0
    assert [r.step for r in recs] == list(range(1, 100))
    assert reader.skip_reasons == {"corrupt record header (CRC mismatch)": 1}
    assert took < 10.0, took  # linear: ~0.1 s here; the byte-by-byte CRC walk took 12 s for 16 MiB


def test_the_file_limit_is_said_not_silent(tmp_path, monkeypatch, capsys):
    from tsm_tui.cli import main as _main
    from tsm_tui.sources import log_files as _log_files

    monkeypatch.setattr(_log_files, "MAX_FILES", 5)
    for i in range(8):
        d = tmp_path / f"run{i}"
        d.mkdir()
        (d / "metrics.jsonl").write_text("".join(f'{{"step": {s}, "loss": {2 + 1 / s}}}\n' for s in range(1, 40)))
    _main([str(tmp_path), "--report"])
    err = capsys.readouterr().err
    assert "more than 5 log files under" in err and "only the first 5 are read" in err


@pytest.mark.slow
def test_idle_follow_on_a_big_tree_does_not_walk_it_every_pass(tmp_path):
    """With inotify, new files announce themselves: the tree is walked on events
    and on a slow safety net, not every 2 s (2000 idle runs: 18.9% -> 2% of a core)."""
    from tsm_tui.sources.tail import tailer as _tailer

    for i in range(50):
        d = tmp_path / f"run{i}" / "logs"
        d.mkdir(parents=True)
        (d / "metrics.jsonl").write_text('{"step": 1, "loss": 2.0}\n')
    t = _tailer.Tailer(str(tmp_path), interval=0.05)
    scans = []
    real = t._scan
    t._scan = lambda: (scans.append(1), real())[1]
    t.start_thread()
    try:
        import time as _time

        _time.sleep(1.5)
        assert t.mode == "inotify"
        assert len(scans) <= 3, len(scans)  # start-up scans only (polling would walk ~every 0.1 s)
        (tmp_path / "run_new").mkdir()
        (tmp_path / "run_new" / "metrics.jsonl").write_text('{"step": 1, "loss": 2.0}\n')
        new = str(tmp_path / "run_new" / "metrics.jsonl")
        wait_until(lambda: new in t.files, 5, "the new run found through the event", every=0.05)
    finally:
        t.stop()


# -- audit of #20 (follow-up): what the first pass left ----------------------------------------
def test_a_wal_without_its_shm_is_read_without_writing_beside_it(tmp_path):
    """A crashed writer's -wal without its -shm: mode=ro used to create mlflow.db-shm."""
    db = str(tmp_path / "mlflow.db")
    _wal_db(db)
    code = (
        f"import sqlite3, os; c = sqlite3.connect({db!r}); "
        "c.execute(\"INSERT INTO metrics VALUES ('loss', 1.0, 0, 'r1', 60, 0)\"); c.commit(); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)  # exits without a checkpoint: the -wal stays
    os.remove(db + "-shm")
    before = sorted(os.listdir(tmp_path))
    assert before == ["mlflow.db", "mlflow.db-wal"]
    rep = report_json(tmp_path)
    assert sorted(os.listdir(tmp_path)) == before
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["records"] == 61  # the -wal's row was read too (through a private copy)
    os.mkfifo(tmp_path / "x.db-wal")  # a -wal that is a FIFO is never opened
    os.rename(tmp_path / "mlflow.db", tmp_path / "x.db")
    from tsm_tui.sources.mlflow import _connect_ro

    with _connect_ro(str(tmp_path / "x.db")) as con:
        assert con.execute("SELECT COUNT(*) FROM metrics").fetchone()[0] >= 60
    assert not (tmp_path / "x.db-shm").exists()


def test_a_file_named_with_superscript_digits_costs_nothing(tmp_path):
    """samples/² : '²'.isdigit() is True, int('²') raises; it used to end the report
    (exit 2) and kill the tailer thread at its first scan."""
    from tsm_tui.sources.log_files import natural

    assert natural("step_20.txt") < natural("step_100.txt")
    for name in ("²", "x²", "a1²", "²³", "٣", "step_²"):
        natural(name)
    sorted(["²", "a1²", "1", "b", "٣"], key=natural)
    (tmp_path / "metrics.jsonl").write_text(GOOD)
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "²").write_text("hi\n")
    (tmp_path / "samples" / "a1²").write_text("hi\n")
    rep = report_json(tmp_path)
    assert any(f["used"] and f["records"] == 199 for f in rep["files"])


def test_the_tailer_survives_a_listing_that_raises(tmp_path, monkeypatch):
    """One odd name (or anything else) raising while the tree is listed costs that scan:
    the files already followed are still read, and it is said once."""
    from tsm_tui.sources import log_files
    from tsm_tui.sources.tail import Tailer

    (tmp_path / "good.jsonl").write_text(GOOD)
    t = Tailer(str(tmp_path), interval=0.05)
    t.start_thread()
    try:
        assert t.caught_up.wait(10)
        monkeypatch.setattr(log_files, "candidate_files", lambda p: int("²"))
        t.wake()
        time.sleep(0.3)
        with open(tmp_path / "good.jsonl", "a") as fh:
            fh.write('{"step": 500, "loss": 1.0}\n')
        t.wake()
        assert 500 in _steps_until(t, 500) and t.error is None
        notes = t.drain_notes()
        assert sum("listing the files failed (ValueError)" in e for e in notes) == 1, notes
    finally:
        t.stop()


def test_the_tui_says_stopped_when_its_feed_dies(tmp_path):
    """The status line said "following" while a toast said the feed had died."""
    import asyncio

    from tsm_tui.analysis.session import Session
    from tsm_tui.sources.feed import Feed
    from tsm_tui.views.tui import TsmApp

    class Dying(Feed):
        def _run(self):
            def body():
                time.sleep(0.2)
                raise ValueError("invalid literal for int() with base 10: '²'")

            self._guarded(body)

    async def body():
        app = TsmApp.for_session(Session(), Dying(), path=str(tmp_path), root=str(tmp_path), mode="live", bell=False)
        async with app.run_test(size=(100, 24)) as pilot:
            await pilot_until(pilot, lambda: app.feed_error is not None, 10, fail=False)
            await pilot.pause(0.3)
            text, cls = app.dashboard._state_text(time.monotonic())
            assert text.startswith("STOPPED") and "ValueError" in text and cls == "-stalled", text
            top = "".join(seg.text for seg in app.screen._compositor.render_strips()[0])
            assert "STOPPED" in top and "following" not in top, top

    asyncio.run(body())


@pytest.mark.slow
def test_a_flat_yaml_list_and_blank_lines_are_bounded(tmp_path):
    """A 4 MiB flat YAML list (no bomb) was composed node by node before the node bound:
    --report > 60 s, --preflight 37 s. A launch script of blank lines made the argument
    parser's regex quadratic (40k blank lines: 38 s)."""
    from tsm_tui.sources.config import ConfigError, parse_arg_list, read_config_file

    (tmp_path / "hparams.yaml").write_text("a: [" + "1," * 2_000_000 + "1]\n")
    t = time.perf_counter()
    with pytest.raises(ConfigError, match="more than 100000 nodes"):
        read_config_file(str(tmp_path / "hparams.yaml"))
    (tmp_path / "deep.yaml").write_text("a:\n" + "".join(" " * i + "- \n" for i in range(1, 400)))
    with pytest.raises(ConfigError, match="nested"):
        read_config_file(str(tmp_path / "deep.yaml"))
    assert time.perf_counter() - t < BOUND
    for text in ("\n" * 400_000 + "x", 'A="' * 100_000, "  \n" * 200_000 + "--a 1 --b 2\n"):
        t = time.perf_counter()
        parse_arg_list(text)
        assert time.perf_counter() - t < BOUND
    assert parse_arg_list('GBS=512\n\nexport LR="3e-4"\ntorchrun x --lr $LR --gbs $GBS --bf16\n') == {
        "lr": 3e-4,
        "gbs": 512,
        "bf16": True,
    }
    (tmp_path / "metrics.jsonl").write_text(GOOD)
    t = time.perf_counter()
    assert report_json(tmp_path)["files"]
    r = cli("--preflight", tmp_path / "hparams.yaml", timeout=60)
    assert r.returncode == 2 and b"more than 100000 nodes" in r.stderr
    assert time.perf_counter() - t < 30  # (two interpreter start-ups)


BIG = "9" * 400


@pytest.mark.parametrize(
    "name,text",
    [
        (
            "train.log",
            "".join(
                f"Epoch {e}/{BIG}\n100/100 [==============================] - 3s 30ms/step - loss: {2 - e / 10:.4f}\n"
                for e in range(1, 8)
            ),
        ),
        (
            "trainer_state.json",
            json.dumps(
                {"max_steps": int(BIG), "log_history": [{"step": i, "loss": 3 - i / 100} for i in range(1, 50)]},
                indent=1,
            ),
        ),
        (
            "trainer_state.json",
            json.dumps(
                {"max_steps": 1e308, "log_history": [{"step": i, "loss": 3 - i / 100} for i in range(1, 50)]}, indent=1
            ).replace("1e+308", "1e400"),
        ),
        (
            "main.log",
            f"| num_parameters        | {BIG} |\n| max_steps | 1e400 |\n"
            + "".join(f"s:{i} trl:{3 - i / 100:.4f} lr:0.0001 norm:1.0\n" for i in range(1, 50)),
        ),
        (
            "trainer_log.jsonl",
            "".join(
                json.dumps({"current_steps": i, "total_steps": int(BIG), "loss": 3 - i / 100}) + "\n"
                for i in range(1, 50)
            ),
        ),
        (
            "train.log",
            "".join(
                f"iteration {i}/{BIG} | lm loss: {3 - i / 100:.4f} | learning rate: 1e-4 |\n" for i in range(1, 50)
            ),
        ),
    ],
    ids=[
        "keras epochs",
        "trainer_state 400 digits",
        "trainer_state 1e400",
        "llm.c header",
        "llama-factory total",
        "megatron total",
    ],
)
def test_numbers_a_log_says_about_the_run_are_bounded(tmp_path, name, text):
    """A total, a parameter count that no int64 or float holds (or 1e400): the report used
    to end with "internal error" (OverflowError in the advice, ZeroDivisionError in the LR
    check) or lose the whole file; now the value is no fact and the records are read."""
    (tmp_path / name).write_text(text)
    rep = report_json(tmp_path)
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["records"] >= 7 and rep["steps"]["count"] >= 7
    assert rep["run"].get("total_steps") is None and rep["run"].get("params") is None


def test_run_facts_are_bounded_in_one_place():
    from tsm_tui.core.numbers import run_fact
    from tsm_tui.core.settings import RunInfo
    from tsm_tui.sources.base import SourceReader

    r = SourceReader("x")
    for bad in (BIG, int(BIG), 1e400, float("nan"), float("inf"), -1, 0, "abc", True, None, 2.0**70):
        r.run_info["total_steps"] = bad
        r.run_info.setdefault("params", bad)
    assert r.run_info == {}
    r.run_info.setdefault("total_steps", "1000")
    r.run_info["peak_lr"] = "3e-4"
    r.run_info["warmup_steps"] = 0
    r.run_info["precision"] = "bf16"
    assert r.run_info == {"total_steps": 1000, "peak_lr": 3e-4, "warmup_steps": 0, "precision": "bf16"}
    assert run_fact("clip", 0.0) == 0.0 and run_fact("peak_lr", 0.0) is None and run_fact("batch_size", 1e19) is None
    info = RunInfo()
    info.set("total_steps", int(BIG), "x")
    info.set("params", 1e400, "x")
    info.set("peak_lr", float("nan"), "x")
    assert (info.total_steps, info.params, info.peak_lr) == (None, None, None)


def test_a_detector_that_raises_is_a_skipped_check_not_the_end(tmp_path):
    """Monitor.feed / feed_frame / finalize / checks contain a detector's failure: its
    check reads SKIP with the reason; the other checks and the alerts go on."""
    from tsm_tui.analysis.detectors import DETECTORS
    from tsm_tui.analysis.monitor import Monitor
    from tsm_tui.core.frame import pack
    from tsm_tui.core.record import Status, StepRecord

    class Boom(DETECTORS[1]):
        def update(self, rec):
            if rec.step == 50:
                raise ZeroDivisionError("float division by zero")
            return super().update(rec)

        def update_frame(self, fr):
            if 50 in fr.step:
                raise ZeroDivisionError("float division by zero")
            return super().update_frame(fr)

    class BoomAtEnd(DETECTORS[2]):
        def finalize(self):
            raise OverflowError("int too large to convert to float")

    dets = [DETECTORS[0], Boom, BoomAtEnd] + list(DETECTORS[3:])
    for framed in (False, True):
        mon = Monitor(detectors=dets)
        recs = [StepRecord(i, loss=3 - i / 1000, lr=1e-4, grad_norm=0.5) for i in range(1, 100)]
        recs.append(StepRecord(100, loss=float("nan")))
        alerts = []
        for it in pack(recs) if framed else recs:
            alerts += mon.feed_frame(it) if hasattr(it, "n") else mon.feed(it)
        alerts += mon.finalize()
        by = {c.id: c for c in mon.checks()}
        assert by[Boom.id].status == Status.SKIP and "ZeroDivisionError" in by[Boom.id].summary
        assert by[BoomAtEnd.id].status == Status.SKIP and "OverflowError" in by[BoomAtEnd.id].summary
        assert any(a.check == "nonfinite" for a in alerts)  # the others still run
        mon.actions()


@pytest.mark.parametrize(
    "name,body",
    [
        ("t.log", lambda v: "".join(f"step {i} loss: {v if i == 50 else 2.0}\n" for i in range(1, 100))),
        ("t.csv", lambda v: "step,loss\n" + "".join(f"{i},{v if i == 50 else 2.0}\n" for i in range(1, 100))),
        ("t.jsonl", lambda v: "".join(f'{{"step": {i}, "loss": {v if i == 50 else 2.0}}}\n' for i in range(1, 100))),
    ],
    ids=["text", "csv", "jsonl"],
)
@pytest.mark.parametrize("value", [BIG, "1e400"], ids=["400 digits", "1e400"])
def test_an_out_of_range_loss_is_a_counted_skip_in_every_format(tmp_path, name, body, value):
    """Text and CSV turned a 400-digit loss into Inf (a critical NaN/Inf alert) while JSON
    skipped it: the same counted skip everywhere now; a real "inf" / "Infinity" is still Inf."""
    (tmp_path / name).write_text(body(value))
    rep = report_json(tmp_path)
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["records"] == 98 and src["skip_reasons"].get("number out of range") == 1, src
    assert not any(a["check"] == "nonfinite" for a in rep["alerts"])
    inf = "Infinity" if name.endswith(".jsonl") else "inf"
    (tmp_path / name).write_text(body(inf))
    rep = report_json(tmp_path)
    assert any(a["check"] == "nonfinite" for a in rep["alerts"])


@pytest.mark.slow
def test_follow_reads_a_growing_mlflow_file_store_and_pages_its_nan(tmp_path):
    """An MLflow run's metrics/ is a directory source: open_fd refused it ("not a regular
    file (a directory)"), so --follow never saw a point, and a NaN was never alerted."""
    from helpers.follow import Follow

    run = tmp_path / "mlruns" / "0" / "abc123"
    (run / "metrics").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_id: abc123\n")
    loss, gn = run / "metrics" / "loss", run / "metrics" / "grad_norm"
    loss.write_text("".join(f"{1700000000000 + i} {3 - i / 100} {i}\n" for i in range(1, 60)))
    gn.write_text("".join(f"{1700000000000 + i} 0.5 {i}\n" for i in range(1, 60)))
    f = Follow(tmp_path, "--json")
    try:
        assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
        assert not any("cannot open" in x for x in f.out + f.err), f.out + f.err
        for i in range(60, 80):  # the run goes on: points appended to the metric files
            with open(loss, "a") as fh:
                fh.write(f"{1700000000000 + i} {3 - i / 100} {i}\n")
            time.sleep(0.02)
        with open(loss, "a") as fh:
            fh.write(f"{1700000000000 + 80} nan 80\n")
        assert f.wait_for(lambda: any('"nonfinite"' in x and '"critical"' in x for x in f.out), timeout=15), (
            f.out[-5:],
            f.err[-5:],
        )
    finally:
        f.stop()


def test_template_learning_never_raises_on_a_fractional_step():
    """Found by the fuzz suite's long-input run: a dict whose step key holds 1.56 made the
    template probe call int(b'4.89') (a ValueError out of feed_chunk)."""
    from tsm_tui.sources.text_formats import ModdedNanoGPTReader

    line = b"{'s': 1.56, 'grad_norm': nan, 'learning_rate': 4e-05, 'epoch': 0.01}\n"
    for cls in (KeyValueTextReader, ModdedNanoGPTReader):
        assert [r.step for r in cls("x").feed_chunk(line * 3)] == [1, 1, 1]


# -- the offline audit: every reader x a cross product of shapes (TSM_REGEX_AUDIT=1) ----------
AUDIT_UNITS = [
    "1",
    "a",
    " ",
    "-",
    "a-",
    "a/",
    "a.",
    "1.",
    "1,",
    ".1",
    ":",
    ":1",
    "1:",
    "a:",
    "a=",
    "=",
    "=1",
    "a=1 ",
    "a:1 ",
    "'a':",
    "{'",
    "'",
    "[",
    "]",
    "|",
    "\t",
    "1/",
    "/1",
    "1 ",
    "a ",
    "e1",
    "1e",
    "step ",
    "loss ",
    "s:",
    "(",
    "()",
    "a(",
    "x1",
    "_",
    "%",
    ",",
    ", ",
    "| ",
    " |",
    "\r",
    "\x1b[",
    "1;",
    "{",
    "}",
    '"',
    '":',
    "--",
    "=a",
    "\\",
    "a b ",
    "1 1 ",
    "[1]",
    "[1/",
    "nan",
    "Epoch ",
    "1/1 ",
    "a: ",
    "1/1 [",
    "a - ",
    " - a: 1",
    "1%",
    "it",
    "Step [",
    "1][",
    "1\t",
    "a\t",
    '{"a":',
    "-1",
    "+",
    "e",
    "1e1",
    "━",
    "=>",
]
AUDIT_PREFIXES = [
    "",
    "step 1 ",
    "s:5 trl:",
    "1 train ",
    "{'loss': ",
    "Epoch 1/",
    "iteration 1/ 10 | ",
    "| ",
    "[step=1] ",
    '{"step": 1, ',
    "global_step=1 ",
    "Epoch [1/5], Step [",
    "Train: 1 [ ",
    "1/1 [",
    "x INFO ",
    "step\t1\t",
]
AUDIT_ENDS = [
    "x",
    "",
    "=x",
    "/x",
    ":x",
    " [x",
    ".x",
    ")",
    "]",
    "'",
    ": ",
    "/1 [",
    " - loss: x",
    " |",
    "ms",
    "1e",
    "(",
    "{",
]


@pytest.mark.skipif(not os.environ.get("TSM_REGEX_AUDIT"), reason="offline audit (~10 min): TSM_REGEX_AUDIT=1")
def test_regex_audit_over_the_cross_product():
    """Every prefix x unit x end (23,328 lines of 10k characters) through every reader's
    sniff, feed and feed_chunk; whatever takes over 8 ms is timed again at 4x the length
    (linear work grows 4x, quadratic 16x) and, when that grew over 7x, at 16x (linear:
    16x, quadratic: 256x; timer noise on a loaded machine does not reach 64x)."""
    n = 10_000
    flagged = []
    for p in AUDIT_PREFIXES:
        for u in AUDIT_UNITS:
            for e in AUDIT_ENDS:
                line = p + u * (n // len(u)) + e
                for cls in registry.READERS:
                    for op, f in _ops(cls, line):
                        t1 = _timed(f)
                        if t1 > 0.008:
                            big = p + u * (4 * n // len(u)) + e
                            t4 = _timed(dict(_ops(cls, big))[op])
                            if t4 > 7 * t1:
                                huge = p + u * (16 * n // len(u)) + e
                                t16 = _timed(dict(_ops(cls, huge))[op])
                                if t16 > 64 * t1:
                                    flagged.append(
                                        f"{cls.__name__}.{op} {p!r}+{u!r}*n+{e!r}: "
                                        f"{t1:.3f}s, 4x {t4:.3f}s, 16x {t16:.3f}s"
                                    )
    assert not flagged, "\n".join(flagged)


def test_run_directories_and_mount_points_with_superscript_digits(tmp_path):
    """The same int('²') in the run grouping's sort key (a run directory 'run1²') and
    in the mountinfo unescaping ('\\²³⁴', '\\999')."""
    from tsm_tui.sources.tail.mounts import _unescape

    for name in ("run1²", "run2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metrics.jsonl").write_text(GOOD)
    r = cli(tmp_path, "--report")
    assert r.returncode in (0, 1), r.stderr
    assert _unescape("/mnt/a\\040b") == "/mnt/a b"
    assert _unescape("/mnt/x\\²³⁴y\\999") == "/mnt/x\\²³⁴y\\999"


def test_deeply_nested_json_in_a_snapshot_or_a_fairseq_line_is_a_counted_skip():
    """Found by the fuzz suite's long inputs: json's decoder recurses per level, and a
    RecursionError escaped trainer_state's read_all (the tailer then re-read the file on
    every pass) and fairseq's JSON lines."""
    from tsm_tui.sources.hf_trainer_state import HFTrainerStateReader

    r = HFTrainerStateReader("trainer_state.json")
    assert r.read_all(b"[" * 100_000) == [] and r.skip_reasons == {"JSON nested too deeply": 1}
    f = FairseqReader("train.log")
    assert f.feed('| train_inner | {"num_updates": 5, "a": ' + "[" * 100_000 + "}") == []
    assert f.skip_reasons == {"JSON nested too deeply": 1}


def test_a_tensorboard_file_with_a_megabyte_record_replays_at_once(tmp_path):
    """TF1's Keras callback stores the graph (2.3 MB) in the event file: the column-wise CRC
    looped once per byte of it (112 s for a real 2.3 MB file); long records get a C CRC each."""
    from helpers.livefiles import tb_event
    from tsm_tui.analysis.replay import analyze

    p = tmp_path / "events.out.tfevents.1508492203.brain"
    p.write_bytes(
        tb_event(0, file_version="brain.Event:2")
        + tb_event(0, file_version="\x01\x02" * (1 << 20))
        + b"".join(tb_event(i, "loss", 1.0 / i) for i in range(1, 41))
    )
    t = time.perf_counter()
    an = analyze(str(p))
    assert time.perf_counter() - t < 5.0  # (a hang guard: ~0.1 s)
    assert an.monitor.records == 40
