"""The monitor: runs the detectors over step records, keeps check status,
alerts and the recommended actions. No I/O, no UI: the report, ``--follow``
and the Textual app all drive this one class.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from dataclasses import dataclass, replace


from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.analysis.launches import Launches
from tsm_tui.analysis.logged_saves import LoggedSaves
from tsm_tui.analysis.state import RunState
from tsm_tui.core.frame import Frame, FrameState, first_resume, is_resume
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord, TextEvent
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.core.steps import StepSet

MAX_ALERTS = 1000  # alerts kept; older ones are counted, not stored
#: earlier runs of a file kept with their findings (a new run restarts the checks); past it the
#: least of them (``_least``) is counted, not kept (ours: a Slurm .out of smoke tests and relaunches
#: rarely holds more; fresh49's file of 158 launches lost the NaN of launch 33 when the oldest went)
MAX_EARLIER = 8
#: warnings and criticals kept of each earlier run: the largest (``_size``: criticals first,
#: then value / baseline), listed in step order; the others are counted (``not_kept``). Ours:
#: the newest 20 dropped a 16x spike among a run's 52 alerts (issue 26, fresh4 vae3d)
EARLIER_ALERTS = 20
#: repeats of one kind of alert kept (the largest): warnings and criticals, each an incident of
#: its own at its own step (grad-norm spikes ...), and info notes, which say the same thing
#: again (a resume, a throughput dip). Ours: 5 of each kept only the 5 largest of a nanoGPT
#: run's 13 grad-norm spikes (issue 26, fresh10): the other 8 were counted, never located
PER_KEY = 20
PER_KEY_INFO = 5
#: ... of which the first few of each kind are never displaced by larger ones: where a series of
#: incidents began is what a rollback needs (ours: fresh22's InternVL2 run, 93 grad-norm spikes,
#: kept only its 20 largest, all past step 7000; the first, at 5730, was counted, not located)
FIRST_KEPT = 3
EARLY_FRAC = 0.1  # "early in the run" for the no-warm-up escalation (ours)
EARLY_STEPS = 500
#: ... but never more than this share of a planned run: in a 500-step fine-tune the first 500
#: steps are the whole run, and its epoch-maximum bump at step 476 was "no warm-up, and
#: instability at step 476", a FAIL of a healthy run (fresh22, held out). Ours.
EARLY_SHORT = 0.25
#: ... and a loss spike at least this many times its baseline: the instability a missing warm-up causes
#: is a jump, not a 1.4x bump its noise makes 6 sigma (fresh55's detection fine-tune, healthy: "no warm-up,
#: and instability at step 390", a FAIL, for 0.415 vs 0.305); 2x: the sustained excursion of llm-foundry's
#: loss-spike callback (the recovery rule's bar too)
EARLY_RATIO = 2.0
_NUMBERS = re.compile(r"[\w.-]*\d[\w.+-]*")
_SEV_RANK = {Severity.CRITICAL: 0, Severity.WARNING: 1, Severity.INFO: 2}


def _size(a: Alert) -> tuple:
    """How large an alert is, for the per-key budget: severity, then value / baseline."""
    v, b = a.value, a.baseline
    try:
        r = abs(v / b) if (v is not None and b) else abs(v or 0.0)
    except (TypeError, ZeroDivisionError):
        r = 0.0
    return (-_SEV_RANK[a.severity], r if r == r else 0.0)


def _largest(alerts: list[Alert], n: int) -> tuple[tuple[Alert, ...], int]:
    """The ``n`` largest of ``alerts`` (``_size``; the newer of two of one size) in their
    order, and how many were left out."""
    if len(alerts) <= n:
        return tuple(alerts), 0
    top = sorted(range(len(alerts)), key=lambda i: (_size(alerts[i]), i), reverse=True)[:n]
    return tuple(alerts[i] for i in sorted(top)), len(alerts) - n


def _least(runs: list[EarlierRun]) -> int:
    """The earlier run to count, not keep, when there are too many: the oldest of those whose failures
    another kept run says too, fewest failures, fewest alerts (fresh49's file of 158 launches: the one NaN
    launch among runs whose plateaus failed went with the oldest)."""
    failed = [r.failed() for r in runs]

    def weight(i: int) -> tuple[int, int, int]:
        others = frozenset().union(*(f for j, f in enumerate(failed) if j != i))
        return len(failed[i] - others), len(failed[i]), len(runs[i].alerts) + runs[i].not_kept

    return min(range(len(runs)), key=weight)


def _view(d, a: Alert) -> Alert:
    try:
        return d.view(a)
    except Exception:  # noqa: BLE001 - an alert reads as it was said
        return a


def _alert_step(a: Alert) -> int:
    return a.step if a.step is not None else -1


def _jumped(a: Alert) -> bool:
    """A spike's alert at least EARLY_RATIO x its baseline; any other loss-spike check alert (a
    divergence, a signed loss's spike, one that says no ratio) as it is."""
    v, b = a.value, a.baseline
    if not (a.key or "").startswith("loss_spike") or v is None or b is None or not (b > 0) or not math.isfinite(v):
        return True
    return v >= EARLY_RATIO * b


@dataclass(frozen=True)
class EarlierRun:
    """A run of the same file that a new run replaced (analysis/launches.py): what its
    checks said at its end. Not part of the verdict (the checks judge the last run), but
    never silent: a spike in the long run before a short relaunch is still said."""

    first_step: int | None
    last_step: int | None
    checks: tuple[CheckResult, ...]  # the checks that warned or failed
    alerts: tuple[Alert, ...]  # its warnings and criticals (the largest EARLIER_ALERTS, in step order)
    not_kept: int = 0  # ... and how many of them were not kept

    def to_json(self) -> dict:
        return {
            "first_step": self.first_step,
            "last_step": self.last_step,
            "checks": [{"id": c.id, "status": c.status.value, "summary": c.summary} for c in self.checks],
            "alerts": [a.to_json() for a in self.alerts],
            "alerts_not_kept": self.not_kept,
        }

    def failed(self) -> frozenset[str]:
        """The checks it failed or raised a critical alert in."""
        return frozenset(c.id for c in self.checks if c.status == Status.FAIL) | frozenset(
            a.check for a in self.alerts if a.severity == Severity.CRITICAL
        )

    def marked_alerts(self) -> list[Alert]:
        """Its alerts as the run's alert list shows them: each says the run it belongs to."""
        run = f"steps {self.first_step}-{self.last_step}"
        return [
            replace(a, earlier=run, message=f"(an earlier run in this file, {run}) {a.message}") for a in self.alerts
        ]


class Monitor:
    def __init__(self, settings: Settings | None = None, info: RunInfo | None = None, detectors=None) -> None:
        self.settings = settings or Settings()
        self.state = RunState(info or RunInfo())
        self._classes = list(detectors or DETECTORS)
        self.detectors = [cls(self.settings, self.state) for cls in self._classes]
        #: the detectors still running: one that raised (a value its arithmetic cannot
        #: take) is left out from then on and its check reads SKIP with the reason
        #: (``failed``), never the end of the report or of the live loop
        self._active = list(self.detectors)
        self.failed: dict[str, str] = {}
        self.alerts: deque[Alert] = deque(maxlen=MAX_ALERTS)
        self.dropped_alerts = 0
        self.folded: dict[str, int] = {}
        self._by_key: dict[str, list[Alert]] = {}  # the alerts kept of each key (at most its budget)
        #: the first FIRST_KEPT alerts of each kind, by id: never displaced (bounded: 3 per kind)
        self._pinned: dict[int, Alert] = {}
        self._budget: dict[str, int] = {}  # each key's budget (PER_KEY, PER_KEY_INFO), from its first alert
        self.records = 0
        #: distinct steps with a training loss (duplicates, eval lines at the same step,
        #: the steps a resume repeats and earlier steps revisited are not counted again) of
        #: this run, and those of the runs a new run in the same file replaced (their steps
        #: are other trainings' steps: a sweep's or a queue's runs each count; issue 26)
        self._loss_steps = StepSet()
        self._banked_steps = 0
        #: the file's launch segments; a new run restarts the checks (analysis/launches.py)
        self.launches = Launches()
        #: runs of this file that a new run replaced, with what their checks said (newest last)
        self.earlier_runs: list[EarlierRun] = []
        self.earlier_dropped = 0
        self._released: tuple | None = None  # (checks, alert views) once released
        self._pending_since = 0.0  # when the launch held now was first held (``pending_for``)
        self.finalized = False

    @property
    def loss_steps(self) -> int:
        """Distinct steps with a training loss (``core.steps.StepSet``), over the file's runs."""
        return self._banked_steps + self._loss_steps.count

    @property
    def earlier_steps(self) -> int:
        """Of ``loss_steps``, those of the runs a new run in this file replaced."""
        return self._banked_steps

    # ------------------------------------------------------------------ feed
    def feed(self, rec: StepRecord) -> list[Alert]:
        """One record in; the alerts it raised out (already stored)."""
        if type(rec) is TextEvent:
            return self.feed_event(rec)
        la = self.launches
        metrics = rec.has_metrics()
        if la.pending is not None:  # a launch held for its first losses (analysis/launches.py)
            if metrics and la.interrupts(rec):  # (one more launch: the held one decided on what it has)
                return self.settle(ended=False) + self.feed(rec)
            return self.settle(ended=False) if la.wait(rec) else []
        new: list[Alert] = []
        if metrics:
            kind = la.boundary(rec, self.state.last_step, self.state.info.total_steps)
            if kind == "pending":
                self._pending_since = time.monotonic()
                return []
            if kind == "new run":
                new.append(self._new_run(rec))
        return self._deliver(rec, metrics, new)

    def settle(self, ended: bool = True) -> list[Alert]:
        """The launch held for its first losses, decided (a new run or a resume) and its
        records delivered; [] when none is held."""
        if self.launches.pending is None:
            return []
        kind, recs = self.launches.decide(ended)
        if kind == "no loss":
            return []  # (its records are counted in its segment, said with the launches)
        out: list[Alert] = []
        first = recs[0]
        new = [self._new_run(first, replay=kind == "replay")] if kind in ("new run", "replay") else []
        out += self._deliver(first, True, new)
        for r in recs[1:]:
            out += self.feed(r)
        return out

    def pending_for(self) -> float | None:
        """Seconds a launch has been held for its first losses (None: none is)."""
        return None if self.launches.pending is None else time.monotonic() - self._pending_since

    def _deliver(self, rec: StepRecord, metrics: bool, new: list[Alert]) -> list[Alert]:
        st = self.state
        if metrics:
            self.launches.seen(rec)
        if metrics and is_resume(rec.step, st.last_step):
            new.append(self._resume(rec.step))
        if metrics:
            self.records += 1
            st.records += 1
            if rec.loss is not None:
                self._loss_steps.add(rec.step)
            if st.first_step is None:
                st.first_step = rec.step
            if st.last_step is None or rec.step > st.last_step:
                st.last_step = rec.step
            lr = rec.lr
            if lr is not None and lr == lr:
                st.last_lr = lr
                if st.peak_lr is None or lr > st.peak_lr:
                    st.peak_lr, st.peak_lr_step = lr, rec.step
        for d in self._active:
            try:
                found = d.update(rec)
            except Exception as e:  # noqa: BLE001 - contained: that check is SKIP, the others go on
                self._fail(d, e)
                continue
            if found:
                new.extend(found)
        return self._store(new) if new else new

    def _fail(self, d, e: Exception) -> None:
        if d.id not in self.failed:
            self.failed[d.id] = f"{type(e).__name__}: {e}"[:200]
        self._active = [x for x in self._active if x is not d]

    def feed_frame(self, fr: Frame) -> list[Alert]:
        """Rows of one shape in, as columns; the same alerts, checks and state as
        feeding ``fr.record(i)`` one by one (detectors without a columnar path
        run row by row)."""
        out: list[Alert] = []
        while fr.n:
            if self.launches.pending is not None:  # (a launch held: its records one by one)
                out += self.feed(fr.at_plain(0))
                fr = fr.slice(1, fr.n)
                continue
            r = first_resume(fr.step, self.state.last_step)
            loss = fr.cols.get("loss")
            j = self.launches.first_jump(None if loss is None else loss[: r if r >= 0 else fr.n])
            if j >= 0:  # a replay candidate before any resume: its own record, as a resume's
                r = j
            if r == 0:  # a resume (or a replay candidate): its own record, then the rest
                out += self.feed(fr.at_plain(0))
                fr = fr.slice(1, fr.n)
                continue
            part, fr = (fr, fr.slice(0, 0)) if r < 0 else (fr.slice(0, r), fr.slice(r, fr.n))
            out += self._feed_part(part)
        return out

    def _feed_part(self, fr: Frame) -> list[Alert]:
        self.launches.seen_frame(fr.step, fr.cols.get("loss"), fr.cols.get("lr"), fr.extra)
        fs = fr._state = FrameState(self.state, fr)
        self.records += fr.n
        if "loss" in fr.cols:
            self._loss_steps.add_array(fr.step)
        new: list[Alert] = []
        try:
            for d in self._active:
                try:
                    found = d.update_frame(fr)
                except Exception as e:  # noqa: BLE001 - contained (see feed)
                    self._fail(d, e)
                    continue
                if found:
                    new += found
            fs.sync(fr.n - 1)
        finally:
            fr._state = None  # frame <-> state is a cycle: free the frame's arrays now, not at a GC pass
        if not new:
            return new
        # per record, alerts come in step order, detector order within a step
        new.sort(key=_alert_step)
        return self._store(new)

    def feed_aux(self, rec: StepRecord) -> list[Alert]:
        """A record from an auxiliary source (a ``samples.jsonl`` beside the training
        log): only the detectors that read generations see it; the step counters do not."""
        new: list[Alert] = []
        for d in self._active:
            if d.reads_samples:
                try:
                    new += d.update(rec)
                except Exception as e:  # noqa: BLE001 - contained (see feed)
                    self._fail(d, e)
        return self._store(new)

    def _new_run(self, rec: StepRecord, replay: bool = False) -> Alert:
        """A new run in the same file (analysis/launches.py): the checks start again on
        it; the file's counters (records, distinct steps) and its launches go on. A check
        that judges the file's history (the crash check: a launch that crashed is history
        of the run after it) is carried over with its alerts."""
        st = self.state
        prev_first, prev_last = st.first_step, st.last_step
        assert prev_last is not None  # (a new run follows records of the last one)
        text_read = st.text_read
        carried = {type(d): d for d in self._active if getattr(d, "keeps_history", False)}
        self._keep_earlier(prev_first, prev_last, {d.id for d in carried.values()})
        self._banked_steps += self._loss_steps.count
        self._loss_steps = StepSet()
        st.__init__(st.info)  # type: ignore[misc]  # in place: the views and the Session hold this object
        st.text_read = text_read
        self.detectors = [carried[cls] if cls in carried else cls(self.settings, st) for cls in self._classes]
        for d in carried.values():
            d.on_new_run(rec.step)
        self._active = list(self.detectors)
        self.failed = {}
        ids = {d.id for d in carried.values()}
        kept = [a for a in self.alerts if a.check in ids]
        keys = {a.key or a.check for a in kept}
        self.alerts.clear()
        self.alerts.extend(kept)
        self.dropped_alerts = 0
        self.folded = {k: v for k, v in self.folded.items() if k in keys}
        self._by_key = {}
        kept_ids = {id(a) for a in kept}  # (the run's pinned alerts go with it: bounded over launches)
        self._pinned = {i: a for i, a in self._pinned.items() if i in kept_ids}
        self.launches.new_run()
        n = len(self.launches.segments) + self.launches.dropped
        if replay:  # (analysis/launches.py: found by its loss, the steps went on)
            why = (
                f"the loss went back to its starting level after {prev_first}-{prev_last} and falls "
                f"along the start's curve again, the steps going on (a run appended to a file with "
                f"no step of its own, or restarted from scratch)"
            )
        else:
            why = f"the steps restarted after {prev_first}-{prev_last} and the loss is back at its starting level"
        return Alert(
            "resume",
            Severity.INFO,
            rec.step,
            f"New run at step {rec.step} (launch {n} in this file): {why}; the checks judge "
            f"this run, the launches before it are listed.",
            value=float(prev_last),
            baseline=None,
            actions=[],
            key=f"launch:{n}",
        )

    def _keep_earlier(self, first: int | None, last: int | None, carried: set[str]) -> None:
        """The run that ends here, judged at its end as a finished log is (``finalize``):
        its warned and failed checks and its alerts, kept as an ``EarlierRun``. The end-of-log
        alerts are not paged (that run is over); the checks that keep the file's history
        (carried) are not repeated."""
        end: list[Alert] = []
        for d in self._active:
            if d.id in carried:
                continue
            try:
                end += d.finalize()
            except Exception as e:  # noqa: BLE001 - contained (see feed)
                self._fail(d, e)
        checks = tuple(
            c
            for c in (self._result(d) for d in self.detectors if d.id not in carried)
            if c.status in (Status.WARN, Status.FAIL)
        )
        alerts = [a for a in self.view_alerts() + end if a.check not in carried and a.severity != Severity.INFO]
        if not checks and not alerts:
            return
        self.earlier_runs.append(EarlierRun(first, last, checks, *_largest(alerts, EARLIER_ALERTS)))
        if len(self.earlier_runs) > MAX_EARLIER:
            self.earlier_runs.pop(_least(self.earlier_runs))
            self.earlier_dropped += 1

    def feed_event(self, ev: TextEvent, own: bool = True) -> list[Alert]:
        """A text event (a crash line) of this source (``own``) or of another file of the
        run: only the detectors that read events see it; the step counters do not."""
        new: list[Alert] = []
        for d in self._active:
            if getattr(d, "reads_events", False):
                try:
                    new += d.event(ev, own)
                except Exception as e:  # noqa: BLE001 - contained (see feed)
                    self._fail(d, e)
        return self._store(new) if new else new

    def _resume(self, step: int) -> Alert:
        st = self.state
        prev = st.last_step
        assert prev is not None  # (a resume follows records)
        st.resumes.append((prev, step))
        st.last_step = step
        for d in self._active:
            try:
                d.on_resume(step)
            except Exception as e:  # noqa: BLE001 - contained (see feed)
                self._fail(d, e)
        return Alert(
            "resume",
            Severity.INFO,
            step,
            f"Run resumed at step {step} after reaching step {prev}: steps {step + 1}-{prev} are "
            f"superseded by the new segment.",
            value=float(prev),
            baseline=None,
            actions=[],
            key=f"resume:{step}",
        )

    def _judged_by_reward(self) -> bool:
        """An RL run's or a GAN's objective (the Loss Spike check's ``rl``: its findings are warnings,
        its rise as the discriminator learns no instability of the run): no evidence against a
        missing warm-up (fresh4's PaddleGAN distillation: a generator term's 1.5x rise at step 3170
        read "no warm-up, and instability", critical)."""
        return any(getattr(d, "rl", False) for d in self.detectors if d.id == "loss_spike")

    def _store(self, alerts: list[Alert]) -> list[Alert]:
        kept = []
        for a in alerts:
            if (
                a.severity != Severity.INFO
                and a.step is not None
                and self.state.early_trouble_step is None
                and a.check in ("loss_spike", "nonfinite")
                and not (a.key or "").startswith("component:")  # (a loss component's spike or NaN:
                and a.key != "nonfinite_term"  # the objective's own, not the run's instability)
                and a.key != "loss_creep"  # (a slow climb is not the instability a missing warm-up causes)
                and not (a.check == "loss_spike" and self._judged_by_reward())
                and not (a.check == "loss_spike" and not _jumped(a))
                and self._early(a.step)
            ):
                self.state.early_trouble_step = a.step
            k = a.key or a.check
            n = self.folded.get(k, 0) + 1
            self.folded[k] = n
            cap = self._budget.get(k)
            if cap is None:
                cap = self._budget[k] = PER_KEY_INFO if a.severity == Severity.INFO else PER_KEY
            kept_k = self._by_key.get(k)
            if kept_k is None and n > 1:  # (keys seen once, one per spike step, are never listed)
                kept_k = self._by_key[k] = [x for x in self.alerts if (x.key or x.check) == k]
            if n > cap:
                # the budget keeps the largest: a later, larger alert of this kind takes the
                # place of the smallest one kept (which is dropped, never changed)
                pinned = self._pinned
                low = min((x for x in kept_k if id(x) not in pinned), key=_size, default=None) if kept_k else None
                if low is None or _size(a) <= _size(low):
                    continue
                assert kept_k is not None  # (low is one of them)
                kept_k.remove(low)
                try:
                    self.alerts.remove(low)
                except ValueError:  # already pushed out by MAX_ALERTS
                    pass
            if n <= FIRST_KEPT and a.severity != Severity.INFO:
                self._pinned[id(a)] = a  # (held: its id is never another alert's)
            if kept_k is not None:
                kept_k.append(a)
            if len(self.alerts) == self.alerts.maxlen:
                self.dropped_alerts += 1
            self.alerts.append(a)
            kept.append(a)
        return kept

    def alerts_not_kept(self) -> int:
        """Alerts said but not kept (never silent: the report says how many): repeats of one
        kind past its budget (PER_KEY, PER_KEY_INFO: the largest are kept) and the oldest past
        MAX_ALERTS."""
        cap = self._budget
        return (
            sum(n - cap.get(k, PER_KEY) for k, n in self.folded.items() if n > cap.get(k, PER_KEY))
            + self.dropped_alerts
        )

    def _early(self, step: int) -> bool:
        st = self.state
        first = st.first_step or 0
        total = st.info.total_steps
        horizon = max(min(EARLY_STEPS, EARLY_SHORT * total), EARLY_FRAC * total) if total else EARLY_STEPS
        return step - first <= horizon

    # ------------------------------------------------------------------ end
    def finalize(self) -> list[Alert]:
        """The log has been read to its end (report mode)."""
        if self.finalized:
            return []
        self.settle()  # (a launch still held at the end: decided on what it logged)
        self.finalized = True
        new: list[Alert] = []
        for d in self._active:
            try:
                new += d.finalize()
            except Exception as e:  # noqa: BLE001 - contained (see feed)
                self._fail(d, e)
        return self._store(new)

    def release(self) -> None:
        """A finished run among many (``--report`` on a big tree): its checks and alert
        views are kept as they read now, the detectors (their windows) are let go."""
        if self._released is not None:
            return
        self._released = (self.checks(), self.view_alerts())
        self.detectors = []
        self._active = []
        self._by_key = {}
        self._pinned = {}
        self.alerts = list(self.alerts)  # type: ignore[assignment]  # (no alert is stored any more)
        self.launches.release()

    # ------------------------------------------------------------------ views
    # What the views read of the run's observed facts (``self.state`` is the detectors' shared
    # RunState; a view reads these, never it).
    @property
    def info(self) -> RunInfo:
        """What is known of the run (flags > configs > logs), as the checks judge it."""
        return self.state.info

    @property
    def first_step(self) -> int | None:
        return self.state.first_step

    @property
    def last_step(self) -> int | None:
        return self.state.last_step

    @property
    def planned_steps(self) -> int | None:
        """The steps the run's config (or its log) plans, None when nothing says."""
        return self.state.info.total_steps

    @property
    def resumes(self) -> tuple[tuple[int, int], ...]:
        """The resumes seen, (from step, to step), in order."""
        return tuple(self.state.resumes)

    @property
    def saves(self) -> LoggedSaves:
        """The checkpoint saves the log says it made."""
        return self.state.saves

    def checks(self) -> list[CheckResult]:
        if self._released is not None:
            return list(self._released[0])
        return [self._result(d) for d in self.detectors]

    def _result(self, d) -> CheckResult:
        if d.id not in self.failed:
            try:
                return d.result()
            except Exception as e:  # noqa: BLE001 - contained (see feed)
                self._fail(d, e)
        return CheckResult(
            d.id,
            d.title,
            Status.SKIP,
            f"not checked: the check failed on this run's values ({self.failed[d.id]}); "
            "the other checks are unaffected",
        )

    def counts(self, checks: list[CheckResult] | None = None) -> tuple[int, int]:
        checks = checks if checks is not None else self.checks()
        return (sum(c.status == Status.FAIL for c in checks), sum(c.status == Status.WARN for c in checks))

    def view_alerts(self) -> list[Alert]:
        """The stored alerts as they read now (``Detector.view``: e.g. a recovered
        spike's conditional rollback left out); the stored alerts are never changed."""
        if self._released is not None:
            return list(self._released[1])
        by = {d.id: d for d in self._active}
        return [_view(by[a.check], a) if a.check in by else a for a in self.alerts]

    def revisions(self) -> list[Alert]:
        """The stored alerts whose view changed since the last call, as they read
        now (a recovered spike's onset alert without its conditional rollback)."""
        keys: set[str] = set()
        for d in self._active:
            try:
                keys.update(d.revised())
            except Exception as e:  # noqa: BLE001 - contained (see feed)
                self._fail(d, e)
        if not keys:
            return []
        by = {d.id: d for d in self._active}
        return [_view(by[a.check], a) for a in self.alerts if a.key in keys and a.check in by]

    def actions(self, checks: list[CheckResult] | None = None, limit: int = 12) -> list[str]:
        """De-duplicated actions of the checks that are not passing, most urgent first."""
        checks = checks if checks is not None else self.checks()
        status = {c.id: c.status for c in checks}
        relevant = [
            a
            for a in self.view_alerts()
            if a.actions and status.get(a.check, Status.FAIL) in (Status.WARN, Status.FAIL)
        ]
        relevant.sort(
            key=lambda a: (
                _SEV_RANK[a.severity],
                -status[a.check].rank if a.check in status else 0,
                a.step if a.step is not None else 0,
            )
        )
        out: list[str] = []
        seen = set()
        for a in relevant:
            for act in a.actions:
                # one action of each kind: the most urgent rollback, not one per
                # spike (kind = the first words, numbers and paths blanked, punctuation
                # dropped: "Restore the LR schedule:" and "... schedule (peak" are one kind)
                shape = " ".join(w.strip(".,:;()") for w in _NUMBERS.sub("#", act).split()[:4])
                if shape not in seen:
                    seen.add(shape)
                    out.append(act)
        return out[:limit]
