"""The slow sustained climb (analysis/detectors/creep.py, said by the Loss Spike check): it is
said for a loss that bottoms out and climbs back 10-40% over the rest of the run, and not for
flat or falling noise, a wander of a smoothed loss, a loss near zero, a climb while the LR
rises, or an RL / GAN objective; rows and frames agree."""

from __future__ import annotations

import math
import random

import pytest

from test_frames import run_both
from tsm_tui.analysis.detectors.creep import Creep
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.core.record import StepRecord
from tsm_tui.core.settings import RunInfo, Settings


def _climb(n: int, rise: float, noise: float, seed: int = 1, low_at: float = 0.5) -> list[float]:
    """Falls by e^-0.5 to its low at ``low_at`` of the run, then climbs ``rise`` (a share) to the end."""
    rng = random.Random(seed)
    b = int(low_at * n)
    out = []
    for t in range(n):
        mu = -0.5 * t / b if t < b else -0.5 + math.log1p(rise) * (t - b) / (n - b)
        out.append(2.0 * math.exp(mu + rng.gauss(0.0, noise)))
    return out


def _said(losses, lrs=None) -> object:
    c = Creep()
    for i, x in enumerate(losses):
        hit = c.push(i + 1, x, None if lrs is None else lrs[i])
        if hit is not None:
            return hit
    return c.finish()


def _monitor(losses, lrs=None, extra=None) -> Monitor:
    mon = Monitor(Settings(), RunInfo())
    for i, x in enumerate(losses):
        mon.feed(StepRecord(i + 1, loss=x, lr=None if lrs is None else lrs[i], extra=extra))
    mon.finalize()
    return mon


@pytest.mark.parametrize("n,rise,noise", [(300, 0.25, 0.05), (3000, 0.15, 0.05), (3000, 0.25, 0.1), (60, 0.4, 0.02)])
def test_a_climb_after_the_low_is_said(n, rise, noise):
    hit = _said(_climb(n, rise, noise))
    assert hit is not None
    assert hit.level / hit.low > 1.1
    assert hit.low_step <= 0.6 * n + 1 < hit.step  # the low near the turn, said during the climb


def test_flat_and_falling_noise_is_not_a_climb():
    said = 0
    for seed in range(40):
        rng = random.Random(seed)
        for n in (50, 400, 3000):
            for sd in (0.05, 0.2, 0.5):
                flat = [math.exp(rng.gauss(0, sd)) for _ in range(n)]
                fall = [math.exp(-t / n + rng.gauss(0, sd)) for t in range(n)]
                said += (_said(flat) is not None) + (_said(fall) is not None)
    assert said == 0


def test_a_smoothed_loss_wandering_is_judged_on_blocks_as_long_as_its_correlation():
    """An AR(0.95) wander of 5% (an EMA-smoothed loss, batches in data order): its levels are
    correlated over ~40 records, so blocks of a few records prove nothing; few are said."""
    said = 0
    for seed in range(40):
        rng = random.Random(seed)
        e, xs = 0.0, []
        for _ in range(1000):
            e = 0.95 * e + rng.gauss(0, 0.05) * math.sqrt(1 - 0.95**2)
            xs.append(math.exp(e))
        c = Creep()
        for i, x in enumerate(xs):
            c.push(i, x, None)
        assert c.correlation() > 3  # (the estimate sees a correlation: 1 for independent noise)
        said += _said(xs) is not None
    assert said <= 2


def test_near_zero_and_lr_warmup_climbs_are_not_said():
    tiny = [x * 0.004 for x in _climb(600, 0.5, 0.03)]  # 0.0025 -> 0.0037: a memorised set's noise
    assert _said(tiny) is None
    xs = _climb(600, 0.3, 0.03)
    lrs = [1e-4 if t < 300 else 1e-4 * (1 + 3 * (t - 300) / 300) for t in range(600)]  # the LR rose 4x since the low
    assert _said(xs, lrs) is None
    assert _said(xs, [1e-4] * 600) is not None


def test_the_check_warns_below_the_divergence_factor_and_fails_above_it():
    mon = _monitor(_climb(2000, 0.25, 0.05))
    ls = next(c for c in mon.checks() if c.id == "loss_spike")
    assert ls.status.name == "WARN" and "creeping up" in ls.summary
    creep = [a for a in mon.alerts if a.key == "loss_creep"]
    assert len(creep) == 1 and creep[0].severity.name == "WARNING"
    assert "not yet a divergence" in creep[0].message
    assert mon.state.early_trouble_step is None  # (not the instability a missing warm-up causes)

    # 2x and climbing, slowly (each value within the rolling median's reach): a slow divergence
    rng = random.Random(3)
    slow = [
        2.0 * math.exp(-t / 300 + rng.gauss(0, 0.03))
        if t < 1000
        else 2.0 * math.exp(-1000 / 300) * (1 + 1.2 * (t - 1000) / 1000)
        for t in range(2000)
    ]
    mon = _monitor(slow)
    ls = next(c for c in mon.checks() if c.id == "loss_spike")
    assert ls.status.name == "FAIL"


def test_an_rl_objective_is_not_judged_by_its_climb():
    mon = _monitor(_climb(2000, 0.25, 0.05), extra={"reward": 1.0})
    assert not [a for a in mon.alerts if a.key == "loss_creep"]


def test_rows_and_frames_agree_on_a_creep():
    xs = _climb(1500, 0.25, 0.05, seed=4)
    recs = [StepRecord(i + 1, loss=x, lr=3e-4) for i, x in enumerate(xs)]
    run_both(recs, sizes=(1, 7, 64, 1000, 10**9))
    short = [StepRecord(i + 1, loss=x) for i, x in enumerate(_climb(50, 0.4, 0.02))]
    run_both(short, sizes=(1, 7, 10**9))


# fresh98's NumPy MLP epoch losses (W&B train_loss of two sweep runs): the lowest after epoch 2 / 4,
# then higher at every epoch to the last
CLIMB_EPOCHS = [0.4312, 0.3542, 0.3879, 0.4048, 0.4443, 0.5393, 0.5636, 0.6131, 0.6727, 0.7818]
LATE_RISE_EPOCHS = [0.3881, 0.2518, 0.2343, 0.2240, 0.2321, 0.2440, 0.2486, 0.2692, 0.2949, 0.3105]


def test_a_short_log_rising_at_every_record_from_its_low_is_a_climb_by_order():
    hit = _said(LATE_RISE_EPOCHS)
    assert hit is not None and hit.rises == 6 and hit.low == pytest.approx(0.2240) and hit.low_step == 4
    mon = _monitor(LATE_RISE_EPOCHS)
    ls = next(c for c in mon.checks() if c.id == "loss_spike")
    assert ls.status.name == "WARN" and "creeping up" in ls.summary
    (a,) = [a for a in mon.alerts if a.key == "loss_creep"]
    assert "6 rises in a row" in a.message and a.severity.name == "WARNING"

    mon = _monitor(CLIMB_EPOCHS)  # 1.9x its low: a slow divergence
    ls = next(c for c in mon.checks() if c.id == "loss_spike")
    assert ls.status.name == "FAIL" and "slow divergence" in ls.summary
    run_both([StepRecord(i + 1, loss=x) for i, x in enumerate(LATE_RISE_EPOCHS)], sizes=(1, 3, 10**9))


def test_a_short_climb_by_order_needs_six_rises_to_the_end_a_tenth_up_and_no_lr_rise():
    assert _said(LATE_RISE_EPOCHS[1:-1] + [0.25]) is None  # (fell at the end: no climb to its last record)
    assert _said(LATE_RISE_EPOCHS[:-1]) is None  # (5 rises after the low)
    flat = [1.0, 0.9, 0.8, 0.801, 0.802, 0.803, 0.804, 0.805, 0.806, 0.807]  # 7 rises, 0.9% up: no climb
    assert _said(flat) is None
    lrs = [1e-4 * (t + 1) for t in range(10)]  # (a warm-up's LR, still rising: its loss may rise)
    assert _said(LATE_RISE_EPOCHS, lrs) is None
    assert _said(LATE_RISE_EPOCHS, [1e-3] * 10) is not None


def test_short_noisy_or_falling_logs_are_never_a_climb_by_order():
    """Noise's chance of a climb by order from its lowest record to its last is about 1 / (n x 6!)."""
    said = 0
    for seed in range(300):
        rng = random.Random(seed)
        for n in (8, 12, 20, 40, 63):
            for sd in (0.02, 0.1, 0.4):
                flat = [math.exp(rng.gauss(0, sd)) for _ in range(n)]
                fall = [math.exp(-2 * t / n + rng.gauss(0, sd)) for t in range(n)]
                said += (_said(flat) is not None) + (_said(fall) is not None)
    assert said == 0
