"""build-nanogpt's ``log/log.txt`` (Karpathy's "Let's reproduce GPT-2"): one metric a line,
``<step> train <loss>``, ``<step> val <loss>``, ``<step> hella <accuracy>``.

``train`` is the training loss, ``val`` the validation loss; the HellaSwag accuracy is
kept as the extra field ``hella`` of a record of its own (no loss there).
"""

from __future__ import annotations

import re

from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader

# possessive runs: "\d+\.?\d*" let both runs share the digits of "1 train <60k digits>x"
# (quadratic: a minute for one line, and every file is sniffed with this)
LINE = re.compile(r"^\s*+(\d++) (train|val|hella) ([-+]?(?:\d++(?:\.\d*+)?(?:[eE][-+]?\d++)?|nan|inf))\s*+$")
_FIELD = {"train": "loss", "val": "val_loss"}


class BuildNanoGPTReader(LineReader):
    name = "build-nanogpt"
    priority = 7

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        lines = [ln for ln in head[:200] if ln.strip()]
        if not lines:
            return 0.0
        hits = sum(1 for ln in lines if LINE.match(ln))
        if hits < max(1, 0.8 * len(lines)):
            return 0.0
        return 0.85 + 0.1 * min(1.0, hits / 5)

    def feed(self, line: str) -> list[StepRecord]:
        m = LINE.match(line)
        if m is None:
            if line.strip():
                self.skip("not a '<step> train|val|hella <value>' line")
            return []
        step, kind, v = int(m.group(1)), m.group(2), float(m.group(3))
        rec = StepRecord(step, source=self.path)
        if kind == "hella":
            rec.extra = {"hella": v}
        else:
            setattr(rec, _FIELD[kind], v)
        self._last_step = step
        self.records += 1
        return [rec]
