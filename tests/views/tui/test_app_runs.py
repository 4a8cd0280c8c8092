"""Pilot tests of the runs screen: PATH holding several runs shows one row per
run, the sick ones first; Enter opens a run's dashboard, Esc comes back; a run
that starts later appears."""

from __future__ import annotations

import asyncio
import json
import math
import os
import time

import pytest

from helpers.livefiles import append, curve

from tsm_tui.cli import parse
from tsm_tui.views.tui import TsmApp
from tsm_tui.views.tui.runs import RunsScreen
from helpers.wait import pilot_until
from helpers import paths


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
    return await pilot_until(pilot, cond, timeout, fail=False)


@pytest.mark.slow
def test_runs_screen_enter_and_escape(tmp_path):
    for name in ("a_ok", "b_nan", "c_ok"):
        jsonl(tmp_path / name / "metrics.jsonl", nan_at=200 if name == "b_nan" else None)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        assert (app.live.top is not None) and set(app.run_rows) == {"a_ok", "b_nan", "c_ok"}
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
            assert all(a.check != "nonfinite" or a.step == 200 for a in app.dashboard.run_alerts)
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
        assert (app.live.top is not None) and app.mode == "live"
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: all(r.activity.last_step == 100 for r in app.run_rows.values()))
            jsonl(tmp_path / "r3" / "metrics.jsonl", n=50)
            assert await until(pilot, lambda: "r3" in app.run_rows and app.run_rows["r3"].activity.last_step == 50)
            rec = dict(curve(101), loss=math.nan)
            append(tmp_path / "r1" / "metrics.jsonl", json.dumps(rec) + "\n")
            assert await until(
                pilot, lambda: app.run_rows["r1"].newest is not None and app.run_rows["r1"].newest.check == "nonfinite"
            )
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            assert await until(pilot, lambda: screen.order()[0] == "r1")

    asyncio.run(body())


def _cell(screen, name, key):
    """The text a runs-table cell shows now."""
    return screen._shown[(name, key)][0]


@pytest.mark.slow
def test_runs_screen_filter_and_sort(tmp_path):
    for name, n in (("alpha_1", 300), ("alpha_2", 200), ("beta_1", 250)):
        jsonl(tmp_path / name / "metrics.jsonl", n=n, nan_at=150 if name == "beta_1" else None)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            screen = app.screen
            assert await until(pilot, lambda: screen._order and screen._order[0] == "beta_1")
            await pilot.press("slash", *"alpha")
            assert await until(pilot, lambda: screen._order == ["alpha_1", "alpha_2"])
            assert "filter alpha" in screen._texts["runs-status"]
            await pilot.press("enter", "escape")  # keep the filter, then clear it
            assert await until(pilot, lambda: len(screen._order) == 3)
            await pilot.press("s")  # by name
            assert await until(pilot, lambda: screen._order == ["alpha_1", "alpha_2", "beta_1"])
            await pilot.press("s")  # by step
            assert await until(pilot, lambda: screen._order == ["alpha_1", "beta_1", "alpha_2"])
            assert _cell(screen, "alpha_2", "step") == "200"

    asyncio.run(body())


@pytest.mark.slow
def test_runs_screen_stalled_after_silence(tmp_path):
    """Ages move with the clock, not with new writes: a run silent for two minutes reads
    "stall 2m" and goes on top, without a single new record (the 1 s timer)."""
    jsonl(tmp_path / "quiet" / "metrics.jsonl", n=100)
    jsonl(tmp_path / "busy" / "metrics.jsonl", n=100)
    shift = [0.0]

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]))
        app.wall = lambda: time.time() + shift[0]
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: all(r.activity.last_step == 100 for r in app.run_rows.values()))
            for s in (101, 102):  # both write while watched
                for name in ("quiet", "busy"):
                    append(tmp_path / name / "metrics.jsonl", json.dumps(dict(curve(s), lr=3e-4)) + "\n")
                await pilot.pause(0.3)
            assert await until(pilot, lambda: all(r.activity.last_step == 102 for r in app.run_rows.values()))
            screen = app.screen
            assert await until(pilot, lambda: _cell(screen, "quiet", "age") == "<10s")
            repaints = screen.repaints
            await pilot.pause(1.5)
            assert screen.repaints - repaints == 0  # nothing reads differently: nothing redrawn
            # ... and the 1 s timer does not even look: "<10s" reads so for seconds yet
            assert screen._tick_due > screen.clock() + 3
            shift[0] = 125.0  # two minutes of silence for both ...
            append(tmp_path / "busy" / "metrics.jsonl", json.dumps(dict(curve(103), lr=3e-4)) + "\n")  # ... but one
            assert await until(pilot, lambda: _cell(screen, "quiet", "age") == "stall 2m", timeout=5)
            assert _cell(screen, "busy", "age") == "<10s"
            assert "1 stalled" in screen._texts["runs-status"]
            assert screen._order[0] == "quiet"

    asyncio.run(body())


def test_finished_runs_show_the_time_since_they_wrote(tmp_path):
    jsonl(tmp_path / "old" / "metrics.jsonl", n=100)
    jsonl(tmp_path / "new" / "metrics.jsonl", n=100)
    hour = time.time() - 3600
    os.utime(tmp_path / "old" / "metrics.jsonl", (hour, hour))

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            screen = app.screen
            assert await until(pilot, lambda: _cell(screen, "old", "age") == "1h")
            assert _cell(screen, "new", "age") == "<10s"
            assert "stall" not in _cell(screen, "old", "age")  # a finished run is not stalled

    asyncio.run(body())


def test_a_run_that_reached_its_planned_steps_is_done_not_stalled(tmp_path):
    """Followed live, an hour-old run that reached the steps its config planned reads
    "done 1h" (dim), one that stopped short of them "stall 1h" on top."""
    for name, n in (("complete", 100), ("cut_short", 60)):
        jsonl(tmp_path / name / "metrics.jsonl", n=n)
        (tmp_path / name / "config.json").write_text(json.dumps({"max_steps": 100, "warmup_steps": 5}))
        hour = time.time() - 3600
        os.utime(tmp_path / name / "metrics.jsonl", (hour, hour))

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]))
        assert app.mode == "live"
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert await until(pilot, lambda: _cell(screen, "cut_short", "age") == "stall 1h")
            assert _cell(screen, "complete", "age") == "done 1h"
            assert "1 stalled" in screen._texts["runs-status"]
            assert screen._order[0] == "cut_short"

    asyncio.run(body())


@pytest.mark.slow
def test_fifty_runs_at_80x24(tmp_path):
    """50 runs at 80x24: the table fits the width (no horizontal scroll), the failing runs
    are on top with their worst check and counts, the highlighted run's newest critical
    alert is on screen below the table."""
    for i in range(50):
        jsonl(
            tmp_path / f"lr{i % 5}e-4_wd0.{i % 2}_seed{i}" / "metrics.jsonl",
            n=120,
            nan_at=100 if i in (7, 33) else None,
        )

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(
                pilot,
                lambda: app.loaded and len(app.run_rows) == 50 and all(r.checks for r in app.run_rows.values()),
                timeout=60,
            )
            screen = app.screen
            await pilot.pause(1.2)
            t = screen.query_one("#runs")
            assert t.virtual_size.width <= t.size.width, (t.virtual_size, t.size)
            top = screen._order[:2]
            assert sorted(top) == sorted(["lr2e-4_wd0.1_seed7", "lr3e-4_wd0.1_seed33"])
            assert _cell(screen, top[0], "worst") == "nan FAIL" and _cell(screen, top[0], "cw").startswith("1/")
            assert _cell(screen, top[0], "checks")[5] == "F"  # the nan letter of "sglbpn"
            detail = screen._texts["runs-detail"]
            assert detail.startswith(top[0]) and "newest critical: step 100 nonfinite" in detail
            region = screen.query_one("#runs-detail").region
            assert region.y + region.height <= 24 and region.width > 0

    asyncio.run(body())


def test_long_run_names_widen_the_column(tmp_path):
    jsonl(tmp_path / "a" / "metrics.jsonl", n=60)
    jsonl(tmp_path / "b" / "metrics.jsonl", n=60)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]))
        async with app.run_test(size=(140, 30)) as pilot:
            assert await until(pilot, lambda: "a" in app.run_rows and app.run_rows["a"].activity.last_step == 60)
            assert app.screen.query_one("#runs").columns["run"].width == 4  # (the title's width)
            long = "sweep_lr3e-4_wd0.1_warmup2000_seed17"
            jsonl(tmp_path / long / "metrics.jsonl", n=50)
            screen = app.screen
            assert await until(pilot, lambda: long in screen._order)
            t = screen.query_one("#runs")
            assert t.columns["run"].width == len(long)  # the width there is: the whole name (issue 31)
            assert _cell(screen, long, "run") == long
            await pilot.resize_terminal(80, 24)  # narrow: elided in the middle, not cut
            assert await until(pilot, lambda: "…" in _cell(screen, long, "run"))
            cell = _cell(screen, long, "run")
            assert t.columns["run"].width == len(cell) < len(long)
            assert cell.startswith("sweep_lr") and cell.endswith("seed17")

    asyncio.run(body())


@pytest.mark.slow
def test_opening_a_run_without_checks_shows_none_of_the_previous_ones(tmp_path):
    jsonl(tmp_path / "a_nan" / "metrics.jsonl", n=200, nan_at=150)
    jsonl(tmp_path / "b_ok" / "metrics.jsonl", n=200)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(100, 30)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            app.open_run("a_nan")
            assert await until(pilot, lambda: app.check_statuses().get("nonfinite") == "FAIL")
            app.show_runs()
            app.run_rows["b_ok"].check_list = []  # as a run that has not been judged yet
            app.open_run("b_ok")
            await pilot.pause(0.3)
            assert app.check_statuses()["nonfinite"] == "SKIP"

    asyncio.run(body())


def test_same_step_spikes_noted_in_the_runs_table(tmp_path):
    for i in range(4):
        path = tmp_path / f"r{i}" / "metrics.jsonl"
        jsonl(path, n=400)
        if i < 3:  # a spike at step 250 in three runs
            lines = path.read_text().splitlines(keepends=True)
            rec = json.loads(lines[249])
            rec["loss"] *= 5
            lines[249] = json.dumps(rec) + "\n"
            path.write_text("".join(lines))

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            screen = app.screen
            assert await until(pilot, lambda: all(app.run_rows[f"r{i}"].shared == (250, 2) for i in range(3)))
            assert await until(pilot, lambda: _cell(screen, "r0", "also") == "+2")
            assert _cell(screen, "r3", "also") == ""

    asyncio.run(body())


def test_rank_departures_reach_the_runs_screen(tmp_path):
    """A job directory among the runs: NaN on one rank only is its worst check (the ranks
    check runs in the live loop, not only in --report)."""
    for r in range(4):
        lines = []
        for s in range(1, 201):
            loss = "nan" if (r == 2 and s >= 150) else f"{curve(s)['loss']:.4f}"
            lines.append(f"iter {s}: loss {loss}, time {1000 + r:.2f}ms, mfu 40.00%\n")
        (tmp_path / "job").mkdir(exist_ok=True)
        (tmp_path / "job" / f"rank{r}.log").write_text("".join(lines))
    jsonl(tmp_path / "other" / "metrics.jsonl", n=200)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            screen = app.screen
            assert await until(pilot, lambda: "ranks" in app.run_rows["job"].checks)
            assert app.run_rows["job"].checks["ranks"].status.value == "FAIL"
            assert await until(pilot, lambda: _cell(screen, "job", "worst") == "ranks FAIL")
            assert screen._order[0] == "job"
            assert app.run_rows["job"].checks["nonfinite"].status.value == "PASS"  # rank 0's series

    asyncio.run(body())


def test_age_changes_in_agrees_with_age_text():
    from tsm_tui.views.tui.runs import age_changes_in, age_text

    for s in (0.0, 3.2, 9.99, 10.0, 17.0, 59.5, 60.0, 61.0, 119.9, 3599.0, 3600.0, 7300.0, 48 * 3600.0 + 5, 3e6):
        d = age_changes_in(s)
        assert d > 0
        assert age_text(s + d * 0.999) == age_text(s)  # the same text until then ...
        assert age_text(s + d + 1e-6) != age_text(s)  # ... and different right after


def _footer_keys(app) -> set[str]:
    """The actions the footer offers on the active screen."""
    return {b.action for _, b, enabled, _ in app.active_bindings.values() if b.show and enabled}


@pytest.mark.slow
def test_runs_screen_owns_its_keys_help_and_footer(tmp_path):
    """Issue 31 §2: the runs screen's footer offers its own keys (open, filter, sort, help,
    quit), none of the dashboard's (pause / follow / log / metric / window did nothing
    there); ? shows its keys and the legend of `sglbpn` and `c/w`; Esc back from a run
    keeps the filter and the cursor."""
    from tsm_tui.views.tui.widgets import HelpScreen

    for name in ("alpha_1", "alpha_2", "alpha_3", "beta_1"):
        jsonl(tmp_path / name / "metrics.jsonl", n=200, nan_at=150 if name == "alpha_3" else None)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            await pilot.pause(0.3)
            screen = app.screen
            assert isinstance(screen, RunsScreen)
            keys = _footer_keys(app)
            assert {"select_cursor", "filter", "sort", "help", "quit"} <= keys
            assert not keys & {"pause", "follow", "log_scale", "next_metric", "cycle_window", "critical"}
            await pilot.press("p")  # a dashboard key does nothing here
            assert not app.dashboard.paused
            await pilot.press("question_mark")
            await pilot.pause(0.2)
            assert isinstance(app.screen, HelpScreen)
            helptext = "\n".join(str(w.render()) for w in app.screen.query("Label"))
            for needle in ("sglbpn", "c/w", "Enter", "Esc", "sort", "done", "stall"):
                assert needle in helptext, needle
            assert "log scale" not in helptext and "pause" not in helptext
            await pilot.press("escape")
            await pilot.pause(0.1)
            assert app.screen is screen
            # a kept filter and the cursor on its second run
            await pilot.press("slash", "a", "l", "p", "h", "a", "enter")
            await pilot.pause(0.2)
            assert screen.filter_text == "alpha" and len(screen._order) == 3
            await pilot.press("down")
            await pilot.pause(0.1)
            chosen = screen._order[screen.query_one("#runs").cursor_row]
            await pilot.press("enter")
            assert await until(pilot, lambda: not isinstance(app.screen, RunsScreen))
            assert app.current_run == chosen
            keys = _footer_keys(app)  # the dashboard's own keys are back
            assert {"pause", "follow", "log_scale"} <= keys
            await pilot.press("escape")
            assert await until(pilot, lambda: isinstance(app.screen, RunsScreen))
            assert app.screen is screen and screen.filter_text == "alpha"
            assert screen.query_one("#runs-filter").display
            assert screen._order[screen.query_one("#runs").cursor_row] == chosen

    asyncio.run(body())


def test_the_highlighted_run_shows_its_fails_first_action(tmp_path):
    jsonl(tmp_path / "a_nan" / "metrics.jsonl", n=200, nan_at=150)
    jsonl(tmp_path / "b_ok" / "metrics.jsonl", n=200)

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]), mode="finished")
        async with app.run_test(size=(80, 24)) as pilot:
            assert await until(pilot, lambda: app.loaded and all(r.checks for r in app.run_rows.values()))
            await pilot.pause(0.3)
            screen = app.screen
            screen.refresh_rows()
            crit = app.run_rows["a_nan"].newest_critical
            assert crit is not None and crit.actions
            lines = screen._texts["runs-detail"].splitlines()
            assert len(lines) == 3 and lines[0].startswith("a_nan")
            assert lines[2] == f"→ {crit.actions[0]}"
            region = screen.query_one("#runs-detail").region
            assert region.height == 3 and region.bottom <= 23

    asyncio.run(body())


def test_a_run_whose_tracker_recorded_its_exit_is_done(tmp_path):
    """Real W&B run files (SDK 0.31.0's exit record, exit code 0), an hour old, followed
    live: "done 1h", never "stall" (they have no planned total to reach)."""
    import shutil

    src = os.path.join(paths.DATA, "wandb", "sdk-0.31.0")
    for name in ("plain_nan", "hf_gradspike"):
        shutil.copytree(os.path.join(src, name), tmp_path / name)
    hour = time.time() - 3600
    for root, _, files in os.walk(tmp_path):
        for f in files:
            os.utime(os.path.join(root, f), (hour, hour))

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]))
        assert app.mode == "live" and (app.live.top is not None)
        async with app.run_test(size=(100, 24)) as pilot:
            screen = app.screen
            assert await until(
                pilot, lambda: len(app.run_rows) == 2 and all(r.activity.exit_code == 0 for r in app.run_rows.values())
            )
            screen.refresh_rows()
            for name in app.run_rows:
                assert _cell(screen, name, "age").startswith("done "), _cell(screen, name, "age")
            assert "0 stalled" in screen._texts["runs-status"]

    asyncio.run(body())


def test_exit_code_rules_of_a_run_row():
    from tsm_tui.views.tui.activity import RunActivity
    from tsm_tui.views.tui.runs import RunRow

    now, wall = 1000.0, 1e9
    r = RunRow("r", RunActivity(last_step=50, planned=None, last_write=wall - 3600))
    a = r.activity
    assert not a.done and a.stalled_for(now, wall) == 3600  # quiet, no plan, no exit: a stall
    a.exit_code = 0
    assert a.done and a.ended == "done" and a.stalled_for(now, wall) is None
    a.exit_code = 1  # a crash the tracker recorded: ended, not done, never a stall
    assert not a.done and a.ended == "exited" and a.stalled_for(now, wall) is None
    s = RunsScreen({"r": r}, clock=lambda: now, wall=lambda: wall)
    assert s._age(r, now, wall) == ("exit 1 1h", "bold $error")


def test_one_liveness_model_for_the_dashboard_and_the_runs_table():
    """views/tui/activity.py: the rate counts only records that arrived live (a history read
    at the start, in parts, is not a speed), over the last RATE_HORIZON seconds; crash tags
    and exit codes end a run the same way for both views."""
    from tsm_tui.core.record import CheckResult, Status
    from tsm_tui.views.tui.activity import RATE_HORIZON, STALL_MIN, RunActivity

    a = RunActivity()
    a.arrived(0.0, 50_000, live=False)  # the history, read at the start
    a.arrived(0.5, 100_000, live=False)
    assert a.steps_per_s(0.5) is None and a.last_step == 100_000 and not a.intervals
    for t in range(1, 11):  # then 2 steps/s, a line every second
        a.arrived(float(t), 100_000 + 2 * t)
    assert a.steps_per_s(10.0) == pytest.approx(2.0)
    assert a.steps_per_s(10.0 + RATE_HORIZON + 1) == 0.0  # quiet for longer than the horizon
    assert a.stall_after() == STALL_MIN  # a line a second: the floor
    assert a.stalled_for(10.0 + STALL_MIN + 1, 0.0) == pytest.approx(STALL_MIN + 1)
    a.note_checks([CheckResult("crash", "Crash", Status.FAIL, "Traceback", tag="crashed")])
    assert a.ended == "crashed" and a.stall_after() is None and not a.done
    a.note_checks({})
    a.planned = 100_021  # Lightning's last 0-based step is planned - 1
    assert a.ended is None and a.done and a.stalled_for(10.0 + STALL_MIN + 1, 0.0) is None


def test_a_run_rows_worst_check_is_the_most_urgent_at_the_worst_status():
    """Of two checks at one status the row names the one a person acts on first, by each
    detector's ``urgency`` (detectors/base.py; no table of ids in the view): a crash before a
    NaN before the ranks ... before the checkpoints, and a check the registry does not know
    after all of them. A worse status wins whatever the urgency."""
    from tsm_tui.analysis.detectors import CHECKS
    from tsm_tui.core.record import CheckResult, Status
    from tsm_tui.views.tui.runs import RunRow

    acted_on_first = (
        "crash",
        "nonfinite",
        "ranks",
        "loss_spike",
        "loss_scale",
        "grad_norm",
        "output_collapse",
        "overfitting",
        "lr_schedule",
        "plateau",
        "throughput",
        "batch_size",
        "checkpoints",
    )
    by_urgency = sorted(CHECKS, key=lambda c: CHECKS[c].urgency)
    # the checks above keep this order; a new check takes its place by its own urgency
    assert [c for c in by_urgency if c in acted_on_first] == list(acted_on_first)
    assert len({CHECKS[c].urgency for c in CHECKS}) == len(CHECKS)  # (no tie: one place each)
    r = RunRow("r")
    ids = ["not_a_check", *reversed(by_urgency)]
    for n in range(len(ids), 0, -1):
        r.set_checks([CheckResult(c, c, Status.WARN, "") for c in ids[:n]])
        worst = r.worst_check()
        assert worst is not None and worst.id == ids[n - 1]
    r.set_checks([CheckResult("crash", "c", Status.WARN, ""), CheckResult("checkpoints", "k", Status.FAIL, "")])
    assert r.worst_check().id == "checkpoints" and r.worst() == Status.FAIL
