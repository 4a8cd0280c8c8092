"""Batch size (tokens per optimizer step) against the model size.

References: GPT-3 Table 2.1 (0.5M tokens at 125M params up to 3.2M at 175B),
DeepSeek LLM B_opt(C) = 0.2920 C^0.3271 when the token budget is known. The
+-10x band around them is ours. SKIP, with the reason, when a size is unknown.
"""

from __future__ import annotations

from tsm_tui.detectors.base import Detector, fmt
from tsm_tui.detectors.references import batch_reference
from tsm_tui.record import Alert, CheckResult, Severity, Status, StepRecord


class BatchSizeDetector(Detector):
    id = "batch_size"
    title = "Batch Size Ratio"

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
        if self._tick < 64 and self._tick != 1:  # sizes rarely change: judge every 64 records
            return []
        self._tick = 1
        verdict = self._verdict()
        if verdict is None or verdict[0] == Status.PASS:
            return []
        self.alerted = True
        status, msg, actions = verdict
        return [Alert(self.id, Severity.WARNING, rec.step, msg, value=self._tokens(), baseline=self._ref()[0],
                      actions=actions, key="batch_size")]

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
        f = self.s.batch_factor
        if r < 1 / f:
            return (
                Status.WARN,
                f"Batch of {fmt(bt)} tokens is {1 / r:.0f}x below the {fmt(ref)}-token reference for "
                f"{fmt(info.params)} parameters ({name}): noisy gradients, spikes more likely.",
                ["Raise the batch (gradient accumulation) towards the reference, or lower the LR "
                 "(for Adam the best LR scales roughly with sqrt(batch)).", ],
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
            return self._result(Status.SKIP, f"{fmt(info.params)} params is below the published references "
                                             "(GPT-3 Table 2.1 starts at 125M; DeepSeek's fit at ~1e17 FLOPs)")
        status, msg, _ = self._verdict()
        return self._result(status, msg.split(":")[0] if status != Status.PASS else msg)
