"""W&B's run file (``run-<id>.wandb``) read on its own: real files written by the SDK
(tests/data/wandb/sdk-*/, made by make_wandb_runs.py with wandb 0.16.6 and 0.31.0 in
offline mode), damaged copies of them, and a file growing while it is tailed."""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.livefiles import WB_BLOCK, wb_frame, wb_history, wb_output, wb_record
from tsm_tui.analysis.replay import analyze, analyze_runs
from tsm_tui.analysis.run_open import open_runs
from tsm_tui.core.frame import expand
from tsm_tui.core.record import TextEvent
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources import registry
from tsm_tui.sources.wandb_run import Framer, WandbRunReader
from helpers.wait import poll_until
from helpers import paths

DATA = Path(paths.DATA) / "wandb"
SDKS = sorted(p.name for p in DATA.glob("sdk-*"))
RUNS = [
    (sdk, name)
    for sdk in SDKS
    for name in ("plain_nan", "console_only", "resumed", "hf_gradspike", "split_placeholders")
    if (DATA / sdk / name).is_dir()
]
CLI = [sys.executable, "-m", "tsm_tui"]


def run_file(d: Path) -> str:
    found = sorted(glob.glob(str(d / "wandb" / "*" / "run-*.wandb")))
    assert found, d
    return found[-1]


def verdicts(an):
    checks = {c.id: c.status.value for c in an.checks()}
    alerts = sorted((a.check, a.step, a.severity.value) for a in an.alerts())
    return checks, alerts


def test_fixtures_come_from_two_sdk_generations():
    assert "sdk-0.16.6" in SDKS and any(s >= "sdk-0.31" for s in SDKS)
    # 0.16's Python writer keeps ``key``, the Go core writes ``nested_key``: both read
    for sdk in SDKS:
        r = WandbRunReader(run_file(DATA / sdk / "plain_nan"))
        data = open(r.path, "rb").read()
        recs = list(expand(r.feed_chunk(data))) + r.flush()
        events = [x for x in recs if isinstance(x, TextEvent)]  # (the exit record: the crash check reads it)
        assert [x.step for x in recs if not isinstance(x, TextEvent)] == list(range(120))
        assert [(e.kind, e.cause) for e in events] == [("exit_code", "done")]
        assert r.framer.version == 0 and not r.skip_reasons


@pytest.mark.parametrize("sdk,name", RUNS)
def test_same_verdicts_from_the_run_file_alone_as_from_json_lines_of_the_same_numbers(tmp_path, sdk, name):
    """The numbers each script logged (its JSON Lines twin, written by the script itself)
    judged with the same configuration give the same checks and alerts as the run dir."""
    an = analyze(str(DATA / sdk / name))
    used = [f for f in an.run.files if f.used]
    assert len(used) == 1 and used[0].format == "wandb" and used[0].path.endswith(".wandb")
    twin = tmp_path / name
    twin.mkdir()
    shutil.copy(DATA / sdk / f"{name}.jsonl", twin / "metrics.jsonl")
    info = RunInfo()
    for k, origin in an.monitor.state.info.origin.items():
        info.set(k, getattr(an.monitor.state.info, k), origin)
    ref = analyze(str(twin), info=info)
    assert ref.monitor.records == an.monitor.records
    # (the throughput check reads the run file's _timestamp, which the JSON Lines twin has not)
    assert _without(verdicts(an), "throughput") == _without(verdicts(ref), "throughput")


def _without(v, check):
    checks, alerts = v
    return {k: s for k, s in checks.items() if k != check}, [a for a in alerts if a[0] != check]


@pytest.mark.parametrize("sdk", SDKS)
def test_plain_script_nan_and_its_config(sdk):
    an = analyze(str(DATA / sdk / "plain_nan"))
    checks = {c.id: c for c in an.checks()}
    assert checks["nonfinite"].status.value == "FAIL"
    assert [a.step for a in an.alerts() if a.check == "nonfinite"][:1] == [80]
    info = an.monitor.state.info
    # the config the script passed to wandb.init, from the run file's run / config records
    assert (info.total_steps, info.warmup_steps, info.peak_lr, info.batch_size) == (120, 10, 3e-4, 32)
    f = next(f for f in an.run.files if f.used)
    assert f.details["step_source"] == "_step" and f.details["exit_code"] == 0
    # a run dir with no output.log and (0.31) no summary: the report is complete
    files = os.listdir(os.path.dirname(f.path))
    assert "output.log" not in os.listdir(os.path.join(os.path.dirname(f.path), "files")) if "files" in files else True


def test_hf_trainer_declared_step_metric_and_grad_norm_spike():
    sdk = next(s for s in SDKS if (DATA / s / "hf_gradspike").is_dir())
    an = analyze(str(DATA / sdk / "hf_gradspike"))
    f = next(f for f in an.run.files if f.used)
    assert f.details["step_source"] == "train/global_step (declared with define_metric)"
    assert (an.monitor.state.first_step, an.monitor.state.last_step) == (1, 60)
    grads = [a for a in an.alerts() if a.check == "grad_norm" and a.severity.value != "info"]
    assert [a.step for a in grads][:1] == [40]
    info = an.monitor.state.info
    # HF's TrainingArguments (run config): max_steps, warm-up, LR, batch, clip; the model's size
    assert (info.total_steps, info.warmup_steps, info.peak_lr, info.batch_size, info.clip) == (60, 6, 3e-3, 8, 1.0)
    assert info.params and 1e4 < info.params < 1e5


@pytest.mark.parametrize("sdk", SDKS)
def test_printed_metrics_are_read_from_the_console_inside_the_run_file(sdk):
    d = DATA / sdk / "console_only"
    assert not glob.glob(str(d / "wandb" / "*" / "files" / "output.log"))
    an = analyze(str(d))
    f = next(f for f in an.run.files if f.used)
    assert f.channel == "console" and f.details["console"]["records"] == 100
    assert an.monitor.records == 100
    assert [a.step for a in an.alerts() if a.check == "loss_spike"][:1] == [50]


@pytest.mark.parametrize("sdk", SDKS)
def test_a_run_resumed_into_a_second_run_dir_is_one_run(sdk):
    d = DATA / sdk / "resumed"
    runs = open_runs(str(d))
    assert len(runs) == 1
    an = analyze_runs(str(d))[0]
    f = next(f for f in an.run.files if f.used)
    assert len(f.segments) == 1 and f.segments[0].endswith(".wandb")
    assert (an.monitor.state.first_step, an.monitor.state.last_step, an.monitor.records) == (0, 119, 120)
    assert not an.monitor.state.resumes


@pytest.mark.parametrize("sdk", SDKS)
def test_a_run_resumed_within_the_same_second_is_one_run(tmp_path, sdk):
    # the SDK names the second run dir of a run resumed within the same second with "-1" appended
    # (offline-run-20261206_045320-tsmresume1-1, its file still run-tsmresume1.wandb: seen in CI,
    # where make_wandb_runs.py's two launches met in one second): one run, the suffixed dir the newer
    d = tmp_path / "resumed"
    shutil.copytree(DATA / sdk / "resumed", d)
    first, second = sorted((d / "wandb").iterdir())
    second.rename(d / "wandb" / (first.name + "-1"))
    runs = open_runs(str(d))
    assert len(runs) == 1
    an = analyze_runs(str(d))[0]
    assert (an.monitor.state.first_step, an.monitor.state.last_step, an.monitor.records) == (0, 119, 120)
    # a run id of its own that ends in "-1" (its run file says so) is that id, not a resume
    (d / "wandb" / (first.name + "-1")).rename(d / "wandb" / "offline-run-20261206_045320-exp-1")
    solo = d / "wandb" / "offline-run-20261206_045320-exp-1"
    (solo / "run-tsmresume1.wandb").rename(solo / "run-exp-1.wandb")
    assert len(open_runs(str(d))) == 2


def test_latest_run_link_and_debug_logs_are_not_a_run(tmp_path):
    d = tmp_path / "proj"
    shutil.copytree(DATA / SDKS[-1] / "plain_nan", d)
    run = next((d / "wandb").iterdir())
    (d / "wandb" / "latest-run").symlink_to(run.name)
    (run / "logs").mkdir()
    (run / "logs" / "debug-internal.log").write_text("2026-12-05 step 1 loss 2.0\n" * 10)
    (d / "wandb" / "debug.log").symlink_to(run / "logs" / "debug-internal.log")
    runs = open_runs(str(d))
    assert len(runs) == 1
    assert [os.path.basename(p) for p in runs[0].readers] == [os.path.basename(run_file(d))]


def test_report_json_names_the_format(tmp_path):
    d = DATA / SDKS[-1] / "plain_nan"
    p = subprocess.run(CLI + [str(d), "--report", "--json"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, p.stderr
    rep = json.loads(p.stdout)
    used = [f for f in rep["files"] if f["used"]]
    assert used[0]["format"] == "wandb" and used[0]["step_source"] == "_step"
    assert rep["steps"]["count"] == 120 and rep["steps"]["last"] == 119


# -- damage: a counted skip with its reason, the rest read ---------------------------------
def _rows(data: bytes) -> tuple[list[int], dict]:
    r = WandbRunReader("x/run-abc.wandb")
    recs = list(expand(r.feed_chunk(data))) + r.flush()
    hist = [x for x in recs if not (x.source or "").endswith("#console")]
    return [x.step for x in hist if x.loss is not None or x.grad_norm is not None], r.skip_reasons


def _synthetic(n: int = 3000) -> tuple[bytes, list[int]]:
    """A run file of n history rows spanning several blocks, a console line every 100."""
    recs = []
    for s in range(n):
        recs.append(wb_history(s, {"train/loss": 2.0 + 1.0 / (s + 1), "train/grad_norm": 0.5}))
        if s % 100 == 0:
            recs.append(wb_output(f"step {s} | loss {2.0 + 1.0 / (s + 1):.4f}\n"))
    return wb_frame(recs), list(range(n))


def test_the_test_writer_matches_the_sdk_framing():
    real = open(run_file(DATA / SDKS[-1] / "plain_nan"), "rb").read()
    got = []
    f = Framer(lambda why: got.append(why))
    payloads = f.feed(real)
    f.end()
    assert not got
    assert wb_frame(payloads) == real  # the same bytes: chunking, padding and CRCs as the SDK's


def test_bad_checksum_skips_the_rest_of_its_block_only():
    data, steps = _synthetic()
    assert len(data) > 3 * WB_BLOCK
    bad = bytearray(data)
    bad[WB_BLOCK + 5000] ^= 0xFF  # a byte inside some chunk of block 1
    got, why = _rows(bytes(bad))
    assert why == {"bad checksum: rest of the block skipped": 1}
    lost = set(steps) - set(got)
    per_block = WB_BLOCK // len(wb_history(1000, {"train/loss": 2.001, "train/grad_norm": 0.5}))
    assert 0 < len(lost) <= per_block + 1  # one block's rows at most, the rest read
    assert max(lost) - min(lost) == len(lost) - 1  # (one stretch)
    assert got == sorted(got)


def test_garbage_and_zeroed_stretches_resync_at_the_next_block():
    data, steps = _synthetic()
    bad = bytearray(data)
    bad[40000:50000] = os.urandom(10000)
    bad[70000:72000] = b"\0" * 2000
    got, why = _rows(bytes(bad))
    assert sum(why.values()) >= 1 and all("skipped" in k or "record" in k for k in why)
    assert got[-1] == steps[-1] and len(got) > 0.8 * len(steps)


def test_truncated_end_is_counted_and_a_live_cut_is_waited_for():
    data, steps = _synthetic(500)
    got, why = _rows(data[:-3])
    assert got == steps[:-1] and why == {"record cut short at the end of the file": 1}
    # live: the same bytes in arbitrary pieces give every row once, nothing skipped
    r = WandbRunReader("x/run-abc.wandb")
    out = []
    i = 0
    for cut in [1, 6, 7, 8, 500, 3, 32761, 2, 40000]:
        out += r.feed_bytes(data[i : i + cut])
        i += cut
    out += r.feed_bytes(data[i:])
    assert [x.step for x in out if x.loss is not None] == steps and not r.skip_reasons


def test_unknown_record_type_newer_version_and_orphan_parts_are_counted():
    recs = [wb_history(s, {"loss": 1.0}) for s in range(5)]
    data = wb_frame(recs[:2] + [wb_record(99, b"\x08\x01")] + recs[2:], version=1)
    got, why = _rows(data)
    assert got == [0, 1, 2, 3, 4]
    assert why["record of a type this reader does not know (field 99)"] == 1
    assert any(k.startswith("format version 1") for k in why)
    # a record split over chunks whose first part is lost: its other parts are counted
    big = wb_history(7, {"loss": 1.0, "note": json.dumps("x" * 3000)})
    framed = wb_frame([big], max_chunk=1000)
    hdr = 7
    first_len = int.from_bytes(framed[hdr + 4 : hdr + 6], "little")
    orphan = framed[:hdr] + framed[hdr + 7 + first_len :]
    got, why = _rows(orphan)
    assert got == [] and why.get("part of a record without its first part", 0) >= 1


def test_not_a_wandb_file_is_said_once():
    got, why = _rows(b"not a run file at all" * 10)
    assert got == [] and why == {"not a W&B run file (no :W&B header)": 1}


def test_numbers_nan_infinity_out_of_range_and_dicts():
    rec = wb_history(3, {"train/loss": "NaN", "train/grad_norm": "Infinity", "lr": "1e400"})
    got, why = _rows(wb_frame([rec]))
    assert got == [] and why == {"number out of range": 1}  # a loss of 1e400 is no loss
    r = WandbRunReader("x/run-abc.wandb")
    out = r.feed_bytes(
        wb_frame(
            [
                wb_history(3, {"train/loss": "NaN", "train/grad_norm": "Infinity"}),
                wb_history(4, {"train": '{"loss": 2.5, "img": {"_type": "image-file"}}'}),
            ]
        )
    )
    assert out[0].loss != out[0].loss and out[0].grad_norm == float("inf")
    assert out[1].step == 4 and out[1].loss == 2.5  # {"train": {"loss": ...}} is train.loss, a loss


def test_registry_sniffs_the_run_file_and_nothing_else(tmp_path):
    p = tmp_path / "run-abc.wandb"
    p.write_bytes(wb_frame([wb_history(0, {"loss": 1.0})]))
    reader, fi = registry.open_reader(str(p))
    assert isinstance(reader, WandbRunReader) and fi.format == "wandb"
    q = tmp_path / "run-def.wandb"
    q.write_bytes(b"\x00\x01garbage" * 10)
    reader, fi = registry.open_reader(str(q))
    assert reader is None


# -- live --------------------------------------------------------------------------------
def test_tailing_a_growing_run_file_delivers_every_row_once(tmp_path):
    from helpers.tailing import Collector
    from tsm_tui.sources.tail import Tailer

    data, steps = _synthetic(2000)
    d = tmp_path / "wandb" / "run-20261205_000000-abc"
    d.mkdir(parents=True)
    p = d / "run-abc.wandb"
    p.write_bytes(data[:20000])
    t = Tailer(str(tmp_path), interval=0.2)
    t.start_thread()
    try:
        c = Collector(t)
        pos = 20000
        while pos < len(data):  # appends that cut chunks anywhere
            n = 997 if pos % 2 else 4099
            with open(p, "ab") as f:
                f.write(data[pos : pos + n])
            pos += n
            if pos % 7 == 0:
                time.sleep(0.005)
        assert c.wait_for(
            lambda: len([s for k, v in c.steps.items() if not k.endswith("#console") for s in v]) >= len(steps),
            timeout=15,
        )
        c.settle(0.3)
        hist = [r.step for r in c.records if not (r.source or "").endswith("#console")]
        assert hist == steps
    finally:
        t.stop()


HAVE_WANDB = importlib.util.find_spec("wandb") is not None


@pytest.mark.skipif(not HAVE_WANDB, reason="wandb not installed (pip install -e '.[test]')")
@pytest.mark.slow
def test_follow_a_run_while_the_sdk_writes_it(tmp_path):
    """The real SDK writes a run file row by row while ``--follow --json`` reads it: every
    step once, the NaN alerted while the script still runs."""
    script = tmp_path / "train.py"
    script.write_text(
        "import math, time, wandb\n"
        "run = wandb.init(project='t', mode='offline')\n"
        "for s in range(60):\n"
        "    run.log({'train/loss': float('nan') if s == 45 else 3.0 - s / 100, 'train/grad_norm': 0.5})\n"
        "    time.sleep(0.05)\n"
        "time.sleep(2)\n"
        "run.finish()\n"
    )
    env = dict(os.environ, WANDB_MODE="offline", WANDB_SILENT="true", WANDB_DIR=str(tmp_path))
    follow = subprocess.Popen(
        CLI + [str(tmp_path), "--follow", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(follow.stdout), daemon=True)
    reader.start()
    try:
        train = subprocess.run(
            [sys.executable, str(script)], env=env, cwd=tmp_path, timeout=120, capture_output=True, text=True
        )
        assert train.returncode == 0, train.stderr[-2000:]
        poll_until(lambda: any('"nonfinite"' in ln for ln in lines), 15, every=0.1)
    finally:
        follow.terminate()
        follow.wait(10)
        reader.join(5)
    events = [json.loads(ln) for ln in lines if ln.startswith("{")]
    nan = [e for e in events if e.get("event") == "alert" and e.get("check") == "nonfinite"]
    assert len(nan) == 1 and nan[0]["step"] == 45, events[-5:]


@pytest.mark.skipif(not HAVE_WANDB, reason="wandb not installed (pip install -e '.[test]')")
@pytest.mark.slow
def test_regenerated_fixtures_read_like_their_json_lines_twins(tmp_path):
    """make_wandb_runs.py with the installed SDK: each run judged from its run file alone
    equals its JSON Lines twin (the committed fixtures are checked the same way above)."""
    only = ["plain_nan", "console_only", "resumed"]
    p = subprocess.run(
        [sys.executable, str(DATA / "make_wandb_runs.py"), str(tmp_path), "--only", *only],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    for name in only:
        an = analyze_runs(str(tmp_path / name))
        assert len(an) == 1
        an = an[0]
        twin = tmp_path / f"{name}-twin"
        twin.mkdir()
        shutil.copy(tmp_path / f"{name}.jsonl", twin / "metrics.jsonl")
        info = RunInfo()
        for k, origin in an.monitor.state.info.origin.items():
            info.set(k, getattr(an.monitor.state.info, k), origin)
        assert _without(verdicts(an), "throughput") == _without(
            verdicts(analyze(str(twin), Settings(), info=info)), "throughput"
        ), name


# -- hostile shapes: linear time, bounded memory ------------------------------------------
def _hist_raw(items: list[tuple[str, str]], step: int = 1) -> bytes:
    from helpers.livefiles import _ld, _varint

    body = b"".join(
        _ld(1, _ld(2, k.encode()) + _varint(16 << 3 | 2) + _varint(len(v.encode())) + v.encode()) for k, v in items
    )
    return _ld(2, body + _ld(2, b"\x08" + _varint(step)))


@pytest.mark.parametrize("shape", ["long_key", "long_number", "deep_json", "many_items", "many_keys"])
@pytest.mark.slow
def test_hostile_rows_take_linear_time(shape):
    n = 1 << 20
    rows = {
        "long_key": [_hist_raw([("k" * n, "1.5"), ("loss", "2.0")])],
        "long_number": [_hist_raw([("loss", "1" * n)])],
        "deep_json": [_hist_raw([("train", '{"a":' * 100_000 + "1" + "}" * 100_000), ("loss", "1.0")])],
        "many_items": [_hist_raw([(f"m{i}", "1.0") for i in range(100_000)] + [("loss", "1.0")])],
        "many_keys": [_hist_raw([(f"sample_{s}", "1.0"), ("loss", "1.0")], s) for s in range(1, 20_000)],
    }[shape]
    data = wb_frame(rows)
    t = time.perf_counter()
    r = WandbRunReader("x/run-abc.wandb")
    out = list(expand(r.feed_chunk(data))) + r.flush()
    assert time.perf_counter() - t < 3.0  # (a hang guard: these take ~0.1 s)
    assert len(r._keys) <= 4096
    if shape == "long_number":  # a loss no float holds: the row is a counted skip
        assert out == [] and r.skip_reasons == {"number out of range": 1}
    else:
        assert out and out[-1].loss == (2.0 if shape == "long_key" else 1.0)


def test_a_record_that_never_ends_is_bounded(monkeypatch):
    import tsm_tui.sources.wandb_run as wr

    monkeypatch.setattr(wr, "MAX_RECORD", 100_000)
    big = wb_history(1, {"loss": 1.0, "note": json.dumps("x" * 300_000)})
    data = wb_frame([big, wb_history(2, {"loss": 1.0})], max_chunk=4000)
    got, why = _rows(data)
    assert got == [2] and why["record over 0 MiB"] == 1 and r_parts_dropped(why)


def r_parts_dropped(why: dict) -> bool:
    # the record's remaining parts after the bound are orphans of a record already counted
    return set(why) <= {"record over 0 MiB", "part of a record without its first part"}


def _same(a, b) -> bool:
    """Records equal, NaN equal to NaN."""
    import math as _m

    def norm(r):
        d = {k: getattr(r, k) for k in r.__slots__}
        return {k: ("nan" if isinstance(v, float) and _m.isnan(v) else v) for k, v in d.items() if k != "extra"} | {
            "extra": {k: ("nan" if _m.isnan(v) else v) for k, v in (r.extra or {}).items()}
        }

    return len(a) == len(b) and all(norm(x) == norm(y) for x, y in zip(a, b))


@pytest.mark.parametrize(
    "path", sorted(glob.glob(str(DATA / "sdk-*" / "*" / "wandb" / "*" / "run-*.wandb"))) + ["synthetic"]
)
def test_the_replay_path_gives_the_records_of_the_live_path(path):
    """feed_chunk (columns, Frames) and feed_bytes (one record per row) agree row for row,
    whatever the chunking, with irregular rows (text, dicts) among regular ones."""
    if path == "synthetic":
        recs = []
        for s in range(300):
            row = {"train/loss": "NaN" if s == 77 else 2.0 + 1 / (s + 1), "train/grad_norm": 0.5, "acc": 0.1}
            if s % 50 == 7:
                row["sample"] = json.dumps("the model says hello")
            if s % 90 == 3:
                row["nested"] = '{"loss": 1.0}'
            if 120 <= s < 130:
                row.pop("acc")
            recs.append(wb_history(s, row))
        data = wb_frame(recs)
    else:
        data = open(path, "rb").read()
    live = WandbRunReader(path if path != "synthetic" else "x/run-abc.wandb")
    want = [r for r in live.feed_bytes(data) + live.flush() if not (r.source or "").endswith("#console")]
    # (the exit record's text event goes with the console's records on the chunk path: compared apart)
    want_events = [r for r in want if isinstance(r, TextEvent)]
    want = [r for r in want if not isinstance(r, TextEvent)]
    for cut in (len(data), 4096, 70000):
        rep = WandbRunReader(live.path)
        got = []
        for i in range(0, len(data), cut):
            got += rep.feed_chunk(data[i : i + cut])
        got += rep.flush()
        got = [r for r in expand(got) if not (r.source or "").endswith("#console")]
        assert [r for r in got if isinstance(r, TextEvent)] == want_events, cut
        got = [r for r in got if not isinstance(r, TextEvent)]
        assert _same(got, want), cut
        assert rep.records == live.records and rep.skip_reasons == live.skip_reasons


@pytest.mark.parametrize("others", [False, True])
def test_live_a_run_resumed_into_a_new_run_dir_goes_on_as_one_run(tmp_path, others):
    """Followed live (the loop ``--follow`` and the TUI build): the second process's run
    dir appears while the first is watched; its rows go on in the same run and monitor
    (no new run, no resume), alone or beside another run."""
    from tsm_tui.core.options import Options
    from tsm_tui.sources.tail import Tailer
    from tsm_tui.analysis.live_open import open_loop

    src = DATA / SDKS[-1] / "resumed" / "wandb"
    first, second = sorted(src.iterdir())
    (tmp_path / "wandb").mkdir()
    shutil.copytree(first, tmp_path / "wandb" / first.name)
    if others:
        shutil.copytree(DATA / SDKS[-1] / "plain_nan" / "wandb", tmp_path / "other" / "wandb")
    tailer = Tailer(str(tmp_path), interval=0.2)
    loop = open_loop(Options(path=str(tmp_path)), tailer)
    tailer.start_thread()

    def mine():
        return [r for r in loop.runs.values() if "tsmresume1" in r.name or not others]

    def pump(n):
        poll_until(lambda: sum(r.records for r in mine()) >= n, 10, every=0.05, tick=loop.step)

    try:
        pump(60)
        shutil.copytree(second, tmp_path / "wandb" / second.name)
        pump(120)
        assert len(mine()) == 1 and len(loop.runs) == (2 if others else 1)
        mon = mine()[0].session.monitor
        assert (mon.state.first_step, mon.state.last_step, mon.records) == (0, 119, 120)
        assert not mon.state.resumes
    finally:
        tailer.stop()


def test_a_hostile_run_config_is_bounded_like_every_config(monkeypatch):
    """The run's config inside the run file goes through the same bounds as a config file:
    a 100k-deep value or 400-digit counts are ignored (said), the rows still read."""
    from helpers.livefiles import _ld

    def cfg(items):
        return _ld(5, b"".join(_ld(1, _ld(1, k.encode()) + _ld(16, v.encode())) for k, v in items))

    deep = "[" * 5000 + "]" * 5000
    huge = "1" + "0" * 5000
    data = wb_frame(
        [
            cfg([("max_steps", huge), ("learning_rate", "3e-4"), ("tree", deep)]),
            wb_history(0, {"loss": 2.0}),
            wb_history(1, {"loss": 1.9}),
        ]
    )
    r = WandbRunReader("x/run-abc.wandb")
    out = r.feed_bytes(data) + r.flush()
    assert [x.step for x in out] == [0, 1]
    assert "total_steps" not in r.run_info and r.run_info.get("peak_lr") == 3e-4
    # the deep item: a JSON error (the parser's recursion limit) or the depth bound, by interpreter state
    assert not any("tree" in k for k in r.config) or r.config.get("tree") is None
    # a key per step in the config: re-read when it grew by a quarter, not at every key
    import tsm_tui.sources.wandb_run as wr

    reads = []
    orig = wr.tracker_facts
    monkeypatch.setattr(wr, "tracker_facts", lambda m, origin: (reads.append(len(m)), orig(m, origin))[1])
    r2 = WandbRunReader("x/run-abc.wandb")
    r2.feed_bytes(wb_frame([cfg([(f"k{i}", "1")]) for i in range(3000)]))
    r2.flush()
    assert 256 < len(reads) < 256 + 20 and reads[-1] == 3000


def test_a_row_without_the_scripts_step_key_stays_on_its_axis():
    """fresh62's 3DINO runs log ``iteration`` (10 x the row) with every training row, then a test row
    without it: its ``_step`` (136) was read as a step back from 1250, a resume, and the plateau judged
    that one row. A row that lacks the step key the rows before it had is at that key's last value."""
    recs = [wb_history(s, {"train/loss": 2.0 + 1.0 / (s + 1), "iteration": 10 * s}) for s in range(126)]
    recs.append(wb_history(126, {"test/loss": 2.5}))
    r = WandbRunReader("x/run-abc.wandb")
    got = [(x.step, x.val_loss) for x in list(expand(r.feed_chunk(wb_frame(recs)))) + r.flush()]
    assert [s for s, _ in got] == [10 * s for s in range(126)] + [1250] and got[-1][1] == 2.5
    assert r.step_source == "iteration" and not r.skip_reasons
    # a counter on the evaluation rows only: the training rows keep their _step (never folded onto one)
    recs = [wb_history(s, {"train/loss": 2.0 + 1.0 / (s + 1)}) for s in range(50)]
    recs[10:10] = [wb_history(10, {"val/loss": 2.4, "iteration": 100})]
    r = WandbRunReader("x/run-abc.wandb")
    got = [x.step for x in list(expand(r.feed_chunk(wb_frame(recs)))) + r.flush() if x.loss is not None]
    assert got == list(range(50))


def test_a_ppo_runs_mean_losses_are_its_terms():
    """fresh62's pendulum PPO logs ``train/mean value loss`` and ``train/mean policy loss`` (the means over
    an update's minibatches) and no other loss: its 627 rows read as none ("nothing judged"). A mean
    of a named term, the word first, is the term: the policy loss is the objective, the value loss checked."""
    from tsm_tui.sources.fields import loss_role

    assert loss_role("train/mean policy loss") == "actor" and loss_role("train/mean value loss") == "model"
    assert loss_role("avg_kl_loss") == "term"
    # a statistic of the total is still none ("mean_loss", "loss_mean", "train/avg_loss")
    assert loss_role("train/mean_loss") is None and loss_role("loss_mean") is None
    recs = [
        wb_history(
            s, {"train/mean value loss": 1.0 / (s + 1), "train/mean policy loss": -0.01, "train/timesteps": 2048 * s}
        )
        for s in range(40)
    ]
    got, why = _rows(wb_frame(recs))
    assert len(got) == 40 and not why


def test_a_console_read_beside_the_chosen_history_counts_as_read(tmp_path):
    """A W&B run file whose history is chosen over its console channel: the console was read all the same, so
    the Crash check judges it ("no crash or error lines"), not "no console output read" (fresh71's PaiNN run,
    once its console no longer read each epoch's loss twice)."""
    recs = []
    for s in range(60):
        recs.append(wb_history(s, {"train_loss": 2.0 - s / 100, "val loss": 2.1 - s / 120}))
        recs.append(wb_output(f"Epoch {s + 1}/1000 finished\n"))
    d = tmp_path / "wandb" / "run-20231124_143910-1dm6u6x4"
    d.mkdir(parents=True)
    (d / "run-1dm6u6x4.wandb").write_bytes(wb_frame(recs))
    p = subprocess.run(CLI + [str(tmp_path), "--report", "--json"], capture_output=True, text=True, timeout=60)
    rep = json.loads(p.stdout)
    (used,) = [f for f in rep["files"] if f["used"]]
    assert used["format"] == "wandb" and rep["steps"]["count"] == 60
    crash = next(c for c in rep["checks"] if c["id"] == "crash")
    assert crash["status"] == "PASS", crash
