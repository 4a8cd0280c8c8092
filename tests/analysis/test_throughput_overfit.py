"""The throughput and over-fitting checks (issue 27): drops and pauses from logged step
times, rates and record timestamps; evaluation loss rising while the training loss falls.
(Their columnar paths are checked against update() in tests/test_frames.py.)"""

from __future__ import annotations

import json
import math
import os


from tsm_tui.analysis.monitor import Monitor
from tsm_tui.analysis.replay import analyze
from tsm_tui.cli import main
from tsm_tui.core.record import StepRecord
from tsm_tui.core.settings import RunInfo, Settings
from helpers import paths

ROOT = paths.ROOT


def feed(recs, info=None):
    mon = Monitor(Settings(), info or RunInfo())
    for r in recs:
        mon.feed(r)
    return mon


def check(mon, cid):
    return next(c for c in mon.checks() if c.id == cid)


def alerts(mon, cid):
    return [a for a in mon.view_alerts() if a.check == cid]


def timed(n, slow=(), factor=4.0, start=1000.0, gap=None):
    """Records one step apart, 1 s each, ``factor`` x slower inside ``slow`` ranges; a
    single gap of ``gap`` = (step, seconds)."""
    out, t = [], start
    for s in range(1, n + 1):
        dt = 1.0 * (factor if any(a <= s < b for a, b in slow) else 1.0)
        if gap and s == gap[0]:
            dt = gap[1]
        t += dt
        out.append(StepRecord(s, loss=3.0 - s * 1e-3, lr=1e-4, time=t))
    return out


# -- throughput ---------------------------------------------------------------------------------
def test_a_lasting_drop_is_a_warn_at_the_step_it_began():
    mon = feed(timed(400, slow=[(200, 300)]))
    c = check(mon, "throughput")
    assert c.status.value == "WARN" and "from step 200 to 300" in c.summary
    (a,) = alerts(mon, "throughput")
    assert a.severity.value == "warning" and "from step 200" in a.message and "1/4" in a.message


def test_a_short_slow_spell_is_no_drop():
    mon = feed(timed(400, slow=[(200, 215)]))
    assert check(mon, "throughput").status.value == "PASS"
    assert alerts(mon, "throughput") == []  # 4x: slower than the cliff, not a pause


def test_a_pause_the_run_came_back_from_is_noted_with_its_cause():
    info = RunInfo()
    info.checkpoints = [(250, "checkpoint-250")]
    mon = feed(timed(400, gap=(251, 90.0)), info)
    c = check(mon, "throughput")
    assert c.status.value == "PASS" and "1 pause" in c.summary
    (a,) = alerts(mon, "throughput")
    assert a.severity.value == "info" and "checkpoint save (step 250)" in a.message and "90 s" in a.message


def test_a_pause_at_an_evaluation():
    recs = timed(400, gap=(301, 40.0))
    recs[299].val_loss = 2.5
    (a,) = alerts(feed(recs), "throughput")
    assert "an evaluation (step 300)" in a.message


def test_a_new_pace_is_said_once_and_judged_against_from_there():
    mon = feed(timed(1200, slow=[(200, 1200)]))
    assert len(alerts(mon, "throughput")) == 1
    assert check(mon, "throughput").status.value == "WARN"


def test_logged_step_times_and_rates():
    recs = [
        StepRecord(s, loss=2.0, extra={"elapsed time per iteration (ms)": 300.0 * (5 if 100 <= s < 150 else 1)})
        for s in range(1, 300)
    ]
    mon = feed(recs)
    assert "median step time 0.3 s" in check(mon, "throughput").summary
    assert check(mon, "throughput").status.value == "WARN"
    recs = [
        StepRecord(s, loss=2.0, extra={"tokens_per_sec": 4e5 / (5 if 100 <= s < 150 else 1)}) for s in range(1, 300)
    ]
    mon = feed(recs)
    assert "tokens_per_sec" in check(mon, "throughput").summary and check(mon, "throughput").status.value == "WARN"


def test_nothing_timed_is_skip():
    mon = feed([StepRecord(s, loss=2.0) for s in range(1, 100)])
    assert check(mon, "throughput").status.value == "SKIP"


def test_megatron_real_log_bounded_alerts(capsys):
    """A real Megatron log whose step time changes 4x in long phases (and 35 s evaluations)."""
    p = os.path.join(ROOT, "bench", "corpus", "console", "megatron_gpt_finetune_lambada_evals")
    main([p, "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    drops = [a for a in d["alerts"] if a["check"] == "throughput" and a["severity"] == "warning"]
    assert 1 <= len(drops) <= 3
    assert next(c for c in d["checks"] if c["id"] == "throughput")["status"] == "WARN"


# -- over-fitting --------------------------------------------------------------------------------
def overfit_run(n=60, best=20, rise=0.03, back_above=False, every=1):
    """Per-epoch records: the training loss falls all along; the evaluation loss falls to
    ``best``, then rises by ``rise`` per epoch."""
    out = []
    for e in range(n):
        train = 2.0 * math.exp(-e / 15)
        val = 1.5 - 0.02 * min(e, best) + (rise * (e - best) if e > best else 0.0)
        if back_above and e > best:
            val += 0.1 * (e - best)
        r = StepRecord(e, loss=train)
        if e % every == 0:
            r.val_loss = val
        out.append(r)
    return out


def test_eval_loss_rising_while_training_falls_is_a_warn_naming_the_best_and_the_checkpoint():
    info = RunInfo()
    info.checkpoints = [(10, "ckpt-10"), (19, "ckpt-19"), (30, "ckpt-30")]
    mon = feed(overfit_run(n=26), info)
    c = check(mon, "overfitting")
    assert c.status.value == "WARN" and "step 20" in c.summary and "ckpt-19" in c.summary
    (a,) = alerts(mon, "overfitting")
    assert a.severity.value == "warning" and "best 1.1 (step 20)" in a.message
    assert a.actions[0].startswith("Keep ckpt-19 (step 19)")


def test_a_later_best_evaluation_is_the_model_to_keep():
    # YOLOv7 (held-out 'fresh'): over-fitting said at epoch 9 (best at 6), the evaluation
    # loss then beat that best at 67 and over-fitting was said again; the report's actions
    # still said "Keep the model of step 6"
    rows = []
    for e in range(100):
        val = 1.5 - 0.02 * e if e < 40 else 0.7 + 0.01 * (e - 40)
        if 6 < e <= 12:
            val = 1.38 + 0.05 * (e - 6)  # a first rise after a best at 6
        r = StepRecord(e, loss=2.0 * math.exp(-e / 15))
        r.val_loss = val
        rows.append(r)
    mon = feed(rows, RunInfo())
    said = alerts(mon, "overfitting")
    assert [a.key for a in said] == ["overfit:6", "overfit:40"]
    keep = [x for x in mon.actions() if x.startswith("Keep ")]
    assert keep == ["Keep the model of step 40 (the best evaluation loss); no checkpoint was found near it."]
    assert mon.detectors[[d.id for d in mon.detectors].index("overfitting")].revised() == ["overfit:6"]


def test_back_above_its_first_value_is_a_fail():
    mon = feed(overfit_run(n=40, back_above=True))
    c = check(mon, "overfitting")
    assert c.status.value == "FAIL" and "back above its first value" in c.summary
    assert [a.severity.value for a in alerts(mon, "overfitting")] == ["warning", "critical"]


def test_a_first_evaluation_that_stays_the_best_fails_only_when_that_lasts():
    """Nothing gained, nothing lost: three noisy evaluations above a best that was the first are a
    warning (fresh47's Keras LSTM read critical at epoch 3 of a healthy 1,000-epoch run); ten in a
    row while the training loss falls are a run that never generalised: a failure."""
    rows = []
    for e in range(60):
        r = StepRecord(e, loss=2.0 * math.exp(-e / 15))
        r.val_loss = [0.143, 0.164, 0.161, 0.161, 0.157][e] if e < 5 else 0.15 - 0.002 * e
        rows.append(r)
    mon = feed(rows)
    assert [a.severity.value for a in alerts(mon, "overfitting")] == ["warning"]
    assert check(mon, "overfitting").status.value == "PASS"
    rows = [StepRecord(e, loss=2.0 * math.exp(-e / 15)) for e in range(30)]
    for e, r in enumerate(rows):
        r.val_loss = 1.0 if e == 0 else 1.1 + 0.01 * e
    mon = feed(rows)
    assert [a.severity.value for a in alerts(mon, "overfitting")] == ["warning", "critical"]
    assert check(mon, "overfitting").status.value == "FAIL"


def test_an_evaluation_excursion_on_its_way_back_is_no_overfit_and_a_stretch_back_at_the_best_ends():
    """fresh67's NumPy MLP (evaluations every 5 epochs): a validation loss at its best 1.469, then 5.89,
    2.25, 1.85 (each lower than the one before) and 1.47-1.55 for the last 35 epochs read critical
    "everything gained on held-out data is lost" at the third and kept FAIL "back above its first value
    (1.522 ... vs 1.707)". Falling back is no rise; back within the bar of the best for as many
    evaluations as it took to say it, a stretch that was said is no FAIL, and ends within 2% of it."""
    vals = {5: 1.707, 10: 1.60, 15: 1.55, 20: 1.52, 25: 1.50, 30: 1.48, 35: 1.47, 40: 1.475, 45: 1.469}
    vals.update({50: 1.48, 55: 5.89, 60: 2.25, 65: 1.85})
    vals.update({e: 1.475 + 0.01 * (e % 3) for e in range(70, 101, 5)})
    rows = []
    for e in range(1, 101):
        r = StepRecord(e, loss=1.6 - 0.002 * e)
        r.val_loss = vals.get(e)
        rows.append(r)
    mon = feed(rows)
    assert alerts(mon, "overfitting") == []
    assert check(mon, "overfitting").status.value == "PASS"
    vals.update({55: 1.85, 60: 2.25, 65: 5.89})  # the same values rising: said, critical at the third
    for r in rows:
        r.val_loss = vals.get(r.step)
    mon = feed(rows)
    assert [(a.step, a.severity.value) for a in alerts(mon, "overfitting")] == [(65, "critical")]
    c = check(mon, "overfitting")  # ... and back within 2% of the best for the last 35 epochs: it ended
    assert c.status.value == "PASS" and c.summary.endswith("an over-fitting stretch after step 45 ended at step 80")
    for r in rows:  # back under its first value but 3-4% above the best: no longer FAIL, still above it
        if r.step >= 70 and r.val_loss is not None:
            r.val_loss += 0.04
    c = check(feed(rows), "overfitting")
    assert c.status.value == "WARN" and c.summary.startswith("evaluation loss rising since its best 1.469 at step 45")


def test_a_rise_that_peaked_is_still_over_fitting():
    """The excursion rule is for a stretch that jumped from the best's level: fresh52's real ECG ResNet
    (Keras CSVLogger) rises 0.25-0.40 after its best 0.176 at epoch 6, then 0.885, 0.636, 0.430: its
    stretch (above the noise bar from epoch 13) began 2x above the best, and it over-fits."""
    p = os.path.join(ROOT, "bench", "corpus", "fresh52", "keras_csvlogger_ecg_resnet_overfit")
    an = analyze(p)
    said = [(a.step, a.severity.value) for a in an.monitor.alerts if a.check == "overfitting"]
    assert said == [(15, "warning")]
    assert check(an.monitor, "overfitting").status.value == "WARN"


def test_eval_loss_rising_with_the_training_loss_is_no_overfit():
    recs = overfit_run(n=40)
    for r in recs:
        r.loss = 1.0 + 0.01 * r.step  # (the training loss rises too: divergence, not over-fitting)
    assert check(feed(recs), "overfitting").status.value == "PASS"


def test_eval_loss_blowing_up_with_a_training_spike_is_no_overfit():
    """fresh18's LR scan: both losses fall, then blow up together at the end (train 2.1 -> 1e7 ->
    9e15, evaluation the same): the training median of the window still sits below its level at
    the best evaluation, but the training loss now is far above it. A blow-up (the Loss Spike
    check's), not over-fitting: no "stop early, add regularisation"."""
    recs = []
    for s in range(50, 601, 50):
        recs += [StepRecord(s, loss=4.5 - s / 300), StepRecord(s, val_loss=4.5 - s / 300 + 0.01)]
    for s, v in ((650, 1.4e7), (700, 1.5e9), (750, 1.9e8), (800, 2.1e12)):
        recs += [StepRecord(s, loss=v), StepRecord(s, val_loss=v)]
    mon = feed(recs)
    c = check(mon, "overfitting")
    assert c.status.value == "PASS" and "rose with the training loss" in c.summary
    assert alerts(mon, "overfitting") == []
    assert check(mon, "loss_spike").status.value in ("WARN", "FAIL")


def test_a_flat_training_loss_wobbling_is_no_fall():
    """fresh7 wandb_0_12_gnn_flat_loss: a training loss flat at ~15200 (its median wobbling 15205 ->
    15195, 0.07%) beside a noisy evaluation loss was said to over-fit, critical, several times."""
    recs = overfit_run(n=40)
    for r in recs:
        r.loss = 15200.0 + 5.0 * ((-1) ** r.step) - 0.3 * r.step  # 0.08% over the run: no fall
    assert check(feed(recs), "overfitting").status.value == "PASS"
    recs = overfit_run(n=40)
    for r in recs:
        r.loss = 15200.0 * (1 - 0.002 * r.step)  # 0.2% per epoch: a fall
    assert check(feed(recs), "overfitting").status.value != "PASS"


def test_noise_is_not_a_trend():
    recs = overfit_run(n=60, rise=0.0)
    for r in recs:
        if r.val_loss is not None and r.step > 20:
            r.val_loss += 0.01 * ((-1) ** r.step)  # within the 2% margin of the best
    assert check(feed(recs), "overfitting").status.value == "PASS"


def test_a_noisy_evaluations_lucky_low_is_no_best_to_rise_from():
    """fresh6's Aim run: a test loss jumping 0.39-1.9 around a level that falls all run (to 0.07)
    read critical "everything gained on held-out data is lost" at epochs 5, 13, 67 and 183: three
    values above the luckiest low are noise. Its rise must exceed 3x its own noise (log scale)."""
    import random

    rng = random.Random(3)
    recs = []
    for e in range(300):
        r = StepRecord(e, loss=0.55 * math.exp(-e / 100) + 0.02)
        r.val_loss = (0.55 * math.exp(-e / 120) + 0.05) * math.exp(rng.gauss(0, 0.3))
        recs.append(r)
    mon = feed(recs)
    assert [a for a in alerts(mon, "overfitting") if a.severity.value == "critical"] == []
    assert check(mon, "overfitting").status.value != "FAIL"
    # the same noise on a real over-fitting (the evaluation loss doubles from its best): said
    recs = overfit_run(n=80, best=20, rise=0.05)
    for r in recs:
        if r.val_loss is not None:
            r.val_loss *= math.exp(rng.gauss(0, 0.05))
    assert check(feed(recs), "overfitting").status.value in ("WARN", "FAIL")


def test_a_new_run_in_the_same_file_starts_over():
    recs = overfit_run(n=26) + [
        StepRecord(s, loss=2.0 * math.exp(-s / 15), val_loss=1.4 - 0.01 * s) for s in range(1, 20)
    ]
    mon = feed(recs)
    assert check(mon, "overfitting").status.value == "PASS"


def test_no_eval_loss_is_skip():
    assert check(feed([StepRecord(s, loss=2.0) for s in range(50)]), "overfitting").status.value == "SKIP"


def test_report_json_on_a_keras_csvlogger(tmp_path, capsys):
    rows = ["epoch,loss,val_loss"] + [f"{r.step},{r.loss:.4f},{r.val_loss:.4f}" for r in overfit_run(n=30)]
    (tmp_path / "training.log").write_text("\n".join(rows) + "\n")
    main([str(tmp_path), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    c = next(c for c in d["checks"] if c["id"] == "overfitting")
    assert c["status"] == "WARN" and c["title"] == "Over-fitting"


def test_an_rl_runs_val_loss_is_its_critics_loss_not_an_evaluation(tmp_path, capsys):
    """fresh62's ModuMorph PPO logs ``pi_loss`` and ``val_loss`` (the value function's loss) each
    update: its value loss rising while the policy loss fell read FAIL "everything gained on held-out
    data is lost". In a reinforcement-learning run the check does not judge it, and says why; the same
    numbers under a supervised run's names still FAIL."""
    rows = overfit_run(n=40, back_above=True)
    for r in rows:
        r.extra = {"pi_loss": r.loss}
    mon = feed(rows)
    c = check(mon, "overfitting")
    assert c.status.value == "SKIP" and "reinforcement-learning run" in c.summary and "40 " in c.summary
    assert not alerts(mon, "overfitting")
    assert check(feed(overfit_run(n=40, back_above=True)), "overfitting").status.value == "FAIL"
    # and read from a file: a CSV of PPO's columns, judged through frames
    lines = ["step,pi_loss,val_loss,entropy"] + [f"{r.step},{r.loss},{r.val_loss},0.5" for r in rows]
    (tmp_path / "progress.csv").write_text("\n".join(lines) + "\n")
    assert main([str(tmp_path), "--json"]) in (0, 1)
    d = json.loads(capsys.readouterr().out)
    ov = next(c for c in d["checks"] if c["id"] == "overfitting")
    assert ov["status"] == "SKIP" and "reinforcement-learning" in ov["summary"], ov
