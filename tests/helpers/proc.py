"""A child process's stdout and stderr, read line by line as they come by two daemon threads (a
pipe nobody reads fills and blocks the child)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import IO

from helpers.paths import ROOT


class Output:
    """``out`` and ``err``: the lines (without their newline) read so far from ``p``'s pipes."""

    def __init__(self, p: subprocess.Popen) -> None:
        self.p = p
        self.out: list[str] = []
        self.err: list[str] = []
        self._threads = [
            threading.Thread(target=self._pump, args=(s, into), daemon=True)
            for s, into in ((p.stdout, self.out), (p.stderr, self.err))
            if s is not None
        ]
        for t in self._threads:
            t.start()

    @staticmethod
    def _pump(stream: IO[str], into: list[str]) -> None:
        for ln in stream:
            into.append(ln.rstrip("\n"))

    def join(self, timeout: float = 2.0) -> None:
        for t in self._threads:
            t.join(timeout)


def spawn(argv: list[str], env: dict | None = None, root: str = ROOT) -> Output:
    """``argv`` run from the checkout ``root`` (its ``tsm_tui`` first on the path), no colour, text
    pipes, its output collected."""
    e = dict(os.environ, PYTHONPATH=root, NO_COLOR="1")
    e.update(env or {})
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=root)
    return Output(p)


def tsm_watch(*args: object, env: dict | None = None, root: str = ROOT) -> Output:
    """``python -m tsm_tui ARGS``."""
    return spawn([sys.executable, "-m", "tsm_tui", *map(str, args)], env, root)


def stop(o: Output, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int:
    """Signal the child (if it still runs), wait for it (killed after ``timeout``), join the readers."""
    p = o.p
    if p.poll() is None:
        p.send_signal(sig)
    try:
        rc = p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    o.join()
    return rc
