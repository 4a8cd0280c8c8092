#!/usr/bin/env python3
"""Score tsm-watch on every labelled set of real training logs (issue 26 §1).

Sets, in this order (each one is a ``labels.json`` in the format of ``shared/real_logs2``):

* ``real_logs``   ``<shared>/real_logs/labels.json``  (skipped, and said so, while it has no labels)
* ``real_logs2``  ``<shared>/real_logs2/labels.json``
* every ``bench/corpus/<set>/labels.json`` of this repository (``trackers``, ``console``, ...).
  Entries marked ``"private": true`` are logs whose licence does not allow redistribution: their
  ``path`` is relative to ``<shared>/corpus_private/<set>/``. They are scored when that copy is
  present and counted as absent (never an error) when it is not.

``<shared>`` is ``--shared``, else ``$TSM_SHARED``, else the first ``shared/`` folder beside the
repository or one of its parents (``../shared`` for the main checkout).

For every labelled log this runs ``CMD PATH --report --json`` and judges, with exactly the rules of
``shared/real_logs2/score.py`` (so its numbers on real_logs2 are the same):

* format read: the report read at least 90% of ``steps_expected`` (``steps.count``, else the largest
  ``records`` of a used file);
* each labelled event found: an alert of a fitting check within ``tol`` steps of the labelled step
  (anywhere in [step - tol, end + tol] for events with an ``end``); a plateau that lasts to the end
  of the log must also be the plateau check's final verdict (WARN or FAIL);
* false FAIL: a FAIL check (or ``critical`` > 0) on a log labelled healthy;
* error: exit code other than 0/1, a Python traceback on stderr, output that is not JSON, a timeout;
* time per log (wall clock of the subprocess).

One difference from score.py: a report in the runs shape (the log's folder held several runs) is
scored as its run with the most steps, with the alerts of every run, and a FAIL in any of its runs
is a false FAIL on a healthy log (score.py reads 0 steps from such a report).

``info_events`` (validation over-fitting, crashes, dead runs, ...) are matched with the same rule and
the map extended by ``crash -> crash`` and ``overfit -> overfitting``; they are reported apart and not
scored yet. ``ambiguous_events`` are listed by ``--verbose`` only.

Prints one line per miss (``MISS-FORMAT``, ``MISS-EVENT``, ``FALSE-FAIL``, ``ERROR``, prefixed by the
set), one summary line per set and an ``overall`` line
``formats=a/b events=c/d false_fail=e errors=f``.

Usage: python bench/corpus.py [--cmd CMD] [--set NAME ...] [--only NAME ...] [--jobs N]
                              [--timeout S] [--shared DIR] [--json OUT.json] [--verbose]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Labelled event type -> check ids whose alerts count as finding it (score.py's map).
FIT = {
    "nonfinite": {"nonfinite"},
    "loss_spike": {"loss_spike"},
    "grad_spike": {"grad_norm"},
    "divergence": {"loss_spike"},
    "plateau": {"plateau"},
}
# Info-events only (reported apart, not scored yet).
# (a dead run is said by the plateau check's "not learning" rules; an LR that collapsed to 0 by
# the LR schedule check)
INFO_FIT = dict(FIT, crash={"crash"}, overfit={"overfitting"}, dead_run={"plateau"}, lr_collapse={"lr_schedule"})

ERROR_KINDS = ("traceback", "timeout", "exit2", "other_exit", "bad_json")
FORMAT_SHARE = 0.9  # a log counts as read when >= 90% of its labelled steps were read (score.py)


# ---------------------------------------------------------------- matching (score.py's rules)


def alert_step(a):
    s = a.get("step")
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


def fitting_checks(event, fit=FIT):
    return fit.get(event["type"], {event["type"]})


def matches(event, alerts, fit=FIT):
    """Alerts of a fitting check whose step lies in [step - tol, end + tol]."""
    checks = fitting_checks(event, fit)
    lo = event["step"] - event.get("tol", 0)
    hi = event.get("end", event["step"]) + event.get("tol", 0)
    hits = []
    for a in alerts:
        if a.get("check") not in checks:
            continue
        s = alert_step(a)
        if s is not None and lo <= s <= hi:
            hits.append(a)
    return hits


def as_one_report(rep):
    """A report in the runs shape (the path held several runs, ``"kind": "runs"``) scored as its run
    with the most steps, with every run's alerts; a FAIL in any run counts (a false FAIL on a
    healthy log). score.py reads only the single-run shape (0 steps for a runs report)."""
    if isinstance(rep, dict) and rep.get("earlier_runs"):
        # a file's earlier runs (a new run replaced them): their alerts are said in the report
        # too, outside the verdict (a FAIL there is no false FAIL: only the last run's checks count)
        rep = dict(rep)
        rep["alerts"] = [a for r in rep["earlier_runs"] for a in r.get("alerts", [])] + rep.get("alerts", [])
    if not isinstance(rep, dict) or rep.get("kind") != "runs" or not rep.get("runs"):
        return rep
    runs = rep["runs"]
    main = max(runs, key=lambda r: (r.get("steps") or {}).get("count") or 0)
    one = dict(main)
    one["alerts"] = [a for r in runs for a in r.get("alerts", [])]
    checks = {c.get("id"): dict(c) for c in main.get("checks", [])}
    for r in runs:
        for c in r.get("checks", []):
            if c.get("status") == "FAIL" and c.get("id") in checks:
                checks[c["id"]] = dict(c)
    one["checks"] = list(checks.values())
    one["critical"] = rep.get("critical", main.get("critical"))
    one["files"] = [f for r in runs for f in r.get("files", [])]
    return one


def steps_read(rep):
    st = rep.get("steps") or {}
    n = st.get("count")
    if isinstance(n, int):
        return n
    recs = [f.get("records", 0) for f in rep.get("files", []) if f.get("used")]
    return max(recs) if recs else 0


def event_found(event, rep, fit=FIT):
    """score.py's verdict for one event: an alert in range, and for a plateau that lasts to the end
    of the log, the plateau check's final status WARN or FAIL."""
    rep = rep or {}
    alerts = rep.get("alerts", [])
    hit = bool(matches(event, alerts, fit))
    last = (rep.get("steps") or {}).get("last")
    if (
        hit
        and event["type"] == "plateau"
        and isinstance(last, int)
        and event.get("end", event["step"]) + event.get("tol", 0) >= last
    ):
        checks = {c.get("id"): c for c in rep.get("checks", [])}
        hit = (checks.get("plateau") or {}).get("status") in ("WARN", "FAIL")
    return hit


def classify_run(rc, out, err, timeout):
    """(report or None, problem text or None, list of error kinds) for one tool run, as score.py."""
    kinds = []
    problem = None
    rep = None
    if rc is None:
        problem = f"timeout after {timeout:.0f}s"
        kinds.append("timeout")
    elif rc not in (0, 1):
        tail = err.strip().splitlines()[-1] if err.strip() else ""
        problem = f"exit code {rc}: {tail}"
        kinds.append("exit2" if rc == 2 else "other_exit")
    if "Traceback (most recent call last)" in (err or ""):
        kinds.append("traceback")
        last = [ln for ln in err.strip().splitlines() if ln.strip()]
        problem = (problem + "; " if problem else "") + "traceback: " + (last[-1] if last else "")
    if rc in (0, 1):
        try:
            rep = as_one_report(json.loads(out))
        except ValueError as e:
            kinds.append("bad_json")
            problem = (problem + "; " if problem else "") + f"output is not JSON ({e})"
            rep = None
    return rep, problem, kinds


#: alerts kept per log in the JSON (a flood of thousands says nothing more)
ALERTS_KEPT = 300


def judge(name, lab, rep, problem=None, kinds=(), seconds=0.0):
    """Everything score.py decides about one labelled log, as a dict (no printing)."""
    checks = {c.get("id"): c for c in (rep or {}).get("checks", [])}
    alerts = (rep or {}).get("alerts", [])
    exp = lab["steps_expected"]
    got = steps_read(rep) if rep else 0
    used = (
        ",".join(f"{f.get('format')}:{f.get('records')}" for f in (rep or {}).get("files", []) if f.get("used")) or "-"
    )
    res = {
        "name": name,
        "seconds": round(seconds, 3),
        "error": problem,
        "error_kinds": list(kinds),
        "steps_read": got,
        "steps_expected": exp,
        "format_ok": bool(rep) and got >= FORMAT_SHARE * exp,
        "used": used,
        "events": [],
        "info_events": [],
        "ambiguous_events": [],
        "false_fail": None,
        "healthy": bool(lab.get("healthy")),
        "statuses": {c: v.get("status") for c, v in checks.items()},
        # every alert as [check, step, severity] (the first ALERTS_KEPT): a per-log diff of two
        # runs shows what a change added or removed, on healthy logs too (precision)
        "alerts": [[a.get("check"), alert_step(a), a.get("severity")] for a in alerts[:ALERTS_KEPT]],
    }
    for ev in lab.get("events", []):
        found = event_found(ev, rep)
        fit = sorted(fitting_checks(ev))
        near = [alert_step(a) for a in alerts if a.get("check") in fit]
        summ = "; ".join(f"{c}={checks[c].get('status')} '{checks[c].get('summary')}'" for c in fit if c in checks)
        res["events"].append({"event": ev, "found": found, "near": near[:6], "checks": summ or "check absent"})
    for kind, fit in (("info_events", INFO_FIT), ("ambiguous_events", FIT)):
        for ev in lab.get(kind, []):
            found = bool(matches(ev, alerts, fit)) if isinstance(ev.get("step"), int) else False
            res[kind].append({"event": ev, "found": found})
    fails = [c for c, v in checks.items() if v.get("status") == "FAIL"]
    if lab.get("healthy") and rep and (fails or (rep.get("critical") or 0) > 0):
        res["false_fail"] = (
            "; ".join(f"{c}: {checks[c].get('summary')}" for c in fails) or f"critical={rep.get('critical')}"
        )
    return res


def aggregate(results):
    """Numbers of one set (or of all sets) from judge() results."""
    secs = [r["seconds"] for r in results]
    ev = [e for r in results for e in r["events"]]
    info = [e for r in results for e in r["info_events"]]
    kinds = {k: 0 for k in ERROR_KINDS}
    for r in results:
        for k in r["error_kinds"]:
            kinds[k] += 1
    return {
        "logs": len(results),
        "formats_ok": sum(r["format_ok"] for r in results),
        "formats": len(results),
        "events_found": sum(e["found"] for e in ev),
        "events": len(ev),
        "info_found": sum(e["found"] for e in info),
        "info": len(info),
        "healthy": sum(r["healthy"] for r in results),
        "false_fail": sum(1 for r in results if r["false_fail"]),
        "errors": sum(1 for r in results if r["error"]),
        "error_kinds": kinds,
        "seconds_median": round(statistics.median(secs), 2) if secs else None,
        "seconds_max": round(max(secs), 2) if secs else None,
    }


def miss_lines(set_name, r, lab):
    """score.py's miss lines for one judged log."""
    out = []
    p = f"{set_name}/{r['name']}"
    if r["error"]:
        out.append(f"ERROR {p}: {r['error']}")
    if not r["format_ok"]:
        out.append(
            f"MISS-FORMAT {p}: read {r['steps_read']} of {r['steps_expected']} steps "
            f"(expected {lab.get('format_expected')}; used {r['used']})"
        )
    for e in r["events"]:
        if e["found"]:
            continue
        ev = e["event"]
        where = f"{ev['step']}" + (f"..{ev['end']}" if "end" in ev else "") + f" +-{ev.get('tol', 0)}"
        ratio = f" ratio {ev['ratio']}" if "ratio" in ev else ""
        fit = sorted(fitting_checks(ev))
        near = ", ".join(str(s) for s in e["near"]) or "none"
        out.append(f"MISS-EVENT {p}: {ev['type']} at {where}{ratio}; {fit[0]} alerts at [{near}]; {e['checks']}")
    if r["false_fail"]:
        out.append(f"FALSE-FAIL {p}: {r['false_fail']}")
    return out


def summary_line(label, a, extra=""):
    t = "" if a["seconds_median"] is None else f" time median {a['seconds_median']}s max {a['seconds_max']}s"
    return (
        f"{label}: formats={a['formats_ok']}/{a['formats']} events={a['events_found']}/{a['events']} "
        f"false_fail={a['false_fail']} errors={a['errors']} | info {a['info_found']}/{a['info']}"
        f" | healthy logs {a['healthy']}{t}{extra}"
    )


# ---------------------------------------------------------------- sets


def find_shared(explicit=None):
    if explicit:
        return os.path.abspath(explicit)
    if os.environ.get("TSM_SHARED"):
        return os.path.abspath(os.environ["TSM_SHARED"])
    d = REPO
    while True:
        parent = os.path.dirname(d)
        cand = os.path.join(parent, "shared")
        if os.path.isdir(cand):
            return cand
        if parent == d:
            return os.path.join(os.path.dirname(REPO), "shared")
        d = parent


def discover_sets(repo=REPO, shared=None):
    """[(set name, labels.json path or None, base dir, private root or None, note)]."""
    shared = shared or find_shared()
    sets = []
    for name in ("real_logs", "real_logs2"):
        lp = os.path.join(shared, name, "labels.json")
        sets.append(
            (
                name,
                lp if os.path.isfile(lp) else None,
                os.path.join(shared, name),
                None,
                "" if os.path.isfile(lp) else f"no labels.json in {os.path.join(shared, name)}",
            )
        )
    corpus = os.path.join(repo, "bench", "corpus")
    if os.path.isdir(corpus):
        for name in sorted(os.listdir(corpus)):
            lp = os.path.join(corpus, name, "labels.json")
            if os.path.isfile(lp):
                sets.append((name, lp, os.path.join(corpus, name), os.path.join(shared, "corpus_private", name), ""))
    return sets


def entries(labels, base, private_root):
    """[(name, label, absolute path or None when a private copy is absent)]."""
    out = []
    for name, lab in labels.items():
        if lab.get("private"):
            p = os.path.join(private_root, lab["path"]) if private_root else None
            out.append((name, lab, p if p and os.path.exists(p) else None))
        else:
            out.append((name, lab, os.path.join(base, lab["path"])))
    return out


# ---------------------------------------------------------------- running


def run_tool(cmd, path, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd + [path, "--report", "--json"], capture_output=True, text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", "timeout"
    return rc, out, err, time.monotonic() - t0


def default_cmd():
    here = os.path.join(os.path.dirname(sys.executable), "tsm-watch")
    return here if os.path.exists(here) else (shutil.which("tsm-watch") or "tsm-watch")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cmd", default=None, help="command to score (default: the tsm-watch next to this python)")
    ap.add_argument("--set", nargs="*", dest="sets", help="only these sets (real_logs2, trackers, console, ...)")
    ap.add_argument("--only", nargs="*", help="only these log names")
    ap.add_argument("--jobs", type=int, default=1, help="logs run in parallel")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--shared", default=None, help="the shared folder (default: ../shared beside the repo)")
    ap.add_argument("--json", default=None, help="write machine-readable results to this file")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args(argv)

    cmd = shlex.split(args.cmd) if args.cmd else [default_cmd()]
    shared = find_shared(args.shared)
    plan, notes = [], {}
    for set_name, lp, base, priv, note in discover_sets(REPO, shared):
        if args.sets and set_name not in args.sets:
            continue
        if lp is None:
            print(f"skip {set_name}: {note}")
            continue
        labels = json.load(open(lp, encoding="utf-8"))
        absent = 0
        for name, lab, path in entries(labels, base, priv):
            if args.only and name not in args.only:
                continue
            if path is None:
                absent += 1
                continue
            plan.append((set_name, name, lab, path))
        notes[set_name] = absent

    def one(item):
        set_name, name, lab, path = item
        rc, out, err, dt = run_tool(cmd, path, args.timeout)
        rep, problem, kinds = classify_run(rc, out, err, args.timeout)
        r = judge(name, lab, rep, problem, kinds, dt)
        r["set"], r["path"], r["rc"] = set_name, path, rc
        return r

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = list(ex.map(one, plan))

    by_set = {}
    for (set_name, _name, lab, _), r in zip(plan, results):
        by_set.setdefault(set_name, []).append((r, lab))
    report = {"cmd": cmd, "shared": shared, "sets": {}, "logs": results}
    for set_name in notes:
        rs = by_set.get(set_name, [])
        for r, lab in rs:
            for line in miss_lines(set_name, r, lab):
                print(line)
            if args.verbose:
                st = " ".join(f"{c}={s}" for c, s in r["statuses"].items())
                print(
                    f"  log {set_name}/{r['name']}: rc={r['rc']} {r['seconds']:.1f}s "
                    f"steps {r['steps_read']}/{r['steps_expected']} used {r['used']} | {st}"
                )
                for kind in ("ambiguous_events", "info_events"):
                    for e in r[kind]:
                        ev = e["event"]
                        print(
                            f"  info {set_name}/{r['name']}: {kind[:-7]} {ev['type']} at {ev.get('step')} "
                            f"ratio {ev.get('ratio')}: {'found' if e['found'] else 'not found'}"
                        )
        agg = aggregate([r for r, _ in rs])
        agg["private_absent"] = notes[set_name]
        report["sets"][set_name] = agg
        extra = f" | private absent {notes[set_name]}" if notes[set_name] else ""
        print(summary_line(f"set {set_name}", agg, extra))
    overall = aggregate(results)
    overall["private_absent"] = sum(notes.values())
    report["overall"] = overall
    print("error kinds: " + " ".join(f"{k}={v}" for k, v in overall["error_kinds"].items()))
    print(summary_line("overall", overall, f" | private absent {overall['private_absent']}"))
    print(
        f"formats={overall['formats_ok']}/{overall['formats']} events={overall['events_found']}/"
        f"{overall['events']} false_fail={overall['false_fail']} errors={overall['errors']}"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
