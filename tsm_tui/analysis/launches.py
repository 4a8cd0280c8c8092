"""One file, several launches: each launch a segment, the checks on the last run.

Smoke tests, crashed attempts, resumes and new runs end up appended to one Slurm
``.out``. A launch boundary is a record whose step goes back (below the last step
seen), or the first record after a launch banner (``sources.launches``: an
argument dump, a start banner, a traceback). What the new launch is:

- **new run**: its step restarted at the beginning (within one logging interval of
  the first step of the series judged so far, or at step 0/1) and its loss is
  fresh: the median of its first ``LEVEL_N`` losses (not its first loss alone: a new
  job's first batches can sit anywhere, fresh4's Sharpe-loss job 2 began at -0.076,
  -0.090, then 0.106) nearer (in log space) to the level the series started at (median
  of its first ``LEVEL_N`` losses) than to the level it had reached (median of its last
  ``LEVEL_N``). The decision waits for those losses (``pending``: at most ``PENDING``
  records, or the end of the input); the Monitor holds the launch's records until then.
  Nothing was resumed: the checks judge the new run alone, and the launches before it
  are reported as segments;
- **resume**: the step went back but not to a fresh start (a checkpoint was
  loaded, or the step counter restarted with the loss where it was): the run
  goes on, the checks judge the resumed whole (the Monitor's resume);
- **continue**: a banner, and the steps go on past the last one (a resume after
  a crash between two log lines): the same series.

Memory: at most ``MAX_LAUNCHES`` segments kept (the first and the newest), the
others counted.
"""

from __future__ import annotations

import math
from collections import deque
from statistics import median

from tsm_tui.core.frame import is_resume
from tsm_tui.core.record import StepRecord

LEVEL_N = 5  # losses at a series' start and end whose median is its level (ours: trainproof's dead-run rule uses 5)
MAX_LAUNCHES = 64  # launch segments kept (ours)
#: records a launch that restarted at the beginning is held for its first LEVEL_N losses
#: (ours: a launch that logs no loss in its first records is decided on what it has)
PENDING = 4 * LEVEL_N


def _dist(a: float, b: float) -> float:
    if a > 0 and b > 0:
        return abs(math.log(a / b))
    return abs(a - b)


class Launches:
    def __init__(self) -> None:
        #: the file's launch segments: first / last step, records, kind
        self.segments: list[dict] = []
        self.dropped = 0
        self._head: list[float] = []  # first losses of the series judged now
        self._tail: deque[float] = deque(maxlen=LEVEL_N)
        self._first: int | None = None
        self._interval = 1
        #: a launch that restarted at the beginning, waiting for its first losses: (its first
        #: record, its records so far, its finite losses so far)
        self.pending: tuple[StepRecord, list, list[float]] | None = None

    def _open(self, rec: StepRecord, kind: str) -> None:
        if len(self.segments) >= MAX_LAUNCHES:
            self.segments.pop(1)  # the first is kept (where the file started), then the newest
            self.dropped += 1
        self.segments.append({"first": rec.step, "last": rec.step, "records": 0, "kind": kind})

    def boundary(self, rec: StepRecord, last_step: int | None) -> str | None:
        """Where ``rec`` (a record with metrics) starts a new launch, its kind; else None."""
        if last_step is None:
            if not self.segments:
                self._open(rec, "start")
            return None
        if is_resume(rec.step, last_step) or (rec.launch and rec.step == last_step):
            if self._at_start(rec):
                self.pending = (rec, [rec], [])
                self.wait(rec)
                return "pending"
            kind = "resume"
        elif rec.launch:
            kind = "continue"
        else:
            return None
        self._open(rec, kind)
        return kind

    def _at_start(self, rec: StepRecord) -> bool:
        """A launch that may be a new run: the series has start and end levels, and the step
        went back to 0/1 or to the series' first step (not a file of excerpts going back)."""
        if self._first is None or not self._head or not self._tail:
            return False
        return rec.step <= 1 or abs(rec.step - self._first) <= self._interval

    def wait(self, rec: StepRecord) -> bool:
        """One more record of the pending launch (its first included by ``boundary``); True
        when it can be decided (LEVEL_N losses, or PENDING records)."""
        assert self.pending is not None
        first, recs, losses = self.pending
        if rec is not first:
            recs.append(rec)
        if rec.loss is not None and math.isfinite(rec.loss) and len(losses) < LEVEL_N:
            losses.append(rec.loss)
        return len(losses) >= LEVEL_N or len(recs) >= PENDING

    def decide(self) -> tuple[str, list]:
        """The pending launch's kind (``new run`` when the median of its first losses is
        nearer the series' start level than its end level, else ``resume``) and its records;
        its segment opens."""
        assert self.pending is not None
        first, recs, losses = self.pending
        self.pending = None
        fresh = False
        if losses:
            m, h, t = median(losses), median(self._head), median(self._tail)
            if m > 0 and h > 0 and t > 0:  # (in log space; a signed loss on one scale, never a mix)
                fresh = _dist(m, h) <= _dist(m, t)
            else:
                fresh = abs(m - h) <= abs(m - t)
        kind = "new run" if fresh else "resume"
        self._open(first, kind)
        return kind, recs

    def new_run(self) -> None:
        """The checks start again: the levels are the new run's from here."""
        self._head, self._first, self._interval = [], None, 1
        self._tail.clear()

    def seen(self, rec: StepRecord) -> None:
        """A record with metrics fed (after ``boundary``)."""
        if not self.segments:
            self._open(rec, "start")
        seg = self.segments[-1]
        seg["records"] += 1
        if rec.step > seg["last"]:
            seg["last"] = rec.step
        loss = rec.loss
        if loss is not None and math.isfinite(loss):
            self.seen_loss(rec.step, loss)
            self._tail.append(loss)

    def seen_frame(self, steps, losses) -> None:
        """Rows of a frame (no boundary inside: the Monitor splits frames at resumes)."""
        if not self.segments:
            self._open(StepRecord(int(steps[0])), "start")
        seg = self.segments[-1]
        seg["records"] += len(steps)
        top = int(steps.max())
        if top > seg["last"]:
            seg["last"] = top
        if losses is None:
            return
        if self._first is None or len(self._head) < LEVEL_N:
            for s, v in zip(steps[: LEVEL_N + 1].tolist(), losses[: LEVEL_N + 1].tolist()):
                self.seen_loss(s, v)
        for v in losses[-LEVEL_N:].tolist():
            if math.isfinite(v):
                self._tail.append(v)

    def seen_loss(self, step: int, v: float) -> None:
        if not math.isfinite(v) or len(self._head) >= LEVEL_N:
            return
        if self._first is None:
            self._first = step
        elif len(self._head) == 1 and step > self._first:
            self._interval = step - self._first
        self._head.append(v)

    def release(self) -> None:
        """A finished run: only the segments are kept."""
        self._head = []
        self._tail = deque(maxlen=0)

    def to_json(self) -> list[dict]:
        return [dict(s) for s in self.segments]
