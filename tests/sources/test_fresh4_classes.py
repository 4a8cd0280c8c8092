"""Reader classes the fourth held-out set (``bench/corpus/fresh4``, notes/fresh4.md §4.A4-A7)
showed missing: a ``.txt`` console not scanned for its crash, UTF-16 / UTF-32 text called
binary, records dropped after a prose line that names a step, an epoch label that lags one
record at each boundary, summary / evaluation blocks read as training records. Real lines
(quoted from the frameworks' logs, or printed by their format strings) and lines that must not
be read so."""

from __future__ import annotations

import codecs
import json
import os

import pytest

from tsm_tui.cli import main
from tsm_tui.sources import head, registry
from helpers.paths import BENCH

from test_formats import read, write  # noqa: E402

FRESH4 = os.path.join(BENCH, "corpus", "fresh4")

# -- A4: a .txt console, UTF-16 / UTF-32 text ------------------------------------------------------
TRACEBACK = (
    "step 1 starting\n"
    "Traceback (most recent call last):\n"
    '  File "train_gpt.py", line 1, in <module>\n'
    "RuntimeError: No available kernel. Aborting execution.\n"
)


def _report(path, capsys) -> tuple[int, dict | str]:
    code = main([str(path), "--report", "--json"])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if code in (0, 1) else cap.err)


@pytest.mark.parametrize("name", ["training_output.txt", "train.log", "cout.txt", "console-rank0.txt"])
def test_a_console_with_a_crash_and_no_metric_is_read_for_it_whatever_its_extension(tmp_path, capsys, name):
    code, d = _report(write(tmp_path, name, TRACEBACK), capsys)
    assert code == 1, d
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert (
        c["status"] == "FAIL"
        and "before its first logged step" in c["summary"]
        and "No available kernel" in c["summary"]
    )


def test_a_txt_with_nothing_says_it_was_read_for_crash_lines(tmp_path, capsys):
    code, err = _report(write(tmp_path, "output.txt", "loading data\nbuilding model\n"), capsys)
    assert code == 2 and "read for crash lines only" in err


@pytest.mark.parametrize("name", ["requirements.txt", "README.txt", "notes.txt", "vocab.txt", "LICENSE.txt"])
def test_documents_named_txt_are_not_consoles(tmp_path, capsys, name):
    # a quoted traceback in notes or a requirements list is no crash of a run
    code, err = _report(write(tmp_path, name, TRACEBACK), capsys)
    assert code == 2 and "crash lines" not in err


@pytest.mark.parametrize(
    "enc,bom",
    [
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
        ("utf-16-le", b""),  # BOM-less: every other byte NUL under ASCII
    ],
)
def test_a_tiny_wide_text_file_is_text_not_binary(tmp_path, capsys, enc, bom):
    p = tmp_path / "training_output.txt"
    p.write_bytes(bom + TRACEBACK.replace("\n", "\r\n").encode(enc))
    h = head.sample_head(str(p), registry.BINARY)
    assert h.lines is not None and h.lines[0] == "step 1 starting" and h.hole == 0
    code, d = _report(p, capsys)
    assert code == 1, d
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert c["status"] == "FAIL" and "No available kernel" in c["summary"]
    f = d["files"][0]
    assert "skip_reasons" not in f, f  # its NUL bytes are text, not a hole; its BOM no bad byte


def test_wide_records_read_whole_with_non_ascii_text(tmp_path):
    # UTF-16 LE with a BOM and CRLF, as PowerShell's Tee-Object writes it; a non-ASCII name on
    # every line (each byte pair of "é" / "损" is no ASCII): every record and value read
    text = "".join(f"step {s} | loss {3 - s / 100:.4f} | modèle 损失\r\n" for s in range(1, 41))
    p = tmp_path / "train.log"
    p.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    _, recs, reader = read(p)
    assert [r.step for r in recs] == list(range(1, 41))
    assert recs[-1].loss == pytest.approx(2.6)
    assert reader.skipped == 0 and not reader.skip_reasons


def test_wide_encoding_needs_its_evidence():
    assert head.wide_encoding(codecs.BOM_UTF8 + b"step 1 loss 2") is None
    assert head.wide_encoding(b"step 1 loss 2.0\n") is None
    assert head.wide_encoding("ok".encode("utf-16-le")) is None  # (4 bytes: too few to tell)
    assert head.wide_encoding(b"\x00" * 64) is None  # a hole, not text
    assert head.wide_encoding("步骤 1 损失 2.0".encode("utf-16-le")) is None  # only a BOM names non-ASCII
    assert head.wide_encoding("step 10 loss 2.0".encode("utf-16-le")) == "utf-16-le"


def test_the_real_powershell_capture_reports_its_crash(capsys):
    p = os.path.join(FRESH4, "paramgolf_utf16_powershell_crash", "training_output.txt")
    if not os.path.exists(p):
        pytest.skip("bench/corpus/fresh4 not present")
    code, d = _report(p, capsys)
    assert code == 1
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert c["status"] == "FAIL" and "No available kernel" in c["summary"]


# -- A6: an epoch label that lags one record at each boundary ------------------------------------
# ppgan/engine/trainer.py's format: "Epoch: {}/{}, iter: {}/{}" then "lr: ..." and the losses
# ("%s: %.3f"); the label is computed from the iteration before the counter moves on, so the
# first record of each epoch still carries the last epoch's label (fresh4 paddlegan workerlog.0
# lines 522-536: "Epoch: 1/100, iter: 980/989", "Epoch: 1/100, iter: 1/989", "Epoch: 2/100, iter: 11/989")
def _ppgan(epochs: int, per: int = 989, every: int = 10) -> str:
    out = []
    for g in range(every, epochs * per + 1, every):
        it = (g - 1) % per + 1
        label = (g - every - 1) // per + 1 if g > every else 1  # one interval behind
        out.append(
            f"[05/20 05:16:07] ppgan.engine.trainer INFO: Epoch: {label}/100, iter: {it}/{per} lr: 2.000e-04 "
            f"perceptual: 102.727 equivariance_value: 0.110 loss: {3 - g / 10000:.4f} batch_cost: 1.31 sec "
            f"reader_cost: 0.00 sec ips: 3.04 images/s eta: 14 days"
        )
    return "\n".join(out) + "\n"


def test_a_lagging_epoch_label_is_no_resume(tmp_path, capsys):
    p = write(tmp_path, "workerlog.0", _ppgan(3))
    _, recs, _ = read(p)
    steps = [r.step for r in recs]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert steps[:3] == [10, 20, 30] and 990 in steps and steps[-1] == 2960
    code, d = _report(p, capsys)
    assert code in (0, 1) and not d.get("launches"), d.get("launches")


@pytest.mark.parametrize("strict", [False, True])
def test_the_epoch_rule_takes_one_lagging_label(strict):
    from tsm_tui.sources.epoch_steps import EpochCounter

    c = EpochCounter(strict)
    seq = [(1, 970), (1, 980), (1, 1), (2, 11), (2, 21), (2, 971), (2, 981), (2, 2), (3, 12)]
    assert [c.step(e, 100, n, 989)[0] for e, n in seq] == [970, 980, 990, 1000, 1010, 1960, 1970, 1980, 1990]
    assert c.mode == "epoch"
    # the epoch's length not printed: known from the first epoch (300 at an interval of 100)
    c = EpochCounter(strict)
    seq = [(1, 100), (1, 200), (1, 300), (2, 100), (2, 200), (2, 300), (2, 50), (3, 150)]
    assert [c.step(e, None, n, None)[0] for e, n in seq] == [100, 200, 300, 400, 500, 600, 650, 750]


def test_a_restart_of_the_same_epoch_is_not_taken_for_a_lag():
    from tsm_tui.sources.epoch_steps import EpochCounter

    # out of rhythm: iter 30 of 989, then iter 1 under the same label (a relaunch of epoch 1)
    c = EpochCounter()
    assert [c.step(1, None, n, 989)[0] for n in (10, 20, 30, 1, 11)] == [10, 20, 30, 1, 11]
    # a global counter never lags: it only grows, a smaller one is a resume
    c = EpochCounter()
    seq = [(1, 980), (1, 990), (2, 1000), (2, 1010), (2, 5)]
    assert [c.step(e, None, n, None)[0] for e, n in seq] == [980, 990, 1000, 1010, 5]
    # a validation counter of another length under the same label is no wrap of this one
    c = EpochCounter()
    assert [c.step(1, None, n, p)[0] for n, p in ((980, 989), (989, 989), (5, 50))] == [980, 989, 5]


# -- A5: a prose line naming a step between records that carry their own counter ----------------
# JAX-CFD's train.py through absl logging (fresh4 jaxcfd_absl_train_dicts lines 172, 274):
# logging.info('[Train %d/%d] %s', step, num_steps, metrics) and flax's checkpoints.py
# "Saving checkpoint at step: %s"
def _absl(n: int, every: int, save_at: tuple[int, ...], counter: bool = True) -> str:
    out = []
    for s in range(every, n * every + 1, every):
        head = f"[Train {s}/{n * every}] " if counter else ""
        out.append(
            f"I1216 14:22:57.913980 139628846601088 train.py:577] {head}{{'grads_finite': 1.0, "
            f"'loss_scale': 1.0, 'train_loss': {0.0077 - s * 1e-6!r}}}"
        )
        if s in save_at:
            out.append(f"I1216 14:32:56.861886 139628846601088 checkpoints.py:120] Saving checkpoint at step: {s}")
    return "\n".join(out) + "\n"


def test_a_checkpoint_line_swallows_no_record_and_the_counter_is_the_step(tmp_path):
    _, recs, reader = read(write(tmp_path, "train_log.txt", _absl(188, 10, (1000, 1880))))
    assert [r.step for r in recs] == list(range(10, 1881, 10))
    assert reader.skipped == 0 and reader.inferred_steps == 0
    assert reader.run_info.get("total_steps") in (1880, "1880")


def test_counted_dict_records_keep_their_axis_past_a_prose_step(tmp_path):
    # the same records without their counter: counted one by one, a "step: 100" line between them
    # moves nothing and takes nothing
    _, recs, reader = read(write(tmp_path, "train.log", _absl(30, 10, (100,), counter=False)))
    assert [r.step for r in recs] == list(range(1, 31)) and reader.skipped == 0


def test_an_evaluation_counter_before_a_dict_is_no_training_step(tmp_path):
    text = _absl(10, 10, ()) + "I1216 14:50:00.000000 1 train.py:600] [Eval 3/10] {'eval_loss': 0.5}\n"
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs if r.loss is not None][-1] == 100
    assert all(r.step != 3 for r in recs)


def test_the_real_absl_log_reads_every_record():
    p = os.path.join(
        os.environ.get("TSM_SHARED", "/work/shared"),
        "corpus_private",
        "fresh4",
        "jaxcfd_absl_train_dicts",
        "train_log.txt",
    )
    if not os.path.exists(p):
        pytest.skip("private corpus not present")
    _, recs, reader = read(p)
    steps = [r.step for r in recs if r.loss is not None]
    assert len(steps) == 188 and steps[0] == 10 and steps[-1] == 1880 and reader.skipped == 0
