"""Aim 3.x repositories read without Aim (sources/aim.py over sources/rocksdb.py).

The repositories under tests/data/aim/sdk-*/ were written by the real ``aim`` SDK, 3.29.1
(version 2 sequences) and 3.10.3 (version 1) (tests/data/aim/make_aim_repo.py: a closed run
with a spike and a NaN, and a resumed run killed before it closed, whose last points exist
only in RocksDB's write-ahead log); ``logged.json`` beside each holds what the scripts
passed to ``run.track``: the oracle every point read here is compared with. Damaged copies (cut, a flipped byte, garbage
named like RocksDB's files) give counted reasons, never a traceback."""

from __future__ import annotations

import json
import math
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import paths
from tsm_tui.cli import main
from tsm_tui.sources import aim, log_files, registry, rocksdb
from tsm_tui.sources.rocksdb import Damage, Problems, read_sst, snappy_decompress, wal_records, write_batch

REPO = Path(paths.DATA) / "aim" / "sdk-3.29.1"
LOGGED = json.loads((REPO / "logged.json").read_text())
HASH = {name: LOGGED[name]["hash"] for name in LOGGED}


def run_dir(root: Path, name: str) -> Path:
    return root / ".aim" / "seqs" / "chunks" / HASH[name]


def series(path) -> dict[str, list]:
    """What the reader makes of one run: {json [name, context]: [[step, value, epoch], ...]}."""
    p = Problems()
    out = {
        json.dumps([s.name, s.context], sort_keys=True): [[st, v, e] for st, v, e, _ in s.points]
        for s in aim.read_run(str(path), p)
    }
    assert not p, dict(p)
    return out


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def report(path, capsys, *extra) -> dict:
    rc = main([str(path), "--report", "--json", *extra])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def tree(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


# ----------------------------------------------------------------------------- the oracle
SDKS = sorted(p.name for p in REPO.parent.glob("sdk-*"))


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("name", sorted(LOGGED))
def test_every_point_equals_what_the_sdk_logged(sdk, name):
    repo = REPO.parent / sdk
    logged = json.loads((repo / "logged.json").read_text())[name]
    got = series(repo / ".aim" / "seqs" / "chunks" / logged["hash"])
    want = {json.dumps(json.loads(k), sort_keys=True): v for k, v in logged["metrics"].items()}
    assert sorted(got) == sorted(want)
    for k, pts in want.items():
        assert [p[0] for p in got[k]] == [p[0] for p in pts], k
        assert all(same(g[1], w[1]) for g, w in zip(got[k], pts)), k
        assert [g[2] for g in got[k]] == [w[2] for w in pts], k  # epoch (None when not given)
    n = sum(map(len, want.values()))
    assert n == (84 if name == "spiky" else 30)


def test_the_spiky_runs_nan_and_spike_are_as_logged():
    got = series(run_dir(REPO, "spiky"))
    loss = dict((s, v) for s, v, _ in got['["loss", {"subset": "train"}]'])
    assert math.isnan(loss[33]) and loss[25] > 7 * loss[24]
    assert [s for s, _, _ in got['["loss", {"subset": "val"}]']] == [0, 10, 20, 30]


def test_a_killed_runs_last_points_come_from_its_write_ahead_log_and_the_newest_value_wins():
    """The second process's points (steps 19-29) were never flushed: they are in the WAL
    only; step 19 was tracked twice (2.62 by the first process, 2.31 by the second)."""
    d = run_dir(REPO, "killed")
    ssts = sorted(d.glob("*.sst"))
    wals = [w for w in d.glob("*.log") if w.stat().st_size]
    assert ssts and wals
    steps_in = {}
    for kind, files in (("sst", ssts), ("wal", wals)):
        keys = set()
        for f in files:
            data = f.read_bytes()
            p = Problems()
            if kind == "sst":
                entries = list(read_sst(data, p))
            else:
                entries = [e for rec in wal_records(data, p) for e in write_batch(rec)]
            keys |= {k for k, _, typ, _ in entries if typ == rocksdb.T_VALUE and b"\xfestep\xfe\xfe" in k}
            assert not p
        steps_in[kind] = keys
    assert len(steps_in["sst"]) == 20 and len(steps_in["wal"]) == 11  # steps 0-19, then 19-29
    (loss,) = series(d).values()
    assert [s for s, _, _ in loss] == list(range(30))
    assert loss[19][1] == pytest.approx(2.31) and loss[18][1] == pytest.approx(2.64)


def test_the_fixtures_hold_both_sequence_versions():
    """3.29.1 keys a point by its step's hash (``seqs/v2/chunks``), 3.10.3 by its step."""
    for sdk, prefix in (("sdk-3.29.1", b"seqs\xfev2\xfechunks\xfe"), ("sdk-3.10.3", b"seqs\xfechunks\xfe")):
        repo = REPO.parent / sdk
        h = json.loads((repo / "logged.json").read_text())["spiky"]["hash"]
        keys = rocksdb.read_db(str(repo / ".aim" / "seqs" / "chunks" / h), (b"seqs\xfe",), Problems())
        vals = [k for k in keys if b"\xfeval\xfe\xfe" in k]
        assert len(vals) == 84 and all(k.startswith(prefix + h.encode()) for k in vals)


def test_the_fixtures_blocks_are_snappy_compressed_and_their_checksums_verified():
    """The decoder is exercised: every data block of the fixture's SSTs is Snappy (type 1)."""
    data = next(run_dir(REPO, "spiky").glob("*.sst")).read_bytes()
    assert struct.unpack_from("<Q", data, len(data) - 8)[0] == rocksdb.BLOCK_MAGIC
    assert struct.unpack_from("<I", data, len(data) - 12)[0] == 5  # format_version
    foot = len(data) - 53
    moff, msize, p = rocksdb._handle(data, foot + 1)
    ioff, isize, _ = rocksdb._handle(data, p)
    handles = list(rocksdb._index_handles(rocksdb._block(data, ioff, isize, True), True, False))
    assert handles and all(data[off + size] == 1 for off, size in handles)


# ----------------------------------------------------------------------------- runs and discovery
def test_a_repository_is_one_run_per_aim_run(capsys):
    d = report(REPO, capsys)
    assert d["kind"] == "runs" and len(d["runs"]) == 2
    by = {r["files"][0]["aim_name"]: r for r in d["runs"]}
    spiky, killed = by["spiky"], by["killed"]
    assert spiky["files"][0]["format"] == "aim" and spiky["files"][0]["aim_experiment"] == "fixtures"
    assert {f: s["key"] for f, s in spiky["sources"].items()} == {
        "loss": "train/loss",
        "val_loss": "val/loss",
        "lr": "train/lr",
    }
    checks = {c["id"]: c["status"] for c in spiky["checks"]}
    assert checks["nonfinite"] == "FAIL" and checks["loss_spike"] == "WARN"
    alerts = {(a["check"], a["step"]) for a in spiky["alerts"]}
    assert ("nonfinite", 33) in alerts and ("loss_spike", 25) in alerts
    assert spiky["steps"]["count"] == 40 and killed["steps"]["count"] == 30


@pytest.mark.parametrize("where", ["parent", ".aim", "seqs", "run"])
def test_the_runs_are_found_from_the_repository_its_parent_or_inside_it(where):
    base = {"parent": REPO, ".aim": REPO / ".aim", "seqs": REPO / ".aim" / "seqs", "run": run_dir(REPO, "spiky")}[where]
    found = [f for f in log_files.candidate_files(str(base)) if not f.endswith("logged.json")]
    want = [str(run_dir(REPO, n)) for n in sorted(HASH, key=HASH.get)]
    assert found == ([str(run_dir(REPO, "spiky"))] if where == "run" else want)
    reader, info = registry.open_reader(found[0])
    assert info.format == "aim" and reader is not None


def test_the_repository_is_never_written(tmp_path, capsys):
    """Aim's own Repo() writes locks, progress files and a WAL when it opens a repository;
    reading it here changes nothing under it (names, sizes, modification times)."""
    cp = tmp_path / "job"
    shutil.copytree(REPO, cp)
    before = tree(cp)
    for p in (cp, cp / ".aim", run_dir(cp, "killed")):
        report(p, capsys)
    assert tree(cp) == before


def test_a_run_followed_live_takes_a_new_write_ahead_log(tmp_path, tail):
    """Live: the run is a directory source, re-read when its files change. The killed run
    without its WAL is its first process's 20 steps; the WAL arriving brings 20-29."""
    cp = tmp_path / "job"
    shutil.copytree(REPO, cp)
    d = run_dir(cp, "killed")
    (wal,) = [w for w in d.glob("*.log") if w.stat().st_size]
    held = tmp_path / "wal"
    shutil.move(wal, held)
    c = tail(cp)
    src = str(d)
    assert c.wait_for(lambda: c.steps.get(src, [])[-1:] == [19]), (c.steps.keys(), c.notes)
    shutil.copy(held, wal)
    assert c.wait_for(lambda: c.steps.get(src, [])[-1:] == [29]), (c.steps.get(src), c.notes)
    assert c.steps[src] == list(range(30))


# ----------------------------------------------------------------------------- damage
def damaged(tmp_path, name: str, how) -> Path:
    cp = tmp_path / "job"
    shutil.copytree(REPO, cp)
    how(run_dir(cp, name))
    return cp


def file_entry(d: dict, name: str) -> dict:
    for r in d["runs"]:
        if r["files"][0].get("aim_run") == HASH[name]:
            return r["files"][0]
    raise AssertionError(name)


def cut(path: Path, keep: float) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def test_a_truncated_sst_is_said_not_a_traceback(tmp_path, capsys):
    cp = damaged(tmp_path, "spiky", lambda d: cut(next(d.glob("*.sst")), 0.5))
    r = subprocess.run(
        [sys.executable, "-m", "tsm_tui", str(cp), "--report", "--json"], capture_output=True, timeout=60
    )
    assert r.returncode in (0, 1) and b"Traceback" not in r.stderr, r.stderr
    f = file_entry(json.loads(r.stdout), "spiky")
    assert (
        f["records"] == 0 and "unreadable SST file (not an SST file (no block-based table magic))" in f["skip_reasons"]
    )
    assert file_entry(json.loads(r.stdout), "killed")["records"] == 30  # the other run is whole


def test_a_wal_cut_mid_record_keeps_the_records_before_the_cut(tmp_path):
    d = run_dir(damaged(tmp_path, "killed", lambda d: None), "killed")
    (wal,) = [w for w in d.glob("*.log") if w.stat().st_size]
    cut(wal, 0.6)
    p = Problems()
    (ser,) = aim.read_run(str(d), p)
    steps = [s for s, *_ in ser.points]
    assert steps[:20] == list(range(20)) and 20 < len(steps) < 30
    assert p["WAL cut short inside a record (the writer stopped mid-write)"] == 1
    # (each array element is its own write: the cut can fall between a value and its step)
    assert set(p) <= {"WAL cut short inside a record (the writer stopped mid-write)", "Aim point without its step"}


def test_a_flipped_byte_in_a_data_block_is_counted_and_the_other_blocks_read(tmp_path):
    def flip(d: Path) -> None:
        f = next(d.glob("*.sst"))
        data = bytearray(f.read_bytes())
        data[100] ^= 0xFF  # inside the first data block
        f.write_bytes(bytes(data))

    d = run_dir(damaged(tmp_path, "spiky", flip), "spiky")
    p = Problems()
    got = {json.dumps([s.name, s.context], sort_keys=True): s.points for s in aim.read_run(str(d), p)}
    assert p == {"damaged SST block (block checksum mismatch)": 1}
    intact = {
        json.dumps([s.name, s.context], sort_keys=True): s.points
        for s in aim.read_run(str(run_dir(REPO, "spiky")), Problems())
    }
    assert got != intact and sum(map(len, got.values())) > 0  # the block's keys are lost, the others read


def test_files_named_like_rocksdbs_that_are_not_are_counted(tmp_path):
    d = run_dir(damaged(tmp_path, "killed", lambda d: None), "killed")
    (d / "000090.sst").write_bytes(os.urandom(5000))
    (d / "000091.sst").write_bytes(b"")
    (d / "000092.log").write_bytes(os.urandom(40000))
    os.mkfifo(d / "000093.sst")  # never opened (it would block)
    p = Problems()
    (ser,) = aim.read_run(str(d), p)
    assert len(ser.points) == 30
    assert p["unreadable SST file (not an SST file (no block-based table magic))"] == 1
    assert p["unreadable RocksDB file"] == 1
    assert sum(n for k, n in p.items() if k.startswith("WAL")) >= 1


def test_snappy_streams_of_every_element_kind():
    lit = b"abcdefgh"
    # literal (short), then a 1-byte-offset copy of 4 (tag 01), a 2-byte-offset copy of 8
    # (tag 10), an overlapping copy (offset 1, length 5), a 4-byte-offset copy (tag 11)
    body = bytes([(len(lit) - 1) << 2]) + lit
    body += bytes([0b01 | (0 << 2) | (0 << 5), 8])  # copy 4 from 8 back: "abcd"
    body += bytes([0b10 | (7 << 2)]) + (12).to_bytes(2, "little")  # copy 8 from 12 back
    body += bytes([0b10 | (4 << 2)]) + (1).to_bytes(2, "little")  # copy 5 from 1 back (overlap)
    body += bytes([0b11 | (1 << 2)]) + (3).to_bytes(4, "little")  # copy 2 from 3 back
    want = b"abcdefgh" + b"abcd" + b"abcdefgh"[:8] + b"hhhhh" + b"hh"
    assert snappy_decompress(bytes([len(want)]) + body) == want
    long = bytes(range(256)) * 2  # a literal of 512: its length in 2 extra bytes (tag 61)
    assert snappy_decompress(b"\x80\x04" + bytes([61 << 2]) + (511).to_bytes(2, "little") + long) == long


@pytest.mark.parametrize(
    "bad",
    [
        b"",  # no length
        b"\x05\x0cab",  # literal past the end
        b"\x08\x00a\x01\x05",  # copy from before the start
        b"\x04\x00a\x05\x00",  # copy with offset 0
        b"\x03\x00a",  # shorter than its length
        b"\xff\xff\xff\xff\x7f",  # a length past the block limit
    ],
)
def test_a_damaged_snappy_stream_raises_damage(bad):
    with pytest.raises(Damage):
        snappy_decompress(bad)


def test_without_its_meta_database_a_runs_contexts_are_not_merged(tmp_path):
    """The contexts ({"subset": "train"}, {"subset": "val"}) are in meta/chunks/<hash>/:
    without it, the train loss (40 points) keeps the bare name and the val loss (4) is
    another series, not points of the same one."""
    cp = damaged(tmp_path, "spiky", lambda d: None)
    shutil.rmtree(cp / ".aim" / "meta" / "chunks" / HASH["spiky"])
    got = {s.key: len(s.points) for s in aim.read_run(str(run_dir(cp, "spiky")), Problems())}
    assert got.pop("loss") == 40 and got.pop("lr") == 40
    ((k, n),) = got.items()
    assert n == 4 and k.startswith("context ") and k.endswith("/loss")


def test_a_reread_parses_only_the_tables_that_changed(tmp_path, monkeypatch):
    """Live, every WAL write changes the run's directory and the run is read again: its
    SSTs (never rewritten by RocksDB) are parsed once and kept while their inode, size
    and mtime stay; a table that changed is parsed again."""
    cp = damaged(tmp_path, "killed", lambda d: None)
    d = run_dir(cp, "killed")
    parsed = []
    real = rocksdb.read_sst
    monkeypatch.setattr(rocksdb, "read_sst", lambda data, p: parsed.append(len(data)) or real(data, p))
    r = aim.AimRunReader(str(d))
    first = [(x.step, x.loss) for x in r.read_path(str(d))]
    n = len(parsed)
    assert n >= 2  # (the run's SST and its meta database's)
    assert [(x.step, x.loss) for x in r.read_path(str(d))] == first and len(parsed) == n
    (sst,) = d.glob("*.sst")
    os.utime(sst, ns=(sst.stat().st_atime_ns, sst.stat().st_mtime_ns + 10**9))
    assert [(x.step, x.loss) for x in r.read_path(str(d))] == first and len(parsed) == n + 1


@pytest.mark.parametrize("sdk", SDKS)
def test_the_runs_attributes_are_its_config(sdk):
    """``run["hparams"] = {"lr": 3e-4, "batch_size": 32}`` (meta/chunks/<hash>/attrs/...)
    goes through the config rules every tracker's config goes through."""
    repo = REPO.parent / sdk
    logged = json.loads((repo / "logged.json").read_text())
    d = repo / ".aim" / "seqs" / "chunks" / logged["spiky"]["hash"]
    r = aim.AimRunReader(str(d))
    r.read_path(str(d))
    assert r.run_info["peak_lr"] == 3e-4 and r.run_info["batch_size"] == 32
    assert r.run_info["aim_name"] == "spiky" and r.run_info["aim_experiment"] == "fixtures"
    d = repo / ".aim" / "seqs" / "chunks" / logged["killed"]["hash"]
    r = aim.AimRunReader(str(d))
    r.read_path(str(d))
    assert "peak_lr" not in r.run_info  # (no attributes)
