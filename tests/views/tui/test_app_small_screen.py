"""What a person sees at 80x24 (issue #18), as pilot tests: the status line's
live facts first, check reasons that keep their step, an alert detail whose
actions are reachable and that follows the selection, sparkline labels whole."""

from __future__ import annotations

import asyncio

import pytest

from tsm_tui.views.tui.dashboard import _ago, _elide_middle
from tsm_tui.views.tui.widgets import AlertDetail, AlertList, CheckRow, HelpScreen, step_first

from helpers.tui import screen_lines, wait_loaded
from test_app import make_app, sample

LONG = "/mnt/shared/checkpoints/team-llm/experiments/2024-q3/ablation-lr-warmup-long-name/runs/hf"


def run(coro):
    return asyncio.run(coro)


@pytest.mark.slow
def test_status_line_state_step_and_age_first_path_elided_in_the_middle():
    async def body():
        app = make_app(sample("spikes_recover"), mode="live")
        app.path = LONG
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            app.dashboard._age_status()
            await pilot.pause()
            top = screen_lines(app)[0]
            assert top.lstrip().startswith("following step 1500")
            assert "ago" in top.split("step 1500", 1)[1][:22]  # the age right after the step
            assert "…" in top and "runs/hf" in top and "/mnt/" in top  # both ends of the path kept
            assert len(top.rstrip()) <= 80
            # a wide screen shows the whole path
            await pilot.resize_terminal(200, 50)
            await pilot.pause(0.2)
            app.dashboard._update_status(app.clock())
            await pilot.pause()
            assert LONG in screen_lines(app)[0]

    run(body())


def test_elide_middle_and_age_steps():
    assert _elide_middle("abcdefghij", 20) == "abcdefghij"
    e = _elide_middle("/a/b/c/d/e/f/g/h/run", 9)
    assert len(e) == 9 and e.startswith("/a/b") and e.endswith("/run") and "…" in e
    assert _elide_middle("abc", 0) == ""
    assert [_ago(x) for x in (0.5, 3.2, 9.9, 12, 17, 59, 61, 3599, 7300)] == [
        "<1s",
        "3s",
        "9s",
        "10s",
        "15s",
        "55s",
        "1m",
        "59m",
        "2.0h",
    ]


@pytest.mark.slow
def test_check_reasons_lead_with_their_step():
    # "step N:" leads (it used to be a cryptic "@N"), the phrase it came from is not repeated
    assert step_first("1 spike(s) at step 2001, recovered") == "step 2001: 1 spike(s), recovered"
    assert step_first("no spikes in 96 loss values") == "no spikes in 96 loss values"
    assert (
        step_first("flat for 480 steps since step 520 at ~2.173")
        == "step 520: flat for 480 steps since step 520 at ~2.173"
    )
    # a step in a later clause, or in a name, is not the reason's
    assert (
        step_first("above 1 in up to 98% of steps; 2 spike(s) at step 500 (18.5x)")
        == "above 1 in up to 98% of steps; 2 spike(s) at step 500 (18.5x)"
    )
    assert step_first("3 checkpoint(s), newest step_1500.pt (step 1500)").startswith("3 checkpoint")
    assert (
        step_first("spike at step 905 (peak 4217 at step 1020) turned into divergence")
        == "step 905: spike (peak 4217 at step 1020) turned into divergence"
    )
    # a list of steps keeps its phrase
    assert (
        step_first("3 spike(s) at step 500, 900, 1200, all recovered")
        == "step 500: 3 spike(s) at step 500, 900, 1200, all recovered"
    )

    async def body():
        app = make_app(sample("spikes_recover"))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            await pilot.pause(0.1)
            row = app.query_one("#check-loss_spike", CheckRow)
            assert row.status.value == "WARN"
            lines = screen_lines(app)
            r = row.region
            shown = " ".join(lines[y][r.x : r.right] for y in range(r.y, r.bottom))
            assert "step 500:" in shown and "900" in shown  # the first step is never cut off
            assert r.height == 2  # the reason took a second line rather than vanish
            passing = app.query_one("#check-nonfinite", CheckRow)
            assert passing.region.height == 1

    run(body())


@pytest.mark.slow
def test_detail_actions_reachable_and_detail_follows_the_selection():
    async def body():
        app = make_app(sample("spikes_recover"))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            lst = app.query_one(AlertList)
            assert app.focused is lst and lst.highlighted == len(lst.alerts) - 1  # Enter works at once
            gn = next(i for i, a in enumerate(lst.alerts) if a.check == "grad_norm" and a.actions)
            lst.highlighted = gn
            await pilot.press("enter")
            await pilot.pause(0.2)
            detail = app.query_one(AlertDetail)
            assert detail.alert is lst.alerts[gn]
            # on a short screen the detail takes the checks' place: its actions are on screen
            assert not app.query_one("#checks").display or app.query_one("#checks").region.height == 0
            text = "\n".join(screen_lines(app))
            assert "Recommended actions" in text and "1. " in text
            # the selected row stays in view beside the detail
            assert lst.scrollable_content_region.height >= 1
            assert lst.scroll_y <= gn < lst.scroll_y + lst.scrollable_content_region.height
            # PageDown scrolls the detail (the focus stays on the list)
            if detail.max_scroll_y > 0:
                await pilot.press("pagedown")
                await pilot.pause(0.1)
                assert detail.scroll_y > 0 and app.focused is lst
            # arrows move the selection and the open detail follows it, plot centred on its step
            await pilot.press("up")
            await pilot.pause(0.2)
            assert detail.alert is lst.alerts[gn - 1]
            assert app.dashboard.centre == lst.alerts[gn - 1].step
            assert str(lst.alerts[gn - 1].step) in screen_lines(app)[0]  # "at step N"
            # Esc closes it and the checks come back
            await pilot.press("escape")
            await pilot.pause(0.2)
            assert not detail.has_class("-open") and app.query_one("#checks").region.height > 0
            # ? says how to scroll it
            await pilot.press("question_mark")
            await pilot.pause(0.2)
            assert isinstance(app.screen, HelpScreen)
            assert "PgDn" in "\n".join(screen_lines(app))

    run(body())


def test_sparkline_labels_whole_with_a_gap():
    async def body():
        app = make_app(sample("fp16_loss_scale"))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            await pilot.pause(0.1)
            sparks = app.query_one("#sparks")
            r = sparks.region
            lines = [ln[r.x : r.right] for ln in screen_lines(app)[r.y : r.bottom]]
            text = "\n".join(lines)
            for label in ("1 loss ", "2 grad norm ", "3 lr ", "4 loss scale "):
                assert label in text, text
            # a fourth sparkline made the focus plot shorter: it was redrawn at its new size
            # (its last line is the x axis, not a data row cut off by the border)
            f = app.query_one("#focus").content_region
            assert "500" in screen_lines(app)[f.bottom - 1][f.x : f.right]
            for ln in lines[1:-1]:
                body_ = ln.strip("│")
                lab_end = body_.index(" ", body_.index(" ") + 1) if body_.startswith(("2", "4")) else None
                if lab_end:  # the two-word labels: a space between the label and the bars
                    rest = body_[len("2 grad norm") :] if body_.startswith("2") else body_[len("4 loss scale") :]
                    assert rest.startswith(" ")

    run(body())


def test_status_age_changes_in_agrees_with_its_text():
    """The status line's age ticker is armed for when ``_ago`` next reads differently."""
    from tsm_tui.views.tui.dashboard import _ago, _ago_changes_in

    for s in (
        0.0,
        0.5,
        3.2,
        9.99,
        10.0,
        17.0,
        59.5,
        60.0,
        61.0,
        119.9,
        3599.0,
        7199.0,
        7300.0,
        9000.0,
        48 * 3600.0 - 1,
        48 * 3600.0 + 5,
        3e6,
    ):
        d = _ago_changes_in(s)
        assert d > 0
        assert _ago(s + d * 0.999) == _ago(s), s  # the same text until then ...
        assert _ago(s + d + 1e-6) != _ago(s), s  # ... and different right after


def test_quiet_driver_sleeps_until_a_key_or_its_parsers_deadline():
    """Textual's input thread polled ten times a second; ours waits for a key, for
    the parser's own deadline (a lone ESC), or for the pipe that quit writes to."""
    import asyncio
    import os
    import select

    from textual._xterm_parser import XTermParser

    from tsm_tui.views.tui import driver

    class FakeApp:  # Driver.__init__ only keeps it
        pass

    async def make():  # Driver.__init__ asks for the running loop
        return driver.QuietLinuxDriver(FakeApp())

    d = asyncio.run(make())
    try:
        parser = XTermParser()
        assert d._input_timeout(parser) == driver.IDLE_WAIT
        list(parser.feed("\x1b"))  # a lone ESC: the parser waits for the rest of a sequence
        assert 0 <= d._input_timeout(parser) <= driver.PENDING_TICK
        d.exit_event.set()  # what disable_input does on quit / suspend: the select wakes
        assert select.select([d._wake_r], [], [], 1.0)[0] == [d._wake_r]
        assert os.read(d._wake_r, 10) == b"x"
    finally:
        d.close()
    d.exit_event.set()  # after close: no write to a closed (or reused) descriptor


def test_a_fail_is_read_at_80x24_without_a_key():
    """Issue 31 §1: spike_no_recover at 80x24 has 10 alerts, one critical. Without a key the
    FAIL's reason is whole in the checks panel (led by "step 905:", not "@905"), the newest
    critical alert is pinned with its first action, and `c` opens all its actions."""
    from tsm_tui.views.tui.widgets import PinnedAlert

    async def body():
        app = make_app(sample("spike_no_recover"))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            await pilot.pause(0.2)
            assert len(app.dashboard.run_alerts) >= 10
            crit = [a for a in app.dashboard.run_alerts if a.severity.value == "critical"]
            assert crit
            text = "\n".join(screen_lines(app))
            # the FAIL's reason: whole, its step first, its likely cause at the end
            row = app.query_one("#check-loss_spike", CheckRow)
            assert row.status.value == "FAIL"
            lines = screen_lines(app)
            r = row.region
            shown = " ".join(lines[y][r.x : r.right].strip() for y in range(r.y, r.bottom))
            assert "step 905:" in shown and "@905" not in text
            assert "divergence" in shown and "LR change" in shown, shown
            # the newest critical alert, pinned above the list whatever the list shows
            pin = app.query_one(PinnedAlert)
            assert pin.alert is crit[-1] and pin.region.height >= 4
            p = pin.region
            assert p.bottom <= 23
            pinned = " ".join(lines[y][p.x : p.right] for y in range(p.y, p.bottom))
            assert f"FAIL step {crit[-1].step}" in pinned and "c: detail" in pinned
            assert "→ Roll back to" in pinned  # its first action
            # the list follows the newest alerts: the critical one is not among the rows shown
            lst = app.query_one(AlertList)
            assert lst.highlighted == len(lst.alerts) - 1
            # one key: the detail with every action
            await pilot.press("c")
            await pilot.pause(0.2)
            detail = app.query_one(AlertDetail)
            assert detail.alert is crit[-1] and lst.selected_alert() is crit[-1]
            assert "Recommended actions" in "\n".join(screen_lines(app))
            assert not pin.has_class("-open")  # the detail shows it: not twice
            await pilot.press("escape")
            await pilot.pause(0.2)
            assert pin.has_class("-open")

    run(body())


def test_no_pin_and_no_fold_without_a_fail():
    from tsm_tui.views.tui.widgets import PinnedAlert

    async def body():
        app = make_app(sample("spikes_recover"))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
            assert not app.query_one(PinnedAlert).has_class("-open")
            assert not app.query_one("#checks").has_class("-compact")
            await pilot.press("c")  # nothing to open: said, not an error
            await pilot.pause(0.1)
            assert not app.query_one(AlertDetail).has_class("-open")

    run(body())
