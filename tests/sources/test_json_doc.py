"""Metrics saved as one JSON document (sources/json_doc.py), a CSV with a loss and no step,
scoped names (``main/loss``), the objective rule in W&B run files and the RL rule of the
loss-spike check (issue 26 §2: formats the corpus's `more` / `trackers` sets showed unread).

Real files: Chainer's LogReport ``results/log`` of the corpus (MIT, committed under
bench/corpus/more). The Sacred, SB3 and W&B files of the corpus are private: the files
here are written in their documented shapes (Sacred FileStorageObserver's metrics.json,
SB3's CSV logger columns, W&B's record framing from tests/livefiles.py)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run, status
from helpers import paths
from helpers.livefiles import wb_frame, wb_history
from test_formats import read, write  # noqa: E402

from tsm_tui.core.frame import expand
from tsm_tui.sources import json_doc, reading, registry
from tsm_tui.sources.fields import field_for, loss_role, rl_key
from tsm_tui.sources.wandb_run import WandbRunReader

CHAINER = Path(paths.BENCH) / "corpus" / "more" / "chainer_logreport_autoencoder" / "results" / "log"


def _read(path) -> tuple[list, object]:
    r, info = registry.open_reader(str(path))
    assert r is not None, info.note
    return [x for x in reading.read_records(str(path), r) if x.has_metrics()], r


def _report(path) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "tsm_tui", str(path), "--report", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ, NO_COLOR="1"),
    )
    assert out.returncode in (0, 1), out.stderr
    assert "Traceback" not in out.stderr
    return json.loads(out.stdout)


# -- names ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key,field",
    [
        ("main/loss", "loss"),
        ("validation/main/loss", "val_loss"),
        ("train/main/loss", "loss"),
        ("test/main/loss", "val_loss"),
        ("training/lr", "lr"),
        ("ema/loss", None),
        ("model_2/loss", None),
        ("val/lr", None),
        ("main/accuracy", None),
        ("validation/main/accuracy", None),
    ],
)
def test_scoped_names_go_through_the_field_table(key, field):
    assert field_for(key) == field
    if field is not None:
        assert loss_role(key) is None  # a field, never also a loss term


def test_cross_entropy_names_a_loss_and_rl_keys():
    assert loss_role("Self-labelling cross entropy") == "term"
    assert loss_role("train/nll") == "term"
    assert loss_role("val_cross_entropy") is None
    assert rl_key("rollout/ep_rew_mean") and rl_key("train/value_loss") and rl_key("reward_std")
    assert not rl_key("rewards/chosen") and not rl_key("train/loss")  # DPO's rewards: a supervised loss


# -- an array of records: Chainer's LogReport --------------------------------------------------
def test_chainer_logreport_is_read_whole():
    recs, r = _read(CHAINER)
    assert r.name == "json-array"
    assert len(recs) == 3125
    assert (recs[0].step, recs[-1].step) == (10, 31250)  # "iteration" is the step
    assert recs[0].loss == pytest.approx(0.05651096627116203)
    assert sum(x.val_loss is not None for x in recs) == 20  # validation/main/loss at each epoch's end
    assert r.skipped == 0 and not r.inferred_steps


def test_chainer_report_reads_every_step():
    rep = _report(CHAINER.parent.parent)
    f = next(f for f in rep["files"] if f["used"])
    assert f["format"] == "json-array" and f["records"] == 3125
    assert rep["steps"]["count"] == 3125
    assert {c["id"]: c["status"] for c in rep["checks"]}["overfitting"] != "SKIP"  # the validation loss is read


def test_an_array_of_sparse_records_whose_first_holds_no_metric(tmp_path):
    """fresh65's CS336 LM logger writes one JSON array of sparse records: the model's size first, then the
    LR, then the losses, several records a step, and a run summary at the end ({"summary/final_train_loss":
    ...}). The sniffer looked at the first element only: "no training metrics recognised" (exit 2). The
    first elements in the head are looked through; a run's summary of the loss is no term of it."""
    recs = [
        {"step": 0, "timestamp": 1.0, "model/total_parameters": 22696448},
        {"step": 0, "learning_rate/group_0": 0.0},
    ]
    for s in range(0, 500, 10):
        recs.append({"step": s, "train/loss": 9.3 * math.exp(-s / 200) + 1.0, "train/grad_norm_before_clip": 1.5})
        recs.append({"step": s, "learning_rate/group_0": 3e-4})
    recs.append({"step": 490, "summary/final_train_loss": 1.08})
    p = tmp_path / "logs" / "metrics.json"
    p.parent.mkdir()
    p.write_text(json.dumps(recs, indent=2))
    got, r = _read(p)
    assert r.name == "json-array"
    losses = [x for x in got if x.loss is not None]
    assert len(losses) == 50 and losses[0].loss == pytest.approx(10.3)
    assert loss_role("summary/final_train_loss") is None and loss_role("best_loss") is None
    rep = _report(tmp_path)
    used = next(f for f in rep["files"] if f["used"])
    assert rep["steps"]["count"] == 50 and "objective" not in used, used  # ('train/loss' is the loss itself)


def test_a_cut_array_keeps_what_came_before(tmp_path):
    data = CHAINER.read_bytes()
    for cut in (len(data) // 2, len(data) - 3, data.index(b'"main/loss"', 5000) + 5):
        p = tmp_path / "log"
        p.write_bytes(data[:cut])
        recs, r = _read(p)
        assert 0 < len(recs) < 3125
        assert r.skip_reasons == {"JSON array cut short (file being rewritten?)": 1}


def test_a_corrupt_element_is_a_counted_skip_and_reading_goes_on(tmp_path):
    data = CHAINER.read_bytes()
    i = data.index(b'"main/loss"', 100_000)
    p = tmp_path / "log"
    p.write_bytes(data[:i] + b'"main/loss": 0.0@@1,' + data[i + 40 :])
    recs, r = _read(p)
    assert len(recs) == 3124
    assert r.skip_reasons == {"corrupt JSON element": 1}


def test_hostile_values(tmp_path):
    rows = [
        '{"iteration": 1, "main/loss": 1.0}',
        '{"iteration": 2, "main/loss": NaN}',
        '{"iteration": 3, "main/loss": 1e400}',
        '{"iteration": 1180591620717411303424, "main/loss": 1.0}',
        "7",
        '{"iteration": 5, "main/loss": Infinity}',
        "[" * 5000 + "]" * 5000,
        '{"iteration": 6, "main/loss": 0.5, "nested": {"deeper": {"x": 1}}}',
    ]
    p = tmp_path / "log"
    p.write_text("[\n" + ",\n".join(rows) + "\n]\n")
    assert registry.open_reader(str(p))[1].format == "json-array"
    # the 5000-deep array is "nested too deeply" at the interpreter's default recursion limit (what
    # tsm-watch runs with); a test run may have raised the limit (Hypothesis does while it runs), and
    # then the C decoder parses it and it is "not an object": pin the default here
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        recs, r = _read(p)
    finally:
        sys.setrecursionlimit(limit)
    assert r.skip_reasons["JSON nested too deeply"] == 1
    assert [x.step for x in recs] == [1, 2, 5, 6]
    assert math.isnan(recs[1].loss) and math.isinf(recs[2].loss)
    assert recs[3].extra == {"nested/deeper/x": 1.0}
    assert r.skip_reasons["number out of range"] == 1
    assert r.skip_reasons["step out of range"] == 1
    assert r.skip_reasons["array element is not an object"] == 1
    assert sum(r.skip_reasons.values()) == 4  # (the nested arrays: an element that is not an object)


def test_streamed_across_chunks_with_memory_bounded_by_an_element(tmp_path):
    n = 60_000  # ~5 MiB: several 1 MiB chunks, elements cut at chunk ends
    p = tmp_path / "log"
    with open(p, "w") as f:
        f.write("[\n")
        f.write(
            ",\n".join(
                json.dumps(
                    {"main/loss": 1.0 + 1.0 / (i + 1), "iteration": i + 1, "epoch": i // 1000, "elapsed_time": i * 0.1},
                    indent=4,
                )
                for i in range(n)
            )
        )
        f.write("\n]")
    assert p.stat().st_size > 4 * json_doc.CHUNK
    recs, r = _read(p)
    assert len(recs) == n and r.skipped == 0
    assert [x.step for x in recs[:3]] == [1, 2, 3] and recs[-1].step == n


def test_an_element_over_the_bound_is_skipped_not_held(tmp_path):
    p = tmp_path / "log"
    big = json.dumps({"main/loss": 1.0, "iteration": 2, "note": "x" * (3 * json_doc.MAX_ELEMENT)})
    p.write_text('[{"main/loss": 2.0, "iteration": 1},\n' + big + ',\n{"main/loss": 0.5, "iteration": 3}]')
    recs, r = _read(p)
    assert [x.step for x in recs] == [1, 3]
    assert r.skip_reasons == {f"JSON element longer than {json_doc.MAX_ELEMENT >> 20} MiB": 1}


def test_arrays_that_are_not_metrics_are_not_claimed(tmp_path):
    data = tmp_path / "train.json"  # a data set: records of text
    data.write_text(json.dumps([{"instruction": "hi", "output": "hello"}] * 50, indent=2))
    assert registry.open_reader(str(data))[1].format != "json-array"
    results = tmp_path / "all_results.json"  # HF's summary: one flat object
    results.write_text(json.dumps({"epoch": 3.0, "train_loss": 0.5, "eval_loss": 0.6}, indent=2))
    assert registry.open_reader(str(results))[0] is None
    state = tmp_path / "trainer_state.json"
    state.write_text(json.dumps({"log_history": [{"loss": 1.0, "step": 1}]}, indent=2))
    assert registry.open_reader(str(state))[1].format == "hf-trainer-state"


# -- columns per metric: Sacred, Keras history -------------------------------------------------
def _sacred(run: Path, n: int = 100) -> None:
    """A Sacred FileStorageObserver run dir, as ``sacred.observers.FileStorageObserver`` writes it."""
    run.mkdir(parents=True)
    metrics = {}
    for name, f in (
        ("grad_bias_map", lambda i: 50.0 / (i + 1)),
        ("loss", lambda i: 42087.7 / (1 + i / 10) + 4000),
        ("grad_z_loc", lambda i: 2220.0 - 18 * i),
    ):
        metrics[name] = {
            "steps": list(range(n)),
            "timestamps": [f"2023-03-01T10:00:{i % 60:02d}.000000" for i in range(n)],
            "values": [f(i) for i in range(n)],
        }
    (run / "metrics.json").write_text(json.dumps(metrics, sort_keys=True, indent=2))
    (run / "config.json").write_text(json.dumps({"n_epochs": n, "seed": 488707886}, indent=2))
    (run / "run.json").write_text(json.dumps({"status": "COMPLETED", "command": "train", "heartbeat": "x"}, indent=2))
    (run / "cout.txt").write_text(
        "INFO - tgne - Running command 'train'\nINFO - tgne - Started run with ID \"3\"\n"
        # (its tqdm bar's description: the loss of step i at the bar's count i + 1)
        + "".join(
            f"\rloss: {42087.7 / (1 + i / 10) + 4000:.4f}:   {i + 1}%|  | {i + 1}/100 [00:00<00:00, 99.0it/s]"
            for i in range(n)
        )
        + "\nINFO - tgne - Completed after 0:00:02\n"
    )


def test_sacred_run_dir(tmp_path):
    _sacred(tmp_path / "my_runs" / "3")
    recs, r = _read(tmp_path / "my_runs" / "3" / "metrics.json")
    assert r.name == "json-columns"
    assert [x.step for x in recs] == list(range(100))
    assert recs[0].loss == pytest.approx(46087.7) and recs[0].extra["grad_z_loc"] == 2220.0
    rep = _report(tmp_path / "my_runs")
    used = [f for f in rep["files"] if f["used"]]
    assert [f["format"] for f in used] == ["json-columns"] and rep["steps"]["count"] == 100
    cout = next(f for f in rep["files"] if f["path"].endswith("cout.txt"))
    assert cout["format"] is not None  # Sacred's captured console: read (crash lines, its own metrics)


def test_columns_hostile(tmp_path, monkeypatch):
    p = tmp_path / "metrics.json"
    p.write_text(
        json.dumps(
            {"loss": {"steps": [0, 1, 2, "x", 4], "values": [1.0, float("nan"), 2.0, 3.0]}, "note": "text"}, indent=1
        )
    )
    recs, r = _read(p)
    assert [x.step for x in recs] == [0, 1, 2]
    assert math.isnan(recs[1].loss)
    assert r.skip_reasons == {"5 steps for 4 values (the shorter is read)": 1, "bad step": 1}
    p.write_text(p.read_text()[:-20])  # cut short: nothing this time, said
    recs, r = _read(p)
    assert recs == [] and r.skip_reasons == {"invalid JSON (file being rewritten?)": 1}
    monkeypatch.setattr(json_doc, "MAX_DOC_BYTES", 100)
    p.write_text(json.dumps({"loss": {"steps": list(range(50)), "values": [1.0] * 50}}, indent=1))
    recs, r = _read(p)
    assert recs == [] and r.skipped == 1
    assert "over the 0 MiB a per-metric columns file is parsed in, not read" in next(iter(r.skip_reasons))


def test_keras_history_dump(tmp_path):
    p = tmp_path / "history.json"
    p.write_text(json.dumps({"accuracy": [0.5, 0.6, 0.7], "loss": [1.2, 0.9, 0.7], "val_loss": [1.3, 1.0, 0.9]}))
    recs, r = _read(p)
    assert r.name == "json-columns"
    assert [(x.step, x.loss, x.val_loss) for x in recs] == [(0, 1.2, 1.3), (1, 0.9, 1.0), (2, 0.7, 0.9)]


# -- a CSV with a loss and no step: SB3 SAC -----------------------------------------------------
SAC_HEAD = (
    "rollout/ep_rew_mean,time/episodes,rollout/success_rate,train/critic_loss,train/ent_coef,"
    "train/alpha_loss,train/actor_loss"
)


def test_sb3_sac_progress_rows_are_the_steps(tmp_path):
    rows = [f"-50.0,{i},0.0,,,," for i in range(21)]
    rows += [
        f"{-50 + i * 0.05},{21 + i},0.0,{0.5 / (1 + i)},{0.98 - i * 0.005},{-0.08 * i},{-4.0 + i * 0.08}"
        for i in range(72)
    ]
    rows.append(",,,0.12,0.41,-4.4,2.7")  # the last dump: train/* only
    p = tmp_path / "progress.csv"
    p.write_text(SAC_HEAD + "\n" + "\n".join(rows) + "\n")
    recs, r = _read(p)
    assert [x.step for x in recs] == list(range(22, 95))  # the data row's number
    assert recs[0].loss == pytest.approx(-4.0)  # the actor's loss: no total logged
    assert r.inferred_steps == 73
    assert "train/actor_loss (the actor's loss" in r.objective_note()
    plain = tmp_path / "t.csv"  # a table with no step and no loss: still not a log
    plain.write_text("a,b,c\n1,2,3\n4,5,6\n")
    assert registry.open_reader(str(plain))[0] is None


# -- W&B: the objective rule on history rows ---------------------------------------------------
def test_wandb_history_with_no_total_uses_the_objective_rule(tmp_path):
    d = tmp_path / "wandb" / "run-20201103_110043-2cpaqmlf"
    d.mkdir(parents=True)
    recs = [wb_history(s, {"Self-labelling cross entropy": 2.9223003}) for s in range(300)]
    (d / "run-2cpaqmlf.wandb").write_bytes(wb_frame(recs))
    r = WandbRunReader(str(d / "run-2cpaqmlf.wandb"))
    got = [
        x for x in list(expand(r.feed_chunk((d / "run-2cpaqmlf.wandb").read_bytes()))) + r.flush() if x.loss is not None
    ]
    assert len(got) == 300 and got[0].loss == pytest.approx(2.9223003)
    rep = _report(tmp_path)
    assert rep["steps"]["count"] == 300
    assert {c["id"]: c["status"] for c in rep["checks"]}["plateau"] == "FAIL"  # exactly flat: not learning
    f = next(f for f in rep["files"] if f["used"])
    assert f["objective"].startswith("Self-labelling cross entropy")


# -- the RL rule of the loss-spike check -------------------------------------------------------
PPO_HEAD = (
    "rollout/ep_rew_mean,time/iterations,time/total_timesteps,train/loss,train/value_loss,"
    "train/policy_gradient_loss,train/approx_kl"
)


def _ppo(rl: bool) -> list:
    from tsm_tui.core.record import StepRecord

    out = []
    for i in range(200):
        loss = 0.2 + 0.01 * ((i * 7) % 5) if i < 120 else 0.75 + 0.01 * ((i * 3) % 4)  # a level rise
        extra = {"rollout/ep_rew_mean": -7.5 + i * 0.08, "train/value_loss": loss * 2} if rl else None
        out.append(StepRecord((i + 1) * 1024, loss=loss, extra=extra))
    return out


def test_an_rl_runs_loss_is_warned_about_never_failed():
    mon, _ = run(_ppo(False))
    assert status(mon, "loss_spike") == "FAIL"  # the same loss without the RL keys: not recovered
    mon, alerts = run(_ppo(True))
    c = next(c for c in mon.checks() if c.id == "loss_spike")
    assert c.status.value == "WARN" and "an RL run" in c.summary
    said = [a for a in alerts if a.check == "loss_spike"]
    assert said and all(a.severity.value != "critical" for a in said)


def test_rl_rule_can_be_switched_off():
    from tsm_tui.core.settings import Settings

    mon, _ = run(_ppo(True), Settings(rl_loss_fails=True))
    assert status(mon, "loss_spike") == "FAIL"


FRESH5 = Path(paths.BENCH) / "corpus" / "fresh5"


LUDWIG = FRESH5 / "ludwig_results_two_experiment_runs" / "results"


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


DLLOGGER_V0 = (
    Path(paths.BENCH) / "corpus" / "fresh25" / "dllogger_v0_json_object_tacotron2_healthy" / "output" / "nvlog.json"
)


def test_dllogger_v0_column_groups_real_file():
    """The 2019 NVIDIA DLLogger's one JSON object (a real Tacotron2 nvlog.json, BSD-3-Clause,
    committed under bench/corpus/fresh25): groups ``epoch`` and ``iter``, each with its own step list
    ``x``; the iterations a list per epoch restarting at 0. The iteration group is read (7 epochs of 390),
    its steps the position; the per-epoch validation loss lands on each epoch's last iteration."""
    recs, r = _read(DLLOGGER_V0)
    assert r.name == "json-columns"
    assert [x.step for x in recs] == list(range(2730))
    vals = [(x.step, x.val_loss) for x in recs if x.val_loss is not None]
    assert [s for s, _ in vals] == [390 * (e + 1) - 1 for e in range(7)]
    assert r.describe()["step_source"] == "the position in /iter's per-epoch lists (their step restarts each epoch)"
    rep = _report(DLLOGGER_V0.parent)
    assert rep["steps"]["count"] == 2730
    assert next(c for c in rep["checks"] if c["id"] == "nonfinite")["status"] == "PASS"


def test_column_groups_shapes(tmp_path):
    """The same shape written small: rising steps are kept as they are; a group of another step unit
    (an evaluation every 50 of 200 steps, not one per epoch list) is counted, never read as steps;
    a column of another length is a counted skip; a NaN in the loss is a NaN at its step."""
    loss = [2.0 - i / 200 for i in range(200)]
    loss[150] = float("nan")
    doc = {
        "run": {"args": {"lr": 0.1}},
        "eval": {"x": [50, 100, 150, 200], "val_iter_loss": [1.9, 1.6, 1.4, 1.2]},
        "iter": {"x": [10 * (i + 1) for i in range(200)], "train_iteration_loss": loss, "grad_norm": [1.0] * 5},
    }
    p = tmp_path / "nvlog.json"
    p.write_text(json.dumps(doc, indent=4))
    recs, r = _read(p)
    assert r.name == "json-columns"
    assert [x.step for x in recs] == [10 * (i + 1) for i in range(200)]
    assert math.isnan(recs[150].loss) and recs[150].step == 1510
    assert r.skip_reasons == {
        "/iter/grad_norm: 5 values for 200 steps (not read)": 1,
        "points of /eval (another step unit than /iter's)": 4,
    }
    assert r.describe()["step_source"] == "the step list of /iter"


def test_tbx_export_of_an_epoch_loss_only(tmp_path):
    """tensorboardX's export_scalars_to_json of a run that logs its loss once an epoch under its own
    name (``Epoch_loss/train_tensor_epoch_loss``, fresh41's shape): that is the objective (a training
    loss per epoch, the file's only loss), said so; its spike at epoch 180 is found."""
    pre = "runs/Feb04_11-02-47_host/Epoch_loss/"
    train = [[1.6e9 + i, i, 0.9 * math.exp(-i / 60) + 0.1 + 0.002 * (i % 3)] for i in range(250)]
    train[180][2] *= 6
    doc = {pre + "train_tensor_epoch_loss": train, pre + "val_tensor_epoch_loss": [[1.6e9, 0, 1.0]]}
    (tmp_path / "all_scalars.json").write_text(json.dumps(doc))
    rep = _report(tmp_path)
    used = next(f for f in rep["files"] if f["used"])
    assert used["format"] == "json-columns" and rep["steps"]["count"] == 250
    assert used["objective"] == "train_tensor_epoch_loss (a training loss per epoch: no loss logged)"
    assert any(a["check"] == "loss_spike" and a["step"] == 180 for a in rep["alerts"])
    assert field_for("train_tensor_epoch_loss") is None  # (beside a per-step loss it is no step's loss)
    assert not any(
        json_doc.epoch_train_loss(k) for k in ("val_tensor_epoch_loss", "train_tensor_step_loss", "train_x1_epoch_loss")
    )


def test_tbx_export_tag_with_fractional_steps_is_no_series(tmp_path):
    """fresh59's MNIST export: ``test_loss`` written with the loss as the step and the epoch as the value
    (``[wall, 102.47, 0.0]``). A global step is a whole number: that tag is counted, not read as the
    evaluation loss (it had made an "over-fitting" warning)."""
    pre = "data/2epoch(MNIST)/"
    doc = {
        pre + "training_loss": [[1.5e9 + i, i, 2.3 * math.exp(-i / 50) + 0.1] for i in range(200)],
        pre + "test_loss": [[1.5e9 + e, 100.0 - 3.7 * e + 0.47, float(e)] for e in range(20)],
    }
    (tmp_path / "all_scalars.json").write_text(json.dumps(doc))
    recs, r = _read(tmp_path / "all_scalars.json")
    assert len(recs) == 200 and not any(x.val_loss is not None for x in recs)
    assert r.skip_reasons == {"test_loss: steps that are not whole numbers (step and value swapped?)": 20}


def test_tbx_export_with_the_split_after_the_metric_and_per_class_tags(tmp_path):
    """fresh98's VGG export (the PyTorch TensorBoard tutorial's tags): ``<run>|vgg|cifar10/Loss/train`` and
    ``.../Loss/validate`` beside ``Topk_Accuracy/Training/Top1`` and per-class accuracies, read "no training
    metrics recognised" (its tag was the last component, "train"). The split after the metric's name is read,
    and the add_scalars tags under the run's own directory are no other run's points."""
    pre = "runs/Aug14_14-27-55|vgg|cifar10/"
    doc = {
        pre + "Loss/train": [[1.5e9 + i, i, 1.9 * math.exp(-i / 40) + 0.1] for i in range(160)],
        pre + "Loss/validate": [[1.5e9 + i, i, 2.0 * math.exp(-i / 40) + 0.3] for i in range(160)],
        pre + "Topk_Accuracy/Training/Top1": [[1.5e9 + i, i, 0.5] for i in range(160)],
        pre + "Topk_Accuracy/Validation/Top1": [[1.5e9 + i, i, 0.4] for i in range(160)],
        pre + "Classes_Accuracy/Training/cat": [[1.5e9 + i, i, 0.3] for i in range(160)],
    }
    (tmp_path / "all_scalars.json").write_text(json.dumps(doc))
    rep = _report(tmp_path)
    used = next(f for f in rep["files"] if f["used"])
    assert used["format"] == "json-columns" and rep["steps"]["count"] == 160
    assert rep["sources"]["loss"]["key"] == "Loss/train" and rep["sources"]["val_loss"]["key"] == "Loss/validate"
    assert not used.get("skip_reasons"), used
    assert [field_for(k) for k in ("Loss/test", "loss/val", "lr/train", "main/loss")] == [
        "val_loss",
        "val_loss",
        "lr",
        "loss",
    ]


def test_a_history_of_lists_after_a_few_scalars(tmp_path):
    """fresh112's triplet metrics.json: {"epochs": 200, "train_loss": [...], "pos_dist": [...], ...} read "no training
    metrics recognised" (the sniffer wanted a list first); the scalars are notes beside the columns."""
    doc = {"epochs": 60, "name": "triplet", "train_loss": [1.19 - i / 100 for i in range(60)], "pos_dist": [0.5] * 60}
    fmt, recs, _ = read(write(tmp_path, "training_logs/metrics.json", json.dumps(doc, indent=4)))
    assert fmt == "json-columns"
    assert [r.step for r in recs] == list(range(60)) and recs[3].loss == pytest.approx(1.16)
    # (a config whose lists are no metric's stays no history)
    cfg = {"lr": 0.001, "betas": [0.9, 0.999], "milestones": [30, 60]}
    p = write(tmp_path, "cfg/config.json", json.dumps(cfg))
    from tsm_tui.sources.json_doc import JsonColumnsReader

    assert JsonColumnsReader.sniff(str(p), p.read_text().splitlines()) == 0.0


def test_a_shorter_list_beside_a_per_step_loss_is_placed_on_its_steps(tmp_path, capsys):
    """fresh114's GPT-2 QAT stats: {"iteration_losses": [3,000], "validation_losses": [29], "best_iteration": 1700, ...}
    with no step list: the 29 evaluations were read at steps 0-28 ("best 1.054 at step 16"), beside 3,000
    training steps. A list much shorter than the training loss is one value every interval over its steps:
    3,000 / (29 + 1) = 100, none at 0 and none at the end (the run's own best_iteration, 1,700, is the 17th);
    "iteration_losses" is the training loss (a granularity word), "learning_rates" the LR."""
    from helpers.reports import report_json

    val = [1.15 - i / 100 if i <= 16 else 0.99 + (i - 16) / 100 for i in range(29)]
    doc = {
        "iteration_losses": [3.0 / (1 + i / 50) for i in range(3000)],
        "validation_losses": val,
        "learning_rates": [1e-4] * 3000,
        "cycle_metrics": [{"cycle": c, "avg_loss": 4.0} for c in range(59)],
        "best_val_loss": min(val),
        "best_iteration": 1700,
    }
    fmt, recs, _ = read(write(tmp_path, "a/stats.json", json.dumps(doc)))
    assert fmt == "json-columns"
    vals = [(r.step, r.val_loss) for r in recs if r.val_loss is not None]
    assert [s for s, _ in vals] == list(range(100, 3000, 100))
    assert min(vals, key=lambda t: t[1])[0] == 1700
    assert all(r.lr == 1e-4 for r in recs if r.loss is not None)
    rep = report_json(tmp_path / "a", capsys)
    assert rep["sources"]["loss"]["key"] == "iteration_losses"
    (f,) = [f for f in rep["files"] if f["used"]]
    assert "29 values one every 100 steps" in f["step_source"]
    # (no exact division: one at the end of each interval, the index counting from 0)
    doc = {"train_loss": [1.0] * 1000, "val_loss": [1.0] * 30}
    _, recs, _ = read(write(tmp_path, "b/stats.json", json.dumps(doc)))
    assert [r.step for r in recs if r.val_loss is not None][:3] == [32, 65, 98]
    # (lists of one length stay one a step: a Keras history)
    doc = {"loss": [1.0 - i / 100 for i in range(20)], "val_loss": [1.1 - i / 100 for i in range(20)]}
    _, recs, _ = read(write(tmp_path, "c/history.json", json.dumps(doc)))
    assert [r.step for r in recs] == list(range(20)) and all(r.val_loss is not None for r in recs)
