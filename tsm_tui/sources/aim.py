"""Aim 3.x repositories (``.aim/``), read without Aim and without writing a byte.

A repository keeps each run in two RocksDB databases (read by ``sources/rocksdb.py``):
``seqs/chunks/<run hash>/`` (the tracked sequences) and ``meta/chunks/<run hash>/``
(the run's tree: contexts, attributes, trace summaries). Aim's own ``Repo()`` opens
them for writing (locks, a progress file, a new WAL), so it is never used here.

Keys are paths (``aim/storage/encoding``): string parts as UTF-8, an integer part as
``0xfe`` + 8 bytes big-endian, each part followed by the sentinel ``0xfe``. Values are
a type byte and the value (``0x02`` int64 little-endian, ``0x03`` double, ``0x04``
UTF-8 text, ``0x06`` / ``0x07`` an array / object follows, ``0x00`` None).
A metric (``aim/sdk/tracker.py``, ``RunTracker._add_value``):

- version 2 (int / float values, aim >= 3.11): ``seqs/v2/chunks/<hash>/<context id>/<name>/``
  ``{val,step,epoch,time}/<hash of the step>``: one point, its step in ``step``;
- version 1 (aim < 3.11, and any sequence of objects): ``seqs/chunks/<hash>/<context
  id>/<name>/val/<step>`` (and ``epoch``, ``time``), the step the key itself; values that
  are not numbers (images, texts, distributions) are passed over.

Only the keys of the directory's own run are kept (``seqs/.../chunks/<hash>/``), and of
them not Aim's resource metrics: a 7-run repository of 24 MB holds 271,560 keys, most
of them ``__system__*``.

A context id is the hash of the context dict ``run.track(..., context={"subset":
"train"})``; the dict is in the meta database under ``meta/chunks/<hash>/contexts/<id>``.
A metric's key here is the context's values then its name (``train/loss``,
``val/loss``; ``loss`` for the empty context), so the field rules read it as they
read W&B's or TensorBoard's ``train/loss``. Aim's own resource tracker
(``__system__cpu``, ``__system__gpu`` ...) counts its own steps and is left out. The run's
name and experiment (``run_metadata.sqlite``, read immutable) are in the file entry.

A run is one source: the directory ``seqs/chunks/<hash>/`` (``kind = "snapshot"``,
re-read whole when its files change); a repository with seven runs is seven runs.
"""

from __future__ import annotations

import os
import sqlite3
import struct
from urllib.parse import quote

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import SnapshotReader
from tsm_tui.sources.config import put_path, tracker_facts
from tsm_tui.sources.metric_files import Points, step_records
from tsm_tui.sources.rocksdb import Damage, Problems, SstCache, read_db

SENTINEL = 0xFE
SYSTEM = "__system__"  # aim's resource tracker's metrics (their steps are its own count)
SYSTEM_PART = b"\xfe" + SYSTEM.encode()  # (a name part starts after a sentinel)
SYSTEM_PARAMS = b"\xfe__system_params\xfe"  # the attributes aim adds itself (packages, environment, git)
MAX_ATTRS = 10000  # attribute values read as the run's config (W&B's reader keeps as many)
FIELDS = ("val", "step", "epoch", "time")
MAX_RUNS = 10000  # run directories taken from one repository (log_files.MAX_FILES likewise)
_DOUBLE = struct.Struct("<d")
_I64 = struct.Struct("<q")
_BE64 = struct.Struct(">q")


def decode_path(key: bytes) -> list[str | int]:
    """A key's parts (``encoding_native.split_path``): an empty part before a sentinel
    starts an integer (8 bytes big-endian, then the sentinel). Raises Damage."""
    out: list[str | int] = []
    n = len(key)
    p = 0
    find = key.find
    while p < n:
        q = find(b"\xfe", p)
        if q < 0:
            raise Damage("key without its closing sentinel")
        if q > p:
            out.append(key[p:q].decode("utf-8", "replace"))
            p = q + 1
        else:
            if p + 10 > n or key[p + 9] != SENTINEL:
                raise Damage("integer key part cut short")
            out.append(_BE64.unpack_from(key, p + 1)[0])
            p += 10
    return out


def decode_value(v: bytes):
    """A stored value (``encoding.decode``) when it is None, a bool, a number or text;
    ``...`` for anything else (arrays, objects, blobs)."""
    if not v:
        return ...
    t = v[0]
    if t == 0:
        return None
    if t == 1 and len(v) == 2:
        return v[1] != 0
    if t == 2 and len(v) == 9:
        return _I64.unpack_from(v, 1)[0]
    if t == 3 and len(v) == 9:
        return _DOUBLE.unpack_from(v, 1)[0]
    if t == 4:
        return v[1:].decode("utf-8", "replace")
    return ...


def is_repo(d: str) -> bool:
    """``d`` is an Aim repository (``.aim/`` with ``seqs/chunks/`` and ``meta/``)."""
    return os.path.isdir(os.path.join(d, "seqs", "chunks")) and os.path.isdir(os.path.join(d, "meta"))


def is_run_dir(d: str) -> bool:
    """``d`` is a run's sequence database ``<repo>/seqs/chunks/<hash>``."""
    d = os.path.abspath(d)
    chunks = os.path.dirname(d)
    seqs = os.path.dirname(chunks)
    return (
        os.path.basename(chunks) == "chunks"
        and os.path.basename(seqs) == "seqs"
        and os.path.isdir(d)
        and is_repo(os.path.dirname(seqs))
    )


def run_dirs(repo: str) -> list[str]:
    """The runs of a repository: its ``seqs/chunks/<hash>/`` directories, by name."""
    chunks = os.path.join(repo, "seqs", "chunks")
    try:
        names = sorted(e.name for e in os.scandir(chunks) if e.is_dir(follow_symlinks=False))
    except OSError:
        return []
    return [os.path.join(chunks, n) for n in names[:MAX_RUNS]]


def _context_key(ctx: dict, name: str) -> str:
    """``train/loss`` for ``{"subset": "train"}``; the bare name for the empty context."""
    parts = [str(v) for _, v in sorted(ctx.items()) if isinstance(v, (str, int, float, bool))]
    return "/".join([*parts, name]) if parts else name


class Series:
    """One tracked metric of a run: its name, context and points (step, value, epoch,
    time; epoch and time None when not tracked), in step order."""

    __slots__ = ("name", "context", "context_id", "points", "alias")

    def __init__(self, name: str, context: dict | None, context_id: int = 0) -> None:
        self.name = name
        self.context = context  # None: the meta database did not say
        self.context_id = context_id
        self.points: list[tuple[int, float, float | None, float | None]] = []
        self.alias: str | None = None  # (an unknown context's name when another has the bare name)

    @property
    def key(self) -> str:
        if self.context is None:
            return self.alias or self.name
        return _context_key(self.context, self.name)


def read_run(
    path: str, problems: Problems, caches: dict[str, SstCache] | None = None, attrs: dict | None = None
) -> list[Series]:
    """The metrics of the run whose sequence database is ``path`` (``seqs/chunks/<hash>``),
    its contexts from ``meta/chunks/<hash>``; damage counted in ``problems``. ``caches``:
    the parsed SSTs of both databases, kept by the caller between reads (live). ``attrs``:
    filled with the run's attributes (``run["hparams"] = {...}``) as a nested mapping,
    Aim's own ``__system_params`` (packages, environment) left out."""
    path = os.path.abspath(path)
    run = os.path.basename(path)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(path)))
    h = run.encode("utf-8", "replace")
    mine = (b"seqs\xfev2\xfechunks\xfe" + h + b"\xfe", b"seqs\xfechunks\xfe" + h + b"\xfe")  # (v2, v1)
    caches = {} if caches is None else caches
    seqs = read_db(path, mine, problems, skip=SYSTEM_PART, cache=caches.setdefault("seqs", {}))
    ctx_prefix = b"meta\xfechunks\xfe" + h + b"\xfecontexts\xfe"
    attr_prefix = b"meta\xfechunks\xfe" + h + b"\xfeattrs\xfe"
    meta_dir = os.path.join(repo, "meta", "chunks", run)
    meta = {}
    if os.path.isdir(meta_dir):
        wanted = (ctx_prefix, attr_prefix) if attrs is not None else (ctx_prefix,)
        meta = read_db(meta_dir, wanted, problems, skip=SYSTEM_PARAMS, cache=caches.setdefault("meta", {}))
    if attrs is not None:
        _attrs(meta, attr_prefix, attrs)
    return _series(seqs, _contexts(meta, ctx_prefix), problems)


def _under(meta: dict[bytes, bytes], prefix: bytes, items):
    """(path parts, raw value) of the keys of ``meta`` under ``prefix`` whose path decodes,
    in the order of ``items`` (``meta.items()``, sorted or not)."""
    for k, v in items:
        if not k.startswith(prefix):
            continue
        try:
            parts = decode_path(k[len(prefix) :])
        except Damage:
            continue
        if parts:
            yield parts, v


def _attrs(meta: dict[bytes, bytes], prefix: bytes, out: dict) -> None:
    """The run's attributes (``meta/chunks/<hash>/attrs/<path>``) as a nested mapping."""
    n = 0
    for parts, v in _under(meta, prefix, sorted(meta.items())):
        x = decode_value(v)
        if x is ... or n >= MAX_ATTRS:
            continue
        put_path(out, [str(q) for q in parts], x)
        n += 1


def _contexts(meta: dict[bytes, bytes], prefix: bytes) -> dict[int, dict]:
    """Context id -> its dict, from the keys ``meta/chunks/<hash>/contexts/<id>/<key>``."""
    out: dict[int, dict] = {}
    for parts, v in _under(meta, prefix, meta.items()):
        if not isinstance(parts[0], int):
            continue
        ctx = out.setdefault(parts[0], {})
        if len(parts) == 2 and isinstance(parts[1], str):
            x = decode_value(v)
            if x is not ... and x is not None:
                ctx[parts[1]] = x
    return out


def _series(seqs: dict[bytes, bytes], contexts: dict[int, dict], problems: Problems) -> list[Series]:
    # (version, context id, name) -> field -> element key -> value
    cols: dict[tuple[int, int, str], dict[str, dict[int, object]]] = {}
    for k, v in seqs.items():
        try:
            parts = decode_path(k)
        except Damage:
            problems.add("undecodable Aim key")
            continue
        if len(parts) == 8 and parts[1] == "v2":
            _, _, _, _, ctx, name, fld, idx = parts
            version = 2
        elif len(parts) == 7 and parts[1] == "chunks":
            _, _, _, ctx, name, fld, idx = parts
            version = 1
        else:
            continue  # (array flags, other trees)
        if not isinstance(ctx, int) or not isinstance(name, str) or not isinstance(idx, int) or fld not in FIELDS:
            continue
        if name.startswith(SYSTEM):
            continue
        x = decode_value(v)
        if x is ...:
            continue  # an image, a text, a distribution: not a metric
        cols.setdefault((version, ctx, name), {}).setdefault(str(fld), {})[idx] = x
    out: dict[tuple[int, str], Series] = {}
    for (version, ctx, name), fields in sorted(cols.items(), key=lambda c: (c[0][2], c[0][1], c[0][0])):
        ser = out.get((ctx, name))
        if ser is None:
            ser = out[(ctx, name)] = Series(name, contexts.get(ctx), ctx)
        steps, epochs, times = fields.get("step", {}), fields.get("epoch", {}), fields.get("time", {})
        for idx, val in fields.get("val", {}).items():
            if isinstance(val, bool) or not isinstance(val, (int, float)):
                if val is not None:
                    problems.add("non-numeric metric value")
                continue
            step = idx if version == 1 else steps.get(idx)
            if isinstance(step, float) and step.is_integer():
                step = int(step)
            if not isinstance(step, int) or int64(step) is None:
                problems.add("Aim point without its step")
                continue
            ser.points.append((step, float(val), _number(epochs.get(idx)), _number(times.get(idx))))
    for ser in out.values():
        ser.points.sort(key=lambda p: p[0])
    found = [s for s in out.values() if s.points]
    _unknown_contexts(found)
    return found


def _unknown_contexts(found: list[Series]) -> None:
    """Series whose context the meta database does not give (missing, damaged): one name
    in several contexts (``loss`` of train and of val) must not merge into one series.
    The one with the most points keeps the bare name; the others are ``context <id>/name``
    (read as extras)."""
    by_name: dict[str, list[Series]] = {}
    for s in found:
        if s.context is None:
            by_name.setdefault(s.name, []).append(s)
    for group in by_name.values():
        group.sort(key=lambda s: -len(s.points))
        for s in group[1:]:
            s.alias = f"context {s.context_id}/{s.name}"


def _number(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


class AimRunReader(SnapshotReader):
    name = "aim"
    priority = 22
    hidden_dirs = (".aim",)

    @classmethod
    def run_dir(cls, d: str) -> bool:
        return is_run_dir(d)

    @classmethod
    def source_dir(cls, dirpath: str, name: str, filenames: list[str]) -> bool:
        # (a walk started inside a repository)
        return os.path.basename(dirpath) == "chunks" and is_run_dir(os.path.join(dirpath, name))

    @classmethod
    def root_sources(cls, d: str) -> list[str] | None:
        if is_repo(d):
            return run_dirs(d)
        return [d] if is_run_dir(d) else None

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._caches: dict[str, SstCache] = {}  # (live: each re-read parses only new tables and the WALs)

    @classmethod
    def sniff_path(cls, path: str) -> float:
        return 0.95 if os.path.isdir(path) and is_run_dir(path) else 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        self.records = 0
        self.skipped = 0
        self.skip_reasons = {}
        problems = Problems()
        attrs: dict = {}
        series = read_run(path, problems, self._caches, attrs)
        self._config(attrs, problems)
        for reason, n in problems.items():
            self.skipped += n
            self.skip_reasons[reason] = self.skip_reasons.get(reason, 0) + n
        run = os.path.basename(os.path.abspath(path))
        self.run_info["aim_run"] = run
        self._names(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(path)))), run)
        points: Points = {}
        for ser in series:
            key = ser.key
            for step, val, epoch, t in ser.points:
                at = points.setdefault(step, [])
                at.append((key, val))
                if epoch is not None:
                    at.append(("epoch", epoch))
                if t is not None:
                    at.append(("time", t))
        return step_records(self, points)

    def _config(self, attrs: dict, problems: Problems) -> None:
        """The run's attributes (``run["hparams"] = {"lr": ..., "batch_size": ...}``) as
        run facts, by the config rules every tracker's config goes through."""
        if not attrs:
            return
        facts = tracker_facts(attrs, "aim run attributes")
        if facts is None:
            problems.add("run attributes that cannot be read")
            return
        for name, v in facts.items():
            self.run_info[name] = v

    def _names(self, repo: str, run: str) -> None:
        """The run's name and experiment from the repository's ``run_metadata.sqlite``
        (read-only, immutable: no lock, no journal written)."""
        db = os.path.join(repo, "run_metadata.sqlite")
        if not os.path.isfile(db):
            return
        try:
            con = sqlite3.connect("file:" + quote(db) + "?mode=ro&immutable=1", uri=True)
            try:
                row = con.execute(
                    "SELECT run.name, experiment.name FROM run LEFT JOIN experiment"
                    " ON run.experiment_id = experiment.id WHERE run.hash = ?",
                    (run,),
                ).fetchone()
            finally:
                con.close()
        except sqlite3.Error:
            return
        if row:
            if row[0]:
                self.run_info["aim_name"] = str(row[0])
            if row[1]:
                self.run_info["aim_experiment"] = str(row[1])

    def describe(self) -> dict:
        out = {}
        for k in ("aim_run", "aim_name", "aim_experiment"):
            if k in self.run_info:
                out[k] = self.run_info[k]
        return out
