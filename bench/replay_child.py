"""One replay contender, run in a fresh process by ``bench/run.py`` (so peak RSS is
its own and imports are not timed). Prints one JSON line: seconds, records.

    python bench/replay_child.py MODE PATH [--tree SRC]

Modes: ``tsm`` (``tsm-watch PATH --report``: read, every detector, the report
text; the imports happen before the clock and are reported as ``startup_s``), ``bare-json`` (orjson.loads per line), ``bare-regex`` (one compiled regex
per Megatron line), ``bare-tfrecord`` (TFRecord framing only: no CRC, no
protobuf), ``bare-protobuf`` (framing + tensorboard's compiled ``Event.FromString``
per record, no CRC), ``pandas-json`` (``read_json(lines=True)``), ``pandas-csv``
(``read_csv`` of the Megatron text with ``sep="|"``), ``tb-accumulator``
(TensorBoard's ``EventAccumulator.Reload()``), ``bare-wandb`` (a W&B run file: framing,
CRC-32 and the history rows decoded by a hand-written protobuf walk) and ``bare-wandb-upb``
(the same rows through the official ``protobuf`` runtime).
"""

from __future__ import annotations

import io
import json
import re
import struct
import sys
import time

MEGATRON_RE = re.compile(
    rb"iteration\s+(\d+)/\s*\d+ \|.*?learning rate: ([^ |]+) \|.*?lm loss: ([^ |]+) \|"
    rb".*?grad norm: ([^ |]+) \|"
)


def _wandb_payloads(data: bytes):
    import zlib

    pos, n, block, parts = 7, len(data), 32768, None
    unpack, crc32 = struct.unpack_from, zlib.crc32
    tcrc = {t: crc32(bytes((t,))) for t in (1, 2, 3, 4)}
    while pos + 7 <= n:
        left = block - pos % block
        if left < 7:
            pos += left
            continue
        crc, ln, typ = unpack("<IHB", data, pos)
        if typ == 0:
            pos += left
            continue
        payload = data[pos + 7 : pos + 7 + ln]
        if crc32(payload, tcrc[typ]) != crc:
            raise SystemExit(f"bad crc at {pos}")
        pos += 7 + ln
        if typ == 1:
            yield payload
        elif typ == 2:
            parts = [payload]
        else:
            parts.append(payload)
            if typ == 4:
                yield b"".join(parts)


def _v(b: bytes, i: int):
    x = b[i]
    if x < 128:
        return x, i + 1
    r, s, i = x & 127, 7, i + 1
    while True:
        x = b[i]
        r |= (x & 127) << s
        i += 1
        if x < 128:
            return r, i
        s += 7


def _wandb_rows(payloads):
    """History rows as (step, [(key, value)]), walking the wire format by hand."""
    for p in payloads:
        i, n = 0, len(p)
        h = None
        while i < n:
            key, i = _v(p, i)
            wt = key & 7
            if wt == 2:
                ln, i = _v(p, i)
                if key >> 3 == 2:
                    h = (i, i + ln)
                    break
                i += ln
            elif wt == 0:
                _, i = _v(p, i)
            elif wt == 1:
                i += 8
            else:
                i += 4
        if h is None:
            continue
        i, e = h
        items, step = [], 0
        while i < e:
            key, i = _v(p, i)
            ln, i = _v(p, i)
            j = i + ln
            if key == 0x0A:
                k = v = None
                parts = []
                while i < j:
                    t, i = _v(p, i)
                    l2, i = _v(p, i)
                    if t == 0x12:
                        parts.append(p[i : i + l2].decode())
                    elif t == 0x0A:
                        k = p[i : i + l2].decode()
                    elif t == 0x82:
                        v = p[i : i + l2]
                    i += l2
                key_s = k or ".".join(parts)
                try:
                    items.append((key_s, float(v)))
                except (TypeError, ValueError):
                    pass
            elif key == 0x12 and ln:
                step, _ = _v(p, i + 1)
            i = j
        yield step, items


def _upb_rows():
    """The same rows through the official protobuf runtime (upb), from a descriptor built
    at run time for the fields used (no generated module, no wandb)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    FD = descriptor_pb2.FieldDescriptorProto
    fdp = descriptor_pb2.FileDescriptorProto(name="wbbench.proto", package="wbbench", syntax="proto3")

    def msg(name, fields):
        m = fdp.message_type.add(name=name)
        for fname, num, typ, label, tn in fields:
            f = m.field.add(name=fname, number=num, type=typ, label=label)
            if tn:
                f.type_name = tn

    opt, rep = FD.LABEL_OPTIONAL, FD.LABEL_REPEATED
    msg(
        "HistoryItem",
        [
            ("key", 1, FD.TYPE_STRING, opt, None),
            ("nested_key", 2, FD.TYPE_STRING, rep, None),
            ("value_json", 16, FD.TYPE_STRING, opt, None),
        ],
    )
    msg("HistoryStep", [("num", 1, FD.TYPE_INT64, opt, None)])
    msg(
        "HistoryRecord",
        [
            ("item", 1, FD.TYPE_MESSAGE, rep, ".wbbench.HistoryItem"),
            ("step", 2, FD.TYPE_MESSAGE, opt, ".wbbench.HistoryStep"),
        ],
    )
    msg(
        "Record", [("num", 1, FD.TYPE_INT64, opt, None), ("history", 2, FD.TYPE_MESSAGE, opt, ".wbbench.HistoryRecord")]
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    record = message_factory.GetMessageClass(pool.FindMessageTypeByName("wbbench.Record"))
    parse = record.FromString

    def rows(payloads):
        for p in payloads:
            r = parse(p)
            if not r.HasField("history"):
                continue
            h = r.history
            items = []
            for it in h.item:
                try:
                    items.append((it.key or ".".join(it.nested_key), float(it.value_json)))
                except ValueError:
                    pass
            yield h.step.num, items

    return rows


def main() -> int:
    mode, path = sys.argv[1], sys.argv[2]
    if "--tree" in sys.argv:
        sys.path.insert(0, sys.argv[sys.argv.index("--tree") + 1])
    n = 0
    startup = None
    if mode == "tsm":
        # imports before the clock, as for the bare loops (orjson, pandas ...); the
        # start-up (numpy and our modules) is reported on its own
        t0 = time.perf_counter()
        from tsm_tui import cli
        from tsm_tui.analysis import replay  # noqa: F401
        from tsm_tui.views import report  # noqa: F401  (cli.main imports these lazily)

        startup = time.perf_counter() - t0
        out = io.StringIO()
        t0 = time.perf_counter()
        old = sys.stdout
        sys.stdout = out
        try:
            rc = cli.main([path, "--report"])
        finally:
            sys.stdout = old
        dt = time.perf_counter() - t0
        if rc == 2:
            raise SystemExit(f"tsm-watch failed: {out.getvalue()[-300:]}")
    elif mode == "bare-json":
        try:
            from orjson import loads
        except ImportError:
            from json import loads
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            for ln in f:
                loads(ln)
                n += 1
        dt = time.perf_counter() - t0
    elif mode == "bare-regex":
        t0 = time.perf_counter()
        search = MEGATRON_RE.search
        with open(path, "rb") as f:
            for ln in f:
                if search(ln):
                    n += 1
        dt = time.perf_counter() - t0
    elif mode == "bare-tfrecord":
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            data = f.read()
        pos, end = 0, len(data)
        unpack = struct.unpack_from
        while pos + 12 <= end:
            ln = unpack("<Q", data, pos)[0]
            pos += 16 + ln
            n += 1
        dt = time.perf_counter() - t0
    elif mode == "bare-protobuf":
        # the TensorBoard analogue of "orjson per line": framing plus one compiled
        # protobuf parse per record (tensorboard's Event class, upb / C++ backed)
        from tensorboard.compat.proto.event_pb2 import Event

        parse = Event.FromString
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            data = f.read()
        pos, end = 0, len(data)
        unpack = struct.unpack_from
        while pos + 12 <= end:
            ln = unpack("<Q", data, pos)[0]
            parse(data[pos + 12 : pos + 12 + ln])
            pos += 16 + ln
            n += 1
        dt = time.perf_counter() - t0
    elif mode in ("bare-wandb", "bare-wandb-upb"):
        # W&B run file: framing + CRC-32 of every chunk + each history row's items as
        # (key, float); the protobuf walked by hand, or parsed by upb (``-upb``)
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            data = f.read()
        walk = _wandb_rows if mode == "bare-wandb" else _upb_rows()
        for _step, _items in walk(_wandb_payloads(data)):
            n += 1
        dt = time.perf_counter() - t0
    elif mode == "pandas-json":
        import pandas as pd

        t0 = time.perf_counter()
        n = len(pd.read_json(path, lines=True))
        dt = time.perf_counter() - t0
    elif mode == "pandas-csv":
        import pandas as pd

        t0 = time.perf_counter()
        n = len(pd.read_csv(path, sep="|", header=None))
        dt = time.perf_counter() - t0
    elif mode == "tb-accumulator":
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        t0 = time.perf_counter()
        acc = EventAccumulator(path, size_guidance={"scalars": 0})
        acc.Reload()
        n = sum(len(acc.Scalars(t)) for t in acc.Tags()["scalars"])
        dt = time.perf_counter() - t0
    else:
        raise SystemExit(f"unknown mode {mode}")
    hwm = None
    try:  # this process's own peak RSS (exec started a new address space)
        with open("/proc/self/status") as f:
            hwm = next((int(ln.split()[1]) / 1024 for ln in f if ln.startswith("VmHWM:")), None)
    except OSError:
        pass
    print(json.dumps({"mode": mode, "seconds": dt, "records": n, "vmhwm_mib": hwm, "startup_s": startup}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
