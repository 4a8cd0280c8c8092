"""TensorBoard scalars exported to CSV (snapshot reader: an export is written whole).

Two shapes, each found by its header:

* **The web UI's "Download CSV"** (one scalar a file): ``Wall time,Step,Value``, the tag only in
  the file's name, ``run-<run>-tag-<tag>.csv`` (the UI writes a tag's ``/`` as ``_``), or the
  name a user gave the file (``loss.csv``, ``train_loss.csv``). The tag must name a metric the
  field table knows (a loss, an LR, a grad norm ...): a ``run-.-tag-accuracy.csv`` is not a log
  of training.
* **Long form** (every scalar of a run in one table, one point a row): a ``tag`` (or
  ``metric`` / ``name`` / ``key``) column, a ``step`` column and a ``value`` column, any others
  (``filename``, ``run``, ``wall_time``) beside them: what ``ExperimentFromDev.get_scalars()``
  and scripts over ``EventAccumulator`` write. Rows come tag after tag (all of ``train/loss``,
  then all of ``lr``): with wall times they are put back in the order they were written (a
  run resumed or relaunched, its steps starting again, stays in the order it ran) and the
  points of one step merge into one record; without, they are pivoted by step, in step order,
  a point written twice (same tag, same step) keeping its last value, the repeat counted. With
  a ``run`` column naming several runs, the run with the most loss points is read and the
  other runs' rows are counted as skipped (they are other trainings).

Parsed whole up to ``MAX_DOC_BYTES`` (a larger export is refused, a counted skip saying so).
"""

from __future__ import annotations

import csv
import io
import os
import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import METRICS, SnapshotReader
from tsm_tui.sources.fields import field_for, loss_role
from tsm_tui.sources.metric_files import read_whole, step_records

#: an export parsed whole: the largest (ours: ~1M points of ~60 bytes)
MAX_DOC_BYTES = 64 << 20
_UI_HEADER = ("wall time", "step", "value")
_TAG_COLUMNS = ("tag", "metric", "name", "key", "series")
#: the UI's file name: run-<run>-tag-<tag>.csv (the run may hold dashes; the tag follows the last "-tag-")
_UI_NAME = re.compile(r"^run-.*-tag-(?P<tag>.+)\.csv$", re.IGNORECASE)


def _metric(tag: str) -> bool:
    f = field_for(tag)
    return f in METRICS or (f is None and loss_role(tag) is not None)


def _ui_tag(path: str) -> str:
    """The tag of a UI export named ``path``: from ``-tag-<tag>.csv``, else the file's stem."""
    name = os.path.basename(path)
    m = _UI_NAME.match(name)
    return m.group("tag") if m else os.path.splitext(name)[0]


def _header(line: str) -> list[str] | None:
    try:
        row = next(csv.reader([line.strip().strip("\ufeff")]), [])
    except csv.Error:
        return None
    return [c.strip().lower() for c in row]


def _long_form(header: list[str]) -> tuple[int, int, int] | None:
    """(tag, step, value) columns of a long-form export's header, or None."""
    if "step" not in header or "value" not in header:
        return None
    tag = next((header.index(c) for c in _TAG_COLUMNS if c in header), None)
    return None if tag is None else (tag, header.index("step"), header.index("value"))


class TbExportCsvReader(SnapshotReader):
    """TensorBoard scalars exported to CSV (the UI's one-tag files, long-form tables)."""

    name = "tensorboard-csv"
    priority = 19  # (above the generic CSV reader: its header names no metric)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        lines = [ln for ln in head if ln.strip()]
        if len(lines) < 2:
            return 0.0
        header = _header(lines[0])
        if header is None:
            return 0.0
        if tuple(header) == _UI_HEADER:
            return 0.9 if _metric(_ui_tag(path)) else 0.0
        cols = _long_form(header)
        if cols is None:
            return 0.0
        tags = set()
        for ln in lines[1:]:
            try:
                row = next(csv.reader([ln]), [])
            except csv.Error:
                continue
            if len(row) == len(header):
                tags.add(row[cols[0]].strip())
        return 0.9 if any(_metric(t) for t in tags) else 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        data = read_whole(
            self,
            path,
            MAX_DOC_BYTES,
            lambda n: (
                f"TensorBoard CSV export of {n / (1 << 20):.0f} MiB: over the {MAX_DOC_BYTES >> 20} MiB "
                "an export is parsed in, not read"
            ),
        )
        return [] if data is None else self.read_all(data)

    def read_all(self, data: bytes) -> list[StepRecord]:
        self.skipped, self.skip_reasons = 0, {}
        if len(data) > MAX_DOC_BYTES:
            self.skip(f"TensorBoard CSV export over {MAX_DOC_BYTES >> 20} MiB: not read")
            return []
        text = data.replace(b"\0", b"").decode("utf-8", "replace").lstrip("\ufeff")
        rows = csv.reader(io.StringIO(text, newline=""))
        try:
            header = [c.strip().lower() for c in next(rows)]
        except (StopIteration, csv.Error):
            self.skip("empty or malformed CSV export")
            return []
        ui = tuple(header) == _UI_HEADER
        cols = (None, 1, 2) if ui else _long_form(header)
        if cols is None:
            self.skip("not a TensorBoard CSV export (no tag, step and value columns)")
            return []
        ti, si, vi = cols
        tag0 = _ui_tag(self.path)
        run_col = header.index("run") if not ui and "run" in header else None
        wall = next((i for i, h in enumerate(header) if field_for(h) == "time"), None)
        # run -> [(wall time, row number, step, tag, value)]
        points: dict[str, list[tuple[float, int, int, str, str]]] = {}
        try:
            for n, row in enumerate(rows):
                if not any(c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    self.skip("wrong number of cells")
                    continue
                if [c.strip().lower() for c in row] == header:
                    continue  # (the header again: exports concatenated)
                try:
                    step = int64(float(row[si]))
                except ValueError:
                    step = None
                if step is None:
                    self.skip("bad step")
                    continue
                try:
                    t = float(row[wall]) if wall is not None else 0.0
                except ValueError:
                    t = 0.0
                run = row[run_col].strip() if run_col is not None else ""
                tag = tag0 if ti is None else row[ti].strip()
                points.setdefault(run, []).append((t, n, step, tag, row[vi].strip()))
        except csv.Error:
            self.skip("malformed CSV (the rest not read)")
        if not points:
            return []
        run = max(points, key=lambda r: sum(1 for p in points[r] if field_for(p[3]) == "loss"))
        for other, pts in points.items():
            if other != run:
                self.count_dropped(f"rows of another run ({other!r}: not the one read)", len(pts))
        return self._records(points[run], wall is not None)

    def _records(self, pts: list[tuple[float, int, int, str, str]], timed: bool) -> list[StepRecord]:
        """The points as records. With wall times (the UI's export, most scripts'), in time
        order: a run resumed or relaunched (its steps start again) stays in the order it ran,
        consecutive points of one step merge. Without (a long form of tags one after another):
        pivoted by step, in step order."""
        if not timed and len({p[3] for p in pts}) > 1:
            by_step: dict[int, dict[str, str]] = {}
            for _, _, step, tag, v in pts:
                at = by_step.setdefault(step, {})
                if tag in at:
                    self.skip("point written twice (the last kept)")
                at[tag] = v
            return step_records(self, {s: list(p.items()) for s, p in by_step.items()})
        if timed:
            pts = sorted(pts)
        out: list[StepRecord] = []
        cur: dict[str, str] = {}
        cur_step: int | None = None
        for _, _, step, tag, v in pts:
            if step != cur_step or tag in cur:
                if cur_step is not None:
                    rec = self.build(list(cur.items()), step=cur_step)
                    if rec is not None:
                        out.append(rec)
                cur, cur_step = {}, step
            cur[tag] = v
        if cur_step is not None:
            rec = self.build(list(cur.items()), step=cur_step)
            if rec is not None:
                out.append(rec)
        return out
