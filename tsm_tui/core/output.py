"""Helpers every text or JSON view shares: colour only on a terminal without
NO_COLOR, status tags, and JSON that never writes NaN."""

from __future__ import annotations

import json
import os

from tsm_tui.core.record import Status

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
    return json.dumps(obj, indent=None, separators=(", ", ": "), allow_nan=False)
