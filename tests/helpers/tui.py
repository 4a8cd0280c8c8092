"""Driving the Textual app in a test: run an async body, wait for the run to load, read the screen."""

from __future__ import annotations

import asyncio

from helpers.wait import pilot_until


async def wait_loaded(pilot, app, timeout: float = 10.0) -> None:
    """Until the app has read the run's history (``app.loaded``), then one more refresh."""
    await pilot_until(pilot, lambda: app.loaded, timeout, "the run to load")
    await pilot.pause()


def screen_lines(app) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def run(coro):
    return asyncio.run(coro)
