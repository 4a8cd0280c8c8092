"""Make untrusted log text safe to show in a terminal.

Textual's ``Log`` / ``RichLog`` pass ESC through (textual#3506), so anything
read from a log goes through :func:`clean` first: keep the last ``\\r``
segment (tqdm redraws), drop CSI / OSC / DCS / other escape sequences, drop
the remaining C0 (but tab) and C1 controls, and cap the length. Markup is a
separate concern: the views never interpret log text as markup.
"""

from __future__ import annotations

import re

MAX_LEN = 4096

_ESC_SEQ = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]          # CSI ... final byte
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?  # OSC ... BEL or ST (or unterminated)
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?    # DCS / SOS / PM / APC ... ST
  | \x1b[@-Z\\-_]                    # other two-byte escapes (Fe)
  | \x1b.?                           # lone ESC (+ one char)
  | \x9b[0-?]*[ -/]*[@-~]            # 8-bit CSI
  | [\x90\x98\x9d\x9e\x9f][^\x9c\x07]*[\x9c\x07]?  # 8-bit DCS/SOS/OSC/PM/APC
    """,
    re.VERBOSE,
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# what no output may carry, whatever built it: C1 controls (0x9B is CSI on many
# terminals), bidi controls (U+202E turns "gpj.exe" around: Trojan Source,
# CVE-2021-42574) and lone surrogates (a non-UTF-8 file name decoded with
# surrogateescape: written back raw they are C1 bytes again, and with
# PYTHONIOENCODING=utf-8 they are a UnicodeEncodeError)
_UNSAFE = re.compile("[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _repl(m: re.Match) -> str:
    return "\ufffd" if "\ud800" <= m.group() <= "\udfff" else ""


def terminal_safe(text: str) -> str:
    """A whole output (report, alert line) with C1 and bidi controls removed and
    undecodable bytes shown as U+FFFD. Colour sequences the views add (ESC ...)
    are kept: untrusted text inside went through :func:`clean` already."""
    if text.isascii():
        return text
    return _UNSAFE.sub(_repl, text)


def json_safe(text: str) -> str:
    """JSON text made with ``ensure_ascii=False``: the same characters as
    ``\\uXXXX`` escapes (they only occur inside strings), so the data is kept
    and nothing reaches a terminal raw."""
    if text.isascii():
        return text
    return _UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def strip_ansi(text: str) -> str:
    """Remove escape sequences only (keeps the text of the line)."""
    if "\x1b" not in text and (text.isascii() or ("\x9b" not in text and "\x9d" not in text and "\x90" not in text)):
        return text  # (isascii is O(1) on a str: an ASCII line costs one scan, every line read goes through here)
    return _ESC_SEQ.sub("", text)


def message(text: str, max_len: int = MAX_LEN) -> str:
    """One line for the terminal that names things we do not control (a path, a
    file name, a config's key): escape sequences (OSC 52 clipboard writes, OSC 0
    window titles, CSI 2J ...) and control characters removed, line breaks as
    spaces, C1 / bidi controls gone, undecodable bytes as U+FFFD, bounded. Every
    error and note the CLI prints goes through it (``cli.main``, the views' own
    warnings): unlike :func:`clean` it keeps every ``\r`` segment (a path is
    not a tqdm redraw)."""
    text = strip_ansi(text)
    text = _CONTROLS.sub("", text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " "))
    if not text.isascii():
        text = _UNSAFE.sub(_repl, text)
    if len(text) > max_len:
        text = text[: max_len - 1] + "…"
    return text


def clean(text: str, max_len: int = MAX_LEN) -> str:
    """Text safe to print: no escape sequences, no control characters, bounded."""
    if "\r" in text:
        parts = [p for p in text.split("\r") if p.strip()]
        text = parts[-1] if parts else ""
    text = strip_ansi(text)
    text = _CONTROLS.sub("", text.replace("\n", " ").replace("\t", " "))
    if not text.isascii():
        text = _UNSAFE.sub(_repl, text)
    if len(text) > max_len:
        text = text[: max_len - 1] + "…"
    return text
