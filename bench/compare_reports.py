"""Behaviour guard for hot-path edits: ``tsm-watch PATH --report --json`` from two
source trees (e.g. a ``git worktree`` of the last commit and the work tree) on
every sample run, every real log and any extra paths; prints the differences.

    python bench/compare_reports.py /tmp/tsm-base /work/main [extra paths ...]

``--preflight`` first: ``tsm-watch --preflight X --json`` instead, on every config
file (JSON / YAML / TOML / launch script) in the sample runs, tests/data and the
real logs under /work/shared, and on each directory holding one (what a change to
the config readers does to the plans).

Exit 0 when every report is identical, 1 otherwise.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def targets(extra: list[str]) -> list[str]:
    out = sorted(p for p in glob.glob(os.path.join(ROOT, "sample_runs", "*")) if os.path.isdir(p))
    out += sorted(p for p in glob.glob("/work/shared/real_logs/*") if os.path.isdir(p))
    out += sorted(glob.glob("/work/shared/real_logs/*/*"))
    out += sorted(
        p
        for p in glob.glob(os.path.join(ROOT, "tests", "data", "**", "*"), recursive=True)
        if os.path.isfile(p) and not p.endswith((".json", ".yaml", ".toml", ".pt"))
    )
    return out + extra


_CONFIG_EXT = (".json", ".yaml", ".yml", ".toml", ".sh", ".args")
_NOT_CONFIG = ("trainer_state.json", "tokenizer.json", "vocab.json", "EXPECTED.json")


def preflight_targets(extra: list[str]) -> list[str]:
    roots = [
        os.path.join(ROOT, "sample_runs"),
        os.path.join(ROOT, "tests", "data"),
        "/work/shared/real_logs",
        "/work/shared/real_logs2",
        "/work/shared/corpus_private",
    ]
    files = sorted(
        p
        for r in roots
        for p in glob.glob(os.path.join(r, "**", "*"), recursive=True)
        if os.path.isfile(p)
        and p.endswith(_CONFIG_EXT)
        and os.path.basename(p) not in _NOT_CONFIG
        and os.path.getsize(p) < (1 << 20)
    )
    return files + sorted({os.path.dirname(p) for p in files}) + extra


PREFLIGHT = False


def report(tree: str, path: str) -> tuple[int, str]:
    env = dict(os.environ, PYTHONPATH=tree, NO_COLOR="1")
    args = ["--preflight", path, "--json"] if PREFLIGHT else [path, "--report", "--json"]
    p = subprocess.run(
        [sys.executable, "-m", "tsm_tui", *args], capture_output=True, text=True, env=env, cwd=tree, timeout=600
    )
    out = p.stdout
    try:
        out = json.dumps(json.loads(out), indent=1, sort_keys=True)
    except ValueError:
        out = out + "\nSTDERR:" + p.stderr
    return p.returncode, out


def main() -> int:
    global PREFLIGHT
    ap = argparse.ArgumentParser(
        description="tsm-watch PATH --report --json (or --preflight X --json) from two source trees "
        "on every sample run, real log and extra path; prints the differences. "
        "Exit 0 when every report is identical, 1 otherwise, 2 on wrong arguments."
    )
    ap.add_argument("--preflight", action="store_true", help="pre-flight plans of every config file instead")
    ap.add_argument("tree_a", help="one source tree (e.g. a git worktree of the last commit)")
    ap.add_argument("tree_b", help="the other source tree (e.g. the work tree)")
    ap.add_argument("extra", nargs="*", default=[], help="more paths to report on")
    args = ap.parse_args()
    PREFLIGHT = args.preflight
    a, b, extra = args.tree_a, args.tree_b, args.extra
    bad = 0
    ts = preflight_targets(extra) if PREFLIGHT else targets(extra)
    for t in ts:
        ra, rb = report(a, t), report(b, t)
        if ra != rb:
            bad += 1
            print(f"DIFF {t}: rc {ra[0]} vs {rb[0]}")
            import difflib

            for ln in list(difflib.unified_diff(ra[1].splitlines(), rb[1].splitlines(), lineterm="", n=1))[:40]:
                print("   ", ln)
    print(f"{len(ts) - bad}/{len(ts)} reports identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
