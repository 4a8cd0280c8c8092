"""The tailer's own inotify reader (tsm_tui/sources/tail/inotify.py): events by
name for a whole tree, merged by the kernel while unread, read in the tailer's
own thread. The tailers here stat-check only every 30 s, so whatever arrives
sooner came through inotify."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time

import pytest

from tsm_tui.core.frame import expand
from tsm_tui.sources.tail import Tailer
from tsm_tui.sources.tail import inotify
from helpers.wait import WAIT, poll_until, wait_until

pytestmark = pytest.mark.skipif(not inotify.available(), reason="Linux inotify only")


def drain(t, steps: list[int]) -> None:
    for b in t.drain():
        steps += [r.step for r in expand(b.records)]


def ready(t, timeout: float) -> None:
    """Until the tailer says it has something (or ``timeout``)."""
    t.ready.wait(timeout)
    t.ready.clear()


def events_until(ino: inotify.Inotify, cond, timeout: float = WAIT) -> list:
    got: list = []
    poll_until(lambda: cond(got), timeout, every=0.2, tick=lambda: got.extend(ino.read()), sleep=ino.wait)
    return got


def test_events_by_name_in_a_tree_and_new_directories_watched(tmp_path):
    ino = inotify.Inotify(str(tmp_path), recursive=True)
    try:
        (tmp_path / "a.log").write_text("x\n")
        got = events_until(ino, lambda g: any(p.endswith("a.log") and k == inotify.CLOSED for k, p, _ in g))
        kinds = {k for k, p, _ in got if p == str(tmp_path / "a.log")}
        assert {inotify.CREATED, inotify.CLOSED} <= kinds
        # a directory made after the start is watched: a file written in it is seen
        (tmp_path / "version_1").mkdir()
        got = events_until(ino, lambda g: any(p.endswith("version_1") for _, p, _ in g))
        assert (inotify.CREATED, str(tmp_path / "version_1"), True) in got
        (tmp_path / "version_1" / "metrics.csv").write_text("step,loss\n")
        got = events_until(ino, lambda g: any(p.endswith("metrics.csv") for _, p, _ in g))
        assert any(p == str(tmp_path / "version_1" / "metrics.csv") for _, p, _ in got)
        # a directory moved away is forgotten (its events would carry a stale path)
        shutil.move(str(tmp_path / "version_1"), str(tmp_path.parent / f"{tmp_path.name}-away"))
        events_until(ino, lambda g: any(k == inotify.MOVED for k, _, _ in g))
        (tmp_path.parent / f"{tmp_path.name}-away" / "metrics.csv").write_text("step,loss\n1,2\n")
        time.sleep(0.2)
        assert not [p for _, p, _ in ino.read() if "version_1" in p]
        assert ino.alive
    finally:
        ino.close()
        shutil.rmtree(tmp_path.parent / f"{tmp_path.name}-away", ignore_errors=True)


def test_repeated_writes_are_merged_while_unread(tmp_path):
    """A job logging 100 lines between two passes costs one event, not 100."""
    f = tmp_path / "train.log"
    f.write_text("")
    ino = inotify.Inotify(str(tmp_path), recursive=False)
    try:
        ino.read()
        with open(f, "a") as fh:
            for i in range(100):
                fh.write(f"step {i} loss 2.0\n")
                fh.flush()
        time.sleep(0.05)
        got = ino.read()
        assert 1 <= len([g for g in got if g[0] == inotify.MODIFIED]) <= 2, got
    finally:
        ino.close()


def test_root_deleted_is_not_alive(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    ino = inotify.Inotify(str(d), recursive=True)
    try:
        d.rmdir()
        events_until(ino, lambda g: not ino.alive)
        assert not ino.alive
    finally:
        ino.close()


def test_missing_root_raises_a_clear_oserror(tmp_path):
    with pytest.raises(OSError):
        inotify.Inotify(str(tmp_path / "nope"), recursive=True)


def test_tailer_follows_by_inotify_without_watchdog_threads(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    before = set(threading.enumerate())
    t = Tailer(str(run), interval=30.0)
    t.start_thread()
    try:
        assert t.caught_up.wait(WAIT)
        assert t.mode == "inotify"
        extra = [th for th in threading.enumerate() if th not in before]
        assert len(extra) == 1, [th.name for th in extra]  # the tailer alone: no observer threads
        # a file in a directory created after the start, then lines appended to it
        (run / "version_0").mkdir()
        with open(run / "version_0" / "metrics.jsonl", "a") as fh:
            for s in (1, 2, 3):
                fh.write(json.dumps({"step": s, "loss": 2.0}) + "\n")
                fh.flush()
                time.sleep(0.05)
        steps: list[int] = []
        poll_until(
            lambda: steps == [1, 2, 3], WAIT, every=0.2, tick=lambda: drain(t, steps), sleep=lambda s: ready(t, s)
        )
        assert steps == [1, 2, 3]
        # a config written later is reported as a change (the live loop re-reads it)
        (run / "config.json").write_text("{}")
        changes: set[str] = set()
        wait_until(
            lambda: str(run / "config.json") in changes,
            WAIT,
            "config.json reported as a change",
            every=0.05,
            tick=lambda: changes.update(t.drain_changes()),
        )
    finally:
        t0 = time.monotonic()
        t.stop()
        assert time.monotonic() - t0 < 2.0  # the select is interrupted, not waited out


def test_stop_interrupts_the_wait_at_once(tmp_path):
    t = Tailer(str(tmp_path), interval=60.0)
    t.start_thread()
    assert t.caught_up.wait(WAIT)
    time.sleep(0.1)  # in its select now
    t0 = time.monotonic()
    t.stop()
    assert time.monotonic() - t0 < 1.0
    assert not any(th.name == "Tailer" and th.is_alive() for th in threading.enumerate())


def test_a_file_given_directly_is_followed(tmp_path):
    f = tmp_path / "main.log"
    f.write_text("s:1 trl:2.5 lr:1e-4 norm:1.0\n")
    t = Tailer(str(f), interval=30.0)
    t.start_thread()
    try:
        assert t.caught_up.wait(WAIT)
        with open(f, "a") as fh:
            fh.write("s:2 trl:2.4 lr:1e-4 norm:1.0\n")
        steps: list[int] = []
        poll_until(lambda: 2 in steps, WAIT, every=0.2, tick=lambda: drain(t, steps), sleep=lambda s: ready(t, s))
        assert 2 in steps
        assert os.path.exists(f)
    finally:
        t.stop()


@pytest.mark.parametrize("name", ["workerlog.0", "metrics.jsonl"])
def test_an_empty_log_that_grows_is_followed_at_its_first_write(tmp_path, name):
    """A log created empty cannot be sniffed; its first write is a "modified" event on a
    file not followed yet, which must bring a walk at once for every name discovery
    takes (``log_files.is_candidate``: PaddlePaddle's ``workerlog.0`` too), not wait
    for the 30 s safety walk."""
    t = Tailer(str(tmp_path), interval=30.0)
    t.start_thread()
    try:
        assert t.caught_up.wait(WAIT)
        p = tmp_path / name
        p.write_text("")
        time.sleep(0.5)  # its "created" walk finds it empty: not followed yet
        assert str(p) not in t.files
        with open(p, "a") as fh:
            fh.write("".join(json.dumps({"step": s, "loss": 2.0}) + "\n" for s in (1, 2, 3)))
        steps: list[int] = []
        poll_until(lambda: 3 in steps, WAIT, every=0.2, tick=lambda: drain(t, steps), sleep=lambda s: ready(t, s))
        assert steps == [1, 2, 3]
    finally:
        t.stop()
