"""Checkpoints: rollback points on disk. Warn when there are none, or when the
newest is far behind the run (a rollback would throw away much of it).
"Checkpoints every N steps, not per epoch": PaLM / OLMo roll back ~100 steps.
"""

from __future__ import annotations

from tsm_tui.analysis.advice import checkpoint_every
from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord


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
        # one rule with pre-flight, against the plan when it is known (the steps logged
        # so far would flip the verdict after every save)
        total = info.total_steps
        span = total if total else max(last or 0, steps[-1]) - (self.state.first_step or 0)
        behind = (last - steps[-1]) if last is not None else 0
        desc = f"{len(cks)} checkpoint(s), newest {cks[-1][1]} (step {steps[-1]})"
        if interval:
            desc += f", every ~{interval} steps"
        limit = min(self.s.ckpt_max_gap_frac * span, self.s.ckpt_max_gap_steps) if span > 0 else None
        if limit and ((interval and interval > limit) or behind > limit):
            worst = max(interval or 0, behind)
            of = f"{total} planned" if total else f"{span} logged"
            why = (f"> {self.s.ckpt_max_gap_frac:.0%} of the run ({of})" if limit < self.s.ckpt_max_gap_steps
                   else f"> {self.s.ckpt_max_gap_steps} steps")
            return self._result(Status.WARN, f"{desc}; a rollback could lose {worst} steps ({why})")
        return self._result(Status.PASS, desc)

    def finalize(self) -> list[Alert]:
        res = self.result()
        if res.status != Status.WARN:
            return []
        last = self.state.last_step or 0
        # of the planned run when the plan is known (a live run at step 10 of 100k), else of the steps seen
        every = checkpoint_every(self.state.info.total_steps or last)
        return [Alert(self.id, Severity.WARNING, last, f"Checkpoints: {res.summary}.",
                      actions=[f"Save a checkpoint every {every} steps or more often, not per epoch, so a spike "
                               "can be rolled back to a few hundred steps before its onset (PaLM restarted ~100 "
                               "steps before)."],
                      key="checkpoints")]
