"""Small incremental statistics (river-style ``update`` / ``get``), O(1) or O(log W).

All windows are bounded, so detector memory never grows with the run. Each also
owns its bulk operations for the columnar path (``extend``: many updates at once;
``medians_after`` / ``rates`` / ``outputs`` / ``mean_std_after``: what ``get``
would say after feeding an array, without feeding it): detectors never reach
into a window's fields.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections import deque

import bottleneck as bn
import numpy as np


def iqm_of(ordered) -> float:
    """The interquartile mean of ``ordered`` (ascending, not empty; a list or an array): the mean of
    its middle half, exactly rounded (the same number from a record's window and a frame's). A level
    that moves smoothly where the median of a two-mode window jumps from one mode to the other."""
    n = len(ordered)
    a, b = n // 4, n - n // 4
    mid = ordered[a:b]
    return math.fsum(mid.tolist() if isinstance(mid, np.ndarray) else mid) / (b - a)


class RollingMedian:
    """Median of the last ``size`` values: a deque for order, a sorted list for rank.

    ``update`` is O(W) memmove in the worst case but W is ~100, so in practice
    it is a few hundred nanoseconds of C; no numpy call per step.
    """

    __slots__ = ("size", "_fifo", "_sorted")

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._fifo: deque[float] = deque()
        self._sorted: list[float] = []

    def update(self, x: float) -> None:
        self._fifo.append(x)
        insort(self._sorted, x)
        if len(self._fifo) > self.size:
            old = self._fifo.popleft()
            del self._sorted[bisect_left(self._sorted, old)]

    def extend(self, values) -> None:
        """``update(x)`` for each of ``values`` (a list or an array, oldest first), as one rebuild.

        Exactly the same state: ``insort`` puts a value after its equals and the
        removal takes the first equal, so equal values (0.0 / -0.0) stay in
        arrival order in ``_sorted``, which is what a stable ``sorted`` of the
        window in arrival order gives."""
        if isinstance(values, np.ndarray):
            values = values[-self.size :].tolist()
        if not values:
            return
        keep = self.size - len(values)
        vals = (list(self._fifo)[-keep:] + values) if keep > 0 and self._fifo else values[-self.size :]
        self._fifo = deque(vals)
        self._sorted = sorted(vals)

    def values(self):
        """The window, oldest first (read-only: change it through update / extend)."""
        return self._fifo

    def __len__(self) -> int:
        return len(self._fifo)

    def medians_after(self, new: np.ndarray, j: np.ndarray | None = None) -> np.ndarray:
        """``get()`` after feeding ``new[:k]``, for each ``k`` in ``j`` (ascending, 0 ..
        len(new), with at least one value in the window; default 1 .. len(new)), without
        feeding anything: the exact medians, as ``get`` computes them."""
        L0, W = len(self._fifo), self.size
        c = np.concatenate((np.fromiter(self._fifo, float, L0), new))
        if j is None and new.size * W > 2 * c.size:  # every prefix: one moving median
            return bn.move_median(c, min(W, c.size), min_count=1)[L0:]
        end = L0 + (np.arange(1, new.size + 1) if j is None else np.asarray(j))  # windows c[end - W: end]
        if not end.size:
            return np.empty(0)
        if end.size * W > 2 * c.size:  # many: one moving median over the stretch
            top = int(end[-1])
            return bn.move_median(c[:top], min(W, top), min_count=1)[end - 1]
        out = np.empty(end.size)
        full = end >= W
        if full.any():
            win = c[(end[full] - W)[:, None] + np.arange(W)]
            h = W // 2
            if W % 2:
                out[full] = np.partition(win, h, axis=1)[:, h]
            else:
                part = np.partition(win, (h - 1, h), axis=1)
                out[full] = 0.5 * (part[:, h - 1] + part[:, h])
        if not full.all():  # a window not full yet
            out[~full] = bn.move_median(c[:W], min(W, c.size), min_count=1)[end[~full] - 1]
        return out

    def sorted_values(self) -> list[float]:
        """The window in ascending order (read-only)."""
        return self._sorted

    def iqm(self) -> float | None:
        """The mean of the window's middle half (``iqm_of``); None while it is empty."""
        return iqm_of(self._sorted) if self._sorted else None

    def get(self) -> float | None:
        n = len(self._sorted)
        if not n:
            return None
        mid = n // 2
        if n % 2:
            return self._sorted[mid]
        return 0.5 * (self._sorted[mid - 1] + self._sorted[mid])

    def quantile(self, q: float) -> float | None:
        n = len(self._sorted)
        if not n:
            return None
        return self._sorted[min(n - 1, max(0, int(q * (n - 1) + 0.5)))]

    def clear(self) -> None:
        self._fifo.clear()
        self._sorted.clear()


def median(xs) -> float:
    """The median of a non-empty sequence (the mean of the middle two for an even count)."""
    srt = sorted(xs)
    k = len(srt)
    return srt[k // 2] if k % 2 else 0.5 * (srt[k // 2 - 1] + srt[k // 2])


def diff_spread(v) -> tuple[float, float]:
    """(median, 1.4826 x MAD) of a series' first differences: its trend per step and the robust
    spread of its steps about it. ``v`` needs at least 2 values."""
    d = [b - a for a, b in zip(v, v[1:])]
    m = median(d)
    return m, 1.4826 * median([abs(e - m) for e in d])


def diff_sd(v) -> float:
    """The noise of a series free of its trend and of its outliers: 1.4826 x the MAD of
    its first differences / sqrt 2 (the sd of i.i.d. noise; a slow trend moves the
    differences' median, not their spread, and a spike is one or two outlying
    differences the MAD ignores). ``v`` needs at least 2 values."""
    return diff_spread(v)[1] / math.sqrt(2.0)


def mean_std(xs) -> tuple[float, float]:
    """Mean and population std of ``xs``, exactly rounded (math.fsum, two passes):
    the same numbers whatever order or path (per record or columnar) fed them."""
    n = len(xs)
    if not n:
        return 0.0, 0.0
    m = math.fsum(xs) / n
    if n < 2:
        return m, 0.0
    return m, math.sqrt(math.fsum([(x - m) * (x - m) for x in xs]) / n)


class RollingMoments:
    """Mean and population std of the last ``size`` values.

    ``update`` only appends (O(1)); the moments are computed from the window when
    asked (O(W)), which detectors do only for a candidate event (a value already
    past a ratio test), so the common path pays nothing and the result does not
    drift the way running sums do.
    """

    __slots__ = ("size", "_fifo", "_moments")
    #: slots that only cache what the others determine (state comparisons skip them)
    DERIVED = ("_moments",)

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._fifo: deque[float] = deque(maxlen=self.size)
        self._moments: tuple[float, float] | None = None  # of the window as it is (None: not computed)

    def update(self, x: float) -> None:
        self._fifo.append(x)
        self._moments = None

    def extend(self, values) -> None:
        """``update(x)`` for each of ``values``, oldest first."""
        self._fifo.extend(values[-self.size :].tolist() if isinstance(values, np.ndarray) else values)
        self._moments = None

    def moments(self) -> tuple[float, float]:
        """``mean_std`` of the window, computed once per change of the window (the rows
        of an incident, whose values stay out of it, ask again and again)."""
        m = self._moments
        if m is None:
            m = self._moments = mean_std(self._fifo)
        return m

    def values(self):
        """The window, oldest first (read-only: change it through update / extend)."""
        return self._fifo

    def __len__(self) -> int:
        return len(self._fifo)

    def mean_std_after(self, values) -> tuple[float, float]:
        """``mean_std`` of the window after feeding ``values`` (oldest first), without feeding them."""
        return mean_std((list(self._fifo) + list(values))[-self.size :])

    @property
    def mean(self) -> float:
        return self.moments()[0]

    @property
    def std(self) -> float:
        return self.moments()[1]

    def clear(self) -> None:
        self._fifo.clear()
        self._moments = None


class Delay:
    """Holds the last ``n`` values back; ``push`` returns the value that falls out."""

    __slots__ = ("n", "_q")

    def __init__(self, n: int) -> None:
        self.n = max(0, int(n))
        self._q: deque = deque()

    def push(self, x):
        if self.n == 0:
            return x
        self._q.append(x)
        if len(self._q) > self.n:
            return self._q.popleft()
        return None

    def values(self):
        """The values held back, oldest first (read-only)."""
        return self._q

    def __len__(self) -> int:
        return len(self._q)

    def extend(self, values) -> None:
        """``push(x)`` for each of ``values``, oldest first (what falls out is dropped)."""
        if self.n == 0:
            return
        vals = values[-self.n :]
        vals = vals.tolist() if isinstance(vals, np.ndarray) else list(vals)
        if len(vals) < self.n:
            vals = list(self._q)[-(self.n - len(vals)) :] + vals if self._q else vals
        self._q = deque(vals)

    def outputs(self, values: np.ndarray) -> np.ndarray:
        """What ``push`` would return for each of ``values`` (floats, oldest first), the
        Nones left out, without pushing: the values held back, then ``values``, less
        the last ``n``."""
        if self.n == 0:
            return values
        seq = np.concatenate((np.fromiter(self._q, float, len(self._q)), values))
        return seq[: max(0, seq.size - self.n)]

    def clear(self) -> None:
        self._q.clear()


class RollingRate:
    """Share of True among the last ``size`` booleans.

    The window is a bytearray of 0 / 1 (oldest first): the bulk operations read it
    as a numpy array without a loop over Python objects."""

    __slots__ = ("size", "_fifo", "_hits")

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._fifo = bytearray()
        self._hits = 0

    def update(self, hit: bool) -> None:
        f = self._fifo
        f.append(1 if hit else 0)
        self._hits += 1 if hit else 0
        if len(f) > self.size:
            self._hits -= f[0]
            del f[0]

    def extend(self, hits) -> None:
        """``update(h)`` for each of ``hits`` (bools, oldest first): the same window and count."""
        new = (
            np.asarray(hits[-self.size :], dtype=bool).tobytes()
            if isinstance(hits, np.ndarray)
            else bytes(1 if h else 0 for h in hits[-self.size :])
        )
        f = self._fifo
        f += new
        drop = len(f) - self.size
        if drop > 0:
            del f[:drop]
        self._hits = f.count(1)

    def values(self):
        """The window, oldest first, as 0 / 1 (read-only: change it through update / extend)."""
        return self._fifo

    def __len__(self) -> int:
        return len(self._fifo)

    def get(self) -> float:
        return self._hits / len(self._fifo) if self._fifo else 0.0

    def rates(self, new: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``get()`` after feeding ``new[:k]`` (bools, oldest first), for each ``k`` in ``t``
        (ascending, >= 1), without feeding anything: the running rates over an array."""
        L0, size = len(self._fifo), self.size
        cs = np.zeros(new.size + 1, dtype=np.int32)
        np.cumsum(new.view(np.uint8), dtype=np.int32, out=cs[1:])
        end = L0 + t  # the window is sequence[start:end] of "old window + new"
        start = np.maximum(0, end - size)
        hits = cs[t] - cs[np.maximum(0, start - L0)]
        if self._hits:  # the part of the old window still in it
            old = np.zeros(L0 + 1, dtype=np.int32)
            np.cumsum(np.frombuffer(bytes(self._fifo), dtype=np.uint8), dtype=np.int32, out=old[1:])
            hits += self._hits - old[np.minimum(start, L0)]
        return hits / np.minimum(end, size)

    def clear(self) -> None:
        self._fifo.clear()
        self._hits = 0


class RunningLine:
    """A least-squares line through ``(i, y)``, ``i`` = 0, 1, 2 ... the order of the
    values: its slope and the slope's standard error, from running sums (O(1) per value,
    no window; the caller bounds how long it feeds one)."""

    __slots__ = ("n", "_sy", "_sxx", "_sxy", "_syy", "_sx")

    def __init__(self) -> None:
        self.n = 0
        self._sx = self._sy = self._sxx = self._sxy = self._syy = 0.0

    def update(self, y: float) -> None:
        i = float(self.n)
        self.n += 1
        self._sx += i
        self._sy += y
        self._sxx += i * i
        self._sxy += i * y
        self._syy += y * y

    def slope(self) -> tuple[float, float] | None:
        """(slope, its standard error) of the line so far, or None below 3 values."""
        n = self.n
        if n < 3:
            return None
        sxx = self._sxx - self._sx * self._sx / n
        sxy = self._sxy - self._sx * self._sy / n
        syy = self._syy - self._sy * self._sy / n
        b = sxy / sxx
        return b, math.sqrt(max(0.0, syy - b * sxy) / (n - 2) / sxx)


class MannKendall:
    """The Mann-Kendall trend statistic of a series in arrival order (Mann 1945, Kendall
    1975): S = the pairs that rise minus the pairs that fall, and its z (a rank test: one
    wild value moves S by at most n - 1). O(log n) per value (a sorted copy, O(n) memory:
    the caller bounds how many it feeds)."""

    __slots__ = ("n", "s", "_sorted")

    def __init__(self) -> None:
        self.n = 0
        self.s = 0
        self._sorted: list[float] = []

    def update(self, x: float) -> None:
        v = self._sorted
        lo, hi = bisect_left(v, x), bisect_right(v, x)
        self.s += lo - (len(v) - hi)  # earlier values below it rise to it, those above fall
        v.insert(lo, x)
        self.n += 1

    def z(self) -> float:
        """S's z under no trend (its variance n(n-1)(2n+5)/18, ties not corrected: a tie only
        lowers the variance, so the z is conservative), with the continuity correction."""
        n, s = self.n, self.s
        if n < 3 or s == 0:
            return 0.0
        sd = math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
        return (s - 1) / sd if s > 0 else (s + 1) / sd
