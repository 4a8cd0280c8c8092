"""The Textual live monitor (``tsm-watch run_dir/``, ``--replay``, ``--demo``)."""

from __future__ import annotations

from tsm_tui.core.options import Options
from tsm_tui.views.tui.app import TsmApp


def run_app(opts: Options, demo: str | None = None) -> int:
    """Open the run (errors raise ``InputError`` before the screen starts) and run the app."""
    app = TsmApp.from_options(opts, demo=demo)
    exporter = None
    if opts.prom_file or opts.metrics_port is not None:
        from tsm_tui.views import prometheus

        exporter = prometheus.Exporter(opts.prom_file, opts.metrics_port, opts.metrics_host,
                                       run_label=opts.run_label)
        app.exporter = exporter.bound(opts.path, app.root or opts.path)
    try:
        app.run()
    finally:
        if exporter is not None:
            exporter.close()
    return 0 if app.return_code is None else app.return_code


__all__ = ["TsmApp", "run_app"]
