"""Checkpoint saves a log names (``analysis/logged_saves.py``): with none in the run directory
(a log copied away from its run), the Checkpoints check judges them and the rollback advice names
the last one before the event, unless a later save to the same path overwrote it."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

from tsm_tui.analysis.replay import analyze


def _log(tmp_path, path_of, n=600, every=100, spike=450, name="train.log"):
    rng = random.Random(3)
    lines = []
    for s in range(1, n + 1):
        loss = (2.0 * math.exp(-s / 300) + 0.5) * math.exp(rng.gauss(0, 0.01)) * (math.nan if s == spike else 1)
        lines.append(f"step {s} | loss {loss:.4f} | lr 3.0e-04")
        if s % every == 0:
            lines.append(f"Saving checkpoint to {path_of(s)}")
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def _check(res, cid):
    return next(c for c in res.checks() if c.id == cid)


def _actions(res):
    return [x for a in res.alerts() for x in a.actions]


def test_step_numbered_saves_are_rollback_points(tmp_path):
    res = analyze(str(_log(tmp_path, lambda s: f"out/ckpt-{s}.pt")))
    c = _check(res, "checkpoints")
    assert c.status.value == "PASS", c.summary
    assert c.summary == (
        "none in the run directory, but the log names 6 save(s), newest out/ckpt-600.pt at step 600, every ~100 steps"
    )
    assert any(
        a.startswith(
            "Roll back to out/ckpt-400.pt (the log's save; not in the run directory) (step 400, the last checkpoint before the first NaN at step 450)"
        )
        for a in _actions(res)
    )
    assert _check(res, "crash").status.value == "PASS"  # (a save is no crash line)


def test_saves_to_one_file_are_no_rollback_point_past_the_next_save(tmp_path):
    res = analyze(str(_log(tmp_path, lambda s: "out/last.pt")))
    c = _check(res, "checkpoints")
    assert c.summary.endswith("(all to one file: each save overwrites the last)")
    # said at step 450, when out/last.pt still held step 400: copy it before the next save
    (a,) = [a for a in _actions(res) if "out/last.pt" in a]
    assert a.startswith(
        "Roll back to out/last.pt (the log's save, not in the run directory: copy it before the run's next save "
        "overwrites it) (step 400, the last checkpoint before the first NaN at step 450)"
    )
    # after the run: the save before step 450 was overwritten at step 600 (the newest save to that path)
    from tsm_tui.analysis import advice

    assert advice.rollback(res.monitor.state, 450, "the first NaN").startswith(
        "The last save before the first NaN at step 450 (out/last.pt, step 400) was overwritten by the save at step 600"
    )


def test_checkpoints_on_disk_come_first_and_json_says_the_logged_ones(tmp_path):
    _log(tmp_path, lambda s: f"/elsewhere/ckpt-{s}.pt")
    (tmp_path / "checkpoint-300").mkdir()
    (tmp_path / "checkpoint-300" / "model.safetensors").write_bytes(b"x")
    res = analyze(str(tmp_path))
    assert _check(res, "checkpoints").summary.startswith("1 checkpoint(s), newest checkpoint-300")
    out = subprocess.run(
        [sys.executable, "-m", "tsm_tui", "--json", str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    d = json.loads(out.stdout)
    assert d["run"]["checkpoints"] == [{"step": 300, "name": "checkpoint-300"}]
    assert d["run"]["checkpoints_logged"]["count"] == 6
    assert d["run"]["checkpoints_logged"]["saves"][0] == {"step": 100, "path": "/elsewhere/ckpt-100.pt"}


def test_a_path_with_terminal_controls_is_cleaned(tmp_path):
    res = analyze(str(_log(tmp_path, lambda s: f"out/\x1b]0;pwned\x07ckpt-{s}.pt")))
    assert "\x1b" not in _check(res, "checkpoints").summary and "\x07" not in _check(res, "checkpoints").summary
