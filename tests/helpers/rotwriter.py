"""A training job's log under log rotation, for the tail-integrity tests (issue 33).

    python tests/helpers/rotwriter.py PATH --mode MODE --rate R --n N [--every E] [--burst B] [--keep K] [--seed S]

Appends N JSON Lines records (``step``, ``loss``, ``grad_norm``, ``lr``; the loss is
NaN at every ``NAN_EVERY``-th step) at R records a second, through one ``O_APPEND``
descriptor as a job's logger holds it, in writes of random sizes that split lines.
Every E records (the first time after ``--first``) a *burst* of B rotations follows, a few records apart with no pause
(so that several generations fall between two passes of a tailer):

- ``copytruncate`` (logrotate's ``copytruncate``): older copies shifted
  (``x.1`` -> ``x.2`` ...), the file copied to ``x.1``, then truncated; the writer
  keeps appending through its descriptor. The copy is taken at any byte, in the
  middle of a line too (its rest lands in the truncated file), but never while
  the writer is in the middle of a write: logrotate's own copy-then-truncate
  window, where a write between the two is lost by logrotate itself, is not
  what is tested;
- ``chain`` (logrotate's default ``create``, Python's ``RotatingFileHandler``):
  ``x.N`` -> ``x.N+1`` ... ``x`` -> ``x.1``, and a new ``x`` opened;
- ``replace``: the whole file written to ``x.tmp`` with the next records, then
  ``os.replace`` over ``x`` (an atomic rewrite), and appends go on in the new file;
- ``mixed``: the three in turn.

Generations past ``--keep`` are deleted (default: kept, so that every record
stays on disk and a lost one is the reader's fault). Prints ``DONE N ROTATIONS``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sys
import time

NAN_EVERY = 10
HERE = os.path.abspath(__file__)


def record(step: int) -> bytes:
    loss = float("nan") if step % NAN_EVERY == 0 else 2.0 + 6.0 * math.exp(-step / 3000)
    d = {"step": step, "loss": loss, "grad_norm": 0.4 + 0.01 * math.cos(step), "lr": 3e-4}
    return (json.dumps(d) + "\n").encode()


def nan_steps(n: int) -> int:
    """How many records of 1..n carry a NaN loss."""
    return n // NAN_EVERY


class Writer:
    def __init__(self, path: str, keep: int, rng: random.Random) -> None:
        self.path, self.keep, self.rng = path, keep, rng
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self.rotations = 0

    def write(self, data: bytes) -> None:
        """One or a few writes of random sizes (lines split across writes)."""
        while data:
            k = min(len(data), self.rng.randint(1, 4096)) if self.rng.random() < 0.5 else len(data)
            os.write(self.fd, data[:k])
            data = data[k:]

    def _shift(self) -> None:
        n = 1
        while os.path.exists(f"{self.path}.{n}"):
            n += 1
        for k in range(n - 1, 0, -1):
            if k + 1 > self.keep:
                os.unlink(f"{self.path}.{k}")
            else:
                os.rename(f"{self.path}.{k}", f"{self.path}.{k + 1}")

    def _reopen(self) -> None:
        os.close(self.fd)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def rotate(self, kind: str, nxt: list[bytes]) -> int:
        """One rotation; ``replace`` writes ``nxt`` (the next records) into the new file
        itself. Returns how many of ``nxt`` were written."""
        self.rotations += 1
        if kind == "copytruncate":
            self._shift()
            shutil.copyfile(self.path, f"{self.path}.1")
            os.ftruncate(self.fd, 0)
            return 0
        if kind == "chain":
            self._shift()
            os.rename(self.path, f"{self.path}.1")
            self._reopen()
            return 0
        tmp = f"{self.path}.tmp"
        with open(self.path, "rb") as f:
            old = f.read()
        with open(tmp, "wb") as f:
            f.write(old + b"".join(nxt))
        os.replace(tmp, self.path)
        self._reopen()
        return len(nxt)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--mode", choices=("copytruncate", "chain", "replace", "mixed"), default="mixed")
    ap.add_argument("--rate", type=float, default=2000.0)
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--burst", type=int, default=4)
    ap.add_argument("--keep", type=int, default=10**6)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--first",
        type=int,
        default=None,
        help="records before the first burst (default --every): a reader that starts with the "
        "writer finds the log before it rotates",
    )
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    w = Writer(a.path, a.keep, rng)
    kinds = ("copytruncate", "chain", "replace")
    burst_no = 0
    s = 1
    t0 = time.monotonic()
    next_burst = a.every if a.first is None else a.first
    while s <= a.n:
        due = min(a.n, int((time.monotonic() - t0) * a.rate) + 1)
        if s > due:
            time.sleep(0.002)
            continue
        hi = min(due, next_burst)
        w.write(b"".join(record(x) for x in range(s, hi + 1)))
        s = hi + 1
        if s > next_burst and s <= a.n:
            kind = a.mode if a.mode != "mixed" else kinds[burst_no % 3]
            burst_no += 1
            for _ in range(a.burst):
                if s > a.n:
                    break
                # a few records between two rotations of the burst, written at once
                k = rng.randint(1, 8)
                batch = [record(x) for x in range(s, min(a.n, s + k - 1) + 1)]
                if kind == "copytruncate" and batch and rng.random() < 0.5:
                    # the copy is taken in the middle of a line: its rest goes to the new file
                    last = batch.pop()
                    cut = rng.randint(1, len(last) - 1)
                    w.write(b"".join(batch) + last[:cut])
                    w.rotate(kind, [])
                    w.write(last[cut:])
                    s += len(batch) + 1
                    continue
                w.write(b"".join(batch))
                s += len(batch)
                nxt = [record(x) for x in range(s, min(a.n, s + rng.randint(0, 5) - 1) + 1)]
                s += w.rotate(kind, nxt)
            next_burst = s - 1 + a.every
    os.close(w.fd)
    sys.stdout.write(f"DONE {a.n} {w.rotations}\n")
    sys.stdout.flush()
    return 0


# ----------------------------------------------------------------------------- the readers under test
# (imported by tests/test_tail_integrity.py and bench/tail_rotation.py; the writer above
# needs nothing but the standard library)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))  # (tests/helpers/rotwriter.py)
WAIT_END = 30.0  # s after the writer is done for the reader to catch up (generous: a loaded box)


def start(
    path: str,
    mode: str,
    rate: float,
    n: int,
    every: int = 500,
    burst: int = 4,
    seed: int = 7,
    keep: int | None = None,
    first: int | None = None,
):
    """The writer; its first burst comes after half a second by default (the reader
    under test finds the log first: a log found in the middle of a burst is another
    case, see README "Rotation")."""
    import subprocess

    first = max(every, int(rate / 2)) if first is None else first
    args = [
        sys.executable,
        HERE,
        str(path),
        "--mode",
        mode,
        "--rate",
        str(rate),
        "--n",
        str(n),
        "--every",
        str(every),
        "--burst",
        str(burst),
        "--seed",
        str(seed),
        "--first",
        str(first),
    ]
    if keep is not None:
        args += ["--keep", str(keep)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True)


def tally(seen: list[int], n: int) -> dict:
    """Lost and duplicated steps of 1..n in what a reader delivered."""
    got = set(seen)
    lost = [s for s in range(1, n + 1) if s not in got]
    runs: list[list[int]] = []
    for s in lost:
        if runs and runs[-1][1] == s - 1:
            runs[-1][1] = s
        else:
            runs.append([s, s])
    return {
        "seen": len(seen),
        "lost": len(lost),
        "duplicated": len(seen) - len(got),
        "in_order": seen == sorted(seen),
        "lost_runs": runs[:5],
    }


def _finish(w, timeout: float) -> str:
    out = w.stdout.read()
    w.wait(timeout)
    return out


def through_tailer(d: str, mode: str, rate: float, n: int, **kw) -> dict:
    """A ``Tailer`` on the directory, driven and drained the way the live loop does it
    (its passes are made in this thread, inside ``wait``)."""
    import time

    from tsm_tui.core.frame import expand
    from tsm_tui.sources.tail import Tailer

    path = os.path.join(d, "train.log")
    open(path, "ab").close()
    t = Tailer(d)
    t.start()
    seen: dict[str, list[int]] = {}
    events: list[str] = []

    def pump() -> None:
        t.ready.clear()  # (before the drain, as LiveLoop does)
        for b in t.drain():
            seen.setdefault(b.source, []).extend(r.step for r in expand(b.records))
        events.extend(t.drain_notes())

    try:
        t.wait(5)
        w = start(path, mode, rate, n, **kw)
        while w.poll() is None:
            pump()
            t.wait(0.05)
        _finish(w, 5)
        end = time.monotonic() + WAIT_END
        while time.monotonic() < end and max(seen.get(path, [0]) or [0]) < n:
            pump()
            t.wait(0.02)
        quiet = time.monotonic() + 0.5  # anything late (a duplicate) would come now
        while time.monotonic() < quiet:
            pump()
            t.wait(0.02)
    finally:
        t.stop()
    steps = [s for v in seen.values() for s in v]
    return dict(tally(steps, n), sources=sorted(seen), events=events)


def through_loop(d: str, mode: str, rate: float, n: int, **kw) -> dict:
    """The live loop ``--follow`` and the TUI share (records as it takes them from the
    tailer, and the NaN records its Monitor counted)."""
    import time

    from helpers.wait import poll_until

    from tsm_tui.analysis.live import LiveLoop
    from tsm_tui.analysis.session import Session
    from tsm_tui.core.frame import expand
    from tsm_tui.sources.tail import Tailer

    path = os.path.join(d, "train.log")
    open(path, "ab").close()
    loop = LiveLoop(Session(), Tailer(d))
    loop.start()
    steps: list[int] = []
    events: list[str] = []

    def step() -> None:
        up = loop.step()
        for b in up.batches:
            steps.extend(r.step for r in expand(b.records))
        events.extend(up.notes)

    try:
        w = start(path, mode, rate, n, **kw)
        while w.poll() is None:
            step()
            loop.wait(0.05)
        _finish(w, 5)
        poll_until(lambda: (max(steps) if steps else 0) >= n, WAIT_END, every=0.05, tick=step, sleep=loop.wait)
        end = time.monotonic() + 1.0  # anything late (a duplicate) would come now
        while time.monotonic() < end:
            step()
            loop.wait(0.05)
        mon = loop.session.monitor
        bad = next((int(getattr(x, "bad", 0)) for x in mon.detectors if x.id == "nonfinite"), 0) if mon else 0
    finally:
        loop.stop()
    return dict(tally(steps, n), nonfinite=bad, events=events)


def prom_values(text: str) -> dict[str, float]:
    """metric name -> value of the exposition's samples (one run)."""
    out = {}
    for ln in text.splitlines():
        if ln and not ln.startswith("#"):
            name = ln.split("{", 1)[0].split(" ", 1)[0]
            out[name] = float(ln.rsplit(" ", 1)[1])
    return out


def through_follow(d: str, mode: str, rate: float, n: int, **kw) -> dict:
    """``tsm-watch DIR --follow --json --prom-file`` in a subprocess: the exported NaN
    count (every record delivered once counts once) and last step, and its events."""
    import json
    import time

    from helpers.proc import stop, tsm_watch
    from helpers.wait import poll_until

    path = os.path.join(d, "train.log")
    open(path, "ab").close()
    prom = os.path.join(os.path.dirname(d.rstrip(os.sep)), os.path.basename(d.rstrip(os.sep)) + ".prom")
    o = tsm_watch(d, "--follow", "--json", "--prom-file", prom, root=ROOT)
    p, out, err = o.p, o.out, o.err

    def values() -> dict[str, float]:
        try:
            with open(prom) as f:
                return prom_values(f.read())
        except OSError:
            return {}

    try:
        poll_until(lambda: any('"watching' in x for x in out), 20, alive=lambda: p.poll() is None)
        time.sleep(0.3)  # the history (none) read, the watch in place
        w = start(path, mode, rate, n, **kw)
        _finish(w, 120)
        poll_until(lambda: values().get("tsm_last_step", 0) >= n, WAIT_END, every=0.1, alive=lambda: p.poll() is None)
        time.sleep(1.0)  # anything late (a duplicate); SIGTERM then writes the final state
    finally:
        rc = stop(o, timeout=20)
    v = values()
    objs = [json.loads(x) for x in out if x.startswith("{")]
    nan = int(v.get("tsm_nonfinite_total", v.get("tsm_nonfinite", -1)))
    expected = nan_steps(n)
    return {
        "rc": rc,
        "last_step": int(v.get("tsm_last_step", -1)),
        "nonfinite": nan,
        "lost_nan": max(0, expected - nan),
        "extra_nan": max(0, nan - expected),
        "resumes": [o for o in objs if o.get("check") == "resume"],
        "events": [o.get("message", "") for o in objs if o.get("event") == "source"],
        "stderr": err,
    }


# ----------------------------------------------------------------------------- interleavings
def interleave(seed: int, mode: str, n: int = 300, pass_p: float = 0.3) -> tuple[list[int], list[str]]:
    """One thread, every order: a writer's single operations (a write that may stop in
    the middle of a line; each rename of a shift; the first and second half of a
    copy; a truncation; a rename and a new file) with a tailer pass after any of them
    with probability ``pass_p`` (a ``Tailer`` driven by hand: ``_pass``). ``mode``:
    copytruncate, chain, or mixed (each rotation either). Returns the steps the
    tailer delivered and its notes."""
    import tempfile

    from tsm_tui.core.frame import expand
    from tsm_tui.sources.tail import Tailer, tailer

    rng = random.Random(seed)
    settle, tailer.CHANGE_SETTLE = tailer.CHANGE_SETTLE, 0.0  # (a pass's wait for a group of writes)
    d = tempfile.mkdtemp(prefix="tsm-interleave-")
    p = os.path.join(d, "train.log")
    fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, b"".join(record(s) for s in range(1, 21)))
    t = Tailer(d, poll=3600)
    steps: list[int] = []
    notes: list[str] = []

    def look() -> None:
        t._pass()
        for b in t.drain():
            steps.extend(r.step for r in expand(b.records))
        notes.extend(t.drain_notes())

    def maybe() -> None:
        if rng.random() < pass_p:
            look()

    try:
        look()
        s, pending = 21, b""
        while s <= n:
            hi = min(n, s + rng.randint(1, 30) - 1)
            data = pending + b"".join(record(x) for x in range(s, hi + 1))
            s = hi + 1
            cut = rng.randint(0, len(data)) if rng.random() < 0.3 and s <= n else len(data)
            os.write(fd, data[:cut])
            pending = data[cut:]
            maybe()
            if rng.random() >= 0.3:
                continue
            kind = mode if mode != "mixed" else rng.choice(("copytruncate", "chain"))
            m = 1
            while os.path.exists(f"{p}.{m}"):
                m += 1
            for k in range(m - 1, 0, -1):
                os.rename(f"{p}.{k}", f"{p}.{k + 1}")
                maybe()
            if kind == "copytruncate":
                with open(p, "rb") as src:
                    content = src.read()
                half = rng.randint(0, len(content))
                with open(p + ".1", "wb") as dst:
                    dst.write(content[:half])
                    dst.flush()
                    maybe()  # a pass while the copy is being written
                    dst.write(content[half:])
                maybe()
                os.ftruncate(fd, 0)
            else:
                os.write(fd, pending)  # a rename rotation comes between two records
                pending = b""
                os.rename(p, p + ".1")
                maybe()
                os.close(fd)
                fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            maybe()
        os.write(fd, pending)
        for _ in range(3):
            look()
    finally:
        tailer.CHANGE_SETTLE = settle
        os.close(fd)
        t._cleanup()
        shutil.rmtree(d, ignore_errors=True)
    return steps, notes


if __name__ == "__main__":
    raise SystemExit(main())
