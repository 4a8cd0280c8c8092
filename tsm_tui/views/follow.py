"""Headless follow: ``tsm-watch RUN --follow [--json] [--on-alert CMD] [--poll S]``.

Tails the run (tsm_tui.sources.tail.Tailer) through the one live loop
(analysis/live_open.py builds it) and feeds each pass to the subscribers the
options ask for (views/outputs.py): every alert printed as it happens, one line
each, flushed at once (views/lines.py: text, or JSON Lines with ``--json``), the
``--on-alert`` pages (views/pages.py), the Prometheus metrics (``--prom-file`` /
``--metrics-port``, views/prometheus.py); until SIGINT / SIGTERM (exit 0).

Every event names its run (``"run"``); so does the ``--on-alert`` JSON. A run's
per-rank files feed its ranks check live (NaN on one rank, a diverging rank, a
straggler), printed like any other check's alerts.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from tsm_tui.analysis.live_open import open_loop
from tsm_tui.core.errors import EXIT_OK, EXIT_USAGE
from tsm_tui.core.options import Options
from tsm_tui.core.sanitize import message
from tsm_tui.sources.tail import Tailer
from tsm_tui.views import outputs
from tsm_tui.views.lines import Printer

TICK = 1.0  # longest sleep between drains (the tailer wakes the loop when data arrive; LiveLoop.wait
#            wakes it sooner for a status, a stat fallback or held records that are due)


def main(opts: Options) -> int:
    assert opts.path is not None  # (cli.main: PATH is required)
    outs = outputs.build(opts, "follow", os.path.abspath(opts.path))
    printer = outs.get(Printer)
    tailer = Tailer(opts.path, poll=opts.poll)
    loop = open_loop(opts, tailer)

    stop = threading.Event()

    def _on_signal(signum, frame):
        stop.set()
        tailer.ready.set()

    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # not the main thread
            pass

    rc = EXIT_OK
    try:
        printer.source(tailer.describe())
        outs.start(loop, printer.source)
        loop.start()
        while not stop.is_set():
            up = loop.step()
            outs.update(up, loop)
            if up.error:
                printer.source(f"the tailer stopped: {up.error}")
                print(message(f"tsm-watch: reading the run stopped: {up.error}"), file=sys.stderr)
                rc = EXIT_USAGE
                break
            loop.wait(TICK)
    finally:
        loop.stop()
        for sig, h in old.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass
        outs.close()
    return rc
