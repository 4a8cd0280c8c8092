"""Checkpoints: rollback points on disk. Warn when there are none, or when the
newest is far behind the run (a rollback would throw away much of it).
"Checkpoints every N steps, not per epoch": PaLM / OLMo roll back ~100 steps.
"""

from __future__ import annotations

from tsm_tui.detectors.base import Detector
from tsm_tui.record import Alert, CheckResult, Severity, Status, StepRecord


class CheckpointDetector(Detector):
    id = "checkpoints"
    title = "Checkpoints"

    def update(self, rec: StepRecord) -> list[Alert]:
        return []

    def update_frame(self, fr) -> list[Alert]:
        return []  # judged from RunInfo and the run state at result() / finalize()

    def result(self) -> CheckResult:
        info = self.state.info
        cks = info.checkpoints
        last = self.state.last_step
        if not info.checkpoint_dir_searched:
            return self._result(Status.SKIP, "no run directory to search for checkpoints")
        if not cks:
            return self._result(Status.WARN, "no checkpoints found in the run directory: nothing to roll back to")
        steps = [s for s, _ in cks]
        gaps = [b - a for a, b in zip(steps, steps[1:])]
        interval = max(gaps) if gaps else None
        span = max(last or 0, steps[-1]) - (self.state.first_step or 0)
        behind = (last - steps[-1]) if last is not None else 0
        desc = f"{len(cks)} checkpoint(s), newest {cks[-1][1]} (step {steps[-1]})"
        if interval:
            desc += f", every ~{interval} steps"
        limit = self.s.ckpt_max_gap_frac * span if span > 0 else None
        if limit and ((interval and interval > limit) or behind > limit):
            worst = max(interval or 0, behind)
            return self._result(Status.WARN, f"{desc}; a rollback could lose {worst} steps "
                                             f"(> {self.s.ckpt_max_gap_frac:.0%} of the run)")
        return self._result(Status.PASS, desc)

    def finalize(self) -> list[Alert]:
        res = self.result()
        if res.status != Status.WARN:
            return []
        last = self.state.last_step or 0
        every = _nice(last * 0.05) if last else 1000


        return [Alert(self.id, Severity.WARNING, last, f"Checkpoints: {res.summary}.",
                      actions=[f"Save a checkpoint every ~{every} steps (5% of this run) or more often, not per epoch, "
                               "so a spike can be rolled back ~100 steps before its onset."],
                      key="checkpoints")]


def _nice(x: float) -> int:
    """Round to 1, 2 or 5 times a power of ten."""
    if x <= 1:
        return 1
    import math

    p = 10 ** math.floor(math.log10(x))
    return int(min((abs(x - m * p), m * p) for m in (1, 2, 5, 10))[1])
