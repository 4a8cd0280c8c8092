"""The live monitor's cost beside a job, side by side with what people already
run (issue #18): CPU of one core while a writer appends JSONL at a given rate,
every contender watching the same file in the same window, each in its own
tmux server (a real pty of the given size).

    python bench/tui_cost.py cpu [--seconds 60] [--rates 0,1,10,100]
    python bench/tui_cost.py latency [--trials 20]     # spike written -> on screen (TUI, 80x24)
    python bench/tui_cost.py load [--steps 1000000,5000000]   # history -> all of it on screen
    python bench/tui_cost.py help                      # tsm-watch --help / --version wall time

Contenders (skipped with a note when not installed): the TUI at 80x24 and
200x50, ``--follow --json`` (no pty), ``toolong`` (``tl``, a Textual log viewer;
``TOOLONG=/path/to/tl``, best in its own venv: it pins an old Textual), ``htop``
and ``tail -f`` at 80x24. The writer writes and flushes one record at a time,
evenly spaced (the harsh case for inotify: one event per record).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import gen  # noqa: E402

WRITER = r"""
import json, math, random, sys, time
path, rate, seconds, step = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rng = random.Random(1)
f = open(path, "a")
t0 = time.monotonic()
n = 0
while True:
    now = time.monotonic() - t0
    if now >= seconds:
        break
    if rate <= 0:
        time.sleep(min(1.0, seconds - now))
        continue
    while n < int(now * rate) + 1:
        step += 1
        n += 1
        loss = 2.0 + 3.0 * math.exp(-step / 3000) * math.exp(rng.gauss(0, 0.01))
        f.write(json.dumps({"step": step, "loss": loss, "grad_norm": 0.5 * math.exp(rng.gauss(0, 0.1)),
                            "lr": 3e-4}) + "\n")
        f.flush()
    time.sleep(max(0.0, n / rate - (time.monotonic() - t0)))
"""


def cpu_of(pid: int) -> float:
    """utime + stime of a process and its reaped children, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        x = f.read().rsplit(")", 1)[1].split()
    return sum(int(v) for v in x[11:15]) / os.sysconf("SC_CLK_TCK")


def exec_of(pid: int) -> float:
    """Time on a CPU of a process's live threads, in seconds, from the scheduler's own
    nanosecond count (``/proc/<pid>/task/<tid>/schedstat``): ``cpu_of`` counts 10 ms
    clock ticks, too coarse for an idle process over a minute (0.05% is 3 ticks)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


def rss_of(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for ln in f:
                if ln.startswith("VmRSS:"):
                    return int(ln.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_dir(history: int) -> tuple[str, str]:
    os.makedirs(gen.OUT, exist_ok=True)
    d = tempfile.mkdtemp(prefix="tsm-cost-", dir=gen.OUT)
    path = os.path.join(d, "metrics.jsonl")
    with open(path, "w") as f:
        for s, loss, gn, lr in gen.curve(history, seed=3, spikes=0):
            f.write(json.dumps({"step": s, "loss": loss, "grad_norm": gn, "lr": lr}) + "\n")
    for s in (500, 1000, 1500, 2000):
        os.makedirs(os.path.join(d, f"checkpoint-{s}"))
    return d, path


class Pane:
    """One command in its own tmux server (a pty of ``size``)."""

    def __init__(self, name: str, cmd: str, size: tuple[int, int]) -> None:
        self.sock = f"tsmcost{os.getpid()}{name}"
        env = f"cd {ROOT} && PYTHONPATH={ROOT} TERM=xterm-256color exec "
        subprocess.run(
            [
                "tmux",
                "-L",
                self.sock,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                str(size[0]),
                "-y",
                str(size[1]),
                env + cmd,
            ],
            check=True,
        )
        out = subprocess.run(
            ["tmux", "-L", self.sock, "list-panes", "-F", "#{pane_pid}"], capture_output=True, text=True
        ).stdout.split()
        self.pid = int(out[0])

    def capture(self) -> str:
        return subprocess.run(["tmux", "-L", self.sock, "capture-pane", "-p"], capture_output=True, text=True).stdout

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)


class Plain:
    def __init__(self, cmd: list[str]) -> None:
        self.p = subprocess.Popen(
            cmd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1"),
        )
        self.pid = self.p.pid

    def close(self) -> None:
        self.p.terminate()
        self.p.wait(10)


def contenders(d: str, path: str) -> list[tuple[str, object]]:
    py = sys.executable
    out: list[tuple[str, object]] = []
    out.append(("tsm TUI 80x24", Pane("a", f"{py} -m tsm_tui {d} --no-bell", (80, 24))))
    out.append(("tsm TUI 200x50", Pane("b", f"{py} -m tsm_tui {d} --no-bell", (200, 50))))
    out.append(("`--follow --json`", Plain([py, "-m", "tsm_tui", d, "--follow", "--json"])))
    tl = os.environ.get("TOOLONG") or shutil.which("tl")
    if tl:
        out.append(("toolong 80x24", Pane("c", f"{tl} {path}", (80, 24))))
    if shutil.which("htop"):
        out.append(("htop 80x24", Pane("d", "htop", (80, 24))))
    out.append(("`tail -f` 80x24", Pane("e", f"tail -f {path}", (80, 24))))
    return out


def bench_cpu(a) -> dict:
    if not shutil.which("tmux"):
        raise SystemExit("tmux is needed (a real pty per contender)")
    history = 2000
    res: dict = {}
    for rate in a.rates:
        d, path = run_dir(history)
        cs = contenders(d, path)
        try:
            time.sleep(5.0)  # start-up and the history
            w = subprocess.Popen([py_exe(), "-c", WRITER, path, str(rate), str(a.seconds + 3), str(history)])
            time.sleep(2.0)
            c0 = {n: cpu_of(c.pid) for n, c in cs}
            t0 = time.monotonic()
            time.sleep(a.seconds)
            t1 = time.monotonic()
            for n, c in cs:
                res.setdefault(n, {})[rate] = (100 * (cpu_of(c.pid) - c0[n]) / (t1 - t0), rss_of(c.pid))
            w.wait()
        finally:
            for _, c in cs:
                c.close()
            shutil.rmtree(d, ignore_errors=True)
        print(f"rate {rate}: " + ", ".join(f"{n} {v[rate][0]:.2f}%" for n, v in res.items()), flush=True)
    print(f"\nCPU (% of one core) over {a.seconds:g} s, all contenders in the same window; load {load()}\n")
    print("| | " + " | ".join(f"{r:g} steps/s" for r in a.rates) + " | RSS |")
    print("|---|" + "---|" * (len(a.rates) + 1))
    for n, v in res.items():
        print(
            f"| {n} | "
            + " | ".join(f"{v[r][0]:.2f}%" for r in a.rates)
            + f" | {max(x[1] for x in v.values()):.0f} MiB |"
        )
    return res


def py_exe() -> str:
    return sys.executable


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rec(step: int, spike: bool = False) -> str:
    loss = 2.0 + 3.0 * math.exp(-step / 400) * (1 + 0.01 * math.sin(step * 1.7))
    if spike:
        loss *= 4
    return (
        json.dumps(
            {"step": step, "loss": loss, "grad_norm": 0.4 + 0.01 * math.cos(step), "lr": 3e-4 * min(1.0, step / 30)}
        )
        + "\n"
    )


def bench_latency(a) -> list[float]:
    """A spike line written -> its alert row on the TUI's screen (tmux capture every ~5 ms)."""
    import random

    os.makedirs(gen.OUT, exist_ok=True)
    d = tempfile.mkdtemp(prefix="tsm-lat-", dir=gen.OUT)
    path = os.path.join(d, "metrics.jsonl")
    step = 0
    with open(path, "w") as f:
        for _ in range(300):
            step += 1
            f.write(rec(step))
    pane = Pane("l", f"{sys.executable} -m tsm_tui {d} --no-bell", (80, 24))
    lat = []
    try:
        time.sleep(4.0)
        with open(path, "a") as f:
            for _ in range(a.trials):
                for _ in range(40):  # 10 steps/s for 4 s
                    step += 1
                    f.write(rec(step))
                    f.flush()
                    time.sleep(0.1)
                time.sleep(random.random() * 0.25)  # no phase lock with any timer
                step += 1
                f.write(rec(step, spike=True))
                f.flush()
                t0 = time.monotonic()
                pat = re.compile(rf"\b{step}\b[^\n]*[Ss]pike")
                while time.monotonic() - t0 < 5:
                    if pat.search(pane.capture()):
                        lat.append(time.monotonic() - t0)
                        break
                    time.sleep(0.005)
                else:
                    print(f"  spike at {step} not seen on screen in 5 s", file=sys.stderr)
    finally:
        pane.close()
        shutil.rmtree(d, ignore_errors=True)
    if lat:
        s = sorted(lat)
        print(
            f"spike on screen (80x24, tmux capture every ~5 ms, {len(lat)} spikes): median "
            f"{statistics.median(lat) * 1000:.0f} ms, p95 {s[max(0, math.ceil(0.95 * len(s)) - 1)] * 1000:.0f} "
            f"ms, max {s[-1] * 1000:.0f} ms; load {load()}"
        )
    return lat


LOAD_CHILD = r"""
import asyncio, json, sys, time
t0 = time.perf_counter()
from tsm_tui.views.tui import TsmApp
app = TsmApp.finished(sys.argv[1], "bench")
async def main():
    async with app.run_test(size=(80, 24)) as pilot:
        t1 = time.perf_counter()
        while not app.loaded:
            await asyncio.sleep(0.02)
        await pilot.pause()
        t2 = time.perf_counter()
        with open("/proc/self/status") as f:
            hwm = next(int(l.split()[1]) / 1024 for l in f if l.startswith("VmHWM:"))
        print(json.dumps({"load_s": t2 - t1, "start_s": t1 - t0, "records": app.records_seen, "hwm_mib": hwm}))
asyncio.run(main())
"""


def bench_load(a) -> dict:
    res = {}
    for n in a.steps:
        path = gen.generate("jsonl", n)
        out = subprocess.run(
            [sys.executable, "-c", LOAD_CHILD, os.path.dirname(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=ROOT),
        )
        try:
            r = json.loads(out.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            print(out.stderr[-2000:])
            continue
        res[n] = r
        print(
            f"{n:,} steps: all history on screen {r['load_s']:.2f} s after the first frame "
            f"(start {r['start_s']:.2f} s), peak RSS {r['hwm_mib']:.0f} MiB; load {load()}",
            flush=True,
        )
    return res


def bench_help(a) -> dict:
    res = {}
    for args in (["--help"], ["--version"]):
        ts = []
        for _ in range(15):
            t = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "tsm_tui", *args],
                capture_output=True,
                cwd=ROOT,
                env=dict(os.environ, PYTHONPATH=ROOT),
            )
            ts.append(time.perf_counter() - t)
        t = time.perf_counter()
        for _ in range(15):
            subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
        bare = (time.perf_counter() - t) / 15
        res[args[0]] = statistics.median(ts)
        print(
            f"tsm-watch {args[0]}: median {statistics.median(ts) * 1000:.0f} ms of 15 "
            f"(python -c pass: {bare * 1000:.0f} ms)"
        )
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["cpu", "latency", "load", "help"])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rates", default="0,1,10,100")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--steps", default="1000000,5000000")
    a = ap.parse_args()
    a.rates = [float(x) for x in a.rates.split(",")]
    a.steps = [int(float(x)) for x in a.steps.split(",")]
    globals()[f"bench_{a.what}"](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
