"""Pilot tests of the live monitor (tsm_tui.views.tui) on the sample runs and on
synthetic logs. Async bodies run under asyncio.run (no pytest-asyncio here)."""

from __future__ import annotations

import math
import random
import time
from pathlib import Path

import pytest

from tsm_tui.views.tui import TsmApp
from tsm_tui.views.tui.widgets import CHECK_IDS, SHORT_TITLES, AlertDetail, AlertList, CheckRow, HelpScreen
from tsm_tui.cli import parse
from tsm_tui.analysis.replay import analyze
from tsm_tui.analysis.run_open import open_run
from tsm_tui.sources.feed import Feed, ReplayFeed
from tsm_tui.analysis.session import Session

from helpers.tui import run, screen_lines, wait_loaded
from helpers.wait import pilot_until
from helpers import paths

ROOT = Path(paths.ROOT)
SAMPLES = ROOT / "sample_runs"


# ------------------------------------------------------------------ helpers
def llmc_log(path: Path, n: int = 400, spike_at: int | None = 250, start: int = 1, seed: int = 1) -> None:
    """A synthetic llm.c main.log (s:N trl:LOSS lr:LR norm:GN) with one recovering spike."""
    path.write_text("".join(llmc_lines(n, spike_at, start, seed)))


def llmc_lines(n: int, spike_at: int | None, start: int = 1, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        s = start + i
        loss = 2.0 + 4.0 * math.exp(-s / 120) + rng.gauss(0, 0.02)
        gn = 0.5 + rng.gauss(0, 0.03)
        if spike_at is not None and s == spike_at:
            loss, gn = loss * 4.0, 25.0
        lr = 6e-4 * min(1.0, s / 20)
        out.append(f"s:{s} trl:{loss:.4f} lr:{lr:.6f} norm:{gn:.4f}\n")
    return out


def sample(name: str) -> Path:
    p = SAMPLES / name
    if not p.exists():
        pytest.skip(f"sample run {name} not generated here")
    return p


def make_app(path, feed: Feed | None = None, argv: tuple = (), **kw) -> TsmApp:
    """The app on a finished run: the whole history through a ReplayFeed, finalized at the end."""
    opts = parse([str(path), *argv])
    info = opts.fresh_info()
    run = open_run(opts.path, info, opts.config, allow_empty=True)
    session = Session(opts.settings, info)
    session.set_checkpoints(info.checkpoints)
    feed = feed or ReplayFeed(run.readers, speed=None)
    kw.setdefault("mode", "finished")
    kw.setdefault("bell", False)
    return TsmApp.for_session(session, feed, path=run.path, root=run.root, **kw)


def raw_segments(app: TsmApp) -> str:
    return "".join(seg.text for strip in app.screen._compositor.render_strips() for seg in strip)


# ------------------------------------------------------------------ checks
@pytest.mark.parametrize("name", ["spikes_recover", "nan_divergence", "healthy"])
def test_checks_equal_report(name):
    path = sample(name)
    expected = {c.id: c.status.value for c in analyze(str(path)).monitor.checks()}

    async def body():
        app = make_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            assert app.check_statuses() == expected
            # every row that says something visible at 80x24, inside the screen and inside the
            # panel (a short screen leaves the SKIP rows out: twelve checks would push the last
            # ones, a crash's FAIL, off it); a WARN reason may take a second line (its step
            # first), a FAIL's up to four, a PASS one never; with a FAIL on this short screen the
            # passing checks fold into one line (named there) to leave room for the pinned alert
            panel = app.query_one("#checks")
            rows = list(app.query(CheckRow))
            assert [r.check_id for r in rows] == CHECK_IDS
            compact = "FAIL" in expected.values()
            assert panel.has_class("-compact") == compact
            for r in rows:
                if compact and r.status.value in ("PASS", "SKIP"):
                    assert r.region.height == 0
                    continue
                if r.status.value == "SKIP":
                    assert not r.display or r.region.height == 0
                    continue
                assert r.region.height <= {"WARN": 2, "FAIL": 4}.get(r.status.value, 1)
                assert r.region.y + r.region.height <= 24
                assert panel.content_region.contains_region(r.region)
            text = "\n".join(screen_lines(app))
            folded = app.query_one("#checks-rest").render().plain if compact else ""
            for cid in CHECK_IDS:
                if expected[cid] != "SKIP":
                    assert SHORT_TITLES[cid] in text or SHORT_TITLES[cid] in folded
            for status in set(expected.values()) - {"SKIP"}:
                assert status in text

    run(body())


def test_spike_alerts_actions_and_detail():
    path = sample("spikes_recover")

    async def body():
        app = make_app(path)
        async with app.run_test(size=(160, 48)) as pilot:
            await wait_loaded(pilot, app)
            assert app.check_statuses()["loss_spike"] in ("WARN", "FAIL")
            lst = app.query_one(AlertList)
            spikes = [i for i, a in enumerate(lst.alerts) if a.check == "loss_spike" and a.actions]
            assert spikes, [a.check for a in lst.alerts]
            i = spikes[0]
            alert = lst.alerts[i]
            lst.focus()
            lst.highlighted = i
            await pilot.press("enter")
            await pilot.pause()
            detail = app.query_one(AlertDetail)
            assert detail.has_class("-open")
            text = "\n".join(screen_lines(app))
            assert "Recommended actions:" in text and "1. " in text
            assert app.dashboard.centre == alert.step
            assert f"alert at {alert.step}" in str(app.query_one("#focus").border_title)
            assert f"at step {alert.step}" in text  # status line
            await pilot.press("escape")  # back to following
            await pilot.pause()
            assert app.dashboard.centre is None and not detail.has_class("-open")

    run(body())


def test_listed_alerts_read_as_the_report_once_a_spike_recovered(tmp_path):
    """A spike that recovered no longer asks "if it does not recover: roll back" in the
    TUI either: the live loop's revision reaches the list (and an open detail)."""
    llmc_log(tmp_path / "main.log", n=400, spike_at=250)
    want = [(a.check, a.step, a.actions) for a in analyze(str(tmp_path)).monitor.view_alerts()]
    assert any(c == "loss_spike" and s == 250 for c, s, _ in want)

    async def body():
        app = make_app(tmp_path)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_loaded(pilot, app)
            await pilot.pause(0.2)
            lst = app.query_one(AlertList)
            assert [(a.check, a.step, a.actions) for a in lst.alerts] == want
            i = next(i for i, a in enumerate(lst.alerts) if a.check == "loss_spike" and a.step == 250)
            lst.focus()
            lst.highlighted = i
            await pilot.press("enter")
            await pilot.pause()
            text = "\n".join(screen_lines(app))
            assert "Recommended actions:" in text and "If it does not recover" not in text

    run(body())


@pytest.mark.slow
def test_keys_pause_follow_log_filter_help_quit():
    path = sample("spikes_recover")

    async def body():
        app = make_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            await pilot.press("p")
            assert app.dashboard.paused and "PAUSED" in "\n".join(screen_lines(app))
            await pilot.press("f")
            assert not app.dashboard.paused
            await pilot.press("l")
            assert app.dashboard.log_scale and "log" in str(app.query_one("#focus").border_title)
            await pilot.press("l")
            assert not app.dashboard.log_scale
            await pilot.press("m")
            assert app.dashboard.metric == "grad_norm"
            await pilot.press("3")
            assert app.dashboard.metric == "lr"
            await pilot.press("w")
            assert "last 1000" in str(app.query_one("#focus").border_title)
            lst = app.query_one(AlertList)
            total = len(lst.alerts)
            await pilot.press("slash")
            assert app.query_one("#filter").has_focus
            await pilot.press(*"grad")
            await pilot.pause()
            assert 0 < len(lst.alerts) < total
            assert all(
                "grad" in a.check or "grad" in a.message.lower() or any("grad" in x.lower() for x in a.actions)
                for a in lst.alerts
            )
            await pilot.press("enter")  # keep the filter, back to the list
            assert lst.has_focus and app.dashboard.filter_text == "grad"
            await pilot.press("j", "k", "down")
            assert lst.highlighted is not None
            await pilot.press("slash", "escape")  # clear it
            await pilot.pause()
            assert len(lst.alerts) == total and app.dashboard.filter_text == ""
            app.theme = "ansi-dark"  # the tmux-friendly theme (ctrl+p -> change theme)
            await pilot.pause()
            assert app.current_theme.name == "ansi-dark"
            assert "WARN" in "\n".join(screen_lines(app))
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, HelpScreen)
            await pilot.press("q")
            await pilot.pause()
        assert app.return_code == 0

    run(body())


@pytest.mark.slow
def test_resize_reflows():
    path = sample("spikes_recover")

    async def body():
        app = make_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            narrow = app.query_one("#focus").size
            assert app.screen.has_class("-narrow")
            await pilot.resize_terminal(200, 60)
            await pilot.pause(0.3)
            assert app.screen.has_class("-wide")
            wide = app.query_one("#focus").size
            assert wide.width > narrow.width and wide.height > narrow.height
            lines = screen_lines(app)
            assert len(lines) == 60 and max(len(x) for x in lines) == 200
            # the plot was redrawn for the new size: its x axis reaches the right part of the panel
            await pilot.resize_terminal(80, 24)
            await pilot.pause(0.3)
            assert app.query_one("#focus").size == narrow

    run(body())


def test_bell_on_new_fail():
    path = sample("nan_divergence")

    async def body():
        app = make_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            assert app.check_statuses()["nonfinite"] == "FAIL"
            assert app.bells == 1  # counted, not rung (bell=False in make_app)
            await pilot.pause(0.6)
            assert app.bells == 1  # once per transition, not per tick

    run(body())


# ------------------------------------------------------------------ untrusted text
EVIL = "\x1b]0;PWNED\x07[bold red]x[/]"


class EventFeed(ReplayFeed):
    def _run(self) -> None:
        self._note(f"train.log truncated {EVIL}\x1b[2J")
        super()._run()


def test_log_text_is_shown_literally(tmp_path):
    name = "\x1b]0;PWNED\x07[bold red]x"  # no "/" in a file name
    run_dir = tmp_path / f"run{name}"
    run_dir.mkdir()
    lines = llmc_lines(300, spike_at=200)
    lines.insert(5, f"warning: {EVIL} \x1b[31mred\x1b[0m\n")
    lines.insert(50, f"s:50 trl:{EVIL} lr:x norm:{EVIL}\n")
    (run_dir / "main.log").write_text("".join(lines))
    (run_dir / f"checkpoint-150{name}").mkdir()

    async def body():
        opts = parse([str(run_dir)])
        info = opts.fresh_info()
        r = open_run(opts.path, info, None, allow_empty=True)
        app = make_app(run_dir, feed=EventFeed(r.readers, speed=None))
        async with app.run_test(size=(160, 48), notifications=True) as pilot:
            await wait_loaded(pilot, app)
            await pilot.pause(0.2)
            raw = raw_segments(app)
            assert "\x1b" not in raw and "\x07" not in raw
            text = "\n".join(screen_lines(app))
            assert "run[bold red]x" in text  # the path in the status line, literally
            notes = [n.message for n in app._notifications]
            assert any("[bold red]x[/]" in m and "\x1b" not in m for m in notes), notes
            assert "[bold red]x[/]" in text  # the feed event's toast, literally
            assert "PWNED" not in text  # the OSC sequence was removed whole

    run(body())


def test_alert_text_never_markup():
    from tsm_tui.views.tui.widgets import alert_detail, alert_prompt
    from tsm_tui.core.record import Alert, Severity

    a = Alert("loss_spike", Severity.CRITICAL, 7, f"bad {EVIL}", 1.0, 0.5, actions=[f"do {EVIL}"])
    for c in (alert_prompt(a), alert_detail(a)):
        assert "\x1b" not in c.plain and "\x07" not in c.plain
        assert "[bold red]x[/]" in c.plain
        assert not any("red" in str(s.style) for s in c.spans)


# ------------------------------------------------------------------ live / replay / demo
def test_live_tail_shows_new_spike_within_a_second(tmp_path):
    pytest.importorskip("tsm_tui.sources.tail")
    log = tmp_path / "main.log"
    lines = llmc_lines(400, spike_at=300)
    log.write_text("".join(lines[:200]))

    async def body():
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]))
        assert app.mode == "live"
        async with app.run_test(size=(160, 48)) as pilot:  # a big plot: built in a thread worker
            await pilot_until(pilot, lambda: app.dashboard.last_step() == 200, 5, "step 200 read")
            assert not any(a.check == "loss_spike" for a in app.query_one(AlertList).alerts)
            with open(log, "a") as f:
                f.write("".join(lines[200:310]))
            t1 = time.monotonic()
            while (
                not any(a.check == "loss_spike" for a in app.query_one(AlertList).alerts) and time.monotonic() - t1 < 5
            ):
                await pilot.pause(0.05)
            took = time.monotonic() - t1
            assert any(a.check == "loss_spike" and a.step == 300 for a in app.query_one(AlertList).alerts)
            assert took < 4.0, took  # generous: latency goals are measured in bench/tui_cost.py
            assert app.dashboard.last_step() == 310
            t2 = time.monotonic()  # repaints are spaced (REPAINT_EVERY): wait for the one after the data
            while "300" not in app.query_one("#focus").render().plain and time.monotonic() - t2 < 5:
                await pilot.pause(0.1)
            text = "\n".join(screen_lines(app))
            assert "following" in text
            assert "300" in app.query_one("#focus").render().plain  # the plot's x axis reached the spike

    run(body())


@pytest.mark.slow
def test_replay_plays_back_and_demo_data_is_bundled():
    from tsm_tui.cli import demo_path

    demo = Path(demo_path())
    assert (demo / "main.log").is_file()

    async def body():
        app = TsmApp.from_options(parse(["--demo", str(demo), "--speed", "400"]), demo=str(demo))
        assert app.mode == "replay"
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.6)
            mid = app.dashboard.last_step()
            assert mid is not None and mid < 1500  # playing, not loaded at once
            await pilot_until(pilot, lambda: app.loaded, 10, "the replay's end", fail=False)
            await pilot.pause(0.2)  # the end's repaint reaches the screen (under load it had not yet)
            assert app.dashboard.last_step() == 1500
            assert app.check_statuses()["loss_spike"] in ("WARN", "FAIL")
            assert "replay done" in "\n".join(screen_lines(app))

    run(body())


def test_stalled_after_silence():
    now = [1000.0]
    app = make_app(sample("spikes_recover"), mode="live", clock=lambda: now[0])
    act = app.dashboard.activity  # the run's liveness (views/tui/activity.py), as the status line asks it
    act.last_arrival = 1000.0
    act.intervals.extend([0.25] * 10)
    assert app.dashboard.stalled_for(1030.0) is None
    assert app.dashboard.stalled_for(1061.0) == pytest.approx(61.0)
    act.intervals.clear()
    act.intervals.extend([30.0] * 10)  # a run that logs every 30 s: 10x the interval
    assert app.dashboard.stalled_for(1200.0) is None
    assert app.dashboard.stalled_for(1301.0) is not None
    act.exit_code = 1  # its tracker recorded a failed exit: ended, never stalled (as in the runs table)
    assert app.dashboard.stalled_for(1301.0) is None
    assert app.dashboard._state_text(1301.0) == ("exited 1", "-stalled")


@pytest.mark.slow
def test_live_dashboard_ages_from_when_the_run_wrote(tmp_path):
    """Opened live on a run that wrote its last line three hours ago: the status line
    says so ("stalled 3.0h", "3.0h ago"), not the seconds since the tool read it; the
    same run, had it reached its planned steps, is "done"."""
    import json
    import os

    for name, planned in (("cut", 1000), ("complete", 400)):
        d = tmp_path / name
        d.mkdir()
        llmc_log(d / "main.log", n=400, spike_at=None)
        (d / "config.json").write_text(json.dumps({"max_steps": planned, "warmup_steps": 20}))
        old = time.time() - 3 * 3600
        os.utime(d / "main.log", (old, old))

    async def body(name):
        app = TsmApp.from_options(parse([str(tmp_path / name), "--no-bell"]))
        assert app.mode == "live"
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot_until(pilot, lambda: app.dashboard.last_step() == 400, 10, fail=False)
            await pilot.pause(0.3)
            app.dashboard._update_status(app.clock())
            await pilot.pause(0.2)
            return "\n".join(screen_lines(app))

    cut = run(body("cut"))
    assert "stalled 3.0h" in cut and "3.0h ago" in cut, cut.splitlines()[0]
    done = run(body("complete"))
    first = done.splitlines()[0]
    assert first.lstrip().startswith("done") and "stalled" not in first, first


@pytest.mark.slow
def test_a_replay_shows_what_was_known_at_the_step_it_plays():
    """Issue 31 §4: a replay at step 253 said "Checkpoints ... step_1400.pt (step 1400)":
    the checkpoints check and the rollback advice see only the checkpoints saved by
    the step played; at the end, all of them (as the report)."""
    path = sample("spike_no_recover")

    async def body():
        app = TsmApp.from_options(parse([str(path), "--replay", "--speed", "150", "--no-bell"]))
        assert app.mode == "replay"
        seen = []
        async with app.run_test(size=(100, 30)) as pilot:
            t0 = time.monotonic()
            while not app.loaded and time.monotonic() - t0 < 30:
                await pilot.pause(0.1)
                c = next((c for c in app.dashboard.run_checks if c.id == "checkpoints"), None)
                last = app.dashboard.last_step()
                if c is not None and last is not None and last < 1400:
                    seen.append((last, c.summary))
            assert app.loaded
            await pilot.pause(0.2)
            final = next(c for c in app.dashboard.run_checks if c.id == "checkpoints")
        assert seen, "no check seen mid-replay"
        import re

        for last, summary in seen:
            m = re.search(r"\(step (\d+)\)", summary)
            assert m is None or int(m.group(1)) <= last + 5 * 10, (last, summary)  # (checks lag by a record or two)
        assert any("step_1400" not in s for _, s in seen)
        assert "step_1400" in final.summary  # at the end: every checkpoint, as the report says
        expected = {c.id: c.summary for c in analyze(str(path)).monitor.checks()}
        assert final.summary == expected["checkpoints"]

    run(body())
