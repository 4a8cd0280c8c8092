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

from tsm_tui.views.tui import TsmApp
from tsm_tui.views.tui.widgets import AlertList
from tsm_tui.cli import demo_path


def finished_app(path: str, shown: str) -> TsmApp:
    return TsmApp.finished(path, shown)


async def loaded(pilot) -> None:
    app = pilot.app
    t0 = time.monotonic()
    while not app.loaded and time.monotonic() - t0 < 10:
        await pilot.pause(0.05)
    # let the last layout pass settle: once, under heavy CPU load, the alert list was
    # captured before its options were re-rendered at their final width (no "…")
    await pilot.pause(0.2)
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

    p = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample_runs", name)
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

    assert snap_compare(finished_app(_sample("spikes_recover"), "runs/spikes_recover"), terminal_size=(80, 24),
                        run_before=open_grad_spike)


def test_snapshot_fp16_loss_scale_120x36(snap_compare):
    assert snap_compare(finished_app(_sample("fp16_loss_scale"), "runs/fp16_loss_scale"), terminal_size=(120, 36),
                        run_before=loaded)


def test_snapshot_nan_divergence_200x50(snap_compare):
    assert snap_compare(finished_app(_sample("nan_divergence"), "runs/nan_divergence"), terminal_size=(200, 50),
                        run_before=loaded)
