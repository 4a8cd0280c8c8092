"""Rotated segments of one log: ``train.log.2.gz``, ``train.log.1``, ``train.log`` are one series.

logrotate / RotatingFileHandler / copytruncate leave the older part of a log beside
it: numbered (``x.log.1`` newest, ``x.log.7`` oldest, optionally ``.gz``) or dated
(``x.log-20261203``, ``x.log.2026-12-03``, dateext). ``group`` turns a list of
candidate paths into logical sources, each a list of its segments, oldest first,
the live file (or, when it is gone, the newest segment) last. ``.gz`` segments are
read through the stdlib ``gzip``.
"""

from __future__ import annotations

import gzip
import os
import re

from tsm_tui.core.safeio import open_regular

ROTATED = re.compile(r"^(?P<base>.+?)(?:\.(?P<n>\d{1,3})|[-._](?P<date>\d{8}(?:[-_]?\d{2,6})?|\d{4}-\d{2}-\d{2}))"
                     r"(?P<gz>\.gz)?$")


def rotated_base(name: str) -> tuple[str, tuple] | None:
    """(base name, sort key: older first) for a rotated segment's file name, else None."""
    m = ROTATED.match(name)
    if m is None:
        if name.endswith(".gz"):
            return name[:-3], (2, 0, "")  # x.log.gz: an old compressed copy
        return None
    if m.group("n") is not None:
        if int(m.group("n")) == 0:
            return None  # x.log.0, x.log.1 ...: per-rank files, not rotation (which starts at .1)
        return m.group("base"), (1, -int(m.group("n")), "")  # .7 before .1
    return m.group("base"), (0, 0, m.group("date"))  # dated: by date


def group(paths: list[str], is_log) -> list[list[str]]:
    """Paths grouped into logical sources (see the module docstring), in the order of
    each source's first appearance. ``is_log(name)`` says which base names are logs:
    ``run.1`` is a segment only when ``run`` is a log name (or another segment of it
    exists, or the live file does)."""
    by_base: dict[str, list[tuple[tuple, str]]] = {}
    order: list[str] = []
    single: dict[str, str] = {}
    for p in paths:
        d, name = os.path.split(p)
        rb = rotated_base(name)
        if rb is not None and is_log(rb[0]):
            key = os.path.join(d, rb[0])
            by_base.setdefault(key, []).append((rb[1], p))
            if key not in order:
                order.append(key)
        else:
            single[p] = p
            if p not in order:
                order.append(p)
    out: list[list[str]] = []
    for key in order:
        segs = [p for _, p in sorted(by_base.get(key, []))]
        if key in single:
            out.append(segs + [key])
        elif segs:
            out.append(segs)
    return out


class _Gzip(gzip.GzipFile):
    """A GzipFile that closes the file it reads (GzipFile(fileobj=) does not)."""

    def __init__(self, raw) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def open_segment(path: str):
    """A binary file object for one segment (``.gz`` decompressed on the fly)."""
    f = open_regular(path)  # regular files only (issue 20)
    if path.endswith(".gz"):
        return _Gzip(f)
    return f
