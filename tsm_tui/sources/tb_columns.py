"""TensorBoard replay fast path: a chunk of event records as columns.

``TensorBoardReader.feed_bytes`` walks records one by one in Python (~7 us per
event). For a finished file, ``feed_chunk`` below does the same work on numpy
columns: the TFRecord framing is one short Python loop (lengths only), both
CRC-32Cs are computed for all records at once (table driven, one byte column
at a time over records of equal length), ``add_scalar`` events (wall time, step,
one ``Summary.Value{tag, simple_value}``) are decoded by checking their fixed
bytes column-wise, and the per-step merge of the scalars is done on arrays when
every step carries the same tags in the same order.

Anything else keeps exact per-record semantics: a chunk with a corrupt record
(either CRC), a record too long, or a resync in progress goes through
``feed_bytes`` whole; events of another layout are decoded one by one by
``decode_event``; steps whose tags differ from the run's pattern are built by
``build`` as usual. tests/sources/test_formats.py compares both paths on random event
streams.
"""

from __future__ import annotations

import struct

import numpy as np

from tsm_tui.sources.crc32c import masked_crc

# CRC-32C (Castagnoli) table, as numpy (the same polynomial as tensorboard.crc32c)
_T = np.zeros(256, dtype=np.uint32)
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _T[_i] = _c
del _i, _c


COLUMN_ROWS = 32  # records of one length worth a column-wise CRC (fewer: one C CRC per record)
COLUMN_BYTES = 4096  # longer records: one C CRC each (the column-wise loop runs once per byte)


def crc32c_rows(m: np.ndarray) -> np.ndarray:
    """CRC-32C of every row of a uint8 matrix (rows of equal length)."""
    crc = np.full(m.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(m.shape[1]):
        crc = _T[(crc ^ m[:, j]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(0xFFFFFFFF)


def masked_rows(m: np.ndarray) -> np.ndarray:
    c = crc32c_rows(m)
    return ((c >> 15) | (c << 17)) + np.uint32(0xA282EAD8)  # uint32 arithmetic wraps like & 0xFFFFFFFF


def frame_records(buf: bytes, max_record: int) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Start offsets and payload lengths of the complete records in ``buf``, and
    where the incomplete tail starts; None for a length no writer produces
    (a corrupt header: the per-record path resyncs)."""
    starts: list[int] = []
    lens: list[int] = []
    pos, n = 0, len(buf)
    unpack = struct.Struct("<Q").unpack_from
    while n - pos >= 12:
        ln = unpack(buf, pos)[0]
        if ln > max_record:
            return None
        end = pos + 16 + ln
        if end > n:
            break
        starts.append(pos)
        lens.append(ln)
        pos = end
    return np.array(starts, dtype=np.int64), np.array(lens, dtype=np.int64), pos


def crcs_ok(a: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> bool:
    """Both CRCs of every record are right."""
    if not starts.size:
        return True
    head = a[starts[:, None] + np.arange(8)]
    stored = a[starts[:, None] + np.arange(8, 12)].copy().view("<u4").ravel()
    if not np.array_equal(masked_rows(head), stored):
        return False
    for ln in np.unique(lens):
        rows = starts[lens == ln]
        ln = int(ln)
        if rows.size < COLUMN_ROWS or ln > COLUMN_BYTES:
            # few or long records (a graph_def of megabytes): one C CRC each; column-wise
            # the loop would run once per byte of the record (40 s for a 2 MiB graph)
            for r in rows.tolist():
                if masked_crc(a[r + 12 : r + 12 + ln].tobytes()) != int(a[r + 12 + ln : r + 16 + ln].view("<u4")[0]):
                    return False
            continue
        data = a[rows[:, None] + 12 + np.arange(ln)]
        stored = a[rows[:, None] + 12 + ln + np.arange(4)].copy().view("<u4").ravel()
        if not np.array_equal(masked_rows(data), stored):
            return False
    return True


def simple_events(a: np.ndarray, starts: np.ndarray, lens: np.ndarray):
    """Decode the add_scalar events among the records, column-wise.

    Returns (ok mask, step int64, wall float64, value float64, tag id per
    record (-1 where not ok), the tags' bytes by id). A record is ok when its bytes are exactly
    ``09 <wall:8> 10 <step varint:k> 2a <lt+9> 0a <lt+7> 0a <lt> <tag:lt> 15 <f32>``
    with every length below 0x80: what ``tensorboard._SIMPLE`` accepts."""
    n = starts.size
    ok = np.zeros(n, dtype=bool)
    step = np.zeros(n, dtype=np.int64)
    wall = np.zeros(n)
    val = np.zeros(n)
    tag = np.full(n, -1, dtype=np.int64)
    names: dict[bytes, int] = {}
    p0 = starts + 12
    for ln in np.unique(lens):
        ln = int(ln)
        if ln < 22:
            continue
        rows = np.flatnonzero(lens == ln)
        m = a[p0[rows][:, None] + np.arange(ln)]
        good = (m[:, 0] == 0x09) & (m[:, 9] == 0x10)
        # step varint: k bytes, the last one below 0x80, at most 10
        cont = m[:, 10 : min(ln, 20)] >= 0x80
        k = np.argmin(cont, axis=1) + 1  # first byte below 0x80 ends it
        good &= ~cont.all(axis=1)
        for kk in np.unique(k[good]):
            kk = int(kk)
            lt = ln - 21 - kk
            if lt < 0 or lt + 9 >= 0x80:
                continue
            sel = good & (k == kk)
            sub = m[sel]
            o = 10 + kk
            fit = (
                (sub[:, o] == 0x2A)
                & (sub[:, o + 1] == lt + 9)
                & (sub[:, o + 2] == 0x0A)
                & (sub[:, o + 3] == lt + 7)
                & (sub[:, o + 4] == 0x0A)
                & (sub[:, o + 5] == lt)
                & (sub[:, o + 6 + lt] == 0x15)
            )
            if not fit.any():
                continue
            sub = sub[fit]
            idx = rows[sel][fit]
            ok[idx] = True
            wall[idx] = np.ascontiguousarray(sub[:, 1:9]).view("<f8").ravel()
            val[idx] = np.ascontiguousarray(sub[:, ln - 4 :]).view("<f4").ravel().astype(np.float64)
            s = np.zeros(idx.size, dtype=np.uint64)
            for j in range(kk):
                s |= (sub[:, 10 + j].astype(np.uint64) & np.uint64(0x7F)) << np.uint64(7 * j)
            if kk == 10:  # a tenth byte above 1 overflows 64 bits: the general decoder keeps it
                big = sub[:, 19] > 1
                if big.any():
                    ok[idx[big]] = False
            step[idx] = s.view(np.int64)  # >= 2**63 reads as negative, as decode_event returns
            tb = np.ascontiguousarray(sub[:, o + 6 : o + 6 + lt])
            if lt:
                u, inv = np.unique(tb.view(f"V{lt}").ravel(), return_inverse=True)
                ids = np.array([names.setdefault(bytes(x), len(names)) for x in u], dtype=np.int64)
                tag[idx] = ids[inv.ravel()]
            else:
                tag[idx] = names.setdefault(b"", len(names))
    return ok, step, wall, val, tag, list(names)
