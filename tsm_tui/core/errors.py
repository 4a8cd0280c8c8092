"""Errors that reach the user as one line on stderr, and the exit codes."""

from __future__ import annotations

EXIT_OK, EXIT_CRITICAL, EXIT_USAGE = 0, 1, 2


class InputError(Exception):
    """A problem with what the user pointed us at: exit code 2, one line."""


class UsageError(Exception):
    """A command-line mistake: exit code 2, one line."""
