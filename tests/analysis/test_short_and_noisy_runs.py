"""Runs too short, too noisy or too slow for the windowed rules (the held-out set
bench/corpus/fresh8 missed each): a log of a few dozen epochs that never learns, a loss
that climbs slowly under the divergence bar, and a grad-norm spike in a batch-of-1 series
whose noise hides it from the sigma rules. Each is checked on rows and on frames."""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

import pytest
from conftest import run, status
from test_frames import run_both

from tsm_tui.analysis.detectors.plateau import SHORT_KEEP
from tsm_tui.analysis.replay import analyze
from tsm_tui.core.record import StepRecord


def _of(alerts, check):
    return [a for a in alerts if a.check == check]


def stuck_epochs(n=38, seed=0):
    """A Keras log of ``n`` epochs stuck at ln 2 after its first (fresh8's autoencoder)."""
    rng = random.Random(seed)
    return [StepRecord(e, loss=(0.793 if e == 0 else 0.6932 + 0.0003 * rng.random()), lr=1e-3) for e in range(n)]


def test_a_log_of_a_few_dozen_epochs_that_never_learns_is_said():
    mon, alerts = run(stuck_epochs())
    (a,) = _of(alerts, "plateau")
    assert a.severity.value == "warning" and "Loss never improved in 37 steps since step 0" in a.message
    assert status(mon, "plateau") == "WARN"
    run_both(stuck_epochs())


def test_a_short_log_that_learns_or_is_too_noisy_to_tell_is_not_said():
    rng = random.Random(1)
    learns = [StepRecord(e, loss=0.7 * math.exp(-e / 15) + 0.3 + 0.01 * rng.random()) for e in range(25)]
    noisy = [StepRecord(e, loss=2.2 * math.exp(rng.gauss(0, 0.2))) for e in range(25)]
    for recs in (learns, noisy):
        mon, alerts = run(recs)
        assert _of(alerts, "plateau") == [] and status(mon, "plateau") != "FAIL"
    # fewer than one window of losses: not judged at all
    mon, alerts = run(stuck_epochs(n=19))
    assert _of(alerts, "plateau") == []


def slow_climb(amount=0.32, tau=4000.0, noise=0.05, seed=2):
    """3,750 records every 10 steps: falls to 2.85 (time constant ``tau``), then from step
    15,000 climbs by ``amount`` to the end (fresh8's SEASS run: 11% above its best of
    22,000 steps before, under the divergence bar); ``noise`` per record."""
    rng = random.Random(seed)
    out = []
    for i in range(1, 3751):
        s = 10 * i
        base = 2.85 + 1.2 * math.exp(-s / tau) + amount * max(0, s - 15000) / 22500
        out.append(StepRecord(s, loss=base * math.exp(rng.gauss(0, noise))))
    return out


def test_a_loss_that_climbs_under_the_divergence_bar_is_no_progress():
    # the newest window proves the climb: "diverging, not flat (see Loss Spike Detection)"
    # was said while that check, which judges 1.5x and more, said PASS
    mon, alerts = run(slow_climb())
    assert status(mon, "loss_spike") == "PASS"
    (a,) = _of(alerts, "plateau")
    assert a.severity.value == "warning" and a.message.startswith("No progress for 22130 steps")
    res = next(c for c in mon.checks() if c.id == "plateau")
    assert res.status.value == "WARN" and "10% above its best" in res.summary
    mon, alerts = run(slow_climb(amount=-0.05))  # still falling slowly: nothing said
    assert _of(alerts, "plateau") == [] and status(mon, "plateau") == "PASS"
    run_both(slow_climb())


def test_a_stall_that_ended_by_climbing_did_not_improve():
    # a proven plateau whose span ended because the loss rose read "stalled ..., then improved"
    recs = slow_climb(tau=2000.0, noise=0.08)
    mon, alerts = run(recs)
    # (no LR, no plan: converged or stalled cannot be told, the stall is a warning)
    assert [a.severity.value for a in _of(alerts, "plateau")] == ["warning"]
    for r in recs:
        r.lr = 3e-4  # a constant LR logged: the stall is one (critical, said at the time)
    mon, alerts = run(recs)
    assert [a.severity.value for a in _of(alerts, "plateau")] == ["critical"]
    res = next(c for c in mon.checks() if c.id == "plateau")
    assert res.status.value == "WARN" and "then rose: loss 3.128, 13% above its best" in res.summary
    mon, alerts = run(slow_climb(amount=-0.3, tau=2000.0, noise=0.08))  # it fell again after the stall
    res = next(c for c in mon.checks() if c.id == "plateau")
    assert "then rose" not in res.summary
    run_both(slow_climb(tau=2000.0, noise=0.08))


def batch_of_one(spikes=(), seed=4, n=81):
    """A batch-of-1 fine-tune's grad norm (log sd 0.9, falling 4 -> 0.3 over its first 30
    records), times ``spikes[record]``."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lev = 0.3 + 3.7 * math.exp(-s / 10)
        out.append(
            StepRecord(
                s,
                loss=3.0,
                grad_norm=lev * math.exp(rng.gauss(0, 0.9)) * spikes.get(s, 1)
                if spikes
                else lev * math.exp(rng.gauss(0, 0.9)),
            )
        )
    return out


def test_a_wild_spike_in_a_batch_of_one_series_is_found():
    mon, alerts = run(batch_of_one({22: 60.0}))
    g = [a for a in alerts if a.key == "grad_spike"]
    assert [a.step for a in g][:1] == [22] and g[0].value / g[0].baseline >= 20
    run_both(batch_of_one({22: 60.0}))


#: fresh8's Whisper fine-tune (every 25 steps, LR warming up 4.8e-6 -> 1e-4 by step 525): the
#: loss falls to 0.118, then climbs 2.6x with the LR and holds there
WHISPER = [0.833, 0.487, 0.165, 0.121, 0.118, 0.135, 0.133, 0.145, 0.149, 0.167, 0.171, 0.195, 0.184, 0.214]
WHISPER += [0.213, 0.228, 0.284, 0.273, 0.298, 0.297, 0.314, 0.306, 0.327, 0.304, 0.312, 0.301, 0.308, 0.312]


def whisper():
    return [StepRecord(25 * (i + 1), loss=x, lr=min(1e-4, 4.8e-6 + 2e-7 * 25 * i)) for i, x in enumerate(WHISPER)]


def test_a_short_log_that_learns_then_climbs_is_diverging():
    # the line through all its values (0.83 first) proved no climb: measured from its lowest
    # loss, once the LR has stopped rising (a warm-up's loss may rise: not said before)
    mon, alerts = run(whisper())
    (d,) = [a for a in alerts if a.key == "loss_divergence"]
    assert d.severity.value == "critical" and d.step == 600  # (3 records after the LR stopped rising)
    assert "its lowest 0.118 (step 125)" in d.message and "values from there climbs" in d.message
    assert status(mon, "loss_spike") == "FAIL"
    run_both(whisper())


def test_the_minimum_of_a_noisy_flat_short_log_is_no_climb():
    # a noisy flat log's lowest value is followed by its level: no divergence (measured from
    # the low, the rank test asks z 4; the bench's 3,600 lognormal runs: 0 alerts)
    for sd in (0.3, 0.5, 0.8):
        for seed in range(40):
            rng = random.Random(f"{sd}-{seed}")
            recs = [StepRecord(s, loss=2.0 * math.exp(rng.gauss(0, sd))) for s in range(1, 100)]
            _, alerts = run(recs)
            assert not [a for a in alerts if a.key == "loss_divergence"], (sd, seed)


def test_near_zero_is_near_zero_for_the_losss_own_scale():
    """fresh8's spiking ResNet: a loss that starts at 0.037 and learns down to 0.006 (test
    accuracy 0.01 -> 0.77) read "memorisation" (below 0.01 for most of 50 values). Near zero is
    also below 5% of the run's first loss; a cross-entropy from 2.3 to 0.005 still is."""
    small = [StepRecord(s, loss=0.031 * math.exp(-s / 400) + 0.006, grad_norm=0.5) for s in range(1, 1501)]
    _, alerts = run(small)
    assert [a for a in alerts if a.check == "output_collapse"] == []
    run_both(small)
    ce = [StepRecord(s, loss=2.3 * math.exp(-s / 100) + 0.005, grad_norm=0.5) for s in range(1, 1501)]
    _, alerts = run(ce)
    (a,) = [a for a in alerts if a.check == "output_collapse"]
    assert "memorising" in a.message
    run_both(ce)


def flat_after_start(n=64, every=1, first=3.0, level=2.2, sd=0.1, head=3, seed=4, lr=1e-3):
    """``n`` losses ``every`` steps: ``head`` at ``first``, then noise around ``level`` with
    no trend (corpus: a RetinaNet KD start of 64 steps, a detectron2 fine-tune of 50
    records every 20 iterations, both too short for a plateau window)."""
    rng = random.Random(seed)
    return [
        StepRecord(
            i * every, loss=first if i < head else level * math.exp(rng.gauss(0, sd)), lr=lr(i) if callable(lr) else lr
        )
        for i in range(n)
    ]


def test_a_short_log_flat_after_its_start_shows_no_progress():
    for recs in (flat_after_start(), flat_after_start(n=50, every=20, first=0.165, level=0.137, sd=0.04)):
        mon, alerts = run(recs)
        (a,) = _of(alerts, "plateau")
        assert a.severity.value == "warning" and a.message.startswith("Loss no lower for ")
        assert "A short log cannot prove a loss flat" in a.message
        res = next(c for c in mon.checks() if c.id == "plateau")
        assert res.status.value == "WARN" and res.summary.endswith("(a short log)")
        assert "the last third's median" in res.summary
        run_both(recs)


def test_a_short_log_that_still_falls_slowly_or_converged_shows_progress():
    rng = random.Random(7)
    # CLIP-like: 50 epochs, strictly falling, only 1.5% over its last 60% (a line proves it)
    slow = [StepRecord(e, loss=1.77 + 0.64 * math.exp(-e / 8) + 0.002 * rng.random()) for e in range(1, 51)]
    # a fine-tune that learns all the way
    learns = [StepRecord(s, loss=2.0 * math.exp(-s / 40) + 0.5 * math.exp(rng.gauss(0, 0.05))) for s in range(80)]
    # flat once the LR is decayed (a step decay to 1% of its peak where the flat stretch
    # begins): convergence, not a plateau (the labels exempt an LR under 10% of its peak at
    # the onset; one still high there, decaying over the flat stretch, is judged: see
    # test_a_short_resumed_epoch_flat_while_its_lr_decays_shows_no_progress)
    done = [
        StepRecord(i, loss=(2.2 + 0.8 * math.exp(-i / 4)) * math.exp(rng.gauss(0, 0.05)), lr=1e-3 if i < 20 else 1e-5)
        for i in range(80)
    ]
    for recs in (slow, learns, done):
        mon, alerts = run(recs)
        assert _of(alerts, "plateau") == [], [a.message for a in _of(alerts, "plateau")]
        assert status(mon, "plateau") != "WARN"
        run_both(recs)
    # fewer than 2 x MIN_RECORDS losses: not judged
    _, alerts = run(flat_after_start(n=39))
    assert _of(alerts, "plateau") == []


def test_a_noisy_short_log_that_learns_slowly_rarely_shows_no_progress():
    # falls ~14% over its last 60% under per-record noise of 30%: the thirds' medians can miss
    # the gain by chance, and the line cannot rule it out (SHORT_Z): 2 of 60 warn (16 without
    # that bound); 0 of 60 for a loss that halves over the log
    def warned(tau_frac, sd):
        n_warn = 0
        for seed in range(60):
            rng = random.Random(f"{tau_frac}-{sd}-{seed}")
            n = rng.choice([40, 60, 100, 150, 250])
            recs = [
                StepRecord(i, loss=(0.5 + 2.0 * math.exp(-i / (tau_frac * n))) * math.exp(rng.gauss(0, sd)))
                for i in range(n)
            ]
            _, alerts = run(recs)
            n_warn += any(a.check == "plateau" for a in alerts)
        return n_warn

    assert warned(3.0, 0.3) <= 2
    assert warned(1.0, 0.3) == 0


# -- the level rule on logs the windowed test cannot decide (fresh13 / fresh14) -------------
GAT_CSV = (
    Path(__file__).resolve().parents[2] / "bench" / "corpus" / "fresh14" / "gat_cora_csv_plateau" / "training_log.csv"
)


@pytest.mark.skipif(not GAT_CSV.exists(), reason="bench/corpus/fresh14 not present")
def test_a_31_epoch_csv_flat_after_its_start_shows_no_progress():
    """fresh14 gat_cora_csv_plateau (MIT): 31 epochs, the loss 0.566-0.576 for 27 of them, read
    "too few to judge a plateau (a 200-step window holding 20 losses)"."""
    an = analyze(str(GAT_CSV))
    res = next(c for c in an.checks() if c.id == "plateau")
    assert res.status.value == "WARN" and res.summary.endswith("(a short log)"), res.summary
    (a,) = [a for a in an.monitor.alerts if a.check == "plateau"]
    assert a.severity.value == "warning" and a.step == 31 and "A short log cannot prove a loss flat" in a.message
    with GAT_CSV.open() as f:
        rows = list(csv.reader(f))[1:]
    run_both([StepRecord(i + 1, loss=float(r[0])) for i, r in enumerate(rows)])


def resumed_epoch(n=33, every=50, first=1650, level=0.94, sd=0.012, peak=1e-4, seed=11):
    """A resumed second epoch of a LoRA SFT (fresh13 trl5_quoted_dict_resume_tinyllama_lora's
    shape): ``n`` losses every ``every`` steps from ``first``, flat around ``level``, the LR
    decaying linearly from its peak to ~0 over the log."""
    rng = random.Random(seed)
    return [
        StepRecord(first + i * every, loss=level * math.exp(rng.gauss(0, sd)), lr=peak * (1 - i / n)) for i in range(n)
    ]


def test_a_short_resumed_epoch_flat_while_its_lr_decays_shows_no_progress():
    """33 losses (under one window of 20 at that interval): the level rule judges them from 20 up;
    an LR still at its peak where the flat stretch begins is no convergence (the labels exempt an
    LR under 10% of its peak at the onset), though it ends at ~0."""
    recs = resumed_epoch()
    mon, alerts = run(recs)
    (a,) = _of(alerts, "plateau")
    assert a.severity.value == "warning" and a.message.startswith("Loss no lower for ")
    assert status(mon, "plateau") == "WARN"
    run_both(recs)
    # the same losses with the LR already at 1% of its peak over most of the log: converged
    done = [StepRecord(r.step, loss=r.loss, lr=1e-4 if i < 5 else 1e-6) for i, r in enumerate(recs)]
    _, alerts = run(done)
    assert _of(alerts, "plateau") == []
    # 19 losses: not judged
    _, alerts = run(resumed_epoch(n=19))
    assert _of(alerts, "plateau") == []


def per_batch(n=6000, stall=0.3, sd=0.25, gain=0.0, seed=5):
    """``n`` per-batch losses (a seq2seq LSTM / a small-batch SFT, fresh5 wandb01311 and fresh13
    wandb_offline_hf_sft's shape): a descent to 2.25 by ``stall`` x n, then ``gain`` more over the
    rest, per-record log-normal noise ``sd`` (a batch's loss: 0.4-2.5x its level)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        p = i / n
        lvl = 2.25 * (1 + 0.6 * max(0.0, 1 - p / stall) ** 2) * (1 - gain * max(0.0, p - stall) / (1 - stall))
        out.append(StepRecord(i, loss=lvl * math.exp(rng.gauss(0, sd))))
    return out


def test_a_noisy_per_batch_loss_flat_by_its_window_medians_shows_no_progress():
    """The windowed test's band is far wider than its 1% bar on such noise ("too noisy to tell
    flat from moving"); the medians of its tenths show no progress after the descent. The
    sample the rule reads stays bounded (2 x SHORT_KEEP), and rows and frames agree."""
    recs = per_batch()
    mon, alerts = run(recs)
    res = next(c for c in mon.checks() if c.id == "plateau")
    assert res.status.value == "WARN" and res.summary.endswith("(the medians of a noisy log)"), res.summary
    (a,) = _of(alerts, "plateau")
    assert a.step == 5999 and "the medians of its tenths show no progress" in a.message
    det = next(d for d in mon.detectors if d.id == "plateau")
    assert len(det._keep) <= 2 * SHORT_KEEP and det._keep_every > 1
    run_both(recs)


def test_a_noisy_per_batch_loss_that_still_learns_is_not_said():
    """The same noise with 15% or 20% more gained after the descent (a slow fine-tune's tail):
    progress, not said (5 seeds each)."""
    for gain in (0.15, 0.2):
        for seed in range(5, 10):
            mon, alerts = run(per_batch(gain=gain, seed=seed))
            assert _of(alerts, "plateau") == [], [a.message for a in _of(alerts, "plateau")]
            assert status(mon, "plateau") != "WARN"


def test_a_noisy_loss_diverged_from_its_best_is_no_level_plateau():
    """Per-batch losses that fall to 1.27, jump to ~1.9 a quarter into the log and stay there
    (console hf_ds_bitdistiller's shape): the verdict says "rising, not flat" (the Loss Spike
    check's), and the level rule says nothing that contradicts it."""
    rng = random.Random(3)
    recs = [
        StepRecord(i, loss=(1.27 + 1.5 * math.exp(-i / 60) if i < 450 else 1.95) * math.exp(rng.gauss(0, 0.25)))
        for i in range(1800)
    ]
    mon, alerts = run(recs)
    res = next(c for c in mon.checks() if c.id == "plateau")
    assert "rising, not flat" in res.summary, res.summary
    assert not any(a.message.startswith("Loss no lower") for a in _of(alerts, "plateau"))


def resumed_gpt2_epoch(drop=0.13, seed=5):
    """A log that starts at step 19,072 (a resume of a GPT-2 run: the second epoch) and logs every step
    to 38,145: the loss falls ``drop`` from 3.12 on a cosine LR (3.4e-4 to 6e-5), noise 1.2% a step."""
    rng = random.Random(seed)
    out = []
    for s in range(19072, 38146):
        u = (s - 19072) / 19073
        lr = 6e-5 + (3.4e-4 - 6e-5) * 0.5 * (1 + math.cos(math.pi * u))
        out.append(StepRecord(s, loss=(3.12 - drop * u) * math.exp(rng.gauss(0, 0.012)), lr=lr))
    return out


def test_a_resumed_run_that_falls_slowly_all_the_way_is_no_failed_plateau():
    """fresh60's resumed build-nanogpt epoch (3.12 -> 2.99, every tenth lower) FAILed "flat for 19073
    steps": a 640-step window at its start proved it flat and the verdict kept that. Judged whole at the
    end, the span is proven falling and has gained 2% or more (the labels' bar for no progress): slow
    progress, a WARN that says so. A resumed run that really stays flat still FAILs."""
    mon, _ = run(resumed_gpt2_epoch())
    res = next(c for c in mon.checks() if c.id == "plateau")
    assert res.status.value == "WARN" and "slow progress, not a plateau" in res.summary, res.summary
    mon, _ = run(resumed_gpt2_epoch(drop=0.0))
    res = next(c for c in mon.checks() if c.id == "plateau")
    assert res.status.value == "FAIL" and res.summary.startswith("flat for"), res.summary


#: fresh82's speech run (one launch of a grid, one Avg_loss an epoch): learns 0.734 -> 0.399 by epoch 8,
#: then rises over five epochs to ~0.84 and holds there, above where it began, to epoch 40
ROSE = [0.734, 0.557, 0.492, 0.452, 0.447, 0.413, 0.407, 0.399, 0.484, 0.532, 0.602, 0.780, 0.837, 0.837]
ROSE += [0.839, 0.836, 0.830, 0.826, 0.845, 0.845, 0.844, 0.840, 0.841, 0.836, 0.834, 0.838, 0.836, 0.835]
ROSE += [0.831, 0.839, 0.837, 0.836, 0.838, 0.835, 0.831, 0.829, 0.838, 0.830, 0.822, 0.822]


def test_a_short_log_that_learned_then_rose_and_stayed_above_its_start_is_diverging():
    # the line's and the ranks' tests fail on a rise that then holds (Mann-Kendall z 3.1 at most from the
    # low); every one of the last 8 values >= 1.5x the level at the low, above the start: divergence
    recs = [StepRecord(e, loss=x) for e, x in enumerate(ROSE, start=1)]
    mon, alerts = run(recs)
    (d,) = [a for a in alerts if a.key == "loss_divergence"]
    assert d.severity.value == "critical" and d.step == 19, d.step  # (8 values in a row from epoch 12)
    assert "Loss rose and stayed up" in d.message and "level at its low 0.407 (step 8)" in d.message
    assert status(mon, "loss_spike") == "FAIL"
    run_both(recs)


def _flat_and_falling(tag: str, sd: float, tau: float) -> tuple[list[StepRecord], list[StepRecord]]:
    """Two short logs of 98 values under lognormal noise of log-sd ``sd`` (seeded by ``tag``): one flat at 2.0 (its
    low an extreme of the noise), one that falls from 2.0 (time constant ``tau``) to sit flat at 0.5 (its level
    below where it began)."""
    rng = random.Random(tag)
    flat = [StepRecord(s, loss=2.0 * math.exp(rng.gauss(0, sd))) for s in range(1, 99)]
    fall = [StepRecord(s, loss=(0.5 + 1.5 * math.exp(-s / tau)) * math.exp(rng.gauss(0, sd))) for s in range(1, 99)]
    return flat, fall


def test_a_noisy_flat_or_falling_short_log_never_rose_and_stayed():
    # flat lognormal logs and logs that fall then sit flat: never "rose and stayed"
    for sd in (0.05, 0.1, 0.2, 0.3):
        for seed in range(60):
            for recs in _flat_and_falling(f"stay-{sd}-{seed}", sd, 6):
                _, alerts = run(recs)
                assert not [a for a in alerts if "rose and stayed" in a.message], (sd, seed)


#: fresh89's wav2vec2 CTC fine-tune (trainer_state.json, a loss every 50 steps): 11,383 -> 883 at step 2150,
#: then 2.7x up for 11 records, then back to ~1,060: each value under 2x the median of the descent before it
CLEAR = [11383, 3551, 3555, 3614, 3595, 3401, 3285, 3177, 3134, 3059, 3242, 3093, 3103, 2981, 2800, 2569, 2223]
CLEAR += [2015, 1863, 1712, 1665, 1528, 1465, 1442, 1524, 1331, 1392, 1350, 1284, 1235, 1185, 1087, 1072, 1125]
CLEAR += [1077, 1127, 1075, 1047, 1093, 1021, 998, 933, 883, 893, 1163, 1473, 1625, 1958, 1605, 1759, 1891, 2397]
CLEAR += [2167, 1679, 1565, 1475, 1221, 1248, 1140, 1074, 1061]


def test_a_short_log_that_rose_clear_of_its_noise_is_diverging_even_when_it_comes_back():
    recs = [StepRecord(50 * i, loss=float(x)) for i, x in enumerate(CLEAR, start=1)]
    mon, alerts = run(recs)
    (d,) = [a for a in alerts if a.key == "loss_divergence"]
    # 8 values in a row >= 1.5x the low's level 893 (step 2150) from step 2300: said at 2650
    assert d.severity.value == "critical" and d.step == 2650, d.step
    assert "Loss rose and stayed up" in d.message and "units of its noise before the low" in d.message
    assert "level at its low 893 (step 2150)" in d.message
    run_both(recs)
    # the same climb in a noisy per-batch log (log-sd 0.3 before the low) is within its noise: not said
    rng = random.Random(3)
    noisy = [StepRecord(50 * i, loss=x * math.exp(rng.gauss(0, 0.3))) for i, x in enumerate(CLEAR[:43], start=1)]
    noisy += recs[43:]
    _, alerts = run(noisy)
    assert not [a for a in alerts if "units of its noise" in a.message]


def test_a_jump_to_a_lasting_level_is_diverging_whether_or_not_the_run_had_learned():
    # fresh91's MMEngine detector: five records at ~1.8, then 24.2 when extra heads switch on and ~18-21 to the
    # end; the low's level was no learned one, so the bar is 3x (JUMP_STAYED), 6 noise units above it
    xs = [2.447, 1.831, 1.830, 1.840, 1.756, 24.23, 21.50, 20.73, 19.84, 19.30, 18.89, 18.53, 18.20, 17.96, 17.82]
    recs = [StepRecord(50 + 68 * i, loss=x) for i, x in enumerate(xs)]
    mon, alerts = run(recs)
    (d,) = [a for a in alerts if a.key == "loss_divergence"]
    assert d.step == 866 and "units of its noise before the low" in d.message, (d.step, d.message)
    run_both(recs)
    # fresh90's LSTM at LR 0.1: ln 6 at iteration 0, then 8-31 for 20 records (wider than JUMP_SPREAD): a jump
    # out of the first value after 16 of them, 7 sds of their log-values above it
    xs = [1.796, 18.30, 31.04, 24.26, 16.56, 16.95, 14.47, 17.60, 18.20, 17.09, 10.94, 13.20, 17.46, 17.19, 12.17]
    xs += [20.40, 14.05, 16.91, 8.234, 19.11, 15.34]
    recs = [StepRecord(10 * i, loss=x) for i, x in enumerate(xs)]
    mon, alerts = run(recs)
    (d,) = [a for a in alerts if a.key == "loss_divergence"]
    assert d.step == 160 and "jumped and stayed up" in d.message, (d.step, d.message)
    # the same values after a first one within their noise: nothing
    _, alerts = run([StepRecord(10 * i, loss=x) for i, x in enumerate([9.0] + xs[1:])])
    assert not [a for a in alerts if a.key == "loss_divergence"]


def test_a_lucky_low_first_value_of_a_noisy_log_is_no_jump():
    # per-batch noise (lognormal, log-sd 0.8-1.5), some of whose first values are their lowest by far (values
    # that spread wider than JUMP_SPREAD): no divergence
    for sd in (0.8, 1.0, 1.5):
        for seed in range(150):
            rng = random.Random(f"jump-{sd}-{seed}")
            recs = [StepRecord(s, loss=2.0 * math.exp(rng.gauss(0, sd))) for s in range(1, 40)]
            _, alerts = run(recs)
            assert not [a for a in alerts if "jumped and stayed up" in a.message], (sd, seed)


def test_noisy_short_logs_never_rose_clear_of_their_noise():
    # flat lognormal logs, and logs that fall then sit flat, at every noise level: the high stretches are
    # the noise's own, never sigma units of it above the low's level
    for sd in (0.02, 0.05, 0.1, 0.2, 0.3, 0.5):
        for seed in range(40):
            for recs in _flat_and_falling(f"clear-{sd}-{seed}", sd, 10):
                _, alerts = run(recs)
                assert not [a for a in alerts if a.key == "loss_divergence"], (sd, seed)


#: fresh98's fastai tabular run (DVCLive, one train loss an epoch): a start that blew up (1.3e8 -> 1.6e9), down to
#: ~4.5e5 by epoch 10, then flat and noisy for 30 epochs
BLEW_UP = [1.27e8, 1.58e9, 6.97e8, 2.63e8, 6.93e8, 9.01e7, 1.48e8, 3.14e7, 9.15e6, 2.45e6, 5.04e5, 4.40e5, 5.14e5]
BLEW_UP += [3.89e5, 3.97e5, 5.26e5, 4.22e5, 3.93e5, 3.91e5, 3.83e5, 2.52e5, 3.82e5, 4.58e5, 5.09e5, 4.00e5, 3.53e5]
BLEW_UP += [4.30e5, 6.77e5, 2.75e5, 6.18e5, 4.46e5, 3.06e5, 3.07e5, 5.59e5, 6.78e5, 5.45e5, 3.11e5, 3.98e5, 5.79e5]
BLEW_UP += [5.37e5, 4.30e5, 4.93e5]


def test_a_flat_tail_after_a_start_that_blew_up_is_no_loss_at_its_floor():
    # the level 4.5e5 is 0.2% of the first 20 losses' mean (the blow-up's), "at its floor" by it; of their
    # median (5.8e6) it is 8%: the flat tail is judged, and the frames' path judges it as the records' does (it
    # had skipped every evaluation of a log of one record an epoch shorter than 0.8 x plateau_steps)
    recs = [StepRecord(e, loss=x, epoch=float(e)) for e, x in enumerate(BLEW_UP)]
    mon, alerts = run(recs)
    (p,) = [a for a in alerts if a.check == "plateau"]
    assert p.severity.value == "warning" and "no progress" in p.message, p.message
    run_both(recs)


def test_a_gans_generator_loss_that_rises_is_not_said_never_to_learn(tmp_path):
    # a WGAN's generator loss rises as its critic learns (fresh82's 27 launches: "loss never measurably
    # improved since step 1 ... not learning", a FAIL on a healthy run): no never-learned verdict on it
    rng = random.Random(1)
    lines = ["TRAIN started at Fri Oct 24 19:45:03 2025"]
    for e in range(1, 101):
        g = 3.7 - 3.2 * math.exp(-(e - 1) / 1.5) + 0.25 * math.sin(e / 6) + rng.gauss(0, 0.08)
        lines.append(f"Epoch {e}/100 | D_loss={-3.5 + rng.gauss(0, 0.3):.4f} | G_loss={g:.4f} | Time=10.83s")
    (tmp_path / "train_log.txt").write_text("\n".join(lines) + "\n")
    an = analyze(str(tmp_path))
    plateau = next(c for c in an.checks() if c.id == "plateau")
    assert plateau.status.value == "PASS" and "not learning" not in plateau.summary, plateau.summary


def test_a_grad_norm_spike_after_the_first_records_transient_is_found():
    # fresh83's W&B run: 78, 89, 3060, 10979, 49, 24, 6123 ... before the grad norm settles at ~2; its first
    # records' differences stayed in the robust rule's noise window and hid a 17x spike at step 37
    head = [78.4, 89.1, 3060.5, 10979.4, 49.4, 24.1, 6123.9, 54.8, 7.5, 5.6, 46.8, 5.2, 6.2, 3.6, 16.6, 2.9]
    head += [5.6, 4.3, 2.3, 2.6, 2.9, 2.9, 2.7, 3.1, 97.3, 6.8, 2.1, 3.9, 2.3, 2.3, 1.9, 2.0, 1.9, 2.1, 2.3, 2.3]
    rng = random.Random(5)
    tail = [36.4] + [2.0 * math.exp(rng.gauss(0, 0.08)) for _ in range(40)]
    recs = [StepRecord(s, loss=1.5 - s / 200, grad_norm=g) for s, g in enumerate(head + tail, start=1)]
    _, alerts = run(recs)
    steps = [a.step for a in alerts if a.check == "grad_norm" and "spike" in a.message.lower()]
    assert 37 in steps and 25 in steps, steps
    run_both(recs)


def test_a_flat_run_that_ends_in_nan_is_judged_up_to_its_last_finite_loss():
    # fresh83's Octree run: flat for 369 steps, then NaN to step 774; the plateau is the finite losses'
    # ("Loss never improved in 774 steps", said at 774), the NaN tail the NaN/Inf check's
    recs = stuck_epochs(40) + [StepRecord(e, loss=math.nan, lr=1e-3) for e in range(40, 80)]
    mon, alerts = run(recs)
    (a,) = _of(alerts, "plateau")
    assert a.step == 39 and "Loss never improved in 39 steps since step 0" in a.message
    assert status(mon, "nonfinite") == "FAIL"
    run_both(recs)


def two_mode_cases(seed=0, share=0.42):
    """fresh85's MONAI spleen run, generated: 50 epochs of 33 per-case losses (a batch of 1); from epoch 7
    each case is stuck at ~0.52 with p ``share`` (0.21-0.61 an epoch in the real log), else learning
    (0.42 -> ~0.15); before, every case is at ~0.6 -> 0.52."""
    rng = random.Random(seed)
    out, s = [], 0
    for e in range(50):
        for _ in range(33):
            s += 1
            low = 0.12 + 0.3 * math.exp(-(e - 7) / 15)
            x = 0.52 + 0.1 * math.exp(-e / 3) if e < 7 or rng.random() < share else low
            out.append(StepRecord(s, loss=x * math.exp(rng.gauss(0, 0.05))))
    return out


def test_a_median_jumping_between_two_modes_is_no_divergence():
    # the rolling median jumps from one mode to the other as their shares cross a half (1.6x on the run
    # above): the window's middle half does not move so, and no divergence is said; a true climb still is
    for seed in range(12):
        recs = two_mode_cases(seed)
        _, alerts = run(recs)
        assert not [a for a in alerts if a.key == "loss_divergence"], seed
    run_both(two_mode_cases(0))
    climb = [
        StepRecord(s, loss=(1.0 if s < 600 else 1.0 + (s - 600) / 200) * math.exp(random.Random(s).gauss(0, 0.05)))
        for s in range(1, 1001)
    ]
    _, alerts = run(climb)
    assert [a for a in alerts if a.key == "loss_divergence"]
    run_both(climb)


def test_the_never_learned_rule_counts_steps_not_each_ranks_records():
    # fresh88's 8-rank IPU benchmark: 80 records of 10 steps, flat, FAILed "not learning"; 20 steps are needed,
    # however many ranks print each
    def ranks(steps, seed=0):
        rng = random.Random(seed)
        return [StepRecord(s, loss=3.8 * math.exp(rng.gauss(0, 0.01))) for s in range(steps) for _ in range(8)]

    mon, alerts = run(ranks(10))
    assert not _of(alerts, "plateau") and status(mon, "plateau") == "SKIP"
    run_both(ranks(10))
    mon, alerts = run(ranks(40))
    assert [a for a in _of(alerts, "plateau") if "never improved" in a.message]
    run_both(ranks(40))
