"""tsm-tui benchmarks (issue #7): fast and light beside the job.

    python bench/run.py [throughput memory latency cpu tui quality] [--quick] [sizes ...]

Every comparison is a ratio measured in the same run, contenders interleaved
and repeated (best of ``--repeat``): absolute times on a shared machine are
noise. Generated logs go to ``bench/out/`` (git-ignored). Optional comparison
packages (pandas, tensorboard) are used when installed and skipped, with a
note, when not; they are not project dependencies.

Results: markdown tables on stdout and ``bench/out/results.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import gen  # noqa: E402

BENCHES = ("throughput", "memory", "latency", "cpu", "tui", "quality")
RESULTS: dict = {}


def say(*a) -> None:
    print(*a, flush=True)


def table(head: list[str], rows: list[list]) -> None:
    say("| " + " | ".join(head) + " |")
    say("|" + "---|" * len(head))
    for r in rows:
        say("| " + " | ".join(str(x) for x in r) + " |")
    say()


def have(mod: str) -> bool:
    return importlib.util.find_spec(mod) is not None


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def machine() -> dict:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    vers = {}
    from importlib.metadata import PackageNotFoundError, version

    for m in ("orjson", "pandas", "tensorboard", "textual", "watchdog"):
        try:
            vers[m] = version(m)
        except PackageNotFoundError:
            vers[m] = None
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "ram": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_at_start": load(),
        "packages": vers,
    }


# ----------------------------------------------------------------------------- child runs
def peak_rss_child(mode: str, path: str, tree: str | None = None) -> dict:
    """Like child() but reaps with wait4 itself, so the peak RSS is this child's alone."""
    cmd = [sys.executable, os.path.join(HERE, "replay_child.py"), mode, path]
    if tree:
        cmd += ["--tree", tree]
    env = dict(os.environ, PYTHONPATH=tree or ROOT, NO_COLOR="1")
    with tempfile.TemporaryFile() as fo:
        p = subprocess.Popen(cmd, stdout=fo, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = status
        fo.seek(0)
        res = json.loads(fo.read().decode().strip().splitlines()[-1])
    # ru_maxrss of a forked child starts at the parent's size: prefer the child's own VmHWM
    res["rss_mib"] = res.get("vmhwm_mib") or ru.ru_maxrss / 1024
    return res


# ----------------------------------------------------------------------------- 1. throughput
def bench_throughput(a) -> None:
    say(f"## 1. Replay throughput to a full report (best of {a.repeat}, interleaved)\n")
    plan = [
        ("jsonl", a.steps, "bare-json", [("pandas-json", "pandas")]),
        ("megatron", a.steps, "bare-regex", [("pandas-csv", "pandas")]),
        # the TensorBoard floor: framing + tensorboard's compiled protobuf parse per record
        # (framing alone, no decoding at all, is shown too)
        (
            "tensorboard",
            a.tb_steps,
            "bare-protobuf" if have("tensorboard") else "bare-tfrecord",
            [("bare-tfrecord", None), ("tb-accumulator", "tensorboard")] if have("tensorboard") else [],
        ),
    ]
    rows = []
    out = {}
    for fmt, n, bare, others in plan:
        path = gen.generate(fmt, n)
        modes = [bare, "tsm"]
        if a.compare_tree:
            modes.append("tsm@before")
        for m, pkg in others:
            if pkg is None or have(pkg):
                modes.append(m)
            else:
                say(f"(skipped {m}: `{pkg}` is not installed; `pip install {pkg}` to compare)")
        best: dict[str, float] = {}
        startup = math.inf
        for _ in range(a.repeat):
            for m in modes:
                if m == "tsm@before":
                    r = peak_rss_child("tsm", path, a.compare_tree)
                else:
                    r = peak_rss_child(m, path)
                best[m] = min(best.get(m, math.inf), r["seconds"])
                if m == "tsm" and r.get("startup_s"):
                    startup = min(startup, r["startup_s"])
        out[fmt] = {"steps": n, "bytes": os.path.getsize(path), "seconds": best, "tsm_startup_s": startup}
        for m in modes:
            rows.append(
                [
                    fmt,
                    f"{n:,}",
                    m,
                    f"{best[m]:.2f}",
                    f"{n / best[m]:,.0f}",
                    f"{best[m] / best['tsm']:.3f}" if m != "tsm" else "1",
                    f"**{best[bare] / best['tsm']:.3f}**" if m == "tsm" else "",
                ]
            )
    say(f"load during the run: {load()}\n")
    table(["format", "steps", "contender", "s", "steps/s", "time / tsm's", "tsm speed / bare"], rows)
    say(
        "Times exclude imports for every contender; tsm's start-up (importing numpy and the engine) "
        "was " + ", ".join(f"{k} {v['tsm_startup_s']:.2f} s" for k, v in out.items()) + ".\n"
    )
    RESULTS["throughput"] = out


# ----------------------------------------------------------------------------- 2. memory
def bench_memory(a) -> None:
    say("## 2. Peak RSS replaying to a full report (fresh process each; its VmHWM)\n")
    rows = []
    out = {}
    for fmt in ("jsonl", "megatron"):
        for n in a.mem_steps:
            if fmt == "megatron" and n > a.steps:
                continue  # 10M Megatron lines are ~3 GB: the JSONL run shows the trend
            path = gen.generate(fmt, n)
            base = peak_rss_child("bare-json" if fmt == "jsonl" else "bare-regex", path)
            r = peak_rss_child("tsm", path)
            out[f"{fmt}-{n}"] = {"tsm_mib": r["rss_mib"], "bare_mib": base["rss_mib"], "seconds": r["seconds"]}
            rows.append(
                [
                    fmt,
                    f"{n:,}",
                    f"{os.path.getsize(path) / 2**20:,.0f} MiB",
                    f"{r['rss_mib']:.1f}",
                    f"{base['rss_mib']:.1f}",
                    f"{r['seconds']:.1f}",
                ]
            )
    say(f"load during the run: {load()}\n")
    table(["format", "steps", "file", "tsm peak RSS (MiB)", "bare parse loop peak RSS (MiB)", "tsm s"], rows)
    RESULTS["memory"] = out


# ----------------------------------------------------------------------------- 3. latency
def bench_latency(a) -> None:
    import follow_latency as fl

    say(f"## 3. Live latency: record written -> alert printed by `--follow --json` ({a.trials} spikes)\n")
    rows = []
    out = {}
    for label, extra in (("inotify", []), ("poll 0.25 s", ["--poll", "0.25"])):
        lat = fl.latency_run(extra, a.trials)
        if not lat:
            rows.append([label, "no alerts", "", "", ""])
            continue
        out[label] = lat
        rows.append(
            [
                label,
                len(lat),
                f"{statistics.median(lat) * 1000:.0f} ms",
                f"{fl.pct(lat, 0.95) * 1000:.0f} ms",
                f"{max(lat) * 1000:.0f} ms",
            ]
        )
    say(f"load during the run: {load()}\n")
    table(["mode", "spikes", "median", "p95", "max"], rows)
    RESULTS["latency"] = out


# ----------------------------------------------------------------------------- 4. cpu
WRITER = r"""
import json, math, random, sys, time
path, rate, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
step = int(sys.argv[4])
rng = random.Random(1)
f = open(path, "a")
t0 = time.monotonic()
tick = 0.1
n_done = 0
while time.monotonic() - t0 < seconds:
    due = int((time.monotonic() - t0) * rate)
    while n_done < due:
        step += 1
        n_done += 1
        loss = 2.0 + 3.0 * math.exp(-step / 3000) * math.exp(rng.gauss(0, 0.01))
        f.write(json.dumps({"step": step, "loss": loss, "grad_norm": 0.5 * math.exp(rng.gauss(0, 0.1)),
                            "lr": 3e-4}) + "\n")
    f.flush()
    time.sleep(tick)
"""


def _cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_of(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for ln in f:
            if ln.startswith("VmRSS:"):
                return int(ln.split()[1]) / 1024
    return 0.0


def _run_dir(history: int) -> tuple[str, str]:
    os.makedirs(gen.OUT, exist_ok=True)  # a fresh clone has no bench/out yet
    d = tempfile.mkdtemp(prefix="tsm-cpu-", dir=gen.OUT)
    path = os.path.join(d, "metrics.jsonl")
    with open(path, "w") as f:
        for s, loss, gn, lr in gen.curve(history, seed=3, spikes=0):
            f.write(json.dumps({"step": s, "loss": loss, "grad_norm": gn, "lr": lr}) + "\n")
    for s in (500, 1000, 1500, 2000):
        os.makedirs(os.path.join(d, f"checkpoint-{s}"))
    return d, path


def _measure(pid: int, path: str, rate: float, seconds: float, history: int) -> tuple[float, float]:
    w = subprocess.Popen([sys.executable, "-c", WRITER, path, str(rate), str(seconds + 1), str(history)])
    time.sleep(1.0)
    c0, t0 = _cpu_of(pid), time.monotonic()
    time.sleep(seconds)
    c1, t1 = _cpu_of(pid), time.monotonic()
    rss = _rss_of(pid)
    w.wait()
    return 100.0 * (c1 - c0) / (t1 - t0), rss


def bench_cpu(a) -> None:
    say(f"## 4. CPU beside a job: % of one core over {a.cpu_seconds:g} s, run logging 0 / 10 / 1000 steps/s\n")
    history = 2000
    rows = []
    out = {}
    tmux = shutil.which("tmux")
    for rate in (0, 10, 1000):
        # --follow
        d, path = _run_dir(history)
        env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
        p = subprocess.Popen(
            [sys.executable, "-m", "tsm_tui", d, "--follow", "--json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=ROOT,
        )
        time.sleep(3.0)  # past start-up and the history
        cf, rf = _measure(p.pid, path, rate, a.cpu_seconds, history)
        p.terminate()
        p.wait(10)
        shutil.rmtree(d, ignore_errors=True)
        out[f"follow-{rate}"] = cf
        rows.append([f"{rate}", "`--follow --json`", f"{cf:.2f} %", f"{rf:.0f} MiB"])
        # the TUI in a real pty (tmux, 80x24)
        if not tmux:
            rows.append([f"{rate}", "TUI", "skipped: no tmux", ""])
            continue
        d, path = _run_dir(history)
        sock = f"tsmbench{os.getpid()}"
        cmd = f"cd {ROOT} && NO_COLOR=1 PYTHONPATH={ROOT} exec {sys.executable} -m tsm_tui {d} --no-bell"
        subprocess.run([tmux, "-L", sock, "new-session", "-d", "-x", "80", "-y", "24", cmd], check=True)
        try:
            pid = int(
                subprocess.run(
                    [tmux, "-L", sock, "list-panes", "-F", "#{pane_pid}"], capture_output=True, text=True
                ).stdout.split()[0]
            )
            time.sleep(4.0)
            ct, rt = _measure(pid, path, rate, a.cpu_seconds, history)
        finally:
            subprocess.run([tmux, "-L", sock, "kill-server"], capture_output=True)
            shutil.rmtree(d, ignore_errors=True)
        out[f"tui-{rate}"] = ct
        rows.append([f"{rate}", "TUI 80x24 (tmux pty)", f"{ct:.2f} %", f"{rt:.0f} MiB"])
    say(f"load during the run: {load()}\n")
    table(["steps/s", "process", "CPU (% of one core)", "RSS"], rows)
    RESULTS["cpu"] = out


# ----------------------------------------------------------------------------- 5. tui
async def _tui_times(path: str, frames: int) -> dict:
    from tsm_tui.views.tui.app import TsmApp
    from tsm_tui.analysis.run_open import open_run
    from tsm_tui.sources.feed import ReplayFeed
    from tsm_tui.analysis.session import Session
    from tsm_tui.core.settings import RunInfo, Settings

    t0 = time.perf_counter()
    info = RunInfo()
    run = open_run(path, info, allow_empty=True)
    session = Session(Settings(), info)
    session.set_checkpoints(info.checkpoints)
    app = TsmApp.for_session(
        session, ReplayFeed(run.readers, speed=None), path=path, mode="finished", bell=False, root=run.root
    )
    res: dict = {}
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        res["first_frame_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        while not app.loaded:
            await asyncio.sleep(0.05)
            if time.perf_counter() - t1 > 1800:
                raise RuntimeError("TUI never finished loading")
        res["load_s"] = time.perf_counter() - t1
        res["records"] = app.records_seen
        await pilot.pause()
        ticks, full = [], []
        for _ in range(frames):  # one repaint after new data: status, checks, sparklines, then the screen update
            s = time.perf_counter()
            app.dashboard._repaint(app.clock())
            await pilot.pause()
            ticks.append(time.perf_counter() - s)
        for _ in range(frames):  # a forced full repaint (key press / resize): focus plot rebuilt
            s = time.perf_counter()
            app.dashboard._repaint_plots(True)
            await pilot.pause()
            full.append(time.perf_counter() - s)
        res["tick_ms"] = 1000 * statistics.median(ticks)
        res["repaint_ms"] = 1000 * statistics.median(full)
        await pilot.press("q")
    return res


def bench_tui(a) -> None:
    say("## 5. TUI: time to first frame, frame time with N steps loaded (Textual `run_test`, 80x24)\n")
    if not have("textual"):
        say("(skipped: textual not installed)\n")
        return
    rows = []
    out = {}
    for n in sorted({1000, a.steps}):
        path = gen.generate("jsonl", n)
        try:
            r = asyncio.run(_tui_times(os.path.dirname(path), 20))
        except Exception as e:  # the app package may be mid-change
            rows.append([f"{n:,}", f"failed: {type(e).__name__}: {e}", "", "", ""])
            continue
        out[n] = r
        rows.append(
            [
                f"{n:,}",
                f"{r['first_frame_s'] * 1000:.0f} ms",
                f"{r['load_s']:.1f} s",
                f"{r['tick_ms']:.1f} ms",
                f"{r['repaint_ms']:.1f} ms",
            ]
        )
    say(f"load during the run: {load()}\n")
    table(
        [
            "steps loaded",
            "first frame",
            "load (all history)",
            "frame: 4 Hz tick (median)",
            "frame: forced full repaint (median)",
        ],
        rows,
    )
    RESULTS["tui"] = out


# ----------------------------------------------------------------------------- 6. quality
def bench_quality(a) -> None:
    import quality

    say("## 6. Detection quality on a labelled corpus\n")
    res = quality.run(quick=a.quick, say=say, table=table)
    RESULTS["quality"] = res


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "benches",
        nargs="*",
        choices=[[], *BENCHES],
        default=[],
        metavar="BENCH",
        help=f"any of {', '.join(BENCHES)} (default: all)",
    )
    ap.add_argument("--quick", action="store_true", help="small sizes: a full run in ~15 min on 2 cores")
    ap.add_argument("--steps", type=int, help="replay size (default 1M; quick 100k)")
    ap.add_argument("--tb-steps", type=int, help="TensorBoard replay size (default 200k; quick 20k)")
    ap.add_argument("--mem-steps", help="comma list of memory-run sizes (default 1M,10M; quick 100k,1M)")
    ap.add_argument("--repeat", type=int, help="best of N (default 3; quick 2)")
    ap.add_argument("--trials", type=int, help="latency spikes per mode (default 30; quick 10)")
    ap.add_argument("--cpu-seconds", type=float, help="CPU window (default 60; quick 15)")
    ap.add_argument(
        "--compare-tree",
        help="another source tree (e.g. a git worktree of an older commit): its replay is timed beside this one",
    )
    a = ap.parse_args(argv)
    q = a.quick
    a.steps = a.steps or (100_000 if q else 1_000_000)
    a.tb_steps = a.tb_steps or (20_000 if q else 200_000)
    a.mem_steps = [int(float(x)) for x in (a.mem_steps or ("1e5,1e6" if q else "1e6,1e7")).split(",")]
    a.repeat = a.repeat or (2 if q else 3)
    a.trials = a.trials or (10 if q else 30)
    a.cpu_seconds = a.cpu_seconds or (15.0 if q else 60.0)
    benches = a.benches or list(BENCHES)
    m = machine()
    RESULTS["machine"] = m
    say("# tsm-tui benchmarks\n")
    say(
        f"nproc {m['nproc']}, CPU {m['cpu']}, RAM {m['ram']}, Python {m['python']}, {m['platform']}; "
        f"load average at start {m['load_at_start']}; packages {m['packages']}\n"
    )
    t0 = time.time()
    for b in benches:
        globals()[f"bench_{b}"](a)
    RESULTS["elapsed_s"] = time.time() - t0
    RESULTS["load_at_end"] = load()
    os.makedirs(gen.OUT, exist_ok=True)
    with open(os.path.join(gen.OUT, f"results-{'-'.join(benches)}.json"), "w") as f:
        json.dump(RESULTS, f, indent=1, default=str)
    say(f"done in {RESULTS['elapsed_s']:.0f} s; load average at end {RESULTS['load_at_end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
