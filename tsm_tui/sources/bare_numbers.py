"""Bare-number metric files: one value per line, the metric named only by the file's name.

What ``np.savetxt("loss.txt", losses)`` or ``f.write(f"{loss}\\n")`` writes: no key, no
step, no header, only numbers (``21.28346061706543``, ``3.478088125000000000e+05``,
``nan``, ``inf``). The metric is the file's name through the key rules of
``sources.fields`` (``loss.txt`` -> loss, ``val_loss.txt`` -> val_loss, ``lr.txt`` -> lr,
``grad_norm.txt``; a loss term such as ``mad_loss.txt`` is a term of the objective); the
step is the line number: **step = line index in the file, 0 = the first line** (blank
lines keep their index, are counted and give no value).

- A file is this format when its name is a metric's (``metric_name``) and its first
  lines are all bare numbers (``bare_head``: NaN / inf are numbers here). A file whose
  name is no metric (``numbers.txt``, ``ids.txt``, ``labels.txt`` of bare integers) is
  never read as one: it would become a loss.
- A folder with such files is ONE run (as MLflow's ``metrics/<key>`` and DVCLive's
  per-metric files are, ``sources.metric_files``): the folder is the source, its files'
  values joined by line index into one record per line (a lone ``loss.txt``: a run of
  one series). The folder, not the file, is the source even for one file, so a
  ``val_loss.txt`` that appears later in a followed folder joins the same source. Files
  in it whose name is no metric are left out and named (``describe``).
- A file given alone (``tsm-watch loss.txt``) is read by itself.
- The source is re-read whole when it changes (``kind = "snapshot"``): a trainer that
  appends a line per step is followed live (the tailer delivers the steps past the
  last snapshot).
- A real log beside them wins: ``log_files.candidate_files`` offers bare-number files
  only in a folder where no other file named as a log reads as training metrics.
- A line that is not a bare number after the head (a file that turns into text half
  way) is counted, not read.
"""

from __future__ import annotations

import os
import re

from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import SnapshotReader
from tsm_tui.sources.fields import field_for, loss_role
from tsm_tui.sources.metric_files import MAX_METRIC_BYTES, step_records

#: extensions a bare-number metric file is written under (``np.savetxt``'s usual ``.txt``)
BARE_EXT = (".txt",)
#: a bare number: a decimal or float literal, or a NaN / Inf spelling
#: (``\d+(?:\.\d*)?``, not ``\d+\.?\d*``: the two runs of digits could split a long one every
#: way, and a 1 MiB line of digits took minutes to refuse: tests/integration/test_hostile.py)
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)", re.I)
SNIFF_LINES = 50  # non-blank lines of a head that must all be bare numbers (ours)
PEEK = 4096  # bytes read of a file to sniff it from discovery (ours)
MAX_FILES = 64  # metric files of one folder read as one run (ours: a folder of many is no run's)
#: fields a metric file feeds that make a run by themselves (a folder of ``epoch.txt`` alone does not)
RUN_FIELDS = frozenset({"loss", "val_loss", "lr", "grad_norm", "loss_scale"})


def metric_name(filename: str) -> str | None:
    """The metric a bare-number file is named after (``loss.txt`` -> ``loss``), or None when
    its name is no metric's: only a name that maps to a record field (``fields.field_for``)
    or that is a training loss term (``fields.loss_role``) is one."""
    low = filename.lower()
    if not low.endswith(BARE_EXT) or low.startswith("."):
        return None
    stem = filename[: -len(".txt")]
    if not stem or field_for(stem) is None and loss_role(stem) is None:
        return None
    return stem


def makes_run(stem: str) -> bool:
    """A metric that makes a run alone: a loss, val loss, lr, grad norm, a loss term."""
    return field_for(stem) in RUN_FIELDS or loss_role(stem) is not None


def bare_head(lines: list[str]) -> bool:
    """The first (up to SNIFF_LINES) non-blank lines are all bare numbers, at least one."""
    n = 0
    for ln in lines:
        t = ln.strip()
        if not t:
            continue
        if not NUMBER.fullmatch(t):
            return False
        n += 1
        if n >= SNIFF_LINES:
            break
    return n > 0


def is_bare_file(path: str) -> bool:
    """``path`` is a regular file named as a metric whose first bytes are bare numbers."""
    return metric_name(os.path.basename(path)) is not None and bare_content(path)


def bare_content(path: str) -> bool:
    """The first bytes of the regular file ``path`` are bare numbers (a FIFO or a device is
    never opened: ``open_regular``; NUL bytes are not this format)."""
    try:
        with open_regular(path) as f:
            raw = f.read(PEEK)
    except OSError:
        return False
    if b"\0" in raw:
        return False
    lines = raw.decode("utf-8", "replace").split("\n")
    if len(raw) == PEEK:
        lines = lines[:-1]  # (the last line may be cut)
    return bare_head(lines)


def bare_files(d: str, names: list[str] | None = None) -> list[str]:
    """The bare-number metric files directly in the folder ``d`` (sorted, at most
    MAX_FILES); none unless one of them makes a run (``makes_run``)."""
    if names is None:
        try:
            names = os.listdir(d)
        except OSError:
            return []
    out = [f for f in sorted(names) if metric_name(f) is not None]
    out = [f for f in out if bare_content(os.path.join(d, f))][:MAX_FILES]
    if not any(makes_run(metric_name(f) or "") for f in out):
        return []
    return out


def left_out(d: str, names: list[str], taken: list[str]) -> list[str]:
    """The other bare-number files of a folder read as one run: named as no metric
    (``mean_absolute_error.txt``, ``ids.txt``), not read (at most MAX_FILES looked at)."""
    got = set(taken)
    cands = [f for f in sorted(names) if f not in got and f.lower().endswith(BARE_EXT) and metric_name(f) is None]
    return [f for f in cands[:MAX_FILES] if bare_content(os.path.join(d, f))]


def is_bare_dir(path: str) -> bool:
    """A folder read as one run of bare-number metric files (one or more of them)."""
    return os.path.isdir(path) and bool(bare_files(path))


class BareNumbersReader(SnapshotReader):
    name = "bare-numbers"
    priority = 21

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.left_out: list[str] = []
        self.lengths: dict[str, int] = {}

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        stem = metric_name(os.path.basename(path))
        if stem is None or not makes_run(stem):
            return 0.0
        return 0.9 if bare_head(head) else 0.0

    @classmethod
    def sniff_path(cls, path: str) -> float:
        return 0.9 if is_bare_dir(path) else 0.0

    def describe(self) -> dict:
        out: dict = {"step_source": "line number: step = line index in the file (0 = the first line)"}
        if len(set(self.lengths.values())) > 1:
            out["lines_per_file"] = dict(self.lengths)  # (joined by line index all the same)
        if self.left_out:
            out["left_out"] = f"named as no metric: {', '.join(self.left_out[:8])}" + (
                " ..." if len(self.left_out) > 8 else ""
            )
        return out

    def read_path(self, path: str) -> list[StepRecord]:
        self.records = 0
        self.skipped = 0
        self.skip_reasons = {}
        self._last_step = 0
        self.lengths = {}
        if os.path.isdir(path):
            try:
                names = sorted(os.listdir(path))
            except OSError:
                self.skip("unreadable folder")
                return []
            files = bare_files(path, names)
            self.left_out = left_out(path, names, files)
            paths = [os.path.join(path, f) for f in files]
        else:
            paths = [path]
        points: dict[int, list[tuple[str, object]]] = {}
        for p in paths:
            key = metric_name(os.path.basename(p)) or os.path.basename(p)
            self.lengths[key] = self._read_file(p, key, points)
        return step_records(self, points)

    def read_all(self, data: bytes) -> list[StepRecord]:
        points: dict[int, list[tuple[str, object]]] = {}
        key = metric_name(os.path.basename(self.path)) or "loss"
        self._lines(data, key, points)
        return step_records(self, points)

    def _read_file(self, path: str, key: str, points: dict) -> int:
        """One metric file's values into ``points`` (line index -> (key, value)); its lines."""
        try:
            with open_regular(path) as fh:
                raw = fh.read(MAX_METRIC_BYTES + 1)
        except OSError:
            self.skip("unreadable metric file")
            return 0
        if len(raw) > MAX_METRIC_BYTES:
            self.skip(f"metric file larger than {MAX_METRIC_BYTES >> 20} MiB (read up to there)")
            raw = raw[: raw.rfind(b"\n", 0, MAX_METRIC_BYTES) + 1]
        return self._lines(raw, key, points)

    def _lines(self, raw: bytes, key: str, points: dict) -> int:
        if b"\0" in raw:
            self.skip("NUL bytes dropped")
            raw = raw.replace(b"\0", b"")
        lines = raw.decode("utf-8", "replace").splitlines()
        full = NUMBER.fullmatch
        for i, ln in enumerate(lines):
            t = ln.strip()
            if not t:
                self.skip("blank line (no value; its line index kept)")
                continue
            if not full(t):
                self.skip("line is not a bare number")
                continue
            points.setdefault(i, []).append((key, t))  # (a string: build says 1e400 is out of range)
        return len(lines)
