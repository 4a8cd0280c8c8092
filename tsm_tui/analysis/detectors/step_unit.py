"""Whether a step of this log is an epoch: one record per epoch (Ultralytics' results.csv,
an MLflow run Ultralytics wrote, a Keras / GAN history, a W&B run that logs once per epoch
on ``_step``). The advice then speaks in epochs ("save every 5 epochs", never "every 10 steps,
not per epoch"), and what only a per-step log can hold (a grad norm every step) is not asked of it.

The rule (one definition; the checks that need it keep one each, fed per record and per frame
in O(1) / one numpy pass): the records that carry an epoch span ``epoch_unit_min`` epochs or
more, and their steps advance with the epoch (at most ``epoch_unit_steps`` per epoch, plus one;
Settings: ours). A run of a tiny data set that takes 1.1 optimizer steps per epoch (HF logging
every 10 steps, 9 epochs apart) is a step log: its step is not an epoch.
"""

from __future__ import annotations

import math

import numpy as np


class StepUnit:
    def __init__(self, settings) -> None:
        self.settings = settings
        self.first: tuple[int, float] | None = None  # (step, epoch) of the first record with an epoch
        self.last: tuple[int, float] | None = None  # ... of the newest one

    def see(self, step: int, epoch: float | None) -> None:
        if epoch is None or not math.isfinite(epoch):
            return
        if self.first is None:
            self.first = (step, epoch)
        self.last = (step, epoch)

    def see_frame(self, steps: np.ndarray, epochs: np.ndarray | None) -> None:
        if epochs is None or not steps.size:
            return
        ok = np.flatnonzero(np.isfinite(epochs))
        if ok.size:
            self.see(int(steps[ok[0]]), float(epochs[ok[0]]))
            self.see(int(steps[ok[-1]]), float(epochs[ok[-1]]))

    def on_resume(self) -> None:
        """A resume goes back in steps and epochs alike: the span starts again."""
        self.first = self.last = None

    def epochs(self) -> float | None:
        """The epochs the log spans when a step of it is an epoch, else None."""
        if self.first is None or self.last is None:
            return None
        de, ds = self.last[1] - self.first[1], self.last[0] - self.first[0]
        if de >= self.settings.epoch_unit_min and 0 < ds <= self.settings.epoch_unit_steps * de + 1:
            return de
        return None
