"""Tail integrity under rotation, and what it costs (issue 33).

    python bench/tail_rotation.py loss [--tree DIR] [--rates 2000,20000] [--modes copytruncate,chain,replace]
    python bench/tail_rotation.py cost --base DIR [--seconds 30] [--rounds 2] [--rates 0,10]

``loss``: a writer process (``tests/helpers/rotwriter.py``) appends JSON Lines at each rate,
with a burst of four rotations of one kind every 500 records (2,000/s, 4,000
records) or every 5,000 (20,000/s, 120,000 records); the lost and duplicated steps
through the ``Tailer``, through the live loop and through ``tsm-watch --follow
--json --prom-file`` in a subprocess (NaN records the exporter counted, against the
writer's). ``--tree DIR``: another checkout of the project (say the tree before a
change), the same writer and harness.

``cost``: ``tsm-watch DIR --follow --json`` of this tree and of ``--base DIR``
side by side on the same file while a writer appends one record at a time at each
rate (no rotation: the everyday case), CPU of one core from the scheduler's own
count (``/proc/<pid>/task/*/schedstat``), the two started in swapped order each
round.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from tui_cost import exec_of  # noqa: E402  (CPU from the scheduler's own count)


def loss(a) -> None:
    tree = os.path.abspath(a.tree or ROOT)
    # the harness of this tree, run against ``tree`` (its tests/helpers/rotwriter.py may not exist)
    code = f"""
import json, os, sys, tempfile
sys.path[:0] = [{tree!r}, {os.path.join(ROOT, "tests")!r}]
from helpers import rotwriter as rw
rw.ROOT = {tree!r}
how, mode, rate, n, every = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
d = os.path.join(tempfile.mkdtemp(prefix="tsm-rot-"), "run")
os.mkdir(d)
r = {{"tailer": rw.through_tailer, "loop": rw.through_loop, "follow": rw.through_follow}}[how](d, mode, rate, n,
                                                                                           every=every)
r.pop("events", None); r.pop("stderr", None); r.pop("sources", None)
print(json.dumps(r))
"""
    print(f"tree: {tree}\n")
    print("| rate | rotation | through | records | lost | duplicated | NaN records counted (of) |")
    print("|---|---|---|---|---|---|---|")
    for rate in a.rates:
        n, every = (4000, 500) if rate <= 2000 else (120_000, 5000)
        for mode in a.modes:
            for how in ("tailer", "loop", "follow"):
                p = subprocess.run(
                    [sys.executable, "-c", code, how, mode, str(rate), str(n), str(every)],
                    capture_output=True,
                    text=True,
                    cwd=tree,
                )
                try:
                    r = json.loads(p.stdout.strip().splitlines()[-1])
                except (IndexError, ValueError):
                    print(f"| {rate:g}/s | {mode} | {how} | failed: {p.stderr.strip()[-200:]} | | | |")
                    continue
                if how == "follow":
                    nan = f"{r['nonfinite']} ({n // 10})"
                    print(
                        f"| {rate:g}/s | {mode} | `--follow --json` | {n:,} | {r['lost_nan']} NaN | "
                        f"{r['extra_nan']} NaN | {nan} |",
                        flush=True,
                    )
                else:
                    nan = f"{r['nonfinite']} ({n // 10})" if "nonfinite" in r else ""
                    print(
                        f"| {rate:g}/s | {mode} | {how} | {n:,} | {r['lost']:,} | {r['duplicated']:,} | {nan} |",
                        flush=True,
                    )


WRITER = r"""
import json, math, sys, time
path, rate, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
f = open(path, "a")
t0 = time.monotonic(); n = 0; step = 2000
while time.monotonic() - t0 < seconds:
    if rate <= 0:
        time.sleep(0.5); continue
    step += 1; n += 1
    f.write(json.dumps({"step": step, "loss": 2.0 + math.exp(-step / 3000), "grad_norm": 0.5, "lr": 3e-4}) + "\n")
    f.flush()
    time.sleep(max(0.0, n / rate - (time.monotonic() - t0)))
"""


def cost(a) -> None:
    trees = {"before (--base)": os.path.abspath(a.base), "after (this tree)": ROOT}
    res: dict = {k: {r: [] for r in a.rates} for k in trees}
    for rnd in range(a.rounds):
        for rate in a.rates:
            d = tempfile.mkdtemp(prefix="tsm-cost-")
            path = os.path.join(d, "metrics.jsonl")
            with open(path, "w") as f:
                for s in range(1, 2001):
                    f.write(json.dumps({"step": s, "loss": 2.0 + 1 / s, "grad_norm": 0.5, "lr": 3e-4}) + "\n")
            order = list(trees.items()) if rnd % 2 == 0 else list(reversed(trees.items()))
            procs = {}
            try:
                for name, tree in order:
                    procs[name] = subprocess.Popen(
                        [sys.executable, "-m", "tsm_tui", d, "--follow", "--json"],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        cwd=tree,
                        env=dict(os.environ, PYTHONPATH=tree, NO_COLOR="1"),
                    )
                time.sleep(4.0)  # start-up and the history
                w = subprocess.Popen([sys.executable, "-c", WRITER, path, str(rate), str(a.seconds + 4)])
                time.sleep(2.0)
                c0 = {k: exec_of(p.pid) for k, p in procs.items()}
                t0 = time.monotonic()
                time.sleep(a.seconds)
                t1 = time.monotonic()
                for k, p in procs.items():
                    res[k][rate].append(100 * (exec_of(p.pid) - c0[k]) / (t1 - t0))
                w.wait()
            finally:
                for p in procs.values():
                    p.terminate()
                    p.wait(10)
                shutil.rmtree(d, ignore_errors=True)
            print(
                f"round {rnd + 1}, {rate:g} steps/s: " + ", ".join(f"{k} {v[rate][-1]:.2f}%" for k, v in res.items()),
                flush=True,
            )
    print(
        f"\n`--follow --json`, CPU (% of one core) over {a.seconds:g} s per round, both trees in the same "
        f"window; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n"
    )
    print("| tree | " + " | ".join(f"{r:g} steps/s" for r in a.rates) + " |")
    print("|---|" + "---|" * len(a.rates))
    for k, v in res.items():
        print(f"| {k} | " + " | ".join(" / ".join(f"{x:.2f}%" for x in v[r]) for r in a.rates) + " |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["loss", "cost"])
    ap.add_argument("--tree")
    ap.add_argument("--base")
    ap.add_argument("--rates", default=None)
    ap.add_argument("--modes", default="copytruncate,chain,replace")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    a.modes = a.modes.split(",")
    if a.what == "loss":
        a.rates = [float(x) for x in (a.rates or "2000,20000").split(",")]
        loss(a)
    else:
        if not a.base:
            raise SystemExit("cost needs --base DIR: the tree to compare with (git worktree add /tmp/base main)")
        a.rates = [float(x) for x in (a.rates or "0,10").split(",")]
        cost(a)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
