"""Field names and values (``sources/fields.py``): which key is the loss, the validation loss or
no field (a split and a granularity inside the name, a trailing colon, a ratio with the loss),
the objective and loss terms a log's keys give, ``nan.0`` as NaN, Unix milliseconds as seconds.
Keys quoted from real logs (Lightning, Ludwig, a nanoGPT fork's monitor of the held-out sets)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers.paths import BENCH
from test_formats import read, write  # noqa: E402

from tsm_tui.cli import main
from tsm_tui.sources.fields import field_for, key_roles, loss_role, normalise, objective, seconds

FRESH = os.path.join(BENCH, "corpus", "fresh")


def test_lightning_bar_nan_dot_zero_is_a_nan_loss():
    # Lightning's progress bar prints a NaN loss as train_loss_step=nan.0 (OmniAvatar in
    # 'fresh': 5 steps, NaN from step 1, read as no loss at all)
    import math

    from tsm_tui.analysis.replay import analyze
    from tsm_tui.sources.fields import to_float

    assert math.isnan(to_float("nan.0")) and to_float("inf.0") == math.inf
    an = analyze(os.path.join(FRESH, "omniavatar_wan_lightning_nan"))
    nan = next(c for c in an.checks() if c.id == "nonfinite")
    assert nan.status.value == "FAIL" and "first at step 1" in nan.summary


# -- a loss's split and granularity inside its name ------------------------------------------
@pytest.mark.parametrize(
    "key,field",
    [
        # Lightning's self.log(on_step=True, on_epoch=True) suffixes, every split word
        ("valid_loss_epoch", "val_loss"),
        ("valid_loss", "val_loss"),
        ("val_loss_epoch", "val_loss"),
        ("eval_loss_epoch", "val_loss"),
        ("dev_loss", "val_loss"),
        ("test_loss_epoch", "val_loss"),
        ("validation_loss_epoch", "val_loss"),
        ("train_loss_step", "loss"),
        ("training_loss_step", "loss"),
        # Ludwig's TensorBoard tags
        ("combined/batch_train_reg_mean_loss", "loss"),
        ("combined/epoch_validation_loss", "val_loss"),
        ("combined/epoch_test_loss", "val_loss"),
        # the nested statistics document's paths
        ("training/combined/loss", "loss"),
        ("validation/combined/loss", "val_loss"),
        ("test/combined/loss", "val_loss"),
        # not a loss of the run's objective at its steps:
        ("valid_loss_step", None),  # one value per validation batch (its step restarts each epoch)
        ("val_loss_step", None),
        ("train_loss_epoch", None),  # the epoch's summary beside the per-step series
        ("combined/epoch_training_loss", None),  # Ludwig's, at the epoch's number
        ("label/batch_train_mean_loss_label", None),  # one output feature's loss (a term)
        ("training/label/loss", None),
        ("train_reg_loss", None),  # a detector's box-regression term
        ("train_val_loss", None),  # two splits: nobody's
        ("ema/train_loss", None),
        ("train/train_loss", None),  # HF's run average at its end (a split named twice)
    ],
)
def test_split_and_granularity_words_in_a_loss_name(key, field):
    assert field_for(key) == field


def test_millisecond_timestamps_in_any_reader(tmp_path):
    """A Unix time above 1e11 is milliseconds (the per-record path and the JSONL columns path)."""
    assert seconds(1664787192871.0) == pytest.approx(1664787192.871) and seconds(1.7e9) == 1.7e9
    rows = "".join(f"{1664787192871 + 60000 * i},{i},{2.0 - i / 100}\n" for i in range(40))
    _, recs, _ = read(write(tmp_path, "log.csv", "timestamp,step,loss\n" + rows))
    assert recs[1].time - recs[0].time == pytest.approx(60.0)
    text = "".join(
        json.dumps({"step": i, "loss": 2.0 - i / 100, "_timestamp": 1664787192871 + 60000 * i}) + "\n"
        for i in range(40)
    )
    _, recs, _ = read(write(tmp_path, "m.jsonl", text))
    from tsm_tui.core.frame import expand

    recs = list(expand(recs))
    assert recs[1].time - recs[0].time == pytest.approx(60.0)
    text = "".join(json.dumps({"step": i, "loss": 1.0, "_timestamp": 1.7e9 + i}) + "\n" for i in range(40))
    _, recs, _ = read(write(tmp_path, "s.jsonl", text))
    assert list(expand(recs))[1].time == 1.7e9 + 1  # seconds stay seconds


def test_a_key_with_a_trailing_colon_is_its_name():
    # wandb_0_12_gnn_flat_loss (private): wandb.log({"train loss:": ..., "validation loss:": ...})
    assert normalise("train loss:") == "train_loss" and field_for("train loss:") == "loss"
    assert field_for("validation loss:") == "val_loss" and field_for("lr=") == "lr"
    assert normalise(":") == ""


ROOT = Path(__file__).resolve().parents[2]


F10 = ROOT / "bench" / "corpus" / "fresh10"


MONITOR = F10 / "nanogpt_jsonl_monitor_grad_spikes" / "reports" / "monitor.jsonl"


def report(path, capsys) -> tuple[int, dict | None, str]:
    rc = main([str(path), "--report", "--json"])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc in (0, 1) else None), err


# ------------------------------------------------------------------ ratios are no loss terms
def test_a_ratio_with_the_loss_is_no_loss_term():
    # reports/monitor.jsonl: "gn_over_loss" is grad_norm / loss (0.2485 = 2.9661 / 11.9345 at iter 0)
    first = json.loads(MONITOR.open(encoding="utf-8").readline())
    assert abs(first["gn_over_loss"] - first["grad_norm"] / first["loss"]) < 1e-12
    for key in ("gn_over_loss", "loss_per_token", "train/loss_per_sample", "loss_div_tokens", "gnOverLoss"):
        assert loss_role(key) is None, key
    # terms stay terms; a loss computed per token is still a loss; the other rules are unchanged
    for key in ("aux_loss", "train/cls_loss", "per_token_loss", "overlap_loss", "loss_z"):
        assert loss_role(key) == "term", key
    assert loss_role("loss_ratio") is None and loss_role("gn/loss") is None
    assert field_for("loss_scale") == "loss_scale" and loss_role("loss_scale") is None
    assert objective(key_roles(["box_loss", "gn_over_loss", "cls_loss"])) == ("sum", ("box_loss", "cls_loss"))


def test_the_monitor_lines_name_no_ratio_in_their_objective(tmp_path):
    lines = MONITOR.read_text(encoding="utf-8").splitlines(keepends=True)[:800]
    _, recs, reader = read(write(tmp_path, "monitor.jsonl", "".join(lines)))
    assert len(recs) == 800 and recs[-1].step == 799
    assert "gn_over_loss" not in (reader.objective_note() or "")


def test_the_monitor_log_report_names_no_ratio_component(capsys):
    rc, rep, _ = report(MONITOR.parent.parent, capsys)
    assert rc in (0, 1) and rep is not None
    assert not any("gn_over_loss" in (a.get("message") or "") for a in rep["alerts"])
    spike = next(c for c in rep["checks"] if c["id"] == "loss_spike")
    assert spike["status"] == "PASS"
    assert "gn_over_loss" not in json.dumps([f.get("objective") for f in rep["files"]])
