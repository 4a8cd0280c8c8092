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
