"""Pilot tests of the runs screen: PATH holding several runs shows one row per
run, the sick ones first; Enter opens a run's dashboard, Esc comes back; a run
that starts later appears."""

from __future__ import annotations

import asyncio
import json
import math
import time

from livefiles import append, curve

from tsm_tui.cli import parse
from tsm_tui.views.tui import TsmApp
from tsm_tui.views.tui.runs import RunsScreen


def jsonl(path, n=300, nan_at=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for s in range(1, n + 1):
        r = dict(curve(s))
        r["lr"] = r.pop("learning_rate")
        if s == nan_at:
            r["loss"] = math.nan
        lines.append(json.dumps(r) + "\n")
    path.write_text("".join(lines))


async def until(pilot, cond, timeout=15.0):
    t0 = time.monotonic()
    while not cond() and time.monotonic() - t0 < timeout:
        await pilot.pause(0.05)
    return cond()


def test_runs_screen_enter_and_escape(tmp_path):
    for name in ("a_ok", "b_nan", "c_ok"):
        jsonl(tmp_path / name / "metrics.jsonl", nan_at=200 if name == "b_nan" else None)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        assert app.runs_mode and set(app.run_rows) == {"a_ok", "b_nan", "c_ok"}
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            await pilot.pause(0.2)
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            screen.refresh_rows()
            assert screen.order()[0] == "b_nan"  # the failing run on top
            await pilot.press("enter")
            assert await until(pilot, lambda: not isinstance(app.screen, RunsScreen))
            assert app.current_run == "b_nan"
            assert await until(pilot, lambda: app.check_statuses().get("nonfinite") == "FAIL")
            assert all(a.check != "nonfinite" or a.step == 200 for a in app._all_alerts)
            await pilot.press("escape")
            assert await until(pilot, lambda: isinstance(app.screen, RunsScreen))
            await pilot.press("down", "enter")
            assert await until(pilot, lambda: not isinstance(app.screen, RunsScreen))
            assert app.current_run in ("a_ok", "c_ok")
            assert await until(pilot, lambda: app.check_statuses().get("nonfinite") == "PASS")

    asyncio.run(body())


def test_runs_screen_live_new_run_appears(tmp_path):
    jsonl(tmp_path / "r1" / "metrics.jsonl", n=100)
    jsonl(tmp_path / "r2" / "metrics.jsonl", n=100)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]))
        assert app.runs_mode and app.mode == "live"
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: all(r.last_step == 100 for r in app.run_rows.values()))
            jsonl(tmp_path / "r3" / "metrics.jsonl", n=50)
            assert await until(pilot, lambda: "r3" in app.run_rows and app.run_rows["r3"].last_step == 50)
            rec = dict(curve(101), loss=math.nan)
            append(tmp_path / "r1" / "metrics.jsonl", json.dumps(rec) + "\n")
            assert await until(pilot, lambda: app.run_rows["r1"].newest is not None
                               and app.run_rows["r1"].newest.check == "nonfinite")
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            assert await until(pilot, lambda: screen.order()[0] == "r1")

    asyncio.run(body())
