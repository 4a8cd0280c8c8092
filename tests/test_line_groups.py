"""Records spread over several lines, read by the generic text reader (issue 26;
``sources/kv_groups.py``): a step carried across lines, an epoch carried to
per-epoch counters with evaluation sections (PaddlePaddle ``Model.fit``), tables of
names and values (Stable-Baselines3)."""

from __future__ import annotations

import os
import sys

from tsm_tui.analysis.engine import analyze
from tsm_tui.sources import registry
from tsm_tui.sources.kv_text import KeyValueTextReader

sys.path.insert(0, os.path.dirname(__file__))
from test_fast_readers import check  # noqa: E402

REAL = os.path.join(os.path.dirname(__file__), "data", "real")

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
    return fi, list(registry.read_records(str(path), reader)), reader


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
        lines += [f"[2024-05-01 10:00:00] INFO global step: {s}", f"    loss: {3 - s / 300:.4f}", "    lr: 1.0e-04",
                  f"    grad_norm: {0.5 + s / 1000:.3f}", ""]
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
    for ln in ("step 5 | loss 2.0 | lr 1e-4", "saving checkpoint at iteration 5 to checkpoints",
               "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 131072.0, reducing to 65536.0",
               "  scale: 4.0", "step 6 | loss 1.9 | lr 1e-4"):
        got += r.feed(ln)
    got += r.flush()
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
