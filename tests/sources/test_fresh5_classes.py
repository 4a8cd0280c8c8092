"""Reader classes the held-out set fresh5 (``bench/corpus/fresh5``, notes/fresh5.md §4.A, §4.E)
showed missing: a loss named with its split and granularity inside the name (Ludwig's
TensorBoard, Lightning's ``valid_loss_epoch``) and a nested per-split statistics JSON; DVCLive
< 1.0's ``scalars/`` layout and millisecond timestamps; a split carried by a directory
(GraphGym's ``agg/{train,val,test}``); 0.0 placeholders of the other split; Lightning's
progress-bar redraws read as relaunches and preferred to the tracker's history. Real files
(Ludwig's and Lightning's from the corpus, DVCLive 0.12 and the W&B SDK's fixtures) and
lines quoted from the real logs; shapes that must not be read so beside each."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import paths
from helpers.livefiles import tb_event
from tsm_tui.analysis.replay import analyze, analyze_runs
from tsm_tui.analysis.run_open import open_runs
from tsm_tui.sources import log_files
from tsm_tui.sources.fields import field_for, seconds
from tsm_tui.sources.generic_text import KeyValueTextReader
from tsm_tui.sources.tensorboard import EPOCH_PLACED

from test_formats import read, write  # noqa: E402

FRESH5 = Path(paths.BENCH) / "corpus" / "fresh5"
LUDWIG = FRESH5 / "ludwig_results_two_experiment_runs" / "results"
DVC0 = Path(paths.DATA) / "dvclive" / "v0"


# -- 1/2. a loss's split and granularity inside its name ------------------------------------------
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


def test_ludwig_tensorboard_batch_loss_and_epoch_summaries_at_the_epochs_end():
    """Ludwig 0.3's TensorBoard (real, corpus): the per-batch combined loss is the loss; the
    per-epoch validation loss, logged at the epoch's NUMBER after the epoch's batches, is placed
    at the epoch's last batch (no step goes back: it read as 16 resumes)."""
    (ev,) = (LUDWIG / "experiment_run" / "model" / "log" / "train").iterdir()
    fmt, recs, reader = read(ev)
    assert fmt == "tensorboard"
    train = [r for r in recs if r.loss is not None]
    val = [r for r in recs if r.val_loss is not None]
    assert len(train) == 64 and [r.step for r in train] == list(range(64))
    assert len(val) == 16 and [r.step for r in val] == [4 * e - 1 for e in range(1, 17)]
    steps = [r.step for r in recs]
    assert steps == sorted(steps)
    assert reader.skip_reasons[EPOCH_PLACED] == 16


def test_an_epoch_tag_at_its_own_step_is_not_moved(tmp_path):
    """Keras-like tags named ``epoch_`` in a file whose steps never go back stay where they are;
    a per-batch tag that goes back (a new launch) is not an epoch summary and is not moved."""
    evs = [tb_event(s, "epoch_loss", 2.0 - s / 10) for s in range(5)]
    evs += [tb_event(s, "batch_loss", 3.0 - s / 100) for s in (10, 11, 12, 0, 1)]
    p = tmp_path / "events.out.tfevents.1.host"
    p.write_bytes(b"".join(evs))
    _, recs, reader = read(p)
    assert [r.step for r in recs] == [0, 1, 2, 3, 4, 10, 11, 12, 0, 1]
    assert EPOCH_PLACED not in reader.skip_reasons


def test_ludwig_training_statistics_json_per_split():
    """training_statistics.json (real): {split: {combined|feature: {metric: [per epoch]}}}: the
    training split's combined loss, the VALIDATION split's (not test's) as the validation loss."""
    doc = json.loads((LUDWIG / "experiment_run" / "training_statistics.json").read_text())
    fmt, recs, _ = read(LUDWIG / "experiment_run" / "training_statistics.json")
    assert fmt == "json-columns" and len(recs) == 16
    assert [r.loss for r in recs] == pytest.approx(doc["training"]["combined"]["loss"])
    assert [r.val_loss for r in recs] == pytest.approx(doc["validation"]["combined"]["loss"])
    assert doc["validation"]["combined"]["loss"] != doc["test"]["combined"]["loss"]


def test_a_per_split_document_without_a_validation_split_takes_test(tmp_path):
    p = write(tmp_path, "stats.json", json.dumps({"test": {"loss": [3.0, 2.0]}, "train": {"loss": [4.0, 2.5]}}))
    _, recs, _ = read(p)
    assert [(r.step, r.loss, r.val_loss) for r in recs] == [(0, 4.0, 3.0), (1, 2.5, 2.0)]


def test_ludwig_results_are_two_runs_read_from_their_tensorboard():
    """The statistics document is its run's per-epoch summary, not a second series: two runs
    (experiment_run, experiment_run_0), each read from its per-batch TensorBoard."""
    runs = open_runs(str(LUDWIG.parent))
    assert sorted(os.path.basename(r.path) for r in runs) == ["experiment_run", "experiment_run_0"]
    for an in analyze_runs(str(LUDWIG.parent)):
        assert "tfevents" in an.run.primary
        checks = {c.id: c for c in an.checks()}
        assert checks["loss_spike"].summary in ("no spikes in 64 loss values", "no spikes in 72 loss values")
        assert checks["overfitting"].status.value != "SKIP"


def test_lightning_1x_valid_loss_epoch_is_the_validation_loss():
    """Lightning 1.x TensorBoard (real, corpus): valid_loss_epoch read, valid_loss_step (per
    validation batch, ``/epoch_N`` tags restarting at 0) not the training loss."""
    (ev,) = (FRESH5 / "tb_lightning1x_step_epoch_and_valid_step_tags" / "lightning_logs" / "version_0").glob(
        "events.out.tfevents.*"
    )
    _, recs, reader = read(ev)
    assert len([r for r in recs if r.val_loss is not None]) == 2
    keys = reader.field_keys()
    assert keys["loss"] == ["train_loss_step"] and keys["val_loss"] == ["valid_loss_epoch"]


# -- 3. DVCLive < 1.0 and millisecond timestamps ------------------------------------------------------
@pytest.mark.parametrize("sub,name", [("default", "dvclive"), ("named", "live")])
def test_dvclive_0x_scalars_layout_is_one_dvclive_source(sub, name):
    """dvclive 0.12.1 (real fixture): ``<dir>/scalars/*.tsv`` + ``<dir>.json``: one source,
    loss, LR and eval/loss together; its Unix-millisecond timestamps as milliseconds."""
    root = DVC0 / sub
    found = log_files.candidate_files(str(root))
    assert str(root / name / "scalars") in found and not any(p.endswith(".tsv") for p in found)
    an = analyze(str(root))
    (src,) = [f for f in an.run.files if f.used]
    assert src.format == "dvclive" and src.records == 60
    checks = {c.id: c for c in an.checks()}
    assert checks["overfitting"].status.value != "SKIP" and checks["lr_schedule"].status.value != "SKIP"
    assert [a.step for a in an.alerts() if a.check == "loss_spike"][0] == 40  # (the spike, then its recovery)
    # 60 steps logged in well under a minute: the rate is steps per second, not per 1000 s
    assert "steps/s" in checks["throughput"].summary and "e-" not in checks["throughput"].summary


def test_a_scalars_directory_without_dvclive_marks_is_not_dvclive(tmp_path):
    d = tmp_path / "job" / "mine" / "scalars"
    d.mkdir(parents=True)
    (d / "loss.tsv").write_text("timestamp\tstep\tloss\n1664787192871\t0\t1.0\n1664787193871\t1\t0.9\n")
    found = log_files.candidate_files(str(tmp_path))
    assert found == [str(d / "loss.tsv")]


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


# -- 4. a split carried by its directory -------------------------------------------------------------
def test_graphgym_split_directories_are_one_run(tmp_path):
    """GraphGym's agg/{train,val,test}/events.*, each with a ``loss`` tag per epoch: the val and
    test splits are evaluation splits of the train run (test was a training run of its own)."""
    for split, base in (("train", 2.0), ("val", 2.2), ("test", 2.3)):
        d = tmp_path / "agg" / split
        d.mkdir(parents=True)
        evs = [tb_event(s, "loss", base - s / 100) for s in range(30)] + [tb_event(s, "lr", 1e-3) for s in range(30)]
        (d / "events.out.tfevents.1668069777.host").write_bytes(b"".join(evs))
    runs = open_runs(str(tmp_path))
    assert len(runs) == 1
    _, recs, _ = read(tmp_path / "agg" / "test" / "events.out.tfevents.1668069777.host")
    assert all(r.loss is None for r in recs) and len([r for r in recs if r.val_loss is not None]) == 30
    an = analyze(str(tmp_path))
    assert "agg/train/" in an.run.primary.replace(os.sep, "/")


# -- 5. 0.0 placeholders of the other split ----------------------------------------------------------
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


# -- 6. Lightning's progress bar -----------------------------------------------------------------------
# quoted from fresh5's wandb0210 console (Lightning 2.x, 10 training + 3 validation batches an
# epoch): the bar is reset under the old epoch's label before the next epoch's first batch
BAR = "Epoch {e}:  {p:>2}%|███████      | {n}/13 [00:00<00:04,  2.92it/s, loss={loss}, v_num=-100]"


def test_lightning_bar_counter_restarting_each_epoch_is_no_relaunch(tmp_path):
    lines = []
    for e in range(3):
        lines.append(BAR.format(e=e, p=0, n=0, loss=3.0).replace("2.92it/s", "?it/s"))
        for n in range(1, 14):
            lines.append(BAR.format(e=e, p=n * 7, n=n, loss=round(3.0 - e - n / 20, 2)))
        lines.append(BAR.format(e=e, p=0, n=0, loss=1.0).replace("2.92it/s", "?it/s"))  # the reset
    r = KeyValueTextReader(str(tmp_path / "output.log"))
    recs = [x for ln in lines for x in r.feed(ln)] + r.flush()
    steps = [x.step for x in recs]
    assert steps == sorted(steps) and len(set(steps)) == 39 == r.bar_records
    assert [x.epoch for x in recs[:14:13]] == [0.0, 1.0]


def test_lightning_under_wandb_is_judged_from_its_history():
    """fresh5's wandb0210 (real, committed): 16 train_loss rows in the history, 1040 bar redraws
    in the console: the history is the series; no relaunch, no "not learning" alert."""
    an = analyze(str(FRESH5 / "wandb0210_lightning_eeg_epoch_loss"))
    checks = {c.id: c for c in an.checks()}
    assert an.run.primary.endswith(".wandb") and checks["loss_spike"].summary == "no spikes in 16 loss values"
    assert not [a for a in an.alerts() if a.severity.value == "critical"]
    assert an.monitor.state.first_step == 49
