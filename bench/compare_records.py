"""Behaviour guard for reader edits: a digest of every record (all fields) and of
the skip counts each reader produces, per file, from two source trees.

    python bench/compare_records.py /tmp/tsm-base /work/main [files ...]
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys

CHILD = r"""
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from tsm_tui.sources import reading, registry
for p in sys.argv[2:]:
    h = hashlib.sha1()
    try:
        r, fi = registry.open_reader(p)
        if r is not None:
            for rec in reading.read_records(p, r):
                h.update(repr([getattr(rec, f) for f in rec.__slots__]).encode())
            h.update(repr((r.records, r.skipped, sorted(r.skip_reasons.items()), sorted(r.run_info.items(), key=str),
                           getattr(r, "other_lines", None))).encode())
        print(p, fi.format, h.hexdigest())
    except Exception as e:
        print(p, "ERROR", type(e).__name__, e)
"""


def main() -> int:
    a, b, *files = sys.argv[1:]
    if not files:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        files = [
            p
            for pat in ("/work/shared/real_logs/**/*", f"{root}/tests/data/**/*", f"{root}/sample_runs/**/*")
            for p in glob.glob(pat, recursive=True)
            if os.path.isfile(p)
        ]
    outs = [
        subprocess.run([sys.executable, "-c", CHILD, t, *files], capture_output=True, text=True).stdout for t in (a, b)
    ]
    la, lb = outs[0].splitlines(), outs[1].splitlines()
    bad = [(x, y) for x, y in zip(la, lb) if x != y]
    for x, y in bad:
        print("DIFF\n  ", x, "\n  ", y)
    print(
        f"{len(la) - len(bad)}/{len(la)} files give identical records"
        + ("" if len(la) == len(lb) else " (LENGTHS DIFFER)")
    )
    return 1 if bad or len(la) != len(lb) else 0


if __name__ == "__main__":
    sys.exit(main())
