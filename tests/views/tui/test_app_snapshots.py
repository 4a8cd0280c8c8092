"""A few SVG snapshots of the live monitor (pytest-textual-snapshot).

They use the bundled demo run (tsm_tui/data/demo) and a seeded synthetic
divergence, so they do not move when sample_runs/ is regenerated. Update with
``pytest tests/test_app_snapshots.py --snapshot-update`` after a deliberate
layout change (and look at the diff report first).
"""

from __future__ import annotations

import math
import random
import time

import pytest

from tsm_tui.views.tui import TsmApp
from tsm_tui.views.tui.widgets import AlertList
from tsm_tui.cli import demo_path
from helpers.wait import pilot_until
from helpers import paths


def finished_app(path: str, shown: str) -> TsmApp:
    return TsmApp.finished(path, shown)


async def loaded(pilot) -> None:
    app = pilot.app
    await pilot_until(pilot, lambda: app.loaded, 10, fail=False)
    # let the last layout pass settle: once, under heavy CPU load, the alert list was
    # captured before its options were re-rendered at their final width (no "…")
    await pilot.pause(0.2)
    await pilot.pause()
    await pilot.pause()


def test_snapshot_demo_80x24(snap_compare):
    assert snap_compare(finished_app(demo_path(), "demo"), terminal_size=(80, 24), run_before=loaded)


def test_snapshot_demo_spike_selected_160x48(snap_compare):
    async def select_spike(pilot):
        await loaded(pilot)
        lst = pilot.app.query_one(AlertList)
        lst.highlighted = next(i for i, a in enumerate(lst.alerts) if a.check == "loss_spike")
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(finished_app(demo_path(), "demo"), terminal_size=(160, 48), run_before=select_spike)


def test_snapshot_divergence_fail_120x36(snap_compare, tmp_path):
    rng = random.Random(7)
    rows = []
    for s in range(1, 601):
        loss = 2.0 + 4.0 * math.exp(-s / 100) + rng.gauss(0, 0.02)
        gn = 0.6 + rng.gauss(0, 0.05)
        if s >= 520:
            loss, gn = float("nan"), float("nan")
        rows.append(f'{{"step": {s}, "loss": {loss}, "grad_norm": {gn}, "lr": {3e-4 * min(1, s / 30):.6g}}}\n')
    (tmp_path / "metrics.jsonl").write_text("".join(rows).replace("NaN", "NaN"))
    for s in (200, 400):
        (tmp_path / f"checkpoint-{s}").mkdir()
    assert snap_compare(finished_app(str(tmp_path), "runs/diverged"), terminal_size=(120, 36), run_before=loaded)


# ---- the sample runs at the three sizes people use (issue #18)
def _sample(name: str) -> str:
    import os

    import pytest

    p = os.path.join(paths.SAMPLES, name)
    if not os.path.isdir(p):
        pytest.skip(f"sample run {name} not generated here")
    return p


def test_snapshot_spikes_recover_detail_open_80x24(snap_compare):
    async def open_grad_spike(pilot):
        await loaded(pilot)
        lst = pilot.app.query_one(AlertList)
        lst.highlighted = next(i for i, a in enumerate(lst.alerts) if a.check == "grad_norm" and a.actions)
        await pilot.press("enter")
        await pilot.pause(0.3)

    assert snap_compare(
        finished_app(_sample("spikes_recover"), "runs/spikes_recover"),
        terminal_size=(80, 24),
        run_before=open_grad_spike,
    )


def test_snapshot_fp16_loss_scale_120x36(snap_compare):
    assert snap_compare(
        finished_app(_sample("fp16_loss_scale"), "runs/fp16_loss_scale"), terminal_size=(120, 36), run_before=loaded
    )


def test_snapshot_nan_divergence_200x50(snap_compare):
    assert snap_compare(
        finished_app(_sample("nan_divergence"), "runs/nan_divergence"), terminal_size=(200, 50), run_before=loaded
    )


# ---- issue 31: a FAIL read at 80x24 without a key; the runs screen in both dark themes
def test_snapshot_spike_no_recover_fail_pinned_80x24(snap_compare):
    assert snap_compare(
        finished_app(_sample("spike_no_recover"), "runs/spike_no_recover"), terminal_size=(80, 24), run_before=loaded
    )


def _sweep(tmp_path) -> str:
    """Three runs of a sweep, their files two hours old: one done (reached its planned
    steps), one cut short, one with a NaN."""
    import json
    import os

    for name, n, nan_at in (("lr1e-4_done", 100, None), ("lr3e-4_cut_short", 60, None), ("lr1e-3_nan", 100, 80)):
        d = tmp_path / name
        d.mkdir()
        rows = []
        for s in range(1, n + 1):
            loss = float("nan") if nan_at is not None and s >= nan_at else 3.0 - s / 100
            rows.append(json.dumps({"step": s, "loss": loss, "grad_norm": 0.5, "lr": 3e-4 * min(1, s / 10)}) + "\n")
        (d / "metrics.jsonl").write_text("".join(rows))
        (d / "config.json").write_text(json.dumps({"max_steps": 100, "warmup_steps": 10}))
        back = time.time() - 2 * 3600 - 600
        os.utime(d / "metrics.jsonl", (back, back))
    return str(tmp_path)


def _runs_app(path: str) -> TsmApp:
    from tsm_tui.cli import parse

    app = TsmApp.from_options(parse([path, "--no-bell"]))
    app.top = app.path = "sweep/"
    return app


async def _runs_loaded(pilot) -> None:
    app = pilot.app
    await pilot_until(
        pilot,
        lambda: (
            len(app.run_rows) == 3
            and all(r.checks and r.activity.last_step in (60, 100) for r in app.run_rows.values())
        ),
        20,
        every=0.1,
        fail=False,
    )
    await pilot.pause(1.2)
    app.screen.refresh_rows()
    await pilot.pause(0.2)


def test_snapshot_runs_screen_80x24(snap_compare, tmp_path):
    assert snap_compare(_runs_app(_sweep(tmp_path)), terminal_size=(80, 24), run_before=_runs_loaded)


@pytest.mark.slow
def test_snapshot_runs_screen_ansi_dark_help_80x24(snap_compare, tmp_path):
    async def help_(pilot):
        pilot.app.theme = "ansi-dark"
        await _runs_loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.3)

    assert snap_compare(_runs_app(_sweep(tmp_path)), terminal_size=(80, 24), run_before=help_)


# ---- colours that resolve (issue 31 §2): every theme, every screen
def _invisible(app) -> list[str]:
    """Text drawn in (nearly) its background's colour: a style variable that did not
    resolve (the runs screen's "done 12m" was #000000 on #272727 in textual-dark)."""
    bad = []
    for strip in app.screen._compositor.render_strips():
        for seg in strip:
            st = seg.style
            if not any(ch.isalnum() for ch in seg.text) or st is None or st.color is None or st.bgcolor is None:
                continue
            if st.color.is_default or st.bgcolor.is_default or st.color.triplet is None or st.bgcolor.triplet is None:
                continue  # ansi themes: the terminal's own palette
            c, b = st.color.triplet, st.bgcolor.triplet
            lum = lambda t: 0.2126 * t.red + 0.7152 * t.green + 0.0722 * t.blue  # noqa: E731
            if abs(lum(c) - lum(b)) < 40:
                bad.append(f"{seg.text!r} {st}")
    return bad


@pytest.mark.slow
def test_colours_resolve_in_dark_and_ansi_dark(tmp_path):
    import asyncio
    import json
    import os

    from tsm_tui.cli import parse
    from tsm_tui.views.tui.runs import RunsScreen

    for name, n in (("complete", 100), ("cut_short", 60)):
        d = tmp_path / name
        d.mkdir()
        (d / "metrics.jsonl").write_text(
            "".join(
                json.dumps({"step": s, "loss": 3.0 - s / 100, "grad_norm": 0.5, "lr": 3e-4 * min(1, s / 10)}) + "\n"
                for s in range(1, n + 1)
            )
        )
        (d / "config.json").write_text(json.dumps({"max_steps": 100, "warmup_steps": 10}))
        hour = time.time() - 3600
        os.utime(d / "metrics.jsonl", (hour, hour))

    async def body(theme):
        app = TsmApp.from_options(parse([str(tmp_path), "--no-bell"]))
        async with app.run_test(size=(100, 30)) as pilot:
            app.theme = theme
            await pilot_until(
                pilot,
                lambda: (
                    isinstance(app.screen, RunsScreen)
                    and app.screen._shown.get(("complete", "age"), ("",))[0].startswith("done")
                ),
                15,
                every=0.1,
                fail=False,
            )
            await pilot.pause(0.3)
            screen = app.screen
            assert screen._shown[("complete", "age")][0] == "done 1h"
            runs_bad = _invisible(app)
            # the "done" cell: dimmed text, not black
            segs = [seg for strip in screen._compositor.render_strips() for seg in strip if "done 1h" in seg.text]
            assert segs and all(
                s.style.dim or (s.style.color and s.style.color.triplet and sum(s.style.color.triplet) > 200)
                for s in segs
            ), segs
            await pilot.press("enter")  # a run's dashboard
            await pilot_until(pilot, lambda: not isinstance(app.screen, RunsScreen), 10, every=0.1, fail=False)
            await pilot.pause(0.5)
            return runs_bad, _invisible(app)

    for theme in ("textual-dark", "ansi-dark"):
        runs_bad, dash_bad = asyncio.run(body(theme))
        assert not runs_bad, (theme, runs_bad[:5])
        assert not dash_bad, (theme, dash_bad[:5])
