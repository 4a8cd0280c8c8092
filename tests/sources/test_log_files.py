"""Which files of a tree are a run's logs (``sources/log_files.py``): a log saved under a name no
rule takes is found by its content (PaddleNLP's ``results/a9/cmnli.base.ft.b``, held-out set
fresh10), checkpoints / binaries / big and code files are never opened, the files looked at are
capped, what was passed over is said, and the tailer follows a log found so."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers.reports import report_rc
from tsm_tui.sources import log_files

ROOT = Path(__file__).resolve().parents[2]


F10 = ROOT / "bench" / "corpus" / "fresh10"


CMNLI = (
    F10 / "paddlenlp_trainer_ansi_cmnli" / "examples" / "benchmark" / "fewclue" / "results" / "a9" / "cmnli.base.ft.b"
)


# a real TensorBoard event file (binary) from this repository's test data
EVENTS = next((ROOT / "tests" / "data" / "frameworks" / "tensorboard_only" / "tb").glob("events.out.tfevents.*"))


# the first lines of results/a9/fewclue_submit_examples/bustm_predict.json beside the logs (same commit)
PREDICT = "".join(f'{{"id": {i}, "label": "{lab}"}}\n' for i, lab in zip(range(3000, 3010), "0000111110"))


def a9(tmp_path: Path) -> Path:
    """PaddleNLP's results/a9 as the repository holds it: logs under made-up suffixes beside a
    folder of prediction files (JSON Lines, named as a log, no training metric in them)."""
    d = tmp_path / "results" / "a9"
    (d / "fewclue_submit_examples").mkdir(parents=True)
    (d / "fewclue_submit_examples" / "bustm_predict.json").write_text(PREDICT)
    shutil.copy(CMNLI, d / "cmnli.base.ft.b")
    return d


# ------------------------------------------------------------------ logs named by nobody
def test_a_log_under_a_made_up_suffix_is_taken_by_its_content(tmp_path, capsys):
    rc, rep, err = report_rc(CMNLI.parents[5], capsys)  # the committed corpus folder: one file, named .b
    assert rc in (0, 1) and rep is not None
    files = [f for f in rep["files"] if f["used"]]
    assert [os.path.basename(f["path"]) for f in files] == ["cmnli.base.ft.b"] and files[0]["format"] == "text"
    assert files[0]["found_by"] == "content"
    assert rep["steps"]["first"] == 10 and rep["steps"]["last"] == 2200
    assert "taken by their content (cmnli.base.ft.b)" in err


def test_taken_by_content_when_the_log_named_files_hold_no_training_log(tmp_path, capsys):
    # the repository's layout: the prediction .json files are the only log-named files and none
    # of them is a training log ("nothing readable" before); the .b log beside them is read
    d = a9(tmp_path)
    assert log_files.candidate_files(str(d)) == [str(d / "fewclue_submit_examples" / "bustm_predict.json")]
    rc, rep, err = report_rc(d, capsys)
    assert rc in (0, 1) and rep is not None
    used = [os.path.basename(f["path"]) for f in rep["files"] if f["used"]]
    assert used == ["cmnli.base.ft.b"] and rep["steps"]["last"] == 2200
    assert "taken by their content (cmnli.base.ft.b)" in err


def test_a_tree_whose_logs_are_found_by_name_reads_only_them(tmp_path, capsys):
    # never a regression: a readable log-named file keeps the odd-named one out
    d = a9(tmp_path)
    log = d / "train.log"
    lines = [ln for ln in CMNLI.read_text(encoding="utf-8").splitlines(keepends=True) if "global_step" in ln]
    log.write_text("".join(lines[:60]))
    rc, rep, err = report_rc(d, capsys)
    assert rc in (0, 1) and rep is not None
    assert [os.path.basename(f["path"]) for f in rep["files"] if f["used"]] == ["train.log"]
    assert not any("found_by" in f for f in rep["files"])
    assert not any(f["path"].endswith("cmnli.base.ft.b") for f in rep["files"])
    assert "taken by their content" not in err


def test_checkpoints_binaries_big_and_code_files_are_never_opened(tmp_path, monkeypatch):
    d = tmp_path / "run"
    d.mkdir()
    shutil.copy(CMNLI, d / "cmnli.base.ft.b")
    shutil.copy(EVENTS, d / "model_state.pdparams")  # a checkpoint's name: never opened
    shutil.copy(EVENTS, d / "tokens.b")  # a binary under a made-up suffix: opened, passed over
    (d / "run_fewclue.py").write_text("loss = model(batch)\n")  # code: its first line read, Python: passed over
    with open(d / "corpus.b", "wb") as f:  # a sparse 65 MiB file: over PEEK_MAX_SIZE, never opened
        f.truncate(log_files.PEEK_MAX_SIZE + 1)
    (d / "checkpoint-2200").mkdir()
    shutil.copy(EVENTS, d / "checkpoint-2200" / "optimizer.b")  # in a checkpoint directory: never opened
    opened: list[str] = []
    real = log_files.open_regular

    def spy(path, *a, **kw):
        opened.append(os.path.basename(path))
        return real(path, *a, **kw)

    monkeypatch.setattr(log_files, "open_regular", spy)
    seen = log_files.ContentFallback()
    got = log_files.content_files(str(d), [], seen)
    assert got == [str(d / "cmnli.base.ft.b")]
    # nothing else was opened (a .py once, for its first line: a log saved under a code name is read)
    assert sorted(opened) == ["cmnli.base.ft.b", "run_fewclue.py", "tokens.b"]
    assert seen.passed == {
        "by name (checkpoints, data, archives, code, configs)": 2,
        "over 64 MiB": 1,
        "binary": 1,
    }
    # the tree unchanged: a second listing (a live tailer's re-scan) opens nothing
    opened.clear()
    assert log_files.content_files(str(d), [], log_files.ContentFallback()) == got
    assert opened == []
    # a file that changes is looked at again
    (d / "tokens.b").write_bytes(EVENTS.read_bytes()[:100])
    log_files.content_files(str(d), [], log_files.ContentFallback())
    assert opened == ["tokens.b"]


def test_the_files_looked_at_are_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(log_files, "MAX_PEEKED", 3)
    for i in range(5):
        shutil.copy(EVENTS, tmp_path / f"part{i}.b")
    seen = log_files.ContentFallback()
    assert log_files.content_files(str(tmp_path), [], seen) == []
    assert seen.peeked == 3 and seen.passed == {"binary": 3, "past the first 3 opened": 2}


def test_nothing_readable_says_what_was_passed_over(tmp_path, capsys):
    shutil.copy(EVENTS, tmp_path / "weights.b")
    (tmp_path / "al").write_text("")  # an empty file with no extension (PaddleNLP's results/a1/al)
    (tmp_path / "finetune.sh").write_text("python -u run_train.py --do_train\n")
    rc, _, err = report_rc(tmp_path, capsys)
    assert rc == 2
    assert "nothing readable" in err and "al: empty file" in err
    assert "other files passed over: 1 by name (checkpoints, data, archives, code, configs), 1 binary" in err
    assert "Traceback" not in err


def test_the_tailer_follows_a_log_taken_by_its_content(tmp_path, tail):
    d = a9(tmp_path)
    c = tail(d)
    assert c.wait_for(lambda: len(c.records) >= 242)
    assert set(c.steps) == {str(d / "cmnli.base.ft.b")}
    assert any("taken by their content (cmnli.base.ft.b)" in n for n in c.notes)


def test_logs_deeper_than_the_first_search_are_found(tmp_path, capsys):
    """fresh18: a course repository's LR-scan runs at artifacts/experiments/logs_tracker/results/
    <study>/runs/<run>/metrics.jsonl, seven levels below the folder given, read "no log files found"
    (the walk stopped at MAX_DEPTH). A tree with nothing above that depth is searched deeper."""
    deep = tmp_path.joinpath(*[f"d{i}" for i in range(log_files.MAX_DEPTH + 1)])
    deep.mkdir(parents=True)
    rows = [{"step": s, "split": "train", "loss": 4.0 - s / 100} for s in range(1, 60)]
    (deep / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert log_files.candidate_files(str(tmp_path)) == [str(deep / "metrics.jsonl")]
    code, rep, _ = report_rc(tmp_path, capsys)
    assert code in (0, 1) and rep is not None and rep["steps"]["count"] == 59
    # a log within MAX_DEPTH: the deeper one is not looked for (the first search found one)
    (tmp_path / "d0" / "train.log").write_text("step 1 loss 2.0\n")
    assert log_files.candidate_files(str(tmp_path)) == [str(tmp_path / "d0" / "train.log")]


def test_a_log_saved_under_a_fallback_name_deeper_than_the_first_search(tmp_path, capsys):
    """fresh54: PyTorch's word_language_model output saved as ``checkpoint_notes/model_RNN_RELU_epochs_5.md``
    inside an unpacked wheel, seven levels below the folder given: no log-named file anywhere, and the
    fallback's names (a ``.md``, a job output) were looked for only MAX_DEPTH deep ("no log files found").
    They are looked for as deep as the log names are; its NaN from the first record is the FAIL."""
    deep = tmp_path.joinpath(*[f"d{i}" for i in range(log_files.MAX_DEPTH + 1)])
    deep.mkdir(parents=True)
    rows = [
        f"| epoch {1 + i // 14:3d} | {200 * (1 + i % 14):5d}/ 2983 batches | lr 20.0000 | loss   nan | ppl    nan"
        for i in range(28)
    ]
    (deep / "model_RNN_RELU_epochs_5.md").write_text("Namespace(lr=20, epochs=2)\n" + "\n".join(rows) + "\n")
    (tmp_path / "d0" / "README.md").write_text("# notes\n\nSee the chapter.\n")
    assert log_files.candidate_files(str(tmp_path))[-1] == str(deep / "model_RNN_RELU_epochs_5.md")
    code, rep, _ = report_rc(tmp_path, capsys)
    assert code == 1 and rep["steps"]["count"] == 28
    assert next(c for c in rep["checks"] if c["id"] == "nonfinite")["status"] == "FAIL"


F18 = ROOT / "bench" / "corpus" / "fresh18" / "jsonl_runs_cs336_nonorm_lr_scan_blowup_nan"


def test_a_run_folders_other_file_with_a_metric_the_log_lacks_is_said(capsys):
    """fresh18 (MIT, committed): a run folder's metrics.jsonl (train and val records, a "split"
    key) beside diagnostics.jsonl (grad_norm_pre_clip). The report reads the first and says that
    the second holds the grad norm it lacks (not joined: one file is a run's series); the
    evaluation loss blowing up with the training loss is no over-fitting."""
    from tsm_tui.cli import main

    run = next(F18.glob("**/runs/*lr1p5e-03"))
    assert main([str(run), "--report"]) == 1
    out = capsys.readouterr().out
    assert "val_loss <- 'val/loss'" in out
    assert "diagnostics.jsonl: [jsonl], 20 records, not used (another file was chosen); it holds grad norm" in out
    assert "[PASS] Over-fitting" in out and "rose with the training loss" in out
    assert "[FAIL] NaN/Inf Values" in out


@pytest.mark.parametrize(
    "name,step",
    [
        ("checkpoint-500", 500),
        ("global_step100", 100),
        ("iter_0001000", 1000),
        ("step_200", 200),
        ("epoch=0-step=100.ckpt", 100),  # (DeepSpeed's Lightning checkpoint: a directory)
        ("model_1000", 1000),
        ("ckpt-5", 5),
        ("model3_depth_ablation_one_epoch", None),  # (fresh102: a run's folder, not checkpoint 3)
        ("run_step5_lr3e-4", None),
        ("best_model", None),
    ],
)
def test_a_directory_is_a_checkpoint_only_when_its_whole_name_is_one(name, step):
    from tsm_tui.sources.checkpoints import checkpoint_step

    assert checkpoint_step(name, True) == step


def test_logs_in_a_run_folder_named_like_a_checkpoint_are_found(tmp_path):
    # fresh102's nanoGPT depth ablation: model3_depth_ablation_one_epoch/training_logs/main_38k_train_log.txt read
    # "no log files found" (the folder skipped as checkpoint 3); checkpoint-500/ beside it still is one
    log = tmp_path / "model3_depth_ablation_one_epoch" / "training_logs" / "train_log.txt"
    log.parent.mkdir(parents=True)
    log.write_text("".join(f"step {s} | loss {3 - s / 1000:.4f}\n" for s in range(0, 1000, 10)))
    ck = tmp_path / "checkpoint-500"
    ck.mkdir()
    (ck / "train_log.txt").write_text("step 1 | loss 2.0\n")
    got = log_files.candidate_files(str(tmp_path))
    assert str(log) in got and not any("checkpoint-500" in p for p in got)
