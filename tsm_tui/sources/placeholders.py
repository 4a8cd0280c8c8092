"""Literal 0.0 placeholders for the other split: a row that logs ``val_loss: 0.0`` beside its
training loss, and ``train_loss: 0.0`` beside its validation loss (a script that logs one dict
with both keys on every row, the split it did not measure set to 0: an SSD DDP trainer under
W&B, fresh5). The placeholder is no value.

The rule (one definition, applied by every reader: ``SourceReader.build``, the JSONL and W&B
column paths, W&B's rows):

- a validation loss of exactly 0.0 in a row whose training loss is not 0.0 is a placeholder:
  an evaluation loss is a mean over a held-out set, never exactly 0 beside a training loss
  that is not (Keras-style rows log both when both were measured);
- a training loss of exactly 0.0 in a row whose validation loss is not 0.0 is a placeholder
  only once the file has shown the first kind (it writes placeholders): a training loss of
  exactly 0.0 is otherwise a real finding (a dead run: fresh5's Condenser logs loss 0.0),
  kept.

A real 0.0 stays: a training loss of 0.0 in a file that never wrote a placeholder, any 0.0
in a row without the other split. Each placeholder dropped is counted in the file's notes.
"""

from __future__ import annotations

import numpy as np

from tsm_tui.core.record import StepRecord
from tsm_tui.sources.lines import note

#: the note a dropped placeholder leaves (the file's skip reasons, not a skipped line)
PLACEHOLDER = "0.0 placeholders for the split a row did not measure: not values"


class SplitPlaceholders:
    """The rule's state for one file: whether it has written a validation placeholder."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen = False

    def record(self, rec: StepRecord, sink) -> None:
        """Drop a placeholder from ``rec`` (both its losses set), counted on ``sink``."""
        loss, val = rec.loss, rec.val_loss
        if val == 0.0 and loss != 0.0:
            rec.val_loss = None
            self.seen = True
            note(sink, PLACEHOLDER)
        elif loss == 0.0 and val != 0.0 and self.seen:
            rec.loss = None
            note(sink, PLACEHOLDER)

    @staticmethod
    def in_columns(cols: dict) -> bool:
        """Some row of these columns (a Frame's) holds a placeholder: the rows go one by one."""
        loss, val = cols.get("loss"), cols.get("val_loss")
        if loss is None or val is None:
            return False
        loss, val = np.asarray(loss, dtype=np.float64), np.asarray(val, dtype=np.float64)
        return bool(((val == 0.0) & (loss != 0.0)).any() or ((loss == 0.0) & (val != 0.0)).any())
