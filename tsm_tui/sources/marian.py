"""Marian NMT's training log (``marian --log train.log``; Opus-MT, WMT systems):

    [2019-03-31 08:00:53] Ep. 5 : Up. 190500 : Sen. 25,816,231 : Cost 2.97327662 : Time 4664.34s : 1843.45 words/s : L.r. 4.0985e-05
    [2019-03-31 10:44:59] [valid] Ep. 5 : Up. 195000 : ce-mean-words : 1.48961 : stalled 6 times

A training line is a record at its update (``Up.``, the optimizer's step: it goes on across a resume),
its ``Cost`` the loss (the cost type Marian was told: ce-mean, ce-sum, perplexity ...), ``L.r.``
the LR, ``Ep.`` the epoch. A validation line's ``ce-mean-words`` (or ``cross-entropy``) is the
validation loss at its update; its other validators (``perplexity``, ``translation``: BLEU) are not
losses.
"""

from __future__ import annotations

import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|-?inf"
TRAIN = re.compile(
    rf"(?<!\[valid\] )Ep\. (\d++) : Up\. (\d++) : Sen\. [\d,]++ : Cost ({_NUM})"
    rf"(?: : Time [\d.]++s : [\d.]++ words/s)?+(?: : L\.r\. ({_NUM}))?+"
)
VALID = re.compile(rf"\[valid\] Ep\. (\d++) : Up\. (\d++) : (ce-mean-words|cross-entropy) : ({_NUM})")
SNIFF_ROWS = 2  # training lines a head needs (ours)


class MarianReader(LineReader):
    name = "marian"
    priority = 27

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        n = sum(1 for ln in head if "Up. " in ln and TRAIN.search(ln))
        return 0.9 if n >= SNIFF_ROWS else 0.0

    def feed(self, line: str) -> list[StepRecord]:
        if "Up. " not in line:
            return []
        v = VALID.search(line) if "[valid]" in line else None
        if v is not None:
            step = int64(v.group(2))
            if step is None:
                self.skip("step out of range")
                return []
            rec = self.build([("val_loss", v.group(4))], step=step)
            return [rec] if rec is not None else []
        m = TRAIN.search(line)
        if m is None:
            return []
        step = int64(m.group(2))
        if step is None:
            self.skip("step out of range")
            return []
        items: list[tuple[str, object]] = [("loss", m.group(3)), ("epoch", m.group(1))]
        if m.group(4):
            items.append(("lr", m.group(4)))
        rec = self.build(items, step=step)
        return [rec] if rec is not None else []
