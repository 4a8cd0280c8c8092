"""A command-line flag and the argparse types the flags share.

A ``Flag`` is declared where its value is used: the command line's own flags in
``tsm_tui.cli.FLAGS``, an exporter's flags on its class (``FLAGS``, views/outputs.py),
so a new exporter with a flag is its module and its ``EXPORTERS`` entry. The types'
rules are each written once here with its message: a number is finite, an integer is
read as a number first (1e3, 2.0) and stays below 2^62, a word is one of its choices.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


@dataclass(frozen=True)
class Flag:
    """One command-line flag and where its value goes.

    ``to`` is ``"options.<field>"`` (an ``Options`` field), ``"exports.<key>"`` (a key of
    ``Options.exports``: an exporter's own flag, no ``Options`` field needed),
    ``"settings.<field>"`` (a threshold; its default is the Settings default) or
    ``"info.<field>"`` (a fact about the run that overrides what its files say; origin
    "command line"). ``group``: its section of ``--help`` (``tsm_tui.cli._GROUPS``).
    """

    name: str
    to: str
    help: str
    group: str = "mode"
    type: object = None
    metavar: str | None = None
    store_true: bool = False
    default: object = None


def size(text: str) -> float:
    """125M, 7B, 1.3e9, 0.5M, 4,194,304 -> float."""
    t = text.strip().replace(",", "").replace("_", "")
    mult = 1.0
    if t and t[-1].lower() in _SUFFIX:
        mult = _SUFFIX[t[-1].lower()]
        t = t[:-1]
    try:
        v = float(t) * mult
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r} (e.g. 125M, 7B, 1.3e9)") from None
    return _finite(v, text, "positive")


def _finite(v: float, text: str, what: str) -> float:
    """``v`` (read from ``text``) if finite and ``what`` it must be: "positive" (> 0) or
    "non-negative" (>= 0)."""
    if not ((v > 0 if what == "positive" else v >= 0) and v < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a {what} finite number: {text!r}")
    return v


def _number(text: str, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    return _finite(v, text, what)


def _integer(text: str, least: int, what: str) -> int:
    try:
        v = int(float(text))
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < least or v >= 1 << 62:
        raise argparse.ArgumentTypeError(f"must be a {what} integer below 2^62: {text!r}")
    return v


def choice(text: str, choices: tuple[str, ...]) -> str:
    if text not in choices:
        raise argparse.ArgumentTypeError(f"{text!r}: choose from {', '.join(choices)}")
    return text


def positive_int(text: str) -> int:
    return _integer(text, 1, "positive")


def nonneg_int(text: str) -> int:
    return _integer(text, 0, "non-negative")


def port(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= v <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535 (0: any free port): {text!r}")
    return v


def nonneg_float(text: str) -> float:
    return _number(text, "non-negative")


def positive_float(text: str) -> float:
    return _number(text, "positive")
