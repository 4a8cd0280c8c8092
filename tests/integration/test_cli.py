"""The command line on real files: report shape, JSON schema, exit codes, bad input."""

import json
import math
import os
import subprocess
import sys

import pytest
from conftest import curve

from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.cli import main


def write_jsonl(path, recs, extra_lines=()):
    with open(path, "w") as f:
        for r in recs:
            d = {"step": r.step, "loss": r.loss, "grad_norm": r.grad_norm, "lr": r.lr}
            f.write(json.dumps(d) + "\n")
        for ln in extra_lines:
            f.write(ln)
    return str(path)


@pytest.fixture
def healthy_file(tmp_path):
    return write_jsonl(tmp_path / "metrics.jsonl", curve(n=1500))


@pytest.fixture
def spike_file(tmp_path):
    recs = curve(n=1500)
    for r in recs:
        if r.step >= 900:
            r.loss *= 3.0
    os.makedirs(tmp_path / "ckpt", exist_ok=True)
    for s in (400, 800, 1200):
        open(tmp_path / "ckpt" / f"step_{s}.pt", "w").close()
    return write_jsonl(tmp_path / "metrics.jsonl", recs)


def test_report_shape_and_exit_0(healthy_file, capsys):
    code = main([healthy_file, "--report", "--total-steps", "1500"])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "=== Training Stability Report ==="
    titles = ["Loss Spike Detection", "Gradient Norm", "LR Schedule", "Batch Size Ratio", "Loss Plateau"]
    for ln, title in zip(lines[1:6], titles):
        assert ln.startswith("[") and title in ln
    assert "CRITICAL ISSUES: 0" in lines
    assert "WARNINGS: " in out and "Recommended Actions:" in out
    assert "\x1b[" not in out  # no colour when not a TTY


def test_spike_no_recover_exit_1_with_rollback(spike_file, capsys):
    code = main([os.path.dirname(spike_file), "--report"])
    out = capsys.readouterr().out
    assert code == 1
    assert "[FAIL] Loss Spike Detection" in out
    # the rollback names the last checkpoint before the spike at step 900
    assert "Roll back to ckpt/step_800.pt (step 800, the last checkpoint before the spike at step 900)" in out
    assert "CRITICAL ISSUES: 1" in out


def test_json_schema(spike_file, capsys):
    code = main([os.path.dirname(spike_file), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1
    assert d["schema"] == 1
    assert set(d) >= {"schema", "path", "files", "steps", "checks", "alerts", "critical", "warnings", "actions"}
    # the checks of schema 1 keep their ids and order; a new check comes after them (its ``order``)
    ids = [c["id"] for c in d["checks"]]
    assert ids[:12] == [
        "loss_spike",
        "grad_norm",
        "lr_schedule",
        "batch_size",
        "plateau",
        "nonfinite",
        "loss_scale",
        "checkpoints",
        "output_collapse",
        "crash",
        "throughput",
        "overfitting",
    ]
    assert ids == [x.id for x in DETECTORS]
    f = d["files"][0]
    assert set(f) >= {"path", "format", "records", "skipped_lines"} and f["format"] == "jsonl"
    assert d["steps"] == {"first": 1, "last": 1500, "count": 1500, "records": 1500}
    a = next(a for a in d["alerts"] if a["check"] == "loss_spike")
    assert set(a) == {"check", "severity", "step", "value", "baseline", "message", "actions"}
    assert a["step"] == 900 and a["severity"] == "warning"
    assert d["critical"] == 1 and d["actions"]


def test_json_nan_values_stay_valid_json(tmp_path, capsys):
    recs = curve(n=300)
    p = write_jsonl(tmp_path / "m.jsonl", recs, ['{"step": 301, "loss": NaN, "grad_norm": Infinity}\n'])
    code = main([p, "--report", "--json"])
    out = capsys.readouterr().out
    d = json.loads(out)  # strict: would fail on bare NaN
    assert code == 1
    nf = next(a for a in d["alerts"] if a["check"] == "nonfinite")
    assert nf["step"] == 301 and nf["value"] == "NaN"


@pytest.mark.parametrize("case", ["missing", "empty_dir", "binary", "empty_file"])
def test_bad_input_exit_2_one_line(tmp_path, capsys, case):
    if case == "missing":
        p = tmp_path / "nope"
    elif case == "empty_dir":
        p = tmp_path / "run"
        p.mkdir()
    elif case == "binary":
        p = tmp_path / "model.log"
        p.write_bytes(b"\x00\x01\x02PK\x03\x04" * 1000)
    else:
        p = tmp_path / "train.log"
        p.write_text("")
    code = main([str(p), "--report"])
    cap = capsys.readouterr()
    assert code == 2
    assert cap.out == ""
    assert len(cap.err.strip().splitlines()) == 1 and cap.err.startswith("tsm-watch: ")


def test_usage_error_is_one_line(capsys):
    assert main(["x", "--window", "-3"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1


def test_corrupt_truncated_non_utf8_and_huge_line(tmp_path, capsys):
    p = tmp_path / "m.jsonl"
    recs = curve(n=400)
    with open(p, "wb") as f:
        for r in recs[:200]:
            f.write((json.dumps({"step": r.step, "loss": r.loss, "lr": r.lr}) + "\n").encode())
        f.write(b'{"step": 201, "loss": 2.1, "note": "caf\xe9"}\n')  # latin-1 byte: still read
        f.write(b'{"step": oops}\n')  # corrupt JSON: skipped, counted
        f.write(b'{"step": 202, "loss": ' + b"9" * (10 * 1024 * 1024) + b"}\n")  # 10 MB line: skipped
        for r in recs[202:]:
            f.write((json.dumps({"step": r.step, "loss": r.loss, "lr": r.lr}) + "\n").encode())
        f.write(b'{"step": 401, "loss": 2.')  # truncated last line: skipped
    code = main([str(p), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    f = d["files"][0]
    assert code in (0, 1)
    assert f["skipped_lines"] == 3
    assert f["records"] == 399
    reasons = f["skip_reasons"]
    assert reasons["invalid JSON"] == 2 and reasons["line longer than 1 MiB"] == 1
    assert reasons["non-UTF-8 bytes (replaced, line still read)"] == 1


def test_text_report_shows_skipped_lines(tmp_path, capsys):
    p = write_jsonl(tmp_path / "m.jsonl", curve(n=200), ["not json at all\n"])
    main([p, "--report"])
    out = capsys.readouterr().out
    assert "1 line(s) skipped (not a JSON object: 1)" in out


def test_log_text_cannot_inject_escapes(tmp_path, capsys):
    p = tmp_path / "train.log"
    with open(p, "w") as f:
        for r in curve(n=300):
            f.write(f"step {r.step} | loss: {r.loss:.4f} | lr: {r.lr:.3e}\n")
    # a malicious file name / line must not reach the terminal raw
    main([str(p), "--report"])
    assert "\x1b" not in capsys.readouterr().out


def test_console_script_runs_as_module(healthy_file):
    r = subprocess.run(
        [sys.executable, "-m", "tsm_tui", healthy_file, "--report"], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0 and r.stdout.startswith("=== Training Stability Report ===")


def test_params_flag_sizes():
    from tsm_tui.cli import size

    assert size("125M") == 125e6 and size("7B") == 7e9 and size("1.3e9") == 1.3e9 and size("0.5M") == 5e5
    assert not math.isnan(size("4,194,304"))
