"""The live tailer: every record a running job writes, exactly once.

``Tailer(path)`` watches a log file or a run directory and hands over batches
through the ``Feed`` interface (``start`` / ``drain`` / ``drain_events`` /
``stop``). The design follows one rule: *filesystem events are hints, the file
is the truth*. On every watchdog (inotify) event and on a periodic ``stat``
check anyway, each file is read from its saved offset to EOF.

Per file the tailer keeps the offset, the inode and device, a partial-line
buffer (an incomplete last line waits for its newline; capped at MAX_LINE),
the reader and what was already delivered. Then:

- new files (an empty run dir at start, new rank logs, ``version_N/``) are
  found by re-scanning the directory (periodically, and at once on a
  "created"/"moved" event); a file that cannot be sniffed yet (empty, only a
  header) is tried again when it grows;
- truncation (size below the offset), or a rewrite in place (the first bytes
  or the bytes just before the offset changed: Lightning's metrics.csv when a
  column appears) -> a fresh reader from offset 0, and the records the file
  already gave are not delivered again (see ``_File.accept``);
- rotation (renamed away, a new file at the path) -> the new file is opened,
  the old handle is read to EOF, then the generations rotated in between
  (``x.3``, ``x.2``, ``x.1`` when the log rotated several times between two
  passes: by inode, oldest first, from a listing taken while no rename was under
  way), then the new file from 0; a rotated file is not read a second time when
  a directory scan meets it under its new name (``sources/tail/rotation.py``);
- copytruncate (the file we hold truncated after a copy) -> the copy holding
  what we read (the same first bytes, the same bytes before our offset) is read
  on from our offset, any later copies whole, then the file from 0 with the
  same reader (a line the copy cut in two is joined);
- atomic replace / delete + re-create -> like a rewrite: the records already
  delivered are skipped, the new ones delivered;
- "snapshot" readers (HF trainer_state.json, rewritten whole at each save)
  re-read the whole file on change and deliver the records past the longest
  step prefix shared with the previous snapshot (a resumed run's shorter
  history therefore shows up as a resume, not as nothing);
- network filesystems (NFS, Lustre, GPFS, CIFS, sshfs, BeeGFS, Ceph, 9p ...)
  get no inotify events for other hosts' writes: they are detected from
  /proc/self/mountinfo and polled, re-opening the file at each check
  (close-to-open consistency); ``poll=SECONDS`` forces polling anywhere.

I/O errors (permission denied, a file vanishing mid-read) are counted and
reported as events, never raised. Memory is bounded: no record is stored, the
partial line is capped, and the worker pauses when the consumer falls behind.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
import zlib
from array import array
from types import SimpleNamespace

from tsm_tui.sources.feed import MAX_QUEUED, Feed
from tsm_tui.core.frame import Frame
from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_fd
from tsm_tui.sources import registry
from tsm_tui.sources.base import MAX_LINE, LineReader
from tsm_tui.sources.head import DEEP_BYTES, HOLE, strip_nul
from tsm_tui.sources.tail import inotify, rotation
from tsm_tui.sources.tail.filestate import _File
from tsm_tui.sources.tail.mounts import filesystem_type, is_network_fs

CHUNK = 1 << 20  # bytes read per syscall
CHUNKED_MIN = 64 << 10  # reads at least this big go through the reader's chunked (Frame) path
FINGERPRINT = 256  # bytes compared at the head and before the offset to spot rewrites
MAX_RETIRED = 256  # rotated-away files kept open (to recognise them under their new name)
MAX_OPEN = 256  # followed files held open at once; the idle rest is reopened when it changes
# a file still unreadable is sniffed again as it grows, from where the last try
# stopped, up to this offset (sources/head.py's bounded deep scan); past it each
# retry samples the head and the file's last 256 KiB only
SNIFF_RETRY_LIMIT = DEEP_BYTES
RESCAN_MIN_GAP = 0.25  # seconds between two event-driven directory scans
RESCAN_SAFETY = 30.0  # s between two walks of the tree when inotify reports new files
RESCAN_COST_FACTOR = 50  # a walk that takes t seconds waits at least 50 t for the next one (<= 2% of a core)
TEMP_SUFFIXES = (".tmp", ".temp", ".swp", ".part", ".partial", ".lock", "~")
BUSY_GAP = 0.1  # s between two event-driven passes while writes come faster than one per
#                 BUSY_GAP on average: a job logging 100 lines/s costs 10 passes/s, not one per write
BUSY_BURST = 4  # ... but up to this many passes in a row are made at once (a token bucket refilled
#                 at one pass per BUSY_GAP): the line after a tqdm redraw or a TensorBoard flush
#                 is read at once, not 50-100 ms later (issue 31 §9; ours)
CHANGE_SETTLE = 0.05  # s a pass waits for the rest of a group of config / checkpoint writes (ours)
QUIET_AFTER = 60.0  # s without new bytes in any followed file: the run is quiet ...
QUIET_SAFETY = 5.0  # s ... and the stat pass (the net under inotify) runs this often, not every second
NON_UTF8 = "non-UTF-8 bytes (replaced, line still read)"
IDLE_FLUSH = 1.0  # s without new bytes before a reader's held-back record is delivered (ours)



# ----------------------------------------------------------------------------- tailer
class Tailer(Feed):
    """Follow a log file or a run directory; see the module docstring."""

    def __init__(self, path: str, *, poll: float | None = None, interval: float = 1.0) -> None:
        super().__init__()
        self.path = os.path.abspath(path)
        self.interval = max(0.01, float(interval))
        self.forced_poll = poll
        self.fstype = filesystem_type(self.path)
        self.network = is_network_fs(self.fstype)
        if poll is not None:
            self.poll_interval: float | None = max(0.01, float(poll))
        elif self.network:
            self.poll_interval = self.interval
        else:
            self.poll_interval = None
        self.files: dict[str, _File] = {}
        # unsniffable path -> (size, ctime, bytes sniffed) when last tried
        self._pending: dict[str, tuple[int, int, int]] = {}
        self._retired: list[tuple[int, tuple[int, int], str]] = []  # (fd, dev_ino, logical path)
        self._segments: dict[str, list[str]] = {}  # live path -> older rotated segments at discovery
        #: segments read as history, rotated generations and copies read since (never read again)
        self._retired_ids = rotation.ReadIds()
        self.errors = 0
        self.read_bytes = 0
        self._active_at = -1e9  # the last new bytes read from any followed file (the history is not new)
        # the passes' schedule (``_pass`` / ``_own_wait``), kept here: the feed's thread makes
        # them, then (``inline``) the consumer's
        self._rescan_every = max(2.0, 2 * self.interval)
        if self.poll_interval is not None:
            self._rescan_every = max(self._rescan_every, self.poll_interval)
        self._last_scan = -1e9
        self._scan_cost = 0.0
        self._passed = 0.0
        self._tokens, self._tokens_at = float(BUSY_BURST), 0.0  # passes that may be made at once (_busy_gap)
        self._more = False  # the last pass stopped reading at the queue's bound: pass again at once
        self._handover = False  # at caught_up the thread ends and ``inline`` is set (Feed.inline)
        self._pump_lock = threading.RLock()
        self.mode = "polling" if self.poll_interval is not None else "inotify"
        self._wake = threading.Event()
        #: set once the files present at start have been read to their end
        self.caught_up = threading.Event()
        self._rescan = threading.Event()
        self._rescan_soon = False  # set by watchdog events; rate-limited
        self._observer = None  # watchdog's, where our own inotify is not available
        self._ino: inotify.Inotify | None = None
        self._wake_r: socket.socket | None = None  # a byte here interrupts ``_sleep``
        self._wake_w: socket.socket | None = None
        self._watched: str | None = None
        self._limit_said = False
        self._scan_error: str | None = None

    # -- consumer side ------------------------------------------------------------
    def describe(self) -> str:
        fs = self.fstype or "unknown fs"
        if self.poll_interval is None:
            return f"watching {self.path} ({fs}, inotify + stat every {self.interval:g}s)"
        why = "forced" if self.forced_poll is not None else f"network filesystem {fs}"
        return f"watching {self.path} (polling every {self.poll_interval:g}s: {why})"

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._poke()
        super().stop(timeout)
        if self.inline and self._pump_lock.acquire(timeout=timeout):  # not inside a pump any more
            try:
                self._cleanup()
            finally:
                self._pump_lock.release()

    def wake(self) -> None:
        """Ask for a pass now (tests, or a caller that knows something changed)."""
        self._rescan.set()
        self._poke()

    # -- producer side ------------------------------------------------------------
    def _put(self, source: str, reader: LineReader, records: list[StepRecord], backlog: bool = False) -> None:
        super()._put(source, reader, records, backlog=not self.caught_up.is_set())

    def _error(self, f: _File | None, path: str, e: OSError, what: str) -> None:
        self.errors += 1
        msg = f"{path}: {what}: {e.strerror or e}"
        if f is not None:
            if f.error == msg:
                return  # said once; counted every time
            f.error = msg
        self._event(msg, path)

    # -- the worker ---------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._guarded(self._loop)
        finally:
            if not self.inline:  # handed over: the consumer's thread goes on with everything open
                self._cleanup()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if not self._pass():
                return
            if self._handover and self.caught_up.is_set():
                # the history is queued: from here the consumer's own thread waits for
                # changes and makes the passes (``pump``); one thread woken per write,
                # not two handing the records and the interpreter lock to each other
                self.inline = True
                return
            woke = self._sleep(self._own_wait())
            if woke and not self._stop.is_set():
                self._busy_gap()

    def _pass(self) -> bool:
        """One look at the tree and every followed file; False when stopped midway."""
        now = time.monotonic()
        self._more = False
        if self.poll_interval is None:
            self._ensure_observer()
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
        watching = self._observer is not None or self._ino is not None
        every = max(self._rescan_every if self.poll_interval is not None or not watching
                    else RESCAN_SAFETY, self._scan_cost * RESCAN_COST_FACTOR)
        soon = self._rescan_soon and now - self._last_scan >= max(RESCAN_MIN_GAP, self._scan_cost * 4)
        if soon or self._rescan.is_set() or now - self._last_scan >= every:
            self._rescan.clear()
            self._rescan_soon = False
            self._last_scan = now
            self._scan()
            self._scan_cost = time.monotonic() - now
        self._wake.clear()
        for f in list(self.files.values()):
            if self._stop.is_set():
                return False
            try:
                self._check(f)
            except Exception as e:  # noqa: BLE001 - one file's failure is that file's
                self._file_failed(f, f.path, e)
        self._park_idle()
        if not self.caught_up.is_set() and not self._more:
            self.caught_up.set()  # the history present at start has been queued
            self.ready.set()
        self._passed = time.monotonic()
        return True

    def _own_wait(self) -> float:
        """How long the next sleep may last: the stat period (longer once the run is
        quiet), shorter when a rate-limited walk is due."""
        passed = self._passed
        wait = self.poll_interval if self.poll_interval is not None else self.interval
        if self.poll_interval is None and self._ino is not None and not self._ino.full \
                and passed - self._active_at > QUIET_AFTER:
            # a quiet run: every change wakes us through inotify; the stat pass is
            # only the net for a missed event, and each wake-up costs CPU
            wait = max(wait, QUIET_SAFETY)
        if self._rescan_soon:  # a new file was announced while walks were rate-limited:
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

    # -- inline: the consumer's thread makes the passes once the history is read ----------
    def start(self, handover: bool = False) -> None:
        """Start reading in the feed's thread; ``handover``: once the history present
        at start is queued (read with the feed's backpressure), the thread ends and the
        consumer calls :meth:`pump` from its own thread instead of waiting on ``ready``."""
        self._handover = handover
        super().start()

    def pump(self, timeout: float) -> None:
        """Inline mode: wait up to ``timeout`` for a change (or this tailer's own period),
        then make a pass, in the caller's thread. A pass reads at most about MAX_QUEUED
        records ahead of the caller (``_read_to_eof``); the next pump goes on at once."""
        with self._pump_lock:
            if self._stop.is_set():
                return
            if self.error is not None:
                self._stop.wait(timeout)  # the consumer reports it; never a busy loop
                return
            try:
                if not self._more:
                    own = self._own_wait()
                    woke = self._sleep(min(timeout, own))
                    if self._stop.is_set():
                        return
                    if woke:
                        self._busy_gap()
                    elif timeout < own and time.monotonic() - self._passed < own:
                        return  # the caller's deadline (a status, a held record), not ours
                self._pass()
            except Exception as e:  # noqa: BLE001 - reported like the thread's death (Feed._guarded)
                self.error = f"{type(e).__name__}: {e}"
                self._event(f"reading stopped: {self.error}")
                self.ready.set()

    def _cleanup(self) -> None:
        self._stop_observer()
        for sock in (self._wake_r, self._wake_w):
            if sock is not None:
                sock.close()
        self._wake_r = self._wake_w = None
        for f in self.files.values():
            self._close(f)
        for fd, _, _ in self._retired:
            _close_fd(fd)
        self._retired.clear()

    # -- file system events: hints that wake the worker ------------------------------
    def _ensure_observer(self) -> None:
        target = self.path if os.path.isdir(self.path) else os.path.dirname(self.path)
        while not os.path.isdir(target) and os.path.dirname(target) != target:
            target = os.path.dirname(target)
        if target == self._watched and (self._ino is None or self._ino.alive):
            return
        self._stop_observer()
        recursive = os.path.isdir(self.path)
        if inotify.available():
            # our own inotify, read in this thread (sources/tail/inotify.py): watchdog's
            # threads cost an event object per write before anything could coalesce
            try:
                self._ino = inotify.Inotify(target, recursive)
            except OSError as e:  # out of watches / instances, odd filesystems
                self._fallback(f"inotify unavailable ({e.strerror or e})")
                return
            if self._ino.full:
                self._event(f"{_short(target)}: more directories than inotify watches "
                            f"({self._ino.watches:,} watched); the rest is found by the periodic walk")
            if self._wake_r is None:
                self._wake_r, self._wake_w = socket.socketpair()
                self._wake_r.setblocking(False)
                self._wake_w.setblocking(False)
            self._watched = target
            self._rescan.set()  # files may have appeared before the watch was in place
            return
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:  # pragma: no cover - watchdog is a dependency
            self._fallback("watchdog is not installed")
            return
        tailer = self

        class _Hint(FileSystemEventHandler):
            def on_any_event(self, event):  # noqa: D401 - watchdog callback
                et = event.event_type
                if et in ("opened", "closed_no_write"):
                    return
                tailer._hint(et, event.src_path, event.is_directory)
                if et == "moved":
                    tailer._change(getattr(event, "dest_path", "") or event.src_path)
                tailer._wake.set()

        try:
            obs = Observer()
            # only changes: our own opens and reads (IN_OPEN, IN_ACCESS, IN_CLOSE_NOWRITE)
            # would otherwise come back as events, a pass per event, and overflow the
            # inotify queue on a big tree
            obs.schedule(_Hint(), target, recursive=recursive, event_filter=_EVENTS)
            obs.daemon = True
            obs.start()
        except Exception as e:  # inotify limits (ENOSPC / EMFILE), odd filesystems
            self._fallback(f"inotify unavailable ({e})")
            return
        self._observer, self._watched = obs, target
        self._rescan.set()  # files may have appeared before the watch was in place

    def _hint(self, kind: str, path: str, is_dir: bool) -> None:
        """One file system event: what it says besides "look again" (a new file to
        sniff, a config or checkpoint written: ``Feed.drain_changes``)."""
        if kind in ("created", "moved", "deleted"):
            self._rescan_soon = True
            self._change(path)
        elif is_dir or path not in self.files:
            self._change(path)  # a config rewritten, a file saved into a checkpoint dir
        if kind == "modified" and not is_dir and path not in self.files and _looks_like_log(path):
            self._rescan_soon = True  # an empty file we could not sniff has grown

    def _read_events(self) -> None:
        """Everything the kernel queued since the last pass, in one read."""
        ino = self._ino
        if ino is None:
            return
        for kind, path, is_dir in ino.read():
            if kind == inotify.OVERFLOW:  # events were lost: look at everything
                self._rescan.set()
                self._change("*")
                continue
            self._hint(kind, path, is_dir)

    def _sleep(self, period: float) -> bool:
        """Wait for an event (or a wake-up, or ``period``); True when woken early."""
        ino = self._ino
        if ino is None or self._wake_r is None:
            self._wake.wait(period)
            return self._wake.is_set()
        if self._wake.is_set():
            return True
        woke = ino.wait(period, self._wake_r.fileno())
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass
        return woke or self._wake.is_set()

    def _poke(self) -> None:
        """Interrupt ``_sleep`` (stop, wake)."""
        self._wake.set()
        w = self._wake_w
        if w is not None:
            try:
                w.send(b"x")
            except OSError:  # full (a wake-up is pending anyway) or closed
                pass

    def _fallback(self, why: str) -> None:
        self.poll_interval = self.interval
        self.mode = "polling"
        self._event(f"{why}: polling every {self.interval:g}s")

    def _stop_observer(self) -> None:
        ino, self._ino = self._ino, None
        if ino is not None:
            ino.close()
        obs, self._observer, self._watched = self._observer, None, None
        if obs is not None:
            try:
                obs.stop()
                obs.join(2.0)
            except Exception:
                pass

    # -- discovery ------------------------------------------------------------------
    def _targets(self) -> list[str]:
        if os.path.isdir(self.path):
            try:
                found = registry.candidate_files(self.path)
            except Exception as e:  # noqa: BLE001 - one odd name or directory never ends the tailer
                self._scan_failed(e)
                return []
            if len(found) >= registry.MAX_FILES and not self._limit_said:
                self._limit_said = True
                self._event(registry.LIMIT_NOTE.format(n=registry.MAX_FILES, path=self.path))
            # temporary files (``x.log.tmp`` before an atomic replace, editor swap
            # files, dot-files) would be read once under their own name and again
            # once renamed into place
            found = [p for p in found if not _temporary(os.path.basename(p))]
            # rotated segments (x.log.1, x.log.2.gz) are the history of their live
            # file: read once before it (``_history``), never followed on their own
            try:
                groups = registry.group_sources(found)
            except Exception as e:  # noqa: BLE001 - (as above): every file on its own then
                self._scan_failed(e)
                groups = [[p] for p in found]
            out = []
            for g in groups:
                out.append(g[-1])
                if len(g) > 1:
                    self._segments[g[-1]] = g[:-1]
            return out
        if os.path.exists(self.path):
            return [self.path]
        return []

    def _scan_failed(self, e: Exception) -> None:
        """Listing the tree raised: counted and said once per kind; the files
        already followed are still read, the next scan tries again."""
        self.errors += 1
        msg = f"{_short(self.path)}: listing the files failed ({type(e).__name__}): following what was found"
        if msg != self._scan_error:
            self._scan_error = msg
            self._event(msg)

    def _known_ids(self) -> set[tuple[int, int]]:
        ids = {f.dev_ino for f in self.files.values() if f.dev_ino is not None and not f.gone}
        ids.update(di for _, di, _ in self._retired)
        ids.update(self._retired_ids)
        return ids

    def _scan(self) -> None:
        self._prune_retired()
        targets = [p for p in self._targets() if p not in self.files]
        if not targets:
            return
        self._settle_rotations(targets)
        known = self._known_ids()
        targets = [p for p in targets if not self._stray_generation(p)]
        for p in targets:
            try:
                self._scan_one(p, known)
            except Exception as e:  # noqa: BLE001 - a file that breaks sniffing is skipped, not the tailer
                self._file_failed(self.files.get(p), p, e)

    def _settle_rotations(self, targets: list[str]) -> None:
        """A new name that is a rotated name of a followed log (``x.1`` beside ``x``)
        may be a generation written since the last pass: the followed file is checked
        first, which reads such generations as its own (``_generations``), so that the
        scan then knows them and does not follow them as files of their own."""
        done: set[str] = set()
        for p in targets:
            d, name = os.path.split(p)
            rb = rotation.rotated_base(name)
            f = self.files.get(os.path.join(d, rb[0])) if rb is not None else None
            if f is None or f.path in done or f.reader.kind != "lines":
                continue
            done.add(f.path)
            try:
                self._check(f)
            except Exception as e:  # noqa: BLE001 - as in ``_pass``
                self._file_failed(f, f.path, e)

    def _stray_generation(self, p: str) -> bool:
        """``p`` is named as a rotated generation of a followed log that we saw rotate:
        never followed as a log of its own (its records would come a second time, or
        out of order as another source). A copy whose truncation is yet to come is
        read when the truncation is seen (``_copied``)."""
        d, name = os.path.split(p)
        rb = rotation.rotated_base(name)
        f = self.files.get(os.path.join(d, rb[0])) if rb is not None else None
        return f is not None and f.rotations > 0 and f.reader.kind == "lines"

    def _file_failed(self, f: _File | None, path: str, e: Exception) -> None:
        """A reader (or anything else) raised on one file: count it as a skip of
        that file, say so once, keep following every file (issue 20: the thread
        used to die and the views kept saying "following")."""
        self.errors += 1
        why = registry.reader_error(e)
        if f is not None:
            f.reader.skip(why)
            msg = f"{path}: {why}: skipped what could not be read, still following"
            if f.error == msg:
                return
            f.error = msg
        else:
            msg = f"{path}: {why}: not followed"
        self._event(msg, path)

    def _scan_one(self, p: str, known: set) -> None:
        try:
            st = os.stat(p)
        except OSError:
            return
        if (st.st_dev, st.st_ino) in known:
            return  # a rotated copy (or a hard link) of a file already followed
        key = (st.st_size, st.st_ctime_ns)
        last = self._pending.get(p)
        if last is not None and last[:2] == key:
            return  # tried in this state already (past SNIFF_RETRY_LIMIT a retry samples the file's end only)
        # (kept if sniffing raises: tried again when the file changes)
        self._pending[p] = key + (last[2] if last else 0,)
        # a file that showed nothing recognisable yet is searched on from where
        # the last try stopped (a long preamble: pip output, argument dumps)
        deep = max(0, last[2] - 4096) if last else 0
        reader, fi = registry.open_reader(p, deep_from=deep) if deep else registry.open_reader(p)
        segs = self._segments.get(p, [])
        if reader is None and segs:  # the live file is empty (just rotated): the newest segment says
            r2, _ = registry.open_reader(segs[-1])
            if r2 is not None and r2.kind == "lines":
                reader = type(r2)(p)
        if reader is None:
            if fi.note and fi.note.startswith("cannot read") and last is None:
                self.errors += 1
                self._event(f"{p}: {fi.note}", p)
            self._pending[p] = key + (max(fi.sniffed_to, last[2] if last else 0),)
            return
        self._pending.pop(p, None)
        f = self.files[p] = _File(p, reader)
        if segs and reader.kind == "lines":
            self._history(f, segs)
        self._open(f)
        if f.fd is not None:
            known.add(f.dev_ino)

    def _history(self, f: _File, segs: list[str]) -> None:
        """The older rotated segments of a live file, oldest first, as its history
        (one series, one reader); their files are known, so never followed again."""
        for seg in segs:
            try:
                st = os.stat(seg)
                self._retired_ids.add(_fid(st), rotation.head_of(seg),
                                      rotation.content_head(seg) if seg.endswith(".gz") else None)
                batch: list = []
                for item in registry.read_segment(seg, f.reader):
                    batch.append(item)
                    if len(batch) >= 4096 or type(item) is Frame:
                        self._put(f.path, f.reader, batch)
                        batch = []
                self._put(f.path, f.reader, batch)
            except OSError as e:
                self._error(f, seg, e, "read error")
            except Exception as e:  # a reader bug (or a corrupt .gz) must not stop the tailer
                f.reader.skip(f"reader error: {type(e).__name__} (segment {_short(seg)})")

    def _prune_retired(self) -> None:
        keep = []
        for fd, di, src in self._retired:
            try:
                alive = os.fstat(fd).st_nlink > 0
            except OSError:
                alive = False
            if alive:
                keep.append((fd, di, src))
            else:
                _close_fd(fd)
        while len(keep) > MAX_RETIRED:
            _close_fd(keep.pop(0)[0])
        self._retired = keep

    # -- one file ---------------------------------------------------------------------
    def _open_path(self, f: _File) -> int | None:
        try:
            # regular files only (a FIFO at the path must not block); a snapshot reader's
            # directory source (MLflow metrics/) is opened as a directory
            return open_fd(f.path, allow_dir=f.reader.kind == "snapshot")
        except FileNotFoundError:
            return None
        except OSError as e:
            self._error(f, f.path, e, "cannot open")
            return None

    def _open(self, f: _File, fd: int | None = None) -> bool:
        """Follow the file at ``f.path`` from its start (``fd``: opened already)."""
        if fd is None:
            fd = self._open_path(f)
            if fd is None:
                return False
        st = os.fstat(fd)
        f.opened += 1
        f.fd, f.dev_ino = fd, (st.st_dev, st.st_ino)
        # (size unknown: the first check reads; the mtime says since when rotated siblings are new)
        f.offset, f.size, f.mtime_ns = 0, -1, st.st_mtime_ns
        f.partial.clear()
        f.discarding = False
        f.head = f.tail = b""
        f.gone = False
        f.error = None
        return True

    def _close(self, f: _File) -> None:
        if f.fd is not None:
            _close_fd(f.fd)
            f.fd = None

    def _fresh_reader(self, f: _File) -> None:
        try:
            f.reader = type(f.reader)(f.path)
        except Exception:  # a reader needing other arguments: keep the old one
            pass

    def _check(self, f: _File) -> None:
        try:
            st = self._stat(f)
        except FileNotFoundError:
            self._vanished(f)
            return
        except OSError as e:
            self._error(f, f.path, e, "cannot stat")
            return
        if f.parked:  # closed to stay within MAX_OPEN: reopen only when it changed
            if (st.st_dev, st.st_ino) == f.dev_ino and st.st_size == f.size and st.st_mtime_ns == f.mtime_ns \
                    and not f.snap_dirty:
                self._idle(f)
                return
            if not self._unpark(f, st):
                return
        if f.fd is None:  # the path came back (or could not be opened before)
            came_back = f.opened > 0
            old_id = f.dev_ino
            if not self._open(f):
                return
            if came_back:
                self._fresh_reader(f)
                if f.reopen_floor:
                    f.start_rewrite()
                else:
                    f.parsed, f.skip_floor = 0, None
                self._event(f"{_short(f.path)} appeared again: reading it from the start", f.path)
                if not f.reopen_floor and f.reader.kind == "lines":
                    # moved away, then rotated on while the path was empty: the
                    # generations in between come before the new file
                    self._generations(f, old_id, f.gone_since, f.dev_ino, f.fd)
            f.reopen_floor = False
        if (st.st_dev, st.st_ino) != f.dev_ino:
            self._switch(f)
            return
        if st.st_size == f.size and st.st_mtime_ns == f.mtime_ns and not f.snap_dirty:
            self._idle(f)
            return  # nothing new
        if f.reader.kind == "snapshot":
            self._read_snapshot(f, st)
            return
        if self._catch_up(f, st.st_size, budget=True):
            f.size, f.mtime_ns = st.st_size, st.st_mtime_ns
        # else: stopped at the queue's bound (inline); the size still differs, the next pass goes on

    def _idle(self, f: _File) -> None:
        """No new bytes for IDLE_FLUSH seconds: what the reader holds back waiting for
        more (TensorBoard's newest step) is delivered (a final NaN is seen live)."""
        if f.reader.kind != "bytes" or time.monotonic() - f.active_at < IDLE_FLUSH:
            return
        try:
            recs = f.reader.idle()
        except Exception as e:  # noqa: BLE001 - a reader bug must not stop the tailer
            f.reader.skip(f"reader error: {type(e).__name__}")
            return
        if recs:
            self._put(f.path, f.reader, f.accept(recs))

    def _unpark(self, f: _File, st) -> bool:
        """Open a parked file again; the same file continues where it stopped, a
        different one at its path (rotated while not held open) starts over."""
        f.parked = False
        try:
            fd = open_fd(f.path, allow_dir=f.reader.kind == "snapshot")
        except OSError as e:
            self._error(f, f.path, e, "cannot open")
            f.parked = True
            return False
        try:
            fst = os.fstat(fd)
        except OSError:
            _close_fd(fd)
            f.parked = True
            return False
        if (fst.st_dev, fst.st_ino) == f.dev_ino:
            f.fd = fd
            return True
        _close_fd(fd)
        fd = self._rotated_copy_of(f)
        if fd is not None:  # rotated while not held open: finished under its new name (``_switch``)
            f.fd = fd
            return True
        self._event(f"{_short(f.path)} was replaced while not held open: reading the new file from the start "
                    "(the old file's last lines, if any were written after the last read, are not read)", f.path)
        f.fd = None
        f.reopen_floor = True
        return True

    def _park_idle(self) -> None:
        """At most MAX_OPEN files are held open: the longest idle ones are closed
        (their offsets kept) and reopened when they change."""
        held = [f for f in self.files.values() if f.fd is not None]
        if len(held) <= MAX_OPEN:
            return
        held.sort(key=lambda f: f.active_at)
        for f in held[: len(held) - MAX_OPEN]:
            self._close(f)
            f.parked = True

    def _catch_up(self, f: _File, size: int, budget: bool = False) -> bool:
        """Read to EOF, starting over first if the file was truncated or rewritten
        (after the copy a copytruncate left, when there is one: ``_copied``); False
        when stopped at the queue's bound (``budget``, inline only)."""
        if not f.offset and f.rotations and f.reader.kind == "lines":
            self._copied_unseen(f)
        for _ in range(rotation.LIST_TRIES):
            if size < f.offset or (f.offset and not self._same_content(f)) or self._weakly_truncated(f):
                note = self._copied(f)
                if note is None:
                    pass  # copytruncate: the copies were read and the file's first chunk taken
                elif size < f.offset:
                    self._restart(f, f"{_short(f.path)} truncated ({size} < {f.offset} bytes read): "
                                     f"reading it from the start{note}")
                else:
                    self._restart(f, f"{_short(f.path)} rewritten: reading it from the start "
                                     f"(records already seen are not counted twice){note}")
            done = self._read_to_eof(f, budget)
            if not f.moved:
                return done
            f.moved = False  # truncated again while we read: its copy comes first
            try:
                size = os.fstat(f.fd).st_size
            except OSError:
                return done
        done = self._read_to_eof(f, budget)
        f.moved = False
        return done

    def _stat(self, f: _File):
        """stat the path; on a network filesystem through a fresh open, since
        close-to-open consistency makes the client revalidate its cached
        attributes (a long-held descriptor can lag other hosts by 10-30 s)."""
        if not self.network:
            return _dir_aware(os.stat(f.path), f.path)
        fd = open_fd(f.path, allow_dir=f.reader.kind == "snapshot")
        try:
            st = os.fstat(fd)
        except OSError:
            _close_fd(fd)
            raise
        if f.fd is not None and (st.st_dev, st.st_ino) == f.dev_ino:
            _close_fd(f.fd)
            f.fd = fd  # read through the fresh descriptor
        else:
            _close_fd(fd)
        return _dir_aware(st, f.path)

    def _same_content(self, f: _File) -> bool:
        """The bytes we read are still there (else: rewritten in place)."""
        try:
            if f.head and os.pread(f.fd, len(f.head), 0) != f.head:
                return False
            if f.tail and os.pread(f.fd, len(f.tail), f.offset - len(f.tail)) != f.tail:
                return False
        except OSError:
            return True  # cannot tell: keep reading forward
        return True

    def _restart(self, f: _File, why: str) -> None:
        """Truncated or rewritten: start over at 0 with a fresh reader."""
        self._event(why, f.path)
        self._finish_reader(f)
        self._fresh_reader(f)
        f.start_rewrite()
        f.offset = 0
        f.partial.clear()
        f.discarding = False
        f.head = f.tail = b""

    def _finish_reader(self, f: _File) -> None:
        try:
            recs = f.reader.flush()
        except Exception:
            recs = []
        self._put(f.path, f.reader, f.accept(recs))

    def _switch(self, f: _File) -> None:
        """A different file sits at the path now: finish the old one (and the rotated
        generations between it and the new one), start the new one. The new one is
        opened first: what is read in between ends where it begins."""
        new = self._open_path(f)
        try:
            upto = _fid(os.fstat(new)) if new is not None else None
            rotated = self._finish_old(f, upto, new)
        except BaseException:
            if new is not None:
                _close_fd(new)
            raise
        if rotated:
            f.rotations += 1
        self._event(f"{_short(f.path)} {'rotated' if rotated else 'replaced'}: "
                    "finished the old file, reading the new one from the start", f.path)
        self._fresh_reader(f)
        carry, discarding = bytes(f.partial), f.discarding
        if new is None or not self._open(f, new):
            f.gone = True
            f.reopen_floor = not rotated
            return
        f.partial += carry
        f.discarding = discarding
        if not rotated:
            f.start_rewrite()
        else:
            f.parsed = 0
            f.skip_floor = None
        self._check(f)

    def _finish_old(self, f: _File, upto=None, new: int | None = None) -> bool:
        """Read the old handle to EOF, then the rotated generations written after it
        (``_generations``; up to the file ``upto``, the one now at the path); True when
        it still exists elsewhere (rotated)."""
        rotated = False
        if f.fd is not None:
            since, old_id = f.mtime_ns, f.dev_ino
            if f.reader.kind != "snapshot":  # (a new snapshot supersedes the old one)
                try:
                    # it may have been truncated or rewritten since the last check, too
                    self._catch_up(f, os.fstat(f.fd).st_size)
                except OSError as e:
                    self._error(f, f.path, e, "read error")
            try:
                rotated = os.fstat(f.fd).st_nlink > 0
            except OSError:
                rotated = False
            f.partial.clear()  # (a rotated file's unfinished last line is not completed elsewhere)
            f.discarding = False
            if f.reader.kind == "lines":
                if not rotated:
                    # replaced: what follows starts over with the old content (a copy of the
                    # new file, when it was copytruncated too before we looked, or the new file)
                    f.start_rewrite()
                self._generations(f, old_id, since, upto, new)
            self._finish_reader(f)
            if rotated and f.dev_ino is not None:
                self._retired.append((f.fd, f.dev_ino, f.path))
                f.fd = None
            else:
                self._close(f)
        # (a line the last generation read left unfinished is kept: a copy of the new
        # file cut it, and the new file completes it; ``_switch``)
        return rotated

    def _vanished(self, f: _File) -> None:
        if f.gone:
            return
        f.gone = True
        f.gone_since = f.mtime_ns
        rotated = self._finish_old(f)
        f.rotations += rotated
        f.partial.clear()
        f.discarding = False
        f.reopen_floor = not rotated
        f.size = f.mtime_ns = -1
        self._event(f"{_short(f.path)} {'moved away' if rotated else 'deleted'}: "
                    "read what was there; watching for it to reappear", f.path)

    # -- rotated generations and copies (sources/tail/rotation.py) ---------------------
    def _unread(self, sibs: list[rotation.Sibling]) -> list[rotation.Sibling]:
        """The siblings neither followed, nor held as rotated files, nor read already."""
        held = {di for _, di, _ in self._retired}
        held.update(g.dev_ino for g in self.files.values() if g.fd is not None)
        return [s for s in sibs if s.id not in held and not (s.id in self._retired_ids and self._retired_ids.same(s))]

    def _generations(self, f: _File, old_id, since: int, upto, new: int | None = None) -> None:
        """The file ``f`` held (``old_id``) was rotated away: the generations rotated
        after it and before ``upto`` (the file now at the path, open as ``new``),
        written since ``since`` (its mtime at the last pass) and never opened, are read
        whole, oldest first. A copy of the new file as it is (copytruncate, maybe still
        being written) is left for its truncation."""
        todo = self._unread(rotation.between(rotation.rotated_since(f.path, since), old_id, upto))
        if new is not None:
            todo = rotation.before_copies_of(todo, new)
        if not todo:
            return
        read_heads: set[bytes] | None = None
        names = []
        for s in todo:
            if s.compressed:
                # compressed after the rotation (gzip keeps the mtime): a copy of a file read
                # already, or a generation never opened
                if read_heads is None:
                    read_heads = self._retired_ids.contents() | self._held_heads() | {bytes(f.head)}
                raw, head = rotation.heads_of(s)
                if head in read_heads:
                    self._retired_ids.add(s.id, raw, head)
                    continue
            # (a line cut between two files is joined: a copytruncate's copies cut lines
            # anywhere; rename rotation happens between records)
            if self._read_whole(f, s):
                names.append(_short(s.path))
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            self._event(f"{_short(f.path)} rotated {len(names) + 1} times since the last look: "
                        f"read the generations in between too ({shown})", f.path)

    def _held_heads(self) -> set[bytes]:
        out = set()
        for fd, _, _ in self._retired:
            try:
                out.add(os.pread(fd, rotation.HEAD, 0))
            except OSError:
                pass
        return out

    def _copied(self, f: _File) -> str | None:
        """``f`` (the same file) was truncated or rewritten: when a rotated copy of it
        holds what we read (copytruncate), read the copy on from our offset, then
        any later copies whole, and go on in the file from its start with the same
        reader (a line the copy cut is completed there). None when done so; else
        a note for the restart's message ("" or why the rest cannot be read)."""
        if f.reader.kind != "lines" or not f.offset:
            return ""
        sibs = self._copies(f)
        for s in sibs:
            fd = self._holder(f, s)
            if fd is None:
                continue
            try:
                self._read_fd(f, fd, f.offset)
                self._retired_ids.add(s.id, os.pread(fd, rotation.HEAD, 0))
            finally:
                _close_fd(fd)
            names = [_short(s.path)]
            first = self._later_copies(f, s.id, names)
            f.rotations += 1
            self._event(f"{_short(f.path)} truncated after a copy (copytruncate): read the rest from "
                        f"{names[0]} (from byte {f.offset:,})"
                        + (f" and {', '.join(names[1:])}" if len(names) > 1 else "")
                        + ", then the file from its start", f.path)
            f.offset = 0
            f.head = f.tail = b""
            f.parsed, f.skip_floor = 0, None
            f.size = -1
            if first:
                self._take(f, first)
            return None
        if any(s.compressed for s in sibs):
            return (" (its rotated copy was compressed before it was read: lines written between the last "
                    "read and the rotation are not read)")
        return ""

    def _copies(self, f: _File, after=None) -> list[rotation.Sibling]:
        """The unread rotated siblings of ``f`` written since our last look, after the
        file ``after`` (when given) and before ``f``'s own file (which may have been
        renamed since: only what is older than it counts), oldest first."""
        return self._unread(rotation.between(rotation.rotated_since(f.path, f.mtime_ns), after, f.dev_ino))

    def _holder(self, f: _File, s: rotation.Sibling) -> int | None:
        """An open descriptor of ``s`` when it holds what we read of ``f`` (the same first
        bytes, the same bytes before our offset); the caller closes it."""
        if s.compressed or s.st.st_size < f.offset:
            return None
        try:
            fd = rotation.open_id(s)
        except OSError:
            return None
        if fd is None:
            return None
        try:
            if rotation.continues(fd, os.fstat(fd).st_size, f.head, f.tail, f.offset):
                return fd
        except OSError:
            pass
        _close_fd(fd)
        return None

    def _weakly_truncated(self, f: _File) -> bool:
        """What we read of a copytruncated file is too short to tell it apart (``{"s``
        begins every JSON line): a copy of it made since that holds what we read,
        while the file holds other bytes after our offset, says it was truncated and
        written again past our offset; so does a copy made after that one (only a
        truncation comes between two copies). (Only then: a listing per pass.)"""
        if not (f.offset and len(f.head) < FINGERPRINT and f.rotations and f.reader.kind == "lines"):
            return False
        sibs = self._copies(f)
        for i, s in enumerate(sibs):
            fd = self._holder(f, s)
            if fd is None:
                continue
            try:
                ours = os.pread(f.fd, FINGERPRINT, f.offset)
                theirs = os.pread(fd, FINGERPRINT, f.offset)
            except OSError:
                continue
            finally:
                _close_fd(fd)
            n = min(len(ours), len(theirs))
            if (n and ours[:n] != theirs[:n]) or i + 1 < len(sibs):
                return True
        return False

    def _copied_unseen(self, f: _File) -> None:
        """A copytruncated file we have read nothing of yet (empty at the last look):
        written, copied and truncated since, its copies hold bytes we never saw; they
        come before what the file holds now (no offset of ours to tell it by)."""
        names: list[str] = []
        first = self._later_copies(f, None, names)
        if names:
            self._event(f"{_short(f.path)} truncated after a copy (copytruncate) before it was read: read "
                        f"{', '.join(names)}, then the file from its start", f.path)
            if first:
                self._take(f, first)

    def _later_copies(self, f: _File, after, names: list[str]) -> bytes:
        """After the copy ``after`` that held our offset: the copies made after it (each the
        whole content between two truncations), up to the file's current start. That
        start is pinned (read) before each listing: a copy that does not begin with it
        holds older bytes, made before a truncation that came before the pin (read it
        whole, then look again); one that begins with it is a copy of the file as it
        is, maybe still being written by the rotation (left for the truncation that
        will follow it: ``_copied`` then finds it). Returns the file's first chunk,
        to be taken as its start."""
        first = b""
        for _ in range(rotation.LIST_TRIES):
            try:
                first = os.pread(f.fd, CHUNK, 0) if f.fd is not None else b""
            except OSError:
                first = b""
            later = self._copies(f, after)
            older = later if f.fd is None else rotation.before_copies_of(later, f.fd)
            if not older:
                break
            for t in older:
                if self._read_whole(f, t):
                    names.append(_short(t.path))
        return first

    def _rotated_copy_of(self, f: _File) -> int | None:
        """A descriptor of the file ``f`` followed, found under a rotated name."""
        if f.reader.kind != "lines" or f.dev_ino is None:
            return None
        for s in rotation.rotated_since(f.path, f.mtime_ns):
            if s.id == f.dev_ino and not s.compressed:
                try:
                    return rotation.open_id(s)
                except OSError:
                    return None
        return None

    def _read_whole(self, f: _File, s: rotation.Sibling) -> bool:
        """One rotated generation, from its start, through ``f``'s reader."""
        try:
            fd = rotation.open_id(s)
            if fd is None:
                return False  # gone since the listing (deleted past the rotation count)
            try:
                raw = os.pread(fd, rotation.HEAD, 0)
                if s.compressed:
                    content = bytearray()
                    try:
                        for data in rotation.gunzip(fd):
                            if len(content) < rotation.HEAD:
                                content += data[: rotation.HEAD - len(content)]
                            self.read_bytes += len(data)
                            self._feed_lines(f, data)
                    except (OSError, EOFError, zlib.error) as e:  # a corrupt .gz costs its rest, counted
                        f.reader.skip(f"rotated segment {_short(s.path)}: {registry.segment_fault(e)}: "
                                      "read up to there")
                    content = bytes(content)
                else:
                    self._read_fd(f, fd, 0)
                    content = None
            finally:
                _close_fd(fd)
        except OSError as e:
            self._error(f, s.path, e, "read error")
            return False
        self._retired_ids.add(s.id, raw, content)
        return True

    def _read_fd(self, f: _File, fd: int, start: int) -> None:
        """A rotated file's bytes from ``start`` to its end, as more of ``f``'s lines."""
        off = start
        while True:
            data = os.pread(fd, CHUNK, off)
            if not data:
                return
            off += len(data)
            self.read_bytes += len(data)
            self._feed_lines(f, data)

    # -- reading ----------------------------------------------------------------------
    def _read_to_eof(self, f: _File, budget: bool = False) -> bool:
        """Read what is new; False when stopped early: at the queue's bound (``budget``,
        inline: the caller is the consumer, who drains before the next pass) or a stop."""
        if f.fd is None:
            return True
        while not self._stop.is_set():
            if budget and self.inline and self._queued > MAX_QUEUED:
                self._more = True
                return False
            try:
                data = os.pread(f.fd, CHUNK, f.offset)
            except OSError as e:
                self._error(f, f.path, e, "read error")
                return True
            if not data:
                return True
            if f.offset and f.head and f.reader.kind == "lines" and not self._still(f):
                f.moved = True  # truncated (and written again past our offset) since the check
                return True
            self._take(f, data)

    def _still(self, f: _File) -> bool:
        """The file still begins with what we read: a chunk just read at our offset is
        its continuation, not bytes of a copytruncate's new content (one small pread)."""
        try:
            return os.pread(f.fd, len(f.head), 0) == f.head
        except OSError:
            return True

    def _take(self, f: _File, data: bytes) -> None:
        """The bytes read at ``f.offset``: to the reader, the offset and fingerprints moved on."""
        f.offset += len(data)
        f.active_at = time.monotonic()
        if self.caught_up.is_set():
            self._active_at = f.active_at
        self.read_bytes += len(data)
        if len(f.head) < FINGERPRINT:
            f.head = (f.head + data)[:FINGERPRINT]
        f.tail = (f.tail + data[-FINGERPRINT:])[-FINGERPRINT:]
        if f.reader.kind == "bytes":
            try:
                # a big read (history, a burst): the replay's columnar path, same records
                recs = f.reader.feed_chunk(data) if len(data) >= CHUNKED_MIN else f.reader.feed_bytes(data)
            except Exception as e:  # a reader bug must not stop the tailer
                f.reader.skip(f"reader error: {type(e).__name__}")
                recs = []
            self._put(f.path, f.reader, f.accept(recs))
        else:
            self._feed_lines(f, data)

    def _feed_lines(self, f: _File, data: bytes) -> None:
        reader = f.reader
        if b"\0" in data:  # a copy-truncate hole (or NUL runs mid-file): dropped, counted
            data, n = strip_nul(data)
            reader.skip_reasons[HOLE] = reader.skip_reasons.get(HOLE, 0) + n
        if len(data) >= CHUNKED_MIN and not f.discarding:
            # a big read (the history present at start, a burst): whole lines go through
            # the replay's chunked path (Frames; the same records as line by line); a
            # line begun in the last read and the partial last line go line by line
            j = data.rfind(b"\n")
            k = data.find(b"\n") + 1 if f.partial else 0
            if 0 <= k <= j:
                if k:
                    self._feed_each_line(f, data[:k])
                try:
                    items = reader.feed_chunk(data[k: j + 1])
                except Exception as e:  # a reader bug must not stop the tailer
                    lines = data.count(b"\n", k, j + 1)
                    reader.skip(f"reader error: {type(e).__name__} (a chunk of {lines} lines)")
                    items = []
                self._put(f.path, reader, f.accept(items))
                data = data[j + 1:]
        self._feed_each_line(f, data)

    def _feed_each_line(self, f: _File, data: bytes) -> None:
        reader = f.reader
        out: list[StepRecord] = []
        start = 0
        n = len(data)
        while start < n:
            nl = data.find(b"\n", start)
            if nl < 0:
                rest = data[start:]
                if f.discarding:
                    break
                if len(f.partial) + len(rest) > MAX_LINE:
                    reader.skip(f"line longer than {MAX_LINE // (1 << 20)} MiB")
                    f.partial.clear()
                    f.discarding = True
                else:
                    f.partial += rest
                break
            piece = data[start:nl]
            start = nl + 1
            if f.discarding:
                f.discarding = False
                continue
            if f.partial:
                f.partial += piece
                raw = bytes(f.partial)
                f.partial.clear()
            else:
                raw = piece
            if len(raw) + 1 > MAX_LINE:
                reader.skip(f"line longer than {MAX_LINE // (1 << 20)} MiB")
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("utf-8", "replace")
                reader.skip_reasons[NON_UTF8] = reader.skip_reasons.get(NON_UTF8, 0) + 1
            if line.endswith("\r"):
                line = line.rstrip("\r")
            try:
                recs = reader.take_line(line, reader.feed(line))
            except Exception as e:  # a reader bug must not stop the tailer
                reader.skip(f"reader error: {type(e).__name__}")
                continue
            if recs:
                out.extend(recs)
                if len(out) >= 4096:
                    self._put(f.path, reader, f.accept(out))
                    out = []
        self._put(f.path, reader, f.accept(out))

    def _read_snapshot(self, f: _File, st) -> None:
        f.size, f.mtime_ns = st.st_size, st.st_mtime_ns
        if self.caught_up.is_set():
            self._active_at = time.monotonic()
        try:
            # read_path: a file's bytes, or a directory source (MLflow metrics/)
            recs = f.reader.read_path(f.path)
        except OSError as e:
            self._error(f, f.path, e, "read error")
            return
        except Exception:
            f.snap_dirty = True  # half-written (a save in progress): try again next pass
            return
        f.snap_dirty = False
        old = f.snap_steps
        common = 0
        lim = min(len(old), len(recs))
        while common < lim and old[common] == recs[common].step:
            common += 1
        f.snap_steps = array("q", (r.step for r in recs))
        new = recs[common:]
        if common < len(old) and new:
            self._event(f"{_short(f.path)}: history rewritten from step {new[0].step} (resumed run)", f.path)
        f.parsed = 0
        f.skip_floor = None
        self._put(f.path, f.reader, f.accept(new))


def _change_events() -> list:
    from watchdog import events as ev

    names = ("FileModifiedEvent", "FileCreatedEvent", "FileDeletedEvent", "FileMovedEvent", "FileClosedEvent",
             "DirModifiedEvent", "DirCreatedEvent", "DirDeletedEvent", "DirMovedEvent")
    return [getattr(ev, n) for n in names if hasattr(ev, n)]


try:
    _EVENTS = _change_events()
except ImportError:  # pragma: no cover - watchdog is a dependency
    _EVENTS = None


def _dir_aware(st, path: str):
    """A directory source (MLflow ``metrics/``) changes when its files do, not
    when the directory entry does: report the files' total size and newest mtime."""
    if not stat.S_ISDIR(st.st_mode):
        return st
    size, mtime = 0, st.st_mtime_ns
    try:
        with os.scandir(path) as it:
            for e in it:
                try:
                    est = e.stat()
                except OSError:
                    continue
                size += est.st_size
                mtime = max(mtime, est.st_mtime_ns)
    except OSError:
        pass
    return SimpleNamespace(st_dev=st.st_dev, st_ino=st.st_ino, st_size=size, st_mtime_ns=mtime, st_mode=st.st_mode)


def _temporary(name: str) -> bool:
    low = name.lower()
    return low.startswith(".") or low.endswith(TEMP_SUFFIXES)


def _looks_like_log(path: str) -> bool:
    low = os.path.basename(path).lower()
    if _temporary(low):
        return False
    return low.endswith(registry.LOG_EXT) or ".log." in low or low in ("stdout", "stderr", "log")


def _fid(st) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _close_fd(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _short(path: str) -> str:
    return os.path.basename(path) or path
