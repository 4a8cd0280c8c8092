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

import numpy as np
import pytest

from tsm_tui import engine
from tsm_tui.frame import Frame, frame_from_records
from tsm_tui.monitor import Monitor
from tsm_tui.record import StepRecord
from tsm_tui.settings import RunInfo, Settings
from tsm_tui.sources import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _shape(r: StepRecord):
    if r.samples is not None or r.overflow or r.loss_missing:
        return None
    return (tuple(f for f in ("loss", "grad_norm", "lr", "loss_scale", "tokens", "time", "epoch", "val_loss",
                              "skipped", "nan_iters") if getattr(r, f) is not None),
            tuple(r.extra) if r.extra else ())


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


def snapshot(mon: Monitor) -> dict:
    st = mon.state
    return {
        "alerts": [a.to_json() | {"key": a.key} for a in mon.alerts],
        "folded": dict(mon.folded),
        "checks": [c.to_json() for c in mon.checks()],
        "state": (st.records, st.first_step, st.last_step, st.peak_lr, st.peak_lr_step, st.last_lr,
                  list(st.resumes), st.early_trouble_step),
        "records": mon.records,
        "actions": mon.actions(),
    }


def run_both(recs: list[StepRecord], info: RunInfo | None = None, sizes=(1, 7, 64, 1000, 10 ** 9),
             finalize: bool = True) -> None:
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
def curve(n, seed=1, spikes=(), noise=0.015, gn_spikes=(), nan_at=(), lr_zero_from=None, warm=None,
          plateau_from=None, with_scale=False, tokens=False):
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


CASES = {
    "smooth": lambda: curve(3000),
    "spikes_recover": lambda: curve(4000, spikes=(1500, 2500), gn_spikes=(1200,)),
    "noisy": lambda: curve(3000, noise=0.3, seed=3),
    "nan": lambda: curve(2000, nan_at=(700, 701, 1500)),
    "lr_zero": lambda: curve(3000, lr_zero_from=1500),
    "no_warmup": lambda: curve(2000, warm=1),
    "plateau": lambda: curve(6000, plateau_from=1500),
    "fp16": lambda: curve(2000, with_scale=True, tokens=True),
    "spike_no_recover": lambda: [StepRecord(r.step, loss=r.loss * (4 if r.step > 1200 else 1), grad_norm=r.grad_norm,
                                            lr=r.lr) for r in curve(3000)],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_synthetic(case):
    run_both(CASES[case]())


def test_resume_inside_a_frame():
    recs = curve(3000, spikes=(900,))
    recs = recs[:2000] + [StepRecord(r.step, loss=r.loss, grad_norm=r.grad_norm, lr=r.lr) for r in recs[1500:]]
    run_both(recs)


def test_params_and_checkpoints():
    info = RunInfo()
    info.params = 1.25e8
    info.total_steps = 3000
    info.batch_tokens = 4096.0
    info.checkpoints = [(500, "ckpt-500"), (1000, "ckpt-1000")]
    info.checkpoint_dir_searched = True
    run_both(curve(3000, spikes=(1500,), tokens=True), info=info)


def test_live_without_finalize():
    run_both(curve(2500, spikes=(1000,)), finalize=False)


# -- sample runs and real logs -------------------------------------------------------------
def _run_records(path: str) -> tuple[list[StepRecord], RunInfo]:
    info = RunInfo()
    run = engine.open_run(path, info)
    return list(registry.read_records(run.primary, run.readers[run.primary])), info


@pytest.mark.parametrize("name", sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "sample_runs", "*"))
                                        if os.path.isdir(p) and os.path.basename(p) != "generations"))
def test_sample_runs(name):
    recs, info = _run_records(os.path.join(ROOT, "sample_runs", name))
    run_both(recs, info=info, sizes=(3, 100, 10 ** 9))


def test_frame_records_roundtrip():
    recs = curve(50, with_scale=True, tokens=True)
    for r in recs:
        r.extra = {"tokens_per_sec": 1.5 * r.step}
    fr = frame_from_records(recs)
    assert fr is not None and fr.n == 50
    assert fr.records() == recs
    assert fr.step.dtype == np.int64 and fr.cols["skipped"].dtype == np.int64
