"""``tsm-watch RUN --report --format sarif``: the report as a SARIF 2.1.0 log (OASIS
Static Analysis Results Interchange Format), for code-scanning uploads and SARIF
viewers.

* One SARIF run for the tool invocation (several training runs under PATH are results
  of that one run, each naming its training run in ``properties.run``: GitHub's upload
  refuses several SARIF runs of one tool and category).
* One rule per check id, in the detector registry's order (``detectors.DETECTORS``:
  a new check gets its rule without a word here), then any other check a report
  produced (``ranks``); ``ruleId`` is the check id, stable across versions and runs.
  A rule's description is its detector module's first paragraph.
* One result per critical or warning alert (level ``error`` / ``warning``; ``note``
  when its check ended at PASS or SKIP, e.g. a spike that recovered), located at the
  log file and line of the alert's record where known (``sources/locate.py``; formats
  without lines, such as TensorBoard event files, give the file alone), and one per
  check at WARN / FAIL that has no alert of its own, at the file.
* ``invocations[0].toolExecutionNotifications``: every check that could not judge the
  run (with the check's reason), a run in which nothing could be judged, a run that
  could not be analysed: what the report could not say, said in the log.
* Paths inside the working directory are relative to ``%SRCROOT%`` (the working
  directory, given in ``originalUriBaseIds``), others are absolute ``file:`` URIs.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
from urllib.parse import quote

from tsm_tui import __version__
from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.core.record import json_float
from tsm_tui.core.sanitize import clean
from tsm_tui.sources.locate import relative
from tsm_tui.views.findings import CiRun, Finding, ci_runs

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "SRCROOT"


def rules(extra: dict[str, str] | None = None) -> list[dict]:
    """One reporting descriptor per check: the registry's, then ``extra`` (id -> title)."""
    out = []
    for cls in DETECTORS:
        out.append(
            {
                "id": cls.id,
                "name": "".join(w[:1].upper() + w[1:] for w in cls.id.split("_")),
                "shortDescription": {"text": cls.title},
                "fullDescription": {"text": cls.description() or cls.title},
                "defaultConfiguration": {"level": "error"},
            }
        )
    known = {r["id"] for r in out}
    for cid, title in sorted((extra or {}).items()):
        if cid not in known:
            out.append(
                {
                    "id": cid,
                    "name": "".join(w[:1].upper() + w[1:] for w in cid.split("_")),
                    "shortDescription": {"text": title},
                    "defaultConfiguration": {"level": "error"},
                }
            )
    return out


def _uri(path: str) -> dict:
    rel = relative(path)
    if os.path.isabs(rel):
        return {"uri": pathlib.Path(rel).as_uri()}
    return {"uri": quote(rel.replace(os.sep, "/")), "uriBaseId": SRCROOT}


def _location(f: Finding) -> dict:
    phys: dict = {"artifactLocation": _uri(f.file)}
    if f.line is not None:
        phys["region"] = {"startLine": f.line}
    return {"physicalLocation": phys}


def _fingerprint(*parts) -> str:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8", "replace")).hexdigest()[:32]


def _result(f: Finding, index: dict[str, int]) -> dict:
    text = f.message
    if f.actions:
        text += "\nActions: " + " ".join(f"{i}. {a}" for i, a in enumerate(f.actions, 1))
    props: dict = {"check": f.check, "status": f.status, "step": f.step}
    if f.run is not None:
        props["run"] = f.run
    a = f.alert
    if a is not None:
        props.update(
            {
                "severity": a.severity.value,
                "value": json_float(a.value),
                "baseline": json_float(a.baseline),
                "actions": list(f.actions),
            }
        )
    key = (a.key or a.check) if a is not None else f.check
    return {
        "ruleId": f.check,
        "ruleIndex": index[f.check],
        "level": f.level,
        "message": {"text": text},
        "locations": [_location(f)],
        "partialFingerprints": {"tsmFinding/v1": _fingerprint(f.run or "", f.check, key, f.step)},
        "properties": props,
    }


def _notifications(r: CiRun, index: dict[str, int]) -> list[dict]:
    out = []
    where = [{"physicalLocation": {"artifactLocation": _uri(r.file)}}]
    run = f"{r.name}: " if r.name else ""
    if r.coverage["nothing_judged"]:
        out.append(
            {
                "level": "warning",
                "locations": where,
                "message": {
                    "text": f"{run}no check could judge the training from this log: "
                    "no error here does not mean a healthy run"
                },
            }
        )
    for s in r.coverage["skipped"]:
        n = {
            "level": "note",
            "locations": where,
            "message": {"text": f"{run}{clean(s['title'])} not judged: {clean(s['reason'])}"},
        }
        if s["id"] in index:
            n["associatedRule"] = {"id": s["id"], "index": index[s["id"]]}
        out.append(n)
    return out


def render(results: list, path: str, exit_code: int) -> dict:
    runs, failures = ci_runs(results)
    extra = {c.id: c.title for r in runs for c in r.checks}
    rl = rules(extra)
    index = {r["id"]: i for i, r in enumerate(rl)}
    out: list[dict] = []
    notes: list[dict] = []
    for r in runs:
        alerted = {a.check for a in r.alerts}
        out += [_result(f, index) for f in r.alert_findings()]
        out += [_result(f, index) for f in r.check_findings() if f.check not in alerted]
        notes += _notifications(r, index)
    for fail in failures:
        notes.append(
            {
                "level": "error",
                "message": {"text": f"run {clean(fail.run.name)} not analysed: {clean(fail.reason)}"},
                "locations": [{"physicalLocation": {"artifactLocation": _uri(fail.run.path)}}],
            }
        )
    cwd = pathlib.Path(os.getcwd()).as_uri().rstrip("/") + "/"
    crit = sum(r.counts()[0] for r in runs)
    warn = sum(r.counts()[1] for r in runs)
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {"name": "tsm-watch", "version": __version__, "semanticVersion": __version__, "rules": rl}
                },
                "originalUriBaseIds": {SRCROOT: {"uri": cwd}},
                "invocations": [
                    {"executionSuccessful": True, "exitCode": exit_code, "toolExecutionNotifications": notes}
                ],
                "results": out,
                "properties": {
                    "path": path,
                    "critical": crit,
                    "warnings": warn,
                    "runs": [r.name or r.an.run.name for r in runs],
                },
            }
        ],
    }
