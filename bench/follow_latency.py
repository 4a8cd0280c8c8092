"""Latency from a log line written to its alert printed by ``tsm-watch --follow
--json`` (a subprocess), with inotify and with ``--poll 0.25``; and the CPU a
``--follow`` process uses while watching a quiet run.

    python bench/follow_latency.py [--trials 30] [--cpu-seconds 40]

Each trial appends 40 healthy records, waits 0.3-0.55 s, appends one line with a
loss spike (time t0, taken just after write+flush), and waits for the
``loss_spike`` alert of that step on the subprocess's stdout (time t1, taken
when the line arrives through the pipe). Latency = t1 - t0.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rec(step: int, spike: bool = False) -> str:
    loss = 2.0 + 3.0 * math.exp(-step / 400) * (1 + 0.01 * math.sin(step * 1.7))
    if spike:
        loss *= 4
    lr = 3e-4 * min(1.0, step / 30)
    return json.dumps({"step": step, "loss": loss, "grad_norm": 0.4 + 0.01 * math.cos(step), "lr": lr}) + "\n"


class Proc:
    def __init__(self, path: str, extra: list[str]) -> None:
        env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
        self.p = subprocess.Popen(
            [sys.executable, "-m", "tsm_tui", path, "--follow", "--json", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=ROOT,
        )
        self.lines: list[tuple[float, dict]] = []
        self.cv = threading.Condition()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for ln in self.p.stdout:
            t = time.monotonic()
            try:
                obj = json.loads(ln)
            except ValueError:
                continue
            with self.cv:
                self.lines.append((t, obj))
                self.cv.notify_all()

    def wait(self, pred, timeout: float = 10.0):
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                for t, o in self.lines:
                    if pred(o):
                        return t, o
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def stop(self) -> int:
        self.p.terminate()
        return self.p.wait(10)


def latency_run(extra: list[str], trials: int) -> list[float]:
    d = tempfile.mkdtemp(prefix="tsm-lat-")
    path = os.path.join(d, "metrics.jsonl")
    step = 0
    with open(path, "w") as f:
        for _ in range(300):
            step += 1
            f.write(rec(step))
    p = Proc(d, extra)
    if p.wait(lambda o: o.get("event") == "status", 15) is None:
        raise SystemExit("follow never read the backlog")
    out = []
    with open(path, "a") as f:
        for _ in range(trials):
            for _ in range(40):
                step += 1
                f.write(rec(step))
            f.flush()
            time.sleep(0.3 + random.random() * 0.25)  # no phase lock with any tick
            step += 1
            spike_step = step
            f.write(rec(step, spike=True))
            f.flush()
            t0 = time.monotonic()
            got = p.wait(
                lambda o, s=spike_step: (
                    o.get("event") == "alert" and o.get("check") == "loss_spike" and o.get("step") == s
                ),
                10,
            )
            if got is None:
                print(f"  no alert for the spike at step {spike_step}", file=sys.stderr)
                continue
            out.append(got[0] - t0)
    rc = p.stop()
    if rc != 0:
        print(f"  follow exited {rc} on SIGTERM", file=sys.stderr)
    return out


def cpu_run(extra: list[str], seconds: float) -> tuple[float, float]:
    """CPU % of a --follow process on a quiet run (nothing written)."""
    d = tempfile.mkdtemp(prefix="tsm-quiet-")
    for r in range(4):  # a few rank logs and checkpoints: a small but realistic dir
        with open(os.path.join(d, f"rank{r}.jsonl"), "w") as f:
            for s in range(1, 2001):
                f.write(rec(s))
    for s in (500, 1000, 1500, 2000):
        os.makedirs(os.path.join(d, f"checkpoint-{s}"))
    p = Proc(d, extra)
    p.wait(lambda o: o.get("event") == "status", 15)
    time.sleep(2.0)  # past start-up
    tck = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        with open(f"/proc/{p.p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tck  # utime + stime

    def rss() -> float:
        with open(f"/proc/{p.p.pid}/status") as f:
            for ln in f:
                if ln.startswith("VmRSS:"):
                    return int(ln.split()[1]) / 1024
        return 0.0

    c0, t0 = cpu(), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu(), time.monotonic()
    mem = rss()
    p.stop()
    return 100.0 * (c1 - c0) / (t1 - t0), mem


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, math.ceil(q * len(xs)) - 1))
    return xs[k]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--cpu-seconds", type=float, default=40.0)
    a = ap.parse_args()
    for label, extra in (("inotify", []), ("poll 0.25s", ["--poll", "0.25"])):
        lat = latency_run(extra, a.trials)
        if lat:
            print(
                f"{label:11s} latency over {len(lat)} spikes: median {statistics.median(lat) * 1000:.0f} ms, "
                f"p95 {pct(lat, 0.95) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms"
            )
    for label, extra in (("inotify", []), ("poll 0.25s", ["--poll", "0.25"])):
        c, mem = cpu_run(extra, a.cpu_seconds)
        print(f"{label:11s} CPU on a quiet run over {a.cpu_seconds:g} s: {c:.2f}% of one core (RSS {mem:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
