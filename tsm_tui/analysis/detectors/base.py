"""The detector interface: pure, incremental, no I/O, no UI.

``update(record)`` takes one step record and returns the alerts it raises
(usually none); ``result()`` is the check's current status; ``finalize()`` is
called once when a finished log has been read to its end.
"""

from __future__ import annotations

import numpy as np

from tsm_tui.core.record import Alert, CheckResult, Status, StepRecord
from tsm_tui.analysis.state import RunState
from tsm_tui.core.settings import Settings


class Detector:
    id: str = ""
    title: str = ""
    #: also fed the records of auxiliary sources (generations files beside the log)
    reads_samples: bool = False

    def __init__(self, settings: Settings, state: RunState) -> None:
        self.s = settings
        self.state = state

    def update(self, rec: StepRecord) -> list[Alert]:  # pragma: no cover - interface
        raise NotImplementedError

    def update_frame(self, fr) -> list[Alert]:
        """A Frame (tsm_tui.core.frame) of records: by default row by row, with the
        RunState each row saw. Detectors override this with a columnar path that
        must give exactly the same result."""
        return self.update_rows(fr, 0, fr.n)

    def update_rows(self, fr, a: int, b: int) -> list[Alert]:
        """Rows ``a`` .. ``b - 1`` of a frame through ``update``, each with the RunState it saw."""
        out: list[Alert] = []
        update = self.update
        for i in range(a, b):
            found = update(fr.at(i))
            if found:
                out += found
        return out

    def scan_frame(self, fr, screen, bulk) -> list[Alert]:
        """The usual shape of a columnar ``update_frame``.

        ``screen(a, b)`` returns the sorted indices of the rows in ``[a, b)`` that
        need the per-record path, judged from the detector's state at row ``a``
        with the rows before the first of them committed in bulk: it may flag rows
        that do not need it, never miss one. ``bulk(a, q)`` commits rows that need
        nothing but the plain state update, exactly as ``update`` would; it may
        stop at a row that needs ``update`` after all and return its index. Flagged
        rows (with the rows between them when they come close together) go through
        ``update``; then the screen starts again from the new state.
        """
        out: list[Alert] = []
        a, n, win = 0, fr.n, fr.n
        while a < n:
            b = min(n, a + win)
            idx = screen(a, b)
            q = int(idx[0]) if len(idx) else b
            if q > a:
                stop = bulk(a, q)
                if stop is not None and stop < q:
                    q, idx = stop, np.array([stop])
            if q == b:
                a, win = b, n
                continue
            e = _run_end(idx)
            out += self.update_rows(fr, q, e)
            a, win = e, RESCREEN  # a short screen first: events often come in clusters
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
RESCREEN = 1024


def _run_end(idx: np.ndarray) -> int:
    """End (exclusive) of the cluster of flagged rows that starts at ``idx[0]``."""
    q = int(idx[0])
    near = idx[:RUN]
    near = near[near < q + RUN]
    far = np.flatnonzero(np.diff(near) > GAP)
    return int(near[far[0]] if far.size else near[-1]) + 1
