"""One followed file: ``FollowedFile.poll()`` reads what a path gained since the
last look, whatever happened to the file in between.

A poll ``stat``s the path and asks the file's ``Identity`` (``identity.py``: which
file, which of its bytes were read; pure) what that means, then:

- nothing new -> a byte reader's held-back record is delivered after IDLE_FLUSH (and a line
  reader's that holds records back: ``holds_lines``, HF stdout's bursts);
- truncation (size below the offset), or a rewrite in place (the first bytes or
  the bytes just before the offset changed: Lightning's metrics.csv when a column
  appears) -> a fresh reader from offset 0, and the records the file already gave
  are not delivered again (``Delivery.start_rewrite``); unless a copytruncate's
  copy holds what we read (``generations.py``: the copy on from our offset, later
  copies whole, then the file from 0 with the same reader and splitter);
- rotation (renamed away, a new file at the path) -> the new file is opened, the
  old handle is read to EOF, then the generations rotated in between (``x.3``,
  ``x.2``, ``x.1``: by inode, oldest first; ``generations.py``), then the new file
  from 0;
- atomic replace / delete + re-create -> like a rewrite: the records already
  delivered are skipped, the new ones delivered;
- "snapshot" readers (HF trainer_state.json, rewritten whole at each save) re-read
  the whole file on change; ``Delivery.snapshot`` delivers the records past the
  longest step prefix shared with the previous snapshot;
- network filesystems: the path is re-opened at each poll (close-to-open
  consistency makes the client revalidate what it cached).

The bytes are read by ``intake.py`` into ``delivery.py`` (the reader, the held
partial line, each record once); a live file's older segments are read first as its
history (``history.py``). It all runs in the thread that makes the tailer's passes
(``sources/tail/tailer.py``) and talks to the tailer through ``Host`` only:
batches out, notes out, the queue's bound, the rotated files the tailer holds. I/O
errors are counted and said once per kind, never raised.
"""

from __future__ import annotations

import os
import time
from functools import partial
from typing import Protocol, cast

from tsm_tui.core.safeio import open_fd
from tsm_tui.sources.base import SourceReader, SnapshotReader
from tsm_tui.sources.lines import LineSplitter
from tsm_tui.sources.tail import rotation
from tsm_tui.sources.tail.delivery import Delivery
from tsm_tui.sources.tail.generations import Generations
from tsm_tui.sources.tail.history import History
from tsm_tui.sources.tail.identity import REWRITTEN, TRUNCATED, Identity, Look
from tsm_tui.sources.tail.intake import Intake, Meter
from tsm_tui.sources.tail.paths import close_fd as _close_fd
from tsm_tui.sources.tail.paths import dir_aware as _dir_aware
from tsm_tui.sources.tail.paths import fid as _fid
from tsm_tui.sources.tail.paths import short as _short

IDLE_FLUSH = 1.0  # s without new bytes before a reader's held-back record is delivered (ours)


class Host(Meter, Protocol):
    """What a followed file needs from its tailer (``Meter``: the read step's counts)."""

    network: bool  # re-open at each poll (close-to-open consistency)

    def put(self, source: str, reader: SourceReader, records: list) -> None: ...

    def note(self, text: str, path: str | None = None) -> None: ...

    def io_error(self, f: "FollowedFile | None", path: str, e: OSError, what: str) -> None: ...

    def retire(self, fd: int, dev_ino: tuple[int, int], path: str) -> None: ...

    def unread(self, sibs: list[rotation.Sibling]) -> list[rotation.Sibling]: ...

    def held_heads(self) -> set[bytes]: ...


class FollowedFile:
    """One logical stream: a path, whatever file currently sits there."""

    def __init__(self, path: str, reader: SourceReader, host: Host) -> None:
        self.path = path
        self.host = host
        #: the reader, the held partial line and what was delivered (``delivery.py``)
        self.delivery = Delivery(path, reader, host)
        self.at = Identity()  # the file held and how far it was read (``identity.py``)
        self.fd: int | None = None
        self.intake = Intake(path, self.at, self.delivery, host, self._io_error)
        self.generations = Generations(path, self.at, self.delivery, self.intake, host)
        self.history = History(path, self.delivery, host, self._io_error)
        self.gone = False  # the path vanished; watching for it to come back
        self.gone_since = -1  # its mtime when it vanished (rotated generations after it are read)
        self.rotations = 0  # rotations (rename or copytruncate) seen: its rotated names are its own
        self.reopen_floor = False  # when it comes back: rewrite semantics?
        self.snap_dirty = False  # a snapshot reader's file could not be read whole: again next pass
        self.error: str | None = None  # last error reported (one event per kind)
        self.opened = 0  # incarnations opened at this path
        self.parked = False  # closed to stay within the tailer's MAX_OPEN; reopened on change
        #: an archived log (a lone ``x.log.gz``): read once, decompressed, as its own history;
        #: nothing is appended to a compressed file, so it is never opened to follow
        self.archived = False

    @property
    def reader(self) -> SourceReader:
        return self.delivery.reader

    @property
    def dev_ino(self) -> tuple[int, int] | None:
        return self.at.dev_ino

    @property
    def active_at(self) -> float:
        """Monotonic time of the last bytes read (the idlest files are parked first)."""
        return self.intake.active_at

    def _io_error(self, path: str, e: OSError, what: str) -> None:
        self.host.io_error(self, path, e, what)

    def _open_path(self) -> int | None:
        try:
            # regular files only (a FIFO at the path must not block); a snapshot reader's
            # directory source (MLflow metrics/) is opened as a directory
            return open_fd(self.path, allow_dir=self.reader.kind == "snapshot")
        except FileNotFoundError:
            return None
        except OSError as e:
            self._io_error(self.path, e, "cannot open")
            return None

    def open(self, fd: int | None = None) -> bool:
        """Follow the file at ``self.path`` from its start (``fd``: opened already)."""
        if fd is None:
            fd = self._open_path()
            if fd is None:
                return False
        st = os.fstat(fd)
        self.opened += 1
        self.fd = fd
        self.at.opened(_fid(st), st.st_mtime_ns)
        self.delivery.lines.reset()
        self.gone = False
        self.error = None
        return True

    def close(self) -> None:
        if self.fd is not None:
            _close_fd(self.fd)
            self.fd = None

    def read_history(self, segs: list[str]) -> None:
        """The older rotated segments of a live file, oldest first, read by the next
        polls before the file itself (``history.py``)."""
        self.history.start(segs)

    def poll(self) -> None:
        """One look at the file: read what is new (see the module docstring for what a
        truncation, a rewrite, a rotation or a copytruncate does)."""
        if not self.history.drain():
            return  # the queue's bound: the history goes on at the next pass
        if self.archived:
            return
        try:
            st = self.stat()
        except FileNotFoundError:
            self._vanished()
            return
        except OSError as e:
            self._io_error(self.path, e, "cannot stat")
            return
        if self.parked:  # closed to stay within MAX_OPEN: reopen only when it changed
            if self.at.look(st, self.snap_dirty) is Look.UNCHANGED:
                self.idle()
                return
            if not self._unpark():
                return
        if self.fd is None and not self._reopen():  # the path came back (or could not be opened before)
            return
        look = self.at.look(st, self.snap_dirty)
        if look is Look.OTHER_FILE:
            self._switch()
            return
        if look is Look.UNCHANGED:
            self.idle()
            return  # nothing new
        if self.reader.kind == "snapshot":
            self._read_snapshot(st)
            return
        if self._catch_up(st.st_size, budget=True):
            self.at.seen(st.st_size, st.st_mtime_ns)
        # else: stopped at the queue's bound; the size still differs, the next pass goes on

    def idle(self) -> None:
        """No new bytes for IDLE_FLUSH seconds: what the reader holds back waiting for
        more (TensorBoard's newest step) is delivered (a final NaN is seen live)."""
        if self.reader.kind != "bytes" and not getattr(self.reader, "holds_lines", False):
            return
        if time.monotonic() - self.active_at < IDLE_FLUSH:
            return
        self.delivery.idle()

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

    # -- a file (re)opened ------------------------------------------------------------

    def _reopen(self) -> bool:
        """Open the file at the path; when it had gone, read it from the start (and the
        generations rotated while the path was empty, before it)."""
        came_back = self.opened > 0
        old_id = self.dev_ino
        if not self.open():
            return False
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
                self.generations.after_rename(old_id, self.gone_since, self.dev_ino, self.fd)
        self.reopen_floor = False
        return True

    def _unpark(self) -> bool:
        """Open a parked file again; the same file continues where it stopped, a
        different one at its path (rotated while not held open) starts over."""
        self.parked = False
        try:
            fd = open_fd(self.path, allow_dir=self.reader.kind == "snapshot")
        except OSError as e:
            self._io_error(self.path, e, "cannot open")
            self.parked = True
            return False
        try:
            fst = os.fstat(fd)
        except OSError:
            _close_fd(fd)
            self.parked = True
            return False
        if _fid(fst) == self.dev_ino:
            self.fd = fd
            return True
        _close_fd(fd)
        old = self.generations.copy_of_held()
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

    # -- the same file: read on, or start over ----------------------------------------

    def _catch_up(self, size: int, budget: bool = False) -> bool:
        """Read to EOF, starting over first if the file was truncated or rewritten
        (after the copy a copytruncate left, when there is one); False when stopped at
        the queue's bound (``budget``)."""
        if not self.at.offset and self.rotations and self.reader.kind == "lines":
            self.generations.truncated_unseen(self.fd)
        for _ in range(rotation.LIST_TRIES):
            damage = self.at.damage(size, None if self.fd is None else partial(os.pread, self.fd))
            if damage is None and self.generations.weakly_truncated(self.fd, self.rotations):
                damage = REWRITTEN
            if damage is not None:
                note = self.generations.after_truncation(self.fd)
                if note is None:
                    self.rotations += 1  # copytruncate: the copies were read and the file's first chunk taken
                elif damage == TRUNCATED:
                    self._restart(
                        f"{_short(self.path)} truncated ({size} < {self.at.offset} bytes read): "
                        f"reading it from the start{note}"
                    )
                else:
                    self._restart(
                        f"{_short(self.path)} rewritten: reading it from the start "
                        f"(records already seen are not counted twice){note}"
                    )
            done = self.intake.to_eof(self.fd, budget)
            if not self.intake.moved:
                return done
            self.intake.moved = False  # truncated again while we read: its copy comes first
            if self.fd is None:
                return done
            try:
                size = os.fstat(self.fd).st_size
            except OSError:
                return done
        done = self.intake.to_eof(self.fd, budget)
        self.intake.moved = False
        return done

    def _restart(self, why: str) -> None:
        """Truncated or rewritten: start over at 0 with a fresh reader."""
        self.host.note(why, self.path)
        self.delivery.flush()
        self.delivery.fresh_reader()
        self.delivery.start_rewrite()
        self.at.rewind()
        self.delivery.lines.reset()

    def _read_snapshot(self, st) -> None:
        self.at.seen(st.st_size, st.st_mtime_ns)
        if self.host.caught_up.is_set():
            self.host.active_at = time.monotonic()
        try:
            # read_path: a file's bytes, or a directory source (MLflow metrics/)
            recs = cast(SnapshotReader, self.reader).read_path(self.path)
        except OSError as e:
            self._io_error(self.path, e, "read error")
            return
        except Exception:
            self.snap_dirty = True  # half-written (a save in progress): try again next pass
            return
        self.snap_dirty = False
        self.delivery.snapshot(recs)

    # -- another file at the path, or none --------------------------------------------

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
        (``Generations.after_rename``; up to the file ``upto``, the one now at the
        path); True when it still exists elsewhere (rotated)."""
        rotated = False
        if self.fd is not None:
            since, old_id = self.at.mtime_ns, self.dev_ino
            if self.reader.kind != "snapshot":  # (a new snapshot supersedes the old one)
                try:
                    # it may have been truncated or rewritten since the last check, too
                    self._catch_up(os.fstat(self.fd).st_size)
                except OSError as e:
                    self._io_error(self.path, e, "read error")
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
                self.generations.after_rename(old_id, since, upto, new)
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
        self.gone_since = self.at.mtime_ns
        rotated = self._finish_old()
        self.rotations += rotated
        self.delivery.lines.reset()
        self.reopen_floor = not rotated
        self.at.seen(-1, -1)
        self.host.note(
            f"{_short(self.path)} {'moved away' if rotated else 'deleted'}: "
            "read what was there; watching for it to reappear",
            self.path,
        )
