"""Live tailing: ``Tailer`` follows a log file or a run directory and hands
over every record exactly once (``tailer``: the schedule and the thread model;
``followed``: one file's state machine, ``poll()``; ``identity``: which file and
which of its bytes were read, what a look means (pure); ``intake``: its reads;
``generations``: what a rotation left between two looks; ``history``: its older
segments; ``delivery``: its records, each once;
``discovery``: which files (``sources/log_files.py``'s rules); ``wakeups``:
file system events; ``rotation``: rotated generations and copies; ``mounts``:
network filesystems)."""

from tsm_tui.sources.tail.mounts import NETWORK_FS, filesystem_type, is_network_fs, parse_mounts
from tsm_tui.sources.tail.tailer import Tailer

__all__ = ["NETWORK_FS", "Tailer", "filesystem_type", "is_network_fs", "parse_mounts"]
