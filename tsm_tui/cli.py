"""Command line: ``tsm-watch PATH [--report] [--json] ...``.

Exit codes: 0 no critical issue; 1 critical issues found; 2 usage or input
error (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

from tsm_tui import __version__
from tsm_tui.settings import RunInfo, Settings

EXIT_OK, EXIT_CRITICAL, EXIT_USAGE = 0, 1, 2
_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise UsageError(message)


def size(text: str) -> float:
    """125M, 7B, 1.3e9, 0.5M, 4,194,304 -> float."""
    t = text.strip().replace(",", "").replace("_", "")
    mult = 1.0
    if t and t[-1].lower() in _SUFFIX:
        mult = _SUFFIX[t[-1].lower()]
        t = t[:-1]
    try:
        v = float(t) * mult
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r} (e.g. 125M, 7B, 1.3e9)")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return v


def positive_int(text: str) -> int:
    try:
        v = int(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return v


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return v


def build_parser() -> argparse.ArgumentParser:
    d = Settings()
    p = _Parser(
        prog="tsm-watch",
        description="Watch a training run's logs for instabilities (loss spikes, gradient trouble, LR schedule, "
                    "batch size, plateaus, NaN/Inf, fp16 loss scale, checkpoints) and say what to do.",
        epilog="Exit codes: 0 no critical issue, 1 critical issues found, 2 usage or input error.",
    )
    p.add_argument("path", nargs="?", help="a log file or a run directory (searched recursively)")
    p.add_argument("--version", action="version", version=f"tsm-watch {__version__}")
    mode = p.add_argument_group("mode")
    mode.add_argument("--report", action="store_true", help="print the Training Stability Report and exit")
    mode.add_argument("--json", action="store_true", help="with --report (or --follow): machine-readable JSON")
    mode.add_argument("--follow", action="store_true", help="headless: print alerts as they happen until interrupted")
    mode.add_argument("--replay", action="store_true", help="TUI: play a finished run back as if live")
    mode.add_argument("--speed", type=positive_float, default=50.0, help="--replay speed in steps per second (default 50)")
    mode.add_argument("--demo", action="store_true", help="TUI on a bundled sample run with a spike")
    mode.add_argument("--preflight", action="store_true", help="check a run's configuration before it starts")
    mode.add_argument("--poll", type=positive_float, metavar="SECONDS", help="force polling every SECONDS (network filesystems)")
    mode.add_argument("--on-alert", metavar="CMD", help="run CMD for each critical alert, alert JSON on stdin")
    mode.add_argument("--no-bell", action="store_true", help="TUI: no terminal bell on a new FAIL")
    k = p.add_argument_group("thresholds (defaults and sources in README)")
    k.add_argument("--threshold", type=positive_float, default=d.grad_threshold,
                   help=f"gradient-norm threshold (default {d.grad_threshold}: the usual clip value, GPT-3/LLaMA/OLMo 2)")
    k.add_argument("--window", type=positive_int, default=d.window,
                   help=f"records in the rolling baseline (default {d.window})")
    k.add_argument("--spike-factor", type=positive_float, default=d.spike_factor,
                   help=f"loss spike = loss > FACTOR x rolling median (default {d.spike_factor}, the seed rule)")
    k.add_argument("--sigma", type=positive_float, default=d.sigma,
                   help=f"spike = value > mean + SIGMA std (default {d.sigma}, OLMo-core)")
    k.add_argument("--recovery-steps", type=positive_int, default=d.recovery_steps,
                   help=f"steps a spike may take to recover (default {d.recovery_steps}: BLOOM ~200, PaLM 200-500)")
    k.add_argument("--plateau-steps", type=positive_int, default=d.plateau_steps,
                   help=f"flat loss for this many steps is a plateau (default {d.plateau_steps}, at least 20%% of the run)")
    r = p.add_argument_group("run configuration (overrides what the run's files say)")
    r.add_argument("--config", metavar="FILE", help="the run's config (YAML / TOML / JSON with the usual names)")
    r.add_argument("--total-steps", type=positive_int, help="planned optimizer steps")
    r.add_argument("--warmup-steps", type=int, help="planned warm-up steps")
    r.add_argument("--params", type=size, help="model parameters, e.g. 125M, 7B")
    r.add_argument("--batch-tokens", type=size, help="tokens per optimizer step, e.g. 0.5M")
    r.add_argument("--peak-lr", type=positive_float, help="planned peak learning rate")
    r.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return p


def settings_from(args) -> Settings:
    s = Settings()
    s.grad_threshold = args.threshold
    s.window = args.window
    s.spike_factor = args.spike_factor
    s.sigma = args.sigma
    s.recovery_steps = args.recovery_steps
    s.plateau_steps = args.plateau_steps
    return s


def info_from(args) -> RunInfo:
    info = RunInfo()
    for name, attr in (("total_steps", "total_steps"), ("warmup_steps", "warmup_steps"), ("params", "params"),
                       ("batch_tokens", "batch_tokens"), ("peak_lr", "peak_lr")):
        v = getattr(args, attr, None)
        if v is not None:
            info.set(name, v, "command line", override=True)
    return info


def demo_path() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "data", "demo")


def run_report(args, out=None) -> int:
    from tsm_tui import report

    from tsm_tui.engine import analyze

    out = out or sys.stdout

    an = analyze(args.path, settings_from(args), info_from(args), args.config)
    if args.json:
        out.write(report.dumps(report.json_report(an)) + "\n")
    else:
        out.write(report.text_report(an, colour=report.use_colour(out)))
    crit, _ = an.monitor.counts()
    return EXIT_CRITICAL if crit else EXIT_OK


def dispatch(args) -> int:
    if args.preflight:
        try:
            from tsm_tui import preflight
        except ImportError:
            raise UsageError("--preflight is not available in this build")
        return preflight.main(args)
    if args.demo and not args.path:
        args.path = demo_path()
    if not args.path:
        raise UsageError("PATH is required (a log file or a run directory); try --demo")
    if args.follow:
        try:
            from tsm_tui import follow
        except ImportError:
            raise UsageError("--follow is not available in this build")
        return follow.main(args)
    if args.report or args.json or not sys.stdout.isatty():
        return run_report(args)
    try:
        from tsm_tui.app import run_app
    except ImportError:
        return run_report(args)  # the live TUI is not in this build: print the report
    return run_app(args)


def main(argv: list[str] | None = None) -> int:
    from tsm_tui.engine import InputError

    parser = build_parser()
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        args = parser.parse_args(argv)
        return dispatch(args)
    except UsageError as e:
        print(f"tsm-watch: {e} (see tsm-watch --help)", file=sys.stderr)
        return EXIT_USAGE
    except InputError as e:
        print(f"tsm-watch: {e}", file=sys.stderr)
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
        print(f"tsm-watch: internal error: {type(e).__name__}: {e} (rerun with --debug for details)", file=sys.stderr)
        return EXIT_USAGE
