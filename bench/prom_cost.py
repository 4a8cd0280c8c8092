"""CPU cost of the Prometheus export beside a job (bench/RESULTS.md section 4b).

    python bench/prom_cost.py [--seconds 20]

The method of ``bench/run.py cpu``: a writer process appends JSONL at 10 and
100 steps/s to a run with a 2000-step history; ``tsm-watch --follow --json``
runs beside it, plain, with ``--prom-file``, with ``--metrics-port`` (scraped
every second, 15x more often than Prometheus' default) and with both; the
follower's CPU time (user + system, /proc) over the window is the figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as bench  # noqa: E402  (the cpu section's writer and /proc readers)

ROOT = bench.ROOT


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(rate: float, variant: str, seconds: float) -> tuple[float, int]:
    d, path = bench._run_dir(2000)
    out = tempfile.mkdtemp(prefix="tsm-prom-")
    args = [sys.executable, "-m", "tsm_tui", d, "--follow", "--json"]
    port = None
    if variant in ("file", "both"):
        args += ["--prom-file", os.path.join(out, "tsm.prom")]
    if variant in ("port", "both"):
        port = _port()
        args += ["--metrics-port", str(port)]
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    stop = threading.Event()
    scrapes = [0]

    def scrape():
        while not stop.wait(1.0):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read()
                scrapes[0] += 1
            except OSError:
                pass

    t = threading.Thread(target=scrape, daemon=True) if port else None
    try:
        time.sleep(3.0)
        if t:
            t.start()
        cpu, _rss = bench._measure(p.pid, path, rate, seconds, 2000)
    finally:
        stop.set()
        p.terminate()
        p.wait(10)
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
    return cpu, scrapes[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    print(f"load before: {bench.load()}")
    print("| steps/s | variant | CPU (% of one core), per round | scrapes |")
    print("|---|---|---|---|")
    for rate in (10, 100):
        res: dict[str, list] = {}
        for _ in range(a.rounds):  # interleaved: the machine's load drifts
            for v in ("plain", "file", "port", "both"):
                res.setdefault(v, []).append(measure(rate, v, a.seconds))
        for v, rs in res.items():
            print(f"| {rate} | {v} | {' / '.join(f'{c:.2f} %' for c, _ in rs)} | {sum(s for _, s in rs)} |")
    print(f"load after: {bench.load()}")


if __name__ == "__main__":
    main()
