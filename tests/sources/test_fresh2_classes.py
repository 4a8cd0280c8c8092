"""Reader classes the second held-out set (``bench/corpus/fresh2``, notes/fresh2.md §4.A)
showed missing: a ``key: a/b`` field refusing its line, a total loss named ``total``,
MindSpore's ``loss is x``, the I-JEPA ``[epoch, i/N]`` counter and a text log taken for
CSV, PaddleClas' ``[Epoch e/E][Iter: i/N]``. Real lines, quoted from the logs (the
committed ones read whole), and lines that must not be read."""

from __future__ import annotations

import math
import os

import pytest

from helpers.paths import BENCH

from test_formats import read, write  # noqa: E402


# -- a "key: a/b" field ------------------------------------------------------------------------
# a custom LM trainer (private: fresh2/custom_lm_ep_batch_13_records), quoted: the tokens of the
# batch out of its capacity
CUSTOM_LM = [
    "ep: 0, batch: 20, time: 9.17, ntokens: 485.20/513, loss: 10.984375",
    "ep: 0, batch: 40, time: 8.38, ntokens: 431.70/513, loss: 10.976562",
    "ep: 0, batch: 60, time: 8.35, ntokens: 428.90/513, loss: 10.984375",
    "ep: 0, batch: 80, time: 8.46, ntokens: 513.00/513, loss: 10.914062",
    "ep: 0, batch: 100, time: 8.55, ntokens: 438.20/513, loss: 10.312500",
]


def test_ratio_field_does_not_refuse_its_line(tmp_path):
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(CUSTOM_LM) + "\n"))
    assert [r.step for r in recs] == [20, 40, 60, 80, 100]
    assert recs[0].loss == 10.984375 and recs[0].epoch == 0
    assert recs[0].extra["ntokens"] == pytest.approx(485.2)  # the value, not its capacity


def test_ep_batch_counter_starts_again_each_epoch(tmp_path):
    # the same trainer's lines over two epochs of 100 batches: the batch counter restarts
    text = "".join(
        f"ep: {e}, batch: {b}, time: 8.50, ntokens: 450.00/513, loss: {9 - e - b / 1000}\n"
        for e in range(2)
        for b in (20, 40, 60, 80, 100)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    steps = [r.step for r in recs]
    assert steps == sorted(steps) and len(set(steps)) == 10
    assert steps[:5] == [20, 40, 60, 80, 100] and steps[5] > 100


def test_ratio_is_no_separator_elsewhere(tmp_path):
    # a step-less line whose "/" is prose, not a named number's capacity: not a record
    text = "".join(f"loss: {1 - i / 10}, see /tmp/run{i}/ckpt\n" for i in range(6))
    reader_fmt = None
    try:
        reader_fmt, recs, _ = read(write(tmp_path, "train.log", text))
    except AssertionError:
        recs = []  # nothing readable: open_reader refuses the file
    assert recs == [], reader_fmt


def test_ep_alone_is_no_epoch(tmp_path):
    # "ep" without a step counter after it (an RL episode): not an epoch and a counter
    text = "".join(f"ep: {e}, reward: {e / 2}, loss: {1 / (e + 1)}, step: {e * 10}\n" for e in range(6))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 10, 20, 30, 40, 50]
    assert all(r.epoch is None for r in recs)


# -- a total loss named "total" ----------------------------------------------------------------
# a RetinaNet distillation loop (private: fresh2/kd_retinanet_keyvalue_total_flat), quoted
KD = [
    "2026-03-24 11:15:52,482 | INFO | epoch=0 step=0 lr=0.001 total=2.192192 det=1.932989 kd=0.518404 w_l2=201.642 w_max=4.595",
    "2026-03-24 11:15:52,861 | INFO | epoch=0 step=1 lr=0.001 total=2.234082 det=1.983843 kd=0.500477 w_l2=201.642 w_max=4.595",
    "2026-03-24 11:15:53,407 | INFO | epoch=0 step=2 lr=0.001 total=2.284371 det=2.043554 kd=0.481633 w_l2=201.642 w_max=4.595",
    "2026-03-24 11:15:53,782 | INFO | epoch=0 step=3 lr=0.001 total=2.177182 det=1.933845 kd=0.486675 w_l2=201.641 w_max=4.595",
]


def test_total_is_the_objective_when_no_loss_is_logged(tmp_path):
    _, recs, reader = read(write(tmp_path, "train.log", "\n".join(KD) + "\n"))
    assert [r.step for r in recs] == [0, 1, 2, 3]
    assert [r.loss for r in recs] == [2.192192, 2.234082, 2.284371, 2.177182]
    assert "total" not in recs[0].extra and recs[0].extra["det"] == 1.932989  # (the terms stay extras)
    assert reader.objective_note() == "total (the logged total)"


def test_total_beside_a_loss_is_not_the_loss(tmp_path):
    # a logged loss is the objective; a "total" beside it stays an extra number (no loss term)
    from tsm_tui.analysis.detectors.components import loss_terms

    text = "".join(f"step={s} loss={2 - s / 10} total={5 - s / 10} det=1.5\n" for s in range(5))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert recs[0].loss == 2.0 and recs[0].extra["total"] == 5.0
    assert loss_terms(recs[0].extra) == []
    # a step-less dict of parameter counts (private: fresh2/avpse_time_only_keyvalue_resume), quoted,
    # before the run's records: its "total" is no loss
    params = (
        "08:34:20  Parameters: {'band_split': '35,972', 'visual_conditioning': '426,368', "
        "'band_sequence_rnn': '4,360,704', 'mask_decoder': '7,910,428', 'total': '12,733,472'}\n"
    )
    _, recs, _ = read(write(tmp_path, "params.log", params + text))
    assert [r.step for r in recs] == [0, 1, 2, 3, 4] and recs[0].loss == 2.0
    # a name that only holds "total" is not one ("total_steps", "mem_total")
    text = "".join(f"step={s} lr=0.001 total_steps=100 mem_total={s + 1.5}\n" for s in range(5))
    try:
        _, recs, _ = read(write(tmp_path, "other.log", text))
    except AssertionError:
        recs = []
    assert all(r.loss is None for r in recs)


# -- MindSpore's LossMonitor: "<name> is <value>" ----------------------------------------------
# (private: fresh2/mindspore_lossmonitor_epoch_step), quoted: dataset sink mode prints once per
# epoch, at the epoch's last step (LossMonitor: cur_step_in_epoch = (cur_step_num - 1) % batch_num + 1)
MINDSPORE = [
    "=> Total step: 18600",
    "learning_rate 0.00101",
    "begin train",
    "epoch: 1 step: 62, loss is 2.279783010482788",
    "Train epoch time: 8835.742 ms, per step time: 142.512 ms",
    "epoch: 1 acc: 0.33482142857142855, best acc is 0.33482142857142855",
    "epoch: 2 step: 62, loss is 2.2144224643707275",
    "Train epoch time: 4066.611 ms, per step time: 65.591 ms",
    "epoch: 2 acc: 0.4419642857142857, best acc is 0.4419642857142857",
    "epoch: 3 step: 62, loss is 1.6496938467025757",
    "Train epoch time: 4138.418 ms, per step time: 66.749 ms",
    "epoch: 3 acc: 0.5535714285714286, best acc is 0.5535714285714286",
]


def test_mindspore_loss_is_read_at_the_global_step(tmp_path):
    _, recs, _ = read(write(tmp_path, "train_log.log", "\n".join(MINDSPORE) + "\n"))
    train = [r for r in recs if r.loss is not None]
    assert [r.loss for r in train] == [2.279783010482788, 2.2144224643707275, 1.6496938467025757]
    # the step within the epoch placed in its epoch: (epoch - 1) x 62 + 62
    assert [r.step for r in train] == [62, 124, 186] and [r.epoch for r in train] == [1, 2, 3]
    # the per-step form (LossMonitor(per_print_times=1)): the counter starts again each epoch
    text = "".join(f"epoch: {e} step: {s}, loss is {3 - e / 10 - s / 100}\n" for e in (1, 2) for s in (1, 2, 3))
    _, recs, _ = read(write(tmp_path, "steps.log", text))
    assert [r.step for r in recs] == [1, 2, 3, 4, 5, 6]


def test_name_is_value_in_prose_is_no_metric(tmp_path):
    # "best acc is 0.33" (two words before "is") and a sentence are prose: no loss taken from them
    text = "".join(
        f"step {s}, lr: 0.001, best loss is {s / 10}\nstep {s}: the loss is {s / 10} now, lr: 0.001\n"
        for s in range(1, 6)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert recs and all(r.loss is None for r in recs)


# -- the epoch and the counter in one bracket ---------------------------------------------------
# an I-JEPA fork (private: fresh2/ijepa_style_multiloss_gradstats_nan), quoted: a record every 25
# iterations of 2562, then the grad_stats line of the same iteration
IJEPA_FORK = [
    "INFO:root:Epoch 1",
    "INFO:root:[1,     0/ 2562] - train_losses - Parent Class: 7.679 - Children class: 0.693 -Autoencoder Loss (total): 230.668 - Reconstruction/K-Means Loss: [0.653 / 230.014] - [wd: 5.00e-02] [lr: 7.50e-05] [mem: 6.00e+04] (3043.0 ms)",
    "INFO:root:[1,     0] grad_stats: [5.29e-04 3.07e-03] (0.00e+00, 4.16e+00)",
    "INFO:root:[1,    25/ 2562] - train_losses - Parent Class: 7.130 - Children class: 0.695 -Autoencoder Loss (total): 350.794 - Reconstruction/K-Means Loss: [0.098 / 350.696] - [wd: 5.00e-02] [lr: 7.52e-05] [mem: 6.49e+04] (1256.1 ms)",
    "INFO:root:[1,    25] grad_stats: [4.97e-04 2.69e-02] (0.00e+00, 3.84e+00)",
    "INFO:root:[1,    50/ 2562] - train_losses - Parent Class: 6.805 - Children class: 0.695 -Autoencoder Loss (total): 350.852 - Reconstruction/K-Means Loss: [0.058 / 350.794] - [wd: 5.00e-02] [lr: 7.53e-05] [mem: 6.49e+04] (1215.0 ms)",
]


def test_ijepa_fork_bracket_counter_is_placed_in_its_epoch(tmp_path):
    # epoch 2's first line (the same shape) after epoch 1's: step = (epoch - 1) x 2562 + iteration
    nxt = IJEPA_FORK[1].replace("[1,     0/", "[2,     0/")
    _, recs, reader = read(write(tmp_path, "nohup.out", "\n".join(IJEPA_FORK + [nxt]) + "\n"))
    assert [r.step for r in recs] == [0, 25, 50, 2562]
    assert [r.epoch for r in recs] == [1, 1, 1, 2]
    assert recs[0].lr == 7.5e-05 and recs[0].extra["Parent Class"] == 7.679
    # no "loss" key: the one loss the line names (with its qualifier) is the objective
    assert recs[0].loss == 230.668 and "Loss (total)" in reader.objective_note()


def test_ijepa_and_pytorch_tutorial_bracket_counters(tmp_path):
    # facebookresearch/ijepa src/train.py: '[%d, %5d] loss: %.3f masks: %.1f %.1f [wd: %.2e] [lr: %.2e] ...'
    text = "".join(
        f"INFO:root:[{e}, {i:5d}] loss: {7.679 - e / 10 - i / 1000:.3f} masks: 68.0 44.0 [wd: 4.00e-02] "
        f"[lr: 1.00e-04] [mem: 5.24e+04] (1100.0 ms)\n"
        f"INFO:root:[{e}, {i:5d}] grad_stats: [1.51e-02 2.27e-02] (1.19e-02, 3.95e-02)\n"
        for e in (1, 2)
        for i in (0, 10, 20)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    # the counter starts again: an epoch of 30 iterations (0-29, a record every 10: epoch_steps.py)
    assert [r.step for r in recs] == [0, 10, 20, 30, 40, 50]
    assert recs[0].loss == pytest.approx(7.579) and recs[0].lr == 1e-4
    # the PyTorch CIFAR-10 tutorial: print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 2000:.3f}')
    text = "".join(f"[{e}, {i:5d}] loss: {2.3 - e / 10 - i / 100000:.3f}\n" for e in (1, 2) for i in (2000, 4000, 6000))
    _, recs, _ = read(write(tmp_path, "cifar.log", text))
    assert [r.step for r in recs] == [2000, 4000, 6000, 8000, 10000, 12000]


def test_bracketed_lists_are_no_counter(tmp_path):
    # a grad_stats line alone, a config's milestones: no metric after the bracket, no record
    text = "".join(
        f"INFO:root:[1, {i:5d}] grad_stats: [5.29e-04 3.07e-03] (0.00e+00, 4.16e+00)\n"
        f"milestones: [30, 60] gamma: 0.1\nstep {i} loss: {1 - i / 100}\n"
        for i in range(6)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 1, 2, 3, 4, 5] and all(r.epoch is None for r in recs)


def test_nan_in_a_named_list_is_a_nonfinite_value_of_that_name(tmp_path):
    # fresh2 ijepa_style_multiloss_gradstats_nan: "[56,   775] grad_stats: [nan 1.05e-01] (0.00e+00, inf)"
    # (the first layer's grad norm NaN) was no record: a list is no metric, but its NaN / Inf is
    bad = "INFO:root:[2,    25] grad_stats: [nan 1.05e-01] (0.00e+00, inf)"
    nxt = [line.replace("[1,", "[2,") for line in IJEPA_FORK[1:]]
    nxt[3] = bad
    _, recs, _ = read(write(tmp_path, "nohup.out", "\n".join(IJEPA_FORK + nxt) + "\n"))
    (rec,) = [r for r in recs if r.extra and "grad_stats" in r.extra]
    # the step as its loss line's (epoch 2, iteration 25 of the 2562 its loss lines print)
    assert rec.step == 2562 + 25 and rec.loss is None and math.isnan(rec.extra["grad_stats"])
    assert [r.step for r in recs if r.loss is not None] == [0, 25, 50, 2562, 2587, 2612]
    # on a step line beside a loss: the list's name non-finite, the loss read as always
    _, recs, _ = read(
        write(
            tmp_path,
            "t.log",
            "".join(f"step {s} loss {1 - s / 100} losses=[0.4, {'inf' if s == 3 else 0.5}]\n" for s in range(1, 6)),
        )
    )
    assert [r.step for r in recs] == [1, 2, 3, 4, 5] and recs[2].extra == {"losses": math.inf}
    assert all(r.extra is None for r in recs if r.step != 3)
    # words in a list (a mode named "nan-safe", "info") are no numbers: no record from the line
    _, recs, _ = read(
        write(
            tmp_path,
            "w.log",
            "".join(f"[1, {i:5d}] modes: [info nan] [skip, inf]\nstep {i} loss: 0.5\n" for i in range(5)),
        )
    )
    assert all(r.extra is None for r in recs)


def test_nan_gradient_statistic_fails_the_nonfinite_check(tmp_path):
    from tsm_tui.analysis.replay import analyze

    lines = []
    for e in (1, 2):
        for i in range(0, 2562, 25):
            lines.append(
                f"INFO:root:[{e}, {i:5d}/ 2562] - train_losses - Autoencoder Loss (total): {300 - e - i / 1000:.3f} - [lr: 7.50e-05]"
            )
            g = "nan" if (e, i) == (2, 775) else "4.52e-01"
            lines.append(f"INFO:root:[{e}, {i:5d}] grad_stats: [{g} 7.39e-02] (0.00e+00, 7.59e+00)")
    res = analyze(write(tmp_path, "nohup.out", "\n".join(lines) + "\n"))
    c = next(c for c in res.checks() if c.id == "nonfinite")
    assert c.status.value == "FAIL" and "first at step 3337" in c.summary
    (a,) = [a for a in res.alerts() if a.check == "nonfinite"]
    assert "gradient statistic grad_stats is NaN" in a.message


# -- a file the CSV reader takes and reads nothing from ----------------------------------------
def test_text_log_with_a_comma_legend_is_read_as_text(tmp_path):
    # a legend line that reads as a CSV header, then text records with as many commas: no CSV row
    text = "step, loss, lr\n" + "".join(f"step {s}, loss {2 - s / 100}, lr 0.001\n" for s in range(1, 30))
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    assert fmt == "text" and [r.step for r in recs] == list(range(1, 30))
    # a real CSV stays CSV; so does one whose rows have not come yet
    fmt, recs, _ = read(write(tmp_path, "metrics.csv", "step,loss\n" + "".join(f"{s},{1 / s}\n" for s in range(1, 9))))
    assert fmt.endswith("csv") and len(recs) == 8
    from tsm_tui.sources import registry

    reader, fi = registry.open_reader(str(write(tmp_path, "live.csv", "step,loss,lr\n1,2.0,0.1\n")))
    assert fi.format.endswith("csv")


# -- PaddleClas: [Train][Epoch e/E][Iter: i/N], lr(Scheduler), [Eval] batches -------------------
PADDLECLAS = os.path.join(BENCH, "corpus", "fresh2", "paddleclas_train_log_twenty_launches", "train.log")


def test_paddleclas_log_places_each_iteration_in_its_epoch():
    fmt, recs, reader = read(PADDLECLAS)
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    first = train[0]
    # "[Train][Epoch 1/400][Iter: 0/98]lr(LinearWarmup): 0.00000204, CELoss: 6.93139, loss: 6.93139, ..."
    assert (first.step, first.epoch, first.loss, first.lr) == (0, 1, 6.93139, 0.00000204)
    # "[Train][Epoch 2/400][Iter: 0/98]lr(LinearWarmup): 0.00020204, ...": epoch 2 starts at 98
    assert any(r.step == 98 and r.epoch == 2 and r.lr == 0.00020204 for r in train)
    assert reader.run_info["total_steps"] == 400 * 98
    # "[Eval][Epoch 1][Iter: 0/25]CELoss: 6.89671, loss: 6.89671, ...": an evaluation batch, no training
    # step; "[Eval][Epoch 1][Avg]CELoss: 6.90268, loss: 6.90268, ...": the validation loss
    assert not any(r.loss == 6.89671 for r in recs)
    assert recs[next(i for i, r in enumerate(recs) if r.val_loss is not None)].val_loss == 6.90268
    assert len({r.step for r in train}) >= 4000


def test_scheduler_named_lr_and_eval_tags(tmp_path):
    from tsm_tui.sources.fields import field_for

    assert field_for("lr(LinearWarmup)") == "lr" and field_for("lr(Cosine)") == "lr"
    assert field_for("lr(1)") is None and field_for("clr(Cosine)") is None
    # an untagged line with the same counter is a training record; a "[Test]" one is not
    text = "".join(
        f"[Train][Epoch {e}/3][Iter: {i}/20]lr(Cosine): 0.1, loss: {3 - e / 10 - i / 100}\n"
        f"[Test][Epoch {e}][Iter: {i}/5]loss: 9.0\n"
        for e in (1, 2, 3)
        for i in (0, 10)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 10, 20, 30, 40, 50] and all(r.loss < 9 for r in recs)


# -- step-less lines under an epoch header ------------------------------------------------------
# a W&B sweep agent's stdout (private: fresh2/gat_wandb_sweep_five_runs_loss_lines), quoted: one
# "Loss:" line per batch, six batches an epoch, the epoch only in a header line above them
GAT_EPOCH0 = [
    "Epoch 0",
    "Loss:  157.06246948242188",
    "Loss:  128.66001892089844",
    "Loss:  108.10821533203125",
    "Loss:  92.78180694580078",
    "Loss:  76.54788208007812",
    "Loss:  74.62910461425781",
    "Evaluating...",
    "Epoch 1",
    "Loss:  60.9283561706543",
    "Loss:  51.787879943847656",
    "Loss:  43.23619079589844",
    "Loss:  38.94865798950195",
    "Loss:  32.40391540527344",
    "Loss:  26.287525177001953",
    "Evaluating...",
]


def test_single_loss_lines_under_epoch_headers_are_placed_in_their_epoch(tmp_path):
    # the tqdm bar between the header and the losses (its \r redraws) as the file has it
    bar = "\r  0%|          | 0/6 [00:00<?, ?it/s]\r 17%|#         | 1/6 [00:04<00:22,  4.43s/it]"
    lines = GAT_EPOCH0[:1] + [bar] + GAT_EPOCH0[1:9] + [bar] + GAT_EPOCH0[9:]
    _, recs, reader = read(write(tmp_path, "train.out", "\n".join(lines) + "\n"))
    assert [r.step for r in recs] == list(range(12))
    assert [r.epoch for r in recs] == [0] * 6 + [1] * 6
    assert recs[0].loss == 157.06246948242188 and recs[-1].loss == 26.287525177001953
    assert "epoch headers" in reader.describe()["step_source"]
    # with no header: line order, as for the lines of several named numbers
    text = "".join(f"Loss: {2 - i / 100}\n" for i in range(10))
    _, recs, _ = read(write(tmp_path, "plain.log", text))
    assert [r.step for r in recs] == list(range(1, 11))  # (the n-th line is step n)


def test_single_number_lines_that_are_not_a_loss_are_not_records(tmp_path):
    # an LR echo, a "best loss" summary, a YAML config's indented loss weight, and a loss in a
    # log whose records name their steps
    text = "".join(f"lr: 0.001\nbest loss: {1 / (i + 1)}\n  loss: {i}.5\n" for i in range(6))
    try:
        _, recs, _ = read(write(tmp_path, "notes.log", text))
    except AssertionError:
        recs = []
    assert recs == []
    text = "".join(f"step {s} loss: {2 - s / 10}\nLoss: 9.5\n" for s in range(6))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 1, 2, 3, 4, 5] and all(r.loss < 9 for r in recs)


def test_pointnet_banner_epochs_over_a_block_of_lines():
    # PointNet sem_seg (committed, MIT): "**** EPOCH 000 ****" / "----" / "mean loss: 2.407614" /
    # "accuracy: 0.289210" / "----" / "eval mean loss: 43.578381" ...
    path = os.path.join(BENCH, "corpus", "fresh2", "pointnet_tf_multiline_epochs_vkitti", "log_train.txt")
    _, recs, _ = read(path)
    train = [r for r in recs if r.loss is not None]
    assert len({r.step for r in train}) == 50 and train[0].step == 0 and train[-1].step == 49
    assert train[0].loss == 2.407614 and train[0].extra["accuracy"] == 0.28921
    # epoch 000 twice (a first launch stopped after one epoch); the second has the evaluation
    assert train[1].step == 0 and train[1].loss == 2.537423 and train[1].val_loss == 43.578381
