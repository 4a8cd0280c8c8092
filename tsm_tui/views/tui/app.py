"""The live monitor: ``tsm-watch run_dir/``.

Data path: a Feed (the live Tailer, or a ReplayFeed for a finished run /
``--replay`` / ``--demo``) reads in its own thread; a thread worker drives the one
LiveLoop (``bridge.LiveBridge``: the same loop as ``--follow``), fills the plot
stores and posts what changed as messages (``messages.py``). The app keeps each
run's state (``runs.RunRow``: its liveness, checks and alerts), rings the bell on a
new FAIL and hands the news to the screen that shows it: a run's
``DashboardScreen`` (``dashboard.py``), and with several runs under PATH the
``RunsScreen`` on top of it (Enter opens a run, Esc comes back).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace

from textual import work
from textual.app import App, ScreenStackError
from textual.binding import Binding
from textual.worker import get_current_worker

from tsm_tui.analysis.run_open import open_run, open_runs
from tsm_tui.analysis.live import LiveLoop, alert_identity
from tsm_tui.analysis.live_open import many_runs, one_run, session_loop
from tsm_tui.analysis.session import Session
from tsm_tui.core.options import Options
from tsm_tui.sources.feed import Feed, ReplayFeed
from tsm_tui.sources.runfiles import RunFiles
from tsm_tui.sources.tail import Tailer
from tsm_tui.views.tui.bridge import MESSAGE_EVERY, LiveBridge
from tsm_tui.views.tui.dashboard import SHORT_SCREEN, DashboardScreen
from tsm_tui.views.tui.messages import (
    AlertsRevised,
    ChecksChanged,
    FeedEnded,
    FeedNotes,
    LiveData,
    NewAlerts,
    RunsUpdate,
)
from tsm_tui.views.tui.runs import RunRow, RunsScreen
from tsm_tui.views.tui.widgets import CHECK_IDS, CheckPanel, safe

#: the help's extra key when several runs are shown
RUNS_BACK_KEY = ("Esc", "back to the runs screen (its filter and cursor kept)")


class TsmApp(App):
    """tsm-watch's dashboard. Build it with :meth:`from_options`, or with :meth:`for_session`
    on a Session and a Feed (tests)."""

    CSS_PATH = "app.tcss"
    TITLE = "tsm-watch"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    # a short screen: the checks that say nothing (SKIP) leave their rows to the alerts and to
    # the checks below them (app.tcss)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_SCREEN, "-tall")]
    AUTO_FOCUS = "#alerts"
    # the dashboard's keys are its own (DashboardScreen.BINDINGS); these hold on every screen
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    wall = staticmethod(time.time)  # the wall clock (when runs wrote their records; tests replace it)

    def __init__(
        self,
        session: Session,
        feed: Feed,
        *,
        path: str = "",
        mode: str = "live",
        bell: bool = True,
        root: str | None = None,
        clock=time.monotonic,
        live: LiveLoop,
        runs: list | None = None,
        notes: list[str] | None = None,
    ) -> None:
        """``live``: the one live loop over ``feed`` (built by ``analysis/live_open.py``: see
        :meth:`from_options` and :meth:`for_session`); ``runs``: the runs known at the start;
        ``notes``: what the run's configs had that was ignored, when no live loop re-reads
        them (a finished run or a replay): shown once at the start."""
        super().__init__()
        self.feed = feed
        self.mode = mode  # "live" | "finished" | "replay"
        self.bell_on = bell
        self.root = root
        self.clock = clock
        self.live = live
        self.bridge = LiveBridge(
            self.live, self.post_message, mode=mode, clock=clock, wall=lambda: self.wall(), notes=notes
        )
        self.top = path  # several runs: the folder that holds them
        self.run_rows: dict[str, RunRow] = {}
        for r in runs or []:
            self._row(r.name, r.path)
        for name in self.live.runs:  # one run: its row, under the loop's name for it
            self._row(name, path)
        self.current_run: str | None = next(iter(self.run_rows), None)
        self.records_seen = 0
        self.bells = 0  # rung so far (tests)
        first = self.run_rows[self.current_run] if self.current_run is not None else RunRow("")
        self.dashboard = DashboardScreen(
            self.bridge,
            session,
            first,
            path=path,
            mode=mode,
            clock=clock,
            wall=lambda: self.wall(),
            help_extra=[RUNS_BACK_KEY] if self.live.top is not None else [],
        )

    # ------------------------------------------------------------ construction
    @classmethod
    def finished(cls, path: str, shown: str | None = None) -> "TsmApp":
        """The app on a finished run, read at once and without the bell
        (screenshots, snapshot tests)."""
        return cls.from_options(Options(path=path, bell=False), mode="finished", shown=shown)

    @classmethod
    def for_session(
        cls,
        session: Session,
        feed: Feed,
        *,
        root: str | None = None,
        mode: str = "live",
        files: RunFiles | None = None,
        clock=time.monotonic,
        **kw,
    ) -> "TsmApp":
        """The app on one run whose Session is made already (tests, bench/run.py): its loop
        from ``live_open.session_loop``, with the run's side files under ``root`` re-read
        while it is followed (``mode`` "live")."""
        if files is None and root and mode == "live":
            files = RunFiles(root, session.info)
        # checks reach the screen at most every MESSAGE_EVERY (a status move at once, with its
        # alert): recomputing them more often only wakes the worker
        live = session_loop(session, feed, files, clock=clock, checks_every=MESSAGE_EVERY)
        return cls(session, feed, root=root, mode=mode, clock=clock, live=live, **kw)

    @classmethod
    def from_options(
        cls, opts: Options, *, demo: str | None = None, mode: str | None = None, shown: str | None = None
    ) -> "TsmApp":
        """The app for what the command line asked (``demo``: the bundled run's path): one
        run's dashboard, or the runs screen when PATH holds several."""
        if opts.demo and not opts.path:
            opts.path = demo
        path = opts.path
        assert path is not None, "cli.main raised UsageError without PATH (--demo's is filled in just above)"
        runs = open_runs(path, opts.info, opts.config, allow_empty=True, only=opts.run)
        many = len(runs) > 1
        if many:
            readers = {p: r for run in runs for p, r in run.readers.items()}
            where = path
        else:
            run = open_run(runs[0].path if opts.run else path, opts.fresh_info(), opts.config, allow_empty=True)
            readers, where = run.readers, run.path
        if mode == "finished":
            feed: Feed = ReplayFeed(readers, speed=None)
        elif opts.replay or opts.demo:
            feed, mode = ReplayFeed(readers, speed=opts.speed or 50.0), "replay"
        else:
            feed, mode = Tailer(where, poll=opts.poll), "live"
        bell = opts.bell and mode != "finished"
        if many:
            top = os.path.abspath(path)
            live = many_runs(opts, feed, top, known=runs, checks_every=MESSAGE_EVERY)
            return cls(
                live.runs[runs[0].name].session,
                feed,
                path=shown or top,
                mode=mode,
                bell=bell,
                root=top,
                live=live,
                runs=runs,
            )
        if shown is None:
            shown = run.path
            if opts.demo and demo and os.path.samefile(run.path, demo):
                shown = "--demo (bundled run)"
        live = one_run(
            run, opts, feed, name="", files=mode == "live", checks_every=MESSAGE_EVERY
        )  # (its per-rank files too)
        return cls(
            live.runs[""].session,
            feed,
            path=shown,
            mode=mode,
            bell=bell,
            root=run.root,
            live=live,
            notes=run.files_of.notes if mode != "live" and run.files_of is not None else None,
        )

    def get_driver_class(self):
        """Textual's driver for this terminal; on Linux the one whose input thread
        does not wake ten times a second (views/tui/driver.py)."""
        cls = super().get_driver_class()
        if cls.__name__ == "LinuxDriver" and cls.__module__ == "textual.drivers.linux_driver":
            from tsm_tui.views.tui.driver import QuietLinuxDriver

            return QuietLinuxDriver
        return cls

    def get_default_screen(self) -> DashboardScreen:
        return self.dashboard

    # ------------------------------------------------------------ what the dashboard shows
    @property
    def session(self) -> Session:
        """The Session of the run the dashboard shows."""
        return self.dashboard.session

    @property
    def path(self) -> str:
        """The path the dashboard's status line shows."""
        return self.dashboard.path

    @path.setter
    def path(self, value: str) -> None:
        self.dashboard.path = value

    @property
    def loaded(self) -> bool:
        """The feed finished and everything was drained."""
        return self.dashboard.loaded

    @property
    def feed_error(self) -> str | None:
        return self.dashboard.feed_error

    @property
    def exporter(self):
        """--prom-file / --metrics-port (views/prometheus.py), set by run_app: fed by the live worker."""
        return self.bridge.exporter

    @exporter.setter
    def exporter(self, value) -> None:
        self.bridge.exporter = value

    def check_statuses(self) -> dict[str, str]:
        """Each check's status on the dashboard (tests)."""
        return self.dashboard.query_one(CheckPanel).statuses()

    # ------------------------------------------------------------ runs
    def _row(self, name: str, path: str | None = None) -> RunRow:
        row = self.run_rows.get(name)
        if row is None:
            row = self.run_rows[name] = RunRow(name, path=path or os.path.join(self.top, name))
        return row

    def open_run(self, name: str) -> None:
        """Show this run's dashboard (the runs screen's Enter)."""
        if name not in self.live.runs:
            return
        self.current_run = name
        row = self._row(name)
        if isinstance(self.screen, RunsScreen):
            self.pop_screen()
        self.dashboard.show_run(row, self.live.runs[name].session, row.path)

    def on_runs_screen_open(self, message: RunsScreen.Open) -> None:
        self.open_run(message.name)

    def on_dashboard_screen_back(self, message: DashboardScreen.Back) -> None:
        self.show_runs()

    def show_runs(self) -> None:
        """The runs screen (several runs): one instance for the app's life (installed), so
        Esc back from a run's dashboard finds its filter, order and cursor as they were left."""
        if self.live.top is not None and not isinstance(self.screen, RunsScreen):
            if not self.is_screen_installed("runs"):
                self.install_screen(
                    RunsScreen(
                        self.run_rows, path=self.top, clock=self.clock, wall=self.wall, live=self.mode == "live"
                    ),
                    "runs",
                )
            self.push_screen("runs")

    def _shown(self):
        """The screen on top, or None while the app shuts down: a message the worker posted
        before the exit can still be handled then (CI: ScreenStackError in on_new_alerts)."""
        try:
            return self.screen
        except ScreenStackError:
            return None

    def _on_dashboard(self) -> bool:
        """The dashboard shows (not under the runs screen: under a help screen it still does)."""
        shown = self._shown()
        return shown is not None and not isinstance(shown, RunsScreen)

    def _ring(self, new_fail: bool) -> None:
        """A check turned FAIL: the bell (once per message, whatever the number of runs)."""
        if new_fail:
            self.bells += 1
            if self.bell_on:
                self.bell()

    # ------------------------------------------------------------ lifecycle
    def on_mount(self) -> None:
        self.show_runs()

    def on_dashboard_screen_composed(self, message: DashboardScreen.Composed) -> None:
        """The live worker starts once the dashboard can show what it posts (started with the
        app, a short replay could end before the dashboard was composed)."""
        self._live_worker()

    def on_unmount(self) -> None:
        self.bridge.stop()

    def on_resize(self) -> None:
        self.dashboard.resized()

    @work(thread=True, exclusive=True, group="live", exit_on_error=False)
    def _live_worker(self) -> None:
        """The live loop, off the UI thread (bridge.LiveBridge.run)."""
        worker = get_current_worker()
        self.bridge.run(lambda: worker.is_cancelled)

    # ------------------------------------------------------------ messages from the worker
    def on_live_data(self, message: LiveData) -> None:
        n = message.total - self.records_seen
        if n <= 0:
            return
        self.records_seen = message.total
        dash = self.dashboard
        if message.run is not None:  # one run: its liveness (several: RunsUpdate says it per run)
            act = self._row(message.run).activity
            if message.exit_code is not None:
                act.exit_code = message.exit_code
            act.planned = message.planned
            act.arrived(self.clock(), dash.last_step(), message.written, message.live or self.mode == "replay")
        dash.data_arrived(n if message.run == self.current_run else 0)
        if self._on_dashboard():
            dash.repaint()

    def on_new_alerts(self, message: NewAlerts) -> None:
        mine = []
        for a, run in zip(message.alerts, message.runs):
            self._row(run).add_alert(a)
            if run == self.current_run:
                mine.append(a)
        if mine and self._on_dashboard():
            self.dashboard.alerts_added(mine)

    def on_alerts_revised(self, message: AlertsRevised) -> None:
        """Re-read alerts in place: the stored copy takes the new actions (its message
        may carry the sweep's "also in N other runs", which the revision lacks)."""
        for new, run in zip(message.alerts, message.runs):
            row = self.run_rows.get(run)
            if row is None:
                continue
            ident = alert_identity(new)
            for i, old in enumerate(row.alerts):
                if alert_identity(old) == ident:
                    row.alerts[i] = replace(old, actions=list(new.actions))
                    if run == self.current_run:
                        self.dashboard.alert_revised(old, row.alerts[i])
                    break
        self.dashboard.show_pinned()  # (a revision can change the pinned alert's actions)

    def on_runs_update(self, message: RunsUpdate) -> None:
        rang = False
        for name, (_t, step, written, live, planned, exit_code) in message.arrivals.items():
            act = self._row(name).activity
            act.planned = planned
            act.exit_code = exit_code
            act.arrived(self.clock(), step, written, live and self.mode == "live")
        for name, shared in message.shared.items():
            self._row(name).shared = shared
        for name, checks in message.checks.items():
            rang = self._row(name).set_checks(checks) or rang
        self._ring(rang)
        if self.current_run in message.arrivals:
            self.dashboard.data_arrived(0)
        shown = self._shown()
        if isinstance(shown, RunsScreen):
            shown.refresh_rows()
        elif shown is not None:
            self.dashboard.repaint()

    def on_checks_changed(self, message: ChecksChanged) -> None:
        if self.current_run is None:
            return
        self._ring(self._row(self.current_run).set_checks(message.checks))
        self.dashboard.checks_changed()

    def on_feed_notes(self, message: FeedNotes) -> None:
        for ev in message.notes:
            self.notify(safe(ev, 300), title="feed", markup=False, severity="warning")

    def on_feed_ended(self, message: FeedEnded) -> None:
        if message.error:
            self.notify(
                safe(f"reading the run stopped: {message.error}", 300),
                title="feed",
                markup=False,
                severity="error",
                timeout=3600,
            )
        self.dashboard.feed_ended(message.error)


__all__ = ["TsmApp", "CHECK_IDS", "LiveData", "NewAlerts", "AlertsRevised", "ChecksChanged", "FeedNotes", "FeedEnded"]
