"""The layers hold: import-linter's contracts (pyproject.toml), no import cycle
between modules, and every non-view module importable on its own without the
UI libraries (a fresh interpreter per module, so hidden cycles that only bite
in some import order show up)."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grimp
import pytest
from helpers import paths

ROOT = Path(paths.ROOT)
UI_FREE = ("tsm_tui.core", "tsm_tui.sources", "tsm_tui.analysis", "tsm_tui.preflight")


def test_import_linter_contracts():
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "importlinter.cli"]
    p = subprocess.run(
        cmd + ["--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "2 kept, 0 broken" in p.stdout


def _graph():
    return grimp.build_graph("tsm_tui", include_external_packages=False)


def test_no_import_cycles():
    g = _graph()
    mods = sorted(g.modules)
    edges = {m: {d for d in g.find_modules_directly_imported_by(m) if d in g.modules} for m in mods}
    # Tarjan's strongly connected components
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for m in mods:
        if m not in index:
            visit(m)
    assert not cycles, cycles


def _ui_free_modules() -> list[str]:
    g = _graph()
    return sorted(m for m in g.modules if m.startswith(UI_FREE))


@pytest.mark.slow
def test_every_non_view_module_imports_alone_without_the_ui():
    mods = _ui_free_modules()
    assert len(mods) > 40  # the walk found the package
    code = (
        "import sys\n"
        "for name in ('textual', 'plotext', 'rich'):\n"
        "    sys.modules[name] = None  # importing them raises ImportError\n"
        "import importlib; importlib.import_module(sys.argv[1])\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def one(m: str):
        p = subprocess.run([sys.executable, "-c", code, m], capture_output=True, text=True, env=env, timeout=120)
        return m, p.returncode, p.stderr[-800:]

    with ThreadPoolExecutor(max_workers=4) as ex:
        bad = [(m, err) for m, rc, err in ex.map(one, mods) if rc != 0]
    assert not bad, bad


def test_the_views_read_a_monitor_through_its_read_api():
    """A view (and the command line) reads what a Monitor observed of the run through its read
    API (``first_step``, ``last_step``, ``planned_steps``, ``resumes``, ``saves``, ``info``), never
    its ``state``: that RunState is the detectors' shared state, free to change with them."""
    import ast

    found = []
    for path in sorted([*(ROOT / "tsm_tui" / "views").rglob("*.py"), ROOT / "tsm_tui" / "cli.py"]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "state":
                if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert found == []
