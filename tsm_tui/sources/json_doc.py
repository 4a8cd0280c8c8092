"""Metrics saved as ONE JSON document that the run rewrites whole (snapshot readers).

Three shapes, each found by its structure, never by a file name:

* **An array of records** (``JsonArrayReader``): Chainer's LogReport ``results/log``
  (``[{"main/loss": 0.05, "epoch": 0, "iteration": 10, "elapsed_time": 1.26}, ...]``, the
  epoch's last entry with ``validation/main/loss``), history dumps written with
  ``json.dump(list_of_dicts)``. Streamed element by element (memory bounded by one element,
  whatever the file's size); nested objects flattened with ``/`` (as JSON Lines); the step
  from the record's step key (``iteration``, ``step``, ...), else counted. A corrupt element
  is a counted skip and reading goes on at the next ``{``; an array cut short (the file being
  rewritten, a truncated copy) keeps what came before, the cut a counted skip.
* **Columns per metric** (``JsonColumnsReader``): Sacred's FileStorageObserver
  ``metrics.json`` (``{"loss": {"steps": [...], "values": [...], "timestamps": [...]}}``,
  also what MLflow-style exports write) and a Keras ``history.history`` dump
  (``{"loss": [...], "val_loss": [...]}``: the index, 0-based as Keras' CSVLogger writes the
  epoch, is the step). Points of one step from the different metrics merge into one record.
  Such a document cannot be streamed: it is parsed whole up to ``MAX_DOC_BYTES``; a larger
  one is refused, a counted skip saying so. Also groups of columns, each beside its own step
  list (the 2019 NVIDIA DLLogger's ``nvlog.json``: ``{"run": {...}, "epoch": {"x": [0, 1, ..],
  "train_epoch_avg_loss": [..]}, "iter": {"x": [[0..389], [0..389], ..], "train_iteration_loss":
  [[..], ..]}}``, a list per epoch): ``_column_groups``.

* **A history nested in a result object** (``JsonNestedListReader``): a run-summary document whose
  per-step records are a list of objects some levels down (huggingface/peft's benchmark results,
  ``{"run_info": {...}, "train_info": {"metrics": [{"step": 250, "train loss": 1.33, ...}]}}``;
  harnesses' ``history`` / ``results`` lists): the longest list (at most MAX_DEPTH levels down) of
  objects holding a metric, read as the array shape's elements; parsed whole up to
  ``MAX_DOC_BYTES``.

Keys go through the field table (``fields.field_for``: ``main/loss`` is the loss,
``validation/main/loss`` the validation loss). Bare ``NaN`` / ``Infinity`` are read (Python's
json writes them); a number too big for a float (``1e400``) is ``number out of range``.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
from typing import Iterator

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import MAX_LINE, METRICS, SnapshotReader
from tsm_tui.sources.fields import SPLIT_AFTER, epoch_train_loss, field_for, loss_role, normalise, split_rank
from tsm_tui.sources.jsonl import _parse_float, flatten
from tsm_tui.sources.metric_files import read_whole, step_records

#: a columns document parsed whole: the largest (ours: a Sacred metrics.json of ~1M points per
#: metric; json's objects take ~8x the text, so ~0.5 GB at this bound)
MAX_DOC_BYTES = 64 << 20
#: one array element: the bound a JSON line has (base.MAX_LINE)
MAX_ELEMENT = MAX_LINE
CHUNK = 1 << 20
HEAD_CHARS = 64 << 10  # characters of the head the sniffers parse
SNIFF_ELEMENTS = 8  # an array's elements (in the head) the sniffer looks through for a metric (ours)

_DECODER = json.JSONDecoder(parse_float=_parse_float)
_WS = re.compile(r"\s*")


def _skip_ws(text: str, pos: int = 0) -> int:
    """The first position at or after ``pos`` that is not whitespace (``\\s*`` always matches)."""
    m = _WS.match(text, pos)
    return m.end() if m is not None else pos


_NEXT = re.compile(r",\s*(?=\{)")  # the start of the next element of an array of objects
_COLUMNS = re.compile(r'\A\s*\{\s*"(?:[^"\\]|\\.)*+"\s*:\s*\{\s*"(?:steps|values|timestamps)"\s*:\s*\[')
_TBX = re.compile(r'\A\s*\{\s*"(?:[^"\\]|\\.)*+"\s*:\s*\[\s*\[\s*-?\d')
#: ... (a few scalars may come first: fresh112's triplet metrics.json, {"epochs": 200, "train_loss": [...], ...},
#: "no training metrics recognised")
_SCALAR_ENTRY = (
    r'\s*+"(?:[^"\\]|\\.){1,200}+"\s*+:\s*+(?:-?[\d.eE+-]{1,40}+|"(?:[^"\\]|\\.){0,200}+"|true|false|null)\s*+,'
)
_LIST = re.compile(r"\A\s*\{(?:" + _SCALAR_ENTRY + r'){0,8}+\s*"(?:[^"\\]|\\.)*+"\s*:\s*\[\s*(?:-?\d|NaN|-?Infinity)')
#: a per-split statistics document: ``{"training": {"combined": {"loss": [`` (Ludwig's
#: training_statistics.json), ``{"validation": {"loss": [``
_SPLITS = re.compile(r'\A\s*\{\s*"(?:train|training|validation|valid|val|eval|evaluation|test|dev)"\s*:\s*\{\s*"')
_KEY_LIST = re.compile(r'"((?:[^"\\]|\\.){1,200}+)"\s*:\s*\[')
#: a group of columns beside its own step list, anywhere in the head: ``"iter": {"x": [`` (DLLogger 0.x)
_GROUP = re.compile(r'"(?:[^"\\]|\\.){1,200}+"\s*:\s*\{\s*"(?:x|steps?|iters?|iterations?)"\s*:\s*\[')


def _metric_key(k: str) -> bool:
    """A key the readers read as a metric (a field, a loss term / another model's loss, a training loss
    per epoch: the objective of a file that logs no other)."""
    f = field_for(k)
    return f in METRICS or (f is None and (loss_role(k) is not None or epoch_train_loss(k)))


def _head_text(head: list[str]) -> str:
    out, n = [], 0
    for ln in head:
        out.append(ln)
        n += len(ln) + 1
        if n >= HEAD_CHARS:
            break
    return "\n".join(out)


def _too_big(size: int, what: str) -> str:
    return f"JSON document of {size / (1 << 20):.0f} MiB: over the {MAX_DOC_BYTES >> 20} MiB {what}, not read"


def _document(reader: SnapshotReader, data: bytes) -> object | None:
    """A document parsed whole (its counts this reading's), or None, the reason a counted skip."""
    reader.restart()
    if len(data) > MAX_DOC_BYTES:
        reader.skip(f"JSON document over {MAX_DOC_BYTES >> 20} MiB: not read")
        return None
    try:
        return json.loads(data.replace(b"\0", b"").decode("utf-8", "replace"), parse_float=_parse_float)
    except RecursionError:
        reader.skip("JSON nested too deeply")
    except ValueError:
        reader.skip("invalid JSON (file being rewritten?)")
    return None


class JsonArrayReader(SnapshotReader):
    """One JSON array of flat metric records (Chainer LogReport, history dumps)."""

    name = "json-array"
    priority = 19

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        text = _head_text(head)
        i = _skip_ws(text)
        if text[i : i + 1] != "[":
            return 0.0
        i = _skip_ws(text, i + 1)
        # the first SNIFF_ELEMENTS elements in the head: a logger's sparse records put the model's size or
        # the LR first and the loss in a later element (fresh65's CS336 LM: {"step": 0, "model/total_parameters":
        # ...}, {"step": 0, "learning_rate/group_0": 0.0}, then {"step": 0, "train/loss": 9.29, ...})
        for _ in range(SNIFF_ELEMENTS):
            if text[i : i + 1] != "{":
                return 0.0
            try:
                obj, i = _DECODER.raw_decode(text, i)
            except (ValueError, RecursionError):
                return 0.0  # (the element is longer than the head: not sniffed)
            if not isinstance(obj, dict):
                return 0.0
            flat = flatten(obj)
            if any(_metric_key(k) and _number(v) for k, v in flat.items()):
                return 0.9
            i = _skip_ws(text, i)
            if text[i : i + 1] != ",":
                return 0.0
            i = _skip_ws(text, i + 1)
        return 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        with open_regular(path) as f:
            return self._records(f)

    def read_all(self, data: bytes) -> list[StepRecord]:
        """The same from the document's bytes (a caller holding them)."""
        return self._records(io.BytesIO(data))

    def _records(self, f) -> list[StepRecord]:
        self.restart()
        out: list[StepRecord] = []
        for obj in self._elements(f):
            if not isinstance(obj, dict):
                self.skip("array element is not an object")
                continue
            rec = self.build(flatten(obj).items())
            if rec is not None:
                out.append(rec)
        return out

    def _elements(self, f) -> Iterator[object]:
        """The array's elements, one at a time, from ``f`` read in 1 MiB chunks."""
        dec = codecs.getincrementaldecoder("utf-8")("replace")
        buf, pos, eof = "", 0, False
        failed_at = -1  # absolute offset of the last decode error (a second one there: corrupt)
        base = 0  # absolute offset (in characters) of buf[0]

        def more() -> bool:
            nonlocal buf, pos, base, eof
            if eof:
                return False
            data = f.read(CHUNK)
            if not data:
                eof = True
                tail = dec.decode(b"", final=True)
                if tail:
                    buf = buf[pos:] + tail
                    base += pos
                    pos = 0
                return bool(tail)
            base += pos
            buf = buf[pos:] + dec.decode(data.replace(b"\0", b""))
            pos = 0
            return True

        more()
        pos = _skip_ws(buf, pos)
        if buf[pos : pos + 1] != "[":
            self.skip("not a JSON array")
            return
        pos += 1
        hunting = False  # after a bad element: looking for the next one's start
        while True:
            if hunting:
                m = _NEXT.search(buf, pos)
                if m is None:
                    pos = max(pos, len(buf) - 256)  # (keep a tail: a ", {" across the chunks)
                    if more():
                        continue
                    self.skip("rest of the JSON array not read after a bad element")
                    return
                pos, hunting = m.end(), False
            pos = _skip_ws(buf, pos)
            if pos >= len(buf):
                if more():
                    continue
                self.skip("JSON array cut short (file being rewritten?)")
                return
            c = buf[pos]
            if c == "]":
                return
            if c == ",":
                pos += 1
                continue
            try:
                obj, end = _DECODER.raw_decode(buf, pos)
            except RecursionError:
                self.skip("JSON nested too deeply")
                pos, hunting = pos + 1, True
                continue
            except ValueError as e:
                at = base + getattr(e, "pos", pos)
                if not eof and at != failed_at and len(buf) - pos <= MAX_ELEMENT + CHUNK:
                    failed_at = at  # (cut by the chunk's end: more text, then again)
                    more()
                    continue
                if eof and _NEXT.search(buf, pos + 1) is None:
                    # the last element does not end: a document cut short, not a corrupt one
                    self.skip("JSON array cut short (file being rewritten?)")
                    return
                nxt = _NEXT.search(buf, pos + 1)  # (the bad element's end, as far as can be told)
                self.skip(
                    "corrupt JSON element"
                    if nxt is not None and nxt.start() - pos <= MAX_ELEMENT
                    else f"JSON element longer than {MAX_ELEMENT >> 20} MiB"
                )
                pos, hunting = pos + 1, True
                continue
            failed_at = -1
            pos = end
            yield obj


class JsonColumnsReader(SnapshotReader):
    """One JSON object of per-metric columns (Sacred ``metrics.json``, a Keras history dump)."""

    name = "json-columns"
    priority = 19

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        text = _head_text(head)
        if _COLUMNS.match(text):
            # {name: {steps, values, timestamps}}: a metric per key (any name: Sacred's are the script's)
            return 0.9
        if _TBX.match(text) and any(_metric_key(_tbx_name(m.group(1))) for m in _KEY_LIST.finditer(text)):
            return 0.9  # tensorboardX's export_scalars_to_json: {"<logdir>/<tag>": [[wall, step, value], ..]}
        if _LIST.match(text) and any(_metric_key(m.group(1)) for m in _KEY_LIST.finditer(text)):
            return 0.85  # {"loss": [..], "val_loss": [..]}: a history dump
        if _LIST.match(text):
            keys = {m.group(1).lower() for m in _KEY_LIST.finditer(text)}
            if keys & STEP_LISTS and keys & set(SPLIT_NAMES):
                return 0.8  # {"steps": [..], "train": [..], "val": [..]}: losses named by their split only
        if _SPLITS.match(text) and any(_metric_key(m.group(1)) for m in _KEY_LIST.finditer(text)):
            return 0.8  # {"training": {"combined": {"loss": [..]}}, "validation": ...}: per split
        if text[_skip_ws(text) : _skip_ws(text) + 1] == "{" and _GROUP.search(text):
            if any(_metric_key(m.group(1)) for m in _KEY_LIST.finditer(text)):
                return 0.8  # {"epoch": {"x": [..], "train_epoch_avg_loss": [..]}, "iter": ..}: groups with steps
        return 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        self.restart()
        data = read_whole(self, path, MAX_DOC_BYTES, lambda n: _too_big(n, "a per-metric columns file is parsed in"))
        return [] if data is None else self.read_all(data)

    def read_all(self, data: bytes) -> list[StepRecord]:
        doc = _document(self, data)
        if doc is None:
            return []
        if not isinstance(doc, dict):
            self.skip("not a JSON object of metrics")
            return []
        points: dict[int, list[tuple[str, object]]] = {}
        if _tbx_doc(doc):
            return _tbx_records(self, doc)
        groups = _column_groups(doc, MAX_DEPTH)
        if groups and not any(isinstance(c, list) for c in doc.values()):
            return self._group_records(groups)
        # plain lists with a column named for the epoch (a history's "epoch_seconds", "epoch_time")
        # and none that is the epoch: one row per epoch, its index the epoch (step_unit.py)
        per_epoch = (
            all(isinstance(c, list) for c in doc.values())
            and any("epoch" in normalise(str(k)) for k in doc)
            and not any(self.field(str(k)) in ("epoch", "step") for k in doc)
        )
        # a step list beside the columns ({"steps": [0, 1, ...], "train": [..], "val": [..]}): the steps of
        # the lists as long as it; a list k times shorter is one value every k of them (an evaluation
        # every eval_interval steps: a char-GPT's 50 validation losses beside 5,000 training ones, fresh39)
        shared = next((doc[k] for k in doc if str(k).lower() in STEP_LISTS and isinstance(doc[k], list)), None)
        named = not any(self.field(str(k)) in ("loss", "val_loss") for k in doc)
        axis = self._loss_axis(doc) if shared is None and not per_epoch else 0
        for name, col in _columns(doc):
            if shared is not None and col is shared:
                continue
            if named and str(name).lower() in SPLIT_NAMES:
                self._fields[name] = SPLIT_NAMES[str(name).lower()]  # (a loss named by its split only: "train")
            if isinstance(col, list) and shared is not None:
                k = len(shared) // len(col) if col else 0
                if k >= 1 and len(col) * k <= len(shared):
                    values, steps = col, shared[::k][: len(col)]
                else:
                    values, steps = col, range(len(col))
            elif isinstance(col, dict) and isinstance(col.get("values"), list):
                values = col["values"]
                steps = col.get("steps")
                if not isinstance(steps, list):
                    steps = range(len(values))
                elif len(steps) != len(values):
                    self.skip(f"{len(steps)} steps for {len(values)} values (the shorter is read)")
            elif isinstance(col, list):
                values, steps = col, _spaced(len(col), axis)
            else:
                continue  # (a scalar or a note beside the columns)
            for s, v in zip(steps, values):
                step = int64(s) if _number(s) else None
                if step is None:
                    self.skip("bad step")
                    continue
                points.setdefault(step, []).append((name, v))
        out: list[StepRecord] = []
        for step in sorted(points):
            rec = self.build(points[step], step=step)
            if rec is not None:
                if per_epoch and rec.epoch is None:
                    rec.epoch = float(step)
                out.append(rec)
        return out

    def _loss_axis(self, doc: dict) -> int:
        """The steps of a history of lists with no step list whose training loss is one a step: its
        length, when a shorter list is there to place on it (``_spaced``); else 0."""
        lens = {str(k): len(c) for k, c in doc.items() if isinstance(c, list) and c and _number(c[0])}
        n = max((m for k, m in lens.items() if self.field(k) == "loss"), default=0)
        short = [m for m in lens.values() if 2 <= m <= n // 2]
        if not short:
            return 0
        placed = ", ".join(f"{m} values one every {_interval(m, n)} steps" for m in sorted(set(short)))
        self.step_note = f"a list's index; shorter lists over the training loss's {n} steps ({placed})"
        return n

    def _group_records(self, groups: list[tuple[str, list, dict]]) -> list[StepRecord]:
        """Groups of columns, each with its own step list (``_column_groups``): the group with the
        most training-loss points (then points) is read; a step list of one list per epoch is read in order, its steps the
        position from the first (the per-epoch lists restart at 0: ``epoch x iterations + x`` for full
        epochs) unless they rise across the lists. A coarser group with one entry per such list (the
        per-epoch averages, the validation loss) lands on each list's last step; any other group's
        points are counted, not read (another step unit)."""

        def loss_points(g: tuple[str, list, dict]) -> tuple[int, int]:
            train = sum(len(_flat(c)) for n, c in g[2].items() if self.field(n) == "loss" or loss_role(n))
            return train, sum(len(_flat(c)) for c in g[2].values())

        best = max(groups, key=loss_points)
        where, steps, cols = best
        self.where = where
        nested = bool(steps) and all(isinstance(x, list) for x in steps)
        flat = _flat(steps)
        nums = [int64(x) if _number(x) else None for x in flat]
        rising = all(a is not None for a in nums) and all(b > a for a, b in zip(nums, nums[1:]))  # type: ignore[operator]
        at = [int(x) for x in nums] if rising else list(range(len(flat)))  # type: ignore[arg-type]
        if not rising and nested:
            self.step_note = f"the position in {where}'s per-epoch lists (their step restarts each epoch)"
        points: dict[int, list[tuple[str, object]]] = {}
        for name, col in cols.items():
            vals = _flat(col)
            if len(vals) != len(at):
                self.skip(f"{where}/{name}: {len(vals)} values for {len(at)} steps (not read)")
                continue
            for s, v in zip(at, vals):
                points.setdefault(s, []).append((name, v))
        # each per-epoch list's last step, for a coarser group with one entry per list
        ends, i = [], 0
        for inner in steps if nested else []:
            i += len(inner)
            if inner:
                ends.append(at[i - 1])
        for g_where, g_steps, g_cols in groups:
            if g_where == where:
                continue
            n = sum(len(_flat(c)) for c in g_cols.values())
            if nested and not any(isinstance(x, list) for x in g_steps) and 0 < len(g_steps) <= len(ends):
                for name, col in g_cols.items():
                    if len(col) == len(g_steps):
                        for k, v in enumerate(col):
                            points.setdefault(ends[k], []).append((name, v))
                    else:
                        self.count_dropped(f"{g_where}/{name}: not one value per epoch", len(col))
            elif n:
                self.count_dropped(f"points of {g_where} (another step unit than {where}'s)", n)
        return step_records(self, points)

    def describe(self) -> dict:
        out = super().describe()
        if getattr(self, "where", None):  # (a document of column groups: _group_records)
            out["step_source"] = getattr(self, "step_note", None) or f"the step list of {self.where}"
        elif getattr(self, "step_note", None):  # (a history of lists placed on its loss's steps: _loss_axis)
            out["step_source"] = self.step_note
        return out


def _number(x: object) -> bool:
    """``x`` is a JSON number (a bool is no number here)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _interval(m: int, n: int) -> int:
    """The steps between ``m`` evaluations over ``n`` training steps: none at step 0 and none at the
    end when ``n`` is a whole number of ``m + 1`` intervals (a loop of range(n) that evaluates at each
    multiple of the interval but 0: fresh114's GPT-2 runs, 29 over 3,000, their best at 1,700), else one
    at the end of each of ``m`` intervals."""
    return n // (m + 1) if n % (m + 1) == 0 else max(1, round(n / m))


def _spaced(m: int, n: int) -> range:
    """The steps of a list of ``m`` values over a training loss of ``n`` (``_interval``); its index
    when it is not much shorter (or ``n`` is 0: no loss list to place it on)."""
    if not (2 <= m <= n // 2):
        return range(m)
    k = _interval(m, n)
    start = k if n % (m + 1) == 0 else k - 1  # (the end of each interval: the list's index counts from 0)
    return range(start, start + m * k, k)


def _flat(col: list) -> list:
    """A column as one list: a list of lists (one per epoch) joined in order."""
    if col and all(isinstance(x, list) for x in col):
        return [v for inner in col for v in inner]
    return col


def _column_groups(doc, depth: int, at: str = "") -> list[tuple[str, list, dict]]:
    """(path, step list, {name: column}) for each object (``depth`` levels down at most) holding a step
    list (``x``, ``steps``, ``iteration``, ...) and at least one metric list beside it."""
    out: list[tuple[str, list, dict]] = []
    if not isinstance(doc, dict) or depth <= 0:
        return out
    key = next((k for k in doc if str(k).lower() in GROUP_STEPS and isinstance(doc[k], list)), None)
    if key is not None:
        cols = {str(k): v for k, v in doc.items() if k != key and isinstance(v, list) and _metric_key(str(k))}
        if cols:
            out.append((at or "/", doc[key], cols))
    for k, v in doc.items():
        if isinstance(v, dict):
            out += _column_groups(v, depth - 1, f"{at}/{k}")
    return out


def _tbx_doc(doc: dict) -> bool:
    """tensorboardX's ``export_scalars_to_json``: every value a list of [wall time, step, value]."""
    return bool(doc) and all(
        isinstance(v, list) and v and isinstance(v[0], list) and len(v[0]) == 3 for v in doc.values()
    )


def _tbx_name(key: str) -> str:
    """The tag of a tensorboardX export's key ``<logdir>/<main tag>/<tag>`` (``: `` after it in
    ``add_scalars``' keys): its last component, with the one before it when that is a split
    (``<logdir>/Loss/train``: ``Loss/train``, fields.SPLIT_AFTER)."""
    parts = key.strip().rstrip(":").strip().rsplit("/", 2)
    if len(parts) == 3 and parts[2].lower() in SPLIT_AFTER:
        return f"{parts[1]}/{parts[2]}"
    return parts[-1]


#: the names of a columns document's own step list, and the losses named by their split alone
STEP_LISTS = frozenset({"steps", "step", "iters", "iterations", "iteration"})
#: ... and of a column group's (``_column_groups``; DLLogger 0.x names it ``x``)
GROUP_STEPS = STEP_LISTS | {"x", "iter"}
SPLIT_NAMES = {"train": "loss", "training": "loss", "val": "val_loss", "valid": "val_loss", "validation": "val_loss"}

#: levels of nesting a columns document is read through (``split/feature/metric``: Ludwig's 3)
MAX_DEPTH = 4


def _columns(doc: dict, depth: int = MAX_DEPTH) -> list[tuple[str, object]]:
    """The document's (name, column) pairs: a top-level key's value, or for an object of
    objects (a per-split statistics document, Ludwig's ``{"training": {"combined": {"loss":
    [...]}}}``) each nested column named by its path (``training/combined/loss``: the field
    table reads its split, ``validation/combined/loss`` is the validation loss), the training
    split's first and the held-out splits' in the order validation, then test (a record takes
    the first alias of a field: the validation loss, not the test loss)."""
    out: list[tuple[str, object]] = []
    for name, col in doc.items():
        if isinstance(col, dict) and "values" not in col and depth > 1:
            out += [(f"{name}/{k}", c) for k, c in _columns(col, depth - 1)]
        else:
            out.append((name, col))
    return sorted(out, key=lambda kc: split_rank(kc[0]))


def per_split_summary(path: str, reader) -> bool:
    """``path`` (read by ``reader``) is a per-split statistics document (``_SPLITS``: Ludwig's
    training_statistics.json, one value per epoch for each split): the summary of its run,
    never a series of its own beside the run's other logs (``runs.split_series``)."""
    if not isinstance(reader, JsonColumnsReader):
        return False
    try:
        with open_regular(path) as f:
            text = f.read(HEAD_CHARS).decode("utf-8", "replace")
    except OSError:
        return False
    return _SPLITS.match(text) is not None


#: a key and the start of a list of objects, anywhere in the head (the nested shape's sniff)
_LIST_OF_OBJECTS = re.compile(r'"((?:[^"\\]|\\.){1,200}+)"\s*:\s*\[\s*\{')


def _tbx_records(reader: SnapshotReader, doc: dict) -> list[StepRecord]:
    """tensorboardX's export: each key's [wall, step, value] points under its tag (the key's last
    component); keys of several log dirs: the one with the most loss points is read, the others'
    points counted (other runs)."""
    runs: dict[str, list[tuple[str, list]]] = {}
    for key, pts in doc.items():
        k = key.strip().rstrip(":").strip()
        name = _tbx_name(key)
        runs.setdefault(k[: len(k) - len(name)].rstrip("/"), []).append((name, pts))
    # (add_scalars nests one level more: "<logdir>/data/<main tag>/<tag>": a run is the keys' longest
    # common prefix of path components, not each key's parent)
    # (and two log dirs holding the same tags, "runs/a/loss" and "runs/b/loss", are two runs: never merged)
    prefixes = list(runs)
    names = [n for p in prefixes for n, _ in runs[p]]
    if len(prefixes) > 1 and len(set(names)) == len(names):
        same_root = all(p.startswith("/") == prefixes[0].startswith("/") for p in prefixes)
        common = os.path.commonpath(prefixes) if same_root else ""
        if common:
            runs = {common: [x for p in prefixes for x in runs[p]]}

    def loss_points(r: str) -> int:
        return sum(len(p) for n, p in runs[r] if reader.field(n) == "loss")

    best = max(runs, key=loss_points)
    for r, cols in runs.items():
        if r != best and not r.startswith(best + "/"):  # (a main tag under the run's own dir: its add_scalars)
            reader.count_dropped(f"points of another run ({r!r}: not the one read)", sum(len(p) for _, p in cols))
    points: dict[int, list[tuple[str, object]]] = {}
    for name, pts in runs[best]:
        if any(isinstance(e, list) and len(e) == 3 and isinstance(e[1], float) and not e[1].is_integer() for e in pts):
            # a global step is a whole number: a tag whose steps are not is no series of steps (fresh59's MNIST
            # export: its test_loss written as add_scalar(tag, epoch, loss), the loss as the step, the epoch as
            # the value: read as the evaluation loss, "over-fitting")
            reader.count_dropped(f"{name}: steps that are not whole numbers (step and value swapped?)", len(pts))
            continue
        for e in pts:
            if not (isinstance(e, list) and len(e) == 3):
                reader.skip("bad point")
                continue
            step = int64(e[1]) if _number(e[1]) else None
            if step is None:
                reader.skip("bad step")
                continue
            points.setdefault(step, []).append((name, e[2]))
    return step_records(reader, points)


class JsonNestedListReader(SnapshotReader):
    """A result object whose per-step records are a list of objects some levels down."""

    name = "json-nested"
    priority = 18  # (below the array and the columns shapes, which look at the top level)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        text = _head_text(head)
        if text[_skip_ws(text) : _skip_ws(text) + 1] != "{":
            return 0.0
        for m in _LIST_OF_OBJECTS.finditer(text):
            i = m.end() - 1
            try:
                obj, _ = _DECODER.raw_decode(text, i)
            except (ValueError, RecursionError):
                continue  # (its first element is longer than the head)
            if isinstance(obj, dict) and any(_metric_key(k) for k in flatten(obj)):
                return 0.7
        return 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        self.restart()
        data = read_whole(self, path, MAX_DOC_BYTES, lambda n: _too_big(n, "parsed"))
        return [] if data is None else self.read_all(data)

    def read_all(self, data: bytes) -> list[StepRecord]:
        doc = _document(self, data)
        if doc is None:
            return []
        found = _longest_list(doc, MAX_DEPTH)
        if found is None:
            self.skip("no list of metric records in the JSON document")
            return []
        where, items = found
        self.where = where
        out: list[StepRecord] = []
        for obj in items:
            if not isinstance(obj, dict):
                self.skip("list element is not an object")
                continue
            rec = self.build(flatten(obj).items())
            if rec is not None:
                out.append(rec)
        return out

    def describe(self) -> dict:
        where = getattr(self, "where", None)
        return {"step_source": f"the records of the list at {where} of the JSON document"} if where else {}


def _longest_list(doc, depth: int, at: str = "") -> tuple[str, list] | None:
    """(path, list) of the longest list of objects holding a metric in ``doc``, ``depth`` levels down
    at most (the first of equal ones); None when there is none."""
    best: tuple[str, list] | None = None
    if isinstance(doc, dict) and depth > 0:
        for k, v in doc.items():
            here = f"{at}/{k}"
            if isinstance(v, list) and v and isinstance(v[0], dict) and any(_metric_key(x) for x in flatten(v[0])):
                cand: tuple[str, list] | None = (here, v)
            else:
                cand = _longest_list(v, depth - 1, here)
            if cand is not None and (best is None or len(cand[1]) > len(best[1])):
                best = cand
    return best
