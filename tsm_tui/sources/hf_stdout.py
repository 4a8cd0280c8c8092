"""Hugging Face Trainer console output (``nohup python train.py > train.log``).

``ProgressCallback`` prints each log as a Python dict repr between tqdm bar
redraws, so in a captured file the dict is glued to bar fragments separated by
``\\r``: ``  10/4854 [00:16<2:14:42,  1.67s/it]{'loss': 1.56, 'grad_norm': nan, ...}``.
The dict has no step: it is the tqdm counter ``N/TOTAL`` of the training bar drawn
before it, else the previous step plus the logging interval seen so far, else a
count. The training bar is the last bar drawn before a training dict, not a data
bar (a ``datasets`` ``Map`` / tokenizer / filter bar, one counting ``examples/s``:
axolotl, TRL and LLaMA-Factory print those first) and not an evaluation bar: once
a bar gave a dict its step, it stays the training bar while its counter moves
between dicts. Its total is the planned steps (ms-swift's ``global_step/max_steps``
first).
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
# bars that count data, not steps: their label (tqdm's desc) or their unit
DATA_BAR = re.compile(r"(?i)\b(?:map|tokeniz|filter|generating|loading|downloading|extracting|converting|packing|"
                      r"preprocess|shuffl|saving|formatting|grouping|concatenat|resolving|fetching|"
                      r"eval|val\b|valid|test\b|predict)")
_UNIT = re.compile(r"(?:([A-Za-z]+)/s|s/([A-Za-z]+))\b")
MAX_BARS = 16
MAX_BARS_PER_PART = 4
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
        self._bars: dict[int, int] = {}  # total -> last counter of each step-counting bar
        self._last_bar: tuple[int, int] | None = None  # (total, counter) of the last one drawn
        self._train: tuple[int, int] | None = None  # the training bar's (total, counter) at the last dict
        self._counter: int | None = None  # ms-swift's own step (global_step/max_steps)
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
                self.run_info.setdefault("total_steps", g.group(2))  # (bounded by RunFacts)
                if not any(k.startswith("eval_") for k, _ in pairs) and int64(g.group(1)) is not None:
                    self._counter = int64(g.group(1))  # the dict's own step, better than any bar
            rec = self._dict(pairs)
            if rec is not None:
                out.append(rec)
        if j >= 0:
            self._bar(part[j + 1:])
        return out

    def _bar(self, text: str) -> None:
        if "/" not in text or " [" not in text:
            return
        found = list(TQDM.finditer(text))
        for m in found[-MAX_BARS_PER_PART:]:  # (one bar per redraw; a line of thousands costs no more)
            n, total = int64(m.group(1)), int64(m.group(2))
            if n is None or total is None or total <= 0:
                continue
            a = m.start()
            label = text[max(0, a - 120): a]
            label = label[max(label.rfind("]"), label.rfind("\r")) + 1:]
            end = text.find("]", m.end(), m.end() + 120)
            rate = text[m.end(): end if end >= 0 else m.end() + 120]
            if DATA_BAR.search(label) or any((u or v) != "it" for u, v in _UNIT.findall(rate)):
                continue  # a data or evaluation bar: its counter is no step
            if total not in self._bars and len(self._bars) >= MAX_BARS:
                self._bars.clear()
            self._bars[total] = n
            self._last_bar = (total, n)

    def _train_counter(self) -> int | None:
        """The training bar's counter for a training dict (see the module docstring)."""
        last = self._last_bar
        if last is None:
            return None
        tr = self._train
        if tr is not None and last[0] != tr[0]:
            cur = self._bars.get(tr[0])
            if cur is not None and cur != tr[1]:  # the bar that gave the last step moved: still it
                last = (tr[0], cur)
        self._train = last
        self.run_info.setdefault("total_steps", last[0])
        return last[1]

    def _dict(self, pairs: list[tuple[str, str]]) -> StepRecord | None:
        keys = [k for k, _ in pairs]
        if "train_runtime" in keys or "total_flos" in keys:
            return None  # the final summary
        if any(k.startswith("eval_") for k in keys):
            if self._last_step <= 0 and self.records == 0:
                # before any training dict: the training bar's counter, not that of the
                # evaluation bar just completed (eval_on_start evaluates at step 0)
                bar = self._last_bar if self._last_bar and self._last_bar[1] != self._last_bar[0] else None
                step = max(self._counter or (bar[1] if bar else 0), 0)
            else:
                step = self._last_step
            prev = self._last_step
            rec = self.build(pairs, step=step)
            self._last_step = prev
            return rec
        prev = self._last_step
        c = self._counter if self._counter is not None else self._train_counter()
        self._counter = None
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
