"""The Training Stability Report: plain text for people and CI logs, one JSON
object for scripts. Both are views of a finished Monitor."""

from __future__ import annotations

import os
from typing import Any

from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.detectors import CHECKS, DETECTORS
from tsm_tui.analysis.coverage import LABEL, METRICS, coverage, sources
from tsm_tui.analysis.monitor import FIRST_KEPT, MAX_ALERTS, PER_KEY, PER_KEY_INFO
from tsm_tui.analysis.replay import Analysis, RunFailure
from tsm_tui.analysis.sweep import also_text, data_order, near_steps, spike_onset
from tsm_tui.analysis.sweep import same_step_spikes as _same_step_spikes
from tsm_tui.core.output import dumps, tag, use_colour  # noqa: F401  (re-exported for callers)
from tsm_tui.core.record import Status
from tsm_tui.core.sanitize import clean
from tsm_tui.core.settings import SHOWN_FACTS

SCHEMA = 1


def text_report(an: Analysis, colour: bool = False, also: dict | None = None) -> str:
    """``also``: (check, step) -> names of other runs with the same alert at that step."""
    mon = an.monitor
    checks = an.checks()
    crit, warn = mon.counts(checks)
    lines = ["=== Training Stability Report ==="]
    for c in checks:
        reason = f" - {clean(c.summary)}" if c.summary else ""
        lines.append(f"{tag(c.status, colour)} {c.title}{reason}")
    lines += ["", f"CRITICAL ISSUES: {crit}", f"WARNINGS: {warn}", ""]
    cov = coverage(an, checks)
    if cov["nothing_judged"]:
        lines += [nothing_judged_text(cov), ""]
    lines.append("Recommended Actions:")
    actions = an.actions()
    if actions:
        lines += [f"{i}. {clean(a)}" for i, a in enumerate(actions, 1)]
    else:
        lines.append("None: no check failed or warned.")
    # --- details (after the fixed shape) ---
    lines += ["", "Run:"]
    for f in an.run.files:
        if f.used:
            skip = f", {f.skipped_lines} line(s) skipped" if f.skipped_lines else ""
            why = ""
            if f.skip_reasons:
                why = " (" + ", ".join(f"{k}: {v}" for k, v in f.skip_reasons.items()) + ")"
            lines.append(f"  source: {clean(_rel(f.path, an.run.path))} [{f.format}], {f.records} records{skip}{why}")
            lines += [f"    {clean(t)}" for t in _details(f)]
            if f.objective:
                lines.append(f"  objective: {clean(f.objective)}")
    lines += read_lines(an, cov)
    others = [f for f in an.run.files if not f.used]
    ranks = set(an.run.ranks)
    for f in others[:5]:
        if f.format and f.path in ranks:
            what = f"[{f.format}], {f.records} records, another rank (read for the ranks check)"
        elif f.format:
            what = f"[{f.format}], {f.records} records, not used (another file was chosen)"
            lacks = [LABEL[m] for m in cov["unread"] if m in an.run.metrics.get(f.path, ())]
            if lacks:
                what += f"; it holds {', '.join(lacks)}, which the chosen log lacks: not joined to its series"
        else:
            what = f.note or "not read"
        lines.append(f"  also: {clean(_rel(f.path, an.run.path))}: {clean(what)}")
    if len(others) > 5:
        lines.append(f"  ... and {len(others) - 5} more file(s)")
    with_loss = (
        f", {mon.loss_steps} steps with a training loss" if mon.loss_steps != mon.records or mon.earlier_steps else ""
    )
    if mon.earlier_steps:  # (a new run in the file: the counts are the file's, first-last the judged run's)
        with_loss += f": this run's {mon.loss_steps - mon.earlier_steps}, the runs' before it {mon.earlier_steps}"
    lines.append(f"  steps: {mon.first_step}-{mon.last_step} ({mon.records} records{with_loss})")
    if an.ranks is not None:
        assert an.run.primary is not None  # (the ranks check reads the chosen log's ranks)
        lines.append(
            f"  ranks: {len(an.run.ranks)} rank logs read; the checks use {clean(_rel(an.run.primary, an.run.path))}"
        )
    for prev, to in mon.resumes:
        lines.append(f"  resumed at step {to} after reaching {prev}")
    launches = mon.launches.segments
    if len(launches) > 1:
        segs = ", ".join(f"{s['kind']} {s['first']}-{s['last']}" for s in launches[:8])
        more = f" ... ({len(launches) - 8 + mon.launches.dropped} more)" if len(launches) > 8 else ""
        new = [s for s in launches if s["kind"] == "new run"]
        judged = (
            f"the checks judge the new run from step {new[-1]['first']} and what follows it"
            if new
            else "the checks judge the resumed whole"
            if any(s["kind"] == "resume" for s in launches)
            else "the checks judge the run that logged losses"
        )
        lines.append(f"  launches: {len(launches) + mon.launches.dropped} in this file ({segs}{more}); {judged}")
        for s in launches:
            if s["kind"] == "no loss":
                lines.append(
                    f"  the launch at step {s['first']} logged no loss or grad norm ({s['records']} record(s)): "
                    "not judged (it died or was stopped before its first loss, or is still starting)"
                )
    if mon.earlier_runs:
        lines.append("  earlier runs in this file (not in the verdict; what their checks said at their end):")
        for r in mon.earlier_runs:
            said = "; ".join(f"{c.title} {c.status.value}: {clean(c.summary)}" for c in r.checks) or "no check warned"
            lines.append(f"    steps {r.first_step}-{r.last_step}: {said}")
            if r.not_kept:
                lines.append(
                    f"      ({len(r.alerts)} of its {len(r.alerts) + r.not_kept} alerts kept: the largest; see --json)"
                )
        if mon.earlier_dropped:
            lines.append(f"    ({mon.earlier_dropped} more run(s) with fewer findings not kept)")
    known = [f"{k}={fmt(v) if isinstance(v, float) else v}" for k, v in _info_items(an)]
    if known:
        lines.append("  config: " + ", ".join(known))
    for n in _config_notes(an):
        lines.append(f"  note: {clean(n)}")
    if cov["skipped"]:
        lines += ["", f"Could not judge ({len(cov['skipped'])} of {len(checks)} checks skipped):"]
        lines += [f"  {s['title']}: {clean(s['reason'])}" for s in cov["skipped"]]
    alerts = [a for a in an.alerts() if a.severity.value != "info"]
    if alerts:
        lines += ["", "Alerts:"]
        for a in alerts[:20]:
            lines.append(f"  [{a.severity.value}] step {a.step}: {clean(a.message)}{_also_text(a, also)}")
        if len(alerts) > 20:
            lines.append(f"  ... {len(alerts) - 20} more (see --json)")
        gone = an.monitor.alerts_not_kept()
        if gone:
            lines.append(
                f"  ({gone} more alert(s) not kept: {PER_KEY} of each kind, its first {FIRST_KEPT} and its largest "
                f"({PER_KEY_INFO} of a note), and the newest {MAX_ALERTS} are)"
            )
    return "\n".join(lines) + "\n"


def _details(f) -> list[str]:
    """What a reader said of its file (``FileInfo.details``), as report lines."""
    d = f.details or {}
    out = []
    if f.channel == "console":
        c = d.get("console") or {}
        out.append(
            f"the checks read its console ({c.get('format')}, {c.get('records')} records): "
            "its history has fewer training losses"
        )
    if f.segments:
        names = ", ".join(os.path.basename(os.path.dirname(p)) + "/" + os.path.basename(p) for p in f.segments[:3])
        out.append(f"read after {len(f.segments)} earlier file(s) of the same log: {names}")
    if d.get("step_source"):
        out.append(f"steps from {d['step_source']}")
    if d.get("lines_per_file"):  # (sources.bare_numbers: files of different lengths, joined by line index)
        n = d["lines_per_file"]
        out.append(
            "joined by line index, files of different lengths: " + clean(", ".join(f"{k} {v}" for k, v in n.items()))
        )
    if d.get("left_out"):
        out.append(f"not read: {clean(d['left_out'])}")
    if d.get("exit_code") is not None:
        out.append(f"the run ended with exit code {d['exit_code']}")
    for a in (d.get("tracker_alerts") or [])[:5]:
        out.append(f"tracker alert [{a.get('level')}] at step {a.get('step')}: {a.get('text')}")
    return out


def nothing_judged_text(cov: dict) -> str:
    """The sentence of a report in which no check could judge the training."""
    have = [LABEL[m] for m in METRICS if m not in cov["unread"]]
    what = (
        f"the log has only the {', '.join(have)}"
        if have
        else "the log has no training loss, grad norm, learning rate or loss scale"
    )
    return (
        f"NOTHING JUDGED: no check could judge the training from this log ({what}): "
        "0 critical issues here does not mean a healthy run."
    )


def read_lines(an: Analysis, cov: dict) -> list[str]:
    """Which metric came from which file and key, and which metrics the log lacks."""
    by_file: dict[str, list[str]] = {}
    for m, d in sources(an).items():
        by_file.setdefault(d["file"], []).append(f"{m} <- {d['key']!r}" if d.get("key") else m)
    lines = [f"  read: {clean(', '.join(names))} (from {clean(_rel(f, an.run.path))})" for f, names in by_file.items()]
    if cov["unread"]:
        lines.append(f"  not in the log: {', '.join(LABEL[m] for m in cov['unread'])}")
    return lines


def _rel(p: str, base: str) -> str:
    if os.path.isdir(base):
        try:
            return os.path.relpath(p, base)
        except ValueError:
            return p
    return os.path.basename(p)


def _config_notes(an: Analysis) -> list[str]:
    files = an.run.files_of
    return list(files.notes) if files is not None else []


def _info_items(an: Analysis):
    info = an.info
    for k in SHOWN_FACTS:
        v = getattr(info, k)
        if v is not None:
            yield k, v


def json_report(an: Analysis, also: dict | None = None) -> dict:
    mon = an.monitor
    checks = an.checks()
    crit, warn = mon.counts(checks)
    info = mon.info
    d: dict[str, Any] = {
        "schema": SCHEMA,
        "path": an.run.path,
        "files": [f.to_json() for f in an.run.files],
        "steps": {"first": mon.first_step, "last": mon.last_step, "count": mon.loss_steps, "records": mon.records},
        "checks": [c.to_json() for c in checks],
        "alerts": [_alert_json(a, also) for a in an.alerts()],
        "alerts_not_kept": an.monitor.alerts_not_kept(),
        "critical": crit,
        "warnings": warn,
        "actions": an.actions(),
        "resumes": [{"from": a, "to": b} for a, b in mon.resumes],
        "run": {k: v for k, v in _info_items(an)}
        | {
            "checkpoints": [{"step": s, "name": n} for s, n in info.checkpoints],
            "config_files": an.run.config_files,
        },
    }
    saves = mon.saves
    if saves:  # (additive, schema 1: the saves the log names, when it names some)
        d["run"]["checkpoints_logged"] = {
            "count": saves.count,
            "saves": [{"step": s, "path": p} for s, p in saves.kept()],
        }
    notes = _config_notes(an)
    if notes:  # (only when there is one: what a config had that was ignored)
        d["run"]["config_notes"] = notes
    if an.ranks is not None:
        d["ranks"] = {"count": len(an.run.ranks), "files": list(an.run.ranks), "used": an.run.primary}
    if len(mon.launches.segments) > 1:
        d["launches"] = mon.launches.to_json()
    if mon.earlier_runs:  # (additive, schema 1: only when a new run replaced one with findings)
        d["earlier_runs"] = [r.to_json() for r in mon.earlier_runs]
        if mon.earlier_dropped:
            d["earlier_runs_not_kept"] = mon.earlier_dropped
    # what was read from where, and what could not be judged (additive, schema 1)
    d["sources"] = sources(an)
    d["coverage"] = coverage(an, checks)
    return d


# --------------------------------------------------------------------------- many runs
#: the five core checks: a column each in the many-runs table (the detectors' own ``core`` and ``short``)
CORE = tuple(d.id for d in DETECTORS if d.core)


def _also_text(a, also: dict | None) -> str:
    names = (also or {}).get((a.check, a.step))
    if not names:
        return ""
    return also_text(list(names), a.cause)


def _alert_json(a, also: dict | None) -> dict:
    d = a.to_json()
    names = (also or {}).get((a.check, a.step))
    if names:
        d["also_in_runs"] = list(names)
    return d


def same_step_spikes(results: list) -> dict:
    """run -> {(check, step) -> the other runs of its sweep with a loss spike at that
    step, give or take SPIKE_NEAR steps}: the same step spiking across a sweep points at
    the data (every 2024 modded-nanogpt 124M record spikes at steps 919 and 947). Only
    runs that share their data order are compared (analysis/sweep.py)."""
    onsets: dict[str, set[int]] = {}
    orders = {}
    for r in results:
        if isinstance(r, Analysis):
            onsets[r.run.name] = {s for a in r.monitor.alerts if (s := spike_onset(a)) is not None}
            orders[r.run.name] = data_order(r.info, next((f.format for f in r.run.files if f.used), None), r.run.root)
    return {
        name: {("loss_spike", s): others for s, others in by_step.items()}
        for name, by_step in _same_step_spikes(onsets, orders).items()
    }


def _cell(width: int, text: str) -> str:
    text = clean(text)
    if len(text) > width:
        keep = width - 1
        text = text[: keep // 2] + "…" + text[len(text) - (keep - keep // 2) :]
    return text.ljust(width)


def _worst_other(checks) -> str:
    others = [c for c in checks if c.id not in CORE]
    worst = max(others, key=lambda c: (c.status.rank, c.status == Status.FAIL), default=None)
    if worst is None or worst.status.rank <= Status.PASS.rank:
        return "-"
    return f"{worst.id} {worst.status.value}"


def runs_table(results: list, colour: bool = False, also: dict | None = None) -> list[str]:
    w = max([len("run")] + [len(clean(r.run.name)) for r in results])
    w = min(w, 32)
    head = (
        f"{'run'.ljust(w)}  {'format'.ljust(14)}  {'step / planned'.ljust(15)}  "
        + " ".join(CHECKS[c].short.ljust(5) for c in CORE)
        + f"  {'worst other'.ljust(20)}  crit warn"
    )
    lines = [head]
    for r in results:
        name = _cell(w, r.run.name)
        if isinstance(r, RunFailure):
            lines.append(f"{name}  {clean(r.reason)[:80]}")
            continue
        mon = r.monitor
        fmt_name = next((f.format for f in r.run.files if f.used), None) or "?"
        planned = mon.planned_steps
        step = f"{mon.last_step}/{planned}" if planned else f"{mon.last_step}"
        checks = r.checks()
        by = {c.id: c for c in checks}
        cells = " ".join(
            (tag(by[c].status, colour)[1:-1] if not colour else tag(by[c].status, colour)).ljust(5)
            if c in by
            else "-".ljust(5)
            for c in CORE
        )
        crit, warn = r.counts()
        note = ""
        mine = (also or {}).get(r.run.name, {})
        if mine:
            (chk, s), names = min(mine.items(), key=lambda kv: kv[0][1])
            note = f"  spike at {s} also in {len(names)} other run(s)"
        lines.append(
            f"{name}  {_cell(14, fmt_name)}  {step.ljust(15)}  {cells}  {_cell(20, _worst_other(checks))}"
            f"  {crit:>4} {warn:>4}{note}"
        )
    return lines


def _order(results: list) -> list:
    """Failing runs first, then warning ones, then the rest (each in path order)."""

    def key(r):
        if isinstance(r, RunFailure):
            return (1, 0)
        crit, warn = r.counts()
        return (0 if crit else (1 if warn else 2), 0)

    return sorted(results, key=key)


def text_runs_report(results: list, path: str, colour: bool = False) -> str:
    also = same_step_spikes(results)
    ordered = _order(results)
    crit = sum(r.counts()[0] for r in results if isinstance(r, Analysis))
    warn = sum(r.counts()[1] for r in results if isinstance(r, Analysis))
    failing = sum(1 for r in results if isinstance(r, Analysis) and r.counts()[0])
    lines = [
        f"=== Runs: {len(results)} in {clean(path)} ===",
        *runs_table(ordered, colour, also),
        "",
        f"RUNS FAILING: {failing} of {len(results)}",
        f"CRITICAL ISSUES: {crit}",
        f"WARNINGS: {warn}",
    ]
    shared = sorted({(s, tuple(sorted([n, *others]))) for n, m in also.items() for (_, s), others in m.items()})
    if shared:
        lines += ["", "Spikes at the same step in several runs (the data at that step, not the optimizer):"]
        seen = set()
        for s, names in shared:
            if names in seen and any(x in near_steps(s) for x, ns in shared if ns == names and x != s):
                continue
            seen.add(names)
            lines.append(
                f"  step {s}: {len(names)} runs ({clean(', '.join(names[:6]))}{' ...' if len(names) > 6 else ''})"
            )
    out = "\n".join(lines) + "\n"
    for r in ordered:
        out += f"\n--- run: {clean(r.run.name)} ({clean(r.run.path)}) ---\n"
        if isinstance(r, RunFailure):
            out += f"not analysed: {clean(r.reason)}\n"
        else:
            out += text_report(r, colour, also.get(r.run.name))
    return out


def json_runs_report(results: list, path: str) -> dict:
    also = same_step_spikes(results)
    runs = []
    for r in results:
        if isinstance(r, RunFailure):
            runs.append(
                {"run": r.run.name, "path": r.run.path, "error": r.reason, "files": [f.to_json() for f in r.run.files]}
            )
            continue
        d = json_report(r, also.get(r.run.name))
        d["run_info"] = d.pop("run")  # "run" names the run here (schema 1, kind "runs")
        d["run"] = r.run.name
        runs.append(d)
    return {
        "schema": SCHEMA,
        "kind": "runs",
        "path": path,
        "runs": runs,
        "critical": sum(x.get("critical", 0) for x in runs),
        "warnings": sum(x.get("warnings", 0) for x in runs),
    }
