"""Which file a followed path holds and which of its bytes were read, and what a
look at the path makes of it. No I/O here: the caller ``stat``s and reads, these
compare (``pread`` is any ``(n, offset) -> bytes``, so the decisions are tested on
plain bytes).

What is kept: the file's device and inode, the offset read up to, the size and
mtime seen at the last look, the first bytes (``head``) and the bytes just before
the offset (``tail``), each at most ``FINGERPRINT`` long. A look tells:

- ``Look.OTHER_FILE``: a different file sits at the path (rotated or replaced);
- ``Look.UNCHANGED``: the same size and mtime (nothing to read);
- ``Look.CHANGED``: read on, first asking ``damage``: ``TRUNCATED`` (shorter than
  what was read), ``REWRITTEN`` (the head or the tail differs: Lightning's
  metrics.csv when a column appears, a copytruncate with new content past our
  offset) or None (appended to).

What a damaged file's rotated copies hold is asked of ``sources/tail/generations.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable

FINGERPRINT = 256  # bytes compared at the head and before the offset to spot rewrites

Pread = Callable[[int, int], bytes]  # (n, offset) -> at most n bytes of the file from offset

TRUNCATED = "truncated"
REWRITTEN = "rewritten"


class Look(Enum):
    OTHER_FILE = "other file"
    UNCHANGED = "unchanged"
    CHANGED = "changed"


@dataclass
class Identity:
    """The file held at a path and how far it was read."""

    dev_ino: tuple[int, int] | None = None
    offset: int = 0
    size: int = -1  # at the last look (-1: not looked at since it was opened)
    mtime_ns: int = -1  # at the last look; since when rotated siblings are new
    head: bytes = b""  # first bytes of the file, to spot a rewrite
    tail: bytes = b""  # the bytes just before ``offset``

    def opened(self, dev_ino: tuple[int, int], mtime_ns: int) -> None:
        """A file opened at the path, to be read from its start (its size unknown:
        the first look reads)."""
        self.dev_ino = dev_ino
        self.offset, self.size, self.mtime_ns = 0, -1, mtime_ns
        self.head = self.tail = b""

    def rewind(self) -> None:
        """The same file read again from its start."""
        self.offset = 0
        self.head = self.tail = b""

    def seen(self, size: int, mtime_ns: int) -> None:
        self.size, self.mtime_ns = size, mtime_ns

    def advance(self, data: bytes) -> None:
        """``data`` read at ``offset``: the offset and the fingerprints move on."""
        self.offset += len(data)
        if len(self.head) < FINGERPRINT:
            self.head = (self.head + data)[:FINGERPRINT]
        self.tail = (self.tail + data[-FINGERPRINT:])[-FINGERPRINT:]

    def look(self, st, dirty: bool = False) -> Look:
        """What a ``stat`` of the path says (``dirty``: read again even if unchanged)."""
        if (st.st_dev, st.st_ino) != self.dev_ino:
            return Look.OTHER_FILE
        if st.st_size == self.size and st.st_mtime_ns == self.mtime_ns and not dirty:
            return Look.UNCHANGED
        return Look.CHANGED

    def damage(self, size: int, pread: Pread | None) -> str | None:
        """``TRUNCATED``, ``REWRITTEN`` or None (only appended to, or cannot tell);
        ``pread`` None: the file is not open (nothing to compare)."""
        if size < self.offset:
            return TRUNCATED
        if self.offset and pread is not None and not self.holds(pread):
            return REWRITTEN
        return None

    def holds(self, pread: Pread) -> bool:
        """The bytes we read are still there: the same head, the same bytes before the
        offset (an unreadable file: cannot tell, so True: keep reading forward)."""
        try:
            if self.head and pread(len(self.head), 0) != self.head:
                return False
            if self.tail and pread(len(self.tail), self.offset - len(self.tail)) != self.tail:
                return False
        except OSError:
            return True
        return True

    def begins_as_read(self, pread: Pread) -> bool:
        """The file still begins with what we read: a chunk just read at our offset is
        its continuation, not bytes of a copytruncate's new content (one small read)."""
        try:
            return pread(len(self.head), 0) == self.head
        except OSError:
            return True

    def weak(self) -> bool:
        """What was read is too short to tell a copytruncate's new content from ours
        (``{"s`` begins every JSON line): its copies must be asked."""
        return bool(self.offset) and len(self.head) < FINGERPRINT


def diverged(ours: bytes, theirs: bytes) -> bool:
    """Two files' bytes at one offset differ where both have some."""
    n = min(len(ours), len(theirs))
    return bool(n) and ours[:n] != theirs[:n]
