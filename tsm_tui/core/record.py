"""The data model shared by readers, detectors, the monitor and the views."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum


@dataclass(slots=True)
class StepRecord:
    """What one log entry says about one training step.

    Every field but ``step`` is optional: a record holds what the log has.
    ``step`` is the step number as the log names it (iteration, global_step,
    epoch for epoch-level logs).
    """

    step: int
    loss: float | None = None
    grad_norm: float | None = None
    lr: float | None = None
    loss_scale: float | None = None
    #: optimizer steps skipped in the interval this record covers (fp16 overflow)
    skipped: int | None = None
    #: iterations with a NaN/Inf loss in the interval (Megatron's counter)
    nan_iters: int | None = None
    #: DeepSpeed "OVERFLOW!" line: the scale was reduced on this step
    overflow: bool = False
    tokens: float | None = None
    time: float | None = None
    epoch: float | None = None
    #: the wall clock of the text line the record was read from (a log's leading date and
    #: time, ``sources/line_clock.py``): the throughput check's timestamp; apart from
    #: ``time`` (a logged field, which may be a duration, and which the ordering rules read)
    clock: float | None = None
    val_loss: float | None = None
    #: the loss field was absent although the line was a training line
    #: (Megatron omits ``lm loss`` on NaN steps)
    loss_missing: bool = False
    #: other numeric fields, kept for the views (throughput, accuracy ...)
    extra: dict[str, float] | None = None
    source: str | None = None
    #: text the run generated at this step (sample / generation blocks), as logged
    samples: list[str] | None = None
    #: the first record after a launch banner (a new process wrote from here: sources/launches.py)
    launch: bool = False
    #: ... marked by a training's name never seen before (``LSTM_e2 Epoch 1:`` after ``LSTM_e1 Epoch 1:``:
    #: sources/generic_text.py): another training by the script's own words, ``launch`` set too
    named: bool = False

    def has_metrics(self) -> bool:
        return (
            self.loss is not None
            or self.grad_norm is not None
            or self.lr is not None
            or self.loss_scale is not None
            or self.val_loss is not None
            or self.overflow
            or self.loss_missing
            or self.samples is not None
        )


@dataclass(slots=True)
class TextEvent(StepRecord):
    """A line of the run's text that says how it ended, or nearly did (a traceback's
    exception, an OOM, an NCCL timeout, the scheduler's kill), or an exit code a
    tracker recorded: in its place among the file's records, with no metrics (so
    no step of its own: ``step`` / ``before`` is the last record's step the file gave
    before it, None / 0 when there was none). Readers make them
    (``sources/text_events.py``); the crash check reads them."""

    #: the crash table's row id (``cuda_oom``, ``nccl_watchdog`` ...) or ``exception``
    kind: str = ""
    #: the family the check's advice is for (``oom``, ``nccl``, ``dataloader`` ...)
    cause: str = ""
    #: ``fatal``, ``stopped`` (on purpose), ``warning`` (logged as one), ``info`` (exit code 0)
    level: str = "fatal"
    #: the line as logged (unsanitised: the views clean it), bounded
    text: str = ""
    before: int | None = None
    #: what the line is, for a person
    what: str = ""
    framework: str = ""
    #: the exception's class (a traceback's last line)
    exception: str | None = None
    #: what the line names: rank, worker, pid, signal, exit code, the allocation ...
    details: dict[str, str] | None = None


class Status(str, Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"

    @property
    def rank(self) -> int:
        return _STATUS_RANK[self]


_STATUS_RANK = {Status.SKIP: 0, Status.PASS: 1, Status.WARN: 2, Status.FAIL: 3}


class Severity(str, Enum):
    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"


@dataclass(slots=True)
class Alert:
    """A finding at one step, with what to do about it."""

    check: str
    severity: Severity
    step: int | None
    message: str
    value: float | None = None
    baseline: float | None = None
    actions: list[str] = field(default_factory=list)
    #: a key alerts of one kind share; the monitor folds repeats of one key
    key: str | None = None
    #: what kind of event it most likely is (loss spikes: data / optimizer / lr / fp16)
    cause: str | None = None
    #: the earlier run of the file it was found in ("steps 0-7900": a run a new run in the same file
    #: replaced, analysis/monitor.EarlierRun), None for the run the verdict judges
    earlier: str | None = None

    def to_json(self) -> dict:
        out = {
            "check": self.check,
            "severity": self.severity.value,
            "step": self.step,
            "value": json_float(self.value),
            "baseline": json_float(self.baseline),
            "message": self.message,
            "actions": list(self.actions),
        }
        if self.cause:
            out["cause"] = self.cause
        if self.earlier:
            out["earlier_run"] = self.earlier
        return out


@dataclass(slots=True)
class CheckResult:
    id: str
    title: str
    status: Status
    summary: str
    #: a word the views key on, besides the status (the crash check: ``crashed``,
    #: ``stopped``, ``done``); not part of the JSON check object
    tag: str | None = None

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status.value,
            "summary": self.summary,
        }


def json_float(x: float | None) -> float | str | None:
    """JSON has no NaN/Inf: write them as strings so the output stays valid JSON."""
    if x is None:
        return None
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return float(x)
