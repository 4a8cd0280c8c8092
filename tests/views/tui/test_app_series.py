"""The bounded series store and the text plots behind the live monitor."""

from __future__ import annotations

import math

import pytest

from tsm_tui.views.tui.plotting import BAD_MARK, focus_plot, spark, step_ticks
from tsm_tui.core.record import StepRecord
from tsm_tui.views.tui.series import Series, SeriesStore


def test_spike_survives_downsampling_and_memory_is_bounded():
    s = Series(cap=256)
    n = 200_000
    for i in range(1, n + 1):
        s.append(i, 50.0 if i == 123_457 else 1.0 + (i % 7) * 1e-3)
    assert s.memory_buckets() <= 256 * len(s.levels)
    assert len(s.levels) <= math.ceil(math.log2(n / 256)) + 2
    win = s.window(None, None, 80)
    assert len(win) == 80 and win.lo == 1 and win.hi == n
    assert max(v for v in win.maxs if v is not None) == 50.0  # max per column: the spike is kept
    assert min(v for v in win.mins if v is not None) == 1.0
    assert spark(win, 80).count("█") == 1
    # the newest values are visible at the coarse level too (no lag at the right edge)
    assert win.lasts[-1] == pytest.approx(1.0 + (n % 7) * 1e-3)


def test_last_n_window_is_exact_at_fine_resolution():
    s = Series(cap=1024)
    for i in range(5000):
        s.append(i, float(i))
    win = s.window(4800, None, 200)
    assert win.lo == 4800 and win.hi == 4999 and len(win) == 200
    assert win.mins == [float(i) for i in range(4800, 5000)]
    assert all(v is not None for v in win.maxs)


def test_resume_drops_the_superseded_tail():
    st = SeriesStore(cap=64)
    for i in range(1, 301):
        st.add(StepRecord(step=i, loss=1.0, grad_norm=0.5))
    for i in range(201, 251):  # resumed from a checkpoint at step 200, worse loss
        st.add(StepRecord(step=i, loss=3.0, grad_norm=0.5))
    assert st.resumes == 1 and st.last_step == 250
    loss = st.get("loss")
    assert loss.last_step == 250
    win = loss.window(None, None, 300)
    assert win.hi == 250
    seen = [(x, v) for x, v in zip(win.steps, win.maxs) if v is not None]
    assert all(v == 3.0 for x, v in seen if x > 201) and any(v == 1.0 for x, v in seen if x < 200)


def test_nonfinite_values_are_marked_not_plotted():
    s = Series(cap=64)
    for i in range(100):
        s.append(i, float("nan") if i >= 90 else 2.0 - i / 100)
    win = s.window(None, None, 50)
    assert sum(win.bad) == 10
    line = spark(win, 50)
    assert line.endswith(BAD_MARK * 5)
    text = focus_plot(win, 40, 10, title="loss")
    assert "nan" not in text.plain.lower()


def test_throughput_and_loss_scale_series():
    st = SeriesStore()
    st.add(StepRecord(step=1, loss=2.0, loss_scale=65536.0, extra={"tokens_per_sec": 1.2e5}))
    assert st.names() == ["loss", "grad_norm", "lr", "loss_scale", "throughput"]
    assert st.get("throughput").last == 1.2e5


def test_focus_plot_size_log_and_marker():
    s = Series()
    for i in range(1, 1001):
        s.append(i, 3.0 * math.exp(-i / 300) + 1 + (5.0 if i == 700 else 0.0))
    win = s.window(None, None, 120)
    for w, h in ((38, 12), (120, 40)):
        t = focus_plot(win, w, h, log=True, marker=700)
        lines = t.plain.split("\n")
        assert len(lines) == h and max(len(x) for x in lines) <= w
    assert step_ticks(1, 1000, 5) == [200, 400, 600, 800, 1000]
    empty = focus_plot(Series().window(None, None, 10), 20, 5)
    assert isinstance(empty.plain, str)


def _store_state(st: SeriesStore):
    return (
        {
            name: (
                s.count,
                s.first_step,
                s.last_step,
                repr(s.last),
                repr(s.vmin),
                repr(s.vmax),
                [[list(map(repr, b)) for b in lvl.buckets] + [repr(lvl.pending), lvl.dropped] for lvl in s.levels],
            )
            for name, s in st.series.items()
        },
        st.first_step,
        st.last_step,
        st.resumes,
    )


@pytest.mark.parametrize("size", [1, 7, 64, 1000, 10**9])
def test_store_add_frame_equals_add(size):
    """Frames into the plot store give exactly the buckets of adding the rows one by
    one: long runs (several levels), NaN / Inf, equal steps, a throughput key, a
    resume inside a frame and between frames."""
    import random

    from tsm_tui.core.frame import frame_from_records

    rng = random.Random(size)
    recs = []
    for s in range(1, 9001):
        loss = rng.choice([math.nan, math.inf]) if s % 997 == 0 else 2 + rng.random()
        recs.append(
            StepRecord(
                s, loss=loss, grad_norm=rng.random(), lr=1e-4, extra={"train/tokens_per_sec": 1000.0 + s, "x": 1.0}
            )
        )
    recs += [
        StepRecord(s, loss=1.0, grad_norm=0.5, lr=1e-4, extra={"train/tokens_per_sec": 5.0, "x": 1.0})
        for s in list(range(4000, 6000)) + [6000, 6000, 6001]
    ]  # a resume, equal steps
    ref = SeriesStore(cap=64)
    ref.extend(recs)
    got = SeriesStore(cap=64)
    for a in range(0, len(recs), size):
        fr = frame_from_records(recs[a : a + size])
        if fr is None:
            got.extend(recs[a : a + size])
        else:
            got.add_frame(fr)
    assert _store_state(got) == _store_state(ref)


@pytest.mark.parametrize("seed", range(6))
def test_series_extend_equals_append(seed):
    """Series.extend (the bulk path) against append one by one: small caps so that
    levels grow, fill and drop inside one call; NaN, +-Inf, -0.0 / 0.0 ties,
    repeated steps, chunks of 1 .. 5000 values, resumes (appends) in between."""
    import random

    rng = random.Random(seed)
    cap = rng.choice([4, 6, 8, 64])
    ref, got = Series(cap), Series(cap)
    step = 0
    for _ in range(60):
        n = rng.choice([1, 2, 3, cap - 1, cap, cap + 1, 2 * cap + 3, 500, 5000])
        if rng.random() < 0.1 and step > 10:  # a resume, through append
            step = rng.randrange(1, step)
            ref.append(step, 1.0)
            got.append(step, 1.0)
        steps, vals = [], []
        for _ in range(n):
            step += rng.choice([0, 1, 1, 1, 5])
            steps.append(step)
            vals.append(rng.choice([rng.random(), rng.random(), 0.0, -0.0, 0.5, math.nan, math.inf, -math.inf]))
        for s_, v in zip(steps, vals):
            ref.append(s_, v)
        got.extend(steps, vals)
        one = SeriesStore()
        one.series = {"x": got}
        two = SeriesStore()
        two.series = {"x": ref}
        assert _store_state(one) == _store_state(two)
