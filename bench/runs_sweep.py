"""A sweep against one run: ``tsm-watch SWEEP --report`` on 50 runs holding
1M records in all, against one 1M-record JSONL file (issue: at most 1.5x).

    python bench/runs_sweep.py [--runs 50] [--records 1000000] [--rounds 3]

Wall time and peak RSS of the whole command (fresh interpreter each round,
median of the rounds), run in a subprocess so the numbers are what a user sees.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sweep_dir(runs: int, total: int) -> str:
    d = os.path.join(gen.OUT, f"sweep-{runs}x{total // runs}")
    if os.path.isdir(d) and len(os.listdir(d)) == runs:
        return d
    os.makedirs(d, exist_ok=True)
    n = total // runs
    for i in range(runs):
        rd = os.path.join(d, f"run_{i:03d}")
        os.makedirs(rd, exist_ok=True)
        with open(os.path.join(rd, "metrics.jsonl"), "w") as f:
            f.write("".join(f'{{"step": {s}, "loss": {loss:.6f}, "grad_norm": {gn:.6f}, "lr": {lr:.6e}}}\n'
                            for s, loss, gn, lr in gen.curve(n, seed=i + 1)))
    return d


def timed(path: str) -> tuple[float, float]:
    code = ("import resource, sys, time; t = time.perf_counter(); from tsm_tui.cli import main; "
            "rc = main([sys.argv[1], '--report']); "
            "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    secs, rss = p.stderr.strip().splitlines()[-1].split()
    return float(secs), float(rss) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    one = os.path.dirname(gen.write_jsonl(a.records))
    sweep = sweep_dir(a.runs, a.records)
    rows = {}
    for name, path in (("one run", one), (f"{a.runs}-run sweep", sweep)):
        res = [timed(path) for _ in range(a.rounds)]
        rows[name] = (statistics.median(r[0] for r in res), max(r[1] for r in res))
        print(f"{name:>16}: {rows[name][0]:.2f} s, peak RSS {rows[name][1]:.0f} MiB ({a.rounds} rounds)")
    ratio = rows[f"{a.runs}-run sweep"][0] / rows["one run"][0]
    print(f"sweep / one run: {ratio:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
