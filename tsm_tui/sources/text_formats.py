"""Named console formats read by the generic ``name: value`` text reader.

Each is ``KeyValueTextReader`` with a marker that identifies the framework in
the file's head (so the report names the format) and, where needed, a little
framework knowledge. Sniffing is one compiled regex over the head; the hot
path is the generic reader's.
"""

from __future__ import annotations

import os
import re

from tsm_tui.core.record import StepRecord
from tsm_tui.core.numbers import int64
from tsm_tui.sources.base import MAX_SAMPLE_CHARS
from tsm_tui.sources.generic_text import KeyValueTextReader

MAX_BLOCK_LINES = 400  # a generation block never closed (a crash) ends here


class _GenerationBlocks(KeyValueTextReader):
    """llm.c's sample blocks: ``generating:``, ``---``, the text (any number of
    lines), ``---``. The text becomes a record at the last step seen. While a
    block is open the instance's ``_line`` is the block reader, so lines outside
    blocks pay nothing; ``generating:`` is spotted where step-less lines go
    (``_info``). A step line inside an open block closes it (a lost marker)."""

    MARK: re.Pattern[str]  # (each flavour's: a line that closes an open block)

    def _start_block(self) -> None:
        self._gen_buf: list[str] = []
        self._gen_open = False
        self._line = self._gen_line  # type: ignore[method-assign]  # instance attribute: shadows the class method

    def _gen_line(self, line: str) -> list[StepRecord]:
        if not self._gen_open:
            if line.strip() == "---":
                self._gen_open = True
                return []
            self._end_block(emit=False)  # "generating:" without a block
            return type(self)._line(self, line)
        if line.strip() == "---":
            return self._end_block()
        if self.MARK.search(line):
            return self._end_block() + type(self)._line(self, line)
        self._gen_buf.append(line)
        if len(self._gen_buf) >= MAX_BLOCK_LINES:
            return self._end_block()
        return []

    def _end_block(self, emit: bool = True) -> list[StepRecord]:
        self.__dict__.pop("_line", None)
        text = "\n".join(self._gen_buf)
        self._gen_buf = []
        if not emit:
            return []
        self.records += 1
        return [StepRecord(step=max(self._last_step, 0), samples=[text[:MAX_SAMPLE_CHARS]], source=self.path)]

    def flush(self) -> list[StepRecord]:
        out = self._end_block() if "_line" in self.__dict__ else []
        return out + super().flush()

    def _info(self, line: str) -> list[StepRecord] | None:
        if line.startswith("generating:"):
            self._start_block()
            return None
        return super()._info(line)


class _Flavour(KeyValueTextReader):
    MARK: re.Pattern
    MIN_HITS = 1
    priority = 6

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        hits = 0
        for ln in head[:2000]:
            if cls.MARK.search(ln):
                hits += 1
                if hits >= 5:
                    break
        if hits < cls.MIN_HITS:
            return 0.0
        return 0.75 + 0.04 * hits


class MegatronReader(_Flavour):
    """Megatron-LM / Megatron-DeepSpeed / NeMo-Megatron ``iteration N/ M | ...`` lines
    (plus DeepSpeed ``OVERFLOW!`` lines and the printed arguments block)."""

    name = "megatron"
    MARK = re.compile(r"iteration\s+\d+\s*/\s*\d+\s*\|")


class DeepSpeedReader(_Flavour):
    """DeepSpeed engine lines alone (``[Rank 0] step=N, skipped=K, lr=[...]``, ``OVERFLOW!``)."""

    name = "deepspeed"
    MARK = re.compile(r"\[deepspeed\] OVERFLOW!|\[Rank 0\] step=\d+, skipped=\d+")
    priority = 5  # below Megatron when both match

    @classmethod
    def sniff(cls, path, head):
        s = super().sniff(path, head)
        return s - 0.1 if s else 0.0


class NeMoReader(_Flavour):
    """NeMo 2 ``Training epoch 0, iteration 120/149 | lr: ... | reduced_train_loss: 1.233``."""

    name = "nemo"
    MARK = re.compile(r"Training epoch \d+, iteration \d+/\d+ \||reduced_train_loss[=:]")

    @classmethod
    def sniff(cls, path, head):
        s = super().sniff(path, head)
        return s + 0.05 if s else 0.0  # its lines also look like Megatron's


class LlmcReader(_GenerationBlocks, _Flavour):
    """llm.c ``main.log`` (``s:12 trl:9.79 lr:0.000011 norm:3.01``, ``s:250 tel:4.1``), its
    stdout (``step   10/74 | loss 9.935300 (+nanz)| norm 3.8500 (+nanz)| lr 9.00e-06``), the
    newer stdout (``step 12/19560 | train loss 3.2104 | norm 3.9078 (+11.13z) | lr 1.2e-04``), the
    CPU trainer's (``step 12: train loss 4.677 (took 1190.3 ms)``) and the ``generating:``
    sample blocks of both."""

    name = "llmc"
    MARK = re.compile(
        r"^s:\d+ t[re]l:|^step\s+\d+/\d+ \| (?:train )?loss [\d.]+ (?:\([+-]|\| norm )|"
        r"^step \d+: train loss [\d.]+ \(took"
    )
    _HDR = re.compile(
        r"^\|\s*(num_parameters|max_seq_len|total_batch_size[^|]*+|train_num_batches|"
        r"learning_rate|warmup_iterations|grad_clip|max_steps)\s*\|\s*([^|\s]+)\s*\|"
    )
    _KEYS = {
        "num_parameters": ("params", float),
        "max_seq_len": ("seq_len", int),
        "train_num_batches": ("total_steps", int),
        "learning_rate": ("peak_lr", float),
        "warmup_iterations": ("warmup_steps", int),
        "grad_clip": ("clip", float),
        "max_steps": ("total_steps", int),
    }

    def _info(self, line: str) -> list[StepRecord] | None:
        if line.startswith("val loss "):
            # the stdout's validation loss, printed on its own line before the next step's
            # line: it belongs to the last step printed (0 before the first)
            rec = self.build([("val_loss", line[9:].strip())], step=max(self._last_step, 0))
            return [rec] if rec is not None else None
        if line.startswith("|"):
            m = self._HDR.match(line)
            if m:
                k = m.group(1).strip()
                key, typ = ("batch_tokens", float) if k.startswith("total_batch_size") else self._KEYS[k]
                try:
                    v = typ(float(m.group(2)))
                except (ValueError, OverflowError):
                    return None
                if key == "total_steps" and v <= 0:
                    return None  # max_steps -1: "run the whole data set", not a total
                self.run_info.setdefault(key, v)
                return None
        return super()._info(line)


class ModdedNanoGPTReader(_Flavour):
    """modded-nanogpt ``step:5964/20344 train_loss:5.7021 train_time:...ms step_avg:...ms``."""

    name = "modded-nanogpt"
    MARK = re.compile(r"^step:\d+/\d+ (?:train_loss|val_loss|train_time):")


class NanoGPTReader(_Flavour):
    """nanoGPT ``iter 5: loss 4.2082, time 1431.27ms, mfu -100.00%`` and
    ``step 0: train loss 4.2367, val loss 4.2475``."""

    name = "nanogpt"
    MARK = re.compile(r"^iter \d+: loss \S+, time [\d.]+ms")

    def _line(self, line: str) -> list[StepRecord]:
        out = super()._line(line)
        # the eval line's "train loss" is an estimate over eval batches, not a step
        if out and line.startswith("step ") and "val loss" in line:
            for r in out:
                r.loss = None
        return [r for r in out if r.has_metrics()]


class TorchtitanReader(_Flavour):
    """torchtitan ``[titan] ... - root - INFO - step: 18  loss:  3.54399  grad_norm:  0.7675 ...``
    (ANSI colours stripped)."""

    name = "torchtitan"
    MARK = re.compile(r"\[titan\]|step:\s*\d+\s+loss:\s*[\d.]+\s+(?:grad_norm|memory):")

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._seen_step: int | None = None

    def _line(self, line: str) -> list[StepRecord]:
        out = super()._line(line)
        # every rank may print the same line: keep the first per step
        keep = []
        for r in out:
            if r.step == self._seen_step:
                self.records -= 1
                continue
            self._seen_step = r.step
            keep.append(r)
        return keep


class WandbOutputReader(_GenerationBlocks, _Flavour):
    """A W&B run dir's ``files/output.log``: the script's own prints, read by the generic
    rules (``Step 12 -- Train loss: 2.61, Train Acc: 0.13``); samples printed one per line
    (``Step 12 sample: <text>``, ``sample: <text>`` at the last step; also ``generation``,
    ``generated text``, ``completion``) or as llm.c ``generating:`` blocks."""

    name = "wandb-output"
    MARK = re.compile(r"^\s*(?:\[\w+\]\s*)?(?:step|iter(?:ation)?)\s*+[:= ]?\s*+\d++.*(?:loss|lr)", re.I)
    SAMPLE = re.compile(
        r"^\s*(?:(?:step|iter(?:ation)?)\s*+[:= ]?\s*+(\d++)\s*+[-:|,]*+\s*+)?"
        r"(?:samples?|generation|generated text|completion)\s*:[ \t]?(.*)$",
        re.I,
    )

    def _line(self, line: str) -> list[StepRecord]:
        if "ample" in line or "enerat" in line or "ompletion" in line:
            m = self.SAMPLE.match(line)
            if m:
                step = int64(m.group(1)) if m.group(1) else max(self._last_step, 0)
                if step is None:
                    self.skip("step out of range")
                    return []
                self._last_step = step
                self.records += 1
                return [StepRecord(step=step, samples=[m.group(2)[:MAX_SAMPLE_CHARS]], source=self.path)]
        return super()._line(line)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        if os.path.basename(path) != "output.log":
            return 0.0
        d = os.path.dirname(path)
        if (
            not any(
                os.path.exists(os.path.join(d, f)) for f in ("wandb-summary.json", "wandb-metadata.json", "config.yaml")
            )
            and "wandb" not in path
        ):
            return 0.0
        s = KeyValueTextReader.sniff(path, head)
        return s + 0.1 if s else 0.0
