"""MLflow tracking data: the file store and the SQLite store.

File store: ``mlruns/<exp>/<run>/metrics/<key>``, one file per metric key
(``/`` in a key makes subdirectories), each line ``<timestamp ms> <value> <step>``.
A run's metrics are one series, so the ``metrics`` *directory* is the source
(``registry.candidate_files`` offers it; ``kind = "snapshot"`` with
``read_path``: it is re-read whole when it changes). Points of one step from the
different keys merge into one record.

SQLite store (MLflow 3's default ``mlflow.db``): table ``metrics(key, value,
timestamp, run_uuid, step, is_nan)``; the run with the most metric rows is read
(read-only, never written). NaN is ``is_nan = 1``.
"""

from __future__ import annotations

import math
import os
import sqlite3

from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import SnapshotReader
from tsm_tui.sources.fields import to_float


def _records(reader: SnapshotReader, points: dict[int, list[tuple[str, float]]]) -> list[StepRecord]:
    out = []
    for step in sorted(points):
        rec = reader.build(points[step], step=step)
        if rec is not None:
            out.append(rec)
    return out


class MlflowFileStoreReader(SnapshotReader):
    name = "mlflow"
    priority = 22

    @classmethod
    def sniff_path(cls, path: str) -> float:
        if os.path.isdir(path) and os.path.basename(path.rstrip(os.sep)) == "metrics":
            parent = os.path.dirname(path.rstrip(os.sep))
            if os.path.exists(os.path.join(parent, "meta.yaml")):
                return 0.95
        return 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        self.records = 0
        self.skipped = 0
        self.skip_reasons = {}
        points: dict[int, list[tuple[str, float]]] = {}
        for dirpath, _, files in os.walk(path):
            for f in sorted(files):
                full = os.path.join(dirpath, f)
                key = os.path.relpath(full, path).replace(os.sep, "/")
                try:
                    with open(full, encoding="utf-8", errors="replace") as fh:
                        lines = fh.read().splitlines()
                except OSError:
                    self.skip("unreadable metric file")
                    continue
                # many points at one step (MLflow's default step 0): use line order
                steps = {ln.split()[2] for ln in lines if len(ln.split()) > 2}
                by_order = len(steps) == 1 and len(lines) > 1
                for i, ln in enumerate(lines):
                    parts = ln.split()
                    if not parts:
                        continue
                    if len(parts) < 2:
                        self.skip("malformed metric line")
                        continue
                    v = to_float(parts[1])
                    try:
                        step = int(parts[2]) if len(parts) > 2 and not by_order else i
                    except ValueError:
                        self.skip("malformed metric line")
                        continue
                    if v is None:
                        self.skip("malformed metric line")
                        continue
                    points.setdefault(step, []).append((key, v))
        return _records(self, points)


class MlflowSqliteReader(SnapshotReader):
    name = "mlflow-sqlite"
    priority = 22

    @classmethod
    def sniff_path(cls, path: str) -> float:
        if not os.path.isfile(path):
            return 0.0
        try:
            with open(path, "rb") as f:
                if f.read(16) != b"SQLite format 3\x00":
                    return 0.0
        except OSError:
            return 0.0
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                cols = {r[1] for r in con.execute("PRAGMA table_info(metrics)")}
            finally:
                con.close()
        except sqlite3.Error:
            return 0.0
        return 0.95 if {"key", "value", "step", "run_uuid"} <= cols else 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        self.records = 0
        points: dict[int, list[tuple[str, float]]] = {}
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        except sqlite3.Error as e:
            self.skip(f"cannot open database: {e}")
            return []
        try:
            cols = {r[1] for r in con.execute("PRAGMA table_info(metrics)")}
            row = con.execute("SELECT run_uuid, COUNT(*) AS n FROM metrics GROUP BY run_uuid "
                              "ORDER BY n DESC LIMIT 1").fetchone()
            if row is None:
                return []
            self.run_info["mlflow_run"] = row[0]
            nan = ", is_nan" if "is_nan" in cols else ", 0"
            q = f"SELECT key, value, step{nan} FROM metrics WHERE run_uuid = ? ORDER BY step, timestamp"
            for key, value, step, is_nan in con.execute(q, (row[0],)):
                v = math.nan if is_nan else to_float(value)
                if v is None:
                    self.skip("non-numeric metric value")
                    continue
                points.setdefault(int(step or 0), []).append((key, v))
        except sqlite3.Error as e:
            self.skip(f"database error: {e}")
        finally:
            con.close()
        return _records(self, points)
