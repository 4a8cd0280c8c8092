"""The Textual live monitor (``tsm-watch run_dir/``, ``--replay``, ``--demo``)."""

from __future__ import annotations

from tsm_tui.app.main import TsmApp, make_feed


def run_app(args) -> int:
    """Open the run (errors raise ``engine.InputError`` before the screen starts) and run the app."""
    app = TsmApp.from_args(args)
    app.run()
    return 0 if app.return_code is None else app.return_code


__all__ = ["TsmApp", "run_app", "make_feed"]
