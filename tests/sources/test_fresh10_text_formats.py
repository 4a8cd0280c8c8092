"""Reader classes the held-out set fresh10 (``bench/corpus/fresh10``) showed missing: a progress
table's count before its unit word (``|     1000/  100000 steps| ... | loss    5.53| acc: 0.188``)
and GPT2-chitchat's ``batch N of epoch M, loss X, batch_acc A, lr [x]`` (a counter "of" its epoch,
then a comma-separated list of ``name value`` cells). Beside them: the lines that must stay unread
(prose that counts steps, a sentence after a step) and bad input (no traceback)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from helpers import paths
from test_formats import read, write  # noqa: E402

JINGJU = Path(paths.TESTS).parent / "bench" / "corpus" / "fresh10" / "apex_transformer_jingju_100k_steps"

# apex_transformer_jingju_100k_steps (committed, Apache-2.0: zhengmidon/jingju_baseline's finetuning.log),
# lines 1-52 verbatim but for the apex option dump, shortened
JINGJU_HEAD = """nohup: ignoring input
Using GPU 0 for training.
Selected optimization level O1:  Insert automatic casts around Pytorch functions and Tensor methods.

Defaults for this optimization level are:
enabled                : True
opt_level              : O1
loss_scale             : dynamic
Worker is training ...
|     1000/  100000 steps| 14071.82 tokens/s| loss    5.53| acc: 0.188
------validating------
validation loss:4.879089684688169
time usage 57.40252614021301s
------validation complete------
|     2000/  100000 steps| 14100.14 tokens/s| loss    4.90| acc: 0.258
------validating------
validation loss:4.490028438164556
time usage 57.36634373664856s
------validation complete------
Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 65536.0
|     3000/  100000 steps| 14006.17 tokens/s| loss    4.58| acc: 0.279
------validating------
validation loss:4.174941787740966
time usage 57.878963470458984s
------validation complete------
|     4000/  100000 steps| 13979.04 tokens/s| loss    4.25| acc: 0.301
------validating------
validation loss:3.7817093683510423
time usage 57.47017812728882s
------validation complete------
|     5000/  100000 steps| 13972.41 tokens/s| loss    3.94| acc: 0.339
------validating------
validation loss:3.600331609126985
time usage 57.43608093261719s
------validation complete------
|     6000/  100000 steps| 13919.26 tokens/s| loss    3.78| acc: 0.355
------validating------
validation loss:3.4593839231206474
time usage 57.486650466918945s
------validation complete------
Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 131072.0
"""


def test_a_count_before_its_unit_word_is_the_step_of_a_progress_table(tmp_path):
    fmt, recs, reader = read(write(tmp_path, "finetuning.log", JINGJU_HEAD))
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == [1000, 2000, 3000, 4000, 5000, 6000]
    # the key and its value inside a cell apart by spaces ("loss    5.53"), or by ":" ("acc: 0.188")
    assert [r.loss for r in train] == [5.53, 4.9, 4.58, 4.25, 3.94, 3.78] and train[0].extra == {"acc": 0.188}
    # the throughput cell ("14071.82 tokens/s": a number before its name) is no metric of its own name
    assert all(set(r.extra or {}) == {"acc"} for r in train)
    # the validation loss printed on its own line is the last step's
    vals = [(r.step, r.val_loss) for r in recs if r.val_loss is not None]
    assert vals[0] == (1000, 4.879089684688169) and [s for s, _ in vals] == [1000, 2000, 3000, 4000, 5000, 6000]
    assert reader.run_info["total_steps"] == 100000
    # apex amp's "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 65536.0": a skipped
    # fp16 step at the last step read, with the new loss scale (no loss: not a non-finite training loss)
    over = [(r.step, r.loss_scale) for r in recs if r.overflow]
    assert over == [(2000, 65536.0), (6000, 131072.0)] and all(r.loss is None for r in recs if r.overflow)
    assert len(recs) == 14


def test_the_whole_committed_progress_table_log_reads_its_100_records():
    fmt, recs, _ = read(JINGJU / "finetuning.log")
    train = [r for r in recs if r.loss is not None]
    assert fmt == "text" and len(train) == 100
    assert train[0].step == 1000 and train[-1].step == 100000 and train[-1].loss == 1.78
    assert sum(r.val_loss is not None for r in recs) == 100
    assert sum(r.overflow for r in recs) == 38


def test_other_units_and_tables_of_the_same_shape(tmp_path):
    # fairseq / OpenNMT-style tables of other trainers (shapes written here, values made up): "updates" and
    # "iters" count steps too, a cell of "name value" or "name: value" or "name=value"
    text = "".join(
        f"| {s:>6d}/ 5000 updates | loss {4 - s / 1000:.3f} | ppl {2 ** (4 - s / 1000):.2f} | lr 5e-4 |\n"
        for s in range(100, 1100, 100)
    )
    _, recs, reader = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == list(range(100, 1100, 100))
    assert recs[0].loss == pytest.approx(3.9) and recs[0].lr == 5e-4 and reader.run_info["total_steps"] == 5000
    text = "".join(f"[train] {s}/200 iters | loss={1 / s:.4f} | grad_norm 0.5\n" for s in range(1, 30))
    _, recs, _ = read(write(tmp_path, "iters.log", text))
    assert [r.step for r in recs] == list(range(1, 30)) and recs[0].grad_norm == 0.5


def test_prose_that_counts_steps_is_no_record_and_no_header(tmp_path):
    # a count of steps with no metric on its line is prose: no record, and the lines after it are not its
    # metrics (a "step 100" alone would head them: text_groups); a rate "steps/s" is no count
    text = "".join(
        f"Finished {s}/1000 steps, saving a checkpoint\nbest: 0.5\nthroughput 3.2 steps/s\nspeed: {s}/1000 steps/s\n"
        for s in range(100, 1100, 100)
    )
    path = write(tmp_path, "notes.log", text)
    from tsm_tui.sources import registry

    reader, fi = registry.open_reader(str(path))
    assert reader is None or fi.format == "console", fi.note


# -- GPT2-chitchat's logger ---------------------------------------------------------------------------
# gpt2_chinese_pylogging_eight_launches is private (no licence found): these lines are written here in its
# shape (GPT2-chitchat's train.py: logger.info("batch {} of epoch {}, loss {}, batch_acc {}, lr {}".format(
# batch_idx + 1, epoch + 1, loss.item() * ..., batch_acc, scheduler.get_lr())), logging's
# "%(asctime)s - %(levelname)s - %(message)s"), the values made up


def _launch(batches: int, epochs: int = 1, bracket: bool = True) -> str:
    out = [
        "2024-02-11 20:57:54,593 - INFO - using device:cpu\n",
        "2024-02-11 20:57:57,530 - INFO - args:Namespace(batch_size=4, epochs=100, gradient_accumulation_steps=4, "
        "log_step=1, lr=2.6e-05, warmup_steps=4000)\n",
        "2024-02-11 20:58:02,375 - INFO - starting training\n",
    ]
    k = 0
    for e in range(1, epochs + 1):
        for b in range(1, batches + 1):
            lr = 6.5e-9 * (k // 4)
            lrs = f"[{lr}]" if bracket else f"{lr}"
            out.append(
                f"2024-02-11 20:58:{k % 60:02d},930 - INFO - batch {b} of epoch {e}, loss {9.6 - k / 100}, "
                f"batch_acc {k / 1000}, lr {lrs}\n"
            )
            k += 1
        out.append(f"2024-02-11 21:58:03,930 - INFO - epoch {e}: loss 9.1, predict_acc 0.01\n")
    return "".join(out)


def test_a_batch_of_its_epoch_then_comma_cells(tmp_path):
    _, recs, _ = read(write(tmp_path, "log/train.log", _launch(12, bracket=True) + _launch(30, bracket=False)))
    assert [r.step for r in recs] == list(range(1, 13)) + list(range(1, 31))
    # "loss 9.6" and "batch_acc 0.0" apart by a space; the LR a one-element list ("lr [0.0]") or a number
    assert recs[0].loss == 9.6 and recs[0].extra == {"batch_acc": 0.0} and recs[0].lr == 0.0
    assert recs[4].lr == 6.5e-9 and recs[-1].lr == pytest.approx(6.5e-9 * 7)
    # each launch's first record carries the mark (its "args:Namespace(" banner)
    assert [r.step for r in recs if r.launch] == [1, 1]
    # the epoch's summary line ("epoch 1: loss 9.1, predict_acc 0.01") is no step
    assert all(r.epoch == 1 for r in recs)


def test_the_batch_counter_starts_again_each_epoch(tmp_path):
    # epoch 2's batches come after epoch 1's: the epoch's length is its last batch logged (epoch_steps.py)
    _, recs, _ = read(write(tmp_path, "train.log", _launch(10, epochs=3)))
    assert [r.step for r in recs] == list(range(1, 31))
    assert [r.epoch for r in recs] == [1] * 10 + [2] * 10 + [3] * 10
    # a fork that names its cells in words and prints a second loss: "batch accuracy" needs its ":" (a
    # name of several words apart from its value by a space is prose), "a_loss" is read
    text = "".join(
        f"batch {b} of epoch 1, loss {3 - b / 100}, acc 0.{b:02d}, lr [{b}e-06, {b}e-06], a_loss 0.{b:02d}\n"
        for b in range(1, 21)
    )
    _, recs, _ = read(write(tmp_path, "fork.log", text))
    assert [r.step for r in recs] == list(range(1, 21))
    assert recs[4].lr == 5e-06 and recs[4].extra["acc"] == 0.05 and recs[4].extra["a_loss"] == 0.05


def test_a_sentence_after_a_step_gives_no_cells(tmp_path):
    # "name value" without ":" / "=" is read only where the line is a list of such cells to its end
    # (a counter of its epoch with no metric after it heads no group: "best loss: 0.5" is not its record)
    text = "".join(
        f"step {s}, the loss is {s / 10} now\nstep {s}, saving model to ckpt 3\nbatch {s} of epoch 1, loss was "
        f"{s / 10}\nsaving the model at step {s} of epoch 1\nbest loss: 0.5\n"
        for s in range(1, 8)
    )
    path = write(tmp_path, "prose.log", text)
    from tsm_tui.sources import registry

    reader, fi = registry.open_reader(str(path))
    assert reader is None or fi.format == "console", fi.note
    # a list of cells after a step marker, on any step line: read (the whole line is cells)
    _, recs, _ = read(write(tmp_path, "cells.log", "".join(f"step {s}, loss 1.{s}, acc 0.{s}\n" for s in range(1, 9))))
    assert recs[0].loss == 1.1 and recs[0].extra == {"acc": 0.1}


def test_bad_lines_of_both_classes_never_raise(tmp_path):
    lines = [
        "batch 3 of epoch 1, loss 9.4, batch_acc",  # truncated
        "batch 4 of epoch 1, loss 9.4, batch_acc 0.0, lr [",
        "batch 99999999999999999999999 of epoch 1, loss 9.4",  # a counter out of range
        "batch 5 of epoch 99999999999999999999999, loss 9.4",
        "batch 6 of epoch 1, loss 1e400, lr [1e400]",  # a number out of range
        "batch 7 of epoch 1, loss nan, batch_acc 0.0, lr [nan]",
        "batch 8 of epoch 1, loss inf, lr [" + "1," * 50000 + "x",  # a hostile list
        "|  999999999999999999999999/ 1 steps| loss    5.0|",
        "|     9/  100 steps| loss    nan| acc: 0.1",
        "|     10/  100 steps| loss    5.0|" + " loss 1" * 20000,
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 1e400",
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to",
        "Gradient overflow.  " * 5000 + "Skipping step, loss scaler 0 reducing loss scale to 2.0",
    ]
    _, recs, reader = read(write(tmp_path, "bad.log", "\n".join(lines * 3) + "\n"))
    assert any(r.loss is not None and math.isnan(r.loss) for r in recs)
    assert reader.skipped > 0  # (the counters out of range: counted, not read)
