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
  records, the end of the input, or the next launch: a record going back below the held
  ones, or a banner); the Monitor holds the launch's records until then. A launch that a
  banner (or a new training's name) marked and that has no finite loss when decided is a
  new run: nothing shows it goes on from where the run stopped. A launch under a training's
  name never seen before (``rec.named``) back at the beginning is a new run at once.
  Nothing was resumed: the checks judge the new run alone, and the launches before it
  are reported as segments;
- **resume**: the step went back but not to a fresh start (a checkpoint was
  loaded, or the step counter restarted with the loss where it was): the run
  goes on, the checks judge the resumed whole (the Monitor's resume);
- **continue**: a banner, and the steps go on past the last one (a resume after
  a crash between two log lines): the same series;
- **no loss**: a launch back at the beginning whose records, when the input ended (or,
  live, went quiet for the idle wait) before its first losses, carry no loss and no
  gradient norm, not even a NaN (a relaunch that printed its LR and died, an
  evaluation-only run appended): nothing shows what it is, and it holds nothing the
  checks judge; its records are not delivered (its segment counts them), the run before
  it stays the one judged, and the next record that goes back starts a launch again,
  the same launch when it starts at or after that one (live: its losses came after the
  wait). ``PENDING`` records with no loss while the input goes on (an LR logged every
  step, the loss every 50) are decided as before: a resume.

A file with no step of its own (a bare-number ``loss.txt``, prints numbered by
line) has no step to go back: a second run appended to it shows only in its loss.
A **replay** is a new run found by the loss alone (in a file whose steps its reader counted, after
a launch banner, or replaying the start's very losses: with the log's own steps going on, a loss
back at its start that learns again is a collapse): a record whose loss jumps back
from the level the series reached to the level it started at (nearer, in log
space, the median of its first ``LEVEL_N`` losses than the median of its last
``LEVEL_N``, after the series fell to at most ``1 / LEARNED`` of its start), whose
next losses then fall along the series' first ``REPLAY_N`` losses (each within
``REPLAY_FAR`` x the one at the same place, all but ``REPLAY_MISS``, their median
ratio to it within ``REPLAY_LEVEL``, and falling):
a restart from scratch replays its start; a divergence to the initial loss (an
LLM's ln(vocab)) stays there, and a spike comes back to the level it left. The
candidate's records are held until that is decided (at most ``2 x REPLAY_N``
records; a spike is released after ``REPLAY_MISS + 1`` records off the start
curve), then delivered as a new run or as the records they were. After a
candidate that was no replay, none is looked for in the next ``2 x REPLAY_N``
records (longer than a hold: a sustained jump is judged by the loss checks, not
held record by record, and the records re-fed after a hold start no new one).

Memory: at most ``MAX_LAUNCHES`` segments kept (the first and the newest), the
others counted.
"""

from __future__ import annotations

import math
from collections import deque
from statistics import median

import numpy as np

from tsm_tui.core.frame import is_resume
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.fields import ObjectiveKind

LEVEL_N = 5  # losses at a series' start and end whose median is its level (ours: trainproof's dead-run rule uses 5)
MAX_LAUNCHES = 64  # launch segments kept (ours)
#: a launch banner, then a step this many times the last one and AHEAD_MIN steps past it: a new run from another
#: run's checkpoint (ours: a log of a few records, its last step 0 or 1, resumed at step 11 is no new run)
AHEAD = 10
AHEAD_MIN = 1000
#: a launch back at the beginning whose first losses are this many times below both the series' start
#: and end levels is a new run, never a resume (ours: a resume starts near where it stopped)
OFF_SCALE = 5.0
#: ... and one whose LR (the median of its first logged LRs) is this many times above the highest LR the series
#: logged is a new configuration, never a resume: a resume's scheduler restarts its warm-up, or goes on, below its
#: peak (ours: fresh79's SSD log of 21 launches, a relaunch at LR 0.002-0.005 after a run that peaked at 1e-4, read
#: as a resume whose "LR jumped 50x" FAILed the healthy log)
LR_NEW = 10.0
#: ... and one after a series that never learned (its reached level not below its start level by more than this
#: share; a series that rose counts: a band either way read 2 logs of restarted folds and launches, fresh50's whale
#: and EEG logs, as resumes again, their formats lost, no event gained): its
#: loss cannot tell a resume from a new start, the step back at the beginning does (a resume loads a checkpoint
#: past it); read as a resume, the run before it was superseded with its verdict (ours, from the dead-run rule's
#: 5%: fresh123's Lightning probe stuck at ln 2 for 25 epochs, then its fine-tune from "Epoch 0": its
#: "not learning" FAIL was lost)
NEVER_LEARNED = 0.05
#: records a launch that restarted at the beginning is held for its first LEVEL_N losses
#: (ours: a launch that logs no loss in its first records is decided on what it has)
PENDING = 4 * LEVEL_N
#: a replay (a new run found by its loss alone): the series' first losses its next ones must
#: follow (ours: fresh12's appended SSD runs replay their start within 1.2x for 20 lines)
REPLAY_N = 20
#: ... each within this factor of the start's loss at the same place (ours) ...
REPLAY_FAR = 1.5
#: ... all but this many (ours: one noisy batch is no reason to hold a spike longer) ...
REPLAY_MISS = 2
#: ... and on the same level: the median ratio to the start's loss at the same place within
#: this factor (ours: fresh12's appended runs 0.98x and 1.01x; a data fault that sent a run
#: back up to ~ln(vocab), tests/data/faults/data_fault, sits 1.2x above its start and stays)
REPLAY_LEVEL = 1.1
#: ... after the series fell to at most 1 / LEARNED of its start level (ours: a run that never
#: learned has no start level to go back to)
LEARNED = 2.0


#: ... with the log's own steps and no banner, each of the new losses within 1% of the start's at the
#: same place (log ratio): the same losses again, a deterministic relaunch (ours)
REPLAY_SAME = math.log(1.01)


def _dist(a: float, b: float) -> float:
    if a > 0 and b > 0:
        return abs(math.log(a / b))
    return abs(a - b)


def _ratio(v: float, h: float) -> float:
    """log(v / h) for two positive losses; -inf for a loss at or below 0 (off any curve)."""
    return math.log(v / h) if v > 0 and h > 0 else -math.inf


def _jump(loss: float, h: float, t: float) -> bool:
    """``loss`` (> 0) at least LEARNED x the reached level ``t`` and nearer (in log space)
    the start level ``h`` than ``t``."""
    return loss >= LEARNED * t and _dist(loss, h) <= _dist(loss, t)


class Launches:
    def __init__(self) -> None:
        #: the file's launch segments: first / last step, records, kind
        self.segments: list[dict] = []
        #: the source's steps are the log's own (a step key, a counter), not its reader's count: a replay
        #: (a new run found by its loss alone) then needs a launch banner or a replay of the start's very
        #: losses (REPLAY_SAME: a relaunch with the same seed, its step counter continued, fresh16); else
        #: a loss back at its start with the steps going on at their interval is the run's collapse, not
        #: a new run (fresh29's EC trainer: ln 8 at step 2940 after 0.44-0.54, steps 2920, 2930, 2940:
        #: read "new run", the collapse unsaid). Set by the Session from the reader (``step_source``);
        #: True where nothing says
        self.counted_steps = True
        self.dropped = 0
        self._head: list[float] = []  # first (up to REPLAY_N) losses of the series judged now
        self._tail: deque[float] = deque(maxlen=LEVEL_N)
        self._first: int | None = None
        self._interval = 1
        #: a launch that restarted at the beginning (or a replay candidate), waiting for its
        #: first losses: (its first record, its records so far, its finite losses so far)
        self.pending: tuple[StepRecord, list, list[float]] | None = None
        self._replay = False  # the pending launch is a replay candidate (found by its loss)
        self._miss = 0  # its losses off the start's curve so far
        self._quiet = 0  # records left in which no replay is looked for
        self._lr_max = 0.0  # the highest finite LR the series judged now logged (LR_NEW) ...
        self._lr_n = 0  # ... and how many it logged
        #: a GAN's or an RL run's objective: its level says nothing of a restart (``decide``)
        self.kind = ObjectiveKind()

    def _open(self, rec: StepRecord, kind: str) -> None:
        stub = self.segments[-1] if self.segments and self.segments[-1]["kind"] == "no loss" else None
        if stub is not None and kind in ("new run", "resume") and rec.step >= stub["first"]:
            # (live: a launch held past the idle wait with no loss was said "no loss"; its losses came
            # later, from its own first step on: the same launch, not one more)
            self.segments.pop()
            self.segments.append(
                {"first": stub["first"], "last": max(stub["last"], rec.step), "records": stub["records"], "kind": kind}
            )
            return
        if len(self.segments) >= MAX_LAUNCHES:
            self.segments.pop(1)  # the first is kept (where the file started), then the newest
            self.dropped += 1
        self.segments.append({"first": rec.step, "last": rec.step, "records": 0, "kind": kind})

    def boundary(self, rec: StepRecord, last_step: int | None, planned: int | None = None) -> str | None:
        """Where ``rec`` (a record with metrics) starts a new launch, its kind; else None. ``planned``: the
        run's planned last step, when known (a run that reached it and starts again at its beginning is
        a new one: nothing was left to resume)."""
        if last_step is None:
            if not self.segments:
                self._open(rec, "start")
            return None
        if is_resume(rec.step, last_step) or (rec.launch and rec.step == last_step):
            if planned is not None and last_step == planned and planned > 1 and rec.step <= 1:
                # (Keras' "Epoch 25/25" then "Epoch 1/25": fit() called again, fresh52's six auto-encoders)
                kind = "new run"
            elif rec.named and (rec.step <= 1 or self._at_start(rec)):
                # a training under a name never seen before, back at its start: another training by the
                # script's own words, whatever its loss (fresh51's char-LMs: Transformer_L2_e10 after
                # LSTM_e10, its first losses nearer the LSTM's end than its start, read as its resume)
                kind = "new run"
            elif rec.launch and rec.step <= 1 and not self._head:
                # (marked, back at the start, after a run with not one finite loss: no level says it goes on;
                # fresh52's TGAN after its all-NaN GRU)
                kind = "new run"
            elif self._new_lr([rec]):
                kind = "new run"  # (its LR far above any the run had: another configuration, LR_NEW)
            elif self._at_start(rec):
                self.pending = (rec, [rec], [])
                self.wait(rec)
                return "pending"
            else:
                kind = "resume"
        elif rec.loss is not None and self._jumped(rec.loss):
            self.pending = (rec, [rec], [])
            self._replay, self._miss = True, 0
            self.wait(rec)
            return "pending"
        elif rec.launch:
            # a banner, then steps far past the last one: a checkpoint of another run was loaded (fresh49's
            # Tacotron fine-tune: 514 steps abandoned, then a pre-trained model's step 75001), not this one
            # resumed after a crash (which goes on from its last save, at or before its last step)
            far = rec.step > AHEAD * max(last_step, 1) and rec.step - last_step >= AHEAD_MIN
            kind = "new run" if far else "continue"
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

    def _levels(self) -> tuple[float, float] | None:
        """(start level, reached level) when a replay can be looked for: REPLAY_N losses of
        the start known, LEVEL_N of the end, not quiet, and the series fell to at most
        1 / LEARNED of its start (both levels > 0)."""
        if self._quiet or len(self._head) < REPLAY_N or len(self._tail) < LEVEL_N:
            return None
        h, t = median(self._head[:LEVEL_N]), median(self._tail)
        if t <= 0 or h < LEARNED * t:
            return None
        return h, t

    def _jumped(self, loss: float) -> bool:
        """``loss`` (steps going on) jumped back to the series' start level: a replay candidate."""
        if not loss > 0 or loss == math.inf or not self._tail or loss < LEARNED * min(self._tail):
            return False  # (most records stop here: under LEARNED x the reached level's bound)
        lv = self._levels()
        return lv is not None and _jump(loss, *lv)

    def first_jump(self, losses) -> int:
        """Rows of a frame (no resume, no banner among them): the index of the first row
        ``boundary`` would hold as a replay candidate, or -1. The same rule as ``_jumped``
        row by row, with the start and end levels each row would see."""
        if losses is None or not losses.size:
            return -1
        fin = np.flatnonzero(np.isfinite(losses))
        if not fin.size:
            return -1
        vals = losses[fin]
        head = (self._head + vals[: max(0, REPLAY_N - len(self._head))].tolist())[:REPLAY_N]
        if len(head) < REPLAY_N:
            return -1
        h = median(head[:LEVEL_N])
        prev = np.concatenate([np.fromiter(self._tail, float, len(self._tail)), vals])
        m = len(self._tail)
        k = np.arange(fin.size)  # each finite row's ordinal among the frame's finite losses
        # the reached level each row sees: the median of the LEVEL_N finite losses before it
        ok = m + k >= LEVEL_N
        # ... and the start level: the head full from the losses before it
        ok &= len(self._head) + k >= REPLAY_N
        ok &= fin >= self._quiet
        if not ok.any() or prev.size < LEVEL_N:
            return -1
        win = np.lib.stride_tricks.sliding_window_view(prev, LEVEL_N)
        rows = np.flatnonzero(ok)
        at = m + rows - LEVEL_N  # each row's window of the LEVEL_N losses before it
        # (most rows stop here, as in _jumped: under LEARNED x the smallest of those losses,
        # a bound of their median from below; the medians are taken of the rest only)
        low = np.minimum.reduce([prev[i : i + len(win)] for i in range(LEVEL_N)])  # each window's smallest
        rows = rows[(vals[rows] > 0) & (vals[rows] >= LEARNED * low[at])]
        if not rows.size:
            return -1
        v = vals[rows]
        t = np.partition(win[m + rows - LEVEL_N], LEVEL_N // 2, axis=1)[:, LEVEL_N // 2]  # their medians
        with np.errstate(invalid="ignore", divide="ignore"):
            hit = (t > 0) & (h >= LEARNED * t) & (v >= LEARNED * t)
            hit &= np.abs(np.log(v / h)) <= np.abs(np.log(v / t))
        idx = np.flatnonzero(hit)
        return int(fin[rows[idx[0]]]) if idx.size else -1

    def interrupts(self, rec: StepRecord) -> bool:
        """``rec`` (a record with metrics) starts one more launch while one is held: its step goes
        back below the held launch's records, or a banner marks it. The held launch is then decided on
        its own losses (a 1-epoch training of a script that trains 16 in turn has one: it was decided on
        the next trainings' losses, held with it) and ``rec`` is a boundary of its own."""
        if self.pending is None:
            return False
        recs = self.pending[1]
        return rec.launch or is_resume(rec.step, max(r.step for r in recs))

    def wait(self, rec: StepRecord) -> bool:
        """One more record of the pending launch (its first included by ``boundary``); True
        when it can be decided (LEVEL_N losses, or PENDING records; a replay candidate: its
        first REPLAY_N losses, or 2 x REPLAY_N records, or more than REPLAY_MISS losses off
        the start's curve, or a banner's LEVEL_N losses)."""
        assert self.pending is not None
        first, recs, losses = self.pending
        if rec is not first:
            recs.append(rec)
        loss = rec.loss
        if not self._replay:
            if loss is not None and math.isfinite(loss) and len(losses) < LEVEL_N:
                losses.append(loss)
            return len(losses) >= LEVEL_N or len(recs) >= PENDING
        if loss is not None and math.isfinite(loss) and len(losses) < REPLAY_N:
            i = len(losses)
            losses.append(loss)
            if loss <= 0 or _dist(loss, self._head[i]) > math.log(REPLAY_FAR):
                self._miss += 1
        if first.launch:
            return len(losses) >= LEVEL_N or len(recs) >= PENDING
        return self._miss > REPLAY_MISS or len(losses) >= REPLAY_N or len(recs) >= 2 * REPLAY_N

    def decide(self, ended: bool = True) -> tuple[str | None, list]:
        """The pending launch's kind and its records. A launch back at the beginning:
        ``new run`` when the median of its first losses is nearer the series' start level
        than its end level, else ``resume``. A replay candidate: ``replay`` (a new run found
        by its loss) when its losses followed the start's curve (all but REPLAY_MISS within
        REPLAY_FAR x, their median ratio within REPLAY_LEVEL, at least 2 x LEVEL_N of them,
        falling), or after a banner when they
        are fresh as a new run's; else the records as they were (None; ``continue`` after a
        banner) and no replay is looked for in the next 2 x REPLAY_N records. A launch back
        at the beginning with no loss and no grad norm when the input ``ended`` (or went quiet):
        ``no loss``. A new run's segment opens."""
        assert self.pending is not None
        first, recs, losses = self.pending
        self.pending = None
        if self._replay:
            self._replay = False
            if first.launch:
                new = self._fresh(losses)
            else:
                n = len(losses)
                new = (
                    self._miss <= REPLAY_MISS
                    and n >= 2 * LEVEL_N
                    and abs(median([_ratio(v, h) for v, h in zip(losses, self._head)])) <= math.log(REPLAY_LEVEL)
                    and median(losses[-LEVEL_N:]) < median(losses[:LEVEL_N])
                    and median(self._head[n - LEVEL_N : n]) < median(self._head[:LEVEL_N])
                    and (
                        self.counted_steps or max(abs(_ratio(v, h)) for v, h in zip(losses, self._head)) <= REPLAY_SAME
                    )
                )
            if new:
                self._open(first, "new run")
                return "replay", recs
            self._quiet = 2 * REPLAY_N  # (longer than a hold: its records re-fed start none)
            if first.launch:
                self._open(first, "continue")
                return "continue", recs
            return None, recs
        if ended and not any(r.loss is not None or r.grad_norm is not None for r in recs):
            self._open(first, "no loss")
            self.segments[-1]["records"] = len(recs)
            self.segments[-1]["last"] = max(r.step for r in recs)
            return "no loss", recs
        # (a banner or a new training's name marked it, its step went back to the start, and not one finite
        # loss says it goes on from where the run stopped: a new process from its start; fresh52's GRU and
        # TGAN launches, NaN from epoch 1, were read as resumes of the LSTM before them)
        # (... or a banner marked it and the objective is a GAN's or an RL run's: their losses do not fall as a run
        # learns, so a fresh start is at the level the last run reached; fresh82's WGAN grid, 27 launches each
        # from epoch 1 under 'TRAIN started at', read as 14, its runs' epochs overwritten)
        adversarial = first.launch and self.kind.kind is not None
        kind = (
            "new run"
            if self._fresh(losses) or (first.launch and not losses) or self._new_lr(recs) or adversarial
            else "resume"
        )
        self._open(first, kind)
        return kind, recs

    def _new_lr(self, recs: list) -> bool:
        """The launch's LR (the median of the LRs of its first LEVEL_N training records) is LR_NEW x above any
        of the LEVEL_N or more the series logged (an LR-only line, an epoch's LR printed among its batches, is
        no launch's evidence: fresh2's MAE log, its last epoch's LR line read as a new run of one record)."""
        lrs = [r.lr for r in recs if r.lr is not None and r.loss is not None and math.isfinite(r.lr) and r.lr > 0]
        lrs = lrs[:LEVEL_N]
        return bool(lrs) and self._lr_n >= LEVEL_N and median(lrs) >= LR_NEW * self._lr_max

    def _fresh(self, losses: list[float]) -> bool:
        """The median of a launch's first losses is nearer the series' start level than the
        level it reached (in log space; a signed loss on one scale, never a mix)."""
        if not losses:
            return False
        m, h, t = median(losses), median(self._head[:LEVEL_N]), median(self._tail)
        if m > 0 and h > 0 and t > 0:
            # ... or far below both: a resume starts where its run stopped, so a launch at a fraction of
            # anything the series reached is another objective (fresh50's stacked auto-encoder: layer 1's
            # pre-training at 0.0049 after layer 0's 0.18, read as its resume, 100 of its steps overwritten)
            if _dist(m, h) <= _dist(m, t) or m * OFF_SCALE < min(h, t) or t >= (1 - NEVER_LEARNED) * h:
                return True
            # ... or its first loss back at the series' first, LEARNED x above the reached level (a resume starts
            # where its run stopped): the median of its first losses is already past a fast first drop (fresh52's
            # notebook calling Keras' fit() for six auto-encoders: 0.045 at epoch 1, 0.015 from epoch 2, read as a
            # resume of the last one, its 25 epochs overwritten)
            f, h0 = losses[0], self._head[0]
            return f > 0 and h0 > 0 and _jump(f, h0, t)
        return abs(m - h) <= abs(m - t)

    def new_run(self) -> None:
        """The checks start again: the levels are the new run's from here."""
        self._head, self._first, self._interval = [], None, 1
        self._tail.clear()
        self._quiet = 0
        self._lr_max, self._lr_n = 0.0, 0

    def seen(self, rec: StepRecord) -> None:
        """A record with metrics fed (after ``boundary``)."""
        if rec.extra:
            self.kind.see(rec.extra)
        if not self.segments:
            self._open(rec, "start")
        elif self.segments[-1]["kind"] == "no loss":
            self._open(rec, "continue")  # (the run before the launch that logged no loss goes on)
        seg = self.segments[-1]
        seg["records"] += 1
        if rec.step > seg["last"]:
            seg["last"] = rec.step
        if self._quiet:
            self._quiet -= 1
        lr = rec.lr
        if lr is not None and math.isfinite(lr):
            self._lr_n += 1
            self._lr_max = max(self._lr_max, lr)
        loss = rec.loss
        if loss is not None and math.isfinite(loss):
            self.seen_loss(rec.step, loss)
            self._tail.append(loss)

    def seen_frame(self, steps, losses, lrs=None, extra=None) -> None:
        """Rows of a frame (no boundary inside: the Monitor splits frames at resumes and
        replay candidates); the same state as ``seen`` row by row (``extra``: the frame's extra columns)."""
        if extra:
            self.kind.see(extra)
        if lrs is not None and lrs.size:
            fin = lrs[np.isfinite(lrs)]
            if fin.size:
                self._lr_n += int(fin.size)
                self._lr_max = max(self._lr_max, float(fin.max()))
        if not self.segments:
            self._open(StepRecord(int(steps[0])), "start")
        elif self.segments[-1]["kind"] == "no loss":
            self._open(StepRecord(int(steps[0])), "continue")
        seg = self.segments[-1]
        seg["records"] += len(steps)
        top = int(steps.max())
        if top > seg["last"]:
            seg["last"] = top
        self._quiet = max(0, self._quiet - len(steps))
        if losses is None:
            return
        fin = np.flatnonzero(np.isfinite(losses))
        if len(self._head) < REPLAY_N:
            for i in fin[: REPLAY_N - len(self._head)].tolist():
                self.seen_loss(int(steps[i]), float(losses[i]))
        self._tail.extend(losses[fin[-LEVEL_N:]].tolist())

    def seen_loss(self, step: int, v: float) -> None:
        if not math.isfinite(v) or len(self._head) >= REPLAY_N:
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
