"""``--follow``'s own output, a subscriber of the live loop (views/outputs.py
builds it): every alert as it happens, one line each, flushed at once.

Text:  ``[critical] step 4312 loss_spike: <message> -> <first action>`` on
stdout; status changes and feed notes (truncation, rotation ...) as
``# ...`` lines on stderr.
JSON Lines (``--json``), all on stdout:
  ``{"event": "alert", "check", "severity", "step", "value", "baseline", "message", "actions"}``
  ``{"event": "status", "check", "status", "previous", "summary", "step"}``
  ``{"event": "source", "message", "run"}`` (``run``: the run the note is about,
  null for the feed as a whole)
Every event names its run (``"run"``); so does the ``--on-alert`` JSON.
"""

from __future__ import annotations

import json
import sys

from tsm_tui.core.output import use_colour
from tsm_tui.core.record import Alert
from tsm_tui.core.sanitize import clean, json_safe, message, terminal_safe
from tsm_tui.views.subscriber import Subscriber

_COLOURS = {"critical": "\x1b[31;1m", "warning": "\x1b[33m", "info": "\x1b[2m"}
_RESET = "\x1b[0m"


def alert_event(a: Alert, run: str | None) -> dict:
    """The ``--follow --json`` / ``--on-alert`` object of one alert."""
    d = {"event": "alert"}
    d.update(a.to_json())
    if run is not None:
        d["run"] = run
    return d


class Printer(Subscriber):
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
        head = (
            f"[{sev}]"
            + (f" {clean(run, 80)}:" if run and self.many else "")
            + (f" step {a.step}" if a.step is not None else "")
            + f" {a.check}: "
        )
        line = head + clean(a.message)
        if a.actions:
            line += " -> " + clean(a.actions[0])
        if self.colour:
            line = _COLOURS.get(sev, "") + line + _RESET
        self._emit(self.out, line)

    def status(self, check: str, status: str, previous: str, summary: str, step, run: str | None = None) -> None:
        if self.json:
            d = {
                "event": "status",
                "check": check,
                "status": status,
                "previous": previous,
                "summary": summary,
                "step": step,
            }
            if run is not None:
                d["run"] = run
            self._emit(self.out, json.dumps(d, ensure_ascii=False))
        else:
            where = f"{clean(run, 80)}: " if run and self.many else ""
            self._emit(self.err, f"# {where}{check}: {previous} -> {status}: {clean(summary)}")

    def source(self, text: str, run: str | None = None) -> None:
        if self.json:
            self._emit(self.out, json.dumps({"event": "source", "message": text, "run": run}, ensure_ascii=False))
        else:
            where = f"{clean(run, 80)}: " if run and self.many else ""
            self._emit(self.err, message(f"# {where}{text}"))  # (notes name files: one cleaner for those)

    # -- the live loop's subscriber
    # (no FLAGS of its own: ``--follow`` and ``--json`` are the command line's modes)

    @classmethod
    def wanted(cls, opts, view: str) -> bool:
        return view == "follow"

    @classmethod
    def from_options(cls, opts, root: str) -> "Printer":
        return cls(opts.json)

    def update(self, up, loop) -> None:
        self.many = len(loop.runs) > 1  # text lines name the run once there are several
        for a, _backlog, run in up.alerts:
            self.alert(a, run)
        for ev, run in zip(up.notes, up.note_runs):
            self.source(ev, run)
        for ch in up.statuses:
            self.status(ch.check, ch.status.value, ch.previous.value, ch.summary, ch.step, ch.run)
