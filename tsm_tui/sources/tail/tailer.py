"""The live tailer: every record a running job writes, exactly once.

``Tailer(path)`` follows a log file or a run directory and hands over batches
through the ``Feed`` interface (``wait`` / ``drain`` / ``drain_notes`` /
``drain_changes`` / ``stop``). *File system events are hints, the file is the
truth*: a pass reads each followed file from its saved offset to EOF, on every
event and on a periodic ``stat`` pass anyway. This module holds the schedule of
the passes and the thread that makes them (the other jobs: ``tail/__init__.py``).
I/O errors are counted and reported as notes, never raised; memory is bounded (no
record is stored, the partial line is capped, the queue is bounded).
"""

from __future__ import annotations

import os
import threading
import time

from tsm_tui.sources import lines as _lines
from tsm_tui.sources.base import SourceReader
from tsm_tui.sources.feed import MAX_QUEUED, Feed
from tsm_tui.sources.tail import rotation
from tsm_tui.sources.tail.discovery import Discovery
from tsm_tui.sources.tail.followed import FollowedFile
from tsm_tui.sources.tail.mounts import filesystem_type, is_network_fs
from tsm_tui.sources.tail.paths import close_fd
from tsm_tui.sources.tail.wakeups import Wakeups

MAX_RETIRED = 256  # rotated-away files kept open (to recognise them under their new name)
MAX_OPEN = 256  # followed files held open at once; the idle rest is reopened when it changes
RESCAN_MIN_GAP = 0.25  # seconds between two event-driven directory scans
RESCAN_SAFETY = 30.0  # s between two walks of the tree when inotify reports new files
RESCAN_COST_FACTOR = 50  # a walk that takes t seconds waits at least 50 t for the next one (<= 2% of a core)
BUSY_GAP = 0.1  # s between two event-driven passes while writes come faster than one per
#                 BUSY_GAP on average: a job logging 100 lines/s costs 10 passes/s, not one per write
BUSY_BURST = 4  # ... but up to this many passes in a row are made at once (a token bucket refilled
#                 at one pass per BUSY_GAP): the line after a tqdm redraw or a TensorBoard flush
#                 is read at once, not 50-100 ms later (ours)
CHANGE_SETTLE = 0.05  # s a pass waits for the rest of a group of config / checkpoint writes (ours)
QUIET_AFTER = 60.0  # s without new bytes in any followed file: the run is quiet ...
QUIET_SAFETY = 5.0  # s ... and the stat pass (the net under inotify) runs this often, not every second


class Tailer(Feed):
    """Follow a log file or a run directory; see the module docstring.

    Threads: **the consumer's thread makes every pass**, inside ``wait(timeout)``: it
    sleeps on the inotify descriptor (or its own period), then reads. ``LiveLoop``
    calls ``wait`` between its steps, so one thread is woken per write (two threads
    handing the records and the interpreter lock to each other cost a wake-up each:
    RESULTS.md 7d), reading never races the detectors, and no I/O happens on a UI
    thread. A pass stops reading once MAX_QUEUED records wait (``over_budget``: a
    file's history, a burst); the consumer drains them and the next ``wait`` goes on
    at once, so memory stays bounded without blocking the thread that must drain.
    Which thread reads is fixed when the tailer starts (``start_thread``) and never
    changes."""

    def __init__(self, path: str, *, poll: float | None = None, interval: float = 1.0) -> None:
        super().__init__()
        self.path = os.path.abspath(path)
        self.interval = max(0.01, float(interval))
        self.forced_poll = poll
        # network filesystems (NFS, Lustre, GPFS, CIFS, sshfs, BeeGFS, Ceph, 9p ...) get no
        # inotify events for other hosts' writes: found in /proc/self/mountinfo and polled
        # (``poll=SECONDS`` forces polling anywhere)
        self.fstype = filesystem_type(self.path)
        self.network = is_network_fs(self.fstype)
        self.poll_interval: float | None = None
        if poll is not None:
            self.poll_interval = max(0.01, float(poll))
        elif self.network:
            self.poll_interval = self.interval
        self.mode = "polling" if self.poll_interval is not None else "inotify"
        self.files: dict[str, FollowedFile] = {}
        self.retired: list[tuple[int, tuple[int, int], str]] = []  # (fd, dev_ino, logical path)
        #: segments read as history, rotated generations and copies read since (never read again)
        self.retired_ids = rotation.ReadIds()
        self.errors = 0
        self.read_bytes = 0
        self.active_at = -1e9  # the last new bytes read from any followed file (the history is not new)
        #: set once the files present at start have been read to their end
        self.caught_up = threading.Event()
        self.stopping = self._stop
        self.discovery = Discovery(self)
        self.wakeups = Wakeups(self)
        # the schedule of the passes
        self._rescan_every = max(2.0, 2 * self.interval)
        if self.poll_interval is not None:
            self._rescan_every = max(self._rescan_every, self.poll_interval)
        self._last_scan = -1e9
        self._scan_cost = 0.0
        self._passed = 0.0
        self._tokens, self._tokens_at = float(BUSY_BURST), 0.0  # passes that may be made at once (_busy_gap)
        self._more = True  # pass at once: the first pass, or the last one stopped at the queue's bound
        self._pass_lock = threading.RLock()  # one pass at a time; stop() cleans up outside a pass

    # -- consumer side ------------------------------------------------------------
    def describe(self) -> str:
        fs = self.fstype or "unknown fs"
        if self.poll_interval is None:
            return f"watching {self.path} ({fs}, inotify + stat every {self.interval:g}s)"
        why = "forced" if self.forced_poll is not None else f"network filesystem {fs}"
        return f"watching {self.path} (polling every {self.poll_interval:g}s: {why})"

    def start(self) -> None:
        """Nothing runs yet: the consumer's thread makes the passes in ``wait``."""

    def start_thread(self) -> None:
        """For a consumer that only drains (tests, benches): a thread of the tailer's
        own makes the passes, pausing while MAX_QUEUED records wait to be drained."""
        self._thread = threading.Thread(target=self._drive, name=type(self).__name__, daemon=True)
        self._thread.start()

    def wait(self, timeout: float) -> None:
        """Wait up to ``timeout`` for something to drain, making the passes meanwhile
        in the caller's thread: a change (or this tailer's own period) wakes it, a pass
        reads what is new. Returns early once something waits to be drained."""
        if self._thread is not None:  # (``start_thread``: that thread reads)
            self.ready.wait(timeout)
            return
        if self.ready.is_set():
            return
        end = time.monotonic() + timeout
        while True:
            # a pass that found nothing (the safety look at a quiet run) is no reason
            # to return: only something to drain, a stop or the caller's deadline is
            self._step(max(0.0, end - time.monotonic()))
            if self.ready.is_set() or self._stop.is_set() or time.monotonic() >= end - 0.001:
                return

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self.wakeups.poke()
        super().stop(timeout)
        if self._pass_lock.acquire(timeout=timeout):  # not inside a pass any more
            try:
                self._cleanup()
            finally:
                self._pass_lock.release()

    def wake(self) -> None:
        """Ask for a pass now (tests, or a caller that knows something changed)."""
        self.wakeups.rescan.set()
        self.wakeups.poke()

    # -- what the followed files, discovery and the wake-ups call -------------------
    def put(self, source: str, reader: SourceReader, records: list) -> None:
        self._append(source, reader, records, backlog=not self.caught_up.is_set())

    def note(self, text: str, path: str | None = None) -> None:
        self._note(text, path)

    def change(self, path: str) -> None:
        self._change(path)

    def followed(self, path: str) -> bool:
        return path in self.files

    def over_budget(self) -> bool:
        """MAX_QUEUED records wait to be drained: stop reading, pass again at once
        after the consumer drained them."""
        if self._queued > MAX_QUEUED:
            self._more = True
            return True
        return False

    def follow(self, path: str, reader: SourceReader) -> FollowedFile:
        f = self.files[path] = FollowedFile(path, reader, self)
        return f

    def io_error(self, f: FollowedFile | None, path: str, e: OSError, what: str) -> None:
        self.errors += 1
        msg = f"{path}: {what}: {e.strerror or e}"
        if f is not None:
            if f.error == msg:
                return  # said once; counted every time
            f.error = msg
        self._note(msg, path)

    def file_failed(self, f: FollowedFile | None, path: str, e: Exception) -> None:
        """A reader (or anything else) raised on one file: count it as a skip of
        that file, say so once, keep following every file (never let the pass die
        while the views keep saying "following")."""
        self.errors += 1
        why = _lines.reader_error(e)
        if f is not None:
            f.reader.skip(why)
            msg = f"{path}: {why}: skipped what could not be read, still following"
            if f.error == msg:
                return
            f.error = msg
        else:
            msg = f"{path}: {why}: not followed"
        self._note(msg, path)

    def retire(self, fd: int, dev_ino: tuple[int, int], path: str) -> None:
        """Keep a rotated-away file open: met under its new name, it is known."""
        self.retired.append((fd, dev_ino, path))

    def known_ids(self) -> set[tuple[int, int]]:
        ids = {f.dev_ino for f in self.files.values() if f.dev_ino is not None and not f.gone}
        ids.update(di for _, di, _ in self.retired)
        ids.update(self.retired_ids)
        return ids

    def unread(self, sibs: list[rotation.Sibling]) -> list[rotation.Sibling]:
        """The siblings neither followed, nor held as rotated files, nor read already."""
        held = {di for _, di, _ in self.retired}
        held.update(g.dev_ino for g in self.files.values() if g.fd is not None and g.dev_ino is not None)
        return [s for s in sibs if s.id not in held and not (s.id in self.retired_ids and self.retired_ids.same(s))]

    def held_heads(self) -> set[bytes]:
        out = set()
        for fd, _, _ in self.retired:
            try:
                out.add(os.pread(fd, rotation.HEAD, 0))
            except OSError:
                pass
        return out

    # -- the passes -----------------------------------------------------------------
    def _drive(self) -> None:
        """``start_thread``'s loop: the passes, paced like the consumer's."""
        try:
            while not self._stop.is_set() and self.error is None:
                with self._space:
                    while self._queued > MAX_QUEUED and not self._stop.is_set():
                        self._space.wait(0.5)  # backpressure: the consumer is behind
                self._step(None)
        finally:
            self.ready.set()

    def _step(self, timeout: float | None) -> None:
        """Wait up to ``timeout`` (None: this tailer's own period) for a change, then
        make a pass. A pass reads at most about MAX_QUEUED records ahead of the
        consumer; after one that stopped there, the next step passes at once."""
        with self._pass_lock:
            if self._stop.is_set():
                return
            if self.error is not None:
                self._stop.wait(timeout or 0.5)  # the consumer reports it; never a busy loop
                return
            try:
                if not self._more:
                    own = self._own_wait()
                    woke = self.wakeups.sleep(own if timeout is None else min(timeout, own))
                    if self._stop.is_set():
                        return
                    if woke:
                        self._busy_gap()
                    elif timeout is not None and timeout < own and time.monotonic() - self._passed < own:
                        return  # the caller's deadline (a status, a held record), not ours
                self._pass()
            except Exception as e:  # noqa: BLE001 - the feed ends with its reason (never a silent stop)
                self.error = f"{type(e).__name__}: {e}"
                self._note(f"reading stopped: {self.error}")
                self.ready.set()

    def _pass(self) -> bool:
        """One look at the tree and every followed file; False when stopped midway."""
        now = time.monotonic()
        self._more = False
        wk = self.wakeups
        if self.poll_interval is None:
            wk.ensure()
        # with inotify, new files announce themselves (created / moved): the periodic
        # walk is a safety net; polling walks every period. Either way the walk is
        # spaced so that it costs at most ~2% of a core on a big tree
        self._read_events()
        if self._changes and not self._stop.is_set():
            # a config, a checkpoint or a new file changed (not a followed log's append):
            # such writes come in groups (config.json then training_args.json, a
            # checkpoint's files); let the group land so that it is applied as one
            self._stop.wait(CHANGE_SETTLE)
            self._read_events()
        every = max(
            self._rescan_every if self.poll_interval is not None or not wk.watching else RESCAN_SAFETY,
            self._scan_cost * RESCAN_COST_FACTOR,
        )
        soon = wk.rescan_soon and now - self._last_scan >= max(RESCAN_MIN_GAP, self._scan_cost * 4)
        if soon or wk.rescan.is_set() or now - self._last_scan >= every:
            wk.rescan.clear()
            wk.rescan_soon = False
            self._last_scan = now
            self._scan()
            self._scan_cost = time.monotonic() - now
        wk.wake.clear()
        for f in list(self.files.values()):
            if self._stop.is_set():
                return False
            try:
                f.poll()
            except Exception as e:  # noqa: BLE001 - one file's failure is that file's
                self.file_failed(f, f.path, e)
        self._park_idle()
        if not self.caught_up.is_set() and not self._more:
            self.caught_up.set()  # the history present at start has been queued
            self.ready.set()
        self._passed = time.monotonic()
        return True

    def _read_events(self) -> None:
        self.wakeups.read_events()

    def _scan(self) -> None:
        self._prune_retired()
        self.discovery.scan()

    def _own_wait(self) -> float:
        """How long the next sleep may last: the stat period (longer once the run is
        quiet), shorter when a rate-limited walk is due."""
        passed = self._passed
        wk = self.wakeups
        wait = self.poll_interval if self.poll_interval is not None else self.interval
        if (
            self.poll_interval is None
            and wk.ino is not None
            and not wk.ino.full
            and passed - self.active_at > QUIET_AFTER
        ):
            # a quiet run: every change wakes us through inotify; the stat pass is
            # only the net for a missed event, and each wake-up costs CPU
            wait = max(wait, QUIET_SAFETY)
        if wk.rescan_soon:  # a new file was announced while walks were rate-limited:
            # walk as soon as allowed, not after the next event or the safety period
            wait = min(wait, max(0.0, self._last_scan + max(RESCAN_MIN_GAP, self._scan_cost * 4) - passed))
        return wait

    def _busy_gap(self) -> None:
        """Woken by a change: writes coming faster than one per BUSY_GAP / 2 get their
        passes spaced out (one pass reads them all). Slower writes get a pass each at
        once: no timed sleep, whose wake-up costs more than the pass (a line written in
        pieces waits as a partial line for its rest, whose own event wakes us)."""
        now = time.monotonic()
        self._tokens = min(BUSY_BURST, self._tokens + (now - self._tokens_at) / BUSY_GAP)
        self._tokens_at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return
        self._stop.wait((1.0 - self._tokens) * BUSY_GAP)
        self._tokens, self._tokens_at = 0.0, time.monotonic()

    def _park_idle(self) -> None:
        """At most MAX_OPEN files are held open: the longest idle ones are closed
        (their offsets kept) and reopened when they change."""
        held = [f for f in self.files.values() if f.fd is not None]
        if len(held) <= MAX_OPEN:
            return
        held.sort(key=lambda f: f.active_at)
        for f in held[: len(held) - MAX_OPEN]:
            f.close()
            f.parked = True

    def _prune_retired(self) -> None:
        keep = []
        for fd, di, src in self.retired:
            try:
                alive = os.fstat(fd).st_nlink > 0
            except OSError:
                alive = False
            if alive:
                keep.append((fd, di, src))
            else:
                close_fd(fd)
        while len(keep) > MAX_RETIRED:
            close_fd(keep.pop(0)[0])
        self.retired = keep

    def _cleanup(self) -> None:
        self.wakeups.close()
        for f in self.files.values():
            f.close()
        for fd, _, _ in self.retired:
            close_fd(fd)
        self.retired.clear()
