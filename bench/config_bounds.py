"""Hostile configs (issue 32): every case of ``tests/integration/test_hostile_configs.CASES``,
timed and measured, before and after.

    python bench/config_bounds.py [--before /tmp/tsm-base] [--timeout 20]

For each case: ``read_config_file`` in-process (this tree; CPU seconds, best of 3 for
the fast ones), then ``tsm-watch --preflight FILE`` and ``tsm-watch RUN --report
--json`` (the file in a run dir, when the monitor reads it there) in fresh processes:
wall time, the child's CPU seconds and its own peak RSS (VmHWM at exit: ``measured``). ``--before TREE`` runs the same
processes on another source tree (``git archive REV tsm_tui | tar -x -C TREE``),
killed at ``--timeout`` seconds. Prints a Markdown table (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests"), os.path.join(ROOT, "tests", "integration")]

from test_hostile_configs import CASES, GOOD_LOG, measured  # noqa: E402

from tsm_tui.sources.config_load import ConfigError, read_config_file  # noqa: E402


def run(tree: str, args: list[str], timeout: float) -> tuple[str, float, float, float | None]:
    """(outcome, seconds, peak RSS MB, CPU seconds) of ``python -m tsm_tui ARGS`` with
    ``tree`` first on the path."""
    rc, _out, err, dt, mb, cpu = measured(args, timeout, tree=tree)
    if rc is None:
        return f"> {timeout:.0f} s (killed)", dt, mb, cpu
    if "internal error" in err:
        what = err.split("internal error: ", 1)[1].split(":")[0].split(" (")[0]
        return f"internal error ({what})", dt, mb, cpu
    return f"rc {rc}", dt, mb, cpu


def in_process(path: str) -> tuple[str, float]:
    """("read" / "refused", CPU seconds: best of 3) of read_config_file on ``path``."""
    best = None
    what = ""
    for _ in range(3):
        t = time.process_time()
        try:
            read_config_file(path, named=True)
            what = "read"
        except ConfigError:
            what = "refused"
        dt = time.process_time() - t
        best = dt if best is None else min(best, dt)
        if dt > 0.5:
            break
    return what, best or 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="another source tree (the code before)")
    ap.add_argument("--timeout", type=float, default=20.0)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="cfgbounds-")
    rows = []
    try:
        for case in CASES:
            d = os.path.join(tmp, case.id)
            os.makedirs(os.path.join(d, "run"))
            f = os.path.join(d, case.name)
            with open(f, "w", encoding="utf-8") as fh:
                fh.write(case.text)
            with open(os.path.join(d, "run", "metrics.jsonl"), "w") as fh:
                fh.write(GOOD_LOG)
            shutil.copy(f, os.path.join(d, "run", case.name))
            what, t_in = in_process(f)
            modes = [("--preflight FILE", ["--preflight", f])]
            if case.in_run_dir:
                modes.append(("in a run dir, --report", [os.path.join(d, "run"), "--report", "--json"]))
            for mode, args in modes:
                after = run(ROOT, args, a.timeout)
                before = run(a.before, args, a.timeout) if a.before else None
                rows.append((case.id, len(case.text.encode()), what, t_in, mode, after, before))
                print(
                    f"{case.id} {mode}: after {after}" + (f" before {before}" if before else ""),
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    head = "| case | bytes | loader | loader CPU s | mode | after | wall s | CPU s | MB |"
    sep = "|---|---|---|---|---|---|---|---|---|"
    if a.before:
        head += " before | wall s | MB |"
        sep += "---|---|---|"
    print(head)
    print(sep)

    def cpu(x):
        return "-" if x is None else f"{x:.2f}"

    for cid, size, what, t_in, mode, after, before in rows:
        line = (
            f"| {cid} | {size:,} | {what} | {t_in:.3f} | {mode} | {after[0]} | {after[1]:.2f} | {cpu(after[3])} "
            f"| {after[2]:.0f} |"
        )
        if before:
            line += f" {before[0]} | {before[1]:.2f} | {before[2]:.0f} |"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
