import json
import math
import random

import pytest

from tsm_tui.analysis.monitor import Monitor
from tsm_tui.core.record import StepRecord
from tsm_tui.core.settings import RunInfo, Settings


def curve(n=2000, seed=0, noise=0.02, warmup=60, peak=3e-4, start=1):
    """A healthy run: exponential descent, multiplicative noise, warm-up + cosine LR."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        step = start + i
        base = 2.0 + 6.0 * math.exp(-step / 300)
        loss = base * (1 + rng.gauss(0, noise))
        if step <= warmup:
            lr = peak * step / warmup
        else:
            lr = peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (step - warmup) / (n - warmup))))
        gn = 0.4 * (1 + rng.gauss(0, 0.1)) + (3.0 * math.exp(-step / 50))
        out.append(StepRecord(step=step, loss=loss, grad_norm=gn, lr=lr))
    return out


def run(records, settings=None, info=None, finalize=True):
    mon = Monitor(settings or Settings(), info or RunInfo())
    alerts = []
    for r in records:
        alerts += mon.feed(r)
    if finalize:
        alerts += mon.finalize()
    return mon, alerts


def status(mon, check_id):
    return next(c for c in mon.checks() if c.id == check_id).status.value


@pytest.fixture
def healthy():
    return curve()


def val_only_log(directory) -> str:
    """A log with nothing a check can judge the training by (validation losses only): the
    "nothing judged" case (issue 28). Writes DIRECTORY/val_only/metrics.jsonl; returns the run."""
    run = directory / "val_only"
    run.mkdir()
    with open(run / "metrics.jsonl", "w") as f:
        for s in range(10, 400, 10):
            f.write(json.dumps({"step": s, "val_loss": 3.0 - s / 1000}) + "\n")
    return str(run)


@pytest.fixture
def follow():
    """``follow(*args, env=None)``: ``tsm-watch ARGS --follow`` in a subprocess (helpers.follow.Follow)."""
    from helpers.follow import follow_fixture

    yield from follow_fixture()


@pytest.fixture
def tail():
    """``tail(path, **kw)``: a started Tailer drained by a helpers.tailing.Collector."""
    from helpers.tailing import tail_fixture

    yield from tail_fixture()
