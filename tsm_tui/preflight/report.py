"""Pre-flight: the plan from the command line, and the text / JSON report."""

from __future__ import annotations

import sys

from tsm_tui.core.numbers import fmt
from tsm_tui.core.errors import InputError
from tsm_tui.core.options import Options
from tsm_tui.core.output import dumps, tag, use_colour
from tsm_tui.core.sanitize import clean, terminal_safe
from tsm_tui.preflight.plan import PLAN_FIELDS, ConfigError, Plan, finalize_plan, read_plan

from tsm_tui.preflight.references import FRAMEWORKS, PreCheck, SCHEMA, human
from tsm_tui.preflight.checks import actions, counts, run_checks

# --- reading the plan and the command line ---------------------------------------------------


def plan_from(opts: Options) -> Plan:
    path, config = opts.path, opts.config
    if not path and not config:
        raise InputError("--preflight needs PATH: a config file or a directory holding the run's config files")
    source = path or config
    assert source, "one of the two is set: checked just above"
    try:
        plan = read_plan(source, extra_config=config if path else None)
    except ConfigError as e:
        raise InputError(str(e)) from None
    for name in ("total_steps", "warmup_steps", "params", "batch_tokens", "peak_lr"):
        v = getattr(opts.info, name) if name in opts.info.origin else None
        if v is not None:
            plan.put(name, v, "command line", f"--{name.replace('_', '-')}", override=True)
            if name == "total_steps":
                plan.total_tokens = None  # recomputed from the new run length
            if name == "warmup_steps":
                plan.warmup_ratio = None
    return finalize_plan(plan)


def _value(v):
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return int(v)
    return v


def _show(name: str, v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if name in ("params", "total_tokens", "batch_tokens"):
        return human(v)
    if isinstance(v, float):
        return fmt(v)
    return str(v)


def config_items(plan: Plan):
    for f in PLAN_FIELDS:
        v = getattr(plan, f)
        if v is not None:
            yield f, v


def json_report(plan: Plan, checks: list[PreCheck], path: str) -> dict:
    crit, warn = counts(checks)
    return {
        "schema": SCHEMA,
        "kind": "preflight",
        "path": path,
        "framework": plan.framework,
        "files": list(plan.files),
        "config": {f: _value(v) for f, v in config_items(plan)},
        "sources": {
            f: (f"{plan.origin.get(f, '')}: {plan.keys[f]}" if plan.keys.get(f) else plan.origin.get(f, ""))
            for f, _ in config_items(plan)
        },
        "notes": list(plan.notes),
        "checks": [c.to_json() for c in checks],
        "critical": crit,
        "warnings": warn,
        "actions": actions(checks),
    }


def text_report(plan: Plan, checks: list[PreCheck], colour: bool = False) -> str:
    crit, warn = counts(checks)
    lines = ["=== Pre-flight Check ==="]
    for c in checks:
        lines.append(f"{tag(c.status, colour)} {c.title} - {clean(c.summary)}")
    lines += ["", f"CRITICAL ISSUES: {crit}", f"WARNINGS: {warn}", "", "Recommended Actions:"]
    acts = actions(checks)
    lines += [f"{i}. {clean(a)}" for i, a in enumerate(acts, 1)] or ["None: no check failed or warned."]
    lines += ["", "Configuration read:"]
    import os

    fw = FRAMEWORKS.get(plan.framework or "", plan.framework or "")
    lines.append(f"  files: {clean(', '.join(os.path.basename(f) for f in plan.files))}" + (f" ({fw})" if fw else ""))
    for f, v in config_items(plan):
        src = plan.origin.get(f, "")
        k = plan.keys.get(f)
        where = f"{src}: {k}" if k else src
        lines.append(f"  {f} = {clean(_show(f, v))}" + (f"  [{clean(where)}]" if where else ""))
    for n in plan.notes:
        lines.append(f"  note: {clean(n)}")
    lines += ["", "References:"]
    for c in checks:
        lines.append(f"  {c.id}: {c.reference}")
    return "\n".join(lines) + "\n"


def main(opts: Options, out=None) -> int:
    out = out or sys.stdout
    plan = plan_from(opts)
    checks = run_checks(plan)
    if opts.json:
        source = opts.path or opts.config
        assert source, "plan_from raised InputError when neither is set"
        out.write(dumps(json_report(plan, checks, source)) + "\n")
    else:
        out.write(terminal_safe(text_report(plan, checks, colour=use_colour(out))))
    crit, _ = counts(checks)
    return 1 if crit else 0
