"""The Training Stability Report: plain text for people and CI logs, one JSON
object for scripts. Both are views of a finished Monitor."""

from __future__ import annotations

import os

from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.engine import Analysis
from tsm_tui.core.output import dumps, tag, use_colour  # noqa: F401  (re-exported for callers)
from tsm_tui.core.sanitize import clean

SCHEMA = 1


def text_report(an: Analysis, colour: bool = False) -> str:
    mon = an.monitor
    checks = mon.checks()
    crit, warn = mon.counts(checks)
    lines = ["=== Training Stability Report ==="]
    for c in checks:
        reason = f" - {clean(c.summary)}" if c.summary else ""
        lines.append(f"{tag(c.status, colour)} {c.title}{reason}")
    lines += ["", f"CRITICAL ISSUES: {crit}", f"WARNINGS: {warn}", "", "Recommended Actions:"]
    actions = mon.actions(checks)
    if actions:
        lines += [f"{i}. {clean(a)}" for i, a in enumerate(actions, 1)]
    else:
        lines.append("None: no check failed or warned.")
    # --- details (after the fixed shape) ---
    st = mon.state
    lines += ["", "Run:"]
    for f in an.run.files:
        if f.used:
            skip = f", {f.skipped_lines} line(s) skipped" if f.skipped_lines else ""
            why = ""
            if f.skip_reasons:
                why = " (" + ", ".join(f"{k}: {v}" for k, v in f.skip_reasons.items()) + ")"
            lines.append(f"  source: {clean(_rel(f.path, an.run.path))} [{f.format}], {f.records} records{skip}{why}")
    others = [f for f in an.run.files if not f.used]
    for f in others[:5]:
        what = f"[{f.format}], {f.records} records, not used (another file was chosen)" if f.format else (f.note or "not read")
        lines.append(f"  also: {clean(_rel(f.path, an.run.path))}: {clean(what)}")
    if len(others) > 5:
        lines.append(f"  ... and {len(others) - 5} more file(s)")
    lines.append(f"  steps: {st.first_step}-{st.last_step} ({mon.records} records)")
    for prev, to in st.resumes:
        lines.append(f"  resumed at step {to} after reaching {prev}")
    known = [f"{k}={fmt(v) if isinstance(v, float) else v}" for k, v in _info_items(an)]
    if known:
        lines.append("  config: " + ", ".join(known))
    alerts = [a for a in mon.alerts if a.severity.value != "info"]
    if alerts:
        lines += ["", "Alerts:"]
        for a in alerts[:20]:
            lines.append(f"  [{a.severity.value}] step {a.step}: {clean(a.message)}")
        if len(alerts) > 20:
            lines.append(f"  ... {len(alerts) - 20} more (see --json)")
    return "\n".join(lines) + "\n"


def _rel(p: str, base: str) -> str:
    if os.path.isdir(base):
        try:
            return os.path.relpath(p, base)
        except ValueError:
            return p
    return os.path.basename(p)


def _info_items(an: Analysis):
    info = an.monitor.state.info
    for k in ("total_steps", "warmup_steps", "peak_lr", "params", "batch_size", "seq_len", "batch_tokens",
              "clip", "precision"):
        v = getattr(info, k)
        if v is not None:
            yield k, v


def json_report(an: Analysis) -> dict:
    mon = an.monitor
    checks = mon.checks()
    crit, warn = mon.counts(checks)
    st = mon.state
    info = st.info
    return {
        "schema": SCHEMA,
        "path": an.run.path,
        "files": [f.to_json() for f in an.run.files],
        "steps": {"first": st.first_step, "last": st.last_step, "count": mon.records},
        "checks": [c.to_json() for c in checks],
        "alerts": [a.to_json() for a in mon.alerts],
        "critical": crit,
        "warnings": warn,
        "actions": mon.actions(checks),
        "resumes": [{"from": a, "to": b} for a, b in st.resumes],
        "run": {k: v for k, v in _info_items(an)} | {
            "checkpoints": [{"step": s, "name": n} for s, n in info.checkpoints],
            "config_files": an.run.config_files,
        },
    }
