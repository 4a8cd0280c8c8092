"""What wakes the tailer: file system events, read as hints (the file is the truth:
every pass reads each followed file from its offset to EOF anyway).

Our own inotify (``sources/tail/inotify.py``) where the kernel has it: its
descriptor is ``select``ed in the thread that makes the passes, and every queued
event is read in one ``os.read`` (the kernel merges repeated unread events of a
file). watchdog elsewhere (its threads set an Event). Neither: polling every
``interval``. A socket pair interrupts the sleep (``poke``: a stop, a ``wake``).

Besides "look again", an event says what discovery and the live loop need to
know: a new file to sniff (``rescan_soon``), a config or a checkpoint written
(``Owner.change``, drained by the consumer as ``Feed.drain_changes``).
"""

from __future__ import annotations

import os
import socket
import threading
from typing import Any, Protocol

from tsm_tui.sources.tail import inotify
from tsm_tui.sources.tail.paths import looks_like_log, short


class Owner(Protocol):
    """What the wake-ups need from their tailer."""

    path: str
    interval: float
    poll_interval: float | None
    mode: str

    def note(self, text: str, path: str | None = None) -> None: ...

    def change(self, path: str) -> None: ...

    def followed(self, path: str) -> bool: ...


class Wakeups:
    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self.wake = threading.Event()  # set by watchdog's threads and by ``poke``
        self.rescan = threading.Event()  # list the tree at the next pass
        self.rescan_soon = False  # a new file was announced: list the tree soon (rate-limited)
        self.observer: Any = None  # watchdog's, where our own inotify is not available
        self.ino: inotify.Inotify | None = None
        self._wake_r: socket.socket | None = None  # a byte here interrupts ``sleep``
        self._wake_w: socket.socket | None = None
        self._watched: str | None = None

    @property
    def watching(self) -> bool:
        return self.observer is not None or self.ino is not None

    def ensure(self) -> None:
        """Watch the followed tree (the nearest existing directory above a path that
        does not exist yet); falls back to polling when no watch can be set."""
        path = self.owner.path
        target = path if os.path.isdir(path) else os.path.dirname(path)
        while not os.path.isdir(target) and os.path.dirname(target) != target:
            target = os.path.dirname(target)
        if target == self._watched and (self.ino is None or self.ino.alive):
            return
        self._stop_watching()
        recursive = os.path.isdir(path)
        if inotify.available():
            try:
                self.ino = inotify.Inotify(target, recursive)
            except OSError as e:  # out of watches / instances, odd filesystems
                self._fallback(f"inotify unavailable ({e.strerror or e})")
                return
            if self.ino.full:
                self.owner.note(
                    f"{short(target)}: more directories than inotify watches "
                    f"({self.ino.watches:,} watched); the rest is found by the periodic walk"
                )
            if self._wake_r is None:
                self._wake_r, self._wake_w = socket.socketpair()
                self._wake_r.setblocking(False)
                self._wake_w.setblocking(False)
            self._watched = target
            self.rescan.set()  # files may have appeared before the watch was in place
            return
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:  # pragma: no cover - watchdog is a dependency
            self._fallback("watchdog is not installed")
            return
        wakeups = self

        class _Hint(FileSystemEventHandler):
            def on_any_event(self, event):  # noqa: D401 - watchdog callback
                et = event.event_type
                if et in ("opened", "closed_no_write"):
                    return
                wakeups.hint(et, event.src_path, event.is_directory)
                if et == "moved":
                    wakeups.owner.change(getattr(event, "dest_path", "") or event.src_path)
                wakeups.wake.set()

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
        self.observer, self._watched = obs, target
        self.rescan.set()  # files may have appeared before the watch was in place

    def hint(self, kind: str, path: str, is_dir: bool) -> None:
        """One file system event: what it says besides "look again" (a new file to
        sniff, a config or checkpoint written: ``Feed.drain_changes``)."""
        owner = self.owner
        if kind in ("created", "moved", "deleted"):
            self.rescan_soon = True
            owner.change(path)
        elif is_dir or not owner.followed(path):
            owner.change(path)  # a config rewritten, a file saved into a checkpoint dir
        if kind == "modified" and not is_dir and not owner.followed(path) and looks_like_log(path):
            self.rescan_soon = True  # an empty file we could not sniff has grown

    def read_events(self) -> None:
        """Everything the kernel queued since the last pass, in one read."""
        ino = self.ino
        if ino is None:
            return
        for kind, path, is_dir in ino.read():
            if kind == inotify.OVERFLOW:  # events were lost: look at everything
                self.rescan.set()
                self.owner.change("*")
                continue
            self.hint(kind, path, is_dir)

    def sleep(self, period: float) -> bool:
        """Wait for an event (or a wake-up, or ``period``); True when woken early."""
        ino = self.ino
        if ino is None or self._wake_r is None:
            self.wake.wait(period)
            return self.wake.is_set()
        if self.wake.is_set():
            return True
        woke = ino.wait(period, self._wake_r.fileno())
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:
            pass
        return woke or self.wake.is_set()

    def poke(self) -> None:
        """Interrupt ``sleep`` (stop, wake)."""
        self.wake.set()
        w = self._wake_w
        if w is not None:
            try:
                w.send(b"x")
            except OSError:  # full (a wake-up is pending anyway) or closed
                pass

    def _fallback(self, why: str) -> None:
        owner = self.owner
        owner.poll_interval = owner.interval
        owner.mode = "polling"
        owner.note(f"{why}: polling every {owner.interval:g}s")

    def _stop_watching(self) -> None:
        ino, self.ino = self.ino, None
        if ino is not None:
            ino.close()
        obs, self.observer, self._watched = self.observer, None, None
        if obs is not None:
            try:
                obs.stop()
                obs.join(2.0)
            except Exception:
                pass

    def close(self) -> None:
        self._stop_watching()
        for sock in (self._wake_r, self._wake_w):
            if sock is not None:
                sock.close()
        self._wake_r = self._wake_w = None


def _change_events() -> list:
    from watchdog import events as ev

    names = (
        "FileModifiedEvent",
        "FileCreatedEvent",
        "FileDeletedEvent",
        "FileMovedEvent",
        "FileClosedEvent",
        "DirModifiedEvent",
        "DirCreatedEvent",
        "DirDeletedEvent",
        "DirMovedEvent",
    )
    return [getattr(ev, n) for n in names if hasattr(ev, n)]


_EVENTS: list | None
try:
    _EVENTS = _change_events()
except ImportError:  # pragma: no cover - watchdog is a dependency
    _EVENTS = None
