"""The Textual live monitor (``tsm-watch run_dir/``, ``--replay``, ``--demo``)."""

from __future__ import annotations

from tsm_tui.core.options import Options
from tsm_tui.views import outputs
from tsm_tui.views.tui.app import TsmApp


def run_app(opts: Options, demo: str | None = None) -> int:
    """Open the run (errors raise ``InputError`` before the screen starts) and run the app."""
    app = TsmApp.from_options(opts, demo=demo)
    assert opts.path is not None  # (cli.main: PATH is required)
    outs = outputs.build(opts, "tui", app.root or opts.path)  # the exporters asked for (--prom-file ...)
    app.exporter = outs or None  # the live worker feeds them
    try:
        app.run()
    finally:
        outs.close()
    return 0 if app.return_code is None else app.return_code


__all__ = ["TsmApp", "run_app"]
