"""The runs screen: one row per run when PATH holds several (a sweep,
``lightning_logs/``, ``wandb/``, a cluster's job directory).

Each row, most telling first so that 80 columns hold it: the run's name, the
time since its last record (or "stalled"), its last step, its worst check,
its critical / warning counts, the number of other runs that spiked at the
same step, then a cell per core check (one letter when narrow: ``F`` / ``W``
/ ``P`` / ``-``; the word when there is room) and steps/s. Below the table,
the highlighted run's worst check and newest alert. Failing and stalled runs
come first; ``/`` filters by name, ``s`` cycles the order, Enter opens the
run's dashboard (``RunsScreen.Open``), Esc there comes back.

The age is the time since the run *wrote* its last record (the record's own
timestamp when it has one, else the file's mtime for history read at start,
else the arrival of a live record), not since the tool read it. A 1 s timer
moves ages and "stalled" on without new writes; a cell is redrawn only when
its text changes. Text from file names and logs is sanitised and never read
as markup.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Label

from tsm_tui.analysis.detectors import CHECKS, DETECTORS, Detector
from tsm_tui.analysis.monitor import MAX_ALERTS
from tsm_tui.core.record import Alert, CheckResult, Severity, Status
from tsm_tui.core.settings import STALL_FACTOR
from tsm_tui.views.tui.activity import STALL_MIN, RunActivity
from tsm_tui.views.tui.fresh_size import LaidOutAtTerminalSize
from tsm_tui.views.tui.ticker import TICK_MIN, TICK_SLACK, TICK_TRUST, Ticker, changes_in
from tsm_tui.views.tui.widgets import MUTED, HelpScreen, safe

TICK = 1.0  # s between two looks at the clock (ages, "stalled")
#: (check id, heading, letter) of the check columns: the detectors' own ``column``
COLUMNS = tuple((d.id, *d.column) for d in DETECTORS if d.column)
SHORT = {cid: d.short for cid, d in CHECKS.items()}
_STYLE = {Status.FAIL: "bold $error", Status.WARN: "bold $warning", Status.PASS: "$success", Status.SKIP: MUTED}
#: a cell's style: one, or one per letter (the one-column checks)
CellStyle = str | tuple[str, ...] | None
_LETTER = {Status.FAIL: "F", Status.WARN: "W", Status.PASS: "P", Status.SKIP: "-"}
_WORD = {Status.FAIL: "FAIL", Status.WARN: "WARN", Status.PASS: "ok", Status.SKIP: "-"}
SORTS = ("health", "name", "step", "age")
NAME_MIN = 20  # a name gets at least this much before the check cells take words, and steps/s a column;
#               then all the width left (longer names are elided in the middle)
#: (key, title, width) of the columns before the check cells
LEAD = (("age", "last", 10), ("step", "step", 7), ("worst", "worst", 10), ("cw", "c/w", 5), ("also", "also", 4))


@dataclass
class RunRow:
    """One run as the views see it (kept by the app, updated from the live loop): its
    liveness (``activity``), its checks and its alerts. The runs screen shows a row of it,
    a run's dashboard all of it."""

    name: str
    activity: RunActivity = field(default_factory=RunActivity)
    path: str = ""
    checks: dict[str, CheckResult] = field(default_factory=dict)
    #: the checks in the order the monitor gave them (the dashboard's panel)
    check_list: list[CheckResult] = field(default_factory=list)
    alerts: deque[Alert] = field(default_factory=lambda: deque(maxlen=MAX_ALERTS))
    newest: Alert | None = None
    newest_critical: Alert | None = None
    #: a loss spike at a step where other runs spiked too: (step, their number)
    shared: tuple[int, int] | None = None
    #: each check's status the last time it was looked at for the bell
    rung: dict[str, Status] = field(default_factory=dict)

    def set_checks(self, checks: list[CheckResult]) -> bool:
        """The run's checks as recomputed; True when one turned FAIL since the last time."""
        self.check_list = list(checks)
        self.checks = {c.id: c for c in checks}
        self.activity.note_checks(checks)
        new_fail = False
        for c in checks:
            if c.status == Status.FAIL and self.rung.get(c.id) != Status.FAIL:
                new_fail = True
            self.rung[c.id] = c.status
        return new_fail

    def add_alert(self, a: Alert) -> None:
        self.alerts.append(a)
        self.newest = a
        if a.severity == Severity.CRITICAL:
            self.newest_critical = a

    def worst_check(self) -> CheckResult | None:
        return min(
            self.checks.values(),
            default=None,
            key=lambda c: (-c.status.rank, CHECKS[c.id].urgency if c.id in CHECKS else Detector.urgency),
        )

    def worst(self) -> Status:
        c = self.worst_check()
        return c.status if c is not None else Status.SKIP

    def counts(self) -> tuple[int, int]:
        return (
            sum(c.status == Status.FAIL for c in self.checks.values()),
            sum(c.status == Status.WARN for c in self.checks.values()),
        )

    def other(self) -> CheckResult | None:
        core = {c for c, _, _ in COLUMNS}
        rest = [c for c in self.checks.values() if c.id not in core and c.status.rank > Status.PASS.rank]
        return max(rest, key=lambda c: c.status.rank, default=None)


def age_text(s: float) -> str:
    """A run's age as the table shows it: coarse enough that a quiet table is not
    redrawn every second (``<10s``, ``20s``, ``3m``, ``4h``, ``2d``), fine enough to tell
    a live run from a quiet one."""
    if s < 10:
        return "<10s"
    if s < 60:
        return f"{int(s // 10) * 10}s"
    if s < 3600:
        return f"{int(s // 60)}m"
    if s < 48 * 3600:
        return f"{int(s // 3600)}h"
    return f"{int(s // 86400)}d"


def age_changes_in(s: float) -> float:
    """Seconds until ``age_text(s)`` reads differently."""
    return changes_in(s, ((10.0, 60.0), (60.0, 3600.0), (3600.0, 48 * 3600.0)))


def _elide(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: keep // 2] + "…" + text[len(text) - (keep - keep // 2) :]


def _content(text: str, style) -> Content:
    if isinstance(style, tuple):  # a style per character
        return Content.assemble(*[(ch, st) for ch, st in zip(text, style)])
    return Content.styled(text, style) if style else Content(text)


def layout(width: int, longest: int) -> tuple[int, int, bool]:
    """(name width, check-cell width, steps/s shown) for a table ``width`` cells wide:
    the name first (up to NAME_MIN), then the check cells as words, then steps/s."""
    avail = width - 2  # the vertical scrollbar
    lead = sum(w + 2 for _, _, w in LEAD)
    want = max(4, longest)
    for cw, rate in ((4, True), (4, False), (1, True), (1, False)):
        checks = 6 * (cw + 2) if cw > 1 else 8  # narrow: one column of six coloured letters
        name = avail - lead - checks - (7 if rate else 0) - 2
        if name >= min(want, NAME_MIN):
            return min(want, name), cw, rate
    return max(4, min(want, avail - lead - 8 - 2)), 1, False


#: the runs screen's keys and what its columns mean (its own help: the dashboard's keys do nothing here)
RUNS_HELP_KEYS = [
    (
        "up/down, j/k",
        "move between runs (the highlighted run's worst check, newest critical alert and its "
        "first action show under the table)",
    ),
    ("Enter", "open the run's dashboard"),
    ("Esc", "(on a run's dashboard) back here, filter and cursor kept; here: clear the filter"),
    ("/", "filter runs by name (Enter keeps it, Esc clears it)"),
    ("s", "sort: health (failing and stalled first) / name / step / age"),
    ("q / ctrl+q", "quit"),
    ("?", "this help"),
]
RUNS_LEGEND = [
    "last: time since the run wrote its last record; done = it reached its planned steps or its tracker "
    f"recorded a clean exit; exit N = its tracker recorded exit code N; stall = quiet for max({STALL_MIN:.0f} s, "
    f"{STALL_FACTOR:.0f}x its usual interval) while followed.",
    "worst: its worst check. c/w: its checks at FAIL / at WARN. also: +N other runs of the sweep with a "
    "loss spike at the same step.",
    "sglbpn: spike, grad norm, lr schedule, batch size, plateau, nan (F fail, W warn, P pass, - nothing to "
    "judge yet). st/s: steps per second (wide screens).",
]


class RunsTable(DataTable):
    """The runs table: Enter opens a run (shown in the footer), j/k move like the arrows."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Open"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]


class RunsScreen(LaidOutAtTerminalSize, Screen):  # type: ignore[misc]  # (its sync _on_resize before Screen's async one: Textual calls either)
    """All runs under PATH, the sick ones first. Installed once by the app: Esc back from a
    run's dashboard finds the filter, the order and the cursor as they were."""

    DEFAULT_CSS = """
    RunsScreen #runs { height: 1fr; }
    RunsScreen #runs-detail { height: 3; width: 1fr; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    RunsScreen #runs-status { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS = [
        Binding("slash", "filter", "Filter"),
        Binding("s", "sort", "Sort"),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "clear", "Clear", show=False),
    ]

    class Open(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(
        self, rows: dict[str, RunRow], *, path: str = "", clock=time.monotonic, wall=time.time, live: bool = True
    ) -> None:
        super().__init__()
        self.rows = rows
        self.path = path
        self.clock = clock
        self.wall = wall
        self.live = live  # following: a run that stops writing is "stalled"
        self.filter_text = ""
        self.sort_i = 0
        self._order: list[str] = []
        self._layout: tuple[int, int, bool] | None = None
        self._shown: dict[tuple[str, str], tuple[str, CellStyle]] = {}
        self._texts: dict[str, str] = {}
        self._n_rows = -1
        self._longest = 3
        self._tick_due = 0.0  # monotonic time before which no age can read differently
        self._ticker = Ticker(self, self.tick)  # armed for then (not a fixed 1 Hz: every wake-up costs)
        self._mounted = False
        self.repaints = 0  # cells redrawn so far (tests, the idle benchmark)

    def compose(self) -> ComposeResult:
        yield Label(id="runs-status")
        yield Input(placeholder="filter runs by name (Enter: keep, Esc: clear)", id="runs-filter")
        yield RunsTable(id="runs", cursor_type="row", zebra_stripes=False)
        yield Label(id="runs-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#runs-filter").display = False
        self.refresh_rows()
        self.query_one(DataTable).focus()
        self._mounted = True
        self._ticker.arm(TICK)

    def on_unmount(self) -> None:
        self._mounted = False
        self._ticker.stop()

    def on_screen_suspend(self) -> None:
        """A run's dashboard is on top: nothing here is seen, no clock to keep."""
        self._mounted = False
        self._ticker.stop()

    def on_screen_resume(self) -> None:
        if not self.is_mounted:
            return
        self._mounted = True
        self.refresh_rows()
        if not self.query_one("#runs-filter", Input).has_focus:
            self.query_one(DataTable).focus()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(RUNS_HELP_KEYS, RUNS_LEGEND, title="tsm-watch runs screen keys"))

    def _arm(self, delay: float) -> None:
        if self._mounted:
            self._ticker.arm(delay)

    def tick(self) -> None:
        """The clock moved: only the ages can read differently (and a run turning
        stalled moves up: then the whole table)."""
        if not self._order or self._layout is None:
            self.refresh_rows()
            return
        now = self.clock()
        if now < self._tick_due:  # no age can read differently yet (forecast below)
            self._arm(self._tick_due - now + TICK_SLACK)
            return
        try:
            t = self.query_one(DataTable)
        except Exception:  # noqa: BLE001 - not mounted (any more)
            return
        wall = self.wall()
        changed = []
        due = TICK_TRUST
        for name in self._order:
            r = self.rows[name]
            idle = r.activity.idle(now, wall)
            if idle is not None:  # when this row's age text or its "stalled" next changes
                due = min(due, age_changes_in(idle))
                after = r.activity.stall_after() if self.live else None
                if after is not None and idle <= after:
                    due = min(due, after - idle)
            cell = self._age(r, now, wall)
            old = self._shown.get((name, "age"))
            if old != cell:
                if old is None or (old[1] is None) != (cell[1] is None):  # stalled or no longer
                    self.refresh_rows()
                    return
                changed.append((name, cell))
        for name, cell in changed:
            self._shown[(name, "age")] = cell
            t.update_cell(name, "age", _content(*cell))
            self.repaints += 1
        self._tick_due = now + max(0.0, due)
        self._arm(max(TICK_MIN, due) + TICK_SLACK)

    def on_resize(self) -> None:
        self.refresh_rows()

    # ---------------------------------------------------------------- rows
    def _stalled(self, r: RunRow, now: float, wall: float) -> float | None:
        return r.activity.stalled_for(now, wall) if self.live else None

    def _key(self, r: RunRow, now: float, wall: float):
        mode = SORTS[self.sort_i]
        if mode == "name":
            return (r.name,)
        if mode == "step":
            return (-(r.activity.last_step or 0), r.name)
        if mode == "age":
            idle = r.activity.idle(now, wall)
            return (idle if idle is not None else float("inf"), r.name)
        stalled = self._stalled(r, now, wall) is not None
        return (-r.worst().rank - (0.5 if stalled else 0.0), r.name)

    def order(self, now: float | None = None) -> list[str]:
        now = self.clock() if now is None else now
        wall = self.wall()
        f = self.filter_text.lower()
        rows = [r for r in self.rows.values() if not f or f in r.name.lower()]
        return [r.name for r in sorted(rows, key=lambda r: self._key(r, now, wall))]

    def _age(self, r: RunRow, now: float, wall: float) -> tuple[str, str | None]:
        stalled = self._stalled(r, now, wall)
        idle = r.activity.idle(now, wall)
        if idle is None:
            return "-", None
        if stalled is not None:
            return f"stall {age_text(stalled)}", "bold $warning"
        ended = r.activity.ended
        if ended == "crashed":
            return f"crash {age_text(idle)}", "bold $error"
        if ended == "stopped":
            return f"stop {age_text(idle)}", "$warning"
        if r.activity.done:
            return f"done {age_text(idle)}", MUTED
        if ended == "exited":
            return f"exit {r.activity.exit_code} {age_text(idle)}", "bold $error"
        return age_text(idle), None

    def _cells(self, r: RunRow, now: float, wall: float, cw: int, rate_col: bool) -> list[tuple[str, str, CellStyle]]:
        """(column key, text, style) of one row."""
        w = r.worst_check()
        crit, warn = r.counts()
        out: list[tuple[str, str, CellStyle]] = [
            ("age", *self._age(r, now, wall)),
            ("step", "-" if r.activity.last_step is None else str(r.activity.last_step), None),
            (
                "worst",
                "-"
                if w is None
                else (f"{SHORT.get(w.id, w.id)[:5]} {_WORD[w.status]}" if w.status.rank > Status.PASS.rank else "ok"),
                _STYLE[w.status] if w is not None else None,
            ),
            ("cw", f"{crit}/{warn}", "bold $error" if crit else ("bold $warning" if warn else None)),
            ("also", f"+{r.shared[1]}" if r.shared else "", "bold $warning" if r.shared else None),
        ]
        if cw == 1:  # one column: a coloured letter per check
            got = [r.checks.get(cid) for cid, _, _ in COLUMNS]
            out.append(
                (
                    "checks",
                    "".join(_LETTER[c.status] if c else "-" for c in got),
                    tuple(_STYLE[c.status] if c else "dim" for c in got),
                )
            )
        else:
            for cid, _, _ in COLUMNS:
                c = r.checks.get(cid)
                out.append((cid, "-", "dim") if c is None else (cid, _WORD[c.status], _STYLE[c.status]))
        if rate_col:
            rate = r.activity.steps_per_s(now)
            out.append(("rate", "-" if rate is None else f"{rate:.1f}", None))
        return out

    def _columns(self, t: DataTable, name_w: int, cw: int, rate_col: bool) -> None:
        t.clear(columns=True)
        t.add_column("run", key="run", width=name_w)
        for key, title, w in LEAD:
            t.add_column(title, key=key, width=w)
        if cw == 1:
            t.add_column("".join(letter for _, _, letter in COLUMNS), key="checks", width=6)
        else:
            for cid, title, _ in COLUMNS:
                t.add_column(title[:cw], key=cid, width=cw)
        if rate_col:
            t.add_column("st/s", key="rate", width=5)
        self._order = []
        self._shown = {}

    def refresh_rows(self) -> None:
        """Rows as the clock and the data say now; only cells whose text changed are redrawn."""
        self._tick_due = 0.0  # the data moved: the next tick forecasts again
        self._arm(TICK)
        try:
            t = self.query_one(DataTable)
        except Exception:  # noqa: BLE001 - not mounted (yet / any more)
            return
        now, wall = self.clock(), self.wall()
        width = t.size.width or self.size.width or 80
        if len(self.rows) != self._n_rows:
            self._n_rows = len(self.rows)
            self._longest = max((len(safe(n, 200)) for n in self.rows), default=3)
        longest = self._longest
        lay = layout(width, longest)
        if lay != self._layout:  # a resize, or a new run with a longer name
            self._layout = lay
            self._columns(t, *lay)
        name_w, cw, rate_col = lay
        order = self.order(now)
        highlighted = self._order[t.cursor_row] if 0 <= t.cursor_row < len(self._order) else None
        if order != self._order:
            t.clear()
            self._shown = {}
            for name in order:
                cells = [("run", _elide(safe(name, 200), name_w), None)] + self._cells(
                    self.rows[name], now, wall, cw, rate_col
                )
                t.add_row(*[_content(x, s) for _, x, s in cells], key=name)
                for key, x, s in cells:
                    self._shown[(name, key)] = (x, s)
                self.repaints += len(cells)
            self._order = order
            if order:
                # the cursor on top stays on top (the sickest run); moved down, it follows its run
                if t.cursor_row > 0 and highlighted in order:
                    row = order.index(highlighted)
                else:
                    row = min(max(t.cursor_row, 0), len(order) - 1)
                t.move_cursor(row=row)
        else:
            for name in order:
                for key, x, s in self._cells(self.rows[name], now, wall, cw, rate_col):
                    if self._shown.get((name, key)) != (x, s):
                        self._shown[(name, key)] = (x, s)
                        t.update_cell(name, key, _content(x, s))
                        self.repaints += 1
        self._status(now, wall, cw, width)
        self._detail(t)

    def _set(self, widget_id: str, text: str) -> None:
        if self._texts.get(widget_id) != text:
            self._texts[widget_id] = text
            self.query_one(f"#{widget_id}", Label).update(Content(text))

    def _status(self, now: float, wall: float, cw: int, width: int) -> None:
        failing = sum(1 for r in self.rows.values() if r.worst() == Status.FAIL)
        stalled = sum(1 for r in self.rows.values() if self._stalled(r, now, wall) is not None)
        dead = sum(1 for r in self.rows.values() if r.activity.ended == "crashed")
        text = (
            f"{len(self.rows)} runs, {failing} failing, {stalled} stalled, {dead} crashed, by {SORTS[self.sort_i]}"
            + (f", filter {safe(self.filter_text, 20)}" if self.filter_text else "")
        )
        if cw == 1:
            text += "; sglbpn = spike grad lr batch plat nan"
        room = width - len(text) - 2
        if room > 8:
            text = f"{_elide(safe(self.path, 200), room)}  {text}"
        self._set("runs-status", text)

    def _detail(self, t: DataTable) -> None:
        """The highlighted run: its worst check's reason and its newest alert."""
        name = self._order[t.cursor_row] if 0 <= t.cursor_row < len(self._order) else None
        if name is None:
            self._set("runs-detail", "")
            return
        r = self.rows[name]
        w = r.worst_check()
        first = safe(name, 80)
        if w is not None and w.status.rank > Status.PASS.rank:
            first += f": {w.title} {w.status.value} - {safe(w.summary, 300)}"
        elif w is not None:
            first += ": every check passes or has nothing to judge yet"
        if r.shared:
            first += f" · spike at {r.shared[0]} also in {r.shared[1]} other run(s)"
        a = r.newest_critical or r.newest
        what = "newest critical" if r.newest_critical is not None else "newest"
        second = f"{what}: step {a.step} {a.check}: {safe(a.message, 300)}" if a is not None else "no alert yet"
        # what to do first: the critical alert's first action (else the newest alert's)
        act = next((x.actions[0] for x in (r.newest_critical, r.newest) if x is not None and x.actions), None)
        third = f"→ {safe(act, 300)}" if act else ("Enter: the run's dashboard" if a is None else "no action needed")
        self._set("runs-detail", f"{first}\n{second}\n{third}")

    # ---------------------------------------------------------------- keys
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(self.query_one(DataTable))

    def action_open(self) -> None:
        t = self.query_one(DataTable)
        if 0 <= t.cursor_row < len(self._order):
            self.post_message(self.Open(self._order[t.cursor_row]))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value in self.rows:
            self.post_message(self.Open(event.row_key.value))

    def action_sort(self) -> None:
        self.sort_i = (self.sort_i + 1) % len(SORTS)
        self.refresh_rows()

    def action_filter(self) -> None:
        inp = self.query_one("#runs-filter", Input)
        inp.display = True
        inp.focus()

    def action_clear(self) -> None:
        inp = self.query_one("#runs-filter", Input)
        inp.value = ""
        inp.display = False
        self.filter_text = ""
        self.refresh_rows()
        self.query_one(DataTable).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "runs-filter":
            self.filter_text = event.value.strip()
            self.refresh_rows()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "runs-filter":
            if not event.value.strip():
                event.input.display = False
            self.query_one(DataTable).focus()
