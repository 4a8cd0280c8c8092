"""Keras ``model.fit`` console output (``python train.py > train.log``).

``Epoch 3/10`` starts an epoch; the progress bar's last state closes it:
``1875/1875 [==============================] - 5s 3ms/step - loss: 0.2 - accuracy: 0.93 - val_loss: ...``
(Keras 2) or ``1875/1875 ━━━━━━━━━━━━━━━━━━━━ 3s 1ms/step - accuracy: 0.86 - loss: 0.49 ...`` (Keras 3).
One record per epoch, at the epoch number as printed (the bar's intermediate redraws,
separated by ``\\r`` or backspaces, are running averages within the epoch and are not
steps); ``Epoch N/M`` gives the planned total (M epochs, steps being epochs here).
"""

from __future__ import annotations

import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.generic_text import NUM

# linear: a count starts at the first digit of a run ((?<!\d), possessive), and the
# sniffer's "bar ... - loss: " is a bar followed by a substring test, not ".*" (a line
# of 40k digits then " - loss: x" took 2.5 s to sniff, every file is sniffed)
EPOCH = re.compile(r"^\s*+Epoch (\d++)/(\d++)\s*+$")
BAR = re.compile(r"(?<!\d)(\d++)/(\d++) (?:\[[=>.]*+\]|[━─\u2501\u2578\u257a]++)")
METRIC = re.compile(rf" - (\w+): ({NUM})(?![\w.])")
#: the LR Keras prints after the epoch's metrics (ReduceLROnPlateau / LearningRateScheduler: ``lr``,
#: Keras 3: ``learning_rate``)
LR_KEYS = ("lr", "learning_rate")
SNIFF_BAR = re.compile(r"(?<!\d)\d++/\d++ (?:\[[=>.]*+\]|━)")
#: ``fit(verbose=2)``: no bar, one line an epoch, its timings before the metrics: ``51/51 - 30s - loss: 0.61 -
#: auc: 0.54 - val_loss: 0.29 - 30s/epoch - 588ms/step`` (TF 2), `` - 5s - loss: 0.2 - acc: 0.9`` (Keras 2, no
#: count), ``1875/1875 - 3s - 1ms/step - accuracy: 0.86 - loss: 0.49`` (Keras 3); fresh52's cough notebook
VERBOSE2 = re.compile(r"^\s*+(?:\d++/\d++ )?(?:- \d++(?:\.\d++)?[mu]?s(?:/(?:step|epoch|sample))? )++(?=- \w+: )")


class KerasProgressReader(LineReader):
    name = "keras-stdout"
    priority = 7

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        ep = bar = 0
        for ln in head[:2000]:
            if "Epoch" in ln and EPOCH.match(ln):
                ep += 1
            elif " - " in ln and (" - loss: " in ln or " - accuracy: " in ln):
                b = SNIFF_BAR.search(ln) or VERBOSE2.match(ln)
                if b is not None and (
                    ln.find(" - loss: ", b.end() - 1) >= 0 or ln.find(" - accuracy: ", b.end() - 1) >= 0
                ):
                    bar += 1
            if ep >= 3 and bar >= 3:
                break
        if not (ep and bar):
            return 0.0
        return 0.8 + 0.03 * min(ep, bar)

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._epoch: int | None = None
        self._done: int | None = None  # the epoch read without its validation metrics (they may follow)
        self.other_lines = 0

    def feed(self, line: str) -> list[StepRecord]:
        if "\x1b" in line:
            line = strip_ansi(line)
        m = EPOCH.match(line)
        if m:
            epoch = int64(m.group(1))
            if epoch is None:
                self.skip("step out of range")
                return []
            self._epoch, self._done = epoch, None
            self.run_info.setdefault("total_steps", m.group(2))  # (bounded where run facts are kept)
            return []
        if (self._epoch is None and self._done is None) or " - " not in line:
            self.other_lines += 1
            return []
        # the bar's last redraw on the line (\r or backspaces between redraws)
        part = re.split(r"[\r\x08]+", line.strip("\r\x08"))[-1]
        b = BAR.search(part)
        if b is None:
            v = VERBOSE2.match(part)  # (verbose=2: the epoch's one line, complete)
            if v is None:
                return []
            pairs = METRIC.findall(part, v.end() - 1)
        elif b.group(1) != b.group(2):
            return []  # an epoch still running
        else:
            pairs = METRIC.findall(part, b.end())
        if self._epoch is None:
            # the epoch's bar drawn complete once more, after its validation (a print of the data
            # generator broke the line between): its val_* metrics, at the epoch's step, and the LR
            # a callback adds after them (ReduceLROnPlateau's "- lr: 1.0000e-04", fresh26's PBS logs)
            step, self._done = self._done, None
            val = [(k, v) for k, v in pairs if k.startswith("val_") or k in LR_KEYS]
            rec = self.build(val, step=step) if any(k.startswith("val_") for k, _ in val) else None
            return [rec] if rec is not None else []
        rec = self.build(pairs, step=self._epoch)
        if rec is None:
            return []
        # one record per epoch (its validation still to come when it has none)
        self._epoch, self._done = None, (None if any(k.startswith("val_") for k, _ in pairs) else self._epoch)
        return [rec]
