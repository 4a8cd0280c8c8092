"""Errors that reach the user as one line on stderr, and the exit codes."""

from __future__ import annotations

EXIT_OK, EXIT_CRITICAL, EXIT_USAGE = 0, 1, 2


class InputError(Exception):
    """A problem with what the user pointed us at: exit code 2, one line."""


class UsageError(Exception):
    """A command-line mistake: exit code 2, one line."""


def error_line(e: BaseException) -> str:
    """The one line the command line prints on stderr for an error (the MCP server's
    tool errors say the same)."""
    if isinstance(e, UsageError):
        return f"tsm-watch: {e} (see tsm-watch --help)"
    if isinstance(e, InputError):
        return f"tsm-watch: {e}"
    return f"tsm-watch: internal error: {type(e).__name__}: {e} (rerun with --debug for details)"
