"""Hugging Face Trainer console output (``nohup python train.py > train.log``).

``ProgressCallback`` prints each log as a Python dict repr between tqdm bar
redraws, so in a captured file the dict is glued to bar fragments separated by
``\\r``: ``  10/4854 [00:16<2:14:42,  1.67s/it]{'loss': 1.56, 'grad_norm': nan, ...}``.
The dict has no step: it is the tqdm counter ``N/TOTAL`` drawn before it (only
counters of the training bar, whose total is the first one seen, count), else
the previous step plus the logging interval seen so far, else a count.
Evaluation dicts (``eval_*``) are validation losses at the current step; the
final summary (``train_runtime``, run-average ``train_loss``) is not a step.
"""

from __future__ import annotations

import re

from tsm_tui.core.record import StepRecord
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.core.numbers import int64
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.kv_text import DICT_PAIR

TQDM = re.compile(r"(?<!\d)(\d+)/(\d++) \[")  # linear: one attempt per digit run
DICT_START = re.compile(r"\{'[^']+': ")
# ms-swift's dicts (string values) name their step: 'global_step/max_steps': '5/84'
GLOBAL_STEP = re.compile(r"'global_step/max_steps':\s*'(\d+)/(\d+)'")
SNIFF = re.compile(r"\{'(?:loss|grad_norm|learning_rate|eval_loss|train_runtime)': ")


class HFStdoutReader(LineReader):
    name = "hf-stdout"
    priority = 8

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        hits = sum(1 for ln in head[:2000] if "{'" in ln and SNIFF.search(ln))
        if not hits:
            return 0.0
        return 0.75 + 0.2 * min(1.0, hits / 3)

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._total: int | None = None
        self._counter: int | None = None
        self._interval: int | None = None
        self.other_lines = 0

    def feed(self, line: str) -> list[StepRecord]:
        if "\x1b" in line:
            line = strip_ansi(line)
        out: list[StepRecord] = []
        for part in line.split("\r") if "\r" in line else (line,):
            out += self._part(part)
        return out

    def _part(self, part: str) -> list[StepRecord]:
        i = part.find("{'")
        if i < 0:
            self._bar(part)
            return []
        self._bar(part[:i])
        m = DICT_START.search(part, i)
        if m is None:
            self.other_lines += 1
            return []
        j = part.find("}", m.start())
        body = part[m.start():j + 1 if j >= 0 else len(part)]
        pairs = DICT_PAIR.findall(body)
        out: list[StepRecord] = []
        if pairs:
            g = GLOBAL_STEP.search(body) if "'global_step/" in body else None
            if g is not None:
                pairs = [p for p in pairs if p[0] != "global_step/max_steps"]
                if int(g.group(2)) > 0:
                    self.run_info.setdefault("total_steps", int(g.group(2)))
                if not any(k.startswith("eval_") for k, _ in pairs):
                    self._counter = int(g.group(1))  # the dict's own step, better than any bar
            rec = self._dict(pairs)
            if rec is not None:
                out.append(rec)
        if j >= 0:
            self._bar(part[j + 1:])
        return out

    def _bar(self, text: str) -> None:
        if "/" not in text or " [" not in text:
            return
        for m in TQDM.finditer(text):
            n, total = int64(m.group(1)), int64(m.group(2))
            if n is None or total is None:
                continue
            if self._total is None:
                if total <= 0:
                    continue
                self._total = total
                self.run_info.setdefault("total_steps", total)
            if total == self._total:
                self._counter = n

    def _dict(self, pairs: list[tuple[str, str]]) -> StepRecord | None:
        keys = [k for k, _ in pairs]
        if "train_runtime" in keys or "total_flos" in keys:
            return None  # the final summary
        if any(k.startswith("eval_") for k in keys):
            if self._last_step <= 0 and self.records == 0:
                step = max(self._counter or 0, 0)
            else:
                step = self._last_step
            prev = self._last_step
            rec = self.build(pairs, step=step)
            self._last_step = prev
            return rec
        prev = self._last_step
        c = self._counter
        if c is not None and c > prev:
            step = c
        elif self._interval:
            step = prev + self._interval
        else:
            step = None  # counted by build()
        rec = self.build(pairs, step=step)
        if rec is not None and step is not None and c is not None and c > prev and prev > 0:
            self._interval = c - prev
        return rec
