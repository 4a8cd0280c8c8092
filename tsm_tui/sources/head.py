"""What a file's first bytes are, for sniffing: a head of lines, read the way real logs come.

- **A hole of NUL bytes** (copy-truncate rotation while the writer keeps its offset; a
  crash with pre-allocated blocks) is not a binary file: NUL runs are dropped (sparse
  holes are jumped with ``SEEK_DATA``) and the rest is judged on its own. A file is
  binary when what is left has control bytes or invalid UTF-8 in more than 1% of it
  (TensorBoard records, SQLite pages; ours).
- **Long lines**: the head grows until it holds two complete lines (up to
  ``LONG_HEAD``), so a JSONL file whose lines are all over 64 KiB still sniffs.
- **Terminal escape sequences** (ANSI colours in a ``| tee`` capture) are removed from
  every head line with ``core.sanitize.strip_ansi``, as ``sources.lines.decode_line``
  does for the lines the readers are fed: sniffers and parsers see the same text.
- **UTF-16 / UTF-32 text** (PowerShell's ``>`` and ``Tee-Object`` write UTF-16 LE with a
  BOM): a file that starts with a UTF-16 / UTF-32 byte-order mark, or whose first bytes are
  ASCII text with every other byte NUL (UTF-16 LE without a BOM), is decoded as such
  (``wide_encoding``), never called binary for its NUL bytes; the line readers get it
  transcoded to UTF-8 (``sources.lines.LineSplitter``).
- **Metrics that start late** (pip output, echoed code, an argument dump, NCCL chatter):
  when nothing in the head is recognised, ``deep_lines`` scans on in bounded windows
  (up to ``DEEP_BYTES``) and hands the sniffers only the lines that carry a metric-ish
  word. A small file costs nothing extra: its head is the whole file.
"""

from __future__ import annotations

import re

import codecs
import os
from dataclasses import dataclass

from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.segments import GZIP_FAULTS, open_segment, segment_fault
from tsm_tui.core.sanitize import strip_ansi

HEAD_BYTES = 64 * 1024
LONG_HEAD = 3 << 20  # a head with < 2 complete lines grows up to this (lines up to 1 MiB are read)
DEEP_BYTES = 8 << 20  # how far into a file nothing-recognised-yet is searched (ours)
DEEP_WINDOW = 256 << 10
DEEP_LINES = 400  # candidate lines taken from one window
DEEP_MAX_LINES = 4000  # candidate lines sniffed in all
TAIL_BYTES = 256 << 10  # the end of a file whose start the deep search did not get past
HOLE = "NUL bytes skipped (a hole left by copy-truncate log rotation)"
BINARY_FRAC = 0.01  # control bytes + invalid UTF-8 allowed in a text head (ours)
# bytes that never occur in a text log (\t \n \f \r ESC and backspace do)
_CTRL = bytes(c for c in range(32) if c not in (8, 9, 10, 12, 13, 27)) + b"\x7f"
# words most training-metric lines carry; the sniffers see only such lines of a deep
# window (found with bytes.find: a regex alternation would scan at ~10 MB/s)
# (looked for in the lowered window: one pass, then one find per word)
_HINTS = (b"loss", b"iter", b"step", b"epoch", b"trl:", b"{'", b" val ", b" train ")


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # (before UTF-16 LE: its BOM starts the same way)
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
WIDE_PROBE = 64  # bytes looked at for BOM-less UTF-16 LE (ours)


def wide_encoding(first: bytes) -> str | None:
    """The UTF-16 / UTF-32 encoding of a file that starts with ``first``: named by its
    byte-order mark, or UTF-16 LE when at least 8 bytes and every other byte is NUL under
    printable ASCII or whitespace (a BOM-less PowerShell / .NET capture); else None."""
    for bom, enc in _BOMS:
        if first.startswith(bom):
            return enc
    s = first[: WIDE_PROBE - WIDE_PROBE % 2]
    s = s[: len(s) - len(s) % 2]
    if len(s) < 8 or s[1::2].strip(b"\0"):
        return None
    low = s[0::2]
    return "utf-16-le" if all(32 <= c < 127 or c in (9, 10, 13) for c in low) else None


def _wide_head(raw: bytes, enc: str, more: bool, end: int) -> "Head":
    """The head of a UTF-16 / UTF-32 file (``raw``: its first bytes, NUL bytes and all)."""
    w = 4 if "32" in enc else 2
    raw = raw[: len(raw) - len(raw) % w]
    text = raw.decode(enc, "replace").removeprefix("\ufeff")
    lines = text.split("\n")
    if more and len(lines) > 1:
        cut = lines.pop()
        end -= len(cut.encode(enc, "replace"))
    return Head([strip_ansi(ln).rstrip("\r") for ln in lines], None, end, more, 0)


@dataclass
class Head:
    lines: list[str] | None  # None: unreadable or binary (see ``why``)
    why: str | None = None
    end: int = 0  # file offset just past the head's last complete line
    more: bool = False  # the file goes on past the head
    hole: int = 0  # NUL bytes dropped from the head


def strip_nul(data: bytes) -> tuple[bytes, int]:
    """``data`` without its NUL bytes, and how many there were."""
    if b"\0" not in data:
        return data, 0
    out = data.replace(b"\0", b"")
    return out, len(data) - len(out)


def gb_text(raw: bytes) -> str | None:
    """``raw`` (bytes that are not UTF-8) as Chinese text in GBK / GB18030, Windows' code page in
    China (a print loop's log written there, its names Chinese: fresh78's GPT-2 medical QA, "nothing
    readable"); None unless every character beyond ASCII is one of GB2312's (its hanzi, CJK and
    full-width punctuation), so Latin-1 text, whose lone accented bytes pair with the ASCII letter
    after them in GBK, stays what it was (UTF-8 with the bad bytes replaced)."""
    try:
        text = raw.decode("gb18030")
        text.encode("gb2312")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return None
    return text


def not_utf8(raw: bytes) -> tuple[str, bool]:
    """Bytes that are not UTF-8 as text: GBK Chinese (``gb_text``; True), else UTF-8 with the bad bytes
    replaced (False). The one fallback of the sniffers (``decode_text``) and the readers
    (``sources.lines.decode_line``, which counts which it was)."""
    gb = gb_text(raw)
    return (gb, True) if gb is not None else (raw.decode("utf-8", "replace"), False)


def decode_text(raw: bytes) -> str:
    """One line's bytes as text: UTF-8, else ``not_utf8``'s (the sniffers' decode)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return not_utf8(raw)[0]


def looks_text(raw: bytes) -> bool:
    """Text once the NUL runs are gone: few control bytes, mostly valid UTF-8 (or GBK Chinese)."""
    sample = raw[:HEAD_BYTES]
    if not sample:
        return False
    bad = len(sample) - len(sample.translate(None, _CTRL))
    if bad > BINARY_FRAC * len(sample):
        return False
    text = sample.decode("utf-8", "replace")
    if "\ufffd" in text:
        text = "\n".join(decode_text(ln) for ln in sample[: sample.rfind(b"\n") + 1 or None].split(b"\n"))
    return bad + text.count("\ufffd") <= BINARY_FRAC * len(sample)


def skip_hole(f, path: str) -> int:
    """At the start of a file that begins with NUL bytes: jump a sparse hole
    (``SEEK_DATA``, asked on a descriptor of its own so ``f``'s buffer stays
    coherent), seek ``f`` past it and return the new offset (0: nothing jumped)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return 0
    try:
        off = os.lseek(fd, 0, os.SEEK_DATA)
    except (AttributeError, OSError, ValueError):
        return 0
    finally:
        os.close(fd)
    off -= off % 4096  # SEEK_DATA is block aligned anyway
    if off > 0:
        f.seek(off)
    return off


def sample_head(path: str, binary_reason: str) -> Head:
    """The first lines of ``path`` (see the module docstring)."""
    try:
        # (open_regular: a FIFO named x.log never blocks us; a lone x.log.gz, an archived
        # log, is sniffed on what it holds, as it is read)
        with open_segment(path) as f:
            raw = f.read(HEAD_BYTES)
            start = 0
            wide = wide_encoding(raw[:WIDE_PROBE])
            if wide:
                raw += f.read(LONG_HEAD) if raw.count(b"\n") < 2 else b""
                more = bool(f.read(1))
                return _wide_head(raw, wide, more, f.tell() - (1 if more else 0))
            if raw[:1] == b"\0":
                start = skip_hole(f, path)
                if start:
                    raw = f.read(HEAD_BYTES)
            raw, hole = strip_nul(raw)
            hole += start
            pos = start + HEAD_BYTES
            # past a hole bigger than the head, and until the head holds two complete lines
            while (not raw or raw.count(b"\n") < 2) and pos < (DEEP_BYTES if not raw else start + LONG_HEAD):
                chunk = f.read(HEAD_BYTES * 4)
                if not chunk:
                    break
                pos += len(chunk)
                chunk, n = strip_nul(chunk)
                hole += n
                raw += chunk
            more = bool(f.read(1))
            end = f.tell() - (1 if more else 0)
    except GZIP_FAULTS as e:
        return Head(None, segment_fault(e))
    if not raw and hole:
        # nothing but NUL bytes as far as the head looks (a hole with no data yet, or binary)
        return Head(
            None,
            f"only NUL bytes in its first {max(1, pos >> 20)} MiB (a hole, or a binary file): not read",
            pos,
            more,
            hole,
        )
    if not raw:
        return Head([], None, end, more, hole)
    if hole and not looks_text(raw):
        return Head(None, binary_reason)
    rows = raw.split(b"\n")
    if more and len(rows) > 1:
        end -= len(rows.pop())  # the cut last line would not parse
    return Head([strip_ansi(decode_text(ln)).rstrip("\r") for ln in rows], None, end, more, hole)


def deep_lines(path: str, start: int, stop: int = DEEP_BYTES):
    """Windows of candidate lines from ``start`` on: yields (lines, offset reached)."""
    taken = 0
    try:
        with open_segment(path) as f:  # (a FIFO named x.log never blocks us; .gz decompressed)
            f.seek(start)
            pos = start
            carry = b""
            while pos < stop and taken < DEEP_MAX_LINES:
                data = f.read(DEEP_WINDOW)
                if not data:
                    if carry.strip():
                        # the file's unterminated last line (a job killed mid-bar: a tqdm line of \r redraws
                        # with no newline after it, fresh50's Lightning log: "nothing readable")
                        yield _hinted(carry + b"\n"), pos
                    return
                buf = carry + data
                j = buf.rfind(b"\n")
                if j < 0:
                    carry = buf[-(1 << 20) :]  # a very long line: keep at most 1 MiB of it
                    pos += len(data)
                    continue
                carry = buf[j + 1 :]
                pos += len(data)
                out = _hinted(buf[: j + 1])
                taken += len(out)
                yield out, pos - len(carry)
    except GZIP_FAULTS:
        return


_DIGIT = re.compile(rb"\d")


def _hinted(buf: bytes) -> list[str]:
    """The complete lines of ``buf`` (which ends with a newline) that carry a metric word."""
    buf, _ = strip_nul(buf)
    starts: set[int] = set()
    low = buf.lower()
    for lit in _HINTS:
        i = low.find(lit)
        while i >= 0 and len(starts) < DEEP_LINES:
            s0 = low.rfind(b"\n", 0, i) + 1
            starts.add(s0)
            e = low.find(b"\n", i) + 1
            if lit == b"loss" and 0 < e < len(low) and low.find(b"\n", e) > 0 and not _DIGIT.search(low, s0, e):
                # ... and the line after a column header's, a line of names with no number (Ultralytics'
                # "Epoch GPU_mem box_loss ...": its rows, under it, name nothing: fresh29's Slurm log read
                # "nothing readable")
                starts.add(e)
            i = low.find(lit, e)
    return [strip_ansi(decode_text(buf[a : buf.find(b"\n", a)])).rstrip("\r") for a in sorted(starts)[:DEEP_LINES]]


def hinted_lines(lines: list[str]) -> list[str]:
    """The lines of a sampled head that carry a metric word (what deep_sniff sniffs)."""
    return _hinted(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))


def tail_lines(path: str, start: int, nbytes: int = TAIL_BYTES) -> tuple[list[str], int]:
    """The lines with a metric word in the last ``nbytes`` of ``path`` (not before
    ``start``), and the file's size: where the deep search stopped short of the end
    (a preamble longer than DEEP_BYTES), the end of the file is sampled too."""
    if path.endswith(".gz"):
        return [], 0  # (its end is only reached by decompressing all of it: not sampled)
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            at = max(start, size - nbytes)
            if at >= size:
                return [], size
            f.seek(at)
            buf = f.read(size - at)
    except OSError:
        return [], 0
    if at > 0:
        buf = buf[buf.find(b"\n") + 1 :]  # a cut first line
    buf = buf[: buf.rfind(b"\n") + 1]
    return (_hinted(buf) if buf else []), size
