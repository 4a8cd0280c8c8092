"""The LR schedule's peak as the log shows it, for advice ("lower the peak LR from
X") and for "the LR is at N% of its peak". RunState.peak_lr is the running maximum
of the LR, which an LR jump (a config change, a scheduler state not restored on
resume) takes over; here, once the warm-up ramp has ended (the LR fell, or held its
maximum for HOLD_RECORDS records after rising), an LR above JUMP_FACTOR x the peak
is a jump, not the schedule's peak (the rules of the LR Schedule check), unless it is the
next stair of a ramp that ended by a hold (a rise of at most STAIR_RISE x the ramp's largest
rise from the record before: an LR logged per micro-batch, stepped per optimizer step). An LR that
holds its first value (no warm-up, or fp16 start-up steps that do not advance the
scheduler) has not ended a ramp.

Fed per record (``update``) or per column (``update_many``): the same result.
"""

from __future__ import annotations

import math

import numpy as np

from tsm_tui.analysis.detectors.lr_schedule import HOLD_RECORDS, JUMP_FACTOR, STAIR_RISE


class SchedulePeak:
    __slots__ = ("peak", "prev", "done", "hold", "rose", "rise", "held")

    def __init__(self) -> None:
        self.peak: float | None = None  # the schedule's peak so far
        self.prev: float | None = None  # the previous finite LR
        self.done = False  # the warm-up ramp has ended
        self.hold = 0  # records in a row at the peak (ramp)
        self.rose = False  # the LR has risen above its first value
        self.rise = 0.0  # the ramp's largest rise from one record to the next
        self.held = False  # the ramp ended by a hold (a staircase may go on)

    def update(self, lr) -> None:
        if lr is None or not math.isfinite(lr):
            return
        p = self.peak
        if p is None:
            self.peak = self.prev = lr
            return
        assert self.prev is not None  # (set with the peak)
        if self.done and self.held and lr > JUMP_FACTOR * p and self._stair(lr):
            self.done = False  # (the next stair of the ramp: it goes on)
        if not self.done:
            if lr > p:
                self.peak = p = lr
                self.rose = True
            if lr < self.prev:
                self.done = p > 0
                self.held = False
                self.hold = 0
            elif lr == self.prev and lr == p and p > 0 and self.rose:
                self.hold += 1
                self.done = self.held = self.hold >= HOLD_RECORDS
            else:
                self.hold = 0
                if lr > self.prev >= 0:
                    self.rise = max(self.rise, lr - self.prev)
        elif p < lr <= JUMP_FACTOR * p or p <= 0 < lr:
            self.peak = lr
        self.prev = lr

    def _stair(self, lr: float) -> bool:
        prev = self.prev
        return self.rise > 0 and prev is not None and 0 <= prev < lr <= prev + STAIR_RISE * self.rise

    def update_many(self, lrs: np.ndarray) -> None:
        """``update`` for each of ``lrs``, in order: an LR holding its first value and
        strictly rising stretches of the ramp at once, its other records one by one,
        then only the LRs above the peak. O(len) numpy work per call (a constant LR,
        which never ends a ramp, was a numpy pass over the rest of the column per record)."""
        if self.done and lrs.size:  # the usual case: one pass finds nothing above the peak
            top, last = lrs.max(), lrs[-1]
            if top <= self.peak and math.isfinite(last):  # (a NaN max fails the test)
                self.prev = float(last)
                return
        v: np.ndarray | None = lrs[np.isfinite(lrs)]
        while v is not None and v.size:
            v = self._many(v)

    def _many(self, v: np.ndarray) -> np.ndarray | None:
        """``update_many`` of finite LRs, up to the next stair of a ramp that ended by a hold (its
        LRs after that stair are returned, to go on with: a loop, not a recursion), else None."""
        i, n = 0, v.size
        if n and self.peak is None:
            self.update(float(v[0]))
            i = 1
        if i < n and not self.done:
            assert self.peak is not None  # (the first finite LR set it)
            if not self.rose:
                # an LR at its first value (the peak: it never rose) only resets the hold
                # count and becomes ``prev``, however many records hold it
                other = np.flatnonzero(v[i:] != self.peak)
                skip = int(other[0]) if other.size else n - i
                if skip:
                    self.hold, self.prev = 0, self.peak
                    i += skip
                if i >= n:
                    return None
            # where the LR does not rise above the one before it (the previous record's,
            # ``prev`` for the first): fixed by the column, whatever is processed before
            prev = np.empty(n - i)
            prev[0] = self.prev
            prev[1:] = v[i : n - 1]
            stops = np.flatnonzero(v[i:] <= prev) + i
            k = 0
            while i < n and not self.done:
                while k < stops.size and stops[k] < i:
                    k += 1
                j = int(stops[k]) if k < stops.size else n
                if j > i:  # a strictly rising stretch of the ramp only raises the peak
                    top = float(v[j - 1])
                    if self.prev is not None and top > 0:
                        before = np.concatenate(([self.prev], v[i : j - 1]))
                        d = (v[i:j] - before)[before >= 0]  # (rises from an LR >= 0, as update takes them)
                        if d.size:
                            self.rise = max(self.rise, float(d.max()))
                    if top > self.peak:
                        self.peak = top
                        self.rose = True
                    self.prev, self.hold, i = top, 0, j
                    continue
                self.update(float(v[i]))
                i += 1
        if i >= n:
            return None
        rest = v[i:]
        assert self.peak is not None  # (the first finite LR set it)
        for k in np.flatnonzero(rest > self.peak).tolist():
            x = float(rest[k])
            if self.held and x > JUMP_FACTOR * self.peak:
                self.prev = float(rest[k - 1]) if k else self.prev
                if self._stair(x):
                    # the next stair of a ramp that ended by a hold: the ramp goes on from here
                    self.update(x)
                    return rest[k + 1 :]
            if self.peak < x <= JUMP_FACTOR * self.peak or self.peak <= 0 < x:
                self.peak = x
        self.prev = float(rest[-1])
        return None
