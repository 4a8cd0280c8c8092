"""Degeneration metrics of generated text: pure functions, no state.

- seq-rep-n = 1 - |unique n-grams| / |n-grams| within one sample, n = 1..4
  (Welleck et al. 2019, "Neural Text Generation with Unlikelihood Training",
  ``pct_repeat_{n}grams`` in facebookresearch/unlikelihood_training
  custom/metrics.py). GPT-2 greedy continuations score rep-4 ~0.355, nucleus
  sampling ~0.005 (Wikitext-103).
- repeat@k: the share of tokens that already occurred among the k tokens
  before them (Welleck et al.'s rep/l with l = 16, 32, 128, computed here on
  the sample instead of on next-token predictions).
- distinct-n = |unique n-grams| / |n-grams| over a set of samples (Li et al.
  2016), i.e. 1 - the set's rep-n.
- character-class entropy: the entropy (bits) of the share of non-space
  characters in each class (lower, upper, digit, ASCII punctuation, other
  letters, other symbols, controls / U+FFFD). English prose ~0.4 bits,
  uniformly random printable ASCII ~1.9 bits.
- non-word share: the share of whitespace-separated tokens that, without their
  leading / trailing punctuation, do not look like a word or a number (mixed
  classes such as ``x3}q``, Latin runs of 4+ letters without a vowel or longer
  than 30, runs of 4+ symbols).

Tokens are whitespace-separated words with their leading / trailing
punctuation split off. Text with too few of them (CJK, one long run) falls back
to characters as tokens.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MIN_TOKENS = 8  # fewer word tokens than this: characters are the tokens
NEAR_EMPTY_CHARS = 5  # fewer non-space characters than this is "near-empty" (ours)
_TOKEN = re.compile(r"\w+(?:['’\-]\w+)*|[^\w\s]+")
_PUNCT_EDGE = "\"'()[]{}<>.,;:!?`«»“”‘’-–—…"
_VOWELS = set("aeiouyAEIOUY")
_CLASSES = ("lower", "upper", "digit", "punct", "letter", "symbol", "control")


def tokens(text: str) -> tuple[list[str], str]:
    """The sample's tokens and their kind: ``"word"`` or ``"char"`` (fallback)."""
    toks = _TOKEN.findall(text)
    if len(toks) >= MIN_TOKENS:
        return toks, "word"
    chars = [c for c in text if not c.isspace()]
    if len(chars) > len(toks) * 4 and len(chars) >= 16:
        return chars, "char"
    return toks, "word"


def seq_rep(toks: list, n: int) -> float | None:
    """1 - unique n-grams / n-grams; None when the sample has no n-gram."""
    m = len(toks) - n + 1
    if m <= 0:
        return None
    grams = set(tuple(toks[i : i + n]) for i in range(m))
    return 1.0 - len(grams) / m


def repeat_at(toks: list, k: int) -> float | None:
    """Share of tokens (after the first) that occurred in the previous k tokens."""
    if len(toks) < 2:
        return None
    last: dict = {}
    hits = 0
    for i, t in enumerate(toks):
        j = last.get(t)
        if j is not None and i - j <= k:
            hits += 1
        last[t] = i
    return hits / (len(toks) - 1)


def distinct(samples_tokens: list[list], n: int) -> float | None:
    """Unique n-grams / n-grams over a set of samples."""
    grams: set = set()
    total = 0
    for toks in samples_tokens:
        m = len(toks) - n + 1
        if m > 0:
            total += m
            grams.update(tuple(toks[i : i + n]) for i in range(m))
    return len(grams) / total if total else None


def char_class(c: str) -> str:
    if c.isascii():
        if c.islower():
            return "lower"
        if c.isupper():
            return "upper"
        if c.isdigit():
            return "digit"
        if c.isprintable():
            return "punct"
        return "control"
    if c == "\ufffd" or not c.isprintable():
        return "control"
    if c.isalpha():
        return "letter"
    if c.isdigit():
        return "digit"
    return "symbol"


def class_counts(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in text:
        if c.isspace():
            continue
        k = char_class(c)
        out[k] = out.get(k, 0) + 1
    return out


def entropy_bits(counts: dict[str, int]) -> float:
    n = sum(counts.values())
    if not n:
        return 0.0
    return max(0.0, -sum(v / n * math.log2(v / n) for v in counts.values() if v))


def is_word(tok: str) -> bool:
    """Looks like a word, a number or ordinary punctuation."""
    core = tok.strip(_PUNCT_EDGE)
    if not core:
        return len(tok) < 4  # "...", "--" are fine; "#$%&" is not
    if core.isalpha():
        if core.isascii():
            return len(core) <= 30 and (len(core) < 4 or bool(_VOWELS & set(core)))
        return True
    if core.replace(".", "").replace(",", "").isdigit():
        return True
    # hyphenated / apostrophe words, "3rd", "GPT-2", "x86_64"
    return (
        re.fullmatch(r"[^\W_]+(?:['’\-_.][^\W_]+)*", core) is not None
        and sum(ch.isalpha() for ch in core) >= len(core) / 2
    )


def nonword_share(text: str) -> float | None:
    """Share of whitespace-separated tokens that are not word-like."""
    toks = text.split()
    if not toks:
        return None
    return sum(not is_word(t) for t in toks) / len(toks)


@dataclass(slots=True)
class SampleStats:
    """What one generated sample says about the model."""

    length: int  # characters
    chars: int  # non-space characters
    n_tokens: int
    kind: str  # "word" / "char"
    rep: tuple[float | None, float | None, float | None, float | None]  # seq-rep-1..4
    repeat16: float | None
    repeat32: float | None
    repeat128: float | None
    cc_entropy: float  # bits
    nonword: float | None
    classes: dict[str, int]

    @property
    def empty(self) -> bool:
        return self.chars < NEAR_EMPTY_CHARS

    @property
    def rep4(self) -> float | None:
        return self.rep[3]


def analyse(text: str) -> SampleStats:
    toks, kind = tokens(text)
    counts = class_counts(text)
    return SampleStats(
        length=len(text),
        chars=sum(counts.values()),
        n_tokens=len(toks),
        kind=kind,
        rep=tuple(seq_rep(toks, n) for n in (1, 2, 3, 4)),  # type: ignore[arg-type]
        repeat16=repeat_at(toks, 16),
        repeat32=repeat_at(toks, 32),
        repeat128=repeat_at(toks, 128),
        cc_entropy=entropy_bits(counts),
        nonword=nonword_share(text),
        classes=counts,
    )


def class_distance(a: dict[str, int], b: dict[str, int]) -> float:
    """Total variation distance between two character-class distributions (0..1)."""
    na, nb = sum(a.values()), sum(b.values())
    if not na or not nb:
        return 0.0
    return 0.5 * sum(abs(a.get(k, 0) / na - b.get(k, 0) / nb) for k in _CLASSES)
