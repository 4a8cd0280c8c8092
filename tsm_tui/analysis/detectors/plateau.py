"""Loss plateau: the loss stops improving for a long stretch while the LR is
still high. Told apart from convergence (LR decayed to <= 20% of its peak, or the
end of a planned, decaying schedule), and from an LR that collapsed to 0 before the
end (not convergence). A grad norm that collapses with it hints at dead units or a
dead optimizer state. A run that never learns at all (trainproof's dead-run rule,
judged on the whole run: ``_never_learned``) is said too, and a run that has never
gained 10% but still measurably improves is "improving slowly", never a FAIL.

How much the loss still moves is measured, not guessed from one noisy window:
a weighted least-squares line through the block means of a stretch gives its
improvement rate r (the drop per window of L steps, relative to the loss level)
and the rate's standard error se (from the larger of the within-block and the
between-block scatter, so autocorrelated noise widens it). One test, ``moving``,
opens and closes: a window that is not measurably moving opens a candidate
plateau; the candidate closes as soon as its whole span (from its start to now)
is measurably moving. A candidate is reported only when its whole span (or,
when the span's head was the end of the descent, its last 2 windows or its last
window) is proven flat, |r| + Z se below the bar, at every evaluation for
CONFIRM of a window: the level over the span has not dropped, and a noisy
descent that cannot be told from flat yet raises nothing (the longer a span, the
tighter its bound). The bars follow the run's progress (``_bar``): a run that has
not materially improved since its first records must improve by plateau_rel per
window (less with a plan: what gains RUN_MIN_GAIN by its end); one that has may be
slow (late training) as long as it still measurably improves, and is flat below
plateau_rel and below half its pace before the stall.

State is a bounded list of block means (at most MAX_BLOCKS; neighbours merge
when it fills) with prefix sums of their regression moments, so memory is
constant and a window or span is fitted in O(1) (two prefix differences and a
bisection) once per completed block: O(1) amortised per record.

What the windowed test cannot decide - a log too short or too sparse for a window, or one
whose newest window was too noisy to tell flat from moving - the level rule judges once, at
the end of the log (``_short_plateau``, SHORT_*), as a plateau is labelled by hand: the
medians of its tenths, with a band from their scatter. It reads a bounded sample of the
losses (at most 2 x SHORT_KEEP, a hash of each loss's index under a bound halved as the
sample fills), so it too is O(1) amortised per record in bounded memory.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import deque
from itertools import repeat
from typing import Any

import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import NONE, Detector
from tsm_tui.analysis.detectors.lr_peak import SchedulePeak
from tsm_tui.analysis.detectors.lr_schedule import JUMP_FACTOR, PEAK_TOL, ZERO_END, ZERO_FRAC
from tsm_tui.analysis.detectors.stats import median
from tsm_tui.analysis.detectors.step_unit import StepUnit
from tsm_tui.analysis.rules import diverged
from tsm_tui.core.numbers import fmt
from tsm_tui.core.numbers import times as _times
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord
from tsm_tui.sources.fields import ObjectiveKind

MAX_BLOCKS = 32
MIN_RECORDS = 20  # fewer records in the window cannot tell flat from noisy (ours)
#: the window of a log whose step is an epoch, in epochs (ours: MIN_RECORDS records, one an epoch)
EPOCH_WINDOW = MIN_RECORDS
#: confidence of the rate's bounds: one-sided z of the normal (2.25: ~98.8%; ours: the
#: bounds are looked at once per block, at up to four starts; on 480 generated healthy
#: runs the repeated looks raised a plateau alert on 6 at 2.0, 2 at 2.25, 1 at 2.5, for
#: 338 / 337 / 321 of 480 generated plateaus caught; bench/RESULTS.md 6)
Z = 2.25
#: in a run that has materially improved (RUN_MIN_GAIN), a loss still measurably
#: improving by this share of plateau_rel per window is moving: slower than 0.25% per
#: window (a window is 20% of the run so far) it would need 8x the run so far to
#: improve 10% more, flat whatever its significance (ours)
FLOOR = 0.25
#: ... and it has stalled only if it moves slower than this share of its pace over the
#: window before the stall began: a steady slow descent (a fine-tune's long tail) keeps
#: its pace, a stall loses it (ours)
PACE = 0.5
#: a loss above the recent level x exp(max(SPIKE_SD sd / level, log(1 + SPIKE_REL))) is a
#: spike (level and sd of the newest blocks holding >= REF_RECORDS records; on a log scale:
#: a loss's noise is multiplicative, a per-sample loss skewed up, and 4 sd on the linear
#: scale took its ordinary high batches for spikes, each shutting a whole window out of
#: the test: issue 26, bench/corpus/trackers/hf_metamath_perstep_gradnorm, 0.975 at step 65
#: against a level of ~0.6). 1.3x is the smallest spike the
#: loss-spike rules report (SIGMA_MIN_RATIO); 4 sd keeps noise out (ours). A block
#: holding one is left out of the fits, and no window with one in it opens or raises a
#: plateau.
SPIKE_SD = 4.0
SPIKE_REL = 0.3
REF_RECORDS = 20
#: no progress by a rise (issue 26: a loss 20-44% above its best for thousands of steps read
#: "loss still improving"): the loss's REF_RECORDS level this share above its best level, and
#: RISE_SE standard errors of that level above it (a noisy loss's best block is its luckiest:
#: ~2-3 se low), for 2 windows since the best; under the divergence factor (the Loss Spike
#: check's), said at the end of the log and by the check's verdict (ours)
RISE_MIN = 0.2
RISE_SE = 4.0
#: ... or RISE_MIN_CLIMB above it when the newest window's line proves the loss climbing
#: (``rising``): a climb under divergence was "diverging, not flat (see Loss Spike
#: Detection)" while that check, which judges 1.5x and more, said PASS (fresh8's SEASS run,
#: 11% above its best of 22,000 steps before and climbing: no verdict said it; ours)
RISE_MIN_CLIMB = 0.05
#: a plateau is reported once its span has been proven flat at every evaluation for
#: this share of the window (ours): the fit of a noisy slow descent wanders, and one
#: evaluation whose bound happens to fall under the bar is not yet a plateau
CONFIRM = 1 / 4
#: a decayed LR means "converged" only this far into a planned run (ours: a cosine
#: to 10% passes 20% of its peak at 69% of the run, a linear decay at 80%, WSD later);
#: earlier, an LR at ~0 is a frozen scheduler / dead optimizer state
CONVERGE_PROGRESS = 0.6
#: a schedule that holds its LR between changes (ReduceLROnPlateau's cuts, a step schedule) changes it
#: on at most this share of the pairs of consecutive LRs logged; a cosine or linear decay changes it on
#: nearly every one (ours: fresh88's SchNetPack run, ReduceLROnPlateau x0.8 every 6 epochs, 17%). Only
#: such a schedule's decay after a plateau began at the peak is a reaction to it (``_cut_after_onset``)
LR_STEPPED = 0.5
#: a run whose loss has improved by less than this share of its first level since a
#: log that starts at the beginning has not materially learned: it must improve by
#: plateau_rel per window to count as moving, or, with a plan, by what would gain this
#: share again over the rest of the plan when that is less (a slow but steady fine-tune
#: is not a QLoRA run that goes 1.42 -> 1.36 in 68k steps) (ours)
RUN_MIN_GAIN = 0.10
FIRST_RECORDS = 20  # records whose mean is the run's first level (ours: one MIN_RECORDS window)
#: a run that never learns (settings.never_*) is critical when a line through it proves
#: its gain below this share of never_gain (ours: with the line not proving a gain
#: above plateau_rel, only a true gain under ~1.75% passes both, and a continued
#: pre-training that gains 4% over its run has 2.8% at 70% of it); else a warning
NEVER_PROVEN = 0.5
#: losses a run needs for the never-learned rule: one MIN_RECORDS window (ours; fresh8's
#: Keras log of 38 epochs stuck at ln 2 had fewer than the 40 asked before: a log of
#: epochs is short; a noisy short log cannot pass the line's bound on its gain anyway)
NEVER_MIN_RECORDS = MIN_RECORDS
#: the very same loss value this many records in a row and over >= CONST_FRAC of the
#: run is not a plateau but a loss that is not computed (exactly 0: masked or leaked
#: labels; any constant: frozen weights or a logging bug) (ours)
CONST_RECORDS = 20
CONST_FRAC = 0.1
#: ... and in a short log (under CONST_RECORDS / SHORT_CONST_SHARE losses so far), the very same value for
#: SHORT_CONST records in a row that are SHORT_CONST_SHARE of its losses: a warning, the log being short
#: (ours; fresh116's BERT run, a training loss of exactly 0 in all of its 10 epochs, read "too few to judge");
#: not an RL run's or a GAN's objective (TRL's GRPO loss prints 0.0 by construction: fresh30's healthy pilot)
SHORT_CONST = 8
SHORT_CONST_SHARE = 0.8
#: after the constant-loss alert, a loss that stays within this share of the constant is still
#: stuck (bf16 keeps 8 significant bits: 9.625 and 9.6875 are neighbours, 0.65% apart; ours)
CONST_BAND = 0.01
#: a loss of exactly 0 (as logged) in at least this share of the records of the newest
#: window (MIN_RECORDS or more) has reached its floor: a loss printed with 4 decimals
#: reads 0.0000 once a small fine-tune set is memorised, or the loss is not computed;
#: between the zeros the last digit still moves, so the constant rule (the same value
#: CONST_RECORDS times in a row) never sees it (ours; issue 26: a 16-shot CLIP-LoRA
#: run printed 0.0000 on 4,490 of its 7,999 lines and read "loss still improving")
ZERO_SHARE = 0.5
#: a constant loss (CONST_RECORDS) at or under this share of the run's first level, after
#: a loss already there, is at the floor of what its log prints (0.0001 with 4 decimals,
#: or 0.0000), not frozen weights: a memorised training set, said as a warning. A loss that
#: drops to exactly 0 from above it is a masked or leaked label, critical (ours: a plain
#: PyTorch MLP memorising 16 samples printed 0.0001 for 123 steps in a row and was FAILed
#: as "not learning")
FLOOR_FRAC = 0.01
#: a log whose records carry whole epoch numbers, several records to an epoch ("Epoch: 16 |
#: Batch: 930/1330 | Loss: 4.6069"), may print each epoch's running mean: flat by
#: construction inside an epoch, so a window inside one epoch proves nothing about the run.
#: Such a loss jumps when an epoch begins (the mean starts again) and barely moves between
#: the records of one epoch: the mean change at an epoch change is more than EPOCH_RESET x
#: the mean change between two records of one epoch. There a plateau is proven only over a
#: span that holds a whole epoch (from one epoch change to the next). Ours: issue 26, fresh4
#: tmux_capture_transformer_mt read "flat for 410 steps" (critical) 420 steps into its log,
#: at the end of its first epoch of 1330 batches (its change 0.06 there, ~0.0003 inside it);
#: a per-step loss changes by about as much at an epoch change as anywhere else. Before the
#: log's first epoch change, a loss whose mean change between records is under EPOCH_SMOOTH
#: of its level (0.007% there; a per-batch loss moves by its noise, 1-20%) may be one.
EPOCH_RESET = 5.0
EPOCH_SMOOTH = 1e-3
#: the level rule (``_level_plateau``), judged once, at the end of a log on which the windowed
#: test could not decide: a log too short or too sparse for one window of MIN_RECORDS losses
#: (never ``judged``: a per-epoch log of 31 epochs, 33 losses every 50 steps), or a judged
#: log whose newest window was too noisy to tell flat from moving (per-batch losses: its
#: rate's band +-26% against a 1% bar) with nothing else said. As a plateau is labelled by
#: hand (the corpus's rule: the losses in SHORT_WINDOWS equal-count windows, flat from window
#: o <= 4 when o..the end gains under 2%): from the earliest tenth of its losses up to
#: SHORT_ONSET from which the rest of the log (SHORT_MIN_RECORDS losses or more) gains less
#: than SHORT_GAIN, measured robustly: the median of its last third against the median of
#: its first third (a least-squares line through the losses took a few early outliers for
#: progress: a RetinaNet log flat at 2.2 with losses up to 3.4 "gained" 2.5-11%, and a line
#: through 6,000 per-batch losses "proved" a 1% drift), and not proven falling by a line
#: through the medians of those windows, its band from the scatter of the medians about it,
#: not from the per-record noise (``_median_line``: a CLIP run falling strictly, 1.5% over
#: its last 60%, is progress). It needs SHORT_MIN_RECORDS losses (the labels' 20 points),
#: from a sample of at most 2 x SHORT_KEEP of them (every 2^k-th loss: bounded memory, O(1)
#: amortised). A warning only: the rule shows no progress, it cannot prove a loss flat
#: (ours; issue 26: four corpus logs of 50-128 losses, flat after their first records, read
#: "too few to judge a plateau": a detectron2 fine-tune, a RetinaNet KD start, a per-sample
#: fine-tune, a Lightning CSV of 50 rows; fresh13 / fresh14: a 31-epoch GAT CSV, a resumed
#: TRL epoch of 33 losses, per-batch losses of an LSTM and of LLaDA read "too noisy")
SHORT_ONSET = 0.4
SHORT_GAIN = 0.02
SHORT_WINDOWS = 10
#: ... and only when a material change (RUN_MIN_GAIN) over that stretch is ruled out, one
#: of two ways. The level: neither line proves the loss moving (Z), and |the medians' line's
#: drop| + Z se under 10%, se the larger of the medians' line's and the losses' line's (an
#: equivalence test, as ``_flat``: a noisy descent whose estimate happens to climb shows no
#: flatness; a few medians scatter about their line by chance). Or, for a log of 2 x
#: SHORT_MIN_RECORDS losses or more that was never judged (the short-log rule as it was),
#: the losses' line: its drop + SHORT_Z se under 10% at one-sided 95% (a noisy flat log whose
#: estimate comes out as a rise: issue 26's turngpt CSV of 50 rows, MetaMath's 128 per-step
#: losses). Without a bound, a noisy short log that learns steadily warned by chance (60
#: generated logs of 40-250 losses falling 14% over their last 60% with per-record noise of
#: 30%: 16 warned). On 1,350 generated logs of 20-3,000 losses falling 8-33% over their last
#: 60% under noise 2-30% (notes/fix13b.md), plateau alerts on 35 against 31 before this rule
#: read judged logs and logs of 20-39 losses; 40 with SHORT_Z for the level's band too, 75
#: with either line's bound enough (ours)
SHORT_Z = 1.645
SHORT_MIN_RECORDS = MIN_RECORDS
SHORT_KEEP = 1024
#: frames: a block completed with at most this many rows left is filled row by row (cheaper
#: than the columnar ``_add`` for a few rows)
SMALL_BLOCK = 12


def _seq_sum(s: float, x: np.ndarray) -> float:
    """``s + x[0] + x[1] + ...`` added left to right, as a loop of ``s += v`` does."""
    return float(np.concatenate(([s], x)).cumsum()[-1])


def _short_const(n, seen):
    """``n`` identical losses in a row are SHORT_CONST_SHARE of the ``seen`` so far, in a short log (CONST_RECORDS
    / SHORT_CONST_SHARE losses at most): the short log's constant rule (scalars or arrays)."""
    return (n >= SHORT_CONST_SHARE * seen) & (seen < CONST_RECORDS / SHORT_CONST_SHARE)


class _Block:
    __slots__ = ("first", "last", "loss_sum", "loss_sumsq", "n", "grad_sum", "grad_n", "spk", "zeros", "lr")

    def __init__(self, step: int) -> None:
        self.first = self.last = step
        self.loss_sum = 0.0
        self.loss_sumsq = 0.0
        self.n = 0
        self.grad_sum = 0.0
        self.grad_n = 0
        self.spk = 0  # losses above the spike cap in it
        self.zeros = 0  # losses of exactly 0 in it
        self.lr: float | None = None  # the first finite LR logged in it

    def see_lr(self, lr: np.ndarray | None) -> None:
        """The block's first finite LR, from LRs ``lr`` of its rows (when it has none yet)."""
        if self.lr is None and lr is not None:
            ok = np.flatnonzero(np.isfinite(lr))
            if ok.size:
                self.lr = float(lr[ok[0]])

    def merge(self, o: "_Block") -> None:
        self.last = o.last
        self.loss_sum += o.loss_sum
        self.loss_sumsq += o.loss_sumsq
        self.n += o.n
        self.grad_sum += o.grad_sum
        self.grad_n += o.grad_n
        self.spk += o.spk
        self.zeros += o.zeros
        if self.lr is None:
            self.lr = o.lr


class _Fit:
    """A weighted least-squares line through block means: the improvement rate per
    window ``r`` (relative to the level), its standard error ``se``, the fitted level
    at the last block and the number of records."""

    __slots__ = ("r", "se", "level", "n")

    def __init__(self, r: float, se: float, level: float, n: float) -> None:
        self.r, self.se, self.level, self.n = r, se, level, n


_ZERO = (0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def _rate_words(r: float, se: float, L: int) -> str:
    """A window's rate in words: "falls 2.10% +- 0.52% per 200-step window" ("rises" for a
    climb); a line that drops more than the loss's level in a window (a fast early descent,
    r >= 1) "falls fast": a rate of +203% per window read as a number means nothing."""
    if r >= 1:
        return f"falls fast: more than its level per {L}-step window"
    return f"{'falls' if r >= 0 else 'rises'} {abs(r):.2%} +- {Z * se:.2%} per {L}-step window"


_HASH_SPAN = 1 << 64
_M64 = _HASH_SPAN - 1


def _mix(i: int) -> int:
    """SplitMix64's finaliser of ``i``: a well-mixed 64-bit hash of a loss's index."""
    z = (i + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _mix_many(i0: int, m: int) -> np.ndarray:
    """``_mix`` of the indices ``i0`` .. ``i0 + m - 1`` (uint64 arithmetic wraps as the mask does)."""
    z = np.arange(i0, i0 + m, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _median_line(keep: list[tuple[int, float, float | None, int]], o: int) -> tuple[float, float] | None:
    """The losses ``keep`` (step, loss, LR) in SHORT_WINDOWS equal-count windows: a
    least-squares line through the medians of windows ``o``.. the last, at their middle
    steps (``_line_gain``): its drop over them and its standard error, from the scatter of
    the medians about the line, not from the per-record noise (None when it cannot be
    fitted)."""
    n = len(keep)
    pts = []
    for w in range(o, SHORT_WINDOWS):
        part = keep[w * n // SHORT_WINDOWS : (w + 1) * n // SHORT_WINDOWS]
        if part:
            pts.append((0.5 * (part[0][0] + part[-1][0]), median([p[1] for p in part])))
    return _line_gain(pts)


def _line_gain(pts: list[tuple[float, float]]) -> tuple[float, float] | None:
    """A least-squares line through the losses ``pts`` (step, loss): its drop over their span
    relative to their mean, and that drop's standard error (None when it cannot be fitted)."""
    t = np.array([p[0] for p in pts], dtype=float)
    x = np.array([p[1] for p in pts], dtype=float)
    t -= t.mean()
    stt = float(t @ t)
    m = float(x.mean())
    if stt <= 0 or x.size < 3 or not m > 0:
        return None
    slope = float(t @ (x - m)) / stt
    res = x - m - slope * t
    se = math.sqrt(float(res @ res) / (x.size - 2) / stt)
    span = float(t.max() - t.min())
    return -slope * span / m, se * span / m


class PlateauDetector(Detector):
    id = "plateau"
    title = "Loss Plateau"
    label = "Plateau"
    short = "plat"
    column = ("plat", "p")
    core = True
    metric = "loss"
    order = 50
    urgency = 100

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.blocks: list[_Block] = []
        self._lasts: list[int] = []  # blocks' last steps (bisection)
        #: prefix sums over blocks of (count, n, n t, n t^2, s, s t, s^2 / n, ss), t = the
        #: block's mid step - t0; a block with a spike in it adds nothing
        self._P: list[tuple] = [_ZERO]
        self._t0: int | None = None
        self.block_size = 1
        self._cur: _Block | None = None
        self.n = 0
        self.start: int | None = None  # current (candidate) plateau's first step
        self.level: float | None = None
        #: (start, end, level) of the longest reported stall that ended
        self.longest: tuple[int, int, float | None] | None = None
        self.warned = False  # the current plateau raised its warning / critical alert
        self.failed = False
        self.dead_hint = False
        self.converged_at: int | None = None
        self.judged = False  # a window has been fitted: the run was long enough to be judged
        self._resumed_at: int | None = None  # the step the log last went back to (on_resume)
        self._gn_early: float | None = None
        self._cap: float | None = None  # a loss above it is a spike (see SPIKE_SD)
        self._spike_at: int | None = None  # step of the newest one
        self._proven_since: int | None = None  # first evaluation of the current run of flat proofs
        self._proven = False  # the last evaluation proved the open span flat
        #: ... and (for a run that has not materially improved since its start) proved it
        #: flat within FLOOR of the bar, or (``_slow``) found it still measurably improving
        self._strict = True
        self._slow: float | None = None  # the improvement per window of a slow span
        #: steps with a loss, each counted once (the highest so far, and how many times it rose): the never-learned
        #: rule's length is in steps (fresh88's 8-rank IPU benchmark, 80 records of 10 steps, FAILed "not learning")
        self._step_hi: int | None = None
        self._steps_n = 0
        #: the run's first FIRST_RECORDS losses: its first level is their mean (``_first_level``), the floor's
        #: their median (``_near_floor``)
        self._firsts: list[float] = []
        self._same_val: float | None = None  # the current run of identical loss values
        self._same_from: int | None = None
        self._same_n = 0
        self._before_same: float | None = None  # the loss just before the current run of identical ones
        self.const: tuple[float, int] | None = None  # (value, first step) of a constant loss
        self.const_short = False  # ... said by the short log's rule (SHORT_CONST): a warning
        self.const_floor = False  # ... at the floor of what the log prints (FLOOR_FRAC): a warning
        self.zero: tuple[int, int, int] | None = None  # loss 0 at its floor (ZERO_SHARE): (since, zeros, records)
        self.rising: tuple[float, float] | None = None  # the last window climbed: (from, to) levels
        self.lr_early: float | None = None  # progress at which a decayed LR was seen too early
        self._lr_zero_from: int | None = None  # the first step of the current stretch of LR 0
        #: the last finite LR, the pairs of consecutive finite LRs and how many of them differ (LR_STEPPED)
        self._lr_last: float | None = None
        self._lr_pairs = self._lr_moves = 0
        #: never learned (settings.never_*): the first and the last never_records losses, the
        #: run has materially improved at some block (a latch: then it learned), and what
        #: was said: (median first, median last, step, critical)
        self._head: list[float] = []
        self._tail: deque = deque(maxlen=settings.never_records)
        self._learned = False
        self.never: tuple[float, float, int, bool] | None = None
        self.converged_how = ""  # "with the LR decayed" / "at N% of the planned run"
        #: a short log's plateau said at its end (``_short_plateau``): (first step, last step,
        #: losses in it, median of its first third, of its last third); the losses and their
        #: steps while at most SHORT_KEEP (None after)
        self._short: tuple[int, int, int, float, float] | None = None
        self._noisy = False  # ... said of a judged log whose windows were too noisy (not a short one)
        #: a sample of the finite losses as (step, loss, LR or None, hash of the loss's index):
        #: those whose hash is under 2^64 / _keep_every (``_mix``), at most 2 x SHORT_KEEP
        self._keep: list[tuple[int, float, float | None, int]] = []
        self._keep_every = 1
        self._keep_seen = 0  # finite losses offered to the sample
        #: the lowest level (``_recent_level``: the mean of the newest blocks holding REF_RECORDS
        #: records) seen at a block's completion, and that block's last step
        self.best: tuple[float, int] | None = None
        self._kind = ObjectiveKind()  # a GAN's or an RL run's objective: it may rise as it learns
        self._pace: float | None = None  # improvement rate over the window before the open plateau
        self._sched = SchedulePeak()  # the LR schedule's peak (an LR jump is not it)
        #: the newest window's fit: (rate, its se, measurably moving, the flat bar) - what the
        #: verdict says when no plateau was proven (never "still improving" unmeasured)
        self._win: tuple[float, float, bool, float] | None = None
        #: the epoch numbers of the losses (EPOCH_RESET): the last one, all whole numbers so
        #: far, one of them held by two losses in a row, and the steps of the last two changes
        self._ep: float | None = None
        self._ep_whole = True
        self._ep_rep = False
        self._ep_chg: tuple[tuple[int, float] | None, tuple[int, float] | None] = (None, None)  # (step, epoch)
        self._ep_first: float | None = None
        self._unit = StepUnit(settings)  # a step of the log is an epoch: the window in epochs (window_steps)
        #: the loss before, and the sums and counts of its changes inside an epoch and at a change
        self._ep_x = 0.0
        self._ep_d = [0.0, 0.0]
        self._ep_n = [0, 0]

    def update(self, rec: StepRecord) -> list[Alert]:
        if rec.extra:
            self._kind.see(rec.extra)
        x = rec.loss
        if x is None or not math.isfinite(x):
            return []
        if rec.epoch is not None:
            self._epoch(rec.epoch, rec.step, x)
        full = self._row(x, rec.step, rec.grad_norm, rec.lr)
        out = self._constant(rec.step) if self._same_n >= SHORT_CONST and self._const_open() else []
        if not full:
            return out
        self._complete()
        return out + self._zero_floor(rec.step) + self._never_learned(rec.step) + self._evaluate(rec.step)

    def _row(self, x: float, step: int, g, lr) -> bool:
        """Add one finite loss (and its grad norm and LR) to the open block; True when
        that completes the block (``_complete`` and ``_evaluate`` come next)."""
        self.n += 1
        if self._t0 is None:
            self._t0 = step
        self._sched.update(lr)
        if lr is not None and math.isfinite(lr):
            if self._lr_last is not None:
                self._lr_pairs += 1
                self._lr_moves += lr != self._lr_last
            self._lr_last = lr
            if lr != 0:
                self._lr_zero_from = None
            elif self._lr_zero_from is None:
                self._lr_zero_from = step
        b = self._cur
        if b is None:
            b = self._cur = _Block(step)
        if b.lr is None and lr is not None and math.isfinite(lr):
            b.lr = lr
        if self._cap is not None and x > self._cap:
            self._spike_at = step
            b.spk += 1
        if self._step_hi is None or step > self._step_hi:
            self._step_hi = step
            self._steps_n += 1
        if len(self._firsts) < FIRST_RECORDS:
            self._firsts.append(x)
        if len(self._head) < self.settings.never_records:
            self._head.append(x)
        self._tail.append(x)
        h = _mix(self._keep_seen)
        if h < _HASH_SPAN // self._keep_every:
            self._keep.append((step, x, lr, h))
            if len(self._keep) > 2 * SHORT_KEEP:
                self._thin()
        self._keep_seen += 1
        if x == self._same_val:
            self._same_n += 1
        else:
            self._before_same = self._same_val
            self._same_val, self._same_from, self._same_n = x, step, 1
        b.last = step
        if x == 0:
            b.zeros += 1
        b.loss_sum += x
        b.loss_sumsq += x * x
        b.n += 1
        if g is not None and math.isfinite(g):
            b.grad_sum += g
            b.grad_n += 1
        return b.n >= self.block_size

    def _epoch(self, e: float, step: int, x: float) -> None:
        """One loss ``x``'s epoch number (EPOCH_RESET; a step that is an epoch: ``window_steps``)."""
        if not math.isfinite(e):
            return
        self._unit.see(step, e)
        if e != math.floor(e):
            self._ep_whole = False
        if self._ep is not None:
            i = 0 if e == self._ep else 1
            if i:
                self._ep_chg = (self._ep_chg[1], (step, e))
            else:
                self._ep_rep = True
            self._ep_d[i] += abs(x - self._ep_x)
            self._ep_n[i] += 1
        else:
            self._ep_first = e
        self._ep, self._ep_x = e, x

    def _epochs(self, ep, steps, x) -> None:
        """``_epoch`` for rows ``ep`` (None: no epoch column) at ``steps``, losses ``x``, as columns."""
        if ep is None or not ep.size:
            return
        ok = np.isfinite(ep)
        if not ok.all():
            ep, steps, x = ep[ok], steps[ok], x[ok]
            if not ep.size:
                return
        self._unit.see_frame(steps, ep)
        if self._ep is None:
            self._ep_first = float(ep[0])
        if self._ep_whole and not bool((ep == np.floor(ep)).all()):
            self._ep_whole = False
        prev = np.empty_like(ep)
        prev[0] = np.nan if self._ep is None else self._ep
        prev[1:] = ep[:-1]
        same = ep == prev
        if not self._ep_rep and bool(same.any()):
            self._ep_rep = True
        px = np.empty_like(x)
        px[0] = self._ep_x
        px[1:] = x[:-1]
        d = np.abs(x - px)
        inside = same
        across = ~same & ~np.isnan(prev)
        for i, m in ((0, inside), (1, across)):
            k = int(np.count_nonzero(m))
            if k:
                self._ep_d[i] = _seq_sum(self._ep_d[i], d[m])
                self._ep_n[i] += k
        self._ep_x = float(x[-1])
        chg = np.flatnonzero(across)
        if chg.size >= 2:
            self._ep_chg = ((int(steps[chg[-2]]), float(ep[chg[-2]])), (int(steps[chg[-1]]), float(ep[chg[-1]])))
        elif chg.size:
            self._ep_chg = (self._ep_chg[1], (int(steps[chg[-1]]), float(ep[chg[-1]])))
        self._ep = float(ep[-1])

    def _epochs_whole(self) -> bool:
        """The losses carry whole epoch numbers, several to an epoch (EPOCH_RESET)."""
        return self._ep_whole and self._ep_rep

    def _running_means(self) -> bool:
        """The losses look like each epoch's running mean (EPOCH_RESET): whole epochs, several
        records to one, and a loss that jumps at an epoch change, barely moving inside one."""
        (di, dc), (ni, nc) = self._ep_d, self._ep_n
        if not (self._epochs_whole() and ni > 0) or ni < nc:
            # (fewer records inside epochs than epoch changes: about one record an epoch, so no window lies
            # inside one; the sums are no test then, one spike at a change outweighs the rest: fresh71's
            # Lightning CSV, a PINN's per-step loss every 50 steps of 63-step epochs, a 125.8 blow-up at a
            # change, read as running means and never judged by the level rule)
            return False
        if nc == 0:  # (no epoch change yet: as smooth as a running mean)
            return di < EPOCH_SMOOTH * abs(self._ep_x) * ni
        return dc * ni > EPOCH_RESET * di * nc

    def _whole_epoch(self) -> bool:
        """The open span holds a whole epoch, or the losses do not look like each epoch's
        running mean (EPOCH_RESET)."""
        if not self._running_means():
            return True
        a = self._ep_chg[0]
        return a is not None and self.start is not None and a[0] >= self.start

    def _before_log(self) -> int:
        """Steps of the run before its log began, as its epochs tell: a log
        that starts at epoch 16 of whole epochs of N steps (measured between its last two
        epoch changes) is ~15 N steps into its run (a 1-based count; 0 for a log that starts
        at epoch 0 or 1, or before a whole epoch was seen)."""
        a, b = self._ep_chg
        e0 = self._ep_first
        if a is None or b is None or e0 is None or e0 <= 1 or not self._epochs_whole() or not b[1] > a[1]:
            return 0
        return int((e0 - 1) * (b[0] - a[0]) / (b[1] - a[1]))

    def _complete(self) -> None:
        """The open block is full: into the list (neighbours merge when it is full),
        the prefix sums and the spike cap."""
        b = self._cur
        assert b is not None  # (called with a block open)
        self._cur = None
        self.blocks.append(b)
        if len(self.blocks) > MAX_BLOCKS:
            merged = []
            for i in range(0, len(self.blocks) - 1, 2):
                a = self.blocks[i]
                a.merge(self.blocks[i + 1])
                merged.append(a)
            if len(self.blocks) % 2:
                merged.append(self.blocks[-1])
            self.blocks = merged
            self.block_size *= 2
            self._reindex()
        else:
            self._lasts.append(b.last)
            self._P.append(self._prefix(self._P[-1], b))
        self._cap = self._level_cap()
        lvl = self._recent_level()
        if lvl is not None and (self.best is None or lvl < self.best[0]):
            # the same statistic as the level it is compared with (``_rest``): the lowest
            # block mean of a noisy loss is its luckiest block, and a loss printed near
            # zero (2e-4 vs 4e-4) would read "1.6x its best"
            self.best = (lvl, b.last)
        if not self._learned and len(self._firsts) >= FIRST_RECORDS:
            self._learned = lvl is not None and self._gained(lvl)

    def _prefix(self, p: tuple, b: _Block) -> tuple:
        if b.spk:
            return p
        n, s = b.n, b.loss_sum
        assert self._t0 is not None  # (set with the first block)
        t = 0.5 * (b.first + b.last) - self._t0
        nt = n * t
        return (
            p[0] + 1,
            p[1] + n,
            p[2] + nt,
            p[3] + nt * t,
            p[4] + s,
            p[5] + s * t,
            p[6] + s * s / n,
            p[7] + b.loss_sumsq,
        )

    def _reindex(self) -> None:
        self._lasts = [b.last for b in self.blocks]
        P = [_ZERO]
        for b in self.blocks:
            P.append(self._prefix(P[-1], b))
        self._P = P

    def _fit(self, j: int, L: int, end: int | None = None) -> _Fit | None:
        """The line through the block means of ``blocks[j:end]`` (blocks with a spike left
        out); None with fewer than 3 blocks or MIN_RECORDS records."""
        a, b = self._P[j], self._P[-1 if end is None else end]
        k = b[0] - a[0]
        W = b[1] - a[1]
        if k < 3 or W < MIN_RECORDS:
            return None
        Tw, TTw, S, TS, MM, SS = (b[i] - a[i] for i in range(2, 8))
        m = S / W
        tb = Tw / W
        Stt = TTw - Tw * tb
        if Stt <= 0 or m == 0:
            return None
        slope = (TS - tb * S) / Stt
        Smm = MM - S * m
        between = max(0.0, Smm - slope * (TS - tb * S)) / (k - 2)
        within = max(0.0, SS - MM) / (W - k) if W > k else 0.0
        se = math.sqrt(max(between, within) / Stt)
        scale = abs(m) / L
        lb = self.blocks[-1 if end is None else end - 1]
        assert self._t0 is not None  # (set with the first block)
        t_end = 0.5 * (lb.first + lb.last) - self._t0
        return _Fit(-slope / scale, se / scale, m + slope * (t_end - tb), W)

    def _bar(self, level: float) -> tuple[float, float]:
        """(rate a moving loss beats, rate a flat loss stays under) per window, for this
        run's progress. A run that has not materially improved must move by plateau_rel
        per window, or by what gains RUN_MIN_GAIN over the rest of its plan when that is
        less. A run that has: any measurable improvement above FLOOR is moving, and it
        is flat below plateau_rel and below PACE x the pace it had before the stall."""
        rel = self.settings.plateau_rel
        if self._gained(level):
            flat = rel if self._pace is None else min(rel, PACE * self._pace)
            return FLOOR * rel, flat
        st = self.state
        total, now = st.info.total_steps, st.last_step
        if total and now is not None and total > now:
            rel = min(rel, RUN_MIN_GAIN * self.window_steps() / (total - now))
        return rel, rel

    def _span_first(self) -> int:
        """The first block of the open plateau's span (a block that merged records from before its
        start is left out)."""
        assert self.start is not None  # (called with a plateau open)
        k = bisect_left(self._lasts, self.start)
        if k < len(self.blocks) and self.blocks[k].first < self.start:
            k += 1
        return k

    def _span_gain(self, L: int) -> tuple[float, float] | None:
        """(improvement per window, over the whole span) of a plateau said flat whose span, judged
        whole at the end, is proven falling and has gained SHORT_GAIN or more since its start (the
        labels' bar for no progress): slow steady progress, not a plateau (issue 26; fresh60's resumed
        GPT-2 epoch, 3.12 -> 2.99 over 19,073 steps with every tenth lower, FAILed "flat for 19073
        steps" from a 640-step window at its start). None otherwise."""
        if self.start is None:
            return None
        now = self._now()
        f = self._fit(self._span_first(), L)
        if f is None or not f.r - Z * f.se > 0:
            return None
        gain = f.r * (now - self.start) / L
        # ... and its second half by as much on its own (the labels' bar: W4 -> W9 under 2% is no
        # progress): a span that fell at its head (the end of the descent) and hardly since is a plateau
        # (paramgolf's 10B-token run, 2.7% over a span from step 12,800 of 329,000; a resumed Qwen3
        # launch, 3.5% over the span, 1.9% over its second half)
        mid = bisect_left(self._lasts, (self.start + now) // 2)
        h = self._fit(mid + 1, L) if mid + 1 < len(self.blocks) else None
        if h is None or not h.r - Z * h.se > 0 or h.r * (now - self.blocks[mid + 1].first) / L < SHORT_GAIN:
            return None
        return (f.r, gain) if gain >= SHORT_GAIN else None

    def _strictly_flat(self, f: _Fit) -> tuple[bool, float | None]:
        """(the span may FAIL, its improvement per window when it is slow): a run that has
        not materially improved since its start is proven flat below its bar, which a
        steady slow descent can be (continued pre-training: 4% over the run); it FAILs only
        when proven flat within FLOOR x the bar, and a span still measurably improving is
        said to be improving slowly, not flat (issue 26: "slow steady progress is not a
        plateau"). A run that has improved: its bars already are FLOOR / PACE (``_bar``)."""
        if self._learned or self._gained(f.level):  # (improved materially at some block: it learned)
            # ... unless neither an LR nor a plan is known: a run that learned and then went flat may
            # have converged (its schedule's end) as well as stalled, and nothing tells which (fresh23's
            # PredNet: 0.110 -> 0.022, flat after an LR step the log prints only in prose): a WARN
            return not self._blind(), None
        strict = abs(f.r) + Z * f.se < FLOOR * self._bar(f.level)[1]
        return strict, (f.r if f.r - Z * f.se > 0 else None)

    def _blind(self) -> bool:
        """No LR logged and no planned steps known: convergence cannot be told from a stall."""
        st = self.state
        return st.last_lr is None and self._peak() is None and st.progress() is None

    def _moving(self, f: _Fit, reported: bool = False) -> bool:
        """Measurably improving (beyond the bar for this run's progress), or climbing
        by more than plateau_rel per window: either way not flat. A plateau already
        ``reported`` moves on only when it leaves the band it was proven flat in:
        measurably faster than the flat bar (hysteresis: a loss said to be flat below
        1% per window that then drifts 0.3% per window as its LR decays is the same
        plateau, not a stall that "then improved")."""
        move, flat = self._bar(f.level)
        return f.r - Z * f.se > (flat if reported else move) or -f.r - Z * f.se > self.settings.plateau_rel

    def _flat(self, f: _Fit) -> bool:
        """Proven to move by less than the flat bar per window, either way (an equivalence
        test: a noisy descent whose estimate happens to climb is not proven flat)."""
        return abs(f.r) + Z * f.se < self._bar(f.level)[1]

    def _constant(self, step: int) -> list[Alert]:
        """The very same loss for CONST_RECORDS records and CONST_FRAC of the run so far
        (checked at every record: a loss of 0 is said at once, not at a block's end)."""
        if not self._const_open() or self._same_n < SHORT_CONST or self._same_from is None:
            return []
        short = self._same_n < CONST_RECORDS
        if self.const is not None and (short or self.const[1] != self._same_from):
            return []  # (said by the short rule: said again only as the long rule's, of the same run)
        if short:
            if self._kind.kind is not None or not _short_const(self._same_n, self._keep_seen):
                return []  # (an RL run's loss of exactly 0 is GRPO's by construction: fresh30's healthy pilot)
        else:
            span = step - (self.state.first_step or 0)
            if span <= 0 or step - self._same_from < CONST_FRAC * span:
                return []
        v = self._same_val
        assert v is not None  # (set with _same_from)
        if v == 0 and self._kind.kind == "rl":
            return []  # (an RL run's loss of exactly 0 is GRPO's by construction, however long: fresh126's runs)
        self.const = (v, self._same_from)
        self.const_floor = self._at_floor(v)
        self.const_short = short and not self.const_floor  # (a floor's warning is all a constant there gets)
        if self.const_floor:
            return [
                self._floor_alert(
                    step, f"constant at {fmt(v)} for {self._same_n} records since step {self._same_from}", v
                )
            ]
        why = (
            "a loss of exactly 0: the labels are masked out or leak into the inputs, the loss is not computed, "
            "or NaN / Inf is logged as 0 (HF logging_nan_inf_filter)"
            if v == 0
            else "frozen weights (no optimizer step applied) or a logging bug"
        )
        return [
            Alert(
                self.id,
                Severity.WARNING if short else Severity.CRITICAL,
                step,
                f"Loss exactly {fmt(v)} for {self._same_n} records since step {self._same_from}"
                + (f" ({self._same_n} of the log's {self._keep_seen})" if short else "")
                + f": the model is not learning ({why}).",
                value=v,
                baseline=None,
                actions=[
                    "Check the loss computation and the labels (masking, padding, label shift) on one batch by hand.",
                    "Check that optimizer steps are applied (grad norm, skipped steps, frozen parameters).",
                ],
                key="plateau_const_short" if short else "plateau_const",
            )
        ]

    def _const_open(self) -> bool:
        """The constant-loss rule may still speak: nothing said, or only the short log's warning (the
        long rule's critical alert follows when the run of the same value goes on: CONST_RECORDS)."""
        return self.const is None or self.const_short

    def _still_stuck(self) -> float | None:
        """After the constant-loss alert, the run of identical values broke but the loss stayed
        at that value within CONST_BAND (a bf16 loss printed as 9.625 / 9.6875, the two
        representable values around it): the largest relative distance of the last losses
        from it, or None (it moved on, or the constant was a floor)."""
        if self.const is None or self.const_floor or self.const_short or not self.const[0] or not self._tail:
            return None
        v = self.const[0]
        dev = max(abs(x - v) for x in self._tail) / abs(v)
        return dev if dev <= CONST_BAND else None

    def _first_level(self) -> float | None:
        """The run's first level: the mean of its first FIRST_RECORDS losses (None before one)."""
        return sum(self._firsts) / len(self._firsts) if self._firsts else None

    def _near_floor(self, x: float | None) -> bool:
        """``x`` within FLOOR_FRAC of a positive first level, and not below 0. The first level here is
        the median of the first FIRST_RECORDS losses: a start that blew up (fresh98's fastai run,
        1.3e8 -> 1.6e9 -> 5e5 in 10 epochs, then flat at ~4.5e5 for 30) has a mean that puts any later
        level "at its floor", and a plateau there was never judged."""
        if x is None or not self._firsts:
            return False
        first = median(self._firsts)
        return first > 0 and 0 <= x <= FLOOR_FRAC * first

    def _at_floor(self, v: float) -> bool:
        """A constant loss ``v`` at the floor of what its log prints (FLOOR_FRAC), after a loss
        already there."""
        return self._near_floor(v) and self._near_floor(self._before_same)

    def _floor_now(self, now: int) -> str | None:
        """Said at its floor (the 0-share rule, or a constant at the floor) and still there
        at ``now``: 0 in ZERO_SHARE of the window, or a level within FLOOR_FRAC of the
        first; what is seen, else None."""
        if self.zero is None and not self.const_floor:
            return None
        zero = self._zero_share(now)
        if zero is not None:
            return f"loss exactly 0 in {zero[1]} of the last {zero[2]} records (since step {zero[0]})"
        lvl = self._recent_level()
        first = self._first_level()
        if lvl is not None and first is not None and self._near_floor(lvl):
            return f"loss ~{fmt(lvl)}, {lvl / first:.2%} of its first level {fmt(first)}"
        return None

    def _floor_alert(self, step: int, what: str, value: float = 0.0) -> Alert:
        """The loss at its floor (a constant at it, or 0 in half of a window): a warning."""
        return Alert(
            self.id,
            Severity.WARNING,
            step,
            f"Loss {what}: the training loss is at its floor, with nothing left to learn from. A small training set "
            "is memorised; or the labels leak into the inputs or the loss is not computed (HF "
            "logging_nan_inf_filter logs NaN / Inf as 0); in RL, every advantage is 0 (all rewards equal).",
            value=value,
            baseline=None,
            actions=[
                "Compare with the validation loss: a training loss at 0 beside a rising validation loss is "
                "memorisation; keep the best validation checkpoint and stop, or add data / regularisation.",
                "Check the loss computation and the labels on one batch by hand (masking, label shift, leakage).",
            ],
            key="plateau_floor",
        )

    def _level_cap(self) -> float | None:
        """Above this a loss is a spike (see SPIKE_SD); None until REF_RECORDS are in blocks."""
        n, sm, ss = 0, 0.0, 0.0
        for b in reversed(self.blocks):
            n, sm, ss = n + b.n, sm + b.loss_sum, ss + b.loss_sumsq
            if n >= REF_RECORDS:
                m = sm / n
                sd = math.sqrt(max(0.0, ss / n - m * m))
                if m > 0:  # multiplicative noise (a per-sample loss is skewed up): 4 sd on a log scale
                    return m * math.exp(min(700.0, max(SPIKE_SD * sd / m, math.log1p(SPIKE_REL))))
                return m + max(SPIKE_SD * sd, SPIKE_REL * abs(m))
        return None

    # -- columnar hooks (the driver is Detector.update_frame) -------------------------
    # Only the record that completes a block does more than add to the open block
    # (merge, evaluate with the RunState it saw), and the one that makes the loss a
    # constant (CONST_RECORDS): the screen flags them; the bulk adds the rows before
    # them to the open block, in the same order (cumsum adds one value at a time, as
    # ``b.loss_sum += x`` does; np.sum would add pairwise). Non-finite losses are not rows
    # for this check.
    def prepare(self, fr):
        if fr.extra:
            self._kind.see(fr.extra)
        loss = fr.get("loss")
        if loss is None:
            return None
        rows = None  # frame index of each finite loss (None: every row)
        with np.errstate(invalid="ignore", over="ignore"):
            total = loss.sum()
        if not math.isfinite(total):  # (a NaN or an Inf makes the sum one; so may a huge sum)
            ok = np.isfinite(loss)
            rows = None if ok.all() else np.flatnonzero(ok)
        first = self.state.first_step if self.state.first_step is not None else int(fr.step[0])
        return rows, first

    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        if cx is None:
            return NONE
        rows, first = cx
        k, e = (a, b) if rows is None else np.searchsorted(rows, (a, b))  # finite losses [k, e)
        if k >= e:
            return NONE
        flag = e
        if self._block_end_speaks(fr.cols["loss"][a:b] if rows is None else fr.cols["loss"][rows[k:e]]):
            # a candidate is open (or the run may be found never to learn, or its loss at
            # 0): the evaluation at the block's end can raise the alert
            flag = k + self.block_size - (self._cur.n if self._cur is not None else 0) - 1
        if self._const_open() and flag > k:
            x = fr.cols["loss"][k : min(flag, e)] if rows is None else fr.cols["loss"][rows[k : min(flag, e)]]
            st = fr.step[k : k + x.size] if rows is None else fr.step[rows[k : k + x.size]]
            r = self._const_row(x, st, first)
            if r is not None:  # the constant's alert comes from this row: update() says it
                flag = k + r
        if flag >= e:
            return NONE
        return np.array([flag]) if rows is None else rows[flag : flag + 1]

    def _block_end_speaks(self, x: np.ndarray) -> bool:
        """The next block's completion may raise an alert (it goes through ``update``),
        its losses among ``x``: a candidate is open, the bulk does not evaluate, the run
        may be found never to learn, or its loss may be at 0 (``_zero_floor``)."""
        return (
            self.start is not None
            or not self._bulk_evaluates()
            or self._never_watch()
            or (self._zero_watch() and (self._zero_recent() or bool(np.count_nonzero(x == 0))))
        )

    def _bulk_evaluates(self) -> bool:
        """The bulk may complete blocks and evaluate them itself while no candidate is
        open: such an evaluation can open one, never say one (a candidate is said only
        after CONFIRM x L steps of flat proofs, L >= plateau_steps > 0)."""
        return self.settings.plateau_steps > 0

    def bulk(self, fr, cx, a: int, b: int) -> int | None:
        """Rows [a, b): added to the open block; a block they complete is completed and
        evaluated here, with the RunState its last record saw, while no candidate is
        open (see ``_bulk_evaluates``); a completion with one open stops the bulk
        (``update`` takes it)."""
        if cx is None:
            return None
        rows = cx[0]
        # the rows [a, b): a slice, or the frame rows of the check (indexed only then)
        sel: Any = slice(a, b) if rows is None else rows[slice(*np.searchsorted(rows, (a, b)))]
        x = fr.cols["loss"][sel]
        m = x.size
        if not m:
            return None
        steps = fr.step[sel]
        gn, lr = fr.get("grad_norm"), fr.get("lr")
        gn = None if gn is None else gn[sel]
        lr = None if lr is None else lr[sel]
        ep = fr.get("epoch")
        ep = None if ep is None else ep[sel]
        pos = 0
        while True:
            c = pos + self.block_size - (self._cur.n if self._cur is not None else 0) - 1  # completes the block
            if c >= m:  # no completion in the rest
                if pos < m:
                    self._add(x[pos:], steps[pos:], None if gn is None else gn[pos:], None if lr is None else lr[pos:])
                    self._epochs(None if ep is None else ep[pos:], steps[pos:], x[pos:])
                return None
            if self._block_end_speaks(x[pos : c + 1]):
                if c > pos:
                    self._add(
                        x[pos:c], steps[pos:c], None if gn is None else gn[pos:c], None if lr is None else lr[pos:c]
                    )
                    self._epochs(None if ep is None else ep[pos:c], steps[pos:c], x[pos:c])
                return a + c if rows is None else int(sel[c])
            e = c + 1
            bs = self.block_size
            if e - pos == bs and bs > SMALL_BLOCK and len(self._firsts) >= FIRST_RECORDS:
                k = min((m - pos) // bs, MAX_BLOCKS + 1 - len(self.blocks))  # whole blocks, up to a merge
                if k > 1:
                    pos += self._blocks(
                        fr,
                        (lambda i, p=pos: a + p + i) if rows is None else (lambda i, p=pos: int(sel[p + i])),
                        x[pos:],
                        steps[pos:],
                        None if gn is None else gn[pos:],
                        None if lr is None else lr[pos:],
                        k,
                        None if ep is None else ep[pos:],
                    )
                    continue
            if e - pos <= SMALL_BLOCK:  # a few rows: one by one is cheaper than the columns
                row = self._row
                for v, t, g, r in zip(
                    x[pos:e].tolist(),
                    steps[pos:e].tolist(),
                    repeat(None) if gn is None else gn[pos:e].tolist(),
                    repeat(None) if lr is None else lr[pos:e].tolist(),
                ):
                    row(v, t, g, r)
            else:
                self._add(x[pos:e], steps[pos:e], None if gn is None else gn[pos:e], None if lr is None else lr[pos:e])
            self._epochs(None if ep is None else ep[pos:e], steps[pos:e], x[pos:e])
            self._complete()
            now = int(steps[c])
            if not self._idle(now):
                fr.sync(a + c if rows is None else int(sel[c]))
                self._evaluate(now)  # (says nothing: no candidate was open)
            pos = e

    def _idle(self, now: int) -> bool:
        """``_evaluate(now)`` would change nothing, with no candidate open: the blocks
        span less than 0.8 x the window's base (<= 0.8 x the window: it cannot be judged,
        see ``_evaluate``) and the early-LR check cannot fire (no plan, or said). (The base,
        not plateau_steps: a log of one record an epoch has a window of EPOCH_WINDOW epochs, and
        the frames' path skipped every evaluation of fresh98's 42-epoch DVCLive run that the
        records' path made: "still improving" from its first window's fall of 1e9 to 5e5.)"""
        blocks = self.blocks
        return (not blocks or now - blocks[0].first < 0.8 * self._window_base()) and (
            self.lr_early is not None or not self.state.info.total_steps
        )

    def _const_row(self, x, steps, first: int) -> int | None:
        """Position of the first of rows ``x`` at which ``_constant`` would raise its
        alert (the same value CONST_RECORDS times in a row, over CONST_FRAC of the
        run), or None."""
        carry = self._same_n if x[0] == self._same_val else 0
        if carry + 1 < SHORT_CONST and not (x[1:] == x[:-1]).any():  # every row differs from the one before
            return None
        ch = np.flatnonzero(x[1:] != x[:-1])  # a new run of equal values begins after these
        starts = ch + 1  # where a new run of equal values begins
        longest = max(
            carry + (int(starts[0]) if starts.size else x.size),
            int(np.diff(starts).max()) if starts.size > 1 else 0,
            x.size - int(starts[-1]) if starts.size else 0,
        )
        if longest < SHORT_CONST:
            return None
        idx = np.arange(x.size)
        begin = np.zeros(x.size, dtype=np.int64)
        begin[starts] = starts
        begin = np.maximum.accumulate(begin)  # the row where each row's run began (0: the carried run)
        cont = (begin == 0) & (carry > 0)
        n = np.where(cont, carry + idx + 1, idx - begin + 1)
        src = np.where(cont, self._same_from if self._same_from is not None else 0, steps[begin])
        span = steps - first
        said = (n >= CONST_RECORDS) & (span > 0) & ~(steps - src < CONST_FRAC * span)
        if self._kind.kind == "rl":
            said &= x != 0  # (as _constant: an RL run's loss of exactly 0)
        if self._kind.kind is None:  # (the short log's rule: not an RL run's or a GAN's objective, as _constant)
            said |= (n >= SHORT_CONST) & (n < CONST_RECORDS) & _short_const(n, self._keep_seen + idx + 1)
        hit = np.flatnonzero(said)
        return int(hit[0]) if hit.size else None

    def _count_steps(self, steps) -> None:
        """``_row``'s count of the steps above every one before them, and the highest, for rows of a frame."""
        if not steps.size:
            return
        lo = self._step_hi
        seq = steps if lo is None else np.concatenate((np.array([lo], dtype=steps.dtype), steps))
        hi = np.maximum.accumulate(seq)
        self._steps_n += int(np.count_nonzero(hi[1:] > hi[:-1])) + (1 if lo is None else 0)
        self._step_hi = int(hi[-1])

    def _add(self, x, steps, gn, lr=None) -> None:
        if self._t0 is None:
            self._t0 = int(steps[0])
        if lr is not None:
            self._sched.update_many(lr)
            self._lr_zeros(lr, steps)
        b = self._cur
        if b is None:
            b = self._cur = _Block(int(steps[0]))
        b.see_lr(lr)
        self.n += x.size
        self._count_steps(steps)
        if len(self._firsts) < FIRST_RECORDS:
            self._firsts += x[: FIRST_RECORDS - len(self._firsts)].tolist()
        self._ends(x, steps, lr)
        self._same_run(x, steps)
        if self._cap is not None:
            hit = np.flatnonzero(x > self._cap)
            if hit.size:
                self._spike_at = int(steps[hit[-1]])
                b.spk += int(hit.size)
        b.last = int(steps[-1])
        b.zeros += int(np.count_nonzero(x == 0))
        b.loss_sum = _seq_sum(b.loss_sum, x)
        b.loss_sumsq = _seq_sum(b.loss_sumsq, x * x)
        b.n += x.size
        if gn is not None:
            gn = gn[np.isfinite(gn)]
            if gn.size:
                b.grad_sum = _seq_sum(b.grad_sum, gn)
                b.grad_n += gn.size

    def _ends(self, x: np.ndarray, steps: np.ndarray, lr: np.ndarray | None = None) -> None:
        """The first and the last never_records losses after rows ``x`` (at ``steps``, LRs
        ``lr``), and the sample of losses the level rule reads (SHORT_KEEP)."""
        k = self.settings.never_records - len(self._head)
        if k > 0:
            self._head += x[:k].tolist()
        self._tail.extend(x[-self.settings.never_records :].tolist())
        h = _mix_many(self._keep_seen, x.size)
        sel = (
            np.arange(x.size)
            if self._keep_every == 1
            else np.flatnonzero(h < np.uint64(_HASH_SPAN // self._keep_every))
        )
        lrs = repeat(None) if lr is None else lr[sel].tolist()
        self._keep += zip(steps[sel].tolist(), x[sel].tolist(), lrs, h[sel].tolist())
        self._keep_seen += x.size
        while len(self._keep) > 2 * SHORT_KEEP:
            self._thin()

    def _thin(self) -> None:
        """Keep the losses of the sample whose hash is under half the bound (about every other
        one, as a row by row sample would keep them: the hash is of the loss's index, so no
        period of the data, a batch order, aliases with the sample)."""
        self._keep_every *= 2
        cut = _HASH_SPAN // self._keep_every
        self._keep = [k for k in self._keep if k[3] < cut]

    def _lr_zeros(self, lr: np.ndarray, steps: np.ndarray) -> None:
        """The stretch of LR 0 after rows ``lr`` (steps ``steps``; NaN / Inf LRs are not
        LRs), as ``_row`` follows it."""
        ok = np.flatnonzero(np.isfinite(lr))
        if not ok.size:
            return
        v = lr[ok]
        if self._lr_last is not None:
            v = np.concatenate(([self._lr_last], v))
        self._lr_pairs += v.size - 1
        self._lr_moves += int(np.count_nonzero(v[1:] != v[:-1]))
        self._lr_last = float(v[-1])
        nz = ok[lr[ok] != 0]
        if nz.size and nz[-1] == ok[-1]:  # (the usual case: the last LR is not 0)
            self._lr_zero_from = None
            return
        if nz.size:  # the stretch begins at the first LR after the last one that is not 0
            self._lr_zero_from = int(steps[ok[np.searchsorted(ok, nz[-1], side="right")]])
        elif self._lr_zero_from is None:
            self._lr_zero_from = int(steps[ok[0]])

    def _same_run(self, x, steps) -> None:
        """The run of identical losses after rows ``x`` (steps ``steps``)."""
        m, last = x.size, x[-1]
        if m > 1 and x[-2] != last:  # (the usual case: the last value starts its own run)
            k = m - 1
        else:  # where the last run of equal values begins
            diff = x[::-1] != last
            k = m - int(diff.argmax()) if diff.any() else 0
        if not k and x[0] == self._same_val:
            self._same_n += m
        else:
            self._before_same = float(x[k - 1]) if k else self._same_val
            self._same_val, self._same_from, self._same_n = float(x[k]), int(steps[k]), m - k

    def _blocks(self, fr, at, x, steps, gn, lr, k: int, ep=None) -> int:
        """Rows ``x`` (frame rows ``at(i)``) as ``k`` whole blocks of the current size,
        none of them the last before a merge but the k-th, the open block empty:
        their sums at once (each one added left to right from 0.0, as ``b.loss_sum += x``
        does: a cumulative sum along the row), then each block completed and
        evaluated in turn, as ``update`` does at its last record. Stops after a block
        whose evaluation opened a candidate; returns the rows committed."""
        bs = self.block_size
        m = k * bs
        X = x[:m].reshape(k, bs)
        Z = np.zeros((k, bs + 1))

        def sums(v):
            Z[:, 1:] = v
            return Z.cumsum(axis=1)[:, -1].tolist()

        S, SS = sums(X), sums(X * X)
        if gn is not None:
            G = gn[:m].reshape(k, bs)
            ok = np.isfinite(G)
            GS, GN = sums(np.where(ok, G, 0.0)), ok.sum(axis=1).tolist()  # (+ 0.0: the sum unchanged)
        top = X.max(axis=1).tolist()
        zeros = np.count_nonzero(X == 0, axis=1).tolist()
        first, last = steps[:m:bs].tolist(), steps[bs - 1 : m : bs].tolist()
        sched = self._sched
        # the schedule's peak (read by the evaluations) cannot move: the LRs go in at the end
        fixed = lr is None or (sched.done and bool(lr[:m].max() <= sched.peak))
        done = k
        for i in range(k):
            b = _Block(first[i])
            b.last, b.loss_sum, b.loss_sumsq, b.n, b.zeros = last[i], S[i], SS[i], bs, zeros[i]
            if gn is not None:
                b.grad_sum, b.grad_n = GS[i], GN[i]
            cap = self._cap
            if cap is not None and top[i] > cap:
                hit = np.flatnonzero(X[i] > cap)
                b.spk = int(hit.size)
                self._spike_at = int(steps[i * bs + int(hit[-1])])
            self.n += bs
            self._count_steps(steps[i * bs : (i + 1) * bs])
            if lr is not None:
                b.see_lr(lr[i * bs : (i + 1) * bs])
                if not fixed:
                    sched.update_many(lr[i * bs : (i + 1) * bs])
                self._lr_zeros(lr[i * bs : (i + 1) * bs], steps[i * bs : (i + 1) * bs])
            if ep is not None:
                self._epochs(ep[i * bs : (i + 1) * bs], steps[i * bs : (i + 1) * bs], x[i * bs : (i + 1) * bs])
            self._cur = b
            self._complete()
            now = last[i]
            if not self._idle(now):
                fr.sync(at((i + 1) * bs - 1))
                self._evaluate(now)  # (says nothing: no candidate was open)
                if self.start is not None:
                    done = i + 1
                    break
        m = done * bs
        if fixed and lr is not None:
            sched.update_many(lr[:m])
        self._same_run(x[:m], steps[:m])
        self._ends(x[:m], steps[:m], None if lr is None else lr[:m])
        return m

    def _from_start(self) -> bool:
        """The log starts at the beginning of the run (its first step within 1% of the
        plan, or 100 steps)."""
        st = self.state
        total = st.info.total_steps
        return (st.first_step or 0) <= (max(100, 0.01 * total) if total else 100)

    def _peak(self) -> float | None:
        """The LR schedule's peak: the log's; the configured one when the log starts
        after the beginning (a resume: its first LR is already on the decay)."""
        p = self._sched.peak
        cfg = self.state.info.peak_lr
        if cfg and not self._from_start() and (p is None or cfg > p):
            return cfg
        return p

    def _gained(self, level: float) -> bool:
        """The run has materially improved since its first level (see RUN_MIN_GAIN); a
        log that does not start at the beginning of the run cannot tell."""
        first = self._first_level()
        if not self._from_start() or first is None:
            return True
        return first == 0 or (first - level) / abs(first) >= RUN_MIN_GAIN

    def _never_fit(self, now: int, said: bool = False) -> tuple[_Fit, int] | None:
        """(the line through the whole run, its span) when the run may be one that never
        learns at step ``now``: the line (``_fit``) not measurably falling by more than
        plateau_rel over the whole run (a run flat within 1% is flat), nor able to
        have gained RUN_MIN_GAIN (unless ``said``: a verdict given is withdrawn only on
        evidence of learning), nor proven to climb that much (divergence: the Loss Spike
        check); NEVER_MIN_RECORDS losses in a log that starts at the run's beginning and
        has not improved materially at any block. (Judged on the run as a whole only, see
        ``_never_learned``: a run that ends inside its warm-up never learned either.)"""
        if self._learned or len(self._firsts) < FIRST_RECORDS or self._steps_n < NEVER_MIN_RECORDS:
            return None
        span = now - (self._t0 if self._t0 is not None else now)
        f = self._fit(0, span) if span > 0 else None
        if (
            f is None
            or f.r - Z * f.se > self.settings.plateau_rel
            or (f.r + Z * f.se >= RUN_MIN_GAIN and not said)
            or -f.r - Z * f.se > RUN_MIN_GAIN
        ):
            return None
        return f, span

    def _never_state(self, now: int) -> tuple[bool, float, float, _Fit, int] | None:
        """A run that never learns (issue 26; trainproof's dead-run rule), judged at step
        ``now``: the median of its last never_records losses less than never_gain below
        the median of its first, and ``_never_fit``. (proven: the line keeps the gain below
        NEVER_PROVEN x never_gain, first median, last median, line, span)."""
        if len(self._tail) < self.settings.never_records or not self._head:
            return None
        a, b = median(self._head), median(self._tail)
        if not a > 0 or (a - b) / a >= self.settings.never_gain:
            return None
        v = self._never_fit(now)
        if v is None:
            return None
        f, span = v
        return f.r + Z * f.se < NEVER_PROVEN * self.settings.never_gain, a, b, f, span

    def _never_watch(self) -> bool:
        """The never-learned rule may still speak at a block's end: not said critical, the
        run has not improved materially at any block, FIRST_RECORDS losses in; not for a GAN's or an
        RL run's objective (a WGAN's generator loss rises as its critic learns: fresh82's 27 healthy
        launches FAILed "not learning"; the labels exempt adversarial objectives). Never turns
        on again once off (the frames path completes blocks in bulk only while it is off)."""
        return (
            (self.never is None or not self.never[3])
            and not self._learned
            and len(self._firsts) >= FIRST_RECORDS
            and self._kind.kind is None
        )

    def _zero_watch(self) -> bool:
        """``_zero_floor`` may still speak: not said, and no constant 0 or constant at the floor said."""
        return self.zero is None and not (self.const is not None and (self.const[0] == 0 or self.const_floor))

    def _zero_recent(self) -> bool:
        """A loss of 0 in the open block or the newest blocks of a window."""
        if self._cur is not None and self._cur.zeros:
            return True
        j = bisect_right(self._lasts, (self.state.last_step or 0) - self.window_steps())
        return any(b.zeros for b in self.blocks[j:])

    def _zero_share(self, now: int) -> tuple[int, int, int] | None:
        """(first step, zeros, records) of the window ending at ``now`` when ZERO_SHARE of
        its MIN_RECORDS or more losses are exactly 0, else None."""
        j = bisect_right(self._lasts, now - self.window_steps())
        n = z = 0
        for b in self.blocks[j:]:
            n, z = n + b.n, z + b.zeros
        if n < MIN_RECORDS or z < ZERO_SHARE * n:
            return None
        return self.blocks[j].first, z, n

    def _zero_floor(self, now: int) -> list[Alert]:
        """The loss at 0 (ZERO_SHARE of a window's records), said once as a warning at a
        block's completion: not a plateau to wait out but a loss with nothing left to
        learn from, or not computed."""
        if not self._zero_watch():
            return []
        got = self._zero_share(now)
        if got is None or got[1] == got[2]:  # (all 0: the constant rule's, a critical)
            return []
        self.zero = got
        since, z, n = got
        return [self._floor_alert(now, f"exactly 0 (as logged) in {z} of the last {n} records since step {since}")]

    def _never_learned(self, now: int, end: bool = False) -> list[Alert]:
        """The never-learned alert, on the run as a whole: past end_progress of its plan, or
        at the end of a log without a plan (``end``); a warning, critical when the line
        proves the gain below NEVER_PROVEN x never_gain. Earlier a slow run cannot be told
        from a dead one: a continued pre-training that gains 4% over its run, a linear
        15% descent, have not gained 5% measurably in their first fifth."""
        prog = self.state.progress()
        if (
            not (prog is not None and prog >= self.settings.end_progress or end and prog is None)
            or not self._never_watch()
        ):
            return []
        v = self._never_state(now)
        if v is None:
            return []
        crit, a, b, f, span = v
        if self.never is not None and not crit:
            return []  # (said as a warning)
        self.never = (a, b, now, crit)
        d = (a - b) / a
        moved = f"{d:.1%} lower" if d >= 0 else f"{-d:.1%} higher"
        st = self.state
        lr_txt = (
            f", the LR still rising in its warm-up ({fmt(st.last_lr)})"
            if st.last_lr is not None and self._sched.rose and not self._sched.done
            else self._lr_text()
        )
        return [
            Alert(
                self.id,
                Severity.CRITICAL if crit else Severity.WARNING,
                now,
                f"Loss never improved in {span} steps since step {self._t0}: median {fmt(b)} of the last "
                f"{self.settings.never_records} losses, {moved} than the first {self.settings.never_records} ({fmt(a)}); a line "
                f"through the run: {f.r:+.1%} +- {Z * f.se:.1%}{lr_txt}. The model is not learning.",
                value=b,
                baseline=a,
                actions=[
                    "Check that the optimizer updates the weights: the LR (too low, or a scheduler at 0), the "
                    "trainable parameters (LoRA targets, frozen layers) and the grad norm.",
                    "Check the data and the labels on one batch by hand (masked or shifted labels, the chat template).",
                ],
                key="plateau_never",
            )
        ]

    def window_steps(self) -> int:
        """The window L: plateau_steps or 20% of the steps so far (with the run's steps before
        its log, when its epochs tell them: ``_before_log``), whichever is longer. (A
        log too sparse for MIN_RECORDS records in it is not judged at all, and says so:
        ``judged``; a window stretched to hold them judged the early part of a sparse log
        on half its span and raised 5-10 more plateau alerts on 96 slow, steady descents
        of bench/quality.py --sweeps.)"""
        span = (self.state.last_step or 0) - (self.state.first_step or 0) + self._before_log()
        return max(self._window_base(), int(0.2 * span))

    def _window_base(self) -> int:
        """The shortest window: plateau_steps, or EPOCH_WINDOW epochs for a log of one record an epoch
        (step_unit.py; not 200: a 200-epoch log fitted in one window, its early drop in every fit:
        fresh48's KGE pre-training, flat for 180 epochs)."""
        base = self.settings.plateau_steps
        return min(base, EPOCH_WINDOW) if self._unit.epochs() is not None else base

    def _evaluate(self, now: int) -> list[Alert]:
        """The evaluation at the completion of a block (the record at step ``now``)."""
        L = self.window_steps()
        self._proven = False
        st = self.state
        prog = st.progress()
        if (
            self.lr_early is None
            and prog is not None
            and prog < CONVERGE_PROGRESS
            and st.last_lr is not None
            and self._sched.peak
            and st.peak_lr_step is not None
            and st.peak_lr_step < now
            and st.last_lr <= self.settings.decayed_lr_frac * self._sched.peak
        ):
            self.lr_early = prog  # the LR fell to ~0 long before the plan's end: it never "finished"
        blocks = self.blocks
        j = bisect_right(self._lasts, now - L)  # the window: blocks that end in the last L steps
        if len(blocks) - j < 3 or now - blocks[j].first < 0.8 * L:
            return []
        fw = self._fit(j, L)
        if fw is None:
            return []
        self.judged = True
        self._win = (fw.r, fw.se, self._moving(fw), self._bar(fw.level)[1])
        rel = self.settings.plateau_rel
        self.rising = (fw.level * (1 + fw.r), fw.level) if -fw.r - Z * fw.se > rel else None
        # no window with a spike in it (a recovering spike lifts its end: a descent
        # would look flat) and none in a warm-up (the LR set its running peak inside
        # it: a loss that waits for a still-rising LR is not a plateau) is evidence
        spiky = self._spike_at is not None and self._spike_at > now - L
        warming = st.peak_lr_step is not None and st.peak_lr_step > now - L
        if self.start is None:
            if spiky or warming or self._moving(fw):
                return []
            self.start = blocks[j].first
            gpre = [b.grad_sum / b.grad_n for b in blocks[:j] if b.grad_n]
            self._gn_early = sorted(gpre)[len(gpre) // 2] if gpre else None
            # the pace before it: the rate over the window before its start
            jb = bisect_right(self._lasts, self.start - 1 - L)
            fb = self._fit(jb, L, j) if j - jb >= 3 and blocks[jb].first <= self.start - 0.8 * L else None
            self._pace = fb.r if fb is not None and fb.r - Z * fb.se > 0 else None  # (measurably improving)
        # the whole span of the open plateau: the same test closes it
        k = self._span_first()
        f = self._fit(k, L)
        if f is None:
            return []
        if self._moving(f, reported=self.warned or self.failed):
            self._close(now)
            return []
        if not (spiky or warming or self.warned) and not self._flat(f):
            # the span is not proven flat, but without its first block, or its last 2
            # windows, or its last window may be: its head was the end of the descent (or
            # of a spike) before the stall, which starts later (a plateau already reported
            # keeps the start it was reported with)
            for jj in (k + 1, bisect_right(self._lasts, now - 2 * L), j):
                if jj < len(blocks) and blocks[jj].first > self.start:
                    g = fw if jj == j else self._fit(jj, L)
                    if g is not None and self._flat(g):
                        self.start, f = blocks[jj].first, g
                        break
        if spiky or warming or not self._flat(f) or not self._whole_epoch():
            self._proven_since = None
            return []  # not yet proven flat: nothing to say
        self.level = f.level
        self._proven = True
        self._strict, self._slow = self._strictly_flat(f)
        if self._proven_since is None:
            self._proven_since = now
        gn_now = [b.grad_sum / b.grad_n for b in blocks[j:] if b.grad_n]
        if self._gn_early and gn_now and max(gn_now) < 0.1 * self._gn_early:
            self.dead_hint = True
        if self._converged() and not (self.warned or self.failed):
            # (a plateau reported while the LR was high stays one when the LR decays later)
            if self.converged_at is None:
                self.converged_at = self.start
                prog = st.progress()
                self.converged_how = (
                    "with the LR decayed"
                    if prog is None or prog < self.settings.end_progress
                    else f"at {prog:.0%} of the planned run"
                    if not st.past_plan()
                    else f"past the planned run (step {st.last_step} of {st.total_steps} planned: "
                    "the plan or the step axis is wrong)"
                )
            return []
        dur = now - self.start
        if now - self._proven_since < CONFIRM * L:  # one flat evaluation is not yet a plateau
            return []
        lr_txt = self._lr_text()
        hint = " The grad norm collapsed with it: dead units or a dead optimizer state." if self.dead_hint else ""
        if dur >= 2 * L and not self.failed and self._strict:  # (a first report that is already critical is one alert)
            self.warned = self.failed = True
            return [self._alert(Severity.CRITICAL, now, dur, lr_txt, hint)]
        if dur >= L and not self.warned:
            self.warned = True
            return [self._alert(Severity.WARNING, now, dur, lr_txt, hint)]
        return []

    def _now(self) -> int:
        """The step of the newest finite loss: the check judges the losses, and a NaN tail after them is
        the NaN/Inf check's (fresh83's Octree run, NaN from step 369 to 774: "Loss never improved in
        774 steps", said at 774); the log's last step while no loss came."""
        b = self._cur if self._cur is not None and self._cur.n else (self.blocks[-1] if self.blocks else None)
        return b.last if b is not None else (self.state.last_step or 0)

    def finalize(self) -> list[Alert]:
        """The log ended with a plateau proven but not yet said (its proof came within
        CONFIRM of the end), or a run that never learned: the report's verdict gets its
        alert and actions."""
        out = self._never_learned(self._now(), end=True)
        out += self._plateau_at_end()
        if not out:
            r = self._rise()
            if r is not None:
                out.append(self._rise_alert(*r))
        if not out:
            out += self._short_plateau()
        return out

    def _short_plateau(self) -> list[Alert]:
        """The level rule (SHORT_GAIN), at the end of a log the windowed test could not decide:
        never ``judged`` (too short or too sparse for a window), or judged with its newest
        window too noisy to tell flat from moving and nothing else said (``_undecided``): no
        progress from one of its first tenths on. Not for a GAN's or an RL run's objective, a
        loss at its floor, epoch running means (flat inside an epoch by construction), an LR
        at decayed_lr_frac of its peak or less over most of the flat stretch (its median:
        convergence, as the labels exempt an LR decayed at the onset; one still high there
        that decays over the stretch is judged, as the windowed test keeps a plateau proven
        while the LR was high; a judged log: also an LR decayed at its end, or the end of its
        plan), or a loss the other rules already spoke of (constant, at 0, never learned,
        diverged)."""
        keep = self._keep
        noisy = self.judged
        if (
            (noisy and not self._undecided())
            or self._short is not None
            or self._kind.kind is not None
            or self.const is not None
            or self.zero is not None
            or self.never is not None
            or self._running_means()
            or len(keep) < SHORT_MIN_RECORDS
            or self._steps_n < SHORT_MIN_RECORDS  # (steps, not records: 8 ranks printing 10 steps are 10)
        ):
            return []
        # a judged log that converged: by its LR (decayed) it is exempt; by its plan (end_progress reached), only
        # a stretch that begins at the end of the plan is its converged tail (fresh70's MAML: flat from 30% of its
        # 100,000 planned iterations to the end, no LR logged, read "no plateau proven"; the labels exempt an LR
        # decayed at the onset, not the end of a plan)
        # ... unless it was judged on less than two windows (a log of 20 epochs and a window of EPOCH_WINDOW: its
        # one window is no history of a convergence; the LR over the flat stretch decides, as for a log never
        # judged: fresh64's YOLOv8 fine-tunes, flat from epoch 1 while the LR decays linearly to lrf)
        tail = None
        if noisy and self._converged() and self._now() - (self._t0 or 0) >= 2 * self.window_steps():
            tail = self._plan_tail()
            if tail is None:
                return []
        cur = self._recent_level()
        if cur is not None and self.best is not None and diverged(cur, self.best[0], self.settings):
            return []  # (the verdict says "rising, not flat": the Loss Spike check's)
        peak = self._peak()
        n = len(keep)
        for o in range(int(SHORT_ONSET * SHORT_WINDOWS) + 1):
            i0 = o * n // SHORT_WINDOWS
            rest = keep[i0:]
            k = len(rest)
            if k < SHORT_MIN_RECORDS or (tail is not None and rest[0][0] >= tail):
                break  # (too few; or the stretch begins at the plan's end: its converged tail)
            a = median([p[1] for p in rest[: k // 3]])
            b = median([p[1] for p in rest[k - k // 3 :]])
            line, raw = _median_line(keep, o), _line_gain([(p[0], p[1]) for p in rest])
            if not a > 0 or (a - b) / a >= SHORT_GAIN or line is None or raw is None:
                continue
            # the level proven within RUN_MIN_GAIN either way: neither the medians' line nor the
            # losses' proves it moving (falling: slow progress; climbing: not flat either, the
            # rise rule's or Loss Spike's), and |the medians' line's drop| + SHORT_Z x the wider
            # band of the two under RUN_MIN_GAIN (a few medians scatter about theirs by chance)
            level = (
                abs(line[0]) - Z * line[1] <= 0
                and abs(raw[0]) - Z * raw[1] <= 0
                and abs(line[0]) + Z * max(line[1], raw[1]) < RUN_MIN_GAIN
            )
            # ... or, for a short log of 2 x SHORT_MIN_RECORDS losses or more (never judged), the
            # losses' line neither proves it falling nor leaves room for a RUN_MIN_GAIN gain: a
            # noisy flat log whose estimate comes out as a rise (the short-log rule's own test)
            short = (
                not noisy
                and n >= 2 * SHORT_MIN_RECORDS
                and raw[0] - Z * raw[1] <= 0
                and raw[0] + SHORT_Z * raw[1] < RUN_MIN_GAIN
            )
            # ... or, for a judged log too noisy to bound its level (its window medians wander more than the band:
            # fresh70's MAML batch loss, medians 1.00-1.13 over 70% of the run), no gain at all: the last third's
            # median not below the first third's, and neither line proving it moving either way (a climb is the
            # rise rule's: a drift up under its bar is not "no progress")
            none = noisy and b >= a and all(abs(g[0]) - Z * g[1] <= 0 for g in (line, raw))
            if not (level or short or none):
                continue
            lrs = [p[2] for p in rest if p[2] is not None and math.isfinite(p[2])]
            if (
                self._near_floor(b)
                or diverged(b, a, self.settings)
                or (peak and lrs and median(lrs) <= self.settings.decayed_lr_frac * peak)
            ):
                return []
            self._short = (rest[0][0], max(rest[-1][0], self._now()), k * self._keep_every, a, b)
            self._noisy = noisy
            self.level = b
            return [self._short_alert()]
        return []

    def _plan_tail(self) -> int | None:
        """The step from which a log converged by its plan (end_progress of the planned steps reached, the LR
        not decayed) is its converged tail: end_progress x the plan; None when it converged otherwise."""
        st = self.state
        total, prog, peak = st.info.total_steps, st.progress(), self._peak()
        if not total or prog is None or prog < self.settings.end_progress:
            return None
        if st.last_lr is not None and peak and st.last_lr <= self.settings.decayed_lr_frac * peak:
            return None  # (the LR decayed: convergence by it)
        return int(self.settings.end_progress * total)

    def _undecided(self) -> bool:
        """A judged log whose newest window was too noisy to tell flat from moving, with no
        plateau open (proven or said), none that ended, no convergence, no climb."""
        w = self._win
        return (
            w is not None
            and not w[2]
            and not (self.warned or self.failed or self._proven)
            and self.longest is None
            and self.converged_at is None
            and self.rising is None
        )

    def _short_words(self) -> str:
        a, now, k, first, last = self._short  # type: ignore[misc]  # (set before it is said)
        d = (first - last) / first
        return (
            f"of the {'~' if self._keep_every > 1 else ''}{k} losses since, the last third's median {fmt(last)} is "
            f"{f'only {d:.1%} lower than' if d >= 0 else f'{-d:.1%} higher than'} the first third's {fmt(first)}"
        )

    def _short_alert(self) -> Alert:
        a, now, k, _, _ = self._short  # type: ignore[misc]  # (set before it is said)
        return Alert(
            self.id,
            Severity.WARNING,
            now,
            f"Loss no lower for {now - a} steps since step {a}: {self._short_words()}{self._lr_text()}. "
            + (
                "Its per-record noise hides the trend of any one window, but the medians of its tenths show no "
                "progress."
                if self._noisy
                else "A short log cannot prove a loss flat, but none of it shows progress."
            ),
            value=self.level,
            baseline=None,
            actions=[
                advice.retry_from(self.state, a, "the plateau"),
                "Check the data pipeline (repeated or shuffled-label batches) and the LR: too low "
                "stalls, too high bounces.",
            ],
            key="plateau",
        )

    def _rise(self, after_stall: bool = False) -> tuple[float, int, float] | None:
        """(best level, its step, the level now) when the loss has made no progress by a
        rise (RISE_MIN, RISE_SE) for 2 windows since its best, under divergence; None for a
        GAN's or an RL run's objective, with a plateau said, a stall that ended or a flat
        stretch judged convergence (the LR decayed). ``after_stall``: the stall that ended
        (``longest``) ended by this rise, its best before the stall's end (RISE_MIN_CLIMB:
        the stall was proven; what came after it is no improvement)."""
        cur, best = self._recent_level(), self.best
        if (
            cur is None
            or best is None
            or not best[0] > 0
            or self._kind.kind is not None
            or self.warned
            or self.failed
            or (self.longest is not None) != after_stall
            or self.converged_at is not None
        ):
            return None
        if after_stall and best[1] > self.longest[1]:  # type: ignore[index]
            return None  # (a new best after the stall: it improved)
        now = self._now()
        if now - best[1] < 2 * self.window_steps() or diverged(cur, best[0], self.settings):
            return None
        n = sd = 0.0
        sm = ss = 0.0
        for b in reversed(self.blocks):  # the noise of the records of the level now
            n, sm, ss = n + b.n, sm + b.loss_sum, ss + b.loss_sumsq
            if n >= REF_RECORDS:
                break
        if n >= 2:
            sd = math.sqrt(max(0.0, ss / n - (sm / n) ** 2))
        least = RISE_MIN_CLIMB if self.rising is not None or after_stall else RISE_MIN
        bar = best[0] * (1 + max(least, RISE_SE * sd / math.sqrt(n) / best[0] if n else 0.0))
        return (best[0], best[1], cur) if cur >= bar else None

    def _rise_alert(self, best: float, at: int, cur: float) -> Alert:
        now = self._now()
        return Alert(
            self.id,
            Severity.WARNING,
            now,
            f"No progress for {now - at} steps: the loss is {fmt(cur)}, {cur / best - 1:.0%} above its best "
            f"{fmt(best)} (step {at}){self._lr_text()}.",
            value=cur,
            baseline=best,
            actions=[
                "Compare with the validation loss: a training loss that climbs back is an LR too high for this "
                "stage, a data order or mixture change, or a regularisation term that grows.",
                self._back_to(at),
                advice.lower_lr(self.state, peak=self._sched.peak),
            ],
            key="plateau_rise",
        )

    def _back_to(self, at: int) -> str:
        """Where to go back to for a loss that climbed after its best at step ``at``: the run's
        last checkpoint at or before it, when one is known."""
        ck = advice.checkpoint_before(self.state, at + 1)
        if ck is not None:
            return f"If the rise is not intended, resume from {ck[1]} (step {ck[0]}, the last checkpoint before the loss's best at step {at})."
        return f"If the rise is not intended, resume from the last checkpoint before step {at} (the loss's best; none found in the run directory)."

    def _plateau_at_end(self) -> list[Alert]:
        if self.start is None or self.warned or self.failed or not self._proven or self._converged():
            return []
        now = self._now()
        dur, L = now - self.start, self.window_steps()
        if dur < L:
            return []
        sev = Severity.CRITICAL if dur >= 2 * L and self._strict else Severity.WARNING
        self.warned, self.failed = True, sev == Severity.CRITICAL
        hint = " The grad norm collapsed with it: dead units or a dead optimizer state." if self.dead_hint else ""
        return [self._alert(sev, now, dur, self._lr_text(), hint)]

    def _alert(self, sev, step, dur, lr_txt, hint) -> Alert:
        if self._near_floor(self.level):
            # flat at its floor (a memorised training set): nothing to retry, no batches to skip
            actions = [
                "The loss is at its floor: more steps on the same data teach nothing. Keep the checkpoint with "
                "the best validation loss and stop, or add data / regularisation."
            ]
        elif self.dead_hint:
            actions = [
                advice.retry_from(self.state, self.start or step, "the plateau"),
                "Check for dead activations and a stuck optimizer (reset Adam moments on restart; "
                "lower epsilon to 1e-8 as OLMo 2 did).",
            ]
        else:
            actions = [
                advice.retry_from(self.state, self.start or step, "the plateau"),
                "Check the data pipeline (repeated or shuffled-label batches) and the LR: too low "
                "stalls, too high bounces.",
            ]
        if self._slow is not None and sev != Severity.CRITICAL:
            what = (
                f"Loss improving only slowly for {dur} steps since step {self.start}: {self._slow:.2%} per "
                f"{self.window_steps()}-step window at ~{fmt(self.level)} (not {RUN_MIN_GAIN:.0%} better than "
                "at its start yet)"
            )
        else:
            what = f"Loss flat for {dur} steps since step {self.start} at ~{fmt(self.level)}"
        return Alert(
            self.id,
            sev,
            step,
            f"{what}{lr_txt}.{hint}",
            value=self.level,
            baseline=None,
            actions=actions,
            key="plateau_fail" if sev == Severity.CRITICAL else "plateau",
        )

    def _lr_text(self) -> str:
        st = self.state
        peak = self._peak()  # the schedule's, not a jump's (audit B5)
        if (
            st.last_lr is not None
            and peak
            and st.last_lr <= self.settings.decayed_lr_frac * peak
            and self.lr_early is not None
        ):
            return (
                f", LR {fmt(st.last_lr)} ({st.last_lr / peak:.0%} of peak) since {self.lr_early:.0%} "
                "of the planned run: a frozen LR / dead optimizer state, not a finished schedule"
            )
        if self._collapsed():
            z, total, first = self._lr_zero_from, st.info.total_steps, st.first_step or 0
            assert z is not None  # (_collapsed: an LR at 0 from z)
            where = (
                f"{z / total:.0%} of the planned run"
                if total
                else f"at {(z - first) / max(1, (st.last_step or 0) - first):.0%} of the steps logged"
            )
            return f", LR 0 since step {z} ({where}): a collapsed LR schedule (it ended before the run), not a finished one"
        if st.last_lr is not None and peak:
            if st.last_lr > JUMP_FACTOR * peak:
                return f", LR {fmt(st.last_lr)}, {st.last_lr / peak:.0f}x the schedule's peak {fmt(peak)}"
            return f", LR still {fmt(st.last_lr)} ({st.last_lr / peak:.0%} of peak)"
        return ""

    def _converged(self) -> bool:
        """Flat loss is convergence at the end of a planned, decaying schedule (end_progress) or when
        the LR has decayed; never when the LR fell there long before the plan's end
        (CONVERGE_PROGRESS: an LR at 0 at 47% of a cosine is frozen, not done) or has been
        0 for ZERO_FRAC of the run (``_collapsed``)."""
        st = self.state
        if self.lr_early is not None or self._collapsed():
            return False
        prog = st.progress()
        peak = self._peak()
        if prog is not None and prog >= self.settings.end_progress:
            # the end of a decaying schedule: the LR, when logged, off its peak (a constant
            # LR, or one that jumped above its schedule, is no schedule's end)
            return st.last_lr is None or not peak or st.last_lr < PEAK_TOL * peak
        return (
            st.last_lr is not None
            and peak is not None
            and bool(peak)
            and st.last_lr <= self.settings.decayed_lr_frac * peak
            and not self._cut_after_onset(peak)
        )

    def _cut_after_onset(self, peak: float) -> bool:
        """The LR was still at its peak (PEAK_TOL) when the open plateau began, and a schedule that holds
        its LR between changes (LR_STEPPED) cut it only after: ReduceLROnPlateau cutting the LR *because*
        the loss stopped improving, or a step that did not move a loss already stuck at the peak. Its
        flat tail is a plateau, not convergence (the labels exempt only an LR decayed at the onset;
        issue 26: fresh88's SchNetPack QM9 run, flat at 2x its best from epoch 9 at the peak LR 0.01
        while ReduceLROnPlateau cut it to 1e-6, read "flat since step 9 with the LR decayed:
        converged"). A planned decay (a cosine, a linear decay: the loss settles as the LR anneals) is
        convergence, as before: at 20% of the peak instead of PEAK_TOL, a continued pre-training whose
        loss eases from 44% of its linear decay FAILed "flat for 4860 steps" (real_logs2's llamafactory
        run), and without LR_STEPPED a GRPO run's noisy objective on a cosine from its warm-up warned.
        Only in a log from the run's start: a resumed log's first LR is no peak (fresh43's resume at
        3.9e-6, halved each 6 epochs, FAILed "flat for 41 steps")."""
        if self.start is None or not self._from_start() or self._lr_moves > LR_STEPPED * self._lr_pairs:
            return False
        lr = next((b.lr for b in self.blocks[self._span_first() :] if b.lr is not None), None)
        return lr is not None and lr >= PEAK_TOL * peak

    def _collapsed(self) -> bool:
        """The LR has been 0 for ZERO_FRAC of the run so far, since a step before ZERO_END of
        the plan (the LR Schedule check's "LR 0 from" rule): the schedule ended before the
        run, or a scheduler froze; flat loss there is not convergence (issue 26: an LR at 0
        from 70% of the run read "converged")."""
        z = self._lr_zero_from
        if z is None:
            return False
        st = self.state
        total, first, now = st.info.total_steps, st.first_step or 0, st.last_step or 0
        return now - z >= ZERO_FRAC * (now - first) and not (total and z >= ZERO_END * total)

    def _recent_level(self) -> float | None:
        n, sm = 0, 0.0
        for b in reversed(self.blocks):
            n, sm = n + b.n, sm + b.loss_sum
            if n >= REF_RECORDS:
                return sm / n
        return None

    def _close(self, now: int) -> None:
        """The open plateau ended (its span moves): a reported one is remembered; the
        next plateau is a new one, reported afresh."""
        if self.start is not None and (self.warned or self.failed):
            if self.longest is None or now - self.start > self.longest[1] - self.longest[0]:
                self.longest = (self.start, now, self.level)
        self.start = None
        self.warned = self.failed = False
        self.dead_hint = False
        self._proven = False
        self._strict, self._slow = True, None
        self._proven_since = None

    def on_resume(self, step: int) -> None:
        self._resumed_at = step
        self._unit.on_resume()
        self._short = None
        self._keep = [k for k in self._keep if k[0] <= step]
        self.judged = False  # (what was judged is superseded; the kept part is judged again)
        self.blocks = [b for b in self.blocks if b.last <= step]
        self._reindex()
        self._cur = None
        self._cap = self._level_cap()
        if self._spike_at is not None and self._spike_at > step:
            self._spike_at = None
        if self.best is not None and self.best[1] > step:  # (the superseded part's level)
            self.best = None
        if self.zero is not None and self.zero[0] > step:
            self.zero = None
        if self._lr_zero_from is not None and self._lr_zero_from > step:
            self._lr_zero_from = None
        a, b = self._ep_chg
        if b is not None and b[0] > step:  # (epoch changes in the superseded part: gone)
            self._ep_chg = (None, a if a is not None and a[0] <= step else None)
        if self.start is not None and self.start > step:  # in the superseded part: gone
            self.warned = self.failed = False
            self._close(step)

    def result(self) -> CheckResult:
        const = self.const is not None and self._same_val == self.const[0] and self._same_from == self.const[1]
        if self.n < MIN_RECORDS and not const:
            return self._result(Status.SKIP, f"{self.n} loss values: too few to judge")
        L = self.window_steps()
        now = self._now()
        dead = "; grad norm collapsed (dead units / optimizer state?)" if self.dead_hint else ""
        if const and self.const is not None:
            if self.const_short and not self.const_floor:
                return self._result(
                    Status.WARN,
                    f"loss exactly {fmt(self.const[0])} since step {self.const[1]} ({self._same_n} of "
                    f"{self.n} records, a short log): not learning",
                )
            if self.const_floor:
                return self._result(
                    Status.WARN,
                    f"loss constant at {fmt(self.const[0])} since step {self.const[1]}: at its floor (memorised, "
                    "or not computed)",
                )
            return self._result(
                Status.FAIL, f"loss exactly {fmt(self.const[0])} since step {self.const[1]}: not learning"
            )
        stuck = self._still_stuck()
        if stuck is not None:
            assert self.const is not None  # (_still_stuck: None without a constant loss said)
            return self._result(
                Status.FAIL,
                f"loss exactly {fmt(self.const[0])} for {CONST_RECORDS}+ records from step {self.const[1]}, still "
                f"within {CONST_BAND:.0%} of it in the last {len(self._tail)} records: not learning",
            )
        floor = self._floor_now(now)
        if floor is not None:
            return self._result(Status.WARN, f"{floor}: at its floor (memorised, not computed, or no reward signal)")
        span = self._span_result(L, now, dead)
        # a run said never to learn stays so until it improves materially or its line falls
        hold = self._never_fit(now, said=True) if self.never is not None else None
        if (
            hold is not None
            and self.never is not None
            and (self.never[3] or span is None or span.status != Status.FAIL)
        ):
            f = hold[0]
            a, b = median(self._head), median(self._tail)
            d = (a - b) / a
            return self._result(
                Status.FAIL if self.never[3] else Status.WARN,
                f"loss never measurably improved since step {self._t0}: a line through the run "
                f"{f.r:+.1%} +- {Z * f.se:.1%}; median of the last {self.settings.never_records} {fmt(b)}, "
                f"{f'{d:.1%} lower' if d >= 0 else f'{-d:.1%} higher'} than the first "
                f"{self.settings.never_records}: not learning",
            )
        if span is not None:
            return span
        return self._rest(L)

    def _span_result(self, L: int, now: int, dead: str) -> CheckResult | None:
        """The verdict of the open plateau, when it has one."""
        reported = self.warned or self.failed
        if self.start is not None and (reported or (self._proven and not self._converged())):
            dur = now - self.start
            if self.longest is not None:  # an earlier stall of the same run: it never really moved on
                a, b, _ = self.longest
                dead += f"; flat for {b - a} steps from step {a} before"
            if self._collapsed():
                dead += f"; LR 0 since step {self._lr_zero_from}: the schedule ended before the run"
            if self.failed or (self._proven and dur >= 2 * L and self._strict):
                slow = self._span_gain(L)
                if slow is not None:
                    r, gain = slow
                    return self._result(
                        Status.WARN,
                        f"improving only {r:.2%} per {L}-step window since step {self.start}, {gain:.1%} over "
                        f"those {dur} steps: slow progress, not a plateau{dead}",
                    )
                return self._result(
                    Status.FAIL, f"flat for {dur} steps since step {self.start} at ~{fmt(self.level)}{dead}"
                )
            if self.warned or (self._proven and dur >= L):
                if self._slow is not None and not self.failed:
                    return self._result(
                        Status.WARN,
                        f"improving only {self._slow:.2%} per {L}-step window for {dur} "
                        f"steps since step {self.start}{dead}",
                    )
                blind = " (no LR or planned steps logged: converged or stalled cannot be told)" if self._blind() else ""
                return self._result(Status.WARN, f"flat for {dur} steps since step {self.start}{dead}{blind}")
        return None

    def _rest(self, L: int) -> CheckResult:
        """The verdict without an open plateau."""
        cur = self._recent_level()
        if cur is not None and self.best is not None and diverged(cur, self.best[0], self.settings):
            return self._result(
                Status.SKIP,
                f"loss {fmt(cur)}, {_times(cur / self.best[0])}x its best {fmt(self.best[0])} "
                f"(step {self.best[1]}): rising, not flat (see Loss Spike Detection)",
            )
        if self.longest is not None:  # a stall that ended by itself is history, not a fault
            a, b, lv = self.longest
            r = self._rise(after_stall=True)
            if r is not None:  # ... unless it ended by climbing ("then improved" it was)
                best, at, cur = r
                return self._result(
                    Status.WARN,
                    f"stalled for {b - a} steps from step {a}, then rose: loss {fmt(cur)}, "
                    f"{cur / best - 1:.0%} above its best {fmt(best)} (step {at})",
                )
            cur = self._recent_level()
            if lv is not None and lv > 0 and cur is not None and cur > (1 - SHORT_GAIN) * lv:
                # ... unless the loss never got SHORT_GAIN below the stall's level (the labels' bar for
                # no progress): the stall ended by a creep its own test could measure, not by learning
                # (fresh68's LSTM: flat at 5.22 from step 33,700, 5.16 at the end of 111,600 steps,
                # 1.2% lower, read "then improved", PASS)
                since = f"only {1 - cur / lv:.1%} lower since" if cur < lv else "no lower since"
                return self._result(
                    Status.WARN,
                    f"stalled for {b - a} steps from step {a} at ~{fmt(lv)}, and {since} (~{fmt(cur)}): "
                    "barely moving, not recovered",
                )
            return self._result(Status.PASS, f"stalled for {b - a} steps from step {a}, then improved")
        r = self._rise()
        if r is not None:
            best, at, cur = r
            return self._result(
                Status.WARN,
                f"no progress for {self._now() - at} steps: loss {fmt(cur)}, "
                f"{cur / best - 1:.0%} above its best {fmt(best)} (step {at})",
            )
        if self.rising is not None:
            lo, hi = self.rising
            return self._result(
                Status.SKIP,
                f"loss climbing ({fmt(lo)} -> {fmt(hi)} over the last {L} steps): "
                "diverging, not flat (see Loss Spike Detection)",
            )
        if self.converged_at is not None:
            return self._result(Status.PASS, f"flat since step {self.converged_at} {self.converged_how}: converged")
        if self._short is not None:
            a, now = self._short[:2]
            return self._result(
                Status.WARN,
                f"no progress for {now - a} steps since step {a}: {self._short_words()} "
                f"({'the medians of a noisy log' if self._noisy else 'a short log'})",
            )
        if not self.judged:
            # (the steps of the blocks kept: after a resume to an earlier step, the part judged)
            kept = self.blocks + ([self._cur] if self._cur is not None else [])
            span = kept[-1].last - kept[0].first if kept else 0
            since = f" since the resume at step {self._resumed_at}" if self._resumed_at is not None else " logged"
            # a log of epochs (Keras, Ultralytics: 100 records over 100 steps) is shorter than
            # the default window: the flag that shortens it
            short = "; --plateau-steps sets the window" if L == self.settings.plateau_steps else ""
            return self._result(
                Status.SKIP,
                f"{span} steps{since}: too few to judge a plateau (a {L}-step window holding {MIN_RECORDS} "
                f"losses{short})",
            )
        return self._result(Status.PASS, self._unproven(L))

    def _unproven(self, L: int) -> str:
        """The verdict of a judged run with no plateau proven: what its newest window measured
        (issue 26, fresh5 wandb01311: a heavy-tailed loss flat at 2.25 for 14,000 steps read
        "loss still improving" because its flatness was never proven)."""
        if self._win is None:
            return f"loss still improving (window {L} steps)"
        r, se, moving, bar = self._win
        rate = _rate_words(r, se, L)
        if moving and r > 0:
            return f"loss still improving ({rate})"
        if moving:
            return f"loss rising slowly ({rate}): not flat, not improving"
        return (
            f"no plateau proven: the newest window's loss {rate}, too noisy to tell flat (under {bar:.2%}) from moving"
        )
