"""Is a run alive? One model for the dashboard's status line and the runs table.

A run is *idle* for the seconds since it wrote its last record (the record's own
timestamp, else the file's mtime for history read at the start, else the arrival of
a live record); it *ended* when its text says so (the crash check's tag: ``crashed``,
``stopped``, ``done``) or its tracker recorded an exit code (``exited``); it is
*done* when it reached the steps its config planned or exited 0; it is *stalled*
when, being followed and neither done nor ended, it has been idle for more than
``max(STALL_MIN, STALL_FACTOR x its median interval between live arrivals)``.
Its *rate* is steps/s over the live records of the last ``RATE_HORIZON`` seconds.

The constants (all ours; README "The screen" and the runs screen's legend say them):

- ``STALL_MIN`` 60 s: a job that logs every few seconds and goes quiet for a minute is
  worth a look; a checkpoint save or an evaluation rarely takes longer between two lines.
- ``STALL_FACTOR`` 10 (``core/settings.py``, shared with the alert rule ``TsmRunStalled``,
  which has a 5 min floor for paging): a run that logs every 30 s is stalled after 5 min, not 1 min.
- ``RATE_HORIZON`` 30 s: long enough that a run logging every 10-20 s shows a rate, short
  enough that a slowdown shows within half a minute.
- ``KEPT`` 64: arrival intervals (the median) and (time, step) points (the rate) kept;
  the views hear of new records at most once a second, so 64 points cover the horizon.
"""

from __future__ import annotations

import statistics
from collections import deque

from tsm_tui.core.record import CheckResult
from tsm_tui.core.settings import STALL_FACTOR

STALL_MIN = 60.0  # s (ours): see the module docstring
RATE_HORIZON = 30.0  # s: steps/s over the live records that arrived this recently (ours)
KEPT = 64  # arrival intervals and (time, step) points kept


class RunActivity:
    """One run's liveness as the views see it: fed by :meth:`arrived` (records came)
    and :meth:`note_checks` (its checks were recomputed), asked with the clock."""

    def __init__(
        self,
        *,
        last_step: int | None = None,
        planned: int | None = None,
        exit_code: int | None = None,
        last_arrival: float | None = None,
        last_write: float | None = None,
    ) -> None:
        self.last_step = last_step
        #: the planned steps, when the run's config says (a run that reached them is done)
        self.planned = planned
        #: the exit code the run's tracker recorded (W&B's exit record), None while none did
        self.exit_code = exit_code
        #: how the run's text says it ended (the crash check's tag), None while it does not
        self.tag: str | None = None
        self.last_arrival = last_arrival  # monotonic: when the tool got its last records
        #: wall clock (epoch s): when the run wrote its last record (record time / mtime / arrival)
        self.last_write = last_write
        self.intervals: deque[float] = deque(maxlen=KEPT)  # s between two live arrivals
        self.rate: deque[tuple[float, int]] = deque(maxlen=KEPT)  # (time, step) of live arrivals

    # ------------------------------------------------------------ fed
    def arrived(self, now: float, step: int | None, written: float | None = None, live: bool = True) -> None:
        """Records arrived at ``now`` (monotonic); ``written``: when the run wrote the newest
        of them (wall clock); ``live``: written while watching (else history read at the
        start or a replay: it moves the step, neither the interval nor the rate)."""
        if live:
            if self.last_arrival is not None:
                self.intervals.append(now - self.last_arrival)
            self.last_arrival = now
        elif self.last_arrival is None:
            self.last_arrival = now
        if written is not None:
            self.last_write = written if self.last_write is None else max(self.last_write, written)
        if step is not None:
            self.last_step = step
            if live:
                self.rate.append((now, step))

    def note_checks(self, checks) -> None:
        """The run's checks were recomputed (a list or an id -> CheckResult mapping)."""
        values = checks.values() if isinstance(checks, dict) else checks
        crash: CheckResult | None = next((c for c in values if c.id == "crash"), None)
        self.tag = crash.tag if crash is not None else None

    # ------------------------------------------------------------ asked
    @property
    def ended(self) -> str | None:
        """How the run ended: ``crashed`` (its last lines are a crash), ``stopped`` (on
        purpose), ``done`` (a normal end in its text), ``exited`` (its tracker recorded a
        non-zero exit code; 0 is ``done``), or None while nothing says it did."""
        if self.tag:
            return self.tag
        if self.exit_code is not None:
            return "done" if self.exit_code == 0 else "exited"
        return None

    @property
    def done(self) -> bool:
        """The run reached its planned steps, or ended normally (its text, or a tracker's
        exit 0): quiet since is not a stall. Lightning counts steps from 0: its last is
        planned - 1."""
        if self.ended == "done":
            return True
        return (
            self.planned is not None
            and bool(self.planned)
            and self.last_step is not None
            and self.last_step >= self.planned - 1
        )

    def idle(self, now: float, wall: float) -> float | None:
        """Seconds since the run wrote its last record (None before any)."""
        if self.last_write is not None:
            return max(0.0, wall - self.last_write)
        return None if self.last_arrival is None else now - self.last_arrival

    def stall_after(self) -> float | None:
        """Seconds of quiet after which the run is stalled (None: a run that is done or
        ended never is: a crashed run is not waiting for anything)."""
        if self.done or self.ended is not None:
            return None
        med = statistics.median(self.intervals) if self.intervals else 0.0
        return max(STALL_MIN, STALL_FACTOR * med)

    def stalled_for(self, now: float, wall: float) -> float | None:
        """Seconds idle when that counts as stalled (ask only while following the run)."""
        idle = self.idle(now, wall)
        after = self.stall_after()
        return idle if idle is not None and after is not None and idle > after else None

    def steps_per_s(self, now: float) -> float | None:
        """Steps/s over the last RATE_HORIZON seconds of live records: None before two,
        0.0 when fewer than two arrived that recently (the run is quiet)."""
        if len(self.rate) < 2:
            return None
        pts = [(t, s) for t, s in self.rate if now - t <= RATE_HORIZON]
        if len(pts) < 2:
            return 0.0
        (t0, s0), (t1, s1) = pts[0], pts[-1]
        return (s1 - s0) / (t1 - t0) if t1 > t0 and s1 >= s0 else None


__all__ = ["RunActivity", "STALL_MIN", "RATE_HORIZON", "KEPT"]
