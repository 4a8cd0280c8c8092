"""bench/corpus.py's judging rules on a tiny synthetic labels file: the same matching as
shared/real_logs2/score.py (tolerance window, end of a plateau, final plateau verdict), false FAILs
on healthy logs, error classes, private entries that are absent, per-set numbers.
No subprocess and no corpus: reports are hand-written dicts of tsm-watch's JSON schema."""

from __future__ import annotations

import json
import os
import sys
from helpers import paths

ROOT = paths.ROOT
sys.path.insert(0, os.path.join(ROOT, "bench"))

import corpus  # noqa: E402

LABELS = {
    "spiky": {
        "path": "spiky",
        "steps_expected": 100,
        "healthy": False,
        "format_expected": "jsonl",
        "events": [{"type": "grad_spike", "step": 50, "tol": 2}, {"type": "loss_spike", "step": 80, "tol": 2}],
        "info_events": [{"type": "overfit", "step": 60, "end": 100}, {"type": "crash", "step": 100}],
        "ambiguous_events": [{"type": "loss_spike", "step": 20, "ratio": 2.1}],
    },
    "flat": {
        "path": "flat",
        "steps_expected": 100,
        "healthy": False,
        "format_expected": "csv",
        "events": [{"type": "plateau", "step": 40, "end": 99, "tol": 5}],
    },
    "fine": {"path": "fine", "steps_expected": 10, "healthy": True, "format_expected": "csv", "events": []},
    "secret": {
        "path": "secret",
        "private": True,
        "steps_expected": 5,
        "healthy": True,
        "format_expected": "csv",
        "events": [],
    },
}


def report(count, alerts=(), checks=(), last=None, critical=0):
    return {
        "steps": {"count": count, "last": last},
        "alerts": list(alerts),
        "checks": [{"id": c, "status": s, "summary": f"{c} {s}"} for c, s in checks],
        "files": [{"format": "x", "records": count, "used": True}],
        "critical": critical,
    }


def test_events_match_inside_the_tolerance_only():
    rep = report(
        100,
        alerts=[
            {"check": "grad_norm", "step": 52},
            {"check": "loss_spike", "step": 83},
            {"check": "overfitting", "step": 70},
        ],
    )
    r = corpus.judge("spiky", LABELS["spiky"], rep)
    assert [e["found"] for e in r["events"]] == [True, False]  # 52 in 50+-2, 83 outside 80+-2
    assert r["format_ok"] is True
    # info-events use the extended map (overfit -> overfitting, crash -> crash), reported apart
    assert [e["found"] for e in r["info_events"]] == [True, False]
    assert [e["found"] for e in r["ambiguous_events"]] == [False]
    a = corpus.aggregate([r])
    assert (a["events_found"], a["events"], a["info_found"], a["info"]) == (1, 2, 1, 2)


def test_a_plateau_to_the_end_needs_the_final_verdict():
    alert = [{"check": "plateau", "step": 60}]
    # the plateau lasts to the last step: an alert alone is not enough if the check ends PASS
    assert corpus.event_found(LABELS["flat"]["events"][0], report(100, alert, [("plateau", "PASS")], last=99)) is False
    assert corpus.event_found(LABELS["flat"]["events"][0], report(100, alert, [("plateau", "WARN")], last=99)) is True
    # a log that goes on past end + tol: the alert is enough
    assert corpus.event_found(LABELS["flat"]["events"][0], report(100, alert, [("plateau", "PASS")], last=500)) is True


def test_false_fail_only_on_healthy_logs_and_format_share():
    r = corpus.judge("fine", LABELS["fine"], report(9, checks=[("plateau", "FAIL")]))
    assert r["false_fail"] == "plateau: plateau FAIL" and r["format_ok"] is True  # 9 >= 0.9 * 10
    r = corpus.judge("fine", LABELS["fine"], report(8, critical=1))
    assert r["false_fail"] == "critical=1" and r["format_ok"] is False
    r = corpus.judge("flat", LABELS["flat"], report(100, checks=[("plateau", "FAIL")]))
    assert r["false_fail"] is None  # not labelled healthy


def test_errors_are_classified_like_score_py():
    rep, problem, kinds = corpus.classify_run(2, "", "tsm-watch: no log files found\n", 60)
    assert rep is None and kinds == ["exit2"] and "exit code 2: tsm-watch: no log files found" in problem
    rep, problem, kinds = corpus.classify_run(1, "{not json", "Traceback (most recent call last):\nKeyError: 'x'\n", 60)
    assert kinds == ["traceback", "bad_json"] and "KeyError" in problem
    rep, problem, kinds = corpus.classify_run(None, "", "timeout", 60)
    assert kinds == ["timeout"] and problem == "timeout after 60s"
    rep, problem, kinds = corpus.classify_run(0, json.dumps(report(3)), "", 60)
    assert problem is None and kinds == [] and rep["steps"]["count"] == 3
    r = corpus.judge("fine", LABELS["fine"], None, "exit code 2: x", ["exit2"])
    a = corpus.aggregate([r])
    assert (a["errors"], a["error_kinds"]["exit2"], a["formats_ok"]) == (1, 1, 0)


def test_sets_and_absent_private_entries(tmp_path):
    repo, shared = tmp_path / "repo", tmp_path / "shared"
    (repo / "bench" / "corpus" / "demo").mkdir(parents=True)
    (repo / "bench" / "corpus" / "demo" / "labels.json").write_text(json.dumps(LABELS))
    (shared / "real_logs2").mkdir(parents=True)
    (shared / "real_logs2" / "labels.json").write_text(json.dumps({"fine": LABELS["fine"]}))
    sets = corpus.discover_sets(str(repo), str(shared))
    assert [(s[0], s[1] is not None) for s in sets] == [("real_logs", False), ("real_logs2", True), ("demo", True)]
    name, lp, base, priv, _ = sets[2]
    got = corpus.entries(json.load(open(lp)), base, priv)
    assert [(n, p is None) for n, _, p in got] == [("spiky", False), ("flat", False), ("fine", False), ("secret", True)]
    (shared / "corpus_private" / "demo" / "secret").mkdir(parents=True)  # the private copy appears
    got = corpus.entries(json.load(open(lp)), base, priv)
    assert dict((n, p) for n, _, p in got)["secret"] == str(shared / "corpus_private" / "demo" / "secret")
