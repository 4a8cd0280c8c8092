"""Concrete recommended actions, with numbers taken from the run.

Each function returns one sentence. Sources: PaLM section 5.1 (restart ~100
steps before the spike, skip 200-500 batches), OPT-175B logbook (lower LR,
clip 1.0 -> 0.3), GPT-3 App. B / LLaMA (clip 1.0), HF DeepSpeed docs
(initial_scale_power, bf16), Ma & Yarats 2021 (warm-up >= 2/(1-beta2)).
"""

from __future__ import annotations

from tsm_tui.analysis.state import RunState
from tsm_tui.core.numbers import fmt


def checkpoint_every(steps: int | None) -> int:
    """Steps between checkpoints to ask for: 5% of the run, kept within 10..1000 (a
    rollback point a few hundred steps before a spike: PaLM restarted ~100 steps
    before; the bounds are ours). Pre-flight and the live check use the same rule."""
    return min(1000, max(10, round(steps * 0.05))) if steps else 1000


def checkpoint_before(state: RunState, step: int) -> tuple[int, str] | None:
    """The newest checkpoint saved strictly before ``step``."""
    best = None
    for ck_step, name in state.info.checkpoints:
        if ck_step < step:
            best = (ck_step, name)
        else:
            break
    return best


def rollback(state: RunState, step: int, what: str = "the spike") -> str:
    ck = checkpoint_before(state, step)
    if ck is not None:
        return (
            f"Roll back to {ck[1]} (step {ck[0]}, the last checkpoint before {what} at step {step}) "
            f"and skip ~200-500 batches past it so the same data does not hit the same state (PaLM)."
        )
    if state.info.checkpoints:
        return (
            f"No checkpoint was saved before {what} at step {step}: restart from scratch or the "
            f"earliest checkpoint ({state.info.checkpoints[0][1]}) and save every few hundred steps."
        )
    return (
        f"Restart from the last checkpoint before step {step} (none found in the run directory) "
        f"and skip ~200-500 batches past it (PaLM)."
    )


def lower_lr(state: RunState, factor: float = 0.5, peak: float | None = None) -> str:
    # the configured peak when known (a run that jumped above it gets its own
    # "restore the schedule" advice from the LR check), else the schedule's peak as
    # the caller saw it in the log (a jumped LR is not the peak: lr_peak.SchedulePeak),
    # else the highest LR reached
    peak = state.info.peak_lr or peak or state.peak_lr
    if peak:
        return f"Lower the peak LR from {fmt(peak)} to {fmt(peak * factor)}."
    return f"Lower the peak LR (x{factor:g})."


def clip(state: RunState) -> str:
    c = state.info.clip
    if c is None or c <= 0:
        return "Clip the gradient norm at 1.0 (GPT-3, LLaMA, OLMo 2 all use 1.0)."
    if c > 1.0:
        return f"Tighten gradient clipping from {fmt(c)} to 1.0."
    return f"Tighten gradient clipping from {fmt(c)} to 0.3 (what OPT-175B did after early divergences)."


def warmup(state: RunState) -> str:
    total = state.info.total_steps
    if total:
        lo, hi = max(1, round(total * 0.02)), max(1, round(total * 0.05))
        return f"Add a linear LR warm-up of {lo}-{hi} steps (2-5% of {total}), then cosine decay to 10% of peak."
    return "Add a linear LR warm-up over 2-5% of the steps (at least 2/(1-beta2) steps), then cosine decay."


def bf16() -> str:
    return "Switch from fp16 to bf16: it needs no loss scaling and its overflow is not silent."


def check_data(step: int) -> str:
    return f"Inspect the batches around step {step} for corrupt or degenerate data."
