"""Where the one live loop is built: ``--follow``, the TUI and the MCP server's
``watch`` all take their ``LiveLoop`` from here (analysis/live.py runs it).

``open_loop(opts, feed)``: what the path is, followed: one run (its files, configs,
checkpoints and per-rank logs), or every run under a directory that holds several
(or none yet: runs appear as they start), or a log file that does not exist yet.
``one_run`` / ``many_runs``: the same two loops for runs a view opened already (the
TUI replays their readers); ``session_loop``: one run's loop on a Session made already.
"""

from __future__ import annotations

import os
import time

from tsm_tui.analysis.run_open import Run, open_runs
from tsm_tui.analysis.live import CHECKS_EVERY, LiveLoop
from tsm_tui.analysis.session import Session
from tsm_tui.core.errors import InputError
from tsm_tui.core.options import Options
from tsm_tui.sources.feed import Feed
from tsm_tui.sources.runfiles import RunFiles


def polling(feed: Feed) -> bool:
    """The feed polls (no file-system events): side files are stat-checked sooner."""
    return getattr(feed, "poll_interval", None) is not None


def one_run(
    run: Run,
    opts: Options,
    feed: Feed,
    *,
    name: str | None = None,
    files: bool = True,
    clock=time.monotonic,
    checks_every: float = CHECKS_EVERY,
) -> LiveLoop:
    """The loop of one opened run: its Session (the run's plan, its checkpoints), its side
    files (re-read when they change; ``files=False``: a replay, nothing changes) and its
    per-rank logs (the ranks check). ``name``: the run's name in the loop's updates."""
    return LiveLoop(
        Session(opts.settings, run.info),
        feed,
        run.files_of if files else None,
        polling=polling(feed),
        clock=clock,
        name=run.name if name is None else name,
        ranks=run.ranks,
        checks_every=checks_every,
    )


def session_loop(
    session: Session,
    feed: Feed,
    files: RunFiles | None = None,
    *,
    name: str = "",
    clock=time.monotonic,
    checks_every: float = CHECKS_EVERY,
) -> LiveLoop:
    """The loop of one run whose Session is made already: a log file not written yet, or a
    view given a Session (the TUI's ``TsmApp.for_session``: tests, bench/run.py); its side
    ``files`` re-read when they change (None: a replay, nothing changes)."""
    return LiveLoop(session, feed, files, polling=polling(feed), clock=clock, name=name, checks_every=checks_every)


def many_runs(
    opts: Options,
    feed: Feed,
    top: str,
    known: list[Run] | None = None,
    *,
    clock=time.monotonic,
    checks_every: float = CHECKS_EVERY,
) -> LiveLoop:
    """The loop of every run under ``top`` (``known``: those opened already)."""
    return LiveLoop.many(
        feed,
        top,
        opts.settings,
        opts.info,
        opts.config,
        polling=polling(feed),
        clock=clock,
        known=known,
        checks_every=checks_every,
    )


def open_loop(opts: Options, feed: Feed) -> LiveLoop:
    """What ``opts.path`` is, followed through ``feed`` (a Tailer of that path)."""
    path = os.path.abspath(opts.path or "")
    if os.path.exists(path):
        runs = open_runs(path, opts.info, opts.config, allow_empty=True, only=opts.run)
        if len(runs) == 1 and (runs[0].readers or not os.path.isdir(path)):
            return one_run(runs[0], opts, feed)
        return many_runs(opts, feed, path, known=runs)
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise InputError(f"no such file or directory: {opts.path} (nor its parent directory)")
    if os.path.splitext(path)[1]:  # a log file that does not exist yet
        files = RunFiles(parent, opts.info, opts.config)
        info, _ = files.read_info()
        return session_loop(Session(opts.settings, info), feed, files, name=os.path.basename(path))
    return many_runs(opts, feed, path)


def caught_up(loop: LiveLoop) -> bool:
    """The history present at the start has been read (the feed says so; a replay
    has no such moment: always)."""
    ev = getattr(loop.feed, "caught_up", None)
    return ev is None or ev.is_set()
