"""A run's JSON report through the command line, as a user gets it (``tsm-watch PATH --report --json``)."""

from __future__ import annotations

import json

from tsm_tui.cli import main


def report_rc(path, capsys) -> tuple[int, dict | None, str]:
    """Exit code, the JSON report (None unless the exit code is 0 or 1) and stderr of ``path``."""
    rc = main([str(path), "--report", "--json"])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc in (0, 1) else None), err


def report_or_err(path, capsys) -> tuple[int, dict | str]:
    """Exit code and the JSON report, or stderr when the exit code is neither 0 nor 1."""
    rc, rep, err = report_rc(path, capsys)
    return rc, (rep if rep is not None else err)


def report_json(path, capsys) -> dict:
    """The JSON report of ``path`` (exit 0 or 1 asserted, stderr shown when it is not)."""
    rc, rep, err = report_rc(path, capsys)
    assert rep is not None, err
    return rep
