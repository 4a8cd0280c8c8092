"""A tracker's run directory is one run (sources/runs.py ``tracker_run_dir``): a W&B
run dir with its console (``files/output.log``) and its run file, wherever they sit in
it, a DVCLive directory whose metric files are its columns. The files are real: written
by the W&B SDK (tests/data/wandb/make_wandb_runs.py), by DVCLive
(tests/data/dvclive/make_dvclive_runs.py), and the corpus' real logs (bench/corpus)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import paths

from tsm_tui.analysis.replay import analyze, analyze_runs
from tsm_tui.analysis.run_open import open_runs
from tsm_tui.cli import main
from tsm_tui.core.settings import RunInfo, Settings
from tsm_tui.sources import log_files
from tsm_tui.sources.runs import file_spec, run_root

WANDB = Path(paths.DATA) / "wandb" / "sdk-0.31.0" / "console_per_batch"
DVCLIVE = Path(paths.DATA) / "dvclive"
CORPUS = Path(paths.BENCH) / "corpus"


def report(path, capsys, *extra) -> dict:
    rc = main([str(path), "--report", "--json", *extra])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def run_dir(root: Path) -> Path:
    (d,) = (root / "wandb").iterdir()
    return d


# ----------------------------------------------------------------------------- W&B
def test_a_wandb_run_dir_is_one_run_whatever_its_console_says(capsys):
    """The history counts iterations (3, 6, 9 ...), the console epochs (0, 1, 2 ...): as
    series they disagree, but a run dir is one process's run: one run, its run file read,
    its console listed beside it (it was two runs: the .wandb file and files/output.log)."""
    d = report(WANDB, capsys)
    assert "kind" not in d and "runs" not in d  # the single-run shape
    fmts = {os.path.basename(f["path"]): f["format"] for f in d["files"]}
    assert fmts["output.log"] == "wandb-output" and any(p.endswith(".wandb") for p in fmts)
    (used,) = [f for f in d["files"] if f["used"]]
    assert used["path"].endswith(".wandb")
    assert d["steps"]["first"] == 3 and d["steps"]["last"] == 900 and d["steps"]["count"] == 300


def test_a_wandb_run_dir_without_its_run_file_or_with_a_truncated_one(tmp_path, capsys):
    cp = tmp_path / "job"
    shutil.copytree(WANDB, cp)
    run = run_dir(cp)
    (wb,) = run.glob("*.wandb")
    data = wb.read_bytes()
    wb.write_bytes(data[: len(data) // 3])  # cut mid-record (a copy taken while it was written)
    d = report(cp, capsys)
    assert "kind" not in d and d["steps"]["count"] > 0
    wb.unlink()  # only the console (and what W&B writes beside it) left
    d = report(cp, capsys)
    assert "kind" not in d
    (used,) = [f for f in d["files"] if f["used"]]
    assert used["path"].endswith("output.log") and d["steps"]["count"] == 300


def test_a_wandb_run_dir_moved_out_of_wandb_with_its_run_file_in_tmp(tmp_path, capsys):
    """The SDK's run dir copied to the project root, its run file in ``tmp/`` (an
    in-progress copy): every file under it is its run's, and a file given alone finds it."""
    src = run_dir(WANDB)
    moved = tmp_path / src.name
    shutil.copytree(src, moved)
    (moved / "tmp").mkdir()
    (wb,) = moved.glob("*.wandb")
    wb.rename(moved / "tmp" / wb.name)
    (twb,) = (moved / "tmp").glob("*.wandb")
    assert run_root(str(twb), str(tmp_path)) == str(moved)
    assert run_root(str(moved / "files" / "output.log"), str(tmp_path)) == str(moved)
    assert file_spec(str(twb)).root == str(moved)
    d = report(tmp_path, capsys)
    assert "kind" not in d and d["steps"]["count"] == 300


def test_a_run_name_alone_is_not_a_wandb_run_dir(tmp_path):
    """``run-<time>-<id>`` outside ``wandb/`` with nothing of W&B's layout in it stays
    an ordinary directory (its ``tmp/`` is a run of its own)."""
    d = tmp_path / "run-20250314_174528-abc" / "tmp"
    d.mkdir(parents=True)
    (d / "train.log").write_text("step 1 loss 2.0\n")
    assert run_root(str(d / "train.log"), str(tmp_path)) == str(d)


def test_wandb_beside_the_hf_output_dir_is_one_run(capsys):
    """wandb0198 of the corpus (Unsloth / HF Trainer, real files): a W&B run dir moved to
    the project root (run file in tmp/, truncated; console in files/) and the Trainer's
    output_dir ``outputs/`` (TensorBoard under runs/<date_host>/, checkpoint-60/) are
    one run: the same losses at the same steps (it was three runs)."""
    d = report(CORPUS / "trackers" / "wandb0198_truncated_with_tb", capsys)
    assert "kind" not in d
    assert d["steps"]["first"] == 10 and d["steps"]["last"] == 60 and d["steps"]["count"] == 6
    names = {os.path.basename(f["path"]) for f in d["files"]}
    assert {"run-422y3l3v.wandb", "output.log", "trainer_state.json"} <= names
    assert any(n.startswith("events.out.tfevents.") for n in names)
    assert [c["step"] for c in d["run"]["checkpoints"]] == [60]


def test_two_output_dirs_beside_a_wandb_run_are_never_merged_with_each_other(tmp_path):
    """Beside a tracker's run, a directory run is a logger slot of the parent, compared
    with the tracker's run only: two such directories with the same series (a sweep's
    deterministic reruns) stay two runs when no W&B run has their series."""
    src = CORPUS / "trackers" / "wandb0198_truncated_with_tb"
    shutil.copytree(run_dir(WANDB), tmp_path / "wandb" / run_dir(WANDB).name)
    shutil.copytree(src / "outputs", tmp_path / "a")
    shutil.copytree(src / "outputs", tmp_path / "b")
    names = sorted(r.name for r in open_runs(str(tmp_path)))
    assert names == ["a", "b", os.path.join("wandb", run_dir(WANDB).name)]


def test_live_routes_a_wandb_run_dirs_files_to_its_run(tmp_path):
    """``--follow`` and the TUI route files by ``run_root``: in a folder of several runs,
    the console and a run file written later under ``tmp/`` are their run dir's run; in a
    folder where the run starts after the watching did, its files make one new run."""
    from tsm_tui.analysis.live import LiveLoop, LiveUpdate

    shutil.copytree(WANDB, tmp_path / "job")
    shutil.copytree(WANDB.parent / "plain_nan", tmp_path / "other")
    runs = open_runs(str(tmp_path))
    assert len(runs) == 2
    loop = LiveLoop.many(None, str(tmp_path), Settings(), known=runs)
    run = run_dir(tmp_path / "job")
    (run / "tmp").mkdir()
    late = run / "tmp" / "run-late.wandb"
    late.write_bytes(b"")
    up = LiveUpdate()
    mine = next(r.name for r in runs if r.name.startswith("job"))
    for p in (run / "files" / "output.log", late):
        assert loop._route(str(p), up).name == mine
    assert up.new_runs == []

    fresh = LiveLoop.many(None, str(tmp_path), Settings())
    up = LiveUpdate()
    names = {fresh._route(str(p), up).name for p in (run / "files" / "output.log", late)}
    assert names == {os.path.join("job", "wandb", run.name)} and len(up.new_runs) == 1


# ----------------------------------------------------------------------------- DVCLive
def test_a_dvclive_directory_is_one_run_its_metric_files_its_columns(capsys):
    """DVCLive writes one TSV per metric (train/loss.tsv with its timestamp column,
    train/lr.tsv, val/loss.tsv, epoch.tsv): one source, one record per step, every
    column read (it was one run per file); a metric named ``step`` (one column) is counted."""
    d = report(DVCLIVE / "spike", capsys)
    assert "kind" not in d
    (src,) = [f for f in d["files"] if f["format"]]
    assert src["format"] == "dvclive" and src["path"].endswith(os.path.join("plots", "metrics"))
    assert src["records"] == 120
    assert src["skip_reasons"] == {"DVCLive metric file with no step or value column": 1}
    assert d["steps"]["first"] == 0 and d["steps"]["last"] == 119 and d["steps"]["count"] == 120
    spikes = [a for a in d["alerts"] if a["check"] == "loss_spike" and a["severity"] == "warning"]
    assert [a["step"] for a in spikes] == [70]
    st = {c["id"]: c["status"] for c in d["checks"]}
    assert st["overfitting"] != "SKIP" and st["lr_schedule"] != "SKIP"  # val/loss and train/lr read


def test_a_dvclive_directory_reads_like_its_json_lines_twin(tmp_path):
    an = analyze_runs(str(DVCLIVE / "spike"))
    assert len(an) == 1
    twin = tmp_path / "twin"
    twin.mkdir()
    shutil.copy(DVCLIVE / "spike.jsonl", twin / "metrics.jsonl")
    info = RunInfo()
    for k, origin in an[0].monitor.state.info.origin.items():
        info.set(k, getattr(an[0].monitor.state.info, k), origin)
    other = analyze(str(twin), Settings(), info=info)

    def verdicts(a):
        # crash and throughput: a text log has lines to read, a TSV directory none
        checks = {c.id: c.status.value for c in a.checks() if c.id not in ("crash", "throughput")}
        return checks, sorted((x.check, x.step, x.severity.value) for x in a.alerts() if x.check != "crash")

    assert verdicts(an[0]) == verdicts(other)


def test_hf_end_of_training_summary_in_dvclive_is_not_a_step(capsys):
    """dvclive_hf_densegpt_tiny (corpus, HF Trainer's DVCLiveCallback): the run-average
    train/loss (with train/runtime ...) one step past the last log is counted, not read."""
    d = report(CORPUS / "more" / "dvclive_hf_densegpt_tiny", capsys)
    assert "kind" not in d
    (src,) = [f for f in d["files"] if f["format"]]
    assert src["format"] == "dvclive" and src["records"] == 150
    assert list(src["skip_reasons"]) == ["end-of-training summary (HF train_runtime): not a step"]
    assert d["steps"]["first"] == 0 and d["steps"]["last"] == 149


def test_hf_end_of_training_summary_under_its_flat_names_is_not_a_step(capsys):
    """fresh59's dvclive_hf_nomelt_full_healthy (corpus, committed): this DVCLiveCallback logged the summary
    as ``train_runtime`` / ``train_loss`` (no ``train/`` scope) at step 741, one past the last log: the
    run-average 0.564 after a loss of 0.22 was "a spike still open at the end of the log"."""
    d = report(CORPUS / "fresh59" / "dvclive_hf_nomelt_full_healthy", capsys)
    (src,) = [f for f in d["files"] if f["format"]]
    assert src["format"] == "dvclive" and d["steps"]["last"] == 740
    assert "end-of-training summary (HF train_runtime): not a step" in src["skip_reasons"]
    assert next(c for c in d["checks"] if c["id"] == "loss_spike")["status"] == "PASS"


def test_only_the_metrics_directory_of_a_dvclive_dir_is_a_candidate(tmp_path):
    shutil.copytree(DVCLIVE / "spike", tmp_path / "job")
    found = log_files.candidate_files(str(tmp_path))
    assert str(tmp_path / "job" / "dvclive" / "plots" / "metrics") in found
    assert not any(p.endswith(".tsv") for p in found)
    # without DVCLive's files or its default name, plots/metrics/*.tsv are ordinary files
    (tmp_path / "job" / "dvclive").rename(tmp_path / "job" / "mine")
    for f in ("metrics.json", "params.yaml"):
        (tmp_path / "job" / "mine" / f).unlink()
    found = log_files.candidate_files(str(tmp_path))
    assert len([p for p in found if p.endswith(".tsv")]) == 5 and not any(p.endswith("metrics") for p in found)


DVC0 = Path(paths.DATA) / "dvclive" / "v0"


# -- DVCLive < 1.0's scalars/ layout --------------------------------------------------------
@pytest.mark.parametrize("sub,name", [("default", "dvclive"), ("named", "live")])
def test_dvclive_0x_scalars_layout_is_one_dvclive_source(sub, name):
    """dvclive 0.12.1 (real fixture): ``<dir>/scalars/*.tsv`` + ``<dir>.json``: one source,
    loss, LR and eval/loss together; its Unix-millisecond timestamps as milliseconds."""
    root = DVC0 / sub
    found = log_files.candidate_files(str(root))
    assert str(root / name / "scalars") in found and not any(p.endswith(".tsv") for p in found)
    an = analyze(str(root))
    (src,) = [f for f in an.run.files if f.used]
    assert src.format == "dvclive" and src.records == 60
    checks = {c.id: c for c in an.checks()}
    assert checks["overfitting"].status.value != "SKIP" and checks["lr_schedule"].status.value != "SKIP"
    assert [a.step for a in an.alerts() if a.check == "loss_spike"][0] == 40  # (the spike, then its recovery)
    # 60 steps logged in well under a minute: the rate is steps per second, not per 1000 s
    assert "steps/s" in checks["throughput"].summary and "e-" not in checks["throughput"].summary


def test_a_scalars_directory_without_dvclive_marks_is_not_dvclive(tmp_path):
    d = tmp_path / "job" / "mine" / "scalars"
    d.mkdir(parents=True)
    (d / "loss.tsv").write_text("timestamp\tstep\tloss\n1664787192871\t0\t1.0\n1664787193871\t1\t0.9\n")
    found = log_files.candidate_files(str(tmp_path))
    assert found == [str(d / "loss.tsv")]


def test_each_trackers_run_folder_is_declared_by_its_own_reader():
    """The folder rules are the readers' (``run_dir``, ``source_dir``, ``root_sources``,
    sources/base.py): each real run folder is claimed by its format's reader alone, and
    the walk (log_files.py) and the runs (runs.py) name no directory format's module."""
    from tsm_tui.sources import registry, runs

    aim_repo = Path(paths.DATA) / "aim" / "sdk-3.29.1" / ".aim"
    aim_runs = next(r for r in registry.READERS if r.name == "aim").root_sources(str(aim_repo))
    assert aim_runs
    mlflow = Path(paths.DATA) / "frameworks" / "mlflow_csv" / "mlruns" / "366629257501740856"
    folders = {
        "wandb": run_dir(WANDB),
        "dvclive": DVCLIVE / "spike" / "dvclive",
        "mlflow": next(d for d in mlflow.iterdir() if (d / "meta.yaml").is_file()),
        "aim": Path(aim_runs[0]),
    }
    for fmt, d in folders.items():
        assert [r.name for r in registry.READERS if r.run_dir(str(d))] == [fmt], d
        assert runs.tracker_run_dir(str(d))
    assert [r.name for r in registry.READERS if r.run_dir_deep] == ["wandb"]
    for module in ("log_files.py", "runs.py"):
        text = (Path(paths.ROOT) / "tsm_tui" / "sources" / module).read_text()
        for name in ("aim", "dvclive", "mlflow"):
            assert f"sources.{name} import" not in text and f"import {name}" not in text, (module, name)


def test_where_a_trackers_run_sits_among_its_jobs_loggers_is_its_readers_say():
    """``logger_slot`` (sources/base.py): a tracker's run folder says which directory its
    job's loggers share and its slot there (siblings.py joins the loggers of one job); each
    real run folder is placed by its own reader alone, an Aim run by none (its own files),
    and siblings.py names no directory format's module."""
    from tsm_tui.sources import registry, siblings
    from tsm_tui.sources.runs import RunSpec

    mlflow = Path(paths.DATA) / "frameworks" / "mlflow_csv"
    mlflow_run = next(d for d in (mlflow / "mlruns" / "366629257501740856").iterdir() if (d / "meta.yaml").is_file())
    aim_repo = Path(paths.DATA) / "aim" / "sdk-3.29.1" / ".aim"
    aim_run = next(r for r in registry.READERS if r.name == "aim").root_sources(str(aim_repo))[0]
    folders = {
        run_dir(WANDB): ("wandb", (str(WANDB), "wandb", True)),
        DVCLIVE / "spike" / "dvclive": ("dvclive", (str(DVCLIVE / "spike"), "dvclive", True)),
        mlflow_run: ("mlflow", (str(mlflow), "mlruns", False)),
        Path(aim_run): (None, None),
    }
    for d, (fmt, slot) in folders.items():
        said = {r.name: r.logger_slot(str(d)) for r in registry.READERS if r.logger_slot(str(d)) is not None}
        assert said == ({fmt: slot} if fmt else {}), d
        s = siblings.slot_of(RunSpec("x", str(d), [], path=str(d)), paths.ROOT)
        assert s is not None
        assert (s.parent, s.slot, s.tracker) == (slot or (str(d), ".", False)), d
    text = (Path(paths.ROOT) / "tsm_tui" / "sources" / "siblings.py").read_text()
    for name in ("aim", "dvclive", "mlflow", "wandb_run"):
        assert f"sources.{name} import" not in text and f"import {name}" not in text, name
