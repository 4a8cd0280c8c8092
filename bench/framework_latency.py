"""Alert latency of ``tsm-watch --follow --json`` beside real framework writers (issue 31 §9):
what a user sees, not a lone JSON Lines writer.

    python bench/framework_latency.py [--trials 20] [--rate 50]

Writers (each a real library writing the way the framework does, ``--rate`` steps/s):

* ``jsonl``: one JSON object per step, written and flushed (bench/follow_latency.py's writer);
* ``hf-console``: a ``tqdm`` bar (the library HF Trainer's ProgressCallback uses) redrawn on
  every step into the log file (``python train.py > train.log 2>&1``), and HF's log dict
  ``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}`` written with
  ``tqdm.write`` every 5th step, as ProgressCallback.on_log does;
* ``tensorboard``: ``torch.utils.tensorboard.SummaryWriter`` scalars every step, ``flush()``
  every 5th step (HF's TensorBoardCallback flushes on every log).

Each trial: 60-90 healthy steps, then a logged step with a 4x loss (t0: just after its write
and flush), then healthy steps go on; latency = the ``loss_spike`` alert's arrival on the
follower's stdout - t0. Prints median / p95 / max per writer.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from follow_latency import Proc, pct  # noqa: E402


def healthy(step: int) -> tuple[float, float, float]:
    loss = 2.0 + 3.0 * math.exp(-step / 400) * (1 + 0.01 * math.sin(step * 1.7))
    return loss, 0.4 + 0.01 * math.cos(step), 3e-4 * min(1.0, step / 30)


class JsonlWriter:
    every = 1

    def __init__(self, d: str) -> None:
        self.f = open(os.path.join(d, "metrics.jsonl"), "a")

    def step(self, s: int, loss: float, logged: bool) -> None:
        _, gn, lr = healthy(s)
        self.f.write(json.dumps({"step": s, "loss": loss, "grad_norm": gn, "lr": lr}) + "\n")
        self.f.flush()

    def close(self) -> None:
        self.f.close()


class HFConsoleWriter:
    every = 5

    def __init__(self, d: str) -> None:
        from tqdm.auto import tqdm

        self.f = open(os.path.join(d, "train.log"), "a")
        self.bar = tqdm(total=10**7, file=self.f, mininterval=0.0, miniters=1, dynamic_ncols=False, ncols=80)
        self.tqdm = tqdm

    def step(self, s: int, loss: float, logged: bool) -> None:
        _, gn, lr = healthy(s)
        self.bar.update(1)
        if logged:  # ProgressCallback.on_log: training_bar.write(str(logs))
            self.bar.write(
                str(
                    {
                        "loss": f"{loss:.4g}",
                        "grad_norm": f"{gn:.4g}",
                        "learning_rate": f"{lr:.4g}",
                        "epoch": f"{s / 1000:.4g}",
                    }
                ),
                file=self.f,
            )
        self.f.flush()

    def close(self) -> None:
        self.bar.close()
        self.f.close()


class TensorBoardWriter:
    every = 5

    def __init__(self, d: str) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.w = SummaryWriter(os.path.join(d, "runs"))

    def step(self, s: int, loss: float, logged: bool) -> None:
        _, gn, lr = healthy(s)
        if logged:
            self.w.add_scalar("train/loss", loss, s)
            self.w.add_scalar("train/grad_norm", gn, s)
            self.w.add_scalar("train/learning_rate", lr, s)
            self.w.flush()

    def close(self) -> None:
        self.w.close()


WRITERS = {"jsonl": JsonlWriter, "hf-console": HFConsoleWriter, "tensorboard": TensorBoardWriter}


def run(name: str, trials: int, rate: float) -> list[float]:
    d = tempfile.mkdtemp(prefix=f"tsm-fw-{name}-")
    w = WRITERS[name](d)
    step = 0
    for _ in range(300):  # a history before the follower starts
        step += 1
        w.step(step, healthy(step)[0], step % w.every == 0)
    p = Proc(d, [])
    if p.wait(lambda o: o.get("event") == "status", 20) is None:
        w.close()
        raise SystemExit(f"{name}: the follower never read the backlog")
    out: list[float] = []
    period = 1.0 / rate
    for _ in range(trials):
        n = random.randint(60, 90)
        for _ in range(n):
            step += 1
            w.step(step, healthy(step)[0], step % w.every == 0)
            time.sleep(period)
        while (step + 1) % w.every:  # the spike on a logged step
            step += 1
            w.step(step, healthy(step)[0], False)
            time.sleep(period)
        step += 1
        old = {id(obj) for _, obj in p.lines}  # the alert must be a new one
        w.step(step, healthy(step)[0] * 4, True)
        t0 = time.monotonic()
        done = threading.Event()
        got: list = []

        def waiter(old=old, got=got, done=done):
            got.append(
                p.wait(
                    lambda o: (
                        o.get("event") == "alert"
                        and o.get("check") == "loss_spike"
                        and o.get("severity") == "warning"
                        and id(o) not in old
                    ),
                    10,
                )
            )
            done.set()

        threading.Thread(target=waiter, daemon=True).start()
        while not done.is_set():  # the job goes on writing while the alert is on its way
            step += 1
            w.step(step, healthy(step)[0], step % w.every == 0)
            time.sleep(period)
        if got and got[0] is not None:
            out.append(got[0][0] - t0)
        else:
            print(f"  {name}: no alert for the spike at step {step}", file=sys.stderr)
    p.stop()
    w.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--rate", type=float, default=50.0, help="training steps per second")
    ap.add_argument("--only", nargs="*", default=list(WRITERS))
    a = ap.parse_args()
    for name in a.only:
        lat = run(name, a.trials, a.rate)
        if lat:
            print(
                f"{name:12s} {a.rate:g} steps/s: alert latency over {len(lat)} spikes: median "
                f"{statistics.median(lat) * 1000:.0f} ms, p95 {pct(lat, 0.95) * 1000:.0f} ms, "
                f"max {max(lat) * 1000:.0f} ms",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
