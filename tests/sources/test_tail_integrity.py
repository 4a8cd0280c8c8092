"""Tail integrity under log rotation (issue 33): a real writer process appends JSON
Lines at a given rate while logrotate-style copytruncate, rename chains of several
generations between two passes, and atomic replaces happen; every step must come
out exactly once, through the tailer, through the live loop ``--follow`` and the
TUI share, and through ``tsm-watch --follow --json`` in a subprocess (its exported
NaN count: each of the writer's NaN records counted once, none twice; no resume).

The default runs take a few seconds at 2,000 records/s (one burst of each kind);
``TSM_TAIL_HEAVY=1`` adds each kind on its own at 2,000 records/s and the 20,000
records/s runs (120,000 records each, ~10 s apiece). The writer and the
three consumers are in ``tests/helpers/rotwriter.py`` (``bench/tail_rotation.py`` prints
the same counts as a table).
"""

from __future__ import annotations

import os
import shutil

import pytest

from helpers import rotwriter as rw

HEAVY = pytest.mark.skipif(
    not os.environ.get("TSM_TAIL_HEAVY"), reason="20,000 records/s runs (~10 s each): TSM_TAIL_HEAVY=1"
)
MODES = ("copytruncate", "chain", "replace")


def run_dir(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    return str(d)


def exact(r: dict, n: int) -> None:
    assert (r["lost"], r["duplicated"]) == (0, 0), {k: v for k, v in r.items() if k != "events"}
    assert r["seen"] == n and r["in_order"]


@pytest.mark.parametrize("mode", ["mixed", *(pytest.param(m, marks=HEAVY) for m in MODES)])
@pytest.mark.slow
def test_tailer_every_step_once_under_rotation(tmp_path, mode):
    """``mixed``: a burst of four copytruncates, then four renames, then four replaces,
    0.3 s apart (one scheme at a time: README "Rotation")."""
    n = 2800
    r = rw.through_tailer(run_dir(tmp_path), mode, 2000, n, every=600, burst=4)
    exact(r, n)
    assert r["sources"] == [os.path.join(str(tmp_path), "run", "train.log")]  # no generation followed alone
    text = " ".join(r["events"])
    if mode in ("copytruncate", "mixed"):
        assert "truncated after a copy (copytruncate)" in text
    if mode in ("chain", "mixed"):
        assert "rotated" in text
    if mode in ("replace", "mixed"):
        assert "replaced" in text


@pytest.mark.slow
def test_live_loop_every_step_once_under_rotation(tmp_path):
    n = 2800
    r = rw.through_loop(run_dir(tmp_path), "mixed", 2000, n, every=600, burst=4)
    exact(r, n)
    assert r["nonfinite"] == rw.nan_steps(n)


@pytest.mark.slow
def test_follow_json_every_nan_record_counted_once_under_rotation(tmp_path):
    n = 2800
    r = rw.through_follow(run_dir(tmp_path), "mixed", 2000, n, every=600, burst=4)
    assert r["rc"] == 0, r["stderr"]
    assert (r["last_step"], r["nonfinite"]) == (n, rw.nan_steps(n)), r
    assert not r["resumes"], r["resumes"]  # a record delivered twice comes back as a resume
    assert not any("Traceback" in x for x in r["stderr"])


def test_copytruncate_cutting_lines_and_several_copies_between_two_passes(tmp_path):
    """Deterministic: the tailer polls once an hour and is woken by hand, so two
    copytruncates (each cutting a line in two) happen between two of its passes."""
    import time

    from tsm_tui.core.frame import expand
    from tsm_tui.sources.tail import Tailer

    d = run_dir(tmp_path)
    p = os.path.join(d, "train.log")
    fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, b"".join(rw.record(s) for s in range(1, 11)))
    t = Tailer(d, poll=3600)
    t.start_thread()
    steps: list[int] = []
    notes: list[str] = []

    def look(n):
        """A pass, then drain until ``n`` steps came, and 0.3 s more (a late duplicate)."""
        t.wake()
        end = time.monotonic() + 10
        quiet = None
        while time.monotonic() < end and (quiet is None or time.monotonic() < quiet):
            for b in t.drain():
                steps.extend(r.step for r in expand(b.records))
            notes.extend(t.drain_notes())
            if quiet is None and len(steps) >= n:
                quiet = time.monotonic() + 0.3
            time.sleep(0.02)

    def copytruncate():
        if os.path.exists(p + ".1"):
            os.rename(p + ".1", p + ".2")
        shutil.copyfile(p, p + ".1")
        os.ftruncate(fd, 0)

    try:
        look(10)
        r13, r15 = rw.record(13), rw.record(15)
        os.write(fd, rw.record(11) + rw.record(12) + r13[:20])
        copytruncate()
        os.write(fd, r13[20:] + rw.record(14) + r15[:30])
        copytruncate()
        os.write(fd, r15[30:] + rw.record(16))
        look(16)
    finally:
        t.stop()
        os.close(fd)
    assert steps == list(range(1, 17)), steps
    assert any("read the rest from train.log.2" in e and "train.log.1" in e for e in notes), notes


@pytest.mark.slow
def test_rename_chain_with_gzip_and_a_compressed_copy_of_the_held_file(tmp_path):
    """logrotate's ``compress`` without ``delaycompress``: the file we held is renamed
    and gzipped (gzip keeps its mtime) and an older generation is gzipped too; the
    held file is read to its end once, the unread compressed generation is read, no
    record twice."""
    import gzip
    import time

    from tsm_tui.core.frame import expand
    from tsm_tui.sources.tail import Tailer

    d = run_dir(tmp_path)
    p = os.path.join(d, "train.log")

    def write(path, lo, hi):
        with open(path, "ab") as f:
            f.write(b"".join(rw.record(s) for s in range(lo, hi)))

    def gz(src, dst):
        with open(src, "rb") as f, gzip.open(dst, "wb") as g:
            g.write(f.read())
        st = os.stat(src)
        os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.unlink(src)

    write(p, 1, 11)
    t = Tailer(d, poll=3600)
    t.start_thread()
    steps: list[int] = []

    def look(quiet=0.5):
        t.wake()
        end = time.monotonic() + quiet
        while time.monotonic() < end:
            for b in t.drain():
                steps.extend(r.step for r in expand(b.records))
            time.sleep(0.02)

    try:
        look()
        write(p, 11, 21)  # not read yet: the held file's end
        os.rename(p, p + ".1")
        write(p, 21, 31)  # generation 2
        os.rename(p + ".1", p + ".2")
        gz(p + ".2", p + ".2.gz")  # the held file, compressed
        os.rename(p, p + ".1")
        gz(p + ".1", p + ".1.gz")  # generation 2, compressed before we ever opened it
        write(p, 31, 41)  # the live file
        look(1.0)
    finally:
        t.stop()
    assert steps == list(range(1, 41)), steps


SEEDS = 700 if os.environ.get("TSM_TAIL_HEAVY") else 6


@pytest.mark.parametrize("mode", ["copytruncate", "chain", "mixed"])
def test_every_order_of_rotation_steps_and_passes(mode):
    """Deterministic: a pass after any single operation of the writer and of the
    rotation (mid-shift, mid-copy, between copy and truncation, several rotations
    between two passes, a copy cutting a line), over many seeds and pass rates."""
    n = 300
    bad = []
    for seed in range(SEEDS):
        for p in (0.08, 0.3, 0.6):
            steps, notes = rw.interleave(seed, mode, n, p)
            if steps != list(range(1, n + 1)):
                got = set(steps)
                bad.append((seed, p, [s for s in range(1, n + 1) if s not in got][:5], len(steps) - len(got)))
    assert not bad, bad[:5]


@HEAVY
@pytest.mark.parametrize("mode", MODES)
def test_tailer_20000_records_per_second(tmp_path, mode):
    n = 120_000
    exact(rw.through_tailer(run_dir(tmp_path), mode, 20000, n, every=5000, burst=4), n)


@HEAVY
@pytest.mark.parametrize("mode", MODES)
def test_live_loop_20000_records_per_second(tmp_path, mode):
    n = 120_000
    r = rw.through_loop(run_dir(tmp_path), mode, 20000, n, every=5000, burst=4)
    exact(r, n)
    assert r["nonfinite"] == rw.nan_steps(n)


@HEAVY
@pytest.mark.parametrize("mode", MODES)
def test_follow_json_20000_records_per_second(tmp_path, mode):
    n = 120_000
    r = rw.through_follow(run_dir(tmp_path), mode, 20000, n, every=5000, burst=4)
    assert (r["rc"], r["last_step"], r["nonfinite"], r["resumes"]) == (0, n, rw.nan_steps(n), []), r
