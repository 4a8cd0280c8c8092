"""Where replay time goes, per record, for one JSONL file (process CPU time, best of 3):
the bare orjson loop, the reader alone, the Monitor with no-op detectors (the
pipeline's structural floor), each detector alone, and everything.

    python bench/floor.py [PATH]   (default: 200k lines of the generated 1M-step JSONL)
"""

from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from tsm_tui.detectors import DETECTORS, Detector  # noqa: E402
from tsm_tui.monitor import Monitor  # noqa: E402
from tsm_tui.sources import registry  # noqa: E402


class _Noop(Detector):
    def update(self, rec):
        return []


def best(fn, n=3) -> float:
    out = []
    for _ in range(n):
        t = time.process_time()
        fn()
        out.append(time.process_time() - t)
    return min(out)


def main() -> int:
    if len(sys.argv) > 1:
        path = sys.argv[1]
    else:
        import gen

        src = gen.generate("jsonl", 1_000_000)
        path = os.path.join(gen.OUT, "floor-200k.jsonl")
        if not os.path.exists(path):
            with open(src) as f, open(path, "w") as g:
                for i, ln in enumerate(f):
                    if i >= 200_000:
                        break
                    g.write(ln)
    try:
        from orjson import loads
    except ImportError:
        from json import loads
    import json

    def bare():
        with open(path, "rb") as f:
            for ln in f:
                loads(ln)

    def bare_json():
        with open(path, "rb") as f:
            for ln in f:
                json.loads(ln)

    recs: list = []

    def read():
        r, _ = registry.open_reader(path)
        recs[:] = list(registry.read_records(path, r))

    t_bare = best(bare)
    t_json = best(bare_json)
    t_read = best(read)
    n = len(recs)
    rows = [("bare loop: orjson.loads per line", t_bare), ("bare loop: json.loads per line", t_json),
            ("reader: lines -> StepRecords", t_read)]

    def mon(dets):
        def f():
            m = Monitor(detectors=dets)
            feed = m.feed
            for r in recs:
                feed(r)
        return f

    rows.append((f"Monitor, {len(DETECTORS)} no-op detectors", best(mon([_Noop] * len(DETECTORS)))))
    for D in DETECTORS:
        rows.append((f"Monitor + {D.__name__} only", best(mon([D]))))
    rows.append(("Monitor, all detectors", best(mon(None))))
    print(f"{n:,} records; us/record (process CPU time, best of 3); ratio = bare orjson loop / this\n")
    print("| stage | us/record | bare / this |")
    print("|---|---|---|")
    for name, t in rows:
        print(f"| {name} | {1e6 * t / n:.2f} | {t_bare / t:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
