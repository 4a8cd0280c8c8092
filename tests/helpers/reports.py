"""A run's JSON report through the command line, as a user gets it (``tsm-watch PATH --report --json``)."""

from __future__ import annotations

import json

from tsm_tui.cli import main


def report_json(path, capsys) -> dict:
    """The JSON report of ``path`` (exit 0 or 1 asserted, stderr shown when it is not)."""
    rc = main([str(path), "--report", "--json"])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    return json.loads(out)
