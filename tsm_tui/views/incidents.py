"""Pages for ``--on-alert``: one per incident, a resolution when it is over.

An *incident* is one (run, check) at FAIL. Events sent to the hook (JSON on
stdin, one invocation each):

* ``{"event": "alert", ...}``: a critical alert, with today's fields (check,
  severity, step, value, baseline, message, actions) plus ``run``. When the
  alert is what turned its check to FAIL it opens the incident and also
  carries ``"lifecycle": "firing"``, ``incident``, ``status`` and ``summary``:
  that is the incident's one page. Further critical alerts of a check whose
  incident is open (or that was paged less than the cooldown ago) are not
  sent (they are still printed).
* ``{"event": "firing", "run", "check", "status": "FAIL", "previous",
  "summary", "step", "actions", "incident"}``: a check went to FAIL without a
  critical alert of its own in the same pass (e.g. a FAIL found at the end of
  the history, or after a config change).
* ``{"event": "resolved", "run", "check", "status", "summary", "step",
  "incident", "duration_s", "flaps"}``: the check stayed below FAIL for the
  cooldown. Going back to FAIL within the cooldown continues the incident (a
  flap, counted) and pages nothing, so a check flapping between WARN and FAIL
  pages once, not twenty times. A critical alert that opens no incident
  (its check is not at FAIL) is paged at most once per cooldown per check.

``cooldown`` 0 keeps the old behaviour (every critical alert is paged) and
resolves at once. What was read from the history present at the start opens
incidents silently: a restarted follower does not page again for an old
problem, but does resolve it (no page either, as none was sent).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tsm_tui.core.record import Severity, Status


@dataclass
class Incident:
    id: str
    started: float
    paged: bool
    step: int | None
    resolving_since: float | None = None
    flaps: int = 0
    last: tuple | None = None  # (status, summary, step) when it went below FAIL


class Incidents:
    def __init__(self, send, cooldown: float = 300.0, clock=time.time) -> None:
        self.send = send  # callable(dict)
        self.cooldown = cooldown
        self.clock = clock
        self.open: dict[tuple[str, str], Incident] = {}
        self.last_page: dict[tuple[str, str], float] = {}
        self.count = 0
        self.suppressed = 0
        #: (run, check) -> the actions of its newest alert that had some (a FAIL that
        #: comes without a critical alert of its own still pages what to do)
        self.actions: dict[tuple[str, str], list[str]] = {}

    def _recent(self, key, now) -> bool:
        t = self.last_page.get(key)
        return self.cooldown > 0 and t is not None and now - t < self.cooldown

    def _page(self, key, payload: dict, now: float) -> None:
        self.last_page[key] = now
        self.send(payload)

    def update(self, alerts, statuses, backlog: bool) -> None:
        """One LiveUpdate: its new alerts ((alert, from_backlog, run) each) and
        status changes (each with its ``run``)."""
        now = self.clock()
        firing = {(s.run, s.check): s for s in statuses if s.status == Status.FAIL and s.previous != Status.FAIL}
        opened: set[tuple[str, str]] = set()
        for a, from_backlog, run in alerts:
            if a.actions:
                self.actions[(run, a.check)] = list(a.actions)
            if a.severity != Severity.CRITICAL:
                continue
            key = (run, a.check)
            d = {"event": "alert"}
            d.update(a.to_json())
            if run:
                d["run"] = run
            if key in firing and key not in opened and key not in self.open:
                ch = firing[key]
                new = self._open(key, a.step, now, paged=not from_backlog)
                opened.add(key)
                if new.paged:
                    d.update(
                        {"lifecycle": "firing", "incident": new.id, "status": ch.status.value, "summary": ch.summary}
                    )
                    self._page(key, d, now)
                continue
            if from_backlog:
                continue
            if self.cooldown > 0 and (key in self.open or self._recent(key, now)):
                self.suppressed += 1
                continue
            self._page(key, d, now)
        for s in statuses:
            run = s.run
            key = (run, s.check)
            inc = self.open.get(key)
            if s.status == Status.FAIL:
                if key in opened:
                    continue
                if inc is not None:
                    if inc.resolving_since is not None:
                        inc.resolving_since = None
                        inc.flaps += 1
                    continue
                inc = self._open(key, s.step, now, paged=not backlog)
                if inc.paged:
                    self._page(
                        key,
                        {
                            "event": "firing",
                            "run": run,
                            "check": s.check,
                            "status": s.status.value,
                            "previous": s.previous.value,
                            "summary": s.summary,
                            "step": s.step,
                            "actions": self.actions.get(key, []),
                            "incident": inc.id,
                        },
                        now,
                    )
            elif inc is not None and inc.resolving_since is None:
                inc.resolving_since = now
                inc.last = (s.status.value, s.summary, s.step)
        self.tick(now)

    def _open(self, key, step, now, paged: bool) -> Incident:
        self.count += 1
        inc = Incident(f"{key[0]}/{key[1]}/{int(now)}", now, paged, step)
        self.open[key] = inc
        return inc

    def tick(self, now: float | None = None) -> None:
        """Resolve the incidents whose check stayed below FAIL for the cooldown."""
        now = self.clock() if now is None else now
        for key, inc in list(self.open.items()):
            if inc.resolving_since is None or now - inc.resolving_since < self.cooldown:
                continue
            del self.open[key]
            if not inc.paged:
                continue
            status, summary, step = inc.last or ("PASS", "", None)
            self.send(
                {
                    "event": "resolved",
                    "run": key[0],
                    "check": key[1],
                    "status": status,
                    "summary": summary,
                    "step": step,
                    "incident": inc.id,
                    "duration_s": round(now - inc.started, 3),
                    "flaps": inc.flaps,
                }
            )
