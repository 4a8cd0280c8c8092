"""Concrete recommended actions, with numbers taken from the run.

Each function returns one sentence. Sources: PaLM section 5.1 (restart ~100
steps before the spike, skip 200-500 batches), OPT-175B logbook (lower LR,
clip 1.0 -> 0.3), GPT-3 App. B / LLaMA (clip 1.0), HF DeepSpeed docs
(initial_scale_power, bf16), Ma & Yarats 2021 (warm-up >= 2/(1-beta2)).
"""

from __future__ import annotations

from tsm_tui.analysis.state import RunState
from tsm_tui.core.numbers import fmt
from tsm_tui.sources.framework_defaults import origin_note


def checkpoint_every(steps: int | None) -> int:
    """Steps between checkpoints to ask for: 5% of the run, kept within 10..1000 (a
    rollback point a few hundred steps before a spike: PaLM restarted ~100 steps
    before; the bounds are ours). Pre-flight and the live check use the same rule."""
    return min(1000, max(10, round(steps * 0.05))) if steps else 1000


def checkpoint_every_epochs(epochs: float) -> int:
    """Epochs between checkpoints to ask of a log whose step is an epoch: the same 5% of
    the run, at least every epoch (an epoch is hundreds of optimizer steps or more, the
    rollback distance PaLM's rule is about; ours)."""
    return max(1, round(epochs * 0.05))


def checkpoint_before(state: RunState, step: int) -> tuple[int, str] | None:
    """The newest checkpoint saved strictly before ``step``: on disk, else (none on disk) the
    log's save (analysis/logged_saves.py) when it was not overwritten since."""
    best = None
    for ck_step, name in state.info.checkpoints:
        if ck_step < step:
            best = (ck_step, name)
        else:
            break
    if best is None and not state.info.checkpoints and state.saves:
        sv = state.saves.before(step)
        if sv is not None and sv.overwritten_at is None:
            if sv.path in state.saves.reused:  # (a live run: the next save overwrites it)
                return (
                    sv.step,
                    f"{sv.path} (the log's save, not in the run directory: copy it before the run's next save overwrites it)",
                )
            return sv.step, f"{sv.path or 'the checkpoint'} (the log's save; not in the run directory)"
    return best


def _no_save_before(state: RunState, step: int, what: str) -> str | None:
    """Why there is no rollback point before ``step`` when the log says saves: the one before
    it was overwritten since (a run that saves to one file), or the log's first save is after
    it; None when the run directory has checkpoints or the log says no save."""
    if state.info.checkpoints or not state.saves:
        return None
    sv = state.saves.before(step)
    if sv is not None and sv.overwritten_at is not None:
        return (
            f"The last save before {what} at step {step} ({sv.path}, step {sv.step}) was overwritten by the save at "
            f"step {sv.overwritten_at} (the run saves to one file): nothing holds the state before it; keep the "
            "last few checkpoints under step-numbered names"
        )
    first = state.saves.first()
    where = (
        f"{first.path} at step {first.step}"
        if first is not None and first.path
        else f"step {first.step}"
        if first
        else ""
    )
    return f"No checkpoint was saved before {what} at step {step} (the log's first save is {where})"


def restart_point(state: RunState, step: int, what: str) -> tuple[str, int, str]:
    """Where a run can go back to from ``step``: the one decision the rollback and the retry
    advice phrase each their own way, as (kind, checkpoint step, text). "checkpoint": the last
    checkpoint before it (its step and name); "no save": the log says saves, none usable
    before it (why: ``_no_save_before``); "earliest": checkpoints on disk, all after it (the
    first one's name); "unknown": none found."""
    ck = checkpoint_before(state, step)
    if ck is not None:
        return "checkpoint", ck[0], ck[1]
    logged = _no_save_before(state, step, what)
    if logged is not None:
        return "no save", 0, logged
    if state.info.checkpoints:
        return "earliest", 0, state.info.checkpoints[0][1]
    return "unknown", 0, ""


def rollback(state: RunState, step: int, what: str = "the spike") -> str:
    """Go back before a spike and past its batches (PaLM)."""
    kind, ck_step, at = restart_point(state, step, what)
    if kind == "checkpoint":
        return (
            f"Roll back to {at} (step {ck_step}, the last checkpoint before {what} at step {step}) "
            f"and skip ~200-500 batches past it so the same data does not hit the same state (PaLM)."
        )
    if kind == "no save":
        return f"{at}: restart from scratch or an earlier run, and save every few hundred steps."
    if kind == "earliest":
        return (
            f"No checkpoint was saved before {what} at step {step}: restart from scratch or the "
            f"earliest checkpoint ({at}) and save every few hundred steps."
        )
    return (
        f"Restart from the last checkpoint before step {step} (none found in the run directory) "
        f"and skip ~200-500 batches past it (PaLM)."
    )


def retry_from(state: RunState, step: int, what: str) -> str:
    """Where to go back to for a run that stopped learning (a plateau): a checkpoint before
    it, with something changed. Not the spike remedy: skipping batches past a spike (PaLM)
    does nothing for a run that does not learn; the same run from there stalls again."""
    change = "with the LR or the data changed (the same run from there stalls again; skipping batches does not help)"
    kind, ck_step, at = restart_point(state, step, what)
    if kind == "checkpoint":
        return (
            f"To retry, resume from {at} (step {ck_step}, the last checkpoint before {what} at step {step}) {change}."
        )
    if kind == "no save":
        return f"{at}: to retry, restart from scratch {change}."
    if kind == "earliest":
        return (
            f"No checkpoint was saved before {what} at step {step}: to retry, restart from scratch or the earliest "
            f"checkpoint ({at}) {change}."
        )
    return f"To retry, resume from the last checkpoint before step {step} (none found in the run directory) {change}."


#: the LR at or below this share of the schedule's peak has collapsed: lowering the peak
#: is no remedy for what happens there (ours; schedules decay to 10% of the peak, GPT-3 /
#: LLaMA / OLMo 2, so 2% is well below any planned floor)
LR_COLLAPSED = 0.02


def lr_collapsed(state: RunState, peak: float | None = None) -> tuple[float, float] | None:
    """(LR now, its peak) when the logged LR has fallen to LR_COLLAPSED of its peak or below
    before the last 10% of the planned steps (a schedule that decays to 0 at its end, HF's
    linear default, has not collapsed; without a plan nothing is said)."""
    top = state.peak_lr or peak or state.info.peak_lr
    now = state.last_lr
    prog = state.progress()
    if top and now is not None and 0 <= now <= LR_COLLAPSED * top and prog is not None and prog < 0.9:
        return now, top
    return None


def lower_lr(state: RunState, factor: float = 0.5, peak: float | None = None) -> str:
    # the configured peak when known (a run that jumped above it gets its own
    # "restore the schedule" advice from the LR check), else the schedule's peak as
    # the caller saw it in the log (a jumped LR is not the peak: lr_peak.SchedulePeak),
    # else the highest LR reached
    low = lr_collapsed(state, peak)
    if low is not None:  # the opposite problem: never "lower the peak LR" to a run at 1% of it
        now, top = low
        return (
            f"The LR is already down to {now / top:.1%} of its peak ({fmt(now)} vs {fmt(top)}): lowering the "
            "peak will not help. Check the scheduler's horizon (decay steps / max_steps) against the run's "
            "length: an LR that collapsed early stalls the run."
        )
    peak = state.info.peak_lr or peak or state.peak_lr
    if peak:
        return f"Lower the peak LR from {fmt(peak)} to {fmt(peak * factor)}."
    return f"Lower the peak LR (x{factor:g})."


def clip(state: RunState) -> str:
    c = state.info.clip
    if c is None:  # nothing read says whether it clips: never assert that it does not
        return (
            "Whether the run clips its gradient norm is not known (no clip setting read): if it does not, "
            "clip it at 1.0 (GPT-3, LLaMA, OLMo 2 all use 1.0)."
        )
    if c <= 0:
        return f"Clip the gradient norm at 1.0: the run does not clip{origin_note(state.info, 'clip')}."
    if c > 1.0:
        return f"Tighten gradient clipping from {fmt(c)} to 1.0{origin_note(state.info, 'clip')}."
    return (
        f"Tighten gradient clipping from {fmt(c)} to 0.3 (what OPT-175B did after early divergences)"
        f"{origin_note(state.info, 'clip')}."
    )


#: Adam settings recommended against second-moment spikes (GPT-3 App. B, LLaMA, OLMo 2:
#: beta2 0.95, eps 1e-8; Molybog et al. 2023)
BETA2, EPS = 0.95, 1e-8


def optimizer_state(state: RunState) -> str:
    """Against a spike from Adam's second-moment estimates: lower the LR, and beta2 /
    epsilon only where the run's are above the recommended values (never "lower beta2
    from 0.95" to a run at 0.95)."""
    info = state.info
    asks, ok = [], []
    # one rule for both settings: asked down to the recommended value when above it (or not
    # known), said to be as recommended otherwise
    for field, value, want, asked, said in (
        ("beta2", info.beta2, BETA2, "Adam's beta2", "beta2"),
        ("eps", info.eps, EPS, "epsilon", "epsilon"),
    ):
        if value is None:
            asks.append(f"{asked} to {want:g} if it is higher")
        elif value > want:
            asks.append(f"{asked} from {value:g} to {want:g}{origin_note(info, field)}")
        else:
            ok.append(f"{said} {value:g}")
    head = "Lower the LR" + (", " + " and ".join(asks) if asks else "")
    if ok:
        head += f" (the run's Adam {' and '.join(ok)} {'is' if len(ok) == 1 else 'are'} already as recommended)"
    return (
        head + ": spikes from Adam's second-moment estimates follow the grad norm (Molybog et al. 2023); "
        "skip the batches of the spike on restart."
    )


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
