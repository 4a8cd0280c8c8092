"""The DARTS family's console log (DARTS, PC-DARTS, P-DARTS, NAS-Bench-201 search scripts and
their forks, often captured as a W&B ``output.log``): neural-architecture-search trainers that
log with ``logging.info('train %03d %e %f %f', step, objs.avg, top1.avg, top5.avg)``:

    05/31 02:32:56 PM epoch 0 lr 2.498816e-02
    05/31 02:32:57 PM train 000 2.345704e+00 6.250000 54.687500
    05/31 02:33:19 PM train 050 2.102168e+00 20.373775 72.855392
    05/31 02:36:11 PM train_acc 31.303999
    05/31 02:36:12 PM valid 000 1.711712e+00 28.125000 85.937500
    05/31 02:36:30 PM valid_acc 38.399998

No name on any number: the line's shape is the format (the phase, a zero-padded batch counter,
the loss in ``%e``, two accuracies). The counter starts again each epoch (the step is placed in
its epoch: sources/epoch_steps.py); the loss is the epoch's running mean (``objs.avg``: the
records carry their epoch, so the checks treat them as running means); the LR is the ``epoch N
lr X`` line's; an evaluation's last ``valid`` line before its ``valid_acc`` is the validation loss
at the last training step. Other lines (tensors, warnings, genotypes) are left to the crash scan.
"""

from __future__ import annotations

import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.epoch_steps import EpochCounter

_NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf"
#: a counter line: the phase, the zero-padded counter (%03d), the loss in %e, the accuracies
ROW = re.compile(
    rf"(?:^|\s)(train|valid|test)\s++(\d{{3,}}+)\s++([-+]?\d\.\d++e[-+]\d++|nan|inf)\s++({_NUM})\s++({_NUM})\s*+$", re.I
)
EPOCH = re.compile(rf"(?:^|\s)epoch\s++(\d++)\s++lr\s++({_NUM})\s*+$", re.I)
END = re.compile(r"(?:^|\s)(train|valid|test)_acc\s++" + rf"(?:{_NUM})\s*+$", re.I)
SNIFF_ROWS = 3  # counter lines a head needs (ours)


class DartsReader(LineReader):
    name = "darts"
    priority = 14  # (below the structured formats: a line shape, no names)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        n = sum(1 for ln in head if ROW.search(ln) and ln.lower().find("train") >= 0)
        return 0.8 if n >= SNIFF_ROWS else 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._epoch = 0
        self._lr: str | None = None
        self._epochs = EpochCounter()
        self._last: int | None = None  # the last training record's step
        self._val: str | None = None  # the newest validation running mean

    def feed(self, line: str) -> list[StepRecord]:
        s = line.rstrip()
        m = ROW.search(s)
        if m is not None:
            phase, n, loss = m.group(1).lower(), int64(m.group(2)), m.group(3)
            if n is None:
                self.skip("step out of range")
                return []
            if phase != "train":
                self._val = loss
                return []
            step = self._epochs.step(self._epoch, None, n, None)[0]
            if step is None:
                self.skip("step out of range")
                return []
            items: list[tuple[str, object]] = [("loss", loss), ("epoch", self._epoch)]
            if self._lr is not None:
                items.append(("lr", self._lr))
            rec = self.build(items, step=step)
            if rec is None:
                return []
            self._last = step
            return [rec]
        e = EPOCH.search(s)
        if e is not None:
            ep = int64(e.group(1))
            if ep is not None:
                self._epoch, self._lr = ep, e.group(2)
            return []
        if END.search(s) is not None and self._val is not None and self._last is not None:
            rec = self.build([("val_loss", self._val)], step=self._last)
            self._val = None
            return [rec] if rec is not None else []
        return []

    def describe(self) -> dict:
        if self._epochs.mode != "epoch":
            return {}
        return {
            "step_source": "DARTS-style 'train NNN <loss> <top1> <top5>' lines: the counter starts again each "
            "epoch ('epoch N lr X' lines), so the step is the batches of the epochs before plus the counter"
        }
