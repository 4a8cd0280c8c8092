"""Coqui's ``trainer`` console log (``trainer_0_log.txt``: Coqui TTS / XTTS / VITS / Tacotron /
Glow-TTS fine-tunes, and other models trained with the ``trainer`` package): one record over
several lines, coloured with ANSI sequences:

     > EPOCH: 0/1000
     > TRAINING (2022-11-03 10:47:31)
       --> STEP: 24/36 -- GLOBAL_STEP: 1000025
         | > loss_disc: 3.01874  (3.46002)
         | > grad_norm_0: 0.53343  (2.77572)
         | > loss_1: 26.92974  (35.54205)
         | > current_lr_0: 0.00020
     > EVALUATION
      --> EVAL PERFORMANCE
         | > avg_loss: 2.93308 (+0.00000)

A ``--> STEP: s/n -- GLOBAL_STEP: N`` line opens a record at step N; each ``| > key: value``
line after it adds the step's value (the running average in parentheses is left); the record
closes at the first other line. An evaluation's ``avg_loss`` is the validation loss at the last
training step (its other averages are left). Keys go through the field table; a GAN's (VITS:
``loss_disc`` and ``loss_gen``, ``loss_0`` the discriminator's total, ``loss_1`` the generator's)
is seen by the objective rule. Lines of the preamble (``| > Layer missing in the checkpoint``)
are not records.
"""

from __future__ import annotations

import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader

_ANSI = re.compile(r"\x1b\[[0-9;]*+[A-Za-z]")
STEP = re.compile(r"^\s*+-->\s*+STEP:\s*+\d++\s*+/\s*+\d++\s*+--\s*+GLOBAL_STEP:\s*+(\d++)\s*+$")
PAIR = re.compile(
    r"^\s*+\|\s*+>\s*+([A-Za-z_][\w./-]*+):\s*+([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)\b", re.I
)
EVAL = re.compile(r"^\s*+-->\s*+EVAL PERFORMANCE\s*+$")
MAX_PAIRS = 256  # named numbers kept per record (bounded; ours)


class CoquiTrainerReader(LineReader):
    name = "coqui-trainer"
    priority = 28

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        steps = pairs = 0
        for ln in head:
            s = _ANSI.sub("", ln)
            if STEP.match(s):
                steps += 1
            elif PAIR.match(s):
                pairs += 1
        return 0.9 if steps >= 1 and pairs >= 2 else 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._open: tuple[int, list] | None = None  # (step, pairs) of the record being read
        self._eval = False  # inside an evaluation's averages
        self._last: int | None = None  # the last training record's step

    def feed(self, line: str) -> list[StepRecord]:
        s = _ANSI.sub("", line)
        m = PAIR.match(s)
        if m is not None:
            if self._open is not None:
                if len(self._open[1]) < MAX_PAIRS:
                    self._open[1].append((m.group(1), m.group(2)))
                return []
            if self._eval and m.group(1).lower() == "avg_loss" and self._last is not None:
                rec = self.build([("val_loss", m.group(2))], step=self._last)
                return [rec] if rec is not None else []
            return []
        out = self._close()
        st = STEP.match(s)
        if st is not None:
            step = int64(st.group(1))
            if step is None:
                self.skip("step out of range")
            else:
                self._open, self._eval = (step, []), False
            return out
        if EVAL.match(s):
            self._eval = True
        elif s.strip():
            self._eval = self._eval and s.lstrip().startswith("|")
        return out

    def _close(self) -> list[StepRecord]:
        if self._open is None:
            return []
        step, pairs = self._open
        self._open = None
        rec = self.build(pairs, step=step) if pairs else None
        if rec is None:
            return []
        self._last = step
        return [rec]

    def flush(self) -> list[StepRecord]:
        return self._close() + super().flush()

    def idle(self) -> list[StepRecord]:
        return self._close()
