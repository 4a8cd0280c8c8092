"""The LR schedule's peak as the log shows it, for advice ("lower the peak LR from
X") and for "the LR is at N% of its peak". RunState.peak_lr is the running maximum
of the LR, which an LR jump (a config change, a scheduler state not restored on
resume) takes over; here, once the warm-up ramp has ended (the LR fell, or held its
maximum for HOLD_RECORDS records after rising), an LR above JUMP_FACTOR x the peak
is a jump, not the schedule's peak (the rules of the LR Schedule check). An LR that
holds its first value (no warm-up, or fp16 start-up steps that do not advance the
scheduler) has not ended a ramp.

Fed per record (``update``) or per column (``update_many``): the same result.
"""

from __future__ import annotations

import math

import numpy as np

from tsm_tui.analysis.detectors.lr_schedule import HOLD_RECORDS, JUMP_FACTOR


class SchedulePeak:
    __slots__ = ("peak", "prev", "done", "hold", "rose")

    def __init__(self) -> None:
        self.peak: float | None = None  # the schedule's peak so far
        self.prev: float | None = None  # the previous finite LR
        self.done = False  # the warm-up ramp has ended
        self.hold = 0  # records in a row at the peak (ramp)
        self.rose = False  # the LR has risen above its first value

    def update(self, lr) -> None:
        if lr is None or not math.isfinite(lr):
            return
        p = self.peak
        if p is None:
            self.peak = self.prev = lr
            return
        if not self.done:
            if lr > p:
                self.peak = p = lr
                self.rose = True
            if lr < self.prev:
                self.done = p > 0
                self.hold = 0
            elif lr == self.prev and lr == p and p > 0 and self.rose:
                self.hold += 1
                self.done = self.hold >= HOLD_RECORDS
            else:
                self.hold = 0
        elif p < lr <= JUMP_FACTOR * p or p <= 0 < lr:
            self.peak = lr
        self.prev = lr

    def update_many(self, lrs: np.ndarray) -> None:
        """``update`` for each of ``lrs``, in order: strictly rising stretches of the
        ramp at once, its other records one by one, then only the LRs above the peak."""
        if self.done and lrs.size:  # the usual case: one pass finds nothing above the peak
            top, last = lrs.max(), lrs[-1]
            if top <= self.peak and math.isfinite(last):  # (a NaN max fails the test)
                self.prev = float(last)
                return
        v = lrs[np.isfinite(lrs)]
        i, n = 0, v.size
        while i < n and not self.done:
            if self.peak is not None:
                # a strictly rising stretch of the ramp only raises the peak (the LR
                # never fell during the ramp, so the previous LR is the peak)
                up = v[i:] > np.concatenate(([self.prev], v[i:n - 1]))
                d = np.flatnonzero(~up)
                j = i + (int(d[0]) if d.size else n - i)
                if j > i:
                    top = float(v[j - 1])
                    if top > self.peak:
                        self.peak = top
                        self.rose = True
                    self.prev, self.hold, i = top, 0, j
                    continue
            self.update(float(v[i]))
            i += 1
        if i >= n:
            return
        rest = v[i:]
        for x in rest[rest > self.peak].tolist():
            if self.peak < x <= JUMP_FACTOR * self.peak or self.peak <= 0 < x:
                self.peak = x
        self.prev = float(rest[-1])
