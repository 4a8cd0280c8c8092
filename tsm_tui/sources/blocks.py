"""Console formats that print one step as a multi-line block.

OLMo (allenai/OLMo v1 trainer, plain console)::

    2025-12-07 19:24:18.717<TAB>host:0<TAB>olmo.train:979<TAB>INFO<TAB>[step=2519/7630,epoch=0]
        optim/total_grad_norm=2.629
        train/CrossEntropyLoss=4.074
        throughput/total_tokens=330,170,368

MosaicML Composer / llm-foundry ConsoleLogger::

    [batch=10/4800]:
             Train loss/train/total: 11.6525
             Train lr-DecoupledAdamW/group0: 0.0000

A header opens a block, indented ``key=value`` / ``key: value`` lines fill it,
the next header or any non-indented line closes it. Indented lines under other
headers (OLMo's downstream eval blocks) are not steps. OLMo's printed
``TrainConfig(...)`` and parameter count go into ``run_info``.
"""

from __future__ import annotations

import re

from tsm_tui.core.record import StepRecord
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.core.numbers import int64
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.fields import to_float


class BlockReader(LineReader):
    HEADER: re.Pattern
    ITEM: re.Pattern
    priority = 9

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        headers = items = 0
        for ln in head[:2000]:
            if cls.HEADER.search(ln):
                headers += 1
            elif headers and cls.ITEM.match(ln):
                items += 1
        if headers and items:
            return 0.8 + 0.15 * min(1.0, headers / 3)
        return 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._step: int | None = None
        self._items: list[tuple[str, str]] = []
        self.other_lines = 0

    def feed(self, line: str) -> list[StepRecord]:
        if "\x1b" in line:
            line = strip_ansi(line)
        if line[:1] in (" ", "\t"):
            if self._step is not None:
                m = self.ITEM.match(line)
                if m:
                    self._items.append((m.group(1).strip(), m.group(2)))
            return []
        out = self._close()
        m = self.HEADER.search(line)
        if m:
            self._step = int64(m.group(1))
            if self._step is None:
                self.skip("step out of range")
            if m.group(2) and int64(m.group(2)) is not None:
                self.run_info.setdefault("total_steps", int64(m.group(2)))
        else:
            self.other_lines += 1
            if line:
                self._info(line)
        return out

    def _close(self) -> list[StepRecord]:
        if self._step is None:
            return []
        step, items = self._step, self._items
        self._step, self._items = None, []
        rec = self.build(items, step=step)
        return [rec] if rec is not None else []

    def flush(self) -> list[StepRecord]:
        return self._close()

    def _info(self, line: str) -> None:
        pass


_OLMO_CFG = {
    "max_duration": ("total_steps", int),
    "t_warmup": ("warmup_steps", int),
    "global_train_batch_size": ("batch_size", int),
    "max_sequence_length": ("seq_len", int),
    "max_grad_norm": ("clip", float),
    "save_interval": ("save_steps", int),
    "console_log_interval": ("logging_steps", int),
}
_CFG_RE = re.compile(r"\b(" + "|".join(_OLMO_CFG) + r"|learning_rate|precision)=('?)([\w.+-]+)")
_OLMO_SCHED = re.compile(r"SchedulerConfig\(name='?([\w.-]+)")
_OLMO_PARAMS = re.compile(r"Total number of parameters:\s*([\d,]+)")


class OLMoReader(BlockReader):
    name = "olmo"
    # ("[^][]": otherwise a run of "[step=1," scans to the line's end from each of them)
    HEADER = re.compile(r"\[step=(\d++)(?:/(\d++))?(?:,[^\][]*+)?\]\s*+$")
    ITEM = re.compile(r"\s++([\w/.\-() ]+?)=(\S+)\s*$")

    def _info(self, line: str) -> None:
        if "TrainConfig(" in line:
            sm = _OLMO_SCHED.search(line)
            if sm:
                self.run_info.setdefault("schedule", sm.group(1))
            lr_done = False
            for k, _, v in _CFG_RE.findall(line):
                if k == "learning_rate":
                    if not lr_done:  # the optimizer's, the first one
                        x = to_float(v)
                        if x is not None:
                            self.run_info.setdefault("peak_lr", x)
                        lr_done = True
                elif k == "precision":
                    p = "bf16" if "bf16" in v else "fp16" if "fp16" in v else "fp32" if "fp32" in v else None
                    if p:
                        self.run_info.setdefault("precision", p)
                else:
                    key, _typ = _OLMO_CFG[k]
                    self.run_info.setdefault(key, to_float(v))  # (bounded and typed by RunFacts)
            return
        m = _OLMO_PARAMS.search(line)
        if m:
            x = to_float(m.group(1))
            if x:
                self.run_info.setdefault("params", x)


class ComposerReader(BlockReader):
    name = "composer"
    HEADER = re.compile(r"\[batch=(\d++)(?:/(\d++))?\]:?\s*+$")
    ITEM = re.compile(r"\s++(?:Train |Eval )?([^:]+):\s*(\S+)\s*$")

    def feed(self, line: str) -> list[StepRecord]:
        # "Eval" lines are validation metrics: keep their loss apart
        if line[:1] in (" ", "\t") and line.lstrip().startswith("Eval ") and self._step is not None:
            m = self.ITEM.match(line)
            if m:
                key = m.group(1).strip()
                self._items.append(("val_loss" if "loss" in key.lower() else "eval/" + key, m.group(2)))
            return []
        return super().feed(line)
