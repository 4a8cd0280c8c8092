"""MLPerf Training result logs: ``mlperf_logging``'s ``:::MLLOG {json}`` lines.

Every MLPerf Training submission (and the reference implementations, NVIDIA's NeMo / Megatron
containers, AMD's, Dell's, Supermicro's ...) logs through ``mlperf_logging.mllog``: one JSON
object a line after the ``:::MLLOG`` marker, one metric an object::

    :::MLLOG {"namespace": "", "time_ms": 1715167139662, "event_type": "POINT_IN_TIME",
              "key": "train_loss", "value": 3.7487,
              "metadata": {"file": "mlperf_logging_utils.py", "lineno": 102, "samples_count": 80, "lr": 0.0003}}

The metric's name is the ``key``, its number the ``value``; the step is in the metadata:
``samples_count`` (the benchmark's own axis: MLPerf counts samples, the result file's labels
too), else ``step_num`` / ``step`` / ``iteration``, else ``epoch_num``. ``train_loss`` is the
loss, ``metadata.lr`` the LR beside it, ``eval_loss`` the validation loss (``eval_accuracy`` is
the benchmark's quality metric, some a loss, some an accuracy: never taken for a loss, not read). The run's facts come as keys of
their own before the first step (``global_batch_size``, ``opt_base_learning_rate``,
``opt_learning_rate_training_steps`` / ``max_steps``, ``opt_learning_rate_warmup_steps``,
``opt_gradient_clip_norm``): steps are converted to the log's axis (x the global batch size when
it counts samples; not at all without it). A warm-up factor is not guessed into steps.

A Slurm job's output prefixes each line with the task's label (``srun -l``: `` 0: :::MLLOG ...``,
``507: ...``) and holds the job script's own lines (``+ echo ...``, ``:::DLPAL``): the records of
the first task label seen are read (and lines with none: the job script's), another task's are
counted skips; other lines are the job's
text (its crash lines are read as in any log). A line whose JSON does not parse, or a key no
field takes, is a counted skip or nothing; nothing is evaluated.
"""

from __future__ import annotations

import json
import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.jsonl import _parse_float

MARK = ":::MLLOG"
#: the task label ``srun -l`` puts before a line (`` 0: ``, ``507: ``)
_TASK = re.compile(r"^\s*(\d{1,7}):\s*$")
#: metadata keys that carry the step, in the order taken (the first present is the log's axis)
STEP_KEYS = ("samples_count", "step_num", "step", "iteration", "epoch_num")
#: MLLOG keys of records, by the field they feed (``eval_accuracy`` is a quality metric: not read)
LOSS_KEYS = {"train_loss": "loss", "loss": "loss", "training_loss": "loss", "eval_loss": "val_loss"}
#: the run's facts: MLLOG key -> (RunInfo key, in steps: converted to the axis)
FACTS = {
    "global_batch_size": ("batch_size", False),
    "opt_base_learning_rate": ("peak_lr", False),
    "opt_gradient_clip_norm": ("clip", False),
    "opt_learning_rate_training_steps": ("total_steps", True),
    "max_steps": ("total_steps", True),
    "opt_learning_rate_warmup_steps": ("warmup_steps", True),
}
MAX_LINE = 1 << 16  # characters of a record parsed (a bound: an MLLOG record is a few hundred)
SNIFF_LINES = 2  # MLLOG lines in the head that make the file one
_DECODER = json.JSONDecoder(parse_float=_parse_float)


class MlperfReader(LineReader):
    name = "mlperf"
    priority = 17

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        n = sum(1 for ln in head if MARK + " {" in ln)
        return 0.97 if n >= SNIFF_LINES else 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.other_lines = 0
        self._task: str | None = None  # the srun task label read
        self._axis: str | None = None  # the metadata key the steps come from
        self._facts: dict[str, float] = {}  # MLLOG keys of run facts, as logged

    def feed(self, line: str) -> list[StepRecord]:
        i = line.find(MARK)
        if i < 0:
            if line.strip():
                self.other_lines += 1
            return []
        t = _TASK.match(line[:i]) if i else None
        if i and t is None:
            self.other_lines += 1  # (a job script's echo of a marker: not a record)
            return []
        task = t.group(1) if t is not None else ""
        if task and self._task is None:
            self._task = task
        elif task and task != self._task:
            self.skip("another task's line (srun -l label)")
            return []
        body = line[i + len(MARK) :].strip()[:MAX_LINE]
        try:
            obj, _ = _DECODER.raw_decode(body)
        except (ValueError, RecursionError):
            self.skip("invalid MLLOG record")
            return []
        if not isinstance(obj, dict) or not isinstance(obj.get("key"), str):
            self.skip("invalid MLLOG record")
            return []
        key, value = obj["key"], obj.get("value")
        meta = obj.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
        if key in FACTS:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self._facts[key] = float(value)
            return []
        field = LOSS_KEYS.get(key)
        if field is None:
            return []  # (a block start / stop, the submission's facts, its quality metric: no loss)
        step = self._step(meta)
        if step is None:
            self.skip("MLLOG record with no step")
            return []
        items = [(field, value)]
        lr = meta.get("lr")
        if field == "loss" and lr is not None:
            items.append(("lr", lr))
        rec = self.build(items, step=step)
        return [rec] if rec is not None else []

    def _step(self, meta: dict) -> int | None:
        """The record's step from its metadata, on the log's axis (the first step key seen)."""
        if self._axis is None:
            self._axis = next((k for k in STEP_KEYS if k in meta), None)
            if self._axis is None:
                return None
            self._set_facts()
        v = meta.get(self._axis)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
            return None
        return int64(v)

    def _set_facts(self) -> None:
        """The run's facts logged before the first step, in the axis's unit (samples: x the batch)."""
        f = self._facts
        scale = f.get("global_batch_size", 0.0) if self._axis == "samples_count" else 1.0
        for key, (fact, in_steps) in FACTS.items():
            v = f.get(key)
            if v is None or v <= 0:
                continue
            if in_steps:
                if not scale:
                    continue
                v = v * scale
            self.run_info.setdefault(fact, int(v) if fact in ("batch_size", "total_steps", "warmup_steps") else v)

    def describe(self) -> dict:
        if self._axis is None:
            return {}
        what = "the samples seen (MLPerf's own axis)" if self._axis == "samples_count" else "its value"
        return {"step_source": f"the MLLOG records' metadata.{self._axis}: {what}"}
