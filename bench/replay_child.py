"""One replay contender, run in a fresh process by ``bench/run.py`` (so peak RSS is
its own and imports are not timed). Prints one JSON line: seconds, records.

    python bench/replay_child.py MODE PATH [--tree SRC]

Modes: ``tsm`` (``tsm-watch PATH --report``: read, every detector, the report
text; the imports happen before the clock and are reported as ``startup_s``), ``bare-json`` (orjson.loads per line), ``bare-regex`` (one compiled regex
per Megatron line), ``bare-tfrecord`` (TFRecord framing only: no CRC, no
protobuf), ``bare-protobuf`` (framing + tensorboard's compiled ``Event.FromString``
per record, no CRC), ``pandas-json`` (``read_json(lines=True)``), ``pandas-csv``
(``read_csv`` of the Megatron text with ``sep="|"``), ``tb-accumulator``
(TensorBoard's ``EventAccumulator.Reload()``).
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import sys
import time

MEGATRON_RE = re.compile(rb"iteration\s+(\d+)/\s*\d+ \|.*?learning rate: ([^ |]+) \|.*?lm loss: ([^ |]+) \|"
                         rb".*?grad norm: ([^ |]+) \|")


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
        from tsm_tui.analysis import engine
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
            parse(data[pos + 12: pos + 12 + ln])
            pos += 16 + ln
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
