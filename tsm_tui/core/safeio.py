"""Open regular files only, read them within a bound.

A run directory is untrusted: a FIFO named ``train.log`` blocks ``open()`` until
a writer comes (forever), a link to ``/dev/zero`` never ends, a device may do
anything on read. Every file the tool reads goes through :func:`open_regular`:
it opens without blocking (``O_NONBLOCK``), checks the *opened* file (no race
between a check and the open) and refuses anything but a regular file with a
:class:`NotRegularFile` (an ``OSError``, so the usual "cannot read: ..." paths
show it as a note).
"""

from __future__ import annotations

import os
import stat

NOT_REGULAR = "not a regular file"
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """The path is a FIFO, a device or a socket (or a link to one)."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "special"


def open_fd(path: str, allow_dir: bool = False) -> int:
    """A read-only descriptor of the regular file at ``path`` (never blocks).
    ``allow_dir``: a directory is accepted too (a directory source, an MLflow
    run's ``metrics/``: its descriptor identifies it, its files are read with
    :func:`open_regular`)."""
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not (stat.S_ISREG(st.st_mode) or (allow_dir and stat.S_ISDIR(st.st_mode))):
        os.close(fd)
        raise NotRegularFile(0, f"{NOT_REGULAR} ({_kind(st.st_mode)})", path)
    return fd


def open_regular(path: str):
    """``open(path, "rb")`` for regular files only (see the module docstring)."""
    return os.fdopen(open_fd(path), "rb")
