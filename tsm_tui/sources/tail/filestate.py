"""Per-file state of the tailer: offsets, identity, partial line, what a
rewrite must not deliver again."""

from __future__ import annotations

from array import array

from tsm_tui.core.frame import Frame
from tsm_tui.sources.base import LineReader


# ----------------------------------------------------------------------------- one file
class _File:
    """One logical stream: a path, whatever file currently sits there."""

    def __init__(self, path: str, reader: LineReader) -> None:
        self.path = path
        self.reader = reader
        self.fd: int | None = None
        self.dev_ino: tuple[int, int] | None = None
        self.offset = 0
        self.partial = bytearray()
        self.discarding = False  # inside an over-long line: drop until its newline
        self.size = -1
        self.mtime_ns = -1
        self.head = b""  # first bytes of the file, to spot a rewrite
        self.tail = b""  # the bytes just before ``offset``
        self.parsed = 0  # records parsed from the current incarnation of the file
        self.max_step: int | None = None  # highest step delivered from this path
        self.delivered = 0
        # rewrite mode: the first ``skip_n`` records of the new content with a
        # step <= ``skip_floor`` were delivered already
        self.skip_n = 0
        self.skip_floor: int | None = None
        self.gone = False  # the path vanished; watching for it to come back
        self.gone_since = -1  # its mtime when it vanished (rotated generations after it are read)
        self.moved = False  # a read found the file no longer begins as it did (truncated meanwhile)
        self.rotations = 0  # rotations (rename or copytruncate) seen: its rotated names are its own
        self.reopen_floor = False  # when it comes back: rewrite semantics?
        self.snap_steps = array("q")  # snapshot readers: steps of the last snapshot
        self.snap_dirty = False
        self.error: str | None = None  # last error reported (one event per kind)
        self.opened = 0  # incarnations opened at this path
        self.parked = False  # closed to stay within the tailer's MAX_OPEN; reopened on change
        self.active_at = 0.0  # monotonic time of the last bytes read (the idlest are parked first)

    def accept(self, recs: list) -> list:
        """Drop records a rewrite repeats; track what was delivered (a Frame counts
        its rows; while a rewrite is being skipped over it goes row by row)."""
        out = []
        for r in recs:
            if type(r) is Frame:
                if self.skip_floor is None:
                    self.parsed += r.n
                    out.append(r)
                    top = int(r.step.max())
                    if self.max_step is None or top > self.max_step:
                        self.max_step = top
                    continue
                rows = r.records()
            else:
                rows = (r,)
            for x in rows:
                idx = self.parsed
                self.parsed += 1
                if self.skip_floor is not None:
                    if idx < self.skip_n and x.step <= self.skip_floor:
                        continue
                    self.skip_floor = None  # past the old content: normal delivery from here
                out.append(x)
                if self.max_step is None or x.step > self.max_step:
                    self.max_step = x.step
        self.delivered += sum(x.n if type(x) is Frame else 1 for x in out)
        return out

    def start_rewrite(self) -> None:
        """The content starts over: the records parsed so far may come again."""
        if self.max_step is not None and self.parsed:
            self.skip_n, self.skip_floor = self.parsed, self.max_step
        self.parsed = 0


