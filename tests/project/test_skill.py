"""``tsm-watch --print skill``: the SKILL.md an agent reads. Its front matter follows the
Agent Skills format; every command it names runs (RUN, DIR, NAME and CONFIG filled in
with sample runs); every JSON field it names under "Reading the JSON" is in the
output of the command its section is about."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.cli import main
from helpers import paths

ROOT = paths.ROOT
FILL = {
    "RUN": "sample_runs/spike_no_recover",
    "DIR": "sample_runs",
    "NAME": "healthy",
    "CONFIG": "sample_runs/healthy/config.json",
}
FIELD = re.compile(r"^[a-z_][a-z0-9_]*(\[\])?(\.[a-z_][a-z0-9_]*(\[\])?)*$")
FOLLOW_SECONDS = 25  # (the skill says 120; the test stops it sooner)


@pytest.fixture(scope="module")
def skill() -> str:
    p = subprocess.run(
        [sys.executable, "-m", "tsm_tui", "--print", "skill"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert p.returncode == 0 and p.stderr == ""
    return p.stdout


def _front(skill: str) -> dict:
    assert skill.startswith("---\n")
    head, _, _ = skill[4:].partition("\n---\n")
    return yaml.safe_load(head)


def test_front_matter(skill):
    fm = _front(skill)
    assert set(fm) == {"name", "description"}
    # Agent Skills: name = the folder's name, lower case and hyphens, <= 64; description <= 1024
    assert fm["name"] == "training-stability-monitor" and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", fm["name"])
    assert len(fm["description"]) <= 1024
    for words in (
        "loss spikes",
        "divergence",
        "exploding or vanishing gradients",
        "collapsed",
        "pre-flight",
        "read-only",
        "Use when",
    ):
        assert words in fm["description"]


def test_body_says_read_only_exit_codes_and_every_check(skill):
    assert "read-only" in skill and "never modifies the run" in skill
    for code in ("- `0`: ", "- `1`: ", "- `2`: "):
        assert code in skill
    for d in DETECTORS:  # from the registry: a new check is listed without a word in skill.py
        assert f'`"{d.id}"`' in skill


def _commands(skill: str) -> list[str]:
    cmds, inside = [], False
    for line in skill.splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        if inside and re.match(r"^(timeout \d+ )?tsm-watch ", line):
            cmds.append(line)
    return cmds


def _argv(cmd: str) -> list[str]:
    args = [FILL.get(a, a) for a in shlex.split(cmd)]
    i = args.index("tsm-watch")
    return args[:i] + [sys.executable, "-m", "tsm_tui"] + args[i + 1 :]


def _execute(cmd: str) -> tuple[int, str]:
    argv = _argv(cmd)
    if argv[0] == "timeout":
        if shutil.which("timeout") is None:
            pytest.skip("no timeout(1) on this machine")
        argv[1] = str(FOLLOW_SECONDS)
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout


def test_the_skill_names_every_way_in(skill):
    cmds = _commands(skill)
    flags = {a for c in cmds for a in shlex.split(c)}
    for need in ("--report", "--json", "--follow", "--preflight", "--run", "DIR", "--format"):
        assert need in flags
    assert len(cmds) >= 8


@pytest.mark.slow
def test_every_command_the_skill_names_works(skill):
    for cmd in _commands(skill):
        code, out = _execute(cmd)
        if cmd.startswith("timeout "):
            assert code == 124, cmd  # stopped by timeout(1), as the skill says
            events = [json.loads(ln) for ln in out.splitlines()]
            assert events and {"alert", "source"} <= {e["event"] for e in events}
            continue
        assert code in (0, 1), (cmd, code)  # 1: a check FAILed (spike_no_recover does)
        if "--json" in cmd:
            assert json.loads(out)["schema"] == 1
        elif "github" in cmd:
            assert out.startswith("::error ")
        elif "sarif" in cmd:
            assert json.loads(out)["version"] == "2.1.0"
        else:
            assert out.startswith("=== Training Stability Report ===")


def _has(obj, path: str) -> bool:
    """The field exists somewhere along ``path`` (``a[].b``: in some element of list ``a``)."""
    head, _, rest = path.partition(".")
    many = head.endswith("[]")
    key = head[:-2] if many else head
    if not isinstance(obj, dict) or key not in obj:
        return False
    val = obj[key]
    if many:
        if not isinstance(val, list):
            return False
        return any(_has({"x": v}, "x" + ("." + rest if rest else "")) for v in val) if rest else bool(val)
    return _has(val, rest) if rest else True


def _sections(skill: str) -> list[tuple[str, list[str]]]:
    """(command, field paths) of each "### `command`" under "## Reading the JSON" (and the
    fields named after it, which read the single-run report)."""
    body = skill[skill.index("## Reading the JSON") :]
    out: list[tuple[str, list[str]]] = []
    cmd = None
    for line in body.splitlines():
        m = re.match(r"^### `(.+)`$", line)
        if m:
            cmd = m[1]
            out.append((cmd, []))
            continue
        if line.startswith("## How to answer"):
            out.append(("tsm-watch RUN --report --json", []))
        for tok in re.findall(r"`([^`]+)`", line):
            if out and FIELD.match(tok) and tok not in ("null", "true", "false"):
                out[-1][1].append(tok)
    return out


@pytest.mark.slow
def test_every_json_field_the_skill_names_exists(skill):
    sections = _sections(skill)
    assert [c for c, _ in sections][:4] == [
        "tsm-watch RUN --report --json",
        "tsm-watch DIR --report --json",
        "timeout 120 tsm-watch RUN --follow --json",
        "tsm-watch --preflight CONFIG --json",
    ]
    checked = 0
    for cmd, fields in sections:
        code, out = _execute(cmd)
        docs = [json.loads(ln) for ln in out.splitlines()] if "--follow" in cmd else [json.loads(out)]
        for f in fields:
            assert any(_has(d, f) for d in docs), f"{cmd}: {f}"
            checked += 1
    assert checked >= 40


def test_print_skill_in_process(capsys):
    assert main(["--print", "skill"]) == 0
    assert capsys.readouterr().out.startswith("---\nname: training-stability-monitor\n")
