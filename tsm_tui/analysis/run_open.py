"""A run opened: its files and their readers, its configuration and checkpoints.

``open_runs`` finds the runs under a path (``sources.runs``: a run is the set of
files one job wrote; sibling loggers of one job merged, a directory of several
series split) and opens each: its files sniffed once, a reader per readable file,
its primary source, its per-rank files, its ``RunInfo`` (flags > configs > logs).
``open_run`` is the one-run form. Both the finished-run replay (``analysis/replay.py``)
and the live loop (``analysis/live_open.py``) start from here.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from tsm_tui.core.errors import InputError
from tsm_tui.core.sanitize import message
from tsm_tui.core.settings import RunInfo
from tsm_tui.sources import log_files, registry
from tsm_tui.sources.base import SourceReader
from tsm_tui.sources.runfiles import RunFiles
from tsm_tui.sources.runs import (
    Roots,
    RunSpec,
    file_spec,
    group_runs,
    other_roots,
    rank_groups,
    split_series,
)
from tsm_tui.sources.siblings import merge as merge_siblings


@dataclass
class Run:
    path: str
    root: str  # directory searched for checkpoints and configs
    files: list[registry.FileInfo] = field(default_factory=list)
    readers: dict[str, SourceReader] = field(default_factory=dict)
    primary: str | None = None
    config_files: list[str] = field(default_factory=list)
    files_of: RunFiles | None = None  # configs and checkpoints
    #: the run's name: its path relative to the watched path (the path's own name for one run)
    name: str = ""
    info: RunInfo | None = None
    #: per-rank log files of the run (empty unless several ranks wrote it)
    ranks: list[str] = field(default_factory=list)
    #: a log's older rotated segments (x.log.2.gz, x.log.1), oldest first: read before it
    segments: dict[str, list[str]] = field(default_factory=dict)
    #: other directories of the run (sibling loggers of one job merged into it)
    members: list[str] = field(default_factory=list)
    #: what the report's ``sources`` need once the readers are gone (analysis/coverage.py),
    #: per source (a file, or a file's channel read by its own reader: ``run.wandb#console``):
    #: the metrics its records carried, and its reader's name and keys (``field_keys``)
    metrics: dict[str, set[str]] = field(default_factory=dict)
    source_keys: dict[str, tuple[str, dict]] = field(default_factory=dict)
    #: file -> its reader's class (sources/locate.py reads a file again to find a step's line)
    reader_types: dict[str, type] = field(default_factory=dict)
    #: the files found under the path (for the "nothing readable" message)
    candidates: list[str] = field(default_factory=list)


def _rank(fi: registry.FileInfo, reader: SourceReader) -> tuple:
    try:
        size = os.path.getsize(fi.path)
    except OSError:
        size = 0
    return (reader.priority, fi.score, size)


def _assign(info: RunInfo, found: RunInfo) -> None:
    """Copy what ``found`` knows into ``info`` (in place: callers hold ``info``)."""
    for name, origin in found.origin.items():
        info.set(name, getattr(found, name), origin, override=True)


def _fresh(flags: RunInfo) -> RunInfo:
    info = RunInfo()
    _assign(info, flags)
    return info


def _candidates(path: str) -> list[str]:
    if not os.path.exists(path):
        raise InputError(f"no such file or directory: {path}")
    if os.path.isdir(path):
        try:
            found = log_files.candidate_files(path)
        except OSError as e:
            raise InputError(f"cannot read directory {path}: {e.strerror or e}") from None
        if len(found) >= log_files.MAX_FILES:
            print(
                message(f"tsm-watch: {log_files.LIMIT_NOTE.format(n=log_files.MAX_FILES, path=path)}"), file=sys.stderr
            )
        return found
    return [path]


def _open(spec: RunSpec, path: str, info: RunInfo, config: str | None, exclude=(), opened: dict | None = None) -> Run:
    """Files, readers, configuration and checkpoints of one run. ``opened``: path ->
    (reader, FileInfo) sniffed already (a directory split into runs by ``split_series``)."""
    run = Run(path=spec.path, root=spec.root, name=spec.name, info=info, members=list(spec.members))
    run.files_of = RunFiles(
        spec.root, info, config, searched_dir=spec.searched, exclude=exclude, ckpt_dir=spec.ckpt_dir, also=spec.members
    )
    found, run.config_files = run.files_of.read_info()
    _assign(info, found)
    info.checkpoints = run.files_of.checkpoints()
    info.checkpoint_dir_searched = spec.searched or bool(info.checkpoints)
    opened = opened if opened is not None else {}

    def sniff(p):
        got = opened.get(p)
        if got is None:
            got = opened[p] = registry.open_reader(p)
        return got

    for group in log_files.group_sources(spec.files):
        p, older = group[-1], group[:-1]
        reader, fi = sniff(p)
        if reader is None and older:  # the live file is empty (just rotated): sniff the newest segment
            r2, fi2 = sniff(older[-1])
            if r2 is not None and r2.kind == "lines":
                reader, fi.format, fi.score, fi.note = type(r2)(p), fi2.format, fi2.score, None
        if older and (reader is None or (reader.kind != "lines" and not hasattr(reader, "next_file"))):
            for q in older:  # not one text series: each file on its own
                r3, fi3 = sniff(q)
                run.files.append(fi3)
                if r3 is not None:
                    run.readers[q] = r3
            older = []
        run.files.append(fi)
        if reader is None:
            continue
        run.readers[p] = reader
        if older:
            run.segments[p] = fi.segments = older
    # per-rank files: the group with the most readable members (a rank's stderr read for
    # its crash lines only is not a series)
    groups = [[p for p in g if p in run.readers and not events_only(run.readers[p])] for g in spec.rank_groups]
    best_group = max(groups, key=len, default=[])
    run.ranks = best_group if len(best_group) >= 2 else []
    spec.ranks = run.ranks
    _choose_primary(run)
    return run


def events_only(reader: SourceReader) -> bool:
    """A file read for its crash lines only (sources/console.py): never a run's series."""
    return bool(getattr(reader, "events_only", False))


def _choose_primary(run: Run) -> None:
    best = None
    rank_set = set(run.ranks[1:])  # ranks past the first are read for the ranks check only
    for p, reader in run.readers.items():
        if p in rank_set or events_only(reader):
            continue
        fi = next(f for f in run.files if f.path == p)
        r = _rank(fi, reader)
        if best is None or r > best[0]:
            best = (r, p)
    if best is not None:
        run.primary = best[1]
        # the config beside the chosen log (Lightning's version_N/hparams.yaml, an
        # MLflow run dir) when it is not in the run's root itself
        assert run.files_of is not None and run.info is not None  # (_open sets them before choosing)
        found, used = run.files_of.read_info(run.primary)
        _assign(run.info, found)
        run.config_files += [c for c in used if c not in run.config_files]


def nothing_readable(path: str, candidates: list[str], files: list[registry.FileInfo], passed: str = "") -> InputError:
    """``passed``: what the content fallback passed over (``log_files.ContentFallback``)."""
    also = f"; other files passed over: {passed}" if passed else ""
    if not candidates:
        return InputError(f"no log files found in {path}" + (f" ({also[2:]})" if also else ""))
    notes = "; ".join(f"{os.path.basename(f.path)}: {f.note}" for f in files[:3] if f.note)
    return InputError(f"nothing readable in {path} ({notes}{also})" if notes or also else f"nothing readable in {path}")


def _series(runs: list[Run]) -> bool:
    """Some run has a readable series (a primary source)."""
    return any(r.primary is not None for r in runs)


def _by_content(path: str, candidates: list[str]) -> tuple[list[str], log_files.ContentFallback]:
    """Nothing under the directory ``path`` gave a series: its other small text files
    (``log_files.content_files``), said on stderr when there are some."""
    seen = log_files.ContentFallback()
    if not os.path.isdir(path):
        return [], seen
    more = log_files.content_files(path, candidates, seen)
    if more:
        print(message(f"tsm-watch: {seen.note(path)}"), file=sys.stderr)
    return more, seen


def _mark(runs: list[Run], more: list[str]) -> None:
    """The files taken by their content say so (``files[].found_by`` in the JSON report)."""
    taken = set(more)
    for run in runs:
        for fi in run.files:
            if fi.path in taken:
                fi.found_by = "content"


def open_run(path: str, info: RunInfo, config: str | None = None, allow_empty: bool = False) -> Run:
    """PATH as one run (every file under it): files and readers; fills ``info``
    from configs and checkpoints. A directory where no file gives a series has its
    other small text files sniffed too (``_by_content``)."""
    run = _open_one(path, info, config)
    if _series([run]):
        return run
    more, seen = _by_content(os.path.abspath(path), run.candidates)
    if more:
        run = _open_one(path, info, config, more)
        _mark([run], more)
    if run.primary is None and not run.readers and not allow_empty:
        raise nothing_readable(run.path, run.candidates, run.files, seen.passed_text())
    return run


def _open_one(path: str, info: RunInfo, config: str | None, extra: list[str] | None = None) -> Run:
    candidates = _candidates(path) + (extra or [])
    path = os.path.abspath(path)
    if os.path.isdir(path):
        spec = RunSpec(
            os.path.basename(path.rstrip(os.sep)) or path, path, candidates, rank_groups=rank_groups(candidates)
        )
    else:
        spec = file_spec(path)
    run = _open(spec, path, info, config)
    run.path = path
    run.candidates = candidates
    return run


def _specs(path: str, candidates: list[str]) -> list[RunSpec]:
    if os.path.isdir(path):
        return group_runs(candidates, path)
    return [file_spec(path)]


def open_runs(
    path: str,
    flags: RunInfo | None = None,
    config: str | None = None,
    allow_empty: bool = False,
    only: str | None = None,
) -> list[Run]:
    """The runs under PATH, each with its own RunInfo (flags > configs > logs).

    Runs with no readable file are left out (their files are listed in the
    first run's ``files`` only when PATH is one run). ``only``: the run named
    so (its relative path, or a unique last component). A directory where no
    file gives a series has its other small text files sniffed too (``_by_content``)."""
    flags = flags or RunInfo()
    runs, candidates, unread = _open_runs(path, flags, config, only)
    passed = ""
    if not _series(runs):
        more, seen = _by_content(os.path.abspath(path), candidates)
        passed = seen.passed_text()
        if more:
            runs, candidates, unread = _open_runs(path, flags, config, only, more)
            _mark(runs, more)
    if len(runs) == 1 and (runs[0].readers or allow_empty):
        return runs
    if len(runs) == 1:
        raise nothing_readable(os.path.abspath(path), candidates, runs[0].files, passed)
    out = [r for r in runs if r.primary is not None or r.readers]
    if not out and not allow_empty:
        raise nothing_readable(os.path.abspath(path), candidates, unread, passed)
    return out


def _open_runs(
    path: str, flags: RunInfo, config: str | None, only: str | None, extra: list[str] | None = None
) -> tuple[list[Run], list[str], list[registry.FileInfo]]:
    """(the runs under PATH, one even when unreadable, else only those with a readable
    file; the candidates; the unread runs' files)."""
    candidates = _candidates(path) + (extra or [])
    path = os.path.abspath(path)
    specs = _specs(path, candidates)
    # a directory's files are one run per series (sources/runs.py: split_series)
    opened: dict = {}  # path -> (reader, FileInfo): each file is sniffed once
    done: dict[int, Run] = {}  # id(spec) -> its run, opened already
    final: list[RunSpec] = []
    segments: dict[str, list[str]] = {}
    roots = Roots(specs)
    for spec in specs:
        exclude = other_roots(spec, specs, roots)
        if not os.path.isdir(spec.path):
            final.append(spec)
            continue
        run = _open(spec, path, _fresh(flags), config, exclude=exclude, opened=opened)
        segments.update(run.segments)
        parts = split_series(spec, run.readers, run.segments, path)
        if len(parts) == 1:
            done[id(spec)] = run
            final.append(spec)
        else:
            final += parts
    if len(final) > 1:  # sibling loggers of one job are one run (sources/siblings.py)
        final, _ = merge_siblings(final, path, {p: r for p, (r, _fi) in opened.items() if r is not None}, segments)
    specs = final
    if only is not None:
        specs = [pick_run(specs, only, path)]
    final_roots = Roots(final)

    def run_of(spec: RunSpec) -> Run:
        run = done.get(id(spec))
        if run is None:
            run = _open(spec, path, _fresh(flags), config, exclude=other_roots(spec, final, final_roots), opened=opened)
        return run

    if len(specs) == 1:
        run = run_of(specs[0])
        if only is None:
            run.path = path
        run.candidates = candidates
        return [run], candidates, []
    runs = []
    unread: list[registry.FileInfo] = []
    for spec in specs:
        run = run_of(spec)
        if run.primary is None and not run.readers:
            unread += run.files
            continue
        run.candidates = candidates
        runs.append(run)
    return runs, candidates, unread


def pick_run(specs: list[RunSpec], name: str, path: str) -> RunSpec:
    want = name.strip().rstrip(os.sep)
    exact = [s for s in specs if s.name == want or os.path.abspath(s.root) == os.path.abspath(want)]
    if not exact:
        exact = [s for s in specs if os.path.basename(s.name.rstrip(os.sep)) == os.path.basename(want)]
    if len(exact) == 1:
        return exact[0]
    names = ", ".join(s.name for s in specs[:12]) + (" ..." if len(specs) > 12 else "")
    if not exact:
        raise InputError(f"no run named {name!r} in {path} (runs: {names})")
    raise InputError(f"{name!r} names several runs in {path}: {', '.join(s.name for s in exact)}")
