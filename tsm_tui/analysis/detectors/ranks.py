"""Ranks of one run: the other checks run on one rank's series (the one with the
loss, the Session's primary source); every rank is watched here, cheaply, for a
rank that departs from the rest and for a straggler.

A check of the run's files together (``per_run``): the run feeds it every per-rank
log (``route``), not a source's Monitor, and it is reported only for a run with two
ranks or more (``check``: None otherwise).

Per rank: records, last step, the first non-finite loss, the median of its
last ``TAIL`` losses and the median step time (from a logged step duration,
else from the wall-clock time between records), all in bounded memory.

- NaN on some ranks only: FAIL (a rank-local fault: hardware, data shard).
- a diverging rank: its recent median loss above ``DIVERGE`` x the median of
  the ranks' (ours; the spike rule's 1.5x divergence factor).
- a straggler: a rank's median step time above ``STRAGGLER`` x the median
  over ranks (Levanter's rule, 1.15x; Megatron has a straggler detector too).
"""

from __future__ import annotations

import math
import os
import statistics
from collections import deque

import numpy as np

from tsm_tui.core.frame import Frame
from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord
from tsm_tui.sources.fields import step_time_key

TAIL = 100
DTS_KEEP = 1000  # step times kept per rank
DIVERGE = 1.5  # ours (the divergence factor of the loss-spike check)
STRAGGLER = 1.15  # Levanter: a host's step time above 1.15x the median
_dt_key = step_time_key  # (one list of step-time keys: sources/fields.py, shared with the throughput check)


class RankTracker:
    """What the ranks check needs of one rank's series, in bounded memory; Frames
    are read by column (never expanded row by row)."""

    def __init__(self, path: str, rank: int | None) -> None:
        self.path = path
        self.rank = rank
        self.records = 0
        self.last_step: int | None = None
        self.nan_step: int | None = None
        self.losses: deque[float] = deque(maxlen=TAIL)
        self.dts: deque[float] = deque(maxlen=DTS_KEEP)
        self._last_time: float | None = None
        self.loss_seen = False

    def _row(self, step: int, loss, t, dt) -> None:
        self.records += 1
        self.last_step = step if self.last_step is None else max(self.last_step, step)
        if loss is not None:
            if math.isfinite(loss):
                self.losses.append(loss)
                self.loss_seen = True
            elif self.nan_step is None:
                self.nan_step = step
        if dt is not None and math.isfinite(dt) and dt > 0:
            self.dts.append(dt)
        elif t is not None and math.isfinite(t):
            if self._last_time is not None and t > self._last_time:
                self.dts.append(t - self._last_time)
            self._last_time = t

    def update(self, item) -> None:
        if type(item) is Frame:
            self._frame(item)
            return
        r: StepRecord = item
        if r.loss is None and not r.loss_missing:
            return
        dt = None
        if r.extra:
            got = _dt_key(r.extra)
            if got is not None:
                dt = r.extra[got[0]] * got[1]
        self._row(r.step, math.nan if r.loss_missing else r.loss, r.time, dt)

    def _frame(self, fr: Frame) -> None:
        """The rows of a frame, by column: the same state as ``update`` row by row."""
        loss = fr.get("loss")
        if loss is None or fr.n == 0:
            return  # rows without a loss are not a rank's training steps
        n = fr.n
        self.records += n
        top = int(fr.step.max())
        self.last_step = top if self.last_step is None else max(self.last_step, top)
        fin = np.isfinite(loss)
        if self.nan_step is None and not fin.all():
            self.nan_step = int(fr.step[int(np.argmin(fin))])
        good = loss[fin]
        if len(good):
            self.loss_seen = True
            self.losses.extend(good[-TAIL:].tolist())
        got = _dt_key(fr.extra) if fr.extra else None
        use_dt = np.zeros(n, dtype=bool)
        if got is not None:
            assert fr.extra is not None  # (got is read from it)
            dt = fr.extra[got[0]] * got[1]
            use_dt = np.isfinite(dt) & (dt > 0)
        t = fr.get("time")
        if t is None:
            if use_dt.any():
                self.dts.extend(dt[use_dt][-DTS_KEEP:].tolist())
            return
        # rows without a usable duration take the wall-clock time since the previous such row
        tm = ~use_dt & np.isfinite(t)
        if not tm.any():
            if use_dt.any():
                self.dts.extend(dt[use_dt][-DTS_KEEP:].tolist())
            return
        idx = np.flatnonzero(tm)
        tv = t[idx]
        prev = np.empty_like(tv)
        prev[1:] = tv[:-1]
        prev[0] = self._last_time if self._last_time is not None else np.nan
        with np.errstate(invalid="ignore"):
            d = tv - prev
            ok = d > 0  # (NaN: no earlier time)
        self._last_time = float(tv[-1])
        vals = np.full(n, np.nan)
        if got is not None:
            vals[use_dt] = dt[use_dt]
        vals[idx[ok]] = d[ok]
        keep = vals[~np.isnan(vals)]
        self.dts.extend(keep[-DTS_KEEP:].tolist())

    @property
    def name(self) -> str:
        return f"rank {self.rank}" if self.rank is not None else os.path.basename(self.path)


class RanksDetector(Detector):
    """The per-rank files of one run: each rank's tracker, and which ranks' records
    go to the run's Session. The checks run on one rank's series: the first rank
    read is fed to the Session, and the next ones only until a rank with a loss
    has been (Megatron prints the loss on the last pipeline stage only); every
    other rank costs a RankTracker, not nine detectors."""

    id = "ranks"
    title = "Ranks"
    short = "ranks"
    order = 130
    urgency = 30
    per_run = True

    def __init__(self, ranks: dict[str, int | None] | None = None) -> None:
        # (no Settings nor RunState: its thresholds are this module's, its state the trackers')
        self.trackers = {p: RankTracker(p, r) for p, r in (ranks or {}).items()}
        self.fed: list[str] = []
        self._fed_loss = False

    def __contains__(self, path: str) -> bool:
        return path in self.trackers

    def add(self, path: str, rank: int | None) -> None:
        if path not in self.trackers:
            self.trackers[path] = RankTracker(path, rank)

    def route(self, path: str, items) -> bool:
        """Track ``items`` of rank file ``path``; True when they go to the Session too."""
        t = self.trackers[path]
        for it in items:
            t.update(it)
        if path not in self.fed:
            if self._fed_loss:
                return False
            self.fed.append(path)
        if t.loss_seen:
            self._fed_loss = True
        return True

    def update(self, rec: StepRecord) -> list[Alert]:
        raise TypeError("the ranks check is fed per rank file: route(path, items)")

    def check(self) -> tuple[CheckResult, list[tuple[Alert, str]]] | None:
        """The ranks check and its alerts, each with the rank it names (None: one rank)."""
        if len(self.trackers) < 2:
            return None
        return summarize(list(self.trackers.values()))

    def result(self) -> CheckResult:
        """The check (SKIP with one rank: the run does not report it then, ``check``)."""
        got = self.check()
        return got[0] if got is not None else self._result(Status.SKIP, "fewer than two ranks read")


def summarize(trackers: list[RankTracker]) -> tuple[CheckResult, list[tuple[Alert, str]]]:
    """The ranks check: departures and stragglers among the ranks read, each alert
    with the rank(s) it is about (the live loop says a departure once per rank)."""
    n = len(trackers)
    subjects: list[str] = []
    alerts: list[Alert] = []
    problems: list[str] = []
    status = Status.PASS
    nan = [t for t in trackers if t.nan_step is not None]
    if nan and len(nan) < n:
        status = Status.FAIL
        first = min(nan, key=lambda t: t.nan_step if t.nan_step is not None else 0)  # (all set: filtered above)
        names = ", ".join(t.name for t in nan[:4]) + (f" +{len(nan) - 4}" if len(nan) > 4 else "")
        problems.append(f"NaN on {names} only (first at step {first.nan_step})")
        alerts.append(
            Alert(
                RanksDetector.id,
                Severity.CRITICAL,
                first.nan_step,
                f"Non-finite loss on {names} at step {first.nan_step} while the other "
                f"{n - len(nan)} rank(s) stay finite: a rank-local fault (a GPU, a node, a data shard).",
                actions=[
                    f"Check the node and GPU of {first.name} (ECC errors, thermal throttling, "
                    "NCCL errors in its log) and its data shard; restart without that node."
                ],
                key="rank_nan",
            )
        )
        subjects.append(names)
    meds = [statistics.median(t.losses) for t in trackers if t.losses]
    if len(meds) >= 2:
        centre = statistics.median(meds)
        far = [t for t in trackers if t.losses and centre > 0 and statistics.median(t.losses) > DIVERGE * centre]
        if far:
            status = max(status, Status.WARN, key=lambda s: s.rank)
            t = far[0]
            v = statistics.median(t.losses)
            problems.append(f"{t.name} diverges ({fmt(v)} vs {fmt(centre)})")
            alerts.append(
                Alert(
                    RanksDetector.id,
                    Severity.WARNING,
                    t.last_step,
                    f"{t.name} departs from the other ranks: recent loss {fmt(v)} vs the ranks' "
                    f"median {fmt(centre)} ({v / centre:.1f}x).",
                    value=v,
                    baseline=centre,
                    actions=[
                        f"Compare {t.name}'s data shard and hardware with the others; a rank "
                        "that trains on different data or with a faulty GPU drifts apart."
                    ],
                    key="rank_diverge",
                )
            )
            subjects.append(t.name)
    steps = [statistics.median(t.dts) for t in trackers if len(t.dts) >= 5]
    if len(steps) >= 2:
        centre = statistics.median(steps)
        slow = [t for t in trackers if len(t.dts) >= 5 and statistics.median(t.dts) > STRAGGLER * centre]
        if slow:
            status = max(status, Status.WARN, key=lambda s: s.rank)
            t = max(slow, key=lambda t: statistics.median(t.dts))
            v = statistics.median(t.dts)
            problems.append(f"{t.name} straggles ({v / centre:.2f}x the median step time)")
            alerts.append(
                Alert(
                    RanksDetector.id,
                    Severity.WARNING,
                    t.last_step,
                    f"Straggler: {t.name}'s median step time {fmt(v)} s is {v / centre:.2f}x the ranks' "
                    f"median {fmt(centre)} s (Levanter flags > 1.15x); every step waits for it.",
                    value=v,
                    baseline=centre,
                    actions=[
                        f"Check {t.name}'s node (thermal throttling, a slow disk or NIC, another "
                        "job on it) or exclude it."
                    ],
                    key="rank_straggler",
                )
            )
            subjects.append(t.name)
    summary = f"{n} ranks read" + (": " + "; ".join(problems) if problems else ", none departs from the rest")
    return CheckResult(RanksDetector.id, RanksDetector.title, status, summary), list(zip(alerts, subjects))
