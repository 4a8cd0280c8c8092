"""The monitor's panels. Parents set attributes / call ``show_*`` methods;
every string that came from a log (messages, actions, summaries, paths, format
names) is passed through :func:`tsm_tui.core.sanitize.clean` and rendered as a
``Content`` object, never parsed as markup.
"""

from __future__ import annotations

import math
import re
import textwrap

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import Alert, CheckResult, Severity, Status
from tsm_tui.core.sanitize import clean
from tsm_tui.views.tui.fresh_size import LaidOutAtTerminalSize

#: short titles for narrow panes (the report's titles are longer): the detectors' own ``label``
SHORT_TITLES = {d.id: d.label for d in DETECTORS}
CHECK_IDS = [d.id for d in DETECTORS]
#: the style of secondary text inside Content: "dim" resolves in every theme, ``$text-muted``
#: does not (a DataTable cell drew it black on near-black, a Label plain white; ansi-dark unmuted)
MUTED = "dim"
SEV_STYLE = {Severity.CRITICAL: "bold $error", Severity.WARNING: "bold $warning", Severity.INFO: MUTED}
SEV_WORD = {Severity.CRITICAL: "FAIL", Severity.WARNING: "WARN", Severity.INFO: "info"}


def set_text(widget, content: Content) -> None:
    """Update a fixed-size Static/Label only when its text changed, without a
    layout pass (a layout per tick was most of the idle cost)."""
    if getattr(widget, "_tsm_shown", None) == content:
        return
    widget._tsm_shown = content
    widget.update(content, layout=False)


def safe(text: object, max_len: int = 2000) -> str:
    """Log-derived text made printable (no escapes, no controls, bounded)."""
    return clean(str(text), max_len=max_len)


# --------------------------------------------------------------------- checks
class CheckRow(Horizontal):
    """One check: a status badge (coloured by class through theme variables) and its reason.
    A FAIL's reason takes the title's column too and up to four lines: it is the first
    thing to read on a small screen, and must not be cut mid-sentence."""

    DEFAULT_CSS = """
    CheckRow { height: auto; max-height: 2; width: 1fr; }
    CheckRow .badge { width: 5; text-style: bold; }
    CheckRow .title { width: 12; }
    CheckRow .reason { width: 1fr; height: auto; max-height: 1; text-wrap: nowrap; text-overflow: ellipsis;
        color: $text-muted; }
    CheckRow.-warn .reason { max-height: 2; text-wrap: wrap; }
    CheckRow.-fail { max-height: 4; }
    CheckRow.-fail .title { display: none; }
    CheckRow.-fail .reason { max-height: 4; text-wrap: wrap; color: $text; }
    """

    def __init__(self, check_id: str) -> None:
        super().__init__(id=f"check-{check_id}", classes="check-row -skip")
        self.check_id = check_id
        self.status: Status = Status.SKIP
        self.summary = "waiting for data"  # the reason as shown (sanitised)

    def compose(self) -> ComposeResult:
        yield Label("····", classes="badge")
        yield Label(SHORT_TITLES.get(self.check_id, self.check_id), classes="title")
        yield Label(Content("waiting for data"), classes="reason")

    def show(self, res: CheckResult) -> None:
        if self.status != res.status or not self.has_class(f"-{res.status.value.lower()}"):
            self.status = res.status
            for st in Status:
                self.set_class(st == res.status, f"-{st.value.lower()}")
        set_text(self.query_one(".badge", Label), Content(res.status.value))
        summary = safe(res.summary, 400)
        if res.status in (Status.WARN, Status.FAIL):
            summary = step_first(summary)
        key = (res.status == Status.FAIL, summary)
        if getattr(self, "_shown_key", None) != key:
            self._shown_key = key
            self.summary = summary
            text = Content(summary)
            if res.status == Status.FAIL:  # the title leads the reason (its column is hidden)
                text = Content.assemble((SHORT_TITLES.get(self.check_id, self.check_id), "bold $error"), "  ", summary)
            set_text(self.query_one(".reason", Label), text)
            self.tooltip = Content(f"{res.title}: {safe(res.summary, 1000)}")


_STEP = re.compile(r"\b(?:at|since|from) steps? (\d[\d,]*)")


def step_first(summary: str) -> str:
    """A reason whose first clause says when it happened, led by that step: ``step 905:
    spike (peak 4217 at step 1020) …`` (a narrow pane cuts the end of the line, where the
    step usually is). The phrase "at step N" it came from is dropped when nothing else
    hangs on it (a list of steps "at step 500, 900" keeps it); a step in a later clause
    or in a name ("newest step_1500.pt (step 1500)") is not the reason's."""
    first = summary.split(";", 1)[0]
    m = _STEP.search(first)
    if m is None:
        return summary
    step = m.group(1).rstrip(",")
    rest = re.sub(rf"\s+at step {re.escape(step)}\b(?!,\s*\d)", "", summary, count=1)
    return f"step {step}: {rest}"


class CheckPanel(Vertical):
    """The checks, one row each; ``compact`` (a short screen with a FAIL to show):
    the passing and skipped checks folded into one line under the others."""

    DEFAULT_CSS = """
    CheckPanel { height: auto; }
    CheckPanel #checks-rest { display: none; width: 1fr; height: auto; max-height: 2; color: $text-muted; }
    CheckPanel.-compact CheckRow.-pass, CheckPanel.-compact CheckRow.-skip { display: none; }
    CheckPanel.-compact #checks-rest { display: block; }
    """

    def compose(self) -> ComposeResult:
        for cid in CHECK_IDS:
            yield CheckRow(cid)
        yield Label(id="checks-rest")

    def show(self, results: list[CheckResult]) -> None:
        for res in results:
            try:
                self.query_one(f"#check-{res.id}", CheckRow).show(res)
            except Exception:  # an unknown check id: ignore rather than crash the view
                continue
        self._rest()

    def set_compact(self, on: bool) -> None:
        if on != self.has_class("-compact"):
            self.set_class(on, "-compact")
            self._rest()

    def _rest(self) -> None:
        """The folded line: ``PASS NaN/Inf, Checkpoints · SKIP Batch size, Plateau``."""
        if not self.has_class("-compact"):
            return
        rows = list(self.query(CheckRow))
        parts: list = []
        for st, style in ((Status.PASS, "$success"), (Status.SKIP, MUTED)):
            names = [SHORT_TITLES.get(r.check_id, r.check_id) for r in rows if r.status == st]
            if names:
                parts += ([" · "] if parts else []) + [(st.value, f"bold {style}"), " " + ", ".join(names)]
        set_text(self.query_one("#checks-rest", Label), Content.assemble(*parts))

    def statuses(self) -> dict[str, str]:
        return {row.check_id: row.status.value for row in self.query(CheckRow)}

    def failing(self) -> bool:
        return any(row.status == Status.FAIL for row in self.query(CheckRow))


# --------------------------------------------------------------------- alerts
def _val(v: float | None) -> str:
    return fmt(v) if v is not None else "-"


def what_happened(a: Alert) -> str:
    """The first sentence of the message (value against baseline), sanitised."""
    msg = safe(a.message, 600)
    cut = msg.find(". ")
    if 0 < cut < 160:
        msg = msg[: cut + 1]
    elif len(msg) > 160:
        msg = msg[:159] + "…"
    return msg


def alert_prompt(a: Alert) -> Content:
    """One alert as a list row: severity, step, what happened, how many actions
    (the message names its check: "Loss spike at step 500: 7.19 vs baseline 2.26")."""
    step = "-" if a.step is None else str(a.step)
    parts: list = [
        (f"{SEV_WORD[a.severity]:<4} ", SEV_STYLE[a.severity]),
        (f"{step:>6} ", "bold"),
        what_happened(a),
    ]
    if a.actions:
        parts.append((f"  [{len(a.actions)} action{'s' if len(a.actions) != 1 else ''}]", "$accent"))
    return Content.assemble(*parts)


def alert_detail(a: Alert) -> Content:
    """Everything about one alert: message, value vs baseline, numbered actions."""
    step = "-" if a.step is None else str(a.step)
    parts: list = [
        (f"{SEV_WORD[a.severity]} ", SEV_STYLE[a.severity]),
        (f"{SHORT_TITLES.get(a.check, safe(a.check, 40))} at step {step}", "bold"),
        "\n",
        what_happened(a),
    ]
    if a.value is not None or a.baseline is not None:
        ratio = ""
        if a.value is not None and a.baseline and math.isfinite(a.value) and a.baseline > 0:
            ratio = f" ({fmt(a.value / a.baseline, 2)}x)"
        parts += ["\n", ("value ", MUTED), _val(a.value), ("  baseline ", MUTED), _val(a.baseline), ratio]
    if a.actions:
        parts += ["\n", ("Recommended actions:", "bold")]
        for i, act in enumerate(a.actions, 1):
            parts += ["\n", (f"{i}. ", "$accent"), safe(act, 1000)]
    else:
        parts += ["\n", ("No action needed.", MUTED)]
    full, first = safe(a.message, 2000), what_happened(a)
    rest = full[len(first) :].strip() if full.startswith(first) else full
    if rest:  # the rest of the message after the actions: they come first on a small screen
        parts += ["\n", ("Details: ", MUTED), rest]
    parts += ["\n", ("PgUp/PgDn or [ ] scroll · arrows: next alert · Esc closes", MUTED)]
    return Content.assemble(*parts)


class AlertList(OptionList):
    """The alert feed: newest at the bottom; j/k move like the arrows."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.alerts: list[Alert] = []  # the alerts currently listed, in order
        self._stick_end = False  # the last set / append asked to follow the newest alert

    def watch_virtual_size(self, old, new) -> None:
        """The list measures its lines when it renders, after the scroll_end of a
        set / append may have run against the old size: follow the newest again."""
        if self._stick_end and new.height > old.height:
            self.scroll_end(animate=False, immediate=True)

    def set_alerts(self, alerts: list[Alert], follow: bool) -> None:
        """Replace the list (a filter change, a new primary source)."""
        keep = self.highlighted
        self.alerts = list(alerts)
        self.clear_options()
        self.add_options([Option(alert_prompt(a)) for a in self.alerts])
        self._highlight_newest()
        self._stick_end = follow
        if follow:
            self.scroll_end(animate=False, immediate=True)
            self.call_after_refresh(self.scroll_end, animate=False)  # again once laid out (its size known)
        elif keep is not None and keep < len(self.alerts):
            self.highlighted = keep

    def append_alerts(self, alerts: list[Alert], follow: bool) -> None:
        if not alerts:
            return
        on_newest = self.highlighted is not None and self.highlighted == self.option_count - 1
        self.alerts.extend(alerts)
        self.add_options([Option(alert_prompt(a)) for a in alerts])
        self._highlight_newest()
        if follow and on_newest:  # following: the highlight stays on the newest alert
            self.highlighted = self.option_count - 1
        self._stick_end = follow
        if follow:
            self.scroll_end(animate=False, immediate=True)
            self.call_after_refresh(self.scroll_end, animate=False)  # again once laid out (its size known)

    def revise(self, old: Alert, new: Alert) -> None:
        """``old`` (listed) reads as ``new`` now: same row, new text."""
        for i, a in enumerate(self.alerts):
            if a is old:
                self.alerts[i] = new
                self.replace_option_prompt_at_index(i, alert_prompt(new))
                return

    def _highlight_newest(self) -> None:
        """Focused with nothing highlighted (the list was empty when it got the
        focus): the newest alert is, so Enter opens it at once."""
        if self.highlighted is None and self.option_count and self.has_focus:
            self.highlighted = self.option_count - 1

    def on_focus(self, event) -> None:
        if self.highlighted is None and self.option_count:
            self.highlighted = self.option_count - 1  # the newest: Enter opens it

    def selected_alert(self) -> Alert | None:
        i = self.highlighted
        return self.alerts[i] if i is not None and 0 <= i < len(self.alerts) else None


class AlertDetail(VerticalScroll):
    DEFAULT_CSS = """
    AlertDetail { height: auto; max-height: 12; display: none; }
    AlertDetail.-open { display: block; }
    """

    alert: Alert | None = None  # the alert shown

    def compose(self) -> ComposeResult:
        yield Static(id="detail-text")

    def show(self, a: Alert | None, keep_scroll: bool = False) -> None:
        self.alert = a
        self.set_class(a is not None, "-open")
        if a is not None:
            self.query_one("#detail-text", Static).update(alert_detail(a))
            if not keep_scroll:
                self.scroll_home(animate=False)


def _wrapped(text: str, width: int, lines: int) -> list[str]:
    """``text`` wrapped to ``width`` cells, at most ``lines`` lines, the last cut with "…"."""
    out = textwrap.wrap(text, max(8, width), break_long_words=True, break_on_hyphens=False) or [""]
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: max(0, width - 1)].rstrip() + "…"
    return out


def pinned_text(a: Alert, width: int, lines: int = 2) -> Content:
    """The newest critical alert in a few lines: what happened, then its first action."""
    body: list = []
    for ln in _wrapped(what_happened(a), width, lines):
        body += [ln, "\n"]
    if a.actions:
        for ln in _wrapped("→ " + safe(a.actions[0], 600), width, lines):
            body += [(ln, "bold"), "\n"]
    return Content.assemble(*body[:-1])


class PinnedAlert(Widget):
    """The newest critical alert of the run, pinned above the alert list: a FAIL is read
    on the first screen, whatever the list shows (``c`` opens its detail).

    Its text is wrapped by Textual's layout, not by a guess: ``get_content_height`` and
    ``render`` wrap it at the width the layout gives (a ``Static`` updated with text
    wrapped at a guessed width kept the height of the guess once shown: two blank rows)."""

    DEFAULT_CSS = """
    PinnedAlert { display: none; height: auto; border: round $error; padding: 0 0; }
    PinnedAlert.-open { display: block; }
    """

    alert: Alert | None = None
    lines = 2

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple | None = None  # what is on screen: (alert, its first action, lines)
        self._text: tuple[int, Content] | None = None  # the text wrapped at a width

    def show(self, a: Alert | None, lines: int = 2) -> None:
        self.set_class(a is not None, "-open")
        key = (id(a), a.actions[0] if a is not None and a.actions else None, lines)
        if self._shown == key:
            return
        self._shown, self._text = key, None
        self.alert, self.lines = a, lines
        if a is None:
            return
        n = len(a.actions)
        self.border_title = f"{SEV_WORD[a.severity]} step {'-' if a.step is None else a.step}"
        self.border_subtitle = f"c: detail{f', {n} actions' if n > 1 else ''}"
        self.refresh(layout=True)

    def _wrapped_at(self, width: int) -> Content:
        if self.alert is None:
            return Content("")
        if self._text is None or self._text[0] != width:
            self._text = (width, pinned_text(self.alert, width, self.lines))
        return self._text[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._wrapped_at(width).get_height({}, width) if self.alert is not None else 0

    def render(self) -> Content:
        return self._wrapped_at(self.content_size.width)


# ----------------------------------------------------------------------- help
HELP_KEYS = [
    ("q / ctrl+q", "quit"),
    ("?", "this help"),
    ("p", "pause the view (data keeps flowing)"),
    ("f", "follow the tail (unpause, back to the newest step)"),
    ("/", "filter alerts (Enter keeps it, Esc clears it)"),
    ("l", "log scale on/off"),
    ("m / 1-5", "next metric / pick a metric for the focus plot"),
    ("w", "window: whole run / last 1000 / last 200 steps"),
    ("up/down, j/k", "move in the alert list (an open detail follows)"),
    ("Enter", "alert detail; the plot centres on its step"),
    ("c", "detail of the newest FAIL (pinned above the alerts)"),
    ("PgDn/PgUp, ] [", "scroll the alert detail (its actions)"),
    ("Esc", "close the detail / filter"),
    ("ctrl+p", "command palette (themes: try ansi-dark in tmux)"),
]


HELP_NOTES = [
    "Checks: PASS / WARN / FAIL / SKIP (waiting: too little data to judge yet).",
    "A new FAIL rings the bell (--no-bell turns it off).",
]


class HelpScreen(LaidOutAtTerminalSize, ModalScreen[None]):  # type: ignore[misc]  # (its sync _on_resize before Screen's async one: Textual calls either)
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 96%; max-width: 100; height: auto; max-height: 96%;
        border: round $accent; background: $surface; padding: 0 1; }
    HelpScreen .key { width: 16; color: $accent; text-style: bold; }
    HelpScreen .row { height: auto; width: 1fr; }
    HelpScreen .what { width: 1fr; }
    HelpScreen .muted { width: 1fr; }
    """

    def __init__(
        self, keys: list[tuple[str, str]] | None = None, notes: list[str] | None = None, title: str = "tsm-watch keys"
    ) -> None:
        """The keys of the screen it was opened from (the dashboard's by default) and notes under them."""
        super().__init__()
        self.keys = keys if keys is not None else HELP_KEYS
        self.notes = notes if notes is not None else HELP_NOTES
        self.title_text = title

    def compose(self) -> ComposeResult:
        with VerticalScroll() as v:
            v.border_title = self.title_text
            for key, what in self.keys:
                with Horizontal(classes="row"):
                    yield Label(Content(key), classes="key")
                    yield Label(Content(what), classes="what")
            for note in self.notes:
                yield Label(Content(note), classes="muted")

    async def action_dismiss(self, result=None) -> None:
        self.dismiss(None)
