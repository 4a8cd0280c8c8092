"""W&B's own run file, ``wandb/run-<date>-<id>/run-<id>.wandb``, read without ``wandb``.

A script that calls ``wandb.log`` and prints nothing has its metrics only here. The
layout (wandb/wandb ``core/pkg/leveldb/record.go``, ``sdk/internal/datastore.py``;
checked on files written by SDK 0.18-0.31, see tests/sources/test_wandb_run.py)::

    ":W&B" 0xBEE1 (little-endian) version(0)          7-byte file header
    32 KiB blocks of chunks (the header takes the first 7 bytes of block 0):
        uint32 crc | uint16 length | uint8 type | payload
        type 1 FULL, 2 FIRST, 3 MIDDLE, 4 LAST; a chunk never crosses a block,
        fewer than 7 bytes left in a block are zero padding
    crc = CRC-32/IEEE (zlib.crc32, unmasked) over the type byte then the payload

Each record is one protobuf ``wandb_internal.Record``; we walk the wire format for
the few fields the checks use (the field numbers below) instead of depending on
``protobuf`` and a generated module. Side by side on the same files (bench/wandb_cost.py,
bench/RESULTS.md) a bare loop with the official upb runtime and a bare hand-written walk
are within ~10% of each other (either ahead, by file and load); the walk needs no
dependency, decodes the typed values of newer SDKs, and a record that does not decode
costs that record only (a counted skip), not the chunk.

What is read: ``history`` rows (keys ``key`` or ``nested_key`` joined by ``.``;
values ``value_json``, which holds bare ``NaN`` / ``Infinity``, or the typed
``number`` / ``integer`` of newer SDKs), ``metric`` (``define_metric`` step metrics),
``config`` and ``run`` (the run's settings: total steps, warm-up, LR, batch size,
model size), ``summary`` (one record when the run logged no history), ``output_raw``
/ ``output`` (the console: its lines go through the text readers as a second
channel, ``<file>#console``, so printed metrics and generations count too), ``exit``
(the run ended, with its exit code) and ``alert`` (``run.alert``).

Damage is a counted skip and a resync at the next block: a bad checksum, a chunk
whose length or type cannot be, a part of a record without its first part, a
record that does not decode. A chunk cut at the end of a live file is waited for.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
import zlib
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from tsm_tui.core.frame import INT_FIELDS, METRIC_FIELDS, MIN_RUN, Frame
from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import CONSOLE, MAX_LINE, MAX_SAMPLE_CHARS, SAMPLE_KEYS, ByteReader, SourceReader
from tsm_tui.sources.text_events import exit_event
from tsm_tui.sources.config import put_path, tracker_facts
from tsm_tui.sources.config_load import measure
from tsm_tui.sources.fields import field_for, normalise
from tsm_tui.sources.placeholders import SplitPlaceholders
from tsm_tui.sources.wire import Damage, varint

MAGIC = b":W&B\xe1\xbe"
KNOWN_VERSION = 0
HEADER = 7
BLOCK = 32 * 1024
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
MAX_RECORD = 64 << 20  # a record assembled from chunks larger than this is skipped (memory bound)
_TYPE_CRC = {t: zlib.crc32(bytes((t,))) for t in (FULL, FIRST, MIDDLE, LAST)}
_CHUNK = struct.Struct("<IHB")

# Record's oneof fields (wandb/proto/wandb_internal.proto)
R_HISTORY, R_SUMMARY, R_OUTPUT, R_CONFIG, R_ALERT, R_METRIC, R_OUTPUT_RAW, R_RUN, R_EXIT = (
    2,
    3,
    4,
    5,
    10,
    12,
    13,
    17,
    18,
)
#: the other oneof members the SDK writes (files, stats, artifacts, telemetry, final, header,
#: footer, preempting, links, environment, output_logger, requests): read past, not counted
_OTHER = frozenset({6, 7, 8, 9, 11, 20, 21, 22, 23, 24, 25, 26, 27, 100})
#: Record fields beside the oneof (num, control, uuid, _info)
_BESIDE = frozenset({1, 16, 19, 200})

#: step metrics the frameworks declare (HF Trainer's WandbCallback, Lightning's WandbLogger)
FRAMEWORK_STEPS = ("train/global_step", "trainer/global_step")
#: step keys a script logs as values (``run.log({"step": s, ...})``); not ``batch`` / ``it``
#: / ``s``, which a row may hold with another meaning
OWN_STEPS = frozenset(
    {"step", "steps", "global_step", "iteration", "iter", "train/step", "num_updates", "current_steps"}
)
# what a history key is (WandbRunReader._kind)
K_SKIP, K_VALUE, K_DECLARED, K_FRAMEWORK, K_OWN, K_WANDB = range(6)
MAX_ALERTS = 100
MAX_KEYS = 4096  # history keys whose field mapping is cached
MAX_HEAD_LINES = 4000  # console lines kept while the console's format is not known yet
SNIFF_AT = (20, 200, 1000, MAX_HEAD_LINES)


# -- W&B's layout: one run id, several run dirs (a resumed run) ---------------------------
_RUN_DIR = re.compile(r"^(?:offline-)?run-(\d{8}_\d{6})-([A-Za-z0-9_-]+)$")


_SUFFIX = re.compile(r"^(.+)-(\d{1,4})$")


def run_dir_id(dirname: str, d: str | None = None) -> tuple[str, str] | None:
    """``(time, run id)`` of a W&B run directory name (``offline-run-20261205_003803-abc123``).
    A run resumed within the same second gets its name with ``-1`` (``-2`` ...) appended by
    the SDK (``offline-run-20261206_045320-abc123-1``): with the directory ``d`` given, its run
    file (``run-abc123.wandb``) says the id, and the time sorts after the first's."""
    m = _RUN_DIR.match(dirname)
    if m is None:
        return None
    t, rid = m.group(1), m.group(2)
    s = _SUFFIX.match(rid) if d is not None else None
    if s is not None and d is not None and not os.path.isfile(os.path.join(d, f"run-{rid}.wandb")):
        if os.path.isfile(os.path.join(d, f"run-{s.group(1)}.wandb")):
            return f"{t}-{int(s.group(2)):04d}", s.group(1)
    return t, rid


def is_wandb_run_dir(d: str) -> bool:
    """W&B's ``run-<time>-<id>/`` (``offline-run-*``): under ``wandb/``, or moved out
    of it with its layout (``files/`` or ``run-<id>.wandb``)."""
    name = os.path.basename(d)
    if not name.startswith(("run-", "offline-run-")):
        return False
    if os.path.basename(os.path.dirname(d)) == "wandb":
        return True
    rid = run_dir_id(name, d)
    return rid is not None and (
        os.path.isdir(os.path.join(d, "files")) or os.path.isfile(os.path.join(d, f"run-{rid[1]}.wandb"))
    )


def same_run_files(paths: list[str]) -> dict[str, list[str]]:
    """W&B run files of one run id written into several run dirs (``resume=``): each
    group oldest first, keyed by the newest file."""
    by_id: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for p in paths:
        d = os.path.dirname(p)
        rid = run_dir_id(os.path.basename(d), d)
        if rid is None or not os.path.basename(p).endswith(".wandb"):
            continue
        by_id.setdefault((os.path.dirname(d), rid[1]), []).append((rid[0], p))
    return {g[-1][1]: [p for _, p in g] for g in (sorted(v) for v in by_id.values()) if len(g) > 1}


def previous_file(path: str) -> str | None:
    """The run file this one continues: the newest older run dir of the same run id
    beside it (a run resumed into a new directory), or None."""
    d = os.path.dirname(path)
    rid = run_dir_id(os.path.basename(d), d)
    if rid is None:
        return None
    parent = os.path.dirname(d)
    try:
        names = os.listdir(parent)
    except OSError:
        return None
    best = None
    for n in names:
        r = run_dir_id(n, os.path.join(parent, n))
        if r is not None and r[1] == rid[1] and r[0] < rid[0] and (best is None or r[0] > best[0]):
            f = os.path.join(parent, n, os.path.basename(path))
            if os.path.isfile(f):
                best = (r[0], f)
    return best[1] if best else None


class _Bad(Damage):
    """A record whose protobuf does not decode."""


def fields(b: bytes, i: int = 0, end: int | None = None):
    """(field number, wire type, value) of one message: ints for varints and fixed
    numbers, (start, end) offsets for length-delimited fields."""
    n = len(b) if end is None else end
    while i < n:
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 2:
            ln, i = varint(b, i)
            j = i + ln
            if j > n:
                raise _Bad("field past the end of its message")
            yield f, 2, (i, j)
            i = j
        elif wt == 0:
            v, i = varint(b, i)
            yield f, 0, v
        elif wt == 1:
            if i + 8 > n:
                raise _Bad("fixed64 past the end")
            yield f, 1, struct.unpack_from("<d", b, i)[0]
            i += 8
        elif wt == 5:
            if i + 4 > n:
                raise _Bad("fixed32 past the end")
            yield f, 5, struct.unpack_from("<f", b, i)[0]
            i += 4
        else:
            raise _Bad(f"wire type {wt}")


def record_body(p: bytes) -> tuple[int, int, int] | None:
    """The Record's oneof member: (field number, start, end), or None (no member)."""
    i, n = 0, len(p)
    while i < n:
        key = p[i]
        if key < 0x80:
            i += 1
        else:
            key, i = varint(p, i)
        f, wt = key >> 3, key & 7
        if wt == 2:
            ln = p[i]
            if ln < 0x80:
                i += 1
            else:
                ln, i = varint(p, i)
            j = i + ln
            if j > n:
                raise _Bad("field past the end of the record")
            if f not in _BESIDE:
                return f, i, j
            i = j
        elif wt == 0:
            _, i = varint(p, i)
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        else:
            raise _Bad(f"wire type {wt}")
    return None


def _text(b: bytes, a: int, z: int) -> str:
    return b[a:z].decode("utf-8", "replace")


def _item(b: bytes, a: int, z: int) -> tuple[str, object]:
    """A HistoryItem / SummaryItem / ConfigItem: (key, value). The value is the
    ``value_json`` bytes, or the typed number of newer SDKs."""
    key = None
    parts: list[str] | None = None
    val: object = None
    for f, wt, v in fields(b, a, z):
        if f == 1 and wt == 2:
            key = _text(b, *v)
        elif f == 2 and wt == 2:
            if parts is None:
                parts = []
            parts.append(_text(b, *v))
        elif f == 16 and wt == 2:
            val = b[v[0] : v[1]]
        elif f == 6 and wt == 1:  # number (double)
            val = v
        elif f == 5 and wt == 0:  # integer (sint64, zigzag)
            val = (v >> 1) ^ -(v & 1)
        elif f == 4 and wt == 0:  # boolean
            val = b"true" if v else b"false"
    if parts is not None:
        key = ".".join(parts)
    return key or "", val


class _Slow(Exception):
    """A history row the fast walk leaves to the general one."""


def _history_items(p: bytes, a: int, z: int) -> tuple[list[tuple[str, object]], int]:
    """A HistoryRecord's items and step, walked for the layout both SDK generations
    write (``key`` or ``nested_key`` strings, then ``value_json``; lengths < 128 inline).
    Anything else (typed values, long fields, unknown tags) raises ``_Slow``."""
    items: list[tuple[str, object]] = []
    step = 0
    i = a
    while i < z:
        t = p[i]
        ln = p[i + 1]
        if ln >= 0x80:
            ln, s = varint(p, i + 1)
        else:
            s = i + 2
        j = s + ln
        if j > z:
            raise _Bad("history item past the end")
        if t == 0x0A:  # item
            key = None
            v = None
            q = s
            while q < j:
                tt = p[q]
                if tt == 0x12 or tt == 0x0A:
                    l2 = p[q + 1]
                    if l2 >= 0x80:
                        raise _Slow
                    seg = p[q + 2 : q + 2 + l2]
                    q += 2 + l2
                    key = seg if key is None or tt == 0x0A else key + b"." + seg
                elif tt == 0x82 and p[q + 1] == 0x01:
                    l2 = p[q + 2]
                    if l2 >= 0x80:
                        raise _Slow
                    v = p[q + 3 : q + 3 + l2]
                    q += 3 + l2
                else:
                    raise _Slow
            if q != j:
                raise _Bad("history item overruns")
            items.append((key.decode("utf-8", "replace") if key is not None else "", v))
        elif t == 0x12:  # step
            if ln:
                if p[s] != 0x08:
                    raise _Slow
                x, _ = varint(p, s + 1)
                step = x - (1 << 64) if x >= 1 << 63 else x
        elif t == 0x92 or t == 0xC2:  # (HistoryRecord._info = 200)
            pass
        else:
            raise _Slow
        i = j
    return items, step


def _history_items_general(p: bytes, a: int, z: int) -> tuple[list[tuple[str, object]], int]:
    items: list[tuple[str, object]] = []
    step = 0
    for f, wt, v in fields(p, a, z):
        if f == 1 and wt == 2:
            items.append(_item(p, *v))
        elif f == 2 and wt == 2:
            for g, wt2, x in fields(p, *v):
                if g == 1 and wt2 == 0:
                    step = x - (1 << 64) if x >= 1 << 63 else x
    return items, step


def number(v) -> float | None:
    """A history value as a float (bare NaN / Infinity included), or None (text,
    media, tables, booleans)."""
    if type(v) is bytes:
        try:
            return float(v)
        except ValueError:
            return None
    if type(v) is float:
        return v
    if type(v) is int:
        try:
            return float(v)
        except OverflowError:
            return math.inf
    return None


def json_value(v):
    """A ``value_json`` as Python (NaN / Infinity allowed), None when it is not JSON."""
    if type(v) is not bytes:
        return v
    try:
        return json.loads(v, parse_int=_json_int)
    except (ValueError, RecursionError):
        return None


def _json_int(s: str):
    # an int of more digits than Python converts (4,300) is a float (inf): the value, not the record, is out
    return int(s) if len(s) <= 4300 else float(s)


MAX_LEAVES = 256  # numbers taken from one dict value
MAX_NEST = 4


def _leaves(prefix: str, obj, depth: int = 0, out: list | None = None) -> list[tuple[str, float]]:
    """The numbers of a dict value as ``prefix.key`` pairs (media and tables, which
    carry ``_type``, are not metrics)."""
    if out is None:
        out = []
    if not isinstance(obj, dict) or "_type" in obj or depth >= MAX_NEST:
        return out
    for k, v in obj.items():
        if len(out) >= MAX_LEAVES:
            break
        key = f"{prefix}.{k}"
        if isinstance(v, dict):
            _leaves(key, v, depth + 1, out)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            x = number(v)
            if x is not None:
                out.append((key, x))
    return out


class Framer:
    """The LevelDB-log framing, incremental: bytes in, record payloads out.

    Keeps at most one partial chunk (< 32 KiB) and the parts of one record (bounded
    by ``MAX_RECORD``). ``skip(reason)`` is told every damaged stretch."""

    def __init__(self, skip) -> None:
        self.skip = skip
        self.rest = b""
        self.off = 0  # file offset of rest[0]
        self.header = False
        self.version: int | None = None
        self.parts: list[bytes] | None = None
        self.parts_len = 0
        self.drop = 0  # bytes still to pass over (a resync to the next block beyond what we had)
        self.bad = False  # not a W&B run file: nothing more is read
        self.resynced = False

    def _resync(self, pos: int, n: int, reason: str) -> int:
        """Count ``reason`` and go to the next block boundary."""
        self.skip(reason)
        if self.parts is not None:
            self.parts = None
            self.parts_len = 0
        self.resynced = True  # the next block may open with the rest of a record lost here
        nxt = pos + (BLOCK - (self.off + pos) % BLOCK)
        if nxt > n:
            self.drop = nxt - n
            return n
        return nxt

    def feed(self, data: bytes) -> list[bytes]:
        if self.bad:
            return []
        if self.drop:
            k = min(self.drop, len(data))
            self.drop -= k
            self.off += k
            data = data[k:]
        buf = self.rest + data if self.rest else data
        n = len(buf)
        out: list[bytes] = []
        pos = 0
        if not self.header:
            if n < HEADER:
                self.rest = buf
                return out
            if buf[:6] != MAGIC:
                self.bad = True
                self.skip("not a W&B run file (no :W&B header)")
                self.rest = b""
                return out
            self.version = buf[6]
            if self.version != KNOWN_VERSION:
                self.skip(
                    f"format version {self.version} (this reader knows {KNOWN_VERSION}): "
                    "records read where their checksums hold"
                )
            self.header = True
            pos = HEADER
        unpack = _CHUNK.unpack_from
        crc32 = zlib.crc32
        tcrc = _TYPE_CRC
        off = self.off
        while True:
            left = BLOCK - (off + pos) % BLOCK
            if left < HEADER:
                if pos + left > n:
                    break  # the padding is not all here yet
                pos += left
                continue
            if n - pos < HEADER:
                break
            crc, ln, typ = unpack(buf, pos)
            if ln + HEADER > left or not 1 <= typ <= 4:
                if crc == 0 and ln == 0 and typ == 0:
                    # a zeroed stretch (preallocated): the rest of the block is unused
                    nxt = pos + left
                    if nxt > n:
                        break
                    pos = nxt
                    continue
                pos = self._resync(pos, n, "corrupt chunk header (length or type): rest of the block skipped")
                continue
            end = pos + HEADER + ln
            if end > n:
                break  # a chunk cut at the end: wait for the rest
            payload = buf[pos + HEADER : end]
            if crc32(payload, tcrc[typ]) != crc:
                pos = self._resync(pos, n, "bad checksum: rest of the block skipped")
                continue
            pos = end
            resynced, self.resynced = self.resynced, False
            if typ == FULL:
                if self.parts is not None:
                    self.skip("record cut short (its last part missing)")
                    self.parts = None
                out.append(payload)
            elif typ == FIRST:
                if self.parts is not None:
                    self.skip("record cut short (its last part missing)")
                self.parts = [payload]
                self.parts_len = ln
            elif self.parts is None:
                if not resynced:  # (after a resync: the damage already counted)
                    self.skip("part of a record without its first part")
            else:
                self.parts_len += ln
                if self.parts_len > MAX_RECORD:
                    self.skip(f"record over {MAX_RECORD >> 20} MiB")
                    self.parts = None
                    continue
                self.parts.append(payload)
                if typ == LAST:
                    out.append(b"".join(self.parts))
                    self.parts = None
        if pos >= n:
            self.rest = b""
        else:
            self.rest = buf[pos:]
        self.off = off + pos
        return out

    def end(self) -> None:
        """End of a finished file: what is left is a truncated record."""
        if self.rest or self.parts is not None:
            self.skip("record cut short at the end of the file")
        self.rest = b""
        self.parts = None


class _Console:
    """The run's console (``output_raw`` / ``output`` records) as text lines through
    the reader the text's format calls for, as if it were ``files/output.log``."""

    def __init__(self, path: str, sniff) -> None:
        self.source = path + CONSOLE
        # the name the text readers sniff (W&B's own console file)
        self.sniff_path = os.path.join(os.path.dirname(path), "files", "output.log")
        self._sniff = sniff
        self.reader: SourceReader | None = None
        self.head: list[str] = []
        self.partial = ""
        self.lines = 0
        self.gave_up = False
        self.dropped = 0

    def feed(self, text: str, skip) -> list[StepRecord]:
        text = self.partial + text if self.partial else text
        if "\n" not in text:
            if len(text) > MAX_LINE:
                skip(f"console line longer than {MAX_LINE >> 20} MiB")
                text = ""
            self.partial = text
            return []
        lines = text.split("\n")
        self.partial = lines.pop()
        return self._lines(lines)

    def _lines(self, lines: list[str]) -> list[StepRecord]:
        self.lines += len(lines)
        if self.reader is not None:
            out: list[StepRecord] = []
            feed = self.reader.feed
            for ln in lines:
                out += feed(ln.rstrip("\r"))
            return out
        if self.gave_up:
            return []
        self.head += [ln.rstrip("\r") for ln in lines]
        if len(self.head) >= SNIFF_AT[0] and any(len(self.head) - len(lines) < k <= len(self.head) for k in SNIFF_AT):
            return self._try()
        return []

    def _try(self, final: bool = False) -> list[StepRecord]:
        cls = self._sniff(self.sniff_path, self.head) if self.head else None
        if cls is None:
            if final or len(self.head) >= MAX_HEAD_LINES:
                self.gave_up = not final or self.gave_up
                if len(self.head) >= MAX_HEAD_LINES:
                    self.gave_up = True
                    self.head = []
            return []
        self.reader = cls(self.source)
        head, self.head = self.head, []
        out: list[StepRecord] = []
        for ln in head:
            out += self.reader.feed(ln)
        return out

    def flush(self) -> list[StepRecord]:
        out: list[StepRecord] = []
        if self.partial:
            tail, self.partial = self.partial, ""
            out += self._lines([tail])
        if self.reader is None and not self.gave_up:
            out += self._try(final=True)
        if self.reader is not None:
            out += self.reader.flush()
        return out


class WandbRunReader(ByteReader):
    """``run-<id>.wandb``: history rows as records (the run's declared step metric, else
    the framework's, else ``_step``), its config as run facts, its console through
    the text readers on a channel of its own."""

    name = "wandb"
    priority = 26  # above TensorBoard: W&B's file holds the history and the console
    run_dir_deep = True  # (files/output.log, tmp/, logs/: the run's, wherever they sit in it)
    #: the text readers' sniffer, ``(path, head lines) -> reader class or None``: set by
    #: the registry (which imports this module) so the console reads like output.log
    console_sniffer: ClassVar[Callable[[str, list[str]], type[SourceReader] | None] | None] = None

    @classmethod
    def run_dir(cls, d: str) -> bool:
        return is_wandb_run_dir(d)

    @classmethod
    def logger_slot(cls, d: str) -> tuple[str, str, bool] | None:
        if not is_wandb_run_dir(d):
            return None
        up = os.path.dirname(d)  # P/wandb/run-*, or a run dir moved to P/run-*
        return (os.path.dirname(up) if os.path.basename(up) == "wandb" else up), "wandb", True

    @classmethod
    def sniff_bytes(cls, path: str) -> float:
        if not path.endswith(".wandb"):
            return 0.0
        try:
            with open_regular(path) as f:
                head = f.read(HEADER)
        except OSError:
            return 0.0
        return 0.97 if head[:6] == MAGIC else 0.0

    @property
    def reads_text(self) -> bool:
        """The run's console was read (its lines looked at for crash lines, whichever channel the checks
        judge: a history chosen over its console, or a console of no metrics, is no "no console output
        read")."""
        return self.console is not None and self.console.lines > 0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.framer = Framer(self.skip)
        sniffer = type(self).console_sniffer
        self.console = _Console(path, sniffer) if sniffer is not None else None
        self.rows = 0
        #: the declared step metric (``define_metric(step_metric=...)``) of the run
        self.step_metric: str | None = None
        self._step_declared = False
        self._step_last: float | None = None
        #: the last step a framework's or the script's own step key gave a row (``_pick_step``)
        self._key_last: float | None = None
        self._keyed_rows = 0  # rows with such a key minus rows without one
        #: which key the steps come from, said in the report's file entry
        self.step_source: str | None = None
        self.config: dict[str, object] = {}
        self._config_n = 0
        self.summary: dict[str, object] = {}
        self.exit_code: int | None = None
        self.alerts: list[tuple[int, str, str]] = []  # (step, level, title: text)
        self.resumed = False
        self.starting_step: int | None = None
        self._keys: dict[str, tuple[int, str | None]] = {}  # key -> (its kind K_*, its field: _kind)
        self._carry: list[StepRecord] = []  # records made between two files, delivered with the next bytes
        #: the run file this one continues (live: a resumed run's new directory)
        self.continues = previous_file(path) if path else None

    def next_file(self) -> None:
        """The run goes on in another run file (a resumed run's new directory, read
        after this one): new framing, the same run."""
        for r in self.flush_console_partial():
            self._carry.append(r)
        self.framer = Framer(self.skip)

    def flush_console_partial(self) -> list[StepRecord]:
        if self.console is None or not self.console.partial:
            return []
        tail, self.console.partial = self.console.partial, ""
        return self.console._lines([tail])

    # -- channels: the history is this file's source, the console another -------------
    def channels(self, items: list) -> list[tuple[str, list, SourceReader]]:
        """``items`` split by channel: ``(source, items, reader)`` each."""
        mine = [x for x in items if x.source != (self.console.source if self.console else None)]
        out: list[tuple[str, list, SourceReader]] = [(self.path, mine, self)] if mine else []
        if self.console is not None and self.console.reader is not None:
            theirs = [x for x in items if x.source == self.console.source]
            if theirs:
                out.append((self.console.source, theirs, self.console.reader))
        return out

    # -- reading --------------------------------------------------------------------
    def feed_bytes(self, data: bytes) -> list[StepRecord]:
        out: list[StepRecord] = []
        if self._carry:
            out, self._carry = self._carry, []
        for p in self.framer.feed(data):
            try:
                body = record_body(p)
                if body is None:
                    continue
                f, a, z = body
                if f == R_HISTORY:
                    rec = self._history(p, a, z)
                    if rec is not None:
                        out.append(rec)
                else:
                    out += self._other(f, p, a, z)
            except (Damage, IndexError, struct.error):  # (Damage: _Bad, a varint past the end)
                self.skip("record that does not decode")
        return out

    def _other(self, f: int, p: bytes, a: int, z: int) -> list[StepRecord]:
        """A record that is not a history row; the console's records, if any."""
        if f == R_OUTPUT_RAW or f == R_OUTPUT:
            return self._output(p, a, z)
        if f == R_SUMMARY:
            self._summary(p, a, z)
        elif f == R_METRIC:
            self._metric(p, a, z)
        elif f == R_CONFIG:
            self._config(p, a, z)
        elif f == R_RUN:
            self._run(p, a, z)
        elif f == R_EXIT:
            self._exit(p, a, z)  # (the crash check reads it: a non-zero code is a crash, 0 a normal end)
            assert self.exit_code is not None  # (_exit sets it)
            return [exit_event(self.exit_code, self._last_step if self.rows else None, self.path, "W&B")]
        elif f == R_ALERT:
            self._alert(p, a, z)
        elif f not in _OTHER:
            self.skip(f"record of a type this reader does not know (field {f})")
        return []

    def feed_chunk(self, data: bytes) -> list:
        """A replay's chunk: what ``feed_bytes`` gives, with the history's runs of rows of
        one shape (the same fields, in any order) as Frames built from the rows' values
        (no StepRecord per row); the console's records come after (another channel)."""
        out: list = self._carry
        self._carry = []
        console: list[StepRecord] = []
        shape = None
        steps: list[int] = []
        cols: dict[str, list] = {}
        xcols: dict[str, list] = {}
        rows: list = []

        def close() -> None:
            if not steps:
                return
            if len(steps) >= MIN_RUN and not SplitPlaceholders.in_columns(cols):
                out.append(
                    Frame(
                        np.array(steps, dtype=np.int64),
                        {f: np.array(c, dtype=np.float64) for f, c in cols.items()},
                        {k: np.array(c, dtype=np.float64) for k, c in xcols.items()} or None,
                        self.path,
                    )
                )
            else:
                out.extend(self._record(r) for r in rows)
            steps.clear()
            rows.clear()

        for p in self.framer.feed(data):
            try:
                body = record_body(p)
                if body is None:
                    continue
                f, a, z = body
                if f != R_HISTORY:
                    got = self._other(f, p, a, z)
                    if got:
                        console += got
                    continue
                row = self._decode_row(p, a, z)
            except (Damage, IndexError, struct.error):  # (Damage: _Bad, a varint past the end)
                self.skip("record that does not decode")
                continue
            if row is None:
                continue
            step, vals, extra, _samples, regular = row
            if not regular:
                close()
                shape = None
                out.append(self._record(row))
                continue
            sh = (vals.keys(), extra.keys() if extra else None)
            if shape is None or sh[0] != shape[0] or sh[1] != shape[1]:
                close()
                shape = (frozenset(vals), frozenset(extra) if extra else None)
                cols = {k: [] for k in vals}
                xcols = {k: [] for k in extra} if extra else {}
            steps.append(step)
            rows.append(row)
            for k, x in vals.items():
                cols[k].append(x)
            if extra:
                for k, x in extra.items():
                    xcols[k].append(x)
        close()
        return out + console

    def flush(self) -> list[StepRecord]:
        self.framer.end()
        self._apply_config(force=True)
        out, self._carry = self._carry, []
        if self.rows == 0 and self.summary:
            # no history at all: the summary's last values are the one record there is
            rec = self.build(
                ((k, number(v)) for k, v in self.summary.items() if not k.startswith("_") and number(v) is not None),
                step=self._summary_step(),
            )
            if rec is not None:
                out.append(rec)
        if self.console is not None:
            out += self.console.flush()
        return out

    # -- records --------------------------------------------------------------------
    # -- history rows ----------------------------------------------------------------
    def _kind(self, k: str) -> tuple[int, str | None]:
        """What a history key is to this run (cached; the cache is cleared when the
        declared step metric changes): a step candidate, the timestamp, skipped, or a
        value with its StepRecord field (None: an extra)."""
        got = self._keys.get(k)
        if got is not None:
            return got
        if len(self._keys) >= MAX_KEYS:  # a key per row (sample_123 ...): the cache stays bounded
            self._keys.clear()
        if k == self.step_metric:
            got = (K_DECLARED, None)
        elif k in FRAMEWORK_STEPS:
            got = (K_FRAMEWORK, None)
        elif k == "_step":
            got = (K_WANDB, None)
        elif k == "_timestamp":
            got = (K_VALUE, "time")
        elif k.startswith("_"):
            got = (K_SKIP, None)
        else:
            f = field_for(k)
            if f is None and "." in k:  # a nested dict logged: train.loss as train/loss
                f = field_for(k.replace(".", "/"))
            if f == "step":
                got = (K_OWN, None) if normalise(k) in OWN_STEPS else (K_SKIP, None)
            else:
                got = (K_VALUE, f)
        self._keys[k] = got
        return got

    def _decode_row(self, p: bytes, a: int, z: int):
        """One history row: ``(step, fields, extra, samples, regular)`` or None (no
        metric in it, or a counted skip). ``regular``: a row a Frame can hold."""
        try:
            items, wire = _history_items(p, a, z)
        except _Slow:  # a layout the fast walk does not take: the general one
            items, wire = _history_items_general(p, a, z)
        kind_of = self._kind
        keys = self._keys
        vals: dict[str, float] = {}
        extra: dict[str, float] | None = None
        samples: list[str] | None = None
        regular = True
        declared = framework = own = wandb_step = None
        fw_key = own_key = None
        for k, v in items:
            ki = keys.get(k) or kind_of(k)
            kind = ki[0]
            if kind != K_VALUE:
                if kind == K_SKIP:
                    continue
                x = number(v)
                if kind == K_DECLARED:
                    declared = x
                elif kind == K_FRAMEWORK:
                    if framework is None:
                        framework, fw_key = x, k
                elif kind == K_OWN:
                    if own is None:
                        own, own_key = x, k
                else:
                    wandb_step = x
                continue
            if type(v) is bytes:
                try:
                    x = float(v)
                except ValueError:
                    x = None
            else:
                x = number(v)
            f = ki[1]
            if x is None:
                regular = False
                if type(v) is bytes and v[:1] == b"{":
                    # a dict logged whole (older SDKs keep {"loss": ...} as one JSON value)
                    for k2, x2 in _leaves(k, json_value(v)):
                        k2i = kind_of(k2)
                        if k2i[0] != K_VALUE:
                            continue
                        if k2i[1] is None:
                            extra = extra or {}
                            extra.setdefault(k2, x2)
                        else:
                            vals.setdefault(k2i[1], x2)
                elif k in SAMPLE_KEYS or k.rsplit("/", 1)[-1] in SAMPLE_KEYS:
                    t = json_value(v)
                    if isinstance(t, str) and t:
                        samples = (samples or []) + [t[:MAX_SAMPLE_CHARS]]
                continue
            if x - x != 0 and x == x and type(v) is bytes and b"nf" not in v:
                if f is not None:  # 1e400 written out: no float holds it
                    self.skip("number out of range")
                    return None
                continue
            if f is None:
                if extra is None:
                    extra = {k: x}
                else:
                    extra.setdefault(k, x)
            elif f in INT_FIELDS:
                regular = False
                n = int64(x)
                if n is not None and f not in vals:
                    vals[f] = n
            elif f not in vals:  # the first alias wins
                vals[f] = x
        if extra is not None and "loss" not in vals:
            x = self.objective_value(extra)  # (no total logged: the objective rule, fields.objective)
            if x is not None:
                vals["loss"] = x
        step = self._pick_step(declared, framework, fw_key, own, own_key, wandb_step, wire)
        if step is None:
            self.skip("step out of range")
            return None
        if not (vals.keys() & METRIC_FIELDS or "skipped" in vals or "nan_iters" in vals) and not samples:
            return None
        self.rows += 1
        self.records += 1
        self._last_step = step
        return step, vals, extra, samples, regular

    def _pick_step(self, declared, framework, fw_key, own, own_key, wandb_step, wire: int) -> int | None:
        """The row's step: the run's declared step metric (``define_metric``; a row without
        it carries its last value, as ``step_sync`` does), else a framework's step key
        (``train/global_step``), else a step the script logs itself (``step``,
        ``iteration``), else ``_step`` (W&B's row counter), else the record's number. A row
        without the step key that most rows before it had (a final evaluation logged with
        ``wandb.log({"test/loss": x})`` after rows of ``iteration``) is at that key's last value, as
        ``step_sync`` does: its ``_step`` is another axis (fresh62's 3DINO runs: 125 rows at
        ``iteration`` 10..1250, then test and summary rows at ``_step`` 136 read as a resume, and the
        plateau judged one row). While most rows lack the key (a script that puts its counter on its
        evaluation rows only), a row without it keeps its ``_step``: the training rows are never folded
        onto one step."""
        by = None
        if self.step_metric is not None:
            by = declared if declared is not None else self._step_last
            if by is not None:
                self._step_last = by
                self._said(f"{self.step_metric} (declared with define_metric)")
        if by is None:
            self._keyed_rows += 1 if framework is not None or own is not None else -1
        if by is None and framework is not None:
            by = self._key_last = framework
            self._said(fw_key)
        if by is None and own is not None:
            by = self._key_last = own
            self._said(own_key)
        if by is None and self._key_last is not None and self._keyed_rows > 0:
            by = self._key_last
        if by is None:
            by = wandb_step if wandb_step is not None else float(wire)
            self._said("_step")
        if by != by or by - by != 0:
            return None
        return int64(by)

    def _history(self, p: bytes, a: int, z: int) -> StepRecord | None:
        row = self._decode_row(p, a, z)
        return None if row is None else self._record(row)

    def _record(self, row) -> StepRecord:
        step, vals, extra, samples, _regular = row
        rec = StepRecord(step, source=self.path, **vals)
        if rec.val_loss is not None and rec.loss is not None:
            self.placeholders.record(rec, self)
        if extra:
            rec.extra = extra
        if samples:
            rec.samples = samples
        return rec

    def _said(self, src: str) -> None:
        if self.step_source != src:
            # the first source named stays unless a better one takes over for good
            self.step_source = src

    def _output(self, p: bytes, a: int, z: int) -> list[StepRecord]:
        if self.console is None:
            return []
        line = ""
        for f, wt, v in fields(p, a, z):
            if f == 3 and wt == 2:
                line = _text(p, *v)
        if not line:
            return []
        return self.console.feed(line, self.skip)

    def _metric(self, p: bytes, a: int, z: int) -> None:
        name = glob = step_metric = None
        for f, wt, v in fields(p, a, z):
            if wt != 2:
                continue
            if f == 1:
                name = _text(p, *v)
            elif f == 2:
                glob = _text(p, *v)
            elif f == 4:
                step_metric = _text(p, *v)
        if not step_metric:
            return
        # the step metric of the training loss: declared for it, for a glob that covers
        # it (HF / Lightning declare "*"), or for any metric when nothing else is
        target = name or glob or ""
        lossy = target in ("*", "train/*") or (field_for(target) in ("loss", "grad_norm", "lr"))
        if lossy or not self._step_declared:
            if self.step_metric != step_metric:
                self.step_metric = step_metric
                self._keys.clear()
            self._step_declared = self._step_declared or lossy

    def _items(self, p: bytes, a: int, z: int) -> dict[str, object]:
        """A Summary / Config record's ``update`` items (field 1)."""
        got: dict[str, object] = {}
        for f, wt, v in fields(p, a, z):
            if f == 1 and wt == 2:
                k, val = _item(p, *v)
                if k:
                    got[k] = val
        return got

    def _config(self, p: bytes, a: int, z: int) -> None:
        upd = self._items(p, a, z)
        for k, v in upd.items():
            if k == "_wandb" or k.startswith("_wandb."):
                continue
            val = json_value(v)
            try:
                measure(val)  # each item within the bounds of a config file (nodes, depth)
            except ValueError as e:
                self.skip(f"run config item ignored: {e}")
                continue
            if len(self.config) < 10_000 or k in self.config:
                self.config[k] = val
        self._apply_config()

    def _apply_config(self, force: bool = False) -> None:
        """The config's settings as run facts. Re-read when it grew by a quarter (or is
        small): a script that adds a config key per step costs amortised O(1) per key."""
        n = len(self.config)
        if n == self._config_n or not (force or n <= 256 or 4 * (n - self._config_n) >= n):
            return
        self._config_n = n
        # nested keys ("optimizer.lr") as the nested mapping the config rules read
        mapping: dict = {}
        for k, v in self.config.items():
            put_path(mapping, k.split("."), v)
        facts = tracker_facts(mapping, "wandb config")
        if facts is None:
            self.skip("run config that cannot be read")
            return
        for name, v in facts.items():
            self.run_info[name] = v

    def _run(self, p: bytes, a: int, z: int) -> None:
        for f, wt, v in fields(p, a, z):
            if f == 4 and wt == 2:  # config
                self._config(p, *v)
            elif f == 14 and wt == 0:  # starting_step
                self.starting_step = v if v < 1 << 63 else None
            elif f == 18 and wt == 0:  # resumed
                self.resumed = bool(v)

    def _summary(self, p: bytes, a: int, z: int) -> None:
        if self.rows:
            return  # the history has it all; the summary is only read for runs without one
        upd = self._items(p, a, z)
        for k, v in upd.items():
            if len(self.summary) < 10_000 or k in self.summary:
                self.summary[k] = v

    def _summary_step(self) -> int:
        for k in (self.step_metric, *FRAMEWORK_STEPS, "_step"):
            if k and k in self.summary:
                x = number(self.summary[k])
                if x is not None and x == x and abs(x) != math.inf:
                    s = int64(x)
                    if s is not None:
                        self._said(k)
                        return s
        return 0

    def _exit(self, p: bytes, a: int, z: int) -> None:
        code = 0
        for f, wt, v in fields(p, a, z):
            if f == 1 and wt == 0:
                code = v - (1 << 64) if v >= 1 << 63 else v
                code = code if -(1 << 31) <= code < 1 << 31 else (code & 0xFFFFFFFF) - ((code & 0x80000000) << 1)
        self.exit_code = code

    def _alert(self, p: bytes, a: int, z: int) -> None:
        title = text = level = ""
        for f, wt, v in fields(p, a, z):
            if wt != 2:
                continue
            if f == 1:
                title = _text(p, *v)
            elif f == 2:
                text = _text(p, *v)
            elif f == 3:
                level = _text(p, *v)
        if len(self.alerts) < MAX_ALERTS:
            self.alerts.append((self._last_step, level or "INFO", f"{title}: {text}" if text else title))

    # -- what the report's file entry says ---------------------------------------------
    def field_keys(self) -> dict[str, list[str]]:
        """The history keys read into each StepRecord field (the report's ``sources``)."""
        out: dict[str, list[str]] = {}
        for k, (kind, f) in self._keys.items():
            if kind == K_VALUE and f is not None and f != "time":
                out.setdefault(f, []).append(k)
        return out

    def describe(self) -> dict:
        d: dict[str, object] = {}
        if self.step_source:
            d["step_source"] = self.step_source
        if self.console is not None and self.console.reader is not None:
            d["console"] = {
                "format": self.console.reader.name,
                "records": self.console.reader.records,
                "lines": self.console.lines,
            }
        if self.exit_code is not None:
            d["exit_code"] = self.exit_code
        if self.alerts:
            d["tracker_alerts"] = [{"step": s, "level": lv, "text": t} for s, lv, t in self.alerts]
        return d
