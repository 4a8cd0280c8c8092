"""Small helpers on paths and descriptors shared by the tailer's modules."""

from __future__ import annotations

import os
import stat
from types import SimpleNamespace

from tsm_tui.sources import log_files

TEMP_SUFFIXES = (".tmp", ".temp", ".swp", ".part", ".partial", ".lock", "~")


def dir_aware(st, path: str):
    """A directory source (MLflow ``metrics/``) changes when its files do, not
    when the directory entry does: report the files' total size and newest mtime."""
    if not stat.S_ISDIR(st.st_mode):
        return st
    size, mtime = 0, st.st_mtime_ns
    try:
        with os.scandir(path) as it:
            for e in it:
                try:
                    est = e.stat()
                except OSError:
                    continue
                size += est.st_size
                mtime = max(mtime, est.st_mtime_ns)
    except OSError:
        pass
    return SimpleNamespace(st_dev=st.st_dev, st_ino=st.st_ino, st_size=size, st_mtime_ns=mtime, st_mode=st.st_mode)


def temporary(name: str) -> bool:
    """A temporary file (``x.log.tmp`` before an atomic replace, editor swap files,
    dot-files): read once under its own name, it would be read again once renamed."""
    low = name.lower()
    return low.startswith(".") or low.endswith(TEMP_SUFFIXES)


def looks_like_log(path: str) -> bool:
    """A name discovery would follow (``log_files.is_candidate``), not a temporary one."""
    name = os.path.basename(path)
    return not temporary(name) and log_files.is_candidate(name)


def fid(st) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def close_fd(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def short(path: str) -> str:
    return os.path.basename(path) or path
