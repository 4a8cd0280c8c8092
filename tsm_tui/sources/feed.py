"""Data feeds: where the live views get their records.

A feed runs its I/O off the UI thread and hands over batches through
``drain()`` (thread-safe, never blocks): the consumer (the TUI's timer, the
``--follow`` loop) pulls at its own pace and feeds a Session. Never one message
per log line.

``ReplayFeed`` plays a finished run (all at once, or at ``speed`` steps per
second for ``--replay`` / ``--demo``); the live tailer (tsm_tui.sources.tail.Tailer)
implements the same interface.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

from tsm_tui.core.frame import Frame
from tsm_tui.core.record import StepRecord
from tsm_tui.sources import reading
from tsm_tui.sources.base import SourceReader

MAX_CHANGES = 512  # changed paths kept between two drains; beyond: "*" (everything may have changed)
#: records waiting for the consumer before the producer pauses: memory stays bounded
#: when reading is faster than the detectors (a 5M-step replay held every Frame: 272 MiB)
MAX_QUEUED = 50_000


@dataclass
class Batch:
    source: str  # the file the records came from
    reader: SourceReader  # its reader (format name, priority, run_info, skipped counts)
    #: StepRecords; a finished file's replay also carries Frames (tsm_tui.core.frame)
    records: list = field(default_factory=list)
    #: read from the history present when watching started (not new data)
    backlog: bool = False


class Note(str):
    """A feed's note: its text, and the file it is about (``path``; None for the
    feed as a whole), so that a view of several runs can say which run."""

    path: str | None

    def __new__(cls, text: str, path: str | None = None) -> "Note":
        obj = super().__new__(cls, text)
        obj.path = path
        return obj


class Feed:
    """Base class: subclasses fill ``_out`` (a worker thread of their own, or the
    consumer's thread inside ``wait``: the live tailer)."""

    def __init__(self) -> None:
        self._out: deque[Batch] = deque()
        self._notes: deque[str] = deque(maxlen=200)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._changes: set[str] = set()
        self._queued = 0  # records in ``_out``
        self._space = threading.Condition(self._lock)
        self.finished = False  # no more data will come (replay done)
        #: set whenever records, notes or changes are waiting (or the feed finished):
        #: a consumer sleeps on it (``ready.wait(tick)``) instead of a fixed tick
        self.ready = threading.Event()
        #: the worker died: the reason, for the views (a feed never dies silently)
        self.error: str | None = None

    # -- consumer side -------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=type(self).__name__, daemon=True)
        self._thread.start()

    def wait(self, timeout: float) -> None:
        """Sleep until something waits to be drained (``ready``), or ``timeout``. A feed
        that reads in the consumer's thread (the Tailer) reads here."""
        self.ready.wait(timeout)

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        with self._space:
            self._space.notify_all()
        self.ready.set()  # a consumer asleep on ``ready`` wakes and sees the stop
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def drain(self) -> list[Batch]:
        """Everything produced since the last call (merged per source, in order)."""
        with self._lock:
            if not self._out:
                return []
            items = list(self._out)
            self._out.clear()
            self._queued = 0
            self._space.notify_all()
        merged: list[Batch] = []
        for b in items:
            if merged and merged[-1].source == b.source and merged[-1].backlog == b.backlog:
                merged[-1].records.extend(b.records)
            else:
                merged.append(b)
        return merged

    def drain_changes(self) -> set[str]:
        """Paths the file system reported as changed that are not followed logs
        (checkpoint directories, config files ...); ``"*"`` when too many to list."""
        with self._lock:
            ch, self._changes = self._changes, set()
        return ch

    def drain_notes(self) -> list[str]:
        """Human-readable notes ("train.log truncated: reading from the start"); each a
        ``Note``, whose ``path`` is the file it is about (None: the feed as a whole)."""
        with self._lock:
            notes = list(self._notes)
            self._notes.clear()
        return notes

    # -- producer side ---------------------------------------------------------
    def _put(self, source: str, reader: SourceReader, records: list[StepRecord], backlog: bool = False) -> None:
        """Queue records from the feed's own thread: it waits while MAX_QUEUED wait."""
        if not records:
            return
        with self._space:
            while self._queued > MAX_QUEUED and not self._stop.is_set():
                self._space.wait(0.5)  # backpressure: the consumer is behind
        self._append(source, reader, records, backlog)

    def _append(self, source: str, reader: SourceReader, records: list, backlog: bool = False) -> None:
        """Queue records without waiting (a feed read in the consumer's thread bounds
        its passes itself: ``Tailer.over_budget``)."""
        if not records:
            return
        n = sum(r.n if type(r) is Frame else 1 for r in records)
        with self._space:
            self._queued += n
            self._out.append(Batch(source, reader, records, backlog))
        self.ready.set()

    def _note(self, text: str, path: str | None = None) -> None:
        with self._lock:
            self._notes.append(Note(text, path))
        self.ready.set()

    def _change(self, path: str) -> None:
        with self._lock:
            if len(self._changes) < MAX_CHANGES:
                self._changes.add(path)
            else:
                self._changes = {"*"}
        self.ready.set()

    def _guarded(self, body) -> None:
        """Run the worker's body; an exception ends the feed with a reason the
        views show (never a silent dead thread)."""
        try:
            body()
        except Exception as e:  # noqa: BLE001 - reported, not swallowed
            self.error = f"{type(e).__name__}: {e}"
            self._note(f"reading stopped: {self.error}")
        finally:
            self.ready.set()

    def _run(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError


class ReplayFeed(Feed):
    """A finished run: every readable file, at once or at ``speed`` records/s.

    ``readers`` maps file path -> reader (from ``run_open.open_run``).
    """

    def __init__(self, readers: dict[str, SourceReader], speed: float | None = None) -> None:
        super().__init__()
        self.readers = readers
        self.speed = speed

    def _run(self) -> None:
        self._guarded(self._replay)

    def _replay(self) -> None:
        try:
            if self.speed is None:
                for path, reader in self.readers.items():
                    self._read_all(path, reader)
            else:
                self._paced()
        finally:
            self.finished = True
            self.ready.set()  # a consumer asleep on ``ready`` sees the end now, not at its next tick

    def _read_all(self, path: str, reader: SourceReader) -> None:
        chunk: list = []  # StepRecords and Frames (the columnar fast path)
        try:
            for item in reading.read_items(path, reader):
                chunk.append(item)
                if len(chunk) >= 4096 or type(item) is Frame:
                    self._put(path, reader, chunk)
                    chunk = []
                    if self._stop.is_set():
                        return
        except OSError as e:
            self._note(f"{path}: read error: {e.strerror or e}", path)
        self._put(path, reader, chunk)

    def _paced(self) -> None:
        # interleave all files by position; emit `speed` records per second in
        # small slices so the view moves smoothly
        iters = {p: reading.read_records(p, r) for p, r in self.readers.items()}
        tick = 0.05
        per_tick = max(1.0, (self.speed or 0.0) * tick)  # (speed is set: ``_replay``)
        budget = 0.0
        while iters and not self._stop.is_set():
            budget += per_tick
            n = int(budget)
            budget -= n
            for path in list(iters):
                out = []
                try:
                    for _ in range(n):
                        out.append(next(iters[path]))
                except StopIteration:
                    del iters[path]
                except OSError as e:
                    self._note(f"{path}: read error: {e.strerror or e}", path)
                    del iters[path]
                self._put(path, self.readers[path], out)
            time.sleep(tick)
