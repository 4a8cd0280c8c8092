"""One run's dashboard: the status line, the sparklines and the focus plot, the checks,
the pinned critical alert, the alert list and an alert's detail.

The screen shows one :class:`RunRow` (the run's liveness, checks and alerts, kept by
the app) and reads the plot stores the live worker fills (``bridge.LiveBridge``). The
view state (``paused``, ``log_scale``, ``metric``, ``window_i``, ``filter_text``) is
Textual ``var``s: a key sets one, its ``watch_`` method redraws what it changes. The
UI repaints on the app's word that data arrived, at most every ``REPAINT_EVERY``
seconds while data flows and not at all while nothing changes (a forecast ticker only
ages the status line).
"""

from __future__ import annotations

import os

from textual.app import ComposeResult, ScreenStackError
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, OptionList, Static

from tsm_tui.analysis.detectors import CHECKS
from tsm_tui.analysis.session import Session
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import Alert, CheckResult, Severity, Status
from tsm_tui.views.tui.activity import RATE_HORIZON, STALL_MIN, RunActivity
from tsm_tui.views.tui.bridge import LiveBridge
from tsm_tui.views.tui.fresh_size import LaidOutAtTerminalSize
from tsm_tui.views.tui.plotting import focus_plot, spark
from tsm_tui.views.tui.runs import RunRow, RunsScreen
from tsm_tui.views.tui.series import SeriesStore
from tsm_tui.views.tui.ticker import TICK_SLACK, TICK_TRUST, Ticker, changes_in
from tsm_tui.views.tui.widgets import (
    CHECK_IDS,
    HELP_KEYS,
    MUTED,
    AlertDetail,
    AlertList,
    CheckPanel,
    HelpScreen,
    PinnedAlert,
    safe,
    set_text,
)

REPAINT_EVERY = 1.0  # s between two repaints (step, rate, sparklines, plot, reasons: one batch) while data flows
STATUS_EVERY = 1.0  # s: the status line's age ("3s ago") is looked at this often (redrawn when it reads differently)
#: s: the sparklines and the focus plot are redrawn at most this often while data keeps coming
#: (Textual's compositor is most of the UI's cost: bench/RESULTS.md 7d); the status line's step,
#: rate and age every REPAINT_EVERY; an alert, a status change, a key and the run's end at once
PLOT_EVERY = 2.0
WINDOWS = (None, 1000, 200)  # whole run, last 1000, last 200 steps
REASONS_EVERY = 3.0  # s between check-reason repaints (their counts; a status change repaints at once)
SHORT_SCREEN = 36  # rows: below this an open alert detail takes the checks panel's place
LABELS = dict(SeriesStore.METRICS)


class FocusPlot(Static):
    """The focus plot: tells its screen when its size changed, so it is redrawn at
    the new size (the screen did not resize when a fourth sparkline made it shorter)."""

    def on_resize(self) -> None:
        if isinstance(self.screen, DashboardScreen):
            self.screen.plot_resized()


def _locked(method):
    """Run a UI method holding the plot store's lock (the live worker adds to it)."""

    def wrapper(self, *a, **kw):
        with self.bridge.lock:
            return method(self, *a, **kw)

    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class DashboardScreen(LaidOutAtTerminalSize, Screen):  # type: ignore[misc]  # (its sync _on_resize before Screen's async one: Textual calls either)
    """A run's dashboard (the app's first screen). ``help_extra``: keys the app adds to
    its help (Esc back to the runs screen)."""

    BINDINGS = [
        Binding("q", "app.quit", "Quit"),
        Binding("ctrl+q", "app.quit", "Quit", show=False, priority=True),
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

    # view state: a key sets one, its watch_ method redraws what it changes
    paused: var[bool] = var(False, init=False)
    log_scale: var[bool] = var(False, init=False)
    metric: var[str] = var("loss", init=False)
    window_i: var[int] = var(0, init=False)  # WINDOWS[window_i]
    filter_text: var[str] = var("", init=False)

    class Back(Message):
        """Esc with nothing left to close on the dashboard (the app shows the runs screen)."""

    class Composed(Message):
        """The screen is composed and mounted (the app starts the live worker)."""

    def __init__(
        self,
        bridge: LiveBridge,
        session: Session,
        row: RunRow,
        *,
        path: str = "",
        mode: str = "live",
        clock,
        wall,
        help_extra: list[tuple[str, str]] | None = None,
    ) -> None:
        super().__init__()
        self.bridge = bridge
        self.session = session
        self.row = row
        self.path = path
        self.mode = mode  # "live" | "finished" | "replay"
        self.clock = clock
        self.wall = wall
        self.help_extra = list(help_extra or [])
        self.centre: int | None = None  # focus plot centred on an alert's step
        self.loaded = False  # the feed finished and everything was drained
        self.feed_error: str | None = None
        self.pending_while_paused = 0
        self._plot_dirty = True
        self._plot_at = -1e9
        self._plot_key: tuple | None = None  # what the focus plot on screen was drawn from
        self._sparks_key: tuple | None = None  # ... and the sparklines
        self._checks_at = 0.0
        self._shown_statuses: list[Status] = []
        self._repaint_at = -1e9
        self._repaint_pending = False
        self._age_ticker = Ticker(self, self._age_status)  # armed for when the age can next read differently
        self._ready = False  # composed (from on_mount on; Textual's is_mounted is set only after it)

    # ------------------------------------------------------------ the run shown
    @property
    def activity(self) -> RunActivity:
        return self.row.activity

    @property
    def run_checks(self) -> list[CheckResult]:
        return self.row.check_list

    @property
    def run_alerts(self):
        return self.row.alerts

    def show_run(self, row: RunRow, session: Session, path: str) -> None:
        """Show this run (the runs screen's Enter): its alerts, its checks (every check
        waiting while it has none yet: never the previous run's), its plots."""
        self.row, self.session, self.path = row, session, path
        self.centre = None
        self._shown_statuses = []
        self._plot_key = self._sparks_key = None
        self._plot_dirty = True
        self.query_one(AlertDetail).show(None)
        self._show_alerts([], True)
        shown = {c.id for c in row.check_list}
        self._show_checks(
            self.clock(),
            list(row.check_list)
            + [CheckResult(cid, cid, Status.SKIP, "waiting for data") for cid in CHECK_IDS if cid not in shown],
        )
        self.repaint(force=True)

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
        self._ready = True
        self.query_one("#sparks").border_title = "metrics"
        self.query_one("#focus").border_title = "loss"
        self.query_one("#checks").border_title = "checks"
        self.query_one("#alerts").border_title = "alerts"
        self.query_one("#detail").border_title = "alert"
        # what the app heard before the screen was composed (the live worker starts with the app)
        self._show_alerts([], True)
        if self.run_checks:
            self._show_checks(self.clock())
        self._age_ticker.arm(STATUS_EVERY)
        self.repaint(force=True)
        self.post_message(self.Composed())

    def on_unmount(self) -> None:
        self._ready = False
        self._age_ticker.stop()

    def plot_resized(self) -> None:
        """The focus plot's own size changed (a sparkline added above it, a resize)."""
        self._plot_dirty = True
        self.app.call_after_refresh(self._repaint_plots, True)

    def resized(self) -> None:
        """The terminal was resized (the app's Resize)."""
        self._plot_dirty = True
        self._fit_side()
        self.app.call_after_refresh(self.show_pinned)  # rewrapped to the pane's new width
        self.app.call_after_refresh(self._repaint_plots, True)

    # ------------------------------------------------------------ what the app tells it
    def data_arrived(self, n: int) -> None:
        """``n`` more records reached the plot stores (this run's: ``pending_while_paused``)."""
        self._plot_dirty = True
        if self.paused:
            self.pending_while_paused += n

    def alerts_added(self, alerts: list[Alert]) -> None:
        """New alerts of the run shown (already in its row)."""
        if self._ready and not self.paused:
            self._show_alerts(alerts, False)

    def alert_revised(self, old: Alert, new: Alert) -> None:
        """An alert of the run shown reads differently now (its row holds ``new``)."""
        if not self._ready:
            return
        self.query_one(AlertList).revise(old, new)
        detail = self.query_one(AlertDetail)
        if detail.has_class("-open") and detail.alert is old:
            detail.show(new, keep_scroll=True)

    def checks_changed(self) -> None:
        """The run's checks were recomputed: a status change is news (at once), the
        reasons' counts wait for the next repaint."""
        if not self._ready:
            return
        if not self.paused and [c.status for c in self.run_checks] != self._shown_statuses:
            self._show_checks(self.clock())
        else:
            self.repaint()

    def feed_ended(self, error: str | None) -> None:
        if error:
            self.feed_error = error
        else:
            self.loaded = True
            self._checks_at = -REASONS_EVERY  # show the final reasons now, not at the next 1 Hz repaint
            self._plot_dirty = True
        self.repaint(force=True)

    # ------------------------------------------------------------ repainting
    def repaint(self, force: bool = False) -> None:
        """Repaint what the data changed, at most every REPAINT_EVERY seconds."""
        if not self._ready:
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
            screen = self.app.screen
        except ScreenStackError:  # the app is being torn down
            return
        if isinstance(screen, RunsScreen):
            return  # the runs screen keeps its own ages (RunsScreen.tick); show_run re-arms this
        if self.mode != "live" or self.activity.last_arrival is None or self.paused:
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
        act = self.activity
        if idle is None or act.last_arrival is None or now - act.last_arrival < RATE_HORIZON + 1:
            return STATUS_EVERY
        due = _ago_changes_in(idle)
        if self.stalled_for(now) is None:
            after = act.stall_after()
            for turn in (STALL_MIN, STALL_MIN if after is None else after):
                if idle < turn:
                    due = min(due, turn - idle)
        return min(TICK_TRUST, max(STATUS_EVERY, due + TICK_SLACK))

    def _repaint(self, now: float) -> None:
        if self.paused:
            self._update_status(now)
            return
        with self.app.batch_update():
            self._update_status(now)
            # reasons carry counts that change all the time: repaint them at 1 Hz, a status change at once
            if self.run_checks and now - self._checks_at >= REASONS_EVERY:
                self._show_checks(now)
            self._repaint_plots()

    def _show_checks(self, now: float, checks: list[CheckResult] | None = None) -> None:
        checks = self.run_checks if checks is None else checks
        self._shown_statuses, self._checks_at = [c.status for c in checks], now
        self.query_one(CheckPanel).show(checks)
        self.show_pinned()

    def _matches(self, a: Alert) -> bool:
        if not self.filter_text:
            return True
        f = self.filter_text.lower()
        return (
            f in a.check.lower()
            or f in a.message.lower()
            or f in a.severity.value
            or any(f in x.lower() for x in a.actions)
            or (a.step is not None and f == str(a.step))
        )

    def _show_alerts(self, new: list[Alert], rebuilt: bool, force: bool = False) -> None:
        lst = self.query_one(AlertList)
        alerts = self.run_alerts
        following = self.centre is None and not self.query_one(AlertDetail).has_class("-open")
        if rebuilt or force:
            lst.set_alerts([a for a in alerts if self._matches(a)], follow=following)
        elif new:
            lst.append_alerts([a for a in new if self._matches(a)], follow=following)
        title = f"alerts ({len(lst.alerts)}" + (
            f" of {len(alerts)}, filter: {safe(self.filter_text, 30)})" if self.filter_text else ")"
        )
        if lst.border_title != title:
            lst.border_title = title
        self.show_pinned()

    def _newest_critical(self) -> Alert | None:
        for a in reversed(self.run_alerts):
            if a.severity == Severity.CRITICAL:
                return a
        return None

    def _short(self) -> bool:
        """A short terminal: the app's size, known from the start (the screen's own is 0
        until its first layout, and a pin shown then was wrapped for a short screen
        and kept so: a snapshot test saw it one run in five)."""
        return self.app.size.height < SHORT_SCREEN

    def show_pinned(self) -> None:
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
        short = self._short()
        pin.show(a, lines=2 if short else 3)
        panel.set_compact(short and (a is not None or panel.failing()))

    # ------------------------------------------------------------ status line
    def last_step(self) -> int | None:
        store = self._store()
        return store.last_step if store else None

    def _store(self) -> SeriesStore | None:
        p = self.session.primary
        return self.bridge.stores.get(p) if p else None

    def idle_for(self, now: float | None = None) -> float | None:
        """Seconds since the run wrote its last record: the records' own time or the
        file's mtime for the history read at the start (a run that wrote its last line
        three hours ago is three hours quiet, not "3s ago"), else since it arrived."""
        return self.activity.idle(self.clock() if now is None else now, self.wall())

    def stalled_for(self, now: float | None = None) -> float | None:
        """Seconds without a record when that counts as stalled (following a live run;
        a run that ended is dead, not stalled: ``RunActivity``)."""
        if self.mode != "live":
            return None
        return self.activity.stalled_for(self.clock() if now is None else now, self.wall())

    def _state_text(self, now: float) -> tuple[str, str]:
        """The state word and its class: what the view is doing, first on the line."""
        if self.feed_error:  # the feed died: nothing is followed any more, whatever else holds
            return f"STOPPED: {safe(self.feed_error, 60)}", "-stalled"
        stalled = self.stalled_for(now)
        if self.paused:
            return "PAUSED" + (f" +{self.pending_while_paused}" if self.pending_while_paused else ""), "-paused"
        if stalled is not None:
            return f"stalled {_ago(stalled)}", "-stalled"
        act = self.activity
        ended = act.ended if self.mode == "live" else None
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
        if act.exit_code not in (None, 0):
            return f"exited {act.exit_code}", "-stalled"  # the tracker recorded a failed exit
        if act.done and idle is not None and (idle > STALL_MIN or act.exit_code is not None):
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
            content = Content(text)
            state._tsm_shown = content  # type: ignore[attr-defined]  # (what the label shows, kept on it)
            state.update(content, layout=shown is None or len(shown.plain) != len(text))  # auto width
        last = self.last_step()
        parts: list = [("step ", MUTED), ("-" if last is None else str(last), "bold")]
        if self.mode != "finished":
            rate = self.activity.steps_per_s(now)
            if rate is not None:
                parts += [f"  {rate:.1f}/s"]
            idle = self.idle_for(now) if self.mode == "live" else None
            if idle is not None:
                parts += [f"  {_ago(idle)} ago"]
        head = Content.assemble(*parts)
        fm = ""
        formats = self.bridge.formats.get(self.row.name, {})
        if formats:
            fm = next(
                (
                    f"{safe(os.path.basename(p), 60)} ({safe(n, 20)})"
                    for p, n in formats.items()
                    if p == self.session.primary
                ),
                "",
            )
            extra = len(formats) - 1
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
                line = Content.assemble(
                    (label, style), spark(win, sw, self.log_scale), (fmt(s.last, 3, "-").rjust(val_w), "bold")
                )
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
        focus._tsm_plot = shown  # type: ignore[attr-defined]  # (what the plot shows, kept on it)
        focus._tsm_shown = None  # type: ignore[attr-defined]
        focus.update(text, layout=False)

    # ------------------------------------------------------------ view state
    def watch_paused(self, paused: bool) -> None:
        if not self._ready:
            return
        if paused:
            self.pending_while_paused = 0
            self._update_status(self.clock())
        else:
            self._age_ticker.arm(STATUS_EVERY)
            self._resume_view()

    def _replot(self) -> None:
        if self._ready:
            self._repaint_plots(force=True)

    def watch_log_scale(self) -> None:
        self._replot()

    def watch_metric(self) -> None:
        self._replot()

    def watch_window_i(self) -> None:
        self._replot()

    def watch_filter_text(self) -> None:
        if self._ready:
            self._show_alerts([], False, force=True)

    def _resume_view(self) -> None:
        self.pending_while_paused = 0
        self._plot_dirty = True
        with self.app.batch_update():
            self._update_status(self.clock())
            if self.run_checks:
                self.query_one(CheckPanel).show(self.run_checks)
            self._show_alerts([], False, force=True)
            self._repaint_plots(force=True)

    # ------------------------------------------------------------ actions
    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(HELP_KEYS + self.help_extra))

    def action_pause(self) -> None:
        self.paused = not self.paused

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
        side.set_class(detail.has_class("-open") and self._short(), "-detail")
        self.show_pinned()

    def action_log_scale(self) -> None:
        self.log_scale = not self.log_scale

    def _metric_names(self) -> list[str]:
        store = self._store()
        return store.names() if store else [n for n, _ in SeriesStore.METRICS[:3]]

    def action_next_metric(self) -> None:
        names = self._metric_names()
        i = names.index(self.metric) if self.metric in names else -1
        self.metric = names[(i + 1) % len(names)]

    def action_metric(self, i: int) -> None:
        names = self._metric_names()
        if 0 <= i < len(names):
            self.metric = names[i]

    def action_cycle_window(self) -> None:
        self.window_i = (self.window_i + 1) % len(WINDOWS)

    def action_filter(self) -> None:
        inp = self.query_one("#filter", Input)
        inp.add_class("-open")
        inp.focus()

    def _close_filter(self) -> None:
        inp = self.query_one("#filter", Input)
        inp.value = ""
        inp.remove_class("-open")
        self.filter_text = ""

    def action_back(self) -> None:
        inp = self.query_one("#filter", Input)
        if inp.has_focus or inp.has_class("-open"):
            self._close_filter()
            self.query_one(AlertList).focus()
            return
        if self.centre is not None or self.query_one(AlertDetail).has_class("-open"):
            self.action_follow()
            return
        self.post_message(self.Back())  # several runs: Esc goes back to the runs screen

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.filter_text = event.value.strip()

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
            self.app.notify("no critical alert in this run", timeout=3)
            return
        lst = self.query_one(AlertList)
        if not any(x is a for x in lst.alerts) and self.filter_text:
            self._close_filter()
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
        self.app.call_after_refresh(lst.scroll_to_highlight)  # the list got shorter: keep the row in view
        if a.step is not None:
            self.centre = a.step
            m = CHECKS[a.check].metric if a.check in CHECKS else None  # the series the check judges
            if m is not None and m in self._metric_names():
                self.set_reactive(DashboardScreen.metric, m)  # drawn below, with the centre
        self._update_status(self.clock())
        self._repaint_plots(force=True)


def _short_path(p: str) -> str:
    home = os.path.expanduser("~")
    if home and home != "/" and p.startswith(home + os.sep):
        p = "~" + p[len(home) :]
    return p  # elided in the middle to the room left on the status line


def _elide_middle(text: str, width: int) -> str:
    """``~/runs/exp/…/hf`` : both ends kept (the run's name is at the end)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    tail = (width - 1 + 1) // 2
    head = width - 1 - tail
    return text[:head] + "…" + text[len(text) - tail :]


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


__all__ = ["DashboardScreen", "FocusPlot"]
