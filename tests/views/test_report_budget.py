"""Alerts past the budget (20 of one kind, its first 3 and its largest, 5 of a note; 1,000 in all) are
counted and said: nothing the checks said is dropped in silence."""

from __future__ import annotations

import json
import os

from tsm_tui.analysis.monitor import FIRST_KEPT, MAX_ALERTS, PER_KEY, PER_KEY_INFO, Monitor
from tsm_tui.cli import main
from tsm_tui.core.record import Alert, Severity, StepRecord
from tsm_tui.core.settings import RunInfo, Settings
from helpers import paths


def test_repeats_past_the_budget_are_counted():
    mon = Monitor(Settings(), RunInfo())
    mon._store(
        [
            Alert("grad_norm", Severity.WARNING, i, f"m{i}", value=float(i), baseline=1.0, key="k")
            for i in range(PER_KEY + 4)
        ]
        + [Alert("throughput", Severity.INFO, i, f"t{i}", value=None, baseline=None, key="t") for i in range(9)]
    )
    kept = sorted(a.step for a in mon.alerts if a.key == "k")
    # the first FIRST_KEPT (where the series began), then the largest
    assert len(kept) == PER_KEY and kept[:FIRST_KEPT] == list(range(FIRST_KEPT)) and kept[FIRST_KEPT] == 4 + FIRST_KEPT
    assert len([a for a in mon.alerts if a.key == "t"]) == PER_KEY_INFO
    assert mon.alerts_not_kept() == 4 + 9 - PER_KEY_INFO
    mon._store(
        [
            Alert("crash", Severity.WARNING, i, f"c{i}", value=None, baseline=None, key=f"c{i}")
            for i in range(MAX_ALERTS)
        ]
    )
    # (the kept of "k" and "t" pushed out by 1,000 newer)
    assert mon.alerts_not_kept() == 4 + 9 - PER_KEY_INFO + PER_KEY + PER_KEY_INFO


def test_the_report_says_how_many_were_not_kept(capsys, tmp_path):
    run = os.path.join(paths.SAMPLES, "spike_no_recover")
    assert main([run, "--report", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["alerts_not_kept"] == 0
    # 30 isolated grad-norm spikes, 100 steps apart: 20 kept (located), 10 counted and said
    rows = [
        {"step": s, "loss": 2.0 - s * 1e-4, "grad_norm": 20.0 if s % 100 == 50 else 0.5 + 0.005 * (s % 7), "lr": 1e-4}
        for s in range(1, 3001)
    ]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    main([str(tmp_path), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    spikes = [a for a in d["alerts"] if a["check"] == "grad_norm"]
    assert len(spikes) == PER_KEY and d["alerts_not_kept"] == 30 - PER_KEY
    main([str(tmp_path), "--report"])
    assert (
        f"({30 - PER_KEY} more alert(s) not kept: {PER_KEY} of each kind, its first {FIRST_KEPT} and its largest "
        f"({PER_KEY_INFO} of a note), and the newest 1000 are)"
    ) in capsys.readouterr().out


def test_the_report_shows_only_facts_a_log_or_config_may_state(tmp_path, capsys):
    """SHOWN_FACTS (the report's "config:" line, the JSON's ``run``) is a selection of
    LOG_FACTS, in its own order; a fact read from a config reaches both."""
    from tsm_tui.core.settings import LOG_FACTS, SHOWN_FACTS

    assert set(SHOWN_FACTS) <= set(LOG_FACTS) and len(set(SHOWN_FACTS)) == len(SHOWN_FACTS)
    run = tmp_path / "run"
    run.mkdir()
    (run / "trainer_log.jsonl").write_text(
        "".join(json.dumps({"current_steps": s, "total_steps": 40, "loss": 2.0 - s / 100}) + "\n" for s in range(1, 41))
    )
    (run / "training_args.json").write_text(json.dumps({"max_steps": 40, "warmup_steps": 0.1, "max_grad_norm": 0.5}))
    assert main([str(run), "--json"]) in (0, 1)
    got = json.loads(capsys.readouterr().out)["run"]
    assert got["total_steps"] == 40 and got["warmup_steps"] == 4 and got["clip"] == 0.5
    assert list(k for k in got if k in SHOWN_FACTS) == [k for k in SHOWN_FACTS if k in got]


def test_the_first_alerts_kept_go_with_their_run():
    """The first FIRST_KEPT alerts of each kind are held against larger ones (never displaced); a new
    run in the file lets the old run's go with its alerts: held over hundreds of relaunches, they
    grew without bound."""
    mon = Monitor(Settings(), RunInfo())
    for _launch in range(50):
        mon.feed(StepRecord(10, loss=2.0))  # (a run with records, then its alerts)
        mon._store(
            [
                Alert("grad_norm", Severity.WARNING, i, f"m{i}", value=float(i), baseline=1.0, key="k")
                for i in range(FIRST_KEPT + 2)
            ]
        )
        assert len(mon._pinned) == FIRST_KEPT
        mon._new_run(StepRecord(1, loss=2.0))  # (grad_norm carries no file history: its alerts go)
    assert len(mon._pinned) == 0
