"""One followed file: ``FollowedFile.poll()`` reads what a path gained since the
last look, whatever happened to the file in between.

Per file it keeps which bytes were read from which file: the offset, the inode
and device, the first bytes and the bytes just before the offset (to spot a
rewrite, to find a copy), and whether the path is gone or was rotated. What turns
those bytes into records (the reader, the held partial line) and which records
went out already is its ``Delivery`` (``sources/tail/delivery.py``); which bytes a
rotated sibling holds is asked of ``sources/tail/rotation.py``. A poll ``stat``s
the path and then:

- truncation (size below the offset), or a rewrite in place (the first bytes or
  the bytes just before the offset changed: Lightning's metrics.csv when a column
  appears) -> a fresh reader from offset 0, and the records the file already gave
  are not delivered again (``Delivery.start_rewrite``);
- rotation (renamed away, a new file at the path) -> the new file is opened, the
  old handle is read to EOF, then the generations rotated in between (``x.3``,
  ``x.2``, ``x.1`` when the log rotated several times between two polls: by inode,
  oldest first, from a listing taken while no rename was under way), then the new
  file from 0 (``sources/tail/rotation.py``);
- copytruncate (the file we hold truncated after a copy) -> the copy holding what
  we read (the same first bytes, the same bytes before our offset) is read on from
  our offset, any later copies whole, then the file from 0 with the same reader and
  splitter (a line the copy cut in two is joined);
- atomic replace / delete + re-create -> like a rewrite: the records already
  delivered are skipped, the new ones delivered;
- "snapshot" readers (HF trainer_state.json, rewritten whole at each save) re-read
  the whole file on change and deliver the records past the longest step prefix
  shared with the previous snapshot (a resumed run's shorter history shows up as a
  resume, not as nothing);
- network filesystems: the path is re-opened at each poll (close-to-open
  consistency makes the client revalidate what it cached).

It runs in the thread that makes the tailer's passes (``sources/tail/tailer.py``)
and talks to the tailer through ``Host`` only: batches out, notes out, the
queue's bound, the rotated files the tailer holds. I/O errors are counted and
said once per kind, never raised.
"""

from __future__ import annotations

import os
import threading
import time
import zlib
from typing import Iterator, Protocol, cast

from tsm_tui.core.frame import Frame
from tsm_tui.core.safeio import open_fd
from tsm_tui.sources import reading
from tsm_tui.sources.base import LineReader, SnapshotReader
from tsm_tui.sources.lines import LineSplitter
from tsm_tui.sources.tail import rotation
from tsm_tui.sources.tail.delivery import Delivery
from tsm_tui.sources.tail.paths import close_fd as _close_fd
from tsm_tui.sources.tail.paths import dir_aware as _dir_aware
from tsm_tui.sources.tail.paths import fid as _fid
from tsm_tui.sources.tail.paths import short as _short

CHUNK = 1 << 20  # bytes read per syscall
FINGERPRINT = 256  # bytes compared at the head and before the offset to spot rewrites
IDLE_FLUSH = 1.0  # s without new bytes before a reader's held-back record is delivered (ours)


class Host(Protocol):
    """What a followed file needs from its tailer."""

    network: bool  # re-open at each poll (close-to-open consistency)
    read_bytes: int  # bytes read, all files
    active_at: float  # monotonic time of the last new bytes from any followed file
    caught_up: threading.Event  # the history present at start is read
    stopping: threading.Event
    retired_ids: rotation.ReadIds  # rotated files read already (never read again)

    def put(self, source: str, reader: LineReader, records: list) -> None: ...

    def note(self, text: str, path: str | None = None) -> None: ...

    def io_error(self, f: "FollowedFile | None", path: str, e: OSError, what: str) -> None: ...

    def over_budget(self) -> bool: ...

    def retire(self, fd: int, dev_ino: tuple[int, int], path: str) -> None: ...

    def unread(self, sibs: list[rotation.Sibling]) -> list[rotation.Sibling]: ...

    def held_heads(self) -> set[bytes]: ...


class FollowedFile:
    """One logical stream: a path, whatever file currently sits there."""

    def __init__(self, path: str, reader: LineReader, host: Host) -> None:
        self.path = path
        self.host = host
        #: the reader, the held partial line and what was delivered (``delivery.py``)
        self.delivery = Delivery(path, reader, host)
        self.fd: int | None = None
        self.dev_ino: tuple[int, int] | None = None
        self.offset = 0
        self.size = -1
        self.mtime_ns = -1
        self.head = b""  # first bytes of the file, to spot a rewrite
        self.tail = b""  # the bytes just before ``offset``
        self.gone = False  # the path vanished; watching for it to come back
        self.gone_since = -1  # its mtime when it vanished (rotated generations after it are read)
        self.moved = False  # a read found the file no longer begins as it did (truncated meanwhile)
        self.rotations = 0  # rotations (rename or copytruncate) seen: its rotated names are its own
        self.reopen_floor = False  # when it comes back: rewrite semantics?
        self.snap_dirty = False  # a snapshot reader's file could not be read whole: again next pass
        self.error: str | None = None  # last error reported (one event per kind)
        self.opened = 0  # incarnations opened at this path
        self.parked = False  # closed to stay within the tailer's MAX_OPEN; reopened on change
        self.active_at = 0.0  # monotonic time of the last bytes read (the idlest are parked first)
        self.backlog: Iterator[list] | None = None  # the rotated segments' batches still to deliver

    @property
    def reader(self) -> LineReader:
        return self.delivery.reader

    def _open_path(self) -> int | None:
        try:
            # regular files only (a FIFO at the path must not block); a snapshot reader's
            # directory source (MLflow metrics/) is opened as a directory
            return open_fd(self.path, allow_dir=self.reader.kind == "snapshot")
        except FileNotFoundError:
            return None
        except OSError as e:
            self.host.io_error(self, self.path, e, "cannot open")
            return None

    def open(self, fd: int | None = None) -> bool:
        """Follow the file at ``self.path`` from its start (``fd``: opened already)."""
        if fd is None:
            fd = self._open_path()
            if fd is None:
                return False
        st = os.fstat(fd)
        self.opened += 1
        self.fd, self.dev_ino = fd, (st.st_dev, st.st_ino)
        # (size unknown: the first check reads; the mtime says since when rotated siblings are new)
        self.offset, self.size, self.mtime_ns = 0, -1, st.st_mtime_ns
        self.delivery.lines.reset()
        self.head = self.tail = b""
        self.gone = False
        self.error = None
        return True

    def close(self) -> None:
        if self.fd is not None:
            _close_fd(self.fd)
            self.fd = None

    def poll(self) -> None:
        """One look at the file: read what is new (see the module docstring for what a
        truncation, a rewrite, a rotation or a copytruncate does)."""
        if self.backlog is not None and not self._read_backlog():
            return  # the queue's bound: the history goes on at the next pass
        try:
            st = self.stat()
        except FileNotFoundError:
            self._vanished()
            return
        except OSError as e:
            self.host.io_error(self, self.path, e, "cannot stat")
            return
        if self.parked:  # closed to stay within MAX_OPEN: reopen only when it changed
            if (
                (st.st_dev, st.st_ino) == self.dev_ino
                and st.st_size == self.size
                and st.st_mtime_ns == self.mtime_ns
                and not self.snap_dirty
            ):
                self.idle()
                return
            if not self._unpark(st):
                return
        if self.fd is None:  # the path came back (or could not be opened before)
            came_back = self.opened > 0
            old_id = self.dev_ino
            if not self.open():
                return
            if came_back:
                self.delivery.fresh_reader()
                if self.reopen_floor:
                    self.delivery.start_rewrite()
                else:
                    self.delivery.start_over()
                self.host.note(f"{_short(self.path)} appeared again: reading it from the start", self.path)
                if not self.reopen_floor and self.reader.kind == "lines":
                    # moved away, then rotated on while the path was empty: the
                    # generations in between come before the new file
                    self._generations(old_id, self.gone_since, self.dev_ino, self.fd)
            self.reopen_floor = False
        if (st.st_dev, st.st_ino) != self.dev_ino:
            self._switch()
            return
        if st.st_size == self.size and st.st_mtime_ns == self.mtime_ns and not self.snap_dirty:
            self.idle()
            return  # nothing new
        if self.reader.kind == "snapshot":
            self._read_snapshot(st)
            return
        if self._catch_up(st.st_size, budget=True):
            self.size, self.mtime_ns = st.st_size, st.st_mtime_ns
        # else: stopped at the queue's bound; the size still differs, the next pass goes on

    def idle(self) -> None:
        """No new bytes for IDLE_FLUSH seconds: what the reader holds back waiting for
        more (TensorBoard's newest step) is delivered (a final NaN is seen live)."""
        if self.reader.kind != "bytes" or time.monotonic() - self.active_at < IDLE_FLUSH:
            return
        self.delivery.idle()

    def _unpark(self, st) -> bool:
        """Open a parked file again; the same file continues where it stopped, a
        different one at its path (rotated while not held open) starts over."""
        self.parked = False
        try:
            fd = open_fd(self.path, allow_dir=self.reader.kind == "snapshot")
        except OSError as e:
            self.host.io_error(self, self.path, e, "cannot open")
            self.parked = True
            return False
        try:
            fst = os.fstat(fd)
        except OSError:
            _close_fd(fd)
            self.parked = True
            return False
        if (fst.st_dev, fst.st_ino) == self.dev_ino:
            self.fd = fd
            return True
        _close_fd(fd)
        old = self._rotated_copy_of()
        if old is not None:  # rotated while not held open: finished under its new name (``_switch``)
            self.fd = old
            return True
        self.host.note(
            f"{_short(self.path)} was replaced while not held open: reading the new file from the start "
            "(the old file's last lines, if any were written after the last read, are not read)",
            self.path,
        )
        self.fd = None
        self.reopen_floor = True
        return True

    def _catch_up(self, size: int, budget: bool = False) -> bool:
        """Read to EOF, starting over first if the file was truncated or rewritten
        (after the copy a copytruncate left, when there is one: ``_copied``); False
        when stopped at the queue's bound (``budget``)."""
        if not self.offset and self.rotations and self.reader.kind == "lines":
            self._copied_unseen()
        for _ in range(rotation.LIST_TRIES):
            if size < self.offset or (self.offset and not self._same_content()) or self._weakly_truncated():
                note = self._copied()
                if note is None:
                    pass  # copytruncate: the copies were read and the file's first chunk taken
                elif size < self.offset:
                    self._restart(
                        f"{_short(self.path)} truncated ({size} < {self.offset} bytes read): "
                        f"reading it from the start{note}"
                    )
                else:
                    self._restart(
                        f"{_short(self.path)} rewritten: reading it from the start "
                        f"(records already seen are not counted twice){note}"
                    )
            done = self._read_to_eof(budget)
            if not self.moved:
                return done
            self.moved = False  # truncated again while we read: its copy comes first
            if self.fd is None:
                return done
            try:
                size = os.fstat(self.fd).st_size
            except OSError:
                return done
        done = self._read_to_eof(budget)
        self.moved = False
        return done

    def stat(self):
        """stat the path; on a network filesystem through a fresh open, since
        close-to-open consistency makes the client revalidate its cached
        attributes (a long-held descriptor can lag other hosts by 10-30 s)."""
        if not self.host.network:
            return _dir_aware(os.stat(self.path), self.path)
        fd = open_fd(self.path, allow_dir=self.reader.kind == "snapshot")
        try:
            st = os.fstat(fd)
        except OSError:
            _close_fd(fd)
            raise
        if self.fd is not None and (st.st_dev, st.st_ino) == self.dev_ino:
            _close_fd(self.fd)
            self.fd = fd  # read through the fresh descriptor
        else:
            _close_fd(fd)
        return _dir_aware(st, self.path)

    def _same_content(self) -> bool:
        """The bytes we read are still there (else: rewritten in place)."""
        if self.fd is None:
            return True
        try:
            if self.head and os.pread(self.fd, len(self.head), 0) != self.head:
                return False
            if self.tail and os.pread(self.fd, len(self.tail), self.offset - len(self.tail)) != self.tail:
                return False
        except OSError:
            return True  # cannot tell: keep reading forward
        return True

    def _restart(self, why: str) -> None:
        """Truncated or rewritten: start over at 0 with a fresh reader."""
        self.host.note(why, self.path)
        self.delivery.flush()
        self.delivery.fresh_reader()
        self.delivery.start_rewrite()
        self.offset = 0
        self.delivery.lines.reset()
        self.head = self.tail = b""

    def _switch(self) -> None:
        """A different file sits at the path now: finish the old one (and the rotated
        generations between it and the new one), start the new one. The new one is
        opened first: what is read in between ends where it begins."""
        new = self._open_path()
        try:
            upto = _fid(os.fstat(new)) if new is not None else None
            rotated = self._finish_old(upto, new)
        except BaseException:
            if new is not None:
                _close_fd(new)
            raise
        if rotated:
            self.rotations += 1
        self.host.note(
            f"{_short(self.path)} {'rotated' if rotated else 'replaced'}: "
            "finished the old file, reading the new one from the start",
            self.path,
        )
        self.delivery.fresh_reader()
        held = LineSplitter(self.reader)
        held.carry(self.delivery.lines)
        if new is None or not self.open(new):
            self.gone = True
            self.reopen_floor = not rotated
            return
        self.delivery.lines.carry(held)
        if not rotated:
            self.delivery.start_rewrite()
        else:
            self.delivery.start_over()
        self.poll()

    def _finish_old(self, upto=None, new: int | None = None) -> bool:
        """Read the old handle to EOF, then the rotated generations written after it
        (``_generations``; up to the file ``upto``, the one now at the path); True when
        it still exists elsewhere (rotated)."""
        rotated = False
        if self.fd is not None:
            since, old_id = self.mtime_ns, self.dev_ino
            if self.reader.kind != "snapshot":  # (a new snapshot supersedes the old one)
                try:
                    # it may have been truncated or rewritten since the last check, too
                    self._catch_up(os.fstat(self.fd).st_size)
                except OSError as e:
                    self.host.io_error(self, self.path, e, "read error")
            try:
                rotated = os.fstat(self.fd).st_nlink > 0
            except OSError:
                rotated = False
            self.delivery.lines.reset()  # (a rotated file's unfinished last line is not completed elsewhere)
            if self.reader.kind == "lines":
                if not rotated:
                    # replaced: what follows starts over with the old content (a copy of the
                    # new file, when it was copytruncated too before we looked, or the new file)
                    self.delivery.start_rewrite()
                self._generations(old_id, since, upto, new)
            self.delivery.flush()
            if rotated and self.dev_ino is not None:
                self.host.retire(self.fd, self.dev_ino, self.path)
                self.fd = None
            else:
                self.close()
        # (a line the last generation read left unfinished is kept: a copy of the new
        # file cut it, and the new file completes it; ``_switch``)
        return rotated

    def _vanished(self) -> None:
        if self.gone:
            return
        self.gone = True
        self.gone_since = self.mtime_ns
        rotated = self._finish_old()
        self.rotations += rotated
        self.delivery.lines.reset()
        self.reopen_floor = not rotated
        self.size = self.mtime_ns = -1
        self.host.note(
            f"{_short(self.path)} {'moved away' if rotated else 'deleted'}: "
            "read what was there; watching for it to reappear",
            self.path,
        )

    # -- rotated generations and copies (sources/tail/rotation.py) ---------------------

    def _generations(self, old_id, since: int, upto, new: int | None = None) -> None:
        """The file ``self`` held (``old_id``) was rotated away: the generations rotated
        after it and before ``upto`` (the file now at the path, open as ``new``),
        written since ``since`` (its mtime at the last pass) and never opened, are read
        whole, oldest first. A copy of the new file as it is (copytruncate, maybe still
        being written) is left for its truncation."""
        todo = self.host.unread(rotation.between(rotation.rotated_since(self.path, since), old_id, upto))
        if new is not None:
            todo = rotation.before_copies_of(todo, new)
        if not todo:
            return
        read_heads: set[bytes] | None = None
        names = []
        for s in todo:
            if s.compressed:
                # compressed after the rotation (gzip keeps the mtime): a copy of a file read
                # already, or a generation never opened
                if read_heads is None:
                    read_heads = self.host.retired_ids.contents() | self.host.held_heads() | {bytes(self.head)}
                raw, head = rotation.heads_of(s)
                if head in read_heads:
                    self.host.retired_ids.add(s.id, raw, head)
                    continue
            # (a line cut between two files is joined: a copytruncate's copies cut lines
            # anywhere; rename rotation happens between records)
            if self._read_whole(s):
                names.append(_short(s.path))
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            self.host.note(
                f"{_short(self.path)} rotated {len(names) + 1} times since the last look: "
                f"read the generations in between too ({shown})",
                self.path,
            )

    def _copied(self) -> str | None:
        """``self`` (the same file) was truncated or rewritten: when a rotated copy of it
        holds what we read (copytruncate), read the copy on from our offset, then
        any later copies whole, and go on in the file from its start with the same
        reader (a line the copy cut is completed there). None when done so; else
        a note for the restart's message ("" or why the rest cannot be read)."""
        if self.reader.kind != "lines" or not self.offset:
            return ""
        sibs = self._copies()
        for s in sibs:
            fd = rotation.holder(s, self.head, self.tail, self.offset)
            if fd is None:
                continue
            try:
                self._read_fd(fd, self.offset)
                self.host.retired_ids.add(s.id, os.pread(fd, rotation.HEAD, 0))
            finally:
                _close_fd(fd)
            names = [_short(s.path)]
            first = self._later_copies(s.id, names)
            self.rotations += 1
            self.host.note(
                f"{_short(self.path)} truncated after a copy (copytruncate): read the rest from "
                f"{names[0]} (from byte {self.offset:,})"
                + (f" and {', '.join(names[1:])}" if len(names) > 1 else "")
                + ", then the file from its start",
                self.path,
            )
            self.offset = 0
            self.head = self.tail = b""
            self.delivery.start_over()
            self.size = -1
            if first:
                self._take(first)
            return None
        if any(s.compressed for s in sibs):
            return (
                " (its rotated copy was compressed before it was read: lines written between the last "
                "read and the rotation are not read)"
            )
        return ""

    def _copies(self, after=None) -> list[rotation.Sibling]:
        """The unread rotated siblings of ``self`` written since our last look, after the
        file ``after`` (when given) and before ``self``'s own file (which may have been
        renamed since: only what is older than it counts), oldest first."""
        return self.host.unread(rotation.between(rotation.rotated_since(self.path, self.mtime_ns), after, self.dev_ino))

    def _weakly_truncated(self) -> bool:
        """What we read of a copytruncated file is too short to tell it apart (``{"s``
        begins every JSON line): a copy of it made since that holds what we read,
        while the file holds other bytes after our offset, says it was truncated and
        written again past our offset; so does a copy made after that one (only a
        truncation comes between two copies). (Only then: a listing per pass.)"""
        if not (self.offset and len(self.head) < FINGERPRINT and self.rotations and self.reader.kind == "lines"):
            return False
        sibs = self._copies()
        for i, s in enumerate(sibs):
            fd = rotation.holder(s, self.head, self.tail, self.offset)
            if fd is None:
                continue
            try:
                ours = os.pread(self.fd, FINGERPRINT, self.offset) if self.fd is not None else b""
                theirs = os.pread(fd, FINGERPRINT, self.offset)
            except OSError:
                continue
            finally:
                _close_fd(fd)
            n = min(len(ours), len(theirs))
            if (n and ours[:n] != theirs[:n]) or i + 1 < len(sibs):
                return True
        return False

    def _copied_unseen(self) -> None:
        """A copytruncated file we have read nothing of yet (empty at the last look):
        written, copied and truncated since, its copies hold bytes we never saw; they
        come before what the file holds now (no offset of ours to tell it by)."""
        names: list[str] = []
        first = self._later_copies(None, names)
        if names:
            self.host.note(
                f"{_short(self.path)} truncated after a copy (copytruncate) before it was read: read "
                f"{', '.join(names)}, then the file from its start",
                self.path,
            )
            if first:
                self._take(first)

    def _later_copies(self, after, names: list[str]) -> bytes:
        """After the copy ``after`` that held our offset: the copies made after it (each the
        whole content between two truncations), up to the file's current start. That
        start is pinned (read) before each listing: a copy that does not begin with it
        holds older bytes, made before a truncation that came before the pin (read it
        whole, then look again); one that begins with it is a copy of the file as it
        is, maybe still being written by the rotation (left for the truncation that
        will follow it: ``_copied`` then finds it). Returns the file's first chunk,
        to be taken as its start."""
        first = b""
        for _ in range(rotation.LIST_TRIES):
            try:
                first = os.pread(self.fd, CHUNK, 0) if self.fd is not None else b""
            except OSError:
                first = b""
            later = self._copies(after)
            older = later if self.fd is None else rotation.before_copies_of(later, self.fd)
            if not older:
                break
            for t in older:
                if self._read_whole(t):
                    names.append(_short(t.path))
        return first

    def _rotated_copy_of(self) -> int | None:
        """A descriptor of the file ``self`` followed, found under a rotated name."""
        if self.reader.kind != "lines" or self.dev_ino is None:
            return None
        return rotation.open_rotated(self.path, self.mtime_ns, self.dev_ino)

    def _read_whole(self, s: rotation.Sibling) -> bool:
        """One rotated generation, from its start, through ``self``'s reader."""
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
                    except (OSError, EOFError, zlib.error) as e:  # a corrupt .gz costs its rest, counted
                        self.reader.skip(
                            f"rotated segment {_short(s.path)}: {reading.segment_fault(e)}: read up to there"
                        )
                    content: bytes | None = bytes(start)
                else:
                    self._read_fd(fd, 0)
                    content = None
            finally:
                _close_fd(fd)
        except OSError as e:
            self.host.io_error(self, s.path, e, "read error")
            return False
        self.host.retired_ids.add(s.id, raw, content)
        return True

    def _read_fd(self, fd: int, start: int) -> None:
        """A rotated file's bytes from ``start`` to its end, as more of ``self``'s lines."""
        off = start
        while True:
            data = os.pread(fd, CHUNK, off)
            if not data:
                return
            off += len(data)
            self.host.read_bytes += len(data)
            self.delivery.feed_lines(data)

    # -- reading ----------------------------------------------------------------------
    def _read_to_eof(self, budget: bool = False) -> bool:
        """Read what is new; False when stopped early: at the queue's bound (``budget``:
        the consumer drains before the next pass goes on) or a stop."""
        if self.fd is None:
            return True
        while not self.host.stopping.is_set():
            if budget and self.host.over_budget():
                return False
            try:
                data = os.pread(self.fd, CHUNK, self.offset)
            except OSError as e:
                self.host.io_error(self, self.path, e, "read error")
                return True
            if not data:
                return True
            if self.offset and self.head and self.reader.kind == "lines" and not self._still():
                self.moved = True  # truncated (and written again past our offset) since the check
                return True
            self._take(data)
        return False

    def _still(self) -> bool:
        """The file still begins with what we read: a chunk just read at our offset is
        its continuation, not bytes of a copytruncate's new content (one small pread)."""
        if self.fd is None:
            return True
        try:
            return os.pread(self.fd, len(self.head), 0) == self.head
        except OSError:
            return True

    def _take(self, data: bytes) -> None:
        """The bytes read at ``self.offset``: to the reader, the offset and fingerprints moved on."""
        self.offset += len(data)
        self.active_at = time.monotonic()
        if self.host.caught_up.is_set():
            self.host.active_at = self.active_at
        self.host.read_bytes += len(data)
        if len(self.head) < FINGERPRINT:
            self.head = (self.head + data)[:FINGERPRINT]
        self.tail = (self.tail + data[-FINGERPRINT:])[-FINGERPRINT:]
        self.delivery.feed(data)

    def _read_snapshot(self, st) -> None:
        self.size, self.mtime_ns = st.st_size, st.st_mtime_ns
        if self.host.caught_up.is_set():
            self.host.active_at = time.monotonic()
        try:
            # read_path: a file's bytes, or a directory source (MLflow metrics/)
            recs = cast(SnapshotReader, self.reader).read_path(self.path)
        except OSError as e:
            self.host.io_error(self, self.path, e, "read error")
            return
        except Exception:
            self.snap_dirty = True  # half-written (a save in progress): try again next pass
            return
        self.snap_dirty = False
        self.delivery.snapshot(recs)

    def read_history(self, segs: list[str]) -> None:
        """The older rotated segments of a live file, oldest first, as its history
        (one series, one reader), read by the next polls before the file itself (up to
        the queue's bound each); their files are known at once, so never followed."""
        todo = []
        for seg in segs:
            try:
                st = os.stat(seg)
                self.host.retired_ids.add(
                    _fid(st), rotation.head_of(seg), rotation.content_head(seg) if seg.endswith(".gz") else None
                )
            except OSError as e:
                self.host.io_error(self, seg, e, "read error")
                continue
            todo.append(seg)
        if todo:
            self.backlog = self._history_batches(todo)

    def _history_batches(self, segs: list[str]) -> Iterator[list]:
        for seg in segs:
            batch: list = []
            try:
                for item in reading.read_segment(seg, self.reader):
                    batch.append(item)
                    if len(batch) >= 4096 or type(item) is Frame:
                        yield batch
                        batch = []
            except OSError as e:
                self.host.io_error(self, seg, e, "read error")
            except Exception as e:  # a reader bug (or a corrupt .gz) must not stop the tailer
                self.reader.skip(f"reader error: {type(e).__name__} (segment {_short(seg)})")
            yield batch

    def _read_backlog(self) -> bool:
        """The history's batches, up to the queue's bound; True once all are read."""
        while self.backlog is not None:
            if self.host.over_budget():
                return False
            batch = next(self.backlog, None)
            if batch is None:
                self.backlog = None
            else:
                self.host.put(self.path, self.reader, batch)
        return True
