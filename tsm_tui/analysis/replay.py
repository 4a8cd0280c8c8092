"""A finished run replayed: read -> detect -> advise, for a log, a run directory
or a directory of many runs.

``analyze_runs`` opens the runs under a path (``analysis/run_open.py``), reads each
through its own Session and returns what the report needs, one ``Analysis`` per
run (or a ``RunFailure``); ``analyze`` is the one-run form. A run's verdict inside
a sweep equals its verdict alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tsm_tui.analysis.coverage import note_metrics
from tsm_tui.analysis.detectors.ranks import RanksDetector
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.analysis.run_open import Run, events_only, nothing_readable, open_run, open_runs
from tsm_tui.analysis.session import Session
from tsm_tui.core.errors import InputError
from tsm_tui.core.frame import Frame
from tsm_tui.core.record import Alert, CheckResult, Status
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources import reading
from tsm_tui.sources.base import SourceReader, channel_file
from tsm_tui.sources.runs import slurm_task


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
        """The run's alerts, then those of the earlier runs a new run in the same file replaced
        (marked so: not in the verdict, which judges the last run, but never out of the alert list;
        fresh46's 33 PINN runs appended to one file had their NaN and spikes in a summary line only)."""
        earlier = [a for r in self.monitor.earlier_runs for a in r.marked_alerts()]
        return self.monitor.view_alerts() + self.rank_alerts + earlier

    @property
    def info(self) -> RunInfo:
        """What is known of the run (flags > configs > logs), as the checks judged it."""
        return self.monitor.info

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


def checked_terms(mon) -> set[str] | None:
    """The loss terms a file's Monitor judged one by one (the loss-spike check's components),
    or None when it has no such check."""
    if mon is None:
        return None
    for d in mon.detectors:
        parts = getattr(d, "parts", None)
        if d.id == "loss_spike" and parts is not None:
            return set(parts.parts)
    return None


def rank_check(run: Run) -> RanksDetector | None:
    """The ranks check of the run's per-rank files (two or more), each with its rank."""
    if len(run.ranks) < 2:
        return None
    return RanksDetector({p: slurm_task(p, run.ranks) for p in run.ranks})


def _read(run: Run, session: Session, ranks: RanksDetector | None = None, on_batch=None) -> None:
    channels: dict[str, SourceReader] = {}

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
    order = [p for p in order if not events_only(run.readers[p])] + [p for p in order if events_only(run.readers[p])]
    for p in order:
        reader = run.readers[p]
        fi = next(f for f in run.files if f.path == p)
        batch: list = []
        try:
            for item in reading.read_items(p, reader, run.segments.get(p, ())):  # StepRecords and Frames
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
        fi.objective = reader.objective_note(checked_terms(session.monitors.get(p)))
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
            raise nothing_readable(run.path, run.candidates or [f.path for f in run.files], run.files)
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
    equals its verdict alone). One run: its Analysis, or InputError.
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
            if run.primary is None:  # only stream files with no crash line: not a run
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
    if len(out) == 1 and isinstance(out[0], RunFailure):  # the one run there was failed: as for a lone run
        raise InputError(out[0].reason)
    return out
