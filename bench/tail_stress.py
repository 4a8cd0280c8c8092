"""Tailer stress test at full size: a writer process appends N records (default
200k) in random chunk sizes that split lines, with a truncation, a rotation and
an atomic replace (same content + new records) in between, while the Tailer
runs. Checks that the records seen equal the records written, exactly once, in
order, and prints records/s.

    python bench/tail_stress.py [-n 200000] [--poll 0.25] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tsm_tui.core.frame import Frame  # noqa: E402
from tsm_tui.sources.tail import Tailer  # noqa: E402

# the same writer protocol as tests/sources/test_tail.py (kept in sync by hand)
WRITER = r"""
import json, os, random, sys, time
path, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = os.path.dirname(path)
rng = random.Random(seed)
marks = {n // 4: "truncate", n // 2: "rotate", (3 * n) // 4: "replace"}
f = open(path, "ab", buffering=0)
buf = bytearray()
def line(s):
    pad = "x" * rng.randint(0, 120)
    return (json.dumps({"step": s, "loss": 2.0 + (s % 97) / 100.0, "pad": pad}) + "\n").encode()
def push(data, final=False):
    global buf
    buf += data
    while len(buf) > (0 if final else 4096):
        k = min(len(buf), rng.randint(1, 3000))
        f.write(bytes(buf[:k]))
        del buf[:k]
        if rng.random() < 0.02:
            time.sleep(0.002)
s = 1
t0 = time.time()
while s <= n:
    what = marks.get(s)
    if what:
        push(b"", final=True)
        if what == "truncate":
            sys.stdout.write(f"SYNC {s - 1}\n"); sys.stdout.flush()
            sys.stdin.readline()
            f.truncate(0)
            f.close()
            f = open(path, "ab", buffering=0)
        elif what == "rotate":
            f.close()
            os.rename(path, path + ".1")
            f = open(path, "ab", buffering=0)
        elif what == "replace":
            f.close()
            old = open(path, "rb").read()
            tmp = os.path.join(d, "train.log.tmp")
            with open(tmp, "wb") as t:
                t.write(old)
                for _ in range(10):
                    t.write(line(s))
                    s += 1
            os.replace(tmp, path)
            f = open(path, "ab", buffering=0)
            continue
    push(line(s))
    s += 1
push(b"", final=True)
f.close()
sys.stdout.write(f"DONE {time.time() - t0:.3f}\n"); sys.stdout.flush()
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=200_000)
    ap.add_argument("--poll", type=float, default=None)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="tsm-stress-")
    path = os.path.join(d, "train.log")
    open(path, "w").close()
    t = Tailer(d, poll=a.poll, interval=1.0)
    t.start_thread()
    t0 = time.monotonic()
    w = subprocess.Popen(
        [sys.executable, "-c", WRITER, path, str(a.n), str(a.seed)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    threading.Thread(target=lambda: [lines.append(x) for x in w.stdout], daemon=True).start()
    seen: list[int] = []
    sources: set[str] = set()
    answered = False
    done_at = None
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        for b in t.drain():
            sources.add(b.source)
            seen.extend(r.step for r in b.records)
        sync = next((x for x in lines if x.startswith("SYNC")), None)
        if sync and not answered and seen and seen[-1] >= int(sync.split()[1]):
            w.stdin.write("go\n")
            w.stdin.flush()
            answered = True
        if seen and seen[-1] == a.n and any(x.startswith("DONE") for x in lines):
            done_at = time.monotonic()
            break
        time.sleep(0.01)
    time.sleep(1.0)  # anything late (duplicates) would show up here
    for b in t.drain():
        seen.extend(r.step for r in b.records)
    notes = t.drain_notes()
    t.stop()
    w.wait()
    wrote = next((float(x.split()[1]) for x in lines if x.startswith("DONE")), None)
    exact = seen == list(range(1, a.n + 1)) and sources == {path}
    el = (done_at or time.monotonic()) - t0
    mode = t.mode + (f" {a.poll:g}s" if a.poll else "")
    print(f"mode: {mode}")
    print(f"records written: {a.n}, seen: {len(seen)}, distinct: {len(set(seen))}, sources: {len(sources)}")
    print(f"exactly once, in order: {exact}")
    print(f"writer time: {wrote} s; tailer done after {el:.2f} s -> {len(seen) / el:,.0f} records/s end to end")
    print(f"bytes read: {t.read_bytes:,}; notes: {notes}")
    rate = backlog_rate(a.n, a.poll)
    print(f"backlog (a finished {a.n}-record file read by a fresh Tailer): {rate:,.0f} records/s")
    return 0 if exact else 1


def backlog_rate(n: int, poll: float | None) -> float:
    import json

    d = tempfile.mkdtemp(prefix="tsm-backlog-")
    path = os.path.join(d, "train.jsonl")
    with open(path, "w") as f:
        for s in range(1, n + 1):
            f.write(json.dumps({"step": s, "loss": 2.0 + (s % 97) / 100.0, "grad_norm": 0.5, "lr": 3e-4}) + "\n")
    t = Tailer(d, poll=poll)
    t0 = time.monotonic()
    t.start_thread()
    got = 0
    while got < n and time.monotonic() - t0 < 300:
        for b in t.drain():
            got += sum(r.n if type(r) is Frame else 1 for r in b.records)  # (a Frame is many rows)
        time.sleep(0.005)
    el = time.monotonic() - t0
    t.stop()
    return got / el


if __name__ == "__main__":
    sys.exit(main())
