"""Records spread over several lines, read by the generic text reader (issue 26;
``sources/text_groups.py``): a step carried across lines, an epoch carried to
per-epoch counters with evaluation sections (PaddlePaddle ``Model.fit``), tables of
names and values (Stable-Baselines3)."""

from __future__ import annotations

import os
import sys

from helpers import paths

from tsm_tui.analysis.replay import analyze
from tsm_tui.core.record import TextEvent
from tsm_tui.sources import reading, registry
from tsm_tui.sources.checkpoint_lines import SAVE_KIND
from tsm_tui.sources.generic_text import KeyValueTextReader

sys.path.insert(0, os.path.dirname(__file__))
from helpers.paths import BENCH
from test_fast_readers import check  # noqa: E402
from test_formats import read, write  # noqa: E402

REAL = os.path.join(paths.DATA, "real")

# Stable-Baselines3's own example of its console logger (docs/common/logger.rst, MIT), as printed
SB3_TABLE = """\
  -----------------------------------------
  | eval/                   |             |
  |    mean_ep_length       | 200         |
  |    mean_reward          | -157        |
  | rollout/                |             |
  |    ep_len_mean          | 200         |
  |    ep_rew_mean          | -227        |
  | time/                   |             |
  |    fps                  | 972         |
  |    iterations           | 19          |
  |    time_elapsed         | 80          |
  |    total_timesteps      | 77824       |
  | train/                  |             |
  |    approx_kl            | 0.037781604 |
  |    clip_fraction        | 0.243       |
  |    clip_range           | 0.2         |
  |    entropy_loss         | -1.06       |
  |    explained_variance   | 0.999       |
  |    learning_rate        | 0.001       |
  |    loss                 | 0.245       |
  |    n_updates            | 180         |
  |    policy_gradient_loss | -0.00398    |
  |    std                  | 0.205       |
  |    value_loss           | 0.226       |
  -----------------------------------------
"""


def _read(path):
    reader, fi = registry.open_reader(str(path))
    return fi, list(reading.read_records(str(path), reader)), reader


def test_paddle_model_fit_epochs_counters_and_eval_sections():
    """Real PaddlePaddle ``Model.fit`` output (60 epochs of 7 steps, an evaluation after
    each): before, 120 training records at steps 7 and 2 over and over (the eval lines'
    counter), read as 119 resumes."""
    fi, recs, reader = _read(os.path.join(REAL, "paddle_hapi_landmark.log"))
    assert fi.format == "text"
    train = [(r.step, r.loss) for r in recs if r.loss is not None]
    val = [(r.step, r.val_loss) for r in recs if r.val_loss is not None]
    assert [s for s, _ in train] == list(range(7, 421, 7)) and train[0][1] == 0.0962 and train[-1][1] == 0.0098
    assert val[0] == (7, 8.913) and [s for s, _ in val] == list(range(7, 421, 7))  # at the epoch's last step
    assert reader.run_info["total_steps"] == 420  # 60 epochs x 7
    an = analyze(os.path.join(REAL, "paddle_hapi_landmark.log"))
    assert an.monitor.state.resumes == [] and an.monitor.loss_steps == 60


def test_paddle_both_paths_agree():
    check(os.path.join(REAL, "paddle_hapi_landmark.log"))


def test_a_step_carried_to_the_lines_after_it(tmp_path):
    lines = []
    for s in range(10, 301, 10):
        lines += [
            f"[2024-05-01 10:00:00] INFO global step: {s}",
            f"    loss: {3 - s / 300:.4f}",
            "    lr: 1.0e-04",
            f"    grad_norm: {0.5 + s / 1000:.3f}",
            "",
        ]
    (tmp_path / "train.log").write_text("\n".join(lines))
    fi, recs, _ = _read(tmp_path / "train.log")
    assert fi.format == "text"
    assert [r.step for r in recs] == list(range(10, 301, 10))
    assert recs[0].loss == 2.9667 and recs[0].lr == 1e-4 and recs[0].grad_norm == 0.51
    check(str(tmp_path / "train.log"))


def test_a_per_epoch_log_with_metrics_under_the_epoch(tmp_path):
    text = "".join(f"Epoch {e}/20\n  train loss: {2 / e:.4f}, val loss: {2.2 / e:.4f}\n" for e in range(1, 21))
    (tmp_path / "train.log").write_text(text)
    fi, recs, reader = _read(tmp_path / "train.log")
    assert [r.step for r in recs] == list(range(1, 21)) and recs[1].loss == 1.0 and recs[1].val_loss == 1.1
    assert reader.run_info["total_steps"] == 20


def test_prose_naming_a_step_is_no_header():
    r = KeyValueTextReader("x")
    got = []
    for ln in (
        "step 5 | loss 2.0 | lr 1e-4",
        "saving checkpoint at iteration 5 to checkpoints",
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 131072.0, reducing to 65536.0",
        "  scale: 4.0",
        "step 6 | loss 1.9 | lr 1e-4",
    ):
        got += r.feed(ln)
    got += r.flush()
    saved = [x for x in got if type(x) is TextEvent]  # (the save line: an event, no record)
    assert [(x.step, x.kind, x.details) for x in saved] == [(5, SAVE_KIND, {"path": "checkpoints", "step": "5"})]
    got = [x for x in got if type(x) is not TextEvent]
    assert [(x.step, x.loss, x.overflow) for x in got] == [(5, 2.0, False), (5, None, True), (6, 1.9, False)]


def test_sb3_table(tmp_path):
    (tmp_path / "train.log").write_text("Using cpu device\n" + SB3_TABLE * 3)
    fi, recs, reader = _read(tmp_path / "train.log")
    assert fi.format == "text" and len(recs) == 3
    r = recs[0]
    assert r.step == 77824 and r.loss == 0.245 and r.lr == 0.001
    assert r.extra["train/value_loss"] == 0.226 and r.extra["eval/mean_reward"] == -157
    assert reader.objective_note().startswith("train/loss (the logged total); also checked: train/entropy_loss")


def test_held_contexts_are_closed_by_what_follows():
    """A group waiting for its lines is closed by a line with a step of its own, a blank
    line, the end of the file; 2 s of quiet live (idle)."""
    r = KeyValueTextReader("x")
    assert r.feed("Step 100") == [] and r.feed("  loss: 2.5") == []
    (rec,) = r.idle()
    assert rec.step == 100 and rec.loss == 2.5
    assert r.feed("Step 110") == [] and r.feed("  loss: 2.4") == []
    (rec,) = r.feed("")
    assert rec.step == 110


def test_column_header_then_rows(tmp_path):
    """Ultralytics' console (the header, then each epoch's bar redraws: running means
    until the bar completes) and fastai's table: the names on one line, the values on the
    next."""
    bar = "\u2501" * 12
    lines = []
    for e in range(1, 13):
        lines.append("")  # (LOGGER.info("\n" + header): a blank line before each epoch's header)
        lines.append("      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size")
        redraws = [
            f"\x1b[K       {e}/50      8.37G     {1.2 - e / 50 + b / 1000:.4f}      {2.3 - e / 20:.4f}     "
            f"{0.92 - e / 100:.4f}         52        640: {b * 4}% {bar} {b}/25 1.2it/s"
            for b in (5, 15, 25)
        ]
        lines.append("\r" + "\r".join(redraws))  # (tqdm writes "\r" before each redraw)
        lines.append(
            "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): "
            f"100% {bar} 4/4 2.0it/s"
        )
        lines.append("                   all        240        218          1     0.0298       0.38      0.286")
    (tmp_path / "yolo_train.log").write_text("\n".join(lines) + "\n")
    fi, recs, reader = _read(tmp_path / "yolo_train.log")
    assert fi.format == "text" and [r.step for r in recs] == list(range(1, 13))
    r = recs[0]
    assert r.extra["box_loss"] == 1.205 and round(r.loss, 4) == round(1.205 + 2.25 + 0.91, 4)  # the completed bar
    assert reader.run_info["total_steps"] == 50 and reader.objective_note().startswith("sum of box_loss + cls_loss")
    fastai = "epoch     train_loss  valid_loss  accuracy  time    \n" + "".join(
        f"{e:<9d} {1.2 * 0.8**e:.6f}    {1.1 * 0.82**e:.6f}    {0.6 + 0.03 * e:.6f}  00:{10 + e:02d}     \n"
        for e in range(12)
    )
    (tmp_path / "fastai.log").write_text(fastai)
    fi, recs, _ = _read(tmp_path / "fastai.log")
    assert [r.step for r in recs] == list(range(12)) and recs[0].loss == 1.2 and recs[0].val_loss == 1.1


def test_column_rows_edges():
    """A NaN under a loss column is read (the NaN check sees it); a tqdm bar of the
    classic style completes too; a blank line ends the table (a row of numbers after it
    is no record); prose naming a step and a loss with punctuation is no header."""
    r = KeyValueTextReader("x.log")
    assert r.feed("      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size") == []
    assert (
        r.feed("\r       1/3      2.1G     0.9      1.1      0.8      16      640:  50%|#####     | 2/4 [00:01<00:01]")
        == []
    )
    (rec,) = r.feed(
        "\r       1/3      2.1G     nan      1.1      0.8      16      640: 100%|##########| 4/4 [00:02<00:00]"
    )
    assert rec.step == 1 and rec.loss != rec.loss and rec.extra["cls_loss"] == 1.1
    assert r.feed("") == [] and r.feed("       2/3      2.1G     0.9      1.1      0.8      16      640") == []
    assert r.feed("Epoch loss: the step was skipped") == [] and r._cols is None


def test_a_long_preamble_and_paddle_launcher_names(tmp_path):
    """A config dump of 700 lines before detectron2's first "iter:" line (the generic
    sniffer reads 400: the head's lines with a metric word are sniffed too); Paddle's
    launcher writes log/workerlog.N."""
    (tmp_path / "log").mkdir()
    text = "".join(f"  MODEL.OPTION_{i}: {i}\n" for i in range(700)) + "".join(
        f"[11/30 01:16:13] d2.utils.events INFO:  eta: 1:54:02  iter: {i}  total_loss: {0.2 - i / 10000:.4f}  "
        f"loss_cls: 0.06  loss_box_reg: 0.07  time: 0.68  lr: 0.004  max_mem: 11811M\n"
        for i in range(19, 1000, 20)
    )
    (tmp_path / "log" / "workerlog.0").write_text(text)
    an = analyze(str(tmp_path))
    assert an.monitor.loss_steps == 50 and an.run.primary.endswith("workerlog.0")


def test_knover_step_line_then_lr_and_losses():
    """PaddlePaddle Knover's workerlog (the shape of bench/corpus/console's
    paddle_knover_multiline_launches): the step line carries a time and a speed, the
    LR and the losses follow on tab-indented lines; an evaluation's "step N:" lines are
    validation losses at the last training step, and training's next step line ends it."""
    r = KeyValueTextReader("workerlog.0")
    text = []
    for s in (100, 200, 300):
        text += [
            f"[train][1] progress: 1/1 step: {s}, time: 3.791, speed: 26.378 steps/s",
            f"\tcurrent lr: {s / 1e8:.7f}",
            f"\tlm_loss: {5 - s / 100:.4f}, ppl: 32.1986, loss: {5 - s / 100:.4f}",
        ]
    text += [
        "=" * 80,
        "Evaluation:",
        "\tstep 1:lm_loss: 4.0102, ppl: 55.1562, loss: 4.0102",
        "\tstep 2:lm_loss: 4.6084, ppl: 100.3219, loss: 4.6084",
        "[train][1] progress: 1/1 step: 400, time: 3.295, speed: 30.353 steps/s",
        "\tcurrent lr: 0.0000040",
        "\tlm_loss: 1.0000, ppl: 2.7, loss: 1.0000",
        "",
    ]
    recs = [rec for ln in text for rec in r.feed(ln)]
    train = [(x.step, x.loss, x.lr) for x in recs if x.loss is not None]
    assert train == [(100, 4.0, 1e-6), (200, 3.0, 2e-6), (300, 2.0, 3e-6), (400, 1.0, 4e-6)]
    assert [(x.step, x.val_loss) for x in recs if x.val_loss is not None] == [(300, 4.0102), (300, 4.6084)]


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


def test_a_step_key_alone_on_its_line_heads_the_losses_after_it(tmp_path):
    # decision_mamba_multiline_blocks (committed): an offline-RL trainer's print blocks
    blocks = []
    for k in range(1, 41):
        blocks.append(
            "============================================================\n"
            f"time elapsed: 0:{2 * k:02d}:03\nnum of updates: {1000 * k}\nret loss: {3.3 - k / 50:.5f}\n"
            f"action loss: {0.24 - k / 500:.5f}\nstate loss: 0.11723\nexp loss: 0.01384\n"
        )
    _, recs, reader = read(write(tmp_path, "output.log", "".join(blocks)))
    assert [r.step for r in recs] == [1000 * k for k in range(1, 41)]
    # no total: the sum of the terms (the objective rule), each term checked too
    assert abs(recs[0].loss - (3.28 + 0.238 + 0.11723 + 0.01384)) < 1e-9
    assert "sum of ret loss + action loss + state loss + exp loss" in reader.objective_note()
    # a step key alone with no metric after it stays nothing ("num of updates: 1000" then prose)
    text = "".join(f"num of updates: {1000 * k}\nsaving the replay buffer\n" for k in range(1, 30))
    text += "".join(f"step {s} loss {1 / s}\n" for s in range(1, 30))
    _, recs, _ = read(write(tmp_path, "p.log", text))
    assert [r.step for r in recs] == list(range(1, 30))
