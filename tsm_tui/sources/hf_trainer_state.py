"""Hugging Face Trainer ``trainer_state.json``.

Rewritten whole at every save (``checkpoint-N/trainer_state.json``; the root copy
only when the script calls ``save_state()``), so it is a snapshot source: the
whole ``log_history`` is re-read and callers keep the steps they have not seen.
When a run dir holds several copies, ``log_files.candidate_files`` offers one: the
root one, else the newest checkpoint's (the largest N holds the full history of
the others), so steps are never counted twice.

``log_history`` has three shapes: training logs (``loss``, ``grad_norm``,
``learning_rate``, ``epoch``, ``step``), evaluation logs (``eval_*``, kept as
validation loss at their step) and the final summary (``train_runtime``,
run-average ``train_loss``: not a step, left out). Entries without a step are
left out too. Bare ``NaN`` / ``Infinity`` are accepted (Python's json writes
them). The loss stays finite on NaN steps (``logging_nan_inf_filter``): the NaN
grad norm is kept as is, the NaN detector reads it.
"""

from __future__ import annotations

import json
import os

from tsm_tui.core.record import StepRecord
from tsm_tui.core.numbers import int64
from tsm_tui.sources.base import SnapshotReader

_INFO = {
    "max_steps": "total_steps",
    "logging_steps": "logging_steps",
    "save_steps": "save_steps",
    "train_batch_size": "batch_size",
}


class HFTrainerStateReader(SnapshotReader):
    name = "hf-trainer-state"
    priority = 30

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        base = os.path.basename(path)
        text = "\n".join(head[:200])
        if '"log_history"' in text or (base == "trainer_state.json" and text.lstrip().startswith("{")):
            return 0.95
        return 0.0

    def read_all(self, data: bytes) -> list[StepRecord]:
        self.restart()
        try:
            state = json.loads(data.decode("utf-8", "replace"))
        except ValueError:
            # a save in progress (or a corrupt file): nothing this time
            self.skip("invalid JSON (file being rewritten?)")
            return []
        except RecursionError:  # ("[[[[...": json's decoder recurses per level)
            self.skip("JSON nested too deeply")
            return []
        if not isinstance(state, dict):
            self.skip("not a trainer_state object")
            return []
        for k, key in _INFO.items():
            if k in state:
                self.run_info[key] = state[k]  # bounded by RunFacts (1e400, 400 digits: left out)
        out: list[StepRecord] = []
        hist = state.get("log_history") or []
        if not isinstance(hist, list):
            self.skip("log_history is not a list")
            return []
        for e in hist:
            if not isinstance(e, dict):
                self.skip("log_history entry is not an object")
                continue
            step = e.get("step")
            if not isinstance(step, (int, float)) or isinstance(step, bool):
                continue  # predict_* entries have no step
            if "train_runtime" in e or "total_flos" in e:
                continue  # the final summary: run-average loss, not a step
            step = int64(step)
            if step is None:
                self.skip("step out of range")
                continue
            rec = self.build(e.items(), step=step)
            if rec is not None:
                out.append(rec)
        return out
