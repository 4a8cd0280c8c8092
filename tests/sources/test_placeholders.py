"""Literal 0.0 placeholders of the other split (``sources/placeholders.py``): a row's
``val_loss: 0.0`` beside its training loss is no value (an SSD DDP trainer under W&B, held-out set
fresh5), a real zero loss is kept, and the W&B run file reads like its twin of real values."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import paths
from test_formats import read, write  # noqa: E402

from tsm_tui.analysis.replay import analyze


# -- 0.0 placeholders of the other split ----------------------------------------------------------
def _rows(n_epochs=5, per=10, real_zero=False):
    out, step = [], 0
    for e in range(n_epochs):
        for _ in range(per):
            out.append({"step": step, "train_loss": 0.0 if real_zero else 500.0 - step, "val_loss": 0.0})
            step += 1
        out.append({"step": step, "train_loss": 0.0, "val_loss": 600.0 - 10 * e})
        step += 1
    return out


def test_zero_placeholders_of_the_other_split_are_no_values(tmp_path):
    text = "".join(json.dumps(r) + "\n" for r in _rows())
    _, recs, reader = read(write(tmp_path, "metrics.jsonl", text))
    from tsm_tui.core.frame import expand

    recs = list(expand(recs))
    assert [r.val_loss for r in recs if r.val_loss is not None] == [600.0, 590.0, 580.0, 570.0, 560.0]
    assert 0.0 not in [r.loss for r in recs] and len([r for r in recs if r.loss is not None]) == 50
    assert sum(reader.skip_reasons.values()) == 55


def test_a_real_zero_loss_is_kept(tmp_path):
    """A dead run's loss of exactly 0.0 (fresh5's Condenser) with no placeholder written stays;
    so does a 0.0 training loss beside a real validation loss in a file that never wrote one."""
    text = "".join(json.dumps({"step": i, "loss": 0.0, "grad_norm": 1.0}) + "\n" for i in range(30))
    _, recs, _ = read(write(tmp_path, "a.jsonl", text))
    from tsm_tui.core.frame import expand

    assert [r.loss for r in expand(recs)] == [0.0] * 30
    text = "".join(json.dumps({"epoch": i, "loss": 0.0, "val_loss": 0.7}) + "\n" for i in range(30))
    _, recs, _ = read(write(tmp_path, "b.jsonl", text))
    assert [(r.loss, r.val_loss) for r in expand(recs)] == [(0.0, 0.7)] * 30


def test_zero_placeholders_under_wandb_read_like_the_real_values():
    """The W&B SDK's own run file (tests/data/wandb/sdk-0.31.0/split_placeholders): the report
    equals its twin's, which holds each row's real value only (test_wandb_run compares all)."""
    an = analyze(str(Path(paths.DATA) / "wandb" / "sdk-0.31.0" / "split_placeholders"))
    checks = {c.id: c for c in an.checks()}
    assert checks["loss_spike"].summary == "no spikes in 50 loss values"
    ov = checks["overfitting"]
    assert "5 evaluation" in ov.summary and "best 0 " not in ov.summary
