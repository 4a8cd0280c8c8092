"""Classes the held-out set fresh12 (``bench/corpus/fresh12``, notes/fresh12.md "Every miss") showed in
the generic text reader:

1. print logs written as sentences, every number followed by a full stop (``epoch: 0. Minibatch: 100.
   Training loss: 1.2873549461364746.``, a denoising auto-encoder's notebook log: "nothing readable");
   ``Minibatch`` is a batch counter beside an epoch. That log is private (no licence): the lines below
   are written by us in its shape (its keys, its separators, its counters), not copied from it.
2. a non-finite value on a line of another shape than the records (``epoch 97, skip iteration 21, loss
   nan`` beside ``Epoch[97/800](20/500): Loss: ...``) got its counter alone as its step (21, not 48021),
   and a relaunch from epoch 1 appended to a file that began at epoch 97 was placed at negative steps
   ((1 - 97) x 500 + 20 = -47980). That log is committed (CrissyHoo/ECL @ 81bf92d, Apache-2.0):
   ``bench/corpus/fresh12/nohup_ddp_video_sr_nan_crash_loop/nohup.out``; the excerpts below are its lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tsm_tui.cli import main
from tsm_tui.sources.epoch_steps import EpochCounter
from tsm_tui.sources.generic_text import KeyValueTextReader, _sentence_stops

from test_formats import read, write  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NOHUP = ROOT / "bench" / "corpus" / "fresh12" / "nohup_ddp_video_sr_nan_crash_loop" / "nohup.out"


def feed(lines: list[str]) -> list:
    r = KeyValueTextReader("train.log")
    r.text_tap = None  # (the records only: no crash or checkpoint lines)
    out = []
    for ln in lines:
        out += r.feed(ln)
    return out + r.flush()


# ------------------------------------------------------------------ 1. sentence-style print logs
def dae_log(epochs: int = 3, per: int = 1000, every: int = 100) -> str:
    """A log in the DAE notebook's shape (written by us): a CUDA line, the notebook widget's repr, a
    record every ``every`` minibatches, a validation loss every 10 records, a torch warning."""
    out = ["CUDA is supported", "HBox(children=(IntProgress(value=0, max=1000), HTML(value='')))"]
    k = 0
    for e in range(epochs):
        for mb in range(0, per, every):
            loss = 4.212063789367676 if k == 0 else 0.8 + 0.01 * (k % 7)
            out.append(f"epoch: {e}. Minibatch: {mb}. Training loss: {loss}.")
            if k == 0:
                out.append(
                    "/home/u/.local/lib/python3.6/site-packages/torch/nn/functional.py:1332: UserWarning: "
                    "nn.functional.sigmoid is deprecated. Use torch.sigmoid instead."
                )
            if k % 10 == 0:
                out.append(f"Val loss: {1038.166259765625 + k}")
            k += 1
    return "\n".join(out) + "\n"


def test_a_sentence_style_log_is_read_with_its_epoch_and_minibatch(tmp_path):
    fmt, recs, reader = read(write(tmp_path, "log/train_DAE.log", dae_log()))
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    assert len(train) == 30
    # the epoch's length is the first epoch's last counter plus the logging interval (900 + 100):
    # epoch_steps.py, as every epoch / counter log whose length is not printed
    assert [r.step for r in train[:3]] == [0, 100, 200]
    assert train[10].step == 1000 and train[-1].step == 2 * 1000 + 900
    assert train[0].loss == pytest.approx(4.212063789367676)
    assert train[1].loss == pytest.approx(0.81)
    val = [r for r in recs if r.val_loss is not None]
    assert [r.step for r in val] == [0, 1000, 2000] and val[0].val_loss == pytest.approx(1038.166259765625)


def test_a_sentence_style_log_is_judged(tmp_path, capsys):
    write(tmp_path / "run", "log/train_DAE.log", dae_log(epochs=4, per=2000))
    rc = main([str(tmp_path / "run"), "--report", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    assert rep["steps"]["first"] == 0 and rep["steps"]["last"] == 3 * 2000 + 1900
    assert rep["steps"]["count"] == 80


@pytest.mark.parametrize(
    "line, want",
    [
        ("epoch: 0. Minibatch: 100. Training loss: 1.5.", "epoch: 0  Minibatch: 100  Training loss: 1.5 "),
        ("loss: 1. lr: 2e-05.", "loss: 1  lr: 2e-05 "),  # a float printed with no decimals: 1 either way
        ("loss: nan.", "loss: nan "),
        ("torch 1.13.1. CUDA 11.7.", "torch 1.13.1. CUDA 11.7 "),  # a version's last part is no number
        ("host 10.0.0.1. port: 29500.", "host 10.0.0.1. port: 29500 "),  # an address's neither
        ("saved model.100.pt. loss: 0.5.", "saved model.100.pt. loss: 0.5 "),
        ("loading resnet50. done", "loading resnet50. done"),  # a word's digits
        ("loss: 1.5... waiting", "loss: 1.5... waiting"),  # an ellipsis
        ("step 3.5e-3.x", "step 3.5e-3.x"),  # a stop before a letter: not a sentence's end
    ],
)
def test_only_a_number_that_ends_a_sentence_loses_its_stop(line, want):
    assert _sentence_stops(line) == want


def test_dotted_runs_are_not_read_as_numbers():
    # (a version, an address, a file name, an ellipsis: no record, as before)
    assert feed(["step: 5. version: 1.2.3.", "step: 6. host: 10.0.0.1.", "step: 7. saved: model.100.pt."]) == []
    assert feed(["step: 8. loss: 1.5..."]) == []
    (rec,) = feed(["Step 9. Loss: 0.25. Accuracy: 0.5."])
    assert (rec.step, rec.loss) == (9, 0.25)


def test_a_minibatch_counter_is_placed_in_its_epoch():
    recs = feed([f"Epoch {e}, Minibatch {b}, loss: 0.{e}{b}" for e in (1, 2) for b in (10, 20, 30)])
    assert [r.step for r in recs] == [10, 20, 30, 40, 50, 60]
    recs = feed([f"Epoch [{e}/5], Mini-batch [{b}/30], loss: 0.5" for e in (1, 2) for b in (10, 20, 30)])
    assert [r.step for r in recs] == [10, 20, 30, 40, 50, 60]


# ------------------------------------------------------------------ 2. a non-finite line of another shape
HEAD = [  # nohup.out's lines, as the file has them, a selection of its lines 9-84 (a launch's epoch / LR line,
    # its first record, the NaN warnings of two ranks, the traceback's first and last lines, the next launch's records)
    "Epoch=97, lr=0.00063625",
    "average time cost 35.06993476019966 ms",
    "",
    "2021-11-23 18:14:05 Epoch[97/800](20/500): Loss: 0.00826599",
    "epoch 97, skip iteration 21, loss nan",
    "epoch 97, skip iteration 21, loss nan",
    "Traceback (most recent call last):",
    '  File "main.py", line 55, in <module>',
    "RuntimeWarning: epoch 97, iteration 21, loss nan",
    "2021-11-23 18:14:52 Epoch[97/800](20/500): Loss: 0.01279326",
    "2021-11-23 18:15:07 Epoch[97/800](40/500): Loss: 0.01577588",
]
RELAUNCH = [  # a later launch from epoch 1 of 900 (nohup.out lines 25107-25108)
    "2021-11-30 18:41:38 Epoch[1/900](20/500): Loss: 0.05061171",
    "2021-11-30 18:41:51 Epoch[1/900](40/500): Loss: 0.03956886",
]


def test_the_nan_warning_is_placed_in_its_epoch_as_the_records_are():
    recs = feed(HEAD)
    nan = [r for r in recs if r.loss is not None and r.loss != r.loss]
    assert [r.step for r in nan] == [48021, 48021, 48021]
    train = [r.step for r in recs if r.loss is not None and r.loss == r.loss]
    assert train == [48020, 48020, 48040]  # (97 - 1) x 500 + 20: the first line shows a batch index


def test_a_relaunch_below_the_first_epoch_is_never_placed_below_zero():
    recs = feed(HEAD + RELAUNCH)
    assert [r.step for r in recs[-2:]] == [20, 40]
    assert min(r.step for r in recs) >= 0


def test_the_epoch_counter_rules():
    c = EpochCounter()
    # a first counter that cannot count a run's steps after 96 epochs: placed in its epoch at once
    assert c.step(97, 800, 20, 500)[0] == 48020
    assert c.place(97, 21) == 48021
    assert c.step(1, 900, 20, 500)[0] == 20  # (was (1 - 97) x 500 + 20 = -47980)
    assert c.step(0, 900, 20, 500)[0] == 20  # an epoch 0 printed: counted from 0 from there on
    # a first epoch that may be a global counter stays as it was (decided at the first change)
    c = EpochCounter()
    assert c.step(5, None, 100, 600)[0] == 100 and c.step(6, None, 100, 600)[0] == 700
    assert c.place(6, 150) == 750
    # below the first epoch: counted from 0 (no total printed), not (2 - 5) x 600 + 100 = -1700
    assert c.step(2, None, 100, 600)[0] == 1300
    c = EpochCounter()
    assert c.place(3, 7) == 7  # nothing known yet: the counter alone
    # an epoch printed with no total counts from 0 (DETR's MetricLogger "Epoch: [13]  [   0/3684]", a run
    # resumed at epoch 13: fresh4's label puts it at 13 x 3684 = 47892)
    c = EpochCounter()
    assert c.step(13, None, 0, 3684)[0] == 47892 and c.step(13, None, 100, 3684)[0] == 47992


@pytest.mark.skipif(not NOHUP.exists(), reason="bench/corpus/fresh12 not present")
def test_the_committed_crash_loop_log_reads_no_negative_step_and_its_first_nan_at_48021():
    fmt, recs, _ = read(NOHUP)
    assert fmt == "text"
    steps = [int(s) for r in recs for s in (r.step if hasattr(r, "n") else [r.step])]
    assert min(steps) >= 0
    nan = [r for r in recs if not hasattr(r, "n") and r.loss is not None and r.loss != r.loss]
    assert nan[0].step == 48021


@pytest.mark.parametrize(
    "line",
    [
        "epoch: 1. " * 20000 + "x",
        "loss: " + "1." * 100000 + " ",
        "loss: " + "1" * 200000 + ". ",
        "epoch 1, skip " * 14000 + "iteration 5, loss nan",
        "epoch 1 " + "a" * 200000 + " iteration 5 loss nan",
        "Epoch[1/2](1/2): Loss: 1." + " epoch 1, iteration 1." * 9000,
    ],
)
def test_hostile_sentence_lines_do_not_raise(line):
    r = KeyValueTextReader("train.log")
    r.feed("Epoch[97/800](20/500): Loss: 0.5")
    r.feed(line)
    r.feed_chunk((line + "\n").encode() * 2)
    r.flush()
