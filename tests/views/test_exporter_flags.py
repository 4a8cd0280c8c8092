"""An exporter's flags are declared on its class (``FLAGS``, views/outputs.py): the command
line adds them to its parser where they have always been in ``--help`` and fills ``Options``
from them; a new exporter's flag fills ``Options.exports`` (no field, no ``cli`` row). Its
flags' usage rules (``check``) and its part in ``--report`` (``for_report``) are on its class
too: the command line names no exporter."""

from __future__ import annotations

import os

import inspect

from tsm_tui import cli
from tsm_tui.core.errors import UsageError
from tsm_tui.core.flags import Flag
from tsm_tui.views import outputs
from tsm_tui.views.pages import Pages
from tsm_tui.views.prometheus import Metrics
from tsm_tui.views.subscriber import ReportHook, Subscriber

from helpers import paths

RUN = os.path.join(paths.ROOT, "sample_runs", "fp16_loss_scale")


def _section(help_text: str, title: str) -> list[str]:
    """The flags listed in one ``--help`` section, in order."""
    body = help_text.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in body.splitlines() if line.startswith("  --")]


def _theirs(names: list[str]) -> list[str]:
    """``names`` without the flags of exporters added after Pages and Metrics (a new exporter's
    flags go among them: these tests need no edit for it)."""
    later = {f.name for cls in outputs.EXPORTERS if cls not in (outputs.Printer, Pages, Metrics) for f in cls.FLAGS}
    return [n for n in names if n not in later]


def _exports_defaults() -> dict:
    """``Options.exports`` when no exporter flag is given: each ``exports.<key>`` flag's default."""
    return {f.to.split(".", 1)[1]: f.default for f in outputs.flags() if f.to.startswith("exports.")}


def test_the_exporters_flags_keep_their_place_in_help():
    text = cli.build_parser().format_help()
    mode = _theirs(_section(text, "mode"))
    assert mode[mode.index("--poll") :] == ["--poll", "--on-alert", "--alert-cooldown", "--no-bell", "--run"]
    assert _theirs(_section(text, "Prometheus / Grafana (README: Many jobs)")) == [
        "--prom-file",
        "--metrics-port",
        "--metrics-host",
        "--run-label",
        "--print",
    ]
    names = [f.name for f in cli.all_flags()]
    assert len(names) == len(set(names))
    assert {f.name for f in Pages.FLAGS} | {f.name for f in Metrics.FLAGS} <= set(names)


def test_the_exporters_flags_fill_their_options():
    o = cli.parse([RUN, "--on-alert", "cat", "--alert-cooldown", "5", "--prom-file", "x.prom", "--run-label", "j"])
    assert (o.on_alert, o.alert_cooldown, o.prom_file, o.run_label) == ("cat", 5.0, "x.prom", "j")
    assert (o.metrics_port, o.metrics_host, o.exports) == (None, "127.0.0.1", _exports_defaults())
    assert [type(s) for s in outputs.build(o, "follow", RUN).subscribers] == [outputs.Printer, Pages, Metrics]


class _Counts(ReportHook):
    """``--report --tally-every N``: the batches and runs of the report, counted."""

    def __init__(self) -> None:
        self.batches = self.records = 0
        self.runs: list[str] = []
        self.closed = False

    def batch(self, run, source: str, items: list, reader) -> None:
        self.batches += 1
        self.records += len(items)

    def finished(self, an) -> None:
        self.runs.append(an.run.name)

    def close(self) -> None:
        self.closed = True


class _Tally(Subscriber):
    """A new exporter with a flag of its own, its usage rule and its part in ``--report``,
    declared on its class only."""

    FLAGS = (Flag("--tally-every", "exports.tally_every", "count updates", group="export", type=int, metavar="N"),)
    report: _Counts | None = None  # (the last --report's counts, for the test)

    def __init__(self, every: int) -> None:
        self.every = every

    @classmethod
    def check(cls, opts, view: str) -> None:
        if opts.exports.get("tally_every") is not None and view == "preflight":
            raise UsageError("--tally-every counts a run's updates: not with --preflight")

    @classmethod
    def wanted(cls, opts, view: str) -> bool:
        return opts.exports.get("tally_every") is not None

    @classmethod
    def from_options(cls, opts, root: str) -> "_Tally":
        return cls(opts.exports["tally_every"])

    @classmethod
    def for_report(cls, opts, root: str) -> _Counts | None:
        if opts.exports.get("tally_every") is None:
            return None
        _Tally.report = _Counts()
        return _Tally.report


def test_a_new_exporters_flag_needs_no_cli_row_and_no_options_field(monkeypatch):
    monkeypatch.setattr(outputs, "EXPORTERS", (*outputs.EXPORTERS, _Tally))
    text = cli.build_parser().format_help()
    assert _section(text, "Prometheus / Grafana (README: Many jobs)")[-2:] == ["--tally-every", "--print"]
    o = cli.parse([RUN, "--tally-every", "3"])
    assert o.exports == {**_exports_defaults(), "tally_every": 3}
    built = outputs.build(o, "follow", RUN)
    assert built.get(_Tally).every == 3
    assert cli.parse([RUN]).exports == _exports_defaults() and _exports_defaults()["tally_every"] is None
    assert outputs.build(cli.parse([RUN]), "follow", RUN).get(_Tally) is None


def test_a_new_exporters_usage_rule_and_report_part_need_no_cli_change(monkeypatch, capsys):
    monkeypatch.setattr(outputs, "EXPORTERS", (*outputs.EXPORTERS, _Tally))
    assert cli.main([RUN, "--preflight", "--tally-every", "3"]) == 2
    assert capsys.readouterr().err.startswith("tsm-watch: --tally-every counts a run's updates: not with --preflight")
    _Tally.report = None
    assert cli.main([RUN, "--report", "--json"]) == 1  # (FAIL: the loss scale; not asked for: no part in the report)
    assert _Tally.report is None
    assert cli.main([RUN, "--report", "--json", "--tally-every", "3"]) == 1
    counts = _Tally.report
    assert counts is not None and counts.closed
    assert counts.runs == ["fp16_loss_scale"] and counts.batches > 0 and counts.records > 0


def test_the_command_line_names_no_exporter():
    """What cli knows of the exporters is what their classes declare."""
    src = inspect.getsource(cli)
    for name in ("views.prometheus", "import prometheus\n", "import pages", "Metrics", "Pages", "Printer"):
        assert name not in src, name
    for name in ("prom_file", "metrics_port", "metrics_host", "run_label", "on_alert", "alert_cooldown"):
        assert name not in src and "--" + name.replace("_", "-") not in src, name


def test_a_report_format_is_a_report_to_the_exporters_rules(monkeypatch, capsys):
    """On a terminal, ``--format json`` (or text / github / sarif) makes a report, as ``--json`` does:
    ``--metrics-port`` is refused with it as with ``--json`` (the rules ran before the format made
    the report: the port was taken, then silently never served)."""
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    for fmt in (["--json"], ["--format", "json"], ["--format", "text"], ["--format", "github"], ["--format", "sarif"]):
        assert cli.main([RUN, *fmt, "--metrics-port", "0"]) == 2, fmt
        assert "--metrics-port needs --follow or the TUI" in capsys.readouterr().err


def test_on_alert_is_refused_where_nothing_would_be_paged(monkeypatch, capsys):
    """``--on-alert`` pages while following only; with a report, a pre-flight check or the TUI
    it was silently ignored (a CI job thought it would be paged). Refused with why, before
    anything is read; ``--alert-cooldown`` without ``--on-alert`` too."""
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    cases = [
        (["--report"], "its exit code is 1 when a check FAILs"),
        (["--json"], "its exit code is 1 when a check FAILs"),
        (["--format", "github"], "its exit code is 1 when a check FAILs"),
        (["--preflight"], "a pre-flight check reads a config"),
        ([], "the TUI rings its bell"),
    ]
    for extra, why in cases:
        assert cli.main([RUN, *extra, "--on-alert", "cat"]) == 2, extra
        err = capsys.readouterr().err
        assert err.startswith("tsm-watch: --on-alert pages while following: add --follow") and why in err, err
    assert cli.main([RUN, "--report", "--alert-cooldown", "5"]) == 2
    assert "use it with --on-alert" in capsys.readouterr().err
    o = cli.parse([RUN, "--follow", "--on-alert", "cat", "--alert-cooldown", "5"])
    assert [type(s) for s in outputs.build(o, "follow", RUN).subscribers][-1] is Pages
