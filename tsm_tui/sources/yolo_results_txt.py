"""YOLOv5 (before its ``results.csv``, 2021) / YOLOv7 / YOLOR ``runs/train/exp/results.txt``.

A headerless table, one space-padded row per epoch, written by their ``train.py``
(``'%10s' * 2 + '%10.4g' * 6`` for the epoch, GPU memory, mean train box / obj / cls /
total loss, labels and image size, then ``'%10.4g' * 7`` for the validation results)::

         0/199     2.19G   0.07965   0.08531   0.03004     0.195       539       640     0.453    0.1427 ...

Columns: ``epoch/last_epoch gpu_mem box obj cls total labels img_size P R mAP@.5
mAP@.5:.95 val_box val_obj val_cls`` (YOLOv5 v5.0 ``utils/plots.py plot_results`` reads
the same columns). The step is the epoch as printed (0-based); the planned run is
``last_epoch + 1`` epochs. The loss is the logged total (box + obj + cls), its terms are
checked beside it, and the validation loss is the sum of the three val terms (none when all three are 0:
a run with validation off writes zeros). Keys are
those of YOLOv5's later ``results.csv`` (``train/box_loss``, ``metrics/mAP_0.5``,
``val/box_loss`` ...), so both files of a family read alike.

A headerless numeric table is also many other things: the sniff asks for every row of
the head to have exactly 15 cells, an ``N/M`` first cell with N <= M and a ``G``
(GPU memory) second cell.
"""

from __future__ import annotations

import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.fields import to_float

#: the first two cells: ``epoch/last_epoch`` and the GPU memory (``2.19G``, ``0G`` on a CPU)
ROW = re.compile(r"^\s*(\d{1,9})/(\d{1,9})\s+(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?G\s")
NCOLS = 15
#: the cells after the first two, by the names YOLOv5's results.csv gives them
#: (``total``, ``labels`` and ``img_size`` are not in the CSV: the total is the loss)
KEYS = (
    "train/box_loss",
    "train/obj_loss",
    "train/cls_loss",
    "loss",
    "labels",
    "img_size",
    "metrics/precision",
    "metrics/recall",
    "metrics/mAP_0.5",
    "metrics/mAP_0.5:0.95",
    "val/box_loss",
    "val/obj_loss",
    "val/cls_loss",
)
VAL = ("val/box_loss", "val/obj_loss", "val/cls_loss")
SNIFF_ROWS = 20  # head rows looked at (ours)


def _row(line: str) -> re.Match | None:
    m = ROW.match(line)
    if m is None or len(line.split()) != NCOLS or int(m.group(1)) > int(m.group(2)):
        return None
    return m


class YoloResultsTxtReader(LineReader):
    name = "yolo-results-txt"
    priority = 16  # (above the CSV reader: no header, so nothing else claims it exactly)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        rows = [ln for ln in head if ln.strip()][:SNIFF_ROWS]
        if not rows:
            return 0.0
        # the last line may be cut by a writer still at work
        whole = rows[:-1] if len(rows) > 1 else rows
        if not all(_row(ln) for ln in whole):
            return 0.0
        return 0.9

    def feed(self, line: str) -> list[StepRecord]:
        if not line.strip():
            return []
        m = _row(line)
        if m is None:
            self.skip("not a results.txt row")
            return []
        step = int64(m.group(1))
        if step is None:
            self.skip("step out of range")
            return []
        self.run_info.setdefault("total_steps", int(m.group(2)) + 1)
        cells = line.split()[2:]
        items = []
        for k, c in zip(KEYS, cells):
            x = to_float(c)
            if x is None:
                self.skip("not a number")
                return []
            items.append((k, x))
        rec = self.build(items, step=step)
        if rec is None:
            return []
        vals = dict(items)
        v = vals[VAL[0]] + vals[VAL[1]] + vals[VAL[2]]
        if v != 0:  # (all zero: no validation that epoch, ``--notest`` / ``--noval``)
            rec.val_loss = v
        return [rec]
