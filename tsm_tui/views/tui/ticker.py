"""A one-shot timer armed for when something on screen can next read differently.

A fixed-rate ``set_interval`` wakes an idle app every period whether anything
changed or not, and a thread's wake-up is not free (~100 us of CPU each on the
machines we measured: bench/RESULTS.md, section 7d). The status line's age reads
"3s", "15s", "4m", "2.5h": once past ten seconds it changes every 5 s, then every
minute, so a view forecasts when its text can next change and arms the ticker
for then; new data re-arms it sooner.
"""

from __future__ import annotations

import time
from typing import Callable

from textual.message_pump import MessagePump
from textual.timer import Timer


#: the longest a view trusts its own forecast (a wall clock that jumps is seen within this)
TICK_TRUST = 30.0
TICK_MIN = 0.05  # s: the soonest a forecast tick is armed
TICK_SLACK = 0.02  # s after the forecast change: the text has surely moved by then


def changes_in(s: float, steps) -> float:
    """Seconds until an age of ``s`` seconds, shown in ``steps`` ((unit, below) pairs,
    ascending; whole days above the last), next reads differently."""
    for unit, below in steps:
        if s < below:
            return (s // unit + 1) * unit - s
    return (s // 86400 + 1) * 86400 - s


class Ticker:
    """Calls ``callback`` once, at the earliest time asked for by :meth:`arm`."""

    def __init__(self, owner: MessagePump, callback: Callable[[], None]) -> None:
        self._owner = owner
        self._callback = callback
        self._timer: Timer | None = None
        self._at = 0.0

    def arm(self, delay: float) -> None:
        """Fire in ``delay`` seconds, unless already due sooner."""
        delay = max(0.0, delay)
        at = time.monotonic() + delay
        if self._timer is not None:
            if self._at <= at:
                return
            self._timer.stop()
        self._at = at
        self._timer = self._owner.set_timer(delay, self._fire)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _fire(self) -> None:
        self._timer = None
        self._callback()
