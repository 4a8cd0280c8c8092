"""The one number formatter (reports, alerts, pre-flight and the TUI print a
value the same way) and the one reader of numbers written in configs."""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone


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
    s = f"{x:.{digits}g}"
    return f"{x:.0f}" if "e" in s else s  # 4220 with 3 digits: "4220", not Python's "4.22e+03"


#: the largest step / counter a record holds: steps live in int64 columns (Frames,
#: the tailer's arrays); a value past it is a counted skip, never a wrapped number
MAX_INT = (1 << 63) - 1
_FMAX = float(1 << 63)


def times(r: float) -> str:
    """A ratio for "N x": one decimal, or ``fmt``'s 4 significant digits when it is huge."""
    return f"{r:.1f}" if r < 1000 else fmt(r)


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


_SIZE = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def num(v, sizes: bool = False) -> float | None:
    """3e-4, "3e-4" (YAML 1.1 reads it as a string), "7B" (sizes=True) -> float."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        try:
            return float(v)
        except OverflowError:  # an int no float holds (a 400-digit max_steps): no number
            return None
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        t = v.strip().replace(",", "").replace("_", "")
        mult = 1.0
        if sizes and t and t[-1].lower() in _SIZE:
            mult, t = _SIZE[t[-1].lower()], t[:-1]
        try:
            x = float(t) * mult
        except ValueError:
            return None
        return x if math.isfinite(x) else None
    return None


def whole(v, sizes: bool = False) -> int | None:
    """A whole number a config writes for a count (steps, a batch, a world size): an int,
    a float with no fraction (JSON's ``1000.0``) or text of one (``"1e3"``, ``"1,000"``,
    ``"1_000"``; with ``sizes`` ``"2k"``), sign kept (-1 is "not set"). None for what
    ``num`` reads as no number (a bool, None, ``"auto"``, Inf, NaN) and for a value with a
    fraction: ``2.5`` is no count (neither 2 nor 3; HF reads a ``warmup_steps`` below 1 as
    a ratio). The bound on a count is ``run_fact``'s. The one rule the monitor's config
    reader and pre-flight's plan read counts by."""
    x = num(v, sizes)
    return int(x) if x is not None and x.is_integer() else None


# -- what a log or a config says about the run ----------------------------------------------
#: the largest value a run fact may have (ours: 1e18 steps, parameters or tokens is
#: beyond any run; past it a value is hostile or a typo, and the arithmetic of the
#: checks, e.g. a reference LR from the parameter count, would overflow or underflow)
MAX_FACT = 1e18
#: counts (int64): the smallest value each may take (warm-up 0 is "no warm-up"); the
#: last five are pre-flight's (a plan's parts of the global batch, its decay horizon)
FACT_COUNTS = {
    "total_steps": 1,
    "warmup_steps": 0,
    "batch_size": 1,
    "seq_len": 1,
    "logging_steps": 1,
    "save_steps": 1,
    "decay_steps": 1,
    "dataset_samples": 1,
    "micro_batch": 1,
    "grad_accum": 1,
    "world_size": 1,
}
#: amounts (float): whether 0 is allowed (clip 0 is "no clipping"); the last four are
#: pre-flight's; Adam's beta2 / eps: the advice's (analysis/advice.optimizer_state)
FACT_AMOUNTS = {
    "peak_lr": False,
    "params": False,
    "batch_tokens": False,
    "clip": True,
    "total_tokens": False,
    "warmup_tokens": True,
    "epochs": False,
    "save_hours": False,
    "beta2": True,
    "eps": True,
}
MAX_FACT_TEXT = 200
#: the "not set" count of HF and Lightning (max_steps, max_epochs, devices: -1): no
#: setting and no error; any other negative count a config gives is ignored and said
UNSET_COUNT = -1


def _fact_number(v) -> float | int | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v if -MAX_FACT <= v <= MAX_FACT else None
    if isinstance(v, float):
        return v if math.isfinite(v) and abs(v) <= MAX_FACT else None
    if isinstance(v, (str, bytes)):
        s = v.strip().replace(",", "").replace("_", "") if isinstance(v, str) else v.strip().decode("ascii", "replace")
        if not s or len(s) > 40:  # (40 characters: a plain number past 1e18 is out anyway)
            return None
        try:
            return _fact_number(int(s))
        except ValueError:
            pass
        try:
            return _fact_number(float(s))
        except ValueError:
            return None
    return None


def run_fact(key: str, v):
    """The one bound on what a log or a config says about the run (``RunInfo.set``
    and every reader's ``run_info`` go through it): counts are int64 within
    [minimum, 1e18], amounts finite floats within (0, 1e18] (clip: [0, 1e18]), text
    capped; anything else is None (not a fact). Never raises: a 400-digit
    ``max_steps`` or ``1e400`` is None, not an OverflowError three modules later."""
    if key in FACT_COUNTS:
        x = _fact_number(v)
        if x is None or x < FACT_COUNTS[key]:
            return None
        return int(x)
    if key in FACT_AMOUNTS:
        x = _fact_number(v)
        if x is None or x < 0 or (x == 0 and not FACT_AMOUNTS[key]):
            return None
        return float(x)
    if isinstance(v, str):
        return v[:MAX_FACT_TEXT]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return _fact_number(v)
    return v


# -- numbers a config writes that no setting can be ----------------------------------------
# a number as text (YAML 1.1 reads "3e-4" as a string): digits, a point, an exponent, or
# inf / nan; possessive, so a 5,000-digit string costs one pass
_NUMBER = re.compile(r"[+-]?+(?:(?:\d++\.?+\d*+|\.\d++)(?:e[+-]?+\d++)?+|inf(?:inity)?+|nan)", re.I)


def unusable(v) -> bool:
    """Whether ``v`` is a number (or a number written as text) that no run fact
    can be: Inf, NaN, beyond +-MAX_FACT (1e400, an int no float holds, 5,000
    digits). Config readers ignore such a key and say so (``shown`` writes it).
    Never raises; text that is not a number is not "unusable", just not a number."""
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, int):
        return not -MAX_FACT <= v <= MAX_FACT
    if isinstance(v, float):
        return not (math.isfinite(v) and abs(v) <= MAX_FACT)
    if isinstance(v, str):
        t = v.strip().replace(",", "").replace("_", "")
        if not t or not _NUMBER.fullmatch(t):
            return False
        try:
            x = float(t)
        except ValueError:
            return False
        return not (math.isfinite(x) and abs(x) <= MAX_FACT)
    return False


def shown(v, limit: int = 24) -> str:
    """A config value as a note quotes it, short and safe: an int of 400 digits is
    "a 401-digit integer" (never converted to text in full), a long string cut."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        if v.bit_length() <= 128:
            return str(v)
        digits = int(v.bit_length() * 0.30103) + 1
        return f"a {digits}-digit {'negative ' if v < 0 else ''}integer"
    if isinstance(v, float):
        return "nan" if v != v else repr(v)
    s = str(v)
    return s if len(s) <= limit else f"{s[: limit - 8]}... ({len(s)} characters)"


def iso_time(text: str) -> float | None:
    """Seconds since the epoch of an ISO 8601 date and time ("2026-02-14T19:09:01.759319",
    "2026-02-14 19:09:01Z"; no zone: UTC, only differences matter), else None."""
    if not 10 < len(text) <= 40 or text[4:5] != "-":
        return None
    try:
        t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    try:
        return t.timestamp()
    except (OverflowError, OSError, ValueError):
        return None
