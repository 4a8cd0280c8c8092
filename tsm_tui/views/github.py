"""``tsm-watch RUN --report --format github``: the report as GitHub Actions workflow
commands, so a CI job that trains a small model fails on a FAIL and annotates the run.

One annotation per check at FAIL (``::error``) or WARN (``::warning``), placed on the
log file and the line of the record of the alert that shows it
(``views/findings.py``), its title naming the check, its status, the step and the file;
the message is the check's summary, the alert and its actions. A run in which nothing
could be judged, and a run that could not be analysed, is a ``::warning`` too. Then the
full Training Stability Report, folded in a log group, between ``::stop-commands::``
markers so that no text read from a log can be taken for a workflow command.

Escaping follows the Actions toolkit (``@actions/core`` ``command.ts``): in data
``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``; in properties also ``:`` -> ``%3A`` and
``,`` -> ``%2C``. Text read from logs and file names loses escape sequences and control
characters first (CR and LF in a file name are kept, escaped).

Exit codes are the report's: 0, or 1 when a check FAILed.
"""

from __future__ import annotations

import re
import secrets

from tsm_tui.analysis.coverage import LABEL
from tsm_tui.core.sanitize import strip_ansi, terminal_safe
from tsm_tui.sources.locate import relative
from tsm_tui.views.findings import Finding, ci_runs

_C0 = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _safe(s: str) -> str:
    """No escape sequences, C1 / bidi or C0 controls (CR and LF stay: they are escaped)."""
    return _C0.sub("", terminal_safe(strip_ansi(s)))


def command(name: str, message: str, **props) -> str:
    """One workflow command line: ``::name k=v,k=v::message``."""
    head = f"::{name}"
    kv = [f"{k}={escape_property(_safe(str(v)))}" for k, v in props.items() if v is not None]
    if kv:
        head += " " + ",".join(kv)
    return f"{head}::{escape_data(_safe(message))}"


def _title(f: Finding, file: str) -> str:
    run = f"[{f.run}] " if f.run else ""
    at = f" at step {f.step}" if f.step is not None else ""
    return f"{run}{f.title} {f.status}{at} ({file})"


def annotation(f: Finding) -> str:
    file = relative(f.file)
    msg = f.message
    if f.actions:
        msg += "\nActions:\n" + "\n".join(f"{i}. {a}" for i, a in enumerate(f.actions, 1))
    return command(f.level, msg, file=file, line=f.line, title=_title(f, file))


def render(results: list, path: str, report_text: str) -> str:
    """The annotations of every run under ``path``, then the text report in a group."""
    runs, failures = ci_runs(results)
    out: list[str] = []
    for r in runs:
        out += [annotation(f) for f in r.check_findings()]
        if r.coverage["nothing_judged"]:
            have = [
                LABEL[m] for m in ("loss", "val_loss", "grad_norm", "lr", "loss_scale") if m not in r.coverage["unread"]
            ]
            file = relative(r.file)
            run = f"[{r.name}] " if r.name else ""
            out.append(
                command(
                    "warning",
                    "No check could judge the training from this log"
                    + (f" (it has only the {', '.join(have)})" if have else "")
                    + ": no FAIL here does not mean a healthy run.",
                    file=file,
                    title=f"{run}Nothing judged ({file})",
                )
            )
    for fail in failures:
        out.append(
            command(
                "warning",
                f"run {fail.run.name} not analysed: {fail.reason}",
                file=relative(fail.run.path),
                title=f"[{fail.run.name}] not analysed",
            )
        )
    crit = sum(r.counts()[0] for r in runs)
    warn = sum(r.counts()[1] for r in runs)
    token = secrets.token_hex(16)
    out.append(command("group", f"Training Stability Report: {crit} critical, {warn} warning(s) in {relative(path)}"))
    out.append(f"::stop-commands::{token}")
    out += report_text.rstrip("\n").split("\n")
    out.append(f"::{token}::")
    out.append("::endgroup::")
    return "\n".join(out) + "\n"
