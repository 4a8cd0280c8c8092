"""Batch size (tokens per optimizer step) against the model size.

References: GPT-3 Table 2.1 (0.5M tokens at 125M params up to 3.2M at 175B),
DeepSeek LLM B_opt(C) = 0.2920 C^0.3271 when the token budget is known. The
+-10x band around them is ours. SKIP, with the reason, when a size is unknown.
"""

from __future__ import annotations

import numpy as np

from tsm_tui.analysis.detectors.base import NONE, Detector
from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.detectors.references import BELOW_BATCH_REFS, batch_reference
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord


JUDGE_EVERY = 64


class BatchSizeDetector(Detector):
    id = "batch_size"
    title = "Batch Size Ratio"
    label = "Batch size"
    short = "batch"
    column = ("bs", "b")
    core = True
    order = 40
    urgency = 120

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self._prev_tokens: tuple[int, float] | None = None
        self.observed_tokens: float | None = None  # tokens per step from cumulative counters
        self.alerted = False
        self._tick = 0

    def update(self, rec: StepRecord) -> list[Alert]:
        if rec.tokens is not None and rec.tokens > 0:
            prev = self._prev_tokens
            if prev is not None and rec.step > prev[0] and rec.tokens > prev[1]:
                self.observed_tokens = (rec.tokens - prev[1]) / (rec.step - prev[0])
            self._prev_tokens = (rec.step, rec.tokens)
        if self.alerted:
            return []
        self._tick += 1
        if self._tick < JUDGE_EVERY and self._tick != 1:  # sizes rarely change: judge every 64 records
            return []
        self._tick = 1
        verdict = self._verdict()
        if verdict is None or verdict[0] == Status.PASS:
            return []
        self.alerted = True
        status, msg, actions = verdict
        ref = self._ref()
        assert ref is not None  # (a verdict has one)
        return [
            Alert(
                self.id,
                Severity.WARNING,
                rec.step,
                msg,
                value=self._tokens(),
                baseline=ref[0],
                actions=actions,
                key="batch_size",
            )
        ]

    # -- columnar hooks (the driver is Detector.update_frame) -------------------------
    # update() judges the first record, then every (JUDGE_EVERY - 1)th: the screen
    # works out which rows those are and the tokens per step each would see; only a
    # judged row whose verdict is not PASS (the one alert) goes through update().
    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        if self.alerted:
            return NONE
        q = self._first_alert_row(fr, a, b)
        return NONE if q is None else np.array([q])

    def bulk(self, fr, cx, a: int, b: int) -> None:
        self._tokens_bulk(fr, a, b)
        self._tick_bulk(b - a)

    def _judged(self, m: int) -> np.ndarray:
        """Which of the next ``m`` records (while not alerted) are judged."""
        first = 0 if self._tick == 0 else JUDGE_EVERY - 1 - self._tick
        return np.arange(first, m, JUDGE_EVERY - 1)

    def _tick_bulk(self, m: int) -> None:
        if self.alerted or not m:
            return
        judged = self._judged(m)
        self._tick = 1 + (m - 1 - int(judged[-1])) if judged.size else self._tick + m

    def _first_alert_row(self, fr, a: int, b: int) -> int | None:
        """The first judged row of ``[a, b)`` whose verdict is not PASS, or None."""
        info = self.state.info
        judged = self._judged(b - a)
        if not info.params or not judged.size:
            return None
        if info.effective_batch_tokens():  # the verdict is the same on every row
            bad = self._bad_verdict(self.observed_tokens)
            return a + int(judged[0]) if bad else None
        seen = self._observed(fr, a, b)[judged]  # observed_tokens as each judged row sees it
        vals, first = np.unique(seen, return_index=True)  # NaN marks "None"
        bad_at = [i for v, i in zip(vals.tolist(), first.tolist()) if self._bad_verdict(None if v != v else v)]
        return a + int(judged[min(bad_at)]) if bad_at else None

    def _bad_verdict(self, observed: float | None) -> bool:
        keep, self.observed_tokens = self.observed_tokens, observed
        try:
            verdict = self._verdict()
        finally:
            self.observed_tokens = keep
        return verdict is not None and verdict[0] != Status.PASS

    def _token_steps(self, fr, a: int, b: int):
        """Rows with tokens > 0 in [a, b): their indices (from a), tokens per step against
        the previous such row (NaN where update() would not set observed_tokens), the last row."""
        tok = fr.get("tokens")
        if tok is None:
            return None
        idx = np.flatnonzero(tok[a:b] > 0)
        if not idx.size:
            return None
        t, s = tok[a:b][idx], fr.step[a:b][idx]
        pt, ps = np.empty_like(t), np.empty_like(s)
        if self._prev_tokens is not None:
            ps[0], pt[0] = self._prev_tokens
        else:
            ps[0], pt[0] = s[0], t[0]  # no previous row: never a rate
        pt[1:], ps[1:] = t[:-1], s[:-1]
        ok = (s > ps) & (t > pt)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(ok, (t - pt) / np.where(ok, s - ps, 1), np.nan)
        return idx, rate, (int(s[-1]), float(t[-1]))

    def _observed(self, fr, a: int, b: int) -> np.ndarray:
        """observed_tokens after each row of ``[a, b)`` (NaN for None)."""
        cur = self.observed_tokens if self.observed_tokens is not None else np.nan
        ts = self._token_steps(fr, a, b)
        if ts is None:
            return np.full(b - a, cur)
        rate = np.full(b - a, np.nan)
        rate[ts[0]] = ts[1]
        rows = np.arange(b - a)
        last = np.maximum.accumulate(np.where(rate == rate, rows, -1))  # the last row that set it
        return np.where(last >= 0, rate[last], cur)

    def _tokens_bulk(self, fr, a: int, b: int) -> None:
        ts = self._token_steps(fr, a, b) if b > a else None
        if ts is None:
            return
        _, rate, self._prev_tokens = ts
        got = np.flatnonzero(rate == rate)
        if got.size:
            self.observed_tokens = float(rate[got[-1]])

    def on_resume(self, step: int) -> None:
        self._prev_tokens = None

    def _tokens(self) -> float | None:
        return self.state.info.effective_batch_tokens() or self.observed_tokens

    def _ref(self) -> tuple[float, str] | None:
        info = self.state.info
        bt = self._tokens()
        total = bt * info.total_steps if (bt and info.total_steps) else None
        return batch_reference(info.params or 0.0, total)

    def _verdict(self):
        info = self.state.info
        bt = self._tokens()
        if not info.params or not bt or self._ref() is None:
            return None
        ref, name = self._ref()
        r = bt / ref
        f = self.settings.batch_factor
        if r < 1 / f:
            return (
                Status.WARN,
                f"Batch of {fmt(bt)} tokens is {1 / r:.0f}x below the {fmt(ref)}-token reference for "
                f"{fmt(info.params)} parameters ({name}): noisy gradients, spikes more likely.",
                [
                    "Raise the batch (gradient accumulation) towards the reference, or lower the LR "
                    "(for Adam the best LR scales roughly with sqrt(batch)).",
                ],
            )
        if r > f:
            return (
                Status.WARN,
                f"Batch of {fmt(bt)} tokens is {r:.0f}x above the {fmt(ref)}-token reference for "
                f"{fmt(info.params)} parameters ({name}): beyond the critical batch size, steps are wasted.",
                ["Lower the batch or ramp it up over the first 1-5% of tokens (GPT-3, Llama 3, DeepSeek-V3 ramp)."],
            )
        return (Status.PASS, f"{fmt(bt)} tokens/step = {r:.2g}x the reference {fmt(ref)} ({name})", [])

    def result(self) -> CheckResult:
        info = self.state.info
        bt = self._tokens()
        if not info.params and not bt:
            return self._result(Status.SKIP, "model size and batch size unknown (--params, --batch-tokens)")
        if not info.params:
            return self._result(Status.SKIP, f"model size unknown (--params); batch {fmt(bt)} tokens")
        if not bt:
            return self._result(Status.SKIP, f"batch size unknown (--batch-tokens); {fmt(info.params)} params")
        if self._ref() is None:
            return self._result(
                Status.SKIP,
                f"{fmt(info.params)} params is {BELOW_BATCH_REFS}",
            )
        status, msg, _ = self._verdict()
        return self._result(status, msg.split(":")[0] if status != Status.PASS else msg)
