"""Megatron-style argument lists: a launch script or a text file of ``--name value``
options (``--num-layers 24 --bf16 --lr=3e-4``) read as a mapping.

Linear in what it reads and in what it builds:

* shell variables assigned in the text (``GBS=512`` ... ``$GBS``) are substituted
  with the output's length summed before it is built: past MAX_SUBSTITUTED
  added characters the file is refused (ArgListBound), never built (``A=x...`` then
  ``$A$A...`` 20,000 times hung, 200,000 times was a MemoryError); values are not
  expanded again (no ``$A`` inside ``A=...``), so one pass is the whole cost;
* the tokeniser is one regex pass over each line, pieces appended to a list
  (``shlex`` added a token one character at a time: a 1 MiB token took 12-25 s,
  4 MiB hung); quoting as ``shlex.split(line, comments=True)`` does it, which it
  replaces: single quotes literal, double quotes with ``\\"`` and ``\\\\``
  escapes, a backslash escaping the next character, ``#`` starting a comment,
  and a line it cannot tokenise (an open quote) split on white space;
* at most MAX_PIECES pieces of words are read (past it: refused).
"""

from __future__ import annotations

import re

from tsm_tui.core.numbers import num

#: the most text substitution may build from one file (ours: the bound on a config
#: file's own size, sources/config_load.MAX_CONFIG_BYTES; real launch scripts
#: substitute a few hundred bytes)
MAX_SUBSTITUTED = 4 << 20
#: pieces of words (a word, a quoted part, an escape, a gap) in one argument list's
#: option lines (ours: Megatron-LM has ~600 arguments, a launch script a few
#: thousand words); each costs a step of the tokeniser's loop
MAX_PIECES = 200_000


class ArgListBound(ValueError):
    """An argument list refused by a bound (the message says which and where)."""


# within one line ([ \t], [^"\n]): "^\s*" ran over every following blank line from
# each line start (40k blank lines: 38 s)
_ASSIGN = re.compile(
    r"^[ \t]*+(?:export[ \t]++)?([A-Za-z_][A-Za-z0-9_]*+)=(\"[^\"\n]*+\"|'[^'\n]*+'|\S*+)[ \t]*+$", re.M
)
_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*+)\}?")
# one piece of a shell word at a time, each alternative possessive (no backtracking)
# (white space is shlex's: space, tab, CR, LF; a no-break space is part of a word)
_PIECE = re.compile(
    r"""([^ \t\r\n'"\\#]++)|'([^']*+)'|"([^"\\]*+(?:\\.[^"\\]*+)*+)"|\\(.)|([ \t\r\n]++)|(\#)|(.)""", re.S
)
_TOO_MANY = f"more than {MAX_PIECES} words or quoted parts (too many for a config)"


def _unescape(double: str) -> str:
    """Inside double quotes shlex unescapes only a quote and a backslash (``\\$``
    stays). The regex matched every backslash with the character after it, so the
    pairs str.split finds from the left are the escapes (a substitution per escape
    took 0.9 s on 4 MiB)."""
    return "\\".join(p.replace('\\"', '"') for p in double.split("\\\\"))


def split_words(line: str, left: list[int] | None = None) -> list[str]:
    """``shlex.split(line, comments=True)`` in one linear pass; a line with an open
    quote or a trailing backslash is split on white space (as the caller did when
    shlex raised). ``left``: ``[pieces the caller still accepts]``, decreased
    here; past it ArgListBound."""
    if left is None:
        left = [MAX_PIECES]
    words: list[str] = []
    cur: list[str] = []
    started = False
    for m in _PIECE.finditer(line):
        left[0] -= 1
        if left[0] < 0:
            raise ArgListBound(_TOO_MANY)
        plain, single, double, escaped, space, comment, stray = m.groups()
        if plain is not None:
            cur.append(plain)
        elif single is not None:
            cur.append(single)
        elif double is not None:
            cur.append(_unescape(double) if "\\" in double else double)
        elif escaped is not None:
            cur.append(escaped)
        elif space is not None:
            if started:
                words.append("".join(cur))
                cur, started = [], False
            continue
        elif comment is not None:
            break
        else:  # an open quote or a trailing backslash
            words = line.split(None, max(left[0], 0))  # (at most left + 1 words built)
            left[0] -= len(words)
            if left[0] < 0:
                raise ArgListBound(_TOO_MANY)
            return words
        started = True
    if started:
        words.append("".join(cur))
    return words


def parse_arg_list(text: str) -> dict | None:
    """``--num-layers 24 --bf16 --lr=3e-4`` (a launch script or a text file) -> mapping.

    Shell variables assigned in the same text (``GBS=512`` ... ``$GBS``) are
    substituted; ``\\`` line continuations and ``#`` comments are handled.
    None when fewer than two ``--name`` options are found. Raises ArgListBound
    when substitution would add more than MAX_SUBSTITUTED characters or the
    option lines hold more than MAX_PIECES pieces of words.
    """
    env = {m.group(1): m.group(2).strip("\"'") for m in _ASSIGN.finditer(text)}
    budget = MAX_SUBSTITUTED

    def subst(s: str) -> str:
        nonlocal budget
        if not env:
            return s
        grow = 0
        for m in _VAR.finditer(s):  # the length first: nothing is built past the bound
            v = env.get(m.group(1))
            if v is not None:
                grow += len(v) - len(m.group(0))
        if grow > budget:
            raise ArgListBound(f"shell variables expand to more than {MAX_SUBSTITUTED >> 20} MiB (refused, not built)")
        budget -= max(grow, 0)
        return _VAR.sub(lambda m: env.get(m.group(1), m.group(0)), s) if env else s

    body = text.replace("\\\r\n", " ").replace("\\\n", " ")
    out: dict = {}
    words = [MAX_PIECES]
    for line in body.splitlines():
        if "--" not in line:
            continue
        toks = split_words(subst(line), words)
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.startswith("--") and len(t) > 2:
                name, eq, val = t[2:].partition("=")
                name = name.replace("-", "_").lower()
                if eq:
                    out[name] = _scalar(val)
                elif i + 1 < len(toks) and not toks[i + 1].startswith("--"):
                    out[name] = _scalar(toks[i + 1])
                    i += 1
                else:
                    out[name] = True
            i += 1
    return out if len(out) >= 2 else None


_INT = re.compile(r"[+-]?\d++")


def _scalar(s: str):
    x = num(s)
    if x is not None:
        return int(x) if _INT.fullmatch(s.strip()) else x
    b = s.strip().lower()
    if b in ("true", "false"):
        return b == "true"
    return s
