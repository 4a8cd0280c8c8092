"""The step of a counter printed beside an epoch: one rule for every reader that meets one
(the generic text reader's ``Epoch 3 | Batch 100/5000`` lines, a CSV's ``Epoch,Batch``
columns).

Whether the counter starts again at each epoch (a batch index) or runs on across epochs (a
global step) is seen at the first change of epoch: it starts again when its value there is
not above the last one (``strict``: below it, for a table whose epoch-end row repeats a
global step under the next epoch's number, as Lightning's CSVLogger writes it). A batch
index becomes ``(epoch - first epoch) x epoch length + counter``; the epoch length is the
one printed, else the first epoch's last counter (plus the logging interval when the
counter starts at 0): the steps past an epoch's last record that the log did not print are
not counted; an epoch whose counters go past that length (a progressive GAN's later scales run
twice the first one's iterations) moves the epochs after it on by as much. A length printed on some lines is the epoch's on the lines that print none (I-JEPA's
``[56, 775/ 2562]`` loss line and its ``[56, 775]`` grad_stats line).

A label that lags (PaddleGAN prints ``Epoch: 1/100, iter: 1/989`` right after ``Epoch: 1/100,
iter: 980/989``, then ``Epoch: 2/100, iter: 11/989``: the label is computed before the
iteration moves on): a batch index that wraps while the epoch label stays the same, in the
rhythm of the log (the steps from the last counter to the epoch's end and from the new
epoch's start to the new counter make exactly one logging interval) and not back at the run's
first counter, is the next epoch's;
the label is taken as one behind until it changes. A wrap out of rhythm (a restart of the
same epoch) is left as it is: the run's resume logic judges it.

A resumed log's first line may show at once that its counter is a batch index (``Epoch[97/800](20/500)``:
20 steps cannot be the run's after 96 epochs): it is placed in its epoch from that line on, the epochs
counted from their origin (1 when printed with their total, else 0: step (97 - 1) x 500 + 20 = 48020;
DETR's ``Epoch: [13]  [   0/3684]`` 13 x 3684). No step is placed below 0: a relaunch from an epoch below
the one counted from (``Epoch[1/900]`` appended to a file that began at epoch 97) counts the epochs from
their origin from there on. A line of another shape that names an epoch and a counter (a NaN warning) is placed
as the records are, the state unmoved (``place``).
"""

from __future__ import annotations

from tsm_tui.core.numbers import MAX_INT
from tsm_tui.core.record import StepRecord

#: records in a row naming the same epoch and fields that make them per-batch prints, not epoch
#: summaries (ours: a training and an evaluation line with the same names give two an epoch)
REPEATS = 3
#: other lines between two records that break their row: per-batch prints come a line or a report apart
#: (fresh29's Theano char-NER: a 37-line confusion matrix between its rounds, all "Epoch: 1"), the "Epoch 0"
#: of launches that died at their first epoch hundreds apart (ours: fresh46's PINN log of 33 launches, ~470
#: lines of start-up each, whose one-record launches had been counted as the batches of epoch 0)
ROW_GAP = 128
#: kinds of line remembered for another rank's copies (``EpochRepeats._copy``; ours: a bound, a log has a few)
SHAPES_KEPT = 64


class EpochCounter:
    """One log's epoch / counter pairs, in order: ``step`` gives each its step."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict
        #: first epoch, last epoch, last counter, mode ("epoch" / "global", None until the
        #: epoch changes), first counter, counter before the last
        self._st: list | None = None
        self._per: int | None = None  # an epoch's length when none is printed
        self._lag: int | None = None  # an epoch label seen to lag one epoch behind its counter
        self._prev: int | None = None  # the counter before the last one, in the same epoch
        #: epochs longer than the first one (no length printed): the counter's step offset past
        #: ``(epoch - first) x length``, from the epoch it starts at (a progressive GAN's later
        #: scales, twice the first one's iterations); the largest counter of the current epoch
        self._g0: int | None = None  # the steps an epoch has past its last counter (None: not measured)
        self._extra: dict[int, int] = {}
        self._mx = 0
        self._off = 0  # the current epoch's offset
        self._gmax = 0  # the largest counter while it is taken for a global step ...
        self._glines = self._gnew = 0  # ... its lines, and those whose epoch moved on
        self._from = 0  # the epochs' origin the last line showed (``_origin``)

    @property
    def mode(self) -> str | None:
        """ "epoch" (a batch index), "global", or None while the first epoch lasts."""
        return self._st[3] if self._st is not None else None

    def step(self, e: int, epochs: int | None, n: int, per: int | None) -> tuple[int | None, int | None]:
        """(step, planned total or None) of counter ``n`` (of ``per`` when printed) in epoch
        ``e`` of ``epochs``; the step None when out of range."""
        st = self._st
        if st is None:
            st = self._st = [e, e, n, None, n, None]
            if per and e >= 2 and (n < e - 1 or (epochs and 2 * n * epochs < (e - 1) * per)):
                # a resumed log's first line ("Epoch[97/800](20/500)"): a counter below the epochs before
                # it (each has a step at least), or below half the share of a run total of ``per`` steps
                # that those epochs would have taken, counts no run's steps: a batch index, and the printed
                # length places it at once (48020, not 20 as the first epoch's)
                st[0], st[3] = _origin(epochs), "epoch"
        if self._lag is not None and e == self._lag:
            e += 1
        else:
            self._lag = None
            if e == st[1] and st[3] != "global" and self._lags(n, per):
                self._lag, e = e, e + 1
                if st[3] is None:
                    st[3] = "epoch"
        self._prev = st[2] if e == st[1] and n != st[2] else (None if e != st[1] else self._prev)
        if per and self._per is None:
            self._per = per  # the printed length is the epoch's for a line of the log that prints none
        total = None
        if e != st[1] and st[3] is None:
            st[3] = "epoch" if (n < st[2] if self.strict else n <= st[2]) else "global"
            if st[3] == "global" and per:
                total = per
        elif st[3] == "global" and e > st[1] and n < st[2] and not per and 2 * self._gnew >= self._glines:
            # a counter taken for a global step that starts again at a later epoch: a batch index after
            # all. pix2pix / CycleGAN's loss_log.txt prints every 100 samples of a small set, "(epoch: 5,
            # iters: 4" then "(epoch: 9, iters: 8": the epochs between were not printed, so its first
            # change of epoch looked like a counter running on (fresh34: 96 records read as 12 steps and
            # 7 resumes). Only while the epoch moved on at least every other line: a counter that ran up
            # within one epoch is a global step, and its drop at a later epoch a relaunch (fresh20's
            # PaddleOCR workerlog: "epoch: [1/75], global_step: 2300" then "epoch: [26/50], global_step:
            # 10"). The epoch's length is the largest counter seen; the steps said before stay (they are
            # below every step of the later epochs)
            st[3] = "epoch"
            if self._per is None:
                self._per = max(self._gmax, st[2])
        if st[3] == "global" or st[3] is None:
            self._gmax = max(self._gmax, n)
            self._glines += 1
            self._gnew += e != st[1]
        if per is None:
            if st[3] is None:
                st[5] = st[2] if n != st[2] else st[5]
            elif self._per is None:
                gap = st[2] - st[5] if st[5] is not None and st[2] > st[5] else 1
                if 0 <= n < gap and n != st[4]:
                    # the new epoch's first counter is not the first epoch's: the log prints every
                    # ``gap`` steps of a counter that runs on across epochs (CycleGAN's "iters: 48" after
                    # "iters: 1400" at gap 100): the epoch is last + gap - first new counter long
                    self._per = st[2] + gap - n
                else:
                    self._g0 = gap if st[4] == 0 else 0
                    self._per = st[2] + self._g0
            per = self._per or 0
        extra = self._longer(st[1], e, n, per) if self._g0 is not None and st[3] == "epoch" else 0
        st[1], st[2] = e, n
        if st[3] == "epoch":
            if e < st[0]:
                # a relaunch from an epoch below the first one ("Epoch[1/900]" in a file that began at
                # "Epoch[97/800]"): the epochs are counted from their origin from here on, never placed
                # below step 0 ((1 - 97) x 500 gave -47980)
                st[0] = min(e, _origin(epochs))
            self._from = _origin(epochs)
            if epochs:
                total = epochs * per
            step = (e - st[0]) * per + extra + n
            return (step if -MAX_INT <= step <= MAX_INT else None), total
        return n, total

    def place(self, e: int, n: int) -> int:
        """Counter ``n`` of epoch ``e`` on a line that is not the log's record line (a NaN warning's
        "epoch 97, skip iteration 21, loss nan" beside "Epoch[97/800](20/500): Loss: ..."), placed as
        ``step`` places the records' counters, the state unmoved: in its epoch once the counter is
        known to be a batch index and the epoch's length is known, else ``n`` (what the records'
        own counter is then)."""
        st = self._st
        if st is None or st[3] != "epoch" or not self._per:
            return n
        if self._lag is not None and e == self._lag:
            e += 1
        base = st[0] if e >= st[0] else min(e, self._from)
        extra = (self._off if e == st[1] else self._offset(e)) if self._g0 is not None else 0
        step = (e - base) * self._per + extra + n
        return step if -MAX_INT <= step <= MAX_INT else n

    def _longer(self, last: int, e: int, n: int, per: int) -> int:
        """The offset of epoch ``e`` for the epochs before it that were longer than ``per`` (their
        largest counter past it): epoch ``last`` ends at its largest counter plus ``_g0``, and the
        next epoch starts there, not inside it. Kept per epoch where it grows (a relaunch back at
        an earlier epoch finds its offset again); at most 4096 such epochs."""
        ex = self._extra
        if e == last:
            self._mx = max(self._mx, n)
            return self._off
        if e > last:
            over = self._mx + (self._g0 or 0) - per
            if over > 0 and len(ex) < 4096:
                ex[last + 1] = self._off + over
                for k in [k for k in ex if k > last + 1]:
                    del ex[k]  # (a relaunch's epochs are measured again)
        self._mx = n
        self._off = self._offset(e)  # (at a change of epoch only: O(epochs that were longer))
        return self._off

    def _offset(self, e: int) -> int:
        best = None
        for k in self._extra:
            if k <= e and (best is None or k > best):
                best = k
        return self._extra[best] if best is not None else 0

    def _lags(self, n: int, per: int | None) -> bool:
        """Counter ``n`` wraps under an unchanged epoch label in the log's rhythm: the
        epoch's length (printed, else known) minus the last counter plus ``n`` is exactly
        one logging interval (the last two counters' difference), and ``n`` is not the run's
        first counter (a restart of the epoch goes back there)."""
        st = self._st
        assert st is not None
        length = per or self._per
        last, prev = st[2], self._prev
        if not length or prev is None or not (0 <= n < last <= length) or last <= prev or n == st[4]:
            return False  # (back to the run's first counter: a relaunch of the epoch, I-JEPA's "[2, 0/2562]")
        return length - last + n == last - prev

    def in_last_epoch(self, n: int) -> int:
        """Counter ``n`` of a record that names no epoch: placed in the last epoch seen when
        the counter is a batch index, else ``n``; the state does not move."""
        st = self._st
        if st is None or st[3] != "epoch":
            return n
        return (st[1] - st[0]) * (self._per or 0) + self._off + n


def _origin(epochs: int | None) -> int:
    """The first epoch's number: 1 when the epoch is printed with its total ("Epoch[97/800]", "Epoch
    [3/10]": 1 .. N, the last one reads N/N), else 0 (DETR's "Epoch: [13]", a loop's raw
    ``range(start, epochs)`` index). Only a resumed log's placement needs it (a log that starts at its
    first epoch counts from there)."""
    return 1 if epochs else 0


class EpochRepeats:
    """Records whose only step is their epoch, in order: per-batch prints that name only their
    epoch (``Epoch [1/5], Batch Loss: 10.75`` 2,889 times an epoch, ``Epoch 3, Loss: 0.41``) are
    told from epoch summaries by repetition. REPEATS records in a row with the same epoch and the
    same fields are batches, and counted from there on: the k-th record from the first of the row
    is step ``first epoch + k`` (an epoch below the last one starts a new launch, counted from its
    epoch again); a record with other fields beside them is an epoch summary (``Epoch [1/5], Average
    Loss: 0.35``: not one of the series; its validation loss, if it has one, at the last step
    counted). Fewer in a row are what they were: records at their epoch's step (a training and
    an evaluation line with the same names give two an epoch). The second of a row is held until
    the third shows which (``held``).

    A log written by ``ranks`` processes (DDP ranks that each print: the reader's ``_ranks``) prints an
    epoch's line once from each: a row of exactly ``ranks`` lines (values differing by a rank's own
    batches, or the same) is one record, the first line read (PyISV's "END TRAIN LOOP EPOCH 63, Loss"
    4 times an epoch had been read as 4 batches: every alert at ~4x its epoch); the others are
    ``rank_copies``. A row longer than that is per-batch prints, as ever."""

    def __init__(self) -> None:
        self.counting = False
        self._last: tuple | None = None  # (epoch, fields, tag) of the last record
        self._same = 0  # records in a row with them
        self._held: list[StepRecord] = []  # the row's records after its first, at most max(REPEATS - 2, ranks - 1)
        self._sig: tuple = ()
        self._epoch = 0
        self._base = 0
        self._k = 0
        self._at = 0  # the reader's count of other lines at the last record
        self._values: tuple | None = None  # the last record's values (_values), before a row is counted
        self.duplicates = 0  # records dropped as the previous line printed again
        self._row = 0  # lines in the current row, its duplicates too
        self._ranks = 1  # the processes printing the log, as last told
        self.rank_copies = 0  # records dropped as another rank's line of an epoch
        self._seen: dict[tuple, tuple[int, int]] = {}  # line kinds of no loss: (epoch, times read) (``_copy``)

    def take(
        self, rec: StepRecord, e: int, names: tuple = (), at: int = 0, tag: str = "", ranks: int = 1
    ) -> list[StepRecord] | None:
        """The records to give for ``rec`` (read at step ``e`` from a line naming ``names``, ``at`` the
        reader's count of other lines so far: more than ROW_GAP since the last record break a row;
        ``ranks`` the processes printing the log): [] while held; None when it is not one of the
        counted series (a summary beside them: the caller drops it)."""
        self._ranks = ranks
        sig = (names, _fields(rec))
        if ranks > 1 and rec.loss is None and self._copy(e, (sig, tag), ranks):
            return None
        if at - self._at > ROW_GAP and not self.counting:
            self._last = None
        self._at = at
        if self.counting:
            if sig != self._sig:
                if rec.val_loss is not None:  # (an epoch's summary with its validation: the validation kept)
                    return [StepRecord(self._base + self._k, val_loss=rec.val_loss, source=rec.source)]
                return None
            if e < self._epoch:
                self._base, self._k = e, 0
            else:
                self._k += 1
            self._epoch = e
            rec.step = self._base + self._k
            return [rec]
        if (e, sig, tag) == self._last and _values(rec) == self._values:
            # the same line again (a notebook's output saved twice, a logger with two handlers): no batch of its
            # own (fresh52's temporal GNN cell, every epoch line twice); the caller counts it
            self.duplicates += 1
            self._row += 1  # (one of the row's lines: two ranks may print the same value)
            return None
        self._values = _values(rec)
        if (e, sig, tag) != self._last or rec.val_loss is not None:
            # (the tag only until the row is counted: a row's lines are one training's, told apart by their
            # letters before the epoch; once counting, a weekday in a timestamp may change at midnight.) A
            # record with a validation loss is an epoch's summary, never a batch: three one-epoch trainings'
            # "Epoch 1/12: Train Loss=0.69, Val Loss=inf" lines are no row (fresh52)
            out = self.release()
            self._last, self._same, self._row = (e, sig, tag), 1, 1
            out.append(rec)
            return out
        self._same += 1
        self._row += 1
        if self._same < REPEATS or self._row <= ranks:
            self._held.append(rec)
            return []
        self.counting, self._sig, self._epoch, self._base = True, sig, e, e
        out = self._held + [rec]
        self._held = []
        for k, r in enumerate(out, 1):
            r.step = e + k
        self._k = len(out)
        return out

    def _copy(self, e: int, key: tuple, ranks: int) -> bool:
        """Whether a record of no training loss (an epoch's evaluation, its LR line) is another rank's copy
        of one already read: its kind of line seen at the same epoch fewer than ``ranks`` times (the ranks'
        lines interleave: "END VALIDATION EPOCH 9", "END EPOCH 9: Learning rate" from each in turn)."""
        seen = self._seen.get(key)
        if seen is not None and seen[0] == e and seen[1] < ranks:
            self._seen[key] = (e, seen[1] + 1)
            self.rank_copies += 1
            return True
        if len(self._seen) >= SHAPES_KEPT:
            self._seen.clear()
        self._seen[key] = (e, 1)
        return False

    def release(self) -> list[StepRecord]:
        """The held records, at their epoch's step (the row ended short of REPEATS, or the log did);
        none when the row was one line from each rank (``rank_copies``)."""
        out, self._held = self._held, []
        if out and self._ranks > 1 and self._row == self._ranks:
            self.rank_copies += len(out)
            return []
        return out


def _values(rec: StepRecord) -> tuple:
    """A record's values, to tell the same line printed twice."""
    vals = (rec.loss, rec.val_loss, rec.lr, rec.grad_norm) + (tuple(sorted(rec.extra.items())) if rec.extra else ())
    return tuple(_NAN if v != v else v for v in vals)  # (NaN is no value equal to itself: "nan" twice is the same)


_NAN = "nan"


def _fields(rec: StepRecord) -> tuple:
    names = tuple(f for f in ("loss", "val_loss", "lr", "grad_norm") if getattr(rec, f) is not None)
    return names + tuple(sorted(rec.extra)) if rec.extra else names
