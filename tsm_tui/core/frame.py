"""Columnar step records: the fast path of a replay.

A :class:`Frame` holds consecutive records of one *shape* (the same fields
present in every row, as a reader's template produced them) as numpy columns.
Readers emit frames for the long uniform stretches of a log (JSON Lines with a
fixed key set, Megatron's iteration lines) and plain StepRecords for anything
else; the Monitor feeds frames to ``Detector.update_frame``.

The contract that keeps the two paths honest: feeding a frame gives exactly
the same alerts, checks and state as feeding its rows one by one
(``Frame.record(i)``). ``FrameState.sync(i)`` sets the shared RunState to what
it was when row ``i`` was fed, so a detector can drop to its per-record
``update`` for any row (near a candidate event) and see what it would have seen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tsm_tui.core.record import StepRecord

FLOAT_FIELDS = ("loss", "grad_norm", "lr", "loss_scale", "tokens", "time", "epoch", "val_loss", "clock")
INT_FIELDS = ("skipped", "nan_iters")
FIELDS = FLOAT_FIELDS + INT_FIELDS
#: fields that make a record count as a training record (StepRecord.has_metrics)
METRIC_FIELDS = frozenset({"loss", "grad_norm", "lr", "loss_scale", "val_loss"})


class Frame:
    """Rows of records that all carry the same fields.

    ``step`` is int64; ``cols`` maps a StepRecord field to a float64 column
    (int64 for ``skipped`` / ``nan_iters``); ``extra`` maps other numeric log
    keys to float64 columns, in the log's key order. Every row has at least
    one metric (readers only build frames from shapes that do).
    """

    __slots__ = ("step", "cols", "extra", "source", "n", "_state")

    def __init__(
        self,
        step: np.ndarray,
        cols: dict[str, np.ndarray],
        extra: dict[str, np.ndarray] | None = None,
        source: str | None = None,
    ) -> None:
        self.step = step
        self.cols = cols
        self.extra = extra or None
        self.source = source
        self.n = len(step)
        self._state: FrameState | None = None

    def __len__(self) -> int:
        return self.n

    def get(self, name: str) -> np.ndarray | None:
        return self.cols.get(name)

    def slice(self, a: int, b: int) -> "Frame":
        return Frame(
            self.step[a:b],
            {k: v[a:b] for k, v in self.cols.items()},
            {k: v[a:b] for k, v in self.extra.items()} if self.extra else None,
            self.source,
        )

    def record(self, i: int) -> StepRecord:
        """Row ``i`` as the StepRecord the per-line reader would have built."""
        # (``item`` gives the Python number without a numpy scalar in between)
        vals: dict[str, Any] = {
            k: int(col.item(i)) if k in INT_FIELDS else float(col.item(i)) for k, col in self.cols.items()
        }
        rec = StepRecord(self.step.item(i), source=self.source, **vals)
        if self.extra:
            rec.extra = {k: float(col.item(i)) for k, col in self.extra.items()}
        return rec

    def at_plain(self, i: int) -> StepRecord:
        return self.record(i)

    def records(self) -> list[StepRecord]:
        return [self.record(i) for i in range(self.n)]

    # -- the RunState as each row saw it ---------------------------------------------
    def sync_row(self, i: int) -> StepRecord:
        """Set the shared RunState to row ``i``'s view (it advances state every detector
        reads) and return the row's record: one record object per row for every detector,
        as the per-record path feeds them."""
        fs = self._state
        assert fs is not None, "Frame.sync_row before the frame was bound to a RunState"
        fs.sync(i)
        rec = fs.recs.get(i)
        if rec is None:
            if len(fs.recs) >= RECS_KEPT:  # (a frame fed row by row: kept small)
                fs.recs.clear()
            rec = fs.recs[i] = self.record(i)
        return rec

    def sync(self, i: int) -> None:
        fs = self._state
        assert fs is not None, "Frame.sync before the frame was bound to a RunState"
        fs.sync(i)


MIN_RUN = 16  # records of one shape worth a Frame
#: records of a frame's rows kept for the next detector fed the same rows (Frame.sync_row)
RECS_KEPT = 1024


def _shape(r: StepRecord):
    if r.samples is not None or r.overflow or r.loss_missing or r.launch:
        return None
    return (
        r.loss is None,
        r.grad_norm is None,
        r.lr is None,
        r.loss_scale is None,
        r.tokens is None,
        r.time is None,
        r.epoch is None,
        r.val_loss is None,
        r.clock is None,
        r.skipped is None,
        r.nan_iters is None,
        tuple(r.extra) if r.extra else (),
    )


def pack(recs: list[StepRecord], min_run: int = MIN_RUN) -> list:
    """Runs of ``min_run`` or more same-shape records as Frames, the rest as they are
    (readers that build StepRecords: TensorBoard, CSV, trainer_state.json ...)."""
    if len(recs) < min_run:
        return recs
    shapes = list(map(_shape, recs))
    out: list = []
    i, n = 0, len(recs)
    while i < n:
        sh = shapes[i]
        j = i + 1
        while j < n and shapes[j] == sh:
            j += 1
        fr = frame_from_records(recs[i:j]) if sh is not None and j - i >= min_run else None
        if fr is None:
            out += recs[i:j]
        else:
            out.append(fr)
        i = j
    return out


def frame_from_records(recs: list[StepRecord]) -> Frame | None:
    """A frame from records that all carry the same fields (tests and adapters);
    None when they differ in shape or carry what a frame cannot (samples, flags)."""
    if not recs:
        return None
    r0 = recs[0]
    present = tuple(f for f in FIELDS if getattr(r0, f) is not None)
    xkeys = tuple(r0.extra) if r0.extra else ()
    for r in recs:
        if r.samples is not None or r.overflow or r.loss_missing or r.launch:
            return None
        if tuple(f for f in FIELDS if getattr(r, f) is not None) != present:
            return None
        if (tuple(r.extra) if r.extra else ()) != xkeys:
            return None
    if not (set(present) & METRIC_FIELDS or "skipped" in present or "nan_iters" in present):
        return None
    cols = {
        f: np.array([getattr(r, f) for r in recs], dtype=np.int64 if f in INT_FIELDS else np.float64) for f in present
    }
    # (no key in xkeys when the records have no extra)
    extra = {k: np.array([r.extra[k] for r in recs], dtype=np.float64) for k in xkeys}  # type: ignore[index]
    return Frame(np.array([r.step for r in recs], dtype=np.int64), cols, extra, r0.source)


class FrameState:
    """The RunState fields the Monitor updates per record, as arrays over a frame
    (the frame has no resume in it: steps never go below the running maximum)."""

    def __init__(self, state, fr: Frame) -> None:
        self.state = state
        self.fr = fr
        self.recs: dict[int, StepRecord] = {}  # the rows' records built so far (Frame.sync_row)
        n = fr.n
        self.records0 = state.records
        self.first = state.first_step if state.first_step is not None else int(fr.step[0])
        last0 = state.last_step
        cm = np.maximum.accumulate(fr.step)
        self.last = np.maximum(cm, last0) if last0 is not None else cm
        lr = fr.get("lr")
        self.has_lr = lr is not None
        if lr is not None:
            ok = lr == lr  # not NaN (Inf counts, as in Monitor.feed)
            idx = np.arange(n)
            self.last_lr_idx = np.maximum.accumulate(np.where(ok, idx, -1))
            self.last_lr0 = state.last_lr
            p0 = state.peak_lr
            vals = np.where(ok, lr, -np.inf)
            run = np.maximum.accumulate(vals)
            prev = np.empty(n)
            prev[0] = p0 if p0 is not None else -np.inf
            prev[1:] = run[:-1]
            if p0 is not None:
                np.maximum(prev, p0, out=prev)
            new = ok & (vals > prev)
            if p0 is None:  # the first non-NaN LR is the first peak, whatever its value
                oks = np.flatnonzero(ok)
                if oks.size:
                    new[oks[0]] = True
            self.peak_idx = np.maximum.accumulate(np.where(new, idx, -1))
            self.peak0, self.peak_step0 = p0, state.peak_lr_step

    def sync(self, i: int) -> None:
        st = self.state
        st.records = self.records0 + i + 1
        st.first_step = self.first
        st.last_step = int(self.last.item(i))
        if self.has_lr:
            lr = self.fr.cols["lr"]
            j = self.last_lr_idx.item(i)
            st.last_lr = float(lr.item(j)) if j >= 0 else self.last_lr0
            k = self.peak_idx.item(i)
            if k >= 0:
                st.peak_lr, st.peak_lr_step = float(lr.item(k)), int(self.fr.step.item(k))
            else:
                st.peak_lr, st.peak_lr_step = self.peak0, self.peak_step0


def is_resume(step: int, last_step: int | None) -> bool:
    """A record at ``step`` after the run reached ``last_step`` (its highest step so far)
    goes back: a resume (or a new launch; analysis/launches.py tells which). The one rule:
    the Monitor and the launch segmentation ask it per record, ``first_resume`` per frame."""
    return last_step is not None and step < last_step


def first_resume(step: np.ndarray, last_step: int | None) -> int:
    """Index of the first row whose step goes below the running maximum (a
    resume, ``is_resume`` row by row), or -1."""
    if step.size == 0:
        return -1
    cm = np.maximum.accumulate(step)
    if last_step is not None:
        np.maximum(cm, last_step, out=cm)
        prev = np.empty_like(cm)
        prev[0] = last_step
        prev[1:] = cm[:-1]
        bad = step < prev
    else:
        bad = np.zeros(step.size, dtype=bool)
        bad[1:] = step[1:] < cm[:-1]
    hits = np.flatnonzero(bad)
    return int(hits[0]) if hits.size else -1


def expand(items):
    """StepRecords from a mix of StepRecords and Frames."""
    for it in items:
        if type(it) is Frame:
            yield from it.records()
        else:
            yield it
