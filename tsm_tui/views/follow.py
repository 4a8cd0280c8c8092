"""Headless follow: ``tsm-watch RUN --follow [--json] [--on-alert CMD] [--poll S]``.

Tails the run (tsm_tui.sources.tail.Tailer), feeds a Session and prints every alert as
it happens, one line each, flushed at once, until SIGINT / SIGTERM (exit 0).

Text:  ``[critical] step 4312 loss_spike: <message> -> <first action>`` on
stdout; status changes and feed notes (truncation, rotation ...) as
``# ...`` lines on stderr.
JSON Lines (``--json``), all on stdout:
  ``{"event": "alert", "check", "severity", "step", "value", "baseline", "message", "actions"}``
  ``{"event": "status", "check", "status", "previous", "summary", "step"}``
  ``{"event": "source", "message", "run"}`` (``run``: the run the note is about,
  null for the feed as a whole)
Every event names its run (``"run"``); so does the ``--on-alert`` JSON. A run's
per-rank files feed its ranks check live (NaN on one rank, a diverging rank, a
straggler), printed like any other check's alerts.
``--on-alert CMD`` runs CMD (through the shell) with an event's JSON on
stdin, in a background thread: one page per incident (a check at FAIL), and
its resolution (tsm_tui.views.incidents documents the ``alert`` / ``firing``
/ ``resolved`` events and ``--alert-cooldown``). A command is judged by its own
exit (a background child it leaves is not waited for), its stderr is read to a
bound, and one still running after 30 s is killed with its process group
(tsm_tui.views.hookrun); a failing or hanging command is reported on stderr and
counted, never fatal.
``--prom-file`` / ``--metrics-port``: the verdicts as Prometheus metrics
(tsm_tui.views.prometheus), refreshed from every step of the loop.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading

from tsm_tui.analysis.engine import open_runs
from tsm_tui.analysis.live import LiveLoop
from tsm_tui.core.errors import EXIT_OK, EXIT_USAGE, InputError
from tsm_tui.core.options import Options
from tsm_tui.core.record import Alert
from tsm_tui.core.output import use_colour
from tsm_tui.core.sanitize import clean, json_safe, message, terminal_safe
from tsm_tui.analysis.session import Session
from tsm_tui.sources.runfiles import RunFiles
from tsm_tui.sources.tail import Tailer
from tsm_tui.views import hookrun, prometheus
from tsm_tui.views.incidents import Incidents

TICK = 1.0  # longest sleep between drains (the tailer wakes the loop when data arrive; LiveLoop.wait
#            wakes it sooner for a status, a stat fallback or held records that are due)
HOOK_TIMEOUT = 30.0
HOOK_QUEUE = 100
HOOK_EXIT_WAIT = 10.0  # seconds at exit for the queued pages to run (ours: below systemd's 90 s stop timeout)

_COLOURS = {"critical": "\x1b[31;1m", "warning": "\x1b[33m", "info": "\x1b[2m"}
_RESET = "\x1b[0m"


class AlertHook:
    """Runs ``--on-alert CMD`` for critical alerts, off the main loop."""

    def __init__(self, cmd: str, err=None) -> None:
        self.cmd = cmd
        self.err = err or sys.stderr
        self.q: queue.Queue = queue.Queue(maxsize=HOOK_QUEUE)
        self.ran = 0
        self.failed = 0
        self.dropped = 0
        self.timeout = HOOK_TIMEOUT
        self._current: dict | None = None  # the page being run
        self._cancel = threading.Event()  # set at exit: the page still running is ended
        self._t = threading.Thread(target=self._work, name="on-alert", daemon=True)
        self._t.start()

    def submit(self, payload: dict) -> None:
        try:
            self.q.put_nowait(payload)
        except queue.Full:
            self.dropped += 1
            self._warn("--on-alert: too many alerts waiting; this one was not sent")

    def _warn(self, text: str) -> None:
        try:
            self.err.write(message(f"tsm-watch: {text}") + "\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    def _work(self) -> None:
        while True:
            payload = self.q.get()
            if payload is None:
                return
            self._current = payload
            try:
                self._page(payload)
            except Exception as e:  # noqa: BLE001 - a hook never stops the monitor (nor this thread)
                self.failed += 1
                self._warn(f"--on-alert command could not be run for {_what(payload)}: {type(e).__name__}: {e}")
            self._current = None

    def _page(self, payload: dict) -> None:
        what = _what(payload)
        r = hookrun.run(self.cmd, json.dumps(payload).encode() + b"\n", self.timeout, self._cancel)
        if r.error is not None:
            self.failed += 1
            self._warn(f"--on-alert command could not run for {what}: {r.error}")
            return
        self.ran += 1
        if r.cancelled:
            self.failed += 1
            return  # (said by ``close``)
        if r.timed_out:
            self.failed += 1
            self._warn(f"--on-alert command timed out after {self.timeout:g}s for {what} (its process group was ended)")
            return
        if r.returncode != 0:
            self.failed += 1
            how = f"exit {r.returncode}" if r.returncode > 0 else f"killed by signal {-r.returncode}"
            tail = clean(r.last_line(), 200)
            self._warn(f"--on-alert command failed ({how}) for {what}" + (f": {tail}" if tail else ""))

    def close(self, wait: float = HOOK_EXIT_WAIT) -> None:
        """At exit: run the pages still queued for up to ``wait`` seconds; any page
        left unsent after that is named on stderr (never dropped without a word)."""
        try:
            self.q.put(None, timeout=wait)
        except queue.Full:
            pass
        self._t.join(wait)
        if not self._t.is_alive():
            return
        left = []
        running = self._current
        while True:
            try:
                x = self.q.get_nowait()
            except queue.Empty:
                break
            if x is not None:
                left.append(x)
        if running is not None:
            self._cancel.set()
            self.q.put_nowait(None)  # (drained above): the thread ends after the killed page
            self._t.join(hookrun.REAP + 1.0)
            self._warn(f"--on-alert: exiting while the page for {_what(running)} was still running: "
                       "its process group was ended")
        if left:
            self._warn(f"--on-alert: exiting with {len(left)} page(s) not sent: "
                       + "; ".join(_what(x) for x in left[:10]) + (" ..." if len(left) > 10 else ""))


def _what(payload: dict) -> str:
    what = f"{payload.get('check')} at step {payload.get('step')}"
    if payload.get("event") not in (None, "alert"):
        what = f"{payload.get('event')} {what}"
    return what


def alert_event(a: Alert, run: str | None) -> dict:
    """The ``--follow --json`` / ``--on-alert`` object of one alert."""
    d = {"event": "alert"}
    d.update(a.to_json())
    if run is not None:
        d["run"] = run
    return d


class Printer:
    def __init__(self, as_json: bool, out=None, err=None) -> None:
        self.json = as_json
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.colour = not as_json and use_colour(self.out)
        self.many = False  # several runs: text lines name the run

    def _emit(self, stream, line: str) -> None:
        # JSON keeps every character (as an escape); text loses C1 / bidi controls
        stream.write((json_safe(line) if self.json and stream is self.out else terminal_safe(line)) + "\n")
        stream.flush()

    def alert(self, a: Alert, run: str | None = None) -> None:
        if self.json:
            self._emit(self.out, json.dumps(alert_event(a, run), ensure_ascii=False))
            return
        sev = a.severity.value
        head = f"[{sev}]" + (f" {clean(run, 80)}:" if run and self.many else "") \
            + (f" step {a.step}" if a.step is not None else "") + f" {a.check}: "
        line = head + clean(a.message)
        if a.actions:
            line += " -> " + clean(a.actions[0])
        if self.colour:
            line = _COLOURS.get(sev, "") + line + _RESET
        self._emit(self.out, line)

    def status(self, check: str, status: str, previous: str, summary: str, step, run: str | None = None) -> None:
        if self.json:
            d = {"event": "status", "check": check, "status": status, "previous": previous, "summary": summary,
                 "step": step}
            if run is not None:
                d["run"] = run
            self._emit(self.out, json.dumps(d, ensure_ascii=False))
        else:
            where = f"{clean(run, 80)}: " if run and self.many else ""
            self._emit(self.err, f"# {where}{check}: {previous} -> {status}: {clean(summary)}")

    def source(self, text: str, run: str | None = None) -> None:
        if self.json:
            self._emit(self.out, json.dumps({"event": "source", "message": text, "run": run},
                                            ensure_ascii=False))
        else:
            where = f"{clean(run, 80)}: " if run and self.many else ""
            self._emit(self.err, message(f"# {where}{text}"))  # (notes name files: one cleaner for those)


def _loop(opts: Options, tailer: Tailer) -> LiveLoop:
    """One run (its files, configs, checkpoints), or every run under a directory
    that holds several (or none yet: runs appear as they start)."""
    path = os.path.abspath(opts.path)
    polling = tailer.poll_interval is not None
    if os.path.exists(path):
        runs = open_runs(path, opts.info, opts.config, allow_empty=True, only=opts.run)
        if len(runs) == 1 and (runs[0].readers or not os.path.isdir(path)):
            r = runs[0]
            session = Session(opts.settings, r.info)
            return LiveLoop(session, tailer, r.files_of, polling=polling, name=r.name, ranks=r.ranks)
        return LiveLoop.many(tailer, path, opts.settings, opts.info, opts.config, polling=polling, known=runs)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise InputError(f"no such file or directory: {opts.path} (nor its parent directory)")
    if os.path.splitext(path)[1]:  # a log file that does not exist yet
        files = RunFiles(parent, opts.info, opts.config)
        info, _ = files.read_info()
        return LiveLoop(Session(opts.settings, info), tailer, files, polling=polling,
                        name=os.path.basename(path))
    return LiveLoop.many(tailer, path, opts.settings, opts.info, opts.config, polling=polling)


def loop_caught_up(loop) -> bool:
    """The history present at the start has been read (the tailer says so)."""
    ev = getattr(loop.feed, "caught_up", None)
    return ev is None or ev.is_set()


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def main(opts: Options) -> int:
    printer = Printer(opts.json)
    hook = AlertHook(opts.on_alert) if opts.on_alert else None
    top = os.path.abspath(opts.path)
    incidents = Incidents(hook.submit, opts.alert_cooldown) if hook is not None else None
    exporter = None
    if opts.prom_file or opts.metrics_port is not None:
        exporter = prometheus.Exporter(opts.prom_file, opts.metrics_port, opts.metrics_host,
                                       run_label=opts.run_label)
    tailer = Tailer(opts.path, poll=opts.poll)
    loop = _loop(opts, tailer)
    if exporter is not None:
        exporter.watch(opts.path)
        for name in loop.runs:  # each run's heartbeat shows before its first record
            exporter.run(exporter.name_for(name, opts.path), top)

    stop = threading.Event()

    def _on_signal(signum, frame):
        stop.set()
        tailer.ready.set()

    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # not the main thread
            pass

    rc = EXIT_OK
    try:
        printer.source(tailer.describe())
        if exporter is not None and exporter.port is not None:
            printer.source(f"serving metrics on http://{_host(opts.metrics_host)}:{exporter.port}/metrics")
        loop.start()
        live = False
        while not stop.is_set():
            up = loop.step()
            printer.many = len(loop.runs) > 1  # text lines name the run once there are several
            for a, _backlog, run in up.alerts:
                printer.alert(a, run)
            if incidents is not None:
                # the backlog read at start is printed but not paged: a restart
                # of the follower must not page again for an old problem
                live = live or any(not b.backlog for b in up.batches)
                # a config or checkpoint written after the start is news (a late config
                # with no warm-up turns the LR check to FAIL with no new log line)
                live = live or (loop_caught_up(loop) and bool(up.changed))
                backlog = all(b.backlog for b in up.batches) if up.batches else not live
                if up.alerts or up.statuses:
                    incidents.update(up.alerts, up.statuses, backlog)
                else:
                    incidents.tick()
            if exporter is not None:
                exporter.update(up, loop, top)
                exporter.publish()
            for ev, run in zip(up.events, up.event_runs):
                printer.source(ev, run)
            for ch in up.statuses:
                printer.status(ch.check, ch.status.value, ch.previous.value, ch.summary, ch.step, ch.run)
            if up.error:
                printer.source(f"the tailer stopped: {up.error}")
                print(message(f"tsm-watch: reading the run stopped: {up.error}"), file=sys.stderr)
                rc = EXIT_USAGE
                break
            loop.wait(TICK)
    finally:
        loop.stop()
        if exporter is not None:
            exporter.close()
        for sig, h in old.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass
        if hook is not None:
            hook.close()
    return rc
