"""Real CPU training runs (tests/data/frameworks, made by make_framework_runs.py) read end
to end: every file named with its format, one source used, config values found."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tsm_tui.analysis.replay import analyze
from helpers import paths

RUNS = Path(paths.DATA) / "frameworks"


def files(a):
    return {os.path.relpath(f.path, a.run.path): (f.format, f.records, f.used) for f in a.run.files}


def test_hf_trainer_run_dir():
    a = analyze(str(RUNS / "hf_trainer"))
    fs = files(a)
    assert fs["trainer_state.json"] == ("hf-trainer-state", 63, True)  # 60 steps + 3 evals
    assert fs["train.log"] == ("hf-stdout", 63, False)  # same series from stdout: not counted again
    tb = [v for k, v in fs.items() if "tfevents" in k]
    assert tb == [("tensorboard", 60, False)]
    assert not any("checkpoint-" in k for k in fs)  # the root trainer_state.json supersedes them
    info = a.monitor.state.info
    assert info.total_steps == 60 and info.batch_size == 8 and info.params
    assert len(info.checkpoints) == 3
    assert a.monitor.records == 63


def test_hf_trainer_checkpoints_only(tmp_path):
    d = tmp_path / "out"
    shutil.copytree(RUNS / "hf_trainer", d)
    (d / "trainer_state.json").unlink()
    (d / "train.log").unlink()
    shutil.rmtree(d / "runs")
    a = analyze(str(d))
    fs = files(a)
    assert fs == {os.path.join("checkpoint-60", "trainer_state.json"): ("hf-trainer-state", 63, True)}


def test_lightning_run_dir():
    a = analyze(str(RUNS / "lightning"))
    fs = files(a)
    assert fs == {os.path.join("lightning_logs", "version_0", "metrics.csv"): ("lightning-csv", 123, True)}
    info = a.monitor.state.info
    assert info.total_steps == 60 and info.warmup_steps == 6 and info.peak_lr == 3e-3 and info.batch_size == 8
    st = a.monitor.state
    assert st.last_step == 59


def test_tensorboard_only_dir():
    a = analyze(str(RUNS / "tensorboard_only"))
    ((fmt, n, used),) = files(a).values()
    assert (fmt, n, used) == ("tensorboard", 80, True)
    info = a.monitor.state.info
    assert info.total_steps == 80 and info.warmup_steps == 8 and info.clip == 1.0
