"""``--on-alert CMD``: the run's incidents paged, a subscriber of the live loop
(views/outputs.py builds it).

CMD runs through the shell with an event's JSON on stdin, in a background thread
(``AlertHook``): one page per incident (a check at FAIL) and its resolution
(tsm_tui.views.incidents documents the ``alert`` / ``firing`` / ``resolved`` events
and ``--alert-cooldown``). A command is judged by its own exit (a background child
it leaves is not waited for), its stderr is read to a bound, and one still running
after 30 s is killed with its process group (tsm_tui.views.hookrun); a failing or
hanging command is reported on stderr and counted, never fatal. The history read at
the start is not paged (a restarted follower must not page again for an old problem).
"""

from __future__ import annotations

import json
import queue
import sys
import threading

from tsm_tui.core.errors import UsageError
from tsm_tui.core.flags import Flag, nonneg_float
from tsm_tui.core.options import Options
from tsm_tui.core.output import warn
from tsm_tui.core.sanitize import clean
from tsm_tui.views import hookrun
from tsm_tui.views.incidents import Incidents
from tsm_tui.views.subscriber import Subscriber

HOOK_TIMEOUT = 30.0
HOOK_QUEUE = 100
HOOK_EXIT_WAIT = 10.0  # seconds at exit for the queued pages to run (ours: below systemd's 90 s stop timeout)


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
        warn(self.err, text)

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
            assert r.returncode is not None  # (None only when it did not start, timed out or was cancelled)
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
            self._warn(
                f"--on-alert: exiting while the page for {_what(running)} was still running: "
                "its process group was ended"
            )
        if left:
            self._warn(
                f"--on-alert: exiting with {len(left)} page(s) not sent: "
                + "; ".join(_what(x) for x in left[:10])
                + (" ..." if len(left) > 10 else "")
            )


def _what(payload: dict) -> str:
    what = f"{payload.get('check')} at step {payload.get('step')}"
    if payload.get("event") not in (None, "alert"):
        what = f"{payload.get('event')} {what}"
    return what


class Pages(Subscriber):
    """The live loop's subscriber for ``--on-alert``: its updates through the incident
    policy (views/incidents.py) to the hook."""

    def __init__(self, cmd: str, cooldown: float) -> None:
        self.hook = AlertHook(cmd)
        self.incidents = Incidents(self.hook.submit, cooldown)
        self.live = False  # something past the history present at the start arrived

    #: its flags (the command line adds them to its parser and fills ``Options`` from them)
    FLAGS = (
        Flag(
            "--on-alert",
            "options.on_alert",
            "run CMD for each incident of the run: a page when a check fails, one when it resolves "
            "(event JSON on stdin)",
            metavar="CMD",
        ),
        Flag(
            "--alert-cooldown",
            "options.alert_cooldown",
            "--on-alert: one page per incident of a check; it resolves after SECONDS below FAIL, and "
            f"repeats within SECONDS are not paged (default {Options.alert_cooldown:g}; 0 pages every critical alert)",
            type=nonneg_float,
            metavar="SECONDS",
            default=Options.alert_cooldown,
        ),
    )

    @classmethod
    def check(cls, opts, view: str) -> None:
        """Pages are sent while following only: elsewhere the flag was silently ignored (a
        report is judged once, its exit code says FAIL; the TUI rings its bell)."""
        if opts.on_alert and view != "follow":
            how = {
                "report": "a report is judged once: its exit code is 1 when a check FAILs",
                "preflight": "a pre-flight check reads a config, no run",
                "tui": "the TUI rings its bell on a new FAIL",
            }.get(view, "")
            raise UsageError(
                f"--on-alert pages while following: add --follow ({how})" if how else "--on-alert needs --follow"
            )
        if opts.alert_cooldown != Options.alert_cooldown and not opts.on_alert:
            raise UsageError("--alert-cooldown spaces the pages of --on-alert: use it with --on-alert")

    @classmethod
    def wanted(cls, opts, view: str) -> bool:
        return view == "follow" and bool(opts.on_alert)

    @classmethod
    def from_options(cls, opts, root: str) -> "Pages":
        return cls(opts.on_alert, opts.alert_cooldown)

    def update(self, up, loop) -> None:
        # the backlog read at start is printed but not paged: a restart
        # of the follower must not page again for an old problem
        self.live = self.live or any(not b.backlog for b in up.batches)
        # a config or checkpoint written after the start is news (a late config
        # with no warm-up turns the LR check to FAIL with no new log line)
        from tsm_tui.analysis.live_open import caught_up  # (here: the parser reads this module's FLAGS)

        self.live = self.live or (caught_up(loop) and bool(up.changed))
        backlog = all(b.backlog for b in up.batches) if up.batches else not self.live
        if up.alerts or up.statuses:
            self.incidents.update(up.alerts, up.statuses, backlog)
        else:
            self.incidents.tick()

    def close(self) -> None:
        self.hook.close()
