"""One run is one run (issue 30): sibling loggers of one job, checkpoints beside them,
two writers in one file through block-buffered stdout, distinct steps counted when
segments revisit earlier steps. The logs are real (tests/data/frameworks, made on the
CPU by make_framework_runs.py with real Lightning, W&B, MLflow and torch.distributed)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import paths
from helpers.livefiles import tb_event
from test_formats import read  # noqa: E402

from tsm_tui.analysis.replay import analyze, analyze_runs
from tsm_tui.analysis.run_open import open_runs
from tsm_tui.cli import main
from tsm_tui.core.steps import StepSet

RUNS = Path(paths.DATA) / "frameworks"
DUP = "duplicate record (same step, same values: two writers in one file)"


def report(path, capsys, *extra) -> dict:
    rc = main([str(path), "--report", "--json", *extra])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def used(d: dict) -> str:
    (f,) = [f for f in d["files"] if f["used"]]
    return f["path"]


# ----------------------------------------------------------------------------- sibling loggers
def test_lightning_csv_and_tensorboard_loggers_with_root_checkpoints_are_one_run(capsys):
    """logger=[CSVLogger(save_dir, name="csv"), TensorBoardLogger(save_dir, name="tb")] and
    ModelCheckpoint(dirpath=save_dir/"checkpoints"): one run, the single-run JSON, the root
    checkpoints its own, the richest source used, the other listed."""
    d = report(RUNS / "lightning_two_loggers", capsys)
    assert "kind" not in d and "runs" not in d  # the single-run shape
    assert [c["step"] for c in d["run"]["checkpoints"]] == [20, 40, 60]
    assert d["run"]["checkpoints"][0]["name"] == os.path.join("checkpoints", "epoch=0-step=20.ckpt")
    ck = next(c for c in d["checks"] if c["id"] == "checkpoints")
    assert "no checkpoints found" not in ck["summary"]
    assert used(d).endswith(os.path.join("csv", "version_0", "metrics.csv"))  # 123 records against 60
    tb = [f for f in d["files"] if "tfevents" in f["path"]]
    assert len(tb) == 1 and not tb[0]["used"] and tb[0]["records"] == 60
    assert not any(a.get("also_in_runs") for a in d["alerts"])
    assert d["steps"]["first"] == 0 and d["steps"]["last"] == 59 and d["steps"]["count"] == 60
    assert d["run"]["total_steps"] == 60 and "hparams.yaml" in " ".join(d["run"]["config_files"])


def test_default_lightning_logs_plus_a_tb_logger_is_one_run(capsys):
    """CSVLogger(save_dir) (lightning_logs/) plus TensorBoardLogger(save_dir, name="tb"), the
    default checkpointing into the first logger's version directory."""
    d = report(RUNS / "lightning_default_plus_tb", capsys)
    assert "kind" not in d
    assert d["run"]["checkpoints"] == [
        {"step": 60, "name": os.path.join("lightning_logs", "version_0", "checkpoints", "epoch=0-step=60.ckpt")}
    ]
    assert len([f for f in d["files"] if f["format"]]) == 2


def test_mlflow_and_csv_loggers_are_one_run(capsys):
    d = report(RUNS / "mlflow_csv", capsys)
    assert "kind" not in d
    fmts = sorted(f["format"] for f in d["files"] if f["format"])
    assert fmts == ["lightning-csv", "mlflow"]
    assert [c["step"] for c in d["run"]["checkpoints"]] == [20, 40, 60]


def test_wandb_and_tensorboard_are_one_run(capsys, tmp_path):
    """wandb.init(mode="offline") beside SummaryWriter(save_dir/"tb"): the W&B side is read from
    its console capture (files/output.log), never from the .wandb binary: the run is one with
    or without it."""
    d = report(RUNS / "wandb_tb", capsys)
    assert "kind" not in d
    fmts = {os.path.basename(f["path"]): f["format"] for f in d["files"]}
    assert fmts["output.log"] == "wandb-output"
    assert not any(p.startswith("debug") for p in fmts)  # W&B's own debug logs are no training log
    assert [c["step"] for c in d["run"]["checkpoints"]] == [20, 40, 60, 80]
    assert d["steps"]["count"] == 80
    cp = tmp_path / "wandb_tb"
    shutil.copytree(RUNS / "wandb_tb", cp, symlinks=True)
    for w in cp.glob("wandb/*/*.wandb"):
        w.unlink()
    d2 = report(cp, capsys)
    assert "kind" not in d2 and d2["steps"]["count"] == 80


def test_two_jobs_in_one_save_dir_stay_two_runs(capsys):
    """The same script run twice into one save_dir (another seed and LR): version_0 of both
    loggers is one job, version_1 the other; neither takes the other's files."""
    runs = open_runs(str(RUNS / "lightning_two_jobs"))
    assert sorted(r.name for r in runs) == [os.path.join("csv", "version_0"), os.path.join("csv", "version_1")]
    for r in runs:
        v = os.path.basename(r.name)
        assert {os.path.basename(os.path.dirname(f.path)) for f in r.files} == {v}
        assert len(r.files) == 2
        assert [c[0] for c in r.info.checkpoints] == [60]
    d = report(RUNS / "lightning_two_jobs", capsys)
    assert d["kind"] == "runs" and len(d["runs"]) == 2


def test_different_series_in_sibling_loggers_stay_two_runs(tmp_path, capsys):
    """csv/version_0 of one job beside tb/version_0 of another (same version number, other
    losses): two runs, as before."""
    shutil.copytree(RUNS / "lightning_two_jobs" / "csv" / "version_0", tmp_path / "csv" / "version_0")
    shutil.copytree(RUNS / "lightning_two_jobs" / "tb" / "version_1", tmp_path / "tb" / "version_0")
    names = sorted(r.name for r in open_runs(str(tmp_path)))
    assert names == [os.path.join("csv", "version_0"), os.path.join("tb", "version_0")]


def test_versions_of_one_logger_are_never_merged(tmp_path):
    """lightning_logs/version_0 and version_1 holding the same series (a rerun of a
    deterministic job) are two runs: one logger, two versions."""
    for v in (0, 1):
        shutil.copytree(
            RUNS / "lightning_two_loggers" / "csv" / "version_0", tmp_path / "lightning_logs" / f"version_{v}"
        )
    assert sorted(r.name for r in open_runs(str(tmp_path))) == [
        os.path.join("lightning_logs", "version_0"),
        os.path.join("lightning_logs", "version_1"),
    ]


def test_two_loggers_under_one_name_are_one_run(capsys):
    """logger=[CSVLogger(d), TensorBoardLogger(d)] (both "lightning_logs": the CSV is version_0,
    the TensorBoard version_1) read as two runs of one job, each with every alert; now one run,
    its checkpoint its own, the richest file used and the other listed."""
    d = report(RUNS / "lightning_one_name_two_loggers", capsys)
    assert "kind" not in d and "runs" not in d
    assert used(d).endswith(os.path.join("version_0", "metrics.csv"))
    tb = [f for f in d["files"] if "tfevents" in f["path"]]
    assert len(tb) == 1 and not tb[0]["used"] and tb[0]["records"] == 60
    assert [c["step"] for c in d["run"]["checkpoints"]] == [60]


def test_two_loggers_under_one_name_of_two_jobs_stay_two_runs(tmp_path):
    """The same two logger directories written at different times (a CSV job, then a
    TensorBoard job of the same seed much later): two runs, as two versions of one kind are."""
    src = RUNS / "lightning_one_name_two_loggers" / "lightning_logs"
    shutil.copytree(src, tmp_path / "lightning_logs")
    for f in (tmp_path / "lightning_logs" / "version_1").rglob("*"):
        os.utime(f, (f.stat().st_mtime + 3600, f.stat().st_mtime + 3600))
    assert sorted(r.name for r in open_runs(str(tmp_path))) == [
        os.path.join("lightning_logs", "version_0"),
        os.path.join("lightning_logs", "version_1"),
    ]


def test_sibling_loggers_in_a_sweep(tmp_path, capsys):
    """A sweep of two jobs, each with two loggers: two runs, each one job."""
    shutil.copytree(RUNS / "lightning_two_loggers", tmp_path / "lr_3e-3")
    shutil.copytree(RUNS / "lightning_two_jobs", tmp_path / "lr_mixed")
    runs = analyze_runs(str(tmp_path))
    names = sorted(a.run.name for a in runs)
    assert names == [
        "lr_3e-3",
        os.path.join("lr_mixed", "csv", "version_0"),
        os.path.join("lr_mixed", "csv", "version_1"),
    ]
    one = next(a for a in runs if a.run.name == "lr_3e-3")
    assert [c[0] for c in one.monitor.state.info.checkpoints] == [20, 40, 60]


@pytest.mark.slow
def test_follow_sees_one_run(tmp_path):
    from helpers.follow import Follow

    shutil.copytree(RUNS / "lightning_two_loggers", tmp_path / "job")
    f = Follow(tmp_path / "job", "--json")
    try:
        assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
        runs = {json.loads(x).get("run") for x in f.out if x.startswith("{")}
        assert len(runs - {None}) <= 1, runs
    finally:
        f.stop()


# ----------------------------------------------------------------------------- two writers
def test_two_ranks_through_block_buffered_stdout(capsys):
    """``python train.py > train.log`` whose two DDP ranks (torch.multiprocessing.spawn) print
    every line: Python's 8 KiB buffer interleaves the copies in blocks of 143 lines. One series,
    no resume, every copy a counted duplicate."""
    d = report(RUNS / "two_writers" / "spawn" / "train.log", capsys)
    assert d["resumes"] == []
    assert d["steps"] == {"first": 1, "last": 900, "count": 900, "records": 900}
    assert d["files"][0]["skip_reasons"] == {DUP: 900}


def test_two_ranks_under_torchrun(capsys):
    """torchrun runs its workers unbuffered: line by line, some lines overwritten at a shared
    offset (not records: console noise)."""
    d = report(RUNS / "two_writers" / "torchrun" / "train.log", capsys)
    assert d["resumes"] == [] and d["steps"]["count"] == 900 and d["steps"]["records"] == 900


def block_interleave(lines: list[str], lag_max: int, seed: int) -> list[str]:
    """Two writers' copies of ``lines``, writer B behind A by up to ``lag_max`` lines, in
    blocks (each writer flushes a random number of lines at a time)."""
    import random

    rnd = random.Random(seed)
    out, a, b, n = [], 0, 0, len(lines)
    while a < n or b < n:
        if a < n and (a - b < lag_max and (b >= a or rnd.random() < 0.5)):
            k = min(n - a, rnd.randint(1, lag_max), lag_max - (a - b))
            out += lines[a : a + k]
            a += k
        else:
            k = min(a - b, rnd.randint(1, lag_max))
            out += lines[b : b + k]
            b += k
    return out


@pytest.mark.parametrize("lag,seed", [(76, 1), (143, 2), (300, 3), (1000, 4)])
def test_lags_up_to_a_buffer_of_lines(tmp_path, capsys, lag, seed):
    lines = [
        f"step {s} | loss {5 - s / 1000:.4f} | lr 3.000e-03 | grad_norm {1 + (s % 7) / 10:.4f}\n"
        for s in range(1, 2001)
    ]
    (tmp_path / "train.log").write_text("".join(block_interleave(lines, lag, seed)))
    d = report(tmp_path / "train.log", capsys)
    assert d["resumes"] == [] and d["steps"]["count"] == 2000 and d["steps"]["records"] == 2000
    assert d["files"][0]["skip_reasons"] == {DUP: 2000}


# ----------------------------------------------------------------------------- distinct steps
def test_steps_count_counts_revisited_steps_once(tmp_path, capsys):
    """A file of excerpts whose segments go back and forth: every distinct step counts once
    (11 of 65 were counted: only steps past the running maximum)."""
    segs = [(100, 110), (1, 20), (50, 60), (15, 30), (200, 205), (31, 40)]
    rows = [
        json.dumps({"step": s, "loss": 3 + (s % 5) / 10 + k / 100})
        for k, (a, b) in enumerate(segs)
        for s in range(a, b + 1)
    ]
    (tmp_path / "m.jsonl").write_text("\n".join(rows) + "\n")
    want = len({s for a, b in segs for s in range(a, b + 1)})
    d = report(tmp_path / "m.jsonl", capsys)
    assert d["steps"]["count"] == want


def test_step_set_is_exact_and_small():
    s = StepSet()
    assert s.add_array(np.arange(0, 10_000_000, 10)) == 1_000_000
    assert len(s.lo) == 1  # one run of stride 10
    assert s.add_array(np.arange(500, 2000, 10)) == 0  # a resume repeating steps
    assert s.add(5) and 5 in s and 15 not in s and 20 in s
    assert s.count == 1_000_001 and len(s.lo) <= 3


def test_live_routes_a_new_file_of_a_sibling_logger_to_the_merged_run(tmp_path):
    """A file that appears later in tb/version_0 belongs to the run csv/version_0 was merged
    into, not to a new run named tb/version_0."""
    from tsm_tui.analysis.live import LiveLoop, LiveUpdate
    from tsm_tui.core.settings import Settings

    job = tmp_path / "job"
    shutil.copytree(RUNS / "lightning_two_loggers", job)
    runs = open_runs(str(tmp_path))
    assert len(runs) == 1
    loop = LiveLoop.many(None, str(tmp_path), Settings(), known=runs)
    new = job / "tb" / "version_0" / "events.out.tfevents.1796430999.vm.1.0"
    new.write_bytes(b"")
    up = LiveUpdate()
    assert loop._route(str(new), up).name == runs[0].name and up.new_runs == []


# ----------------------------------------------------------------------------- one file, several launches
def test_launches_appended_to_one_slurm_out(capsys):
    """A real Slurm-style .out: a smoke test (10 steps), a run from scratch that crashed at
    step 70 (its traceback in the file), its resume from the step-50 checkpoint to 150, then
    the script re-submitted from scratch to step 40. Each launch a segment; the checks judge
    the last run."""
    d = report(RUNS / "launches" / "slurm-4242.out", capsys)
    assert [(s["kind"], s["first"], s["last"], s["records"]) for s in d["launches"]] == [
        ("start", 1, 10, 10),
        ("new run", 1, 70, 70),
        ("resume", 51, 150, 100),
        ("new run", 1, 40, 40),
    ]
    assert d["steps"]["first"] == 1 and d["steps"]["last"] == 40  # the judged run
    # the whole file: each run's steps (10 + 150 + 40: the resume's 51-70 counted once)
    assert d["steps"]["records"] == 220 and d["steps"]["count"] == 200
    assert d["resumes"] == []  # (the resume 70 -> 51 belongs to an earlier run)
    assert "skip_reasons" not in d["files"][0]  # no launch taken for a second writer's copies
    assert main([str(RUNS / "launches" / "slurm-4242.out"), "--report"]) in (0, 1)
    assert "launches: 4 in this file (start 1-10, new run 1-70, resume 51-150, new run 1-40)" in capsys.readouterr().out


def curve_rows(a: int, b: int, top: float, end: float, n: int, spike_at: int | None = None, nan_at=None):
    rows = []
    for s in range(a, b + 1):
        loss = end + (top - end) * np.exp(-s / (n / 5))
        if s == spike_at:
            loss *= 6
        rows.append(
            json.dumps({"step": s, "loss": float("nan") if s == nan_at else round(float(loss), 4), "lr": 1e-4}).replace(
                "NaN", "NaN"
            )
        )
    return rows


def test_a_new_run_appended_without_banner_is_judged_alone(tmp_path, capsys):
    """No banner (JSONL): the step restarting at 1 with the loss back at its starting level is
    a new run; the first run's NaN is not the new run's verdict."""
    rows = curve_rows(1, 300, 5.0, 2.0, 300, nan_at=280) + curve_rows(1, 200, 5.1, 2.2, 200)
    (tmp_path / "m.jsonl").write_text("\n".join(rows) + "\n")
    d = report(tmp_path / "m.jsonl", capsys)
    assert [(s["kind"], s["first"], s["last"]) for s in d["launches"]] == [("start", 1, 300), ("new run", 1, 200)]
    assert next(c for c in d["checks"] if c["id"] == "nonfinite")["status"] == "PASS"
    assert d["steps"]["first"] == 1 and d["steps"]["last"] == 200


def test_a_relaunch_that_logged_no_loss_leaves_the_run_before_it_judged(tmp_path, capsys):
    """A launch back at step 0 whose records carry no loss (its LR printed, then the file ends: it died,
    or is still starting) shows nothing of what it is: not judged, said, and the run before it is the
    one the checks judge (here a loss that never moves: a plateau FAIL), not a resume to step 0 that
    leaves nothing to judge."""
    lines = []
    for e in range(60):
        lines += [f"epoch: {e} start, learning rate: 0.01", f"epoch: {e} end, loss: 2.1657{e % 3}"]
    lines += [
        "Traceback (most recent call last):",
        "RuntimeError: CUDA out of memory.",
        "epoch: 0 start, learning rate: 0.01",
    ]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    d = report(tmp_path / "train.log", capsys)
    assert [(s["kind"], s["first"], s["last"], s["records"]) for s in d["launches"]] == [
        ("start", 0, 59, 120),
        ("no loss", 0, 0, 1),
    ]
    assert d["steps"]["first"] == 0 and d["steps"]["last"] == 59
    assert next(c for c in d["checks"] if c["id"] == "plateau")["status"] == "FAIL"
    assert main([str(tmp_path / "train.log"), "--report"]) == 1  # (EXIT_CRITICAL)
    out = capsys.readouterr().out
    assert "the checks judge the run that logged losses" in out
    assert "the launch at step 0 logged no loss or grad norm (1 record(s)): not judged" in out
    # a relaunch whose loss is NaN from its first record is judged (a NaN is a loss): never hidden
    lines[-1:] = ["epoch: 0 start, learning rate: 0.01", "epoch: 0 end, loss: nan", "epoch: 1 end, loss: nan"]
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    d = report(tmp_path / "train.log", capsys)
    assert next(c for c in d["checks"] if c["id"] == "nonfinite")["status"] == "FAIL"


def test_an_earlier_runs_findings_are_said_outside_the_verdict(tmp_path, capsys):
    """The first run's NaN is not the new run's verdict, but it is said: the earlier run's
    checks at its end (``earlier_runs``), in the JSON and the text report."""
    rows = curve_rows(1, 300, 5.0, 2.0, 300, nan_at=280) + curve_rows(1, 200, 5.1, 2.2, 200)
    (tmp_path / "m.jsonl").write_text("\n".join(rows) + "\n")
    d = report(tmp_path / "m.jsonl", capsys)
    assert next(c for c in d["checks"] if c["id"] == "nonfinite")["status"] == "PASS"
    (run,) = d["earlier_runs"]
    assert (run["first_step"], run["last_step"]) == (1, 300)
    assert {c["id"]: c["status"] for c in run["checks"]}["nonfinite"] == "FAIL"
    assert any(a["check"] == "nonfinite" and a["step"] == 280 for a in run["alerts"])
    # ... and its alerts are in the alert list, after the judged run's, each marked with its run
    # (fresh46: the NaN of the first of 33 PINN runs appended to one file was in a summary line only)
    (nan,) = [a for a in d["alerts"] if a["check"] == "nonfinite"]
    assert nan["step"] == 280 and nan["earlier_run"] == "steps 1-300"
    assert nan["message"].startswith("(an earlier run in this file, steps 1-300) ")
    marks = ["earlier_run" in a for a in d["alerts"]]
    assert marks == sorted(marks)  # (the judged run's first)
    assert d["critical"] == 0
    assert main([str(tmp_path / "m.jsonl"), "--report"]) == 0  # (the verdict: the last run's)
    out = capsys.readouterr().out
    assert "earlier runs in this file" in out and "steps 1-300: " in out, out[-3000:]
    assert "NaN/Inf Values FAIL: 1 non-finite record(s), first at step 280" in out
    assert "step 280: (an earlier run in this file, steps 1-300) " in out
    # the CI formats report the judged run's findings: the earlier run's NaN is no annotation
    assert main([str(tmp_path / "m.jsonl"), "--report", "--format", "github"]) == 0
    notes = [x for x in capsys.readouterr().out.splitlines() if x.startswith(("::error", "::warning", "::notice"))]
    assert notes and not any("earlier run" in x for x in notes)


def test_an_earlier_runs_largest_alerts_are_kept_and_the_rest_counted():
    """An earlier run with more alerts than EARLIER_ALERTS keeps its largest ones (a
    critical and the biggest spikes, wherever they were), not its newest, and says how many
    it left out (issue 26, fresh4 vae3d: a 16x spike among 32 dropped, 0 counted)."""
    from tsm_tui.analysis.monitor import EARLIER_ALERTS, Monitor
    from tsm_tui.core.record import Alert, Severity, StepRecord

    mon = Monitor()
    for s in range(1, 301):
        mon.feed(StepRecord(s, loss=5.0 - s / 100))
    big = [Alert("loss_spike", Severity.WARNING, 30, "16x", value=16.0, baseline=1.0, key="s30")]
    crit = [Alert("loss_spike", Severity.CRITICAL, 40, "sustained", value=3.0, baseline=1.0, key="s40")]
    small = [
        Alert("grad_norm", Severity.WARNING, 100 + i, "2x", value=2.0, baseline=1.0, key=f"g{i}") for i in range(40)
    ]
    mon._store(big + crit + small)
    mon._keep_earlier(1, 300, set())
    (run,) = mon.earlier_runs
    assert len(run.alerts) == EARLIER_ALERTS and run.not_kept == len(small) + 2 - EARLIER_ALERTS
    assert [a.step for a in run.alerts[:2]] == [30, 40]  # (kept, in step order)
    assert [a.step for a in run.alerts] == sorted(a.step for a in run.alerts)
    assert run.to_json()["alerts_not_kept"] == run.not_kept


def test_a_relaunchs_spikes_in_the_run_before_it_are_said():
    """Real (bench/corpus/fresh2, openpi, Apache-2.0): a 164-record pi0 fine-tune with 8
    single-record loss spikes, then a new run from step 0 cancelled at 12800. The checks judge
    the new run (no spike); the long run's spikes are said as an earlier run's."""
    path = Path(__file__).parents[2] / "bench" / "corpus" / "fresh2" / "openpi_jax_pi0_three_launches"
    (an,) = analyze_runs(str(path))
    mon = an.monitor
    assert next(c for c in an.checks() if c.id == "loss_spike").status.value == "PASS"
    (run,) = mon.earlier_runs
    assert (run.first_step, run.last_step) == (0, 16300)
    spikes = {a.step for a in run.alerts if a.check == "loss_spike"}
    assert {14300, 12800, 9600} <= spikes


def test_a_step_counter_reset_with_the_loss_where_it_was_is_a_resume(tmp_path, capsys):
    """Steps back at 1 but the loss goes on from where it was (an epoch-local counter, a
    resume that counts from 0): the same run, judged whole, as before."""
    rows = curve_rows(1, 300, 5.0, 2.0, 300)
    rows += [json.dumps({"step": s, "loss": round(2.0 - s / 1000, 4), "lr": 1e-4}) for s in range(1, 201)]
    (tmp_path / "m.jsonl").write_text("\n".join(rows) + "\n")
    d = report(tmp_path / "m.jsonl", capsys)
    assert [s["kind"] for s in d["launches"]] == ["start", "resume"]
    assert d["resumes"] == [{"from": 300, "to": 1}]


def test_a_new_job_is_told_by_its_first_losses_not_its_first_loss(tmp_path, capsys):
    """fresh4 slurm_two_launches_flat_sharpe (issue 26): a second job after a launch banner,
    back at epoch 0 on a signed loss; its first two losses (-0.076, -0.090) sit near the first
    job's end level (-0.036), the next ones (0.095-0.107) near its start (0.038). The median of
    the new launch's first 5 losses decides: a new run, judged alone (it never learns), not a
    resume of 400 records on 200 steps."""
    import random

    rnd = random.Random(5)
    lines = ["Launching HPC Training from config: config.yaml"]
    job1 = [-0.0355, -0.0342] + [0.038 - 0.074 * i / 197 for i in range(198)]
    lines += [f"Epoch {i}: Train Loss {v:.4f}" for i, v in enumerate(job1)]
    lines += ["Training finished.", "Launching HPC Training from config: config.yaml"]
    job2 = [-0.0758, -0.0899] + [0.106 + rnd.uniform(-0.0005, 0.0005) for _ in range(198)]
    lines += [f"Epoch {i}: Train Loss {v:.4f}" for i, v in enumerate(job2)]
    (tmp_path / "train.out").write_text("\n".join(lines) + "\n")
    d = report(tmp_path / "train.out", capsys)
    assert [(s["kind"], s["first"], s["last"]) for s in d["launches"]] == [("start", 0, 199), ("new run", 0, 199)]
    assert d["resumes"] == []
    assert next(c for c in d["checks"] if c["id"] == "plateau")["status"] in ("WARN", "FAIL")


def test_a_resume_after_a_banner_continues_the_run(tmp_path, capsys):
    """A crash between two log lines, the job resumed past the last step logged: one series
    (a 'continue' launch), judged whole."""
    lines = [f"step {s} | loss {5 - s / 100:.4f} | lr 3.000e-03" for s in range(1, 101)]
    lines += [
        "Traceback (most recent call last):",
        "RuntimeError: NCCL timeout",
        "Namespace(resume=True, max_steps=200)",
    ]
    lines += [f"step {s} | loss {4 - s / 200:.4f} | lr 3.000e-03" for s in range(101, 201)]
    (tmp_path / "slurm-7.out").write_text("\n".join(lines) + "\n")
    d = report(tmp_path / "slurm-7.out", capsys)
    assert [(s["kind"], s["first"], s["last"]) for s in d["launches"]] == [("start", 1, 100), ("continue", 101, 200)]
    assert d["steps"]["first"] == 1 and d["steps"]["last"] == 200 and d["resumes"] == []


# ----------------------------------------------------------------------------- big trees (issue 33 item 7)
def distinct_log(i: int, n: int = 30) -> str:
    """Run ``i`` of a sweep: its own level and slope, some noise (runs 1e-3 apart in loss)."""
    return "".join(
        json.dumps(
            {
                "step": s,
                "loss": round(5 - s * (0.01 + i * 1e-5) + i * 1e-3 + 3.7e-4 * ((s * 7 + i * 13) % 11), 5),
                "lr": 1e-4,
            }
        )
        + "\n"
        for s in range(1, n + 1)
    )


@pytest.fixture
def counted(monkeypatch):
    """The series comparisons made by the run clustering and the sibling merge."""
    from tsm_tui.sources import runs as R
    from tsm_tui.sources import siblings

    got = {"compared": 0}
    orig = R.cluster

    def cluster(units, stats=None):
        return orig(units, got)

    monkeypatch.setattr(R, "cluster", cluster)
    orig_merge = siblings.merge

    def merge(*a, **k):
        out, n = orig_merge(*a, **k)
        got["compared"] += n
        return out, n

    import tsm_tui.analysis.run_open as E

    monkeypatch.setattr(E, "merge_siblings", merge)
    return got


def test_a_directory_of_many_runs_costs_linear_comparisons(tmp_path, counted):
    """N distinct runs' logs in one directory: every pair was compared (N^2 / 2 = 80,000 for
    400); now a bounded number per file."""
    n = 400
    for i in range(n):
        (tmp_path / f"run_{i:05d}.jsonl").write_text(distinct_log(i))
    runs = open_runs(str(tmp_path))
    assert len(runs) == n
    assert counted["compared"] <= 25 * n, counted


@pytest.mark.slow
def test_the_same_series_twice_is_still_found_among_many(tmp_path, counted):
    """200 runs, each written twice (JSONL and stdout) into one directory: 200 runs of two
    files each, found with a bounded number of comparisons per file."""
    n = 200
    for i in range(n):
        (tmp_path / f"run_{i:05d}.jsonl").write_text(distinct_log(i))
        rows = [json.loads(x) for x in distinct_log(i).splitlines()]
        (tmp_path / f"run_{i:05d}.log").write_text(
            "".join(f"step {r['step']} | loss {r['loss']:.4f} | lr {r['lr']:.1e}\n" for r in rows)
        )
    runs = open_runs(str(tmp_path))
    assert len(runs) == n
    assert all(len(r.files) == 2 and len({os.path.splitext(f.path)[0] for f in r.files}) == 1 for r in runs)
    assert counted["compared"] <= 25 * 2 * n, counted


@pytest.mark.slow
def test_many_one_run_directories_with_sibling_loggers(tmp_path, counted):
    """300 jobs, each with csv/version_0 and tb-like siblings (JSONL here), in one tree: 300
    runs, the sibling merge comparing each job's loggers only."""
    n = 300
    for i in range(n):
        for logger in ("csv", "jsonl"):
            d = tmp_path / f"job_{i:04d}" / logger / "version_0"
            d.mkdir(parents=True)
            (d / "metrics.jsonl").write_text(distinct_log(i))
    runs = open_runs(str(tmp_path))
    assert sorted(r.name for r in runs) == [f"job_{i:04d}" for i in range(n)]
    assert counted["compared"] <= 4 * n, counted


def test_a_sparse_trainer_state_is_read_to_its_data(tmp_path, capsys):
    """trainer_state.json, then a hole to 1 GiB (a file extended past its data): read to the
    hole (it was read 256 MiB deep, copied, and did not parse)."""
    hist = [{"step": s, "loss": 5 - s / 1000, "learning_rate": 1e-4} for s in range(1, 301)]
    p = tmp_path / "trainer_state.json"
    with open(p, "wb") as f:
        f.write(json.dumps({"global_step": 300, "max_steps": 300, "log_history": hist}, indent=2).encode())
        f.truncate(1 << 30)
    d = report(tmp_path, capsys)
    assert d["steps"]["count"] == 300


FRESH5 = Path(paths.BENCH) / "corpus" / "fresh5"


LUDWIG = FRESH5 / "ludwig_results_two_experiment_runs" / "results"


def test_ludwig_results_are_two_runs_read_from_their_tensorboard():
    """The statistics document is its run's per-epoch summary, not a second series: two runs
    (experiment_run, experiment_run_0), each read from its per-batch TensorBoard."""
    runs = open_runs(str(LUDWIG.parent))
    assert sorted(os.path.basename(r.path) for r in runs) == ["experiment_run", "experiment_run_0"]
    for an in analyze_runs(str(LUDWIG.parent)):
        assert "tfevents" in an.run.primary
        checks = {c.id: c for c in an.checks()}
        assert checks["loss_spike"].summary in ("no spikes in 64 loss values", "no spikes in 72 loss values")
        assert checks["overfitting"].status.value != "SKIP"


# -- a split carried by its directory -------------------------------------------------------------
def test_graphgym_split_directories_are_one_run(tmp_path):
    """GraphGym's agg/{train,val,test}/events.*, each with a ``loss`` tag per epoch: the val and
    test splits are evaluation splits of the train run (test was a training run of its own)."""
    for split, base in (("train", 2.0), ("val", 2.2), ("test", 2.3)):
        d = tmp_path / "agg" / split
        d.mkdir(parents=True)
        evs = [tb_event(s, "loss", base - s / 100) for s in range(30)] + [tb_event(s, "lr", 1e-3) for s in range(30)]
        (d / "events.out.tfevents.1668069777.host").write_bytes(b"".join(evs))
    runs = open_runs(str(tmp_path))
    assert len(runs) == 1
    _, recs, _ = read(tmp_path / "agg" / "test" / "events.out.tfevents.1668069777.host")
    assert all(r.loss is None for r in recs) and len([r for r in recs if r.val_loss is not None]) == 30
    an = analyze(str(tmp_path))
    assert "agg/train/" in an.run.primary.replace(os.sep, "/")


def test_lightning_under_wandb_is_judged_from_its_history():
    """fresh5's wandb0210 (real, committed): 16 train_loss rows in the history, 1040 bar redraws
    in the console: the history is the series; no relaunch, no "not learning" alert."""
    an = analyze(str(FRESH5 / "wandb0210_lightning_eeg_epoch_loss"))
    checks = {c.id: c for c in an.checks()}
    assert an.run.primary.endswith(".wandb") and checks["loss_spike"].summary == "no spikes in 16 loss values"
    assert not [a for a in an.alerts() if a.severity.value == "critical"]
    assert an.monitor.state.first_step == 49


def test_two_writers_whose_copies_differ_only_in_their_pace_are_duplicates(tmp_path, capsys):
    """fresh22's ms-swift logging.jsonl (Apache-2.0, committed): every record written twice, the
    copies differing in ``train_speed(iter/s)`` only: 5,918 records for 2,957 steps, fed twice to
    the checks (the grad-norm check's windows halved). The pace (speed, time, memory) of a copy is
    its writer's own: the metrics decide what a duplicate is."""
    rows = []
    for i, s in enumerate(range(5, 1005, 5)):
        rec = {"loss": 2.0 - i / 400, "grad_norm": 1.0 + (i % 7) / 10, "learning_rate": 1e-5, "global_step": s}
        rows.append(json.dumps({**rec, "train_speed(iter/s)": 0.3 + i / 1000, "memory(GiB)": 12.5}))
        rows.append(json.dumps({**rec, "train_speed(iter/s)": 0.4 + i / 1000, "memory(GiB)": 12.7}))
    (tmp_path / "logging.jsonl").write_text("\n".join(rows) + "\n")
    d = report(tmp_path, capsys)
    assert d["files"][0]["skip_reasons"] == {DUP: 200}
    assert d["steps"]["count"] == 200 and d["steps"]["records"] == 200 and not d["resumes"]
    # a copy whose loss differs is no duplicate (two runs, or a resume): kept
    rows[1] = rows[1].replace('"loss": 2.0', '"loss": 2.5')
    (tmp_path / "logging.jsonl").write_text("\n".join(rows) + "\n")
    assert report(tmp_path, capsys)["files"][0]["skip_reasons"] == {DUP: 199}


def test_a_json_log_of_one_object_an_epoch_is_stepped_by_its_epoch(tmp_path, capsys):
    """DETR / MAE / DeiT's ``log.txt``: one JSON object an epoch ``{"epoch": e, "train_loss": ..., "train_lr":
    ..., "test_loss": ...}`` and no step key: fresh25's ECG DETR log (two launches, the second from epoch 0)
    read steps 1-300 by count, its second launch's epochs 110-159 as steps 211-260; ``train_lr`` was no LR."""
    from helpers.reports import report_json

    _json = json

    rows = [
        {"epoch": e, "train_loss": 12.0 / (1 + e), "train_lr": 1e-3, "test_loss": 13.0 / (1 + e), "n_params": 8970324}
        for e in range(50)
    ] + [{"epoch": e, "train_loss": 11.0 / (1 + e), "train_lr": 1e-3, "test_loss": 12.0 / (1 + e)} for e in range(30)]
    p = tmp_path / "outputs" / "log.txt"
    p.parent.mkdir()
    p.write_text("".join(_json.dumps(r) + "\n" for r in rows))
    d = report_json(str(p.parent), capsys)
    assert (d["steps"]["first"], d["steps"]["last"]) == (0, 29)
    assert [(x["first"], x["last"]) for x in d["launches"]] == [(0, 49), (0, 29)]
    assert d["sources"]["lr"]["key"] == "train_lr" and d["sources"]["val_loss"]["key"] == "test_loss"
    assert d["files"][0]["step_source"] == "the epoch key: one record an epoch, no step key"


def test_fractional_epochs_are_no_steps(tmp_path):
    # HF-style records with a fractional epoch that reaches 1.0: counted, never stepped back to 1
    rows = [{"loss": 2.0 - i / 100, "epoch": round(i / 20, 2)} for i in range(1, 41)]
    p = tmp_path / "metrics.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    from test_formats import read

    _, recs, _ = read(p)
    assert [r.step for r in recs] == list(range(1, 41))


# ----------------------------------------------------------------------------- a step printed twice
def test_a_steps_loss_printed_again_with_more_values_is_read_once(tmp_path, capsys):
    """fresh116's console (a W&B run's output.log): "Epoch [1/100], Loss: 0.6966, Accuracy: 50.09%" then "Epoch
    [1/100], Train Loss: 0.6966, Train Accuracy: 50.09%, Val Loss: 0.6930, ...": each epoch's loss was read twice
    (200 losses for 100 epochs). The second line's loss is the one read already; its other values are kept."""
    from tsm_tui.analysis.ordering import REPEAT

    lines = []
    for e in range(1, 101):
        loss = 0.697 - e / 1000
        lines.append(f"Epoch [{e}/100], Loss: {loss:.4f}, Accuracy: 50.09%\n")
        lines.append(
            f"Epoch [{e}/100], Train Loss: {loss:.4f}, Train Accuracy: 50.09%, Val Loss: {0.69 - e / 2000:.4f}, "
            "Val Accuracy: 52.45%\n"
        )
    (tmp_path / "output.log").write_text("".join(lines))
    d = report(tmp_path / "output.log", capsys)
    assert d["steps"]["first"] == 1 and d["steps"]["last"] == 100
    checks = {c["id"]: c for c in d["checks"]}
    assert checks["loss_spike"]["summary"] == "no spikes in 100 loss values"
    assert d["files"][0]["skip_reasons"] == {REPEAT: 100}
    assert checks["overfitting"]["status"] != "SKIP"  # (the second line's validation loss is read)
