"""A sweep against one run: ``tsm-watch SWEEP --report`` on 50 runs holding
1M records in all, against one 1M-record JSONL file (issue: at most 1.5x).

    python bench/runs_sweep.py [--runs 50] [--records 1000000] [--rounds 3]
    python bench/runs_sweep.py --idle [--seconds 30]   # the TUI idle: runs screen vs one run's dashboard
    python bench/runs_sweep.py --phases                # where the time goes, in one process

Wall time and peak RSS of the whole command (fresh interpreter each round,
median of the rounds), run in a subprocess so the numbers are what a user sees.
``--idle``: CPU (% of one core) of ``tsm-watch PATH`` at 80x24 in tmux, nothing
being written, on the runs screen of a 50-run sweep and on one run's dashboard
(the issue: the runs screen idles no higher than one run's dashboard).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sweep_dir(runs: int, total: int, spikes: int | None = None) -> str:
    """``runs`` runs of ``total // runs`` records; ``spikes``: loss spikes in all, spread
    over the first runs (None: gen.curve's 5 in every run, 50x one run's incidents)."""
    d = os.path.join(gen.OUT, f"sweep-{runs}x{total // runs}" + ("" if spikes is None else f"-{spikes}spikes"))
    if os.path.isdir(d) and len(os.listdir(d)) == runs:
        return d
    os.makedirs(d, exist_ok=True)
    n = total // runs
    for i in range(runs):
        rd = os.path.join(d, f"run_{i:03d}")
        os.makedirs(rd, exist_ok=True)
        with open(os.path.join(rd, "metrics.jsonl"), "w") as f:
            f.write(
                "".join(
                    f'{{"step": {s}, "loss": {loss:.6f}, "grad_norm": {gn:.6f}, "lr": {lr:.6e}}}\n'
                    for s, loss, gn, lr in gen.curve(n, seed=i + 1, spikes=5 if spikes is None else int(i < spikes))
                )
            )
    return d


def timed(path: str) -> tuple[float, float]:
    code = (
        "import resource, sys, time; t = time.perf_counter(); from tsm_tui.cli import main; "
        "rc = main([sys.argv[1], '--report']); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, path], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT)
    )
    secs, rss = p.stderr.strip().splitlines()[-1].split()
    return float(secs), float(rss) / 1024


def idle(a) -> None:
    import shutil

    import tui_cost

    if not shutil.which("tmux"):
        raise SystemExit("tmux is needed (a real pty)")
    sweep = sweep_dir(a.runs, a.runs * 2000)
    one = os.path.join(sweep, "run_000")
    res = {}
    for name, path in (("one run's dashboard", one), (f"runs screen, {a.runs} runs", sweep)):
        pane = tui_cost.Pane(name.split()[0].strip("'"), f"{sys.executable} -m tsm_tui {path} --no-bell", (80, 24))
        try:
            time.sleep(8.0)  # start-up and the history
            c0, e0, t0 = tui_cost.cpu_of(pane.pid), tui_cost.exec_of(pane.pid), time.monotonic()
            time.sleep(a.seconds)
            dt = time.monotonic() - t0
            res[name] = (
                100 * (tui_cost.cpu_of(pane.pid) - c0) / dt,
                tui_cost.rss_of(pane.pid),
                100 * (tui_cost.exec_of(pane.pid) - e0) / dt,
            )
        finally:
            pane.close()
        print(
            f"{name:>26}: {res[name][0]:.2f}% of a core idle in clock ticks, {res[name][2]:.3f}% on CPU "
            f"(schedstat), RSS {res[name][1]:.0f} MiB ({a.seconds:g} s)",
            flush=True,
        )
    print(f"load {tui_cost.load()}")


PHASES = r"""
import sys, time
t0 = time.perf_counter()
from tsm_tui.analysis import replay, run_open
from tsm_tui.core.settings import Settings
from tsm_tui.views import report
t1 = time.perf_counter()
runs = run_open.open_runs(sys.argv[1])
t2 = time.perf_counter()
read = 0.0
orig = replay.reading.read_items
def timed(*a, **k):
    global read
    it = orig(*a, **k)
    while True:
        s = time.perf_counter()
        try:
            x = next(it)
        except StopIteration:
            read += time.perf_counter() - s
            return
        read += time.perf_counter() - s
        yield x
replay.reading.read_items = timed
res = [replay.analyze_run(r, Settings()) for r in runs]
t3 = time.perf_counter()
report.text_runs_report(res, sys.argv[1]) if len(res) > 1 else report.text_report(res[0])
t4 = time.perf_counter()
print(f"imports {t1 - t0:.3f} s, open {t2 - t1:.3f} s, read {read:.3f} s, detectors and the rest "
      f"{t3 - t2 - read:.3f} s, report {t4 - t3:.3f} s, total {t4 - t0:.3f} s")
"""


def phases(a) -> None:
    one = os.path.dirname(gen.write_jsonl(a.records))
    sweep = sweep_dir(a.runs, a.records)
    for name, path in (("one run", one), (f"{a.runs}-run sweep", sweep)):
        for _ in range(a.rounds):
            p = subprocess.run(
                [sys.executable, "-c", PHASES, path],
                capture_output=True,
                text=True,
                env=dict(os.environ, PYTHONPATH=ROOT),
            )
            print(f"{name:>16}: {p.stdout.strip() or p.stderr.strip()[-300:]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--idle", action="store_true")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--phases", action="store_true")
    a = ap.parse_args()
    if a.idle:
        idle(a)
        return
    if a.phases:
        phases(a)
        return
    # the one run has gen.curve's 5 loss spikes; the first sweep the same 5 in all (the same
    # data, split into runs: what the split costs), the second 5 in every run (250 incidents,
    # each judged record by record: what the incidents cost)
    paths = {
        "one run (5 spikes)": os.path.dirname(gen.write_jsonl(a.records)),
        f"{a.runs}-run sweep, 5 spikes in all": sweep_dir(a.runs, a.records, spikes=5),
        f"{a.runs}-run sweep, 5 spikes per run": sweep_dir(a.runs, a.records),
    }
    rows = {}
    for _ in range(a.rounds):  # interleaved: a load change hits every row alike
        for name, path in paths.items():
            rows.setdefault(name, []).append(timed(path))
    one = statistics.median(r[0] for r in rows["one run (5 spikes)"])
    for name, res in rows.items():
        t = statistics.median(r[0] for r in res)
        print(
            f"{name:>36}: {t:.2f} s, peak RSS {max(r[1] for r in res):.0f} MiB, {t / one:.2f}x one run "
            f"({a.rounds} rounds)"
        )
    print("goal: a sweep <= 1.5x one run")


if __name__ == "__main__":
    main()
