"""``--on-alert`` hooks (issue 33 item 4): judged by their own exit, stderr read to a
bound, a hook that never stops killed with its process group, never the monitor.
Real shell commands throughout; the end-to-end cases run ``tsm-watch --follow``."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers.follow import record, write_lines
from tsm_tui.views import hookrun
from tsm_tui.views.pages import AlertHook
from helpers.wait import poll_until
from helpers import paths

ROOT = paths.ROOT


def page(step: int) -> dict:
    return {"event": "alert", "check": "nonfinite", "severity": "critical", "step": step}


def wait_idle(hook: AlertHook, n: int, timeout: float = 10.0) -> float:
    t0 = time.monotonic()
    poll_until(lambda: hook.ran + hook.failed >= n and hook._current is None, timeout, every=0.01)
    return time.monotonic() - t0


def gone(pid: int, wait: float = 3.0) -> bool:
    """The process ended (a zombie counts) within ``wait`` seconds (a killed group's
    orphan is reaped by init on its own time)."""

    def ended() -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True

    return bool(poll_until(ended, wait, every=0.05))


def test_a_hook_leaving_a_background_child_on_stderr_is_judged_by_its_own_exit(tmp_path):
    """``notify-send ... &``: the child holds stderr for 5 s; three pages take well
    under a second each, none is called timed out or failed."""
    pids = tmp_path / "pids"
    err = io.StringIO()
    hook = AlertHook(f"cat > /dev/null; echo paged >&2; sleep 5 & echo $! >> {pids}; exit 0", err)
    t0 = time.monotonic()
    for s in (1, 2, 3):
        hook.submit(page(s))
    took = wait_idle(hook, 3)
    try:
        assert took < 3.0, took  # was 3 x 30 s: each page waited for the child's stderr
        assert (hook.ran, hook.failed) == (3, 0), err.getvalue()
        assert err.getvalue() == ""
        # the background children are the hook's business: left running
        children = [int(x) for x in pids.read_text().split()]
        assert len(children) == 3 and not any(gone(p, 0) for p in children)
    finally:
        hook.close(1.0)
        for p in [int(x) for x in pids.read_text().split()] if pids.exists() else []:
            try:
                os.kill(p, 9)
            except OSError:
                pass
    assert time.monotonic() - t0 < 5


def test_what_the_hook_wrote_before_it_exited_is_still_read():
    r = hookrun.run("echo first >&2; echo 'the pager said no' >&2; sleep 5 & exit 4", b"{}\n", 30)
    assert (r.returncode, r.timed_out, r.last_line()) == (4, False, "the pager said no")


def test_a_hook_that_prints_200_mib_on_stderr_costs_a_bounded_buffer():
    """In a fresh interpreter: its peak RSS stays within a few MB of where it started."""
    code = (
        "import json, resource\n"
        "from tsm_tui.views import hookrun\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "r = hookrun.run(\"head -c 209715200 /dev/zero | tr '\\\\0' x >&2; echo >&2; echo last words >&2; exit 3\","
        " b'{}\\n', 60)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(json.dumps([r.returncode, r.stderr_bytes, len(r.stderr_tail), r.last_line(), before, after]))\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    rc, total, kept, last, before, after = json.loads(p.stdout)
    assert rc == 3 and total >= 200 << 20 and kept <= hookrun.KEEP, p.stdout
    assert last == "last words"
    assert after - before < 4096, p.stdout  # KiB: the 200 MiB never sit in memory (it was ~446 MB)


@pytest.mark.slow
def test_a_hook_that_never_stops_is_killed_with_its_group_and_said_once(tmp_path):
    pids = tmp_path / "pids"
    err = io.StringIO()
    hook = AlertHook(f"trap '' TERM INT HUP; sleep 1000 & echo $! > {pids}; while :; do sleep 1; done", err)
    hook.timeout = 1.0
    hook.submit(page(7))
    hook.submit(page(8))  # the next page is not held up beyond the timeout
    took = wait_idle(hook, 2)
    hook.close(1.0)
    lines = err.getvalue().splitlines()
    assert took < 10, took  # two pages, each ended at its 1 s timeout
    assert [ln for ln in lines if "step 7" in ln] == [
        "tsm-watch: --on-alert command timed out after 1s for nonfinite at step 7 (its process group was ended)"
    ]
    assert (hook.ran, hook.failed) == (2, 2)
    assert gone(int(pids.read_text().split()[0]))  # its background child went with it
    assert hook._t.is_alive() is False or hook._current is None


def test_at_exit_a_page_still_running_is_ended_and_named(tmp_path):
    pids = tmp_path / "pids"
    err = io.StringIO()
    hook = AlertHook(f"sleep 1000 & echo $! > {pids}; wait", err)
    hook.submit(page(9))
    while not pids.exists():
        time.sleep(0.01)
    t0 = time.monotonic()
    hook.close(0.5)
    assert time.monotonic() - t0 < 5
    assert (
        "exiting while the page for nonfinite at step 9 was still running: its process group was ended"
        in err.getvalue()
    )
    assert gone(int(pids.read_text().split()[0]))


@pytest.mark.slow
def test_follow_with_a_hook_that_never_stops_keeps_following_and_exits_cleanly(tmp_path, follow):  # noqa: F811
    """End to end: the page hangs (in its own process group), the monitor keeps printing
    alerts and statuses, and SIGTERM ends it with exit 0 and no traceback."""
    log = tmp_path / "m.jsonl"
    write_lines(log, [record(s) for s in range(1, 101)], "w")
    f = follow(tmp_path, "--json", "--on-alert", "cat >/dev/null; exec sleep 1000")
    assert f.wait_for(lambda: any('"status"' in x for x in f.out))
    bad = record(101)
    bad["loss"] = float("nan")
    write_lines(log, [bad])
    assert f.wait_for(lambda: any('"nonfinite"' in x and '"alert"' in x for x in f.out))
    write_lines(log, [record(s) for s in range(102, 110)])
    time.sleep(1.0)
    assert f.p.poll() is None  # still following, the page hanging in its own group
    t0 = time.monotonic()
    f.p.send_signal(signal.SIGTERM)
    assert f.p.wait(30) == 0
    assert time.monotonic() - t0 < 20  # up to 10 s for the pages at exit, then the page is ended
    f.o.join()
    assert not any("Traceback" in x for x in f.err), f.err
    assert any("was still running: its process group was ended" in x for x in f.err), f.err


@pytest.mark.parametrize(
    "cmd,expect",
    [
        ("exit 0", (0, False)),
        ("kill -9 $$", (-9, False)),
        ("cat > /dev/null; exit 2", (2, False)),
    ],
)
def test_exit_statuses(cmd, expect):
    r = hookrun.run(cmd, json.dumps(page(1)).encode(), 10)
    assert (r.returncode, r.timed_out) == expect


def test_a_hook_that_does_not_read_a_big_payload_is_not_a_hang():
    r = hookrun.run("exit 0", b"x" * (4 << 20), 10)
    assert r.returncode == 0 and not r.timed_out
