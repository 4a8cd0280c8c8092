"""Big trees (issue 33 item 7): ``tsm-watch PATH --report --json`` on

- ``flat``: N small logs of distinct runs in one directory (the run clustering
  compared every pair: 1,000 files 6.4 s, 4,000 files 75 s, 20,000 over 300 s);
- ``dirs``: N one-run directories (20,000 took 634 MB);
- ``sparse``: a 1 GiB sparse ``trainer_state.json``: the JSON, then a hole (558 MB);
  ``sparse_head``: a hole, then the JSON.

    python bench/big_trees.py [--n 1000 4000 20000] [--cases flat dirs sparse] [--tree PATH]

Wall time, CPU time and peak RSS of the whole command (a fresh process, its own VmHWM via
``resource.getrusage(RUSAGE_CHILDREN)`` in a wrapper), the goal: linear time,
at most 300 MB. ``--tree``: another source tree (e.g. ``git archive`` of main).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.environ.get("TSM_BENCH_DIR", "/tmp/tsm-big-trees")


def _log(i: int, n_rec: int = 30) -> str:
    # distinct runs: every run's own level and slope (what a directory of many jobs' logs holds)
    return "".join(
        json.dumps({"step": s, "loss": round(5 - s * (0.01 + i * 1e-5) + i * 1e-3, 5), "lr": 1e-4}) + "\n"
        for s in range(1, n_rec + 1)
    )


def flat(n: int) -> str:
    d = os.path.join(OUT, f"flat{n}")
    if os.path.isdir(d) and len(os.listdir(d)) == n:
        return d
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        with open(os.path.join(d, f"run_{i:05d}.jsonl"), "w") as f:
            f.write(_log(i))
    return d


def dirs(n: int) -> str:
    d = os.path.join(OUT, f"dirs{n}")
    if os.path.isdir(d) and len(os.listdir(d)) == n:
        return d
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        os.makedirs(os.path.join(d, f"job_{i:05d}"), exist_ok=True)
        with open(os.path.join(d, f"job_{i:05d}", "metrics.jsonl"), "w") as f:
            f.write(_log(i))
    return d


def _state_json() -> bytes:
    hist = [{"step": s, "loss": 5 - s / 1000, "learning_rate": 1e-4, "grad_norm": 1.0} for s in range(1, 2001)]
    return json.dumps({"global_step": 2000, "max_steps": 2000, "log_history": hist}, indent=2).encode()


def sparse(_n: int) -> str:
    """The document, then a hole to 1 GiB (a file extended past its data): read 256 MiB deep
    and copied before (558 MB)."""
    d = os.path.join(OUT, "sparse")
    p = os.path.join(d, "trainer_state.json")
    if not os.path.isfile(p):
        os.makedirs(d, exist_ok=True)
        with open(p, "wb") as f:
            f.write(_state_json())
            f.truncate(1 << 30)
    return d


def sparse_head(_n: int) -> str:
    """A hole of 1 GiB, then the document."""
    d = os.path.join(OUT, "sparse_head")
    p = os.path.join(d, "trainer_state.json")
    if not os.path.isfile(p):
        os.makedirs(d, exist_ok=True)
        with open(p, "wb") as f:
            f.seek(1 << 30)
            f.write(_state_json())
    return d


CASES = {"flat": flat, "dirs": dirs, "sparse": sparse, "sparse_head": sparse_head}
WRAP = (
    "import resource, subprocess, sys, time; t = time.perf_counter(); "
    "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
    "dt = time.perf_counter() - t; r = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(p.returncode, round(dt, 2), round(r.ru_utime + r.ru_stime, 2), r.ru_maxrss // 1024, "
    "repr(p.stderr[-200:]))"
)


def measure(tree: str, path: str) -> tuple[int, float, float, int, str]:
    env = dict(os.environ, PYTHONPATH=tree, NO_COLOR="1")
    out = subprocess.run(
        [sys.executable, "-c", WRAP, sys.executable, "-m", "tsm_tui", path, "--report", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
        timeout=3600,
    ).stdout.split(" ", 4)
    return int(out[0]), float(out[1]), float(out[2]), int(out[3]), out[4].strip()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, nargs="+", default=[1000, 4000, 20000])
    ap.add_argument("--cases", nargs="+", default=list(CASES))
    ap.add_argument("--tree", default=ROOT)
    a = ap.parse_args()
    print(f"tree {a.tree}")
    print("| case | N | exit | wall s | CPU s | peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for case in a.cases:
        for n in a.n if not case.startswith("sparse") else [1]:
            path = CASES[case](n)
            rc, dt, cpu, mb, err = measure(a.tree, path)
            print(
                f"| {case} | {n} | {rc} | {dt:.1f} | {cpu:.1f} | {mb} |" + (f" {err}" if rc not in (0, 1) else ""),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
