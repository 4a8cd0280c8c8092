"""``tsm-watch PATH --follow`` in a subprocess, and the JSON Lines records the tests write to it."""

from __future__ import annotations

import json
import math
import signal

from helpers.proc import stop, tsm_watch
from helpers.wait import WAIT, poll_until


def record(step, n=400, warmup=30, peak=3e-4):
    loss = 2.0 + 6.0 * math.exp(-step / 300) * (1 + 0.01 * math.sin(step))
    lr = peak * step / warmup if step <= warmup else peak * (0.5 + 0.5 * math.cos(math.pi * step / (2 * n)))
    return {"step": step, "loss": loss, "grad_norm": 0.4 + 0.01 * math.cos(step), "lr": lr}


def line(d):
    return json.dumps(d) + "\n"


def write_lines(path, recs, mode="a"):
    with open(path, mode) as f:
        for r in recs:
            f.write(line(r))
        f.flush()


class Follow:
    """``python -m tsm_tui PATH --follow ...`` with its output collected line by line."""

    def __init__(self, *args, env=None):
        self.o = tsm_watch(*args, "--follow", env=env)
        self.p = self.o.p
        self.out: list[str] = self.o.out
        self.err: list[str] = self.o.err

    def wait_for(self, cond, timeout=WAIT):
        """True once ``cond()`` holds (False after ``timeout``, or once the process has exited and
        it still does not)."""
        return bool(poll_until(cond, timeout, alive=lambda: self.p.poll() is None))

    def json(self):
        return [json.loads(x) for x in list(self.out)]

    def stop(self, sig=signal.SIGTERM):
        return stop(self.o, sig, WAIT)


def follow_fixture():
    """The ``follow`` fixture's body (tests/conftest.py): ``follow(*args)`` starts one; all are
    killed at the end of the test."""
    procs = []

    def make(*args, **kw):
        f = Follow(*args, **kw)
        procs.append(f)
        return f

    yield make
    for f in procs:
        if f.p.poll() is None:
            f.p.kill()
            f.p.wait()
