"""The live worker: drives the one LiveLoop off the UI thread and tells the app what changed.

A 1M-step history is seconds of detector work: the loop runs in a thread worker so the
UI keeps answering keys meanwhile. Each loop step's batches go into the plot stores
(the only state shared with the UI, under a lock held for one slice at a time), and
what changed is posted as messages (``views/tui/messages.py``): ``LiveData`` and
``ChecksChanged`` at most every ``MESSAGE_EVERY`` seconds (a status change at once),
alerts, revisions, notes and the end at once. Several runs post ``RunsUpdate``
(per-run checks and arrivals) instead of ``LiveData`` / ``ChecksChanged``.
"""

from __future__ import annotations

import os
import threading
from typing import Callable

import numpy as np

from textual.message import Message

from tsm_tui.analysis.live import LiveLoop
from tsm_tui.core.frame import Frame
from tsm_tui.core.record import Status
from tsm_tui.views.tui.messages import (
    AlertsRevised,
    ChecksChanged,
    FeedEnded,
    FeedNotes,
    LiveData,
    NewAlerts,
    RunsUpdate,
)
from tsm_tui.views.tui.series import SeriesStore

PUMP_SLICE = 2048  # records added to the plot store per lock hold
FRAME_SLICE = 1 << 18  # rows of Frames joined into one plot-store extend (one lock hold, ~30 ms)
#: longest sleep of the live worker between two loop steps: new data, an event, a status or
#: a stat fallback that is due, held records and a stop wake it sooner (LiveLoop.wait) ...
LIVE_WAIT = 1.0  # ... with an exporter (--prom-file / --metrics-port: its heartbeat)
LIVE_IDLE_WAIT = 30.0  # ... without (nothing else is due: each wake-up of a quiet run costs CPU)
LIVE_BUDGET = 1 << 18  # records per loop step: a long history reaches the screen in parts
MESSAGE_EVERY = 1.0  # s: LiveData / ChecksChanged posted at most this often (alerts and status changes at once;
#                     the status line is redrawn once a second, check reasons every REASONS_EVERY)


def written_at(batches, wall: float, history: bool = False) -> tuple[float, bool]:
    """When a run wrote the newest of these records (wall clock) and whether they were
    written while watching: the records' own timestamp when they carry one, else the
    arrival of live records, else (history read at the start, a finished run's
    replay: ``history``) the file's mtime."""
    live = not history and any(not b.backlog for b in batches)
    best = None
    for b in batches:
        last = b.records[-1] if b.records else None
        if last is None:
            continue
        if type(last) is Frame:
            col = last.get("time")
            v = float(col[-1]) if col is not None and len(col) else None
        else:
            v = last.time
        if v is not None and 1e9 < v < wall + 86400:  # an epoch timestamp (not seconds since the start)
            best = v if best is None else max(best, v)
    if best is not None:
        return best, live
    if live:
        return wall, True
    times = []
    for b in batches:
        try:
            times.append(os.stat(b.source).st_mtime)
        except OSError:
            pass
    return (max(times) if times else wall), False


class LiveBridge:
    """The live worker's state and its loop (:meth:`run`, in a thread): ``post`` hands a
    message to the app (thread-safe); ``stores`` / ``formats`` are read by the UI under
    ``lock``."""

    exporter = None  # --prom-file / --metrics-port (views/prometheus.py): fed each loop step

    def __init__(
        self,
        live: LiveLoop,
        post: Callable[[Message], object],  # (what it returns is not used: App.post_message's bool)
        *,
        mode: str,
        clock: Callable[[], float],
        wall: Callable[[], float],
        notes: list[str] | None = None,
    ) -> None:
        self.live = live
        self._post_message = post
        self.mode = mode  # "live" | "finished" | "replay"
        self.clock = clock
        self.wall = wall
        self._start_notes = list(notes or [])
        #: plot stores per source file, and per run its files' format names: written here, read by the UI
        self.stores: dict[str, SeriesStore] = {}
        self.formats: dict[str, dict[str, str]] = {}
        self.lock = threading.RLock()
        self.fed = 0  # records added to the plot stores so far
        self._written: float | None = None  # when the run wrote its newest record
        self._stop = threading.Event()
        self._posted_at: dict[str, float] = {}  # when each kind of message was last posted
        self._held: dict[str, Message] = {}  # ... and the newest one held back
        self._posted_statuses: list[Status] = []
        self._replay_ckpts: dict[str, list] = {}  # a replay's checkpoints, all of them
        self._runs_pending: tuple[dict, dict] = ({}, {})
        self._shared_seen: dict[str, tuple[int, int]] = {}
        self._runs_posted_at = -1e9

    def stop(self) -> None:
        self._stop.set()
        self.live.feed.ready.set()
        self.live.stop(timeout=1.0)

    def run(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """Drive the loop until it ends, :meth:`stop` or ``cancelled()``; a failure is
        posted as ``FeedEnded(error)``, never silent."""
        loop = self.live
        many = loop.top is not None
        try:
            if self._start_notes:
                self._post(FeedNotes(self._start_notes))
            loop.start()
            while not self._stop.is_set() and not cancelled():
                up = loop.step(budget=LIVE_BUDGET)
                if self.mode == "replay":
                    self._replay_checkpoints(loop, up.finished)
                if self.exporter is not None:
                    self.exporter.feed(up, loop)
                self._add_to_store(up.batches, up.batch_runs)
                if up.batches and not many:
                    w, live = written_at(up.batches, self.wall(), history=self.mode != "live")
                    self._written = w if self._written is None else max(self._written, w)
                    name, run = next(iter(loop.runs.items()))
                    s = run.session
                    self._post_held(
                        "data",
                        LiveData(self.fed, self.clock(), self._written, s.exit_code(), live, s.planned_steps(), name),
                    )
                elif up.batches:
                    self._post_held("data", LiveData(self.fed, self.clock()))
                if up.alerts:
                    self._post(NewAlerts([la.alert for la in up.alerts], [la.run for la in up.alerts]))
                if up.revised:
                    self._post(AlertsRevised([la.alert for la in up.revised], [la.run for la in up.revised]))
                if many:
                    self._runs_step(up, loop)
                elif up.checks is not None:
                    statuses = [c.status for c in up.checks]
                    self._post_held("checks", ChecksChanged(up.checks), urgent=statuses != self._posted_statuses)
                    self._posted_statuses = statuses
                self._flush_held()
                if up.notes:
                    self._post(FeedNotes(up.notes))
                if up.finished or up.error:
                    self._flush_held(now=True)  # the last data and checks before the end, never after
                    self._post(FeedEnded(up.error))
                    if up.error:
                        return
                if not up.batches or not loop.pending:
                    # data, a due status / stat fallback / held record and a stop wake it
                    # sooner (LiveLoop.wait); an exporter writes its heartbeat every second
                    wait = LIVE_WAIT if self.exporter is not None else LIVE_IDLE_WAIT
                    if self._held or any(self._runs_pending):
                        wait = min(wait, MESSAGE_EVERY)
                    loop.wait(wait)
        except Exception as e:  # noqa: BLE001 - shown on screen, never silent
            self._post(FeedEnded(f"{type(e).__name__}: {e}"))

    def _replay_checkpoints(self, loop: LiveLoop, finished: bool) -> None:
        """A replay shows what was known at the step it plays: the checkpoints saved by
        then (``Checkpoints @1500`` at step 253 read the future); all of them once it
        ended, as the report has them."""
        for name, run in loop.runs.items():
            s = run.session
            full = self._replay_ckpts.setdefault(name, list(s.info.checkpoints))
            last = s.last_step()
            known = full if finished else [c for c in full if last is not None and c[0] <= last]
            if known != s.info.checkpoints:
                s.set_checkpoints(known)

    def _runs_step(self, up, loop: LiveLoop) -> None:
        """Several runs: per-run checks and arrivals, posted at most every MESSAGE_EVERY
        (at once when a status moved)."""
        checks, arrivals = self._runs_pending
        checks.update(up.run_checks)
        now = self.clock()
        wall = self.wall()
        by_run: dict[str, list] = {}
        for b, name in zip(up.batches, up.batch_runs):
            by_run.setdefault(name, []).append(b)
        for name in set(up.batch_runs) | set(up.new_runs):
            s = loop.runs[name].session
            written, live = (
                written_at(by_run[name], wall, history=self.mode != "live") if name in by_run else (None, False)
            )
            prev = arrivals.get(name)
            if prev is not None and prev[2] is not None and (written is None or prev[2] > written):
                written = prev[2]
            arrivals[name] = (
                now,
                s.last_step(),
                written,
                live or bool(prev and prev[3]),
                s.planned_steps(),
                s.exit_code(),
            )
        shared = {k: v for k, v in loop.shared_spikes.items() if self._shared_seen.get(k) != v}
        urgent = bool(up.statuses or up.new_runs or up.finished or shared)
        if (checks or arrivals or shared) and (urgent or now - self._runs_posted_at >= MESSAGE_EVERY):
            self._runs_posted_at = now
            self._runs_pending = ({}, {})
            self._shared_seen.update(shared)
            self._post(RunsUpdate(checks, arrivals, shared))

    def _post(self, message: Message) -> None:
        if not self._stop.is_set():
            self._post_message(message)

    def _post_held(self, key: str, message: Message, urgent: bool = False) -> None:
        """Post at most every MESSAGE_EVERY seconds per kind (a job logging 10
        lines/s would otherwise wake the UI 15 times a second for a screen that
        is redrawn once); what is held is posted by ``_flush_held`` when due.
        ``urgent`` (a check's status moved) goes at once."""
        now = self.clock()
        if urgent or now - self._posted_at.get(key, -1e9) >= MESSAGE_EVERY:
            self._posted_at[key] = now
            self._held.pop(key, None)
            self._post(message)
        else:
            self._held[key] = message

    def _flush_held(self, now: bool = False) -> None:
        for key, message in list(self._held.items()):
            self._post_held(key, message, urgent=now)

    def _add_to_store(self, batches, runs: list[str]) -> None:
        """The step's batches (of these runs) into the plot stores (consecutive batches of
        one source are joined: see ``_slices``)."""
        i = 0
        while i < len(batches):
            b = batches[i]
            run = runs[i] if i < len(runs) else ""
            records = b.records
            j = i + 1
            while j < len(batches) and batches[j].source == b.source and batches[j].reader is b.reader:
                if j == i + 1:
                    records = list(records)
                records += batches[j].records
                j += 1
            i = j
            for part in _slices(records):
                with self.lock:
                    store = self.stores.get(b.source)
                    if store is None:
                        store = self.stores[b.source] = SeriesStore()
                    n = 0
                    for it in part:
                        if type(it) is Frame:
                            store.add_frame(it)
                            n += it.n
                        else:
                            store.add(it)
                            n += 1
                    self.formats.setdefault(run, {})[b.source] = getattr(b.reader, "name", "?")
                    self.fed += n
                if self._stop.is_set():
                    return


def _slices(items: list):
    """Parts of a batch for the plot store, one lock hold each: PUMP_SLICE records
    at a time; consecutive Frames of the same columns are joined (up to
    FRAME_SLICE rows), because what a Series keeps from one extend costs the
    same whatever its length (``cap`` buckets per level), so fewer, longer
    extends load a long history several times faster."""
    part: list = []
    frames: list = []
    rows = 0

    def joined():
        if len(frames) == 1:
            return frames[0]
        return Frame(
            np.concatenate([f.step for f in frames]),
            {k: np.concatenate([f.cols[k] for f in frames]) for k in frames[0].cols},
            {k: np.concatenate([f.extra[k] for f in frames]) for k in frames[0].extra} if frames[0].extra else None,
            frames[0].source,
        )

    for it in items:
        if type(it) is Frame:
            if part:
                yield part
                part = []
            if frames and (
                it.cols.keys() != frames[0].cols.keys()
                or (it.extra or {}).keys() != (frames[0].extra or {}).keys()
                or rows + it.n > FRAME_SLICE
            ):
                yield [joined()]
                frames, rows = [], 0
            if it.n >= FRAME_SLICE:
                for a in range(0, it.n, FRAME_SLICE):
                    yield [it.slice(a, min(it.n, a + FRAME_SLICE))]
                continue
            frames.append(it)
            rows += it.n
            continue
        if frames:
            yield [joined()]
            frames, rows = [], 0
        part.append(it)
        if len(part) >= PUMP_SLICE:
            yield part
            part = []
    if frames:
        yield [joined()]
    if part:
        yield part


__all__ = ["LiveBridge", "written_at", "MESSAGE_EVERY"]
