"""Headless follow: ``tsm-watch RUN --follow [--json] [--on-alert CMD] [--poll S]``.

Tails the run (tsm_tui.tail.Tailer), feeds a Session and prints every alert as
it happens, one line each, flushed at once, until SIGINT / SIGTERM (exit 0).

Text:  ``[critical] step 4312 loss_spike: <message> -> <first action>`` on
stdout; status changes and feed notes (truncation, rotation ...) as
``# ...`` lines on stderr.
JSON Lines (``--json``), all on stdout:
  ``{"event": "alert", "check", "severity", "step", "value", "baseline", "message", "actions"}``
  ``{"event": "status", "check", "status", "previous", "summary", "step"}``
  ``{"event": "source", "message"}``
``--on-alert CMD`` runs CMD (through the shell) for each critical alert with
the alert's JSON on stdin, in a background thread; a failing or hanging
command (30 s timeout) is reported on stderr and counted, never fatal.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

from tsm_tui import cli
from tsm_tui.engine import InputError, apply_config_file, open_run
from tsm_tui.record import Alert, Severity
from tsm_tui.report import use_colour
from tsm_tui.sanitize import clean
from tsm_tui.session import Session
from tsm_tui.sources.checkpoints import find_checkpoints
from tsm_tui.tail import Tailer

TICK = 0.25  # longest sleep between drains (the tailer wakes the loop when data arrive)
CHECKPOINT_EVERY = 5.0  # seconds between checkpoint re-scans
HOOK_TIMEOUT = 30.0
HOOK_QUEUE = 100

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
            self.err.write(f"tsm-watch: {text}\n")
            self.err.flush()
        except (OSError, ValueError):
            pass

    def _work(self) -> None:
        while True:
            payload = self.q.get()
            if payload is None:
                return
            what = f"{payload.get('check')} at step {payload.get('step')}"
            try:
                p = subprocess.run(self.cmd, shell=True, input=json.dumps(payload).encode() + b"\n",
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=HOOK_TIMEOUT)
                self.ran += 1
                if p.returncode != 0:
                    self.failed += 1
                    tail = clean(p.stderr.decode("utf-8", "replace").strip().splitlines()[-1], 200) \
                        if p.stderr.strip() else ""
                    self._warn(f"--on-alert command failed (exit {p.returncode}) for {what}"
                               + (f": {tail}" if tail else ""))
            except subprocess.TimeoutExpired:
                self.ran += 1
                self.failed += 1
                self._warn(f"--on-alert command timed out after {HOOK_TIMEOUT:g}s for {what}")
            except OSError as e:
                self.failed += 1
                self._warn(f"--on-alert command could not run for {what}: {e.strerror or e}")

    def close(self, wait: float = 2.0) -> None:
        """Let a page in flight finish (briefly); never block the exit for long."""
        try:
            self.q.put_nowait(None)
        except queue.Full:
            pass
        self._t.join(wait)


class Printer:
    def __init__(self, as_json: bool, out=None, err=None) -> None:
        self.json = as_json
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.colour = not as_json and use_colour(self.out)

    def _emit(self, stream, line: str) -> None:
        stream.write(line + "\n")
        stream.flush()

    def alert(self, a: Alert) -> None:
        if self.json:
            d = {"event": "alert"}
            d.update(a.to_json())
            self._emit(self.out, json.dumps(d, ensure_ascii=False))
            return
        sev = a.severity.value
        head = f"[{sev}]" + (f" step {a.step}" if a.step is not None else "") + f" {a.check}: "
        line = head + clean(a.message)
        if a.actions:
            line += " -> " + clean(a.actions[0])
        if self.colour:
            line = _COLOURS.get(sev, "") + line + _RESET
        self._emit(self.out, line)

    def status(self, check: str, status: str, previous: str, summary: str, step) -> None:
        if self.json:
            self._emit(self.out, json.dumps({"event": "status", "check": check, "status": status,
                                             "previous": previous, "summary": summary, "step": step},
                                            ensure_ascii=False))
        else:
            self._emit(self.err, f"# {check}: {previous} -> {status}: {clean(summary)}")

    def source(self, message: str) -> None:
        if self.json:
            self._emit(self.out, json.dumps({"event": "source", "message": message}, ensure_ascii=False))
        else:
            self._emit(self.err, f"# {clean(message)}")


def _prepare(args, info):
    """The run's root and config; an empty or not-yet-existing run dir is fine."""
    path = os.path.abspath(args.path)
    if os.path.exists(path):
        run = open_run(path, info, args.config, allow_empty=True)
        return run.root
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise InputError(f"no such file or directory: {args.path} (nor its parent directory)")
    if args.config:
        apply_config_file(info, args.config)
    # not there yet: a directory-to-be unless it is named like a log file
    return parent if os.path.splitext(path)[1] else path


def main(args) -> int:
    settings = cli.settings_from(args)
    info = cli.info_from(args)
    root = _prepare(args, info)
    session = Session(settings, info)
    printer = Printer(bool(args.json))
    hook = AlertHook(args.on_alert) if getattr(args, "on_alert", None) else None
    tailer = Tailer(args.path, poll=getattr(args, "poll", None))

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

    from tsm_tui.monitor import Monitor

    previous = {c.id: c.status.value for c in Monitor(settings, info).checks()}
    checkpoints = list(info.checkpoints or [])
    next_ckpt = time.monotonic() + CHECKPOINT_EVERY
    try:
        printer.source(tailer.describe())
        tailer.start()
        while not stop.is_set():
            fed = False
            for batch in tailer.drain():
                fed = True
                for a in session.feed(batch.source, batch.records, batch.reader):
                    printer.alert(a)
                    # the backlog read at start is printed but not paged: a restart
                    # of the follower must not page again for an old problem
                    if hook is not None and not batch.backlog and a.severity == Severity.CRITICAL:
                        d = {"event": "alert"}
                        d.update(a.to_json())
                        hook.submit(d)
            for ev in tailer.drain_events():
                printer.source(ev)
            now = time.monotonic()
            if now >= next_ckpt:
                next_ckpt = now + CHECKPOINT_EVERY
                try:
                    found = find_checkpoints(root) if os.path.isdir(root) else []
                except OSError:
                    found = checkpoints
                if found != checkpoints:
                    checkpoints = found
                    session.set_checkpoints(found)
                    fed = True
            if fed and session.monitor is not None:
                mon = session.monitor
                step = mon.state.last_step
                for c in mon.checks():
                    st = c.status.value
                    if previous.get(c.id) != st:
                        printer.status(c.id, st, previous.get(c.id, "SKIP"), c.summary, step)
                        previous[c.id] = st
            # sleep until the tailer has something (or a tick passes)
            tailer.ready.wait(TICK)
            tailer.ready.clear()
    finally:
        tailer.stop()
        for sig, h in old.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass
        if hook is not None:
            hook.close()
    return cli.EXIT_OK
