"""sources/locate.py: the file and line of the record logged at a step (the CI formats'
locations), on real formats, across chunk boundaries, resumes, rotated segments and
over-long lines."""

from __future__ import annotations

import gzip
import json
import os

from tsm_tui.sources import registry
from tsm_tui.sources.locate import relative, step_lines
from helpers import paths

ROOT = paths.ROOT
REAL = os.path.join(ROOT, "tests", "data", "real")


def _reader(path):
    reader, _ = registry.open_reader(path)
    assert reader is not None, path
    return reader


def _line(path, n):
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, ln in enumerate(f, 1):
            if i == n:
                return ln
    raise AssertionError(f"{path} has no line {n}")


def test_megatron_text_lines():
    p = os.path.join(ROOT, "sample_runs", "spike_no_recover", "train.log")
    got = step_lines(p, _reader(p), [900, 905, 1020, 123456])
    assert set(got) == {900, 905, 1020}  # a step the log does not have is left out
    for step, (f, n) in got.items():
        assert f == p and f" iteration {step:>8}/" in _line(p, n)


def test_csv_rows_and_a_step_with_two_rows_takes_the_last():
    p = os.path.join(ROOT, "sample_runs", "plateau", "metrics.csv")  # Lightning: train and val rows per step
    got = step_lines(p, _reader(p), [457, 1499])
    assert _line(p, got[457][1]).split(",")[3] == "457"
    with open(p) as f:
        rows = [i for i, ln in enumerate(f, 1) if ln.split(",")[3:4] == ["1499"]]
    assert len(rows) == 2
    assert got[1499][1] == rows[-1]


def test_resumed_run_locates_the_record_the_checks_kept():
    p = os.path.join(ROOT, "sample_runs", "resumed", "metrics.jsonl")
    with open(p) as f:
        lines = [i for i, ln in enumerate(f, 1) if json.loads(ln).get("step") == 1205]
    assert len(lines) == 2  # written before the crash and again after the resume
    assert step_lines(p, _reader(p), [1205])[1205] == (p, lines[-1])


def test_olmo_block_is_located_at_the_line_that_closes_it():
    p = os.path.join(REAL, "olmo_train_1B.log")
    got = step_lines(p, _reader(p), [2519])
    header = next(i for i in range(1, 400) if "[step=2519/" in _line(p, i))
    n = got[2519][1]
    # the block's values follow its header; the next header (or any other line) closes it
    assert n > header and not _line(p, n).startswith((" ", "\t"))
    assert all(_line(p, i).startswith((" ", "\t")) for i in range(header + 1, n))


def test_chunk_boundaries_and_over_long_lines(tmp_path):
    p = tmp_path / "metrics.jsonl"
    want = {}
    with open(p, "w") as f:
        n = 0
        for s in range(1, 40001):  # ~2.6 MiB: three chunks
            if s == 20000:
                f.write('{"note": "' + "x" * (2 << 20) + '"}\n')  # a 2 MiB line: dropped, still a line
                n += 1
            f.write(json.dumps({"step": s, "loss": 2.0 + (s % 7) / 100, "lr": 1e-4}) + "\n")
            n += 1
            if s in (1, 15000, 19999, 20000, 39999, 40000):
                want[s] = n
    got = step_lines(str(p), _reader(str(p)), want)
    assert {s: ln for s, (_, ln) in got.items()} == want


def test_rotated_segments_are_read_first_and_gz_has_no_line(tmp_path):
    old = tmp_path / "train.log.1.gz"
    cur = tmp_path / "train.log"
    with gzip.open(old, "wt") as f:
        for s in range(1, 101):
            f.write(f"step {s} | loss {3 - s / 1000:.4f} | lr 1.0e-04\n")
    with open(cur, "w") as f:
        for s in range(101, 201):
            f.write(f"step {s} | loss {3 - s / 1000:.4f} | lr 1.0e-04\n")
    got = step_lines(str(cur), _reader(str(cur)), [50, 150], segments=[str(old)])
    assert got[50] == (str(old), None)
    assert got[150] == (str(cur), 50)


def test_formats_without_lines_give_nothing():
    tb = os.path.join(ROOT, "tests", "data", "frameworks", "tensorboard_only", "tb")
    p = os.path.join(tb, os.listdir(tb)[0])
    assert step_lines(p, _reader(p), [1, 2, 3]) == {}


def test_relative_inside_and_outside_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert relative(str(tmp_path / "a" / "b.log")) == os.path.join("a", "b.log")
    assert relative("/elsewhere/x.log") == "/elsewhere/x.log"
