"""Sources that keep one file per metric key: MLflow's file store
(``metrics/<key>``) and DVCLive (``plots/metrics/<key>.tsv``). The directory is
one source (``kind = "snapshot"``, re-read whole when it changes); each file is
a column keyed by its path below the directory (``/`` in a key makes
subdirectories), and the points of one step from the different keys merge into
one record."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence

from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import SnapshotReader

MAX_METRIC_BYTES = 256 << 20  # one metric file (about 8M points)
#: a step's points: (key, value) pairs from the metric files
Points = dict[int, list[tuple[str, float]]]


def metric_files(root: str, suffix: str = "") -> Iterator[tuple[str, str]]:
    """(key, path) of the metric files under ``root`` in a stable order; ``suffix``:
    only files ending so, the suffix left out of the key. Links are not followed."""
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for f in sorted(files):
            if suffix and not f.endswith(suffix):
                continue
            full = os.path.join(dirpath, f)
            key = os.path.relpath(full, root).replace(os.sep, "/")
            yield (key[: -len(suffix)] if suffix else key), full


def read_lines(reader: SnapshotReader, path: str) -> list[str] | None:
    """The lines of one metric file, up to MAX_METRIC_BYTES (the rest counted as
    skipped); None (counted) when it cannot be read: a metric file linked to
    /dev/zero is refused (not a regular file)."""
    try:
        with open_regular(path) as fh:
            raw = fh.read(MAX_METRIC_BYTES + 1)
    except OSError:
        reader.skip("unreadable metric file")
        return None
    if len(raw) > MAX_METRIC_BYTES:
        reader.skip(f"metric file larger than {MAX_METRIC_BYTES >> 20} MiB (read up to there)")
        raw = raw[: raw.rfind(b"\n", 0, MAX_METRIC_BYTES) + 1]
    return raw.decode("utf-8", "replace").splitlines()


def each_metric(reader: SnapshotReader, root: str, suffix: str = "") -> Iterator[tuple[str, list[str]]]:
    """(key, lines) of each readable metric file under ``root``, for one whole re-read
    of the source (the reader's counts start again)."""
    reader.records = 0
    reader.skipped = 0
    reader.skip_reasons = {}
    for key, path in metric_files(root, suffix):
        lines = read_lines(reader, path)
        if lines is not None:
            yield key, lines


def step_records(reader: SnapshotReader, points: Mapping[int, Sequence[tuple[str, object]]]) -> list[StepRecord]:
    """One record per step, in step order (a step's (key, value) pairs through ``reader.build``)."""
    out = []
    for step in sorted(points):
        rec = reader.build(points[step], step=step)
        if rec is not None:
            out.append(rec)
    return out


def read_whole(reader: SnapshotReader, path: str, limit: int, too_big: Callable[[int], str]) -> bytes | None:
    """A document parsed whole: the file's first ``limit + 1`` bytes (the parser refuses more), or
    None when the file is larger, ``too_big(size)`` the reason (a counted skip of this reading)."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            reader.skipped, reader.skip_reasons = 0, {}
            reader.skip(too_big(size))
            return None
        return f.read(limit + 1)
