"""A finished file read to its end: every record its reader gives, in log order.

``read_items`` is how the replay (``analysis/replay.py``), ``ReplayFeed`` and the
tools read a file whatever its reader's kind: a line reader's text (and its older
rotated segments first) cut into lines by ``sources/lines.py`` in 1 MiB chunks, a
byte reader's chunks, a snapshot reader's whole file. A reader that raises costs a
counted skip, never the read; a rotated segment that cannot be read to its end
costs that segment's rest (``read_segment``).
"""

from __future__ import annotations

import os
from typing import Iterator

from tsm_tui.core.frame import expand, pack
from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources import lines as _lines
from tsm_tui.sources import segments as _segments
from tsm_tui.sources.base import SnapshotReader, SourceReader
from tsm_tui.sources.head import HOLE, skip_hole
from tsm_tui.sources.segments import segment_fault


CHUNK = 1 << 20


def guarded_flush(reader: SourceReader) -> list:
    try:
        return reader.flush()
    except Exception as e:  # noqa: BLE001
        reader.skip(_lines.reader_error(e))
        return []


def read_items(path: str, reader: SourceReader, segments: list[str] | tuple = ()) -> Iterator:
    """Every record of a finished file, whatever the reader's kind, as StepRecords
    and (for the long uniform stretches of line formats) Frames, in log order.
    ``segments``: older rotated parts of the same log, read first (oldest first)."""
    if reader.kind == "lines":
        for seg in segments:
            yield from read_segment(seg, reader)
        if path.endswith(".gz"):  # an archived log alone: what it holds up to a fault is read
            yield from read_segment(path, reader, "archived log")
        else:
            yield from _read_lines(path, reader)
    elif reader.kind == "bytes":
        # older files of the same run first (W&B: a resumed run's earlier run dirs)
        for p in (*segments, path):
            with open_regular(p) as f:
                while True:
                    data = f.read(CHUNK)
                    if not data:
                        break
                    yield from _lines.feed_block(reader, data)
            if p != path:
                reader.next_file()  # type: ignore[attr-defined]  # (segments of a bytes file: W&B run files only)
    else:
        assert isinstance(reader, SnapshotReader)  # (kind "snapshot")
        try:
            recs = reader.read_path(path)
        except OSError:
            raise
        except Exception as e:  # noqa: BLE001 - a snapshot that does not parse: counted
            reader.skip(_lines.reader_error(e))
            recs = []
        yield from pack(recs)
    yield from guarded_flush(reader)


def read_segment(path: str, reader: SourceReader, what: str = "rotated segment") -> Iterator:
    """A rotated segment's records (no flush: the live file goes on). A segment that
    cannot be read to its end (a truncated ``.gz``, one that is not gzip, trailing
    garbage, a read error) costs that segment's rest, a counted skip: the records
    before the fault, the other segments and the live file are still read."""
    try:
        yield from _read_lines(path, reader)
    except _segments.GZIP_FAULTS as e:
        reader.skip(f"{what} {os.path.basename(path)}: {segment_fault(e)}: read up to there")


def _read_lines(path: str, reader: SourceReader) -> Iterator:
    """One text file (or ``.gz`` segment) through a line reader, in 1 MiB chunks cut
    into lines by ``sources/lines.py`` (NUL bytes dropped and counted, over-long lines
    counted and dropped, the unterminated last line read)."""
    split = _lines.LineSplitter(reader)
    with _segments.open_segment(path) as f:
        # .gz: one member's output at a time (read1): what came before a bad member
        # (trailing garbage) is delivered before its error
        read = f.read1 if path.endswith(".gz") else f.read
        first = True
        while True:
            data = read(CHUNK)
            if not data:
                break
            if first:
                first = False
                if data[:1] == b"\0" and not path.endswith(".gz"):
                    off = skip_hole(f, path)  # a sparse hole: jump it
                    if off:
                        _lines.note(reader, HOLE, off)
                        data = f.read(CHUNK)
            block = split.push(data)
            if block:
                yield from _lines.feed_block(reader, block)
        last = split.end()
        if last:
            yield from _lines.feed_block(reader, last)


def read_records(path: str, reader: SourceReader) -> Iterator[StepRecord]:
    """Every record of a finished file, one StepRecord at a time (frames expanded)."""
    yield from expand(read_items(path, reader))
