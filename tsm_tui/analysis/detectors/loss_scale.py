"""fp16 dynamic loss scale: back-offs after start-up, the scale pinned at its
minimum, a collapse from its running max, and skipped steps climbing.

The halvings at the start are normal: the scaler searches down from 2^16
(torch GradScaler) or 2^32 (Megatron). Sources: HF DeepSpeed docs ("Attempted
loss scale: 1, reducing to 1" = the scaler cannot find a scale), OPT-175B
(divergence followed the loss scalar crashing toward 0), Megatron's skipped /
NaN iteration counters.
"""

from __future__ import annotations

import math

import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import NONE, Detector
from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.detectors.stats import RollingRate
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord

SKIP_WINDOW = 1000


class LossScaleDetector(Detector):
    id = "loss_scale"
    title = "FP16 Loss Scale"
    label = "Loss scale"
    short = "fp16"
    metric = "loss_scale"
    order = 70
    urgency = 50

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.n = 0
        self.scale: float | None = None
        self.max_scale = 0.0
        self.backoffs = 0
        self.grown = False
        self.first_step: int | None = None
        self._pinned = 0
        self._skips = RollingRate(SKIP_WINDOW)
        self.skipped_total = 0
        self.overflows = 0
        self.alerted: set[str] = set()
        self.worst = Status.PASS
        self.reasons: list[str] = []
        self.constant_one = True
        self._last_step: int | None = None

    def _startup(self, rec: StepRecord) -> bool:
        fs = self.first_step if self.first_step is not None else rec.step
        return not self.grown and rec.step - fs < self.settings.scale_startup_steps

    def update(self, rec: StepRecord) -> list[Alert]:
        if rec.loss_scale is None and rec.skipped is None and not rec.overflow:
            return []
        self.n += 1
        if self.first_step is None:
            self.first_step = rec.step
        out: list[Alert] = []
        sc = rec.loss_scale
        if rec.overflow:
            self.overflows += 1
        if sc is not None and math.isfinite(sc):
            if sc != 1.0:
                self.constant_one = False
            prev = self.scale
            if prev is not None:
                if sc > prev:
                    self.grown = True
                elif sc < prev and not self._startup(rec):
                    self.backoffs += 1
            self.scale = sc
            if not self._startup(rec):  # the start-up search is not a level to fall from
                self.max_scale = max(self.max_scale, sc)
            if sc <= 1.0 and not self.constant_one:
                self._pinned += 1
            else:
                self._pinned = 0
            if self._pinned >= self.settings.scale_min_records:
                out += self._raise(
                    rec,
                    "pinned",
                    Severity.CRITICAL,
                    f"Loss scale pinned at its minimum ({fmt(sc)}) for {self._pinned} records at step "
                    f"{rec.step}: every step overflows, the scaler cannot find a working scale.",
                )
            if (
                not self._startup(rec)
                and self.grown
                and self.max_scale / max(sc, 1e-30) >= self.settings.scale_collapse
            ):
                out += self._raise(
                    rec,
                    "collapse",
                    Severity.CRITICAL,
                    f"Loss scale collapsed to {fmt(sc)} from a high of {fmt(self.max_scale)} "
                    f"({self.max_scale / max(sc, 1e-30):.0f}x) at step {rec.step}.",
                )
        if rec.skipped is not None:
            self.skipped_total += rec.skipped
            span = rec.step - self._last_step if self._last_step is not None else 1
            self._last_step = rec.step
            if self._startup(rec):
                return out  # the start-up back-offs do not count towards the skip rate
            steps = max(1, rec.skipped, span)
            for i in range(min(steps, SKIP_WINDOW)):
                self._skips.update(i < rec.skipped)
            if len(self._skips) >= min(SKIP_WINDOW, 50):
                rate = self._skips.get()
                if rate >= self.settings.scale_skip_fail:
                    out += self._raise(
                        rec,
                        "skips_fail",
                        Severity.CRITICAL,
                        f"{rate:.0%} of the last {len(self._skips)} steps were skipped for fp16 "
                        f"overflow (step {rec.step}).",
                    )
                elif rate >= self.settings.scale_skip_warn:
                    out += self._raise(
                        rec,
                        "skips_warn",
                        Severity.WARNING,
                        f"{rate:.1%} of the last {len(self._skips)} steps were skipped for fp16 "
                        f"overflow (step {rec.step}).",
                    )
        return out

    # ------------------------------------------------------------------ frames
    # Columnar hooks (the driver is Detector.update_frame). The screen flags a row
    # where the finite scale differs from the previous finite one (self.scale before
    # the first), or with ``skipped != 0``. Between them every finite scale equals
    # ``self.scale`` and nothing is skipped, so the scale logic is the same for every
    # row and the skip rate can only fall (only "not skipped" entries go in): the
    # bulk commits such rows, up to one that could still raise (pinned, collapse,
    # skip rate).
    def prepare(self, fr):
        sc, sk = fr.get("loss_scale"), fr.get("skipped")
        return sc, sk, (None if sc is None else np.isfinite(sc))

    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        sc, sk, fin = cx
        events = []
        if sc is not None:
            fidx = None if fin[a:b].all() else np.flatnonzero(fin[a:b])
            v = sc[a:b] if fidx is None else sc[a:b][fidx]
            if v.size:
                ch = np.empty(v.size, dtype=bool)
                ch[0] = self.scale is None or v[0] != self.scale
                np.not_equal(v[1:], v[:-1], out=ch[1:])
                ch = np.flatnonzero(ch)
                events.append(ch if fidx is None else fidx[ch])
        if sk is not None:
            events.append(np.flatnonzero(sk[a:b]))
        if not events:
            return NONE
        return a + (np.union1d(*events) if len(events) > 1 else events[0])

    def bulk(self, fr, cx, p: int, q: int) -> int:
        """Commit rows p .. q-1 (no scale change, nothing skipped) up to the first
        one that could raise; return where the bulk stopped."""
        sc_col, skipped, fin = cx
        if sc_col is None and skipped is None:
            return q  # no row counts
        s = self.settings
        sc = self.scale
        skips = skipped is not None
        # only "not skipped" entries go in, so the skip rate cannot rise above its current value
        r0 = self._skips.get()
        quiet = r0 < s.scale_skip_warn or (
            "skips_warn" in self.alerted and (r0 < s.scale_skip_fail or "skips_fail" in self.alerted)
        )
        # every finite row has the scale sc: it counts towards "pinned", or is a collapse, or neither
        pin = sc is not None and sc <= 1.0 and not self.constant_one and "pinned" not in self.alerted
        collapse = (
            sc is not None
            and self.grown
            and "collapse" not in self.alerted
            and max(self.max_scale, sc) / max(sc, 1e-30) >= s.scale_collapse
        )
        if pin or collapse or (skips and not quiet):
            q = min(q, p + 64)  # the bulk stops early: keep the look short
        st = fr.step[p:q]
        fs = self.first_step if self.first_step is not None else int(st[0])
        if self.grown:
            su = None  # no start-up once the scale has grown
        else:
            su = st - fs < s.scale_startup_steps
            if not su.any():
                su = None
        stop = q
        ff = None  # first finite-scale row, relative to p
        if fin is not None:
            f = np.flatnonzero(fin[p:q]) if not fin[p] else (0,)
            ff = int(f[0]) if len(f) else None
        if ff is not None and (pin or collapse):  # (collapse: grown, so no start-up rows)
            stop = p + ff
        if skips and not quiet:  # the first row after start-up checks the rate
            nsu = np.flatnonzero(~su) if su is not None else (0,)
            if len(nsu):
                stop = min(stop, p + int(nsu[0]))
        if stop == p:
            return p
        # commit rows p .. stop-1
        m = stop - p
        st = st[:m]
        self.n += m
        if self.first_step is None:
            self.first_step = fs
        if ff is not None and ff < m:
            assert sc is not None  # (the screen sends the first finite scale to update, which sets it)
            nfin = int(np.count_nonzero(fin[p:stop])) if fin is not None else m
            late = su is None or not su[:m][fin[p:stop]].all()  # a finite row after start-up
            if late:
                self.max_scale = max(self.max_scale, sc)
            if sc <= 1.0 and not self.constant_one:
                self._pinned += nfin
            else:
                self._pinned = 0
        if skips:
            prev = self._last_step
            span = np.diff(st, prepend=prev if prev is not None else st[0] - 1)
            if su is not None:
                span = span[~su[:m]]
            pushes = int(np.clip(span, 1, SKIP_WINDOW).sum())
            self._last_step = int(st[-1])
            self._skips.extend([False] * min(pushes, SKIP_WINDOW))
        return stop

    def _raise(self, rec, kind, sev, msg) -> list[Alert]:
        status = Status.FAIL if sev == Severity.CRITICAL else Status.WARN
        if status.rank > self.worst.rank:
            self.worst = status
        if kind in self.alerted:
            return []
        self.alerted.add(kind)
        self.reasons.append(self._short(kind, rec.step))
        actions = [
            advice.bf16(),
            "If fp16 must stay: raise initial_scale_power to 32 (HF DeepSpeed docs) and lower the LR.",
            advice.rollback(self.state, rec.step, "the loss-scale collapse"),
        ]
        return [
            Alert(
                self.id,
                sev,
                rec.step,
                msg,
                value=self.scale,
                baseline=self.max_scale or None,
                actions=actions,
                key=f"loss_scale_{kind}",
            )
        ]

    def _short(self, kind: str, step: int) -> str:
        """The reason as the check's summary lists it."""
        if kind == "pinned":
            return f"scale pinned at its minimum from step {step}"
        if kind == "collapse":
            return f"scale collapsed {self.max_scale / max(self.scale or 1e-30, 1e-30):.0f}x at step {step}"
        rate = self._skips.get()
        return (
            f"{rate:.0%} of steps skipped (step {step})"
            if kind == "skips_fail"
            else f"{rate:.1%} of steps skipped (step {step})"
        )

    def on_resume(self, step: int) -> None:
        self.scale = None
        self._pinned = 0
        self.first_step = step
        self.grown = False

    def result(self) -> CheckResult:
        if self.n == 0:
            prec = self.state.info.precision
            if prec == "fp16":  # (the config says fp16 with a scaler: its overflows are silent)
                how = self.state.info.origin.get("precision", "the config")
                return self._result(
                    Status.SKIP,
                    f"fp16 (by {how}), but no loss scale logged: its overflows are silent; "
                    "log the scaler's scale (torch GradScaler.get_scale()) to see them",
                )
            if prec in ("bf16", "fp32"):  # (as the config says: nothing to scale)
                return self._result(Status.SKIP, f"no loss scale logged ({prec}: none needed)")
            if prec == "fp16-pure":  # (Lightning "16-true": fp16 weights, no GradScaler)
                return self._result(Status.SKIP, "no loss scale logged (pure fp16, no loss scaler)")
            # precision unknown: a bf16 / fp32 run has none, an fp16 one should log it (not assumed either way)
            return self._result(Status.SKIP, "no loss scale logged (none in bf16 / fp32; an fp16 run should log it)")
        if self.constant_one and not self.skipped_total and not self.overflows:
            return self._result(Status.SKIP, "loss scale constant 1.0: bf16 / fp32, no scaling")
        if self.worst != Status.PASS:
            return self._result(self.worst, "; ".join(list(dict.fromkeys(self.reasons))[:3]))
        extra = f", {self.backoffs} back-off(s) after start-up" if self.backoffs else ""
        # (an overflow line is a skipped step the counters may not show: apex's, guided-diffusion's "Found NaN")
        skipped = max(self.skipped_total, self.overflows)
        return self._result(
            Status.PASS,
            f"scale {fmt(self.scale)} (max {fmt(self.max_scale)}){extra}, {skipped} skipped step(s)",
        )
