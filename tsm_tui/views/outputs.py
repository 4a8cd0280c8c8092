"""What the one live loop feeds, built in one place: ``--follow``'s lines (text or
JSON Lines, views/lines.py), the ``--on-alert`` pages (views/pages.py) and the
Prometheus metrics (``--prom-file`` / ``--metrics-port``, views/prometheus.py).

Each is a *subscriber* (``views.subscriber.Subscriber``): ``start(loop, say)`` once
before the first step (``say``: a note for the person watching), ``update(up, loop)``
with every ``LiveUpdate``, ``close()`` at exit; ``wanted(opts, view)`` says whether the
options ask for it in a view (``"follow"`` or ``"tui"``) and ``from_options(opts, root)``
makes it. Its class declares what the command line needs of it: ``FLAGS``, its
command-line flags (``core.flags.Flag`` rows: the command line adds them to its parser
and fills ``Options`` from them, an ``Options`` field or, for a flag of a new exporter,
``Flag(..., "exports.<key>")``: ``opts.exports[key]``), ``check(opts, view)``, their usage
rules, and ``for_report(opts, root)``, its part in ``--report``. ``EXPORTERS`` lists them
in the order they see each update (the lines first: what is printed of a pass does not
wait for a page or a file write). A new exporter, with its flags, is its module and one
entry here.
"""

from __future__ import annotations

from tsm_tui.views.lines import Printer
from tsm_tui.views.pages import Pages
from tsm_tui.views.prometheus import Metrics
from tsm_tui.views.subscriber import ReportHook, Subscriber

EXPORTERS: tuple[type[Subscriber], ...] = (Printer, Pages, Metrics)


def flags() -> tuple:
    """The exporters' flags (``Flag`` rows), in ``EXPORTERS`` order."""
    return tuple(f for cls in EXPORTERS for f in cls.FLAGS)


def check(opts, view: str) -> None:
    """The exporters' usage rules (``UsageError``), in ``EXPORTERS`` order; ``view``: what the
    options ask for (``"preflight"``, ``"follow"``, ``"report"`` or ``"tui"``)."""
    for cls in EXPORTERS:
        cls.check(opts, view)


class Report(ReportHook):
    """The exporters' parts in ``--report`` the options ask for, fed together."""

    def __init__(self, hooks: list[ReportHook]) -> None:
        self.hooks = hooks

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def batch(self, run, source: str, items: list, reader) -> None:
        for h in self.hooks:
            h.batch(run, source, items, reader)

    def finished(self, an) -> None:
        for h in self.hooks:
            h.finished(an)

    def close(self) -> None:
        for h in reversed(self.hooks):
            h.close()


def for_report(opts, root: str) -> Report:
    """The exporters' parts in ``--report`` on ``opts.path`` (``root``: the directory of its runs)."""
    return Report([h for cls in EXPORTERS if (h := cls.for_report(opts, root)) is not None])


class Outputs:
    """The subscribers a view's options asked for, fed together."""

    def __init__(self, subscribers: list) -> None:
        self.subscribers = subscribers

    def __bool__(self) -> bool:
        return bool(self.subscribers)

    def get(self, kind: type):
        """The subscriber of that class (None: not asked for)."""
        return next((s for s in self.subscribers if isinstance(s, kind)), None)

    def start(self, loop, say) -> None:
        for s in self.subscribers:
            s.start(loop, say)

    def update(self, up, loop) -> None:
        for s in self.subscribers:
            s.update(up, loop)

    feed = update  # (the TUI's live worker: ``exporter.feed(up, loop)``)

    def close(self) -> None:
        """Last first: the metrics' final write comes before the pages still queued are waited for."""
        for s in reversed(self.subscribers):
            s.close()


def build(opts, view: str, root: str) -> Outputs:
    """The subscribers ``opts`` asks for in ``view`` (``"follow"`` / ``"tui"``); ``root``:
    where the watched runs are."""
    return Outputs([cls.from_options(opts, root) for cls in EXPORTERS if cls.wanted(opts, view)])
