"""Bytes to text lines: the one splitter every line reader is fed through.

A finished file's replay (``reading.read_items``), the live tailer (appended
bytes, rotated generations, copies) and a reader's own chunked path all cut
bytes into lines with these rules:

- a line ends at ``\\n``; the bytes after the last newline are held (``LineSplitter``)
  until their newline comes (live) or the file ends (``end``: a finished file's
  unterminated last line is read);
- NUL bytes are dropped and counted (``HOLE``: the hole a copy-truncate rotation
  leaves, NUL runs mid-file);
- a line longer than ``MAX_LINE`` is counted once (``LONG_LINE``) and never parsed:
  an unfinished one is dropped up to its newline as it comes (memory stays bounded);
- bytes that are not UTF-8 are replaced and counted (``NON_UTF8``); the line is read; a line
  that is GBK Chinese instead (``sources.head.not_utf8``) is decoded as such and counted (``GBK_TEXT``);
- a UTF-16 / UTF-32 file (``sources.head.wide_encoding``: by its byte-order mark, or
  BOM-less UTF-16 LE ASCII) is transcoded to UTF-8 before it is cut (its NUL bytes are
  text, not a hole);
- trailing carriage returns are dropped (CRLF files; a bare ``\\r`` inside a line,
  tqdm's redraws, stays: the readers split on it where it matters), except in a held line
  past ``CR_CUT``: its redraws up to its last ``\\r`` are lines then (a bar redrawn for a whole
  epoch is read as it is drawn, and never grows past ``MAX_LINE``).

Counts go to a ``Sink`` (a reader: ``skip`` for what is lost, ``skip_reasons`` for
what is only noted).
"""

from __future__ import annotations

import codecs
from typing import Protocol

from tsm_tui.core.safeio import open_regular
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.sources.head import HOLE, WIDE_PROBE, not_utf8, strip_nul, wide_encoding

MAX_LINE = 1 << 20  # 1 MiB: longer lines are counted as skipped, never parsed
#: a held line longer than this that holds carriage returns is a bar's redraws (tqdm, Keras and Lightning
#: print ``\r`` and a newline only at an epoch's end): its redraws up to its last ``\r`` are lines (ours:
#: fresh50's Lightning job, 990 redraws on one 214 KB line, showed nothing live while its epoch ran, and an
#: epoch past 1 MiB of redraws was dropped whole)
CR_CUT = 64 << 10
LONG_LINE = f"line longer than {MAX_LINE >> 20} MiB"
NON_UTF8 = "non-UTF-8 bytes (replaced, line still read)"
GBK_TEXT = "GBK-encoded lines (Chinese, decoded as GBK, not UTF-8)"


class Sink(Protocol):
    """Where the splitter counts what it drops or changes (a reader)."""

    skip_reasons: dict[str, int]

    def skip(self, reason: str) -> None: ...


class Reader(Sink, Protocol):
    """What ``feed_lines`` / ``feed_block`` call on a reader (``sources.base.SourceReader``,
    which imports this module)."""

    kind: str

    def decode_line(self, raw: bytes, last_open: bool = False) -> str: ...

    def feed(self, line: str) -> list: ...

    def take_line(self, line: str, recs: list) -> list: ...

    def feed_chunk(self, data: bytes) -> list: ...


class Tally:
    """A sink whose counts nobody reads (locating lines: the report counted them)."""

    def __init__(self) -> None:
        self.skipped = 0
        self.skip_reasons: dict[str, int] = {}

    def skip(self, reason: str) -> None:
        self.skipped += 1
        note(self, reason)


def note(sink: Sink, reason: str, n: int = 1) -> None:
    """Count ``n`` of ``reason`` without counting a skipped line (the line is still read)."""
    sink.skip_reasons[reason] = sink.skip_reasons.get(reason, 0) + n


def decode_line(raw: bytes, sink: Sink, last_open: bool = False) -> str:
    """One raw line (no newline; ``last_open``: a file's unterminated last line) as
    text: an over-long line becomes "" (counted), undecodable bytes are replaced
    (counted), terminal escape sequences (ANSI colours: Keras 3, torchtitan, loguru
    print them whenever stdout is a terminal, so every ``| tee`` capture has them)
    go, trailing carriage returns go. This is the one place every line reader's
    lines are decoded, so no reader matches or parses an escape code (the
    sniffers' head is cleaned the same way in ``sources.head``)."""
    if len(raw) + (0 if last_open else 1) > MAX_LINE:
        sink.skip(LONG_LINE)
        return ""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        line, gbk = not_utf8(raw)
        note(sink, GBK_TEXT if gbk else NON_UTF8)
    if "\x1b" in line or not line.isascii():  # (inlined fast path: no call for a plain line)
        line = strip_ansi(line)
    return line.rstrip("\r")


class LineSplitter:
    """Bytes in (in pieces cut anywhere), blocks of complete lines out.

    ``push`` returns the complete lines the bytes finish (each ending with ``\\n``,
    the held partial line joined to its rest) and holds what follows the last
    newline; ``end`` returns the held line at the end of a finished file."""

    __slots__ = ("sink", "partial", "discarding", "dropped", "wide", "_dec")

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.partial = bytearray()  # an incomplete last line, waiting for its newline
        self.discarding = False  # inside an over-long line: dropped up to its newline
        self.dropped = 0  # over-long lines dropped up to their newline (line numbers count them)
        #: the UTF-16 / UTF-32 encoding of the sink's file (by its first bytes), or None
        self.wide = _file_encoding(getattr(sink, "path", "") or "")
        self._dec = codecs.getincrementaldecoder(self.wide)("replace") if self.wide else None

    def push(self, data: bytes) -> bytes:
        if self._dec is not None:
            text = self._dec.decode(data)
            data = text.encode("utf-8", "replace")
            if data.startswith(b"\xef\xbb\xbf") and not self.partial:
                data = data[3:]  # (the byte-order mark)
        if b"\0" in data:
            data, n = strip_nul(data)
            note(self.sink, HOLE, n)
        j = data.rfind(b"\n")
        if j < 0:
            return self._hold(data)
        if self.discarding:  # the end of an over-long line: not parsed (counted when it began)
            head = data[data.find(b"\n") + 1 : j + 1]
            self.discarding = False
            self.dropped += 1
        elif self.partial:
            self.partial += data[: j + 1]
            head = bytes(self.partial)
            self.partial.clear()
        else:
            head = data if j == len(data) - 1 else data[: j + 1]
        if j < len(data) - 1:
            head += self._hold(data[j + 1 :])
        return head

    def _hold(self, rest: bytes) -> bytes:
        """Hold ``rest`` (bytes after the last newline); the redraws a held line past CR_CUT gives up
        (each a line; none empty), or b""."""
        if self.discarding or not rest:
            return b""
        out = b""
        if len(self.partial) + len(rest) > CR_CUT:
            k = rest.rfind(b"\r", 0, len(rest) - 1)  # (a "\r" last may be a CRLF's first half)
            if k >= 0:
                redraws = [p for p in (bytes(self.partial) + rest[:k]).split(b"\r") if p]
                out = b"\n".join(redraws) + b"\n" if redraws else b""
                self.partial.clear()
                rest = rest[k + 1 :]
        if len(self.partial) + len(rest) > MAX_LINE:
            self.sink.skip(LONG_LINE)
            self.partial.clear()
            self.discarding = True
        else:
            self.partial += rest
        return out

    def end(self) -> bytes:
        """The end of the input: the unterminated last line (b"" when none, or when
        it was an over-long one); the splitter starts afresh."""
        rest = b"" if self.discarding else bytes(self.partial)
        self.reset()
        return rest

    def reset(self) -> None:
        """Start over (a truncated or rewritten file is read again from 0)."""
        self.partial.clear()
        self.discarding = False
        if self._dec is not None:
            self._dec.reset()

    def carry(self, other: "LineSplitter") -> None:
        """Go on with ``other``'s held line (a copytruncate cut a line between the copy
        and the file)."""
        self.partial[:] = other.partial
        self.discarding = other.discarding
        if other._dec is not None:
            self.wide, self._dec = other.wide, other._dec


def _file_encoding(path: str) -> str | None:
    """``wide_encoding`` of the file at ``path`` (None when it cannot be read)."""
    if not path:
        return None
    try:
        with open_regular(path) as f:
            return wide_encoding(f.read(WIDE_PROBE))
    except (OSError, ValueError):
        return None


def split_block(block: bytes) -> tuple[list[bytes], bool]:
    """A block of lines (``push``'s, or ``end``'s last line) as raw lines without their
    newlines, and whether the last one had none (a file's unterminated last line)."""
    raws = block.split(b"\n")
    last_open = not block.endswith(b"\n")
    if not last_open:
        raws.pop()
    return raws, last_open


def feed_lines(reader: Reader, block: bytes) -> list:
    """Complete lines (``block``; a last line without its newline is a file's
    unterminated last line) through ``reader`` one by one: records out. A line the
    reader raises on is a counted skip (``unreadable (Type)``), the others are read."""
    raws, last_open = split_block(block)
    out: list = []
    n = len(raws)
    decode, feed, take = reader.decode_line, reader.feed, reader.take_line
    for i, raw in enumerate(raws):
        try:
            line = decode(raw, last_open and i == n - 1)
            out += take(line, feed(line))
        except Exception as e:  # noqa: BLE001 - contained, counted
            reader.skip(reader_error(e))
    return out


def feed_block(reader: Reader, block: bytes) -> list:
    """``reader.feed_chunk(block)`` (records and Frames, the columnar path); when it
    raises, the block's lines one by one (``feed_lines``)."""
    try:
        return reader.feed_chunk(block)
    except Exception as e:  # noqa: BLE001 - contained, counted
        if reader.kind != "lines":
            reader.skip(reader_error(e))
            return []
    return feed_lines(reader, block)


def reader_error(e: BaseException) -> str:
    """The skip reason for input a reader raised on (deeply nested JSON, a value
    no type holds ...): counted per file, never the end of the report."""
    return f"unreadable ({type(e).__name__})"
