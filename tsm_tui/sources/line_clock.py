"""The wall-clock time a log line starts with, for the records read from it: Python logging's
``2026-03-24 11:15:52,482 | INFO | ...``, mmengine's ``2023/06/06 21:59:33 - mmengine - ...``,
ISO ``2026-03-24T11:15:52``, or a bare time of day ``08:35:31  step=100 ...`` (optionally in
``[...]``). The throughput check takes a record's time as a timestamp; a line's clock is one
(fresh2: kd_retinanet and avpse read "no step time, throughput or record timestamps logged").

A bare time of day has no date: ``DayClock`` adds a day each time it goes back by more than
12 hours (midnight), so the speeds across midnight stay right.
"""

from __future__ import annotations

import calendar
import re

_CLOCK = re.compile(r"\s{0,4}\[?(?:(\d{4})[-/](\d\d)[-/](\d\d)[ T])?(\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?(?![\d:])")
HALF_DAY = 43200.0


def line_clock(line: str) -> tuple[float, bool] | None:
    """(seconds, dated) of the clock the line starts with: seconds since the epoch (UTC; only
    differences matter) when a date is given, else seconds since midnight; None without one."""
    if not line or not (line[0].isdigit() or line[0] in "[ "):
        return None
    m = _CLOCK.match(line)
    if m is None:
        return None
    y, mo, d, h, mi, s, frac = m.groups()
    hh, mm, ss = int(h), int(mi), int(s)
    if hh > 23 or mm > 59 or ss > 60:
        return None
    part = int(frac) / 10 ** len(frac) if frac else 0.0
    if y is None:
        return hh * 3600 + mm * 60 + ss + part, False
    month, day = int(mo), int(d)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return calendar.timegm((int(y), month, day, hh, mm, ss, 0, 0, 0)) + part, True


class DayClock:
    """Times of day made monotonic across midnight (one reader's lines)."""

    def __init__(self) -> None:
        self.days = 0
        self.prev: float | None = None

    def at(self, line: str) -> float | None:
        got = line_clock(line)
        if got is None:
            return None
        t, dated = got
        if dated:
            return t
        if self.prev is not None and t < self.prev - HALF_DAY:
            self.days += 1
        self.prev = t
        return t + 86400.0 * self.days
