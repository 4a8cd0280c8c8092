"""Read -> detect -> advise, for a finished log or run directory.

``open_run`` finds the files and the run's configuration; ``analyze`` reads the
chosen source through a Monitor and returns everything the report needs. The
live tailer and the TUI reuse ``open_run`` and feed the same Monitor.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from tsm_tui.core.errors import InputError
from tsm_tui.core.frame import Frame
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.analysis.session import Session
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources import registry
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.runfiles import RunFiles, apply_config_file  # noqa: F401  (re-exported)


@dataclass
class Run:
    path: str
    root: str  # directory searched for checkpoints and configs
    files: list[registry.FileInfo] = field(default_factory=list)
    readers: dict[str, LineReader] = field(default_factory=dict)
    primary: str | None = None
    config_files: list[str] = field(default_factory=list)
    files_of: RunFiles | None = None  # configs and checkpoints


def _rank(fi: registry.FileInfo, reader: LineReader) -> tuple:
    try:
        size = os.path.getsize(fi.path)
    except OSError:
        size = 0
    return (reader.priority, fi.score, size)


def open_run(path: str, info: RunInfo, config: str | None = None, allow_empty: bool = False) -> Run:
    """Resolve PATH into files and readers; fill ``info`` from configs and checkpoints."""
    if not os.path.exists(path):
        raise InputError(f"no such file or directory: {path}")
    path = os.path.abspath(path)
    if os.path.isdir(path):
        root = path
        try:
            candidates = registry.candidate_files(path)
        except OSError as e:
            raise InputError(f"cannot read directory {path}: {e.strerror or e}")
    else:
        root = os.path.dirname(path)
        candidates = [path]
    run = Run(path=path, root=root)
    run.files_of = RunFiles(root, info, config, searched_dir=os.path.isdir(path))
    found, run.config_files = run.files_of.read_info()
    _assign(info, found)
    info.checkpoints = run.files_of.checkpoints()
    info.checkpoint_dir_searched = os.path.isdir(path) or bool(info.checkpoints)
    best = None
    for p in candidates:
        reader, fi = registry.open_reader(p)
        run.files.append(fi)
        if reader is None:
            continue
        run.readers[p] = reader
        r = _rank(fi, reader)
        if best is None or r > best[0]:
            best = (r, p)
    if best is None and not allow_empty:
        if not candidates:
            raise InputError(f"no log files found in {path}")
        notes = "; ".join(f"{os.path.basename(f.path)}: {f.note}" for f in run.files[:3] if f.note)
        raise InputError(f"nothing readable in {path} ({notes})" if notes else f"nothing readable in {path}")
    if best is not None:
        run.primary = best[1]
        # the config beside the chosen log (Lightning's version_N/hparams.yaml, an
        # MLflow run dir) when it is not in the searched root itself
        found, used = run.files_of.read_info(run.primary)
        _assign(info, found)
        run.config_files += [c for c in used if c not in run.config_files]
    return run


def _assign(info: RunInfo, found: RunInfo) -> None:
    """Copy what ``found`` knows into ``info`` (in place: callers hold ``info``)."""
    for name, origin in found.origin.items():
        info.set(name, getattr(found, name), origin, override=True)


@dataclass
class Analysis:
    run: Run
    monitor: Monitor
    settings: Settings


def analyze(path: str, settings: Settings | None = None, info: RunInfo | None = None,
            config: str | None = None) -> Analysis:
    """Read every readable file of a finished run through a Session and return
    the primary source's Monitor, finalized."""
    settings = settings or Settings()
    info = info or RunInfo()
    run = open_run(path, info, config)
    session = Session(settings, info)
    for p, reader in run.readers.items():
        fi = next(f for f in run.files if f.path == p)
        batch: list = []
        try:
            for item in registry.read_items(p, reader):  # StepRecords and Frames
                batch.append(item)
                if len(batch) >= 4096 or type(item) is Frame:
                    session.feed(p, batch, reader)
                    batch = []
        except OSError as e:
            fi.note = f"read error: {e.strerror or e}"
        session.feed(p, batch, reader)
        fi.records = reader.records
        fi.skipped_lines = reader.skipped
        fi.skip_reasons = dict(reader.skip_reasons)
    mon = session.monitor
    if mon is None or mon.records == 0:
        fi = next((f for f in run.files if f.path == run.primary), None)
        why = f" ({fi.skipped_lines} line(s) skipped)" if fi and fi.skipped_lines else ""
        raise InputError(f"no training steps found in {run.primary or path}{why}")
    run.primary = session.primary
    for f in run.files:
        f.used = f.path == run.primary
    mon.finalize()
    return Analysis(run, mon, settings)
