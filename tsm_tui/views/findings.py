"""What the CI formats report of a finished run (``--format github``, ``--format sarif``):
the same checks, alerts and coverage as the Training Stability Report, with the file
and line each alert's record was written on.

Per check at WARN or FAIL one *check finding*, placed at the alert that best shows it
(its first critical alert for a FAIL, else its first warning); per alert (critical and
warning; the ``info`` notes of resumes are left out) one *alert finding*, whose level
is its severity, lowered to a note when its check ended at PASS or SKIP (a spike that
recovered). Lines come from ``sources.locate`` (one more read of the run's source
file, only for these formats); alerts of the ranks check and checks judged from the
run's files have the run's source file without a line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tsm_tui.analysis.coverage import coverage
from tsm_tui.analysis.replay import Analysis, RunFailure
from tsm_tui.core.record import Alert, CheckResult, Severity, Status
from tsm_tui.core.sanitize import clean
from tsm_tui.sources.base import channel_file
from tsm_tui.sources.locate import step_lines

LEVEL = {Status.FAIL: "error", Status.WARN: "warning"}
ALERT_LEVEL = {Severity.CRITICAL: "error", Severity.WARNING: "warning"}


@dataclass
class Finding:
    check: str
    title: str
    level: str  # "error" | "warning" | "note"
    message: str  # safe text; parts joined with "\n"
    file: str  # absolute path of the log (or of the run when it has no single file)
    line: int | None = None
    step: int | None = None
    run: str | None = None  # the run's name when the path holds several runs
    status: str = ""  # the check's final status
    alert: Alert | None = None
    actions: list[str] = field(default_factory=list)


@dataclass
class CiRun:
    """One analysed run as the CI formats see it."""

    an: Analysis
    name: str | None = None  # set when the report covers several runs
    checks: list[CheckResult] = field(default_factory=list)
    coverage: dict = field(default_factory=dict)
    alerts: list[Alert] = field(default_factory=list)
    lines: dict = field(default_factory=dict)

    @classmethod
    def of(cls, an: Analysis, name: str | None = None) -> "CiRun":
        checks = an.checks()
        # (an earlier run of the file is no finding of the run judged: the report lists it)
        alerts = [a for a in an.alerts() if a.severity != Severity.INFO and a.earlier is None]
        r = cls(an, name, checks, coverage(an, checks), alerts)
        run = an.run
        reader = run.reader_types.get(run.primary) if run.primary else None  # (None for a channel: no lines)
        steps = {a.step for a in r.alerts if a.step is not None and a.check != "ranks"}
        if reader is not None and steps:
            assert run.primary is not None  # (reader is the primary's)
            r.lines = step_lines(run.primary, reader, steps, run.segments.get(run.primary, ()))
        return r

    @property
    def file(self) -> str:
        """The run's source file (a channel of a file, ``run.wandb#console``, is its file)."""
        return channel_file(self.an.run.primary)[0] if self.an.run.primary else self.an.run.path

    def where(self, a: Alert | None) -> tuple[str, int | None]:
        if a is None or a.step is None or a.check == "ranks":
            return self.file, None
        return self.lines.get(a.step, (self.file, None))

    def status_of(self, check: str) -> Status | None:
        return next((c.status for c in self.checks if c.id == check), None)

    def check_findings(self) -> list[Finding]:
        out = []
        for c in self.checks:
            if c.status not in LEVEL:
                continue
            mine = [a for a in self.alerts if a.check == c.id]
            want = Severity.CRITICAL if c.status == Status.FAIL else Severity.WARNING
            a = next((x for x in mine if x.severity == want), mine[0] if mine else None)
            parts = [clean(c.summary)] if c.summary else []
            if a is not None and clean(a.message) not in parts:
                parts.append(clean(a.message))
            acts = [clean(x) for x in (a.actions if a is not None else [])]
            f, line = self.where(a)
            out.append(
                Finding(
                    c.id,
                    c.title,
                    LEVEL[c.status],
                    "\n".join(parts),
                    f,
                    line,
                    a.step if a is not None else None,
                    self.name,
                    c.status.value,
                    a,
                    acts,
                )
            )
        return out

    def alert_findings(self) -> list[Finding]:
        titles = {c.id: c.title for c in self.checks}
        out = []
        for a in self.alerts:
            st = self.status_of(a.check)
            level = ALERT_LEVEL.get(a.severity, "note")
            if st in (Status.PASS, Status.SKIP):
                level = "note"  # the check ended well (a spike that recovered)
            f, line = self.where(a)
            out.append(
                Finding(
                    a.check,
                    titles.get(a.check, a.check),
                    level,
                    clean(a.message),
                    f,
                    line,
                    a.step,
                    self.name,
                    st.value if st else "",
                    a,
                    [clean(x) for x in a.actions],
                )
            )
        return out

    def counts(self) -> tuple[int, int]:
        return self.an.counts()


def ci_runs(results: list) -> tuple[list[CiRun], list[RunFailure]]:
    """The analysed runs (named when there are several) and the runs that could not be."""
    many = len(results) > 1
    runs = [CiRun.of(r, r.run.name if many else None) for r in results if isinstance(r, Analysis)]
    return runs, [r for r in results if isinstance(r, RunFailure)]
