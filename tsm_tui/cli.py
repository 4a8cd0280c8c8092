"""Command line: ``tsm-watch PATH [--report] [--json] ...``.

Every flag is defined once, as a ``Flag`` (core/flags.py): its argparse spelling,
its type, its help and where its value goes (an ``Options`` field, a ``Settings``
threshold or a ``RunInfo`` value that overrides the run's files). The command
line's own flags are ``FLAGS``; an exporter declares its flags on its class
(``FLAGS``, views/outputs.py), and ``all_flags`` places them among these.
``options_from`` turns the parsed namespace into typed ``Options``; the views get those.

Exit codes: 0 no critical issue; 1 critical issues found; 2 usage or input
error (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

from tsm_tui import __version__
from tsm_tui.core.errors import EXIT_CRITICAL, EXIT_OK, EXIT_USAGE, InputError, UsageError, error_line
from tsm_tui.core.flags import Flag, choice, nonneg_int, positive_float, positive_int, size
from tsm_tui.core.options import Options
from tsm_tui.core.sanitize import message, terminal_safe
from tsm_tui.core.settings import Settings

__all__ = [
    "main",
    "build_parser",
    "options_from",
    "parse",
    "FLAGS",
    "all_flags",
    "EXIT_OK",
    "EXIT_CRITICAL",
    "EXIT_USAGE",
]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise UsageError(message)


PRINTABLE = ("prometheus-rules", "grafana-dashboard", "skill")
FORMATS = ("text", "json", "github", "sarif")


def report_format(text: str) -> str:
    return choice(text, FORMATS)


def printable(text: str) -> str:
    return choice(text, PRINTABLE)


_D = Settings()
_O = Options()  # the defaults of the mode and export flags live in Options, once

FLAGS: tuple[Flag, ...] = (
    Flag("--report", "options.report", "print the Training Stability Report and exit", store_true=True),
    Flag("--json", "options.json", "with --report (or --follow): machine-readable JSON", store_true=True),
    Flag(
        "--format",
        "options.format",
        "with --report: text, json (= --json), github (GitHub Actions annotations) or sarif (SARIF 2.1.0)",
        type=report_format,
        metavar="FORMAT",
    ),
    Flag("--follow", "options.follow", "headless: print alerts as they happen until interrupted", store_true=True),
    Flag("--replay", "options.replay", "TUI: play a finished run back as if live", store_true=True),
    Flag(
        "--speed",
        "options.speed",
        f"--replay speed in steps per second (default {_O.speed:g})",
        type=positive_float,
        default=_O.speed,
    ),
    Flag("--demo", "options.demo", "TUI on a bundled sample run with a spike", store_true=True),
    Flag("--preflight", "options.preflight", "check a run's configuration before it starts", store_true=True),
    Flag(
        "--poll",
        "options.poll",
        "force polling every SECONDS (network filesystems)",
        type=positive_float,
        metavar="SECONDS",
    ),
    Flag("--no-bell", "options.no_bell", "TUI: no terminal bell on a new FAIL", store_true=True),
    Flag(
        "--print",
        "options.print_what",
        "print a file and exit: prometheus-rules (alerting rules), grafana-dashboard (JSON) or skill "
        "(a SKILL.md for coding agents)",
        group="export",
        type=printable,
        metavar="WHAT",
    ),
    Flag(
        "--threshold",
        "settings.grad_threshold",
        f"gradient-norm threshold (default {_D.grad_threshold}: the usual clip value, GPT-3/LLaMA/OLMo 2)",
        group="thresholds",
        type=positive_float,
    ),
    Flag(
        "--window",
        "settings.window",
        f"records in the rolling baseline (default {_D.window})",
        group="thresholds",
        type=positive_int,
    ),
    Flag(
        "--spike-factor",
        "settings.spike_factor",
        f"loss spike = loss > FACTOR x rolling median (default {_D.spike_factor}, the seed rule)",
        group="thresholds",
        type=positive_float,
    ),
    Flag(
        "--sigma",
        "settings.sigma",
        f"spike = value > mean + SIGMA std (default {_D.sigma}, OLMo-core)",
        group="thresholds",
        type=positive_float,
    ),
    Flag(
        "--recovery-steps",
        "settings.recovery_steps",
        f"steps a spike may take to recover (default {_D.recovery_steps}: BLOOM ~200, PaLM 200-500)",
        group="thresholds",
        type=positive_int,
    ),
    Flag(
        "--plateau-steps",
        "settings.plateau_steps",
        f"flat loss for this many steps is a plateau (default {_D.plateau_steps}, at least 20%% of the run)",
        group="thresholds",
        type=positive_int,
    ),
    Flag(
        "--run",
        "options.run",
        "PATH holds several runs: pick this one (its path relative to PATH, or its name)",
        metavar="NAME",
    ),
    Flag(
        "--config",
        "options.config",
        "the run's config (YAML / TOML / JSON with the usual names)",
        group="run",
        metavar="FILE",
    ),
    Flag("--total-steps", "info.total_steps", "planned optimizer steps", group="run", type=positive_int),
    Flag("--warmup-steps", "info.warmup_steps", "planned warm-up steps", group="run", type=nonneg_int),
    Flag("--params", "info.params", "model parameters, e.g. 125M, 7B", group="run", type=size),
    Flag("--batch-tokens", "info.batch_tokens", "tokens per optimizer step, e.g. 0.5M", group="run", type=size),
    Flag("--peak-lr", "info.peak_lr", "planned peak learning rate", group="run", type=positive_float),
)

# The exporters' flags of a group go before this flag of ours (a group not named here: at the end),
# so ``--help`` lists them where they have always been.
_EXPORTERS_BEFORE = {"--no-bell": "mode", "--print": "export"}


def all_flags() -> tuple[Flag, ...]:
    """``FLAGS`` with the exporters' flags (views/outputs.py) placed by ``_EXPORTERS_BEFORE``."""
    from tsm_tui.views import outputs  # (no Textual: the subscribers import the core only)

    theirs = outputs.flags()
    placed = set(_EXPORTERS_BEFORE.values())
    out: list[Flag] = []
    for f in FLAGS:
        group = _EXPORTERS_BEFORE.get(f.name)
        if group is not None:
            out += [e for e in theirs if e.group == group]
        out.append(f)
    return tuple(out + [e for e in theirs if e.group not in placed])


_GROUPS = {
    "mode": "mode",
    "export": "Prometheus / Grafana (README: Many jobs)",
    "thresholds": "thresholds (defaults and sources in README)",
    "run": "run configuration (overrides what the run's files say)",
}


def _dest(f: Flag) -> str:
    return f.name.lstrip("-").replace("-", "_")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="tsm-watch",
        description="Watch a training run's logs for instabilities (loss spikes, gradient trouble, LR schedule, "
        "batch size, plateaus, NaN/Inf, fp16 loss scale, checkpoints) and say what to do.",
        epilog="Exit codes: 0 no critical issue, 1 critical issues found, 2 usage or input error. "
        "tsm-watch mcp: a Model Context Protocol server on stdio (pip install 'tsm-tui[mcp]').",
    )
    p.add_argument("path", nargs="?", help="a log file or a run directory (searched recursively)")
    p.add_argument("--version", action="version", version=f"tsm-watch {__version__}")
    groups = {k: p.add_argument_group(title) for k, title in _GROUPS.items()}
    for f in all_flags():
        kw: dict = {"help": f.help, "dest": _dest(f)}
        if f.store_true:
            kw["action"] = "store_true"
        else:
            if f.type is not None:
                kw["type"] = f.type
            if f.metavar:
                kw["metavar"] = f.metavar
            kw["default"] = f.default
        groups[f.group].add_argument(f.name, **kw)
    p.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return p


def options_from(ns: argparse.Namespace) -> Options:
    """The parsed flags as typed Options (thresholds into Settings, run facts into RunInfo)."""
    o = Options(path=ns.path, debug=bool(getattr(ns, "debug", False)))
    for f in all_flags():
        v = getattr(ns, _dest(f))
        where, attr = f.to.split(".", 1)
        if where == "settings":
            if v is not None:
                setattr(o.settings, attr, v)
        elif where == "info":
            if v is not None:
                o.info.set(attr, v, "command line", override=True)
        elif where == "exports":
            o.exports[attr] = v
        elif attr == "no_bell":
            o.bell = not v
        else:
            setattr(o, attr, v)
    return o


def parse(argv: list[str] | None = None) -> Options:
    return options_from(build_parser().parse_args(argv))


def demo_path() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "data", "demo")


def _root(path: str) -> str:
    p = os.path.abspath(path)
    return p if os.path.isdir(p) else os.path.dirname(p)


def run_report(opts: Options, out=None) -> int:
    from tsm_tui.analysis.replay import Analysis, RunFailure, analyze_runs
    from tsm_tui.views import report

    out = out or sys.stdout
    assert opts.path is not None  # (main: PATH is required)
    from tsm_tui.views import outputs

    # the exporters' parts in the report, made before the runs are read (their errors first: a file they cannot write)
    exports = outputs.for_report(opts, _root(opts.path))
    results = analyze_runs(
        opts.path,
        opts.settings,
        opts.info,
        opts.config,
        only=opts.run,
        on_batch=exports.batch if exports else None,
        on_run=exports.finished if exports else None,
    )
    exports.close()
    if opts.format in ("github", "sarif"):
        return _ci_report(opts, results, out)
    if len(results) == 1:
        an = results[0]  # (an Analysis: a lone run that failed raised InputError in analyze_runs)
        assert not isinstance(an, RunFailure)
        if opts.json:
            out.write(report.dumps(report.json_report(an)) + "\n")
        else:
            out.write(terminal_safe(report.text_report(an, colour=report.use_colour(out))))
        return EXIT_CRITICAL if an.counts()[0] else EXIT_OK
    path = os.path.abspath(opts.path)
    if opts.json:
        out.write(report.dumps(report.json_runs_report(results, path)) + "\n")
    else:
        out.write(terminal_safe(report.text_runs_report(results, path, colour=report.use_colour(out))))
    failing = any(isinstance(r, Analysis) and r.counts()[0] for r in results)
    return EXIT_CRITICAL if failing else EXIT_OK


def _ci_report(opts: Options, results: list, out) -> int:
    """``--format github`` / ``--format sarif``: the same analyses, the same exit code."""
    from tsm_tui.analysis.replay import Analysis
    from tsm_tui.views import report

    code = EXIT_CRITICAL if any(isinstance(r, Analysis) and r.counts()[0] for r in results) else EXIT_OK
    assert opts.path is not None  # (main: PATH is required)
    path = os.path.abspath(opts.path)
    if opts.format == "github":
        from tsm_tui.views import github

        text = report.text_report(results[0]) if len(results) == 1 else report.text_runs_report(results, path)
        out.write(terminal_safe(github.render(results, path, text)))
    else:
        from tsm_tui.views import sarif

        out.write(report.dumps(sarif.render(results, path, code)) + "\n")
    return code


def _check_format(opts: Options) -> None:
    if opts.format is None:
        return
    if opts.json and opts.format != "json":
        raise UsageError(f"--json is --format json: give one of them, not --json with --format {opts.format}")
    if opts.format in ("github", "sarif"):
        if opts.follow or opts.preflight:
            raise UsageError(f"--format {opts.format} is a report format: use it with --report")
        opts.report = True
    opts.json = opts.format == "json"
    if opts.format == "text":
        opts.report = opts.report or not opts.follow and not opts.preflight


def _check_print(opts: Options) -> None:
    if opts.print_what and opts.path:
        raise UsageError("--print takes no PATH: tsm-watch --print prometheus-rules > tsm-rules.yml")


def _view(opts: Options) -> str:
    """What the options ask for, as the exporters' usage rules see it (after ``--format``'s,
    which may make a report): "preflight", "follow", "report" or "tui"."""
    if opts.preflight:
        return "preflight"
    if opts.follow:
        return "follow"
    return "report" if opts.report or opts.json or not sys.stdout.isatty() else "tui"


def dispatch(opts: Options) -> int:
    # views are imported when chosen, so ``--help`` and ``--report`` never load Textual
    from tsm_tui.views import outputs  # (loaded already: the parser reads the exporters' flags)

    _check_print(opts)
    _check_format(opts)  # (first: --format json / text / github / sarif make a report, which the exporters' rules see)
    outputs.check(opts, _view(opts))
    if opts.print_what == "skill":
        from tsm_tui.views import skill

        sys.stdout.write(skill.text())
        return EXIT_OK
    if opts.print_what:
        from tsm_tui.views import prometheus_rules

        sys.stdout.write(prometheus_rules.text(opts.print_what))
        return EXIT_OK
    if opts.preflight:
        from tsm_tui import preflight

        return preflight.main(opts)
    if opts.demo and not opts.path:
        opts.path = demo_path()
    if not opts.path:
        raise UsageError("PATH is required (a log file or a run directory); try --demo")
    if opts.follow:
        from tsm_tui.views import follow

        return follow.main(opts)
    if opts.report or opts.json or not sys.stdout.isatty():
        return run_report(opts)
    from tsm_tui.views.tui import run_app

    return run_app(opts, demo=demo_path() if opts.demo else None)


def _preflight_json(opts: Options) -> dict:
    """``--preflight --json``'s object (the MCP server's ``preflight`` tool)."""
    from tsm_tui import preflight

    plan = preflight.plan_from(opts)
    # (the MCP tool always passes a path or a config)
    return preflight.json_report(plan, preflight.run_checks(plan), opts.path or opts.config)  # type: ignore[arg-type]


def mcp(args: list[str]) -> int:
    """``tsm-watch mcp``: the MCP server over stdio (views/mcp_server.py), answering with this
    parser and pre-flight, so its tools take the same values and say the same errors."""
    if args:
        raise UsageError("tsm-watch mcp takes no arguments (for a directory named mcp: tsm-watch ./mcp)")
    from tsm_tui.views import mcp_server

    return mcp_server.main(parse, _preflight_json)


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    debug = "--debug" in args
    try:
        if args[:1] == ["mcp"]:
            return mcp(args[1:])
        return dispatch(parse(argv))
    except (UsageError, InputError) as e:
        # (every message that names a path, a file or a value we were given goes through
        # one cleaner: a file name can carry OSC 52 / OSC 0 / CSI sequences)
        print(message(error_line(e)), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_OK
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except Exception as e:  # never a traceback for users; --debug shows it
        if debug:
            raise
        print(message(error_line(e)), file=sys.stderr)
        return EXIT_USAGE
