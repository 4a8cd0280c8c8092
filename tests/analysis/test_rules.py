"""The verdict rules shared by the live checks and pre-flight (analysis/rules.py), at their
boundaries, and the two sides giving the same verdict for the same numbers."""

from __future__ import annotations

import pytest

from tsm_tui.analysis.detectors.checkpoints import CheckpointDetector
from tsm_tui.analysis.detectors.lr_schedule import LRScheduleDetector
from tsm_tui.analysis.rules import (
    checkpoint_gap_limit,
    checkpoint_gap_too_long,
    lr_ratio_line,
    lr_ratio_status,
    warmup_published,
    warmup_short,
)
from tsm_tui.analysis.state import RunState
from tsm_tui.core.record import Status
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.preflight.checks import check_checkpoints, check_lr_schedule
from tsm_tui.preflight.plan import Plan

S = Settings()


@pytest.mark.parametrize(
    "steps, total, tokens, short",
    [
        (99, 10_000, None, True),  # 0.99%: under 1%
        (100, 10_000, None, False),  # exactly 1%: not under it
        (1999, 1_000_000, None, True),  # 0.2%, one step short of the published 2000
        (2000, 1_000_000, None, False),  # LLaMA / OLMo 2 / DeepSeek: 0.2% but published
        (10, 1_000_000, 375e6, False),  # GPT-3's 375M warm-up tokens
        (10, 1_000_000, 374.9e6, True),
        (0, 100, None, True),  # no warm-up is short too (callers say "no warm-up" first)
        (5, None, None, False),  # run length unknown: never short
        (5, 0, None, False),
    ],
)
def test_warmup_short_boundaries(steps, total, tokens, short):
    assert warmup_short(steps, total, S, tokens) is short


def test_warmup_published_and_settings():
    assert warmup_published(2000, S) and not warmup_published(1999, S)
    assert warmup_published(1, S, 375e6) and not warmup_published(1, S, None)
    s = Settings(warmup_min_frac=0.05, warmup_published_steps=500)
    assert warmup_short(400, 10_000, s) and not warmup_short(500, 10_000, s) and not warmup_short(499, 9980, s)


@pytest.mark.parametrize(
    "ratio, status",
    [
        (1.0, Status.PASS),
        (3.0, Status.PASS),
        (3.0000001, Status.WARN),
        (9.99, Status.WARN),
        (9.999999999999996, Status.FAIL),  # 3e-3 for 350M params against GPT-3's 3e-4, in floating point
        (9.99999, Status.WARN),
        (10.0, Status.FAIL),
        (50.0, Status.FAIL),
        (0.0, Status.PASS),
    ],
)
def test_lr_ratio_status_boundaries(ratio, status):
    assert lr_ratio_status(ratio, S) == status


def test_lr_ratio_line_is_where_the_status_starts():
    for st in (Status.WARN, Status.FAIL):
        line = lr_ratio_line(st, S)
        assert lr_ratio_status(line * 1.000001, S).rank >= st.rank
        assert lr_ratio_status(line * 0.999, S).rank < st.rank
    assert lr_ratio_status(10.0, Settings(lr_fail_factor=20.0)) == Status.WARN


@pytest.mark.parametrize(
    "run, limit", [(1000, 200.0), (25_000, 5000.0), (100_000, 5000.0), (None, 5000.0), (0, 5000.0), (10, 2.0)]
)
def test_checkpoint_gap_limit(run, limit):
    assert checkpoint_gap_limit(run, S) == pytest.approx(limit)


def test_checkpoint_gap_too_long_boundaries():
    assert not checkpoint_gap_too_long(200, 1000, S) and checkpoint_gap_too_long(201, 1000, S)
    assert not checkpoint_gap_too_long(5000, 1_000_000, S) and checkpoint_gap_too_long(5001, 1_000_000, S)
    assert not checkpoint_gap_too_long(5000, None, S) and checkpoint_gap_too_long(5001, None, S)
    assert checkpoint_gap_too_long(3, 10, Settings(ckpt_max_gap_frac=0.25))
    assert not checkpoint_gap_too_long(2, 10, Settings(ckpt_max_gap_frac=0.25))


# --- the live check and pre-flight agree ------------------------------------------------------


def _lr_detector(info: RunInfo) -> LRScheduleDetector:
    return LRScheduleDetector(S, RunState(info=info))


@pytest.mark.parametrize(
    "warmup, total, want",
    [(1999, 300_000, Status.WARN), (2000, 300_000, Status.PASS), (29, 3000, Status.WARN), (30, 3000, Status.PASS)],
)
def test_warmup_from_config_same_verdict_live_and_preflight(warmup, total, want):
    info = RunInfo(warmup_steps=warmup, total_steps=total)
    live = _lr_detector(info).result()
    pre = check_lr_schedule(Plan(warmup_steps=warmup, total_steps=total), S)
    assert live.status == want and pre.status == want, (live.summary, pre.summary)


@pytest.mark.parametrize(
    "params, lr, want",
    [
        (350e6, 3e-3, Status.FAIL),  # GPT-3 Table 2.1: 3e-4; the ratio is 9.999999999999996: the live check WARNed
        (760e6, 2.5e-3, Status.FAIL),  # 2.5e-4; the ratio is exactly 10.0: the live check WARNed (> 10x only)
        (350e6, 2.9e-3, Status.WARN),
        (350e6, 9e-4, Status.PASS),
        (350e6, 9.1e-4, Status.WARN),
        (7e9, 9.5e-4, Status.WARN),  # the LLaMA 7B / OLMo 2 7B recipe's 3e-4, not GPT-3's 1.2e-4 (FAIL)
        (7e9, 8.9e-4, Status.PASS),
    ],
)
def test_peak_lr_same_verdict_live_and_preflight(params, lr, want):
    # one reference rule (analysis/detectors/references.py): GPT-3 Table 2.1 from 10M
    # parameters, the LLaMA / OLMo 2 recipes near their sizes, DeepSeek's fit in its range
    info = RunInfo(peak_lr=lr, params=params)
    live = _lr_detector(info).result()
    pre = check_lr_schedule(Plan(peak_lr=lr, params=params), S)
    assert live.status == pre.status == want, (live.summary, pre.summary)


@pytest.mark.parametrize(
    "save, total, want",
    [
        (200, 1000, Status.PASS),
        (201, 1000, Status.WARN),
        (5000, 1_000_000, Status.PASS),
        (5001, 1_000_000, Status.WARN),
    ],
)
def test_checkpoint_gap_same_verdict_live_and_preflight(save, total, want):
    info = RunInfo(save_steps=save, total_steps=total, checkpoint_dir_searched=True)
    info.checkpoints = [(save, f"checkpoint-{save}"), (2 * save, f"checkpoint-{2 * save}")]
    st = RunState(info=info, first_step=1, last_step=2 * save + 1)
    live = CheckpointDetector(S, st).result()
    pre = check_checkpoints(Plan(save_steps=save, total_steps=total), S)
    assert live.status == pre.status == want, (live.summary, pre.summary)


# --- the same-step spike rule (analysis/sweep.py: the live loop and the runs report) ---------


def test_spike_onset_counts_loss_spikes_above_info_with_a_step():
    from tsm_tui.analysis.sweep import spike_onset
    from tsm_tui.core.record import Alert, Severity

    assert spike_onset(Alert("loss_spike", Severity.WARNING, 919, "spike")) == 919
    assert spike_onset(Alert("loss_spike", Severity.CRITICAL, 0, "spike")) == 0  # step 0 is a step
    assert spike_onset(Alert("loss_spike", Severity.INFO, 919, "recovered")) is None
    assert spike_onset(Alert("grad_norm", Severity.WARNING, 919, "grad spike")) is None
    assert spike_onset(Alert("loss_spike", Severity.WARNING, None, "spike")) is None


def test_same_step_spikes_within_one_step_and_one_sweep():
    from tsm_tui.analysis.sweep import DataOrder, near_steps, same_step_spikes

    assert list(near_steps(919)) == [918, 919, 920]
    sweep = DataOrder("/runs", "hf", ("c4", 32, None, None))
    other_data = DataOrder("/runs", "hf", ("pile", 32, None, None))
    onsets = {"a": {919, 2000}, "b": {920}, "c": {921}, "d": {919}}
    orders = {"a": sweep, "b": sweep, "c": sweep, "d": other_data}
    got = same_step_spikes(onsets, orders)
    # a@919 and b@920 are one step apart: shared; c@921 is 2 from a (not) but 1 from b (shared);
    # d spiked at 919 too, on other data: never compared; a@2000 alone
    assert got == {"a": {919: ["b"]}, "b": {920: ["a", "c"]}, "c": {921: ["b"]}}


# --- resume detection (core/frame.py: is_resume per record, first_resume per frame) -----------


def test_is_resume_and_first_resume_agree():
    import numpy as np

    from tsm_tui.core.frame import first_resume, is_resume

    assert is_resume(99, 100) and not is_resume(100, 100) and not is_resume(101, 100) and not is_resume(0, None)
    rng = np.random.default_rng(7)
    for _ in range(200):
        steps = rng.integers(0, 40, size=int(rng.integers(1, 12)))
        last = None if rng.random() < 0.3 else int(rng.integers(0, 40))
        top, want = last, -1
        for i, s in enumerate(steps.tolist()):  # the scalar rule, record by record
            if is_resume(s, top):
                want = i
                break
            top = s if top is None else max(top, s)
        assert first_resume(steps, last) == want, (steps, last)
