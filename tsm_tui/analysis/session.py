"""One run, several sources: a Monitor per source file, one of them primary.

The report, ``--follow`` and the TUI all feed a Session. Each source file gets
its own Monitor (each bounded in memory), so the same series logged to two
places (stdout and a JSONL file) is never counted twice; the primary source is
the one with the most loss values, then the most structured format. Alerts are
passed on from the primary source only.
"""

from __future__ import annotations

import copy
import os
from collections import deque

from tsm_tui.core.frame import Frame, expand
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.analysis.ordering import HOLD_IDLE, Orderer
from tsm_tui.core.record import Alert, StepRecord, TextEvent
from tsm_tui.sources.checkpoint_lines import SAVE_KIND
from tsm_tui.core.settings import LOG_FACTS, RunInfo, Settings
from tsm_tui.sources.base import SourceReader, channel_file
from tsm_tui.sources.framework_defaults import apply_defaults, framework_of, is_default

CHANNEL_MARGIN = 10  # losses a console channel needs beyond its file's history to be used (ours)
#: training losses a tracker's history needs to stand over its console's progress-bar redraws (ours:
#: the bar's postfix is a running mean redrawn per batch, its counter restarting each epoch; a
#: history of a few losses is still the logged series, none or one is a summary)
BAR_HISTORY_MIN = 3
AUX_KEEP = 2000  # auxiliary records (sampling steps) kept for monitors created later
EVENTS_KEEP = 500  # text events (crash lines) kept for monitors created later


def apply_log_info(info: RunInfo, reader: SourceReader) -> None:
    """What the log itself says about the run (never overrides flags or configs, only a
    framework's default), then the defaults of the framework that wrote it."""
    ri = reader.run_info
    origin = f"{os.path.basename(reader.path)} (log)"
    for k in LOG_FACTS:
        if k in ri:
            info.set(k, ri[k], origin, override=is_default(info, k))
    apply_defaults(info, framework_of(reader))


class Session:
    def __init__(self, settings: Settings | None = None, info: RunInfo | None = None) -> None:
        self.settings = settings or Settings()
        self.info = info or RunInfo()
        self.monitors: dict[str, Monitor] = {}
        #: per source: duplicates of two writers dropped, resumes told from stray lines
        self.orderers: dict[str, Orderer] = {}
        self.readers: dict[str, SourceReader] = {}
        self._known: dict[str, int] = {}
        self._frameworks: set[str] = set()  # frameworks whose defaults were applied
        self.primary: str | None = None
        #: records of auxiliary sources (generations files): fed to every monitor,
        #: kept (bounded) for monitors created later
        self.aux: deque[StepRecord] = deque(maxlen=AUX_KEEP)
        #: text events (crash lines) of every source, in arrival order: each goes to every
        #: monitor (the run's crash is in job.err while its series is in job.out); kept
        #: (bounded) for monitors created later
        self.events: deque[tuple[str, TextEvent]] = deque(maxlen=EVENTS_KEEP)

    def monitor_for(self, source: str, reader: SourceReader | None = None) -> Monitor:
        mon = self.monitors.get(source)
        if mon is None:
            mon = self.monitors[source] = Monitor(self.settings, copy.deepcopy(self.info))
            mon.state.info.checkpoints = self.info.checkpoints  # shared, refreshed by the caller
            for r in self.aux:
                mon.feed_aux(r)
            for src, ev in self.events:
                mon.feed_event(ev, src == source)
        if reader is not None:
            self.readers[source] = reader
            n = len(reader.run_info)
            if n != self._known.get(source, 0):
                self._known[source] = n
                apply_log_info(mon.state.info, reader)
            fw = framework_of(reader)
            if fw is not None and fw not in self._frameworks:
                # one run, one framework: its defaults hold for every file of the run (the HF
                # run's TensorBoard events too), for monitors made later as well (self.info)
                self._frameworks.add(fw)
                for info in [self.info] + [m.state.info for m in self.monitors.values()]:
                    apply_defaults(info, fw)
        return mon

    def feed(self, source: str, records, reader: SourceReader | None = None) -> list[Alert]:
        """Records (and Frames) of one source; returns the alerts to show (primary source only).
        A reader with channels (a W&B run file: its history and its console) feeds each
        channel as a source of its own, so the richest one is chosen like any file."""
        if reader is not None and getattr(reader, "auxiliary", False):
            return self._feed_aux(records)
        split = getattr(reader, "channels", None)
        if split is not None and records:
            out: list[Alert] = []
            for src, recs, rdr in split(records):
                out += self._feed_source(self._continued(src, reader), recs, rdr)
            return out
        return self._feed_source(self._continued(source, reader), records, reader)

    def _continued(self, source: str, reader: SourceReader | None) -> str:
        """Live, a resumed W&B run writes a new run file in a new run dir: its records
        go on in the source of the file it continues (``reader.continues``)."""
        prev = getattr(reader, "continues", None)
        if prev is None or reader is None:
            return source
        alias = prev + source[len(reader.path) :] if source.startswith(reader.path) else prev
        return alias if alias in self.monitors else source

    def _feed_source(self, source: str, records, reader: SourceReader | None) -> list[Alert]:
        mon = self.monitor_for(source, reader)
        out: list[Alert] = []
        if getattr(reader, "kind", None) != "lines":
            # one writer (a snapshot, an event file), or a caller feeding records itself
            return self._feed_mon(source, mon, records, reader, out)
        order = self.orderers.get(source)
        if order is None:
            order = self.orderers[source] = Orderer()
        before = dict(order.counts)
        records = order.push(records)
        if reader is not None and order.counts != before:
            for k, v in order.counts.items():  # shown with the file's skip reasons
                reader.count_dropped(k, v - before.get(k, 0))
        return self._feed_mon(source, mon, records, reader, out)

    def _feed_mon(self, source: str, mon: Monitor, records, reader, out: list[Alert]) -> list[Alert]:
        if getattr(reader, "kind", None) == "lines" or getattr(reader, "reads_text", False):
            mon.state.text_read = True  # (a notebook's outputs are text its reader looked at: reads_text)
        if reader is not None and hasattr(reader, "describe"):  # (a caller's own reader may have neither)
            mon.launches.counted_steps = (
                bool(getattr(reader, "inferred_steps", 0)) or "step_source" in reader.describe()
            )
        shared: list[Alert] = []
        for r in records:
            if type(r) is Frame:
                out += mon.feed_frame(r)
            elif type(r) is TextEvent:
                if mon.state.last_step is not None:  # (its file's last record before it, exactly: in order)
                    r.before = r.step = mon.state.last_step
                out += mon.feed_event(r)
                shared += self._share(source, r)
            else:
                out += mon.feed(r)
        if reader is not None:  # a header line may have told us more
            self.monitor_for(source, reader)
        self._choose()
        return (out if source == self.primary else []) + shared

    def _share(self, source: str, ev: TextEvent) -> list[Alert]:
        """A text event of ``source`` to every other monitor; the primary's alerts out."""
        if ev.kind != SAVE_KIND:  # (a checkpoint save says nothing of how the run ended)
            self.events.append((source, ev))
        out: list[Alert] = []
        for src, mon in self.monitors.items():
            if src != source:
                found = mon.feed_event(ev, False)
                if src == self.primary:
                    out += found
        return out

    def feed_events(self, source: str, records) -> list[Alert]:
        """The text events among ``records`` of a file whose records go elsewhere (another
        rank's log, read for the ranks check only): every monitor sees them."""
        out: list[Alert] = []
        for r in records:
            if type(r) is TextEvent:
                out += self._share(source, r)
        return out

    def has_events(self) -> bool:
        """Some file of the run said how it ended (a crash line, an exit code)."""
        return bool(self.events)

    def _feed_aux(self, records) -> list[Alert]:
        out: list[Alert] = []
        for r in expand(records):
            self.aux.append(r)
            for src, mon in self.monitors.items():
                found = mon.feed_aux(r)
                if src == self.primary:
                    out += found
        return out

    def _rank(self, source: str) -> tuple:
        mon = self.monitors[source]
        r = self.readers.get(source)
        return (mon.detectors[0].n, mon.records, r.priority if r else 0)

    def _choose(self) -> None:
        if not self.monitors:
            return
        best = max(self.monitors, key=self._rank)
        if self.primary is None or self._rank(best) > self._rank(self.primary):
            self.primary = best
        # a file's console channel stands in for its structured history only when the history
        # clearly has fewer losses (twice, and 10 more): a live run's first print does not flip it
        main, channel = channel_file(self.primary)
        if channel is not None and main in self.monitors:
            n_con, n_main = self.monitors[self.primary].detectors[0].n, self.monitors[main].detectors[0].n
            con = self.readers.get(self.primary)
            bars = getattr(con, "bar_records", 0) * 2 > getattr(con, "records", 0)  # mostly bar redraws
            if n_con < 2 * n_main or n_con < n_main + CHANNEL_MARGIN or (bars and n_main >= BAR_HISTORY_MIN):
                self.primary = main

    def exit_code(self) -> int | None:
        """The exit code the run's tracker recorded (a W&B run file's exit record,
        ``WandbRunReader.exit_code``); None when no file says the run ended. A run file
        that a resumed run's newer file continues does not count (its exit was not the end)."""
        readers = list({id(r): r for r in self.readers.values()}.values())
        superseded = {getattr(r, "continues", None) for r in readers}
        codes = [
            code
            for r in readers
            if (code := getattr(r, "exit_code", None)) is not None and getattr(r, "path", None) not in superseded
        ]
        return codes[-1] if codes else None

    @property
    def monitor(self) -> Monitor | None:
        return self.monitors.get(self.primary) if self.primary else None

    def last_step(self) -> int | None:
        """The newest step of the run's main file (its primary monitor), None before any."""
        mon = self.monitor
        return mon.last_step if mon is not None else None

    def planned_steps(self) -> int | None:
        """The steps the run's config (or its log) plans, None when nothing says."""
        mon = self.monitor
        return mon.planned_steps if mon is not None else None

    def set_info(self, info: RunInfo) -> None:
        """The run's configuration changed (a config file appeared or was
        rewritten): every monitor takes it, plus what its own log says; the
        checkpoints found so far are kept."""
        info.checkpoints = self.info.checkpoints
        info.checkpoint_dir_searched = info.checkpoint_dir_searched or self.info.checkpoint_dir_searched
        self.info = info
        for fw in self._frameworks:
            apply_defaults(info, fw)
        for src, mon in self.monitors.items():
            new = copy.deepcopy(info)
            new.checkpoints = info.checkpoints  # shared, refreshed by set_checkpoints
            reader = self.readers.get(src)
            if reader is not None:
                apply_log_info(new, reader)
            mon.state.info = new

    def set_checkpoints(self, checkpoints: list[tuple[int, str]]) -> None:
        self.info.checkpoints = checkpoints
        for m in self.monitors.values():
            m.state.info.checkpoints = checkpoints

    def flush(self) -> list[Alert]:
        """The end of every source's input: records held back as a possible resume
        stayed back, so they are one (see analysis/ordering.py)."""
        out: list[Alert] = []
        for src, order in self.orderers.items():
            recs = order.flush()
            if recs:
                out += self._feed_mon(src, self.monitors[src], recs, self.readers.get(src), [])
        for mon in self.monitors.values():  # a launch held for its first losses (analysis/launches.py)
            out += mon.settle()
        return out

    def holding(self) -> bool:
        """Records are held back as a possible resume (``release_held`` will want a look)."""
        return any(o.held for o in self.orderers.values()) or any(
            m.launches.pending is not None for m in self.monitors.values()
        )

    def release_held(self, idle: float = HOLD_IDLE) -> list[Alert]:
        """Live: records held back as a possible resume that waited ``idle`` seconds
        with nothing new from their source are a resume (analysis/ordering.py):
        delivered now, not at an end that a live run never reaches."""
        out: list[Alert] = []
        for src, order in self.orderers.items():
            if order.held:
                recs = order.release(idle)
                if recs:
                    out += self._feed_mon(src, self.monitors[src], recs, self.readers.get(src), [])
        for mon in self.monitors.values():  # a launch held for its first losses, idle as long
            waited = mon.pending_for()
            if waited is not None and waited >= idle:
                out += mon.settle()
        return out

    def revisions(self) -> list[Alert]:
        """Alerts of the primary source that read differently now (``Monitor.revisions``);
        the other sources' are drained and dropped (their alerts were never shown)."""
        out: list[Alert] = []
        for src, mon in self.monitors.items():
            found = mon.revisions()
            if src == self.primary:
                out = found
        return out

    def finalize(self) -> list[Alert]:
        out = self.flush()
        mon = self.monitor
        return out + (mon.finalize() if mon else [])
