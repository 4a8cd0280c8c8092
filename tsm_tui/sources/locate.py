"""Where in a log a step was written: the file and line of a record, for the CI
formats (``--format sarif`` regions, ``--format github`` annotations).

Records do not carry their line (that would cost every reader's hot path for a
question only CI asks), so the lines are found afterwards, and only for the steps
asked about: the file is read again in the replay's chunks through a fresh reader of
the same class (the fast columnar path, so the same parse finds the same steps);
before each chunk the reader's state is copied, and only a chunk that holds a wanted
step is fed again, line by line, from that copy, to learn the line each of its
records was completed on. A step logged twice (a resumed run repeats steps) is
located at its last record, the one the report's checks kept.

The line is the one on which the reader completed the record: the record's own line
for the line-per-step formats; for block formats (OLMo, Composer: a header line and
indented value lines) the line that closed the block. Only line formats are
located; event files, snapshots (``trainer_state.json``) and databases have no line
and get the file alone. Rotated segments are read first, as the report reads them;
a record found in a compressed segment gets its file without a line.
"""

from __future__ import annotations

import copy
import os

import numpy as np

from tsm_tui.core.frame import Frame
from tsm_tui.core.record import TextEvent
from tsm_tui.sources import segments as _segments
from tsm_tui.sources.base import SourceReader
from tsm_tui.sources.lines import LineSplitter, Tally, split_block

CHUNK = 1 << 20  # bytes per chunk (the replay's)


def step_lines(path: str, reader, steps, segments=()) -> dict[int, tuple[str, int | None]]:
    """step -> (file, 1-based line or None) of the last record logged at that step, for
    the wanted ``steps`` found in the log at ``path`` (and its older ``segments``, read
    first). ``reader``: the reader the report used, or its class (a fresh one reads).
    Steps not found are left out; formats without lines give {}."""
    wanted = {int(s) for s in steps if s is not None}
    cls = reader if isinstance(reader, type) else type(reader)
    if not wanted or getattr(cls, "kind", None) != "lines":
        return {}
    fresh = cls(path)
    arr = np.fromiter(wanted, dtype=np.int64, count=len(wanted))
    found: dict[int, tuple[str, int | None]] = {}
    last = 0
    for p in [*segments, path]:
        try:
            last = _one(p, fresh, wanted, arr, found, lines=not p.endswith(".gz"))
        except (OSError, EOFError, ValueError):  # unreadable now: what was found stands
            return found
    try:
        held = fresh.flush()  # a record held to the end: a block closed by the end of the file
    except Exception:  # noqa: BLE001 - the report counts this; locating is best effort
        held = []
    for rec in held:
        if rec.step in wanted and type(rec) is not TextEvent:
            found[rec.step] = (path, last or None)
    return found


def _one(path: str, reader: SourceReader, wanted: set, arr: np.ndarray, found: dict, lines: bool) -> int:
    """One file in chunks; returns its number of lines."""
    base = 0  # lines before the current chunk
    split = LineSplitter(Tally())  # (what it drops was counted by the report)
    with _segments.open_segment(path) as f:
        read = f.read1 if path.endswith(".gz") else f.read
        while True:
            data = read(CHUNK)
            if not data:
                break
            dropped = split.dropped
            head = split.push(data)
            base += split.dropped - dropped  # the end of an over-long line: one line, not parsed
            if head:
                base = _chunk(path, reader, head, base, wanted, arr, found, lines)
        rest = split.end()
        if rest:
            base = _chunk(path, reader, rest, base, wanted, arr, found, lines)
    return base


def _chunk(
    path: str, reader: SourceReader, data: bytes, base: int, wanted: set, arr: np.ndarray, found: dict, lines: bool
) -> int:
    """Feed one chunk of complete lines; locate the wanted steps it holds. Returns the
    number of lines read so far."""
    snap = copy.deepcopy(reader)
    try:
        items = reader.feed_chunk(data)
    except Exception:  # noqa: BLE001 - the report read this chunk line by line (lines.feed_block)
        items = None
    if items is None or _holds(items, wanted, arr):
        raws, last_open = split_block(data)
        src = snap if items is not None else reader
        for i, raw in enumerate(raws):
            try:
                got = src.feed(src.decode_line(raw, last_open and i == len(raws) - 1))
            except Exception:  # noqa: BLE001 - a line the report skipped
                continue
            for rec in got:
                if rec.step in wanted and type(rec) is not TextEvent:  # (an event says the last record's step)
                    found[rec.step] = (path, base + i + 1 if lines else None)
    return base + data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _holds(items, wanted: set, arr: np.ndarray) -> bool:
    for it in items:
        if type(it) is Frame:
            if np.isin(it.step, arr).any():
                return True
        elif it.step in wanted:
            return True
    return False


def relative(path: str, base: str | None = None) -> str:
    """``path`` relative to ``base`` (default: the working directory) when it is inside
    it, else absolute: how CI annotations and SARIF name a file."""
    base = os.path.abspath(base or os.getcwd())
    p = os.path.abspath(path)
    try:
        rel = os.path.relpath(p, base)
    except ValueError:  # another drive (Windows)
        return p
    return p if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel
