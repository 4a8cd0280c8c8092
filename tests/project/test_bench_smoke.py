"""Tiny checks that the benchmark harness (bench/) still works: the generators'
formats are read back by our readers, the baseline rules and the scorer behave.
Seconds, no large files."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from helpers import paths

ROOT = paths.ROOT
sys.path.insert(0, os.path.join(ROOT, "bench"))

gen = pytest.importorskip("gen")
quality = pytest.importorskip("quality")

from tsm_tui.sources import reading, registry  # noqa: E402


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setattr(gen, "OUT", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("fmt,name", [("jsonl", "jsonl"), ("megatron", "megatron"), ("tensorboard", "tensorboard")])
def test_generated_logs_read_back(out, fmt, name):
    p = gen.generate(fmt, 300)
    reader, fi = registry.open_reader(p)
    assert fi.format == name
    recs = list(reading.read_records(p, reader))
    want = list(gen.curve(300))
    assert [r.step for r in recs] == [w[0] for w in want]
    assert reader.skipped == 0
    for r, (_, loss, gn, lr) in zip(recs, want):
        assert math.isclose(r.loss, loss, rel_tol=1e-5)
        assert math.isclose(r.grad_norm, gn, rel_tol=2e-3)
        assert math.isclose(r.lr, lr, rel_tol=1e-5)


def test_rules_and_scoring():
    ser = [(s, 2.0 + 0.01 * math.sin(s)) for s in range(1, 600)]
    ser[400] = (401, 9.0)
    assert quality.seed_rule(ser) == [("rule", 401)]
    assert quality.olmo_rule(ser) == [("rule", 401)]
    sc = quality.score([("rule", 401), ("rule", 50)], {"spike": [400]}, 600)
    assert sc["labels"]["spike"] == [1, 1] and sc["alerts"] == [1, 2]


def test_replay_child_bare_json(out):
    p = gen.generate("jsonl", 50)
    r = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "replay_child.py"), "bare-json", p],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(r.stdout)["records"] == 50
