"""The loss-spike check at small loss scales: the spike floor follows the loss's first value (a
regression that starts at 0.01 is not judged with a cross-entropy's 0.05), and a loss back within
that floor of its baseline is back (a grokking run at 1e-10 whose slingshot returns to 1e-4)."""

from __future__ import annotations

import json
import math
import os
import random

from test_frames import run_both
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.cli import main
from tsm_tui.core.record import StepRecord
from tsm_tui.core.settings import RunInfo, Settings

from helpers import paths


def _feed(xs) -> Monitor:
    mon = Monitor(Settings(), RunInfo())
    for i, x in enumerate(xs):
        mon.feed(StepRecord(i + 1, loss=x))
    mon.finalize()
    return mon


def _regression(spike_at: int | None, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    out = []
    for i in range(600):
        x = (0.01 * math.exp(-i / 100) + 0.0009) * math.exp(rng.gauss(0, 0.05))
        if spike_at is not None and spike_at <= i < spike_at + 2:
            x = 0.033
        out.append(x)
    return out


def test_a_burst_at_a_regression_loss_scale_is_a_spike():
    mon = _feed(_regression(400))
    spikes = [a for a in mon.alerts if a.check == "loss_spike" and a.severity.name != "INFO"]
    assert spikes and spikes[0].step == 401


def test_a_quiet_regression_loss_raises_nothing():
    for seed in range(5):
        mon = _feed(_regression(None, seed))
        assert not [a for a in mon.alerts if a.check == "loss_spike"], seed


def test_rows_and_frames_agree_with_a_scaled_floor():
    recs = [StepRecord(i + 1, loss=x) for i, x in enumerate(_regression(300))]
    run_both(recs, sizes=(1, 7, 64, 10**9))


def test_grokking_slingshots_each_recover_and_each_is_said(capsys):
    """fresh39's orthograd grokking run (MIT, bench/corpus/fresh39): a training loss at ~1e-10
    spikes to ~1 three times; each comes back to ~1e-4 (within the spike floor of its baseline):
    three incidents, not one that stays open and swallows the next two."""
    d = os.path.join(paths.ROOT, "bench", "corpus", "fresh39", "json_array_grokking_orthograd_spikes")
    rc = main([d, "--report", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    onsets = {a["step"] for a in rep["alerts"] if a["check"] == "loss_spike" and a["severity"] == "warning"}
    assert {24000, 25400, 33700} <= onsets
