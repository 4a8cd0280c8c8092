"""Read -> detect -> advise, for a finished log, a run directory, or a directory
of many runs.

``open_runs`` finds the runs under a path (``sources.runs``: a run is the set
of files one job wrote) and, for each, its files, readers, configuration and
checkpoints; ``analyze_runs`` reads each run through its own Session and
returns everything the report needs, one Analysis per run. ``open_run`` /
``analyze`` are the one-run forms. The live loop reuses ``open_runs`` and
feeds the same Sessions.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from tsm_tui.analysis.coverage import note_metrics
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.analysis.session import Session
from tsm_tui.core.errors import InputError
from tsm_tui.analysis.detectors.ranks import RanksDetector
from tsm_tui.core.frame import Frame
from tsm_tui.core.record import Alert, CheckResult, Status
from tsm_tui.core.sanitize import message
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources import registry
from tsm_tui.sources.base import LineReader, channel_file
from tsm_tui.sources.runfiles import RunFiles, apply_config_file  # noqa: F401  (re-exported)
from tsm_tui.sources.runs import (
    Roots,
    RunSpec,
    file_spec,
    group_runs,
    other_roots,
    rank_groups,
    slurm_task,
    split_series,
)
from tsm_tui.sources.siblings import merge as merge_siblings


@dataclass
class Run:
    path: str
    root: str  # directory searched for checkpoints and configs
    files: list[registry.FileInfo] = field(default_factory=list)
    readers: dict[str, LineReader] = field(default_factory=dict)
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


def _rank(fi: registry.FileInfo, reader: LineReader) -> tuple:
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
            found = registry.candidate_files(path)
        except OSError as e:
            raise InputError(f"cannot read directory {path}: {e.strerror or e}") from None
        if len(found) >= registry.MAX_FILES:
            print(message(f"tsm-watch: {registry.LIMIT_NOTE.format(n=registry.MAX_FILES, path=path)}"), file=sys.stderr)
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

    for group in registry.group_sources(spec.files):
        p, older = group[-1], group[:-1]
        reader, fi = sniff(p)
        if reader is None and older:  # the live file is empty (just rotated): sniff the newest segment
            r2, fi2 = sniff(older[-1])
            if r2 is not None and r2.kind == "lines":
                reader, fi.format, fi.score, fi.note = type(r2)(p), fi2.format, fi2.score, None
        if older and (reader is None or (reader.kind != "lines" and not hasattr(reader, "next_file"))):
            for q in older:  # not one text series: each file on its own, as before
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
    groups = [[p for p in g if p in run.readers and not _events_only(run.readers[p])] for g in spec.rank_groups]
    best_group = max(groups, key=len, default=[])
    run.ranks = best_group if len(best_group) >= 2 else []
    spec.ranks = run.ranks
    _choose_primary(run)
    return run


def _events_only(reader: LineReader) -> bool:
    """A file read for its crash lines only (sources/console.py): never a run's series."""
    return bool(getattr(reader, "events_only", False))


def _choose_primary(run: Run) -> None:
    best = None
    rank_set = set(run.ranks[1:])  # ranks past the first are read for the ranks check only
    for p, reader in run.readers.items():
        if p in rank_set or _events_only(reader):
            continue
        fi = next(f for f in run.files if f.path == p)
        r = _rank(fi, reader)
        if best is None or r > best[0]:
            best = (r, p)
    if best is not None:
        run.primary = best[1]
        # the config beside the chosen log (Lightning's version_N/hparams.yaml, an
        # MLflow run dir) when it is not in the run's root itself
        found, used = run.files_of.read_info(run.primary)
        _assign(run.info, found)
        run.config_files += [c for c in used if c not in run.config_files]


def _nothing_readable(path: str, candidates: list[str], files: list[registry.FileInfo]) -> InputError:
    if not candidates:
        return InputError(f"no log files found in {path}")
    notes = "; ".join(f"{os.path.basename(f.path)}: {f.note}" for f in files[:3] if f.note)
    return InputError(f"nothing readable in {path} ({notes})" if notes else f"nothing readable in {path}")


def open_run(path: str, info: RunInfo, config: str | None = None, allow_empty: bool = False) -> Run:
    """PATH as one run (every file under it): files and readers; fills ``info``
    from configs and checkpoints."""
    candidates = _candidates(path)
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
    if run.primary is None and not run.readers and not allow_empty:
        raise _nothing_readable(path, candidates, run.files)
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
    so (its relative path, or a unique last component)."""
    flags = flags or RunInfo()
    candidates = _candidates(path)
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
        if run.primary is None and not run.readers and not allow_empty:
            raise _nothing_readable(path, candidates, run.files)
        return [run]
    runs = []
    unread: list[registry.FileInfo] = []
    for spec in specs:
        run = run_of(spec)
        if run.primary is None and not run.readers:
            unread += run.files
            continue
        run.candidates = candidates
        runs.append(run)
    if not runs and not allow_empty:
        raise _nothing_readable(path, candidates, unread)
    return runs


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


@dataclass
class Analysis:
    run: Run
    monitor: Monitor
    settings: Settings
    session: Session | None = None
    #: the ranks check (runs with several per-rank logs only) and its alerts
    ranks: CheckResult | None = None
    rank_alerts: list[Alert] = field(default_factory=list)
    _checks: list[CheckResult] | None = field(default=None, repr=False)

    def checks(self) -> list[CheckResult]:
        """The finished run's checks (computed once: the report asks for them per view)."""
        if self._checks is None:
            out = self.monitor.checks()
            self._checks = out + [self.ranks] if self.ranks is not None else out
        return list(self._checks)

    def alerts(self) -> list[Alert]:
        return self.monitor.view_alerts() + self.rank_alerts

    def counts(self) -> tuple[int, int]:
        return self.monitor.counts(self.checks())

    def compact(self) -> None:
        """One finished run of many: what the report needs is kept (checks, alert views,
        state, files), the detectors, the other sources' monitors and the readers are let
        go (20,000 one-run directories took 634 MB)."""
        self.checks()
        self.monitor.release()
        self.session = None
        self.run.readers = {}

    def actions(self) -> list[str]:
        acts = self.monitor.actions(self.checks())
        if self.ranks is not None and self.ranks.status in (Status.WARN, Status.FAIL):
            extra = [a for al in self.rank_alerts for a in al.actions if a not in acts]
            acts = (extra + acts) if self.ranks.status == Status.FAIL else (acts + extra)
        return acts[:12]


def rank_check(run: Run) -> RanksDetector | None:
    """The ranks check of the run's per-rank files (two or more), each with its rank."""
    if len(run.ranks) < 2:
        return None
    return RanksDetector({p: slurm_task(p, run.ranks) for p in run.ranks})


def _read(run: Run, session: Session, ranks: RanksDetector | None = None, on_batch=None) -> None:
    channels: dict[str, LineReader] = {}

    def feed(p, batch, reader):
        split = getattr(reader, "channels", None)  # (a W&B run file: its history and its console)
        for src, items, rd in split(batch) if split is not None and batch else [(p, batch, reader)]:
            note_metrics(items, run.metrics.setdefault(src, set()))
            if src != p:
                channels[src] = rd
        if ranks is not None and p in ranks and not ranks.route(p, batch):
            session.feed_events(p, batch)  # another rank: its tracker only (its crash lines: the run's)
            return
        session.feed(p, batch, reader)
        if on_batch is not None and batch:
            on_batch(run, p, batch, reader)

    order = list(run.readers)
    if ranks is not None:  # ranks in rank order, where the first of them was
        i = min(order.index(p) for p in run.ranks if p in run.readers)
        rest = [p for p in order if p not in ranks]
        order = rest[:i] + [p for p in run.ranks if p in run.readers] + rest[i:]
    # files read for their crash lines only come last: a finished run's stderr says how it
    # ended, after the series it ended (their events take the step the series reached)
    order = [p for p in order if not _events_only(run.readers[p])] + [p for p in order if _events_only(run.readers[p])]
    for p in order:
        reader = run.readers[p]
        fi = next(f for f in run.files if f.path == p)
        batch: list = []
        try:
            for item in registry.read_items(p, reader, run.segments.get(p, ())):  # StepRecords and Frames
                batch.append(item)
                if len(batch) >= 4096 or type(item) is Frame:
                    feed(p, batch, reader)
                    batch = []
        except OSError as e:
            fi.note = f"read error: {e.strerror or e}"
        feed(p, batch, reader)
        fi.records = reader.records
        fi.skipped_lines = reader.skipped
        fi.skip_reasons = dict(reader.skip_reasons)
        fi.details = reader.describe()
        fi.objective = reader.objective_note()
        run.source_keys[p] = (reader.name, reader.field_keys())
        run.reader_types[p] = type(reader)
    for src, rd in channels.items():
        run.source_keys[src] = (rd.name, rd.field_keys())


def analyze_run(run: Run, settings: Settings, on_batch=None) -> Analysis:
    """Read every readable file of one finished run through a Session; the
    primary source's Monitor, finalized. Per-rank files past the one whose
    series the checks use feed the ranks check only."""
    session = Session(settings, run.info or RunInfo())
    ranks = rank_check(run)
    _read(run, session, ranks, on_batch)
    session.flush()  # records held back as a possible resume (analysis/ordering.py)
    mon = session.monitor
    if mon is None or mon.records == 0:
        if mon is not None and session.has_events():
            pass  # no step, but the run said how it ended (a crash at step 0): that is the report
        elif run.primary is None:
            raise _nothing_readable(run.path, run.candidates or [f.path for f in run.files], run.files)
        else:
            fi = next((f for f in run.files if f.path == run.primary), None)
            why = f" ({fi.skipped_lines} line(s) skipped)" if fi and fi.skipped_lines else ""
            raise InputError(f"no training steps found in {run.primary or run.path}{why}")
    run.primary = session.primary
    used, channel = channel_file(run.primary or "")
    for f in run.files:
        f.used = f.path == used
        f.channel = channel if f.used else None
    mon.finalize()
    an = Analysis(run, mon, settings, session)
    got = ranks.check() if ranks is not None else None
    if got is not None:
        an.ranks, an.rank_alerts = got[0], [a for a, _ in got[1]]
    return an


def analyze(
    path: str, settings: Settings | None = None, info: RunInfo | None = None, config: str | None = None
) -> Analysis:
    """PATH as one run (every file under it), finished."""
    settings = settings or Settings()
    info = info or RunInfo()
    return analyze_run(open_run(path, info, config), settings)


@dataclass
class RunFailure:
    """A run that could not be analysed (no training steps): shown, never fatal for the others."""

    run: Run
    reason: str


def analyze_runs(
    path: str,
    settings: Settings | None = None,
    flags: RunInfo | None = None,
    config: str | None = None,
    only: str | None = None,
    on_batch=None,
    on_run=None,
) -> list[Analysis | RunFailure]:
    """Every run under PATH, each analysed alone (a run's verdict inside a sweep
    equals its verdict alone). One run: its Analysis, or InputError as before.
    ``on_batch(run, source, items, reader)`` sees every batch fed (exporters);
    ``on_run(analysis)`` each finished run before it is compacted (``Analysis.compact``:
    memory stays bounded in big trees)."""
    settings = settings or Settings()
    runs = open_runs(path, flags, config, only=only)
    if len(runs) == 1:
        an = analyze_run(runs[0], settings, on_batch)
        if on_run is not None:
            on_run(an)
        return [an]
    out: list[Analysis | RunFailure] = []
    first: InputError | None = None
    for run in runs:
        try:
            an = analyze_run(run, settings, on_batch)
        except InputError as e:
            if run.primary is None:  # only stream files with no crash line: not a run (as before)
                first = first or e
                continue
            out.append(RunFailure(run, str(e)))
            continue
        if on_run is not None:
            on_run(an)
        an.compact()
        out.append(an)
    if not out and first is not None:
        raise first
    return out
