"""Text plots for the live monitor: pure functions from a downsampled
:class:`~tsm_tui.views.tui.series.Window` and a size to text.

The focus plot is drawn here in braille with numpy (it used plotext, 10-30x
slower: at 200x50 a build cost 33 ms, most of the TUI's CPU while a run logs).
Callers downsample first (a column or two per character cell): a build then
costs about a millisecond whatever the length of the run.
"""

from __future__ import annotations

import math

import numpy as np
from rich.text import Span, Text

from tsm_tui.core.numbers import fmt

from tsm_tui.views.tui.series import Window

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


_DOT_BITS = np.array([[0x01, 0x08], [0x02, 0x10], [0x04, 0x20], [0x40, 0x80]], dtype=np.int32)


def _col(vals) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in vals], dtype=np.float64)


def _label(v: float) -> str:
    return fmt(v, 3, "")


def focus_plot(
    win: Window,
    width: int,
    height: int,
    *,
    log: bool = False,
    title: str = "",
    marker: int | None = None,
    color: str = "cyan",
) -> Text:
    """An axes plot of the window's min/max envelope in braille (2x4 dots a cell).

    Every column of the window draws its min..max as a vertical stroke, joined
    to the previous column's last value: a flat stretch is a thin line, a noisy
    one a band, a one-step spike a full-height stroke (a plain mean would
    flatten it). Columns holding NaN/Inf get a red mark, ``marker`` (a selected
    alert's step) a yellow line. Exactly ``height`` lines of at most ``width``
    cells; the text is ours (numbers), never log text. numpy, ~1 ms at 200x50
    (plotext took 9-33 ms for the same plot).
    """
    width, height = max(10, width), max(4, height)
    parts: list[str] = []  # the lines, and their styles as spans into the joined text
    spans: list[Span] = []
    pos = 0
    if title:
        parts.append(title[:width])
        spans.append(Span(0, len(parts[0]), "bold"))
        pos = len(parts[0]) + 1
    rows = height - len(parts) - 1  # the last line: x tick labels
    lo_x, hi_x = win.lo, max(win.hi, win.lo + 1)
    steps = np.asarray(win.steps, dtype=np.float64)
    mins, maxs, lasts = _col(win.mins), _col(win.maxs), _col(win.lasts)
    mins = np.where(np.isnan(mins), maxs, mins)
    lasts = np.where(np.isnan(lasts), maxs, lasts)
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            mins = np.where(mins > 0, mins, np.where(maxs > 0, maxs, np.nan))
            maxs = np.where(maxs > 0, maxs, np.nan)
            lasts = np.where(lasts > 0, lasts, maxs)
            mins, maxs, lasts = np.log10(mins), np.log10(maxs), np.log10(lasts)
    ok = np.isfinite(maxs) & np.isfinite(mins)
    if ok.any():
        y0, y1 = float(mins[ok].min()), float(maxs[ok].max())
    else:
        y0, y1 = 0.0, 1.0
    if y1 - y0 <= 0:
        pad = abs(y0) * 0.05 or 0.5
        y0, y1 = y0 - pad, y1 + pad
    # y labels: about one every third row, top and bottom included
    nlab = max(2, rows // 3 + 1)
    lab_rows = sorted({round(i * (rows - 1) / (nlab - 1)) for i in range(nlab)})
    lab_vals = {r: y1 - (y1 - y0) * r / max(1, rows - 1) for r in lab_rows}
    labels = {r: _label(10**v if log else v) for r, v in lab_vals.items()}
    lw = max(len(x) for x in labels.values()) + 1
    pc = max(1, width - lw)  # plot cells
    sub_w, sub_h = 2 * pc, 4 * rows
    dots = np.zeros((sub_h + 1, sub_w), dtype=np.int32)
    span = hi_x - lo_x

    def xcol(x) -> np.ndarray:
        return np.clip(
            ((np.asarray(x, dtype=np.float64) - lo_x) / span * (sub_w - 1) + 0.5).astype(np.int64), 0, sub_w - 1
        )

    def yrow(v: np.ndarray) -> np.ndarray:
        return np.clip(((y1 - v) / (y1 - y0) * (sub_h - 1) + 0.5).astype(np.int64), 0, sub_h - 1)

    if ok.any():
        xs = xcol(steps[ok])
        top, bot = maxs[ok], mins[ok]
        prev = np.concatenate(([np.nan], lasts[ok][:-1]))
        has_prev = np.isfinite(prev)
        top = np.where(has_prev & (prev > top), prev, top)  # joined to the previous column
        bot = np.where(has_prev & (prev < bot), prev, bot)
        r0, r1 = yrow(top), yrow(bot)
        np.add.at(dots, (r0, xs), 1)
        np.add.at(dots, (r1 + 1, xs), -1)
    mask = np.cumsum(dots, axis=0)[:sub_h] > 0
    code = (mask.reshape(rows, 4, pc, 2) * _DOT_BITS[None, :, None, :]).sum(axis=(1, 3), dtype=np.int32)
    chars = np.where(code > 0, code + 0x2800, 0x20)
    special: dict[int, tuple[str, str]] = {}  # cell column -> (char, style) where the plot is empty
    bad = [x for x, b in zip(win.steps, win.bad) if b]
    if bad:
        for c in set(xcol(bad[:400]).tolist()):
            special[c // 2] = ("┆", "red")
    if marker is not None and win.lo <= marker <= win.hi:
        special[int(xcol([marker])[0]) // 2] = ("│", "yellow")
    empty = code == 0
    for c, (ch, _st) in special.items():
        chars[:, c] = np.where(empty[:, c], ord(ch), chars[:, c])
    text_rows = [chars[r].astype("<u4").tobytes().decode("utf-32-le") for r in range(rows)]
    for r in range(rows):
        row = text_rows[r].rstrip()
        lab = labels.get(r, "").rjust(lw - 1) + " "
        if labels.get(r):
            spans.append(Span(pos, pos + lw, "dim"))
        if row:
            spans.append(Span(pos + lw, pos + lw + len(row), color))
        for c, (_ch, st) in special.items():
            if c < len(row) and empty[r, c]:
                spans.append(Span(pos + lw + c, pos + lw + c + 1, st))
        parts.append(lab + row)
        pos += len(parts[-1]) + 1
    # x tick labels under their columns
    axis = [" "] * (lw + pc)
    for t in step_ticks(lo_x, hi_x, max(2, pc // 12)):
        lab = _tick_label(t)
        c = lw + int(xcol([t])[0]) // 2 - len(lab) // 2
        c = max(lw, min(c, lw + pc - len(lab)))
        if all(ch == " " for ch in axis[max(0, c - 1) : c + len(lab) + 1]):
            axis[c : c + len(lab)] = lab
    axis_text = "".join(axis).rstrip()
    spans.append(Span(pos, pos + len(axis_text), "dim"))
    parts.append(axis_text)
    out = Text("\n".join(parts[:height]), spans=spans, end="", no_wrap=True)
    return out


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
