"""A ``Tailer`` drained the way the ``--follow`` loop drains it, and the ``tail`` fixture's body."""

from __future__ import annotations

from tsm_tui.core.frame import Frame, expand
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.tail import Tailer

from helpers.wait import WAIT, poll_until, quiet_for


class Collector:
    """Drains a Tailer like the --follow loop does."""

    def __init__(self, tailer: Tailer) -> None:
        self.t = tailer
        self.steps: dict[str, list[int]] = {}
        self.records: list[StepRecord] = []
        self.notes: list[str] = []
        self.framed = 0  # rows that came as Frames (big reads take the chunked path)

    def pump(self) -> None:
        for b in self.t.drain():
            self.framed += sum(it.n for it in b.records if type(it) is Frame)
            recs = list(expand(b.records))
            self.steps.setdefault(b.source, []).extend(r.step for r in recs)
            self.records.extend(recs)
        self.notes += self.t.drain_notes()

    def all_steps(self) -> list[int]:
        return [s for v in self.steps.values() for s in v]

    def wait_for(self, cond, timeout: float = WAIT) -> bool:
        return bool(poll_until(cond, timeout, tick=self.pump))

    def settle(self, quiet: float = 0.5) -> None:
        """Pump until nothing new has arrived for ``quiet`` seconds."""
        quiet_for(lambda: len(self.records), quiet, tick=self.pump)


def tail_fixture():
    """``tail(path, **kw)``: a started Tailer (``interval`` 0.2 s unless given) in a Collector; all
    are stopped at the end of the test."""
    started = []

    def make(path, **kw):
        kw.setdefault("interval", 0.2)
        t = Tailer(str(path), **kw)
        t.start_thread()
        started.append(t)
        return Collector(t)

    yield make
    for t in started:
        t.stop()
