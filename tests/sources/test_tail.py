"""The live tailer: every record written is seen exactly once, in order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from tsm_tui.core.frame import expand
from tsm_tui.analysis.session import Session
from tsm_tui.sources import reading, registry
from tsm_tui.sources.base import MAX_LINE, SnapshotReader
from tsm_tui.sources.tail import Tailer, filesystem_type, is_network_fs, parse_mounts

from helpers.wait import WAIT
from helpers.wait import poll_until


def jline(step, loss=2.0, **kw):
    d = {"step": step, "loss": loss}
    d.update(kw)
    return json.dumps(d) + "\n"


def append(path, text, mode="a"):
    with open(path, mode) as f:
        f.write(text)
        f.flush()


# ----------------------------------------------------------------------------- the stress test
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
    # write in random chunk sizes that split lines; sometimes pause mid-line
    global buf
    buf += data
    while len(buf) > (0 if final else 4096):
        k = min(len(buf), rng.randint(1, 3000))
        f.write(bytes(buf[:k]))
        del buf[:k]
        if rng.random() < 0.02:
            time.sleep(0.002)
s = 1
while s <= n:
    what = marks.get(s)
    if what:
        push(b"", final=True)
        if what == "truncate":
            # the tailer must have read everything first: truncation destroys unread data
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
                t.write(old)  # the same content again (a rewrite) ...
                for _ in range(10):  # ... plus new records
                    t.write(line(s))
                    s += 1
            os.replace(tmp, path)
            f = open(path, "ab", buffering=0)
            continue
    push(line(s))
    s += 1
push(b"", final=True)
f.close()
sys.stdout.write("DONE\n"); sys.stdout.flush()
"""


def run_stress(tmp_path, tail, n, **kw):
    path = tmp_path / "train.log"
    path.write_text("")
    c = tail(tmp_path, **kw)
    w = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(n), "7"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: [lines.append(x) for x in w.stdout], daemon=True)
    reader.start()
    answered = False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            c.pump()
            seen = c.steps.get(str(path), [])
            sync = next((x for x in lines if x.startswith("SYNC")), None)
            if sync and not answered and seen and seen[-1] >= int(sync.split()[1]):
                w.stdin.write("go\n")
                w.stdin.flush()
                answered = True
            if "DONE\n" in lines and seen and seen[-1] == n:
                break
            time.sleep(0.01)
        c.settle(0.5)
    finally:
        w.kill()
        w.wait()
    return c, path


def check_exact(c, path, n):
    assert set(c.steps) == {str(path)}, c.steps.keys()  # the rotated copy is not read again
    seen = c.steps[str(path)]
    assert len(seen) == n and seen == list(range(1, n + 1)), (len(seen), _first_diff(seen, n))


def _first_diff(seen, n):
    for i, s in enumerate(seen):
        if s != i + 1:
            return f"at index {i}: got {seen[max(0, i - 2) : i + 3]}"
    return f"ends at {seen[-1] if seen else None}"


def test_stress_exactly_once_in_order(tmp_path, tail):
    n = 12_000
    c, path = run_stress(tmp_path, tail, n)
    check_exact(c, path, n)
    text = " ".join(c.notes)
    assert "truncated" in text or "rewritten" in text
    # (a rotation and the replace after it may fall between two checks: then one switch is seen)
    assert "rotated" in text or "moved away" in text or "replaced" in text


@pytest.mark.slow
def test_stress_polling(tmp_path, tail):
    n = 6_000
    c, path = run_stress(tmp_path, tail, n, poll=0.05)
    assert c.t.mode == "polling"
    check_exact(c, path, n)


# ----------------------------------------------------------------------------- behaviours
def test_history_and_bursts_take_the_chunked_path(tmp_path, tail):
    """A long history present at start, a burst appended in one write (with a line
    begun by the previous write), then single lines: the records are exactly those
    of reading the finished file, and the big reads came as Frames."""
    p = tmp_path / "metrics.jsonl"
    rows = [jline(s, loss=2.0 + (s % 97) * 1e-3, grad_norm=0.5 + (s % 13) * 1e-2, lr=1e-4) for s in range(1, 40_001)]
    append(p, "".join(rows[:20_000]) + rows[20_000][:25])  # the history ends inside a line
    c = tail(p)
    assert c.wait_for(lambda: len(c.records) >= 20_000)
    append(p, rows[20_000][25:] + "".join(rows[20_001:39_990]))  # one burst, ~800 KiB
    for r in rows[39_990:]:
        append(p, r)
    assert c.wait_for(lambda: len(c.records) >= 40_000)
    c.settle(0.3)
    reader, _ = registry.open_reader(str(p))
    want = list(reading.read_records(str(p), reader))
    assert [(r.step, r.loss, r.grad_norm, r.lr) for r in c.records] == [
        (r.step, r.loss, r.grad_norm, r.lr) for r in want
    ]
    assert c.framed > 30_000


def test_files_appearing_later_in_empty_dir(tmp_path, tail):
    run = tmp_path / "run"  # does not exist yet
    c = tail(run)
    time.sleep(0.3)
    (run / "version_0").mkdir(parents=True)
    append(run / "version_0" / "metrics.jsonl", jline(1) + jline(2))
    assert c.wait_for(lambda: c.all_steps() == [1, 2])
    (run / "version_1").mkdir()
    append(run / "version_1" / "rank1.jsonl", "")  # empty at first: retried when it grows
    time.sleep(0.3)
    append(run / "version_1" / "rank1.jsonl", jline(5))
    assert c.wait_for(lambda: c.steps.get(str(run / "version_1" / "rank1.jsonl")) == [5])


def test_partial_line_waits_for_newline(tmp_path, tail):
    p = tmp_path / "m.jsonl"
    append(p, jline(1), "w")
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == [1])
    append(p, '{"step": 2, "lo')
    c.settle(0.6)
    assert c.all_steps() == [1]
    append(p, 'ss": 1.5}\n')
    assert c.wait_for(lambda: c.all_steps() == [1, 2])
    assert c.records[-1].loss == 1.5
    assert c.t.files[str(p)].reader.skipped == 0


def test_crlf_and_bad_utf8_and_long_line(tmp_path, tail):
    p = tmp_path / "m.jsonl"
    append(p, jline(1))
    c = tail(p)
    assert c.wait_for(lambda: c.all_steps() == [1])
    with open(p, "ab") as f:
        f.write(b'{"step": 2, "loss": 1.0, "note": "\xff"}\r\n')
        f.write(b'{"step": 3, "pad": "' + b"y" * (MAX_LINE + 10))
        f.flush()
        time.sleep(0.3)  # the over-long line arrives in pieces
        f.write(b"y" * 1000 + b'"}\n')
        f.write(jline(4).encode())
    assert c.wait_for(lambda: c.all_steps() == [1, 2, 4])
    reader = c.t.files[str(p)].reader
    assert reader.skipped == 1 and any("longer" in k for k in reader.skip_reasons)
    assert any("UTF-8" in k for k in reader.skip_reasons)


def test_truncation_starts_over_and_says_so(tmp_path, tail):
    p = tmp_path / "m.jsonl"
    append(p, "".join(jline(s) for s in range(1, 11)))
    c = tail(p)
    assert c.wait_for(lambda: len(c.all_steps()) == 10)
    append(p, jline(11), "w")  # truncated, new content
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 12)))
    assert any("truncated" in e or "rewritten" in e for e in c.notes)


def test_whole_file_rewrite_same_content_not_a_resume(tmp_path, tail):
    p = tmp_path / "m.jsonl"
    body = "".join(jline(s, 3.0 - s / 100) for s in range(1, 51))
    append(p, body, "w")
    c = tail(tmp_path)
    assert c.wait_for(lambda: len(c.all_steps()) == 50)
    session = Session()
    session.feed(str(p), c.records)
    c.records.clear()
    # rewritten in place (larger, not atomically) and atomically replaced: nothing twice
    append(p, body + jline(51, 2.4), "w")
    assert c.wait_for(lambda: c.all_steps()[-1:] == [51])
    tmp = tmp_path / "m.tmp"
    tmp.write_text(body + jline(51, 2.4) + jline(52, 2.4))
    os.replace(tmp, p)
    assert c.wait_for(lambda: c.all_steps()[-1:] == [52])
    c.settle(0.4)
    assert c.all_steps() == list(range(1, 53))
    alerts = session.feed(str(p), c.records)
    assert not [a for a in alerts if a.check == "resume"]


def test_lightning_csv_rewrite_with_new_column(tmp_path, tail):
    p = tmp_path / "lightning_logs" / "version_0" / "metrics.csv"
    p.parent.mkdir(parents=True)
    rows = [f"{0.0},{3.0 - s / 100:.4f},{s}" for s in range(1, 31)]
    append(p, "epoch,train_loss,step\n" + "\n".join(rows) + "\n", "w")
    c = tail(tmp_path)
    assert c.wait_for(lambda: len(c.all_steps()) == 30)
    # a validation column appears: Lightning rewrites the file with the new header
    new_rows = [f"{0.0},{3.0 - s / 100:.4f},{s}," for s in range(1, 31)]
    new_rows += [f"{0.0},{3.0 - s / 100:.4f},{s},{2.9 - s / 100:.4f}" for s in range(31, 36)]
    append(p, "epoch,train_loss,step,val_loss\n" + "\n".join(new_rows) + "\n", "w")
    assert c.wait_for(lambda: c.all_steps()[-1:] == [35])
    c.settle(0.4)
    assert c.all_steps() == list(range(1, 36))
    assert c.records[-1].val_loss is not None


def test_genuine_resume_is_delivered_and_alerted(tmp_path, tail):
    p = tmp_path / "train.jsonl"
    append(p, "".join(jline(s, 3.0 - s / 500) for s in range(1, 301)))
    c = tail(tmp_path)
    assert c.wait_for(lambda: len(c.all_steps()) == 300)
    # restart from the checkpoint at step 200: the steps go backwards in the same file
    append(p, "".join(jline(s, 3.0 - s / 500) for s in range(201, 401)))
    assert c.wait_for(lambda: len(c.all_steps()) == 500)
    assert c.all_steps() == list(range(1, 301)) + list(range(201, 401))
    session = Session()
    alerts = session.feed(str(p), c.records)
    resumes = [a for a in alerts if a.check == "resume"]
    assert len(resumes) == 1 and resumes[0].step == 201
    assert not [a for a in alerts if a.check == "loss_spike" and a.severity.value != "info"]


def test_deleted_then_recreated(tmp_path, tail):
    p = tmp_path / "train.jsonl"
    append(p, jline(1) + jline(2))
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == [1, 2])
    append(p, jline(3))
    os.unlink(p)
    assert c.wait_for(lambda: any("deleted" in e for e in c.notes))
    assert c.all_steps() == [1, 2, 3]  # what was there was finished
    append(p, jline(1) + jline(2) + jline(3) + jline(4), "w")  # re-created with the same history + 1
    assert c.wait_for(lambda: c.all_steps()[-1:] == [4])
    c.settle(0.3)
    assert c.all_steps() == [1, 2, 3, 4]


class _StateReader(SnapshotReader):
    """A minimal HF trainer_state.json reader for the test."""

    name = "test-trainer-state"
    priority = 99

    @classmethod
    def sniff(cls, path, head):
        return 1.0 if path.endswith("trainer_state.json") else 0.0

    def read_all(self, data: bytes):
        obj = json.loads(data)
        out = []
        for e in obj["log_history"]:
            rec = self.build(e.items())
            if rec is not None:
                out.append(rec)
        return out


@pytest.fixture
def state_reader():
    registry.register(_StateReader)
    yield
    registry.READERS.remove(_StateReader)


def _state(steps):
    return json.dumps({"global_step": steps[-1], "log_history": [{"step": s, "loss": 2.0} for s in steps]}, indent=2)


def test_snapshot_rewrite_not_double_counted(tmp_path, tail, state_reader):
    top = tmp_path / "trainer_state.json"
    append(top, _state([1, 2, 3]), "w")
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == [1, 2, 3])
    append(top, _state([1, 2, 3, 4, 5]), "w")  # rewritten at the next save
    assert c.wait_for(lambda: c.all_steps() == [1, 2, 3, 4, 5])
    with open(top, "w") as f:  # a save in progress: half a JSON document, then the rest
        text = _state([1, 2, 3, 4, 5, 6])
        f.write(text[: len(text) // 2])
        f.flush()
        time.sleep(0.5)
        f.write(text[len(text) // 2 :])
    assert c.wait_for(lambda: c.all_steps() == [1, 2, 3, 4, 5, 6])
    # resumed from checkpoint-4: the history is cut back, then grows again -> a resume
    tmp = tmp_path / "state.tmp"
    tmp.write_text(_state([1, 2, 3, 4]))
    os.replace(tmp, top)
    c.settle(0.4)
    assert c.all_steps() == [1, 2, 3, 4, 5, 6]
    append(top, _state([1, 2, 3, 4, 5, 6, 7]), "w")
    assert c.wait_for(lambda: c.all_steps()[-1:] == [7])
    assert c.all_steps() == [1, 2, 3, 4, 5, 6, 5, 6, 7]
    alerts = Session().feed(str(top), c.records)
    assert [a.step for a in alerts if a.check == "resume"] == [5]


def test_unreadable_file_reported_not_fatal(tmp_path, tail):
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    p = tmp_path / "a.jsonl"
    append(p, jline(1))
    q = tmp_path / "b.jsonl"
    append(q, jline(7))
    os.chmod(q, 0)
    try:
        c = tail(tmp_path)
        assert c.wait_for(lambda: c.all_steps() == [1] and c.notes)
        assert any("b.jsonl" in e for e in c.notes)
        append(p, jline(2))
        assert c.wait_for(lambda: c.all_steps() == [1, 2])
    finally:
        os.chmod(q, 0o644)


def test_rotated_copy_not_read_twice(tmp_path, tail):
    p = tmp_path / "train.log"
    append(p, jline(1) + jline(2))
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == [1, 2])
    append(p, jline(3))
    os.rename(p, tmp_path / "train.log.1")
    append(p, jline(4))
    assert c.wait_for(lambda: c.all_steps()[-1:] == [4])
    c.t.wake()  # force a directory scan: it meets train.log.1
    c.settle(0.6)
    assert c.all_steps() == [1, 2, 3, 4]
    assert list(c.steps) == [str(p)]


# ----------------------------------------------------------------------------- filesystems
MOUNTINFO = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
40 22 0:35 / /scratch rw,relatime shared:20 - lustre 10.0.0.1@o2ib:/scratch rw
41 22 0:36 / /home rw,relatime - nfs4 nas:/home rw,vers=4.2
42 41 0:37 / /home/me/local\\040dir rw - ext4 /dev/sdb1 rw
43 22 0:38 / /gpfs/fs1 rw - gpfs fs1 rw
"""


def test_network_filesystem_detection():
    m = parse_mounts(MOUNTINFO)
    assert ("/home/me/local dir", "ext4") in m
    assert filesystem_type("/scratch/run1/log.txt", m) == "lustre"
    assert filesystem_type("/home/me/run", m) == "nfs4"
    assert filesystem_type("/home/me/local dir/run", m) == "ext4"
    assert filesystem_type("/gpfs/fs1/x", m) == "gpfs"
    assert filesystem_type("/tmp/x", m) == "ext4"
    assert filesystem_type("/scratchy", m) == "ext4"
    for fs in ("nfs", "nfs4", "lustre", "gpfs", "cifs", "fuse.sshfs", "beegfs", "ceph", "fuse.glusterfs", "9p"):
        assert is_network_fs(fs), fs
    assert not is_network_fs("ext4") and not is_network_fs("xfs") and not is_network_fs(None)
    proc = parse_mounts("nas:/home /home nfs rw 0 0\n", mountinfo=False)
    assert filesystem_type("/home/x", proc) == "nfs"


def test_forced_poll_mode(tmp_path):
    t = Tailer(str(tmp_path), poll=0.3)
    assert t.mode == "polling" and "polling every 0.3s" in t.describe()
    t2 = Tailer(str(tmp_path))
    assert t2.mode == "inotify" or t2.network


def test_at_most_max_open_files_are_held_open_and_parked_files_still_deliver(tmp_path, monkeypatch):
    """Files beyond the tailer's MAX_OPEN are closed while idle (their offsets kept)
    and reopened when they change: every record still arrives once; a file replaced
    while parked is read from the start."""
    from tsm_tui.sources.tail import tailer as _tailer

    monkeypatch.setattr(_tailer, "MAX_OPEN", 4)
    paths = []
    for i in range(12):
        p = tmp_path / f"rank{i}.jsonl"
        p.write_text("".join(f'{{"step": {s}, "loss": {2 + 1 / s}}}\n' for s in range(1, 11)))
        paths.append(p)
    t = Tailer(str(tmp_path), poll=0.05)
    got: dict[str, list[int]] = {}

    def drain():
        for b in t.drain():
            for r in b.records:
                for x in r.records() if hasattr(r, "records") else [r]:
                    got.setdefault(os.path.basename(b.source), []).append(x.step)

    t.start_thread()
    try:
        poll_until(lambda: sum(len(v) for v in got.values()) >= 120, 10, every=0.05, tick=drain)
        time.sleep(0.3)
        drain()
        held = [f for f in t.files.values() if f.fd is not None]
        assert len(held) <= 4 and sum(f.parked for f in t.files.values()) >= 8
        for p in paths:  # every parked file gets new lines
            with open(p, "a") as fh:
                fh.write("".join(f'{{"step": {s}, "loss": 2.0}}\n' for s in range(11, 14)))
        os.replace(tmp_path / "rank0.jsonl", tmp_path / "rank0.old")  # rotated while parked ...
        (tmp_path / "rank0.jsonl").write_text('{"step": 100, "loss": 2.0}\n')
        # (the count alone can be reached before the replaced file's record: rank0's own 3 appended lines may
        # be read from the old file too; CI on a loaded machine saw 100 arrive after it)
        poll_until(
            lambda: sum(len(v) for v in got.values()) >= 120 + 11 * 3 + 1 and 100 in got.get("rank0.jsonl", []),
            10,
            every=0.05,
            tick=drain,
        )
        for i in range(1, 12):
            assert got[f"rank{i}.jsonl"] == list(range(1, 14)), (i, got[f"rank{i}.jsonl"])
        assert 100 in got["rank0.jsonl"]
        assert len([f for f in t.files.values() if f.fd is not None]) <= 4
    finally:
        t.stop()


# ----------------------------------------------------------------------------- every feed
def test_replay_feed_is_bounded_when_the_consumer_is_behind_and_says_when_it_ends(tmp_path, monkeypatch):
    """A replay reads faster than the detectors run: the producer pauses once
    MAX_QUEUED records wait (a 5M-step history held every Frame: 272 MiB), and
    the end wakes a consumer asleep on ``ready``."""
    from tsm_tui.sources import feed as feedmod
    from tsm_tui.sources.feed import ReplayFeed

    monkeypatch.setattr(feedmod, "MAX_QUEUED", 2000)
    p = tmp_path / "metrics.jsonl"
    p.write_text("".join(jline(s, 2.0 + 1.0 / s) for s in range(1, 50_001)))
    reader, _ = registry.open_reader(str(p))
    f = ReplayFeed({str(p): reader})
    f.start()
    try:
        time.sleep(1.0)
        assert not f.finished  # paused, not done
        assert f.error is None and 0 < f._queued <= 2000 + 70_000  # at most one chunk past the bound
        steps: list[int] = []

        def drain() -> None:
            f.ready.wait(1.0)
            f.ready.clear()
            steps.extend(r.step for b in f.drain() for r in expand(b.records))

        poll_until(lambda: f.finished and len(steps) == 50_000, WAIT, every=0, tick=drain)
        assert steps == list(range(1, 50_001))
        assert f.finished
    finally:
        f.stop()


# -- audit follow-ups -------------------------------------------------------------------------
def test_an_mlflow_file_store_run_is_followed(tmp_path, tail):
    """metrics/ is a directory source: the tailer's open refused it ("not a regular file
    (a directory)") and the run was never followed."""
    run = tmp_path / "mlruns" / "0" / "abc123"
    (run / "metrics").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_id: abc123\n")
    loss = run / "metrics" / "loss"
    append(loss, "".join(f"{1700000000000 + i} {3 - i / 100} {i}\n" for i in range(1, 11)), "w")
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 11))), c.notes
    for i in range(11, 31):  # the run goes on
        append(loss, f"{1700000000000 + i} {3 - i / 100} {i}\n")
        time.sleep(0.01)
    append(run / "metrics" / "grad_norm", "1700000000031 nan 31\n")  # a new metric file
    assert c.wait_for(lambda: c.all_steps()[-1:] == [31]), (c.all_steps()[-5:], c.notes)
    assert c.all_steps() == list(range(1, 32))
    assert c.records[-1].grad_norm != c.records[-1].grad_norm  # the NaN
    assert not any("cannot open" in e for e in c.notes), c.notes


@pytest.mark.slow
def test_the_newest_tensorboard_step_is_delivered_when_the_file_goes_quiet(tmp_path, tail):
    """TensorBoard's reader holds the newest step until the next step's first event: live,
    a final NaN was never seen. After IDLE_FLUSH seconds without bytes it is delivered."""
    from helpers.livefiles import append, tb_event

    p = tmp_path / "events.out.tfevents.1700000000.host.1.0"
    append(
        p,
        tb_event(0, file_version="brain.Event:2")
        + b"".join(tb_event(i, "train/loss", 4 - i / 1000) for i in range(1, 100)),
        "w",
    )
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps()[-1:] == [99])  # (99 comes once the file is quiet)
    append(p, tb_event(100, "train/loss", float("nan")))
    assert c.wait_for(lambda: c.all_steps()[-1:] == [100], timeout=5)
    assert c.records[-1].loss != c.records[-1].loss
    append(p, tb_event(101, "train/loss", 1.0) + tb_event(101, "train/grad_norm", 0.5))
    assert c.wait_for(lambda: c.all_steps()[-1:] == [101], timeout=5)
    assert c.all_steps() == list(range(1, 102))


def test_held_hf_dicts_and_a_long_form_step_are_delivered_when_the_file_goes_quiet(tmp_path, tail):
    """A line reader that holds records back (``holds_lines``) gets the tailer's idle call as a byte
    reader does: an HF burst after its last bar, and a long-form JSONL file's newest step, are seen
    live once the file is quiet (before: the last burst of a live HF log waited for the next line,
    and a finished bar-less Slurm .out, held whole, showed nothing)."""
    from helpers.livefiles import append

    hf = tmp_path / "hf"
    hf.mkdir()
    append(
        hf / "train.log",
        "\r 10%|#  | 10/100 [00:01<00:09,  9.9it/s]{'loss': 2.0, 'grad_norm': 1.0, 'epoch': 0.1}\n",
        "w",
    )
    c = tail(hf)
    assert c.wait_for(lambda: c.all_steps() == [10], timeout=10), c.notes
    lf = tmp_path / "lf"
    lf.mkdir()
    rows = "".join(json.dumps({"name": "loss", "step": s, "value": 3 - s / 100}) + "\n" for s in range(1, 31))
    append(lf / "metrics.jsonl", rows, "w")
    c = tail(lf)
    assert c.wait_for(lambda: c.all_steps()[-1:] == [30], timeout=10), (c.all_steps()[-3:], c.notes)
    assert c.all_steps() == list(range(1, 31))
