"""Distinct steps, counted in bounded memory.

A log's steps usually rise at a constant interval; resumes, launches appended to
one file and files of excerpts go back over steps already seen, and only the
steps not seen before count (``steps.count`` of the report). ``StepSet`` keeps
the steps as runs of one stride (``lo, lo + stride, ..., hi``): 10M steps logged
at any constant interval are one run, a resume that repeats steps costs a lookup
(bisection) and adds nothing. Irregular steps cost a run each; past ``MAX_RUNS``
runs the set stops growing and counts only steps past the highest one seen (the
count is then a lower bound, said by ``exact``).
"""

from __future__ import annotations

import bisect

import numpy as np

MAX_RUNS = 1 << 16  # runs kept (~3 ints each; ours: a few MB at most)


class StepSet:
    __slots__ = ("lo", "hi", "st", "count", "exact")

    def __init__(self) -> None:
        self.lo: list[int] = []  # first step of each run, ascending; runs are disjoint
        self.hi: list[int] = []  # last step of each run
        self.st: list[int] = []  # stride (0: a run of one step)
        self.count = 0
        self.exact = True

    @property
    def top(self) -> int | None:
        return self.hi[-1] if self.hi else None

    def __contains__(self, s: int) -> bool:
        i = bisect.bisect_right(self.lo, s) - 1
        if i < 0 or s > self.hi[i]:
            return False
        st = self.st[i]
        return s == self.lo[i] if st == 0 else (s - self.lo[i]) % st == 0

    def _append(self, first: int, last: int, st: int, n: int) -> None:
        """Steps ``first, first + st, ..., last`` (``n`` of them), all past the top."""
        self.count += n
        if self.hi:
            gap = first - self.hi[-1]
            if self.st[-1] == 0 and (n == 1 or gap == st):
                self.st[-1] = gap
                self.hi[-1] = last
                return
            if gap == self.st[-1] and (n == 1 or st == gap):
                self.hi[-1] = last
                return
            if len(self.lo) >= MAX_RUNS:
                self.exact = False
                self.lo[-1], self.hi[-1], self.st[-1] = self.lo[-1], last, 1  # (membership is lost here)
                return
        self.lo.append(first)
        self.hi.append(last)
        self.st.append(st if n > 1 else 0)

    def add(self, s: int) -> bool:
        """Add one step; True if it was not there."""
        if not self.hi or s > self.hi[-1]:
            self._append(s, s, 0, 1)
            return True
        if not self.exact or s in self:
            return False
        i = bisect.bisect_right(self.lo, s) - 1
        if i >= 0 and s < self.hi[i]:  # between two points of run i: split it around s
            lo, hi, st = self.lo[i], self.hi[i], self.st[i]
            k = (s - lo) // st
            self.hi[i], self.st[i] = lo + k * st, st if k else 0
            right = lo + (k + 1) * st
            self.lo.insert(i + 1, right)
            self.hi.insert(i + 1, hi)
            self.st.insert(i + 1, st if right < hi else 0)
        self.lo.insert(i + 1, s)
        self.hi.insert(i + 1, s)
        self.st.insert(i + 1, 0)
        self.count += 1
        if len(self.lo) > MAX_RUNS:
            self.exact = False
        return True

    def add_array(self, steps: np.ndarray) -> int:
        """Add steps in log order; the number that were new."""
        n = len(steps)
        if n == 0:
            return 0
        before = self.count
        top = self.top
        a = steps.astype(np.int64, copy=False)
        if n > 1:
            d = np.diff(a)
            rising = bool((d > 0).all())
        else:
            d, rising = a[:0], True
        if rising and (top is None or int(a[0]) > top):
            # the usual case: a rising stretch past everything seen, as runs of one stride
            cut = np.flatnonzero(d[1:] != d[:-1]) + 1 if n > 2 else np.empty(0, dtype=np.int64)
            bounds = [0] + cut.tolist() + [n - 1]
            self._append(int(a[0]), int(a[0]), 0, 1)
            for b0, b1 in zip(bounds, bounds[1:]):
                if b1 > b0:
                    self._append(int(a[b0 + 1]), int(a[b1]), int(d[b0]), b1 - b0)
            return self.count - before
        for s in a.tolist():
            self.add(s)
        return self.count - before
