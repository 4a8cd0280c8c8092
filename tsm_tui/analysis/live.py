"""The one live loop: a feed in, each run's new alerts and status changes out.

``--follow``, the TUI and the agent tools drive a ``LiveLoop`` (built in
``live_open.py``): one run (``LiveLoop(session, feed, files)``) or every run under
a directory (``LiveLoop.many``: a file is routed to its run by ``sources.runs.run_root``;
a run that starts later appears with its first record). ``step()`` never blocks
and returns a ``LiveUpdate``; the loop does no I/O of its own beyond the RunFiles
re-reads, and no UI.
"""

from __future__ import annotations

import os
import re
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from tsm_tui.analysis.monitor import Monitor
from tsm_tui.analysis.detectors.ranks import RanksDetector
from tsm_tui.analysis.session import Session
from tsm_tui.analysis.sweep import DataOrder, also_text, data_order, near_steps, spike_onset
from tsm_tui.core.frame import Frame
from tsm_tui.core.record import Alert, CheckResult, Status
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources.feed import Batch, Feed, Note
from tsm_tui.sources.runfiles import RunFiles
from tsm_tui.sources.runs import rank_of, run_name, run_root, slurm_task, uuid_dir

CHECKS_EVERY = 0.2  # s between two recomputations of the checks while records keep coming
FALLBACK_EVENTS = 30.0  # s between stat checks of configs / checkpoints when events arrive
FALLBACK_POLL = 2.0  # ... when nothing reports events (polling, network filesystems)
FALLBACK_SLACK = 0.1  # a run's look is taken with another's that is due up to 10% of the period sooner
MIN_RECHECK = 0.2  # s: polling re-reads them before feeding new records, at most this often
HELD_TICK = 0.25  # s: the longest sleep while records are held as a possible resume (released after HOLD_IDLE)
MAX_SEEN = 20_000  # alert identities remembered per run for de-duplication (oldest forgotten)
MAX_SPIKE_STEPS = 4096  # spike steps remembered across runs (same-step spikes in a sweep)


class LiveAlert(NamedTuple):
    alert: Alert
    #: read from the history present when watching started (printed, not paged)
    backlog: bool
    run: str


@dataclass(slots=True)
class StatusChange:
    check: str
    status: Status
    previous: Status
    summary: str
    step: int | None
    run: str = ""


@dataclass
class LiveUpdate:
    alerts: list[LiveAlert] = field(default_factory=list)
    #: alerts said before that read differently now (``Monitor.revisions``: a spike
    #: that recovered no longer needs its "if it does not recover" rollback); the
    #: alert itself was not changed, this is its new reading (same identity)
    revised: list[LiveAlert] = field(default_factory=list)
    statuses: list[StatusChange] = field(default_factory=list)
    #: run name -> its checks, for the runs whose checks were recomputed in this step
    run_checks: dict[str, list[CheckResult]] = field(default_factory=dict)
    #: notes about the files (truncated, rotated, unreadable ...)
    notes: list[str] = field(default_factory=list)
    #: the run each note is about (None: the feed as a whole)
    note_runs: list[str | None] = field(default_factory=list)
    records: int = 0
    #: the batches fed in this step, with the run each went to (the TUI's plot store reads them)
    batches: list[Batch] = field(default_factory=list)
    batch_runs: list[str] = field(default_factory=list)
    #: what changed besides the logs: "checkpoints", "config"
    changed: set[str] = field(default_factory=set)
    #: runs seen for the first time in this step
    new_runs: list[str] = field(default_factory=list)
    #: the feed ended and everything was drained (replays); the monitors are finalized
    finished: bool = False
    #: the feed's worker died: why (the views say so; --follow exits non-zero)
    error: str | None = None

    @property
    def checks(self) -> list[CheckResult] | None:
        """The recomputed checks when exactly one run's were (the one-run views)."""
        if len(self.run_checks) == 1:
            return next(iter(self.run_checks.values()))
        return None

    def __bool__(self) -> bool:
        return bool(
            self.alerts
            or self.revised
            or self.statuses
            or self.notes
            or self.records
            or self.changed
            or self.finished
            or self.error
            or self.run_checks
            or self.new_runs
        )


def alert_identity(a: Alert) -> tuple:
    """The same finding, whichever file of the run it came from."""
    return (a.check, a.key or a.check, a.step, a.severity)


class RunLive:
    """One run's live state: its Session, its side files, what was already said."""

    def __init__(
        self,
        name: str,
        session: Session,
        files: RunFiles | None,
        *,
        fallback_every: float,
        clock,
        ranks: list[str] | None = None,
    ) -> None:
        self.name = name
        self.session = session
        self.files = files
        self.clock = clock
        #: per-rank files (two or more make the ranks check); found as they appear too
        self.ranks: RanksDetector | None = None
        self._rank_shape: str | None = None
        if ranks is not None:
            for p in ranks:
                self.add_rank(p, slurm_task(p, list(ranks)))
        self.rank_check: CheckResult | None = None
        self.rank_dirty = False
        self._rank_said: dict[str, tuple] = {}
        self.backlog = True  # the last records fed were history read at the start
        self.seen: OrderedDict[tuple, None] = OrderedDict()
        # what an empty run without a config shows: only changes from there are reported,
        # so a check that the configs alone already put at WARN / FAIL (no warm-up in
        # the plan) is reported at the first pass
        self.status: dict[str, Status] = {c.id: c.status for c in Monitor(session.settings, RunInfo()).checks()}
        self.dirty = True
        self.status_at = -1e9
        self.primary: str | None = None
        self.fallback_every = fallback_every
        self.fallback_at = clock()
        self.config_sig = files.config_signature() if files else ()
        self.checkpoints = list(session.info.checkpoints or [])
        self.records = 0
        self.last_arrival: float | None = None
        self.finished = False

    def data_order(self) -> DataOrder:
        """What fixes the order this run reads its data in (analysis/sweep.py): its
        config as known now, its primary file's format, where it sits."""
        s = self.session
        reader = s.readers.get(s.primary) if s.primary else None
        mon = s.monitor
        root = self.files.root if self.files is not None else (s.primary or self.name)
        return data_order(mon.state.info if mon is not None else s.info, getattr(reader, "name", None), root)

    def add_rank(self, path: str, rank: int | None) -> None:
        """A per-rank file of this run (ranks of one log: the same name but for the rank)."""
        shape = re.sub(r"\d+", "#", path)
        if self._rank_shape is None:
            self._rank_shape = shape
        elif shape != self._rank_shape:
            return  # another per-rank log (stderr beside stdout): read as an ordinary source
        if self.ranks is None:
            self.ranks = RanksDetector()
        self.ranks.add(path, rank)

    def feed(self, b: Batch) -> list[Alert]:
        """One batch: its rank's tracker (per-rank files), the Session (unless it is a rank
        whose series the checks do not use)."""
        self.backlog = b.backlog
        if self.ranks is not None and b.source in self.ranks:
            self.rank_dirty = True
            if not self.ranks.route(b.source, b.records):
                return []
        return self.session.feed(b.source, b.records, b.reader)

    def rank_alerts(self) -> list[Alert]:
        """The ranks check recomputed; its alerts that are news (each departure once per
        rank, again only after it ended)."""
        self.rank_dirty = False
        got = self.ranks.check() if self.ranks is not None else None
        if got is None:
            return []
        self.rank_check, alerts = got
        out = []
        now: dict[str, tuple] = {}
        for a, who in alerts:
            ident = (a.severity, who)
            now[a.key or a.check] = ident
            if self._rank_said.get(a.key or a.check) != ident:
                out.append(a)
        self._rank_said = now
        return out

    def side_files(self, kinds: set[str], up: LiveUpdate, records_waiting: bool = False) -> None:
        if self.files is None:
            return
        now = self.clock()
        if records_waiting and self.fallback_every == FALLBACK_POLL and now - self.fallback_at >= MIN_RECHECK:
            # polling (no events): records are about to be fed, and a checkpoint saved since
            # the last look must be the one their alerts name, not the one before it
            kinds = kinds | {"config", "checkpoint"}
            self.fallback_at = now
        elif now - self.fallback_at >= self.fallback_every * (1 - FALLBACK_SLACK):
            # (the slack: runs opened a few ms apart look together, one wake-up for all)
            self.fallback_at = now
            kinds = kinds | {"config", "checkpoint"}
        if "checkpoint" in kinds:
            found = self.files.checkpoints()
            if found != self.checkpoints:
                self.checkpoints = found
                self.session.set_checkpoints(found)
                up.changed.add("checkpoints")
                self.dirty = True
        if "config" in kinds:
            sig = self.files.config_signature(self.session.primary)
            if sig != self.config_sig:
                self.config_sig = sig
                info, _used = self.files.read_info(self.session.primary, strict=False)
                self.session.set_info(info)
                up.changed.add("config")
                self.dirty = True

    def statuses(self, up: LiveUpdate, now: float) -> None:
        self.dirty = False
        self.status_at = now
        mon = self.session.monitor
        if mon is None:
            return
        checks = mon.checks()
        if self.rank_check is not None:
            checks = checks + [self.rank_check]
        up.run_checks[self.name] = checks
        step = mon.state.last_step
        for c in checks:
            before = self.status.get(c.id, Status.SKIP)
            if c.status != before:
                up.statuses.append(StatusChange(c.id, c.status, before, c.summary, step, self.name))
            self.status[c.id] = c.status


class LiveLoop:
    def __init__(
        self,
        session: Session,
        feed: Feed,
        files: RunFiles | None = None,
        *,
        polling: bool = False,
        clock=time.monotonic,
        name: str = "",
        ranks: list[str] | None = None,
        checks_every: float = CHECKS_EVERY,
    ) -> None:
        """One run: every file the feed delivers belongs to ``session``; ``ranks``: its
        per-rank log files (more are recognised as they appear); ``checks_every``: see
        the attribute."""
        self.feed = feed
        self.clock = clock
        self._fallback_every = FALLBACK_POLL if polling else FALLBACK_EVENTS
        self._queue: deque[Batch] = deque()
        self.runs: dict[str, RunLive] = {}
        self._route_cache: dict[str, RunLive] = {}
        self._top: str | None = None
        self._settings = session.settings if session is not None else Settings()
        self._flags = RunInfo()
        self._config: str | None = None
        self._spikes: OrderedDict[int, set[str]] = OrderedDict()
        self._file_runs: dict[str, RunLive] = {}  # files of known runs (a directory split into runs)
        #: directories of known runs that are not their roots (sibling loggers merged into a run)
        self._dir_runs: dict[str, RunLive] = {}
        #: run -> (step, number of other runs) of its loss spike shared with the most other runs
        self.shared_spikes: dict[str, tuple[int, int]] = {}
        self.finished = False
        self.error: str | None = None
        #: s between two recomputations of the checks while records keep coming (the TUI,
        #: which shows checks at most once a second, asks for its own)
        self.checks_every = checks_every
        if session is not None:
            self.runs[name] = RunLive(
                name, session, files, fallback_every=self._fallback_every, clock=clock, ranks=ranks
            )

    @classmethod
    def many(
        cls,
        feed: Feed,
        top: str,
        settings: Settings,
        flags: RunInfo | None = None,
        config: str | None = None,
        *,
        polling: bool = False,
        clock=time.monotonic,
        known: list | None = None,
        checks_every: float = CHECKS_EVERY,
    ) -> "LiveLoop":
        """Every run under ``top``; ``known``: runs opened already (run_open.Run)."""
        loop = cls(None, feed, polling=polling, clock=clock, checks_every=checks_every)  # type: ignore[arg-type]
        loop._top = os.path.abspath(top)
        loop._settings = settings
        loop._flags = flags or RunInfo()
        loop._config = config
        for r in known or []:
            s = Session(settings, r.info)
            s.set_checkpoints(r.info.checkpoints)
            live = loop.runs[r.name] = RunLive(
                r.name, s, r.files_of, fallback_every=loop._fallback_every, clock=clock, ranks=getattr(r, "ranks", None)
            )
            for f in getattr(r, "files", []):
                loop._file_runs[f.path] = live
                for seg in f.segments:
                    loop._file_runs[seg] = live
            for m in getattr(r, "members", []):
                loop._dir_runs[os.path.abspath(m)] = live
        return loop

    @property
    def top(self) -> str | None:
        """The folder of several runs this loop follows (``many``), None for one run."""
        return self._top

    # ------------------------------------------------------------------ one-run views
    @property
    def session(self) -> Session:
        """The run's Session (one-run loops)."""
        return next(iter(self.runs.values())).session

    # ------------------------------------------------------------------ driving
    def start(self) -> None:
        self.feed.start()

    def stop(self, timeout: float = 2.0) -> None:
        self.feed.stop(timeout)

    def wait(self, timeout: float) -> None:
        """Sleep until the feed has something, or ``timeout`` (capped so that a
        pending status recomputation is not late)."""
        now = self.clock()
        for r in self.runs.values():
            if r.dirty:
                timeout = min(timeout, max(0.0, r.status_at + self.checks_every - now))
            if r.files is not None:  # the stat fallback for configs and checkpoints
                timeout = min(timeout, max(0.0, r.fallback_at + r.fallback_every - now))
            if r.session.holding():
                timeout = min(timeout, HELD_TICK)
        if self.feed.finished and not self.finished:
            return  # the next step finalizes (it needs one step without data after the end)
        # (the Tailer reads in this thread, inside its ``wait``: sources/tail/tailer.py).
        # ``ready`` is cleared before each drain (``_take``), never here: a set between this
        # wait's return and a clear here would be lost, and we would sleep the whole timeout
        self.feed.wait(timeout)

    @property
    def pending(self) -> int:
        """Batches drained from the feed but not fed yet (over a step's budget)."""
        return len(self._queue)

    def _drain_feed(self) -> None:
        self.feed.ready.clear()  # before the drain: what arrives after it sets ``ready`` again
        self._queue.extend(self.feed.drain())

    def _take(self, budget: int | None) -> list[Batch]:
        if not self._queue:
            self._drain_feed()
        if budget is None:
            out = list(self._queue)
            self._queue.clear()
            return out
        out = []
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

    def _route(self, source: str, up: LiveUpdate, continues: str | None = None) -> RunLive:
        r = self._route_cache.get(source)
        if r is not None:
            return r
        if self._top is None:
            r = next(iter(self.runs.values()))
        elif continues is not None and continues in self._route_cache:
            r = self._route_cache[continues]  # a resumed W&B run's new run dir: the same run
        else:
            r = self._file_runs.get(source) or self._new_or_known(source, up)
        if rank_of(source) is not None:
            r.add_rank(source, rank_of(source))
        self._route_cache[source] = r
        return r

    def _new_or_known(self, source: str, up: LiveUpdate) -> RunLive:
        """The run a file belongs to by the directory conventions; a run that starts
        after the watching did is created (its side files with the same rules as
        ``run_open.open_runs``: other runs' checkpoints excluded both ways)."""
        assert self._top is not None  # (_route: a directory is watched)
        root = run_root(source, self._top)
        r = self._dir_runs.get(root)  # a sibling logger's directory of a known run
        if r is not None:
            return r
        name = run_name(root, self._top)
        r = self.runs.get(name)
        if r is not None:
            return r
        if os.path.isdir(root):
            d, ckpt, searched = root, root, True
        else:  # modded-nanogpt's logs/<uuid>.txt: its checkpoints are in logs/<uuid>/
            d = ckpt = uuid_dir(root)
            searched = os.path.isdir(d)
        me = d.rstrip(os.sep) + os.sep
        below = [o.files.root for o in self.runs.values() if o.files is not None and o.files.root.startswith(me)]
        files = RunFiles(d, self._flags, self._config, exclude=below, ckpt_dir=ckpt)
        for o in self.runs.values():  # a run above this one: this run's checkpoints are not its
            if o.files is not None and d.startswith(o.files.root.rstrip(os.sep) + os.sep):
                o.files.add_exclude(d)
        info, _ = files.read_info(source, strict=False)
        info.checkpoints = files.checkpoints()
        info.checkpoint_dir_searched = searched or bool(info.checkpoints)
        s = Session(self._settings, info)
        s.set_checkpoints(info.checkpoints)
        r = self.runs[name] = RunLive(name, s, files, fallback_every=self._fallback_every, clock=self.clock)
        up.new_runs.append(name)
        return r

    def _note_run(self, note) -> str | None:
        path = getattr(note, "path", None)
        if path is None:
            return None
        r = self._route_cache.get(path) or self._file_runs.get(path)
        if r is None and self._top is None and self.runs:
            r = next(iter(self.runs.values()))
        if r is None and self._top is not None:
            root = run_root(path, self._top)
            r = self._dir_runs.get(root) or self.runs.get(run_name(root, self._top))
        return r.name if r is not None else None

    def step(self, force_status: bool = False, budget: int | None = None) -> LiveUpdate:
        """One pass (never blocks). ``budget``: at most about this many records
        are fed; the rest waits for the next step (``pending``).

        1. What the file system said changed besides the logs (a checkpoint saved, a
           config written) is applied *before* the records that came with it: the
           checkpoint saved before a failure is the one its alert names, and a config
           that appears after the start (HF writes ``config.json`` at the first save)
           changes the planned total, warm-up and model size the checks use. Without
           file system events (polling, network filesystems) the same files are
           stat-checked on a slow timer (``FALLBACK_POLL``).
        2. The records go to their run's Session (one Monitor per source file); a
           run's per-rank files feed its ranks check (one rank's series goes to the
           Session, every rank to a cheap tracker), so NaN on one rank, a diverging
           rank and a straggler are said live too.
        3. The update holds the alerts new *for the run* (one alert found in the stdout
           log, the JSONL file and the TensorBoard events, or again when
           ``trainer_state.json`` is rewritten or the primary source changes, is
           returned once), the checks' status changes and the feed's notes, each with
           its run. A loss spike at a step where another run of the sweep spiked too
           (within ``sweep.SPIKE_NEAR`` steps) says so: the data at that step, not the
           optimizer.

        The checks are recomputed only after something changed, and at most every
        ``checks_every`` seconds (``Monitor.checks()`` is the costly part of a pass),
        at once when an alert came."""
        up = LiveUpdate()
        finished_before = self.feed.finished and not self._queue
        self._side_files(up)
        now = self.clock()
        for b in self._take(budget):
            run = self._route(b.source, up, getattr(b.reader, "continues", None))
            up.batches.append(b)
            up.batch_runs.append(run.name)
            n = sum(r.n if type(r) is Frame else 1 for r in b.records)
            up.records += n
            run.records += n
            run.last_arrival = now
            run.dirty = True
            for a in run.feed(b):
                self._emit(run, a, b.backlog, up)
        for run in self.runs.values():
            for a in run.session.release_held():  # a resume's first records never wait for more
                self._emit(run, a, False, up)
                run.dirty = True
            self._primary_changed(run, up)
        up.notes = self.feed.drain_notes()
        up.note_runs = [self._note_run(e) for e in up.notes]
        for run in self.runs.values():  # what a config had that was ignored: said once
            if run.files is not None:
                for text in run.files.take_notes():
                    up.notes.append(Note(text, run.files.root))
                    up.note_runs.append(run.name)
        if self.feed.error and self.error is None:
            self.error = up.error = self.feed.error
        if finished_before and not self.finished and not up.batches and not self._queue:
            self.finished = up.finished = True
            for run in self.runs.values():
                for a in run.session.finalize():
                    self._emit(run, a, True, up)
                run.dirty = True
            force_status = True
        for run in self.runs.values():
            if run.dirty:
                for a in run.session.revisions():
                    if alert_identity(a) in run.seen:
                        up.revised.append(LiveAlert(a, True, run.name))
        now = self.clock()
        for run in self.runs.values():
            # an alert usually moves a status: recompute at once, not at the next period
            if run.dirty and (force_status or up.alerts or up.changed or now - run.status_at >= self.checks_every):
                if run.rank_dirty:
                    for a in run.rank_alerts():
                        self._emit(run, a, run.backlog, up)
                run.statuses(up, now)
        return up

    # ------------------------------------------------------------------ parts
    def _emit(self, run: RunLive, a: Alert, backlog: bool, up: LiveUpdate) -> None:
        ident = alert_identity(a)
        if ident in run.seen:
            return
        run.seen[ident] = None
        if len(run.seen) > MAX_SEEN:
            run.seen.popitem(last=False)
        if self._top is not None and (onset := spike_onset(a)) is not None:
            near: set[str] = set()
            for s in near_steps(onset):
                near |= self._spikes.get(s, set())
            mine = run.data_order()  # only runs of the same sweep (the same data order) are compared
            near = {n for n in near if n in self.runs and self.runs[n].data_order().shares_with(mine)}
            peers = sorted(near - {run.name})
            self._spikes.setdefault(onset, set()).add(run.name)  # (onset: a.step)
            for r in peers + [run.name] if peers else []:
                n = len((near | {run.name}) - {r})
                if n > self.shared_spikes.get(r, (0, 0))[1]:
                    self.shared_spikes[r] = (onset, n)
            if len(self._spikes) > MAX_SPIKE_STEPS:
                self._spikes.popitem(last=False)
            if peers:
                # a new Alert (never a change to one already said): the sweep's evidence
                a = replace(a, message=a.message + also_text(peers, a.cause))
        up.alerts.append(LiveAlert(a, backlog, run.name))

    def _primary_changed(self, run: RunLive, up: LiveUpdate) -> None:
        """A new primary source: what it found before it became primary is new
        for the run unless another file already said it."""
        if run.session.primary == run.primary:
            return
        run.primary = run.session.primary
        mon = run.session.monitor
        if mon is None:
            return
        mine = [b for b, n in zip(up.batches, up.batch_runs) if n == run.name]
        backlog = all(b.backlog for b in mine) if mine else True
        for a in list(mon.alerts):
            self._emit(run, a, backlog, up)

    def _side_files(self, up: LiveUpdate) -> None:
        changes = self.feed.drain_changes()
        if not self.runs:
            return
        if not self._queue:
            self._drain_feed()  # what is waiting decides which runs look again
        waiting = {b.source for b in self._queue}
        routed = {self._route_cache[s].name for s in waiting if s in self._route_cache}
        unrouted = any(s not in self._route_cache for s in waiting)
        every = "*" in changes
        for run in self.runs.values():
            kinds: set[str] = {"config", "checkpoint"} if every else set()
            if run.files is not None and not every:
                for p in changes:
                    k = run.files.classify(p)
                    if k and (
                        self._top is None
                        or p == run.files.root
                        or p.startswith(run.files.root.rstrip(os.sep) + os.sep)
                        or (run.files.config and os.path.abspath(p) == os.path.abspath(run.files.config))
                    ):
                        kinds.add(k)
            run.side_files(kinds, up, records_waiting=run.name in routed or (unrouted and self._top is None))
