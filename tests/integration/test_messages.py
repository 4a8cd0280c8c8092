"""Messages that name a path reach the terminal clean (issue 33 item 6): a file or
directory named with OSC 52 (clipboard write), OSC 0 (window title), CSI 2J (clear
screen) and a bidi override, through the CLI in a subprocess, in every error the
CLI prints for a path, a config, a --prom-file, a --follow target."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers.follow import record, write_lines
from tsm_tui.core.sanitize import message
from helpers import paths

ROOT = paths.ROOT
EVIL = "cfg\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07\x1b[2J\u202egpj\x9b31m"
BAD = ("\x1b", "\x07", "\u202e", "\x9b")  # (the text "]52;" left without its ESC is inert)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tsm_tui", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1"),
        timeout=60,
        errors="surrogateescape",
    )


def clean_one_line(p: subprocess.CompletedProcess, *words: str) -> str:
    err = p.stderr
    assert p.returncode == 2, (p.returncode, err)
    assert err.count("\n") == 1 and err.startswith("tsm-watch: "), repr(err)
    assert not any(b in err for b in BAD), repr(err)
    assert "Traceback" not in err
    for w in words:
        assert w in err, (w, err)
    return err


def test_a_yaml_config_with_a_hostile_name(tmp_path):
    bad = tmp_path / f"{EVIL}.yaml"
    bad.write_text("model: {n_layer: [unclosed\n")
    clean_one_line(cli("--preflight", str(bad)), "cannot parse", "as YAML", "cfggpj.yaml")  # (what is left of the name)


def test_a_config_given_with_config_that_holds_nothing(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    write_lines(run / "metrics.jsonl", [record(s) for s in range(1, 50)], "w")
    cfg = tmp_path / f"{EVIL}.yaml"
    cfg.write_text("{}\n")  # a mapping with nothing in it: an input error (a list is named and ignored)
    clean_one_line(cli(str(run), "--report", "--config", str(cfg)), "cannot read config", "cfggpj.yaml")


@pytest.mark.parametrize(
    "args",
    [
        ("{d}/gone{evil}", "--report"),  # no such file or directory
        ("{d}/gone{evil}/run", "--follow"),  # ... nor its parent directory
        ("{empty}", "--report"),  # no log files found in
        ("{d}", "--report", "--prom-file", "{d}/{evil}/x.prom"),  # --prom-file: no such directory
        ("{d}", "--preflight", "--config", "{d}/{evil}.toml"),  # no such config file
        ("--window", "{evil}", "{d}"),  # argparse: not an integer
    ],
)
def test_every_error_naming_a_path_is_clean(tmp_path, args):
    empty = tmp_path / EVIL
    empty.mkdir()
    (empty / "notes.txt").write_text("nothing here\n")
    got = [a.format(d=tmp_path, evil=EVIL, empty=empty) for a in args]
    clean_one_line(cli(*got))


def test_a_watched_file_with_a_hostile_name_in_follow_notes(tmp_path, follow):  # noqa: F811
    """--follow's notes (text mode, stderr) name the files they are about."""
    run = tmp_path / "run"
    run.mkdir()
    log = run / f"{EVIL}.jsonl"
    write_lines(log, [record(s) for s in range(1, 60)], "w")
    f = follow(run)
    assert f.wait_for(lambda: any("nonfinite: SKIP -> PASS" in x for x in f.err), timeout=30), f.err  # history read
    write_lines(log, [record(s) for s in range(1, 5)], "w")  # truncated: a note naming the file
    assert f.wait_for(lambda: any("truncated" in x or "rewritten" in x for x in f.err)), f.err
    assert f.stop() == 0
    note = next(x for x in f.err if "truncated" in x or "rewritten" in x)
    assert "cfggpj.jsonl" in note
    assert not any(b in x for x in f.err for b in BAD), f.err


def test_the_cleaner_keeps_the_text_and_drops_the_sequences():
    assert message(f"tsm-watch: cannot read {EVIL}.yaml") == "tsm-watch: cannot read cfggpj.yaml"
    assert message("a\x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\r\nd\te\u202ef\x9b31mg") == "abc d efg"
    assert message("x" * 5000).endswith("…") and len(message("x" * 5000)) == 4096
