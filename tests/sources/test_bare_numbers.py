"""Bare-number metric files (``sources.bare_numbers``): one value per line, the metric named by
the file's name only, step = line index. The class the held-out set fresh12 found unread (exit 2
"no training metrics recognised", notes/fresh12.md logs 7 and 9).

Real files: ``bench/corpus/fresh12/ssd_loss_txt_bare_per_iteration/loss.txt`` (an SSD detector's
per-iteration loss, 20,923 lines) and ``bench/corpus/fresh12/txt_folder_ecg_denoise_sigmoid_flat/
resultsSigmoid/`` (a Keras ECG denoiser's ten per-metric files of 1,000 epochs), both committed
there with their licences in ``bench/corpus/fresh12/SOURCES.md`` (MIT / Apache-2.0).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from pathlib import Path

import pytest
from helpers.reports import report_json, report_rc
from test_formats import write  # noqa: E402

from tsm_tui.analysis.run_open import open_runs
from tsm_tui.sources import log_files, registry
from tsm_tui.sources.bare_numbers import BareNumbersReader, bare_content, bare_head, list_head, metric_name
from tsm_tui.sources.reading import read_records

ROOT = Path(__file__).resolve().parents[2]
F12 = ROOT / "bench" / "corpus" / "fresh12"
SSD = F12 / "ssd_loss_txt_bare_per_iteration" / "loss.txt"
ECG = F12 / "txt_folder_ecg_denoise_sigmoid_flat" / "resultsSigmoid"
LLMC = ROOT / "tests" / "data" / "real" / "llmc_main.log"

pytestmark = pytest.mark.skipif(not SSD.exists() or not ECG.is_dir(), reason="bench/corpus/fresh12 not present")


def excerpt(n: int) -> str:
    """The first ``n`` lines of the SSD loss.txt (as committed)."""
    with open(SSD) as f:
        return "".join(next(f) for _ in range(n))


def used(rep: dict) -> list[dict]:
    return [f for f in rep["files"] if f["used"]]


# ------------------------------------------------------------------ the two real logs
def test_a_lone_loss_txt_is_one_series_stepped_by_line_number(capsys):
    rc, rep, err = report_rc(SSD.parent, capsys)
    assert rc in (0, 1) and rep is not None, err
    (src,) = used(rep)
    assert src["format"] == "bare-numbers" and src["records"] == 20923 and src["skipped_lines"] == 0
    assert src["step_source"].startswith("line number")
    assert rep["steps"]["last"] == 20922 and rep["steps"]["count"] == 20923 and rep["steps"]["records"] == 20923
    # two runs appended (the loss back at its first line's ~21 at lines 179 and 20,814, falling
    # along the start's curve again): with no step of their own they are found by their loss
    # (analysis/launches.py, replay), and the checks judge the last (fresh12's label: healthy;
    # before, its jump back to ~21 read "spike at step 20814 turned into divergence", FAIL)
    assert [(s["kind"], s["first"], s["last"]) for s in rep["launches"]] == [
        ("start", 0, 178),
        ("new run", 179, 20813),
        ("new run", 20814, 20922),
    ]
    assert rep["steps"]["first"] == 20814
    st = {c["id"]: c["status"] for c in rep["checks"]}
    assert st["nonfinite"] == "PASS" and st["loss_spike"] == "PASS"


def test_the_lone_file_given_alone_reads_the_same(capsys):
    rc, rep, _ = report_rc(SSD, capsys)
    assert rc in (0, 1) and rep is not None
    assert used(rep)[0]["records"] == 20923
    recs = list(read_records(str(SSD), BareNumbersReader(str(SSD))))
    assert [r.step for r in recs[:3]] == [0, 1, 2]
    assert recs[0].loss == pytest.approx(21.28346061706543) and recs[-1].step == 20922


def test_a_folder_of_metric_files_is_one_run_joined_by_line_index(capsys):
    rc, rep, err = report_rc(ECG.parent, capsys)
    assert rc in (0, 1) and rep is not None, err
    (src,) = used(rep)
    assert src["format"] == "bare-numbers" and src["path"] == str(ECG) and src["records"] == 1000
    assert rep["sources"]["loss"]["key"] == "loss" and rep["sources"]["val_loss"]["key"] == "val_loss"
    # the loss terms are checked beside the total; the files named as no metric are named, not read
    assert "mad_loss" in src["objective"] and "ssd_loss" in src["objective"]
    assert "mean_absolute_error.txt" in src["left_out"] and "val_ssd_loss.txt" in src["left_out"]
    assert not any(f["path"].endswith(".txt") for f in rep["files"])  # (each was a console file before)
    st = {c["id"]: c["status"] for c in rep["checks"]}
    assert st["plateau"] in ("WARN", "FAIL") and st["overfitting"] != "SKIP"  # labelled plateau 0..999


def test_discovery_offers_the_folder_not_its_files():
    found = log_files.candidate_files(str(ECG.parent))
    assert found == [str(ECG)]
    assert log_files.candidate_files(str(SSD.parent)) == [str(SSD.parent)]  # (one file: still its folder)


def test_two_run_folders_of_metric_files_are_two_runs(tmp_path):
    for name in ("exp1", "exp2"):
        shutil.copytree(ECG, tmp_path / name)
    assert sorted(r.name for r in open_runs(str(tmp_path))) == ["exp1", "exp2"]


# ------------------------------------------------------------------ what is not this format
def test_names_that_are_no_metric_are_never_a_loss(tmp_path, capsys):
    """``numbers.txt``, ``ids.txt``, ``labels.txt`` of bare integers (and of the SSD losses
    themselves): no name rule makes them a metric, so nothing is read as a loss."""
    ints = "".join(f"{i}\n" for i in range(3000, 3200))
    for name in ("numbers.txt", "ids.txt", "labels.txt"):
        d = tmp_path / name.split(".")[0]
        d.mkdir()
        (d / name).write_text(ints)
        (d / "values.txt").write_text(excerpt(200))
        assert metric_name(name) is None
        rc, rep, _ = report_rc(d, capsys)
        assert rc == 2 or not any(f["format"] == "bare-numbers" for f in rep["files"])
    (tmp_path / "epochs").mkdir()
    (tmp_path / "epochs" / "epoch.txt").write_text(ints)  # a field, but no run by itself
    assert BareNumbersReader.sniff(str(tmp_path / "epochs" / "epoch.txt"), ints.splitlines()) == 0.0
    assert metric_name("loss.txt") == "loss" and metric_name("val_loss.txt") == "val_loss"
    assert metric_name("lr.txt") == "lr" and metric_name("grad_norm.txt") == "grad_norm"


def test_a_file_with_text_in_its_head_is_not_this_format():
    head = excerpt(20).splitlines()
    assert bare_head(head) and bare_head(["nan", "-inf", "Infinity", "3.5e+01", "", "7"])
    assert not bare_head(head[:5] + ["Epoch 1: loss 2.1"] + head[5:])
    assert not bare_head(["", "  "])


def test_a_real_log_beside_a_loss_txt_wins(tmp_path, capsys):
    """A run folder with a real log and a loss.txt: the real log is the run's source; the
    loss.txt is not read (its steps, the line index, would not be the log's)."""
    shutil.copy(LLMC, tmp_path / "main.log")
    (tmp_path / "loss.txt").write_text(excerpt(500))
    (tmp_path / "val_loss.txt").write_text(excerpt(50))
    assert log_files.candidate_files(str(tmp_path)) == [str(tmp_path / "main.log")]
    rc, rep, _ = report_rc(tmp_path, capsys)
    assert rc in (0, 1) and [f["format"] for f in used(rep)] == ["llmc"]


# ------------------------------------------------------------------ bad input never raises
def test_bad_input_is_counted_never_raised(tmp_path, capsys):
    head = excerpt(300)
    d = tmp_path / "run"
    d.mkdir()
    # NUL bytes in the middle, a number out of range, a file that turns into text half way
    (d / "loss.txt").write_bytes(head.encode() + b"2.5\x00\x00\n" + b"1e400\n" + b"9" * 500 + b"\n")
    (d / "val_loss.txt").write_text(excerpt(100) + "Traceback (most recent call last):\n  File x\n" * 50)
    (d / "lr.txt").write_text("")
    rc, rep, err = report_rc(d, capsys)
    assert rc in (0, 1) and rep is not None and "Traceback" not in err
    (src,) = used(rep)
    assert src["format"] == "bare-numbers"
    assert src["skip_reasons"]["line is not a bare number"] == 100
    assert src["skip_reasons"]["number out of range"] == 2  # 1e400 and 10^500
    assert src["skip_reasons"]["NUL bytes dropped"] == 1
    # (the excerpt holds the SSD file's second run from line 179: the checks judge it)
    assert [(s["kind"], s["first"]) for s in rep["launches"]] == [("start", 0), ("new run", 179)]


def test_nan_and_inf_lines_are_values(tmp_path, capsys):
    lines = excerpt(300).splitlines()
    lines[250] = "nan"
    lines[260] = "inf"
    (tmp_path / "loss.txt").write_text("\n".join(lines) + "\n\n")
    rc, rep, _ = report_rc(tmp_path, capsys)
    assert rc == 1 and rep is not None
    (src,) = used(rep)
    assert src["records"] == 300 and src["skip_reasons"] == {"blank line (no value; its line index kept)": 1}
    nan = next(c for c in rep["checks"] if c["id"] == "nonfinite")
    assert nan["status"] == "FAIL" and "250" in nan["summary"]


def test_a_fifo_named_loss_txt_does_not_block(tmp_path, capsys):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp_path / "loss.txt")
    (tmp_path / "val_loss.txt").write_text(excerpt(50))
    t0 = time.monotonic()
    found = log_files.candidate_files(str(tmp_path))
    rc, rep, err = report_rc(tmp_path, capsys)
    assert time.monotonic() - t0 < 30 and "Traceback" not in err
    assert found[0] == str(tmp_path)  # (val_loss.txt; the FIFO is never opened: said as before, "not a regular file")
    reader, info = registry.open_reader(str(tmp_path / "loss.txt"))
    assert reader is None


# ------------------------------------------------------------------ live
def test_a_folder_of_metric_files_is_followed_live(tmp_path, tail):
    """The trainer appends a line per epoch to each file: the tailer re-reads the folder and
    delivers the new steps only."""
    lines = excerpt(60).splitlines(keepends=True)
    run = tmp_path / "results"
    run.mkdir()
    (run / "loss.txt").write_text("".join(lines[:20]))
    (run / "val_loss.txt").write_text("".join(lines[:20]))
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == list(range(20))), c.notes
    for i in range(20, 60):
        for name in ("loss.txt", "val_loss.txt"):
            with open(run / name, "a") as f:
                f.write(lines[i])
        time.sleep(0.005)
    assert c.wait_for(lambda: c.all_steps()[-1:] == [59]), (c.all_steps()[-5:], c.notes)
    assert sorted(set(c.all_steps())) == list(range(60))
    last = c.records[-1]
    assert last.loss == pytest.approx(float(lines[59])) and last.val_loss == pytest.approx(float(lines[59]))


def test_a_lone_loss_txt_is_followed_live(tmp_path, tail):
    lines = excerpt(42).splitlines(keepends=True)
    p = tmp_path / "loss.txt"
    p.write_text("".join(lines[:10]))
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == list(range(10))), c.notes
    with open(p, "a") as f:
        f.write("".join(lines[10:40]) + "nan\n")
    assert c.wait_for(lambda: c.all_steps()[-1:] == [40]), c.notes
    assert c.all_steps() == list(range(41)) and math.isnan(c.records[-1].loss)
    # a second metric file appears: the same source (the folder), the new steps only
    (tmp_path / "val_loss.txt").write_text("".join(lines[:42]))
    with open(p, "a") as f:
        f.write(lines[41])
    assert c.wait_for(lambda: c.all_steps()[-1:] == [41]), c.notes
    assert list(c.steps) == [str(tmp_path)] and c.records[-1].val_loss == pytest.approx(float(lines[41]))


# ------------------------------------------------------------------ one list of numbers
# A file that is one Python / JSON list (``f.write(str(losses))``; fresh14's ResNet-18 ``train_loss.txt``
# is private, no licence: the files below are written by us in its shape).
def resnet_losses(n: int) -> list[float]:
    """Per-batch losses in the ResNet-18 file's range (0.27-0.75; written by us)."""
    return [0.5 + 0.2 * math.sin(i * 1.7) + 0.00000001 * i for i in range(n)]


def test_a_python_list_file_is_one_series_stepped_by_index(tmp_path, capsys):
    vals = resnet_losses(3130)
    write(tmp_path / "run", "train_loss.txt", str(vals))
    rep = report_json(tmp_path / "run", capsys)
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["format"] == "bare-numbers" and src["records"] == 3130 and src["skipped_lines"] == 0
    assert src["step_source"].startswith("list index")
    assert rep["sources"]["loss"]["key"] == "train_loss"
    assert (rep["steps"]["first"], rep["steps"]["last"]) == (0, 3129)


@pytest.mark.parametrize(
    "text, want",
    [
        ("[0.5, 0.4, 0.3,]", [0.5, 0.4, 0.3]),  # Python's trailing comma
        ("[0.5, nan, inf, 0.3]", [0.5, math.nan, math.inf, 0.3]),  # str() of a list with a NaN
        ("[0.5, NaN, Infinity, -Infinity]", [0.5, math.nan, math.inf, -math.inf]),  # json.dump's
        ("[np.float64(0.5), np.float64(0.4)]", [0.5, 0.4]),  # NumPy 2 scalars in a list
        ("[\n  0.5,\n  0.4,\n  0.3\n]\n", [0.5, 0.4, 0.3]),  # json.dump(indent=2)
        ("[0.5, 0.4, 0.3", [0.5, 0.4, 0.3]),  # cut short (a copy taken mid-write)
    ],
)
def test_list_shapes(tmp_path, text, want):
    p = write(tmp_path, "loss.txt", text)
    assert bare_content(str(p))
    recs = list(read_records(str(p), BareNumbersReader(str(p))))
    got = [r.loss for r in recs]
    assert [r.step for r in recs] == list(range(len(want)))
    assert all((math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(got, want)), got


@pytest.mark.parametrize("text", ["[]", "[1, 2] [3]", "[0.5, 'a', 0.3]", "[0.5] epoch 3", "[tensor(0.5)]"])
def test_what_is_not_one_list_of_numbers(tmp_path, text):
    assert not bare_content(str(write(tmp_path, "loss.txt", text)))
    assert not list_head(text, cut=False)


def test_a_large_list_is_streamed_across_chunks(tmp_path):
    vals = resnet_losses(200_000)  # ~4 MB on one line: several LIST_CHUNKs, items cut between them
    p = write(tmp_path, "loss.txt", str(vals))
    r = BareNumbersReader(str(p))
    recs = r.read_path(str(p))
    assert len(recs) == 200_000 and r.skipped == 0
    assert [x.loss for x in recs[::9973]] == vals[::9973]
    assert recs[-1].step == 199_999 and recs[-1].loss == vals[-1]


@pytest.mark.slow
@pytest.mark.parametrize(
    "body",
    [
        b"[" + b"1" * (1 << 20),  # a 1 MiB number, the list never closed
        b"[" + b"1" * (3 << 20) + b", 0.5]",  # ... over several chunks, then a value
        b"[" + b" " * (3 << 20) + b"0.5",  # blanks
        b"[" + b"0.5, " * (1 << 14) + b"1" * (1 << 20),  # values, then a run of digits
    ],
    ids=["digits", "digits_then_value", "blanks", "values_then_digits"],
)
def test_hostile_list_files_are_linear_and_bounded(tmp_path, body):
    p = tmp_path / "loss.txt"
    p.write_bytes(body)
    t = time.perf_counter()
    r = BareNumbersReader(str(p))
    recs = r.read_path(str(p))
    assert time.perf_counter() - t < 5
    assert len(recs) in (0, 1, 1 << 14)  # the values before the run, or the one after it
    assert r.skipped <= 2


def test_a_json_list_named_as_a_metrics_history(tmp_path, capsys):
    """fresh19's Gemma fine-tune saved json.dump(losses) as loss_history.json (one list, indented):
    read "no training metrics recognised". A .json list is a list file too, and a name's history
    suffix names the metric before it."""
    assert metric_name("loss_history.json") == "loss" and metric_name("lr_values.txt") == "lr"
    assert metric_name("history.json") is None and metric_name("config.json") is None
    losses = [13.66, 13.69, 12.98] + [5.2 - i / 1000 for i in range(60)] + [9.9, 4.1, 4.0]
    (tmp_path / "loss_history.json").write_text("[\n" + ",\n".join(f"  {v}" for v in losses) + "\n]\n")
    d = report_json(tmp_path, capsys)
    assert d["steps"]["count"] == len(losses)
    # a .json of records named as a metric is still read as records (its content decides)
    (tmp_path / "loss_history.json").write_text(
        "".join(f'{{"step": {i}, "loss": {v}}}\n' for i, v in enumerate(losses))
    )
    assert not bare_content(str(tmp_path / "loss_history.json"))


@pytest.mark.parametrize("name", ["loss.log", "loss.csv", "train_loss.dat"])
def test_a_logging_handlers_bare_loss_log_is_read(tmp_path, capsys, name):
    """fresh26: ``logging.FileHandler('loss.log')`` with a bare "%(message)s" format, one loss a line,
    read "nothing readable" (only ``.txt`` / ``.json`` were bare-number files); a run at LR 0 never learns."""
    p = tmp_path / "run" / name
    p.parent.mkdir()
    p.write_text("".join(f"{0.41 + 0.002 * ((i * 7) % 5):.6f}\n" for i in range(282)))
    d = report_json(str(p.parent), capsys)
    assert d["steps"]["count"] == 282
    plateau = next(c for c in d["checks"] if c["id"] == "plateau")
    assert plateau["status"] in ("WARN", "FAIL"), plateau


def test_a_text_log_named_loss_log_is_not_bare_numbers(tmp_path):
    p = tmp_path / "loss.log"
    p.write_text("".join(f"epoch {e}, loss: {1 / e:.4f}\n" for e in range(1, 30)))
    from tsm_tui.sources import registry

    reader, _ = registry.open_reader(str(p))
    assert reader is not None and reader.name != "bare-numbers"


def test_the_plain_plural_losses_txt(tmp_path, capsys):
    # fresh31: "losses.txt" (the commonest name of all) was no metric name; "train_losses.txt" was
    p = tmp_path / "run" / "losses.txt"
    p.parent.mkdir()
    p.write_text("".join(f"{1.06 + 0.01 * ((i * 7) % 5):.6f}\n" for i in range(300)))
    d = report_json(str(p.parent), capsys)
    assert d["steps"]["count"] == 300 and d["sources"]["loss"]["key"] == "loss"


def test_rows_of_numbers_in_a_loss_file(tmp_path, capsys):
    """fresh31: np.savetxt("losses.txt", np.c_[train, val, epoch]) and a "loss<TAB>x" file read "nothing
    readable" (only one number a line was bare): the first column is the file's metric at its line; a
    first column of whole numbers rising on every row is the step, the second the metric."""
    p = tmp_path / "a" / "losses.txt"
    p.parent.mkdir()
    p.write_text("".join(f"{700 / (e + 1):.6f}\t{50 - e / 10:.6f}\t{e}\n" for e in range(91)))
    d = report_json(str(p.parent), capsys)
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (0, 90, 91)
    assert "first column is the file's metric" in d["files"][0]["step_source"]
    q = tmp_path / "b" / "loss.csv"
    q.parent.mkdir()
    q.write_text("".join(f"{s},{2 / (s + 1):.5f}\n" for s in range(10, 510, 10)))
    d = report_json(str(q.parent), capsys)
    assert (d["steps"]["first"], d["steps"]["last"]) == (10, 500)
    # whole numbers that start again (runs appended): the second column is the loss, at its line
    s2 = tmp_path / "s" / "loss_log.txt"
    s2.parent.mkdir()
    s2.write_text("".join(f"{n},{3 / (n + 1):.5f}\n" for n in range(32, 80)) * 2)
    from tsm_tui.sources import reading, registry

    reader, _ = registry.open_reader(str(s2.parent))
    vals = [r.loss for r in reading.read_records(str(s2.parent), reader) if r.loss is not None]
    assert len(vals) == 96 and max(vals) < 0.1  # (never a step read as a loss)
    # rows of different widths are no bare-number file (a table of another shape)
    r = tmp_path / "c" / "loss.txt"
    r.parent.mkdir()
    r.write_text("0.5\t1\n0.4\t2\t3\n" * 30)
    from tsm_tui.sources.bare_numbers import bare_content

    assert not bare_content(str(r))


def test_numpy_arrays_named_as_metrics(tmp_path, capsys):
    """``np.save("train_losses.npy", losses)`` beside ``val_losses.npy``: a folder of bare-number metric
    files in NumPy's format, read without unpickling (an object array is refused), the index the step;
    a file given alone too. A 2-D array or a header that is no NumPy header is not read."""
    import numpy as np

    from tsm_tui.cli import main

    losses = np.array([2.0 * math.exp(-i / 60) + 0.3 for i in range(200)])
    losses[120] *= 6
    np.save(tmp_path / "train_losses.npy", losses)
    np.save(tmp_path / "val_losses.npy", losses[:200] + 0.1)
    assert main([str(tmp_path), "--report", "--json"]) in (0, 1)
    rep = json.loads(capsys.readouterr().out)
    assert rep["steps"]["count"] == 200 and rep["sources"]["val_loss"]["key"] == "val_losses"
    assert [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"][:1] == [120]
    assert main([str(tmp_path / "train_losses.npy"), "--report", "--json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["steps"]["count"] == 200
    bad = tmp_path / "bad"
    bad.mkdir()
    np.save(bad / "loss.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    np.save(bad / "lr.npy", np.zeros((3, 4)))
    assert main([str(bad), "--report"]) == 2
    assert "no log files found" in capsys.readouterr().err


def test_a_counter_a_colon_and_a_value_a_line_is_a_step_and_its_loss(tmp_path, capsys):
    # fresh91's MCNet loss.txt: f"{step}:{loss}" every 10 steps ("0:0.462047"), read "no training metrics
    # recognised" (exit 2); a clock (no decimals) is never such a line
    d = tmp_path / "logs"
    d.mkdir()
    (d / "loss.txt").write_text("".join(f"{10 * i}:{0.5 - 0.001 * i:.6f}\n" for i in range(100)))
    rc, rep, err = report_rc(d, capsys)
    assert rc in (0, 1) and rep is not None, err
    assert rep["steps"]["first"] == 0 and rep["steps"]["last"] == 990 and rep["steps"]["count"] == 100
    (d / "loss.txt").write_text("".join(f"12:{i:02d}\n" for i in range(100)))
    rc, rep, err = report_rc(d, capsys)
    assert rep is None or rep["steps"]["count"] != 100


def test_a_counter_word_glued_to_loss_names_the_loss(tmp_path, capsys):
    # fresh94's ConvLSTM loop: "iterloss_log.txt", one float a line (as "iter_loss" apart), read "no training
    # metrics recognised"
    d = tmp_path / "log"
    d.mkdir()
    (d / "iterloss_log.txt").write_text("".join(f"{5.0 - 0.001 * i:.6f}\n" for i in range(300)))
    rc, rep, err = report_rc(d, capsys)
    assert rc in (0, 1) and rep is not None, err
    assert rep["steps"]["count"] == 300 and rep["sources"]["loss"]["key"] == "iterloss", rep["sources"]


def test_a_step_word_a_counter_a_colon_and_a_value_a_line(tmp_path, capsys):
    # fresh100's BBDM train_loss.txt: f"epoch {e}:{loss}" ("epoch 0:1655.5953185476483"), exit 2 before
    d = tmp_path / "results"
    d.mkdir()
    (d / "train_loss.txt").write_text("".join(f"epoch {e}:{1655.59 / (1 + e):.10f}\n" for e in range(89)))
    rc, rep, err = report_rc(d, capsys)
    assert rc in (0, 1) and rep is not None, err
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (0, 88, 89)
    assert rep["sources"]["loss"]["key"] == "train_loss"
    (d / "train_loss.txt").write_text("".join(f"epoch {e}: done in 12:{e % 60:02d}\n" for e in range(89)))
    rc, rep, err = report_rc(d, capsys)
    assert rep is None or rep["steps"]["count"] != 89  # (prose with a clock: no counter and value)


@pytest.mark.parametrize(
    "text",
    [
        ",".join(f'"{v}"' for v in (5.889, 6.09, 6.33, 6.57, 6.62, 6.49)),  # fresh100's losses.csv: quoted cells
        ",".join(str(v) for v in (5.889, 6.09, 6.33, 6.57, 6.62, 6.49)) + "\n",
        ", ".join(str(v) for v in (5.889, 6.09, 6.33, 6.57, 6.62, 6.49)) + ",\n\n",  # a trailing comma
    ],
)
def test_one_row_of_numbers_is_one_series_stepped_by_position(tmp_path, text):
    p = write(tmp_path, "losses.csv", text)
    assert bare_content(str(p))
    r = BareNumbersReader(str(p))
    recs = r.read_path(str(p))
    assert [x.step for x in recs] == list(range(6)) and [x.loss for x in recs] == [5.889, 6.09, 6.33, 6.57, 6.62, 6.49]
    assert r.skipped == 0 and r.describe()["step_source"].startswith("row position")


def test_a_long_row_is_streamed_and_rows_of_a_table_are_not_one_row(tmp_path, capsys):
    vals = resnet_losses(19_901)  # (fresh100's file: 19,901 quoted values on one line, ~400 KB)
    write(tmp_path / "results", "losses.csv", ",".join(f'"{v}"' for v in vals))
    rep = report_json(tmp_path / "results", capsys)
    assert rep["steps"]["count"] == 19_901 and rep["steps"]["last"] == 19_900
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["skipped_lines"] == 0 and src["step_source"].startswith("row position")
    # two rows of six: a table (or a matrix), not one series; a row with a word in it is no row of numbers
    assert not bare_content(str(write(tmp_path, "a/loss.csv", "1,2,3,4,5,6\n7,8,9,10,11,12\n")))
    assert not bare_content(str(write(tmp_path, "b/loss.csv", "1,2,3,loss,5,6\n")))


@pytest.mark.parametrize(
    "name,metric,index",
    [
        ("train_loss2.txt", "train_loss", 2),  # (fresh103's pose model: its sick re-run's file)
        ("val_loss-run2.txt", "val_loss", 2),
        ("loss12.csv", "loss", 12),
        ("loss.txt", "loss", None),
        ("fc1_loss.txt", "fc1_loss", None),  # (a metric's own name: no run number)
        ("ids3.txt", None, None),  # (no metric before the number)
        ("layer1.txt", None, None),
    ],
)
def test_a_run_number_after_a_metrics_name(name, metric, index):
    from tsm_tui.sources.bare_numbers import run_index

    assert metric_name(name) == metric
    assert run_index(name) == index


def test_a_second_runs_file_is_read_alone_and_named_beside_the_first(tmp_path, capsys):
    run2 = [2.4 * math.exp(-i / 200) + 0.5 for i in range(300)]
    run1 = [3.0 * math.exp(-i / 200) + 0.4 for i in range(200)]
    d = tmp_path / "logs"
    write(d, "train_loss2.txt", "".join(f"{v:.6f}\n" for v in run2))
    rep = report_json(d, capsys)
    assert rep["steps"]["count"] == 300 and rep["sources"]["loss"]["key"] == "train_loss"
    # beside the first run's train_loss.txt: that one is the folder's run, the re-run's file is named, never
    # joined to it by line index
    write(d, "train_loss.txt", "".join(f"{v:.6f}\n" for v in run1))
    rep = report_json(d, capsys)
    assert rep["steps"]["count"] == 200
    (src,) = [f for f in rep["files"] if f["used"]]
    assert "train_loss2.txt" in src["other_runs"]
    # ... and given alone it is read
    rep = report_json(d / "train_loss2.txt", capsys)
    assert rep["steps"]["count"] == 300
