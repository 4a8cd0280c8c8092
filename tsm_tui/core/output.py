"""Helpers every text or JSON view shares: colour only on a terminal without
NO_COLOR, status tags, JSON that never writes NaN, and a warning line on stderr."""

from __future__ import annotations

import json
import os

from tsm_tui.core.record import Status
from tsm_tui.core.sanitize import message

_COLOURS = {Status.PASS: "32", Status.WARN: "33", Status.FAIL: "1;31", Status.SKIP: "2"}


def use_colour(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def tag(status: Status, colour: bool) -> str:
    t = f"[{status.value}]"
    return f"\x1b[{_COLOURS[status]}m{t}\x1b[0m" if colour else t


def dumps(obj: dict) -> str:
    try:
        return json.dumps(obj, indent=None, separators=(", ", ": "), allow_nan=False)
    except ValueError:  # a non-finite number the view did not expect: null, never a crash
        return json.dumps(_finite(obj), indent=None, separators=(", ", ": "), allow_nan=False)


def _finite(o):
    if isinstance(o, float):
        return o if o == o and o not in (float("inf"), float("-inf")) else None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    return o


def warn(err, text: str) -> None:
    """One ``tsm-watch: ...`` line on ``err`` (sanitised: it may quote a log or a file name); a
    closed or broken stream is not an error of the run being watched."""
    try:
        err.write(message(f"tsm-watch: {text}") + "\n")
        err.flush()
    except (OSError, ValueError):
        pass
