"""The runs screen: one row per run when PATH holds several (a sweep,
``lightning_logs/``, ``wandb/``, a cluster's job directory).

Each row: the run's name, its last step, steps/s, the time since its last
record (or "stalled"), a coloured cell per check and its newest alert. Failing
and stalled runs come first; ``/`` filters by name, ``s`` cycles the order,
Enter opens the run's dashboard (``RunsScreen.Open``), Esc there comes back.
Text from file names and logs is sanitised and never read as markup.
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from dataclasses import dataclass, field

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Label

from tsm_tui.core.record import Alert, CheckResult, Status
from tsm_tui.views.tui.widgets import ago, safe

STALL_MIN = 60.0  # s; stalled = no record for > max(STALL_MIN, 10 x the run's usual interval)
COLUMNS = (("loss_spike", "spike"), ("grad_norm", "grad"), ("lr_schedule", "lr"), ("batch_size", "batch"),
           ("plateau", "plat"), ("nonfinite", "nan"))
_STYLE = {Status.FAIL: "bold $error", Status.WARN: "bold $warning", Status.PASS: "$success",
          Status.SKIP: "dim"}
SORTS = ("health", "name", "step", "age")


@dataclass
class RunRow:
    """What the runs screen shows of one run (kept by the app, updated from the live loop)."""

    name: str
    last_step: int | None = None
    checks: dict[str, CheckResult] = field(default_factory=dict)
    newest: Alert | None = None
    last_arrival: float | None = None
    arrivals: deque = field(default_factory=lambda: deque(maxlen=32))
    rate: deque = field(default_factory=lambda: deque(maxlen=32))  # (time, step)

    def arrived(self, now: float, step: int | None) -> None:
        if self.last_arrival is not None:
            self.arrivals.append(now - self.last_arrival)
        self.last_arrival = now
        if step is not None:
            self.last_step = step
            self.rate.append((now, step))

    def steps_per_s(self, now: float) -> float | None:
        pts = [(t, s) for t, s in self.rate if now - t <= 30.0]
        if len(pts) < 2:
            return None
        (t0, s0), (t1, s1) = pts[0], pts[-1]
        return (s1 - s0) / (t1 - t0) if t1 > t0 and s1 >= s0 else None

    def stalled_for(self, now: float) -> float | None:
        if self.last_arrival is None:
            return None
        idle = now - self.last_arrival
        med = statistics.median(self.arrivals) if self.arrivals else 0.0
        return idle if idle > max(STALL_MIN, 10 * med) else None

    def worst(self) -> Status:
        return max((c.status for c in self.checks.values()), key=lambda s: s.rank, default=Status.SKIP)

    def other(self) -> CheckResult | None:
        core = {c for c, _ in COLUMNS}
        rest = [c for c in self.checks.values() if c.id not in core and c.status.rank > Status.PASS.rank]
        return max(rest, key=lambda c: c.status.rank, default=None)


def _elide(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: keep // 2] + "…" + text[len(text) - (keep - keep // 2):]


class RunsScreen(Screen):
    """All runs under PATH, the sick ones first."""

    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("slash", "filter", "Filter"),
        Binding("s", "sort", "Sort"),
        Binding("escape", "clear", "Clear", show=False),
    ]

    class Open(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, rows: dict[str, RunRow], *, path: str = "", clock=time.monotonic) -> None:
        super().__init__()
        self.rows = rows
        self.path = path
        self.clock = clock
        self.filter_text = ""
        self.sort_i = 0
        self._order: list[str] = []

    def compose(self) -> ComposeResult:
        yield Label(id="runs-status")
        yield Input(placeholder="filter runs by name (Enter: keep, Esc: clear)", id="runs-filter")
        table = DataTable(id="runs", cursor_type="row", zebra_stripes=False)
        yield table
        yield Footer()

    def on_mount(self) -> None:
        t = self.query_one(DataTable)
        longest = max((len(n) for n in self.rows), default=3)
        t.add_column("run", key="run", width=max(3, min(28, longest)))
        for key, title, w in (("step", "step", 7), ("rate", "st/s", 5), ("age", "last", 7)):
            t.add_column(title, key=key, width=w)
        for cid, title in COLUMNS:
            t.add_column(title, key=cid, width=5)
        t.add_column("other", key="other", width=16)
        t.add_column("newest alert", key="alert", width=60)
        self.query_one("#runs-filter").display = False
        self.refresh_rows()
        t.focus()

    # ---------------------------------------------------------------- rows
    def _key(self, r: RunRow, now: float):
        mode = SORTS[self.sort_i]
        if mode == "name":
            return (r.name,)
        if mode == "step":
            return (-(r.last_step or 0), r.name)
        if mode == "age":
            return (-(now - r.last_arrival) if r.last_arrival is not None else 0.0, r.name)
        stalled = r.stalled_for(now) is not None
        return (-r.worst().rank - (0.5 if stalled else 0.0), r.name)

    def order(self, now: float | None = None) -> list[str]:
        now = self.clock() if now is None else now
        f = self.filter_text.lower()
        rows = [r for r in self.rows.values() if not f or f in r.name.lower()]
        return [r.name for r in sorted(rows, key=lambda r: self._key(r, now))]

    def _cells(self, r: RunRow, now: float) -> list:
        stalled = r.stalled_for(now)
        rate = r.steps_per_s(now)
        age = "-" if r.last_arrival is None else (f"stalled {ago(stalled)}" if stalled is not None
                                                    else ago(now - r.last_arrival))
        cells: list = [Content(_elide(safe(r.name, 200), 28)), Content("-" if r.last_step is None else str(r.last_step)),
                       Content("-" if rate is None else f"{rate:.1f}"),
                       Content.styled(age, "bold $warning") if stalled is not None else Content(age)]
        for cid, _ in COLUMNS:
            c = r.checks.get(cid)
            cells.append(Content.styled(c.status.value, _STYLE[c.status]) if c else Content("-"))
        o = r.other()
        cells.append(Content.styled(f"{o.id} {o.status.value}", _STYLE[o.status]) if o else Content("-"))
        a = r.newest
        cells.append(Content(safe(f"{a.step}: {a.message}", 80)) if a is not None else Content(""))
        return cells

    def refresh_rows(self) -> None:
        t = self.query_one(DataTable)
        now = self.clock()
        order = self.order(now)
        if order != self._order:
            keep = t.cursor_row
            t.clear()
            for name in order:
                t.add_row(*self._cells(self.rows[name], now), key=name)
            self._order = order
            if order:
                t.move_cursor(row=min(keep, len(order) - 1))
        else:
            for name in order:
                for col, cell in zip(["run", "step", "rate", "age", *[c for c, _ in COLUMNS], "other", "alert"],
                                     self._cells(self.rows[name], now)):
                    t.update_cell(name, col, cell)
        failing = sum(1 for r in self.rows.values() if r.worst() == Status.FAIL)
        stalled = sum(1 for r in self.rows.values() if r.stalled_for(now) is not None)
        text = (f"{safe(self.path, 60)}  {len(self.rows)} runs  {failing} failing  {stalled} stalled  "
                f"order: {SORTS[self.sort_i]}" + (f"  filter: {safe(self.filter_text, 20)}" if self.filter_text else ""))
        self.query_one("#runs-status", Label).update(Content(text))

    # ---------------------------------------------------------------- keys
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
