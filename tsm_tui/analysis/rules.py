"""Verdict rules shared by the live checks and pre-flight: one definition each.

The LR Schedule and Checkpoints detectors judge what the log and the disk show, pre-flight
judges the plan; both ask the same questions of the same numbers (thresholds in
core/settings.py), so each question is answered here, once:

* ``warmup_short``: is a warm-up of W steps too short for a run of T steps?
* ``lr_ratio_status``: what does a peak LR at r x its size reference earn?
* ``checkpoint_gap_limit`` / ``checkpoint_gap_too_long``: how far apart may rollback points be?
* ``diverged``: has a loss level risen far enough above the best level to be divergence (the
  Loss Spike check says it; the Loss Plateau check steps aside for it)?

Pure functions of numbers and Settings (no run state), so each is tested at its boundaries
(tests/analysis/test_rules.py).
"""

from __future__ import annotations

from tsm_tui.core.record import Status
from tsm_tui.core.settings import Settings

#: a ratio this close below a factor counts as at it: a peak LR set to exactly 10x its
#: reference (3e-3 for a 350M model, GPT-3 Table 2.1's 3e-4) is 9.999999999999996x in
#: floating point
_ROUNDING = 1e-9


def warmup_published(steps: int, s: Settings, tokens: float | None = None) -> bool:
    """A warm-up as long as the published long-run ones (2000 steps: LLaMA 1/2, OLMo 2,
    DeepSeek; 375M tokens: GPT-3 App. B): fine whatever share of the run it is."""
    return steps >= s.warmup_published_steps or (tokens is not None and tokens >= s.warmup_published_tokens)


def warmup_short(steps: int, total: int | None, s: Settings, tokens: float | None = None) -> bool:
    """A warm-up of ``steps`` (> 0) under ``s.warmup_min_frac`` of the ``total`` steps
    planned or logged, and not a published long-run warm-up (``warmup_published``).
    Unknown run length (``total`` None or 0): never short. No warm-up at all
    (``steps`` 0) is short too; the callers say "no warm-up" before asking."""
    if not total:
        return False
    return steps / total < s.warmup_min_frac and not warmup_published(steps, s, tokens)


def lr_ratio_status(ratio: float, s: Settings) -> Status:
    """A peak LR at ``ratio`` x the size reference: FAIL at >= ``s.lr_fail_factor``
    (within float rounding), WARN above ``s.lr_warn_factor``, else PASS."""
    if ratio >= s.lr_fail_factor * (1 - _ROUNDING):
        return Status.FAIL
    if ratio > s.lr_warn_factor:
        return Status.WARN
    return Status.PASS


def lr_ratio_line(status: Status, s: Settings) -> float:
    """The ratio from which ``lr_ratio_status`` says ``status`` (WARN or FAIL), for a
    caller that screens values in bulk: any ratio at or above it may earn that status."""
    if status == Status.FAIL:
        return s.lr_fail_factor * (1 - _ROUNDING)
    return s.lr_warn_factor


def checkpoint_gap_limit(run_steps: float | None, s: Settings) -> float:
    """The largest gap between rollback points, in steps, for a run of ``run_steps``
    (planned, else logged): ``s.ckpt_max_gap_frac`` of it, at most ``s.ckpt_max_gap_steps``;
    run length unknown (None or <= 0): ``s.ckpt_max_gap_steps``."""
    if run_steps is None or run_steps <= 0:
        return float(s.ckpt_max_gap_steps)
    return min(s.ckpt_max_gap_frac * run_steps, s.ckpt_max_gap_steps)


def checkpoint_gap_too_long(gap: float, run_steps: float | None, s: Settings) -> bool:
    """A gap of ``gap`` steps between rollback points (an interval, or the newest one's
    distance behind the run) above ``checkpoint_gap_limit``: WARN."""
    return gap > checkpoint_gap_limit(run_steps, s)


def back_from_divergence(level, best, s: Settings):
    """A loss level that had diverged (``diverged``) is back within ``s.recovery_factor`` x
    the best level (the spike check's recovery bar; under the divergence factor, so a level
    near the line does not flap). Floats give a bool, numpy arrays a mask."""
    return (best > 0) & (level <= best * s.recovery_factor)


def diverged(level, best, s: Settings):
    """A loss level (a rolling median or mean of many records) ``s.divergence_factor`` x
    the best such level seen, and ``s.spike_min_delta`` above it in loss units (near zero
    a rise from 2e-4 to 4e-4 is a doubling, and noise, not divergence). Floats give a
    bool, numpy arrays an element-wise mask (the columnar path screens a frame with it)."""
    return (best > 0) & (level > best * s.divergence_factor) & (level - best >= s.spike_min_delta)
