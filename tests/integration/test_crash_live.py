"""Crashes live (issue 27): real training processes that die (a raise, SIGKILL, a memory
limit exhausted), followed with ``--follow --json`` in a subprocess and with the TUI: the
crash shows within a second of its line, once, and the run reads 'crashed', not 'stalled'."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from helpers.tui import run, screen_lines

from tsm_tui.cli import parse
from tsm_tui.views.tui import TsmApp
from tsm_tui.views.tui.widgets import AlertList, CheckRow
from helpers.wait import pilot_until, wait_until

LATENCY = 1.0  # s: the crash must show within a second of its line (issue 27)

# a small real training loop (numpy-free, so the memory limit hits the allocation we make):
# it prints its steps like a console logger, then dies as the test asks
TRAIN = textwrap.dedent("""
    import math, os, resource, sys, time
    mode, steps = sys.argv[1], int(sys.argv[2])
    w = [0.5] * 64
    for step in range(1, steps + 1):
        loss = sum((x - 0.1) ** 2 for x in w) + 0.01 * math.sin(step)
        w = [x - 0.05 * 2 * (x - 0.1) for x in w]
        print(f"step {step} | loss {loss:.5f} | lr 0.05 | grad_norm {abs(w[0]):.4f}", flush=True)
        time.sleep(0.02)
    open(sys.argv[3], "w").close()  # the test's signal: the steps are written
    while not os.path.exists(sys.argv[4]):
        time.sleep(0.01)
    if mode == "raise":
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    if mode == "oom":
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        hog = [bytearray(64 << 20) for _ in range(64)]  # 4 GiB against a 1 GiB limit: MemoryError
    if mode == "kill":
        time.sleep(60)  # killed from outside
""")


def start_training(tmp_path, mode: str, steps: int = 40):
    """The training process, its stdout and stderr appended to ``train.log`` by a shell
    (as a Slurm job script does): the shell reports a SIGKILLed child in the log too."""
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    ready, go = tmp_path / "ready", tmp_path / "go"
    log = tmp_path / "run" / "train.log"
    log.parent.mkdir(exist_ok=True)
    cmd = f"{sys.executable} -u {script} {mode} {steps} {ready} {go}; true"
    with open(log, "ab") as out:
        p = subprocess.Popen(["bash", "-c", cmd], stdout=out, stderr=subprocess.STDOUT)
    wait_until(ready.exists, 30, f"the trainer's ready file {ready}")
    return p, log, go


def trainer_pid(shell: subprocess.Popen) -> int:
    out = subprocess.run(["pgrep", "-P", str(shell.pid)], capture_output=True, text=True).stdout.split()
    return int(out[0])


def wait_for_text(path, word: str, timeout: float = 30.0) -> float:
    """When ``word`` appeared in the file (polled every 5 ms)."""
    wait_until(lambda: word in path.read_text(errors="replace"), timeout, f"{word!r} written to {path}", every=0.005)
    return time.monotonic()


CASES = [
    # (mode, the word the process's death writes, the crash's cause in the message)
    ("raise", "RuntimeError", "CUDA error"),
    ("oom", "MemoryError", "host memory exhausted"),
    ("kill", "Killed", "killed (SIGKILL)"),
]


@pytest.mark.parametrize("mode,word,what", CASES, ids=[c[0] for c in CASES])
@pytest.mark.slow
def test_follow_json_says_the_crash_within_a_second_once(tmp_path, follow, mode, word, what):
    p, log, go = start_training(tmp_path, mode)
    f = follow(log.parent, "--json")
    assert f.wait_for(lambda: any('"status"' in x for x in f.out), timeout=15), f.err
    assert not any('"crash"' in x and '"alert"' in x for x in f.out)
    (tmp_path / "go").touch()
    if mode == "kill":
        time.sleep(0.3)
        os.kill(trainer_pid(p), 9)
    written = wait_for_text(log, word)
    assert f.wait_for(lambda: any('"crash"' in x and '"alert"' in x for x in f.out), timeout=10), (f.out, f.err)
    seen = time.monotonic()
    assert seen - written < LATENCY, seen - written
    p.wait(10)
    time.sleep(0.5)  # anything the shell or a second look would add
    objs = f.json()
    crash = [o for o in objs if o["event"] == "alert" and o["check"] == "crash"]
    assert len(crash) == 1, crash  # once
    a = crash[0]
    assert a["severity"] == "critical" and a["step"] == 40 and what in a["message"], a
    assert a["actions"]
    status = [o for o in objs if o["event"] == "status" and o["check"] == "crash"]
    assert status[-1]["status"] == "FAIL"
    assert f.stop() == 0
    assert not any("Traceback" in x for x in f.err)


@pytest.mark.slow
def test_the_tui_shows_the_crash_and_says_crashed(tmp_path):
    p, log, go = start_training(tmp_path, "raise")

    async def body():
        app = TsmApp.from_options(parse([str(log.parent), "--no-bell"]))
        assert app.mode == "live"
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot_until(pilot, lambda: app.dashboard.last_step() == 40, 10, "step 40 read")
            go.touch()
            written = wait_for_text(log, "RuntimeError")
            alerts = app.query_one(AlertList)
            await pilot_until(pilot, lambda: any(a.check == "crash" for a in alerts.alerts), 5, every=0.02, fail=False)
            took = time.monotonic() - written
            assert [a.step for a in alerts.alerts if a.check == "crash"] == [40]
            assert took < LATENCY, took
            await pilot_until(pilot, lambda: app.check_statuses().get("crash") == "FAIL", 5, "crash: FAIL")
            await pilot.pause(0.3)
            text = "\n".join(screen_lines(app))
            assert "crashed" in text and "stalled" not in text
            row = app.query_one("#check-crash", CheckRow)
            assert row.status.value == "FAIL"
            assert len([a for a in alerts.alerts if a.check == "crash"]) == 1

    run(body())
    p.wait(10)


@pytest.mark.slow
def test_report_on_the_crashed_run(tmp_path, capsys):
    from tsm_tui.cli import main

    p, log, go = start_training(tmp_path, "oom")
    go.touch()
    p.wait(30)
    assert main([str(log.parent), "--report", "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert c["status"] == "FAIL" and "step 40" in c["summary"]
    a = next(a for a in d["alerts"] if a["check"] == "crash")
    assert "MemoryError" in a["message"] and any("num_workers" in x for x in a["actions"])
