"""Advice checked against the run (issue 31 §5): real configs and real logs in, every
action out compared with what the run's config, its framework's defaults and its logs
say. A run is never told to do what it already does."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tsm_tui.analysis import advice
from tsm_tui.analysis.replay import analyze
from tsm_tui.analysis.state import RunState
from tsm_tui.core.settings import RunInfo
from tsm_tui.sources.config import apply_mapping, load_config
from helpers import paths

ROOT = Path(paths.ROOT)
DATA = ROOT / "tests" / "data"
FAULTS = DATA / "faults"


def contradictions(state: RunState, actions: list[str]) -> list[str]:
    """The actions that ask a run for what its config / framework / logs say it does."""
    info, bad = state.info, []
    for act in actions:
        low = act.lower()
        if info.clip is not None and 0 < info.clip <= 1.0 and low.startswith("clip the gradient norm at 1.0"):
            bad.append(f"asks to clip at 1.0, the run clips at {info.clip} ({info.origin.get('clip')}): {act}")
        m = re.search(r"beta2 from ([\d.]+)", act)
        if m and info.beta2 is not None and float(m.group(1)) != info.beta2:
            bad.append(f"names beta2 {m.group(1)}, the run's is {info.beta2}: {act}")
        if info.beta2 is not None and info.beta2 <= advice.BETA2 and re.search(r"beta2 (from|to)", act):
            bad.append(f"asks to lower beta2, the run's is {info.beta2}: {act}")
        if info.eps is not None and info.eps <= advice.EPS and re.search(r"epsilon (from|to)", act):
            bad.append(f"asks to lower epsilon, the run's is {info.eps}: {act}")
        if "lr is not logged" in low and state.last_lr is not None:
            bad.append(f"says the LR is not logged, the log has it: {act}")
        if low.startswith("lower the peak lr") and advice.lr_collapsed(state) is not None:
            bad.append(f"asks to lower the peak LR of a run whose LR collapsed: {act}")
        if (
            "add a linear lr warm-up" in low
            and info.warmup_steps
            and info.total_steps
            and info.warmup_steps >= 0.01 * info.total_steps
        ):
            bad.append(f"asks for a warm-up, the run has {info.warmup_steps} steps: {act}")
    return bad


def all_actions(an) -> list[str]:
    return [x for a in an.alerts() for x in a.actions]


REAL_RUNS = [
    DATA / "frameworks" / "hf_trainer",  # HF Trainer, no training_args.json: HF's defaults
    DATA / "frameworks" / "lightning" / "lightning_logs" / "version_0",  # Lightning CSV + hparams.yaml
    DATA / "frameworks" / "tensorboard_only",  # plain torch + config.yaml
    ROOT / "sample_runs" / "spike_no_recover",  # Megatron log with its arguments header
    ROOT / "sample_runs" / "spikes_recover",
    ROOT / "sample_runs" / "no_warmup",
    ROOT / "sample_runs" / "nan_divergence",
    ROOT / "sample_runs" / "plateau",
    FAULTS / "data_fault",
    FAULTS / "lr_jump",
    FAULTS / "lr_collapse",
]


@pytest.mark.parametrize("path", REAL_RUNS, ids=lambda p: p.name)
def test_no_action_contradicts_the_run(path):
    if not path.exists():
        pytest.skip(f"{path} not generated here")
    an = analyze(str(path))
    st = an.monitor.state
    acts = all_actions(an) + [advice.clip(st), advice.optimizer_state(st), advice.lower_lr(st)]
    assert not contradictions(st, acts)


def test_hf_trainer_defaults_are_the_runs_own():
    """A real HF Trainer output dir without training_args.json: it clips at 1.0 (HF's
    max_grad_norm default), its Adam beta2 is 0.999: "clip at 1.0" is not said."""
    an = analyze(str(DATA / "frameworks" / "hf_trainer"))
    info = an.monitor.state.info
    assert info.clip == 1.0 and info.origin["clip"].endswith("(default)")
    assert (info.beta2, info.eps) == (0.999, 1e-8)
    clip = advice.clip(an.monitor.state)
    assert clip.startswith("Tighten gradient clipping from 1 to 0.3") and "HF TrainingArguments" in clip
    opt = advice.optimizer_state(an.monitor.state)
    assert "beta2 from 0.999 to 0.95" in opt and "epsilon from" not in opt


def test_training_args_json_wins_over_the_defaults(tmp_path):
    """HF's own training_args.json (a real one) beside the same run: its values, not the
    defaults; save_strategy "no" plans no checkpoint, whatever save_steps (500) says."""
    run = tmp_path / "hf"
    shutil.copytree(DATA / "frameworks" / "hf_trainer", run)
    args = json.loads((DATA / "preflight" / "hf_logging_500" / "training_args.json").read_text())
    assert args["adam_beta2"] == 0.98 and args["save_steps"] == 500
    args["max_grad_norm"] = 0.5
    args["save_strategy"] = "no"
    (run / "training_args.json").write_text(json.dumps(args))
    for d in run.glob("checkpoint-*"):
        shutil.rmtree(d)
    (run / "trainer_state.json").write_text(
        (run / "trainer_state.json").read_text().replace('"save_steps": 20', '"save_steps": null')
    )
    an = analyze(str(run))
    st = an.monitor.state
    assert (st.info.clip, st.info.beta2, st.info.save_strategy) == (0.5, 0.98, "no")
    assert st.info.save_steps is None
    assert "beta2 from 0.98 to 0.95" in advice.optimizer_state(st)
    ck = next(c for c in an.checks() if c.id == "checkpoints")
    assert ck.status.value == "WARN" and "save_strategy" in ck.summary and "plans none" in ck.summary
    acts = [x for a in an.alerts() if a.check == "checkpoints" for x in a.actions]
    assert acts and acts[0].startswith('Set save_strategy="steps"')
    assert not contradictions(st, all_actions(an))


def test_lightning_no_clip_by_default_and_its_lr_is_logged():
    """Lightning's CSV logs the LR on rows of its own (LearningRateMonitor): the LR check
    reads it, so no alert may say it is not logged; Lightning does not clip by default."""
    an = analyze(str(DATA / "frameworks" / "lightning" / "lightning_logs" / "version_0"))
    st = an.monitor.state
    assert st.last_lr is not None
    assert st.info.clip == 0.0 and "Lightning" in st.info.origin["clip"]
    assert advice.clip(st).startswith("Clip the gradient norm at 1.0: the run does not clip (Lightning")


def test_megatron_arguments_header_and_args_file():
    """The Megatron log's own arguments header (adam_beta2 0.95) and a launch script's
    argument list (--clip-grad 1.0): read, and the advice follows them."""
    an = analyze(str(ROOT / "sample_runs" / "spike_no_recover"))
    st = an.monitor.state
    assert st.info.beta2 == 0.95
    assert "beta2" not in advice.optimizer_state(st).split("(")[0]  # not asked to lower it
    info = RunInfo()
    apply_mapping(info, load_config(str(DATA / "preflight" / "megatron_gpt_1.3b.sh"))[0], "megatron_gpt_1.3b.sh")
    assert info.clip == 1.0 and info.beta2 == 0.95
    assert not contradictions(RunState(info), [advice.clip(RunState(info)), advice.optimizer_state(RunState(info))])


def test_a_persistent_data_fault_puts_the_data_first():
    """Real run: from step 202 every batch is random bytes. The loss stays up while the
    grad norm is back at its level: a data fault, and inspecting the data leads."""
    an = analyze(str(FAULTS / "data_fault"))
    crit = [a for a in an.alerts() if a.check == "loss_spike" and a.severity.value == "critical"]
    assert crit and crit[0].cause == "data"
    assert "data fault from step 202" in crit[0].message
    assert crit[0].actions[0].startswith("Inspect the batches from step 202 on")
    assert all(x.startswith("If the data is clean") for x in crit[0].actions[2:])
    spike = next(c for c in an.checks() if c.id == "loss_spike")
    assert "data fault" in spike.summary and "optimizer" not in spike.summary


def test_an_lr_that_collapsed_is_not_told_to_lower_its_peak():
    """Real run: the scheduler's horizon is 150 of 400 steps, the LR sits at 1% of its
    peak from there. Any advice given at step 250 (a plateau, a spike) must not ask to
    lower the peak: the run needs the opposite. At the planned end a schedule that
    reached 1% has not collapsed (HF's linear schedule ends at 0)."""
    from tsm_tui.analysis.monitor import Monitor
    from tsm_tui.core.record import StepRecord
    from tsm_tui.core.settings import Settings

    info = RunInfo()
    apply_mapping(info, load_config(str(FAULTS / "lr_collapse" / "config.json"))[0], "config.json")
    mon = Monitor(Settings(), info)
    for ln in (FAULTS / "lr_collapse" / "metrics.jsonl").read_text().splitlines()[:250]:
        d = json.loads(ln)
        mon.feed(StepRecord(step=d["step"], loss=d["loss"], grad_norm=d["grad_norm"], lr=d["lr"], time=d["time"]))
    st = mon.state
    assert st.last_step == 250 and st.last_lr == pytest.approx(1e-5)
    assert advice.lr_collapsed(st) is not None
    assert advice.lower_lr(st).startswith("The LR is already down to 1.0% of its peak")
    assert not contradictions(st, [advice.lower_lr(st)])
    end = analyze(str(FAULTS / "lr_collapse")).monitor.state  # at its planned end
    assert advice.lr_collapsed(end) is None


def test_an_lr_held_at_12_to_117x_its_peak_fails():
    """Real run: from step 200 the LR is 12x its planned peak, rising to 117x; the
    report used to end with 0 critical and exit 0."""
    from tsm_tui.cli import main

    an = analyze(str(FAULTS / "lr_jump"))
    lr = next(c for c in an.checks() if c.id == "lr_schedule")
    assert lr.status.value == "FAIL"
    assert an.counts()[0] >= 1
    assert main([str(FAULTS / "lr_jump"), "--report"]) == 1


def test_no_warmup_at_a_high_lr_is_told_more_than_add_warmup():
    """sample_runs/no_warmup: constant LR 0.03 from step 1, no clipping (30x the healthy
    sample's 1e-3): the alert says how high it starts and asks to lower it and to clip."""
    an = analyze(str(ROOT / "sample_runs" / "no_warmup"))
    a = next(a for a in an.alerts() if a.key == "no_warmup")
    assert "8x above" in a.message
    assert a.actions[0].startswith("Add a linear LR warm-up")
    assert any(x.startswith("Lower the LR from 0.03") for x in a.actions)
    assert any(x.startswith("Clip the gradient norm at 1.0") for x in a.actions)
