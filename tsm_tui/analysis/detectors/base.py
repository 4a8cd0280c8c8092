"""The detector interface: pure, incremental, no I/O, no UI.

``update(record)`` takes one step record and returns the alerts it raises
(usually none); ``result()`` is the check's current status; ``finalize()`` is
called once when a finished log has been read to its end.

``update`` is the only semantics. Frames (many rows as numpy columns) go through
one shared driver, ``Detector.update_frame``, which asks the detector's optional
hooks (``prepare`` / ``screen`` / ``bulk``, contract below) which rows can be
committed in bulk and feeds the others to ``update``; without hooks, every row.
"""

from __future__ import annotations

import sys

import numpy as np

from tsm_tui.core.record import Alert, CheckResult, Status, StepRecord
from tsm_tui.analysis.state import RunState
from tsm_tui.core.settings import Settings


class Detector:
    # -- what the check is called where: every view reads these (the registry,
    # ``detectors.DETECTORS`` / ``detectors.CHECKS``), none keeps a table of its own
    #: the check id (JSON ``checks[].id``, an alert's ``check``, SARIF's ruleId): never renamed
    id: str = ""
    #: its name in reports, JSON and SARIF
    title: str = ""
    #: its name in the TUI's check panel (12 columns wide; default: ``title``)
    label: str = ""
    #: at most 5 characters: the runs table's "worst" cell and the runs report's columns (default: ``id``)
    short: str = ""
    #: (heading, letter) of its column in the TUI's runs table; None: no column of its own
    column: tuple[str, str] | None = None
    #: one of the five core checks: a column of the many-runs report
    core: bool = False
    #: the series the TUI plots when one of its alerts is opened (None: the plot stays)
    metric: str | None = None
    #: where it stands among the checks (reports, the check panel, JSON): lower first
    order: int = 1000
    #: of two checks at the same status, the one the runs table names as a run's worst
    #: (what a person acts on first): lower first
    urgency: int = 1000
    #: a check of the run's several files together, fed by the run (``ranks``), not a
    #: check each source's Monitor runs; it is reported only when it applies
    per_run: bool = False
    #: also fed the records of auxiliary sources (generations files beside the log)
    reads_samples: bool = False
    #: its verdict comes from the log's series (False: from the run's files only, such
    #: as checkpoints on disk); a report none of whose ``from_log`` checks ran judged
    #: nothing about the training (analysis/coverage.py)
    from_log: bool = True

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        cls.label = cls.label or cls.title
        cls.short = cls.short or cls.id[:5]

    @classmethod
    def description(cls) -> str:
        """What the check does, on one line: the first paragraph of its module's
        docstring (SARIF's rule description), else of the class's."""
        mod = sys.modules.get(cls.__module__)
        text = ((mod.__doc__ if mod is not None else None) or cls.__doc__ or "").strip().split("\n\n")[0]
        return " ".join(text.split())

    def __init__(self, settings: Settings, state: RunState) -> None:
        self.settings = settings
        self.state = state

    def update(self, rec: StepRecord) -> list[Alert]:  # pragma: no cover - interface
        raise NotImplementedError

    # -- the columnar path ------------------------------------------------------------
    # One driver for every detector: ``update_frame`` below. A detector gets it by
    # defining ``bulk`` (and usually ``screen``, sometimes ``prepare``); one that
    # defines none of them is fed its frames row by row through ``update``: exact from
    # the start, only slower, so a check listed in ``DETECTORS`` must define ``bulk``
    # (tests/analysis/test_frames.py test_every_detector_uses_the_driver).
    #
    # The contract (``update`` stays the only semantics; the hooks only decide which
    # rows can skip it, and must leave exactly the state ``update`` would):
    #
    # ``prepare(fr) -> cx``  once per frame: what the hooks read of it (the columns,
    #     a mask of the rows that count ...), passed to them as ``cx``; kept out of
    #     the detector's state. ``ROWS`` instead: this frame goes row by row (values
    #     the bulk path's bounds cannot handle). Default: None.
    # ``screen(fr, cx, a, b) -> indices``  sorted indices of the rows in ``[a, b)``
    #     that need ``update``, judged from the detector's state after the rows
    #     before ``a``: it may flag rows that do not need it, never miss one.
    #     Default: none (``bulk`` finds them itself).
    # ``bulk(fr, cx, a, q) -> None | s``  commits rows ``[a, q)``, none of them
    #     flagged, exactly as ``update`` would (counts, rolling windows, running
    #     maxima ...). It may stop early: rows ``[a, s)`` committed, ``s`` (a <= s < q)
    #     goes through ``update`` next; stopping at a row that did not need it is
    #     only slower. None (or q): all committed.
    #
    # The driver: screen the rest of the frame; bulk-commit up to the first flagged
    # row; feed the flagged rows (with the rows between them when they come close
    # together) through ``update``; screen again from the new state, over a short
    # window first (RESCREEN rows: events cluster), then over the rest of the frame.
    # When the bulk stops within RUN rows of the last event (a detector whose bulk
    # does its own screening, in an incident), the next RUN rows go through
    # ``update``: cheaper than a bulk call per row.
    def prepare(self, fr):
        return None

    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        return NONE

    def bulk(self, fr, cx, a: int, q: int) -> int | None:  # pragma: no cover - hook
        raise NotImplementedError

    def after_frame(self, fr) -> list[Alert]:
        """Called by the driver after a frame's rows: a detector that also judges
        sub-series of a record (the loss check's loss terms, components.py) feeds
        them here, as frames of their own. Default: nothing."""
        return []

    def update_frame(self, fr) -> list[Alert]:
        """A Frame (tsm_tui.core.frame) of records: exactly what feeding its rows one
        by one through ``update`` gives (alerts, checks, state), through the hooks
        above when the detector has them, else row by row."""
        out = self._drive(fr)
        more = self.after_frame(fr)
        return out + more if more else out

    def _drive(self, fr) -> list[Alert]:
        n = fr.n
        if type(self).bulk is Detector.bulk:
            return self.update_rows(fr, 0, n)
        cx = self.prepare(fr)
        if cx is ROWS:
            return self.update_rows(fr, 0, n)
        screen, bulk = self.screen, self.bulk
        out: list[Alert] = []
        a, win, hot = 0, n, False
        while a < n:
            b = min(n, a + win)
            idx = screen(fr, cx, a, b)
            q = int(idx[0]) if len(idx) else b
            stopped = False
            if q > a:
                stop = bulk(fr, cx, a, q)
                if stop is not None and stop < q:
                    q, idx, stopped = stop, np.array([stop]), True
            if q == b:  # quiet: the rest of the frame next
                a, win, hot = b, n, False
                continue
            e = _run_end(idx)
            if stopped and hot and q - a < RUN:  # the bulk found another event right away
                e = max(e, min(n, q + RUN))
            out += self.update_rows(fr, q, e)
            a, win, hot = e, RESCREEN, True
        return out

    def update_rows(self, fr, a: int, b: int) -> list[Alert]:
        """Rows ``a`` .. ``b - 1`` of a frame through ``update``, each with the RunState it saw."""
        out: list[Alert] = []
        update = self.update
        for i in range(a, b):
            found = update(fr.sync_row(i))
            if found:
                out += found
        return out

    def view(self, a: Alert) -> Alert:
        """How one of this detector's alerts reads now (a report after later
        records); never changes the alert itself. Default: as it was said."""
        return a

    def revised(self) -> list[str]:
        """Keys of this detector's alerts whose ``view`` changed since the last
        call (the live views re-show them). Default: none ever does."""
        return []

    def on_resume(self, step: int) -> None:
        """The log went back to ``step`` (restart from a checkpoint)."""

    def finalize(self) -> list[Alert]:
        return []

    def result(self) -> CheckResult:  # pragma: no cover - interface
        raise NotImplementedError

    def _result(self, status: Status, summary: str) -> CheckResult:
        return CheckResult(self.id, self.title, status, summary)


#: flagged rows at most GAP apart go through ``update`` together, up to RUN rows at a time
GAP, RUN = 8, 32
#: rows screened right after an event (events cluster), before the rest of the frame
RESCREEN = 1024
#: what ``prepare`` returns to have a frame fed row by row
ROWS = object()
#: what ``screen`` returns when no row needs ``update``
NONE = np.empty(0, dtype=np.int64)


def _run_end(idx: np.ndarray) -> int:
    """End (exclusive) of the cluster of flagged rows that starts at ``idx[0]``."""
    q = int(idx[0])
    if len(idx) == 1 or idx[1] - q > GAP:  # (the usual case: one row)
        return q + 1
    near = idx[:RUN]
    near = near[near < q + RUN]
    far = np.flatnonzero(np.diff(near) > GAP)
    return int(near[far[0]] if far.size else near[-1]) + 1
