"""Linux inotify read by the tailer's own loop: no thread, no object per write.

watchdog's observer wakes two Python threads and builds an event object for
every ``write()`` the job makes, before the tailer can coalesce anything: at 100
lines/s that was ~70% of ``--follow``'s CPU (bench/RESULTS.md, section 7). Here
the tailer ``select``s on the inotify descriptor, sleeps its busy gap, then reads
every queued event in one ``os.read``: the kernel merges repeated identical
events (the same file modified again) while they are unread, so a burst of
writes costs one wake-up and a few bytes.

Only directories are watched (a directory's watch reports its files' events by
name); with ``recursive`` every directory under the root is. New directories are
watched as they appear, moved-away ones are forgotten. ``IN_Q_OVERFLOW`` (events
lost) is reported as such: the caller walks the tree again. Errors from the
kernel (``ENOSPC``: out of watches, ``EMFILE``: out of instances) raise OSError
at start so the caller can fall back to polling and say why; running out of
watches later only leaves the new directory to the caller's periodic walk.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import select
import struct
import sys

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = getattr(os, "O_CLOEXEC", 0x80000)

#: changes only: our own opens and reads (IN_OPEN, IN_ACCESS, IN_CLOSE_NOWRITE)
#: would come back as events, a pass per event
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
    | IN_EXCL_UNLINK
)
MAX_WATCHES = 50_000  # directories watched at most (a deeper tree is left to the periodic walk)
READ_SIZE = 64 << 10
MAX_READS = 16  # reads per call (1 MiB of events)
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len

#: what an event is, in the words the tailer's hint uses (watchdog's event types)
MODIFIED, CREATED, DELETED, MOVED, CLOSED, OVERFLOW = "modified", "created", "deleted", "moved", "closed", "overflow"


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _libc()


def available() -> bool:
    return _LIBC is not None


class Inotify:
    """Watch ``root`` (a directory), and with ``recursive`` every directory below it."""

    def __init__(self, root: str, recursive: bool) -> None:
        if _LIBC is None:
            raise OSError(errno.ENOSYS, "inotify is not available on this system")
        fd = _LIBC.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        self.fd = fd
        self.root = os.fsencode(os.path.abspath(root))
        self.recursive = recursive
        self._paths: dict[int, bytes] = {}  # wd -> directory
        self._wds: dict[bytes, int] = {}  # directory -> wd
        self.full = False  # MAX_WATCHES reached or the kernel is out of watches
        try:
            self._add(self.root, strict=True)
            if recursive:
                self._add_tree(self.root)
        except OSError:
            self.close()
            raise

    # -- watches ----------------------------------------------------------------------
    def _add(self, path: bytes, strict: bool = False) -> None:
        if path in self._wds:
            return
        if len(self._wds) >= MAX_WATCHES:
            self.full = True
            return
        # the root may be a symlink to the run directory (followed); below it, none is
        wd = _LIBC.inotify_add_watch(self.fd, path, MASK & ~IN_DONT_FOLLOW if strict else MASK)
        if wd < 0:
            e = ctypes.get_errno()
            if e == errno.ENOSPC:
                self.full = True
            if strict:
                raise OSError(e, os.strerror(e) + (" (fs.inotify.max_user_watches)" if e == errno.ENOSPC else ""))
            return  # vanished, not a directory, no permission: the periodic walk covers it
        self._paths[wd] = path
        self._wds[path] = wd

    def _add_tree(self, top: bytes) -> None:
        """Every directory under ``top`` (symlinks not followed: no loops)."""
        stack = [top]
        while stack and not self.full:
            d = stack.pop()
            try:
                with os.scandir(d) as it:
                    for e in it:
                        try:
                            if e.is_dir(follow_symlinks=False):
                                self._add(e.path)
                                stack.append(e.path)
                        except OSError:
                            continue
            except OSError:
                continue

    def _forget_tree(self, top: bytes) -> None:
        prefix = top.rstrip(b"/") + b"/"
        for p in [p for p in self._wds if p == top or p.startswith(prefix)]:
            wd = self._wds.pop(p)
            self._paths.pop(wd, None)
            _LIBC.inotify_rm_watch(self.fd, wd)

    @property
    def alive(self) -> bool:
        """The root is still watched (not deleted, moved or unmounted)."""
        return self.root in self._wds

    @property
    def watches(self) -> int:
        return len(self._wds)

    # -- events -----------------------------------------------------------------------
    def wait(self, timeout: float | None, also: int | None = None) -> bool:
        """Block until an event is queued (or ``also`` is readable), at most ``timeout`` s."""
        fds = [self.fd] if also is None else [self.fd, also]
        try:
            r, _, _ = select.select(fds, [], [], timeout)
        except (OSError, ValueError):
            return False
        return bool(r)

    def read(self) -> list[tuple[str, str, bool]]:
        """Every queued event as (kind, path, is_dir), in order; (OVERFLOW, "", False)
        when the kernel dropped events. Never blocks."""
        parts: list[bytes] = []
        for _ in range(MAX_READS):  # a flood is read in bounded slices: the rest waits for the next pass
            try:
                chunk = os.read(self.fd, READ_SIZE)
            except OSError:  # BlockingIOError: nothing more queued
                break
            if not chunk:
                break
            parts.append(chunk)
        buf = b"".join(parts)
        out: list[tuple[str, str, bool]] = []
        i, n = 0, len(buf)
        while i + _HEADER.size <= n:
            wd, mask, _cookie, ln = _HEADER.unpack_from(buf, i)
            name = buf[i + _HEADER.size : i + _HEADER.size + ln].rstrip(b"\0")
            i += _HEADER.size + ln
            if mask & IN_Q_OVERFLOW:
                out.append((OVERFLOW, "", False))
                continue
            d = self._paths.get(wd)
            if mask & IN_IGNORED:
                if d is not None:
                    self._paths.pop(wd, None)
                    if self._wds.get(d) == wd:
                        del self._wds[d]
                continue
            if d is None:
                continue
            path = d + b"/" + name if name else d
            is_dir = bool(mask & IN_ISDIR)
            if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                out.append((DELETED if mask & IN_DELETE_SELF else MOVED, os.fsdecode(d), True))
                continue
            if mask & IN_CREATE:
                kind = CREATED
            elif mask & IN_DELETE:
                kind = DELETED
            elif mask & (IN_MOVED_FROM | IN_MOVED_TO):
                kind = MOVED
            elif mask & IN_CLOSE_WRITE:
                kind = CLOSED
            else:
                kind = MODIFIED
            if is_dir and self.recursive and name:
                if mask & (IN_CREATE | IN_MOVED_TO):
                    self._add(path)
                    self._add_tree(path)
                elif mask & IN_MOVED_FROM:
                    self._forget_tree(path)
            out.append((kind, os.fsdecode(path), is_dir))
        return out

    def close(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
