"""MLflow tracking data: the file store and the SQLite store.

File store: ``mlruns/<exp>/<run>/metrics/<key>``, one file per metric key
(``/`` in a key makes subdirectories), each line ``<timestamp ms> <value> <step>``.
A run's metrics are one series, so the ``metrics`` *directory* is the source
(``log_files.candidate_files`` offers it; ``sources.metric_files``: re-read whole
when it changes, points of one step from the different keys merged into one
record).

SQLite store (MLflow 3's default ``mlflow.db``): table ``metrics(key, value,
timestamp, run_uuid, step, is_nan)``; the run with the most metric rows is read
(read-only, never written). NaN is ``is_nan = 1``.
"""

from __future__ import annotations

import math
import os
import shutil
import sqlite3
import stat
import tempfile
from contextlib import contextmanager
from urllib.parse import quote

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import SnapshotReader
from tsm_tui.sources.fields import to_float
from tsm_tui.sources.metric_files import Points, each_metric, step_records


def is_run_dir(d: str) -> bool:
    """``d`` is a file store's run: ``mlruns/<exp>/<run_id>/`` (``meta.yaml`` beside ``metrics/``)."""
    return os.path.isfile(os.path.join(d, "meta.yaml")) and os.path.isdir(os.path.join(d, "metrics"))


class MlflowFileStoreReader(SnapshotReader):
    name = "mlflow"
    priority = 22

    @classmethod
    def run_dir(cls, d: str) -> bool:
        return is_run_dir(d)

    @classmethod
    def logger_slot(cls, d: str) -> tuple[str, str, bool] | None:
        if not is_run_dir(d):
            return None
        store = os.path.dirname(os.path.dirname(d))  # P/<mlruns>/<exp>/<run_id>
        return os.path.dirname(store), os.path.basename(store), False

    @classmethod
    def source_dir(cls, dirpath: str, name: str, filenames: list[str]) -> bool:
        return name == "metrics" and "meta.yaml" in filenames  # a run's metrics

    @classmethod
    def sniff_path(cls, path: str) -> float:
        if os.path.isdir(path) and os.path.basename(path.rstrip(os.sep)) == "metrics":
            parent = os.path.dirname(path.rstrip(os.sep))
            if os.path.exists(os.path.join(parent, "meta.yaml")):
                return 0.95
        return 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        points: Points = {}
        for key, lines in each_metric(self, path):
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
                step = int64(parts[2]) if len(parts) > 2 and not by_order else i
                if step is None:
                    self.skip("malformed metric line")
                    continue
                if v is None:
                    self.skip("malformed metric line")
                    continue
                points.setdefault(step, []).append((key, v))
        return step_records(self, points)


MAX_DB_COPY = 256 << 20  # a database + its -wal copied to read them without writing beside them


def _side(path: str) -> str:
    """ "none", "file" (a regular file with data) or "other" (a FIFO, a device ...)."""
    try:
        st = os.stat(path)
    except OSError:
        return "none"
    if not stat.S_ISREG(st.st_mode):
        return "other"
    return "file" if st.st_size > 0 else "none"


@contextmanager
def _connect_ro(path: str):
    """A read-only connection that creates nothing beside the database.

    ``mode=ro`` alone still creates ``mlflow.db-wal`` / ``-shm`` for a WAL-mode
    database (SQLite needs them to read one). So:

    - no ``-wal`` with data beside it (no writer, a rollback-journal database, or a
      ``-wal`` that is no regular file, never opened): ``immutable=1``, no locks, no
      side files;
    - ``-wal`` and ``-shm`` both there (a writer is running): ``mode=ro`` reads the
      newest data and adds nothing;
    - a ``-wal`` without its ``-shm`` (a crashed writer's run dir, copied without it):
      SQLite would create the ``-shm``. The database and its ``-wal`` are copied into
      a private temporary directory and read there (up to MAX_DB_COPY; past it the
      database alone, ``immutable=1``: the last un-checkpointed points are not seen).
    """
    wal, shm = _side(path + "-wal"), _side(path + "-shm")
    uri = "file:" + quote(os.path.abspath(path)) + "?mode=ro"
    if wal != "file":
        con = sqlite3.connect(uri + "&immutable=1", uri=True)
    elif shm == "file":
        con = sqlite3.connect(uri, uri=True)
    else:
        tmp = _private_copy(path)
        if tmp is None:
            con = sqlite3.connect(uri + "&immutable=1", uri=True)
        else:
            try:
                con = sqlite3.connect("file:" + quote(os.path.join(tmp, "m.db")) + "?mode=ro", uri=True)
                try:
                    yield con
                finally:
                    con.close()
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            return
    try:
        yield con
    finally:
        con.close()


def _private_copy(path: str) -> str | None:
    """The database and its -wal copied into a new temporary directory (None: too big or unreadable)."""
    try:
        if os.path.getsize(path) + os.path.getsize(path + "-wal") > MAX_DB_COPY:
            return None
    except OSError:
        return None
    tmp = tempfile.mkdtemp(prefix="tsm-mlflow-")
    try:
        for src, dst in ((path, "m.db"), (path + "-wal", "m.db-wal")):
            with open_regular(src) as fin, open(os.path.join(tmp, dst), "wb") as fout:
                shutil.copyfileobj(_Bounded(fin, MAX_DB_COPY), fout, 1 << 20)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return None
    return tmp


class _Bounded:
    """A file read to at most ``limit`` bytes (a file that grows while copied)."""

    def __init__(self, f, limit: int) -> None:
        self.f, self.left = f, limit

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        data = self.f.read(min(n if n >= 0 else self.left, self.left))
        self.left -= len(data)
        return data


class MlflowSqliteReader(SnapshotReader):
    name = "mlflow-sqlite"
    priority = 22

    @classmethod
    def sniff_path(cls, path: str) -> float:
        if not os.path.isfile(path):
            return 0.0
        try:
            with open_regular(path) as f:
                if f.read(16) != b"SQLite format 3\x00":
                    return 0.0
        except OSError:
            return 0.0
        try:
            with _connect_ro(path) as con:
                cols = {r[1] for r in con.execute("PRAGMA table_info(metrics)")}
        except sqlite3.Error:
            return 0.0
        return 0.95 if {"key", "value", "step", "run_uuid"} <= cols else 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        self.records = 0
        points: Points = {}
        try:
            with _connect_ro(path) as con:
                self._query(con, points)
        except sqlite3.Error as e:
            self.skip(f"cannot open database: {e}")
            return []
        return step_records(self, points)

    def _query(self, con, points: dict) -> None:
        try:
            cols = {r[1] for r in con.execute("PRAGMA table_info(metrics)")}
            row = con.execute(
                "SELECT run_uuid, COUNT(*) AS n FROM metrics GROUP BY run_uuid ORDER BY n DESC LIMIT 1"
            ).fetchone()
            if row is None:
                return
            self.run_info["mlflow_run"] = row[0]
            nan = ", is_nan" if "is_nan" in cols else ", 0"
            q = f"SELECT key, value, step{nan} FROM metrics WHERE run_uuid = ? ORDER BY step, timestamp"
            for key, value, step, is_nan in con.execute(q, (row[0],)):
                v = math.nan if is_nan else to_float(value)
                if v is None:
                    self.skip("non-numeric metric value")
                    continue
                s = int64(step or 0)
                if s is None:
                    self.skip("step out of range")
                    continue
                points.setdefault(s, []).append((key, v))
        except sqlite3.Error as e:
            self.skip(f"database error: {e}")
