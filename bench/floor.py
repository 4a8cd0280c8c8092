"""Where replay time goes, per record, for one log file (process CPU time, best
of 3): the bare parse loop, the reader alone, the Monitor with each detector
alone and with all of them, on both paths:

- replay (``reading.read_items``: chunks -> Frames -> ``Detector.update_frame``),
  what ``--report`` / ``--json`` and the TUI's history load use;
- live (lines -> StepRecords -> ``Detector.update``), what ``--follow`` and the
  TUI use for new lines as they are written.

    python bench/floor.py [PATH]   (default: the generated 1M-step JSONL)

For a Megatron text log the bare loop is bench/replay_child.py's regex.
"""

from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from tsm_tui.analysis.detectors import DETECTORS, Detector  # noqa: E402
from tsm_tui.core.frame import Frame, expand  # noqa: E402
from tsm_tui.analysis.monitor import Monitor  # noqa: E402
from tsm_tui.sources import reading, registry  # noqa: E402


class _Noop(Detector):
    def update(self, rec):
        return []

    def update_frame(self, fr):
        return []


def best(fn, n=3) -> float:
    out = []
    for _ in range(n):
        t = time.process_time()
        fn()
        out.append(time.process_time() - t)
    return min(out)


def main() -> int:
    if len(sys.argv) > 1:
        path = sys.argv[1]
    else:
        import gen

        path = gen.generate("jsonl", 1_000_000)
    megatron = not path.endswith((".jsonl", ".json"))
    if megatron:
        from replay_child import MEGATRON_RE

        search = MEGATRON_RE.search

        def bare():
            with open(path, "rb") as f:
                for ln in f:
                    search(ln)

        bare_name = "bare loop: one compiled regex per line"
    else:
        from orjson import loads

        def bare():
            with open(path, "rb") as f:
                for ln in f:
                    loads(ln)

        bare_name = "bare loop: orjson.loads per line"

    items: list = []
    recs: list = []

    def read_items():
        r, _ = registry.open_reader(path)
        items[:] = list(reading.read_items(path, r))

    def read_lines():  # what the live tailer does: each line through reader.feed
        r, _ = registry.open_reader(path)
        out = []
        with open(path, "rb") as f:
            for raw in f:
                out += r.feed(raw.decode("utf-8", "replace").rstrip("\n").rstrip("\r"))
        recs[:] = out + r.flush()

    t_bare = best(bare)
    rows = [(bare_name, t_bare, None)]
    rows.append(("reader: chunks -> Frames (replay)", best(read_items), "replay"))
    n = len(list(expand(items)))
    rows.append(("reader: lines -> StepRecords (live)", best(read_lines, 1), "live"))

    def mon(dets, frames: bool):
        def f():
            m = Monitor(detectors=dets)
            if frames:
                for it in items:
                    if type(it) is Frame:
                        m.feed_frame(it)
                    else:
                        m.feed(it)
            else:
                feed = m.feed
                for r in recs:
                    feed(r)

        return f

    for frames, path_name in ((True, "replay"), (False, "live")):
        k = 3 if frames else 1
        rows.append(
            (
                f"Monitor, {len(DETECTORS)} no-op detectors ({path_name})",
                best(mon([_Noop] * len(DETECTORS), frames), k),
                path_name,
            )
        )
        for D in DETECTORS:
            rows.append((f"Monitor + {D.__name__} only ({path_name})", best(mon([D], frames), k), path_name))
        rows.append((f"Monitor, all detectors ({path_name})", best(mon(None, frames), k), path_name))
    print(
        f"{os.path.basename(path)}: {n:,} records; us/record (process CPU time, best of 3; the live path "
        f"once); ratio = bare loop / this\n"
    )
    print("| stage | us/record | bare / this |")
    print("|---|---|---|")
    for name, t, _ in rows:
        print(f"| {name} | {1e6 * t / n:.3f} | {t_bare / t:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
