"""Plain-text training logs made of ``name: value`` / ``name=value`` pairs.

One generic reader for the console formats that print a step and metrics on
one line: nanoGPT (``iter 5: loss 4.2082, time 1431.27ms``), llm.c
(``s:12 trl:9.79 lr:0.000011 norm:3.01``), Megatron-LM / Megatron-DeepSpeed
(``iteration 10/ 1500 | lm loss: 7.1E+00 | loss scale: 1.0 | grad norm: 1.2 |``),
torchtitan (``step: 5  loss: 7.9  grad_norm: 1.4``, ANSI colours), printed
Python dicts (``{'loss': 1.56, 'grad_norm': nan, ...}``, HF Trainer stdout),
and custom prints such as ``Step 12 -- Train loss: 2.61, Train Acc: 0.13``.
Lines without a step and a metric (banners, warnings, tracebacks) are normal
console output: they are counted as ``other_lines``, not as skipped.
DeepSpeed ``OVERFLOW!`` lines become overflow records.
"""

from __future__ import annotations

import re

from tsm_tui.record import StepRecord
from tsm_tui.sanitize import strip_ansi
from tsm_tui.sources.base import LineReader

NUM = r"[-+]?(?:\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|NaN|inf|Inf|Infinity|-inf)"
# the word's run is possessive (*+): what follows a maximal run is none of the chars
# the rest of the pattern could use ("(", " ", ":", "=", spaces), so giving chars
# back never yields a match; it only cost backtracking (36% of PAIR's time)
WORD = r"[A-Za-z_][\w./\-]*+(?:\([\w/%]+\))?"
# key: up to five words ("number of skipped iterations", "elapsed time per iteration (ms)")
PAIR = re.compile(rf"(?<![\w.])({WORD}(?: {WORD}){{0,4}})\s*[:=]\s*({NUM})(?![\w.])")
# a dict repr: 'key': value
# (transformers >= 5 prints the values as strings: {'loss': '5.381', ...})
DICT_PAIR = re.compile(rf"'([^']+)':\s*'?(?:np\.float\d*\(|tensor\()?({NUM})")
# space-separated metrics nanoGPT prints ("loss 4.2082", "train loss 4.23, val loss 4.25")
SPACED = re.compile(rf"\b((?:train |val |lm )?loss|lr|learning rate|grad norm|gnorm)\s+({NUM})(?![\w.])", re.I)
# a cheap necessary condition for SPACED on ASCII text, matched against the lowered
# line (re.I over an alternation is the slowest regex here: ~10x this one)
_SPACED_HINT = re.compile(r"(?:loss|lr|rate|norm)\s+[-+.\dni]")
STEP = re.compile(r"(?<![\w/])(?:iteration|iter|step|it|s)\s*[:= ]\s*(\d+)(?:\s*/\s*(\d+))?(?![\d.])", re.I)
OVERFLOW = re.compile(
    rf"OVERFLOW!(?:.*?Attempted loss scale:\s*({NUM}),?\s*reducing to\s*({NUM}))?", re.I)
GRAD_OVERFLOW_STEP = re.compile(r"Grad overflow on iteration:?\s*(\d+)", re.I)
# things the log says about the run
PARAMS = re.compile(r"(?:number of parameters|num(?:ber)?[_ ]params|total params(?:eters)?|"
                    r"parameters on \(tensor, pipeline\) model parallel rank \(0, 0\))\s*[:=]?\s*([\d.,]+)\s*([KMBkmb])?")
ARG = re.compile(r"^\s*(\w+)\s+\.{3,}\s+(\S+)\s*$")  # Megatron "  lr ........ 0.0003"
TOKENS_PER_ITER = re.compile(r"tokens per iteration will be:\s*([\d,]+)")

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9}
_ARG_KEYS = {
    "train_iters": "total_steps", "lr_warmup_iters": "warmup_steps", "lr": "peak_lr",
    "global_batch_size": "batch_size", "seq_length": "seq_len", "clip_grad": "clip",
    "save_interval": "save_steps", "log_interval": "logging_steps",
}


class KeyValueTextReader(LineReader):
    name = "text"
    priority = 5

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        probe = cls(path)
        hits = 0
        n = 0
        for ln in head[:400]:
            if not ln.strip():
                continue
            n += 1
            if probe.feed(ln):
                hits += 1
        if not hits:
            return 0.0
        return 0.3 + 0.4 * min(1.0, hits / 5)

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.other_lines = 0
        self._pending_overflow_step: int | None = None

    def feed(self, line: str) -> list[StepRecord]:
        if "\x1b" in line:
            line = strip_ansi(line)
        if "\r" in line:
            out: list[StepRecord] = []
            for part in line.split("\r"):
                out += self._line(part)
            return out
        return self._line(line)

    def _line(self, line: str) -> list[StepRecord]:
        if not line.strip():
            return []
        if "OVERFLOW" in line:
            return self._overflow(line)
        if "'" in line and "{" in line:
            i = line.find("{'")
            if i >= 0:
                rec = self.build(DICT_PAIR.findall(line[i:]))
                if rec is not None:
                    return [rec]
        m = STEP.search(line)
        if m is None:
            self._info(line)
            self.other_lines += 1
            return []
        step = int(m.group(1))
        if m.group(2):
            self.run_info.setdefault("total_steps", int(m.group(2)))
        rest = line[: m.start()] + " " + line[m.end():]
        pairs = PAIR.findall(rest)
        if not rest.isascii() or _SPACED_HINT.search(rest.lower()):
            pairs += SPACED.findall(rest)
        rec = self.build(pairs, step=step)
        if rec is None:
            self.other_lines += 1
            return []
        if rec.loss is None and rec.val_loss is None and _is_megatron_train(line):
            rec.loss_missing = True
        return [rec]

    def _overflow(self, line: str) -> list[StepRecord]:
        m = OVERFLOW.search(line)
        if not m:
            self.other_lines += 1
            return []
        rec = StepRecord(step=max(self._last_step, 0), overflow=True, source=self.path)
        if m.group(2):
            try:
                rec.loss_scale = float(m.group(2))
            except ValueError:
                pass
        self.records += 1
        return [rec]

    def _info(self, line: str) -> None:
        m = PARAMS.search(line)
        if m:
            try:
                v = float(m.group(1).replace(",", ""))
                if m.group(2):
                    v *= _SUFFIX[m.group(2).lower()]
                self.run_info.setdefault("params", v)
            except ValueError:
                pass
            return
        m = ARG.match(line)
        if m and m.group(1) in _ARG_KEYS:
            key = _ARG_KEYS[m.group(1)]
            val = m.group(2)
            try:
                self.run_info.setdefault(key, float(val) if key in ("peak_lr", "clip") else int(float(val)))
            except ValueError:
                pass
            return
        if m and m.group(1) in ("fp16", "bf16") and m.group(2) == "True":
            self.run_info.setdefault("precision", m.group(1))
            return
        m = TOKENS_PER_ITER.search(line)
        if m:
            self.run_info.setdefault("batch_tokens", float(m.group(1).replace(",", "")))


def _is_megatron_train(line: str) -> bool:
    return "iteration" in line and "learning rate" in line and "|" in line
