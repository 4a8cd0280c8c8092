"""The Textual live monitor (``tsm-watch run_dir/``, ``--replay``, ``--demo``)."""

from __future__ import annotations

from tsm_tui.core.options import Options
from tsm_tui.views.tui.app import TsmApp


def run_app(opts: Options, demo: str | None = None) -> int:
    """Open the run (errors raise ``InputError`` before the screen starts) and run the app."""
    app = TsmApp.from_options(opts, demo=demo)
    outs = None
    if opts.prom_file or opts.metrics_port is not None:  # (imported only when asked for)
        from tsm_tui.views import outputs

        assert opts.path is not None  # (cli.main: PATH is required)
        outs = outputs.build(opts, "tui", app.root or opts.path)  # the live worker feeds it
        app.exporter = outs or None
    try:
        app.run()
    finally:
        if outs is not None:
            outs.close()
    return 0 if app.return_code is None else app.return_code


__all__ = ["TsmApp", "run_app"]
