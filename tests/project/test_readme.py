"""README's example reports are what the commands print today: every fenced block
introduced by a line "`tsm-watch ARGS` prints ..." is compared with the real output
(up to the sections the README says it cuts), so the examples cannot drift again."""

from __future__ import annotations

import os
import re
import shlex

import pytest

from tsm_tui.cli import main
from helpers import paths

ROOT = paths.ROOT
INTRO = re.compile(r"^`tsm-watch ([^`]+)` prints\b(.*)$")


def examples() -> list[tuple[str, str, str]]:
    """(args, intro, block) for each example report in README.md."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = INTRO.match(line)
        if not m:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        k = j + 1
        while k < len(lines) and not lines[k].startswith("```"):
            k += 1
        out.append((m.group(1), m.group(2), "\n".join(lines[j + 1 : k])))
    return out


def test_readme_has_the_spike_no_recover_example():
    assert any(a == "sample_runs/spike_no_recover --report" for a, _, _ in examples())


@pytest.mark.parametrize("args,intro,block", examples(), ids=[a for a, _, _ in examples()])
def test_readme_example_matches_the_output(args, intro, block, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    main(shlex.split(args))
    got = capsys.readouterr().out
    # the README may cut the sections that follow (it names them: "the `Run:` ... are cut")
    for cut in re.findall(r"`(\w+):`", intro):
        got = got.split(f"\n{cut}:", 1)[0]
    assert got.rstrip("\n") == block.rstrip("\n")
