"""The one live loop: a feed in, the run's new alerts and status changes out.

``--follow`` and the TUI both drive a ``LiveLoop``. Each ``step()``:

1. applies what the file system said changed besides the logs: a checkpoint
   directory or file saved, a config file written or rewritten. These are
   handled *before* the records that arrived with them, so a checkpoint saved
   before a failure is the one its alert names, and a config that appears
   after the start (HF writes ``config.json`` at the first save) changes the
   planned total, the warm-up and the model size that the checks use. Without
   events (polling, network filesystems) the same files are stat-checked on a
   slow timer;
2. feeds the records into the Session (one Monitor per source file);
3. returns a ``LiveUpdate``: the alerts that are new *for the run* (the same
   alert found in the stdout log, the JSONL file and the TensorBoard events,
   or again when ``trainer_state.json`` is rewritten or the primary source
   changes, is returned once), the status changes of the checks, and the
   feed's notes.

Statuses are recomputed only after something changed, and at most every
``STATUS_EVERY`` seconds (``Monitor.checks()`` is the costly part of a pass).
No I/O of its own beyond the RunFiles re-reads, no UI.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field

from tsm_tui.analysis.monitor import Monitor
from tsm_tui.analysis.session import Session
from tsm_tui.core.frame import Frame
from tsm_tui.core.record import Alert, CheckResult, Status
from tsm_tui.sources.feed import Batch, Feed
from tsm_tui.sources.runfiles import RunFiles

STATUS_EVERY = 0.2  # s between two status recomputations while records keep coming
FALLBACK_EVENTS = 30.0  # s between stat checks of configs / checkpoints when events arrive
FALLBACK_POLL = 2.0  # ... when nothing reports events (polling, network filesystems)
MAX_SEEN = 20_000  # alert identities remembered for de-duplication (oldest forgotten)


@dataclass(slots=True)
class StatusChange:
    check: str
    status: Status
    previous: Status
    summary: str
    step: int | None


@dataclass
class LiveUpdate:
    #: (alert, from_backlog): new for the run; backlog = read from the history
    #: present when watching started (printed, not paged)
    alerts: list[tuple[Alert, bool]] = field(default_factory=list)
    statuses: list[StatusChange] = field(default_factory=list)
    #: the current checks, when they were recomputed in this step
    checks: list[CheckResult] | None = None
    #: notes about the files (truncated, rotated, unreadable ...)
    events: list[str] = field(default_factory=list)
    records: int = 0
    #: the batches fed in this step (the TUI's plot store reads them)
    batches: list[Batch] = field(default_factory=list)
    #: what changed besides the logs: "checkpoints", "config"
    changed: set[str] = field(default_factory=set)
    #: the feed ended and everything was drained (replays); the monitor is finalized
    finished: bool = False
    #: the feed's worker died: why (the views say so; --follow exits non-zero)
    error: str | None = None

    def __bool__(self) -> bool:
        return bool(self.alerts or self.statuses or self.events or self.records or self.changed
                    or self.finished or self.error or self.checks is not None)


def alert_identity(a: Alert) -> tuple:
    """The same finding, whichever file of the run it came from."""
    return (a.check, a.key or a.check, a.step, a.severity)


class LiveLoop:
    def __init__(self, session: Session, feed: Feed, files: RunFiles | None = None, *,
                 polling: bool = False, clock=time.monotonic) -> None:
        self.session = session
        self.feed = feed
        self.files = files
        self.clock = clock
        self._queue: deque[Batch] = deque()
        self._seen: OrderedDict[tuple, None] = OrderedDict()
        # what an empty run shows: only changes from there are reported
        self._status: dict[str, Status] = {c.id: c.status for c in Monitor(session.settings, session.info).checks()}
        self._dirty = True
        self._status_at = -1e9
        self._primary: str | None = None
        self._fallback_every = FALLBACK_POLL if polling else FALLBACK_EVENTS
        self._fallback_at = clock()
        self._config_sig = files.config_signature() if files else ()
        self._checkpoints = list(session.info.checkpoints or [])
        self.finished = False
        self.error: str | None = None

    # ------------------------------------------------------------------ driving
    def start(self) -> None:
        self.feed.start()

    def stop(self, timeout: float = 2.0) -> None:
        self.feed.stop(timeout)

    def wait(self, timeout: float) -> None:
        """Sleep until the feed has something, or ``timeout`` (capped so that a
        pending status recomputation is not late)."""
        if self._dirty:
            timeout = min(timeout, max(0.0, self._status_at + STATUS_EVERY - self.clock()))
        self.feed.ready.wait(timeout)
        self.feed.ready.clear()

    @property
    def pending(self) -> int:
        """Batches drained from the feed but not fed yet (over a step's budget)."""
        return len(self._queue)

    def _take(self, budget: int | None) -> list[Batch]:
        if not self._queue:
            self._queue.extend(self.feed.drain())
        if budget is None:
            out = list(self._queue)
            self._queue.clear()
            return out
        out: list[Batch] = []
        left = budget
        while self._queue and left > 0:
            b = self._queue[0]
            n = sum(r.n if type(r) is Frame else 1 for r in b.records)
            if n <= left:
                out.append(self._queue.popleft())
                left -= n
                continue
            # cut the batch: the first ``left`` records now, the rest next step
            head, rest, k = [], [], left
            for r in b.records:
                if k <= 0:
                    rest.append(r)
                elif type(r) is Frame and r.n > k:
                    head.append(r.slice(0, k))
                    rest.append(r.slice(k, r.n))
                    k = 0
                else:
                    head.append(r)
                    k -= r.n if type(r) is Frame else 1
            out.append(Batch(b.source, b.reader, head, b.backlog))
            b.records = rest
            break
        return out

    def step(self, force_status: bool = False, budget: int | None = None) -> LiveUpdate:
        """One pass (never blocks). ``budget``: at most about this many records
        are fed; the rest waits for the next step (``pending``)."""
        up = LiveUpdate()
        finished_before = self.feed.finished and not self._queue
        self._side_files(up)
        for b in self._take(budget):
            up.batches.append(b)
            n = sum(r.n if type(r) is Frame else 1 for r in b.records)
            up.records += n
            self._dirty = True
            for a in self.session.feed(b.source, b.records, b.reader):
                self._emit(a, b.backlog, up)
        self._primary_changed(up)
        up.events = self.feed.drain_events()
        if self.feed.error and self.error is None:
            self.error = up.error = self.feed.error
        if finished_before and not self.finished and not up.batches and not self._queue:
            self.finished = up.finished = True
            for a in self.session.finalize():
                self._emit(a, True, up)
            self._dirty = force_status = True
        now = self.clock()
        # an alert usually moves a status: recompute at once, not at the next period
        if self._dirty and (force_status or up.alerts or up.changed or now - self._status_at >= STATUS_EVERY):
            self._statuses(up, now)
        return up

    # ------------------------------------------------------------------ parts
    def _emit(self, a: Alert, backlog: bool, up: LiveUpdate) -> None:
        ident = alert_identity(a)
        if ident in self._seen:
            return
        self._seen[ident] = None
        if len(self._seen) > MAX_SEEN:
            self._seen.popitem(last=False)
        up.alerts.append((a, backlog))

    def _primary_changed(self, up: LiveUpdate) -> None:
        """A new primary source: what it found before it became primary is new
        for the run unless another file already said it."""
        if self.session.primary == self._primary:
            return
        self._primary = self.session.primary
        mon = self.session.monitor
        if mon is None:
            return
        backlog = all(b.backlog for b in up.batches) if up.batches else True
        for a in list(mon.alerts):
            self._emit(a, backlog, up)

    def _side_files(self, up: LiveUpdate) -> None:
        if self.files is None:
            self.feed.drain_changes()
            return
        kinds = set()
        for p in self.feed.drain_changes():
            if p == "*":
                kinds |= {"config", "checkpoint"}
                break
            k = self.files.classify(p)
            if k:
                kinds.add(k)
        now = self.clock()
        if now - self._fallback_at >= self._fallback_every:
            self._fallback_at = now
            kinds |= {"config", "checkpoint"}
        if "checkpoint" in kinds:
            found = self.files.checkpoints()
            if found != self._checkpoints:
                self._checkpoints = found
                self.session.set_checkpoints(found)
                up.changed.add("checkpoints")
                self._dirty = True
        if "config" in kinds:
            sig = self.files.config_signature(self.session.primary)
            if sig != self._config_sig:
                self._config_sig = sig
                info, _used = self.files.read_info(self.session.primary, strict=False)
                self.session.set_info(info)
                up.changed.add("config")
                self._dirty = True

    def _statuses(self, up: LiveUpdate, now: float) -> None:
        self._dirty = False
        self._status_at = now
        mon = self.session.monitor
        if mon is None:
            return
        checks = mon.checks()
        up.checks = checks
        step = mon.state.last_step
        for c in checks:
            before = self._status.get(c.id, Status.SKIP)
            if c.status != before:
                up.statuses.append(StatusChange(c.id, c.status, before, c.summary, step))
            self._status[c.id] = c.status
