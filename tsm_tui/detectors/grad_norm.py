"""Gradient norm: above the clip threshold too often, far above it (lower the
LR), spikes against the run's own level (grad norm leads loss), vanishing, and
not logged at all ("flying blind").
"""

from __future__ import annotations

import math

from tsm_tui import advice
from tsm_tui.detectors.base import Detector, fmt
from tsm_tui.detectors.stats import RollingMedian, RollingMoments, RollingRate, mean_std
from tsm_tui.record import Alert, CheckResult, Severity, Status, StepRecord

RATE_WINDOW = 1000  # OLMo-core / detection-anchors 2.3: rates over ~1000 steps
HIGH_RATE = 0.2  # (ours) "frequently above 5.0": one step in five
VANISH_RECORDS = 5
RATE_EVERY = 16


class GradNormDetector(Detector):
    id = "grad_norm"
    title = "Gradient Norm"

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self._med = RollingMedian(settings.window)
        self._logm = RollingMoments(settings.sigma_window)
        self._over = RollingRate(RATE_WINDOW)
        self._high = RollingRate(RATE_WINDOW)
        self.n = 0
        self.loss_records = 0
        self.spikes: list[tuple[int, float, float]] = []
        self.over_alerted = False
        self.high_alerted = False
        self.over_peak = 0.0
        self.high_peak = 0.0
        self._vanish_run = 0
        self.vanished_at: int | None = None
        self.max_gn = 0.0
        self._tick = 0

    def _post_warmup(self, rec: StepRecord) -> bool:
        w = self.state.info.warmup_steps
        if w is not None and rec.step <= w:
            return False
        return self.n > self.s.window

    def update(self, rec: StepRecord) -> list[Alert]:
        if rec.loss is not None:
            self.loss_records += 1
        g = rec.grad_norm
        if g is None or not math.isfinite(g):
            return []
        self.n += 1
        self.max_gn = max(self.max_gn, g)
        out: list[Alert] = []
        med = self._med.get()
        spike = False
        if med is not None and g >= self.s.grad_spike_ratio * med and len(self._logm._fifo) >= self.s.min_baseline \
                and g > 0 and med > 0:
            mean, std = mean_std(self._logm._fifo)
            z = (math.log(g) - mean) / std if std > 1e-12 else math.inf
            if z >= self.s.sigma and g >= self.s.grad_spike_ratio * med:
                spike = True
                out.append(self._spike(rec, g, med, z))
        if not spike:
            self._med.update(g)
            if g > 0:
                self._logm.update(math.log(g))
        if self._post_warmup(rec):
            self._over.update(g > self.s.grad_threshold)
            self._high.update(g > self.s.grad_high)
            self._tick += 1
            if self._tick >= RATE_EVERY:  # rates move slowly: look every few records
                self._tick = 0
                out += self._rates(rec)
            out += self._vanishing(rec, g, med)
        return out

    def _spike(self, rec, g, med, z) -> Alert:
        self.spikes.append((rec.step, g, med))
        return Alert(
            self.id,
            Severity.WARNING,
            rec.step,
            f"Gradient-norm spike at step {rec.step}: {fmt(g)} vs median {fmt(med)} ({g / med:.1f}x, "
            f"{z:.0f} sigma). The grad norm usually leads the loss: watch the next steps.",
            value=g,
            baseline=med,
            actions=[advice.clip(self.state), advice.check_data(rec.step)],
            key="grad_spike",
        )

    def _rates(self, rec: StepRecord) -> list[Alert]:
        out = []
        if len(self._over) < min(RATE_WINDOW, self.s.window):
            return out
        over, high = self._over.get(), self._high.get()
        self.over_peak = max(self.over_peak, over)
        self.high_peak = max(self.high_peak, high)
        if high >= HIGH_RATE and not self.high_alerted:
            self.high_alerted = True
            out.append(
                Alert(
                    self.id,
                    Severity.WARNING,
                    rec.step,
                    f"Gradient norm above {fmt(self.s.grad_high)} in {high:.0%} of the last "
                    f"{len(self._high)} steps (median {fmt(self._med.get())}).",
                    value=rec.grad_norm,
                    baseline=self.s.grad_high,
                    actions=[advice.lower_lr(self.state), advice.clip(self.state)],
                    key="grad_high",
                )
            )
        elif over >= self.s.grad_exceed_rate and not self.over_alerted:
            self.over_alerted = True
            out.append(
                Alert(
                    self.id,
                    Severity.WARNING,
                    rec.step,
                    f"Gradient norm above {fmt(self.s.grad_threshold)} in {over:.0%} of the last "
                    f"{len(self._over)} steps after warm-up: clipping is active on most steps.",
                    value=rec.grad_norm,
                    baseline=self.s.grad_threshold,
                    actions=[advice.lower_lr(self.state, 0.7)],
                    key="grad_over",
                )
            )
        return out

    def _vanishing(self, rec, g, med) -> list[Alert]:
        if med is None or med <= 0 or self.vanished_at is not None:
            return []
        if g < self.s.grad_vanish_ratio * med:
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
                    actions=[advice.rollback(self.state, rec.step, "the collapse"), "Check for dead activations (ReLU) and a frozen or zero LR."],
                    key="grad_vanish",
                )
            ]
        return []

    def on_resume(self, step: int) -> None:
        self._med.clear()
        self._logm.clear()
        self._vanish_run = 0

    def result(self) -> CheckResult:
        if self.n == 0:
            if self.loss_records:
                return self._result(Status.WARN, "grad norm not logged: flying blind (log it every step)")
            return self._result(Status.SKIP, "no grad norm or loss in the log")
        problems = []
        if self.high_alerted:
            problems.append(f"above {fmt(self.s.grad_high)} in up to {self.high_peak:.0%} of steps")
        elif self.over_alerted:
            problems.append(f"above {fmt(self.s.grad_threshold)} in up to {self.over_peak:.0%} of steps")
        if self.spikes:
            st = ", ".join(str(s[0]) for s in self.spikes[:3])
            more = f" +{len(self.spikes) - 3}" if len(self.spikes) > 3 else ""
            problems.append(f"{len(self.spikes)} spike(s) at step {st}{more}")
        if self.vanished_at is not None:
            problems.append(f"vanishing at step {self.vanished_at}")
        if problems:
            return self._result(Status.WARN, "; ".join(problems))
        return self._result(Status.PASS, f"{self.n} values, median {fmt(self._med.get())}, max {fmt(self.max_gn)}")
