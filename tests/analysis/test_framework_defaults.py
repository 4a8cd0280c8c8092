"""One table of framework defaults (sources/framework_defaults.FRAMEWORKS), read by the
monitor (a log's framework fills what nothing set) and by pre-flight (a key the config
leaves out). Joined, the monitor learned torchtitan's defaults (pre-flight's only);
Lightning's stays the monitor's (pre-flight's "lightning" is a guess from one key)."""

from __future__ import annotations

from tsm_tui.analysis import advice
from tsm_tui.analysis.replay import analyze
from tsm_tui.core.settings import RunInfo
from tsm_tui.preflight.plan import Plan, apply_plan, finalize_plan
from tsm_tui.sources.framework_defaults import (
    FRAMEWORKS,
    MONITOR_SETTINGS,
    apply_defaults,
    config_defaults,
)


def test_monitor_and_preflight_read_one_row():
    """A row's value is the monitor's default and pre-flight's, under its config key."""
    for fw, table in FRAMEWORKS.items():
        info = RunInfo()
        apply_defaults(info, fw)
        keyed = config_defaults(fw)
        for row in table.rows:
            assert keyed.get(row.key) == (row.value if table.preflight else None), (fw, row.key)
            if row.setting in MONITOR_SETTINGS:
                assert getattr(info, row.setting) == row.value, (fw, row.setting)
                assert info.origin[row.setting] == f"{row.source} (default)"


def test_torchtitan_log_takes_torchtitan_defaults(tmp_path):
    """A torchtitan log (its own line format, ANSI colours and every rank printing) without
    its TOML: torchtitan clips at 1.0 and its AdamW has beta2 0.95 and eps 1e-8 (JobConfig
    training.max_norm, optimizer.beta2 / eps): the advice says so and asks for none of them."""
    red, green, reset = "\x1b[31m", "\x1b[32m", "\x1b[39m"
    lines = []
    for s in range(1, 61):
        loss = 8 - s / 20 + (6.0 if s == 45 else 0.0)
        line = (
            f"[rank0]:[titan] 2026-05-18 16:04:50,821 - root - INFO - {red}step: {s:2}  {green}loss: "
            f"{loss:8.5f}  grad_norm:  0.7675  memory:  9.46GiB(64.99%)  tps: 7,322  mfu: 0.17%{reset}"
        )
        lines += [line, line.replace("[rank0]:", "")]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    an = analyze(str(tmp_path))
    st = an.monitor.state
    assert (st.info.clip, st.info.beta2, st.info.eps) == (1.0, 0.95, 1e-8)
    assert st.info.origin["clip"] == "torchtitan training.max_norm=1.0 (default)"
    assert advice.clip(st).startswith("Tighten gradient clipping from 1 to 0.3") and "torchtitan" in advice.clip(st)
    opt = advice.optimizer_state(st)
    assert "beta2" not in opt.split("(")[0] and "already as recommended" in opt


def test_preflight_asserts_no_lightning_default_of_a_guessed_lightning_config():
    """A config is "lightning" to pre-flight by one key any script may use (log_every_n_steps):
    a JAX LSTM's W&B config (corpus fresh3) has it. Lightning's "no clipping" is the monitor's
    (its framework is the log's format), never asserted by pre-flight."""
    plan = Plan()
    apply_plan(plan, {"batch_size": 64, "learning_rate": 1e-3, "log_every_n_steps": 50}, "config.yaml")
    finalize_plan(plan)
    assert plan.framework == "lightning"
    assert plan.clip is None
    assert config_defaults("lightning") == {}
    plan = Plan()
    apply_plan(plan, {"accumulate_grad_batches": 4, "gradient_clip_val": 0.5}, "hparams.yaml")
    assert (plan.clip, plan.origin["clip"]) == (0.5, "hparams.yaml")  # the config's own value
