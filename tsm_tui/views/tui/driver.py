"""Textual's Linux driver, with an input thread that sleeps while no key is pending.

Textual's input thread (``LinuxDriver.run_input_thread``, Textual 8.2.8, pinned in
pyproject.toml) wakes ten times a second (``select(0.1)``) so that its escape-sequence
parser can time out a lone ESC, whether or not one is pending. On the machines we
measured, a thread's wake-up costs ~100 us of CPU (``/proc/<pid>/task/<tid>/schedstat``):
those ten wake-ups were 0.11-0.15% of a core, half of what the whole dashboard costs
while the run is quiet (bench/RESULTS.md, section 7d).

``QuietLinuxDriver`` runs the same loop, but waits for the parser's own deadline when a
sequence is pending and otherwise until a key arrives (at most ``IDLE_WAIT``); a pipe
wakes it when input is disabled (quit, suspend with ctrl+z), so leaving is as prompt
as with Textual's own loop. Everything else is Textual's driver unchanged.
"""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder

from textual._loop import loop_last
from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

#: longest sleep of the input thread with nothing pending (a key or the exit pipe wakes it sooner)
IDLE_WAIT = 5.0
#: Textual's own tick while a sequence is pending (an ESC waiting for the rest of its sequence)
PENDING_TICK = 0.1


class _WakingEvent(threading.Event):
    """``exit_event`` that also writes to a pipe the input thread selects on."""

    def __init__(self, wake_fd: int) -> None:
        super().__init__()
        self._wake_fd = wake_fd

    def set(self) -> None:
        super().set()
        try:
            os.write(self._wake_fd, b"x")
        except OSError:  # full (a wake-up is pending anyway) or closed
            pass


class QuietLinuxDriver(LinuxDriver):
    """A LinuxDriver whose input thread does not poll (see the module's docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.exit_event = _WakingEvent(self._wake_w)

    def _input_timeout(self, parser: XTermParser) -> float:
        due = parser._timeout_time
        if due is None:
            return IDLE_WAIT
        return min(PENDING_TICK, max(0.0, due - get_time()))

    def run_input_thread(self) -> None:
        """Textual's loop (wait for input, feed the parser, dispatch its events) with
        the wait described above."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(self._wake_r, selectors.EVENT_READ)
        fileno = self.fileno
        parser = XTermParser(self._debug)
        feed = parser.feed
        tick = parser.tick
        decode = getincrementaldecoder("utf-8")().decode

        def process(selector_events, final: bool = False) -> None:
            ready = []
            for key, mask in selector_events:
                if key.fd == self._wake_r:
                    try:
                        while os.read(self._wake_r, 512):
                            pass
                    except OSError:  # drained (EAGAIN)
                        pass
                elif mask & selectors.EVENT_READ:
                    ready.append(key)
            for last, _key in loop_last(ready):
                data = decode(os.read(fileno, 1024 * 4), final=final and last)
                if not data:
                    break  # stdin is piped and ended
                for event in feed(data):
                    self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process(selector.select(self._input_timeout(parser)))
            selector.unregister(self.fileno)
            process(selector.select(PENDING_TICK), final=True)
        finally:
            selector.close()
            try:
                for _ in feed(""):
                    pass
            except (EOFError, ParseError):
                pass

    def close(self) -> None:
        super().close()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1
        if isinstance(self.exit_event, _WakingEvent):
            self.exit_event._wake_fd = -1  # the number may belong to another file by now
