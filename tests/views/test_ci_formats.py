"""``--report --format github`` (GitHub Actions workflow commands, checked line by line)
and ``--report --format sarif`` (validated against the OASIS SARIF 2.1.0 schema in
tests/data/sarif/, with jsonschema's Draft 4 validator)."""

from __future__ import annotations

import json
import os
import re
import shutil

import jsonschema
import pytest
from conftest import val_only_log

from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.cli import main
from tsm_tui.views.github import escape_data, escape_property
from helpers import paths

ROOT = paths.ROOT
SAMPLES = os.path.join(ROOT, "sample_runs")
SCHEMA = os.path.join(ROOT, "tests", "data", "sarif", "sarif-schema-2.1.0.json")
TB = os.path.join(ROOT, "tests", "data", "frameworks", "tensorboard_only")
CMD = re.compile(r"^::(?P<cmd>error|warning)(?: (?P<props>[^:]*))?::(?P<msg>.*)$")


def _unescape(s: str) -> str:
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def _props(text: str) -> dict:
    out = {}
    for kv in (text or "").split(","):
        k, _, v = kv.partition("=")
        out[k] = _unescape(v)
    return out


def _run(capsys, *args) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def _annotations(out: str) -> tuple[list[dict], list[str]]:
    """The annotation lines (parsed) and the rest, checking the rest's shape."""
    lines = out.rstrip("\n").split("\n")
    anns = []
    i = 0
    while i < len(lines) and CMD.match(lines[i]):
        m = CMD.match(lines[i])
        anns.append({"cmd": m["cmd"], **_props(m["props"]), "message": _unescape(m["msg"])})
        i += 1
    return anns, lines[i:]


def _group(rest: list[str]) -> tuple[str, list[str]]:
    """The folded report: ::group::, ::stop-commands::TOKEN, the report, ::TOKEN::, ::endgroup::."""
    assert rest[0].startswith("::group::Training Stability Report: ")
    m = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", rest[1])
    assert m, rest[1]
    assert rest[-2] == f"::{m[1]}::" and rest[-1] == "::endgroup::"
    return rest[0], rest[2:-2]


# ----------------------------------------------------------------------------- github


def test_escaping_follows_the_actions_toolkit():
    assert escape_data("45% of steps\r\nnext") == "45%25 of steps%0D%0Anext"
    assert escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    assert escape_data("a:b,c") == "a:b,c"  # data keeps colons and commas


def test_github_annotations_line_by_line(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = "sample_runs/spike_no_recover"
    code, out = _run(capsys, run, "--report", "--format", "github")
    rc_json, js = _run(capsys, run, "--report", "--json")
    _, text = _run(capsys, run, "--report")
    assert code == rc_json == 1
    d = json.loads(js)
    anns, rest = _annotations(out)
    bad = [c for c in d["checks"] if c["status"] in ("FAIL", "WARN")]
    # one annotation per check at FAIL / WARN, in the report's order, the level from the status
    assert [(a["cmd"], a["title"].split(" ")[0]) for a in anns] == [
        ("error" if c["status"] == "FAIL" else "warning", c["title"].split(" ")[0]) for c in bad
    ]
    log = os.path.join(run, "train.log")
    with open(log) as f:
        lines = f.read().split("\n")
    for a, c in zip(anns, bad):
        assert a["file"] == log
        step = int(re.search(r" at step (\d+) ", a["title"])[1])
        assert a["title"] == f"{c['title']} {c['status']} at step {step} ({log})"
        assert f" iteration {step:>8}/" in lines[int(a["line"]) - 1]  # the line of that step's record
        msg = a["message"].split("\n")
        assert msg[0] == c["summary"]
        alert = next(x for x in d["alerts"] if x["check"] == c["id"] and x["step"] == step)
        assert msg[1] == alert["message"]
        assert msg[2] == "Actions:" and msg[3:] == [f"{i}. {x}" for i, x in enumerate(alert["actions"], 1)]
    fail = anns[0]
    assert fail["cmd"] == "error" and fail["title"].startswith("Loss Spike Detection FAIL at step 1020")
    head, body = _group(rest)
    assert head == f"::group::Training Stability Report: {d['critical']} critical, {d['warnings']} warning(s) in {run}"
    assert body == text.rstrip("\n").split("\n")  # the text report, unchanged, folded


def test_github_escapes_file_names_and_warns_when_nothing_was_judged(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "run,1:50%\nb"
    os.mkdir(name)
    with open(os.path.join(name, "metrics.jsonl"), "w") as f:
        for s in range(10, 400, 10):
            f.write(json.dumps({"step": s, "val_loss": 3.0 - s / 1000}) + "\n")
    code, out = _run(capsys, name, "--report", "--format", "github")
    assert code == 0
    raw = [ln for ln in out.split("\n") if ln.startswith("::warning")]
    assert all("\r" not in ln for ln in raw) and len(out.split("\n")) > len(raw)
    anns, rest = _annotations(out)
    file = os.path.join(name, "metrics.jsonl")
    nj = next(a for a in anns if a["title"].startswith("Nothing judged"))
    assert nj["file"] == file and nj["title"] == f"Nothing judged ({file})"
    assert "only the validation loss" in nj["message"] and "does not mean a healthy run" in nj["message"]
    assert next(a for a in anns if a["title"].startswith("Checkpoints WARN"))["file"] == file
    _group(rest)


def test_github_on_a_directory_of_runs_names_each_run(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out = _run(capsys, "sample_runs", "--report", "--format", "github")
    rc, js = _run(capsys, "sample_runs", "--report", "--json")
    assert code == rc == 1
    d = json.loads(js)
    anns, rest = _annotations(out)
    want = sum(1 for r in d["runs"] for c in r["checks"] if c["status"] in ("FAIL", "WARN"))
    assert len([a for a in anns if not a["title"].startswith(("[", "Nothing"))]) == 0
    assert len([a for a in anns if " at step " in a["title"] or re.search(r" (FAIL|WARN) \(", a["title"])]) == want
    for a in anns:
        run = re.match(r"\[([^\]]+)\] ", a["title"])[1]
        assert a["file"].startswith(os.path.join("sample_runs", run))
    # each run of many is compacted once judged: its lines are still found
    spike = next(a for a in anns if a["title"].startswith("[spike_no_recover] Loss Spike Detection FAIL"))
    assert spike["line"] == "242" and spike["file"] == os.path.join("sample_runs", "spike_no_recover", "train.log")
    _, body = _group(rest)
    assert body[0].startswith("=== Runs: ")


def test_github_on_tensorboard_has_no_line(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    _, out = _run(capsys, TB, "--report", "--format", "github")
    anns, _ = _annotations(out)
    assert anns and all("line" not in a and a["file"].endswith(".0") for a in anns)


def test_format_usage_errors(capsys):
    run = os.path.join(SAMPLES, "healthy")
    assert main([run, "--json", "--format", "sarif"]) == 2
    assert main([run, "--follow", "--format", "github"]) == 2
    assert main(["--preflight", run, "--format", "sarif"]) == 2
    assert main([run, "--format", "xml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 4 and all(ln.startswith("tsm-watch: ") for ln in err.splitlines())
    # --format json is --json, --format text is the text report
    assert main([run, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["schema"] == 1
    assert main([run, "--format", "text"]) == 0
    assert capsys.readouterr().out.startswith("=== Training Stability Report ===")


# ----------------------------------------------------------------------------- sarif


@pytest.fixture(scope="module")
def validator():
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def _sarif(capsys, path) -> tuple[int, dict, dict | None]:
    code = main([path, "--report", "--format", "sarif"])
    s = json.loads(capsys.readouterr().out)
    main([path, "--report", "--json"])
    return code, s, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "case", ["spike_no_recover", "nan_divergence", "resumed", "fp16_loss_scale", "all", "tb", "nothing_judged"]
)
def test_sarif_is_valid_2_1_0(case, validator, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    path = {"all": "sample_runs", "tb": TB, "nothing_judged": None}.get(case, os.path.join("sample_runs", case))
    if path is None:
        path = val_only_log(tmp_path)
    code, s, d = _sarif(capsys, path)
    errors = sorted(validator.iter_errors(s), key=str)
    assert not errors, errors[0]
    assert s["version"] == "2.1.0" and len(s["runs"]) == 1
    run = s["runs"][0]
    assert run["invocations"][0]["exitCode"] == code
    reports = d["runs"] if d.get("kind") == "runs" else [d]
    # one rule per check id: the registry's, in its order, stable; results point at their rule
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids[: len(DETECTORS)] == [x.id for x in DETECTORS] and len(set(ids)) == len(ids)
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
    # every critical / warning alert is a result; every check at WARN / FAIL is represented
    alerts = [a for r in reports for a in r["alerts"] if a["severity"] != "info"]
    by_alert = [x for x in run["results"] if "severity" in x["properties"]]
    assert len(by_alert) == len(alerts)
    for r in reports:
        for c in r["checks"]:
            if c["status"] in ("FAIL", "WARN"):
                assert any(
                    x["ruleId"] == c["id"] and x["properties"].get("run", r.get("run")) == r.get("run")
                    for x in run["results"]
                )
    # what could not be judged is said: every skipped check is a notification
    notes = run["invocations"][0]["toolExecutionNotifications"]
    skipped = sum(len(r["coverage"]["skipped"]) for r in reports)
    assert len([n for n in notes if n.get("associatedRule")]) == skipped
    if case == "nothing_judged":
        assert any(n["level"] == "warning" and "no check could judge" in n["message"]["text"] for n in notes)


def test_sarif_locations_are_the_records_lines(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    _, s, d = _sarif(capsys, "sample_runs/spike_no_recover")
    run = s["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file://" + ROOT.rstrip("/") + "/"
    with open(os.path.join(SAMPLES, "spike_no_recover", "train.log")) as f:
        lines = f.read().split("\n")
    levels = {"critical": "error", "warning": "warning"}
    status = {c["id"]: c["status"] for c in d["checks"]}
    for res in run["results"]:
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": "sample_runs/spike_no_recover/train.log", "uriBaseId": "SRCROOT"}
        step = res["properties"]["step"]
        assert f" iteration {step:>8}/" in lines[loc["region"]["startLine"] - 1]
        want = levels[res["properties"]["severity"]] if status[res["ruleId"]] in ("FAIL", "WARN") else "note"
        assert res["level"] == want
    # stable across invocations: same ids, same fingerprints
    _, s2, _ = _sarif(capsys, "sample_runs/spike_no_recover")
    fp = [r["partialFingerprints"] for r in run["results"]]
    assert fp == [r["partialFingerprints"] for r in s2["runs"][0]["results"]] and len(
        {json.dumps(x) for x in fp}
    ) == len(fp)


def test_sarif_outside_the_working_directory_uses_file_uris(tmp_path, capsys, monkeypatch):
    src = os.path.join(SAMPLES, "nan_divergence")
    dst = tmp_path / "nan run"
    shutil.copytree(src, dst)
    monkeypatch.chdir(ROOT)
    _, s, _ = _sarif(capsys, str(dst))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in s["runs"][0]["results"]}
    assert uris == {(dst / "trainer_log.jsonl").as_uri()} and "%20" in next(iter(uris))
