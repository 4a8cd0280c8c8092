"""The one number formatter: reports, alerts, pre-flight and the TUI print a
value the same way."""

from __future__ import annotations


def fmt(x: float | None, digits: int = 4, missing: str = "n/a") -> str:
    """Short human number: ``digits`` significant digits, scientific when small or big."""
    if x is None:
        return missing
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Inf" if x > 0 else "-Inf"
    ax = abs(x)
    if ax != 0 and (ax < 1e-3 or ax >= 1e5):
        m, e = f"{x:.{max(0, digits - 2)}e}".split("e")
        m = m.rstrip("0").rstrip(".")
        return f"{m}e{int(e)}"
    return f"{x:.{digits}g}"


#: the largest step / counter a record holds: steps live in int64 columns (Frames,
#: the tailer's arrays); a value past it is a counted skip, never a wrapped number
MAX_INT = (1 << 63) - 1
_FMAX = float(1 << 63)


def int64(v) -> int | None:
    """``v`` (int, float or a decimal digit string) as an int that fits int64, or
    None (non-finite, out of range, not a number). Never raises: a 5,000-digit
    string is None without being converted (Python refuses > 4300 digits)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v if -MAX_INT <= v <= MAX_INT else None
    if isinstance(v, float):
        return int(v) if -_FMAX < v < _FMAX else None  # (NaN fails both tests)
    if isinstance(v, (str, bytes)):
        s = v.strip()
        if len(s) > 20:
            return None
        try:
            return int64(int(s))
        except ValueError:
            return None
    return None
