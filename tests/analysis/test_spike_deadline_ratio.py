"""The recovery deadline fails only a spike that reached 2x its baseline (loss_spike.DEADLINE_FAIL_RATIO).

fresh14's TF1 LSTM nohup (private, no licence; notes/fresh14.md log 14) logs its per-batch, L2-dominated
loss every 2,000 iterations: the 500-step recovery deadline came one record after a 1.66x step, which
then decayed back over ~10 records, and the healthy run FAILed "has not recovered 2000 steps later". The
logs below are written by us in that file's shape (its line, its interval, the spike's shape), and a
2.5x spike that stays up still FAILs.
"""

from __future__ import annotations

import json
import math

from tsm_tui.cli import main


def tf1_log(path, after: list[float], n: int = 160, at: int = 100) -> None:
    lines = []
    for k in range(1, n + 1):
        if at <= k < at + len(after):
            x = after[k - at]
        else:
            x = 10.0 + 0.45 * math.sin(k * 2.3) + 0.2 * math.sin(k * 0.7)  # per-batch noise around ~10
        lines.append(f"Training iter #{2000 * k}:   Batch Loss = {x:.6f}, Accuracy = 0.93")
        lines.append(f"PERFORMANCE ON TEST SET: Batch Loss = {x + 0.5:.4f}, Accuracy = 0.91")
    path.write_text("\n".join(lines) + "\n")


def spike_check(tmp_path, capsys, after: list[float]) -> tuple[dict, list[dict]]:
    tf1_log(tmp_path / "nohup.out", after)
    rc = main([str(tmp_path), "--report", "--json"])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    rep = json.loads(out)
    check = next(c for c in rep["checks"] if c["id"] == "loss_spike")
    return check, [a for a in rep["alerts"] if a["check"] == "loss_spike"]


#: a 1.66x step that decays back over ~15 records (the shape of the fresh14 log's 878000)
DECAY = [16.0, 14.3, 14.1, 13.5, 12.6, 13.1, 12.4, 11.9, 12.1, 12.0, 11.9, 11.3, 11.5, 11.6, 11.3, 11.1, 10.9]


def test_a_sub_2x_spike_on_a_sparse_log_is_not_failed_by_the_deadline(tmp_path, capsys):
    check, alerts = spike_check(tmp_path, capsys, DECAY)
    assert check["status"] == "WARN", check
    assert "recovered" in check["summary"]
    assert not [a for a in alerts if a["severity"] == "critical"]
    assert any(a["step"] == 200000 and a["severity"] == "warning" for a in alerts)  # the spike is still said


def test_a_2_5x_spike_that_stays_up_still_fails(tmp_path, capsys):
    up = [25.0] + [15.0 + 0.9 * math.sin(k * 1.9) for k in range(40)]  # 2.5x, then ~1.5x and noisy
    check, alerts = spike_check(tmp_path, capsys, up)
    assert check["status"] == "FAIL", check
    assert any(a["severity"] == "critical" for a in alerts)
