"""Crashes: how the run ended, from the text it wrote (issue 27).

Fed the run's text events (``core.record.TextEvent``: a traceback's exception, an
OOM, an NCCL timeout, a segfault, the scheduler's kill, a tracker's exit code;
``sources/crash_patterns.py`` lists them with their sources) among its records:

- a fatal line opens an *incident*: a critical alert at once (FAIL), with the step
  of the last record before it, the line (sanitised by the views) and actions for
  its cause (``analysis/crash_advice.py``). Further crash lines before the run goes
  on (other ranks' tracebacks, the launcher's summary) fold into it: one alert, the
  most specific cause named;
- the run going on after it closes the incident: steps going back (a restart from a
  checkpoint, a new launch in the same file) make it history (PASS, the alert reads
  as info); ``crash_survive_records`` records in a row past it make it a traceback the
  run survived (WARN, the alert reads as a warning);
- a traceback logged as a warning (torch._dynamo's ``[WARNING] Traceback``) is a WARN;
- a line that ended the run on purpose (Ctrl-C, ``scancel``, the owner's kill) is a
  WARN ("stopped"), not a FAIL;
- a tracker's exit code 0 says the run ended normally (``done``);
- a fatal line after the trainer's end-of-training summary (HF's ``train_runtime`` dict; the reader's
  ``training_ended``, ``text_events.AFTER_END``) is a WARN "crashed after its last record": the training
  ran to its end, the code after it failed (fresh13: a TypeError writing the script's own JSON).

Events come from every file of the run (a crash in ``job.err`` while the metrics are
in ``job.out``): the Session hands each event to every Monitor (``own=False`` for
the files that are not the monitor's source); a foreign event's step is the last
step its own file gave, else this monitor's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tsm_tui.analysis.crash_advice import actions
from tsm_tui.analysis.detectors.base import NONE, Detector
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord, TextEvent
from tsm_tui.sources.checkpoint_lines import SAVE_KIND
from tsm_tui.sources.text_events import NAN_SKIP_KIND
from tsm_tui.sources.text_events import AFTER_END
from tsm_tui.core.sanitize import clean

#: which line names an incident best when several fold into one (most specific first)
CAUSE_RANK = (
    "oom",
    "host_oom",
    "nccl",
    "cuda",
    "dataloader",
    "disk",
    "fp16",
    "signal",
    "hang",
    "scheduler",
    "exception",
    "exit",
    "launcher",
    "interrupt",
)
_LEVEL_RANK = {"fatal": 2, "stopped": 1, "warning": 0}
MAX_HISTORY = 20  # closed incidents kept (each still has its alert; ours)
LINE_CHARS = 240  # characters of a crash line in a message


def _rank(ev: TextEvent) -> int:
    return CAUSE_RANK.index(ev.cause) if ev.cause in CAUSE_RANK else len(CAUSE_RANK)


def one_line(text: str, n: int = LINE_CHARS) -> str:
    return clean(text, max_len=n)


@dataclass
class Incident:
    n: int
    step: int | None
    first: TextEvent
    best: TextEvent
    level: str
    events: int = 1
    after: int = 0  # training records since
    state: str = "open"  # open / history / survived
    until: int | None = None  # the step the run went on from
    key: str = ""
    #: the crash came after the end of training (a reader saw the trainer's end-of-training summary
    #: before it: text_events.AFTER_END): what, else None
    after_end: str | None = None
    lines: list[str] = field(default_factory=list)
    #: the step is not known yet (a line from another file, read before any record):
    #: the step the run reached, at the end
    floating: bool = False


class CrashDetector(Detector):
    id = "crash"
    #: judged from the log's words, not its series: "no crash lines" says nothing about the
    #: training itself (a run with only this check run judged nothing: analysis/coverage.py)
    from_log = False
    title = "Crash"
    label = "Crash"
    short = "crash"
    order = 100
    urgency = 10
    #: fed TextEvents (Monitor.feed_event), from this source and the run's other files
    reads_events = True
    #: carried over a new run in the same file (Monitor._new_run): a crashed launch is history
    keeps_history = True

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.open: Incident | None = None
        self.closed: list[Incident] = []
        self.incidents = 0
        self.warnings: dict[str, tuple[int, int | None, TextEvent]] = {}  # key -> (count, first step, event)
        self.done: TextEvent | None = None
        self._revised: list[str] = []
        self.events = 0

    # -- records: does the run go on after a crash? ---------------------------------------
    def update(self, rec: StepRecord) -> list[Alert]:
        inc = self.open
        if inc is None or inc.floating or not rec.has_metrics():
            return []
        if self._before_any_step(inc):
            self._close(inc, "history", rec.step)
            return []
        inc.after += 1
        if inc.after >= self.settings.crash_survive_records:
            self._close(inc, "survived", rec.step)
        return []

    @staticmethod
    def _before_any_step(inc: Incident) -> bool:
        """A fatal crash of a process that had logged no step, then records: they come from
        the next launch (a process that dies before its first step logs none after it), so
        the crash is history, not a traceback the run survived."""
        return inc.step is None and inc.level == "fatal"

    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        return NONE

    def bulk(self, fr, cx, a: int, q: int) -> None:
        """Frame rows: counted after an open incident (every row has a metric)."""
        inc = self.open
        if inc is None or inc.floating:
            return
        if self._before_any_step(inc):
            self._close(inc, "history", int(fr.step[a]))
            return
        need = self.settings.crash_survive_records - inc.after
        if q - a >= need:
            self._close(inc, "survived", int(fr.step[a + need - 1]))
        else:
            inc.after += q - a

    def on_resume(self, step: int) -> None:
        """The steps went back: a restart. An open crash is history now."""
        if self.open is not None:
            self._close(self.open, "history", step)

    def on_new_run(self, step: int) -> None:
        """A new run began in the same file (analysis/launches.py): a crash before it is history."""
        self.on_resume(step)

    # -- events --------------------------------------------------------------------------------
    def event(self, ev: TextEvent, own: bool) -> list[Alert]:
        if ev.kind == SAVE_KIND or ev.kind == NAN_SKIP_KIND:
            return []  # (a checkpoint save: the Checkpoints check's; a NaN the loop skipped: the NaN/Inf check's)
        self.events += 1
        if ev.cause == "done":
            self.done = ev
            return []
        last = self.state.last_step
        if own:  # (the records before it in this file were fed before it)
            step = last if last is not None else ev.before
        else:  # another file of the run: the last record before it, in either file
            step = max((s for s in (ev.before, last) if s is not None), default=None)
        floating = step is None and not own
        if ev.level == "warning":
            return self._warning(ev, step)
        inc = self.open
        if inc is not None:
            inc.events += 1
            if len(inc.lines) < 5:
                inc.lines.append(one_line(ev.text, 160))
            changed = False
            if _rank(ev) < _rank(inc.best):
                inc.best, changed = ev, True
            if _LEVEL_RANK.get(ev.level, 2) > _LEVEL_RANK.get(inc.level, 2):
                inc.level, changed = ev.level, True
            if changed:
                self._revised.append(inc.key)
            return []
        self.incidents += 1
        inc = self.open = Incident(
            self.incidents,
            step,
            ev,
            ev,
            ev.level,
            key=f"crash:{self.incidents}",
            lines=[one_line(ev.text, 160)],
            floating=floating,
            after_end=(ev.details or {}).get(AFTER_END),
        )
        if not own and self._went_past(ev.before):
            # another file's line (a W&B run's console, another rank) at a step this series
            # has long gone past (their order across files is not the order they were written)
            self._close(inc, "survived", last)
            return [self.view(self._alert(inc))]
        return [self._alert(inc)]

    def _went_past(self, step: int | None) -> bool:
        """This series is more than ``crash_survive_records`` logging intervals past ``step``."""
        st = self.state
        if step is None or st.last_step is None or st.first_step is None or st.records < 2:
            return False
        interval = max(1.0, (st.last_step - st.first_step) / (st.records - 1))
        return st.last_step - step > interval * self.settings.crash_survive_records

    def _step(self, inc: Incident) -> int | None:
        if inc.floating and inc.step is None:
            return self.state.last_step
        return inc.step

    def _when(self, inc: Incident) -> str:
        """``at step N``, or where a crash before any logged step was (never "step None")."""
        step = self._step(inc)
        return "before the first logged step" if step is None else f"at step {step}"

    def _warning(self, ev: TextEvent, step: int | None) -> list[Alert]:
        key = f"crash-warning:{ev.exception or ev.kind}"
        got = self.warnings.get(key)
        if got is not None:
            self.warnings[key] = (got[0] + 1, got[1], got[2])
            return []
        if len(self.warnings) >= 50:  # distinct kinds kept (ours): the rest are counted under the last
            return []
        self.warnings[key] = (1, step, ev)
        where = f"at step {step}" if step is not None else "before the first step"
        return [
            Alert(
                self.id,
                Severity.WARNING,
                step if step is not None else 0,
                f"A traceback logged as a warning {where}: {one_line(ev.text)} ({ev.framework}); the run went on.",
                actions=[
                    "Read the warning: a fallback (e.g. torch.compile giving up on a graph) can cost speed; "
                    "silence it only once understood."
                ],
                key=key,
                cause=ev.cause,
            )
        ]

    def _close(self, inc: Incident, how: str, step: int | None) -> None:
        inc.state, inc.until = how, step
        self.open = None
        self.closed.append(inc)
        if len(self.closed) > MAX_HISTORY:
            del self.closed[0]
        self._revised.append(inc.key)

    # -- alerts ---------------------------------------------------------------------------------
    def _headline(self, inc: Incident) -> str:
        ev = inc.best
        step = self._step(inc)
        where = f"at step {step}" if step is not None else "before its first logged step"
        verb = "stopped" if inc.level == "stopped" else "crashed"
        what = ev.what or ev.kind
        more = f" ({inc.events} crash lines)" if inc.events > 1 else ""
        if inc.after_end is not None:
            where = f"after its last record (step {step}), after {inc.after_end}: the training ran to its end"
        return f"The run {verb} {where}: {what}{more}: {one_line(ev.text)}"

    def _alert(self, inc: Incident) -> Alert:
        sev = Severity.CRITICAL if inc.level == "fatal" and inc.after_end is None else Severity.WARNING
        step = self._step(inc)
        return Alert(
            self.id,
            sev,
            step if step is not None else 0,
            self._headline(inc),
            actions=self._actions(inc),
            key=inc.key,
            cause=inc.best.cause,
        )

    def _actions(self, inc: Incident) -> list[str]:
        acts = actions(inc.best, self.state, self._step(inc))
        if inc.after_end is not None:
            acts = [
                "The training itself finished: check what the script does after it (saving the model, writing "
                "results, a final evaluation) - its output may be missing - and fix that code, not the training.",
                *acts,
            ]
        return acts

    def view(self, a: Alert) -> Alert:
        inc = next((i for i in ([self.open] if self.open else []) + self.closed if i.key == a.key), None)
        if inc is None:
            return a
        msg = self._headline(inc)
        sev, acts = a.severity, self._actions(inc)
        if inc.state == "history":
            sev = Severity.INFO
            msg += f" The run was restarted (at step {inc.until}): history, not a live failure."
            acts = []
        elif inc.state == "survived":
            sev = Severity.WARNING
            msg += f" The run went on ({self.settings.crash_survive_records} records after it, to step {inc.until})."
            acts = [
                "Read the traceback: the run survived it, but an error path (a failed eval, a retried step) "
                "may hide a real fault."
            ]
        step = self._step(inc)
        step = a.step if step is None else step
        if msg == a.message and sev == a.severity and acts == a.actions and step == a.step:
            return a
        return Alert(a.check, sev, step, msg, a.value, a.baseline, acts, a.key, a.cause)

    def revised(self) -> list[str]:
        out, self._revised = self._revised, []
        return out

    # -- the check --------------------------------------------------------------------------------
    @property
    def crashed(self) -> bool:
        """The run's last words are a crash (not a stop, not history)."""
        return self.open is not None and self.open.level == "fatal"

    def result(self) -> CheckResult:
        inc = self.open
        hist = [i for i in self.closed if i.state == "history"]
        surv = [i for i in self.closed if i.state == "survived"]
        tail = ""
        if hist:
            h = hist[-1]
            tail = f"; {len(hist)} earlier crash(es), restarted (last {self._when(h)}: {h.best.what or h.best.kind})"
        if inc is not None:
            status = Status.FAIL if inc.level == "fatal" and inc.after_end is None else Status.WARN
            r = self._result(status, self._headline(inc)[len("The run ") :] + tail)
            r.tag = "crashed" if inc.level == "fatal" else "stopped"
            return r
        if surv or self.warnings:
            parts = []
            if surv:
                s = surv[-1]
                parts.append(
                    f"{len(surv)} traceback(s) the run survived (last {self._when(s)}: "
                    f"{s.best.exception or s.best.what})"
                )
            if self.warnings:
                n = sum(c for c, _, _ in self.warnings.values())
                first = next(iter(self.warnings.values()))
                parts.append(
                    f"{n} traceback(s) logged as warnings (first {'before the first logged step' if first[1] is None else f'at step {first[1]}'}: "
                    f"{first[2].exception or first[2].what})"
                )
            return self._result(Status.WARN, "; ".join(parts) + tail)
        if self.done is not None:
            r = self._result(Status.PASS, "the run ended normally (the tracker recorded exit code 0)" + tail)
            r.tag = "done"
            return r
        if hist:
            return self._result(Status.PASS, "running" + tail)
        if not self.state.text_read and not self.events:
            return self._result(Status.SKIP, "no console output read (crash lines come from the run's text logs)")
        return self._result(Status.PASS, "no crash or error lines")
