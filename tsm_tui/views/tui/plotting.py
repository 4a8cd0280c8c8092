"""Text plots for the live monitor: pure functions from a downsampled
:class:`~tsm_tui.views.tui.series.Window` and a size to text.

This is the only module that imports plotext (pinned to 5.x: 6.0 removed the
classic API). plotext 5 keeps one global figure, so every build holds
``_LOCK``. Callers downsample first (one column per character cell): a build
then costs a few milliseconds whatever the length of the run.
"""

from __future__ import annotations

import math
import threading

from rich.text import Text

from tsm_tui.views.tui.series import Window

_LOCK = threading.Lock()
_BLOCKS = "▁▂▃▄▅▆▇█"
BAD_MARK = "×"  # a column holding NaN/Inf


def _tr(v: float, log: bool) -> float | None:
    if v is None:
        return None
    if log:
        return math.log10(v) if v > 0 else None
    return v


def spark(win: Window, width: int, log: bool = False) -> str:
    """One character per column, the column's maximum (spikes stay visible).

    Gaps (no value fell in a column) repeat the previous column; a column with
    a NaN/Inf shows ``×``. ``width`` pads or cuts the result.
    """
    if width <= 0:
        return ""
    vals = [_tr(v, log) if v is not None else None for v in win.maxs]
    finite = [v for v in vals if v is not None]
    if not finite:
        out = "".join(BAD_MARK if b else " " for b in win.bad)
        return out[:width].ljust(width)
    lo, hi = min(finite), max(finite)
    rng = hi - lo
    chars = []
    prev = None
    for v, b in zip(vals, win.bad):
        if b:
            chars.append(BAD_MARK)
            continue
        if v is None:
            v = prev
        if v is None:
            chars.append(" ")
            continue
        prev = v
        i = int((v - lo) / rng * (len(_BLOCKS) - 1) + 0.5) if rng > 0 else 0
        chars.append(_BLOCKS[max(0, min(len(_BLOCKS) - 1, i))])
    s = "".join(chars)
    return s[-width:].rjust(width) if len(s) > width else s.ljust(width)


def focus_plot(win: Window, width: int, height: int, *, log: bool = False, title: str = "",
               marker: int | None = None, color: str = "cyan") -> Text:
    """An axes plot of the window's min/max envelope (plotext, braille).

    ``marker`` draws a vertical line at that step (a selected alert).
    Returns a Rich ``Text`` built from plotext's ANSI output (the text is ours:
    numbers and metric names, never log text).
    """
    width, height = max(10, width), max(4, height)
    # min/max per column, drawn as one line through (x, first) -> (x, second) of
    # every column: a flat stretch is a thin line, a noisy one a band, and a
    # one-step spike a full-height stroke (a plain mean would flatten it)
    xs: list[float] = []
    ys: list[float] = []
    prev_hi = None
    for x, mn, mx, last in zip(win.steps, win.mins, win.maxs, win.lasts):
        if mx is None:
            continue
        if mn is None:
            mn = mx
        if log and mn <= 0:
            if mx <= 0:
                continue
            mn = mx
        # visit the end nearer to the previous column first: no spurious strokes
        if prev_hi is not None and abs(mx - prev_hi) < abs(mn - prev_hi):
            first, second = mx, mn
        else:
            first, second = mn, mx
        xs.append(x)
        ys.append(first)
        if second != first:
            xs.append(x)
            ys.append(second)
        prev_hi = second
    bad_x = [x for x, b in zip(win.steps, win.bad) if b]
    import plotext as plt  # the one place plotext is imported

    with _LOCK:
        plt.clf()
        plt.limitsize(False, False)
        plt.plotsize(width, height)
        plt.theme("clear")
        plt.frame(False)
        if title:
            plt.title(title)
        if xs:
            plt.plot(xs, ys, marker="braille", color=color)
            if log:
                plt.yscale("log")
        else:
            plt.ylim(0, 1)
        lo_x, hi_x = win.lo, max(win.hi, win.lo + 1)
        plt.xlim(lo_x, hi_x)
        ticks = step_ticks(lo_x, hi_x, max(3, width // 12))
        plt.xticks(ticks, [_tick_label(t) for t in ticks])
        for x in bad_x[:50]:
            plt.vline(x, "red")
        if marker is not None and win.lo <= marker <= win.hi:
            plt.vline(marker, "yellow")
        try:
            out = plt.build()
        except Exception as e:  # plotext edge cases (one point, flat log axis ...): never crash the UI
            out = f"(plot unavailable: {type(e).__name__})"
    text = Text.from_ansi(out, no_wrap=True, end="")
    text.rstrip_end(width)
    return text


def step_ticks(lo: int, hi: int, n: int) -> list[int]:
    """About ``n`` round step numbers inside lo..hi (1, 2, 5 x 10^k apart)."""
    span = max(1, hi - lo)
    raw = span / max(1, n)
    mag = 10 ** int(math.floor(math.log10(raw))) if raw >= 1 else 1
    cands = [m * mag for m in (1, 2, 5, 10)]
    step = next((c for c in cands if c >= raw), 10 * mag)
    ticks = _ticks(lo, hi, step)
    if len(ticks) < 2:  # a round step that leaves one tick: take the next finer one
        finer = [c for c in cands + [mag / 2, mag / 5] if c < step and c >= 1]
        for c in sorted(finer, reverse=True):
            ticks = _ticks(lo, hi, c)
            if len(ticks) >= 2:
                break
    return ticks or [lo]


def _ticks(lo: int, hi: int, step: float) -> list[int]:
    step = max(1, int(step))
    first = int(math.ceil(lo / step) * step)
    return list(range(first, hi + 1, step))


def _tick_label(t: int) -> str:
    if abs(t) >= 1_000_000:
        return f"{t / 1e6:g}M"
    if abs(t) >= 10_000:
        return f"{t / 1e3:g}k"
    return str(t)


def window_label(win: Window) -> str:
    return f"steps {win.lo}-{win.hi}"
