"""Small incremental statistics (river-style ``update`` / ``get``), O(1) or O(log W).

All windows are bounded, so detector memory never grows with the run.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import deque
from itertools import islice


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

    def extend(self, values: list[float]) -> None:
        """``update(x)`` for each of ``values`` (oldest first), as one rebuild.

        Exactly the same state: ``insort`` puts a value after its equals and the
        removal takes the first equal, so equal values (0.0 / -0.0) stay in
        arrival order in ``_sorted``, which is what a stable ``sorted`` of the
        window in arrival order gives."""
        if not values:
            return
        keep = self.size - len(values)
        vals = (list(self._fifo)[-keep:] + values) if keep > 0 and self._fifo else values[-self.size:]
        self._fifo = deque(vals)
        self._sorted = sorted(vals)

    def values(self):
        """The window, oldest first (read-only: change it through update / extend)."""
        return self._fifo

    def __len__(self) -> int:
        return len(self._fifo)

    def sorted_values(self) -> list[float]:
        """The window in ascending order (read-only)."""
        return self._sorted

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

    __slots__ = ("size", "_fifo")

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._fifo: deque[float] = deque(maxlen=self.size)

    def update(self, x: float) -> None:
        self._fifo.append(x)

    def extend(self, values) -> None:
        """``update(x)`` for each of ``values``, oldest first."""
        self._fifo.extend(values)

    def values(self):
        """The window, oldest first (read-only: change it through update / extend)."""
        return self._fifo

    def __len__(self) -> int:
        return len(self._fifo)

    @property
    def mean(self) -> float:
        return mean_std(self._fifo)[0]

    @property
    def std(self) -> float:
        return mean_std(self._fifo)[1]

    def clear(self) -> None:
        self._fifo.clear()


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

    def replace(self, values) -> None:
        """Hold these values back instead (a bulk commit of a frame)."""
        self._q.clear()
        self._q.extend(values)

    def clear(self) -> None:
        self._q.clear()


class RollingRate:
    """Share of True among the last ``size`` booleans."""

    __slots__ = ("size", "_fifo", "_hits")

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self._fifo: deque[bool] = deque()
        self._hits = 0

    def update(self, hit: bool) -> None:
        self._fifo.append(hit)
        self._hits += hit
        if len(self._fifo) > self.size:
            self._hits -= self._fifo.popleft()

    def extend(self, hits: list[bool]) -> None:
        """``update(h)`` for each of ``hits`` (oldest first): the same window and count."""
        if len(hits) >= self.size:
            hits = hits[-self.size:]
            self._fifo = deque(hits)
            self._hits = hits.count(True)
            return
        self._fifo.extend(hits)
        self._hits += hits.count(True)
        drop = len(self._fifo) - self.size
        if drop > 0:
            self._hits -= sum(islice(self._fifo, drop))
            self._fifo = deque(islice(self._fifo, drop, None))

    def values(self):
        """The window, oldest first (read-only: change it through update / extend)."""
        return self._fifo

    def __len__(self) -> int:
        return len(self._fifo)

    def get(self) -> float:
        return self._hits / len(self._fifo) if self._fifo else 0.0

    def clear(self) -> None:
        self._fifo.clear()
        self._hits = 0
