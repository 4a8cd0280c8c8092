"""The step of a counter printed beside an epoch (``sources/epoch_steps.py``, ``EpochCounter``): a
batch index that starts again each epoch placed in its epoch, a label that lags one record at each
boundary, a relaunch of an epoch, epochs longer than the first; and a real trainer's lines read
through it (PaddleGAN's ``Epoch: e/E, iter: i/N``, from the held-out set fresh4)."""

from __future__ import annotations


import pytest
from helpers.reports import report_json, report_or_err
from test_formats import read, write  # noqa: E402

from tsm_tui.sources.epoch_steps import EpochCounter


# -- (fresh4 §4.A6) an epoch label that lags one record at each boundary ------------------------------------
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
    code, d = report_or_err(p, capsys)
    assert code in (0, 1) and not d.get("launches"), d.get("launches")


@pytest.mark.parametrize("strict", [False, True])
def test_the_epoch_rule_takes_one_lagging_label(strict):
    from tsm_tui.sources.epoch_steps import EpochCounter

    c = EpochCounter(strict)
    seq = [(1, 970), (1, 980), (1, 1), (2, 11), (2, 21), (2, 971), (2, 981), (2, 2), (3, 12)]
    assert [c.step(e, 100, n, 989)[0] for e, n in seq] == [970, 980, 990, 1000, 1010, 1960, 1970, 1980, 1990]
    assert c.mode == "epoch"


def test_a_restart_of_the_same_epoch_is_not_taken_for_a_lag():
    from tsm_tui.sources.epoch_steps import EpochCounter

    # out of rhythm: iter 30 of 989, then iter 1 under the same label (a relaunch of epoch 1)
    c = EpochCounter()
    assert [c.step(1, None, n, 989)[0] for n in (10, 20, 30, 1, 11)] == [10, 20, 30, 1, 11]
    # in rhythm but back at the run's first counter: I-JEPA relaunched epoch 2 ("[2,  2550/ 2562]"
    # then "[2,     0/ 2562]", "[2,    25/ 2562]": fresh2 ijepa_style_multiloss_gradstats_nan)
    c = EpochCounter()
    seq = [(1, 0), (1, 25), (1, 2550), (2, 0), (2, 25), (2, 2525), (2, 2550), (2, 0), (2, 25)]
    assert [c.step(e, None, n, 2562)[0] for e, n in seq][-2:] == [2562, 2587]
    # a global counter never lags: it only grows, a smaller one is a resume
    c = EpochCounter()
    seq = [(1, 980), (1, 990), (2, 1000), (2, 1010), (2, 5)]
    assert [c.step(e, None, n, None)[0] for e, n in seq] == [980, 990, 1000, 1010, 5]
    # a validation counter of another length under the same label is no wrap of this one
    c = EpochCounter()
    assert [c.step(1, None, n, p)[0] for n, p in ((980, 989), (989, 989), (5, 50))] == [980, 989, 5]


def test_epochs_longer_than_the_first_move_the_next_ones_on():
    """fresh4 pgan_paddle_scales_resume_blowup: "[scale : iteration]" with no length printed; scale 0
    runs 48,000 iterations, scales 1-5 96,000 each. Placed at (scale x the first one's length) the
    later scales overlapped (3,358 of 5,278 steps); the next epoch starts past the longer one's end."""
    from tsm_tui.sources.epoch_steps import EpochCounter

    c = EpochCounter()
    lengths = (480, 960, 960)  # a record every 10 iterations, counters 10..length
    got = [c.step(e, None, n, None)[0] for e, ln in enumerate(lengths) for n in range(10, ln + 1, 10)]
    assert got == list(range(10, sum(lengths) + 1, 10))
    assert c.in_last_epoch(20) == 480 + 960 + 20
    # back at scale 1 (a relaunch from its checkpoint): its offset found again, then scale 2's
    assert [c.step(e, None, n, None)[0] for e, n in ((1, 500), (1, 960), (2, 10))] == [980, 1440, 1450]
    # epochs of one length (the counter starting at 0 and at the interval) are as before
    c = EpochCounter()
    assert [c.step(e, None, n, None)[0] for e in (1, 2, 3) for n in (0, 50, 100)] == [
        0,
        50,
        100,
        150,
        200,
        250,
        300,
        350,
        400,
    ]
    # a shorter last epoch changes nothing; a printed length is trusted as it is
    c = EpochCounter()
    assert [c.step(e, None, n, None)[0] for e, n in ((0, 50), (0, 100), (1, 50), (2, 50), (2, 100))] == [
        50,
        100,
        150,
        250,
        300,
    ]
    c = EpochCounter()
    assert [c.step(e, None, n, 100)[0] for e, n in ((0, 100), (1, 50), (1, 120), (2, 10))] == [100, 150, 220, 210]


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


# -- per-batch prints that name only their epoch (EpochRepeats; fresh23's RoViQA log, class C) ----------------
# RoViQA's train.py under nohup: a tqdm bar ("\r  0%|   | 4/2889 [...]") on stderr, one
# print(f"Epoch [{epoch+1}/{num_epochs}], Batch Loss: {loss.item()}") per batch on stdout, and an
# "Epoch [e/5], Average Loss: X" summary after each epoch; 2,889 batches an epoch. Before: "nothing readable".
def _batch_prints(fmt: str, epochs: int = 5, per: int = 40, spike: int | None = None, summary: bool = True) -> str:
    out, i = [], 0
    for e in range(1, epochs + 1):
        bar = "".join(f"\r  {n * 100 // per:2d}%|          | {n}/{per} [00:01<1:14:39,  1.55s/it]" for n in range(3))
        out.append(bar)
        for _ in range(per):
            i += 1
            loss = 3.0 / (1 + i / 50) + 0.01 * (i % 7)
            if i == spike:
                loss *= 8
            out.append(fmt.format(e=e, loss=loss))
        if summary:
            out.append(f"Epoch [{e}/{epochs}], Average Loss: {1.5 / e:.4f}")
            out.append("Validation Accuracy: 30.6753")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    "fmt",
    [
        "Epoch [{e}/5], Batch Loss: {loss}",  # RoViQA's ("Batch" names the loss, not a counter)
        "Epoch [{e}/5], Loss: {loss:.4f}",
        "Epoch {e}, Loss: {loss:.4f}",
        "Epoch {e}/5 - loss: {loss:.4f}",
        "Epoch {e} | loss {loss:.4f} | lr 0.001",
        "[Epoch {e}] train loss: {loss:.4f}",
        "epoch {e} loss {loss:.4f}",
    ],
)
def test_per_batch_prints_naming_only_their_epoch_are_counted(tmp_path, capsys, fmt):
    p = write(tmp_path, "train.log", _batch_prints(fmt, spike=130))
    _, recs, reader = read(p)
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == list(range(1, 201))  # 5 epochs x 40, the summaries not among them
    assert "first epoch + n" in reader.describe()["step_source"]
    assert "total_steps" not in reader.run_info  # (5 is the epochs, not the steps)
    d = report_json(p, capsys)
    assert d["steps"]["count"] == 200
    spike = next(c for c in d["checks"] if c["id"] == "loss_spike")
    assert spike["status"] in ("WARN", "FAIL") and "130" in spike["summary"], spike


def test_epoch_summaries_stay_at_their_epoch(tmp_path):
    # one line an epoch, or a training and an evaluation line with the same names: the epoch is the step
    one = "".join(f"Epoch [{e}/40], Loss: {2 / e:.4f}\n" for e in range(1, 41))
    _, recs, reader = read(write(tmp_path, "a.log", one))
    assert [r.step for r in recs] == list(range(1, 41)) and int(reader.run_info["total_steps"]) == 40
    two = "".join(f"Epoch {e}, loss: {2 / e:.4f}\nEpoch {e}, loss: {2.2 / e:.4f}\n" for e in range(1, 41))
    _, recs, _ = read(write(tmp_path, "b.log", two))
    assert sorted({r.step for r in recs}) == list(range(1, 41))
    # the last held line of a file that ends in the middle of a row comes out at its epoch's step
    tail = one + "Epoch [41/40], Loss: 0.04\nEpoch [41/40], Loss: 0.05\n"
    _, recs, _ = read(write(tmp_path, "c.log", tail))
    assert [r.step for r in recs][-2:] == [41, 41]
    # ... but the same line twice is one record, the second a counted skip (a notebook's output saved twice)
    _, recs, reader = read(write(tmp_path, "d.log", one + "Epoch [41/40], Loss: 0.04\nEpoch [41/40], Loss: 0.04\n"))
    assert [r.step for r in recs][-2:] == [40, 41]
    assert reader.skip_reasons == {"the previous line printed again (a record of no step of its own)": 1}


def test_epoch_lines_printed_twice_and_one_epoch_trainings_are_no_batches(tmp_path):
    """fresh52's temporal GNN notebook: three trainings of one epoch each print "Epoch 1/12: Train Loss=...,
    Val Loss=inf" (a validation loss: an epoch's summary, never a batch), and a cell's every epoch line twice
    (the same values: one record). Nothing is counted as per-batch prints."""
    text = "".join(
        f"Training model {m}...\nEpoch 1/12: Train Loss={0.69 - m / 100:.4f}, Val Loss=inf\n" for m in range(3)
    )
    text += "".join(f"Epoch {e}/10: Train Loss={1 / e:.4f}, Val Loss=nan\n" * 2 for e in range(1, 11))
    _, recs, reader = read(write(tmp_path, "nb.log", text))
    assert "step_source" not in reader.describe()
    assert [r.step for r in recs if r.loss is not None][-10:] == list(range(1, 11))
    assert reader.skip_reasons == {"the previous line printed again (a record of no step of its own)": 10}


def test_epoch_repeats_rule():
    from tsm_tui.core.record import StepRecord
    from tsm_tui.sources.epoch_steps import EpochRepeats

    rep = EpochRepeats()

    def take(e, loss=None, val=None, names=("loss",)):
        got = rep.take(StepRecord(e, loss=loss, val_loss=val), e, names)
        return None if got is None else [r.step for r in got]

    assert take(0, 1.0) == [0]
    assert take(0, 1.0) is None and rep.duplicates == 1  # the same line again: no record
    assert take(0, 1.01) == []  # the second of a row: held
    assert take(0, 1.02) == [1, 2] and rep.counting  # the third: batches, counted from the first epoch
    assert take(0, 1.0) == [3] and take(1, 1.0) == [4]  # (counting: equal values are batches too)
    assert take(1, 0.5, names=("average loss",)) is None  # a summary beside them: dropped
    assert take(1, val=0.7, names=("val_loss",)) == [4]  # a validation loss alone: at the last step
    got = rep.take(StepRecord(1, loss=0.5, val_loss=0.6), 1, ("avg loss", "val loss"))
    assert got is not None and [(r.step, r.loss, r.val_loss) for r in got] == [
        (4, None, 0.6)
    ]  # (a summary's validation)
    assert take(0, 1.0) == [0] and take(0, 1.0) == [1]  # an epoch below the last: a new launch from its epoch
    assert rep.release() == []


def test_an_epoch_then_named_averages_with_no_separator(tmp_path):
    """fresh26's Tacotron log: "Epoch 1 average loss:  0.3384, average mel loss: 0.1814, average linear
    loss: 0.1571", one line an epoch, read "nothing readable" (a comma after the epoch was needed)."""
    text = "".join(
        f"Epoch {e} average loss:  {0.34 / e:.6f}, average mel loss: {0.18 / e:.6f}, average linear loss: {0.15 / e:.6f}\n"
        for e in range(1, 41)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [(r.step, round(r.loss, 6)) for r in recs][:2] == [(1, 0.34), (2, 0.17)] and len(recs) == 40
    # prose after an epoch is still no record
    _, recs, _ = read(write(tmp_path, "b.log", text + "Epoch 41 started with 3 workers\n"))
    assert len(recs) == 40


def _ddp_log(ranks: int, epochs: int, spike: int, run: str, t0: float, lr: str = "0.002000") -> str:
    """A DDP script whose Python logger runs on every rank (PyISV's shape): each prose line once from each
    rank, an epoch's training, validation and LR lines once from each, values differing by a rank's own
    batches; the loss 3x its level at epoch ``spike``."""
    import datetime as dt

    def stamp(t: float) -> str:
        d = dt.datetime(2025, 5, 12) + dt.timedelta(seconds=t)
        return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{int(t * 1000) % 1000:03d} - INFO - "

    out, t = [], t0
    for _ in range(ranks):
        out.append(stamp(t) + f"Run ID: {run}")
    for _ in range(ranks):
        out.append(stamp(t) + "Learning rate scheduler enabled: MultiStepLR with milestones [100, 250]")
        out.append(stamp(t) + "=== START EPOCH 0 ===")
    for e in range(epochs):
        t += 4.0
        level = 0.2 + 2.0 / (e + 1) ** 1.5
        for r in range(ranks):
            loss = level * (3.0 if e == spike else 1.0) * (1 + 0.01 * ((r * 7 + e) % 5 - 2))
            out.append(stamp(t + r * 0.003) + f"END TRAIN LOOP EPOCH {e}, Loss: {loss:.4f}")
        for r in range(ranks):
            out.append(stamp(t + 0.6 + r * 0.003) + f"END VALIDATION EPOCH {e}, Validation Loss: {level / 4:.4f}")
            out.append(stamp(t + 0.6 + r * 0.003) + f"END EPOCH {e}: Learning rate = {lr}, Elapsed time = 3.9{r}s")
            out.append(stamp(t + 0.6 + r * 0.003) + f"=== START EPOCH {e + 1} ===")
    return "\n".join(out) + "\n"


def test_a_log_printed_by_every_ddp_rank_is_one_record_an_epoch(tmp_path, capsys):
    """fresh67's PyISV: 4 DDP ranks each log every line; an epoch's "END TRAIN LOOP EPOCH 63, Loss" came 4 times
    and was read as 4 per-batch prints (every alert at ~4x its epoch: a spike at epoch 63 said at step 252). The
    prose lines, 4 times each, tell the 4 processes: each epoch is one record, the other ranks' lines counted
    skips. A relaunch appended 15 minutes later at the same constant LR keeps its LR (its "Learning rate =
    0.002" lines had been taken for a lagging writer's copies of the first launch's)."""
    text = _ddp_log(4, 60, 30, "run1", 0.0) + _ddp_log(4, 50, 41, "run2", 900.0)
    p = write(tmp_path, "train_autoencoder_log.txt", text)
    _, recs, reader = read(p)
    train = [r.step for r in recs if r.loss is not None]
    assert train == list(range(60)) + list(range(50))
    assert [r.step for r in recs if r.val_loss is not None] == train  # one evaluation an epoch
    assert [r.step for r in recs if r.lr is not None] == train
    copies = reader.skip_reasons["another rank's line of the same epoch (the log is printed by 4 processes)"]
    assert copies == 3 * 3 * 110  # (the training, evaluation and LR lines of 3 more ranks, 110 epochs)
    assert "printed by 4 processes" in reader.describe()["step_source"]
    d = report_json(p, capsys)
    spike = next(c for c in d["checks"] if c["id"] == "loss_spike")
    assert "41" in spike["summary"] and spike["status"] == "WARN", spike
    lr = next(c for c in d["checks"] if c["id"] == "lr_schedule")
    assert lr["status"] != "SKIP", lr  # (the relaunch's LR read)
    earlier = [a for a in d["alerts"] if a["check"] == "loss_spike" and "earlier run" in a["message"]]
    assert [a["step"] for a in earlier] == [30], earlier  # (the first launch's spike, at its epoch)


def test_per_batch_prints_with_prose_once_are_still_batches(tmp_path):
    """The ranks rule needs the prose lines repeated: a single process's per-batch prints of 4 a epoch, its
    banners once each, stay batches (counted)."""
    lines = ["Run ID: solo", "Learning rate scheduler enabled", "=== START EPOCH 0 ==="]
    for e in range(20):
        lines += [f"Epoch {e}, Loss: {2 / (e + 1) + b / 100:.4f}" for b in range(4)]
        lines.append(f"=== START EPOCH {e + 1} ===")
    _, recs, reader = read(write(tmp_path, "solo.log", "\n".join(lines) + "\n"))
    assert [r.step for r in recs if r.loss is not None] == list(range(80))
    assert "first epoch + n" in reader.describe()["step_source"]


def test_epoch_repeats_rule_with_ranks():
    from tsm_tui.core.record import StepRecord
    from tsm_tui.sources.epoch_steps import EpochRepeats

    rep = EpochRepeats()

    def take(e, loss=None, val=None, names=("loss",)):
        got = rep.take(StepRecord(e, loss=loss, val_loss=val), e, names, ranks=4)
        return None if got is None else [r.step for r in got]

    assert take(0, 1.0) == [0]
    assert take(0, 1.01) == [] and take(0, 1.0) == [] and take(0, 1.02) == []  # the other ranks': held
    assert take(0, val=0.5, names=("val",)) == [0] and rep.rank_copies == 3  # the row was one epoch
    assert take(0, val=0.51, names=("val",)) is None and rep.rank_copies == 4  # another rank's evaluation
    assert take(1, 0.9) == [1] and take(1, 0.91) == [] and take(1, 0.92) == [] and take(1, 0.93) == []
    assert take(1, 0.94) == [2, 3, 4, 5] and rep.counting  # a fifth line of the epoch: batches after all


def test_a_banner_of_each_relaunch_is_no_rank_copy(tmp_path):
    """Relaunches of one script print its banners and the same crash again, far apart: no evidence of ranks
    (three crashed launches, each line 3 times in the file, had made a later launch's per-batch prints, 3 an
    epoch, one record an epoch)."""
    crash = ["Run ID: same", "Loading data from ./data", "Model built", "Traceback (most recent call last):"]
    crash += [f'  File "train.py", line {100 + k}, in step_{k}' for k in range(15)] + [
        "RuntimeError: CUDA out of memory"
    ]
    lines = crash * 3
    for e in range(12):
        lines += [f"Epoch {e}, loss: {2 / (e + 1) + b / 100:.4f}" for b in range(3)]
    _, recs, reader = read(write(tmp_path, "relaunch.log", "\n".join(lines) + "\n"))
    assert [r.step for r in recs if r.loss is not None] == list(range(36))
    assert "first epoch + n" in reader.describe()["step_source"]
