"""Logs with several losses and no ``loss`` (issue 26): the objective rule
(``sources/fields.objective``), the report's note about it, and the loss terms
checked one by one (``analysis/detectors/components.py``)."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import sys

import pytest

from tsm_tui.analysis.replay import analyze
from tsm_tui.core.record import StepRecord
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources import reading, registry
from tsm_tui.sources.fields import loss_role, objective
from helpers import paths

sys.path.insert(0, os.path.dirname(__file__))
from test_frames import run_both  # noqa: E402

REAL = os.path.join(paths.DATA, "real")
YOLO_HEAD = (
    "epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/recall(B),"
    "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2"
)


def _checks(an) -> dict:
    return {c.id: c for c in an.checks()}


def _report(path) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "tsm_tui", str(path), "--report", "--json"],
        capture_output=True,
        text=True,
        env=dict(os.environ, NO_COLOR="1"),
    )
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "key,role",
    [
        ("act_loss", "actor"),
        ("actor/pg_loss", "actor"),
        ("policy_loss", "actor"),
        ("cri_loss", "model"),
        ("critic/vf_loss", "model"),
        ("train/value_loss", "model"),
        ("loss_D", "model"),
        ("train/box_loss", "term"),
        ("loss_cls", "term"),
        ("loss_rpn_loc", "term"),
        ("unsuper_loss", "term"),
        ("val/box_loss", None),
        ("eval_loss", None),
        ("total_loss", None),
        ("loss", None),
        ("train_loss_epoch", None),
        ("avg_loss", None),
        ("loss_scale", None),
        ("rewards/chosen", None),
        ("closs", None),
        # YOLOv10: no "loss" in its terms' names (one-to-many and one-to-one heads)
        ("train/box_om", "term"),
        ("train/dfl_oo", "term"),
        ("val/cls_om", None),
        ("box_om", None),
    ],
)
def test_loss_roles(key, role):
    assert loss_role(key) == role


def test_the_rule_in_order():
    assert objective({"act_loss": "actor", "cri_loss": "model", "unsuper_loss": "term"}) == ("actor", ("act_loss",))
    assert objective({"train/box_loss": "term", "train/cls_loss": "term"}) == (
        "sum",
        ("train/box_loss", "train/cls_loss"),
    )
    assert objective({"recon_loss": "term"}) == ("only", ("recon_loss",))
    assert objective({"d_loss": "model", "g_loss": "model"}) is None  # a GAN: no objective, not a sum


def test_deepspeed_chat_ppo_reads_the_actor_loss():
    """Real DeepSpeed-Chat step-3 log: before, 0 steps with a loss and a FAIL from the
    engines' running totals of skipped steps read as per-interval counts."""
    path = os.path.join(REAL, "deepspeed_chat_step3_ppo.log")
    reader, fi = registry.open_reader(path)
    recs = [r for r in reading.read_records(path, reader) if r.loss is not None]
    assert fi.format == "deepspeed"
    assert len(recs) == 162 and recs[0].step == 0 and recs[-1].step == 476
    assert recs[0].loss == 0.2099609375 and recs[0].extra["cri_loss"] == 0.12042236328125
    assert "act_loss" not in recs[0].extra  # moved into the loss, not counted twice
    assert reader.objective_note().startswith("act_loss (the actor's loss: no total logged); also checked: cri_loss")
    an = analyze(path)
    c = _checks(an)
    # PPO's loss changes sign: no ratio scale, the spike rule on differences (issue 26): the burst of
    # actor-loss swings at steps 99-121 (2.2 against a median of 0.06; bench/corpus labels it) is one spike
    assert c["loss_spike"].status.value == "WARN" and "signed" in c["loss_spike"].summary
    spikes = [a for a in an.alerts() if a.check == "loss_spike" and a.severity.value == "warning"]
    assert [a.step for a in spikes if not a.message.startswith("Loss component")] == [100]
    assert "judged on differences" in spikes[0].message
    assert c["nonfinite"].status.value == "PASS"
    assert c["loss_scale"].status.value != "FAIL"  # start-up skips, 7 per engine: not 63% of the steps
    rep = _report(path)
    used = next(f for f in rep["files"] if f["used"])
    assert used["objective"].startswith("act_loss")
    assert rep["steps"]["count"] == 162


def test_ds_progress_skipped_is_a_running_total_per_engine():
    from tsm_tui.sources.text_formats import DeepSpeedReader

    r = DeepSpeedReader("x")
    got = []
    for step, a, b in ((10, 4, 3), (20, 5, 3), (30, 5, 4), (40, 7, 4)):
        for k in (a, b):  # the actor's engine, then the critic's
            (rec,) = r.feed(
                f"[2023-04-18 08:48:36,035] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, "
                f"skipped={k}, lr=[5.79e-07, 5.79e-07], mom=[(0.9, 0.95), (0.9, 0.95)]"
            )
            got.append(rec.skipped)
    assert got == [4, 3, 1, 0, 0, 1, 2, 0]


def test_detectron2_total_with_terms_checked(tmp_path):
    """Real detectron2 metrics.json: the logged total is the objective, the four terms are
    checked too; healthy, so nothing is said about them. A 4x jump of loss_rpn_cls alone
    (a small term: +0.1 on a total of ~1.1, 1.1x) is then said as that term's spike."""
    src = os.path.join(REAL, "detectron2_metrics.json")
    an = analyze(src)
    rep_note = next(f.objective for f in an.run.files if f.used)
    assert rep_note == (
        "total_loss (the logged total); also checked: loss_box_reg, loss_cls, loss_rpn_cls, loss_rpn_loc"
    )
    assert not [a for a in an.alerts() if a.check == "loss_spike"]
    rows = [json.loads(ln) for ln in open(src)]
    for r in rows:
        if r["iteration"] == 1999:
            r["loss_rpn_cls"] *= 4
            r["total_loss"] += r["loss_rpn_cls"] * 3 / 4
    (tmp_path / "metrics.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    an = analyze(str(tmp_path / "metrics.json"))
    spikes = [a for a in an.alerts() if a.check == "loss_spike" and a.severity.value != "info"]
    assert [(a.step, a.severity.value) for a in spikes] == [(1999, "warning")]  # (then an info: recovered)
    assert spikes[0].message.startswith("Loss component loss_rpn_cls: Loss spike at step 1999")
    c = _checks(an)["loss_spike"]
    assert c.status.value == "WARN" and c.summary.startswith("loss components: loss_rpn_cls: 1 spike(s) at step 1999")


def _yolo(path, epochs=100, cls_spike=None, nan_at=None):
    rows = [YOLO_HEAD]
    for e in range(1, epochs + 1):
        box, cls, dfl = 1.4 * 0.993**e, 2.6 * 0.975**e + 0.3, 1.5 * 0.996**e
        if e == cls_spike:
            cls *= 3
        if e == nan_at:
            dfl = math.nan
        rows.append(
            f"{e},{box:.5f},{cls:.5f},{dfl:.5f},0.6,0.5,0.55,0.3,{box:.5f},{cls:.5f},{dfl:.5f},"
            f"0.000333,0.000333,0.000333"
        )
    path.write_text("\n".join(rows) + "\n")


def test_ultralytics_results_csv_sums_the_train_terms(tmp_path):
    """Ultralytics results.csv (the real header): no total, so the three train/*_loss terms
    are summed; val/* losses are no terms. Before: read as an LR-only log, 0 losses."""
    _yolo(tmp_path / "results.csv")
    reader, fi = registry.open_reader(str(tmp_path / "results.csv"))
    recs = list(reading.read_records(str(tmp_path / "results.csv"), reader))
    assert fi.format == "csv" and [r.step for r in recs] == list(range(1, 101))
    r = recs[0]
    assert r.loss == pytest.approx(r.extra["train/box_loss"] + r.extra["train/cls_loss"] + r.extra["train/dfl_loss"])
    assert reader.objective_note() == "sum of train/box_loss + train/cls_loss + train/dfl_loss (no total logged)"


def test_a_term_spike_the_sum_dampens_is_still_said(tmp_path):
    _yolo(tmp_path / "results.csv", cls_spike=60)
    an = analyze(str(tmp_path / "results.csv"))
    msgs = [a.message for a in an.alerts() if a.check == "loss_spike"]
    assert any(m.startswith("Loss component train/cls_loss: Loss spike at step 60") for m in msgs), msgs


def test_nan_in_one_term_fails_nonfinite(tmp_path):
    """A NaN in a term makes a sum NaN; beside a logged total or an actor's loss it is
    the term's own NaN that says it."""
    _yolo(tmp_path / "results.csv", nan_at=40)
    c = _checks(analyze(str(tmp_path / "results.csv")))["nonfinite"]
    assert c.status.value == "FAIL" and "step 40" in c.summary
    lines = open(os.path.join(REAL, "deepspeed_chat_step3_ppo.log")).read().split("\n")
    i = next(i for i, ln in enumerate(lines) if ln.startswith("epoch: 0|step: 50|"))
    lines[i] = lines[i].replace("cri_loss: ", "cri_loss: nan|x: ")
    (tmp_path / "ppo.log").write_text("\n".join(lines))
    an = analyze(str(tmp_path / "ppo.log"))
    c = _checks(an)["nonfinite"]
    assert c.status.value == "FAIL" and "step 50" in c.summary
    (a,) = [a for a in an.alerts() if a.check == "nonfinite"]
    assert "loss component cri_loss is NaN" in a.message


def _dpo(n=300, nan_from=None, eval_nan=False) -> list[StepRecord]:
    """TRL DPO's logged dicts (loss, rewards/*, logps/*, logits/*, an eval's prefixed keys)."""
    out = []
    for s in range(10, 10 * n + 1, 10):
        bad = nan_from is not None and s >= nan_from
        v = float("nan") if bad else -1.0 - s / 1e4
        extra = {
            "rewards/chosen": v,
            "rewards/rejected": v,
            "rewards/accuracies": 0.0 if bad else 0.6,
            "logps/chosen": v * 100,
            "logits/chosen": v,
            "eval_rewards/chosen": float("nan") if eval_nan else 0.1,
        }
        out.append(StepRecord(s, loss=0.0 if bad else 0.69 - s / 1e5, lr=5e-7, extra=extra))
    return out


def test_nan_model_outputs_fail_nonfinite_while_the_loss_looks_finite():
    """fresh2 trl_dpo_nan_rewards_three_dicts: every reward, logp and logit NaN beside a loss of
    2.45e9, then 0.0, read 'all 3 records finite'. A model output gone NaN is the forward pass
    gone non-finite; an evaluation's (eval_ prefix) is not this check's; rows and frames agree."""
    from tsm_tui.analysis.monitor import Monitor

    recs = _dpo(nan_from=1500)
    mon = Monitor(Settings(), RunInfo())
    alerts = [a for r in recs for a in mon.feed(r)] + mon.finalize()
    c = next(c for c in mon.checks() if c.id == "nonfinite")
    assert c.status.value == "FAIL" and "first at step 1500" in c.summary
    (a,) = [a for a in alerts if a.check == "nonfinite"]
    assert a.step == 1500 and "rewards/chosen, rewards/rejected, logps/chosen (+1 more) are NaN" in a.message
    run_both(recs)
    mon = Monitor(Settings(), RunInfo())
    for r in _dpo(eval_nan=True):
        mon.feed(r)
    assert next(c for c in mon.checks() if c.id == "nonfinite").status.value == "PASS"


def test_nan_gradient_statistic_fails_nonfinite_on_records_and_frames():
    """A layer's grad norm (or a list of them: I-JEPA's grad_stats) gone NaN beside a finite loss
    and no total grad norm: the total norm is NaN; an evaluation's gradient key is not this check's."""
    from tsm_tui.analysis.monitor import Monitor

    recs = [
        StepRecord(
            s,
            loss=2.0 - s / 1e4,
            lr=1e-4,
            extra={"grad/first_layer": math.inf if s == 470 else 0.4, "eval/grad_x": math.nan, "gradual": math.nan},
        )
        for s in range(10, 3001, 10)
    ]
    mon = Monitor(Settings(), RunInfo())
    alerts = [a for r in recs for a in mon.feed(r)] + mon.finalize()
    c = next(c for c in mon.checks() if c.id == "nonfinite")
    assert c.status.value == "FAIL" and c.summary.startswith("1 non-finite record(s), first at step 470")
    (a,) = [a for a in alerts if a.check == "nonfinite"]
    assert "gradient statistic grad/first_layer is Inf while the loss is" in a.message
    run_both(recs)


def _terms(n=1500, seed=4, spike_at=(), nan_at=()):
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        a = (1.0 + 3 * math.exp(-s / 200)) * math.exp(rng.gauss(0, 0.02))
        b = (0.5 + 1 * math.exp(-s / 300)) * math.exp(rng.gauss(0, 0.02)) * (4 if s in spike_at else 1)
        c = math.nan if s in nan_at else 0.2 * math.exp(rng.gauss(0, 0.05))
        out.append(
            StepRecord(
                s, loss=a + b + c, lr=1e-4, extra={"loss_cls": a, "loss_box_reg": b, "loss_mask": c, "time": 0.3}
            )
        )
    return out


@pytest.mark.parametrize("kw", [{}, {"spike_at": (400, 900)}, {"nan_at": (700,)}], ids=["plain", "spikes", "nan"])
@pytest.mark.slow
def test_terms_give_the_same_on_frames_and_records(kw):
    """The terms' checks run through the frame driver's after_frame hook: the same
    alerts, checks and detector state as feeding the records one by one."""
    run_both(_terms(**kw))


def test_signed_objective_spike_rule_on_differences():
    """A signed objective (PPO's policy loss) has no ratio scale: a rise of >= 6 robust sds
    (IQR / 1.349) above the window's median is a spike; its noise alone is not; spikes a
    few records apart are one incident, said again only when the rise doubles."""
    from tsm_tui.analysis.detectors.loss_spike import LossSpikeDetector
    from tsm_tui.analysis.monitor import Monitor

    def alerts(recs):
        mon = Monitor(Settings(), RunInfo(), detectors=[LossSpikeDetector])
        out = [a for r in recs for a in mon.feed(r)]
        return [a for a in out if a.severity.value == "warning"], mon.checks()[0]

    rng = random.Random(3)
    base = [rng.gauss(0.05, 0.2) for _ in range(600)]
    quiet, check = alerts([StepRecord(s, loss=v) for s, v in enumerate(base)])
    assert quiet == [] and check.status.value == "PASS" and "signed" in check.summary
    burst = {300: 2.0, 303: 1.8, 306: 1.9, 450: 2.5}
    spikes, check = alerts([StepRecord(s, loss=burst.get(s, v)) for s, v in enumerate(base)])
    assert [a.step for a in spikes] == [300, 450]
    assert check.status.value == "WARN" and check.summary.startswith("2 spike(s) at step 300")


def test_signed_objective_frames_and_records():
    rng = random.Random(5)
    run_both(
        [StepRecord(s, loss=rng.gauss(0.05, 0.3), extra={"cri_loss": abs(rng.gauss(0.1, 0.05))}) for s in range(1, 800)]
    )


def test_real_detection_copy_is_not_modified(tmp_path):
    dst = tmp_path / "d2"
    dst.mkdir()
    shutil.copy(os.path.join(REAL, "detectron2_metrics.json"), dst / "metrics.json")
    before = (dst / "metrics.json").read_bytes()
    analyze(str(dst))
    assert (dst / "metrics.json").read_bytes() == before and sorted(os.listdir(dst)) == ["metrics.json"]


def _records(path: str) -> tuple[list, object]:
    """Every record of a file through the replay's chunk path, and its reader."""
    from tsm_tui.core.frame import Frame

    r, _ = registry.open_reader(path)
    out: list = []
    for it in reading.read_items(path, r):
        out += it.records() if isinstance(it, Frame) else [it]
    return out, r


def test_a_total_logged_after_its_lm_loss_term_is_the_loss(tmp_path):
    """Knover prints ``lm_loss`` before the total ``loss`` (lm + bow): the total is the loss
    whatever the order, on the text and the JSON Lines paths (line by line and in Frames);
    an lm loss alone (Megatron's ``lm loss``) stays the loss, and a total first keeps it."""
    from tsm_tui.sources.generic_text import KeyValueTextReader

    r = KeyValueTextReader(str(tmp_path / "train.log"))
    recs = []
    for line in [
        "[train][1] progress: 1/1 step: 100, time: 6.095, speed: 16.406 steps/s",
        "\tcurrent lr: 0.0000010",
        "\tlm_loss: 2.1, bow_loss: 3.0, loss: 5.1",
    ]:
        recs += r.feed(line)
    recs += r.flush()
    assert [x.loss for x in recs] == [5.1]
    assert r.objective_note().startswith("loss (the logged total)")

    cases = {  # keys in the order logged -> the loss each record must carry
        ("lm_loss", "loss"): 5.0,
        ("loss", "lm_loss"): 5.0,
        ("lm_loss",): 2.0,
        ("train/lm_loss", "total_loss"): 5.0,
    }
    for i, (keys, want) in enumerate(cases.items()):
        path = tmp_path / f"k{i}.jsonl"
        vals = {"lm_loss": 2.0, "train/lm_loss": 2.0, "loss": 5.0, "total_loss": 5.0}
        with open(path, "w") as f:
            for s in range(1, 201):  # enough rows for Frames
                f.write(json.dumps({"step": s, **{k: vals[k] + s * 1e-3 for k in keys}}) + "\n")
        recs, reader = _records(str(path))
        assert len(recs) == 200
        assert [round(x.loss - x.step * 1e-3, 6) for x in recs] == [want] * 200, keys
        first = reader.field_keys()["loss"][0]
        assert vals[first] == want, (keys, first)
        per_line, _ = registry.open_reader(str(path))  # the tailer's path: one line at a time
        with open(path) as f:
            got = [x.loss for line in f for x in per_line.feed(line.rstrip("\n"))]
        assert got == [x.loss for x in recs], keys


def test_yolov10_one_to_many_and_one_to_one_terms_are_its_objective():
    """Real Ultralytics YOLOv10 run folder (bench/corpus/trackers/ultralytics_yolov10_om_oo_tb):
    results.csv and the TensorBoard file log train/box_om, cls_om, dfl_om, box_oo, cls_oo,
    dfl_oo and no total; before, 0 of its 15 epochs were read (issue 26)."""
    path = os.path.join(paths.BENCH, "corpus", "trackers", "ultralytics_yolov10_om_oo_tb")
    rep = _report(path)
    assert rep["steps"]["count"] == 15
    used = next(f for f in rep["files"] if f["used"])
    assert used["objective"].startswith("sum of train/box_om + train/cls_om + train/dfl_om + train/box_oo")


def test_an_error_metric_is_the_objective_of_a_fit_that_logs_no_loss(tmp_path):
    """fresh4 fortran_lm_nn_pes_multiline: a Levenberg-Marquardt fit of a neural-network potential
    prints per iteration a block of MAE / RMSE lines and the validation's, the word "loss" nowhere:
    "nothing readable" (exit 2). A training error metric is the objective of such a run (mean
    squared error first, then its root, then the absolute error); never beside a loss the file
    logs, never a validation one."""
    from tsm_tui.sources.fields import named_objective

    assert named_objective(("MAE", "RMSE", "VALIDATION MAE")) == ("named", ("RMSE",))
    assert named_objective(("train_mae", "train/mse")) == ("named", ("train/mse",))
    assert named_objective(("val_mse", "test/rmse", "VALIDATION RMSE", "mse_weight")) is None
    # a cost (not a time's), bits per dimension, the loss's symbol
    assert named_objective(("batch_cost", "reader_cost", "avg cost", "rmse")) == ("named", ("avg cost",))
    assert named_objective(("time_cost", "ips")) is None
    assert named_objective(("bpd", "lr")) == ("named", ("bpd",))
    assert named_objective(("D", "PSNR", "L", "R")) == ("named", ("L",))
    block = (
        " Iteration:  {i:>11}  Time: {t:.3f}\n"
        "  MAE:    {mae:.14f}       over        11236  points\n"
        " RMSE:    {rmse:.14f}       over        11236  points\n"
        " VALIDATION  MAE:    {mae:.14f}       over         3746  points\n"
        " VALIDATION RMSE:    {rmse:.14f}       over         3746  points\n"
        " LM step start     Time: {t:.3f}\n LM step has ... been accepted!   Time: {t:.3f}\n \n \n"
    )
    text = " We're initializing the weights from random numbers!\n \n" + "".join(
        block.format(i=i, t=120000 + 2.5 * i, mae=1.6 / i**0.3, rmse=1.7 / i**0.3) for i in range(1, 41)
    )
    p = tmp_path / "training.out"
    p.write_text(text)
    res = analyze(str(p))
    assert res.monitor.records == 40
    out = subprocess.run(
        [sys.executable, "-m", "tsm_tui", "--report", str(p)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode in (0, 1) and "objective: RMSE (a training error metric: no loss logged)" in out.stdout
    # the symbol: "L=0.3462 D=0.3404" is read, "L=512" (a length) is no loss
    text = "".join(
        f"[ep 0 step {s:5d} t= {s}s] L={1 / (s + 1):.4f}  D={0.9 / (s + 1):.4f}  PSNR= 4.68\n"
        for s in range(0, 600, 20)
    )
    recs = list(
        reading.read_records(str(_w(tmp_path, "train.out", text)), registry.open_reader(str(tmp_path / "train.out"))[0])
    )
    assert len(recs) == 30 and recs[1].loss == pytest.approx(1 / 21, abs=1e-4)
    text = "".join(f"step {s} L=512 T=0.{s}\n" for s in range(1, 30))
    reader = registry.open_reader(str(_w(tmp_path, "len.log", text)))[0]
    assert reader is None or all(r.loss is None for r in reading.read_records(str(tmp_path / "len.log"), reader))
    # a file that logs a loss keeps it: an epoch line with only the MAE is no training record of it
    text = "".join(f"step {s} loss: {1 / s:.4f} mae: {0.5 / s:.4f}\n" for s in range(1, 30)) + "epoch 1 mae: 0.3\n"
    recs = list(
        reading.read_records(str(_w(tmp_path, "t.log", text)), registry.open_reader(str(tmp_path / "t.log"))[0])
    )
    assert [r.loss for r in recs] == [pytest.approx(1 / s, abs=1e-4) for s in range(1, 30)]


def _w(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_also_checked_names_only_the_terms_of_records(tmp_path):
    """fresh4 equicat: "also checked: Negative Loss" named a key of epoch summary lines that made
    no record (an epoch line is a summary once the file names its own steps): only the terms the
    loss-spike check judged are named."""
    lines = []
    for e in range(1, 4):
        for s in range(1, 41):
            step = (e - 1) * 40 + s
            lines.append(f"step {step} loss: {2 - step / 200:.4f} loss_cls: {1 - step / 400:.4f} lr: 1e-4")
        lines.append(f"Epoch [{e}/3], Total Loss: {60 - e:.2f}, Negative Loss: {30 - e:.2f}")
    p = _w(tmp_path, "train.log", "\n".join(lines) + "\n")
    res = analyze(str(p))
    (fi,) = res.run.files
    assert fi.objective is not None and "loss_cls" in fi.objective and "Negative Loss" not in fi.objective


def _per_class(nan_term_at=(), nan_loss_at=None, n=300):
    """A logged total beside per-class loss terms (fresh6's Aim run): a class the batch lacks
    makes its term 0 / 0 = NaN while the total (a masked mean) stays finite."""
    out = []
    for s in range(1, n + 1):
        a, b = 0.5 + 1 / s, 0.3 + 1 / s
        extra = {"class_loss_a": a, "class_loss_b": float("nan") if s in nan_term_at else b}
        loss = float("nan") if nan_loss_at is not None and s >= nan_loss_at else a + b
        out.append(StepRecord(s, loss=loss, extra=extra))
    return out


def test_a_terms_nan_beside_a_finite_total_is_a_warning_and_the_totals_is_critical():
    from conftest import run
    from test_frames import run_both

    mon, alerts = run(_per_class(nan_term_at=(159,)))
    (a,) = [a for a in alerts if a.check == "nonfinite"]
    assert a.severity.value == "warning" and a.step == 159 and "class_loss_b is NaN" in a.message
    c = next(c for c in mon.checks() if c.id == "nonfinite")
    assert c.status.value == "WARN" and "the loss itself finite" in c.summary
    assert mon.state.early_trouble_step is None  # (no instability of the run's: no LR FAIL with it)
    # the run's own NaN later: critical too, and FAIL
    mon, alerts = run(_per_class(nan_term_at=(159, 170), nan_loss_at=200))
    got = [(a.step, a.severity.value) for a in alerts if a.check == "nonfinite"]
    assert got == [(159, "warning"), (200, "critical")]
    assert next(c for c in mon.checks() if c.id == "nonfinite").status.value == "FAIL"
    run_both(_per_class(nan_term_at=(159, 170), nan_loss_at=200))
    run_both(_per_class(nan_term_at=(159,)))


def test_an_energy_is_the_objective_of_a_predictive_coding_run(tmp_path):
    """fresh60's predictive-coding transformer logs "Batch 10/5258 | Batch Energy: 1.77 | Perplexity: 2e5"
    per batch and "Epoch 1/20 | Train Energy: ... | Val Energy: ..." per epoch, the word "loss" nowhere:
    "no training metrics recognised" (exit 2). The energy such a model minimises is its objective; an
    error metric of a predicted energy ("energy_mae") is none, nor a validation one."""
    from tsm_tui.sources.fields import named_objective

    assert named_objective(("Batch Energy", "Perplexity")) == ("named", ("Batch Energy",))
    assert named_objective(("Val Energy", "energy_mae", "e_rmse_energy")) is None
    lines = []
    for e in range(1, 4):
        lines.append(f"2025-10-24 12:03:07,024 - INFO - Epoch {e}/3")
        for b in range(10, 170, 10):
            lines.append(
                f"2025-10-24 12:04:20,563 - INFO -   Batch {b}/165 | Batch Energy: {1.4 - 0.05 * e - b / 4000:.4f}"
                f" | Perplexity: {1000 - e - b / 10:.4f}"
            )
    p = _w(tmp_path, "training.log", "\n".join(lines) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "tsm_tui", "--report", str(p)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode in (0, 1) and "objective: Batch Energy (an energy: no loss logged)" in out.stdout, out.stdout
    assert "48 records" in out.stdout or "48 steps" in out.stdout, out.stdout


def _init_row(nan0: dict, step0: int = 0, loss0: float = 5.19):
    """fresh102's grokking CSV shape: an evaluation at initialisation (step 0) whose gradient and update norms
    are NaN (no gradient yet), then a record every 100 steps."""
    recs = [StepRecord(step0, loss=loss0, grad_norm=nan0.pop("grad_norm", None), extra=dict(nan0))]
    for s in range(100, 5001, 100):
        recs.append(
            StepRecord(
                s,
                loss=0.5 + 4 * math.exp(-s / 800),
                extra={"hidden_gradient_norm": 0.02, "auxiliary_gradient_norm": 0.6},
            )
        )
    return recs


@pytest.mark.parametrize(
    "row0,verdict",
    [
        ({"hidden_gradient_norm": math.nan, "auxiliary_gradient_norm": math.nan}, "PASS"),  # before any update
        ({"grad_norm": math.nan}, "PASS"),
        ({"hidden_gradient_norm": math.nan, "auxiliary_gradient_norm": 0.6}, "FAIL"),  # one computed: a real NaN
        ({"hidden_gradient_norm": math.nan, "auxiliary_gradient_norm": math.nan, "step0": 1}, "FAIL"),  # step 1
        ({"hidden_gradient_norm": math.nan, "auxiliary_gradient_norm": math.nan, "loss0": math.nan}, "FAIL"),
    ],
)
def test_nan_gradient_statistics_of_a_record_logged_before_any_update_are_placeholders(row0, verdict):
    from tsm_tui.analysis.monitor import Monitor

    step0, loss0 = row0.pop("step0", 0), row0.pop("loss0", 5.19)
    recs = _init_row(dict(row0), step0, loss0)
    mon = Monitor(Settings(), RunInfo())
    alerts = [a for r in recs for a in mon.feed(r)] + mon.finalize()
    c = next(c for c in mon.checks() if c.id == "nonfinite")
    assert c.status.value == verdict, c.summary
    assert bool([a for a in alerts if a.check == "nonfinite"]) == (verdict == "FAIL")
    if verdict == "PASS":
        assert "NaN at step 0 only: logged before any update" in c.summary
    run_both(_init_row(dict(row0), step0, loss0))


def test_nan_gradient_statistics_at_epoch_0_of_an_epoch_log_are_the_runs():
    """fresh25's MAE run logs one record an epoch from epoch 0: its grad norm Inf there is the mean over the
    epoch's updates (an fp16 overflow), not a placeholder: the next record, one step on, tells (FAIL at 0)."""
    from tsm_tui.analysis.monitor import Monitor

    recs = [StepRecord(0, loss=0.48, grad_norm=math.inf)] + [
        StepRecord(e, loss=0.48 - e / 100, grad_norm=1.0) for e in range(1, 16)
    ]
    for one in (recs, recs[:1]):  # (a log of that one record: told at its end)
        mon = Monitor(Settings(), RunInfo())
        alerts = [a for r in one for a in mon.feed(r)] + mon.finalize()
        c = next(c for c in mon.checks() if c.id == "nonfinite")
        assert c.status.value == "FAIL" and c.summary.startswith("1 non-finite record(s), first at step 0"), c.summary
        (a,) = [a for a in alerts if a.check == "nonfinite"]
        assert a.step == 0 and "grad norm is Inf" in a.message
    run_both(recs)
