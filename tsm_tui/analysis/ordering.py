"""Two writers in one file: duplicates dropped, stray lines told from resumes.

When two ranks write the same log (both print every line, interleaved in whatever
order their buffers flush), a record comes twice and the steps seem to go back at
every flush. Per source, before its Monitor:

- a record identical (every field) to the last one delivered for its step, among
  the last ``RECENT`` steps, is a duplicate: dropped and counted (``DUP``); so is one
  among the last ``LAG`` steps once the file has shown two writers (a duplicate seen
  already), or when it repeats the first step of the segment (the second writer's
  first buffer). Ranks printing through Python's block-buffered stdout (``python
  train.py > log``) interleave in blocks of a buffer's worth of lines (8 KiB: 143
  lines of 57 bytes in tests/data/frameworks/two_writers/spawn), far beyond
  ``RECENT``; a single writer that resumes and repeats its old values exactly (a
  deterministic restart) does not start its repeat at the first step, and is a resume;
- a record whose step goes below the highest step delivered is held back. A resume
  is the step going back *and staying back*: once ``CONFIRM`` records in a row stay
  below the old maximum, the held records are delivered (the Monitor sees the
  resume at the first of them). A record back at or past the old maximum first
  means the held ones were stray lines of a lagging writer: dropped and counted
  (``STRAY``). At the end of the input (``flush``) held records are a resume (fewer than
  ``CONFIRM`` of them after ``STRAYS_SEEN`` strays: strays too).

A confirmed resume starts a new segment, but the lagging writer is still printing
the end of the old one: the old segment's memory is kept (tagged as the previous
segment) with the lagging writer's position (the step of the last duplicate). A
record identical to the previous segment's record of its step, past that position,
is that writer's copy (a duplicate), not a jump forward in the new segment (otherwise two
writers and one real resume give a phantom resume per lag; a deterministic
restart's records, which repeat the old values at the new segment's front, are
never past that position). The previous segment is forgotten once the new one
passes its maximum or after ``2 * LAG`` records.

Live, a record is never held for long: a non-finite one confirms the resume at
once (a job that resumes and dies at once is paged), and ``release`` lets the live
loop deliver what waited ``HOLD_IDLE`` seconds with no new record of its source.

Frames (the replay's columnar path) whose steps never go back pass straight
through, with their adjacent duplicates removed in one numpy pass; a frame that
goes back is taken row by row. Either way the records delivered are the same, so
the row-vs-frame equivalence of the Monitor is kept. Memory: the last record per
step for the last ``LAG`` steps and at most ``CONFIRM`` held records.
"""

from __future__ import annotations

from dataclasses import replace

import math
import re
import time
from collections import OrderedDict

import numpy as np

from tsm_tui.core.frame import Frame, first_resume
from tsm_tui.core.record import StepRecord

CONFIRM = 3  # records staying below the old maximum that make a resume (ours)
STRAYS_SEEN = 3  # strays counted before held records at the end of the input are strays too (ours)
# records (steps) looked back on for the duplicate test: two writers' copies of a line
# come within this many records of each other (their buffers lag by a few KiB); a
# resume that goes back further is a resume even when the repeated steps print the
# same values (a deterministic restart), ours
RECENT = 64
#: records (steps) looked back on once two writers are seen: a block-buffered stdout's
#: worth of lines (8 KiB of lines of 8+ bytes; the real file's lag is 143), ours
LAG = 1024
#: live: seconds a held record waits with no new record of its source before it is
#: delivered as a resume (ours: well above a burst's spread, well below a page's urgency)
HOLD_IDLE = 2.0
#: a record whose step goes back but whose own timestamp is this many seconds past every
#: record delivered is a new launch's, not a lagging writer's: a lagging writer's record of
#: an earlier step was written before the newer records it lags behind (ours: timestamps
#: are printed to the second; a relaunch that goes back one logging interval, 49100 ->
#: 49050, then passes the old maximum at once and was taken for stray lines)
LATER = 1.0
DUP = "duplicate record (same step, same values: two writers in one file)"
STRAY = "stray record of a lagging writer (step back, then forward again)"
#: a record right after one of its step with the same loss and other values: the step's line printed
#: again with more of its values ("Epoch [1/100], Loss: 0.6966, Accuracy: 50.09%" then "Epoch [1/100],
#: Train Loss: 0.6966, ..., Val Loss: 0.6930"): its loss is the one read already, the rest is delivered
#: (fresh116's console read each epoch's loss twice, 200 losses for 100 epochs, and won over the
#: run's W&B history)
REPEAT = "loss printed again at its step with more values (the loss read once, the values kept)"


#: extras that say how fast or when, not what was learned: two writers of one record print their
#: own (ms-swift writes each record twice, its train_speed(iter/s) differing: fresh22's InternVL2 log
#: held 5,918 records for 2,957 steps and the grad-norm check's windows were halved). Linear.
_PACE = re.compile(r"speed|per_sec|/s(?:ec)?\b|throughput|time|elapsed|remaining|\beta\b|mem", re.I)


def _sig(r: StepRecord) -> tuple:
    return (
        r.loss,
        r.grad_norm,
        r.lr,
        r.loss_scale,
        r.skipped,
        r.nan_iters,
        r.overflow,
        r.tokens,
        r.time,
        r.epoch,
        r.val_loss,
        r.loss_missing,
        tuple(sorted((k, v) for k, v in r.extra.items() if not _PACE.search(k))) if r.extra else (),
        tuple(r.samples) if r.samples else None,
    )


def _same(a: tuple, b: tuple) -> bool:
    # NaN == NaN here: two writers printing the same NaN loss are one record
    return a == b or (len(a) == len(b) and all(x == y or (x != x and y != y) for x, y in zip(a, b)))


def _nonfinite(r: StepRecord) -> bool:
    for v in (r.loss, r.grad_norm, r.val_loss, r.lr):
        if v is not None and not math.isfinite(v):
            return True
    return False


def _lookup(mem: tuple, step: int, now: int) -> tuple[tuple | None, int]:
    """The last delivered record of ``step`` in one segment's memory ``(recent, tail,
    tail_seq, older)``, and how many records were delivered since (its lag)."""
    recent, tail, tail_seq, older = mem
    got = recent.get(step)
    if got is not None:
        return got[1], now - got[0]
    if tail is not None:
        lo = max(0, tail.n - LAG)
        hits = np.flatnonzero(tail.step[lo:] == step)
        if hits.size:
            i = lo + int(hits[-1])
            return _sig(tail.record(i)), now - (tail_seq - (tail.n - i))
    got = older.get(step)
    if got is not None:
        return got[1], now - got[0]
    return None, 0


class Orderer:
    def __init__(self) -> None:
        self.max_step: int | None = None
        self.first_step: int | None = None  # the segment's first step
        #: step -> (delivery number, signature) of records delivered since the last frame
        self.recent: OrderedDict[int, tuple] = OrderedDict()
        self.tail: Frame | None = None  # the last frame delivered (its last LAG rows are looked at)
        self._tail_seq = 0  # the delivery number after that frame
        self.older: OrderedDict[int, tuple] = OrderedDict()  # ``recent`` as it was before that frame
        self._delivered = 0  # records delivered (their delivery numbers)
        self.two_writers = False  # a duplicate was seen: lags up to LAG are a second writer's
        self.held: list[StepRecord] = []
        self.counts: dict[str, int] = {}
        self._seen = 0  # records with metrics pushed
        self._dup_step: int | None = None  # the lagging writer's position: the last duplicate's step
        self._dup_at = -1  # ``_seen`` then
        # the previous segment (after a confirmed resume): its memory, its maximum, the
        # lagging writer's position in it and when the segment ended
        self._prev: tuple | None = None
        self._prev_max = 0
        self._prev_cursor = 0
        self._prev_until = 0
        self.pushed_at = 0.0  # monotonic time of the last push (``release``)
        self._last_time: float | None = None  # the newest timestamp of a delivered record
        self._last_clock: float | None = None  # ... and the newest clock of its line (line_clock.py)
        self._last_loss: tuple[int, float] | None = None  # (step, loss) of the last record delivered (REPEAT)

    def _count(self, why: str, n: int = 1) -> None:
        self.counts[why] = self.counts.get(why, 0) + n

    def _remember(self, step: int, sig: tuple) -> None:
        rc = self.recent
        self._delivered += 1
        rc[step] = (self._delivered, sig)
        rc.move_to_end(step)
        if len(rc) > LAG:
            rc.popitem(last=False)

    def _mem(self) -> tuple:
        return (self.recent, self.tail, self._tail_seq, self.older)

    def _last_sig(self, step: int) -> tuple | None:
        """The last delivered record of ``step`` that a copy of it could lag behind:
        among the last RECENT records, or LAG once two writers are seen (or for the
        segment's first step)."""
        sig, lag = _lookup(self._mem(), step, self._delivered)
        if sig is None:
            return None
        if lag <= RECENT or (lag <= LAG and (self.two_writers or step == self.first_step)):
            return sig
        return None

    def _deliver(self, r: StepRecord, out: list) -> None:
        out.append(r)
        x, last = r.loss, self._last_loss
        if x is not None and x == x:
            self._last_loss = (r.step, x)
        elif last is None or last[0] != r.step:  # (a record of the step with no loss keeps the step's)
            self._last_loss = None
        t = r.time
        if t is not None and t == t and (self._last_time is None or t > self._last_time):
            self._last_time = t
        c = r.clock
        if c is not None and c == c and (self._last_clock is None or c > self._last_clock):
            self._last_clock = c
        self._remember(r.step, _sig(r))
        if self.first_step is None:
            self.first_step = r.step
        if self.max_step is None or r.step > self.max_step:
            self.max_step = r.step
            if self._prev is not None and r.step > self._prev_max:
                self._prev = None  # the new segment is past the old one: nothing of it can lag behind

    def push(self, items) -> list:
        """Records and Frames in, the records and Frames to feed out."""
        out: list = []
        self.pushed_at = time.monotonic()
        for it in items:
            if type(it) is Frame:
                self._frame(it, out)
            else:
                self._record(it, out)
        return out

    def _dup(self, step: int) -> None:
        self._count(DUP)
        self.two_writers = True
        self._dup_step, self._dup_at = step, self._seen

    def _lagging_copy(self, r: StepRecord, sig: tuple) -> bool:
        """``r`` is the lagging writer's copy of a record of the previous segment."""
        prev = self._prev
        if prev is None:
            return False
        if self._seen > self._prev_until:
            self._prev = None
            return False
        if r.step <= self._prev_cursor:
            return False
        got, _ = _lookup(prev, r.step, 0)
        if got is None or not _same(got, sig):
            return False
        self._prev_cursor = r.step
        return True

    def _record(self, r: StepRecord, out: list) -> None:
        if not r.has_metrics() or r.overflow:
            # (DeepSpeed OVERFLOW! lines carry the last step and repeat alike: each is an event)
            out.append(r)
            return
        self._seen += 1
        sig = _sig(r)
        fresh = self._no_copy(r)
        prev = None if fresh else self._last_sig(r.step)
        if prev is not None and _same(prev, sig):
            self._dup(r.step)
            return
        if r.loss is not None and self._last_loss == (r.step, r.loss) and not (r.launch or fresh):
            self._count(REPEAT)
            r = replace(r, loss=None)
            if not r.has_metrics():
                return
        if r.launch or self._written_later(r):  # a new process wrote from here (sources/launches.py)
            self._launch(r, out)
            return
        if not fresh and self._lagging_copy(r, sig):
            self._dup(r.step)
            return
        if self.max_step is None or r.step >= self.max_step:
            if self.held:
                self._count(STRAY, len(self.held))
                self.held = []
            self._deliver(r, out)
            return
        if any(h.step == r.step and _same(_sig(h), sig) for h in self.held):
            self._dup(r.step)  # the other writer's copy of a held record
            return
        self.held.append(r)
        if len(self.held) >= CONFIRM or _nonfinite(r):
            self._confirm(out)  # (a NaN never waits: a job that resumed and died at once)

    def _written_later(self, r: StepRecord) -> bool:
        """``r`` goes back in steps and its timestamp is LATER past the newest record
        delivered: a new launch's first record (see LATER)."""
        t, last = r.time, self._last_time
        return (
            t is not None
            and last is not None
            and self.max_step is not None
            and r.step < self.max_step
            and t > last + LATER
        )

    def _no_copy(self, r: StepRecord) -> bool:
        """``r``'s line was printed LATER past every record delivered (its clock, line_clock.py): no
        writer's copy of one of them, whose line a rank prints when it logs the step, not when its
        buffer reaches the file. (A relaunch of a constant-LR run prints "END EPOCH 0: Learning rate
        = 0.002" again 15 minutes later: taken for a copy of the old launch's record, the relaunch's
        LR was lost; fresh67's PyISV.)"""
        c, last = r.clock, self._last_clock
        return c is not None and last is not None and c > last + LATER

    def _launch(self, r: StepRecord, out: list) -> None:
        """The first record after a launch banner (not a copy of a recent record): records
        held before it stayed back (a resume); a step at or below the maximum starts a new
        segment at once, with no writer of the old process lagging behind."""
        if self.held:
            self._confirm(out)
        if self.max_step is not None and r.step <= self.max_step:
            self._prev = None
            self.max_step = self.first_step = None
            self.recent, self.older, self.tail = OrderedDict(), OrderedDict(), None
            self._dup_step, self._dup_at = None, -1
            self.two_writers = False
        self._deliver(r, out)

    def _confirm(self, out: list) -> None:
        held, self.held = self.held, []
        # a new segment: its own maximum and memory from here; the old one's memory is
        # kept as the previous segment while the lagging writer may still print it
        if self._dup_at >= 0 and self._seen - self._dup_at <= LAG and self.max_step is not None:
            self._prev = self._mem()
            self._prev_max = self.max_step
            self._prev_cursor = self._dup_step if self._dup_step is not None else self.max_step
            self._prev_until = self._seen + 2 * LAG
        else:
            self._prev = None  # one writer (no recent duplicate): nothing lags behind
        self.max_step = None
        self.first_step = None
        self.recent = OrderedDict()
        self.older = OrderedDict()
        self.tail = None
        self._dup_step, self._dup_at = None, -1
        for r in held:
            self._deliver(r, out)

    def release(self, idle: float = HOLD_IDLE, now: float | None = None) -> list:
        """Live: records held with no new record of their source for ``idle`` seconds
        are delivered (a resume; see the module docstring)."""
        if not self.held:
            return []
        now = time.monotonic() if now is None else now
        if now - self.pushed_at < idle:
            return []
        out: list = []
        self._confirm(out)
        return out

    def _frame(self, fr: Frame, out: list) -> None:
        if (
            self.held
            or fr.n == 0
            or self._prev is not None
            or first_resume(fr.step, self.max_step) >= 0
            or self._repeats(fr)
        ):
            for i in range(fr.n):
                self._record(fr.record(i), out)
            return
        # steps never go back: only records equal to the previous one of their step drop
        step = fr.step
        same = np.zeros(fr.n, dtype=bool)
        if fr.n > 1:
            eq = step[1:] == step[:-1]
            extra = [v for k, v in fr.extra.items() if not _PACE.search(k)] if fr.extra else []
            for col in list(fr.cols.values()) + extra:
                if not eq.any():
                    break
                a, b = col[1:], col[:-1]
                if col.dtype.kind == "f":
                    eq &= (a == b) | (np.isnan(a) & np.isnan(b))
                else:
                    eq &= a == b
            same[1:] = eq
        prev = self._last_sig(int(step[0]))
        if prev is not None and _same(prev, _sig(fr.record(0))):
            same[0] = True
        self._seen += fr.n
        if same.any():
            self._count(DUP, int(same.sum()))
            last = int(np.flatnonzero(same)[-1])
            self._dup_step, self._dup_at = int(step[last]), self._seen - (fr.n - 1 - last)
            keep = np.flatnonzero(~same)
            if keep.size == 0:
                return
            fr = Frame(
                step[keep],
                {k: v[keep] for k, v in fr.cols.items()},
                {k: v[keep] for k, v in fr.extra.items()} if fr.extra else None,
                fr.source,
            )
        out.append(fr)
        x = fr.cols.get("loss")
        end = float(x[-1]) if x is not None else math.nan
        self._last_loss = (int(fr.step[-1]), end) if end == end else None
        self.older, self.recent, self.tail = self.recent if self.recent else self.older, OrderedDict(), fr
        self._delivered += fr.n
        self._tail_seq = self._delivered
        if self.first_step is None:
            self.first_step = int(fr.step[0])
        top = int(fr.step.max())
        if self.max_step is None or top > self.max_step:
            self.max_step = top
        tc = fr.cols.get("time")
        if tc is not None and tc.size and not np.isnan(tc).all():
            t = float(np.nanmax(tc))
            if self._last_time is None or t > self._last_time:
                self._last_time = t
        cc = fr.cols.get("clock")
        if cc is not None and cc.size and not np.isnan(cc).all():
            c = float(np.nanmax(cc))
            if self._last_clock is None or c > self._last_clock:
                self._last_clock = c

    def _repeats(self, fr: Frame) -> bool:
        """A row of ``fr`` may repeat the loss of the record before it at its step (REPEAT): read row
        by row (a full copy of the row before, a duplicate, aside)."""
        x = fr.cols.get("loss")
        if x is None:
            return False
        last, s0 = self._last_loss, int(fr.step[0])
        if last is not None and last[0] == s0 and (last[1] == float(x[0]) or x[0] != x[0]):
            return True  # (a NaN loss at the step keeps the step's loss for the record after it: _deliver)
        if fr.n < 2:
            return False
        same = fr.step[1:] == fr.step[:-1]
        return bool(np.any(same & ((x[1:] == x[:-1]) | np.isnan(x[1:]))))

    def flush(self) -> list:
        """End of the input: records still held stayed back to the end (a resume), unless fewer than
        CONFIRM of them in a file whose lines going back were strays STRAYS_SEEN times before: one
        more stray (a DQN loop's "Episode e/100 ... Avg Loss" summary after its steps, 99 of them strays
        mid-file: the last one, at the end, read as a resume that the checks judged alone)."""
        out: list = []
        if self.held:
            if len(self.held) < CONFIRM and self.counts.get(STRAY, 0) >= STRAYS_SEEN:
                self._count(STRAY, len(self.held))
                self.held = []
            else:
                self._confirm(out)
        return out
