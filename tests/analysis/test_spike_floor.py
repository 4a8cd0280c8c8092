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


def _opening_transient(spikes: dict[int, float], seed: int = 3) -> list[float]:
    """A run whose first records are far above its level (3.1e8, 432, 137, 0.48, 26.5: a Theano char-NER
    log, fresh29), then ~0.3 with 1% noise; ``spikes``: record index -> factor."""
    rng = random.Random(seed)
    out = [3.1e8, 432.0, 137.0, 0.48, 26.5]
    for i in range(5, 300):
        x = (0.3 + 0.1 * math.exp(-i / 40)) * math.exp(rng.gauss(0, 0.01))
        out.append(x * spikes.get(i, 1.0))
    return out


def test_a_spike_is_judged_against_a_robust_spread_when_the_window_holds_outliers():
    """The baseline window still holding a run's first records (or another outlier it kept) has an sd of
    log-losses many times its robust spread: after two blow-ups of 6e6x (records 36 and 42, fresh29's
    char-NER log), a 9x and a 27x spike at records 62 and 69 were under 2.5 of those sd and read
    nothing. Against the robust spread (CONTAMINATED) they are spikes; the run without them raises
    only the blow-ups; rows and frames agree."""
    blowups = {35: 6.5e6, 41: 6e6}
    mon = _feed(_opening_transient(blowups | {61: 9.0, 68: 27.0}))
    said = [a.step for a in mon.alerts if a.check == "loss_spike" and a.severity.value == "warning"]
    assert 62 in said and 69 in said, said
    mon = _feed(_opening_transient(blowups))
    assert [a.step for a in mon.alerts if a.check == "loss_spike" and a.severity.value != "info"] == [36, 42]
    xs = _opening_transient(blowups | {61: 9.0, 68: 27.0})
    run_both([StepRecord(i + 1, loss=x) for i, x in enumerate(xs)])
