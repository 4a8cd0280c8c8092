"""Bounded per-metric series for the live plots.

A run can log millions of steps; the views need a few hundred columns. Each
metric is kept as a multi-resolution bucket array:

* level 0 holds the last ``cap`` points as they came (one bucket per record);
* level k+1 holds buckets that merge two adjacent level-k buckets, again at
  most ``cap`` of them. Level k+1 is created (from level k's contents) the
  moment level k is about to lose its oldest bucket, so the coarsest level
  always covers the whole run.

Each bucket keeps its step range, min, max and last value, so downsampling to
a widget's width keeps spikes (min/max per column, never a plain mean).
Appending is O(1) amortised (each record takes part in one merge per level, a
geometric series); memory is ``cap`` buckets per level and there are
log2(records / cap) + 1 levels at most.

A resumed run (the step goes backwards) drops the superseded tail: every
bucket that reaches the resume step is discarded at every level.

Non-finite values (NaN/Inf) are not folded into min/max; a bucket counts them
(``bad``) so the views can mark where they happened.

No UI imports here: plain Python, and numpy for the bulk path (``Series.extend``).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

DEFAULT_CAP = 1024
BULK_MIN = 64  # fewer values than this: append one by one (numpy's per-call cost is higher)

# bucket layout (a list, for speed): [lo_step, hi_step, vmin, vmax, last, bad]
_LO, _HI, _MIN, _MAX, _LAST, _BAD = range(6)


def _merge(a: list, b: list) -> list:
    mn = a[_MIN] if b[_MIN] is None else (b[_MIN] if a[_MIN] is None else min(a[_MIN], b[_MIN]))
    mx = a[_MAX] if b[_MAX] is None else (b[_MAX] if a[_MAX] is None else max(a[_MAX], b[_MAX]))
    last = b[_LAST] if b[_LAST] is not None else a[_LAST]
    return [a[_LO], b[_HI], mn, mx, last, a[_BAD] + b[_BAD]]


class _Level:
    __slots__ = ("buckets", "pending", "dropped")

    def __init__(self, cap: int) -> None:
        self.buckets: deque[list] = deque(maxlen=cap)
        self.pending: list | None = None  # first half of a pair waiting for its partner
        self.dropped = False  # has lost buckets off its left end


@dataclass
class Window:
    """A downsampled view: one column per entry (None where no data fell)."""

    lo: int
    hi: int
    steps: list[float] = field(default_factory=list)  # column centre (step)
    mins: list[float | None] = field(default_factory=list)
    maxs: list[float | None] = field(default_factory=list)
    lasts: list[float | None] = field(default_factory=list)
    bad: list[int] = field(default_factory=list)  # non-finite values in the column

    def __len__(self) -> int:
        return len(self.steps)

    def values(self) -> list[float]:
        """Finite values present (maxima and minima)."""
        out = [v for v in self.maxs if v is not None]
        out += [v for v in self.mins if v is not None]
        return out


class Series:
    """One metric: multi-resolution min/max buckets over steps."""

    def __init__(self, cap: int = DEFAULT_CAP) -> None:
        if cap < 4 or cap % 2:
            raise ValueError("cap must be an even number >= 4")
        self.cap = cap
        self.levels: list[_Level] = [_Level(cap)]
        self.count = 0  # values appended (after truncations)
        self.first_step: int | None = None
        self.last_step: int | None = None
        self.last: float | None = None  # last value (finite or not)
        self.vmin: float | None = None  # over the retained history
        self.vmax: float | None = None
        self.version = 0  # bumped by every change: the views redraw only when it moved

    # ------------------------------------------------------------------ write
    def append(self, step: int, value: float) -> None:
        self.version += 1
        if self.last_step is not None and step < self.last_step:
            self.truncate(step)
        finite = math.isfinite(value)
        v = value if finite else None
        b = [step, step, v, v, v, 0 if finite else 1]
        self._push(0, b)
        self.count += 1
        if self.first_step is None:
            self.first_step = step
        self.last_step = step
        self.last = value
        if finite:
            if self.vmin is None or value < self.vmin:
                self.vmin = value
            if self.vmax is None or value > self.vmax:
                self.vmax = value

    # ------------------------------------------------------------------ bulk write
    # ``extend`` gives exactly the state of ``append`` called for each value in
    # turn (tests/views/tui/test_app_series.py compares every bucket), in O(n) numpy work
    # plus at most ``cap`` bucket lists per level: a level's final content and
    # what it sends up depend only on the stream of buckets it receives, so the
    # streams are built level by level as arrays (pairs merged with the same
    # rules as ``_merge``; None is NaN here, which a bucket never holds).
    def extend(self, steps, values) -> None:
        """Append many values whose steps never go back (numpy arrays or lists)."""
        st = np.asarray(steps, dtype=np.int64)
        raw = np.asarray(values, dtype=np.float64)
        n = st.size
        if not n:
            return
        self.version += 1
        if n < BULK_MIN or (self.last_step is not None and st[0] < self.last_step) or (st[1:] < st[:-1]).any():
            for step, v in zip(st.tolist(), raw.tolist()):
                self.append(step, v)
            return
        fin = np.isfinite(raw)
        v = np.where(fin, raw, np.nan)
        self._push_many(0, (st, st, v, v, v, (~fin).astype(np.int64)))
        self.count += n
        if self.first_step is None:
            self.first_step = int(st[0])
        self.last_step = int(st[-1])
        self.last = float(raw[-1])
        if fin.any():
            fv = raw[fin]
            lo, hi = fv[int(np.argmin(fv))], fv[int(np.argmax(fv))]  # first of equals, as the loop keeps
            if self.vmin is None or lo < self.vmin:
                self.vmin = float(lo)
            if self.vmax is None or hi > self.vmax:
                self.vmax = float(hi)

    def _push_many(self, k: int, S: tuple) -> None:
        m = S[0].size
        if not m:
            return
        lvl = self.levels[k]
        if k + 1 == len(self.levels):
            room = self.cap - len(lvl.buckets)
            if m <= room:
                lvl.buckets.extend(_rows(S))
                return
            lvl.buckets.extend(_rows(tuple(a[:room] for a in S)))
            self._grow(k)  # the level is full and loses its oldest bucket next: as _push
            S = tuple(a[room:] for a in S)
            m = S[0].size
        if len(lvl.buckets) + m > self.cap:
            lvl.dropped = True
        lvl.buckets.extend(_rows(tuple(a[max(0, m - self.cap) :] for a in S)))
        # pair up for level k + 1, starting with the bucket waiting for its partner
        if lvl.pending is not None:
            S = tuple(np.concatenate(([x], a)) for x, a in zip(_cols(lvl.pending), S))
            m += 1
        even = m - m % 2
        lvl.pending = _rows(tuple(a[even:] for a in S))[0] if m % 2 else None
        if even:
            self._push_many(k + 1, _merge_pairs(tuple(a[:even] for a in S)))

    def _push(self, k: int, b: list) -> None:
        lvl = self.levels[k]
        if len(lvl.buckets) == self.cap:
            if k + 1 == len(self.levels):
                self._grow(k)
            lvl.dropped = True
        lvl.buckets.append(b)
        if k + 1 < len(self.levels):
            if lvl.pending is None:
                lvl.pending = b
            else:
                merged = _merge(lvl.pending, b)
                lvl.pending = None
                self._push(k + 1, merged)

    def _grow(self, k: int) -> None:
        """Level k is full and has the whole history: build level k+1 from it."""
        lvl = self.levels[k]
        up = _Level(self.cap)
        items = list(lvl.buckets)
        for i in range(0, len(items) - 1, 2):
            up.buckets.append(_merge(items[i], items[i + 1]))
        lvl.pending = items[-1] if len(items) % 2 else None
        self.levels.append(up)

    def truncate(self, step: int) -> None:
        """A resume at ``step``: forget everything at or after it."""
        self.version += 1
        for lvl in self.levels:
            bs = lvl.buckets
            while bs and bs[-1][_HI] >= step:
                bs.pop()
            if lvl.pending is not None and lvl.pending[_HI] >= step:
                lvl.pending = None
        # drop empty upper levels (keep level 0)
        while len(self.levels) > 1 and not self.levels[-1].buckets and not self.levels[-2].dropped:
            self.levels.pop()
            self.levels[-1].pending = None
        tails = [lvl.buckets[-1] for lvl in self.levels if lvl.buckets]
        if tails:
            newest = max(tails, key=lambda b: b[_HI])
            self.last_step, self.last = newest[_HI], newest[_LAST]
            self.first_step = min(lvl.buckets[0][_LO] for lvl in self.levels if lvl.buckets)
        else:
            self.last_step = self.first_step = self.last = None
        if not self.levels[0].dropped:
            self.count = len(self.levels[0].buckets)
        self._recompute_range()

    def _recompute_range(self) -> None:
        top = self.levels[-1].buckets
        mins = [b[_MIN] for b in top if b[_MIN] is not None]
        maxs = [b[_MAX] for b in top if b[_MAX] is not None]
        self.vmin = min(mins) if mins else None
        self.vmax = max(maxs) if maxs else None

    # ------------------------------------------------------------------ read
    def _level_for(self, lo: int) -> _Level:
        for lvl in self.levels:
            if not lvl.dropped or (lvl.buckets and lvl.buckets[0][_LO] <= lo):
                return lvl
        return self.levels[-1]

    def _buckets(self, lo: int, hi: int) -> list[list]:
        """Buckets covering lo..hi: the finest level that reaches back to lo,
        then the newer buckets of finer levels (upper levels lag by a pending
        pair at each level below them)."""
        k = self.levels.index(self._level_for(lo))
        bs = self.levels[k].buckets
        start = _bisect_hi(bs, lo)
        out = [bs[i] for i in range(start, len(bs)) if bs[i][_LO] <= hi] if start < len(bs) else []
        cur = out[-1][_HI] if out else (bs[-1][_HI] if bs else lo - 1)
        for j in range(k - 1, -1, -1):
            fine = self.levels[j].buckets
            tail = []
            for b in reversed(fine):
                if b[_HI] <= cur:
                    break
                tail.append(b)
            for b in reversed(tail):
                if b[_LO] > cur and lo <= b[_HI] and b[_LO] <= hi:
                    out.append(b)
            if tail:
                cur = max(cur, tail[0][_HI])
        return out

    def memory_buckets(self) -> int:
        return sum(len(lvl.buckets) for lvl in self.levels)

    def window(self, lo: int | None, hi: int | None, columns: int) -> Window:
        """Downsample steps ``lo..hi`` (None: the run's ends) to ``columns`` columns."""
        if self.last_step is None or columns <= 0:
            return Window(lo or 0, hi or 0)
        first = self.first_step if self.first_step is not None else 0
        if self.levels[-1].buckets:
            first = self.levels[-1].buckets[0][_LO]
        lo = first if lo is None else max(lo, first)
        hi = self.last_step if hi is None else hi
        if hi < lo:
            hi = lo
        bs = self._buckets(lo, hi)
        span = hi - lo + 1
        ncol = min(columns, span)
        win = Window(lo, hi)
        mins: list[float | None] = [None] * ncol
        maxs: list[float | None] = [None] * ncol
        lasts: list[float | None] = [None] * ncol
        bad = [0] * ncol
        scale = ncol / span
        for b in bs:
            mid = (b[_LO] + b[_HI]) * 0.5
            c = int((mid - lo) * scale)
            if c < 0:
                c = 0
            elif c >= ncol:
                c = ncol - 1
            bmn, bmx = b[_MIN], b[_MAX]
            if bmn is not None:
                m = mins[c]
                if m is None or bmn < m:
                    mins[c] = bmn
                m = maxs[c]
                if m is None or bmx > m:
                    maxs[c] = bmx
                lasts[c] = b[_LAST]
            bad[c] += b[_BAD]
        win.steps = [lo + (c + 0.5) / scale for c in range(ncol)]
        win.mins, win.maxs, win.lasts, win.bad = mins, maxs, lasts, bad
        return win


def _merge_pairs(S: tuple) -> tuple:
    """``_merge`` of buckets 0+1, 2+3, ... of a stream of bucket columns."""
    lo, hi, mn, mx, last, bad = S
    amn, bmn, amx, bmx = mn[0::2], mn[1::2], mx[0::2], mx[1::2]
    return (
        lo[0::2],
        hi[1::2],
        np.where(np.isnan(amn) | (bmn < amn), bmn, amn),  # min(a, b) keeps a on ties
        np.where(np.isnan(amx) | (bmx > amx), bmx, amx),
        np.where(np.isnan(last[1::2]), last[0::2], last[1::2]),
        bad[0::2] + bad[1::2],
    )


def _cols(b: list) -> tuple:
    return tuple(np.nan if x is None else x for x in b)


def _rows(S: tuple) -> list[list]:
    """Bucket lists from bucket columns (NaN -> None)."""
    lo, hi, mn, mx, last, bad = S
    out = []
    for a in (mn, mx, last):
        vals = a.tolist()
        if np.isnan(a).any():
            vals = [None if x != x else x for x in vals]
        out.append(vals)
    return list(map(list, zip(lo.tolist(), hi.tolist(), out[0], out[1], out[2], bad.tolist())))


def _bisect_hi(bs: deque, lo: int) -> int:
    a, b = 0, len(bs)
    while a < b:
        m = (a + b) // 2
        if bs[m][_HI] < lo:
            a = m + 1
        else:
            b = m
    return a


class SeriesStore:
    """The series of one run, by metric name."""

    #: the metrics the views know, in display order: (name, label)
    METRICS = (
        ("loss", "loss"),
        ("grad_norm", "grad norm"),
        ("lr", "lr"),
        ("loss_scale", "loss scale"),
        ("throughput", "tokens/s"),
    )
    _THROUGHPUT_KEYS = (
        "tokens_per_sec",
        "tokens_per_second",
        "tok/s",
        "tokens/s",
        "throughput",
        "train_tokens_per_second",
        "samples_per_second",
        "train_samples_per_second",
        "tflops",
        "mfu",
    )

    def __init__(self, cap: int = DEFAULT_CAP) -> None:
        self.cap = cap
        self.series: dict[str, Series] = {}
        self.last_step: int | None = None
        self.first_step: int | None = None
        self.resumes = 0

    def get(self, name: str) -> Series | None:
        return self.series.get(name)

    @property
    def version(self) -> tuple:
        """Changes whenever any series changed (the views compare it)."""
        return tuple(s.version for s in self.series.values())

    def names(self) -> list[str]:
        """Metrics with data, in display order (loss, grad norm, lr are always listed)."""
        out = [n for n, _ in self.METRICS[:3]]
        out += [n for n, _ in self.METRICS[3:] if n in self.series]
        return out

    def _add(self, name: str, step: int, value: float) -> None:
        self._series(name).append(step, value)

    def add(self, rec) -> None:
        """One StepRecord (anything with step/loss/grad_norm/lr/loss_scale/extra)."""
        step = rec.step
        if self.last_step is not None and step < self.last_step and _has_metric(rec):
            self.resumes += 1
            for s in self.series.values():
                s.truncate(step)
            self.last_step = step
        if rec.loss is not None:
            self._add("loss", step, rec.loss)
        if rec.grad_norm is not None:
            self._add("grad_norm", step, rec.grad_norm)
        if rec.lr is not None:
            self._add("lr", step, rec.lr)
        if rec.loss_scale is not None:
            self._add("loss_scale", step, rec.loss_scale)
        tp = throughput_of(rec)
        if tp is not None:
            self._add("throughput", step, tp)
        if _has_metric(rec):
            if self.first_step is None:
                self.first_step = step
            if self.last_step is None or step > self.last_step:
                self.last_step = step

    def extend(self, recs) -> None:
        for r in recs:
            self.add(r)

    def add_frame(self, fr) -> None:
        """The rows of a Frame (tsm_tui.core.frame), exactly as ``add`` would take them one
        by one, without building a StepRecord per row: each metric's column goes
        into its series in one loop. A frame whose steps go back anywhere (a
        resume truncates the series) goes row by row."""
        n = fr.n
        if not n:
            return
        steps = fr.step
        if (
            (steps[1:] < steps[:-1]).any()
            or any(s.last_step is not None and steps[0] < s.last_step for s in self.series.values())
            or (self.last_step is not None and steps[0] < self.last_step)
        ):
            for i in range(n):
                self.add(fr.record(i))
            return
        metrics = [name for name in ("loss", "grad_norm", "lr", "loss_scale") if name in fr.cols]
        for name in metrics:
            self._series(name).extend(steps, fr.cols[name])
        key = _throughput_key(fr.extra) if fr.extra else None
        if key is not None:
            self._series("throughput").extend(steps, fr.extra[key])
        if metrics:  # (what _has_metric says of every row)
            if self.first_step is None:
                self.first_step = int(steps[0])
            if self.last_step is None or steps[-1] > self.last_step:
                self.last_step = int(steps[-1])

    def _series(self, name: str) -> Series:
        s = self.series.get(name)
        if s is None:
            s = self.series[name] = Series(self.cap)
        return s


def _has_metric(rec) -> bool:
    return rec.loss is not None or rec.grad_norm is not None or rec.lr is not None or rec.loss_scale is not None


def throughput_of(rec) -> float | None:
    ex = rec.extra
    k = _throughput_key(ex) if ex else None
    return ex[k] if k is not None else None


def _throughput_key(extra: dict) -> str | None:
    """Which of a record's extra values is its throughput (a record's ``extra``, or a
    Frame's, whose values are columns)."""
    for k in SeriesStore._THROUGHPUT_KEYS:
        if extra.get(k) is not None:
            return k
    for k in extra:  # "perf/tokens_per_sec", "throughput/tok_s" ...
        kl = k.lower()
        if "tok" in kl and ("/s" in kl or "per_s" in kl or "sec" in kl):
            return k
    return None
