"""What an exporter is: a subscriber of the one live loop (views/outputs.py lists them and
builds the ones the options ask for). Everything the command line needs of an exporter is
declared on its class, so the command line names none of them:

- ``FLAGS``: its command-line flags (``core.flags.Flag`` rows);
- ``check(opts, view)``: its flags' usage rules, before anything is read (raise
  ``UsageError``; ``view`` is what the options ask for: ``"preflight"``, ``"follow"``,
  ``"report"`` or ``"tui"``);
- ``wanted(opts, view)`` / ``from_options(opts, root)``: asked for in a live view
  (``"follow"``, ``"tui"``) and made; then ``start(loop, say)``, ``update(up, loop)`` with
  every ``LiveUpdate``, ``close()``;
- ``for_report(opts, root)``: what it does for ``--report`` (a ``ReportHook``), or None.
"""

from __future__ import annotations

from typing import Any

from tsm_tui.core.flags import Flag


class ReportHook:
    """An exporter's part in ``--report``: fed by the replay of every run (``analyze_runs``'s
    ``on_batch`` / ``on_run``), closed after the last. Made before the runs are read, so its
    own errors (a directory it cannot write) come first."""

    def batch(self, run, source: str, items: list, reader) -> None:
        """A batch of a run's records (``run``: its ``RunSpec``)."""

    def finished(self, an) -> None:
        """A run read to its end (an ``Analysis``, before it is compacted)."""

    def close(self) -> None:
        pass


class Subscriber:
    """The base of the live loop's subscribers (the exporters): nothing asked, no flags."""

    #: its command-line flags (the command line adds them to its parser and fills ``Options``
    #: from them: an ``Options`` field, or ``Flag(..., "exports.<key>")``: ``opts.exports[key]``)
    FLAGS: tuple[Flag, ...] = ()

    @classmethod
    def check(cls, opts, view: str) -> None:
        """Its flags' usage rules (raise ``UsageError``); ``view``: see the module."""

    @classmethod
    def wanted(cls, opts, view: str) -> bool:
        return False

    @classmethod
    def from_options(cls, opts, root: str) -> Any:
        raise NotImplementedError

    @classmethod
    def for_report(cls, opts, root: str) -> ReportHook | None:
        """Its part in ``--report`` on ``opts.path`` (``root``: the directory of the runs), or None."""
        return None

    def start(self, loop, say) -> None:
        pass

    def update(self, up, loop) -> None:
        pass

    def close(self) -> None:
        pass
