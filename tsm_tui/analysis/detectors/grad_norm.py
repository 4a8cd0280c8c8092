"""Gradient norm: above the clip threshold too often, far above it (lower the
LR), spikes against the run's own level (grad norm leads loss), vanishing, and
not logged at all ("flying blind").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import islice
from typing import Any

import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import ROWS, Detector
from tsm_tui.analysis.detectors.lr_peak import SchedulePeak
from tsm_tui.analysis.detectors.step_unit import StepUnit
from tsm_tui.core.numbers import fmt, times
from tsm_tui.analysis.detectors.stats import RollingMedian, RollingMoments, RollingRate, diff_sd, median
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord

RATE_WINDOW = 1000  # OLMo-core / detection-anchors 2.3: rates over ~1000 steps
HIGH_RATE = 0.2  # (ours) "frequently above 5.0": one step in five
VANISH_RECORDS = 5
RATE_EVERY = 16
#: frames: values this large could overflow the median's a + b; such frames go row by row
_HUGE = 2.0**1022
#: spiking records at most this many records apart are one incident: one alert (ours;
#: a spike's grad norm often stays high for a few steps: each would warn otherwise)
SPIKE_GAP = 10
#: a spike inside an open incident this many times the largest value reported for it
#: is a new alert: the incident's peak, not folded into its onset (ours)
PEAK_REALERT = 2.0
#: ... and so is one after the grad norm came back to its level: the median of the last
#: BACK_RECORDS values since the previous spiking record within recovery_factor x the
#: baseline (the loss spike check's RECOVERY_RECORDS and bar; ours)
BACK_RECORDS = 3
#: ... or as few as BACK_MIN records since it, every one of them within that bar (ours: a sparse log's
#: bursts two records apart, every 50 steps, were one incident from its first burst to its largest, 1,050
#: steps later, with no alert at the largest: fresh101's HF run, 2.7e6 at 2550, 2.47e6 at 2700, 9.7e6 at
#: 3600 after 0.24 and 0.18)
BACK_MIN = 2
#: a log too short for the rolling rates (fewer than ``window`` post-warm-up values, e.g.
#: excerpts in short blocks) is judged on all its values at the end, from this many (ours)
ABS_MIN_VALUES = 10
#: the robust spike rule (settings.py grad_robust_*): the level is the median of the last
#: ROBUST_LEVEL accepted values (ours: a short window follows a falling level within a few
#: records and is not moved by 4 outliers), the noise comes from the last ROBUST_NOISE
#: (ours: 31 differences, enough for a MAD; the loss spike check's EARLY_K is 30)
ROBUST_LEVEL = 9
ROBUST_NOISE = 32
#: ... leaving out values below 1 / ROBUST_LOW of the level: a second population, not noise
#: around it (an RL run's steps whose group had no reward difference, zero advantage: a grad
#: norm ~10x below its neighbours; fresh13's GRPO runs, 6 of 32 such values, doubled the noise
#: and hid a 15x spike). Ours; only when they are a population of their own: at least
#: ROBUST_LOW_MIN of them (one or two are a heavy-tailed noise's own, and the MAD is not moved by
#: them), at most half, and at least 3x as many as the values ROBUST_LOW x above the level (a
#: heavy-tailed noise strays as far both ways: the --grad sweep's log-sd 0.5 runs)
ROBUST_LOW = 6.0
ROBUST_LOW_MIN = 3
#: the robust-noise rule (settings.py grad_median_*) takes a value at least 2x the median of the 3
#: before it, spikes among them: a jump (in one record or two: fresh24's bursts rise over two), not the
#: next step of a climb (a grad norm rising 1.12x a step to 300x its median and back has no one record
#: that is a spike: the check says where its max was) nor a level the norm holds after a jump; ours
MEDIAN_JUMP = 2.0
#: a spike the OLMo-core rule finds is said against the local median when the rolling
#: median lags this far above it (a falling level; ours)
LOCAL_LAG = 2.0


#: the robust rule's noise is its newer half's when that is this many times calmer than the whole
#: window's: the first records' transient (a grad norm of 78, 3060, 10979, 49, 6123 ... before it settles
#: at ~2) left its differences in the window for 32 records and hid a 17x spike at step 37 (fresh83's
#: W&B run; issue 26: "a sigma inflated by the first records' transient must not hide a spike"). Ours:
#: a stationary noise's two halves are rarely 2x apart (a 16-difference MAD's sd is ~30% of it)
CALMER = 2.0


def _calm_sd(tail: list[float]) -> float:
    """``diff_sd`` of ``tail``, or of its newer half when that is CALMER x calmer (a transient left behind)."""
    sd = diff_sd(tail)
    if len(tail) >= ROBUST_NOISE:
        new = diff_sd(tail[len(tail) // 2 :])
        if CALMER * new <= sd:
            return new
    return sd


#: a grad norm of exactly 0 in every one of at least this many records is no gradient at all
#: (fresh6's LoRA run: loss 0.0 and grad norm 0.0 for 100 records read "PASS - median 0, max 0"; ours)
ZERO_RECORDS = 20


class GradNormDetector(Detector):
    id = "grad_norm"
    title = "Gradient Norm"
    label = "Grad norm"
    short = "grad"
    column = ("grad", "g")
    core = True
    metric = "grad_norm"
    order = 20
    urgency = 60

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self._med = RollingMedian(settings.window)
        self._sched = SchedulePeak()  # the LR schedule's peak, for "lower the peak LR" (a jump is not it)
        self._logm = RollingMoments(settings.sigma_window)
        self._over = RollingRate(RATE_WINDOW)
        self._high = RollingRate(RATE_WINDOW)
        self.n = 0
        self.loss_records = 0
        self.unit = StepUnit(settings)  # one record per epoch: no per-step grad norm can be in the file
        #: incidents: [onset step, peak, peak step, median before, last spiking step, largest value alerted]
        self.spikes: list[list] = []
        self.n_post = 0  # values after the configured warm-up (absolute levels at the end)
        self.n_post_over = 0
        self.n_post_high = 0
        self._last_spike_n: int | None = None  # record count at the newest spiking record
        self._since: list[float] = []  # the last BACK_RECORDS values after the newest spiking record
        self.over_alerted = False
        self.high_alerted = False
        self.over_peak = 0.0
        self.high_peak = 0.0
        self._vanish_run = 0
        self.vanished_at: int | None = None
        self.max_gn = 0.0
        self.max_step: int | None = None  # the step of the largest value, and its ordinal
        self.max_n = 0
        self._tick = 0
        self.n_bad = 0  # grad norms logged as NaN / Inf (the NaN/Inf check judges them; never "not logged")
        self._raw: list[float] = []  # the last 3 values > 0, spikes among them (MEDIAN_JUMP)

    def _post_warmup(self, rec: StepRecord) -> bool:
        w = self.state.info.warmup_steps
        if w is not None and rec.step <= w:
            return False
        return self.n > self.settings.window

    def update(self, rec: StepRecord) -> list[Alert]:
        if rec.loss is not None:
            self.loss_records += 1
        self.unit.see(rec.step, rec.epoch)
        g = rec.grad_norm
        if g is None or not math.isfinite(g):
            if g is not None:
                self.n_bad += 1
            return []
        self.n += 1
        self._sched.update(rec.lr)
        if g > self.max_gn:
            self.max_gn, self.max_step, self.max_n = g, rec.step, self.n
        out: list[Alert] = []
        med = self._med.get()
        hit = self._test(g, med) if med is not None and med > 0 and g > 0 else None
        spike = hit is not None
        if hit is not None:
            base, z, local = hit
            last = self._last_spike_n
            self._last_spike_n = self.n
            bar = self.settings.recovery_factor * base
            since = self._since
            back = (len(since) >= BACK_RECORDS and median(since) <= bar) or (
                len(since) >= BACK_MIN and max(since) <= bar
            )
            self._since = []
            if last is not None and self.n - last <= SPIKE_GAP:
                inc = self.spikes[-1]  # the same incident: a new alert only for a much larger peak
                prev = inc[4]
                inc[4] = rec.step
                if g > inc[1]:
                    inc[1], inc[2] = g, rec.step
                if g >= PEAK_REALERT * inc[5]:
                    inc[5] = g
                    out.append(self._peak(rec, g, base, z, inc))
                elif back:  # the grad norm had come back to its level since the previous spike
                    out.append(self._again(rec, g, base, z, inc, prev))
            else:
                out.append(self._spike(rec, g, base, z, local))
        if not spike:
            self._since = (self._since + [g])[-BACK_RECORDS:]
            self._med.update(g)
            if g > 0:
                self._logm.update(math.log(g))
        if g > 0:
            self._raw = (self._raw + [g])[-3:]  # (every value, spikes too: MEDIAN_JUMP's)
        w = self.state.info.warmup_steps
        if w is None or rec.step > w:
            self.n_post += 1
            self.n_post_over += g > self.settings.grad_threshold
            self.n_post_high += g > self.settings.grad_high
        if self._post_warmup(rec):
            self._over.update(g > self.settings.grad_threshold)
            self._high.update(g > self.settings.grad_high)
            self._tick += 1
            if self._tick >= RATE_EVERY:  # rates move slowly: look every few records
                self._tick = 0
                out += self._rates(rec)
            out += self._vanishing(rec, g, med)
        return out

    def _test(self, g: float, med: float) -> tuple[float, float, bool] | None:
        """(baseline, z, local) when ``g`` (> 0; the window's median ``med`` > 0) is a
        spike, else None. The OLMo-core rule: >= grad_spike_ratio x the rolling median
        and >= sigma standard deviations of the last sigma_window log values above their
        mean; or, that sd inflated by earlier bursts, >= grad_median_ratio x the median and
        >= grad_median_z units of their trend-free noise (``diff_sd``). The robust rule
        (``_robust``), from grad_robust_min values on: what the
        first catches late or not at all while the level moves (the initial fall), and
        its baseline when the level has fallen LOCAL_LAG x below the rolling median."""
        s = self.settings
        robust_ok = len(self._logm) >= s.grad_robust_min
        if g >= s.grad_spike_ratio * med and len(self._logm) >= s.min_baseline:
            mean, std = self._logm.moments()
            z = (math.log(g) - mean) / std if std > 1e-12 else math.inf
            if z >= s.sigma:
                r = self._robust(g) if robust_ok else None
                if r is not None and r[0] * LOCAL_LAG < med:  # said against the level it left
                    return r[0], r[1], True
                return med, z, False
            last = self._last_spike_n  # (a quiet series' burst: never inside an open incident, a blow-up's)
            median_hit = g >= s.grad_median_ratio * med and robust_ok and (last is None or self.n - last > SPIKE_GAP)
        else:
            median_hit = False
        # (the window's minimum bounds the local median from below: most records stop here)
        if robust_ok and g >= s.grad_robust_ratio * self._med.sorted_values()[0]:
            r = self._robust(g)
            if r is not None:
                return r[0], r[1], True
        if median_hit:  # (after the robust rule: a spike in a falling level is said against its local median)
            lg = math.log(g)
            # a jump from the values just before it (spikes too), not a ramp's next step nor a level held
            if self._raw and g >= MEDIAN_JUMP * median(self._raw):
                logs = list(self._logm.values())
                sd = diff_sd(logs)
                zr = (lg - math.log(med)) / sd if sd > 1e-12 else math.inf
                if zr >= s.grad_median_z:
                    return med, zr, False
        return None

    def _robust(self, g: float) -> tuple[float, float] | None:
        """(local median, z) when ``g`` is a spike by the robust rule: >= grad_robust_ratio
        x the median of the last ROBUST_LEVEL values, and its log >= sigma noise units
        above that median's log (noise: ``diff_sd`` of the last ROBUST_NOISE log values)
        or >= grad_huge_ratio x the median, or >= grad_wild_ratio x it at half the units
        (settings.py)."""
        s = self.settings
        logs = self._logm.values()
        n = len(logs)
        tail = list(islice(logs, max(0, n - ROBUST_NOISE), n))
        level = median(tail[-ROBUST_LEVEL:])
        cut = math.log(ROBUST_LOW)
        kept = [v for v in tail if v >= level - cut]
        lows = len(tail) - len(kept)
        if lows >= ROBUST_LOW_MIN and lows <= len(tail) // 2 and 3 * sum(v > level + cut for v in tail) <= lows:
            tail = kept  # (the level and the noise are the main population's)
            level = median(tail[-ROBUST_LEVEL:])
        base = math.exp(level)
        if g < s.grad_robust_ratio * base:
            return None
        sd = _calm_sd(tail)
        z = (math.log(g) - level) / sd if sd > 1e-12 else math.inf
        if z >= s.sigma or g >= s.grad_huge_ratio * base or (g >= s.grad_wild_ratio * base and z >= s.sigma / 2):
            return base, z
        return None

    # ------------------------------------------------------------------ frames
    # Columnar hooks (the driver is Detector.update_frame). No screen: ``_bulk``
    # bounds the rolling median over blocks of the rows and commits stretches where
    # no row can be a spike candidate, a vanishing candidate or a rate alert,
    # stopping at the first row that might be one (it goes through ``update``).
    # Non-finite grad norms only count as loss records, as in ``update``.
    def prepare(self, fr):
        g = fr.get("grad_norm")
        if g is None:
            return None
        lo, hi = (float(g.min()), float(g.max())) if g.size else (0.0, 0.0)
        if math.isfinite(lo) and math.isfinite(hi):  # (min / max are NaN if any value is)
            idx = None
        else:
            idx = np.flatnonzero(np.isfinite(g))  # frame index of each finite grad norm
            lo, hi = (float(g[idx].min()), float(g[idx].max())) if idx.size else (0.0, 0.0)
        srt = self._med.sorted_values()
        if (
            self.settings.grad_spike_ratio < 0
            or self.settings.grad_vanish_ratio < 0
            or max(-lo, hi) >= _HUGE
            or (srt and max(-srt[0], srt[-1]) >= _HUGE)
        ):
            return ROWS  # the bounds would overflow: row by row
        return idx

    def bulk(self, fr, idx, a: int, q: int) -> int | None:
        g = fr.get("grad_norm")
        ep = fr.get("epoch")
        if g is None:
            if "loss" in fr.cols:
                self.loss_records += q - a
            self.unit.see_frame(fr.step[a:q], ep[a:q] if ep is not None else None)
            return None
        sel: Any  # the rows [a, q): a slice, or the frame rows of the check (indexed only then)
        if idx is None:
            sel = slice(a, q)
        else:
            k, e = np.searchsorted(idx, (a, q))
            sel = idx[k:e]
        xs, steps = g[sel], fr.step[sel]
        stop = self._bulk(xs, steps) if xs.size else 0
        if stop:
            lr = fr.get("lr")
            if lr is not None:
                self._sched.update_many(lr[sel][:stop])
        # the frame row of the first grad norm not committed (q: all of them)
        s = q if stop == xs.size else (a + stop if idx is None else int(sel[stop]))
        if idx is not None:  # (the committed rows' NaN / Inf: the rows from s on go through update)
            self.n_bad += (s - a) - int(np.count_nonzero(np.isfinite(g[a:s])))
        if "loss" in fr.cols:  # every committed row, finite grad norm or not, is a loss record
            self.loss_records += s - a
        self.unit.see_frame(fr.step[a:s], ep[a:s] if ep is not None else None)
        return s

    def _bulk(self, x: np.ndarray, st: np.ndarray) -> int:
        """Commit rows of finite grad norms ``x`` (steps ``st``) up to the first
        one that ``update`` must see; return how many were committed.

        Screening bound: while no row spikes, row k's median window lies inside
        two consecutive blocks of W values (W = window) of the sequence "old
        window + x", so its median is between their min ``lo`` and max ``hi``
        (and rounding is monotone): ``x < ratio * lo`` proves "no spike
        candidate", ``x >= vanish_ratio * hi`` with ``lo > 0`` proves "not
        vanishing", ``hi <= 0`` proves "median <= 0" (neither). Rows the bounds
        do not clear get their exact median; only true candidates stop the bulk.
        Rate alerts are exact: the over / high shares at every 16th post-warm-up
        row come from cumulative counts."""
        s = self.settings
        med = self._med
        W, L0, m = med.size, len(med), x.size
        if not L0:  # no median yet (start, resume): let update take the first row
            return 0
        g0, m0 = x.item(0), med.get()
        assert m0 is not None  # (L0 values in the window)
        if g0 > 0 and m0 > 0 and g0 >= s.grad_spike_ratio * m0 and len(self._logm) >= s.min_baseline:
            return 0  # the first row is a spike candidate (the test of update): no columns for it
        total = L0 + m
        nb = -(-total // W)
        c = np.empty(nb * W)
        c[:L0] = med.values()
        c[L0:total] = x
        blocks = c.reshape(nb, W)
        c[total:] = np.inf
        bmin = blocks.min(1)
        c[total:] = -np.inf
        bmax = blocks.max(1)
        c[total:] = np.nan  # compares False: the padding never becomes a row
        lo, hi = bmin.copy(), bmax.copy()  # over blocks b-1 and b: the windows of block b's rows
        np.minimum(lo[1:], bmin[:-1], out=lo[1:])
        np.maximum(hi[1:], bmax[:-1], out=hi[1:])

        # post-warm-up rows (they feed the rates and the vanishing test): past
        # ``window`` grad norms (ordinal k >= k0) and past the configured warm-up
        k0 = min(m, max(0, math.floor(s.window - self.n)))
        w = self.state.info.warmup_steps
        pmask = None
        if w is not None and k0 < m and not st[k0:].min() > w:
            pmask = st > w
            pmask[:k0] = False
        prow = None if pmask is None else np.flatnonzero(pmask)
        npost = m - k0 if prow is None else prow.size  # (prow is None with pmask)

        # rows the bounds do not clear; blocks first (a block's max / min decides for all its rows)
        thr = s.grad_spike_ratio * lo
        thr[hi <= 0] = np.inf
        flag = _rows(blocks, L0, m, np.flatnonzero(bmax >= thr), thr, True)
        flag = flag[x[flag] > 0]
        vanish = self.vanished_at is None and npost > 0
        if vanish:
            vthr = s.grad_vanish_ratio * hi
            vthr[lo <= 0] = np.inf
            vthr[hi <= 0] = -np.inf
            vflag = _rows(blocks, L0, m, np.flatnonzero(bmin < vthr), vthr, False)
            vflag = vflag[vflag >= k0] if pmask is None else vflag[pmask[vflag]]
            if vflag.size:
                flag = np.union1d(flag, vflag)
        stop = m
        refined_pos = None  # post rows whose exact median is > 0
        if flag.size:
            mv = med.medians_after(x, flag)  # the median each of these rows sees
            xf = x[flag]
            cand = (xf > 0) & (mv > 0) & (xf >= s.grad_spike_ratio * mv)
            if cand.any():  # ... and the moments window must hold min_baseline logs
                npos = np.concatenate(([0], np.cumsum(x > 0)))[flag]
                cand &= np.minimum(len(self._logm) + npos, self._logm.size) >= s.min_baseline
            rob = (xf > 0) & (mv > 0) & ~cand
            if rob.any():  # the robust rule's candidates (see _test)
                cand[rob] = self._robust_rows(x, flag[rob])
            if vanish:
                is_post = (flag >= k0) if pmask is None else pmask[flag]
                cand |= is_post & (mv > 0) & (xf < s.grad_vanish_ratio * mv)
                refined_pos = flag[is_post & (mv > 0)]
            hits = np.flatnonzero(cand)
            if hits.size:
                stop = int(flag[hits[0]])

        # rates, checked at every RATE_EVERY-th post-warm-up row
        xp = x[k0:] if pmask is None else x[prow]
        bo, bh = xp > s.grad_threshold, xp > s.grad_high
        t = np.arange(RATE_EVERY - self._tick, npost + 1, RATE_EVERY)  # post-row ordinals (1-based)
        if t.size:
            t = t[np.minimum(len(self._over) + t, RATE_WINDOW) >= min(RATE_WINDOW, s.window)]
        over = high = None
        if t.size:
            over, high = self._over.rates(bo, t), self._high.rates(bh, t)
            alert = np.zeros(t.size, dtype=bool)
            if not self.high_alerted:
                alert |= high >= HIGH_RATE
            if not self.over_alerted:
                alert |= over >= s.grad_exceed_rate
            a = np.flatnonzero(alert)
            if a.size:
                i = int(t[a[0]]) - 1
                stop = min(stop, k0 + i if prow is None else int(prow[i]))

        # commit rows 0 .. stop-1 as if fed one by one
        q = stop
        if not q:
            return 0
        self.n += q
        xq = x[:q] if w is None else x[:q][st[:q] > w]
        self.n_post += xq.size
        self.n_post_over += int(np.count_nonzero(xq > s.grad_threshold))
        self.n_post_high += int(np.count_nonzero(xq > s.grad_high))
        i = int(x[:q].argmax())  # (the first of equal maxima, as update keeps it)
        top = float(x[i])
        if top > self.max_gn:
            self.max_gn, self.max_step, self.max_n = top, int(st[i]), self.n - q + i + 1
        med.extend(x[:q])
        self._since = (self._since + x[max(0, q - BACK_RECORDS) : q].tolist())[-BACK_RECORDS:]
        pos = x[max(0, q - self._logm.size) : q]
        if not pos.min() > 0:
            pos = x[:q][x[:q] > 0][-self._logm.size :]
        self._logm.extend(list(map(math.log, pos.tolist())))
        self._raw = (self._raw + pos[-3:].tolist())[-3:]
        nq = max(0, q - k0) if prow is None else int(np.searchsorted(prow, q))  # post rows committed
        if nq:
            self._over.extend(bo[:nq])
            self._high.extend(bh[:nq])
            self._tick = (self._tick + nq) % RATE_EVERY
            if over is not None and high is not None:  # (set together)
                done = t <= nq
                if done.any():
                    self.over_peak = max(self.over_peak, float(over[done].max()))
                    self.high_peak = max(self.high_peak, float(high[done].max()))
            if vanish:  # a committed post row with a median > 0 reset the run
                rows = np.arange(k0, k0 + nq) if prow is None else prow[:nq]
                if (lo[(L0 + rows) // W] > 0).any() or (refined_pos is not None and (refined_pos < q).any()):
                    self._vanish_run = 0
        return q

    def _robust_rows(self, x: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """For rows (ascending indices into the grad norms ``x`` of a bulk, none of the
        rows before them a spike): whether ``_robust`` could call it a spike after the rows
        before it, by its ratio test (the log values are ``update``'s, math.log)."""
        s = self.settings
        old = list(self._logm.values())
        have0 = len(old)
        old = old[-ROBUST_LEVEL:]
        pos = np.flatnonzero(x > 0)
        npos = np.searchsorted(pos, rows)  # positive values before each row (they feed the logs)
        out = np.zeros(rows.size, dtype=bool)
        for i, (k, p) in enumerate(zip(rows.tolist(), npos.tolist())):
            if min(have0 + p, self._logm.size) < s.grad_robust_min:
                continue
            new = [math.log(v) for v in x[pos[max(0, p - ROBUST_LEVEL) : p]].tolist()]
            level = median((old + new)[-ROBUST_LEVEL:])
            out[i] = x[k] >= s.grad_robust_ratio * math.exp(level) * (1 - 1e-9)  # (a margin: only slower)
        return out

    def _again(self, rec, g, med, z, inc, prev) -> Alert:
        """A spike inside an open incident after the grad norm came back to its level since
        the previous spiking record (the median of the BACK_RECORDS values between within
        recovery_factor x the baseline): a spike of its own, said (issue 26: a BitDistiller
        burst, 113 at 190 and 130 at 200 with the norm back at ~4 between, read as one)."""
        return self._warn(
            rec,
            g,
            med,
            f"Gradient-norm spike at step {rec.step}: {fmt(g)} vs median {fmt(med)} "
            f"({times(g / med)}x, {z:.0f} sigma), after the grad norm had come back to its level since the "
            f"spike at step {prev} (incident since step {inc[0]}).",
            rec.step,
        )

    def _peak(self, rec, g, med, z, inc) -> Alert:
        return self._warn(
            rec,
            g,
            inc[3],
            f"Gradient-norm spike incident since step {inc[0]} grew: {fmt(g)} at step "
            f"{rec.step} vs median {fmt(inc[3])} ({times(g / inc[3])}x, {z:.0f} sigma).",
            inc[0],
        )

    def _warn(self, rec, g, base, msg: str, at: int) -> Alert:
        """A grad-norm spike warning (``at``: the step whose batch to check)."""
        return Alert(
            self.id,
            Severity.WARNING,
            rec.step,
            msg,
            value=g,
            baseline=base,
            actions=[advice.clip(self.state), advice.check_data(at)],
            key="grad_spike",
        )

    def _spike(self, rec, g, med, z, local=False) -> Alert:
        self.spikes.append([rec.step, g, rec.step, med, rec.step, g])
        of = f" of the last {ROBUST_LEVEL} values" if local else ""
        return self._warn(
            rec,
            g,
            med,
            f"Gradient-norm spike at step {rec.step}: {fmt(g)} vs median {fmt(med)}{of} "
            f"({times(g / med)}x, {z:.0f} sigma). The grad norm usually leads the loss: watch the next steps.",
            rec.step,
        )

    def _rates(self, rec: StepRecord) -> list[Alert]:
        if len(self._over) < min(RATE_WINDOW, self.settings.window):
            return []
        over, high = self._over.get(), self._high.get()
        self.over_peak = max(self.over_peak, over)
        self.high_peak = max(self.high_peak, high)
        alert = self._rate_alert(
            rec.step,
            rec.grad_norm,
            high,
            over,
            lambda: f"the last {len(self._high)} steps (median {fmt(self._med.get())})",
            lambda: f"the last {len(self._over)} steps after warm-up",
        )
        return [] if alert is None else [alert]

    def _rate_alert(
        self,
        step: int | None,
        value: float | None,
        high: float,
        over: float,
        high_of: Callable[[], str],
        over_of: Callable[[], str],
    ) -> Alert | None:
        """The rate rule, one for the rolling window (``_rates``) and for the whole
        post-warm-up share of a log too short for it (``finalize``): above ``grad_high`` in
        ``HIGH_RATE`` of the values warns (lower the LR, clip), else above the clip threshold
        in ``grad_exceed_rate`` of them (clipping on most steps: lower the LR); each once.
        ``high_of`` / ``over_of`` say which values (called only when said)."""
        s = self.settings
        if high >= HIGH_RATE and not self.high_alerted:
            self.high_alerted = True
            return Alert(
                self.id,
                Severity.WARNING,
                step,
                f"Gradient norm above {fmt(s.grad_high)} in {high:.0%} of {high_of()}.",
                value=value,
                baseline=s.grad_high,
                actions=[advice.lower_lr(self.state, peak=self._sched.peak), advice.clip(self.state)],
                key="grad_high",
            )
        if over >= s.grad_exceed_rate and not self.over_alerted:
            self.over_alerted = True
            return Alert(
                self.id,
                Severity.WARNING,
                step,
                f"Gradient norm above {fmt(s.grad_threshold)} in {over:.0%} of {over_of()}: clipping is active on "
                "most steps.",
                value=value,
                baseline=s.grad_threshold,
                actions=[advice.lower_lr(self.state, 0.7, peak=self._sched.peak)],
                key="grad_over",
            )
        return None

    def _vanishing(self, rec, g, med) -> list[Alert]:
        if med is None or med <= 0 or self.vanished_at is not None:
            return []
        if g < self.settings.grad_vanish_ratio * med:
            self._vanish_run += 1
        else:
            self._vanish_run = 0
        if self._vanish_run >= VANISH_RECORDS:
            self.vanished_at = rec.step
            return [
                Alert(
                    self.id,
                    Severity.WARNING,
                    rec.step,
                    f"Gradient norm vanishing at step {rec.step}: {fmt(g)} vs median {fmt(med)}. "
                    "The optimizer may have stopped learning (dead units or dead optimizer state).",
                    value=g,
                    baseline=med,
                    actions=[
                        advice.rollback(self.state, rec.step, "the collapse"),
                        "Check for dead activations (ReLU) and a frozen or zero LR.",
                    ],
                    key="grad_vanish",
                )
            ]
        return []

    def on_resume(self, step: int) -> None:
        self.unit.on_resume()
        self._med.clear()
        self._logm.clear()
        self._raw = []
        self._vanish_run = 0

    def _abs_levels(self) -> tuple[float, float] | None:
        """Shares of all post-warm-up values above 5.0 and above the threshold, for a
        log too short for the rolling rates (the seed's absolute rules need no baseline)."""
        if self.high_alerted or self.over_alerted or len(self._over) >= min(RATE_WINDOW, self.settings.window):
            return None
        if self.n_post < ABS_MIN_VALUES:
            return None
        return self.n_post_high / self.n_post, self.n_post_over / self.n_post

    def _untaken_max(self) -> float | None:
        """The run's median when its largest grad norm is grad_huge_ratio x above it, no spike
        rule took that value and it came after the first grad_robust_min values (start-up):
        a stretch of high values each near the ones before it (issue 26: never a bare PASS for
        a max in the hundreds of the median); else None."""
        med = self._med.get()
        if (
            med
            and med > 0
            and self.max_gn >= self.settings.grad_huge_ratio * med
            and not any(i[2] == self.max_step for i in self.spikes)
            and self.max_n > self.settings.grad_robust_min
        ):
            return med
        return None

    def finalize(self) -> list[Alert]:
        out: list[Alert] = []
        med = self._untaken_max()
        if med is not None and self.max_step is not None:
            # the summary says where; so does an alert (the feed, --json and the scorer see alerts)
            out.append(
                Alert(
                    self.id,
                    Severity.WARNING,
                    self.max_step,
                    f"Grad norm {fmt(self.max_gn)} at step {self.max_step}: {times(self.max_gn / med)}x the "
                    f"median of the last {len(self._med)} values ({fmt(med)}), in a stretch of high values "
                    "that no spike rule took (each near the ones before it). Look at that stretch: the grad "
                    "norm usually leads the loss.",
                    value=self.max_gn,
                    baseline=med,
                    actions=[advice.clip(self.state), advice.check_data(self.max_step)],
                    key="grad_spike",
                )
            )
        lv = self._abs_levels()
        if lv is None:
            return out
        high, over = lv
        values = f"the {self.n_post} values logged after warm-up"
        alert = self._rate_alert(
            self.state.last_step,
            self.max_gn,
            high,
            over,
            lambda: f"{values} (median {fmt(self._med.get())}, max {fmt(self.max_gn)})",
            lambda: values,
        )
        if alert is None:
            return out
        if alert.key == "grad_high":  # the share of the whole log is the peak the summary says
            self.high_peak = high
        else:
            self.over_peak = over
        return out + [alert]

    def _not_logged(self) -> CheckResult:
        """No grad norm beside the loss. A WARN where the training loop could log it (an LLM run
        without it is flying blind: it is the first sign of a spike); said, not warned, where
        nothing can be added to the file: a hosted fine-tune's metrics are the service's, and a
        log of one record per epoch (Ultralytics, Keras histories) holds no per-step series."""
        hosted = self.state.info.hosted_model
        if hosted:
            return self._result(
                Status.SKIP,
                f"grad norm not logged: a hosted fine-tune ({hosted}) reports the service's metrics only",
            )
        if self.unit.epochs() is not None:
            return self._result(
                Status.SKIP,
                "grad norm not logged: one record per epoch, no per-step series (log it from the training "
                "loop where you can)",
            )
        return self._result(Status.WARN, "grad norm not logged: flying blind (log it every step)")

    def result(self) -> CheckResult:
        if self.n == 0:
            if self.n_bad:
                # (fresh24's torchtitan run: grad_norm inf on all 101 records read "not logged: flying blind")
                return self._result(
                    Status.WARN,
                    f"grad norm logged, never finite: NaN / Inf in all {self.n_bad} records (the NaN/Inf check "
                    "judges them; an fp16 overflow skips such steps, a bf16 / fp32 run has none)",
                )
            if self.loss_records:
                return self._not_logged()
            return self._result(Status.SKIP, "no grad norm or loss in the log")
        if self.max_gn == 0 and self.n >= ZERO_RECORDS:
            return self._result(
                Status.WARN,
                f"grad norm exactly 0 in all {self.n} records: no gradient reaches the weights (frozen or "
                "untrainable parameters, a loss that does not depend on them, every label masked)",
            )
        problems = []
        if self.high_alerted:
            problems.append(f"above {fmt(self.settings.grad_high)} in up to {self.high_peak:.0%} of steps")
        elif self.over_alerted:
            problems.append(f"above {fmt(self.settings.grad_threshold)} in up to {self.over_peak:.0%} of steps")
        if self.spikes:
            n = len(self.spikes)
            big = sorted(self.spikes, key=lambda i: -(i[1] / i[3]))[:3] if n > 3 else self.spikes
            st = ", ".join(f"{i[0]} ({times(i[1] / i[3])}x" + (f" at {i[2]})" if i[2] != i[0] else ")") for i in big)
            problems.append(f"{n} spike(s), the largest at step {st}" if n > 3 else f"{n} spike(s) at step {st}")
        if self.vanished_at is not None:
            problems.append(f"vanishing at step {self.vanished_at}")
        med = self._med.get()
        top = f"max {fmt(self.max_gn)}"
        if (
            med
            and med > 0
            and self.max_gn >= self.settings.grad_huge_ratio * med
            and not any(i[2] == self.max_step for i in self.spikes)
        ):  # (past the start-up values: _untaken_max, also an alert at the end)
            # never a bare PASS for a max in the hundreds of the median: where it was, and
            # why no spike rule took it (issue 26)
            top += f" at step {self.max_step} ({times(self.max_gn / med)}x the median)"
            if self.max_n > self.settings.grad_robust_min:
                problems.append(
                    f"median {fmt(med)}, {top}: no spike rule took it (the values before it were "
                    "high too): look at that stretch"
                )
            else:
                top += f", in the first {self.settings.grad_robust_min} values (start-up, before any spike rule judges)"
        if problems:
            return self._result(Status.WARN, "; ".join(problems))
        return self._result(Status.PASS, f"{self.n} values, median {fmt(med)}, {top}")


def _rows(blocks: np.ndarray, L0: int, m: int, sel: np.ndarray, thr: np.ndarray, ge: bool) -> np.ndarray:
    """Rows (0 .. m-1, ascending) in blocks ``sel`` whose value is >= (``ge``)
    or < their block's ``thr``; value j of the sequence is row j - L0."""
    if not sel.size:
        return sel
    sub = blocks[sel]
    hit = sub >= thr[sel, None] if ge else sub < thr[sel, None]
    bi, col = np.nonzero(hit)
    r = sel[bi] * blocks.shape[1] + col - L0
    return r[(r >= 0) & (r < m)]
