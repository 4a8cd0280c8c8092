"""What the detectors share about the run: the plan (RunInfo) and the facts
observed so far. Written by the Monitor, read by detectors and advice."""

from __future__ import annotations

from dataclasses import dataclass, field

from tsm_tui.analysis.logged_saves import LoggedSaves
from tsm_tui.core.settings import RunInfo


@dataclass
class RunState:
    """Facts about the run observed so far, shared (read-only) by detectors."""

    info: RunInfo
    first_step: int | None = None
    last_step: int | None = None
    records: int = 0
    peak_lr: float | None = None
    peak_lr_step: int | None = None
    last_lr: float | None = None
    resumes: list[tuple[int, int]] = field(default_factory=list)  # (from, to)
    #: first step of instability early in the run, in the loss: a loss spike or a non-finite
    #: value (a grad norm above 5 on most steps is a level; a grad-norm spike with the loss
    #: unmoved, a 3.6x one at step 9,060 of fresh8's run, is not the instability no warm-up causes)
    early_trouble_step: int | None = None
    #: some of the run's text (a console log, a W&B run's console) was read: the crash
    #: check has something to judge (Session sets it)
    text_read: bool = False
    #: the checkpoint saves the log says it made (the Checkpoints check and the rollback advice
    #: read them when the run directory has none)
    saves: LoggedSaves = field(default_factory=LoggedSaves)

    @property
    def total_steps(self) -> int | None:
        return self.info.total_steps

    def progress(self) -> float | None:
        """Share of the planned steps done, when the plan is known: at most 1 (steps past
        the plan mean the plan or the step axis is wrong, ``past_plan``, not a run 1214% done)."""
        if self.info.total_steps and self.last_step is not None:
            return min(1.0, self.last_step / self.info.total_steps)
        return None

    def past_plan(self) -> bool:
        """The steps went past the planned total: the plan (epochs taken for steps, another
        phase's total) or the step axis (steps counted wrong) is wrong."""
        total = self.info.total_steps
        return total is not None and total > 0 and self.last_step is not None and self.last_step > total
