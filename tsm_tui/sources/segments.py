"""Rotated segments of one log: ``train.log.2.gz``, ``train.log.1``, ``train.log`` are one series.

logrotate / RotatingFileHandler / copytruncate leave the older part of a log beside
it: numbered (``x.log.1`` newest, ``x.log.7`` oldest, optionally ``.gz``) or dated
(``x.log-20261203``, ``x.log.2026-12-03``, dateext). ``group`` turns a list of
candidate paths into logical sources, each a list of its segments, oldest first,
the live file (or, when it is gone, the newest segment) last. ``.gz`` segments are
read through the stdlib ``gzip``.

``x.log.1``, ``x.log.2`` ... are also how per-rank logs are named. Plain numbered
files are rotation only when they look like it (``looks_rotated``): no ``x.log.0``
beside them, and their step ranges (oldest first) ordered and mostly disjoint; when
the steps cannot be told, modification times ordered oldest first and not the equal
sizes and times of files written side by side. Otherwise each is a file of its own
(ranks). Compressed and dated segments are always rotation.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections import OrderedDict

from tsm_tui.core.safeio import open_regular

ROTATED = re.compile(
    r"^(?P<base>.+?)(?:\.(?P<n>\d{1,3})|[-._](?P<date>\d{8}(?:[-_]?\d{2,6})?|\d{4}-\d{2}-\d{2}))"
    r"(?P<gz>\.gz)?$"
)


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


def group(paths: list[str], is_log, span=None) -> list[list[str]]:
    """Paths grouped into logical sources (see the module docstring), in the order of
    each source's first appearance. ``is_log(name)`` says which base names are logs:
    ``run.1`` is a segment only when ``run`` is a log name (or another segment of it
    exists, or the live file does). ``span(path)``: (first step, last step) of a
    file or None (``looks_rotated``)."""
    by_base: dict[str, list[tuple[tuple, str]]] = {}
    order: list[str] = []
    single: dict[str, str] = {}
    names = {os.path.basename(p) for p in paths}
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
        chain = segs + [key] if key in single else segs
        if len(segs) and not looks_rotated(chain, os.path.basename(key) + ".0" in names, span):
            # per-rank files (x.log.0 .. x.log.3, or equal files side by side): each its own
            out += [[p] for p in chain]
        elif chain:
            out.append(chain)
    return out


_DECIDED: OrderedDict[tuple, bool] = OrderedDict()  # a set of files is rotation or ranks for good
MAX_DECIDED = 1024
SIDE_BY_SIDE = 2.0  # s: files last written this close together were written together (ours)


def looks_rotated(chain: list[str], zero: bool, span=None) -> bool:
    """Whether ``chain`` (oldest segment first, the live file last when present) is
    one rotated log rather than per-rank files (see the module docstring)."""
    segs = [p for p in chain if rotated_base(os.path.basename(p)) is not None]
    if not all(_numbered_plain(p) for p in segs):
        return True  # compressed or dated segments: logrotate's
    if zero:
        return False  # x.log.0 beside x.log.1: ranks (rotation starts at .1)
    key = tuple(chain)
    got = _DECIDED.get(key)
    if got is not None:
        return got
    got = _judge(chain, span)
    if got is not None:  # (undecided: judged again when the files have more in them)
        _DECIDED[key] = got
        while len(_DECIDED) > MAX_DECIDED:
            _DECIDED.popitem(last=False)
    return bool(got)


def _numbered_plain(path: str) -> bool:
    m = ROTATED.match(os.path.basename(path))
    return m is not None and m.group("n") is not None and m.group("gz") is None


def _judge(chain: list[str], span) -> bool | None:
    spans = [span(p) for p in chain] if span is not None else [None]
    known = [sp for sp in spans if sp is not None]
    if len(known) == len(spans):  # (every segment's span known)
        for (a0, a1), (b0, b1) in zip(known, known[1:]):
            if not (a0 < b0 and a1 < b1):
                return False  # not in order: ranks (they log the same steps)
            overlap = a1 - b0 + 1
            if overlap > 0 and overlap * 2 > min(a1 - a0 + 1, b1 - b0 + 1):
                return False  # mostly the same steps (a resume inside a segment overlaps a little)
        return True
    try:
        st = [os.stat(p) for p in chain]
    except OSError:
        return None
    times = [x.st_mtime for x in st]
    sizes = [x.st_size for x in st]
    if max(times) - min(times) <= SIDE_BY_SIDE and max(sizes) - min(sizes) <= 0.01 * max(sizes):
        return False  # equal files written side by side
    if any(b < a - SIDE_BY_SIDE for a, b in zip(times, times[1:])):
        return False  # a newer segment written before an older one: not rotation
    return None if max(times) - min(times) <= SIDE_BY_SIDE else True


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
    f = open_regular(path)  # regular files only (a FIFO or a device would block or never end)
    if path.endswith(".gz"):
        return _Gzip(f)
    return f


#: what a ``.gz`` read can raise besides OSError (gzip.BadGzipFile is one): cut short, corrupt
GZIP_FAULTS = (OSError, EOFError, zlib.error)


def segment_fault(e: BaseException) -> str:
    """What went wrong reading a segment, in words (a ``.gz`` cut short, not gzip, corrupt)."""
    if isinstance(e, EOFError):
        return "compressed data cut short"
    if isinstance(e, gzip.BadGzipFile) or isinstance(e, zlib.error):
        return f"not gzip data ({str(e)[:60]})" if "Not a gzipped" in str(e) else "corrupt gzip data"
    return f"cannot read: {getattr(e, 'strerror', None) or e}"
