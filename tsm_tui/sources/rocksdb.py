"""A read-only RocksDB reader in pure Python: what Aim 3.x stores its runs in
(``sources/aim.py``). Never opens a database the way RocksDB does (no LOCK, no
new WAL, no compaction): it reads the files of one database directory as they are.

- SST files (``NNNNNN.sst``, the block-based table of ``format_version`` 0-5): the
  footer's metaindex and index handles, the properties block (whether the index's
  values are delta-encoded), the index block (binary search, or two-level: its
  partitions), each data block (Snappy-compressed or not, its CRC-32C checked),
  entries prefix-compressed against the previous key with restart points.
- Write-ahead logs (``NNNNNN.log``): 32 KiB blocks of records (full / first / middle /
  last fragments, each with its CRC-32C), each record a WriteBatch (a sequence number,
  then put / delete / merge entries, the default column family's only).
- ``read_db``: the newest version of each key (the highest sequence number) over every
  SST and WAL in the directory; a deletion hides older values.

Damage is counted, never raised: a file with a bad footer, a block whose checksum or
Snappy stream is wrong, a WAL record cut short (the writer stopped mid-write) are each
a reason in ``Problems``, and the rest of the database is still read. Memory stays
bounded: a file over ``MAX_FILE`` is not read, a block over ``MAX_BLOCK`` is refused,
and only the keys ``wanted`` keeps are held.

Format references: RocksDB's ``table/format.cc`` (footer, block trailer),
``table/block_based/block.cc`` (entries, restarts, the v4 index value encoding),
``db/log_format.h`` / ``log_reader.cc`` (the WAL), ``db/write_batch.cc`` (the
record tags) and Snappy's ``format_description.txt``.
"""

from __future__ import annotations

import heapq
import os
import re
import struct
from collections.abc import Iterator

from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.crc32c import crc32c
from tsm_tui.sources.wire import Damage, varint

MAX_FILE = 512 << 20  # one SST or WAL read whole (aim's tables are <= 64 MiB: target_file_size_base)
MAX_HELD = 512 << 20  # memory of the entries kept from one database (ours): ~1.8M keys, ~450k Aim points
ENTRY_COST = 224  # bytes of memory an entry costs beyond its key and value (measured: 300 for a 69-byte key)
MAX_BLOCK = 64 << 20  # one block, compressed or not (a length past it is damage, not data)
BLOCK_MAGIC = 0x88E241B785F4CFF7  # kBlockBasedTableMagicNumber (footer of format_version >= 1)
LEGACY_MAGIC = 0xDB4775248B80FB57  # kLegacyBlockBasedTableMagicNumber (format_version 0)
TRAILER = 5  # a block's compression type (1 byte) and checksum (4 bytes)
WAL_BLOCK = 32768
SST_NAME = re.compile(r"^\d+\.sst$")
WAL_NAME = re.compile(r"^\d+\.log$")
#: internal key / WriteBatch value types (db/dbformat.h)
T_DELETE, T_VALUE, T_MERGE, T_SINGLE_DELETE = 0x0, 0x1, 0x2, 0x7
T_RANGE_DELETE = 0xF  # a range tombstone: (begin, sequence number, T_RANGE_DELETE, end)

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


class Problems(dict):
    """Reasons something was not read, counted (``reason -> count``)."""

    def add(self, reason: str, n: int = 1) -> None:
        self[reason] = self.get(reason, 0) + n


def masked(c: int) -> int:
    """RocksDB's (and LevelDB's) masked CRC (``crc32c::Mask``)."""
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


# --------------------------------------------------------------------------- Snappy
def snappy_decompress(src: bytes, limit: int = MAX_BLOCK) -> bytes:
    """Snappy's raw format (format_description.txt): the uncompressed length as a varint,
    then literals and back-references (copies with a 1-, 2- or 4-byte offset, which may
    overlap what they produce). Raises Damage on anything out of bounds."""
    n, p = varint(src, 0)
    if n > limit:
        raise Damage("Snappy length past the block limit")
    out = bytearray()
    end = len(src)
    while p < end:
        tag = src[p]
        p += 1
        kind = tag & 3
        if kind == 0:  # literal
            ln = tag >> 2
            if ln >= 60:
                k = ln - 59
                ln = int.from_bytes(src[p : p + k], "little")
                p += k
            ln += 1
            if p + ln > end:
                raise Damage("Snappy literal past the end")
            out += src[p : p + ln]
            p += ln
            if len(out) > n:
                raise Damage("Snappy output past its length")
            continue
        if kind == 1:
            ln = 4 + ((tag >> 2) & 7)
            if p >= end:
                raise Damage("Snappy copy past the end")
            off = ((tag >> 5) << 8) | src[p]
            p += 1
        elif kind == 2:
            ln = 1 + (tag >> 2)
            if p + 2 > end:
                raise Damage("Snappy copy past the end")
            off = src[p] | (src[p + 1] << 8)
            p += 2
        else:
            ln = 1 + (tag >> 2)
            if p + 4 > end:
                raise Damage("Snappy copy past the end")
            off = _U32.unpack_from(src, p)[0]
            p += 4
        size = len(out)
        if off == 0 or off > size or size + ln > n:
            raise Damage("Snappy copy out of range")
        start = size - off
        if off >= ln:
            out += out[start : start + ln]
        else:  # overlapping: the last ``off`` bytes repeat
            piece = out[start:]
            out += (piece * (ln // off + 1))[:ln]
    if len(out) != n:
        raise Damage("Snappy output shorter than its length")
    return bytes(out)


# --------------------------------------------------------------------------- SST
def _handle(b, p: int) -> tuple[int, int, int]:
    off, p = varint(b, p)
    size, p = varint(b, p)
    return off, size, p


def _block(data: bytes, off: int, size: int, verify: bool) -> bytes:
    """The contents of the block at (``off``, ``size``): its trailer's checksum checked
    (CRC-32C tables only), decompressed (none or Snappy)."""
    if size > MAX_BLOCK or off < 0 or off + size + TRAILER > len(data):
        raise Damage("block handle out of the file")
    raw = data[off : off + size]
    ctype = data[off + size]
    if verify:
        want = _U32.unpack_from(data, off + size + 1)[0]
        if masked(crc32c(data[off : off + size + 1])) != want:
            raise Damage("block checksum mismatch")
    if ctype == 0:
        return raw
    if ctype == 1:
        return snappy_decompress(raw)
    raise Damage(f"block compression type {ctype} not supported (Snappy or none)")


def _layout(block: bytes) -> tuple[int, int]:
    """(where the entries end, number of restarts) of a block."""
    n = len(block)
    if n < 4:
        raise Damage("block too short")
    packed = _U32.unpack_from(block, n - 4)[0]
    nrest = packed & 0x7FFFFFFF
    end = n - 4
    if packed >> 31:  # a data block hash index after the restarts (kDataBlockBinaryAndHash)
        if end < 2:
            raise Damage("block too short")
        end -= 2 + struct.unpack_from("<H", block, end - 2)[0]
    end -= 4 * nrest
    if end < 0:
        raise Damage("restart array past the block")
    return end, nrest


def _entries(block: bytes) -> Iterator[tuple[bytes, bytes]]:
    """(key, value) of each entry of a block: a shared prefix length, the rest of the
    key and the value's length (varints), the key's rest, the value."""
    end, _ = _layout(block)
    p = 0
    key = b""
    while p < end:
        # three varints; one byte each nearly always (lengths under 128): inlined
        shared, ns, vlen = block[p], block[p + 1] if p + 1 < end else 0x80, block[p + 2] if p + 2 < end else 0x80
        if shared | ns | vlen < 0x80:
            p += 3
        else:
            shared, p = varint(block, p)
            ns, p = varint(block, p)
            vlen, p = varint(block, p)
        if shared > len(key) or p + ns + vlen > end:
            raise Damage("block entry out of range")
        key = key[:shared] + block[p : p + ns]
        p += ns
        yield key, block[p : p + vlen]
        p += vlen


def _index_handles(block: bytes, delta: bool, first_key: bool) -> Iterator[tuple[int, int]]:
    """The block handles an index block lists, in key order. ``delta`` (format_version 4+,
    the table property ``rocksdb.index.value.is.delta.encoded``): entries have no value
    length; a restart point's value is a full handle, another's the signed (zigzag)
    change of the size, its offset right after the previous block. ``first_key``
    (index type kBinarySearchWithFirstKey): the block's first key follows the handle."""
    if not delta:
        for _, v in _entries(block):
            off, size, _ = _handle(v, 0)
            yield off, size
        return
    end, nrest = _layout(block)
    restarts = {_U32.unpack_from(block, end + 4 * i)[0] for i in range(nrest)}
    p = 0
    prev: tuple[int, int] | None = None
    while p < end:
        at = p
        _, p = varint(block, p)  # (the key is not needed: every block is read)
        ns, p = varint(block, p)
        p += ns
        if prev is None or at in restarts:
            off, size, p = _handle(block, p)
        else:
            z, p = varint(block, p)
            off, size = prev[0] + prev[1] + TRAILER, prev[1] + ((z >> 1) ^ -(z & 1))
        if first_key:
            ln, p = varint(block, p)
            p += ln
        if p > end:
            raise Damage("index entry out of range")
        prev = (off, size)
        yield off, size


def _meta_handles(meta: bytes) -> dict[bytes, tuple[int, int]]:
    """The metaindex block: meta block name -> its handle (``rocksdb.properties``,
    ``rocksdb.range_del`` ...)."""
    out = {}
    for k, v in _entries(meta):
        off, size, _ = _handle(v, 0)
        out[k] = (off, size)
    return out


def _prop_int(props: dict, name: bytes) -> int:
    v = props.get(name)
    if not v:
        return 0
    try:
        return varint(v, 0)[0]
    except Damage:
        return 0


def read_sst(data: bytes, problems: Problems) -> Iterator[tuple[bytes, int, int, bytes]]:
    """(user key, sequence number, type, value) of every entry of a block-based table, then
    its range tombstones as (begin, sequence number, T_RANGE_DELETE, end).
    A damaged data block is counted in ``problems`` and passed over; a damaged footer
    or index raises Damage (nothing of the file can be found)."""
    if len(data) < 48:
        raise Damage("SST shorter than its footer")
    magic = _U64.unpack_from(data, len(data) - 8)[0]
    if magic == BLOCK_MAGIC:
        foot = len(data) - 53
        if foot < 0:
            raise Damage("SST shorter than its footer")
        ctype = data[foot]
        version = _U32.unpack_from(data, len(data) - 12)[0]
        if version > 5:
            raise Damage(f"SST format_version {version} not supported (0-5)")
        p = foot + 1
    elif magic == LEGACY_MAGIC:
        ctype, p = 1, len(data) - 48
    else:
        raise Damage("not an SST file (no block-based table magic)")
    verify = ctype == 1  # CRC-32C; the xxHash kinds are not checked
    moff, msize, p = _handle(data, p)
    ioff, isize, _ = _handle(data, p)
    metas = _meta_handles(_block(data, moff, msize, verify))
    props = (
        dict(_entries(_block(data, *metas[b"rocksdb.properties"], verify))) if b"rocksdb.properties" in metas else {}
    )
    delta = _prop_int(props, b"rocksdb.index.value.is.delta.encoded") == 1
    itype = _prop_int(props, b"rocksdb.block.based.table.index.type")
    index = _block(data, ioff, isize, verify)
    first = itype == 3
    handles = list(_index_handles(index, delta and itype != 2, first))
    if itype == 2:  # two-level: the top index (never delta-encoded) lists partitions, each an index block
        parts, handles = handles, []
        for off, size in parts:
            handles += _index_handles(_block(data, off, size, verify), delta, first)
    if b"rocksdb.range_del" in metas:  # range tombstones: (begin, seq / type) -> end
        handles.append(metas[b"rocksdb.range_del"])
    for off, size in handles:
        try:
            block = _block(data, off, size, verify)
            entries = list(_entries(block))
        except Damage as e:
            problems.add(f"damaged SST block ({e})")
            continue
        for k, v in entries:
            if len(k) < 8:
                problems.add("SST entry without its sequence number")
                continue
            tag = _U64.unpack_from(k, len(k) - 8)[0]
            yield k[:-8], tag >> 8, tag & 0xFF, v


# --------------------------------------------------------------------------- WAL
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
RECYCLED = 4  # recyclable record types are 5..8 (the same four, with a log number)
#: record types whose header holds the log number (db/log_format.h: 5-8, and 11, the
#: recyclable user-defined-timestamp record); 9 (compression type) and 10 have none
RECYCLABLE = frozenset({5, 6, 7, 8, 11})


def wal_records(data: bytes, problems: Problems) -> Iterator[bytes]:
    """The logical records of a write-ahead log (fragments joined, checksums checked).
    A record cut short at the end (a writer stopped mid-write) or damaged is counted."""
    p, n = 0, len(data)
    frag: bytearray | None = None
    while p < n:
        left = WAL_BLOCK - p % WAL_BLOCK
        if left < 7:
            p += left  # the block's trailer (zeros)
            continue
        if p + 7 > n:
            problems.add("WAL cut short inside a record header")
            return
        crc, length, rtype = struct.unpack_from("<IHB", data, p)
        hdr = 7
        if rtype in RECYCLABLE:  # (a recycled log's record: its log number after the type)
            hdr = 11
            rtype = rtype - RECYCLED if rtype <= LAST + RECYCLED else rtype
        if rtype == 0 and length == 0:  # preallocated space: nothing more in this block
            p += left
            continue
        if hdr + length > left:
            problems.add("WAL record longer than its block")
            p += left
            frag = None
            continue
        if p + hdr + length > n:
            problems.add("WAL cut short inside a record (the writer stopped mid-write)")
            return
        body = data[p + hdr : p + hdr + length]
        if masked(crc32c(data[p + 6 : p + hdr + length])) != crc:
            problems.add("WAL record checksum mismatch")
            p += hdr + length
            frag = None
            continue
        p += hdr + length
        if rtype == FULL:
            if frag is not None:
                problems.add("WAL record fragment without its end")
            frag = None
            yield body
        elif rtype == FIRST:
            if frag is not None:
                problems.add("WAL record fragment without its end")
            frag = bytearray(body)
        elif rtype in (MIDDLE, LAST):
            if frag is None:
                problems.add("WAL record fragment without its start")
                continue
            frag += body
            if len(frag) > MAX_BLOCK:
                problems.add("WAL record past the size limit")
                frag = None
            elif rtype == LAST:
                yield bytes(frag)
                frag = None
        else:
            problems.add(f"WAL record of unknown type {rtype}")
    if frag is not None:
        problems.add("WAL cut short inside a record (the writer stopped mid-write)")


#: WriteBatch tags (db/dbformat.h): tag -> (column family first, number of strings, value type or None)
_BATCH = {
    0x00: (False, 1, T_DELETE),
    0x01: (False, 2, T_VALUE),
    0x02: (False, 2, T_MERGE),
    0x03: (False, 1, None),  # log data (no sequence number)
    0x04: (True, 1, T_DELETE),
    0x05: (True, 2, T_VALUE),
    0x06: (True, 2, T_MERGE),
    0x07: (False, 1, T_SINGLE_DELETE),
    0x08: (True, 1, T_SINGLE_DELETE),
    0x09: (False, 0, None),  # begin prepare
    0x0A: (False, 1, None),  # end prepare (xid)
    0x0B: (False, 1, None),  # commit (xid)
    0x0C: (False, 1, None),  # rollback (xid)
    0x0D: (False, 0, None),  # noop
    0x0E: (True, 2, T_RANGE_DELETE),
    0x0F: (False, 2, T_RANGE_DELETE),
    0x10: (True, 2, -1),  # blob index (consumes a sequence number; not read)
    0x11: (False, 2, -1),
    0x12: (False, 0, None),
    0x13: (False, 0, None),
}


def write_batch(rec: bytes) -> Iterator[tuple[bytes, int, int, bytes]]:
    """(key, sequence number, type, value) of a WriteBatch's entries in the default
    column family. Raises Damage on an unknown tag or an entry cut short."""
    if len(rec) < 12:
        raise Damage("WriteBatch shorter than its header")
    seq = _U64.unpack_from(rec, 0)[0]
    p, n = 12, len(rec)
    while p < n:
        tag = rec[p]
        p += 1
        spec = _BATCH.get(tag)
        if spec is None:
            raise Damage(f"WriteBatch entry of unknown type {tag:#x}")
        has_cf, nstr, vtype = spec
        cf = 0
        if has_cf:
            cf, p = varint(rec, p)
        parts = []
        for _ in range(nstr):
            ln, p = varint(rec, p)
            if p + ln > n:
                raise Damage("WriteBatch entry cut short")
            parts.append(rec[p : p + ln])
            p += ln
        if vtype is None:
            continue
        if cf == 0 and vtype >= 0:
            yield parts[0], seq, vtype, parts[1] if nstr > 1 else b""
        seq += 1


# --------------------------------------------------------------------------- a database
Entry = tuple[bytes, int, int, bytes]
#: a table's kept entries and what reading it found, by file name, with the file's
#: identity (inode, size, mtime): an SST is never rewritten, so a live re-read (each new
#: WAL write changes the directory) parses only the new tables and the WALs
SstCache = dict[str, tuple[tuple[int, int, int], list[Entry], Problems]]


def _read_file(path: str, problems: Problems) -> tuple[bytes | None, tuple[int, int, int]]:
    try:
        with open_regular(path) as f:
            st = os.fstat(f.fileno())
            ident = (st.st_ino, st.st_size, st.st_mtime_ns)
            if st.st_size > MAX_FILE:
                problems.add(f"RocksDB file over {MAX_FILE >> 20} MiB not read")
                return None, ident
            return f.read(MAX_FILE), ident
    except OSError:
        problems.add("unreadable RocksDB file")
        return None, (0, 0, 0)


def db_files(path: str) -> list[str]:
    """The SST and WAL files of a database directory, by file number."""
    try:
        names = os.listdir(path)
    except OSError:
        return []
    return sorted((f for f in names if SST_NAME.match(f) or WAL_NAME.match(f)), key=lambda f: int(f.split(".")[0]))


def _upper(prefix: bytes) -> bytes:
    """The least key above every key that starts with ``prefix`` (b"" for none)."""
    p = prefix.rstrip(b"\xff")
    return p[:-1] + bytes([p[-1] + 1]) if p else b""


class _Keep:
    """Which entries are kept: keys under one of the prefixes (without ``skip`` in them),
    and the range tombstones [begin, end) that reach one of the prefixes' ranges."""

    def __init__(self, prefixes: tuple[bytes, ...], skip: bytes) -> None:
        self.prefixes, self.skip = prefixes, skip
        self.bounds = [(p, _upper(p)) for p in prefixes]

    def __call__(self, entries) -> Iterator[Entry]:
        prefixes, skip, bounds = self.prefixes, self.skip, self.bounds
        for e in entries:
            k, _, typ, v = e
            if typ == T_RANGE_DELETE:
                if any(not hi or k < hi for lo, hi in bounds if v > lo):
                    yield e
            elif k.startswith(prefixes) and not (skip and skip in k):
                yield e


def _sst(path: str, keep: _Keep, cache: SstCache | None) -> tuple[list[Entry], Problems]:
    """An SST's kept entries and its problems (from the cache when the file is the same)."""
    probs = Problems()
    name = os.path.basename(path)
    if cache is not None and name in cache:
        try:
            st = os.stat(path)
            if cache[name][0] == (st.st_ino, st.st_size, st.st_mtime_ns):
                return cache[name][1], cache[name][2]
        except OSError:
            pass
    data, ident = _read_file(path, probs)
    entries: list[Entry] = []
    if data:
        size = 0
        try:
            for e in keep(read_sst(data, probs)):
                entries.append(e)
                size += len(e[0]) + len(e[3]) + ENTRY_COST
                if size > MAX_HELD:
                    probs.add(f"SST holds more than {MAX_HELD >> 20} MiB of entries: read up to there")
                    break
        except Damage as e:
            probs.add(f"unreadable SST file ({e})")
    if cache is not None and data is not None:
        cache[name] = (ident, entries, probs)
    return entries, probs


def _wal(path: str, keep: _Keep, problems: Problems) -> Iterator[Entry]:
    data, _ = _read_file(path, problems)
    for rec in wal_records(data or b"", problems):
        try:
            yield from keep(list(write_batch(rec)))
        except Damage as e:
            problems.add(f"damaged WAL record ({e})")


def read_db(
    path: str, prefixes: tuple[bytes, ...], problems: Problems, skip: bytes = b"", cache: SstCache | None = None
) -> dict[bytes, bytes]:
    """The live value of every key that starts with one of ``prefixes`` (and does not hold
    ``skip``) in the database at ``path``: the entry with the highest sequence number
    over all its SSTs and WALs, unless a deletion or a range tombstone newer than it hides
    it (Aim deletes a path's range before each write of it). Merge entries (Aim writes
    none) are counted, not applied. Only the tombstones that reach a prefix are kept;
    past ``MAX_HELD`` bytes of entries the rest of the database is not read (said).
    ``cache`` (kept by the caller between reads of one database): parsed SSTs."""
    newest: dict[bytes, tuple[int, int, bytes]] = {}
    tombs: list[tuple[bytes, int, bytes]] = []
    held = 0
    keep = _Keep(prefixes, skip)
    names = db_files(path)
    if cache is not None:
        for gone in set(cache) - set(names):  # (compacted away)
            del cache[gone]
    for name in names:
        full = os.path.join(path, name)
        if name.endswith(".sst"):
            entries, probs = _sst(full, keep, cache)
            for reason, n in probs.items():
                problems.add(reason, n)
            it: Iterator[Entry] = iter(entries)
        else:
            it = _wal(full, keep, problems)
        for k, seq, typ, v in it:
            if typ == T_RANGE_DELETE:
                tombs.append((k, seq, v))
                held += len(k) + len(v) + ENTRY_COST
            else:
                old = newest.get(k)
                if old is None:
                    held += len(k) + len(v) + ENTRY_COST
                elif seq < old[0]:
                    continue
                newest[k] = (seq, typ, v)
            if held > MAX_HELD:
                break
        if held > MAX_HELD:
            problems.add(f"database holds more than {MAX_HELD >> 20} MiB of entries: read up to there")
            break
    hidden = _tombstoned(newest, tombs)
    out: dict[bytes, bytes] = {}
    for k, (_, typ, v) in newest.items():
        if typ == T_VALUE and k not in hidden:
            out[k] = v
        elif typ == T_MERGE:
            problems.add("merge entry (not applied)")
    return out


def _tombstoned(newest: dict[bytes, tuple[int, int, bytes]], tombs: list[tuple[bytes, int, bytes]]) -> set[bytes]:
    """The keys a newer range tombstone covers ([begin, end), sequence number above the
    key's): one sweep over the keys in order, the active tombstones in a heap by sequence
    number (those that ended are dropped when they reach its top)."""
    if not tombs:
        return set()
    tombs.sort()
    out = set()
    active: list[tuple[int, bytes]] = []
    i = 0
    for k in sorted(newest):
        while i < len(tombs) and tombs[i][0] <= k:
            heapq.heappush(active, (-tombs[i][1], tombs[i][2]))
            i += 1
        while active and active[0][1] <= k:
            heapq.heappop(active)
        if active and -active[0][0] > newest[k][0]:
            out.add(k)
    return out
