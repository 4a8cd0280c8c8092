"""Cost of finding and sniffing a run directory of many small files (issue 16: deeper
sniffing must not slow this down). Makes N small text logs (mixed formats, plus some
files with nothing recognisable), then times the sniffing of
every file: ``registry.open_reader`` on each, as open_run does; open_run itself stops
at MAX_FILES) in a child process per tree, median of R rounds.

    python bench/sniff_dir.py /tmp/base-tree /work/main [--files 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import os, sys, time
sys.path.insert(0, sys.argv[1])
from tsm_tui.sources import registry
paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(sys.argv[2]) for f in fs)
t = time.perf_counter()
found = sum(1 for p in paths if registry.open_reader(p)[0] is not None)
print(time.perf_counter() - t, found)
"""


def make(root: str, n: int) -> None:
    for i in range(n):
        d = os.path.join(root, f"run{i // 100:03d}")
        os.makedirs(d, exist_ok=True)
        k = i % 5
        p = os.path.join(d, f"f{i}.{['jsonl', 'log', 'txt', 'csv', 'log'][k]}")
        with open(p, "w") as f:
            if k == 0:
                f.writelines(json.dumps({"step": s, "loss": 2.0}) + "\n" for s in range(20))
            elif k == 1:
                f.writelines(f"iter {s}: loss 2.{s:03d}, time 10.0ms, mfu 1.00%\n" for s in range(20))
            elif k == 2:
                f.write("nothing to see here\n" * 40)  # not a log: sniffed and passed over
            elif k == 3:
                f.write("step,loss\n" + "".join(f"{s},2.0\n" for s in range(20)))
            else:
                f.write("+ export X=1\n" * 30 + "".join(f"step {s} | loss: 2.0\n" for s in range(10)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as root:
        make(root, a.files)
        for tree in a.trees:
            times, found = [], None
            for _ in range(a.rounds):
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, tree, root], capture_output=True, text=True, check=True
                ).stdout.split()
                times.append(float(out[0]))
                found = out[1]
            print(
                f"{tree}: {a.files} files, {found} readable, sniffing median {statistics.median(times):.3f} s "
                f"(min {min(times):.3f}, max {max(times):.3f}, {a.rounds} rounds)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
