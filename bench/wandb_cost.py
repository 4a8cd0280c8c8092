"""W&B run files (``run-<id>.wandb``, issue 25): replay speed against bare decode loops,
memory, and the live cost beside W&B's own terminal viewer.

    python bench/wandb_cost.py make [--rows 1000000]        # the SDK writes bench/out/wandb_<rows>/
    python bench/wandb_cost.py replay [--rows 1000000] [--repeat 3]
    python bench/wandb_cost.py memory [--rows 100000,1000000]
    python bench/wandb_cost.py live [--seconds 60] [--rate 10]

``make`` needs ``wandb`` (the test extra) and writes a real run file with the SDK in
offline mode: ``train/loss``, ``train/grad_norm``, ``train/learning_rate``, ``train/epoch``
per row (and the ``_step`` / ``_timestamp`` / ``_runtime`` the SDK adds; the SDK also
writes a summary record after every row), a loss and grad-norm spike every 100k rows.

``replay``: ``tsm-watch FILE --report`` timed inside a fresh process (imports before the
clock, as bench/run.py does) against two bare decode loops over the same file: the floor
is framing + CRC-32 + the history rows decoded to (step, key, value) with our hand-written
protobuf walk (``bare-wandb``); the same with the official ``protobuf`` runtime (upb) and
a runtime-built descriptor (``bare-wandb-upb``, when ``protobuf`` is importable). Contenders
interleaved, best of ``--repeat``.

``live``: a script writes a run with the SDK at ``--rate`` rows/s; CPU (utime + stime of
the process and its children) over the same window of ``tsm-watch DIR --follow`` on it,
``--follow`` on a JSON Lines file written at the same rate, the TUI at 80x24 in tmux, and
``wandb leet`` at 80x24 in tmux (skipped when the installed SDK has no ``leet``).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
sys.path.insert(0, HERE)

MAKE = r"""
import math, random, sys, wandb
n = int(sys.argv[1])
run = wandb.init(project="bench", name=f"bench-{n}", mode="offline",
                 config={"learning_rate": 3e-4, "max_steps": n, "warmup_steps": n // 50})
rng = random.Random(0)
for s in range(n):
    loss = 2.0 + 3.0 * math.exp(-s / (n / 20)) * math.exp(rng.gauss(0, 0.01))
    g = 0.5 * math.exp(rng.gauss(0, 0.1))
    if s % 100_000 == 50_000:
        loss *= 3.0
        g *= 40.0
    run.log({"train/loss": loss, "train/grad_norm": g,
             "train/learning_rate": 3e-4 * min(1.0, (s + 1) / (n // 50)), "train/epoch": s / 10_000})
run.finish()
"""

LIVE = r"""
import math, random, sys, time, wandb
rate, seconds = float(sys.argv[1]), float(sys.argv[2])
run = wandb.init(project="bench", name="live", mode="offline")
rng = random.Random(1)
t0 = time.monotonic()
s = 0
while time.monotonic() - t0 < seconds:
    run.log({"train/loss": 2.0 + rng.random() * 0.01, "train/grad_norm": 0.5, "train/learning_rate": 3e-4})
    s += 1
    time.sleep(max(0.0, s / rate - (time.monotonic() - t0)))
run.finish()
"""


def run_file(rows: int) -> str:
    found = glob.glob(os.path.join(OUT, f"wandb_{rows}", "wandb", "*", "run-*.wandb"))
    if not found:
        raise SystemExit(f"no run file for {rows} rows: python bench/wandb_cost.py make --rows {rows}")
    return sorted(found)[-1]


def make(a) -> None:
    d = os.path.join(OUT, f"wandb_{a.rows}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(os.environ, WANDB_MODE="offline", WANDB_SILENT="true", WANDB_DIR=d)
    t = time.time()
    subprocess.run([sys.executable, "-c", MAKE, str(a.rows)], cwd=d, env=env, check=True)
    print(f"{run_file(a.rows)}: {os.path.getsize(run_file(a.rows)) / 2**20:.1f} MiB in {time.time() - t:.0f} s")


def child(mode: str, path: str) -> dict:
    p = subprocess.run(
        [sys.executable, os.path.join(HERE, "replay_child.py"), mode, path], capture_output=True, text=True, cwd=ROOT
    )
    if p.returncode != 0:
        raise SystemExit(f"{mode}: {p.stderr[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def replay(a) -> None:
    path = run_file(a.rows)
    modes = ["bare-wandb", "tsm"]
    try:
        import google.protobuf  # noqa: F401

        modes.insert(1, "bare-wandb-upb")
    except ImportError:
        print("(protobuf not installed: the upb loop is skipped)")
    best: dict[str, dict] = {}
    for _ in range(a.repeat):
        for m in modes:
            r = child(m, path)
            if m not in best or r["seconds"] < best[m]["seconds"]:
                best[m] = r
    floor = best["bare-wandb"]["seconds"]
    size = os.path.getsize(path) / 2**20
    print(f"{a.rows:,} rows, {size:.0f} MiB, best of {a.repeat}")
    print("| contender | s | rows/s | speed / floor | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for m in modes:
        r = best[m]
        print(
            f"| {m} | {r['seconds']:.2f} | {a.rows / r['seconds']:,.0f} | {floor / r['seconds']:.3f} | "
            f"{r['vmhwm_mib']:.0f} |"
        )


def memory(a) -> None:
    for rows in (int(x) for x in a.rows_list.split(",")):
        r = child("tsm", run_file(rows))
        print(f"{rows:,} rows: peak RSS {r['vmhwm_mib']:.0f} MiB, {r['seconds']:.2f} s")


def _cpu(pid: int) -> float:
    tck = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / tck  # utime, stime, cutime, cstime


def _tree_cpu(pid: int) -> float:
    """CPU of a process and its live descendants (a tmux pane's command and its children)."""
    total = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            total += _cpu(p)
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(x) for x in f.read().split()]
        except OSError:
            continue
    return total


def _pane_pid(server: str) -> int:
    out = subprocess.run(["tmux", "-L", server, "list-panes", "-F", "#{pane_pid}"], capture_output=True, text=True)
    return int(out.stdout.split()[0])


def live(a) -> None:
    tmp = tempfile.mkdtemp(prefix="tsm-wandb-live-")
    env = dict(os.environ, WANDB_MODE="offline", WANDB_SILENT="true", WANDB_DIR=tmp)
    writer = subprocess.Popen([sys.executable, "-c", LIVE, str(a.rate), str(a.seconds + 15)], cwd=tmp, env=env)
    jdir = os.path.join(tmp, "jsonl")
    os.makedirs(jdir)
    jwriter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import json,sys,time\nf=open(sys.argv[1],'a')\nt0=time.monotonic()\ns=0\n"
                "while time.monotonic()-t0<float(sys.argv[3]):\n"
                "    f.write(json.dumps({'step':s,'loss':2.0,'grad_norm':0.5,'lr':3e-4})+'\\n');f.flush();s+=1\n"
                "    time.sleep(max(0.0,s/float(sys.argv[2])-(time.monotonic()-t0)))\n"
            ),
            os.path.join(jdir, "metrics.jsonl"),
            str(a.rate),
            str(a.seconds + 15),
        ]
    )
    time.sleep(5)  # the run dir exists, the SDK is writing
    exe = os.path.join(os.path.dirname(sys.executable), "tsm-watch")
    procs: dict[str, int] = {}
    popen: list = []
    for name, argv in (
        ("--follow (W&B run file)", [exe, tmp + "/wandb", "--follow"]),
        ("--follow (JSON Lines)", [exe, jdir, "--follow"]),
    ):
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        popen.append(p)
        procs[name] = p.pid
    servers = []
    tuis = [("TUI 80x24 (W&B run file)", f"{exe} {tmp}/wandb")]
    wandb_bin = os.path.join(os.path.dirname(sys.executable), "wandb")
    if os.path.exists(wandb_bin) and subprocess.run([wandb_bin, "leet", "--help"], capture_output=True).returncode == 0:
        tuis.append(("wandb leet 80x24", f"{wandb_bin} leet {tmp}/wandb"))
    else:
        print("(wandb leet not available: skipped)")
    for i, (name, cmd) in enumerate(tuis):
        srv = f"tsmwb{os.getpid()}_{i}"
        subprocess.run(["tmux", "-L", srv, "new", "-d", "-x", "80", "-y", "24", cmd], check=True)
        servers.append(srv)
        time.sleep(1)
        procs[name] = _pane_pid(srv)
    time.sleep(5)  # start-up (history read, first paint) is not the steady cost
    c0 = {k: _tree_cpu(p) for k, p in procs.items()}
    t0 = time.monotonic()
    time.sleep(a.seconds)
    dt = time.monotonic() - t0
    c1 = {k: _tree_cpu(p) for k, p in procs.items()}
    print(f"CPU at {a.rate:g} rows/s over {dt:.0f} s (% of one core):")
    for k in procs:
        print(f"| {k} | {100 * (c1[k] - c0[k]) / dt:.2f}% |")
    for p in popen:
        p.terminate()
    for srv in servers:
        subprocess.run(["tmux", "-L", srv, "kill-server"], capture_output=True)
    writer.wait(60)
    jwriter.wait(60)
    shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["make", "replay", "memory", "live"])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rows-list", default="100000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rate", type=float, default=10)
    a = ap.parse_args()
    {"make": make, "replay": replay, "memory": memory, "live": live}[a.what](a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
