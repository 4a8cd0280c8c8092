""" "Could not judge" said plainly (issue 28): every report names the checks that ran, the
ones skipped and why, which metric it read from which file and key (``sources``), the
metrics the log lacks, and says so when nothing about the training could be judged."""

from __future__ import annotations

import json
import os

import pytest
from conftest import val_only_log

from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.cli import main
from helpers import paths

ROOT = paths.ROOT
SAMPLES = os.path.join(ROOT, "sample_runs")


def _json(capsys, *args) -> tuple[int, dict]:
    code = main([*args, "--report", "--json"])
    return code, json.loads(capsys.readouterr().out)


# (run, metric -> (format, the log's own key)) as the files in sample_runs/ and tests/data write them
KEYS = [
    (
        "sample_runs/spike_no_recover",
        {
            "loss": ("megatron", "lm loss"),
            "grad_norm": ("megatron", "grad norm"),
            "lr": ("megatron", "learning rate"),
            "loss_scale": ("megatron", "loss scale"),
        },
    ),
    (
        "sample_runs/plateau",
        {
            "loss": ("lightning-csv", "train_loss_step"),
            "val_loss": ("lightning-csv", "val_loss"),
            "grad_norm": ("lightning-csv", "grad_norm"),
            "lr": ("lightning-csv", "lr-AdamW"),
        },
    ),
    (
        "sample_runs/nan_divergence",
        {"loss": ("jsonl", "loss"), "grad_norm": ("jsonl", "grad_norm"), "lr": ("jsonl", "learning_rate")},
    ),
    (
        "sample_runs/spikes_recover",
        {"loss": ("llmc", "trl"), "val_loss": ("llmc", "tel"), "grad_norm": ("llmc", "norm"), "lr": ("llmc", "lr")},
    ),
    (
        "sample_runs/generations/gibberish",
        {
            "loss": ("jsonl", "loss"),
            "grad_norm": ("jsonl", "grad_norm"),
            "lr": ("jsonl", "lr"),
            "samples": ("jsonl", "sample"),
        },
    ),
    (
        "tests/data/wandb/sdk-0.16.6/plain_nan/wandb",
        {"loss": ("wandb", "train/loss"), "grad_norm": ("wandb", "train/grad_norm"), "lr": ("wandb", "lr")},
    ),
    (
        "tests/data/frameworks/tensorboard_only",
        {
            "loss": ("tensorboard", "train/loss"),
            "grad_norm": ("tensorboard", "train/grad_norm"),
            "lr": ("tensorboard", "train/learning_rate"),
        },
    ),
]


@pytest.mark.parametrize("run,want", KEYS, ids=[k for k, _ in KEYS])
def test_sources_name_the_file_format_and_key_of_each_metric(run, want, capsys):
    _, d = _json(capsys, os.path.join(ROOT, run))
    used = next(f for f in d["files"] if f["used"])
    assert {m: (s["format"], s["key"]) for m, s in d["sources"].items()} == want
    assert all(s["file"] == used["path"] for s in d["sources"].values())
    # every metric is either read or named as missing, never both
    assert set(d["coverage"]["unread"]) == {"loss", "val_loss", "grad_norm", "lr", "loss_scale", "samples"} - set(want)


def test_sources_of_a_wandb_run_read_from_its_console(capsys):
    # the SDK wrote no history, only the printed lines: the checks read the file's console channel
    _, d = _json(capsys, os.path.join(ROOT, "tests/data/wandb/sdk-0.16.6/console_only/wandb"))
    used = next(f for f in d["files"] if f["used"])
    assert used["path"].endswith(".wandb")
    assert d["sources"]["loss"] == {"file": used["path"], "format": "wandb-output", "key": "loss", "channel": "console"}
    assert "loss" not in d["coverage"]["unread"]


def test_sources_keep_every_name_a_log_used(tmp_path, capsys):
    # a log that names one metric two ways (a real Megatron log has both "lm loss" and "loss"): both listed
    p = tmp_path / "m.jsonl"
    with open(p, "w") as f:
        for s in range(1, 301):
            key = "train/loss" if s % 2 else "loss"
            f.write(json.dumps({"step": s, key: 3.0 - s / 1000, "lr": 1e-4}) + "\n")
    _, d = _json(capsys, str(p))
    assert d["sources"]["loss"]["key"] == "train/loss" and d["sources"]["loss"]["keys"] == ["train/loss", "loss"]


@pytest.mark.parametrize("run", ["spike_no_recover", "healthy", "plateau", "fp16_loss_scale", "generations/empty"])
def test_coverage_lists_every_check_once_with_the_checks_own_reason(run, capsys):
    _, d = _json(capsys, os.path.join(SAMPLES, run))
    cov = d["coverage"]
    ids = [c["id"] for c in d["checks"]]
    assert sorted(cov["ran"] + [s["id"] for s in cov["skipped"]]) == sorted(ids)
    by = {c["id"]: c for c in d["checks"]}
    for s in cov["skipped"]:
        assert by[s["id"]]["status"] == "SKIP" and s["reason"] == by[s["id"]]["summary"] and s["reason"]
    assert all(by[i]["status"] != "SKIP" for i in cov["ran"])
    assert cov["nothing_judged"] is False


def test_every_registered_check_says_whether_it_judges_the_log():
    # a check added to the registry is covered without a word in coverage.py
    from tsm_tui.analysis.coverage import from_log_checks

    assert set(from_log_checks()) == {d.id for d in DETECTORS}
    assert from_log_checks()["checkpoints"] is False and from_log_checks()["loss_spike"] is True


def test_a_run_where_nothing_could_be_judged_says_so(tmp_path, capsys):
    run = val_only_log(tmp_path)
    code, d = _json(capsys, run)
    assert code == 0  # exit codes as today: no FAIL
    cov = d["coverage"]
    assert cov["nothing_judged"] is True
    # the checkpoints on disk and the log's words (no crash line) are judged, the training is not
    assert set(cov["ran"]) <= {"checkpoints", "crash"}
    assert list(d["sources"]) == ["val_loss"]
    assert main([run, "--report"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    nj = next(i for i, ln in enumerate(lines) if ln.startswith("NOTHING JUDGED: "))
    assert "the log has only the validation loss" in lines[nj]
    assert "does not mean a healthy run" in lines[nj]
    assert nj < lines.index("Recommended Actions:")  # before the actions, where the verdict is read
    assert "  read: val_loss <- 'val_loss' (from metrics.jsonl)" in lines
    assert "  not in the log: training loss, grad norm, learning rate, fp16 loss scale, generations" in lines
    skipped = lines[lines.index(next(ln for ln in lines if ln.startswith("Could not judge ("))) :]
    assert skipped[0] == f"Could not judge ({len(cov['skipped'])} of {len(d['checks'])} checks skipped):"
    assert "  Loss Spike Detection: no loss values in the log" in skipped


def test_a_judged_run_has_no_nothing_judged_line_and_lists_what_it_skipped(capsys):
    main([os.path.join(SAMPLES, "spike_no_recover"), "--report"])
    out = capsys.readouterr().out
    assert "NOTHING JUDGED" not in out
    assert (
        "  read: loss <- 'lm loss', grad_norm <- 'grad norm', lr <- 'learning rate', "
        "loss_scale <- 'loss scale' (from train.log)"
    ) in out
    # (the numbers are the README's example's, which pins them; here: one per check of the registry)
    assert f"Could not judge (5 of {len(DETECTORS)} checks skipped):\n  Batch Size Ratio: " in out


def test_runs_report_carries_coverage_per_run(capsys):
    _, d = _json(capsys, SAMPLES)
    assert d["kind"] == "runs"
    for r in d["runs"]:
        assert "sources" in r and "coverage" in r and "loss" in r["sources"]
    # (each run of many is compacted once judged, its readers let go: the keys were kept)
    by = {r["run"]: r for r in d["runs"]}
    assert by["spike_no_recover"]["sources"]["loss"]["key"] == "lm loss"
    assert by["plateau"]["sources"]["lr"]["key"] == "lr-AdamW"
