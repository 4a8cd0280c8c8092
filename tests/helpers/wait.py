"""One way to wait for a condition in a test: poll it until it holds or a timeout passes.

``wait_until(pred, timeout, what)`` returns ``pred()``'s first truthy value and fails with
"timed out after 10 s waiting for <what>" otherwise; ``poll_until`` is the same wait returning a
bool (for ``assert x.wait_for(...), context``); ``quiet_for`` waits until nothing changes for a
while (anything late, a duplicate, would come now); ``await_until`` is the async variant and
``pilot_until`` the one for a Textual pilot (it yields to the app between looks). ``tick`` runs before every look (drain a
tailer, step a loop); ``alive`` returning False ends the wait early (the process it waits on has
exited: one last look, then the verdict).

Timeouts are generous, meant for a loaded machine; ``TSM_TEST_TIMEOUT_SCALE`` multiplies every one
(e.g. 3 on a box shared by many jobs)."""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from typing import Any, Callable

#: the default timeout (s): events normally arrive in well under a second
WAIT = 10.0
SCALE = float(os.environ.get("TSM_TEST_TIMEOUT_SCALE") or 1.0)
EVERY = 0.02  # s between looks


def _describe(what: str | Callable[[], Any] | None, pred: Callable[[], Any]) -> str:
    if callable(what):
        try:
            what = str(what())
        except Exception as e:  # the description must not hide the timeout
            what = f"(its description raised {e!r})"
    return what or getattr(pred, "__name__", repr(pred))


def poll_until(
    pred: Callable[[], Any],
    timeout: float = WAIT,
    *,
    every: float = EVERY,
    tick: Callable[[], Any] | None = None,
    alive: Callable[[], bool] | None = None,
    sleep: Callable[[float], Any] = time.sleep,
) -> Any:
    """``pred()``'s first truthy value within ``timeout`` (scaled), else its last (falsy) value."""
    end = time.monotonic() + timeout * SCALE
    while True:
        if tick is not None:
            tick()
        got = pred()
        if got:
            return got
        if time.monotonic() >= end or (alive is not None and not alive()):
            break
        sleep(every)
    if tick is not None:
        tick()
    return pred()


def wait_until(
    pred: Callable[[], Any], timeout: float = WAIT, what: str | Callable[[], Any] | None = None, **kw: Any
) -> Any:
    """``poll_until``, failing with a message that names what was awaited (``what``: text, or a
    callable evaluated at the failure, e.g. the process's stderr so far)."""
    got = poll_until(pred, timeout, **kw)
    if not got:
        raise AssertionError(f"timed out after {timeout * SCALE:g} s waiting for {_describe(what, pred)}")
    return got


def quiet_for(
    value: Callable[[], Any],
    quiet: float = 0.5,
    *,
    every: float = EVERY,
    tick: Callable[[], Any] | None = None,
    timeout: float = 60.0,
) -> Any:
    """Wait until ``value()`` has not changed for ``quiet`` seconds (at most ``timeout``, scaled);
    returns its last value."""
    end = time.monotonic() + timeout * SCALE
    if tick is not None:
        tick()
    last, since = value(), time.monotonic()
    while time.monotonic() - since < quiet and time.monotonic() < end:
        time.sleep(every)
        if tick is not None:
            tick()
        now = value()
        if now != last:
            last, since = now, time.monotonic()
    return last


async def await_until(
    look: Callable[[], Any],
    timeout: float = WAIT,
    what: str | Callable[[], Any] | None = None,
    *,
    every: float = 0.05,
    pause: Callable[[float], Any] | None = None,
    fail: bool = True,
) -> Any:
    """``wait_until`` in a coroutine: ``look()`` may be a coroutine function; ``await pause(every)``
    (``asyncio.sleep`` unless given) between looks. ``fail=False`` returns the last falsy value
    instead of failing."""
    pause = pause or asyncio.sleep
    end = time.monotonic() + timeout * SCALE
    while True:
        got = look()
        if inspect.isawaitable(got):
            got = await got
        if got or time.monotonic() >= end:
            break
        await pause(every)
    if not got and fail:
        raise AssertionError(f"timed out after {timeout * SCALE:g} s waiting for {_describe(what, look)}")
    return got


async def pilot_until(
    pilot: Any,
    pred: Callable[[], Any],
    timeout: float = 15.0,
    what: str | Callable[[], Any] | None = None,
    *,
    every: float = 0.05,
    fail: bool = True,
) -> Any:
    """``await_until`` for a Textual pilot: ``await pilot.pause(every)`` between looks, so the app
    runs its handlers meanwhile."""
    return await await_until(pred, timeout, what, every=every, pause=pilot.pause, fail=fail)


__all__ = ["WAIT", "SCALE", "poll_until", "wait_until", "quiet_for", "await_until", "pilot_until"]
