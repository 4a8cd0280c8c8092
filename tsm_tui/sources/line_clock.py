"""The wall-clock time a log line starts with, for the records read from it: Python logging's
``2026-03-24 11:15:52,482 | INFO | ...``, mmengine's ``2023/06/06 21:59:33 - mmengine - ...``,
ISO ``2026-03-24T11:15:52``, the date's digits run together ``20200204-19:54:00``, HF's example
scripts' ``04/12/2022 15:25:49 - INFO - ...`` (its time of day), or a bare time of day
``08:35:31  step=100 ...`` (optionally in ``[...]``). The throughput check takes a record's time as a timestamp; a line's clock is one
(fresh2: kd_retinanet and avpse read "no step time, throughput or record timestamps logged").

A bare time of day has no date: ``DayClock`` adds a day each time it goes back by more than
12 hours (midnight), so the speeds across midnight stay right.
"""

from __future__ import annotations

import calendar
import re

import numpy as np

#: (a date with its year last, ``04/12/2022 15:25:49`` as HF's example scripts' logging writes it, is read as its
#: time of day only: month first or day first cannot be told from one line, and a file read both ways would
#: jump by months; ``DayClock`` carries the days)
_CLOCK = re.compile(
    r"\s{0,4}\[?(?:(\d{4})[-/]?(\d\d)[-/]?(\d\d)[-_ T]|\d\d/\d\d/\d{4}[ T])?(\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?(?![\d:])"
)
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


def clock_column(raws: list[bytes], day: DayClock) -> np.ndarray | None:
    """The clocks of a run of lines of one template (the same text before and around the
    clock), as ``day.at`` reads them line by line, in one numpy pass; None when the lines do
    not line up (the caller reads them one by one)."""
    if not raws:
        return None
    head = raws[0][:40].decode("ascii", "replace")
    m = _CLOCK.match(head)
    if m is None or line_clock(head) is None:
        return None
    end = m.end()
    if any(len(r) < end for r in raws):
        return None
    buf = np.frombuffer(b"".join([r[:end] for r in raws]), dtype=np.uint8).reshape(len(raws), end)
    digits = np.zeros(end, dtype=bool)
    for g in range(1, 8):
        a, b = m.span(g)
        if a >= 0:
            digits[a:b] = True
    fixed = ~digits
    if not (buf[:, fixed] == buf[0, fixed]).all():
        return None
    d = buf[:, digits].astype(np.int64) - 48
    if d.size and (d.min() < 0 or d.max() > 9):
        return None

    def num(g: int) -> np.ndarray:
        a, b = m.span(g)
        out = np.zeros(len(raws), dtype=np.int64)
        for k in range(a, b):
            out = out * 10 + (buf[:, k].astype(np.int64) - 48)
        return out

    hh, mm, ss = num(4), num(5), num(6)
    if (hh > 23).any() or (mm > 59).any() or (ss > 60).any():
        return None
    t = (hh * 3600 + mm * 60 + ss).astype(np.float64)
    if m.group(7):
        t += num(7) / 10.0 ** (m.end(7) - m.start(7))
    if m.group(1):
        y, mo, dd = num(1), num(2), num(3)
        if (mo < 1).any() or (mo > 12).any() or (dd < 1).any() or (dd > 31).any():
            return None
        months = (y - 1970) * 12 + (mo - 1)
        days = months.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64) + (dd - 1)
        return days * 86400.0 + t
    # a time of day: a day more each time it goes back by more than 12 hours (DayClock's rule)
    prev = np.empty_like(t)
    prev[0] = day.prev if day.prev is not None else t[0]
    prev[1:] = t[:-1]
    rolls = np.cumsum(t < prev - HALF_DAY)
    out = t + 86400.0 * (day.days + rolls)
    day.days += int(rolls[-1])
    day.prev = float(t[-1])
    return out
