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
- **One list of numbers**: what ``f.write(str(losses))`` or ``json.dump(losses, f)`` writes
  (``[0.5557070970535278, 0.5515666007995605, ...]``, one line or one value per line, Python's
  ``nan`` / ``inf`` and JSON's ``NaN`` / ``Infinity``, NumPy 2's ``np.float64(0.55)`` items):
  **step = the value's index in the list, 0 = the first**. The file is streamed in chunks
  (``LIST_CHUNK``, never ``json.load``: a list file can be large), an item longer than
  ``MAX_ITEM`` is a counted skip that keeps its index (a 1 MiB run of digits costs one pass), an
  item that is not a number is counted, a list cut short (no ``]``: the trainer writes it again
  each epoch, a copy taken mid-write) gives the values it holds.
"""

from __future__ import annotations

import io
import os
import re

import numpy as np

from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import SnapshotReader
from tsm_tui.sources.fields import field_for, loss_role
from tsm_tui.sources.metric_files import MAX_METRIC_BYTES, step_records

#: extensions a bare-number metric file is written under (``np.savetxt``'s usual ``.txt``; a logging
#: FileHandler's ``loss.log`` with a bare "%(message)s" format, fresh26's: "nothing readable"; ``.csv``, ``.dat``)
BARE_EXT = (".txt", ".json", ".log", ".csv", ".dat", ".npy")
#: NumPy's own format (``np.save("train_losses.npy", losses)``): a 1-D array of numbers (or one column /
#: one row), read with ``allow_pickle=False`` (never an object array), memory-mapped, at most
#: MAX_METRIC_BYTES of it (ours: a binary file the text readers cannot take; the index is the step)
NPY_MAGIC = b"\x93NUMPY"
#: a metric's history named as such (``loss_history.json``: a JSON list of every step's loss, fresh19's
#: Gemma fine-tune read "no training metrics recognised"): the metric is the name before the suffix
HISTORY_SUFFIXES = ("_history", "_hist", "_list", "_values", "_curve", "_log")
#: rows of several numbers (``numbers_row``): at most this many columns, separated by tabs, commas or
#: spaces (ours: a train / val / epoch table is 3; more is a table of its own that needs its header)
MAX_COLUMNS = 4
_ROW_SEP = re.compile(r"\s*+[\t,]\s*+|\s++")
_WHOLE = re.compile(r"[+-]?\d{1,18}")
#: a counter, a hyphen or a colon and a decimal with no space (``0001-64.5714``: an improved-YOLOv3
#: loss.txt, fresh40, one epoch a line; ``10:0.334265``: fresh91's MCNet loss.txt, ``f"{step}:{loss}"``
#: every 10 steps, "no training metrics recognised"): two columns, never a subtraction or a clock (no log
#: writes one; a clock's minutes have no decimals); the counter may follow a step word (``epoch 0:1655.5953``:
#: fresh100's BBDM train_loss.txt, ``f"epoch {e}:{loss}"``, "nothing readable")
_COUNTER_DASH = re.compile(
    r"(?:(?:epoch|step|iter(?:ation)?+|it|batch)\s*+)?(\d{1,9})[-:](\d++\.\d++(?:[eE][+-]?\d++)?)", re.I
)
#: a bare number: a decimal or float literal, or a NaN / Inf spelling
#: (``\d+(?:\.\d*)?``, not ``\d+\.?\d*``: the two runs of digits could split a long one every
#: way, and a 1 MiB line of digits took minutes to refuse: tests/integration/test_hostile.py)
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)", re.I)
#: a list item NumPy 2 prints for a float of its own (``str([np.float64(0.5)])``): the number inside
NP_ITEM = re.compile(r"np\.(?:float|int)\d*\(\s*(.*?)\s*\)")
LIST_CHUNK = 1 << 20  # bytes of a list file read at a time (ours)
#: characters of one list item, at most (ours: a float's repr is at most 24, ``np.float64(...)`` 37)
MAX_ITEM = 64
SNIFF_LINES = 50  # non-blank lines of a head that must all be bare numbers (ours)
PEEK = 4096  # bytes read of a file to sniff it from discovery (ours)
MAX_FILES = 64  # metric files of one folder read as one run (ours: a folder of many is no run's)
#: fields a metric file feeds that make a run by themselves (a folder of ``epoch.txt`` alone does not)
RUN_FIELDS = frozenset({"loss", "val_loss", "lr", "grad_norm", "loss_scale"})


def metric_name(filename: str) -> str | None:
    """The metric a bare-number file is named after (``loss.txt`` -> ``loss``, ``loss_history.json``
    -> ``loss``: a list file), or None when
    its name is no metric's: only a name that maps to a record field (``fields.field_for``)
    or that is a training loss term (``fields.loss_role``) is one."""
    low = filename.lower()
    if not low.endswith(BARE_EXT) or low.startswith("."):
        return None
    stem = filename[: filename.rfind(".")]
    for suffix in HISTORY_SUFFIXES:
        if stem.lower().endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    if stem.lower() == "losses":
        return "loss"  # (the plain plural: "losses.txt", the commonest name of all, fresh31; "train_losses" had a role)
    if not _is_metric(stem):
        split = _run_split(stem)
        if split is None:
            return None
        stem = split[0]  # (a second run's file: "train_loss2.txt" is train_loss's; ``run_index``)
    return stem


#: a run's number after a metric's name (``train_loss2.txt``, ``loss_3.txt``, ``val_loss-run2.txt``: a re-run's
#: file beside the first one's; fresh103's pose model, its sick re-run's train_loss2.txt "nothing readable")
RUN_INDEX = re.compile(r"[_\-.]?+(?:run|trial|seed|v)?+[_\-]?+\d{1,3}$", re.I)


def _is_metric(stem: str) -> bool:
    return bool(stem) and (field_for(stem) is not None or loss_role(stem) is not None)


#: ... or before it (``60loss_history.txt``, ``2_train_loss.txt``: a run's or an experiment's number first;
#: fresh124's Keras LSTM runs, "nothing readable" where the same bytes as ``loss_history.txt`` were read)
RUN_PREFIX = re.compile(r"^\d{1,4}+[_\-.]?+(?=[A-Za-z])")


def _run_split(stem: str) -> tuple[str, int] | None:
    """(the metric's name, the run's number) of a stem that is a metric's name and a run's number (RUN_INDEX,
    RUN_PREFIX), else None."""
    m = RUN_INDEX.search(stem)
    if m is not None and m.start() > 0 and _is_metric(stem[: m.start()]):
        return stem[: m.start()], int(re.sub(r"\D", "", m.group()))
    p = RUN_PREFIX.match(stem)
    if p is not None and _is_metric(stem[p.end() :]):
        return stem[p.end() :], int(re.sub(r"\D", "", p.group()))
    return None


def run_index(filename: str) -> int | None:
    """The run number a metric file's name ends with (``train_loss2.txt`` -> 2), None when it has none
    (``loss.txt``; ``fc1_loss.txt``'s is no metric's suffix: its whole stem names the metric)."""
    stem = filename[: filename.rfind(".")] if "." in filename else filename
    split = None if _is_metric(stem) else _run_split(stem)
    return split[1] if split is not None else None


def makes_run(stem: str) -> bool:
    """A metric that makes a run alone: a loss, val loss, lr, grad norm, a loss term."""
    return field_for(stem) in RUN_FIELDS or loss_role(stem) is not None


def list_item(tok: str) -> str | None:
    """One item of a list file as a number's text (``np.float64(0.5)`` -> ``0.5``), or None."""
    t = tok.strip()
    if len(t) > MAX_ITEM:
        return None
    if t[:1] == '"' and t[-1:] == '"' and len(t) > 1:
        t = t[1:-1].strip()  # (a CSV writer's quoted cell: a one-row file's "5.889","6.090")
    if t[:3] == "np.":
        m = NP_ITEM.fullmatch(t)
        if m is None:
            return None
        t = m.group(1)
    return t if NUMBER.fullmatch(t) else None


def list_head(text: str, cut: bool = True) -> bool:
    """``text`` (a file's first bytes; ``cut``: they may stop mid-file) opens one list of numbers:
    ``[`` first, then items that are all numbers (up to SNIFF_LINES of them), at least one, and
    nothing but blanks after its ``]``."""
    t = text.lstrip()
    if t[:1] != "[":
        return False
    body = t[1 : 1 + PEEK]
    end = body.find("]")
    if end >= 0:
        if body[end + 1 :].strip():
            return False  # ("[1, 2] [3, 4]", "[0.5] epoch 3": not one list)
        body, cut = body[:end], False
    items = body.split(",", SNIFF_LINES + 1)[: SNIFF_LINES + 1]
    if cut and len(items) > 1 or len(items) > SNIFF_LINES:
        items = items[:-1]  # (the last may be cut, or the rest of the file)
    if items and not items[-1].strip() and end >= 0 and len(items) > 1:
        items = items[:-1]  # (Python's trailing comma: "[0.5, 0.4,]")
    return bool(items) and all(list_item(x) is not None for x in items)


def row_head(text: str, cut: bool = True) -> bool:
    """``text`` (a file's first bytes; ``cut``: they may stop mid-file) opens one row of numbers: the whole
    series on one line, more than MAX_COLUMNS comma-separated numbers (each may be double-quoted; up to
    SNIFF_LINES of them looked at) and nothing but blanks after that line. What ``f.write(",".join(...))`` or
    a CSV writer's ``writerow(losses)`` writes (fresh100's losses.csv: 19,901 quoted values on one line,
    "no training metrics recognised"); read as a list without its brackets (``_list``)."""
    t = text.lstrip()
    nl = t.find("\n")
    if nl >= 0:
        if t[nl:].strip():
            return False  # (rows of a table, a matrix: not one series)
        t, cut = t[:nl], False
    items = t.split(",", SNIFF_LINES + 1)
    if len(items) <= MAX_COLUMNS:
        return False
    items = items[:SNIFF_LINES]
    if cut and len(items) > 1:
        items = items[:-1]  # (the last may be cut)
    if not items[-1].strip() and len(items) > 1:
        items = items[:-1]  # (a trailing comma)
    return all(list_item(x) is not None for x in items)


def bare_head(lines: list[str]) -> bool:
    """The first (up to SNIFF_LINES) non-blank lines are all bare numbers, at least one; or
    they open one list of numbers (``list_head``), or are one row of them (``row_head``)."""
    first = next((ln for ln in lines if ln.strip()), "")
    if first.lstrip()[:1] == "[":
        return list_head("\n".join(lines[:SNIFF_LINES]))
    if first.count(",") >= MAX_COLUMNS and row_head("\n".join(lines[:SNIFF_LINES])):
        return True
    n = 0
    width = None
    for ln in lines:
        t = ln.strip()
        if not t:
            continue
        row = [t] if NUMBER.fullmatch(t) else numbers_row(t)
        if row is None or width not in (None, len(row)):
            return False  # (not numbers, or rows of different widths: a table of another shape)
        width = len(row)
        n += 1
        if n >= SNIFF_LINES:
            break
    return n > 0


def numbers_row(t: str) -> list[str] | None:
    """A line of 2 to MAX_COLUMNS numbers and nothing else (tab-, comma- or space-separated: what
    ``np.savetxt("losses.txt", np.c_[train, val])`` writes), or None."""
    parts = _ROW_SEP.split(t, MAX_COLUMNS)
    if (len(parts) == 1 or t[:1].isalpha()) and ("-" in t or ":" in t):
        m = _COUNTER_DASH.fullmatch(t)
        return list(m.groups()) if m is not None else None
    if not 2 <= len(parts) <= MAX_COLUMNS or not all(NUMBER.fullmatch(p) for p in parts):
        return None
    return parts


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
    if raw.startswith(NPY_MAGIC):
        return _npy_shape(raw) is not None
    if b"\0" in raw:
        return False
    text = raw.decode("utf-8", "replace")
    if text.lstrip()[:1] == "[":
        return list_head(text, cut=len(raw) == PEEK)
    if row_head(text, cut=len(raw) == PEEK):
        return True
    lines = text.split("\n")
    if len(raw) == PEEK:
        lines = lines[:-1]  # (the last line may be cut)
    return bare_head(lines)


def _is_row(raw: bytes) -> bool:
    """The bytes ``raw`` (a file's first PEEK) open one row of numbers (``row_head``)."""
    return raw.count(b",") >= MAX_COLUMNS and row_head(raw.decode("utf-8", "replace"), cut=len(raw) >= PEEK)


def _npy_header(fh):
    """(number of values, dtype) of the ``.npy`` file read through ``fh`` (its header read, ``fh`` left
    at its data): a 1-D array of real numbers (or one column / one row of them); None for an object,
    string, complex or 2-D array, or a header that is no NumPy header."""
    try:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
        else:
            shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
    except (ValueError, OSError, SyntaxError, TypeError):
        return None
    if dtype.kind not in "fiub" or dtype.hasobject:
        return None
    n = int(np.prod(shape)) if shape else 1
    if len(shape) > 2 or (len(shape) == 2 and min(shape) != 1) or n < 1:
        return None
    return n, dtype


def _npy_shape(raw: bytes) -> int | None:
    """The number of values of a ``.npy`` file whose first bytes are ``raw`` (``_npy_header``), or None."""
    got = _npy_header(io.BytesIO(raw))
    return got[0] if got is not None else None


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
    return _one_run(out)


def _one_run(files: list[str]) -> list[str]:
    """One file per metric: where two name the same one (``train_loss.txt`` and ``train_loss2.txt``, a re-run's
    beside the first run's), the one without a run number, else the lowest number; the others are other runs'
    (``other_runs``), never joined into this one by line index."""
    best: dict[str, str] = {}
    for f in files:
        k = metric_name(f) or f
        cur = best.get(k)
        if cur is None or (run_index(f) or 0) < (run_index(cur) or 0):
            best[k] = f
    keep = set(best.values())
    return [f for f in files if f in keep]


def other_runs(d: str, names: list[str], taken: list[str]) -> list[str]:
    """The bare-number files of a folder named as a metric the run read (``taken``) already has: other runs'
    files (``train_loss2.txt`` beside ``train_loss.txt``), named, not read."""
    got = set(taken)
    have = {metric_name(f) for f in taken}
    cands = [f for f in sorted(names) if f not in got and metric_name(f) in have]
    return [f for f in cands[:MAX_FILES] if bare_content(os.path.join(d, f))]


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
        self.other_runs: list[str] = []  # files of the same metrics, other runs' (``other_runs``): named, not read
        self.lengths: dict[str, int] = {}
        self.listed = False  # a file read was one list of numbers (its step: the list index) ...
        self.row = False  # ... one row of them (its step: the position in the row)
        self.arrays = False  # ... a NumPy array (``.npy``: its step the array index)
        self.columns: str | None = None  # rows of several numbers: which column was read (``_rows``)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        stem = metric_name(os.path.basename(path))
        if stem is None or not makes_run(stem):
            return 0.0
        return 0.9 if bare_head(head) else 0.0

    @classmethod
    def sniff_path(cls, path: str) -> float:
        if path.lower().endswith(".npy"):  # (a binary file: the text sniffers never see it)
            return 0.9 if os.path.isfile(path) and is_bare_file(path) else 0.0
        return 0.9 if is_bare_dir(path) else 0.0

    def describe(self) -> dict:
        how = (
            "array index: step = the value's index in the NumPy array (0 = the first)"
            if self.arrays
            else "list index: step = the value's index in the file's list (0 = the first)"
            if self.listed and not self.row
            else "row position: step = the value's position in the file's one row of numbers (0 = the first)"
            if self.row
            else "line number: step = line index in the file (0 = the first line)"
        )
        if self.columns == "step, then the metric":
            how = "rows of numbers: the first column (a whole number rising on every row) is the step, the second the metric"
        elif self.columns == "a step that starts again, then the metric":
            how += "; rows of a step that starts again (runs appended) and the metric: the second column read"
        elif self.columns:
            how += "; rows of several numbers: the first column is the file's metric, the others are not read"
        out: dict = {"step_source": how}
        if len(set(self.lengths.values())) > 1:
            out["lines_per_file"] = dict(self.lengths)  # (joined by line index all the same)
        if self.left_out:
            out["left_out"] = f"named as no metric: {', '.join(self.left_out[:8])}" + (
                " ..." if len(self.left_out) > 8 else ""
            )
        if self.other_runs:
            out["other_runs"] = (
                f"another run's file of the same metric, not read (give it to tsm-watch alone to read it): "
                f"{', '.join(self.other_runs[:8])}" + (" ..." if len(self.other_runs) > 8 else "")
            )
        return out

    def read_path(self, path: str) -> list[StepRecord]:
        self.restart()
        self.lengths = {}
        if os.path.isdir(path):
            try:
                names = sorted(os.listdir(path))
            except OSError:
                self.skip("unreadable folder")
                return []
            files = bare_files(path, names)
            self.left_out = left_out(path, names, files)
            self.other_runs = other_runs(path, names, files)
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
        if data.startswith(NPY_MAGIC):
            self._npy(io.BytesIO(data), key, points)
        elif data.lstrip()[:1] == b"[" or _is_row(data[:PEEK]):
            fh = io.BytesIO(data)
            self._list(fh, fh.read(PEEK), key, points)
        else:
            self._lines(data, key, points)
        return step_records(self, points)

    def _read_file(self, path: str, key: str, points: dict) -> int:
        """One metric file's values into ``points`` (line index -> (key, value)); its lines
        (a list file's: its items)."""
        try:
            with open_regular(path) as fh:
                raw = fh.read(PEEK)
                if raw.startswith(NPY_MAGIC):
                    return self._npy(fh, key, points)
                if raw.lstrip()[:1] == b"[" or _is_row(raw):
                    return self._list(fh, raw, key, points)
                raw += fh.read(MAX_METRIC_BYTES + 1 - len(raw))
        except OSError:
            self.skip("unreadable metric file")
            return 0
        if len(raw) > MAX_METRIC_BYTES:
            self.skip(f"metric file larger than {MAX_METRIC_BYTES >> 20} MiB (read up to there)")
            raw = raw[: raw.rfind(b"\n", 0, MAX_METRIC_BYTES) + 1]
        return self._lines(raw, key, points)

    def _npy(self, fh, key: str, points: dict) -> int:
        """A ``.npy`` array's values into ``points`` (index -> (key, value)): at most MAX_METRIC_BYTES of
        it (the rest counted), read through ``fh`` after its header (never unpickled)."""
        self.arrays = True
        try:
            fh.seek(0)
            got = _npy_header(fh)
            if got is None:
                self.skip("not a 1-D numeric NumPy array")
                return 0
            n, dtype = got
            keep = min(n, MAX_METRIC_BYTES // max(1, dtype.itemsize))
            data = fh.read(keep * dtype.itemsize)
            values = np.frombuffer(data[: len(data) - len(data) % dtype.itemsize], dtype=dtype)
        except (ValueError, OSError, SyntaxError, TypeError):
            self.skip("unreadable NumPy array")
            return 0
        if keep < n:
            self.skip(f"metric file larger than {MAX_METRIC_BYTES >> 20} MiB (read up to there)")
        for i, v in enumerate(values.astype(float).tolist()):
            points.setdefault(i, []).append((key, v))
        return n

    def _list(self, fh, first: bytes, key: str, points: dict) -> int:
        """A list file's items into ``points`` (item index -> (key, value)), read from ``first``
        (the bytes already read) on through ``fh`` a chunk at a time; the number of items. A row
        file (``row_head``) is a list without brackets, ended by its line's end.
        Memory: one chunk and one item carried over; time: one pass (``bytes.split``)."""
        self.listed = True
        row = first.lstrip()[:1] != b"["
        self.row = self.row or row
        end = b"\n" if row else b"]"
        chunk = first.lstrip() if row else first[first.index(b"[") + 1 :]
        carry = b""  # the start of an item the chunk cut
        long_item = False  # the item being carried is over MAX_ITEM: dropped (its index kept)
        i = 0
        seen = len(first)
        closed = False
        while True:
            if end in chunk:
                chunk, closed = chunk[: chunk.index(end)], True
            parts = chunk.split(b",")
            parts[0] = carry + parts[0] if not long_item else parts[0]
            if closed:
                carry = b""
                if not parts[-1].strip() and (len(parts) > 1 or i == 0):
                    parts.pop()  # (Python's trailing comma, "[0.5, 0.4,]", or an empty list: no item)
            else:
                carry = parts.pop().lstrip()  # (blanks before an item are no part of it)
            for n, tok in enumerate(parts):
                if long_item and n == 0:
                    long_item = False  # (the end of the over-long item: counted when it began)
                    i += 1
                    continue
                i = self._item(tok, i, key, points)
            if closed:
                break
            if len(carry) > MAX_ITEM and not long_item:
                self.skip("list item too long to be a number")
                long_item, carry = True, b""
            elif long_item:
                carry = b""
            if seen >= MAX_METRIC_BYTES:
                self.skip(f"metric file larger than {MAX_METRIC_BYTES >> 20} MiB (read up to there)")
                break
            chunk = fh.read(min(LIST_CHUNK, MAX_METRIC_BYTES - seen))
            seen += len(chunk)
            if not chunk:
                if long_item:
                    i += 1
                elif carry.strip():
                    i = self._item(carry, i, key, points)
                if not row:  # (a row's last line may have no newline)
                    self.skip("list not closed (no ']': cut short; its values read)")
                break
        return i

    def _item(self, tok: bytes, i: int, key: str, points: dict) -> int:
        """One list item at index ``i`` into ``points``; the next index."""
        t = list_item(tok.replace(b"\0", b"").decode("utf-8", "replace"))
        if t is None:
            self.skip("blank list item (no value; its index kept)" if not tok.strip() else "list item is not a number")
        else:
            points.setdefault(i, []).append((key, t))
        return i + 1

    def _lines(self, raw: bytes, key: str, points: dict) -> int:
        if b"\0" in raw:
            self.skip("NUL bytes dropped")
            raw = raw.replace(b"\0", b"")
        lines = raw.decode("utf-8", "replace").splitlines()
        full = NUMBER.fullmatch
        rows: list[tuple[int, list[str]]] = []
        for i, ln in enumerate(lines):
            t = ln.strip()
            if not t:
                self.skip("blank line (no value; its line index kept)")
                continue
            if not full(t):
                row = numbers_row(t)
                if row is None:
                    self.skip("line is not a bare number")
                    continue
                rows.append((i, row))
                continue
            points.setdefault(i, []).append((key, t))  # (a string: build says 1e400 is out of range)
        if rows:
            self._rows(rows, key, points)
        return len(lines)

    def _rows(self, rows: list[tuple[int, list[str]]], key: str, points: dict) -> None:
        """Rows of numbers (``numbers_row``): the first column is the file's metric, at its line
        index; when that column holds whole numbers and the second does not, the second is the
        metric (``np.savetxt`` of ``np.c_[steps, losses]``), at the first column's step when it rises
        on every row, else at its line index (a step that starts again: runs appended to the file,
        fresh33's two-column files read their steps as the loss). Said in ``step_source``."""
        firsts = [r[0] for _, r in rows]
        whole = all(_WHOLE.fullmatch(v) for v in firsts) and not all(_WHOLE.fullmatch(r[1]) for _, r in rows)
        rising = whole and all(int(a) < int(b) for a, b in zip(firsts, firsts[1:]))
        self.columns = (
            "step, then the metric"
            if rising
            else "a step that starts again, then the metric"
            if whole
            else "the metric, then other columns"
        )
        for i, r in rows:
            if rising:
                points.setdefault(int(r[0]), []).append((key, r[1]))
            else:
                points.setdefault(i, []).append((key, r[1] if whole else r[0]))
