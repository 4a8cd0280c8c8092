"""TensorBoard event files (``events.out.tfevents.*``), with no dependency.

Written by torch ``SummaryWriter``, tensorboardX, TF2 / Keras, the HF
TensorBoardCallback, Megatron, NeMo, torchtitan. The file is TFRecord framed::

    uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)

and each ``data`` is a serialized ``Event{1 wall_time, 2 step, 5 summary{1 value{
1 tag, 2 simple_value | 8 tensor}}}``. We decode just that subset of the protobuf
wire format (about 100 lines) instead of depending on the ``tensorboard``
package (~50 MB: grpcio, tensorboard-data-server, protobuf ...). Per record
(the live path), records we do not use (histograms, images, graphs) are not
CRC-checked. A finished file is replayed on columns (``feed_chunk``,
tb_columns.py): 200k steps / 600k events in ~0.6 s with every CRC checked,
against ~13 s for tensorboard 2.21's ``EventAccumulator`` (bench/RESULTS.md).

Incremental: ``feed_bytes`` takes appended bytes and keeps a half-written record
for the next call. Both CRCs are checked; a corrupt record is counted as skipped
and the reader resyncs on the next valid header. One record per step: the
scalars of one step (written as separate events) are merged; tags on another
x-axis (Megatron's ``... vs samples``) are ignored.
"""

from __future__ import annotations

import os
import re
import struct

import numpy as np

from tsm_tui.core.safeio import open_regular
from tsm_tui.core.frame import MIN_RUN, Frame, pack
from tsm_tui.core.record import StepRecord
from tsm_tui.sources import tb_columns as tbc
from tsm_tui.sources.base import METRICS, ByteReader
from tsm_tui.sources.fields import EVAL_SCOPES, loss_role

from tsm_tui.sources.lines import note
from tsm_tui.sources.wire import Damage, varint
from tsm_tui.sources.crc32c import crc32c, masked_crc  # noqa: F401  (re-exported: tests frame records)


# -- protobuf wire format --------------------------------------------------------------
def _fields(b: bytes):
    """(field number, wire type, value) of a message; value is int or bytes."""
    v: int | bytes
    i, n = 0, len(b)
    while i < n:
        key = b[i]
        if key < 0x80:  # one-byte varints are the common case: no call
            i += 1
        else:
            key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i : i + 8], i + 8
        elif wt == 2:
            ln = b[i] if i < n else 0x80
            if ln < 0x80:
                i += 1
            else:
                ln, i = varint(b, i)
            v, i = b[i : i + ln], i + ln
        elif wt == 5:
            v, i = b[i : i + 4], i + 4
        else:
            raise Damage(f"wire type {wt}")
        if i > n:
            raise Damage("truncated field")
        yield num, wt, v


_DT = {1: ("<f", 4), 2: ("<d", 8), 3: ("<i", 4), 9: ("<q", 8), 19: ("<e", 2)}


def _tensor_scalar(b: bytes) -> float | None:
    dtype = 0
    content = None
    val = None
    for num, wt, v in _fields(b):
        if num == 1 and wt == 0:
            dtype = v
        elif num == 2 and wt == 2:
            for dn, _dwt, dv in _fields(v):  # TensorShapeProto: 2 = dim
                if dn == 2:
                    size = next((x for n_, w_, x in _fields(dv) if n_ == 1 and w_ == 0), 1)
                    if size != 1:
                        return None  # not a scalar
        elif num == 4 and wt == 2:
            content = v
        elif num == 5:  # float_val
            val = struct.unpack_from("<f", v)[0] if len(v) >= 4 else val
        elif num == 6:  # double_val
            val = struct.unpack_from("<d", v)[0] if len(v) >= 8 else val
        elif num in (7, 10, 13):  # int_val, int64_val, half_val (varints, maybe packed)
            if wt == 0:
                x = v
            else:
                x, _ = varint(v, 0) if v else (None, 0)
            if x is not None:
                if num == 13:
                    val = struct.unpack("<e", struct.pack("<H", x & 0xFFFF))[0]
                else:
                    val = float(x - (1 << 64) if x >= 1 << 63 else x)
    if val is not None:
        return float(val)
    if content and dtype in _DT:
        fmt, size = _DT[dtype]
        if len(content) >= size:
            return float(struct.unpack_from(fmt, content)[0])
    if content and dtype == 14 and len(content) >= 2:  # bfloat16
        return struct.unpack("<f", b"\x00\x00" + content[:2])[0]
    return None


# The event add_scalar writes (torch SummaryWriter, tensorboardX): wall time, step and
# one Summary.Value{tag, simple_value}, every length one byte. One regex call reads it;
# the lengths are checked against what the general decoder would walk, so a match
# means exactly the same result. Anything else goes through the general decoder.
_SIMPLE = re.compile(
    rb"\x09(.{8})\x10([\x80-\xff]{0,9}[\x00-\x7f])\x2a([\x00-\x7f])\x0a([\x00-\x7f])"
    rb"\x0a([\x00-\x7f])(.*)\x15(.{4})",
    re.S,
)
_unpack_d = struct.Struct("<d").unpack
_unpack_f = struct.Struct("<f").unpack


def decode_event(data: bytes) -> tuple[int, float | None, list[tuple[str, float]]]:
    """(step, wall_time, [(tag, scalar)]) of one serialized Event."""
    m = _SIMPLE.fullmatch(data)
    if m is not None:
        wall, st, l1, l2, lt, tag, val = m.groups()
        lt = lt[0]
        if len(tag) == lt and l2[0] == lt + 7 and l1[0] == lt + 9:
            k = len(st)
            step = (
                st[0]
                if k == 1
                else (st[0] & 0x7F) | st[1] << 7
                if k == 2
                else (st[0] & 0x7F) | (st[1] & 0x7F) << 7 | st[2] << 14
                if k == 3
                else varint(st, 0)[0]
            )
            if step >= 1 << 63:
                step -= 1 << 64
            return step, _unpack_d(wall)[0], [(tag.decode("utf-8", "replace"), _unpack_f(val)[0])]
    return decode_event_general(data)


def decode_event_general(data: bytes) -> tuple[int, float | None, list[tuple[str, float]]]:
    """decode_event by walking the wire format (any field order, tensors, several values)."""
    step = 0
    wall = None
    scalars: list[tuple[str, float]] = []
    for num, wt, v in _fields(data):
        if num == 1 and wt == 1:
            wall = struct.unpack("<d", v)[0]
        elif num == 2 and wt == 0:
            step = v - (1 << 64) if v >= 1 << 63 else v
        elif num == 5 and wt == 2:
            for sn, swt, sv in _fields(v):
                if sn != 1 or swt != 2:
                    continue
                tag = None
                x = None
                for vn, vwt, vv in _fields(sv):
                    if vn == 1 and vwt == 2:
                        tag = vv.decode("utf-8", "replace")
                    elif vn == 2 and vwt == 5:
                        x = struct.unpack("<f", vv)[0]
                    elif vn == 8 and vwt == 2:
                        x = _tensor_scalar(vv)
                if tag is not None and x is not None:
                    scalars.append((tag, x))
    return step, wall, scalars


# A length beyond this is taken for a corrupt header (ours): the length is read before
# the record, and a garbage length would otherwise make the reader wait for (and buffer)
# up to 2**64 bytes that never come. Real records are far below it: scalars are ~50 bytes,
# a Keras model graph ~100 KB, a large image or histogram a few MB (TensorFlow's own
# writer refuses nothing, but its reader builds each record in memory too). A record
# that is really longer is resynced past (counted as a corrupt header) and the file
# goes on at the next record whose header CRC checks.
MAX_RECORD = 256 << 20
NON_SCALAR = "records with no scalar (graph, images, histograms, metadata): not metrics"
RESYNC_SCAN = 4 << 20  # bytes screened at a time while resyncing


def _next_header(buf: bytearray, start: int, n: int) -> int:
    """The first offset >= ``start`` holding a record header whose CRC checks,
    else the first offset that cannot hold a whole header yet (``n - 11``).

    A zero-filled hole (copy-truncate) or garbage is screened in numpy: a
    plausible header has a length in [1, MAX_RECORD] (bytes 4..7 zero, byte 3 at
    most 0x10), so the CRC runs only on those offsets, not on every byte."""
    end = n - 12  # the last offset with a whole header
    while start <= end:
        stop = min(end + 1, start + RESYNC_SCAN)
        k = stop - start
        a = np.frombuffer(bytes(buf[start : stop + 11]), dtype=np.uint8)
        ok = (
            ((a[4 : 4 + k] | a[5 : 5 + k] | a[6 : 6 + k] | a[7 : 7 + k]) == 0)
            & (a[3 : 3 + k] <= 0x10)
            & ((a[0:k] | a[1 : 1 + k] | a[2 : 2 + k] | a[3 : 3 + k]) != 0)
        )
        for o in np.flatnonzero(ok):
            p = start + int(o)
            if struct.unpack_from("<I", buf, p + 8)[0] == masked_crc(bytes(buf[p : p + 8])):
                return p
        start = stop
    return max(start, n - 11)


def _file_version(payload: bytes) -> bool:
    """The event that opens every file (``file_version: "brain.Event:2"``): no metric,
    and nothing skipped either."""
    return b"brain.Event:" in payload[:32]


#: the note a placed epoch summary leaves (``TensorBoardReader._emit``)
EPOCH_PLACED = "epoch summaries logged at the epoch's number: placed at the epoch's last step"
_WORD = re.compile(r"[/_\s]+")


def _epoch_tag(tag: str) -> bool:
    """``tag`` names a per-epoch summary (a word ``epoch`` in it: Ludwig's ``combined/epoch_validation_loss``,
    Keras' ``epoch_loss``)."""
    return "epoch" in _WORD.split(tag.lower())


def _other_axis(tag: str) -> bool:
    low = tag.lower()
    return " vs " in low or low.endswith(("_vs_samples", "_vs_tokens", "vs_iterations"))


class TensorBoardReader(ByteReader):
    name = "tensorboard"
    priority = 25

    @classmethod
    def sniff_bytes(cls, path: str) -> float:
        base = os.path.basename(path)
        if "tfevents" not in base or base.endswith("profile-empty"):
            return 0.0
        try:
            with open_regular(path) as f:
                head = f.read(12)
        except OSError:
            return 0.0
        if len(head) < 12:
            return 0.0
        if struct.unpack("<I", head[8:12])[0] != masked_crc(head[:8]):
            return 0.0
        return 0.95

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._buf = bytearray()
        self._resync = False
        self._pending_step: int | None = None
        self._pending: list[tuple[str, float]] = []
        self._pending_wall: float | None = None
        self.events = 0
        # a split written to a directory of its own with the same tags as the training one
        # (Keras' train/ + validation/, GraphGym's agg/{train,val,test}/): an evaluation split's
        # loss is the run's validation loss (fields.EVAL_SCOPES: the one list of split words)
        parts = path.replace("\\", "/").lower().split("/")
        self._validation = any(p in EVAL_SCOPES for p in parts[-3:-1])
        self.tags: set[str] = set()
        self._top: int | None = None  # the highest step emitted

    def feed_bytes(self, data: bytes) -> list[StepRecord]:
        buf = self._buf
        buf += data
        out: list[StepRecord] = []
        pos = 0
        n = len(buf)
        while n - pos >= 12:
            length, hcrc = struct.unpack_from("<QI", buf, pos)
            if hcrc != masked_crc(bytes(buf[pos : pos + 8])) or length > MAX_RECORD:
                if not self._resync:
                    self.skip("corrupt record header (CRC mismatch)")
                    self._resync = True
                pos = _next_header(buf, pos + 1, n)
                continue
            end = pos + 12 + length + 4
            if end > n:
                break  # half-written record: wait for more bytes
            payload = bytes(buf[pos + 12 : pos + 12 + length])
            dcrc = struct.unpack_from("<I", buf, pos + 12 + length)[0]
            pos = end
            self._resync = False
            try:
                step, wall, scalars = decode_event(payload)
            except (Damage, struct.error, IndexError):
                step, wall, scalars = 0, None, None
            # the data CRC is checked for every record whose values we use (and for
            # any that does not decode); images / histograms / graphs are not used
            # and not checksummed: the CRC, in pure Python, is the costly part
            if scalars is None or scalars:
                if dcrc != masked_crc(payload):
                    self.skip("corrupt record (data CRC mismatch)")
                    continue
                if scalars is None:
                    self.skip("undecodable event")
                    continue
            self.events += 1
            if not scalars:
                if not _file_version(payload):
                    note(self, NON_SCALAR)
                continue
            scalars = [(t, x) for t, x in scalars if not _other_axis(t)]
            if not scalars:
                continue
            if self._pending_step is not None and step != self._pending_step:
                rec = self._emit()
                if rec is not None:
                    out.append(rec)
            self._pending_step = step
            self._pending_wall = wall
            self._pending += scalars
        del buf[:pos]
        return out

    # -- replay fast path ----------------------------------------------------------
    def feed_chunk(self, data: bytes) -> list:
        """``pack(feed_bytes(data))`` computed on columns (tb_columns): the same
        records, skips and counters. Chunks with anything unusual (a corrupt
        record, a resync, an event that does not decode) go through feed_bytes."""
        if self._resync or not data:
            return pack(self.feed_bytes(data))
        buf = bytes(self._buf) + data if self._buf else data
        framed = tbc.frame_records(buf, MAX_RECORD)
        if framed is None:
            return pack(self.feed_bytes(data))
        starts, lens, end = framed
        a = np.frombuffer(buf, np.uint8)
        tail_bad = len(buf) - end >= 12 and struct.unpack_from("<I", buf, end + 8)[0] != masked_crc(buf[end : end + 8])
        if not starts.size or tail_bad or not tbc.crcs_ok(a, starts, lens):
            return pack(self.feed_bytes(data))
        ok, step, wall, val, tag, names = tbc.simple_events(a, starts, lens)
        tags = [t.decode("utf-8", "replace") for t in names]
        keep = np.array([not _other_axis(t) for t in tags] + [False], dtype=bool)  # id -1: not simple
        odd = np.flatnonzero(~ok)
        extra_items = []  # (record index, step, wall, scalars) of events decoded one by one
        n_other = 0  # of them, records with no scalar (a graph, an image ...)
        for i in odd.tolist():
            p = int(starts[i]) + 12
            try:
                st, w, sc = decode_event(buf[p : p + int(lens[i])])
            except (Damage, struct.error, IndexError):
                return pack(self.feed_bytes(data))  # undecodable: counted by the per-record path
            if not sc and not _file_version(buf[p : p + 32]):
                n_other += 1
            sc = [(t, x) for t, x in sc if not _other_axis(t)]
            if sc:
                extra_items.append((i, st, w, sc))
        # the chunk is taken: from here on the state moves
        if n_other:
            note(self, NON_SCALAR, n_other)
        self._buf = bytearray(buf[end:])
        self.events += int(starts.size)
        sel = ok & keep[tag]
        ids = {t: k for k, t in enumerate(tags)}  # (two byte strings may decode alike: ids stay apart)
        names_by_id = list(tags)

        def tid(t: str) -> int:
            k = ids.get(t)
            if k is None:
                k = ids[t] = len(names_by_id)
                names_by_id.append(t)
            return k

        pend = self._pending if self._pending_step is not None else []
        # items in log order: the open step of the last chunk, then this chunk's scalars
        # (several scalars of one record stay together, in order: a stable sort by record)
        if extra_items or pend:
            pos = np.flatnonzero(sel)
            rec_of = [np.full(len(pend), -1, dtype=np.int64), pos]
            it_step = [np.full(len(pend), self._pending_step or 0, dtype=np.int64), step[pos]]
            pw = self._pending_wall
            it_wall = [np.full(len(pend), np.nan if pw is None else pw), wall[pos]]
            it_none = [np.full(len(pend), pw is None), np.zeros(pos.size, dtype=bool)]
            it_tag = [np.array([tid(t) for t, _ in pend], dtype=np.int64), tag[pos]]
            it_val = [np.array([x for _, x in pend], dtype=np.float64), val[pos]]
            for i, st, w, sc in extra_items:
                k = len(sc)
                rec_of.append(np.full(k, i, dtype=np.int64))
                it_step.append(np.full(k, st, dtype=np.int64))
                it_wall.append(np.full(k, np.nan if w is None else w))
                it_none.append(np.full(k, w is None))
                it_tag.append(np.array([tid(t) for t, _ in sc], dtype=np.int64))
                it_val.append(np.array([x for _, x in sc], dtype=np.float64))
            order = np.concatenate(rec_of).argsort(kind="stable")
            i_step, i_wall, i_none, i_tag, i_val = (
                np.concatenate(c)[order] for c in (it_step, it_wall, it_none, it_tag, it_val)
            )
        else:
            i_step, i_wall, i_tag, i_val = step[sel], wall[sel], tag[sel], val[sel]
            i_none = np.zeros(i_step.size, dtype=bool)
        self._pending, self._pending_step, self._pending_wall = [], None, None
        n = i_step.size
        if not n:
            return []
        bounds = np.concatenate(([0], np.flatnonzero(i_step[1:] != i_step[:-1]) + 1, [n]))
        out = self._runs(i_step, i_wall, i_none, i_tag, i_val, bounds[:-1], names_by_id)
        # the last step stays open: its next scalar may be in the next chunk
        a0 = int(bounds[-2])
        self._pending_step = int(i_step[a0])
        self._pending = [(names_by_id[t], x) for t, x in zip(i_tag[a0:].tolist(), i_val[a0:].tolist())]
        self._pending_wall = None if i_none[-1] else float(i_wall[-1])
        return out

    def _runs(self, i_step, i_wall, i_none, i_tag, i_val, bounds, names) -> list:
        """Records of the complete steps: runs [bounds[k], bounds[k+1]) of items."""
        nrun = bounds.size - 1
        if nrun <= 0:
            return []
        lens = np.diff(bounds)
        r = int(lens[0])
        if nrun >= MIN_RUN and (lens == r).all():
            pat = i_tag[: nrun * r].reshape(nrun, r)
            if (pat == pat[0]).all() and not i_none[r - 1 : nrun * r : r].any():
                fr = self._uniform(
                    i_step[: nrun * r : r],
                    i_wall[r - 1 : nrun * r : r],
                    i_val[: nrun * r].reshape(nrun, r),
                    [names[t] for t in pat[0].tolist()],
                )
                if fr is not None:
                    return fr
        out: list[StepRecord] = []
        for k in range(nrun):
            a, b = int(bounds[k]), int(bounds[k + 1])
            self._pending_step = int(i_step[a])
            self._pending_wall = None if i_none[b - 1] else float(i_wall[b - 1])
            self._pending = [(names[t], x) for t, x in zip(i_tag[a:b].tolist(), i_val[a:b].tolist())]
            rec = self._emit()
            if rec is not None:
                out.append(rec)
        return pack(out)

    def _uniform(self, steps, walls, vals, seq: list[str]) -> list | None:
        """Steps that all carry the tags ``seq`` in this order: one Frame, built as
        ``build`` would build each record; None when build's result could depend
        on the values (counters that must be finite integers)."""
        if self._validation:
            seq = [("val_loss" if self.field(t) == "loss" else t) for t in seq]
        cols: dict[str, int] = {}
        extra: dict[str, int] = {}
        got = False
        for j, t in enumerate(seq):
            f = self.field(t)
            if f is None:
                extra[t] = j  # the last value of a repeated key wins, at its first place
                continue
            if f == "step":
                continue
            if f in ("skipped", "nan_iters"):
                return None
            if f not in cols:
                cols[f] = j  # first alias wins
            if f in METRICS:
                got = True
        if "loss" not in cols and any(loss_role(t) is not None for t in extra):
            # terms of a loss and no loss (YOLOv5's train/box_loss, obj_loss, cls_loss; SB3's train/actor_loss and
            # critic_loss): ``build`` makes the objective of them (fields.objective), record by record (fresh107: a
            # 922-epoch yolov4-tiny file read one step, two SB3 SAC files and a YOLOv10 one a loss at one step)
            return None
        for t in seq:
            if len(self.tags) < 200:
                self.tags.add(t)
        if not got:
            return []
        n = steps.size
        fcols = {f: vals[:, j].copy() for f, j in cols.items()}
        if "time" not in fcols:
            fcols["time"] = walls.astype(np.float64)
        fr = Frame(steps.astype(np.int64), fcols, {k: vals[:, j].copy() for k, j in extra.items()} or None, self.path)
        self.records += n
        self._last_step = int(steps[-1])
        top = int(steps.max())
        self._top = top if self._top is None else max(self._top, top)
        return [fr]

    def _emit(self) -> StepRecord | None:
        items = self._pending
        step = self._pending_step
        self._pending = []
        self._pending_step = None
        if self._validation:
            items = [(("val_loss" if self.field(t) == "loss" else t), x) for t, x in items]
        for t, _ in items:
            if len(self.tags) < 200:
                self.tags.add(t)
        if (
            step is not None
            and self._top is not None
            and step < self._top
            and items
            and all(_epoch_tag(t) for t, _ in items)
        ):
            # an epoch's summary written after its batches at the epoch's number (Ludwig: batch
            # steps 0-3, then epoch 1's validation loss at step 1): placed at the epoch's end, the
            # highest step so far; not a resume to step 1
            step = self._top
            note(self, EPOCH_PLACED)
        rec = self.build(items, step=step)
        if rec is not None:
            self._top = rec.step if self._top is None else max(self._top, rec.step)
        if rec is not None and rec.time is None and self._pending_wall is not None:
            rec.time = self._pending_wall
        return rec

    def idle(self) -> list[StepRecord]:
        """Live, the file has been quiet for a while: the newest step is complete as
        far as anyone can tell (its record waits for the next step's first event
        otherwise, and a final NaN would never be seen). Scalars of that step that
        come later make a record of their own at the same step."""
        if self._pending_step is None:
            return []
        rec = self._emit()
        return [rec] if rec is not None else []

    def flush(self) -> list[StepRecord]:
        out: list[StepRecord] = []
        if self._pending_step is not None:
            rec = self._emit()
            if rec is not None:
                out.append(rec)
        if self._buf:
            self.skip("truncated record at end of file")
            self._buf.clear()
        return out


def iter_scalars(path: str):
    """(step, tag, value) of every scalar in an event file (for tests and tools)."""
    with open_regular(path) as f:
        data = f.read()
    pos = 0
    while pos + 12 <= len(data):
        length = struct.unpack_from("<Q", data, pos)[0]
        payload = data[pos + 12 : pos + 12 + length]
        pos += 16 + length
        step, _, scalars = decode_event(payload)
        for t, x in scalars:
            yield step, t, x


__all__ = ["TensorBoardReader", "crc32c", "masked_crc", "decode_event", "iter_scalars"]
