"""Verdicts for Prometheus: ``--prom-file PATH`` and ``--metrics-port PORT``.

A cluster already runs Prometheus, node_exporter and Alertmanager; a
``tsm-watch`` beside each job exports what it found where Prometheus looks:

* ``--prom-file PATH``: the text exposition format, for node_exporter's
  textfile collector (``--collector.textfile.directory``; it reads ``*.prom``
  and does not accept sample timestamps). Written atomically (a ``mkstemp``
  file in the same directory, mode 0644, then ``os.replace``, which never
  follows a link at the final name: ``Exporter._write``) when something changed, at most
  once a second, and at least every ``HEARTBEAT`` seconds (the heartbeat gauge
  tells a live monitor from a stale file).
* ``--metrics-port PORT``: ``/metrics`` served from a registry holding one
  custom collector, by a bounded server of our own (``metrics_server``: one
  thread, at most 32 connections, 5 s per request), not ``prometheus_client``'s
  thread-per-connection one.

The model is a dict ``run name -> RunModel`` (one per run; several runs of a
directory drop in as more entries). The loop thread feeds each RunModel from
its ``LiveUpdate`` (or a finished report) and, at most once a second, turns
the models into immutable ``RunSnapshot`` objects and the metric families built
from them. A scrape only formats those prebuilt families: no run state is read
from the HTTP thread, so it needs no lock beyond swapping one reference.

Metric names and labels (README "Many jobs: Prometheus and Grafana"; the
mapping is ours, after ``shared/notes/peers-round2.md`` (c)):
every series carries ``run``; ``check`` / ``severity`` where they apply. No
step numbers or other unbounded values in labels; the ``summary`` and
``action`` labels of ``tsm_check_info`` change only when the check's status
changes, so a check has at most one series per status it went through.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import statistics
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tsm_tui.core.errors import InputError, UsageError
from tsm_tui.core.flags import Flag, port
from tsm_tui.core.frame import Frame
from tsm_tui.core.options import Options
from tsm_tui.core.record import Alert, CheckResult, Status
from tsm_tui.core.output import warn
from tsm_tui.core.sanitize import clean
from tsm_tui.views.subscriber import ReportHook, Subscriber

if TYPE_CHECKING:
    from tsm_tui.views.metrics_server import MetricsServer

MIN_WRITE = 1.0  # s between two textfile writes (node_exporter reads it at each scrape, 15-60 s)
HEARTBEAT = 30.0  # s: the file is rewritten (and the heartbeat moved) at least this often
GAPS = 32  # record-arrival gaps kept for the usual interval (median)
RATE_SAMPLES = 32  # (time, step) samples kept for steps per second
SCAN_BACK = 64  # records looked at, from a batch's end, for the last loss / grad norm / LR
LABEL_MAX = 160  # characters of a label value (summaries, actions, file names)
PROM_MODE = 0o644  # the textfile: node_exporter runs as another user and must read it

STATUS_VALUE = {Status.PASS: 0, Status.WARN: 1, Status.FAIL: 2, Status.SKIP: -1}
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_VALUES = ("loss", "grad_norm", "lr", "loss_scale")


def label(text: object, max_len: int = LABEL_MAX) -> str:
    """A label value from untrusted text (file names, log-derived summaries):
    no control, escape or bidi sequences, one line, bounded. Quoting and
    escaping of ``\\``, ``"`` and newlines is the exposition writer's job."""
    s = clean(str(text), 4 * max_len)
    s = _BIDI.sub("", s).replace("\n", " ").replace("\t", " ").strip()
    return s if len(s) <= max_len else s[: max_len - 1] + "\u2026"


def unique_label(name: object) -> str:
    """The ``run`` label of a run's name: ``label(name)``, unless cleaning had to
    change the name (control or bidi characters removed, cut at LABEL_MAX): then
    ``~`` and 8 hex digits of the name's SHA-256 follow, so that two runs whose
    names differ only in what was removed keep two label values (merged, a healthy
    sibling's PASS would hide the other's FAIL). A function of the name alone:
    the label never changes while a run is followed, nor with which runs exist."""
    raw = str(name)
    s = label(raw)
    if s == raw:
        return s
    tag = "~" + hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return label(raw, LABEL_MAX - len(tag)) + tag


def run_name(path: str) -> str:
    """The run label of a watched path: its directory's name (a log file given
    directly is named after the directory it is in, not ``metrics.jsonl``)."""
    p = os.path.abspath(path).rstrip(os.sep) or os.sep
    if not os.path.isdir(p):
        p = os.path.dirname(p) or p
    return unique_label(os.path.basename(p) or p)


def _epoch(t) -> float | None:
    """A record's own wall time, when it looks like one (TensorBoard wall_time)."""
    if t is None:
        return None
    try:
        t = float(t)
    except (TypeError, ValueError):
        return None
    return t if 1e9 < t < time.time() + 86400 else None


@dataclass
class _Source:
    """What one source file said last (the primary one is exported)."""

    values: dict = field(default_factory=dict)  # field -> last value logged (NaN kept)
    last_ts: float | None = None
    prev_ts: float | None = None
    gaps: deque = field(default_factory=lambda: deque(maxlen=GAPS))
    rate: deque = field(default_factory=lambda: deque(maxlen=RATE_SAMPLES))
    last_step: int | None = None


@dataclass(frozen=True)
class CheckSnap:
    check: str
    status: Status
    summary: str
    action: str


@dataclass(frozen=True)
class RunSnapshot:
    """One run as the exporter shows it (immutable: the HTTP thread reads it)."""

    run: str
    format: str
    source: str
    checks: tuple[CheckSnap, ...]
    alerts: tuple[tuple[str, str, int], ...]  # (check, severity, count)
    last_step: int | None
    planned_steps: int | None
    last_ts: float | None
    steps_per_s: float | None
    interval: float | None
    values: tuple[tuple[str, float], ...]
    nonfinite: int
    heartbeat: float
    following: bool = True


class RunModel:
    """One run's metrics, fed by the loop thread."""

    def __init__(self, name: str, root: str) -> None:
        self.name = name
        self.root = root
        self.sources: dict[str, _Source] = {}
        self.formats: dict[str, str] = {}
        self.primary: str | None = None
        self.alerts: dict[tuple[str, str], int] = {}
        self.actions: dict[str, str] = {}  # check -> first action of its latest alert with one
        self.checks: dict[str, CheckSnap] = {}
        self.last_step: int | None = None
        self.planned: int | None = None
        self.nonfinite = 0

    # -- feeding
    def observe(
        self, source: str, records: list, backlog: bool, fmt: str | None = None, now: float | None = None
    ) -> None:
        """One batch of one source: its last values and when it arrived (O(1)
        amortised: at most SCAN_BACK records from its end are looked at)."""
        if not records:
            return
        src = self.sources.get(source)
        if src is None:
            src = self.sources[source] = _Source()
        if fmt:
            self.formats[source] = fmt
        missing = set(_VALUES)
        rec_time = None
        step = None
        for r in reversed(records[-SCAN_BACK:]):
            if type(r) is Frame:
                if r.n == 0:
                    continue
                if step is None:
                    step = int(r.step[-1])
                    tcol = r.cols.get("time")
                    rec_time = _epoch(tcol[-1]) if tcol is not None else None
                for k in list(missing):
                    col = r.cols.get(k)
                    if col is not None:
                        src.values[k] = float(col[-1])
                        missing.discard(k)
            else:
                if step is None and r.has_metrics():
                    step = r.step
                    rec_time = _epoch(r.time)
                for k in list(missing):
                    v = getattr(r, k, None)
                    if v is not None:
                        src.values[k] = float(v)
                        missing.discard(k)
            if not missing and step is not None:
                break
        if step is None:
            return
        now = time.time() if now is None else now
        ts = rec_time
        if ts is None:
            if backlog:  # history present at the start: when the file was last written
                try:
                    ts = os.stat(source).st_mtime
                except OSError:
                    ts = None
            else:
                ts = now
        if ts is None:
            return
        timed = rec_time is not None or not backlog  # arrival times of a backlog say nothing
        if timed and src.prev_ts is not None and ts > src.prev_ts and (src.last_step is None or step > src.last_step):
            src.gaps.append(ts - src.prev_ts)
        if timed:
            src.prev_ts = ts
            src.rate.append((ts, step))
        src.last_ts = ts if src.last_ts is None else max(src.last_ts, ts)
        src.last_step = step

    def alert(self, a: Alert) -> None:
        k = (a.check, a.severity.value)
        self.alerts[k] = self.alerts.get(k, 0) + 1
        if a.actions:
            self.actions[a.check] = a.actions[0]

    def set_checks(self, checks: list[CheckResult]) -> None:
        for c in checks:
            old = self.checks.get(c.id)
            if old is not None and old.status == c.status:
                continue  # summaries and actions move with the status only (bounded series)
            action = self.actions.get(c.id, "") if c.status in (Status.WARN, Status.FAIL) else ""
            self.checks[c.id] = CheckSnap(c.id, c.status, label(c.summary), label(action))

    def from_monitor(self, mon, primary: str | None, reader_name: str | None = None) -> None:
        """Run-level facts from the primary Monitor (the loop calls it after a step)."""
        if mon is None:
            return
        self.primary = primary
        if primary and reader_name:
            self.formats[primary] = reader_name
        self.last_step = mon.last_step
        self.planned = mon.planned_steps
        for d in mon.detectors:
            if d.id == "nonfinite":
                self.nonfinite = int(getattr(d, "bad", 0))

    # -- reading
    def snapshot(self, heartbeat: float, following: bool = True) -> RunSnapshot:
        src = self.sources.get(self.primary) if self.primary else None
        if src is None and self.sources:
            src = next(iter(self.sources.values()))
        steps_per_s = interval = None
        values: tuple = ()
        last_ts = None
        if src is not None:
            last_ts = src.last_ts
            if len(src.rate) >= 2:
                (t0, s0), (t1, s1) = src.rate[0], src.rate[-1]
                if t1 > t0 and s1 >= s0:
                    steps_per_s = (s1 - s0) / (t1 - t0)
            if len(src.gaps) >= 3:
                interval = statistics.median(src.gaps)
            values = tuple((k, src.values[k]) for k in _VALUES if k in src.values)
        rel = ""
        if self.primary:
            try:
                rel = os.path.relpath(self.primary, self.root) if self.root else self.primary
            except ValueError:
                rel = self.primary
        return RunSnapshot(
            run=self.name,
            format=label(self.formats.get(self.primary or "", "") or "unknown"),
            source=label(rel or "none"),
            checks=tuple(self.checks[k] for k in sorted(self.checks)),
            alerts=tuple((c, s, n) for (c, s), n in sorted(self.alerts.items())),
            last_step=self.last_step,
            planned_steps=self.planned,
            last_ts=last_ts,
            steps_per_s=steps_per_s,
            interval=interval,
            values=values,
            nonfinite=self.nonfinite,
            heartbeat=heartbeat,
            following=following,
        )


# ---------------------------------------------------------------------- metric families
_VALUE_METRICS = {
    "loss": ("tsm_loss", "Last training loss logged by the run (NaN when it was NaN)."),
    "grad_norm": ("tsm_grad_norm", "Last gradient norm logged by the run."),
    "lr": ("tsm_learning_rate", "Last learning rate logged by the run."),
    "loss_scale": ("tsm_loss_scale", "Last fp16 loss scale logged by the run (only when logged)."),
}

HELP = {
    "tsm_check_status": "Status of a tsm-watch check: 0 PASS, 1 WARN, 2 FAIL, -1 SKIP (no data for it).",
    "tsm_check_info": "The check's status, its summary and its first action (changes only with the status).",
    "tsm_alerts": "Alerts raised for the run since tsm-watch started, by check and severity.",
    "tsm_last_step": "Last training step seen in the run's logs.",
    "tsm_planned_steps": "Planned optimizer steps (config or --total-steps), when known.",
    "tsm_last_record_timestamp_seconds": "When the run last logged a step (the log's own time when it has one, "
    "else when tsm-watch read it; the file's mtime for the history).",
    "tsm_expected_interval_seconds": "The run's usual time between two logged steps (median of recent gaps).",
    "tsm_steps_per_second": "Training steps per second over the recent records.",
    "tsm_nonfinite": "Non-finite (NaN/Inf) loss or gradient-norm values seen in the run.",
    "tsm_run_info": "The run's primary log: its format and path relative to the watched path.",
    "tsm_monitor_heartbeat_timestamp_seconds": "When tsm-watch last refreshed these metrics (a stale value means "
    "the monitor is gone).",
    "tsm_following": "1 while tsm-watch follows the run live (--follow, the TUI); 0 for a one-shot --report "
    "export, to which the stall and monitor-down rules do not apply.",
}


def families(snaps: dict[str, RunSnapshot]) -> list:
    """prometheus_client metric families for every run (built once per change)."""
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

    def g(name, labels=("run",), doc=None):
        return GaugeMetricFamily(name, doc or HELP[name], labels=list(labels))

    status = g("tsm_check_status", ("run", "check"))
    info = g("tsm_check_info", ("run", "check", "status", "summary", "action"))
    alerts = CounterMetricFamily("tsm_alerts", HELP["tsm_alerts"], labels=["run", "check", "severity"])
    last_step = g("tsm_last_step")
    planned = g("tsm_planned_steps")
    last_ts = g("tsm_last_record_timestamp_seconds")
    interval = g("tsm_expected_interval_seconds")
    rate = g("tsm_steps_per_second")
    values = {k: g(n, doc=d) for k, (n, d) in _VALUE_METRICS.items()}
    nonfinite = CounterMetricFamily("tsm_nonfinite", HELP["tsm_nonfinite"], labels=["run"])
    run_info = g("tsm_run_info", ("run", "format", "source"))
    beat = g("tsm_monitor_heartbeat_timestamp_seconds")
    following = g("tsm_following")
    for name in sorted(snaps):
        s = snaps[name]
        r = s.run
        for c in s.checks:
            status.add_metric([r, c.check], STATUS_VALUE[c.status])
            info.add_metric([r, c.check, c.status.value, c.summary, c.action], 1)
        for check, sev, n in s.alerts:
            alerts.add_metric([r, check, sev], n)
        if s.last_step is not None:
            last_step.add_metric([r], s.last_step)
        if s.planned_steps is not None:
            planned.add_metric([r], s.planned_steps)
        if s.last_ts is not None:
            last_ts.add_metric([r], s.last_ts)
        if s.interval is not None:
            interval.add_metric([r], s.interval)
        if s.steps_per_s is not None:
            rate.add_metric([r], s.steps_per_s)
        for k, v in s.values:
            values[k].add_metric([r], v)
        nonfinite.add_metric([r], s.nonfinite)
        run_info.add_metric([r, s.format, s.source], 1)
        beat.add_metric([r], s.heartbeat)
        following.add_metric([r], 1 if s.following else 0)
    out = [
        status,
        info,
        alerts,
        last_step,
        planned,
        last_ts,
        interval,
        rate,
        *values.values(),
        nonfinite,
        run_info,
        beat,
        following,
    ]
    return out


class Metrics(Subscriber):
    """``--prom-file`` / ``--metrics-port``: the live loop's subscriber (views/outputs.py
    builds it): the verdicts as Prometheus metrics, refreshed from every step of the loop;
    with ``--report``, ``--prom-file`` is written once (``ReportMetrics``).
    ``path``: what the view watches (its own run's label); ``root``: where its runs are."""

    def __init__(self, exporter: "Exporter", path: str, root: str) -> None:
        self.exporter, self.path, self.root = exporter, path, root
        exporter.watch(path)

    #: its flags (the command line adds them to its parser and fills ``Options`` from them)
    FLAGS = (
        Flag(
            "--prom-file",
            "options.prom_file",
            "write the verdicts as Prometheus metrics to PATH (node_exporter textfile collector: *.prom), "
            "atomically, at most once a second",
            group="export",
            metavar="PATH",
        ),
        Flag(
            "--metrics-port",
            "options.metrics_port",
            "serve the metrics on http://HOST:PORT/metrics (with --follow or the TUI)",
            group="export",
            type=port,
            metavar="PORT",
        ),
        Flag(
            "--metrics-host",
            "options.metrics_host",
            f"address for --metrics-port (default {Options.metrics_host})",
            group="export",
            metavar="HOST",
            default=Options.metrics_host,
        ),
        Flag(
            "--run-label",
            "options.run_label",
            "the run label of the exported metrics (default: the run directory's name; several runs "
            "under PATH are NAME/<run>): tell apart jobs whose directories share a name",
            group="export",
            metavar="NAME",
        ),
    )

    @classmethod
    def check(cls, opts, view: str) -> None:
        exporting = opts.prom_file or opts.metrics_port is not None
        if opts.run_label and not exporting:
            raise UsageError(
                "--run-label names the run in the exported metrics: use it with --prom-file or --metrics-port"
            )
        if exporting and view == "preflight":
            raise UsageError("--prom-file / --metrics-port work with --follow, --report or the TUI, not --preflight")
        if opts.metrics_port is not None and view == "report":
            raise UsageError("--metrics-port needs --follow or the TUI (a report exits at once: use --prom-file)")

    @classmethod
    def wanted(cls, opts, view: str) -> bool:
        return bool(opts.prom_file or opts.metrics_port is not None)

    @classmethod
    def for_report(cls, opts, root: str) -> "ReportMetrics | None":
        # checked (directory writable) before the runs are read
        return ReportMetrics(opts.prom_file, opts.run_label, opts.path, root) if opts.prom_file else None

    @classmethod
    def from_options(cls, opts, root: str) -> "Metrics":
        return cls(
            Exporter(opts.prom_file, opts.metrics_port, opts.metrics_host, run_label=opts.run_label), opts.path, root
        )

    def start(self, loop, say) -> None:
        """Each run's heartbeat shows before its first record; where the metrics are served."""
        for name in loop.runs:
            self.exporter.run(self.exporter.name_for(name, self.path), self.root)
        if self.exporter.port is not None:
            host = self.exporter.host
            say(f"serving metrics on http://{f'[{host}]' if ':' in host else host}:{self.exporter.port}/metrics")

    def update(self, up, loop) -> None:
        self.exporter.update(up, loop, self.root)
        self.exporter.publish()

    def close(self) -> None:
        self.exporter.close()


class ReportMetrics(ReportHook):
    """``--report --prom-file``: the finished runs exported once (the rules' stall and
    heartbeat checks do not apply to it: ``following=False``). ``path``: what the report
    reads (its own run's label); ``root``: the directory of its runs."""

    def __init__(self, prom_file: str, run_label: str | None, path: str, root: str) -> None:
        self.exporter = Exporter(prom_file, run_label=run_label, following=False)
        self.path, self.root = path, root

    def _name(self, run) -> str:
        # the watched path's own run (one run, or the root of several) is named after the path
        own = os.path.abspath(run.root or self.root) == self.root
        return self.exporter.name_for("" if own else run.name, self.path)

    def batch(self, run, source: str, items: list, reader) -> None:  # the last values (loss, grad norm, LR ...)
        self.exporter.run(self._name(run), self.root).observe(source, items, True, getattr(reader, "name", None))

    def finished(self, an) -> None:  # (before the run is compacted: the exporter reads its detectors)
        self.exporter.from_analysis(self._name(an.run), self.root, an)

    def close(self) -> None:
        self.exporter.close()


class _Collector:
    """The registry's one collector: yields the families the loop prebuilt."""

    def __init__(self, exporter: "Exporter") -> None:
        self.exporter = exporter

    def collect(self):
        return iter(self.exporter._families)  # one reference read: swapped whole by the loop

    def describe(self):
        return []


class Exporter:
    """Runs -> exposition text, into a textfile and / or an HTTP endpoint."""

    def __init__(
        self,
        prom_file: str | None = None,
        port: int | None = None,
        host: str = "127.0.0.1",
        err=None,
        clock=time.time,
        run_label: str | None = None,
        following: bool = True,
    ) -> None:
        from prometheus_client import CollectorRegistry

        #: ``--run-label``: the label of the watched path's run (two jobs whose run
        #: directories share a name on one node would otherwise collide), and the
        #: prefix of each run's label when the path holds several
        self.run_label = unique_label(run_label) if run_label else None
        #: live modes (the heartbeat moves); ``--report`` exports once (following=False)
        self.following = following
        self.prom_file = os.path.abspath(prom_file) if prom_file else None
        self.err = err or sys.stderr
        self.clock = clock
        self.runs: dict[str, RunModel] = {}
        self.default_name = "run"  # the name of a run the loop left unnamed (set by the views)
        self.registry = CollectorRegistry(auto_describe=False)
        self._families: list = []
        self._dirty = True
        self._built_at = -1e18
        self._write_failed = False
        self._link_said = False
        self.writes = 0
        self._server: MetricsServer | None = None
        if self.prom_file:
            self._check_dir()
        self.registry.register(_Collector(self))
        self.host = host
        if port is not None:
            self._serve(host, port)

    def _check_dir(self) -> None:
        assert self.prom_file is not None  # (called with a file)
        d = os.path.dirname(self.prom_file)
        if os.path.isdir(self.prom_file) and not os.path.islink(self.prom_file):
            raise InputError(
                f"--prom-file: {self.prom_file} is a directory; give a file name such as "
                f"{os.path.join(self.prom_file, 'tsm.prom')}"
            )
        if not os.path.isdir(d):
            raise InputError(f"--prom-file: no such directory: {d}")
        if not os.access(d, os.W_OK):
            raise InputError(f"--prom-file: cannot write in {d}")
        if not self.prom_file.endswith(".prom"):
            self._warn(
                f"--prom-file {os.path.basename(self.prom_file)}: node_exporter's textfile collector "
                "reads *.prom files only"
            )

    def _serve(self, host: str, port: int) -> None:
        from tsm_tui.views.metrics_server import MetricsServer

        try:
            self._server = MetricsServer(host, port, self._render)
        except socket.gaierror as e:  # a host that does not resolve
            raise InputError(f"--metrics-host {host}: {e.strerror or e}") from None
        except OSError as e:
            raise InputError(f"--metrics-port {port}: cannot listen on {host}:{port}: {e.strerror or e}") from None

    def _render(self, accept: str) -> tuple[bytes, str]:
        """One scrape (the server's thread): the prebuilt families, formatted as asked."""
        from prometheus_client.exposition import choose_encoder

        encoder, ctype = choose_encoder(accept)
        return encoder(self.registry), ctype

    @property
    def port(self) -> int | None:
        return self._server.server_address[1] if self._server else None

    def _warn(self, text: str) -> None:
        warn(self.err, text)

    # -- feeding (the loop thread)
    def run(self, name: str, root: str) -> RunModel:
        m = self.runs.get(name)
        if m is None:
            m = self.runs[name] = RunModel(name, root)
        return m

    def update(self, up, loop, top: str) -> None:
        """One LiveUpdate of a LiveLoop (one run or every run of a directory):
        each batch, alert and recomputed check goes to its run's model."""
        if not up:
            return
        now = self.clock()
        touched: set[str] = set(up.new_runs)
        for b, name in zip(up.batches, up.batch_runs):
            touched.add(name)
            self.run(self._name(name), top).observe(
                b.source, b.records, b.backlog, getattr(b.reader, "name", None), now
            )
        for la in up.alerts:
            touched.add(la.run)
            self.run(self._name(la.run), top).alert(la.alert)
        for name, checks in up.run_checks.items():
            touched.add(name)
            self.run(self._name(name), top).set_checks(checks)
        if up.changed:
            touched |= set(loop.runs)
        for name in touched:
            r = loop.runs.get(name)
            if r is None:
                continue
            s = r.session
            reader = s.readers.get(s.primary) if s.primary else None
            self.run(self._name(name), top).from_monitor(s.monitor, s.primary, getattr(reader, "name", None))
        self._dirty = True

    def _name(self, name: str) -> str:
        if not name or name == ".":  # "." : the watched path's own files, in a directory of several runs
            return self.default_name
        return unique_label(f"{self.run_label}/{name}") if self.run_label else unique_label(name)

    def name_for(self, run: str, path: str) -> str:
        """The label of a run named ``run`` ("" for the watched path's own run) under ``path``."""
        return self._name(run) if run and run != "." else (self.run_label or run_name(path))

    def watch(self, path: str) -> None:
        """The views say what is watched: its own run's label."""
        self.default_name = self.run_label or run_name(path)

    def from_analysis(self, name: str, root: str, an) -> None:
        """A finished run (``--report``): its Monitor's alerts and checks."""
        m = self.run(name, root)
        for a in an.monitor.alerts:
            m.alert(a)
        m.set_checks(an.monitor.checks())
        readers = an.session.readers if an.session is not None else an.run.readers  # (channels too)
        reader = readers.get(an.run.primary)
        m.from_monitor(an.monitor, an.run.primary, getattr(reader, "name", None))
        self._dirty = True

    def publish(self, force: bool = False) -> bool:
        """Rebuild the families and write the file when due; True if it wrote."""
        now = self.clock()
        if not (force or (self._dirty and now - self._built_at >= MIN_WRITE) or now - self._built_at >= HEARTBEAT):
            return False
        snaps = {n: m.snapshot(now, self.following) for n, m in self.runs.items()}
        self._families = families(snaps)
        self._dirty = False
        self._built_at = now
        if self.prom_file:
            return self._write(now)
        return False

    def text(self) -> str:
        from prometheus_client import generate_latest

        return generate_latest(self.registry).decode("utf-8")

    def _write(self, now: float) -> bool:
        """The textfile, atomically and without following any link: the temp
        file is created by ``mkstemp`` in the same directory (``O_CREAT | O_EXCL |
        O_NOFOLLOW``, an unpredictable name, not ``*.prom``: the collector skips it),
        set to ``PROM_MODE``, then renamed over the final name. A rename replaces a
        symbolic link at the final name, it never writes through it: a link planted
        there (node_exporter's directory is shared by every job on a node) is
        replaced by our file and said once; its target is never touched."""
        assert self.prom_file is not None  # (called with a file)
        d, base = os.path.split(self.prom_file)
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=d)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                os.fchmod(f.fileno(), PROM_MODE)
                f.write(self.text())
            if os.path.islink(self.prom_file) and not self._link_said:
                self._link_said = True
                self._warn(
                    f"--prom-file: {self.prom_file} was a symbolic link: replaced by the exported file "
                    "(a link there is never written through)"
                )
            os.replace(tmp, self.prom_file)
        except OSError as e:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            if not self._write_failed:
                self._write_failed = True
                self._warn(f"--prom-file: cannot write {self.prom_file}: {e.strerror or e} (will retry)")
            return False
        if self._write_failed:
            self._write_failed = False
            self._warn(f"--prom-file: writing {self.prom_file} works again")
        self.writes += 1
        return True

    def close(self) -> None:
        """A last write (the final state), then the server stops."""
        if self.prom_file:
            self.publish(force=True)
        if self._server is not None:
            try:
                self._server.shutdown()
                self._server.server_close()
            except Exception:  # noqa: BLE001 - shutting down
                pass
            self._server = None
