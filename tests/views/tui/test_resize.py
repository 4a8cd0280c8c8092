"""A screen whose queue holds two Resizes of different sizes settles at the terminal's size.

Textual 8.2.8 lays a screen out at the size each queued Resize carries, and a relayout that
changes the screen's size posts a Resize of that size to the screen itself, followed (while a
batch update is open) by a ``_compositor_refresh`` callback: two pending sizes kept re-posting
each other for ever, the screen's task never yielded, the batch never closed (100% CPU, the UI
frozen): tsm_tui/views/tui/fresh_size.py says how, with Textual's file:line.

The Resizes are posted the way ``App._check_resize`` posts them (a screen's loop behind the
terminal: the app starting, the dashboard composing under the runs screen, two resizes in quick
succession), with a callback between them (``call_later``: what Textual queues itself), while a
batch is open (``App.delay_update``: what push_screen / a Footer recompose hold). Each test is
bounded: past ``BOUND`` relayouts of one screen the counter stops relaying out, so a regression
fails the assertion instead of hanging."""

from __future__ import annotations

import asyncio
import shutil
from contextlib import asynccontextmanager

from textual import events
from textual.geometry import Size
from textual.screen import Screen

from tsm_tui.cli import parse
from tsm_tui.views.tui import TsmApp
from tsm_tui.views.tui.runs import RunsScreen
from tsm_tui.views.tui.widgets import HelpScreen

from helpers.tui import run
from helpers.wait import pilot_until
from test_app import sample

BOUND = 40  # relayouts of one screen after which the counter breaks the cycle (a regression)
OLD, NEW = Size(140, 30), Size(80, 24)  # across both breakpoints (-wide / -narrow: 120 columns)


def two_runs(tmp_path):
    """A folder of two real sample runs: the runs screen, the dashboard beneath it."""
    for name in ("healthy", "nan_divergence"):
        shutil.copytree(sample(name), tmp_path / name)
    return tmp_path


@asynccontextmanager
async def on_the_runs_screen(tmp_path, size=NEW):
    """The app on two finished runs, the runs screen shown, the dashboard beneath it."""
    app = TsmApp.from_options(parse([str(two_runs(tmp_path)), "--no-bell"]), mode="finished")
    async with app.run_test(size=tuple(size)) as pilot:
        await pilot_until(pilot, lambda: isinstance(app.screen, RunsScreen) and app.loaded, 15, "the runs screen")
        await pilot.pause(0.2)
        yield app, pilot


def count_relayouts(monkeypatch) -> dict[int, int]:
    """Relayouts per screen (``Screen._screen_resized``, which Textual calls for a Resize),
    breaking the cycle past BOUND."""
    counts: dict[int, int] = {}
    original = Screen._screen_resized

    def counted(self, size):
        counts[id(self)] = counts.get(id(self), 0) + 1
        if counts[id(self)] <= BOUND:
            original(self, size)

    monkeypatch.setattr(Screen, "_screen_resized", counted)
    return counts


def stale_then_fresh(app, screen) -> None:
    """The terminal was OLD, is NEW: the screen's queue holds both sizes, a callback after each."""
    app.delay_update(0.05)  # a batch is open (closed by a timer: only if the event loop turns)
    for size in (OLD, NEW):
        screen.post_message(events.Resize(size, size))
        screen.call_later(lambda: None)


async def settle(pilot):
    await pilot.pause(0.3)
    await pilot.pause()


def test_a_stale_resize_on_the_current_screen_settles_at_the_terminals_size(tmp_path, monkeypatch):
    async def body():
        async with on_the_runs_screen(tmp_path) as (app, pilot):
            counts = count_relayouts(monkeypatch)
            runs = app.screen
            stale_then_fresh(app, runs)
            await settle(pilot)
            assert counts.get(id(runs), 0) <= 4, f"the runs screen relaid out {counts.get(id(runs))} times"
            assert runs.size == NEW and app.size == NEW

    run(body())


def test_a_stale_resize_on_the_dashboard_beneath_the_runs_screen_settles(tmp_path, monkeypatch):
    async def body():
        async with on_the_runs_screen(tmp_path) as (app, pilot):
            counts = count_relayouts(monkeypatch)
            stale_then_fresh(app, app.dashboard)
            await settle(pilot)
            n = counts.get(id(app.dashboard), 0)
            assert n <= 4, f"the dashboard beneath the runs screen relaid out {n} times"
            await pilot.press("enter")  # the dashboard shown: at the terminal's size
            await pilot_until(pilot, lambda: not isinstance(app.screen, RunsScreen), 10, "a run's dashboard")
            await settle(pilot)
            assert app.dashboard.size == NEW

    run(body())


def test_a_stale_resize_under_the_help_screen_settles(tmp_path, monkeypatch):
    """The help screen over a run's dashboard (both laid out: the help is translucent)."""

    async def body():
        app = TsmApp.from_options(parse([str(sample("healthy")), "--no-bell"]), mode="finished")
        async with app.run_test(size=tuple(NEW)) as pilot:
            await pilot_until(pilot, lambda: app.loaded, 15, "the run")
            await pilot.press("question_mark")
            await pilot_until(pilot, lambda: isinstance(app.screen, HelpScreen), 10, "the help")
            await pilot.pause(0.2)
            counts = count_relayouts(monkeypatch)
            help_screen = app.screen
            stale_then_fresh(app, help_screen)
            stale_then_fresh(app, app.dashboard)
            await settle(pilot)
            for screen in (help_screen, app.dashboard):
                n = counts.get(id(screen), 0)
                assert n <= 6, f"{type(screen).__name__} relaid out {n} times"
                assert screen.size == NEW

    run(body())


def test_screens_follow_real_resizes_to_the_last_size(tmp_path):
    """Resizes in quick succession (the runs screen shown, the dashboard beneath it): every screen
    ends at the terminal's last size, on the runs screen and on a run's dashboard."""

    async def body():
        async with on_the_runs_screen(tmp_path, OLD) as (app, pilot):
            for w, h in ((100, 40), (200, 50), (90, 20), (120, 36), (80, 24)):
                await pilot.resize_terminal(w, h)
            await settle(pilot)
            assert app.screen.size == NEW and app.dashboard.size == NEW
            await pilot.press("enter")
            await pilot_until(pilot, lambda: not isinstance(app.screen, RunsScreen), 10, "a run's dashboard")
            await pilot.resize_terminal(*OLD)
            await settle(pilot)
            assert app.dashboard.size == OLD
            assert app.dashboard.has_class("-wide") and not app.dashboard.has_class("-narrow")

    run(body())


def test_the_bound_catches_the_cycle(tmp_path, monkeypatch):
    """The counter above does see the cycle: a screen that lays out whatever size it is handed
    (Textual's own Screen handler alone) relays out until the bound."""

    async def body():
        async with on_the_runs_screen(tmp_path) as (app, pilot):
            counts = count_relayouts(monkeypatch)
            runs = app.screen
            for cls in type(runs).__mro__:  # Textual's handler alone: every class's _on_resize but Screen's
                if cls is not Screen and "_on_resize" in cls.__dict__:
                    monkeypatch.setattr(cls, "_on_resize", lambda self, event: None)
            stale_then_fresh(app, runs)
            await asyncio.wait_for(settle(pilot), 60)
            assert counts.get(id(runs), 0) > BOUND

    run(body())
