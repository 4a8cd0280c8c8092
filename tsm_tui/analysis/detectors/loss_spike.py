"""Loss spikes: find them, tell the ones that recover (WARN) from the ones that
do not or that turn into divergence (FAIL).

Rules (sources in tsm_tui/core/settings.py):
- seed rule: loss > 2.5 x median of the window without its last 10 records,
  kept from firing on noisy runs by a z >= 2.5 test on log-loss (ZClip);
- OLMo-core rule: log-loss > mean + 6 sigma of the same baseline (with a 1.3x
  floor so a smooth curve's tiny wiggles are not "spikes");
- an absolute floor (0.05) so bumps near zero loss are ignored.
Spiking values are kept out of the baseline (ZClip feeds its EMA the clipped
value), so a spike does not hide the next one.
"""

from __future__ import annotations

import math

import bottleneck as bn
import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.detectors.stats import Delay, RollingMedian, RollingMoments, mean_std
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord

SIGMA_MIN_RATIO = 1.3
RECOVERY_RECORDS = 3  # consecutive records back near baseline
IF_NOT_RECOVERED = "If it does not recover: "


class _Incident:
    __slots__ = ("onset", "baseline", "peak", "peak_step", "spike_records", "ok_run", "state", "alert")

    def __init__(self, onset: int, baseline: float, value: float) -> None:
        self.onset = onset
        self.baseline = baseline
        self.peak = value
        self.peak_step = onset
        self.spike_records = 1
        self.ok_run = 0
        self.state = "open"  # open / recovered / failed / diverged
        self.alert: Alert | None = None  # the onset alert, updated when the spike resolves

    def resolve(self) -> None:
        """The conditional rollback of the onset alert is moot once the spike
        recovered (nothing to do) or failed (the critical alert carries it)."""
        if self.alert is not None:
            self.alert.actions = [a for a in self.alert.actions if not a.startswith(IF_NOT_RECOVERED)]


class LossSpikeDetector(Detector):
    id = "loss_spike"
    title = "Loss Spike Detection"

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        base_len = max(5, settings.window - settings.spike_exclude_recent)
        self._delay = Delay(settings.spike_exclude_recent)
        self._med = RollingMedian(base_len)
        self._logm = RollingMoments(base_len)
        self._recent = RollingMedian(settings.window)  # undelayed, for divergence
        self._best_med: float | None = None
        self._best_step: int | None = None
        self._incident: _Incident | None = None
        self.incidents: list[_Incident] = []
        self.n = 0
        self.recovered = 0
        self.failed = 0
        self._last: StepRecord | None = None
        self._diverged_at: int | None = None

    # ------------------------------------------------------------------ update
    def update(self, rec: StepRecord) -> list[Alert]:
        x = rec.loss
        if x is None or not math.isfinite(x):
            return []
        self.n += 1
        self._last = rec
        out: list[Alert] = []
        med = self._med.get()
        is_spike = False
        if med is not None and len(self._med._fifo) >= self.s.min_baseline:
            is_spike, ratio, z = self._test(x, med)
            if is_spike:
                out += self._on_spike(rec, x, med, ratio, z)
        inc = self._incident
        if inc is not None and not is_spike:
            out += self._track(inc, rec, x)
        # spiking values do not enter the baseline (ZClip feeds the clipped value)
        fed = med if (is_spike and med is not None) else x
        out_val = self._delay.push(fed)
        if out_val is not None:
            self._med.update(out_val)
            if out_val > 0:
                self._logm.update(math.log(out_val))
        self._recent.update(x)
        out += self._divergence(rec)
        return out

    # ------------------------------------------------------------------ frames
    def update_frame(self, fr) -> list[Alert]:
        """Columnar path: stretches with no spike candidate and no divergence are
        taken in bulk; a real spike and its incident go record by record."""
        loss = fr.get("loss")
        if loss is None:
            return []
        idx = np.flatnonzero(np.isfinite(loss))  # non-finite losses never touch this check
        xs = loss[idx]
        out: list[Alert] = []
        p, n = 0, idx.size
        while p < n:
            if self._incident is not None:  # an open spike: record by record until it resolves
                out += self.update(fr.at(int(idx[p])))
                p += 1
                continue
            stop = self._bulk(fr, idx, xs, p)
            if stop < n:
                out += self.update(fr.at(int(idx[stop])))
                stop += 1
            p = stop
        return out

    def _bulk(self, fr, idx, xs, p: int) -> int:
        """Take rows p.. of the finite losses in bulk up to the first row whose
        record could raise something (a spike or divergence); commit the state
        for the rows before it and return its position (len when none)."""
        s = self.s
        fed = xs[p:]
        m = fed.size
        nd = self._delay.n
        dq = np.fromiter(self._delay._q, float, len(self._delay._q))
        # the delay passes values on unchanged while nothing spikes
        dseq = np.concatenate((dq, fed))
        nout = np.maximum(0, dq.size + np.arange(m) - nd)  # values out of the delay before row j
        outs = dseq[: max(0, dseq.size - nd)] if nd else fed
        base = np.fromiter(self._med._fifo, float, len(self._med._fifo))
        bseq = np.concatenate((base, outs))
        t = base.size + nout - 1  # index in bseq of the newest baseline value row j sees
        count = np.minimum(self._med.size, t + 1)
        lb = (bn.move_min(bseq, min(self._med.size, bseq.size), min_count=1)[np.maximum(t, 0)] if bseq.size
              else np.zeros(m))
        # the window's minimum bounds its median from below: a row below 1.3x the
        # minimum or within spike_min_delta of it cannot pass the spike test
        cand = (count >= s.min_baseline) & (t >= 0) & (fed >= SIGMA_MIN_RATIO * lb) & (fed - lb >= s.spike_min_delta)
        stop = m
        for j in np.flatnonzero(cand):
            j = int(j)
            win = sorted(bseq[max(0, t[j] - self._med.size + 1): t[j] + 1].tolist())
            k = len(win)
            med = win[k // 2] if k % 2 else 0.5 * (win[k // 2 - 1] + win[k // 2])
            if self._test_window(float(fed[j]), med, bseq, t[j]):
                stop = j
                break
        # divergence: the exact rolling median of the undelayed window
        div_stop, best = self._divergence_scan(fr, idx, xs, p, stop)
        stop = min(stop, div_stop)
        # commit rows p .. p+stop-1 as if fed one by one
        if stop:
            self.n += stop
            self._last = fr.record(int(idx[p + stop - 1]))
            k_out = max(0, dq.size + stop - nd)  # values out of the delay after these rows
            self._delay._q.clear()
            self._delay._q.extend(dseq[k_out: dq.size + stop].tolist())
            # (only the values that can still be in a window need to go in)
            self._med.extend(outs[max(0, k_out - self._med.size): k_out].tolist())
            pos = outs[:k_out]
            self._logm.extend([math.log(v) for v in pos[pos > 0][-self._logm.size:].tolist()])
            self._recent.extend(fed[max(0, stop - self._recent.size): stop].tolist())
            if best is not None:
                self._best_med, self._best_step = best
        return p + stop

    def _test_window(self, x: float, med: float, bseq, t: int) -> bool:
        """The spike test of ``_test`` for a candidate row, with the log-moments
        window rebuilt from the baseline sequence up to index ``t``."""
        s = self.s
        if x - med < s.spike_min_delta or med <= 0 or x < SIGMA_MIN_RATIO * med:
            return False
        ratio = x / med
        n_old = len(self._med._fifo)
        new = bseq[n_old: t + 1]
        new = [math.log(v) for v in new[new > 0][-self._logm.size:].tolist()]
        logs = (list(self._logm._fifo) + new)[-self._logm.size:]
        mean, std = mean_std(logs)
        z = (math.log(x) - mean) / std if std > 1e-12 else (math.inf if ratio > 1 else 0.0)
        return (ratio >= s.spike_factor and z >= s.spike_min_z) or (z >= s.sigma and ratio >= SIGMA_MIN_RATIO)

    def _divergence_scan(self, fr, idx, xs, p: int, stop: int):
        """First row (relative to p, before ``stop``) where ``_divergence`` would
        fire, and the best rolling median (value, step) after the rows before it."""
        if self._diverged_at is not None or stop == 0:
            return stop, None
        s = self.s
        W = self._recent.size
        old = np.fromiter(self._recent._fifo, float, len(self._recent._fifo))
        seq = np.concatenate((old, xs[p: p + stop]))
        if seq.size < W:
            return stop, None
        cur = bn.move_median(seq, W, min_count=W)[old.size:]
        valid = np.flatnonzero(~np.isnan(cur))
        if not valid.size:
            return stop, None
        c = cur[valid]
        b0 = self._best_med
        prev = np.empty(c.size)
        prev[0] = np.inf if b0 is None else b0
        if c.size > 1:
            prev[1:] = np.minimum.accumulate(c[:-1])
            if b0 is not None:
                np.minimum(prev, b0, out=prev)
        upd = c < prev
        fire = ~upd & (prev > 0) & (c > prev * s.divergence_factor) & (c - prev >= s.spike_min_delta)
        hits = np.flatnonzero(fire)
        end = int(hits[0]) if hits.size else c.size  # rows of c taken in bulk
        stop_at = int(valid[end]) if hits.size else stop
        best = None
        u = np.flatnonzero(upd[:end])
        if u.size:
            j = int(u[-1])
            best = (float(c[j]), int(fr.step[idx[p + int(valid[j])]]))
        return stop_at, best

    def _test(self, x: float, med: float) -> tuple[bool, float, float]:
        # both rules need x >= 1.3 x median: most records stop here, no log()
        if x - med < self.s.spike_min_delta or med <= 0 or x < SIGMA_MIN_RATIO * med:
            return False, 0.0, 0.0
        ratio = x / med
        mean, std = mean_std(self._logm._fifo)
        z = (math.log(x) - mean) / std if std > 1e-12 else (math.inf if ratio > 1 else 0.0)
        seed = ratio >= self.s.spike_factor and z >= self.s.spike_min_z
        sigma = z >= self.s.sigma and ratio >= SIGMA_MIN_RATIO
        return (seed or sigma), ratio, z

    def _on_spike(self, rec, x, med, ratio, z) -> list[Alert]:
        inc = self._incident
        if inc is not None:
            inc.spike_records += 1
            inc.ok_run = 0
            if x > inc.peak:
                inc.peak, inc.peak_step = x, rec.step
            return []
        inc = self._incident = _Incident(rec.step, med, x)
        self.incidents.append(inc)
        zs = f", {z:.1f} sigma" if math.isfinite(z) else ""
        inc.alert = Alert(
                self.id,
                Severity.WARNING,
                rec.step,
                f"Loss spike at step {rec.step}: {fmt(x)} vs baseline {fmt(med)} ({ratio:.1f}x{zs}). "
                f"Spikes that recover are normal; watching for recovery within {self.s.recovery_steps} steps.",
                value=x,
                baseline=med,
                actions=[
                    advice.clip(self.state),
                    f"{IF_NOT_RECOVERED}{advice.rollback(self.state, rec.step)}",
                ],
                key=f"loss_spike:{rec.step}",
            )
        return [inc.alert]

    def _track(self, inc: _Incident, rec: StepRecord, x: float) -> list[Alert]:
        if x <= inc.baseline * self.s.recovery_factor:
            inc.ok_run += 1
        else:
            inc.ok_run = 0
        if inc.ok_run >= RECOVERY_RECORDS:
            inc.state = "recovered"
            inc.resolve()
            self._incident = None
            self.recovered += 1
            took = rec.step - inc.onset
            return [
                Alert(
                    self.id,
                    Severity.INFO,
                    rec.step,
                    f"Loss recovered from the spike at step {inc.onset} (peak {fmt(inc.peak)} vs "
                    f"baseline {fmt(inc.baseline)}) in {took} steps.",
                    value=x,
                    baseline=inc.baseline,
                    actions=[],
                    key=f"loss_spike_recovered:{inc.onset}",
                )
            ]
        if rec.step - inc.onset >= self.s.recovery_steps:
            return self._fail(inc, rec, x, f"has not recovered {rec.step - inc.onset} steps later")
        return []

    def _fail(self, inc: _Incident, rec: StepRecord, x: float, why: str, diverged: bool = False) -> list[Alert]:
        inc.state = "diverged" if diverged else "failed"
        inc.resolve()
        self._incident = None
        self.failed += 1
        # the new level becomes the baseline so one failure is not re-reported each step
        self._med.clear()
        self._logm.clear()
        self._delay.clear()
        return [
            Alert(
                self.id,
                Severity.CRITICAL,
                rec.step,
                f"Loss spike at step {inc.onset} {why}: loss {fmt(x)} vs {fmt(inc.baseline)} before it "
                f"({x / inc.baseline:.1f}x)." if inc.baseline > 0 else f"Loss spike at step {inc.onset} {why}.",
                value=x,
                baseline=inc.baseline,
                actions=[
                    advice.rollback(self.state, inc.onset),
                    advice.lower_lr(self.state),
                    advice.clip(self.state),
                ],
                key=f"loss_spike_fail:{inc.onset}",
            )
        ]

    def _divergence(self, rec: StepRecord) -> list[Alert]:
        if self._diverged_at is not None or len(self._recent._fifo) < self.s.window:
            return []
        cur = self._recent.get()
        if self._best_med is None or cur < self._best_med:
            self._best_med, self._best_step = cur, rec.step
            return []
        best = self._best_med
        if best > 0 and cur > best * self.s.divergence_factor and cur - best >= self.s.spike_min_delta:
            self._diverged_at = rec.step
            inc = self._incident
            if inc is not None:
                return self._fail(inc, rec, rec.loss, "turned into divergence", diverged=True)
            self.failed += 1
            onset = self._best_step or rec.step
            return [
                Alert(
                    self.id,
                    Severity.CRITICAL,
                    rec.step,
                    f"Loss is diverging: rolling median {fmt(cur)} at step {rec.step} vs its best "
                    f"{fmt(best)} at step {onset} ({cur / best:.1f}x).",
                    value=cur,
                    baseline=best,
                    actions=[
                        advice.rollback(self.state, onset, "the climb"),
                        advice.lower_lr(self.state),
                        advice.clip(self.state),
                    ],
                    key="loss_divergence",
                )
            ]
        return []

    def on_resume(self, step: int) -> None:
        self._med.clear()
        self._logm.clear()
        self._delay.clear()
        self._recent.clear()
        self._best_med = self._best_step = None
        self._diverged_at = None
        if self._incident is not None and self._incident.onset > step:
            # the spike is in the superseded part: the restart is the remedy
            self._incident.state = "recovered"
            self._incident.resolve()
            self.recovered += 1
            self._incident = None

    # ------------------------------------------------------------------ end
    def finalize(self) -> list[Alert]:
        inc = self._incident
        last = self._last
        if inc is None or last is None:
            return []
        x = last.loss
        if x is not None and inc.baseline > 0 and x >= inc.baseline * self.s.spike_factor:
            return self._fail(inc, last, x, "had not recovered by the end of the log")
        return []

    def result(self) -> CheckResult:
        if self.n == 0:
            return self._result(Status.SKIP, "no loss values in the log")
        n_inc = len(self.incidents)
        if self.failed:
            bad = [i for i in self.incidents if i.state in ("failed", "diverged")]
            if bad:
                i = bad[0]
                kind = "turned into divergence" if i.state == "diverged" else "did not recover"
                return self._result(Status.FAIL, f"spike at step {i.onset} {kind}")
            return self._result(Status.FAIL, f"loss diverging since step {self._best_step}")
        if n_inc:
            steps = ", ".join(str(i.onset) for i in self.incidents[:4])
            more = f" (+{n_inc - 4} more)" if n_inc > 4 else ""
            open_ = " (one still recovering)" if self._incident is not None else ""
            return self._result(Status.WARN, f"{n_inc} spike(s) at step {steps}{more}, recovered{open_}")
        return self._result(Status.PASS, f"no spikes in {self.n} loss values")


