"""What the live worker (``views/tui/bridge.py``) tells the app, as Textual messages.

``LiveData`` and ``ChecksChanged`` are coalesced (a newer one replaces an older one
still queued); alerts, revisions, notes and the end are never dropped.
"""

from __future__ import annotations

from textual.message import Message

from tsm_tui.core.record import Alert, CheckResult


class LiveData(Message):
    """Records were fed: ``total`` so far (a newer message replaces an older one); ``run``:
    the run the rest is about (one run), None (several runs: ``RunsUpdate`` says it per run)."""

    def __init__(
        self,
        total: int,
        at: float,
        written: float | None = None,
        exit_code: int | None = None,
        live: bool = True,
        planned: int | None = None,
        run: str | None = None,
    ) -> None:
        super().__init__()
        self.total, self.at, self.run = total, at, run
        #: wall clock: when the run wrote the newest record so far (``bridge.written_at``)
        self.written = written
        #: the exit code the run's tracker recorded (Session.exit_code), None while none did
        self.exit_code = exit_code
        #: written while watching (else history read at the start, or a replay)
        self.live = live
        #: the steps the run's config plans (Session.planned_steps), None while nothing says
        self.planned = planned

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LiveData)


class NewAlerts(Message):
    """Alerts new for the run, in order (never coalesced); ``runs``: the run of each."""

    def __init__(self, alerts: list[Alert], runs: list[str] | None = None) -> None:
        super().__init__()
        self.alerts = alerts
        self.runs = runs or [""] * len(alerts)


class AlertsRevised(Message):
    """Alerts said before that read differently now (a recovered spike's onset
    alert without its conditional rollback); matched by identity, never coalesced."""

    def __init__(self, alerts: list[Alert], runs: list[str]) -> None:
        super().__init__()
        self.alerts = alerts
        self.runs = runs


class RunsUpdate(Message):
    """Several runs: what changed per run since the last one (checks recomputed,
    records arrived: run -> (time, last step, when the run wrote them, live, planned
    steps, exit code), loss spikes shared with other runs: run -> (step, other runs))."""

    def __init__(
        self,
        checks: dict[str, list[CheckResult]],
        arrivals: dict[str, tuple],
        shared: dict[str, tuple[int, int]] | None = None,
    ) -> None:
        super().__init__()
        self.checks, self.arrivals, self.shared = checks, arrivals, shared or {}


class ChecksChanged(Message):
    """The checks as recomputed (a newer message replaces an older one)."""

    def __init__(self, checks: list[CheckResult]) -> None:
        super().__init__()
        self.checks = checks

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ChecksChanged)


class FeedNotes(Message):
    """Notes about the files (truncated, rotated, unreadable ...)."""

    def __init__(self, notes: list[str]) -> None:
        super().__init__()
        self.notes = notes


class FeedEnded(Message):
    """The feed finished (everything drained, the monitor finalized), or its
    worker died (``error``: shown, never silent)."""

    def __init__(self, error: str | None = None) -> None:
        super().__init__()
        self.error = error


__all__ = ["LiveData", "NewAlerts", "AlertsRevised", "RunsUpdate", "ChecksChanged", "FeedNotes", "FeedEnded"]
