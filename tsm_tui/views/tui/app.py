"""The live monitor: ``tsm-watch run_dir/``.

Data path: a Feed (the live Tailer, or a ReplayFeed for a finished run /
``--replay`` / ``--demo``) reads in its own thread. A thread worker drives the
one LiveLoop (the same as ``--follow``: checkpoints and configs re-read when
the file system says they changed, each alert once per run), adds the records
to the plot store and posts what changed to the app as messages: ``LiveData``
and ``ChecksChanged`` (coalesced: a newer one replaces an older one still
queued), ``NewAlerts``, ``FeedNotes`` and ``FeedEnded``. The UI repaints on
those messages, at most every ``REPAINT_EVERY`` seconds while data flows and
not at all while nothing changes (a 1 Hz timer only ages the status line).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections import deque
from dataclasses import replace

import numpy as np

from textual import work
from textual.app import App, ComposeResult, ScreenStackError
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.worker import get_current_worker

from tsm_tui.analysis.detectors import CHECKS
from tsm_tui.analysis.engine import open_run, open_runs
from tsm_tui.analysis.live import LiveLoop, alert_identity
from tsm_tui.analysis.live_open import many_runs, one_run
from tsm_tui.analysis.monitor import MAX_ALERTS
from tsm_tui.analysis.session import Session
from tsm_tui.core.frame import Frame
from tsm_tui.core.numbers import fmt
from tsm_tui.core.options import Options
from tsm_tui.core.record import Alert, CheckResult, Severity, Status
from tsm_tui.sources.feed import Feed, ReplayFeed
from tsm_tui.sources.runfiles import RunFiles
from tsm_tui.sources.tail import Tailer
from tsm_tui.views.tui.plotting import focus_plot, spark
from tsm_tui.views.tui.runs import RunRow, RunsScreen
from tsm_tui.views.tui.series import SeriesStore
from tsm_tui.views.tui.ticker import TICK_SLACK, TICK_TRUST, Ticker, changes_in
from tsm_tui.views.tui.widgets import (CHECK_IDS, HELP_KEYS, MUTED, AlertDetail, AlertList, CheckPanel, HelpScreen, PinnedAlert,
                                       safe, set_text)

PUMP_SLICE = 2048  # records added to the plot store per lock hold
FRAME_SLICE = 1 << 18  # rows of Frames joined into one plot-store extend (one lock hold, ~30 ms)
#: longest sleep of the live worker between two loop steps: new data, an event, a status or
#: a stat fallback that is due, held records and a stop wake it sooner (LiveLoop.wait) ...
LIVE_WAIT = 1.0  # ... with an exporter (--prom-file / --metrics-port: its heartbeat)
LIVE_IDLE_WAIT = 30.0  # ... without (nothing else is due: each wake-up of a quiet run costs CPU)
LIVE_BUDGET = 1 << 18  # records per loop step: a long history reaches the screen in parts
REPAINT_EVERY = 1.0  # s between two repaints (step, rate, sparklines, plot, reasons: one batch) while data flows
STATUS_EVERY = 1.0  # s: the status line's age ("3s ago") is looked at this often (redrawn when it reads differently)
#: s: the sparklines and the focus plot are redrawn at most this often while data keeps coming
#: (Textual's compositor is most of the UI's cost: bench/RESULTS.md 7d); the status line's step,
#: rate and age every REPAINT_EVERY; an alert, a status change, a key and the run's end at once
PLOT_EVERY = 2.0
WINDOWS = (None, 1000, 200)  # whole run, last 1000, last 200 steps
RATE_HORIZON = 10.0  # s: steps/s is measured over the records that arrived this recently
STALL_MIN = 60.0  # s; stalled = no record for > max(STALL_MIN, 10 x median interval)
MESSAGE_EVERY = 1.0  # s: LiveData / ChecksChanged posted at most this often (alerts and status changes at once;
#                     the status line is redrawn once a second, check reasons every CHECKS_EVERY)
CHECKS_EVERY = 3.0  # s between check-reason repaints (their counts; a status change repaints at once)
SHORT_SCREEN = 36  # rows: below this an open alert detail takes the checks panel's place
LABELS = dict(SeriesStore.METRICS)


class LiveData(Message):
    """Records were fed: ``total`` so far (a newer message replaces an older one)."""

    def __init__(self, total: int, at: float, written: float | None = None, exit_code: int | None = None) -> None:
        super().__init__()
        self.total, self.at = total, at
        #: wall clock: when the run wrote the newest record so far (see ``written_at``)
        self.written = written
        #: the exit code the run's tracker recorded (Session.exit_code), None while none did
        self.exit_code = exit_code

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LiveData)


class NewAlerts(Message):
    """Alerts new for the run, in order (never coalesced); ``runs``: the run of each."""

    def __init__(self, alerts: list[Alert], runs: list[str] | None = None) -> None:
        super().__init__()
        self.alerts = alerts
        self.runs = runs or [""] * len(alerts)


class AlertsRevised(Message):
    """Alerts said before that read differently now (a recovered spike's onset
    alert without its conditional rollback); matched by identity, never coalesced."""

    def __init__(self, alerts: list[Alert], runs: list[str]) -> None:
        super().__init__()
        self.alerts = alerts
        self.runs = runs


class RunsUpdate(Message):
    """Several runs: what changed per run since the last one (checks recomputed,
    records arrived: run -> (time, last step, when the run wrote them, live),
    loss spikes shared with other runs: run -> (step, other runs))."""

    def __init__(self, checks: dict[str, list[CheckResult]], arrivals: dict[str, tuple],
                 shared: dict[str, tuple[int, int]] | None = None) -> None:
        super().__init__()
        self.checks, self.arrivals, self.shared = checks, arrivals, shared or {}


def written_at(batches, wall: float, history: bool = False) -> tuple[float, bool]:
    """When a run wrote the newest of these records (wall clock) and whether they were
    written while watching: the records' own timestamp when they carry one, else the
    arrival of live records, else (history read at the start, a finished run's
    replay: ``history``) the file's mtime."""
    live = not history and any(not b.backlog for b in batches)
    best = None
    for b in batches:
        last = b.records[-1] if b.records else None
        if last is None:
            continue
        if type(last) is Frame:
            col = last.get("time")
            v = float(col[-1]) if col is not None and len(col) else None
        else:
            v = last.time
        if v is not None and 1e9 < v < wall + 86400:  # an epoch timestamp (not seconds since the start)
            best = v if best is None else max(best, v)
    if best is not None:
        return best, live
    if live:
        return wall, True
    times = []
    for b in batches:
        try:
            times.append(os.stat(b.source).st_mtime)
        except OSError:
            pass
    return (max(times) if times else wall), False


class ChecksChanged(Message):
    """The checks as recomputed (a newer message replaces an older one)."""

    def __init__(self, checks: list[CheckResult]) -> None:
        super().__init__()
        self.checks = checks

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ChecksChanged)


class FeedNotes(Message):
    """Notes about the files (truncated, rotated, unreadable ...)."""

    def __init__(self, notes: list[str]) -> None:
        super().__init__()
        self.notes = notes


class FeedEnded(Message):
    """The feed finished (everything drained, the monitor finalized), or its
    worker died (``error``: shown, never silent)."""

    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


class FocusPlot(Static):
    """The focus plot: tells the app when its size changed, so it is redrawn at
    the new size (the screen did not resize when a fourth sparkline made it shorter)."""

    def on_resize(self) -> None:
        if hasattr(self.app, "plot_resized"):
            self.app.plot_resized()


def _locked(method):
    """Run a UI method holding the plot store's lock (the live worker adds to it)."""
    def wrapper(self, *a, **kw):
        with self._lock:
            return method(self, *a, **kw)
    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class TsmApp(App):
    """tsm-watch's dashboard. Build it with :meth:`from_options`, or directly with a
    Session and a Feed (tests)."""

    CSS_PATH = "app.tcss"
    TITLE = "tsm-watch"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    # a short screen: the checks that say nothing (SKIP) leave their rows to the alerts and to
    # the checks below them (app.tcss)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_SCREEN, "-tall")]
    AUTO_FOCUS = "#alerts"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("question_mark", "help", "Help"),
        Binding("p", "pause", "Pause"),
        Binding("f", "follow", "Follow"),
        Binding("slash", "filter", "Filter"),
        Binding("l", "log_scale", "Log"),
        Binding("m", "next_metric", "Metric"),
        Binding("w", "cycle_window", "Window"),
        Binding("c", "critical", "FAIL detail", show=False),
        Binding("escape", "back", "Back", show=False),
        Binding("pagedown", "detail_scroll(1)", "Scroll", show=False, priority=True),
        Binding("pageup", "detail_scroll(-1)", show=False, priority=True),
        Binding("right_square_bracket", "detail_scroll(1)", show=False),
        Binding("left_square_bracket", "detail_scroll(-1)", show=False),
        *[Binding(str(i), f"metric({i - 1})", show=False) for i in range(1, 6)],
    ]

    exporter = None  # set by run_app for --prom-file / --metrics-port
    wall = staticmethod(time.time)  # the wall clock (when runs wrote their records; tests replace it)

    def __init__(self, session: Session, feed: Feed, *, path: str = "", mode: str = "live",
                 bell: bool = True, root: str | None = None, files: RunFiles | None = None,
                 clock=time.monotonic, live: LiveLoop | None = None, runs: list | None = None,
                 notes: list[str] | None = None) -> None:
        """``notes``: what the run's configs had that was ignored, when no live loop
        re-reads them (a finished run or a replay): shown once at the start."""
        super().__init__()
        self._start_notes = list(notes or [])
        self.session = session
        self.feed = feed
        self.path = path
        self.mode = mode  # "live" | "finished" | "replay"
        self.bell_on = bell
        self.root = root
        self.clock = clock
        if files is None and root and mode == "live":
            files = RunFiles(root, session.info)
        self.live = live or LiveLoop(session, feed, files,
                                     polling=getattr(feed, "poll_interval", None) is not None, clock=clock)
        # checks reach the screen at most every MESSAGE_EVERY (a status move at once, with its
        # alert): recomputing them more often only wakes the worker
        self.live.status_every = MESSAGE_EVERY
        # several runs under PATH: the runs screen first, Enter opens a run's dashboard
        self.runs_mode = live is not None and live._top is not None
        self.top = path
        self.run_rows: dict[str, RunRow] = {}
        self.current_run: str | None = None
        self._run_alerts: dict[str, deque] = {}
        self._run_checks: dict[str, list[CheckResult]] = {}
        self._run_paths: dict[str, str] = {}
        self._run_prev: dict[str, dict[str, Status]] = {}
        self._runs_pending: tuple[dict, dict] = ({}, {})
        self._shared_seen: dict[str, tuple[int, int]] = {}
        self._runs_posted_at = -1e9
        for r in runs or []:
            self._add_run(r.name, r.path)
        self.stores: dict[str, SeriesStore] = {}
        self.formats: dict[str, str] = {}
        # view state
        self.paused = False
        self.log_scale = False
        self.metric = "loss"
        self.window_i = 0
        self.centre: int | None = None  # focus plot centred on an alert's step
        self.filter_text = ""
        # bookkeeping
        self.loaded = False  # the feed finished and everything was drained
        self.records_seen = 0
        self.pending_while_paused = 0
        self.feed_error: str | None = None
        self.exit_code: int | None = None  # the run's tracker recorded its exit (LiveData)
        self._all_alerts: deque[Alert] = deque(maxlen=MAX_ALERTS)
        self._prev_status: dict[str, Status] = {}
        self._checks: list[CheckResult] = []
        self._last_arrival: float | None = None
        self._arrivals: deque[float] = deque(maxlen=64)
        self._rate: deque[tuple[float, int]] = deque(maxlen=64)
        self._plot_dirty = True
        self._plot_at = -1e9
        self._plot_key: tuple | None = None  # what the focus plot on screen was drawn from
        self._sparks_key: tuple | None = None  # ... and the sparklines
        self._checks_at = 0.0
        self._shown_statuses: list[Status] = []
        self._repaint_at = -1e9
        self._repaint_pending = False
        self._age_ticker = Ticker(self, self._age_status)  # armed for when the age can next read differently
        self.bells = 0  # rung so far (tests)
        # the plot stores are written by the live worker and read by the UI
        self._lock = threading.RLock()
        self._fed = 0  # records added to the plot stores so far (live worker)
        self._written: float | None = None  # when the run wrote its newest record (live worker)
        self._last_write: float | None = None  # ... as the UI knows it (wall clock)
        self._live_stop = threading.Event()
        self._posted_at: dict[str, float] = {}  # live worker: when each kind of message was last posted
        self._held: dict[str, Message] = {}  # ... and the newest one held back
        self._posted_statuses: list[Status] = []
        self._replay_ckpts: dict[str, list] = {}  # a replay's checkpoints, all of them (live worker)

    def get_driver_class(self):
        """Textual's driver for this terminal; on Linux the one whose input thread
        does not wake ten times a second (views/tui/driver.py)."""
        cls = super().get_driver_class()
        if cls.__name__ == "LinuxDriver" and cls.__module__ == "textual.drivers.linux_driver":
            from tsm_tui.views.tui.driver import QuietLinuxDriver

            return QuietLinuxDriver
        return cls

    # ------------------------------------------------------------ construction
    @classmethod
    def finished(cls, path: str, shown: str | None = None) -> "TsmApp":
        """The app on a finished run, read at once and without the bell
        (screenshots, snapshot tests)."""
        return cls.from_options(Options(path=path, bell=False), mode="finished", shown=shown)

    @classmethod
    def from_options(cls, opts: Options, *, demo: str | None = None, mode: str | None = None,
                     shown: str | None = None) -> "TsmApp":
        """The app for what the command line asked (``demo``: the bundled run's path)."""
        if opts.demo and not opts.path:
            opts.path = demo
        runs = open_runs(opts.path, opts.info, opts.config, allow_empty=True, only=opts.run)
        if len(runs) > 1:
            return cls._for_runs(opts, runs, mode, shown)
        info = opts.fresh_info()
        run = open_run(runs[0].path if opts.run else opts.path, info, opts.config, allow_empty=True)
        if mode == "finished":
            feed: Feed = ReplayFeed(run.readers, speed=None)
        elif opts.replay or opts.demo:
            feed, mode = ReplayFeed(run.readers, speed=opts.speed or 50.0), "replay"
        else:
            feed, mode = Tailer(run.path, poll=opts.poll), "live"
        if shown is None:
            shown = run.path
            if opts.demo and demo and os.path.samefile(run.path, demo):
                shown = "--demo (bundled run)"
        live = one_run(run, opts, feed, name="", files=mode == "live")  # (its per-rank files too)
        return cls(live.runs[""].session, feed, path=shown, mode=mode, bell=opts.bell and mode != "finished",
                   root=run.root, live=live,
                   notes=run.files_of.notes if mode != "live" and run.files_of is not None else None)

    @classmethod
    def _for_runs(cls, opts: Options, runs: list, mode: str | None, shown: str | None) -> "TsmApp":
        readers = {p: r for run in runs for p, r in run.readers.items()}
        if mode == "finished":
            feed: Feed = ReplayFeed(readers, speed=None)
        elif opts.replay or opts.demo:
            feed, mode = ReplayFeed(readers, speed=opts.speed or 50.0), "replay"
        else:
            feed, mode = Tailer(opts.path, poll=opts.poll), "live"
        path = os.path.abspath(opts.path)
        live = many_runs(opts, feed, path, known=runs)
        first = live.runs[runs[0].name].session
        return cls(first, feed, path=shown or path, mode=mode, bell=opts.bell and mode != "finished",
                   root=path, live=live, runs=runs)

    def _add_run(self, name: str, path: str | None = None) -> None:
        if name not in self.run_rows:
            self.run_rows[name] = RunRow(name)
            self._run_alerts[name] = deque(maxlen=MAX_ALERTS)
            self._run_paths[name] = path or os.path.join(self.top, name)

    def open_run(self, name: str) -> None:
        """Show this run's dashboard (the runs screen's Enter)."""
        if name not in self.live.runs:
            return
        self.current_run = name
        self.session = self.live.runs[name].session
        self.path = self._run_paths.get(name, name)
        self._all_alerts = self._run_alerts[name]
        self._checks = self._run_checks.get(name, [])
        row = self.run_rows[name]
        self._last_arrival = row.last_arrival
        self._last_write = row.last_write
        self.exit_code = row.exit_code
        self._arrivals = deque(row.arrivals, maxlen=64)
        self._rate = deque(row.rate, maxlen=64)
        self.centre = None
        self._shown_statuses = []
        self._plot_key = self._sparks_key = None
        self._plot_dirty = True
        if isinstance(self.screen, RunsScreen):
            self.pop_screen()
        self.query_one(AlertDetail).show(None)
        self._show_alerts([], True)
        # never the previous run's checks: a run with none yet shows every check waiting
        shown = {c.id for c in self._checks}
        self._checks = list(self._checks) + [CheckResult(cid, cid, Status.SKIP, "waiting for data")
                                             for cid in CHECK_IDS if cid not in shown]
        self._show_checks(self.clock())
        self._checks = self._run_checks.get(name, [])
        self.repaint(force=True)

    def on_runs_screen_open(self, message: RunsScreen.Open) -> None:
        self.open_run(message.name)

    def show_runs(self) -> None:
        """The runs screen: one instance for the app's life (installed), so Esc back from a
        run's dashboard finds its filter, order and cursor as they were left."""
        if self.runs_mode and not isinstance(self.screen, RunsScreen):
            if not self.is_screen_installed("runs"):
                self.install_screen(RunsScreen(self.run_rows, path=self.top, clock=self.clock, wall=self.wall,
                                               live=self.mode == "live"), "runs")
            self.push_screen("runs")

    #: the dashboard's own actions: on the runs screen they do nothing, so they are neither
    #: offered in its footer nor run by their keys there
    DASHBOARD_ACTIONS = frozenset({"pause", "follow", "filter", "log_scale", "next_metric", "metric", "cycle_window",
                                   "critical", "detail_scroll", "back", "help"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        try:
            screen = self.screen
        except ScreenStackError:
            return True
        if action in self.DASHBOARD_ACTIONS and not self._on_dashboard(screen):
            return False
        return True

    def _on_dashboard(self, screen) -> bool:
        """The dashboard is the screen shown (not the runs screen, a help screen, the palette)."""
        return screen is self.screen_stack[0] if self.screen_stack else True

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="statusbar"):
            yield Label(id="state")
            yield Label(id="status")
        with Horizontal(id="body"):
            with Vertical(id="plots"):
                yield Static(id="sparks")
                yield FocusPlot(id="focus")
            with Vertical(id="side"):
                yield CheckPanel(id="checks")
                yield PinnedAlert(id="pinned")
                yield Input(placeholder="filter alerts (Enter: keep, Esc: clear)", id="filter")
                yield AlertList(id="alerts")
                yield AlertDetail(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sparks").border_title = "metrics"
        self.query_one("#focus").border_title = "loss"
        self.query_one("#checks").border_title = "checks"
        self.query_one("#alerts").border_title = "alerts"
        self.query_one("#detail").border_title = "alert"
        self._live_worker()
        self._age_ticker.arm(STATUS_EVERY)
        if self.runs_mode:
            self.current_run = next(iter(self.run_rows), None)
            if self.current_run is not None:
                self._all_alerts = self._run_alerts[self.current_run]
            self.show_runs()
        self.repaint(force=True)

    def on_unmount(self) -> None:
        self._age_ticker.stop()
        self._live_stop.set()
        self.feed.ready.set()
        self.live.stop(timeout=1.0)

    # ------------------------------------------------------------ the live worker (a thread)
    @work(thread=True, exclusive=True, group="live", exit_on_error=False)
    def _live_worker(self) -> None:
        """Drive the LiveLoop off the UI thread (a 1M-step history is seconds of
        detector work; the UI keeps answering keys meanwhile) and post what
        changed. Only the plot store is shared with the UI, under a lock held
        for one slice at a time."""
        loop = self.live
        worker = get_current_worker()
        try:
            if self._start_notes:
                self._post(FeedNotes(self._start_notes))
            loop.start()
            while not self._live_stop.is_set() and not worker.is_cancelled:
                up = loop.step(budget=LIVE_BUDGET)
                if self.mode == "replay":
                    self._replay_checkpoints(loop, up.finished)
                if self.exporter is not None:  # --prom-file / --metrics-port (views/prometheus.py)
                    self.exporter.feed(up, loop)
                self._add_to_store(up.batches)
                if up.batches:
                    if not self.runs_mode:
                        w, _ = written_at(up.batches, self.wall(), history=self.mode != "live")
                        self._written = w if self._written is None else max(self._written, w)
                    code = None if self.runs_mode else loop.session.exit_code()
                    self._post_held("data", LiveData(self._fed, self.clock(), self._written, code))
                if up.alerts:
                    self._post(NewAlerts([la.alert for la in up.alerts], [la.run for la in up.alerts]))
                if up.revised:
                    self._post(AlertsRevised([la.alert for la in up.revised], [la.run for la in up.revised]))
                if self.runs_mode:
                    self._runs_step(up, loop)
                elif up.checks is not None:
                    statuses = [c.status for c in up.checks]
                    self._post_held("checks", ChecksChanged(up.checks), urgent=statuses != self._posted_statuses)
                    self._posted_statuses = statuses
                self._flush_held()
                if up.notes:
                    self._post(FeedNotes(up.notes))
                if up.finished or up.error:
                    self._flush_held(now=True)  # the last data and checks before the end, never after
                    self._post(FeedEnded(up.error))
                    if up.error:
                        return
                if not up.batches or not loop.pending:
                    # data, a due status / stat fallback / held record and a stop wake it
                    # sooner (LiveLoop.wait); an exporter writes its heartbeat every second
                    wait = LIVE_WAIT if self.exporter is not None else LIVE_IDLE_WAIT
                    if self._held or any(self._runs_pending):
                        wait = min(wait, MESSAGE_EVERY)
                    loop.wait(wait)
        except Exception as e:  # noqa: BLE001 - shown on screen, never silent
            self._post(FeedEnded(f"{type(e).__name__}: {e}"))

    def _replay_checkpoints(self, loop, finished: bool) -> None:
        """A replay shows what was known at the step it plays: the checkpoints saved by
        then (``Checkpoints @1500`` at step 253 read the future); all of them once it
        ended, as the report has them. Live worker thread."""
        for name, run in loop.runs.items():
            s = run.session
            full = self._replay_ckpts.setdefault(name, list(s.info.checkpoints))
            mon = s.monitor
            last = mon.state.last_step if mon is not None else None
            known = full if finished else [c for c in full if last is not None and c[0] <= last]
            if known != s.info.checkpoints:
                s.set_checkpoints(known)

    def _runs_step(self, up, loop) -> None:
        """Several runs: per-run checks and arrivals, posted at most every MESSAGE_EVERY
        (at once when a status moved)."""
        checks, arrivals = self._runs_pending
        checks.update(up.run_checks)
        now = self.clock()
        wall = self.wall()
        by_run: dict[str, list] = {}
        for b, name in zip(up.batches, up.batch_runs):
            by_run.setdefault(name, []).append(b)
        for name in set(up.batch_runs) | set(up.new_runs):
            mon = loop.runs[name].session.monitor
            written, live = (written_at(by_run[name], wall, history=self.mode != "live") if name in by_run
                             else (None, False))
            prev = arrivals.get(name)
            if prev is not None and prev[2] is not None and (written is None or prev[2] > written):
                written = prev[2]
            arrivals[name] = (now, mon.state.last_step if mon is not None else None, written,
                              live or bool(prev and prev[3]),
                              mon.state.info.total_steps if mon is not None else None,
                              loop.runs[name].session.exit_code())
        shared = {k: v for k, v in loop.shared_spikes.items() if self._shared_seen.get(k) != v}
        urgent = bool(up.statuses or up.new_runs or up.finished or shared)
        if (checks or arrivals or shared) and (urgent or now - self._runs_posted_at >= MESSAGE_EVERY):
            self._runs_posted_at = now
            self._runs_pending = ({}, {})
            self._shared_seen.update(shared)
            self._post(RunsUpdate(checks, arrivals, shared))

    def _post(self, message: Message) -> None:
        if not self._live_stop.is_set():
            self.post_message(message)

    def _post_held(self, key: str, message: Message, urgent: bool = False) -> None:
        """Post at most every MESSAGE_EVERY seconds per kind (a job logging 10
        lines/s would otherwise wake the UI 15 times a second for a screen that
        is redrawn once); what is held is posted by ``_flush_held`` when due.
        ``urgent`` (a check's status moved) goes at once."""
        now = self.clock()
        if urgent or now - self._posted_at.get(key, -1e9) >= MESSAGE_EVERY:
            self._posted_at[key] = now
            self._held.pop(key, None)
            self._post(message)
        else:
            self._held[key] = message

    def _flush_held(self, now: bool = False) -> None:
        for key, message in list(self._held.items()):
            self._post_held(key, message, urgent=now)

    def _add_to_store(self, batches) -> None:
        """The step's batches into the plot stores (consecutive batches of one
        source are joined: see ``_slices``)."""
        i = 0
        while i < len(batches):
            b = batches[i]
            records = b.records
            j = i + 1
            while j < len(batches) and batches[j].source == b.source and batches[j].reader is b.reader:
                if j == i + 1:
                    records = list(records)
                records += batches[j].records
                j += 1
            i = j
            for part in _slices(records):
                with self._lock:
                    store = self.stores.get(b.source)
                    if store is None:
                        store = self.stores[b.source] = SeriesStore()
                    n = 0
                    for it in part:
                        if type(it) is Frame:
                            store.add_frame(it)
                            n += it.n
                        else:
                            store.add(it)
                            n += 1
                    self.formats[b.source] = getattr(b.reader, "name", "?")
                    self._fed += n
                if self._live_stop.is_set():
                    return

    def plot_resized(self) -> None:
        """The focus plot's own size changed (a sparkline added above it, a resize)."""
        self._plot_dirty = True
        self.call_after_refresh(self._repaint_plots, True)

    def on_resize(self) -> None:
        self._plot_dirty = True
        self._fit_side()
        self.call_after_refresh(self._show_pinned)  # rewrapped to the pane's new width
        self.call_after_refresh(self._repaint_plots, True)

    # ------------------------------------------------------------ messages from the worker
    def on_live_data(self, message: LiveData) -> None:
        n = message.total - self.records_seen
        if n <= 0:
            return
        self.records_seen = message.total
        now = self.clock()
        if self.runs_mode:
            self._plot_dirty = True
            if not isinstance(self.screen, RunsScreen):
                self.repaint()
            return
        if self._last_arrival is not None:
            self._arrivals.append(now - self._last_arrival)
        self._last_arrival = now
        if message.written is not None:
            self._last_write = message.written
        if message.exit_code is not None:
            self.exit_code = message.exit_code
        last = self._last_step()
        if last is not None:
            self._rate.append((now, last))
        self._plot_dirty = True
        if self.paused:
            self.pending_while_paused += n
        self.repaint()

    def on_new_alerts(self, message: NewAlerts) -> None:
        if self.runs_mode:
            mine = []
            for a, run in zip(message.alerts, message.runs):
                self._add_run(run)
                self._run_alerts[run].append(a)
                self.run_rows[run].newest = a
                if a.severity.value == "critical":
                    self.run_rows[run].newest_critical = a
                if run == self.current_run:
                    mine.append(a)
            if mine and not self.paused and not isinstance(self.screen, RunsScreen):
                self._show_alerts(mine, False)
            return
        self._all_alerts.extend(message.alerts)
        if not self.paused:
            self._show_alerts(message.alerts, False)

    def on_alerts_revised(self, message: AlertsRevised) -> None:
        """Re-read alerts in place: the stored copy takes the new actions (its message
        may carry the sweep's "also in N other runs", which the revision lacks)."""
        for new, run in zip(message.alerts, message.runs):
            store = self._run_alerts.get(run) if self.runs_mode else self._all_alerts
            if not store:
                continue
            ident = alert_identity(new)
            for i, old in enumerate(store):
                if alert_identity(old) == ident:
                    store[i] = replace(old, actions=list(new.actions))
                    if not self.runs_mode or run == self.current_run:
                        self.query_one(AlertList).revise(old, store[i])
                        detail = self.query_one(AlertDetail)
                        if detail.has_class("-open") and detail.alert is old:
                            detail.show(store[i], keep_scroll=True)
                    break
        self._show_pinned()

    def on_runs_update(self, message: RunsUpdate) -> None:
        rang = False
        for name, (_t, step, written, live, planned, exit_code) in message.arrivals.items():
            self._add_run(name)
            row = self.run_rows[name]
            row.planned = planned
            row.exit_code = exit_code
            row.arrived(self.clock(), step, written, live and self.mode == "live")
        for name, shared in message.shared.items():
            self._add_run(name)
            self.run_rows[name].shared = shared
        for name, checks in message.checks.items():
            self._add_run(name)
            self._run_checks[name] = checks
            row = self.run_rows[name]
            row.checks = {c.id: c for c in checks}
            prev = self._run_prev.setdefault(name, {})
            for c in checks:
                if c.status == Status.FAIL and prev.get(c.id) != Status.FAIL and not rang:
                    rang = True
                    self.bells += 1
                    if self.bell_on:
                        self.bell()
                prev[c.id] = c.status
        cur = self.current_run
        if cur in message.arrivals:
            row = self.run_rows[cur]
            self._last_arrival, self._arrivals, self._rate = row.last_arrival, deque(row.arrivals, maxlen=64), \
                deque(row.rate, maxlen=64)
            self._last_write = row.last_write
            self._plot_dirty = True
        if cur in message.checks:
            self._checks = message.checks[cur]
        if isinstance(self.screen, RunsScreen):
            self.screen.refresh_rows()
        else:
            self.repaint()

    def on_checks_changed(self, message: ChecksChanged) -> None:
        self._ring_on_new_fail(message.checks)
        self._checks = message.checks
        if not self.paused and [c.status for c in message.checks] != self._shown_statuses:
            self._show_checks(self.clock())  # a status change is news: at once, not at the next repaint
        else:
            self.repaint()

    def on_feed_notes(self, message: FeedNotes) -> None:
        for ev in message.notes:
            self.notify(safe(ev, 300), title="feed", markup=False, severity="warning")

    def on_feed_ended(self, message: FeedEnded) -> None:
        if message.error:
            self.feed_error = message.error
            self.notify(safe(f"reading the run stopped: {message.error}", 300), title="feed",
                        markup=False, severity="error", timeout=3600)
        else:
            self.loaded = True
            self._checks_at = -CHECKS_EVERY  # show the final reasons now, not at the next 1 Hz repaint
            self._plot_dirty = True
        self.repaint(force=True)

    # ------------------------------------------------------------ repainting
    def repaint(self, force: bool = False) -> None:
        """Repaint what the data changed, at most every REPAINT_EVERY seconds."""
        if not self.is_running:
            return
        self._age_ticker.arm(STATUS_EVERY)  # the data moved: the age counts again from here
        now = self.clock()
        wait = self._repaint_at + REPAINT_EVERY - now
        if not force and wait > 0:
            self._repaint_later(wait)
            return
        self._repaint_at = now
        try:
            self._repaint(now)
        except NoMatches:  # the screen is being torn down (quit in progress)
            pass

    def _repaint_later(self, wait: float) -> None:
        if not self._repaint_pending:
            self._repaint_pending = True
            self.set_timer(max(0.01, wait), self._deferred_repaint)

    def _deferred_repaint(self) -> None:
        self._repaint_pending = False
        self.repaint(force=True)

    def _age_status(self) -> None:
        """The status line's age and "stalled" move with the clock, not with data
        (the text is rebuilt; the screen only when it reads differently). Re-armed for
        when they can next read differently; data, a resume and a run opened re-arm it
        sooner."""
        try:
            screen = self.screen
        except ScreenStackError:  # the app is being torn down
            return
        if isinstance(screen, RunsScreen):
            return  # the runs screen keeps its own ages (RunsScreen.tick); open_run re-arms this
        if self.mode != "live" or self._last_arrival is None or self.paused:
            return  # nothing here moves with the clock: data or a resume re-arms
        now = self.clock()
        if now - self._repaint_at >= STATUS_EVERY * 0.9:  # (a repaint just drew it)
            try:
                self._update_status(now)
            except NoMatches:
                return
        self._age_ticker.arm(self._status_changes_in(now))

    def _status_changes_in(self, now: float) -> float:
        """Seconds until the status line can read differently with no new data: its
        age (``_ago``), the rate's horizon, the turn to "stalled" or "done"."""
        idle = self.idle_for(now)
        if idle is None or self._last_arrival is None or now - self._last_arrival < RATE_HORIZON + 1:
            return STATUS_EVERY
        due = _ago_changes_in(idle)
        if self.stalled_for(now) is None:
            med = statistics.median(self._arrivals) if self._arrivals else 0.0
            for turn in (STALL_MIN, max(STALL_MIN, 10 * med)):
                if idle < turn:
                    due = min(due, turn - idle)
        return min(TICK_TRUST, max(STATUS_EVERY, due + TICK_SLACK))

    def _repaint(self, now: float) -> None:
        if self.paused:
            self._update_status(now)
            return
        with self.batch_update():
            self._update_status(now)
            # reasons carry counts that change all the time: repaint them at 1 Hz, a status change at once
            if self._checks and now - self._checks_at >= CHECKS_EVERY:
                self._show_checks(now)
            self._repaint_plots()

    def _show_checks(self, now: float) -> None:
        self._shown_statuses, self._checks_at = [c.status for c in self._checks], now
        self.query_one(CheckPanel).show(self._checks)
        self._show_pinned()

    def _ring_on_new_fail(self, checks: list[CheckResult]) -> None:
        rang = False
        for c in checks:
            before = self._prev_status.get(c.id)
            if c.status == Status.FAIL and before != Status.FAIL and not rang:
                rang = True
                self.bells += 1
                if self.bell_on:
                    self.bell()
            self._prev_status[c.id] = c.status

    def _matches(self, a: Alert) -> bool:
        if not self.filter_text:
            return True
        f = self.filter_text.lower()
        return f in a.check.lower() or f in a.message.lower() or f in a.severity.value or \
            any(f in x.lower() for x in a.actions) or (a.step is not None and f == str(a.step))

    def _show_alerts(self, new: list[Alert], rebuilt: bool, force: bool = False) -> None:
        lst = self.query_one(AlertList)
        following = self.centre is None and not self.query_one(AlertDetail).has_class("-open")
        if rebuilt or force:
            lst.set_alerts([a for a in self._all_alerts if self._matches(a)], follow=following)
        elif new:
            lst.append_alerts([a for a in new if self._matches(a)], follow=following)
        title = f"alerts ({len(lst.alerts)}" + (f" of {len(self._all_alerts)}, filter: "
                                                        f"{safe(self.filter_text, 30)})" if self.filter_text else ")")
        if lst.border_title != title:
            lst.border_title = title
        self._show_pinned()

    def _newest_critical(self) -> Alert | None:
        for a in reversed(self._all_alerts):
            if a.severity == Severity.CRITICAL:
                return a
        return None

    def _show_pinned(self) -> None:
        """The newest critical alert pinned above the list, its first action under it
        (hidden while a detail is open: that shows it, or what the user chose); on a
        short screen with a FAIL the checks that pass fold into one line."""
        try:
            pin = self.query_one(PinnedAlert)
            detail = self.query_one(AlertDetail)
            panel = self.query_one(CheckPanel)
        except NoMatches:  # the screen is being torn down
            return
        a = None if detail.has_class("-open") else self._newest_critical()
        short = self.size.height < SHORT_SCREEN
        pin.show(a, lines=2 if short else 3)
        panel.set_compact(short and (a is not None or panel.failing()))

    # ------------------------------------------------------------ status line
    def _last_step(self) -> int | None:
        store = self._store()
        return store.last_step if store else None

    def _store(self) -> SeriesStore | None:
        p = self.session.primary
        return self.stores.get(p) if p else None

    def idle_for(self, now: float | None = None) -> float | None:
        """Seconds since the run wrote its last record: the records' own time or the
        file's mtime for the history read at the start (a run that wrote its last line
        three hours ago is three hours quiet, not "3s ago"), else since it arrived."""
        if self._last_write is not None:
            return max(0.0, self.wall() - self._last_write)
        if self._last_arrival is None:
            return None
        return (self.clock() if now is None else now) - self._last_arrival

    def run_done(self) -> bool:
        """The run reached the steps its config planned (Lightning's last 0-based step
        is planned - 1), or a tracker recorded its normal exit: quiet since is not a stall."""
        if self.run_ended() == "done" or self.exit_code == 0:
            return True
        mon = self.session.monitor if self.session is not None else None
        planned = mon.state.info.total_steps if mon is not None else None
        last = self._last_step()
        return bool(planned) and last is not None and last >= planned - 1

    def run_ended(self) -> str | None:
        """How the run's text says it ended (the crash check): ``crashed`` (its last lines
        are a crash), ``stopped`` (on purpose), ``done``, or None."""
        c = next((c for c in self._checks if c.id == "crash"), None)
        return c.tag if c is not None else None

    def stalled_for(self, now: float | None = None) -> float | None:
        """Seconds without a record when that counts as stalled (following a live run;
        a run that crashed is dead, not stalled)."""
        if self.mode != "live" or self._last_arrival is None or self.run_done() or self.run_ended():
            return None
        idle = self.idle_for(now)
        if idle is None:
            return None
        med = statistics.median(self._arrivals) if self._arrivals else 0.0
        return idle if idle > max(STALL_MIN, 10 * med) else None

    def steps_per_s(self, now: float) -> float | None:
        if len(self._rate) < 2:
            return None
        horizon = [(t, s) for t, s in self._rate if now - t <= RATE_HORIZON]
        if len(horizon) < 2:
            return 0.0
        (t0, s0), (t1, s1) = horizon[0], horizon[-1]
        return (s1 - s0) / (t1 - t0) if t1 > t0 and s1 >= s0 else None

    def _state_text(self, now: float) -> tuple[str, str]:
        """The state word and its class: what the view is doing, first on the line."""
        if self.feed_error:  # the feed died: nothing is followed any more, whatever else holds
            return f"STOPPED: {safe(self.feed_error, 60)}", "-stalled"
        stalled = self.stalled_for(now)
        if self.paused:
            return "PAUSED" + (f" +{self.pending_while_paused}" if self.pending_while_paused else ""), "-paused"
        if stalled is not None:
            return f"stalled {_ago(stalled)}", "-stalled"
        ended = self.run_ended() if self.mode == "live" else None
        if ended == "crashed":
            return "crashed", "-crashed"
        if ended == "stopped":
            return "stopped", "-stalled"
        if self.centre is not None:
            return f"at step {self.centre}", "-inspect"
        if self.mode == "finished":
            return ("finished" if self.loaded else "loading"), ""
        if self.mode == "replay":
            return ("replay done" if self.loaded else "replaying"), ""
        idle = self.idle_for(now)
        if self.exit_code not in (None, 0):
            return f"exited {self.exit_code}", "-stalled"  # the tracker recorded a failed exit
        if self.run_done() and idle is not None and (idle > STALL_MIN or self.exit_code is not None):
            return "done", ""  # reached its planned steps (or exited) and quiet since
        return "following", ""

    @_locked
    def _update_status(self, now: float) -> None:
        """``following  step 2051  9.8/s  2s ago  ~/runs/…/hf  trainer_state.json (hf)``: the
        state, the step and the age first (the facts that matter at 3 a.m.), then
        the run, its path elided in the middle to what is left of the line."""
        text, cls = self._state_text(now)
        state = self.query_one("#state", Label)
        for c in ("-paused", "-stalled", "-inspect", "-crashed"):
            state.set_class(c == cls, c)
        shown = getattr(state, "_tsm_shown", None)
        if shown is None or shown.plain != text:
            state._tsm_shown = Content(text)
            state.update(state._tsm_shown, layout=shown is None or len(shown.plain) != len(text))  # auto width
        last = self._last_step()
        parts: list = [("step ", MUTED), ("-" if last is None else str(last), "bold")]
        if self.mode != "finished":
            rate = self.steps_per_s(now)
            if rate is not None:
                parts += [f"  {rate:.1f}/s"]
            idle = self.idle_for(now) if self.mode == "live" else None
            if idle is not None:
                parts += [f"  {_ago(idle)} ago"]
        head = Content.assemble(*parts)
        fm = ""
        if self.formats:
            fm = next((f"{safe(os.path.basename(p), 60)} ({safe(n, 20)})" for p, n in self.formats.items()
                       if p == self.session.primary), "")
            extra = (len(self.session.monitors) if self.runs_mode else len(self.formats)) - 1
            fm += f" +{extra}" if extra > 0 else ""
        label = self.query_one("#status", Label)
        room = (label.content_size.width or max(20, self.size.width - 16)) - len(head.plain) - 2
        path = safe(_short_path(self.path), 200)
        if fm and room < len(path) + 2 + len(fm):
            fm = _elide_middle(fm, max(0, min(len(fm), room - min(len(path), 16) - 2)))
        path = _elide_middle(path, max(0, room - (len(fm) + 2 if fm else 0)))
        tail: list = []
        if path:
            tail += ["  ", (path, "bold")]
        if fm:
            tail += ["  ", (fm, MUTED)]
        set_text(label, Content.assemble(head, *tail))

    # ------------------------------------------------------------ plots
    def _window_bounds(self, store: SeriesStore, centred: bool = True) -> tuple[int | None, int | None]:
        n = WINDOWS[self.window_i]
        last = store.last_step
        if self.centre is not None and centred:
            first = store.first_step or 0
            span = n or max(200, ((last or 0) - first) // 5)
            lo = max(first, self.centre - span // 2)
            return lo, lo + span
        if n is None or last is None:
            return None, None
        return max(last - n + 1, store.first_step or 0), last

    @_locked
    def _repaint_plots(self, force: bool = False) -> None:
        """The sparklines and the focus plot, each redrawn only when what it is
        drawn from changed (the store's version, the window, a key, the size)."""
        store = self._store()
        sparks = self.query_one("#sparks", Static)
        focus = self.query_one("#focus", Static)
        if store is None:
            set_text(sparks, Content("waiting for records…"))
            set_text(focus, Content(""))
            return
        now = self.clock()
        if not (force or self._plot_dirty):
            return
        if not force and now - self._plot_at < PLOT_EVERY and not self.loaded:
            self._repaint_later(self._plot_at + PLOT_EVERY - now)  # the newest data still gets drawn
            return
        self._plot_dirty = False
        self._plot_at = now
        self._repaint_sparks(store, sparks, force)
        self._repaint_focus(store, focus, now)

    def _repaint_sparks(self, store: SeriesStore, sparks: Static, force: bool) -> None:
        names = store.names()
        lo, hi = self._window_bounds(store, centred=False)
        width = max(10, sparks.content_size.width)
        key = (store.version, tuple(names), lo, hi, width, self.metric, self.log_scale)
        if key == self._sparks_key and not force:
            return
        self._sparks_key = key
        labels = [f"{i + 1} {LABELS.get(name, name)}" for i, name in enumerate(names)]
        label_w = max(len(x) for x in labels) + 1  # never clipped, always a gap before the bars
        val_w = 9
        sw = max(4, width - label_w - val_w)
        lines: list = []
        for name, label in zip(names, labels):
            s = store.get(name)
            style = "bold $accent" if name == self.metric else MUTED
            label = label.ljust(label_w)
            if s is None or s.last_step is None:
                line = Content.assemble((label, style), ("not logged", MUTED))
            else:
                win = s.window(lo, hi, sw)
                line = Content.assemble((label, style), spark(win, sw, self.log_scale),
                                        (fmt(s.last, 3, "-").rjust(val_w), "bold"))
            lines.append(line)
        if sparks.styles.height is None or sparks.styles.height.value != len(lines) + 2:
            sparks.styles.height = len(lines) + 2
        set_text(sparks, Content("\n").join(lines))

    def _repaint_focus(self, store: SeriesStore, focus: Static, now: float) -> None:
        s = store.get(self.metric)
        fw, fh = focus.content_size.width, focus.content_size.height
        lo, hi = self._window_bounds(store)
        wtitle = {None: "whole run", 1000: "last 1000", 200: "last 200"}[WINDOWS[self.window_i]]
        if self.centre is not None:
            wtitle = f"steps {lo}-{hi} · alert at {self.centre}"
        title = f"{LABELS.get(self.metric, self.metric)} · {wtitle}" + (" · log" if self.log_scale else "")
        if focus.border_title != title:
            focus.border_title = title
        if s is None or s.last_step is None or fw < 10 or fh < 3:
            self._plot_key = None
            set_text(focus, Content(f"{LABELS.get(self.metric, self.metric)}: not logged" if fw >= 10 else ""))
            return
        key = (s.version, lo, hi, fw, fh, self.log_scale, self.centre, self.metric)
        if key == self._plot_key:
            return  # nothing it is drawn from changed: no rebuild, no repaint
        self._plot_key = key
        # two columns a cell (braille has two dot columns): one min/max pair each
        win = s.window(lo, hi, 2 * max(10, fw - 6))
        self._apply_plot(focus_plot(win, fw, fh, log=self.log_scale, marker=self.centre))

    def _apply_plot(self, text) -> None:
        focus = self.query_one("#focus", Static)
        shown = (text.plain, tuple(text.spans))
        if getattr(focus, "_tsm_plot", None) == shown:
            return
        focus._tsm_plot = shown
        focus._tsm_shown = None
        focus.update(text, layout=False)

    # ------------------------------------------------------------ actions
    def action_help(self) -> None:
        keys = HELP_KEYS + ([("Esc", "back to the runs screen (its filter and cursor kept)")]
                            if self.runs_mode else [])
        self.push_screen(HelpScreen(keys))

    def action_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            self._age_ticker.arm(STATUS_EVERY)
            self._resume_view()
        else:
            self.pending_while_paused = 0
            self._update_status(self.clock())

    def _resume_view(self) -> None:
        self.pending_while_paused = 0
        self._plot_dirty = True
        with self.batch_update():
            self._update_status(self.clock())
            if self._checks:
                self.query_one(CheckPanel).show(self._checks)
            self._show_alerts([], False, force=True)
            self._repaint_plots(force=True)

    def action_follow(self) -> None:
        self.paused = False
        self.centre = None
        self.query_one(AlertDetail).show(None)
        self._fit_side()
        self._resume_view()
        self.query_one(AlertList).scroll_end(animate=False)

    def action_detail_scroll(self, pages: int) -> None:
        """PageDown / PageUp (and ] / [) scroll an open alert detail, wherever the focus is."""
        detail = self.query_one(AlertDetail)
        if detail.has_class("-open"):
            (detail.scroll_page_down if pages > 0 else detail.scroll_page_up)(animate=False)
        else:
            lst = self.query_one(AlertList)
            (lst.action_page_down if pages > 0 else lst.action_page_up)()

    def _fit_side(self) -> None:
        """On a short screen an open detail takes the checks panel's place (its
        actions are then above the fold)."""
        try:
            side = self.query_one("#side")
            detail = self.query_one(AlertDetail)
        except NoMatches:
            return
        side.set_class(detail.has_class("-open") and self.size.height < SHORT_SCREEN, "-detail")
        self._show_pinned()

    def action_log_scale(self) -> None:
        self.log_scale = not self.log_scale
        self._repaint_plots(force=True)

    def action_next_metric(self) -> None:
        store = self._store()
        names = store.names() if store else [n for n, _ in SeriesStore.METRICS[:3]]
        i = names.index(self.metric) if self.metric in names else -1
        self.metric = names[(i + 1) % len(names)]
        self._repaint_plots(force=True)

    def action_metric(self, i: int) -> None:
        store = self._store()
        names = store.names() if store else [n for n, _ in SeriesStore.METRICS[:3]]
        if 0 <= i < len(names):
            self.metric = names[i]
            self._repaint_plots(force=True)

    def action_cycle_window(self) -> None:
        self.window_i = (self.window_i + 1) % len(WINDOWS)
        self._repaint_plots(force=True)

    def action_filter(self) -> None:
        inp = self.query_one("#filter", Input)
        inp.add_class("-open")
        inp.focus()

    def action_back(self) -> None:
        inp = self.query_one("#filter", Input)
        if inp.has_focus or inp.has_class("-open"):
            inp.value = ""
            inp.remove_class("-open")
            self.filter_text = ""
            self._show_alerts([], False, force=True)
            self.query_one(AlertList).focus()
            return
        if self.centre is not None or self.query_one(AlertDetail).has_class("-open"):
            self.action_follow()
            return
        self.show_runs()  # several runs: Esc goes back to the runs screen

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.filter_text = event.value.strip()
            self._show_alerts([], False, force=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            if not event.value.strip():
                event.input.remove_class("-open")
            self.query_one(AlertList).focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """An open detail follows the selection (arrows, j/k). Only the alert list's own
        events (the command palette has option lists too), and never once the screen
        is being torn down (a highlight can arrive while the app quits)."""
        if not isinstance(event.option_list, AlertList):
            return
        details = self.query(AlertDetail)
        if details and details.first().has_class("-open"):
            self._open_alert()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if isinstance(event.option_list, AlertList):
            self._open_alert()

    def action_critical(self) -> None:
        """``c``: the pinned (newest critical) alert's detail, selected in the list
        (a filter that hides it is cleared)."""
        a = self._newest_critical()
        if a is None:
            self.notify("no critical alert in this run", timeout=3)
            return
        lst = self.query_one(AlertList)
        if not any(x is a for x in lst.alerts) and self.filter_text:
            inp = self.query_one("#filter", Input)
            inp.value = ""
            inp.remove_class("-open")
            self.filter_text = ""
            self._show_alerts([], False, force=True)
        idx = next((i for i, x in enumerate(lst.alerts) if x is a), None)
        lst.focus()
        if idx is not None:
            lst.highlighted = idx
        self._open_alert(a)

    @_locked
    def _open_alert(self, a: Alert | None = None) -> None:
        try:
            lst = self.query_one(AlertList)
            detail = self.query_one(AlertDetail)
        except NoMatches:  # the screen is being torn down
            return
        a = a or lst.selected_alert()
        if a is None:
            return
        if detail.has_class("-open") and detail.alert is a:
            return
        detail.show(a)
        self._fit_side()
        self.call_after_refresh(lst.scroll_to_highlight)  # the list got shorter: keep the row in view
        if a.step is not None:
            self.centre = a.step
            m = CHECKS[a.check].metric if a.check in CHECKS else None  # the series the check judges
            store = self._store()
            if m is not None and m in (store.names() if store else [n for n, _ in SeriesStore.METRICS[:3]]):
                self.metric = m
        self._update_status(self.clock())
        self._repaint_plots(force=True)

    # ------------------------------------------------------------ test helpers
    def check_statuses(self) -> dict[str, str]:
        return self.query_one(CheckPanel).statuses()


def _slices(items: list):
    """Parts of a batch for the plot store, one lock hold each: PUMP_SLICE records
    at a time; consecutive Frames of the same columns are joined (up to
    FRAME_SLICE rows), because what a Series keeps from one extend costs the
    same whatever its length (``cap`` buckets per level), so fewer, longer
    extends load a long history several times faster."""
    part: list = []
    frames: list = []
    rows = 0

    def joined():
        if len(frames) == 1:
            return frames[0]
        return Frame(np.concatenate([f.step for f in frames]),
                     {k: np.concatenate([f.cols[k] for f in frames]) for k in frames[0].cols},
                     {k: np.concatenate([f.extra[k] for f in frames]) for k in frames[0].extra}
                     if frames[0].extra else None, frames[0].source)

    for it in items:
        if type(it) is Frame:
            if part:
                yield part
                part = []
            if frames and (it.cols.keys() != frames[0].cols.keys() or
                           (it.extra or {}).keys() != (frames[0].extra or {}).keys() or rows + it.n > FRAME_SLICE):
                yield [joined()]
                frames, rows = [], 0
            if it.n >= FRAME_SLICE:
                for a in range(0, it.n, FRAME_SLICE):
                    yield [it.slice(a, min(it.n, a + FRAME_SLICE))]
                continue
            frames.append(it)
            rows += it.n
            continue
        if frames:
            yield [joined()]
            frames, rows = [], 0
        part.append(it)
        if len(part) >= PUMP_SLICE:
            yield part
            part = []
    if frames:
        yield [joined()]
    if part:
        yield part


def _short_path(p: str) -> str:
    home = os.path.expanduser("~")
    if home and home != "/" and p.startswith(home + os.sep):
        p = "~" + p[len(home):]
    return p  # elided in the middle to the room left on the status line


def _elide_middle(text: str, width: int) -> str:
    """``~/runs/exp/…/hf`` : both ends kept (the run's name is at the end)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    tail = (width - 1 + 1) // 2
    head = width - 1 - tail
    return text[:head] + "…" + text[len(text) - tail:]


def _ago_changes_in(s: float) -> float:
    """Seconds until ``_ago(s)`` reads differently."""
    return changes_in(s, ((1.0, 10.0), (5.0, 60.0), (60.0, 7200.0), (360.0, 48 * 3600.0)))


def _ago(s: float) -> str:
    """An age that reads the same for a while (the status line is redrawn only
    when it reads differently): seconds, then 5 s steps, minutes, hours."""
    if s < 1:
        return "<1s"
    if s < 10:
        return f"{int(s)}s"
    if s < 60:
        return f"{int(s) // 5 * 5}s"
    if s < 7200:
        return f"{int(s // 60)}m"
    if s < 48 * 3600:
        return f"{int(s // 360) / 10:.1f}h"  # (floored, like the other units: 2.09h reads 2.0h)
    return f"{int(s // 86400)}d"


__all__ = ["TsmApp", "CHECK_IDS", "LiveData", "NewAlerts", "AlertsRevised", "ChecksChanged", "FeedNotes", "FeedEnded"]
