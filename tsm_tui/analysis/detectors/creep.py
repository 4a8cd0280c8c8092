"""A slow sustained climb of the loss ("creep"): the loss bottoms out, then climbs back to a
clearly higher level and keeps climbing, without a spike and below the divergence factor
(1.5x, the rolling median's rule). An LR too high for this stage of training, a data order or
mixture change, a regulariser that grows: the run is un-learning, slowly. Issue 26: four
held-out sets had such a climb (+15% to +30% above the low, over the last 20-60% of the run)
and no rule owned it (fresh23's recurrent LM, fresh25's DETR relaunch, fresh32's NER launch,
fresh6's 29-launch transformer).

The loss is summarised in at most 2 x MAX_BLOCKS blocks of equal record counts (powers of 2;
neighbours merge when the list fills): a block's level is the median of its log-losses (a
block of more than SUB records: the mean of the medians of its runs of SUB), so memory is
bounded and the work per record is O(1) amortised (the test runs once per completed block,
over at most 2 x MAX_BLOCKS levels).

The test, at each completed block (``Creep.push``), on the levels L (log scale):
- the low: the smallest median of 3 neighbouring levels, before the newest block;
- the level now: the median of the newest max(3, K / 10) levels;
- a creep when the level now is >= CREEP_MIN above the low and >= CREEP_NOISE noise units
  above it (noise: the MAD of the levels' first differences, a trend-free robust sd of one
  level), the levels from the low on rise by the Mann-Kendall rank test (z >= CREEP_RANK_Z),
  the stretch since the low holds >= CREEP_SHARE of the records and >= CREEP_MIN_BLOCKS
  blocks, and the LR (when logged) has not risen since the low (a warm-up or a restart).
Said once per stretch (a resume starts a new one); the caller owns the objective's kind (an RL
run's, a GAN's, a signed loss are not judged) and the alert.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tsm_tui.analysis.detectors.stats import MannKendall
from tsm_tui.analysis.detectors.stats import median as _median

#: levels kept: MAX_BLOCKS to 2 x MAX_BLOCKS blocks of equal record counts (ours: 10 windows are
#: how a climb is labelled by hand; 32 to 64 blocks resolve them with a few blocks each)
MAX_BLOCKS = 32
#: a block's level: medians of runs of at most SUB log-losses, averaged (bounded memory; ours)
SUB = 64
#: the climb: the level now this share above the low (ours: half the smallest labelled creep,
#: 15-30% in issue 26's held-out sets; below it a loss's drift between data shards)
CREEP_MIN = 0.10
#: ... and this many noise units (the robust sd of one level) above it: the low of noisy
#: levels is their luckiest, ~1.5 sd below their mean over 64 blocks, and the level now (a
#: median of >= 3 levels) wanders ~0.7 sd (ours; tests/analysis/test_creep.py's flat noise)
CREEP_NOISE = 5.0
#: the ranks of the levels since the low rise (Mann 1945 / Kendall 1975; z ours: a flat noisy
#: series's levels after their minimum rise by chance, as the short log's climb rule found,
#: settings.divergence_short_rank_z; with the two bars above, 3.0)
CREEP_RANK_Z = 3.5
#: sustained: the stretch since the low holds this share of the records judged (ours: the
#: labels' climbs held 30-60% of their run; a healthy multi-epoch fine-tune's loss rises ~10%
#: through its last epoch of three, 26% of its records: real_logs2's hf_alpaca_fullft) and
#: this many blocks
CREEP_SHARE = 0.3
CREEP_MIN_BLOCKS = 4
#: ... and this much in loss units (the corpus labels' "near zero": a loss at 0.008 that doubles
#: is a memorised set's noise, not a run un-learning; ours)
CREEP_MIN_DELTA = 0.02
#: records before the rule judges (ours: one MIN_RECORDS window of the plateau check)
CREEP_MIN_RECORDS = 20
#: ... but a short log (its records are its levels) whose loss rose at each of its last STEADY_RISES
#: records or more, from its lowest on, climbs by its order alone: 7 values in increasing order have
#: chance 1 / 7! = 1 / 5040 among exchangeable noise, where the rank test of 7 values cannot pass (its
#: z is at most 3.0). (ours; issue 26, fresh98: a NumPy MLP's epoch loss rose at each of its last 6
#: and 8 epochs of 10, to 1.39x and 2.2x its low, and no rule judged a log that short)
STEADY_RISES = 6
#: an LR this factor above its value at the low: a warm-up or a restart, whose loss may rise
#: (as lr_schedule.JUMP_FACTOR; ours)
LR_RISE = 1.5
#: a smoothed loss (an EMA, a running mean, batches in data order) wanders: its levels are
#: independent only over blocks as long as its correlation, (1 + phi) / (1 - phi) records for
#: an AR(1) series of lag-1 autocorrelation phi. phi is read from the second differences of the
#: log-losses at lags 1 and 2 (a trend's line cancels in both; a smooth curve's bend is small
#: against the noise): the ratio of their mean squares is (1 + phi)(3 - phi^2) / (3 - phi),
#: 1 for independent noise, 1.65 at phi 0.5, 1.98 at 0.9 (``_phi``). The test waits for blocks
#: that long (ours: of 1,800 simulated flat or falling-then-flat logs of 30-5,000 records whose
#: noise is an AR(1) series of phi 0.5-0.98 and sd 2-10%, the test passed on 296 without the wait,
#: 28 with it)
PHI_MAX = 0.98
#: ... blocks this many times as long (ours: the estimate of phi is noisy near 1, and blocks as
#: long as the correlation are still correlated with their neighbours)
CORR_BLOCKS = 2.0
#: ... but a log of fewer than 2 x MAX_BLOCKS records, judged once at its end on its records,
#: is judged when their phi is at most 0.3 (ours: its estimate from 30 records scatters by
#: ~0.2 about 0 for independent noise)
SHORT_CORR = 1.3 / 0.7


@dataclass(frozen=True)
class Climb:
    """A creep found: the low (value, the step its block ends at), the level now and its step,
    the rise's size in noise units and the rank test's z (or, a short log's, its rises in a row)."""

    low: float
    low_step: int
    level: float
    step: int
    noise_units: float
    rank_z: float
    records: int
    rises: int = 0  # (found by order, STEADY_RISES: the rises in a row from the low; 0: by the rank test)


class Creep:
    """The blocks of one stretch of the objective and the creep test over them."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.levels: list[float] = []  # log level of each completed block
        self.steps: list[int] = []  # the step each block ends at
        self.lrs: list[float | None] = []  # the LR at each block's end (None: not logged)
        self.size = 1  # records per block
        self.n = 0  # records pushed in this stretch
        self._raw: list[float] = []  # the losses of the run of SUB being filled (its log taken once)
        self._sub_sum = 0.0  # sum of the medians of the block's completed runs of SUB
        self._sub_n = 0
        self._filled = 0  # records of completed runs in the block being filled
        self._lr: float | None = None
        self._step = 0  # the step of the last record pushed
        self.said: Climb | None = None
        self._last4 = np.empty(0)  # the last 4 log-losses
        self._s1 = self._s2 = 0.0  # sums of the squared second differences at lags 1 and 2

    def _run_len(self) -> int:
        """Records of the run being filled: SUB, or what is left of a block of fewer."""
        return min(SUB, self.size - self._filled)

    def push(self, step: int, x: float, lr: float | None) -> Climb | None:
        """Feed one finite loss (one <= 0 is left out: no ratio scale); a Climb the first time
        the test passes in this stretch. The work is done once per run of records (``_run``),
        the same for a frame's rows (``push_many``)."""
        if not x > 0:
            return None
        if lr is not None and math.isfinite(lr):
            self._lr = lr
        self._raw.append(x)
        self._step = step
        if len(self._raw) < self._run_len():
            return None
        return self._run()

    def push_many(self, steps: np.ndarray, xs: np.ndarray, lrs: np.ndarray | None) -> Climb | None:
        """``push`` for each row, run by run (the same arithmetic as row by row); the first Climb."""
        keep = xs > 0
        if not keep.all():
            steps, xs = steps[keep], xs[keep]
            lrs = lrs[keep] if lrs is not None else None
        hit: Climb | None = None
        i, m = 0, xs.size
        while i < m:
            take = min(m - i, self._run_len() - len(self._raw))
            j = i + take
            if lrs is not None:
                ok = lrs[i:j]
                ok = ok[np.isfinite(ok)]
                if ok.size:
                    self._lr = float(ok[-1])
            self._raw.extend(xs[i:j].tolist())
            self._step = int(steps[j - 1])
            i = j
            if len(self._raw) >= self._run_len():
                got = self._run()
                if got is not None and hit is None:
                    hit = got
        return hit

    def _run(self) -> Climb | None:
        """A run of records complete: its log-losses' median into the block, their second differences
        into the correlation's sums; a block complete: its level, and the test."""
        y = np.log(np.asarray(self._raw, dtype=float))
        self._raw.clear()
        w = np.concatenate((self._last4, y))
        if w.size >= 5:
            d1 = w[4:] - 2 * w[3:-1] + w[2:-2]
            d2 = w[4:] - 2 * w[2:-2] + w[:-4]
            self._s1 += float(d1 @ d1)
            self._s2 += float(d2 @ d2)
        self._last4 = w[-4:]
        self.n += y.size
        self._filled += y.size
        self._sub_sum += _median(y.tolist())  # (a Python sort of <= SUB values: np.median's overhead is 10x)
        self._sub_n += 1
        if self._filled < self.size:
            return None
        self.levels.append(self._sub_sum / self._sub_n)
        self.steps.append(self._step)
        self.lrs.append(self._lr)
        self._sub_sum, self._sub_n, self._filled = 0.0, 0, 0
        if len(self.levels) >= 2 * MAX_BLOCKS:
            self._merge()
        if self.said is not None or self.n < 2 * MAX_BLOCKS:
            return None  # (a short log is judged once, at its end: ``finish``)
        hit = self.test()
        if hit is not None:
            self.said = hit
        return hit

    def finish(self) -> Climb | None:
        """At the end of the log: a log too short for the blocks to merge (its records are its
        levels, their correlation unknown) is judged once, here; a Climb or None."""
        if self.said is not None or self.n >= 2 * MAX_BLOCKS:
            return None
        self.said = self.test()
        return self.said

    def _merge(self) -> None:
        """Neighbouring blocks merged in pairs: the record count per block doubles."""
        L = self.levels
        self.levels = [(L[i] + L[i + 1]) / 2 for i in range(0, len(L) - 1, 2)]
        self.steps = self.steps[1::2]
        self.lrs = self.lrs[1::2]
        self.size *= 2

    def correlation(self) -> float:
        """Records over which the log-losses are correlated (1 for independent noise; see PHI_MAX)."""
        if self.size == 1 and len(self.levels) >= 5:
            # (the records are the levels: the ratio from them, robustly: a short log's one bend
            # at its low is one large second difference, an outlier to a median)
            L = self.levels
            d1 = [(L[i + 1] - 2 * L[i] + L[i - 1]) ** 2 for i in range(1, len(L) - 1)]
            d2 = [(L[i + 2] - 2 * L[i] + L[i - 2]) ** 2 for i in range(2, len(L) - 2)]
            m1 = _median(d1)
            ratio = _median(d2) / m1 if m1 > 0 else 1.0
        elif self._s1 > 0:
            ratio = self._s2 / self._s1
        else:
            return 1.0
        phi = _phi(ratio)
        return (1 + phi) / (1 - phi)

    def test(self) -> Climb | None:
        """The creep test over the completed blocks (see the module's docstring)."""
        L = self.levels
        K = len(L)
        if self.size == 1 and K > STEADY_RISES:
            hit = self._steady()
            if hit is not None:
                return hit
        if self.n < CREEP_MIN_RECORDS or K < CREEP_MIN_BLOCKS + 3:
            return None
        k = max(3, K // 10)
        now = _median(L[-k:])
        if now - min(L) < math.log1p(CREEP_MIN):
            return None  # (no rise of CREEP_MIN above the lowest level: a falling or flat loss stops here)
        corr = self.correlation()
        if (corr > SHORT_CORR) if self.size == 1 else (self.size < CORR_BLOCKS * corr):
            return None  # (levels still correlated: a wander could pass for a climb)
        smooth = [L[0]] + [sorted(L[i - 1 : i + 2])[1] for i in range(1, K - 1)] + [L[-1]]
        m = min(range(K - 1), key=smooth.__getitem__)
        if K - 1 - m < CREEP_MIN_BLOCKS or (K - 1 - m) * self.size < CREEP_SHARE * self.n:
            return None
        low = smooth[m]
        rise = now - low
        if rise < math.log1p(CREEP_MIN) or math.exp(now) - math.exp(low) < CREEP_MIN_DELTA:
            return None
        diffs = sorted(abs(L[i + 1] - L[i]) for i in range(K - 1))
        # the MAD of the first differences of a trend-free series is 0.6745 x sqrt(2) sd
        # (the median of |d| for d ~ N(0, 2 sd^2)); the trend adds to it, so it is an upper bound
        sd = _median(diffs) / (0.6745 * math.sqrt(2))
        if sd > 0 and rise < CREEP_NOISE * sd:
            return None
        mk = MannKendall()
        for v in L[m:]:
            mk.update(v)
        z = mk.z()
        if z < CREEP_RANK_Z:
            return None
        lr0, lr1 = self.lrs[m], self.lrs[-1]
        if lr0 is not None and lr1 is not None and lr0 > 0 and lr1 > LR_RISE * lr0:
            return None
        return Climb(
            low=math.exp(low),
            low_step=self.steps[m],
            level=math.exp(now),
            step=self.steps[-1],
            noise_units=rise / sd if sd > 0 else math.inf,
            rank_z=z,
            records=(K - 1 - m) * self.size,
        )

    def _steady(self) -> Climb | None:
        """A short log's climb by order (STEADY_RISES): its records (the levels) rose at each one from its
        lowest to its last, STEADY_RISES times or more, its level now (the median of the last 3) CREEP_MIN and
        CREEP_MIN_DELTA above the lowest, the LR not risen since (a warm-up's loss may rise)."""
        L = self.levels
        K = len(L)
        m = min(range(K), key=L.__getitem__)
        if K - 1 - m < STEADY_RISES or any(L[i + 1] <= L[i] for i in range(m, K - 1)):
            return None
        low, now = L[m], _median(L[-3:])
        if now - low < math.log1p(CREEP_MIN) or math.exp(now) - math.exp(low) < CREEP_MIN_DELTA:
            return None
        lr0, lr1 = self.lrs[m], self.lrs[-1]
        if lr0 is not None and lr1 is not None and lr0 > 0 and lr1 > LR_RISE * lr0:
            return None
        mk = MannKendall()
        for v in L[m:]:
            mk.update(v)
        return Climb(
            low=math.exp(low),
            low_step=self.steps[m],
            level=math.exp(now),
            step=self.steps[-1],
            noise_units=math.inf,
            rank_z=mk.z(),
            records=K - 1 - m,
            rises=K - 1 - m,
        )


def _phi(ratio: float) -> float:
    """phi in [0, PHI_MAX] whose (1 + phi)(3 - phi^2) / (3 - phi) is ``ratio`` (the ratio of the
    mean squared second differences at lags 2 and 1 of an AR(1) series): bisection, the map rising."""
    lo, hi = 0.0, PHI_MAX
    if ratio <= 1.0:
        return 0.0
    for _ in range(30):
        mid = (lo + hi) / 2
        if (1 + mid) * (3 - mid * mid) / (3 - mid) < ratio:
            lo = mid
        else:
            hi = mid
    return lo
