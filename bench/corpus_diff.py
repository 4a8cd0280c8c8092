"""What changed between two ``bench/corpus.py --json`` runs, log by log.

    python bench/corpus_diff.py BEFORE.json AFTER.json [--alerts]

Prints, for every log whose outcome moved: formats read, steps read, error, each scored event
found / lost, every check whose status moved, and (``--alerts``, or always on healthy logs)
alerts added or removed as ``check@step``. Ends with the totals of both runs. Exit 0.
"""

from __future__ import annotations

import json
import sys
from collections import Counter


def _key(r: dict) -> str:
    return f"{r.get('set')}/{r.get('name')}"


def _alerts(r: dict) -> Counter:
    return Counter(f"{c}@{s}" for c, s, _sev in r.get("alerts", []))


def diff(before: dict, after: dict, show_alerts: bool = False) -> list[str]:
    out: list[str] = []
    b = {_key(r): r for r in before["logs"]}
    for r in after["logs"]:
        k = _key(r)
        o = b.get(k)
        if o is None:
            out.append(f"{k}: new log")
            continue
        lines = []
        for f in ("format_ok", "steps_read", "error"):
            if o.get(f) != r.get(f):
                lines.append(f"  {f}: {o.get(f)} -> {r.get(f)}")
        for eo, en in zip(o.get("events", []), r.get("events", [])):
            if eo["found"] != en["found"]:
                ev = en["event"]
                lines.append(f"  {'FOUND' if en['found'] else 'LOST'} {ev['type']}@{ev.get('step')}")
        for c, s in r.get("statuses", {}).items():
            if o.get("statuses", {}).get(c) != s:
                lines.append(f"  {c}: {o.get('statuses', {}).get(c)} -> {s}")
        if show_alerts or r.get("healthy"):
            a0, a1 = _alerts(o), _alerts(r)
            plus, minus = sorted((a1 - a0).elements()), sorted((a0 - a1).elements())
            if plus:
                lines.append(f"  + alerts {' '.join(plus[:12])}{' ...' if len(plus) > 12 else ''}")
            if minus:
                lines.append(f"  - alerts {' '.join(minus[:12])}{' ...' if len(minus) > 12 else ''}")
        if lines:
            out.append(f"{k}{' (healthy)' if r.get('healthy') else ''}:")
            out += lines
    for name, run in (("before", before), ("after", after)):
        ov = run.get("overall", {})
        out.append(
            f"{name}: formats {ov.get('formats_ok')}/{ov.get('logs')} events {ov.get('events_found')}/"
            f"{ov.get('events')} false FAIL {ov.get('false_fail')} errors {ov.get('errors')}"
        )
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f0, open(args[1], encoding="utf-8") as f1:
        print("\n".join(diff(json.load(f0), json.load(f1), "--alerts" in argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
