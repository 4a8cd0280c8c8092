"""``tsm-watch RUN --follow``: alerts as they happen, end to end in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers.follow import record, write_lines
from helpers.paths import ROOT
from helpers.wait import WAIT


def test_follow_json_spike_alert_and_sigterm(tmp_path, follow):
    log = tmp_path / "metrics.jsonl"
    write_lines(log, [record(s) for s in range(1, 201)], "w")
    f = follow(tmp_path, "--json")
    # the backlog was read: the loss check's own status (another check's may come first; under load the
    # spike appended then could be read in one batch with the backlog: SKIP -> WARN, never PASS)
    assert f.wait_for(lambda: any('"status"' in x and '"loss_spike"' in x for x in f.out))
    spike = record(201)
    spike["loss"] *= 5
    t0 = time.monotonic()
    write_lines(log, [spike])
    assert f.wait_for(lambda: any('"loss_spike"' in x and '"alert"' in x for x in f.out)), (f.out, f.err)
    latency = time.monotonic() - t0
    assert latency < WAIT
    # (the check's status line follows its alert line: read both, a loaded machine can come between them)
    assert f.wait_for(lambda: any('"status"' in x and '"loss_spike"' in x and '"WARN"' in x for x in f.out)), f.out
    objs = f.json()
    alert = next(o for o in objs if o["event"] == "alert" and o["check"] == "loss_spike")
    assert alert["step"] == 201 and alert["severity"] in ("warning", "critical")
    assert set(alert) >= {"check", "severity", "step", "value", "baseline", "message", "actions"}
    assert alert["value"] > alert["baseline"]
    statuses = [o for o in objs if o["event"] == "status" and o["check"] == "loss_spike"]
    assert statuses and statuses[-1]["status"] == "WARN" and statuses[-1]["previous"] == "PASS"
    assert any(o["event"] == "source" and "watching" in o["message"] for o in objs)
    # truncation is reported as a source event
    write_lines(log, [record(s) for s in range(300, 303)], "w")
    assert f.wait_for(lambda: any('"source"' in x and ("truncated" in x or "rewritten" in x) for x in f.out))
    assert f.stop() == 0
    assert not any("Traceback" in x for x in f.err)


@pytest.mark.slow
def test_follow_text_empty_dir_then_file_and_sigint(tmp_path, follow):
    run = tmp_path / "run"  # does not exist yet: watched, not an error
    f = follow(run, "--poll", "0.1")
    assert f.wait_for(lambda: any("polling every 0.1s" in x for x in f.err)), f.err
    (run / "version_0").mkdir(parents=True)
    recs = [record(s) for s in range(1, 121)]
    recs[100]["loss"] = float("nan")
    write_lines(run / "version_0" / "log.jsonl", recs, "w")
    assert f.wait_for(lambda: any(x.startswith("[critical] step 101 nonfinite:") for x in f.out)), (f.out, f.err)
    ln = next(x for x in f.out if "nonfinite" in x)
    assert " -> " in ln and "\x1b" not in ln
    assert f.wait_for(
        lambda: any(x.startswith("# nonfinite: ") and x.split(":")[1].endswith("-> FAIL") for x in f.err)
    ), f.err
    assert f.stop(signal.SIGINT) == 0
    assert not any("Traceback" in x for x in f.err)


@pytest.mark.slow
def test_follow_resume_is_an_alert_not_a_spike(tmp_path, follow):
    log = tmp_path / "train.jsonl"
    write_lines(log, [record(s) for s in range(1, 301)], "w")
    f = follow(log, "--json")
    assert f.wait_for(lambda: any('"status"' in x for x in f.out))
    write_lines(log, [record(s) for s in range(201, 260)])  # restarted from step 200
    assert f.wait_for(lambda: any('"resume"' in x for x in f.out)), f.out
    assert f.stop() == 0
    alerts = [o for o in f.json() if o["event"] == "alert"]
    assert [a["step"] for a in alerts if a["check"] == "resume"] == [201]
    assert not [a for a in alerts if a["check"] == "loss_spike" and a["severity"] != "info"]


def test_on_alert_runs_command_with_alert_json(tmp_path, follow):
    log = tmp_path / "m.jsonl"
    got = tmp_path / "paged.json"
    write_lines(log, [record(s) for s in range(1, 101)], "w")
    f = follow(tmp_path, "--json", "--on-alert", f"cat > {got}")
    assert f.wait_for(lambda: any('"status"' in x for x in f.out))
    bad = record(101)
    bad["loss"] = float("nan")
    write_lines(log, [bad])
    assert f.wait_for(lambda: got.exists() and got.read_text().strip().endswith("}")), (f.out, f.err)
    paged = json.loads(got.read_text())
    assert paged["event"] == "alert" and paged["check"] == "nonfinite" and paged["severity"] == "critical"
    assert paged["step"] == 101 and paged["actions"]
    assert f.stop() == 0


@pytest.mark.slow
def test_on_alert_failing_command_is_reported_not_fatal(tmp_path, follow):
    log = tmp_path / "m.jsonl"
    write_lines(log, [record(s) for s in range(1, 101)], "w")
    f = follow(tmp_path, "--on-alert", "echo no pager here >&2; exit 3")
    assert f.wait_for(lambda: any("-> PASS" in x for x in f.err)), f.err  # the backlog was read
    bad = record(101)
    bad["loss"] = float("inf")
    write_lines(log, [bad])
    assert f.wait_for(lambda: any("--on-alert command failed (exit 3)" in x for x in f.err)), f.err
    assert any("no pager here" in x for x in f.err)
    # still running and still printing
    write_lines(log, [record(s) for s in range(102, 110)])
    time.sleep(0.3)
    assert f.p.poll() is None
    assert f.stop() == 0


def test_missing_path_with_missing_parent_is_exit_2(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "tsm_tui", str(tmp_path / "nope" / "run"), "--follow"],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        cwd=ROOT,
        timeout=WAIT * 3,
    )
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "no such file or directory" in p.stderr and not p.stdout


def test_printer_and_sanitising():
    import io

    from tsm_tui.views.lines import Printer
    from tsm_tui.core.record import Alert, Severity

    out, err = io.StringIO(), io.StringIO()
    pr = Printer(False, out, err)
    pr.alert(
        Alert(
            "loss_spike",
            Severity.CRITICAL,
            4312,
            "bad \x1b[31mred\x1b[0m\nthing",
            9.0,
            2.0,
            ["Roll back to checkpoint-4000", "lower the LR"],
        )
    )
    pr.alert(Alert("resume", Severity.INFO, None, "resumed", None, None, []))
    assert out.getvalue().splitlines() == [
        "[critical] step 4312 loss_spike: bad red thing -> Roll back to checkpoint-4000",
        "[info] resume: resumed",
    ]
    out = io.StringIO()
    Printer(True, out, err).alert(Alert("nonfinite", Severity.CRITICAL, 7, "m", float("nan"), None, ["a"]))
    obj = json.loads(out.getvalue())
    assert obj == {
        "event": "alert",
        "check": "nonfinite",
        "severity": "critical",
        "step": 7,
        "value": "NaN",
        "baseline": None,
        "message": "m",
        "actions": ["a"],
    }


def test_on_alert_does_not_page_for_the_backlog(tmp_path, follow):
    """A restarted follower prints old alerts but must not page again for them."""
    log = tmp_path / "m.jsonl"
    got = tmp_path / "paged.json"
    recs = [record(s) for s in range(1, 101)]
    recs[50]["loss"] = float("nan")  # an old critical, already in the file
    write_lines(log, recs, "w")
    f = follow(tmp_path, "--json", "--on-alert", f"cat >> {got}")
    assert f.wait_for(lambda: any('"nonfinite"' in x and '"alert"' in x for x in f.out)), f.out
    time.sleep(1.0)
    assert not got.exists()
    assert f.stop() == 0
