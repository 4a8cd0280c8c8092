"""The columnar path (Frames, Detector.update_frame) against the per-record path.

Feeding a frame must give exactly what feeding its rows one by one gives: the
same alerts (text, steps, actions), the same checks, the same run state. Each
case feeds the same records both ways, with frames cut at several sizes (a cut
can fall anywhere: inside a spike, a warm-up, a plateau block).
"""

from __future__ import annotations

import glob
import math
import os
import random
import sys
from collections import deque

import numpy as np
import pytest

from tsm_tui.analysis import run_open
from tsm_tui.core.frame import Frame, frame_from_records
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.core.record import StepRecord
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources import reading
from helpers import paths

ROOT = paths.ROOT


def _shape(r: StepRecord):
    if r.samples is not None or r.overflow or r.loss_missing:
        return None
    return (
        tuple(
            f
            for f in (
                "loss",
                "grad_norm",
                "lr",
                "loss_scale",
                "tokens",
                "time",
                "epoch",
                "val_loss",
                "skipped",
                "nan_iters",
            )
            if getattr(r, f) is not None
        ),
        tuple(r.extra) if r.extra else (),
    )


def to_items(recs: list[StepRecord], size: int) -> list:
    """Runs of same-shape records as Frames of at most ``size`` rows; the rest as records."""
    out: list = []
    i = 0
    while i < len(recs):
        sh = _shape(recs[i])
        j = i + 1
        while sh is not None and j < len(recs) and j - i < size and _shape(recs[j]) == sh:
            j += 1
        fr = frame_from_records(recs[i:j]) if sh is not None else None
        if fr is None:
            out += recs[i:j]
        else:
            out.append(fr)
        i = j
    return out


#: detectors whose internal state must match too (their columnar paths commit state in bulk)
COMPARED = (
    "lr_schedule",
    "plateau",
    "nonfinite",
    "batch_size",
    "checkpoints",
    "output_collapse",
    "loss_spike",
    "grad_norm",
    "loss_scale",
    "crash",
    "throughput",
    "overfitting",
)


def _slots(cls) -> list[str]:
    """Every slot of a class, its bases' included."""
    out = []
    for c in cls.__mro__:
        sl = c.__dict__.get("__slots__", ())
        derived = getattr(cls, "DERIVED", ())  # caches of what the other slots determine
        out += (
            [sl]
            if isinstance(sl, str)
            else [k for k in sl if k not in ("__dict__", "__weakref__") and k not in derived]
        )
    return out


def _plain(x):
    """State as comparable values: floats by repr (NaN, -0.0; a numpy scalar that leaked
    in reads differently), objects by every slot and attribute, sets sorted, and
    anything unexpected by type and repr."""
    if isinstance(x, float):
        return repr(x)
    if x is None or isinstance(x, (bool, int, str)):
        return (type(x).__name__, x) if type(x) not in (bool, int, str) else x
    if isinstance(x, (list, tuple, deque)):
        return [type(x).__name__, *map(_plain, x)] + ([("maxlen", x.maxlen)] if isinstance(x, deque) else [])
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (set, frozenset)):
        return [type(x).__name__, *sorted(map(repr, map(_plain, x)))]
    slots = _slots(type(x))
    if slots or hasattr(x, "__dict__"):
        out = {k: _plain(getattr(x, k)) for k in slots if hasattr(x, k)}
        out.update({k: _plain(v) for k, v in getattr(x, "__dict__", {}).items()})
        return (type(x).__name__, out)
    return (type(x).__name__, repr(x))


def detector_state(mon: Monitor) -> dict:
    return {
        d.id: {k: _plain(v) for k, v in vars(d).items() if k not in ("s", "state")}
        for d in mon.detectors
        if d.id in COMPARED
    }


def snapshot(mon: Monitor) -> dict:
    st = mon.state
    return {
        "detectors": detector_state(mon),
        "alerts": [a.to_json() | {"key": a.key} for a in mon.alerts],
        "folded": dict(mon.folded),
        "checks": [c.to_json() for c in mon.checks()],
        "state": (
            st.records,
            st.first_step,
            st.last_step,
            st.peak_lr,
            st.peak_lr_step,
            st.last_lr,
            list(st.resumes),
            st.early_trouble_step,
        ),
        "records": mon.records,
        "actions": mon.actions(),
    }


def run_both(
    recs: list[StepRecord], info: RunInfo | None = None, sizes=(1, 7, 64, 1000, 10**9), finalize: bool = True
) -> None:
    def fresh() -> Monitor:
        i = RunInfo()
        if info is not None:
            i.__dict__.update({k: v for k, v in info.__dict__.items()})
        return Monitor(Settings(), i)

    ref = fresh()
    for r in recs:
        ref.feed(r)
    if finalize:
        ref.finalize()
    want = snapshot(ref)
    for size in sizes:
        mon = fresh()
        for it in to_items(recs, size):
            if isinstance(it, Frame):
                mon.feed_frame(it)
            else:
                mon.feed(it)
        if finalize:
            mon.finalize()
        got = snapshot(mon)
        for k in want:
            assert got[k] == want[k], f"frames of {size}: {k} differs"


# -- synthetic runs ----------------------------------------------------------------------
def curve(
    n,
    seed=1,
    spikes=(),
    noise=0.015,
    gn_spikes=(),
    nan_at=(),
    lr_zero_from=None,
    warm=None,
    plateau_from=None,
    with_scale=False,
    tokens=False,
):
    rng = random.Random(seed)
    warm = warm if warm is not None else max(10, n // 100)
    out = []
    amp = 0.0
    for step in range(1, n + 1):
        lr = 3e-4 * step / warm if step <= warm else 3e-4 * (0.1 + 0.45 * (1 + math.cos(math.pi * (step - warm) / n)))
        if lr_zero_from is not None and step >= lr_zero_from:
            lr = 0.0
        if step in spikes:
            amp = 3.0
        base = 2.0 + 8.0 * math.exp(-step / (n * 0.05))
        if plateau_from is not None and step >= plateau_from:
            base = 2.0 + 8.0 * math.exp(-plateau_from / (n * 0.05))
        loss = base * math.exp(rng.gauss(0.0, noise)) * (1.0 + amp)
        gn = 0.5 * math.exp(rng.gauss(0.0, 0.15)) * (1.0 + 4 * amp) * (20 if step in gn_spikes else 1)
        amp = amp * 0.85 if amp > 1e-3 else 0.0
        if step in nan_at:
            loss = float("nan")
        r = StepRecord(step, loss=loss, grad_norm=gn, lr=lr)
        if with_scale:
            r.loss_scale = 65536.0
            r.skipped = 0
        if tokens:
            r.tokens = 4096.0 * step
        out.append(r)
    return out


def grad_fall(n, seed=1, start=112.6, floor=0.011, tau=4.0, bursts=(), zeros=()):
    """A grad norm that falls by orders of magnitude in the first records (Megatron from
    scratch, issue 26), x30 in the ``bursts`` records, 0.0 in the ``zeros`` ones."""
    rng = random.Random(seed)
    out = []
    for r in curve(n, seed=seed):
        lev = floor + start * math.exp(-(r.step - 1) / tau)
        r.grad_norm = 0.0 if r.step in zeros else lev * math.exp(rng.gauss(0.0, 0.25)) * (30 if r.step in bursts else 1)
        out.append(r)
    return out


CASES = {
    "smooth": lambda: curve(3000),
    # the robust grad-norm rule: bursts in the first records of a falling grad norm, and
    # zeros (skipped fp16 steps) that keep the local median's window apart from the rolling one
    "grad_fall": lambda: grad_fall(1500, bursts=(12, 13, 58, 59, 60, 300, 301, 900)),
    "grad_fall_zeros": lambda: grad_fall(
        1500, tau=30.0, bursts=(40, 140, 700), zeros=set(range(100, 240)) | {20, 21, 22, 500}
    ),
    "spikes_recover": lambda: curve(4000, spikes=(1500, 2500), gn_spikes=(1200,)),
    "noisy": lambda: curve(3000, noise=0.3, seed=3),
    "nan": lambda: curve(2000, nan_at=(700, 701, 1500)),
    "lr_zero": lambda: curve(3000, lr_zero_from=1500),
    "no_warmup": lambda: curve(2000, warm=1),
    "plateau": lambda: curve(6000, plateau_from=1500),
    "fp16": lambda: curve(2000, with_scale=True, tokens=True),
    # the first records' robust test: bad batches at records 11 and 15 of a flat noisy start
    "early_spikes": lambda: [
        StepRecord(r.step, loss=r.loss * (7 if r.step in (11, 15) else 1), grad_norm=r.grad_norm, lr=r.lr)
        for r in curve(600, noise=0.06, seed=5)
    ],
    # a blow-up at the 4th record (an LR scan's run: 2.74 -> 1.44e11), before the early test's 10 values
    "early_blowup": lambda: [
        StepRecord(r.step, loss=r.loss * (1e10 if r.step == 4 else 1), grad_norm=r.grad_norm, lr=r.lr)
        for r in curve(300, noise=0.02, seed=6)
    ],
    "spike_no_recover": lambda: [
        StepRecord(r.step, loss=r.loss * (4 if r.step > 1200 else 1), grad_norm=r.grad_norm, lr=r.lr)
        for r in curve(3000)
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.slow
def test_synthetic(case):
    run_both(CASES[case]())


@pytest.mark.slow
def test_resume_inside_a_frame():
    recs = curve(3000, spikes=(900,))
    recs = recs[:2000] + [StepRecord(r.step, loss=r.loss, grad_norm=r.grad_norm, lr=r.lr) for r in recs[1500:]]
    run_both(recs)


@pytest.mark.slow
def test_params_and_checkpoints():
    info = RunInfo()
    info.params = 1.25e8
    info.total_steps = 3000
    info.batch_tokens = 4096.0
    info.checkpoints = [(500, "ckpt-500"), (1000, "ckpt-1000")]
    info.checkpoint_dir_searched = True
    run_both(curve(3000, spikes=(1500,), tokens=True), info=info)


@pytest.mark.slow
def test_live_without_finalize():
    run_both(curve(2500, spikes=(1000,)), finalize=False)


# -- sample runs and real logs -------------------------------------------------------------
def _run_records(path: str) -> tuple[list[StepRecord], RunInfo]:
    info = RunInfo()
    run = run_open.open_run(path, info)
    return list(reading.read_records(run.primary, run.readers[run.primary])), info


@pytest.mark.parametrize(
    "name",
    sorted(
        os.path.basename(p)
        for p in glob.glob(os.path.join(ROOT, "sample_runs", "*"))
        if os.path.isdir(p) and os.path.basename(p) != "generations"
    ),
)
def test_sample_runs(name):
    recs, info = _run_records(os.path.join(ROOT, "sample_runs", name))
    run_both(recs, info=info, sizes=(3, 100, 10**9))


def test_frame_records_roundtrip():
    recs = curve(50, with_scale=True, tokens=True)
    for r in recs:
        r.extra = {"tokens_per_sec": 1.5 * r.step}
    fr = frame_from_records(recs)
    assert fr is not None and fr.n == 50
    assert fr.records() == recs
    assert fr.step.dtype == np.int64 and fr.cols["skipped"].dtype == np.int64


# -- edge paths of the columnar detectors ------------------------------------------------
def _lr_curve(n, lr_of, seed=2, **kw):
    """curve()'s loss and grad norm with the LR from ``lr_of(step)``."""
    out = curve(n, seed=seed, **kw)
    for r in out:
        r.lr = lr_of(r.step)
    return out


def _info(**kw) -> RunInfo:
    info = RunInfo()
    info.__dict__.update(kw)
    return info


def _cosine(step, n, warm, peak=3e-4):
    if step <= warm:
        return peak * step / warm
    return peak * (0.1 + 0.45 * (1 + math.cos(math.pi * (step - warm) / (n - warm))))


LR_CASES = {
    # warm-up, then a constant phase at the peak, then decay
    "hold_at_peak": lambda: _lr_curve(3000, lambda s: 3e-4 * min(1.0, s / 100) * (1.0 if s < 1500 else 0.5)),
    # a staircase warm-up: the LR holds for 10 steps at a time
    "staircase": lambda: _lr_curve(2000, lambda s: 3e-4 * min(1.0, (s // 10 + 1) / 20) if s < 1200 else 1e-4),
    # a warm-up from LR 0 (one record at 0, as schedulers log step 0)
    "from_zero": lambda: _lr_curve(2000, lambda s: _cosine(s - 1, 2000, 60)),
    # no warm-up at all, a cosine from the first step
    "cosine_no_warmup": lambda: _lr_curve(2000, lambda s: _cosine(s, 2000, 0)),
    # zero stretches: short ones, one long enough to alert, then positive again
    "zero_stretches": lambda: _lr_curve(
        4000, lambda s: 0.0 if (s % 97 < 15 and s > 300) or 1500 <= s < 2200 else _cosine(s, 4000, 40)
    ),
    # the LR ends at 0 for the last 1.5% of a known plan (a schedule that ends there)
    "zero_at_end": lambda: _lr_curve(3000, lambda s: 0.0 if s > 2955 else _cosine(s, 3000, 60)),
    # NaN and Inf LRs scattered, and a NaN stretch across the warm-up's end
    "nan_lr": lambda: _lr_curve(
        2000,
        lambda s: math.nan if s % 37 == 0 or 55 <= s <= 70 else (math.inf if s % 101 == 0 else _cosine(s, 2000, 60)),
    ),
    # negative and -0.0 LRs (a broken scheduler), during and after the ramp
    "negative": lambda: _lr_curve(
        1500, lambda s: -1e-5 if s in (5, 6, 800, 801) else (-0.0 if s in (30, 900) else _cosine(s, 1500, 50))
    ),
    # the log starts late: warm-up not visible
    "late_start": lambda: [StepRecord(r.step + 5000, loss=r.loss, grad_norm=r.grad_norm, lr=r.lr) for r in curve(2000)],
    # one record only after the warm-up
    "tiny": lambda: curve(3),
    # a staircase warm-up: the LR logged per micro-batch, stepped every 4th (gradient accumulation 4),
    # then a jump to 30x at step 1200 (lr_schedule.STAIR_RISE: the stairs are the ramp, the jump is one)
    "staircase_from_zero_then_jump": lambda: _lr_curve(1600, lambda s: 3e-2 if s >= 1200 else 6.5e-9 * ((s - 1) // 4)),
}


@pytest.mark.parametrize("case", sorted(LR_CASES))
@pytest.mark.slow
def test_lr_edges(case):
    run_both(LR_CASES[case]())


@pytest.mark.slow
def test_lr_zero_alert_with_plan():
    recs = _lr_curve(3000, lambda s: 0.0 if s > 2000 else _cosine(s, 3000, 60))
    run_both(recs, info=_info(total_steps=3000))
    run_both(recs, info=_info(total_steps=2040))  # zeros past 98% of the plan: no alert


@pytest.mark.slow
def test_lr_skipped_steps_during_ramp():
    # fp16 start-up: overflowing steps are skipped and the scheduler does not move,
    # so the LR repeats while skipped > 0, then ramps
    recs = curve(2500, with_scale=True)
    for r in recs:
        s = r.step
        r.skipped = 1 if s <= 30 or s in (45, 46, 47) else 0
        k = 1 if s <= 30 else s - 30 - (3 if s > 47 else (s - 44 if s >= 45 else 0))
        r.lr = 3e-4 * min(1.0, k / 100)
    run_both(recs)


@pytest.mark.slow
def test_lr_jump_after_resume():
    recs = curve(3000)
    resumed = [StepRecord(r.step, loss=r.loss, grad_norm=r.grad_norm, lr=r.lr * 3) for r in recs[1500:]]
    run_both(recs[:2200] + resumed)


@pytest.mark.slow
def test_lr_peak_against_params():
    # a 125M model: GPT-3's 6e-4; the LR climbs through the WARN line into the FAIL line
    # during the warm-up, and a second run jumps above both after the ramp
    for peak, warm, jump in ((2e-2, 800, None), (1e-3, 50, (1200, 3e-2))):

        def lr(s, peak=peak, warm=warm, jump=jump):
            if jump and s >= jump[0]:
                return jump[1]
            return _cosine(s, 2500, warm, peak)

        run_both(_lr_curve(2500, lr), info=_info(params=1.25e8, total_steps=2500))


@pytest.mark.slow
def test_plateau_edges():
    n = 20000
    flat = curve(n, plateau_from=4000, noise=0.01)
    run_both(flat, sizes=(64, 1000, 10**9))
    # flat with the LR decayed (converged), and flat with no LR at all
    decayed = _lr_curve(8000, lambda s: 3e-4 * min(1.0, s / 80) * (0.05 if s > 3000 else 1.0), plateau_from=2500)
    run_both(decayed, sizes=(7, 1000, 10**9))
    no_lr = [StepRecord(r.step, loss=r.loss, grad_norm=r.grad_norm) for r in curve(6000, plateau_from=1500)]
    run_both(no_lr, info=_info(total_steps=6000), sizes=(7, 1000, 10**9))
    # NaN losses and grad norms inside blocks, a resume in the middle of the plateau
    recs = curve(7000, plateau_from=1500, nan_at=(3000, 4100, 4101))
    for r in recs:
        if r.step % 53 == 0:
            r.grad_norm = math.inf
    recs = recs[:5000] + [StepRecord(r.step, loss=r.loss, grad_norm=r.grad_norm, lr=r.lr) for r in recs[3500:]]
    run_both(recs, sizes=(7, 64, 1000, 10**9))


def epoch_running_mean(
    epochs=15, per_epoch=1330, every=10, first_epoch=16, top=4.61, fall=0.016, seed=3, flat=False, from_batch=920
):
    """A log of each epoch's running mean, every ``every`` batches, from batch ``from_batch``
    of ``first_epoch`` on (fresh4 tmux_capture_transformer_mt, a tmux capture that begins
    there): per-batch losses falling ``fall`` per epoch (0 with ``flat``), steps counted from
    the log's first epoch."""
    rng = np.random.default_rng(seed)
    out = []
    for e in range(epochs):
        s = n = 0.0
        for b in range(1, per_epoch + 1):
            x = top - (0.0 if flat else fall) * (e + b / per_epoch) + rng.normal(0, 0.8)
            s, n = s + x, n + 1
            if b % every == 0 and (e or b >= from_batch):
                out.append(StepRecord(e * per_epoch + b, loss=round(s / n, 4), lr=3e-4, epoch=float(first_epoch + e)))
    return out


def test_a_launch_held_for_its_first_losses():
    """A launch back at the beginning waits for its first 5 losses (analysis/launches.py):
    rows and frames agree on a new run, on a counter reset with the loss where it was (a
    resume), on a launch that logs no loss at first, and on one cut short by the end."""
    a = [StepRecord(s, loss=5.0 * math.exp(-s / 100) + 1.0, lr=1e-4) for s in range(1, 301)]
    new = [StepRecord(s, loss=5.9 - s / 200, lr=1e-4) for s in range(1, 201)]
    same = [StepRecord(s, loss=1.05 - s / 2000, lr=1e-4) for s in range(1, 201)]
    no_loss = [StepRecord(s, lr=1e-4) for s in range(1, 4)] + new[3:]
    for b in (new, same, no_loss, new[:3]):
        run_both(a + b, sizes=(1, 7, 64, 10**9))


def test_a_launch_said_no_loss_while_live_that_then_logs_losses_is_one_launch():
    """Live: a relaunch that printed its LR and no loss for the idle wait is settled as "no loss"
    (not judged); when its losses come, from its own first step on, it is that launch (a new run
    here), not one more: two launches in the file, not three."""
    mon = Monitor(Settings(), RunInfo())
    for s in range(1, 301):
        mon.feed(StepRecord(s, loss=5.0 * math.exp(-s / 100) + 1.0, lr=1e-4))
    mon.feed(StepRecord(1, lr=1e-4))
    assert mon.launches.pending is not None
    mon.settle()  # (the session's idle release)
    assert [sg["kind"] for sg in mon.launches.segments] == ["start", "no loss"]
    for s in range(1, 101):
        mon.feed(StepRecord(s, loss=5.9 - s / 200, lr=1e-4))
    mon.finalize()
    assert [(sg["kind"], sg["first"], sg["last"]) for sg in mon.launches.segments] == [
        ("start", 1, 300),
        ("new run", 1, 100),
    ]


def _appended(n_first=300, then=(), seed=5):
    """A loss falling from ~21 to ~3 over ``n_first`` records (step = record index, as a
    bare-number file's line number), then the records ``then`` makes of the start's curve."""
    rng = random.Random(seed)
    start = [21.0 * math.exp(-s / 40) + 2.0 + rng.gauss(0, 0.05) for s in range(n_first)]
    out = [StepRecord(s, loss=v) for s, v in enumerate(start)]
    for v in then(start, rng):
        out.append(StepRecord(len(out), loss=v))
    return out


REPLAYS = {
    # a second run appended: it replays the start (within ~10%) and goes on falling
    "replay": lambda st, rng: [v * (1 + rng.gauss(0, 0.05)) for v in st[:200]],
    # a one-record spike to the start level: no replay, released after a few records
    "spike": lambda st, rng: [st[0]] + [st[-1] + rng.gauss(0, 0.05) for _ in range(80)],
    # a divergence to the start level that stays there: no replay
    "stuck": lambda st, rng: [st[0] + rng.gauss(0, 0.1) for _ in range(120)],
    # a replay cut short by the end of the input (12 losses)
    "short": lambda st, rng: st[:12],
    # a replay with NaN among its first losses
    "nan": lambda st, rng: st[:3] + [float("nan")] + st[3:100],
}


def test_a_replay_is_a_new_run_found_by_its_loss():
    """Steps that go on with the loss back at its start and falling along the start's curve
    (a run appended to a file with no step of its own) are a new run; a spike to the start
    level, a divergence that stays there and a run that never fell are not
    (analysis/launches.py, replay)."""
    kinds = {}
    for name, then in REPLAYS.items():
        mon = Monitor(Settings(), RunInfo())
        for r in _appended(then=then):
            mon.feed(r)
        mon.finalize()
        kinds[name] = [(s["kind"], s["first"]) for s in mon.launches.segments]
    assert kinds["replay"] == [("start", 0), ("new run", 300)]
    assert kinds["short"] == [("start", 0), ("new run", 300)]
    assert kinds["nan"] == [("start", 0), ("new run", 300)]
    assert kinds["spike"] == [("start", 0)]
    assert kinds["stuck"] == [("start", 0)]
    mon = Monitor(Settings(), RunInfo())
    for r in _appended(then=REPLAYS["replay"]):
        mon.feed(r)
    mon.finalize()
    said = [a.message for a in mon.alerts if a.key == "launch:2"]
    assert said and "the loss went back to its starting level after 0-299" in said[0]
    assert mon.state.first_step == 300  # the checks judge the appended run
    # the spike is still said as one, its records delivered as they were
    mon = Monitor(Settings(), RunInfo())
    for r in _appended(then=REPLAYS["spike"]):
        mon.feed(r)
    mon.finalize()
    assert any(a.check == "loss_spike" and a.step == 300 for a in mon.alerts)
    assert mon.records == 381 and mon.launches.pending is None
    # a run that never learned (flat at its start level) has no start to replay
    flat = [StepRecord(s, loss=5.0 + 0.01 * (s % 7)) for s in range(300)] + [
        StepRecord(300 + s, loss=5.0 + 0.01 * (s % 7)) for s in range(100)
    ]
    mon = Monitor(Settings(), RunInfo())
    for r in flat:
        mon.feed(r)
    assert [s["kind"] for s in mon.launches.segments] == ["start"]


def test_a_replay_held_for_its_first_losses_rows_and_frames_agree():
    """Rows and frames agree on a replay, a spike, a sustained jump, a replay cut short by the
    end, and one with NaN among its first losses, cut into frames anywhere."""
    for then in REPLAYS.values():
        run_both(_appended(then=then), sizes=(1, 7, 64, 10**9))


def test_short_log_climb():
    """The short log's climb rule (loss_spike._climbing: its first ``window`` values go record
    by record): rows and frames agree on a climb, one that comes back, one with NaN and a
    resume inside the first window, and a log whose climb starts after the window filled."""
    rng = random.Random(7)
    climb = [StepRecord(s, loss=math.exp(0.03 * s + rng.gauss(0, 0.05)), lr=1e-4) for s in range(1, 61)]
    back = [StepRecord(s, loss=2.0 * (1 + 0.08 * s) if s < 9 else 3.1 * math.exp(-(s - 9) / 10)) for s in range(1, 80)]
    nan = [StepRecord(r.step, loss=float("nan") if r.step in (5, 6, 30) else r.loss, lr=r.lr) for r in climb]
    resumed = climb[:40] + [StepRecord(r.step, loss=r.loss, lr=r.lr) for r in climb[20:]]
    late = [StepRecord(s, loss=2.0 + 0.01 * max(0, s - 150) + rng.gauss(0, 0.02)) for s in range(1, 400)]
    for recs in (climb, back, nan, resumed, late):
        run_both(recs, sizes=(1, 3, 7, 64, 10**9))


def test_plateau_epoch_running_means():
    """Whole epochs (EPOCH_RESET): the rows and the frames agree on a log of running means,
    on one with a resume that goes back across an epoch change, and on fractional epochs."""
    recs = epoch_running_mean(epochs=6)
    run_both(recs, sizes=(7, 64, 1000, 10**9))
    back = recs[:500] + [StepRecord(r.step, loss=r.loss, lr=r.lr, epoch=r.epoch) for r in recs[300:]]
    run_both(back, sizes=(7, 1000, 10**9))
    frac = [StepRecord(r.step, loss=r.loss, lr=r.lr, epoch=r.step / 1330) for r in recs]
    run_both(frac, sizes=(64, 10**9))


@pytest.mark.slow
def test_plateau_constant_loss_inside_a_block():
    # the constant-loss alert is raised by the record that makes the run CONST_RECORDS
    # long, wherever a block or a frame ends (HF logs a NaN loss as 0.0)
    for at, val in ((700, 0.0), (1333, 2.5), (90, 0.0)):
        recs = [
            StepRecord(r.step, loss=val if r.step >= at else r.loss, grad_norm=r.grad_norm, lr=r.lr)
            for r in curve(1500)
        ]
        run_both(recs, sizes=(1, 7, 19, 64, 1000, 10**9))


def test_schedule_peak_columns_match_records():
    # lr_peak.SchedulePeak (the schedule's peak for advice): per LR and per column agree,
    # cut anywhere, through ramps, holds, falls, jumps, zeros, negatives and NaN / Inf
    from tsm_tui.analysis.detectors.lr_peak import SchedulePeak

    rng = random.Random(7)
    for t in range(600):
        n = rng.randrange(1, 120)
        v, lr = [], rng.choice([0.0, 1e-5, 1e-4, -1e-4])
        hold = rng.random() < 0.5 if t >= 300 else False  # long holds: a constant LR, held peaks
        for _ in range(n):
            if hold and rng.random() < 0.85:
                v.append(lr)
                continue
            k = rng.random()
            lr = (
                lr * rng.choice([1.0, 1.01, 1.2, 1.6, 3.0]) + 1e-6
                if k < 0.5
                else lr * rng.uniform(0.5, 1.0)
                if k < 0.8
                else lr
                if k < 0.9
                else rng.choice([0.0, math.nan, math.inf, 50 * abs(lr) + 1e-3])
            )
            v.append(lr)
        one = SchedulePeak()
        for x in v:
            one.update(x)
        cut = sorted(rng.sample(range(n + 1), min(n + 1, rng.randrange(1, 5))))
        many = SchedulePeak()
        for a, b in zip([0] + cut, cut + [n]):
            many.update_many(np.array(v[a:b], dtype=float))
        assert [repr(getattr(one, k)) for k in one.__slots__] == [repr(getattr(many, k)) for k in many.__slots__], v


def test_plateau_dead_grad_norm():
    recs = curve(6000, plateau_from=1500)
    for r in recs:
        if r.step > 1500:
            r.grad_norm *= 0.01
    run_both(recs, sizes=(64, 1000, 10**9))


NONFINITE_CASES = {
    "inf_loss": lambda: [
        StepRecord(r.step, loss=math.inf if r.step == 900 else r.loss, grad_norm=r.grad_norm, lr=r.lr)
        for r in curve(1500)
    ],
    "nan_grad_norm": lambda: [
        StepRecord(r.step, loss=r.loss, grad_norm=math.nan if r.step in (400, 1200) else r.grad_norm, lr=r.lr)
        for r in curve(1500)
    ],
    "zero_loss_nan_gn": lambda: [
        StepRecord(
            r.step, loss=0.0 if r.step > 1000 else r.loss, grad_norm=math.nan if r.step > 1000 else r.grad_norm, lr=r.lr
        )
        for r in curve(1500)
    ],
    "grad_norm_only": lambda: [
        StepRecord(r.step, grad_norm=-math.inf if r.step == 700 else r.grad_norm) for r in curve(1500)
    ],
    # Megatron: a count of NaN iterations per logged interval
    "nan_iters": lambda: [
        StepRecord(
            r.step,
            loss=r.loss,
            grad_norm=r.grad_norm,
            lr=r.lr,
            nan_iters=2 if r.step in (600, 601, 1300) else 0,
            skipped=0,
        )
        for r in curve(1500)
    ],
}


@pytest.mark.parametrize("case", sorted(NONFINITE_CASES))
def test_nonfinite_edges(case):
    run_both(NONFINITE_CASES[case]())


@pytest.mark.slow
def test_batch_size_edges():
    # tokens per step from the cumulative counter: far below the reference for 1.25e8
    # parameters (an alert at a judged record), with a counter reset and NaN tokens
    recs = curve(2000, tokens=True)
    for r in recs:
        r.tokens = 512.0 * (r.step if r.step < 900 else r.step - 850)
        if r.step % 41 == 0:
            r.tokens = math.nan
    for info in (
        _info(params=1.25e8),
        _info(params=1.25e8, total_steps=2000),
        _info(params=1.25e8, batch_tokens=6e7),
        _info(params=1e3),
        _info(params=1.25e8, batch_tokens=5e5),
    ):
        run_both(recs, info=info)
    # a tokens counter that starts late (no rate for a while), judged on a PASS batch
    recs = curve(1500, tokens=True)
    for r in recs:
        r.tokens = 0.0 if r.step < 300 else 5e5 * r.step
    run_both(recs, info=_info(params=1.25e8))


def _scaled(n, scale_of, skipped_of=lambda s: 0, seed=6):
    """curve()'s records with an fp16 loss scale and a skipped-steps count."""
    out = curve(n, seed=seed)
    for r in out:
        r.loss_scale, r.skipped = scale_of(r.step), skipped_of(r.step)
    return out


LOSS_SCALE_CASES = {
    # the start-up search halves, then growth, then a collapse far below the running max
    "collapse": lambda: _scaled(
        2000, lambda s: 2.0 ** (16 - min(s, 6)) if s < 300 else (2.0**14 if s < 1200 else 16.0)
    ),
    # pinned at its minimum for long, with NaN / Inf scales among the pinned records
    "pinned_with_nan": lambda: _scaled(
        1500,
        lambda s: (
            (math.nan if s % 7 == 0 else math.inf if s % 11 == 0 else 1.0) if s > 600 else 65536.0 / (2 ** (s // 150))
        ),
    ),
    # skipped steps: a burst past the warning line, then a long one past the failing line
    "skips": lambda: _scaled(
        3000, lambda s: 65536.0, lambda s: 1 if 900 <= s < 915 or (2000 <= s < 2400 and s % 3) else 0
    ),
    # a scale of 1.0 throughout (bf16 logged as fp16): nothing to say
    "constant_one": lambda: _scaled(1200, lambda s: 1.0),
}


@pytest.mark.parametrize("case", sorted(LOSS_SCALE_CASES))
@pytest.mark.slow
def test_loss_scale_edges(case):
    recs = LOSS_SCALE_CASES[case]()
    if case == "collapse":  # a restart from a checkpoint in the middle: the start-up search again
        recs = recs[:1500] + [
            StepRecord(r.step, loss=r.loss, grad_norm=r.grad_norm, lr=r.lr, loss_scale=r.loss_scale, skipped=r.skipped)
            for r in recs[1000:]
        ]
    run_both(recs)


def _memo_run(n=3000, low_from=1000, low_to=2000, seed=4):
    rng = random.Random(seed)
    out = []
    for r in curve(n, seed=seed):
        if low_from <= r.step < low_to:
            r.loss = 0.004 * math.exp(rng.gauss(0.0, 0.5))
        out.append(r)
    return out


@pytest.mark.slow
def test_memorisation():
    run_both(_memo_run())
    # losses around the 0.01 line: the EMA moves both ways, row by row
    recs = _memo_run(low_from=800, low_to=2500)
    for r in recs:
        if 800 <= r.step < 2500:
            r.loss *= 2.2
    run_both(recs)
    # a short dip that does not alert, then recovery: the EMA decays for ~37k records until
    # it stops moving (a subnormal fixed point), then comes back near zero with an eval loss
    recs = _memo_run(n=42000, low_from=100, low_to=130) + [
        StepRecord(s, loss=0.001, grad_norm=0.1, lr=1e-5, val_loss=0.5) for s in range(42001, 42200)
    ]
    run_both(recs, sizes=(1000, 10**9))


@pytest.mark.slow
def test_memorisation_nan_and_negative_losses():
    recs = _memo_run(n=2500, low_from=600, low_to=2500)
    for r in recs:
        if r.step % 7 == 0:
            r.loss = -0.0 if r.step % 2 else -1e-3
        if r.step % 11 == 0:
            r.grad_norm = math.nan
        if r.step % 13 == 0:
            r.loss = math.nan
        r.val_loss = 0.3 + r.step * 1e-4
    run_both(recs)


@pytest.mark.slow
def test_unit_series():
    rng = random.Random(5)
    recs = curve(2500)
    for r in recs:
        s = r.step
        ent = 3.0 * math.exp(rng.gauss(0, 0.02)) * (1.0 if s < 1200 else (0.4 if s < 1800 else 0.1))
        if s % 17 == 0:
            ent = math.nan
        logit = 20.0 + s * (0.05 if s < 2000 else 0.6)
        if s in (2300, 2301):
            logit = math.inf if s == 2300 else math.nan
        r.extra = {
            "tokens_per_sec": 1000.0 + s,
            "layer_0/attn_entropy": ent,
            "attn-entropy": 2.0,
            "mlp.zero_frac": min(1.0, 0.5 + s / 3000),
            "max_attention_logit": logit,
        }
    run_both(recs)


@pytest.mark.slow
def test_many_unit_keys():
    recs = curve(300)
    for r in recs:
        r.extra = {f"layer_{i}/zero_frac": 0.95 if i % 3 == 0 and r.step > 100 else 0.1 for i in range(70)}
    run_both(recs)


# -- the verdict cases of issue 17 (bench/cases.py): every detector they exercise ---------------
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cases as verdict_cases  # noqa: E402


@pytest.mark.parametrize("name", sorted(verdict_cases.CASES))
@pytest.mark.slow
def test_verdict_cases(name):
    rows, _, plan = verdict_cases.CASES[name]()
    if len(rows) > 3000:  # the 68k-step QLoRA case: every 4th record keeps the test fast
        rows = rows[::4]
    info = RunInfo(**plan)
    run_both([StepRecord(**r) for r in rows], info=info, sizes=(1, 7, 64, 10**9))


# -- random streams, cut at random, compared at every frame boundary ----------------------------
UNIT_KEYS = ("layer_0/attn_entropy", "mlp.zero_frac", "max_attention_logit", "tokens_per_sec")


def _timing(out: list[StepRecord], rng: random.Random) -> None:
    """What the throughput and over-fitting checks read, at random (a second generator, so
    the other fields stay as they were): record timestamps or a logged step time or a
    throughput, with slow stretches (drops), single slow records (pauses) and NaN / zero
    values; an evaluation loss that falls, then rises while the loss falls."""
    kind = rng.choice(["none", "time", "dt", "rate", "time+dt"])
    slow = {rng.randrange(len(out)) for _ in range(rng.randrange(0, 4))}
    lasting = rng.randrange(len(out)) if rng.random() < 0.4 else None
    t = 1000.0
    evals = rng.choice([0, 0, 5, 25])
    best = rng.randrange(len(out)) if evals else None
    for i, r in enumerate(out):
        dt = (
            rng.uniform(0.9, 1.1)
            * (30.0 if i in slow else 1.0)
            * (4.0 if lasting is not None and lasting <= i < lasting + 40 else 1.0)
        )
        t += dt
        if "time" in kind:
            r.time = math.nan if rng.random() < 0.01 else t
        if "dt" in kind or kind == "rate":
            key, val = ("elapsed time per iteration (ms)", dt * 1000) if "dt" in kind else ("tokens_per_sec", 4096 / dt)
            r.extra = dict(r.extra or {}, **{key: rng.choice([0.0, math.nan]) if rng.random() < 0.01 else val})
        if evals and i % evals == 0:
            r.val_loss = 3.0 - 0.001 * i if i <= best else 3.0 - 0.001 * best + 0.002 * (i - best)


def random_stream(seed: int) -> tuple[list[StepRecord], RunInfo]:
    """A record stream that touches every detector's rules at random: warm-ups and LR
    jumps / zeros / NaNs, loss spikes, plateaus, constant and near-zero losses, NaN /
    Inf / negative values, grad-norm spikes and collapses, fp16 scales that halve,
    grow and pin, skipped steps, NaN iterations, token counters that reset, unit
    series, step gaps, a resume; and a random plan."""
    rng = random.Random(seed)
    n = rng.randrange(150, 2500)
    has = {
        f: rng.random() < p
        for f, p in (
            ("loss", 0.92),
            ("grad_norm", 0.8),
            ("lr", 0.8),
            ("loss_scale", 0.3),
            ("skipped", 0.3),
            ("tokens", 0.3),
            ("nan_iters", 0.2),
            ("val_loss", 0.15),
            ("extra", 0.3),
        )
    }
    noise = rng.choice([0.005, 0.02, 0.1, 0.4])
    gn_level = rng.choice([0.5, 0.5, 2.0, 8.0])
    const = rng.choice([0.0, 2.5])
    warm = rng.choice([1, 10, max(10, n // 50), n // 5])
    peak = rng.choice([3e-4, 1e-3, 3e-2])
    events = {}
    for kind, k in (
        ("spike", rng.randrange(0, 4)),
        ("gn_spike", rng.randrange(0, 4)),
        ("lr_jump", rng.random() < 0.2),
        ("lr_zero", rng.random() < 0.2),
        ("const", rng.random() < 0.15),
        ("low", rng.random() < 0.1),
        ("diverge", rng.random() < 0.1),
        ("plateau", rng.random() < 0.3),
        ("vanish", rng.random() < 0.1),
        ("halve", rng.randrange(0, 6)),
        ("pin", rng.random() < 0.15),
        ("skip", rng.randrange(0, 4)),
        ("nan", rng.randrange(0, 3)),
        ("gap", rng.randrange(0, 3)),
        ("drop", rng.randrange(0, 4)),
    ):
        for _ in range(int(k)):
            events.setdefault(kind, []).append(rng.randrange(1, n + 1))
    at = lambda kind, s, span=1: any(e <= s < e + span for e in events.get(kind, ()))  # noqa: E731
    out, step, amp, scale, tok = [], 0, 0.0, 65536.0, 0.0
    resume = rng.randrange(n // 3, n) if rng.random() < 0.2 and n > 300 else None
    for i in range(1, n + 1):
        step += 1 + (rng.randrange(1, 50) if at("gap", i) else 0)
        if resume is not None and i == resume:
            step = max(1, step - rng.randrange(5, 200))
        lr = peak * min(1.0, i / warm) * (0.1 + 0.45 * (1 + math.cos(math.pi * i / n)) if i > warm else 1.0)
        if at("lr_jump", i, n):
            lr *= 4
        if at("lr_zero", i, n // 4):
            lr = 0.0
        if rng.random() < 0.003:
            lr = rng.choice([math.nan, math.inf, -1e-5])
        if at("spike", i):
            amp = rng.choice([0.5, 2.0, 5.0])
        base = 2.0 + 8.0 * math.exp(-i / (n * 0.05))
        if at("plateau", i, n):
            base = 2.3
        loss = base * math.exp(rng.gauss(0.0, noise)) * (1.0 + amp)
        amp = amp * rng.choice([0.5, 0.85, 1.0]) if amp > 1e-3 else 0.0
        if at("diverge", i, n):
            loss *= 1.0 + 3.0 * (i - events["diverge"][0]) / n
        if at("const", i, max(60, n // 5)):
            loss = const
        if at("low", i, n // 3):
            loss = 0.005 * math.exp(rng.gauss(0.0, 0.5))
        if at("nan", i) or rng.random() < 0.002:
            loss = rng.choice([math.nan, math.inf, -math.inf])
        gn = gn_level * math.exp(rng.gauss(0.0, 0.2)) * (1.0 + 3 * amp) * (30.0 if at("gn_spike", i) else 1.0)
        if at("vanish", i, 40):
            gn *= 1e-5
        if rng.random() < 0.002:
            gn = rng.choice([math.nan, math.inf, 0.0])
        r = StepRecord(step)
        if has["loss"]:
            r.loss = loss
        if has["grad_norm"]:
            r.grad_norm = gn
        if has["lr"]:
            r.lr = lr
        if has["loss_scale"]:
            if at("halve", i):
                scale /= 2
            elif i % 200 == 0:
                scale *= 2
            r.loss_scale = 1.0 if at("pin", i, 30) else scale
            if rng.random() < 0.01:
                r.loss_scale = rng.choice([math.nan, math.inf])
        if has["skipped"]:
            r.skipped = 1 if at("skip", i, 3) or rng.random() < 0.004 else 0
        if has["nan_iters"]:
            r.nan_iters = 1 if rng.random() < 0.003 else 0
        if has["tokens"]:
            tok = 0.0 if rng.random() < 0.002 else tok + 4096.0 * rng.choice([1, 1, 1, 2])
            r.tokens = math.nan if rng.random() < 0.01 else tok
        if has["val_loss"]:
            r.val_loss = 2.0 + rng.random()
        if has["extra"]:
            ent = 3.0 * math.exp(rng.gauss(0, 0.02)) * (0.2 if at("plateau", i, n) else 1.0)
            r.extra = {
                "layer_0/attn_entropy": math.nan if rng.random() < 0.02 else ent,
                "mlp.zero_frac": min(1.0, 0.2 + i / n),
                "max_attention_logit": 20.0 + i * 0.05,
                "tokens_per_sec": 1000.0 + i,
            }
        if at("drop", i, 5):  # a record of another shape: the frame ends there
            r.grad_norm = None
        out.append(r)
    _timing(out, random.Random(seed + 77))
    info = RunInfo()
    if rng.random() < 0.5:
        info.params = rng.choice([1.25e8, 7e9, 1e3])
    if rng.random() < 0.5:
        info.total_steps = rng.choice([n, 2 * n, n // 2 + 1])
    if rng.random() < 0.3:
        info.warmup_steps = warm
    if rng.random() < 0.2:
        info.batch_tokens = rng.choice([4096.0, 5e5])
    if rng.random() < 0.3:
        info.checkpoints = [(s, f"ckpt-{s}") for s in range(n // 4, n, n // 4)]
        info.checkpoint_dir_searched = True
    return out, info


def random_items(recs: list[StepRecord], rng: random.Random) -> list:
    """The records as Frames cut at random lengths (1 .. 3000), the rest as records."""
    out, i = [], 0
    while i < len(recs):
        size = rng.choice([1, 2, 5, 17, 64, 333, 1000, 3000])
        j = i + 1
        sh = _shape(recs[i])
        while sh is not None and j < len(recs) and j - i < size and _shape(recs[j]) == sh:
            j += 1
        fr = frame_from_records(recs[i:j]) if sh is not None else None
        out += recs[i:j] if fr is None else [fr]
        i = j
    return out


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.slow
def test_random_streams(seed):
    """Frames cut at random against the rows one by one: the same state of all nine
    detectors after every frame (not only at the end: a difference that later washes
    out is still a bug), and the same alerts, checks and actions at the end."""
    recs, info = random_stream(seed)

    def fresh() -> Monitor:
        i = RunInfo()
        i.__dict__.update({k: v for k, v in info.__dict__.items()})
        return Monitor(Settings(), i)

    items = random_items(recs, random.Random(seed + 1000))
    ends, k = set(), 0
    for it in items:
        k += it.n if isinstance(it, Frame) else 1
        ends.add(k)
    ref, want = fresh(), {}
    for k, r in enumerate(recs, 1):
        ref.feed(r)
        if k in ends:
            want[k] = detector_state(ref)
    mon, k = fresh(), 0
    for it in items:
        if isinstance(it, Frame):
            mon.feed_frame(it)
            k += it.n
        else:
            mon.feed(it)
            k += 1
        got = detector_state(mon)
        for d in want[k]:
            assert got[d] == want[k][d], f"seed {seed}: {d} differs after {k} records"
    ref.finalize()
    mon.finalize()
    a, b = snapshot(ref), snapshot(mon)
    for key in a:
        assert b[key] == a[key], f"seed {seed}: {key} differs"


def test_every_detector_uses_the_driver():
    """One columnar path: no detector has a frame loop of its own."""
    from tsm_tui.analysis.detectors import DETECTORS, Detector

    for D in DETECTORS:
        assert D.update_frame is Detector.update_frame, D.__name__
        assert D.bulk is not Detector.bulk, f"{D.__name__} has no columnar hooks (fed row by row)"


@pytest.mark.slow
def test_a_new_detector_writes_nothing_for_frames():
    """A detector with update() and result() only is fed frames row by row, with the
    RunState each row saw; one whose hooks are sloppy (a screen that flags extra
    rows, a bulk that stops early for no reason) is still exact."""
    from tsm_tui.analysis.detectors import DETECTORS
    from tsm_tui.analysis.detectors.base import Detector
    from tsm_tui.core.record import Alert, Severity, Status

    class Watch(Detector):
        id, title = "watch", "Watch"

        def __init__(self, settings, state) -> None:
            super().__init__(settings, state)
            self.seen: list = []

        def update(self, rec):
            self.seen.append((rec.step, rec.loss, self.state.records, self.state.last_step, self.state.last_lr))
            if rec.loss is not None and rec.loss > 20:
                return [Alert(self.id, Severity.WARNING, rec.step, f"loss {rec.loss}", key=f"w{rec.step}")]
            return []

        def result(self):
            return self._result(Status.PASS, f"{len(self.seen)} records")

    class Sloppy(Watch):
        id = "sloppy"

        def screen(self, fr, cx, a, b):
            return np.arange(a, b)[::7]

        def bulk(self, fr, cx, a, q):
            for i in range(a, min(q, a + 3)):  # commits 3 rows as update would, then stops
                self.update(fr.sync_row(i))
            return min(q, a + 3) if q - a > 3 else None

    recs = curve(1500, spikes=(700,))
    for r in recs:
        r.loss *= 3
    for D in (Watch, Sloppy):
        want = Monitor(Settings(), RunInfo(), detectors=[*DETECTORS, D])
        for r in recs:
            want.feed(r)
        for size in (1, 7, 64, 10**9):
            got = Monitor(Settings(), RunInfo(), detectors=[*DETECTORS, D])
            for it in to_items(recs, size):
                got.feed_frame(it) if isinstance(it, Frame) else got.feed(it)
            assert got.detectors[-1].seen == want.detectors[-1].seen, (D.id, size)
            assert [a.to_json() for a in got.alerts] == [a.to_json() for a in want.alerts], (D.id, size)


# -- the rolling statistics' bulk operations against their update() ---------------------------
def test_rolling_bulk_operations_match_updates():
    from tsm_tui.analysis.detectors.stats import Delay, RollingMedian, RollingMoments, RollingRate

    rng = random.Random(11)
    for _ in range(300):
        size = rng.choice([1, 2, 3, 5, 10, 64])
        pre = [rng.choice([0.0, -0.0, 1.0, 2.5, rng.random()]) for _ in range(rng.randrange(0, 3 * size))]
        new = np.array([rng.choice([0.0, -0.0, 1.0, 2.5, rng.random()]) for _ in range(rng.randrange(0, 4 * size))])
        # RollingMedian: medians_after and extend
        a, b = RollingMedian(size), RollingMedian(size)
        for x in pre:
            a.update(x)
            b.update(x)
        ks = (
            sorted(rng.sample(range(0 if pre else 1, new.size + 1), min(new.size + (1 if pre else 0), 5)))
            if new.size or pre
            else []
        )
        got = b.medians_after(new, np.array(ks, dtype=np.int64))
        for k, m in zip(ks, got.tolist()):
            c = RollingMedian(size)
            for x in pre + new[:k].tolist():
                c.update(x)
            assert repr(m) == repr(c.get()) or m == c.get(), (size, pre, new, k)
        if new.size:
            full = b.medians_after(new)
            assert full.size == new.size
        for x in new.tolist():
            a.update(x)
        b.extend(new)
        assert list(a.values()) == list(b.values()) and list(map(repr, a.sorted_values())) == list(
            map(repr, b.sorted_values())
        )
        # RollingMoments
        a, b = RollingMoments(size), RollingMoments(size)
        for x in pre:
            a.update(x)
            b.update(x)
        want = b.mean_std_after(new.tolist())
        for x in new.tolist():
            a.update(x)
        assert (a.mean, a.std) == want
        b.extend(new)
        assert list(a.values()) == list(b.values()) and all(type(v) is float for v in b.values())
        # Delay
        n = rng.choice([0, 1, 3, 10])
        a, b = Delay(n), Delay(n)
        for x in pre:
            a.push(x)
            b.push(x)
        outs = [o for o in (a.push(x) for x in new.tolist()) if o is not None]
        assert list(map(repr, b.outputs(new).tolist())) == list(map(repr, outs))
        b.extend(new)
        assert list(a.values()) == list(b.values()) and all(type(v) is float for v in b.values())
        # RollingRate: rates and extend
        hits = np.array([rng.random() < 0.3 for _ in range(new.size)], dtype=bool)
        pre_hits = [rng.random() < 0.3 for _ in range(len(pre))]
        a, b = RollingRate(size), RollingRate(size)
        for h in pre_hits:
            a.update(h)
            b.update(h)
        t = np.arange(1, hits.size + 1)
        rates = b.rates(hits, t) if t.size else np.empty(0)
        for k, h in enumerate(hits.tolist()):
            a.update(h)
            assert rates[k] == a.get()
        b.extend(hits)
        assert list(a.values()) == list(b.values()) and a.get() == b.get()


def test_a_relaunch_that_logs_its_lr_every_step_and_its_loss_less_often_is_judged():
    """The LR logged every step, the loss every 50: after a restart the first 20 records held have
    an LR and no loss while the input goes on. They are decided as before (a resume, delivered: the
    LR check sees them), not "no loss" (that is said only when the input ended or went quiet)."""
    recs = []
    for s in range(1, 401):
        recs.append(StepRecord(s, lr=1e-4 * min(1.0, s / 20), loss=(3.0 - s / 400) if s % 50 == 0 else None))
    recs += [
        StepRecord(s, lr=1e-4 * min(1.0, s / 20), loss=(2.0 - s / 800) if s % 50 == 0 else None) for s in range(1, 201)
    ]
    mon = Monitor(Settings(), RunInfo())
    for r in recs:
        mon.feed(r)
    mon.finalize()
    kinds = [sg["kind"] for sg in mon.launches.segments]
    assert "no loss" not in kinds and len(kinds) == 2


def test_a_collapse_to_the_start_level_with_the_logs_own_steps_is_no_new_run(tmp_path, capsys):
    """fresh29's EC trainer: the loss falls 2.08 -> 0.5, collapses back to ln 8 at step 2940 and learns
    again along the same curve, its steps going on (2920, 2930, 2940): read "new run from step 2940",
    the collapse unsaid. A replay (a new run found by its loss alone) is for a file whose steps its
    reader counted, after a launch banner, or the start's very losses again."""
    from helpers.reports import report_json

    def curve(k):
        return 0.5 + 1.58 * math.exp(-k / 40)

    lines = [f"global step {s} | mode train | loss {curve(s // 10):.4f}" for s in range(0, 2940, 10)]
    # (it learns again, not the same losses: a replay of the very losses with its step counter continued
    # is a relaunch with the same seed, fresh16's)
    lines += [
        f"global step {s} | mode train | loss {1.04 * curve((s - 2940) // 12):.4f}" for s in range(2940, 8200, 10)
    ]
    p = tmp_path / "train.out"
    p.write_text("\n".join(lines) + "\n")
    d = report_json(str(p), capsys)
    assert not d.get("launches") and d["steps"]["first"] == 0
    spike = next(c for c in d["checks"] if c["id"] == "loss_spike")
    assert spike["status"] in ("WARN", "FAIL") and "2940" in spike["summary"], spike
    # the same losses numbered by their line (no step of their own): a run appended, found by its loss
    q = tmp_path / "b" / "loss.txt"
    q.parent.mkdir()
    q.write_text("".join(f"{curve(k):.4f}\n" for k in range(294)) + "".join(f"{curve(k):.4f}\n" for k in range(526)))
    d = report_json(str(q.parent), capsys)
    assert [x["kind"] for x in d["launches"]] == ["start", "new run"]


def test_ordering_reads_a_repeated_loss_alike_row_by_row_and_in_frames():
    """ordering.REPEAT: a record right after one of its step with the same loss and other values delivers those
    values without the loss, whether the rows come one by one or in Frames of any size (a frame holding such a
    pair, or starting with one after the record before it, is taken row by row)."""
    from tsm_tui.analysis.ordering import REPEAT, Orderer
    from tsm_tui.core.frame import expand

    recs = []
    for s in range(1, 61):
        recs.append(StepRecord(s, loss=2.0 - s / 100, lr=1e-3))
        if s % 3 == 0:
            recs.append(StepRecord(s, loss=2.0 - s / 100, lr=2e-3))  # (same shape: inside a frame)
        if s % 20 == 0:  # (a NaN at the step between: the step's loss is still the one read)
            recs += [StepRecord(s, loss=math.nan, lr=3e-3), StepRecord(s, loss=2.0 - s / 100, lr=4e-3)]
    want = None
    for size in (1, 7, 64, 10**9):
        o = Orderer()
        got = [(r.step, r.loss, r.lr) for r in expand(o.push(to_items(recs, size)) + o.flush())]
        assert o.counts == {REPEAT: 23}
        if want is None:
            want = got
        assert [(s, x if x == x else "nan", lr) for s, x, lr in got] == [
            (s, x if x == x else "nan", lr) for s, x, lr in want
        ], size
    assert want[3] == (3, None, 2e-3) and sum(1 for _, x, _ in want if x is not None and x == x) == 60
