"""The live monitor: ``tsm-watch run_dir/``.

Data path: a Feed (the live Tailer, or a ReplayFeed for a finished run /
``--replay`` / ``--demo``) reads in its own thread; a 4 Hz timer drains it,
feeds the Session and the series store, and repaints once inside
``batch_update()``. The focus plot is rebuilt at most twice a second from at
most one point per column.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections import deque

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.worker import get_current_worker

from tsm_tui.app.widgets import CHECK_IDS, AlertDetail, AlertList, CheckPanel, HelpScreen, safe, set_text
from tsm_tui.feed import Feed, ReplayFeed
from tsm_tui.frame import Frame
from tsm_tui.plotting import focus_plot, fmt, spark
from tsm_tui.record import Alert, CheckResult, Status
from tsm_tui.series import SeriesStore
from tsm_tui.session import Session

PUMP_SLICE = 2048  # records fed per lock hold (~50 ms of detector work at most)
FRAME_SLICE = 16384  # rows of a Frame per lock hold (columnar: a 13k-row chunk holds it 14 ms median, 44 ms max)
PUMP_IDLE = 0.05  # s the pump sleeps when the feed is empty
TICK = 0.25  # drain + repaint period (4 Hz)
PLOT_EVERY = 0.5  # focus plot rebuild at most this often (s)
WINDOWS = (None, 1000, 200)  # whole run, last 1000, last 200 steps
STALL_MIN = 60.0  # s; stalled = no record for > max(STALL_MIN, 10 x median interval)
SYNC_PLOT_CELLS = 1500  # focus plots up to this many cells are built on the UI thread (~15 ms)
CHECKS_EVERY = 1.0  # s between check-reason repaints (a status change repaints at once)
CKPT_EVERY = 30.0  # s between checkpoint re-scans while following a live run
LABELS = dict(SeriesStore.METRICS)



def _locked(method):
    """Run a UI method holding the app's data lock (the pump thread feeds the
    session and the series stores concurrently)."""
    def wrapper(self, *a, **kw):
        with self._lock:
            return method(self, *a, **kw)
    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class TsmApp(App):
    """tsm-watch's dashboard. Build it with :meth:`from_args`, or directly with a
    Session and a Feed (tests)."""

    CSS_PATH = "app.tcss"
    TITLE = "tsm-watch"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
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
        Binding("escape", "back", "Back", show=False),
        *[Binding(str(i), f"metric({i - 1})", show=False) for i in range(1, 6)],
    ]

    def __init__(self, session: Session, feed: Feed, *, path: str = "", mode: str = "live",
                 bell: bool = True, root: str | None = None, clock=time.monotonic) -> None:
        super().__init__()
        self.session = session
        self.feed = feed
        self.path = path
        self.mode = mode  # "live" | "finished" | "replay"
        self.bell_on = bell
        self.root = root
        self.clock = clock
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
        self.finalized = False
        self.records_seen = 0
        self.pending_while_paused = 0
        self._shown_primary: str | None = None
        self._shown_total = 0
        self._all_alerts: list[Alert] = []
        self._prev_status: dict[str, Status] = {}
        self._checks: list[CheckResult] = []
        self._last_arrival: float | None = None
        self._arrivals: deque[float] = deque(maxlen=64)
        self._rate: deque[tuple[float, int]] = deque(maxlen=64)
        self._plot_dirty = True
        self._plot_at = 0.0
        self._plot_gen = 0
        self._ckpt_at = clock()
        self._checks_at = 0.0
        self._shown_statuses: list[Status] = []
        self.bells = 0  # rung so far (tests)
        # the pump thread feeds the detectors off the UI thread; the lock guards
        # the session and the series stores between it and the UI's ticks
        self._lock = threading.RLock()
        self._pumped = 0  # records fed by the pump so far
        self._ticked = 0  # ... of which the UI has accounted for
        self._drained_after_finish = False
        self._pump_stop = threading.Event()
        self._pump: threading.Thread | None = None

    # ------------------------------------------------------------ construction
    @classmethod
    def finished(cls, path: str, shown: str | None = None) -> "TsmApp":
        """The app on a finished run, read at once and without the bell
        (screenshots, snapshot tests)."""
        from tsm_tui.cli import build_parser, info_from, settings_from
        from tsm_tui.engine import open_run

        args = build_parser().parse_args([path])
        info = info_from(args)
        run = open_run(path, info, None, allow_empty=True)
        session = Session(settings_from(args), info)
        session.set_checkpoints(info.checkpoints)
        return cls(session, ReplayFeed(run.readers, speed=None), path=shown or run.path, mode="finished",
                   bell=False, root=run.root)

    @classmethod
    def from_args(cls, args) -> "TsmApp":
        from tsm_tui.cli import info_from, settings_from
        from tsm_tui.engine import open_run

        from tsm_tui.cli import demo_path

        if getattr(args, "demo", False) and not args.path:
            args.path = demo_path()
        info = info_from(args)
        run = open_run(args.path, info, getattr(args, "config", None), allow_empty=True)
        session = Session(settings_from(args), info)
        session.set_checkpoints(info.checkpoints)
        feed, mode = make_feed(args, run)
        shown = run.path
        if getattr(args, "demo", False) and os.path.samefile(run.path, demo_path()):
            shown = "--demo (bundled run)"
        return cls(session, feed, path=shown, mode=mode, bell=not getattr(args, "no_bell", False),
                   root=run.root)

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="statusbar"):
            yield Label(id="status")
            yield Label(id="state")
        with Horizontal(id="body"):
            with Vertical(id="plots"):
                yield Static(id="sparks")
                yield Static(id="focus")
            with Vertical(id="side"):
                yield CheckPanel(id="checks")
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
        self.feed.start()
        self._pump = threading.Thread(target=self._pump_loop, name="tsm-pump", daemon=True)
        self._pump.start()
        self.set_interval(TICK, self.tick)
        self.tick()

    def on_unmount(self) -> None:
        self._pump_stop.set()
        self.feed.stop(timeout=1.0)
        if self._pump is not None:
            self._pump.join(timeout=1.0)

    # ------------------------------------------------------------ the pump (worker thread)
    def _pump_loop(self) -> None:
        """Drain the feed and run the detectors here, not on the UI thread: a
        1M-step history takes tens of seconds of detector work, and the UI
        must keep answering keys meanwhile. Work is done in slices so the UI
        never waits long for the lock."""
        while not self._pump_stop.is_set():
            finished_before = self.feed.finished
            batches = self.feed.drain()
            if not batches:
                if finished_before:
                    self._drained_after_finish = True
                self._pump_stop.wait(PUMP_IDLE)
                continue
            for b in batches:
                for part in _slices(b.records):
                    with self._lock:
                        self.session.feed(b.source, part, b.reader)
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
                        self._pumped += n
                    if self._pump_stop.is_set():
                        return

    def on_resize(self) -> None:
        self._plot_dirty = True
        self.call_after_refresh(self._repaint_plots, True)

    # ------------------------------------------------------------ data path
    def tick(self) -> None:
        """Take what the pump fed since the last tick and repaint once."""
        if not self.is_running:
            return
        try:
            with self._lock:
                self._tick()
        except NoMatches:  # the screen is being torn down (quit in progress)
            pass

    def _tick(self) -> None:
        now = self.clock()
        for ev in self.feed.drain_events():
            self.notify(safe(ev, 300), title="feed", markup=False, severity="warning")
        n = self._pumped - self._ticked
        self._ticked = self._pumped
        if n:
            self.records_seen += n
            if self._last_arrival is not None:
                self._arrivals.append(now - self._last_arrival)
            self._last_arrival = now
            self._plot_dirty = True
        if self._drained_after_finish and not self.loaded:
            self.loaded = True
            self._checks_at = -CHECKS_EVERY  # show the final reasons now, not at the next 1 Hz repaint
            self._plot_dirty = True
            if not self.finalized and self.session.monitor is not None:
                self.finalized = True
                self.session.finalize()
        if self.mode == "live" and self.root and now - self._ckpt_at > CKPT_EVERY:
            self._ckpt_at = now
            self._rescan_checkpoints()
        last = self._last_step()
        if last is not None:
            self._rate.append((now, last))
        mon = self.session.monitor
        checks = mon.checks() if mon is not None else []
        self._ring_on_new_fail(checks)
        self._checks = checks
        new_alerts, rebuilt = self._collect_alerts()
        if self.paused:
            self.pending_while_paused += n
            self._update_status(now)
            return
        statuses = [c.status for c in checks]
        with self.batch_update():
            self._update_status(now)
            # reasons carry counts that change every tick: repaint them at 1 Hz, a status change at once
            if checks and (statuses != self._shown_statuses or now - self._checks_at >= CHECKS_EVERY):
                self._shown_statuses, self._checks_at = statuses, now
                self.query_one(CheckPanel).show(checks)
            self._show_alerts(new_alerts, rebuilt)
            self._repaint_plots()

    @_locked
    def _rescan_checkpoints(self) -> None:
        try:
            from tsm_tui.sources.checkpoints import find_checkpoints

            self.session.set_checkpoints(find_checkpoints(self.root))
        except OSError:
            pass

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

    def _collect_alerts(self) -> tuple[list[Alert], bool]:
        """New alerts of the primary monitor since the last tick (or all of them
        when the primary source changed)."""
        mon = self.session.monitor
        if mon is None:
            return [], False
        total = len(mon.alerts) + mon.dropped_alerts
        if self.session.primary != self._shown_primary:
            self._shown_primary = self.session.primary
            self._shown_total = total
            self._all_alerts = list(mon.alerts)
            return self._all_alerts, True
        new = total - self._shown_total
        if new <= 0:
            return [], False
        self._shown_total = total
        fresh = list(mon.alerts)[-new:] if new < len(mon.alerts) else list(mon.alerts)
        self._all_alerts.extend(fresh)
        if len(self._all_alerts) > len(mon.alerts):
            del self._all_alerts[: len(self._all_alerts) - len(mon.alerts)]
        return fresh, False

    def _matches(self, a: Alert) -> bool:
        if not self.filter_text:
            return True
        f = self.filter_text.lower()
        return f in a.check.lower() or f in a.message.lower() or f in a.severity.value or \
            any(f in x.lower() for x in a.actions) or (a.step is not None and f == str(a.step))

    @_locked
    def _show_alerts(self, new: list[Alert], rebuilt: bool, force: bool = False) -> None:
        lst = self.query_one(AlertList)
        following = self.centre is None
        if rebuilt or force:
            lst.set_alerts([a for a in self._all_alerts if self._matches(a)], follow=following)
        elif new:
            lst.append_alerts([a for a in new if self._matches(a)], follow=following)
        title = f"alerts ({len(lst.alerts)}" + (f" of {len(self._all_alerts)}, filter: "
                                                        f"{safe(self.filter_text, 30)})" if self.filter_text else ")")
        if lst.border_title != title:
            lst.border_title = title

    # ------------------------------------------------------------ status line
    def _last_step(self) -> int | None:
        store = self._store()
        return store.last_step if store else None

    def _store(self) -> SeriesStore | None:
        p = self.session.primary
        return self.stores.get(p) if p else None

    def stalled_for(self, now: float | None = None) -> float | None:
        """Seconds without a record when that counts as stalled (following a live run)."""
        if self.mode != "live" or self._last_arrival is None:
            return None
        now = self.clock() if now is None else now
        idle = now - self._last_arrival
        med = statistics.median(self._arrivals) if self._arrivals else 0.0
        return idle if idle > max(STALL_MIN, 10 * med) else None

    def steps_per_s(self, now: float) -> float | None:
        if len(self._rate) < 2:
            return None
        horizon = [(t, s) for t, s in self._rate if now - t <= 10.0]
        if len(horizon) < 2:
            return 0.0
        (t0, s0), (t1, s1) = horizon[0], horizon[-1]
        return (s1 - s0) / (t1 - t0) if t1 > t0 and s1 >= s0 else None

    @_locked
    def _update_status(self, now: float) -> None:
        parts: list = [(safe(_short_path(self.path), 200), "bold")]
        if self.formats:
            fm = ", ".join(f"{safe(os.path.basename(p), 60)} ({safe(n, 20)})" for p, n in self.formats.items()
                           if p == self.session.primary) or ""
            extra = len(self.formats) - 1
            parts += ["  ", (fm + (f" +{extra}" if extra > 0 else ""), "$text-muted")]
        last = self._last_step()
        parts += ["  step ", ("-" if last is None else str(last), "bold")]
        if self.mode != "finished":
            rate = self.steps_per_s(now)
            if rate is not None:
                parts += [f"  {rate:.1f} steps/s"]
            if self._last_arrival is not None and self.mode == "live":
                parts += [f"  last {_ago(now - self._last_arrival)} ago"]
        set_text(self.query_one("#status", Label), Content.assemble(*parts))
        state = self.query_one("#state", Label)
        stalled = self.stalled_for(now)
        if self.paused:
            text = "PAUSED" + (f" +{self.pending_while_paused}" if self.pending_while_paused else "")
        elif stalled is not None:
            text = f"stalled {int(stalled)}s"
        elif self.centre is not None:
            text = f"at step {self.centre}"
        elif self.mode == "finished":
            text = "finished" if self.loaded else "loading"
        elif self.mode == "replay":
            text = "replay done" if self.loaded else "replaying"
        else:
            text = "following"
        state.set_class(self.paused, "-paused")
        state.set_class(stalled is not None and not self.paused, "-stalled")
        state.set_class(self.centre is not None and not self.paused and stalled is None, "-inspect")
        set_text(state, Content(text))

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
        store = self._store()
        sparks = self.query_one("#sparks", Static)
        focus = self.query_one("#focus", Static)
        wtitle = {None: "whole run", 1000: "last 1000", 200: "last 200"}[WINDOWS[self.window_i]]
        if store is None:
            set_text(sparks, Content("waiting for records…"))
            set_text(focus, Content(""))
            return
        names = store.names()
        lo, hi = self._window_bounds(store, centred=False)
        width = max(10, sparks.content_size.width)
        label_w, val_w = 11, 9
        sw = max(4, width - label_w - val_w - 1)
        lines: list = []
        for i, name in enumerate(names):
            s = store.get(name)
            label = f"{i + 1} {LABELS.get(name, name)}"[:label_w].ljust(label_w)
            style = "bold $accent" if name == self.metric else "$text-muted"
            if s is None or s.last_step is None:
                line = Content.assemble((label, style), ("not logged", "$text-muted"))
            else:
                win = s.window(lo, hi, sw)
                line = Content.assemble((label, style), spark(win, sw, self.log_scale), " ",
                                        (fmt(s.last).rjust(val_w - 1), "bold"))
            lines.append(line)
        if sparks.styles.height is None or sparks.styles.height.value != len(lines) + 2:
            sparks.styles.height = len(lines) + 2
        set_text(sparks, Content("\n").join(lines))
        now = self.clock()
        if not (force or self._plot_dirty) or (not force and now - self._plot_at < PLOT_EVERY and not self.loaded):
            return
        self._plot_at = now
        self._plot_dirty = False
        s = store.get(self.metric)
        fw, fh = focus.content_size.width, focus.content_size.height
        lo, hi = self._window_bounds(store)
        if self.centre is not None:
            wtitle = f"steps {lo}-{hi} · alert at {self.centre}"
        title = f"{LABELS.get(self.metric, self.metric)} · {wtitle}" + (" · log" if self.log_scale else "")
        if focus.border_title != title:
            focus.border_title = title
        if s is None or s.last_step is None or fw < 10 or fh < 3:
            set_text(focus, Content(f"{LABELS.get(self.metric, self.metric)}: not logged" if fw >= 10 else ""))
            return
        win = s.window(lo, hi, max(10, fw - 6))  # one min/max pair per cell: 2 braille sub-columns
        self._plot_gen += 1
        if force or self.loaded or fw * fh <= SYNC_PLOT_CELLS:
            self._apply_plot(focus_plot(win, fw, fh, log=self.log_scale, marker=self.centre), self._plot_gen)
        else:  # a big plot (tens of ms to build): off the UI thread so typing never stalls
            self._plot_worker(win, fw, fh, self.log_scale, self.centre, self._plot_gen)

    @work(thread=True, exclusive=True, group="focus-plot", exit_on_error=False)
    def _plot_worker(self, win, fw: int, fh: int, log: bool, marker: int | None, gen: int) -> None:
        text = focus_plot(win, fw, fh, log=log, marker=marker)
        if gen == self._plot_gen and not get_current_worker().is_cancelled:
            try:
                self.call_from_thread(self._apply_plot, text, gen)  # one hand-over per build (<= 2 Hz)
            except RuntimeError:  # the app is shutting down
                pass

    def _apply_plot(self, text, gen: int) -> None:
        if gen != self._plot_gen:
            return  # a newer build (a key press, a resize) already replaced it
        focus = self.query_one("#focus", Static)
        focus._tsm_shown = None
        focus.update(text, layout=False)

    # ------------------------------------------------------------ actions
    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
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
        self._resume_view()
        self.query_one(AlertList).scroll_end(animate=False)

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

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.filter_text = event.value.strip()
            self._show_alerts([], False, force=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            if not event.value.strip():
                event.input.remove_class("-open")
            self.query_one(AlertList).focus()

    @_locked
    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        lst = self.query_one(AlertList)
        a = lst.selected_alert()
        if a is None:
            return
        self.query_one(AlertDetail).show(a)
        if a.step is not None:
            self.centre = a.step
            if a.check in ("loss_spike", "plateau"):
                self.metric = "loss"
            elif a.check == "grad_norm":
                self.metric = "grad_norm"
            elif a.check == "lr_schedule":
                self.metric = "lr"
            elif a.check == "loss_scale" and self._store() and self._store().get("loss_scale"):
                self.metric = "loss_scale"
        self._update_status(self.clock())
        self._repaint_plots(force=True)

    # ------------------------------------------------------------ test helpers
    def check_statuses(self) -> dict[str, str]:
        return self.query_one(CheckPanel).statuses()


def _slices(items: list):
    """Feed-sized parts of a batch: PUMP_SLICE records at a time, Frames cut to FRAME_SLICE rows."""
    part: list = []
    for it in items:
        if type(it) is Frame:
            if part:
                yield part
                part = []
            for a in range(0, it.n, FRAME_SLICE):
                yield [it.slice(a, min(it.n, a + FRAME_SLICE))]
            continue
        part.append(it)
        if len(part) >= PUMP_SLICE:
            yield part
            part = []
    if part:
        yield part


def make_feed(args, run) -> tuple[Feed, str]:
    """The live Tailer for a path; a ReplayFeed for --replay / --demo (or when
    the tailer is not available in this build)."""
    if getattr(args, "replay", False) or getattr(args, "demo", False):
        return ReplayFeed(run.readers, speed=getattr(args, "speed", None) or 50.0), "replay"
    try:
        from tsm_tui.tail import Tailer
    except ImportError:
        return ReplayFeed(run.readers, speed=None), "finished"
    return Tailer(run.path, poll=getattr(args, "poll", None)), "live"


def _short_path(p: str) -> str:
    home = os.path.expanduser("~")
    if home and home != "/" and p.startswith(home + os.sep):
        p = "~" + p[len(home):]
    if len(p) > 60:
        p = "…" + p[-59:]
    return p


def _ago(s: float) -> str:
    if s < 1:
        return "<1s"
    if s < 120:
        return f"{s:.0f}s"
    if s < 7200:
        return f"{s / 60:.0f}m"
    return f"{s / 3600:.1f}h"


__all__ = ["TsmApp", "make_feed", "CHECK_IDS"]
