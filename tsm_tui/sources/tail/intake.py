"""The read step of one followed file: bytes from a descriptor into its ``Delivery``
(``sources/tail/delivery.py``: the reader, the held partial line, each record once),
with the counts the tailer schedules by (bytes read, the time of the last new
bytes) and the file's ``Identity`` moved on (``sources/tail/identity.py``).

Three sources of bytes: the file at the path from our offset (``to_eof``, which
stops at the queue's bound and when the file stops beginning as it did: truncated
and written again while we read), a rotated file from an offset (``rest_of``: a
copytruncate's copy) and a rotated generation whole (``generation``, gzip too).
I/O errors go to the file's ``io_error`` (counted, said once per kind).
"""

from __future__ import annotations

import os
import threading
import time
import zlib
from functools import partial
from typing import Callable, Protocol

from tsm_tui.sources import reading
from tsm_tui.sources.tail import rotation
from tsm_tui.sources.tail.delivery import Delivery
from tsm_tui.sources.tail.identity import Identity
from tsm_tui.sources.tail.paths import close_fd as _close_fd
from tsm_tui.sources.tail.paths import short as _short

CHUNK = 1 << 20  # bytes read per syscall

IoError = Callable[[str, OSError, str], None]  # (path, error, what was done)


class Meter(Protocol):
    """What the read step tells the tailer and asks of it."""

    read_bytes: int  # bytes read, all files
    active_at: float  # monotonic time of the last new bytes from any followed file
    caught_up: threading.Event  # the history present at start is read
    stopping: threading.Event
    retired_ids: rotation.ReadIds  # rotated files read already (never read again)

    def over_budget(self) -> bool: ...


class Intake:
    """Reads for one followed path (``path``), through its ``delivery``."""

    def __init__(self, path: str, at: Identity, delivery: Delivery, host: Meter, io_error: IoError) -> None:
        self.path = path
        self.at = at
        self.delivery = delivery
        self.host = host
        self.io_error = io_error
        self.active_at = 0.0  # monotonic time of the last bytes read (the idlest are parked first)
        self.moved = False  # a read found the file no longer begins as it did (truncated meanwhile)

    def to_eof(self, fd: int | None, budget: bool = False) -> bool:
        """Read the file at the path (open as ``fd``) from our offset to its end; False
        when stopped early: at the queue's bound (``budget``: the consumer drains
        before the next pass goes on) or a stop. Sets ``moved`` when the file was
        truncated and written again past our offset since the look."""
        if fd is None:
            return True
        while not self.host.stopping.is_set():
            if budget and self.host.over_budget():
                return False
            try:
                data = os.pread(fd, CHUNK, self.at.offset)
            except OSError as e:
                self.io_error(self.path, e, "read error")
                return True
            if not data:
                return True
            if (
                self.at.offset
                and self.at.head
                and self.delivery.reader.kind == "lines"
                and not self.at.begins_as_read(partial(os.pread, fd))
            ):
                self.moved = True
                return True
            self.take(data)
        return False

    def take(self, data: bytes) -> None:
        """The bytes read at our offset: to the reader, the offset and fingerprints moved on."""
        self.at.advance(data)
        self.active_at = time.monotonic()
        if self.host.caught_up.is_set():
            self.host.active_at = self.active_at
        self.host.read_bytes += len(data)
        self.delivery.feed(data)

    def rest_of(self, fd: int, start: int) -> None:
        """A rotated file's bytes from ``start`` to its end, as more of the path's lines."""
        off = start
        while True:
            data = os.pread(fd, CHUNK, off)
            if not data:
                return
            off += len(data)
            self.host.read_bytes += len(data)
            self.delivery.feed_lines(data)

    def generation(self, s: rotation.Sibling) -> bool:
        """One rotated generation, from its start (a ``.gz`` one decompressed: a corrupt
        one costs its rest, counted), remembered as read; False when it could not be."""
        try:
            fd = rotation.open_id(s)
            if fd is None:
                return False  # gone since the listing (deleted past the rotation count)
            try:
                raw = os.pread(fd, rotation.HEAD, 0)
                if s.compressed:
                    start = bytearray()
                    try:
                        for data in rotation.gunzip(fd):
                            if len(start) < rotation.HEAD:
                                start += data[: rotation.HEAD - len(start)]
                            self.host.read_bytes += len(data)
                            self.delivery.feed_lines(data)
                    except (OSError, EOFError, zlib.error) as e:
                        self.delivery.reader.skip(
                            f"rotated segment {_short(s.path)}: {reading.segment_fault(e)}: read up to there"
                        )
                    content: bytes | None = bytes(start)
                else:
                    self.rest_of(fd, 0)
                    content = None
            finally:
                _close_fd(fd)
        except OSError as e:
            self.io_error(s.path, e, "read error")
            return False
        self.host.retired_ids.add(s.id, raw, content)
        return True
