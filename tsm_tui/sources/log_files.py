"""Which files of a tree are a run's logs, and which of them are one log.

``candidate_files`` walks a tree (at most ``MAX_DEPTH`` deep, ``DEEP_DEPTH`` when nothing is found
above that; ``SKIP_DIRS`` and
dot-directories passed over, at most ``MAX_FILES``; reaching it is said with
``LIMIT_NOTE``) and keeps the names a log is written under (``is_candidate``);
a tree with none gets ``fallback_files``. A tree where none of those is readable
gets ``content_files``: its other small files that read as text (bounded, what is
passed over counted: ``ContentFallback``). ``group_sources`` makes rotated
segments of one log one source (``sources/segments.py``), told from per-rank
files by their steps (``step_span``, through the file's reader). Which reader a
file gets is ``sources/registry.py``'s; which of these files the live tailer
follows, and when it looks again, is ``sources/tail/discovery.py``'s.
"""

from __future__ import annotations

import os
import re
import stat

from tsm_tui.core.frame import expand
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources import bare_numbers, registry
from tsm_tui.sources import segments as _segments
from tsm_tui.sources.checkpoints import checkpoint_step
from tsm_tui.sources.config import CONFIG_NAMES
from tsm_tui.sources.head import WIDE_PROBE, looks_text, strip_nul, wide_encoding
from tsm_tui.sources.samples import GENERATION_DIRS
from tsm_tui.sources.wandb_run import same_run_files

LOG_EXT = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".log", ".txt", ".out", ".err", ".stdout")
#: log files named without an extension (PaddlePaddle's launcher writes log/workerlog.N, one per rank)
LOG_NAMES = ("stdout", "stderr", "log", "workerlog")
SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", "site-packages", "wandb-cache"}
MAX_FILES = 10000  # log files taken from one tree; reaching it is said (never silent)
LIMIT_NOTE = (
    "more than {n} log files under {path}: only the first {n} are read "
    "(point tsm-watch at a smaller directory, or use --run)"
)
MAX_DEPTH = 6
#: a tree with no log file in its first MAX_DEPTH levels is searched again down to this depth
#: (ours; fresh18: a course's LR-scan runs at artifacts/experiments/logs_tracker/results/<study>/
#: runs/<run>/metrics.jsonl, seven levels below the folder pointed at, read "no log files found"),
#: visiting at most DEEP_DIRS directories (a dataset's nested folders are no reason to hang)
DEEP_DEPTH = 16
DEEP_DIRS = 20000


#: W&B's own diagnostics (``wandb/debug.log``, ``run-*/logs/debug-internal.log``, links
#: at ``wandb/`` to the newest run's): the SDK's log, never the training's
WANDB_DEBUG = ("debug.log", "debug-internal.log", "debug-core.log")


def is_candidate(f: str) -> bool:
    low = f.lower()
    if f in CONFIG_NAMES or low.endswith(("_config.json", "args.json")):
        return False
    if low.startswith("events.out.tfevents."):
        return not low.endswith("profile-empty")
    if low.endswith(".wandb"):
        return low.startswith("run-")  # W&B's run file (run-<id>.wandb)
    if low.endswith(LOG_EXT) or ".log." in low or low in LOG_NAMES or low == "mlflow.db":
        return True
    base, _, n = low.rpartition(".")
    if n.isdigit() and base in LOG_NAMES:
        return True  # workerlog.0, stdout.0: per-rank logs (rotation starts at .1: rotated_base)
    rb = _segments.rotated_base(f)  # train.log-20261203, stdout.1, metrics.jsonl.gz
    return rb is not None and _is_log_name(rb[0])


def _is_log_name(name: str) -> bool:
    """A text log's name (the base of rotated segments)."""
    low = name.lower()
    if low.startswith("events.out.tfevents.") or low == "mlflow.db" or name in CONFIG_NAMES:
        return False
    return low.endswith(LOG_EXT) or low in LOG_NAMES


def group_sources(paths: list[str]) -> list[list[str]]:
    """Candidate paths as logical sources: rotated segments of one log together,
    oldest first, the live file last (sources/segments.py; per-rank ``x.log.N``
    files are told from rotation by their steps)."""
    resumed = same_run_files([p for p in paths if p.endswith(".wandb")])
    if not resumed:
        return _segments.group(paths, _is_log_name, step_span)
    # a W&B run resumed into new run dirs: its run files are one source, oldest first
    inner = {p for g in resumed.values() for p in g}
    out = _segments.group([p for p in paths if p not in inner], _is_log_name, step_span)
    return out + list(resumed.values())


SPAN_BYTES = 64 << 10  # bytes read at each end of a file to find its first and last step


def step_span(path: str) -> tuple[int, int] | None:
    """(first step, last step) of a text log from its first and last 64 KiB, or
    None when they cannot be told (not a line format, no step named, unreadable)."""
    try:
        reader, _ = registry.open_reader(path)
        if reader is None or reader.kind != "lines":
            return None
        with open_regular(path) as f:
            head = f.read(SPAN_BYTES)
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - SPAN_BYTES))
            tail = f.read(SPAN_BYTES)
    except Exception:  # noqa: BLE001 - no span: the caller falls back on the files' times
        return None
    steps: list[int] = []
    for data, cut in ((head, False), (tail, size > SPAN_BYTES)):
        if cut:
            data = data[data.find(b"\n") + 1 :]
        data = data[: data.rfind(b"\n") + 1]
        r = type(reader)(path)
        try:
            recs = [x for x in expand(r.feed_chunk(strip_nul(data)[0])) if x.has_metrics()]
        except Exception:  # noqa: BLE001
            return None
        if not recs or r.inferred_steps:
            return None  # (a step counted, not read, tells nothing)
        steps.append(recs[0].step if not steps else recs[-1].step)
    return steps[0], steps[1]


_ASCII_DIGITS = re.compile(r"([0-9]+)")


def natural(name: str) -> list:
    """Sort key: ``step_20`` before ``step_100``. Only ASCII digit runs are numbers
    (``"²".isdigit()`` is True but ``int("²")`` raises: a file named so in samples/
    would end the report and kill the tailer). Keys of any two names compare:
    text and numbers alternate from a text part."""
    return [int(t) if i % 2 else t for i, t in enumerate(_ASCII_DIGITS.split(name))]


def _walk(root: str):
    """``os.walk`` below ``root`` (errors passed over) with each directory's depth below it;
    the caller sets ``dirnames`` to what it searches (``_searched``)."""
    root = os.path.abspath(root)
    base = root.rstrip(os.sep).count(os.sep)
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
        yield dirpath.count(os.sep) - base, dirpath, dirnames, filenames


def _searched(dirnames: list[str], depth: int, max_depth: int = MAX_DEPTH) -> list[str]:
    """The sub-directories of a directory ``depth`` below the root that are searched, by
    name: none at ``max_depth``, never ``SKIP_DIRS`` or a dot-directory."""
    if depth >= max_depth:
        return []
    return [d for d in sorted(dirnames) if d not in SKIP_DIRS and not d.startswith(".")]


def candidate_files(root: str) -> list[str]:
    """Log-like files below ``root`` (newest first within a directory is not assumed).

    Besides text logs: TensorBoard event files, MLflow ``mlflow.db``, the
    directories of one file per metric (one source per run: its metric files
    together): each MLflow run's ``metrics/`` and each DVCLive directory's
    ``plots/metrics/``, and each run of an Aim repository (``.aim/``, or ``root``
    itself: its ``seqs/chunks/<hash>/``, ``sources.aim``).
    Checkpoint directories are not searched, except that the newest checkpoint's
    ``trainer_state.json`` is offered when its parent has no root copy (it holds
    the full history: the older checkpoints' copies would count steps twice).
    """
    # (a directory-shaped format's rules are its reader's: ``root_sources``, ``hidden_dirs``,
    # ``source_dir`` on every registered reader, sources/base.py)
    for r in registry.READERS:
        found = r.root_sources(root)
        if found is not None:
            return found
    out, cut = _candidates_to(root, MAX_DEPTH)
    if not out and cut:
        out, _ = _candidates_to(root, DEEP_DEPTH, DEEP_DIRS)  # (logs deeper than MAX_DEPTH: DEEP_DEPTH)
        if not out:  # (... and so are the fallback's names: fresh54's console output saved as a .md 7 deep)
            return fallback_files(root, DEEP_DEPTH, DEEP_DIRS)
    return out or fallback_files(root)


def _candidates_to(root: str, max_depth: int, max_dirs: int | None = None) -> tuple[list[str], bool]:
    """``candidate_files`` down to ``max_depth`` levels (and at most ``max_dirs`` directories):
    what it found, and whether a directory was left unsearched at that depth."""
    readers = list(registry.READERS)
    hidden = [(h, r) for r in readers for h in r.hidden_dirs]
    out: list[str] = []
    cut = False
    for n_dirs, (depth, dirpath, dirnames, filenames) in enumerate(_walk(root)):
        if max_dirs is not None and n_dirs >= max_dirs:
            break
        ckpts = []
        keep = []
        for h, r in hidden:
            if h in dirnames:
                out += (r.root_sources(os.path.join(dirpath, h)) or [])[: MAX_FILES - len(out)]
        searched = _searched(dirnames, depth, max_depth)
        cut = cut or (depth >= max_depth and any(d not in SKIP_DIRS and not d.startswith(".") for d in dirnames))
        for d in searched:
            s = checkpoint_step(d, True)
            if any(r.source_dir(dirpath, d, filenames) for r in readers):
                out.append(os.path.join(dirpath, d))  # an MLflow run's metrics, a DVCLive directory's ...
            elif s is not None:
                ckpts.append((s, d))
            else:
                keep.append(d)
        dirnames[:] = keep
        # generations/step_<N>.txt in step order (step_20 before step_100)
        gen = os.path.basename(dirpath) in GENERATION_DIRS
        in_wandb = "wandb" in dirpath.split(os.sep)[-3:]
        bare, as_dir = _bare_sources(dirpath, filenames, in_wandb)
        if as_dir:
            out.append(dirpath)  # one run: its metric files joined by line index (sources.bare_numbers)
        for f in sorted(filenames, key=natural) if gen else sorted(filenames):
            if in_wandb and (f in WANDB_DEBUG or f.startswith("debug-cli.")):
                continue
            if f in bare:
                continue  # (read with their folder, or a real log beside them wins)
            if is_candidate(f):
                out.append(os.path.join(dirpath, f))
                if len(out) >= MAX_FILES:
                    return out, cut
        if ckpts and "trainer_state.json" not in filenames:
            for _, d in sorted(ckpts, reverse=True):
                p = os.path.join(dirpath, d, "trainer_state.json")
                if os.path.isfile(p):
                    out.append(p)
                    break
    return out, cut


MAX_RIVALS = 16  # other log files of a folder sniffed to tell whether a real log is beside bare-number files (ours)


def _bare_sources(dirpath: str, filenames: list[str], in_wandb: bool = False) -> tuple[set[str], bool]:
    """The bare-number metric files of one folder (``sources.bare_numbers``: ``loss.txt``,
    ``val_loss.txt`` of one value per line) that are not offered as files of their own, and
    whether the folder is offered as one source instead. When another file of the folder named
    as a log reads as training metrics, the real log wins: the bare files are not read at all.
    Else the folder is the source (one run, its files joined by line index; one file too, so
    that a metric file written later joins the same source when the folder is followed)."""
    if in_wandb or not any(bare_numbers.metric_name(f) for f in filenames):
        return set(), False  # (a name check only: most folders end here)
    bare = bare_numbers.bare_files(dirpath, filenames)
    if not bare:
        return set(), False
    runs = bare_numbers.other_runs(dirpath, filenames, bare)  # (a re-run's file of the same metric: no rival log)
    others = [f for f in sorted(filenames) if f not in bare and f not in runs and is_candidate(f)]
    for f in others[:MAX_RIVALS]:
        try:
            reader, _ = registry.open_reader(os.path.join(dirpath, f))
        except Exception:  # noqa: BLE001 - a file that cannot be sniffed is no rival
            continue
        if reader is not None and not getattr(reader, "events_only", False):
            return set(bare), False  # the real log wins
    # (the folder's other bare-number files are named by its reader, not read)
    return set(bare) | set(bare_numbers.left_out(dirpath, filenames, bare)) | set(runs), True


#: names a log is saved under when no log-named file is there (only then are they read):
#: a Markdown report that wraps a job's stdout, a job output with no extension, an
#: SGE / PBS job's ``<name>.o<jobid>`` / ``.e<jobid>``
_FALLBACK_NAME = re.compile(r"^[^.]+$|\.md$|\.[oe]\d+$", re.I)
#: files of a source tree, never a log
_NOT_LOG_NAMES = {
    "license",
    "licence",
    "makefile",
    "dockerfile",
    "readme",
    "notice",
    "authors",
    "copying",
    "changelog",
    "latest",
    "version",
    "requirements",
}
MAX_FALLBACK = 20  # files taken by the fallback (ours: a run folder, not a source tree)

# -- the last resort: files taken by their content -------------------------------------------
# A log saved under a name nobody else uses (PaddleNLP's few-shot benchmark writes its Trainer
# logs to ``results/a9/cmnli.base.ft.b``, ``a9.xbase.con``, ``a6.none``, ``logs/csldcp.1.5`` beside
# ``fewclue_submit_examples/*_predict.json``; fresh10) is no log by any name rule. When nothing under
# a tree is readable (no file named as a log, or none of them a training log: the predictions),
# its other small regular files are looked at: the first PEEK_BYTES of each, and those that read
# as text (``head.looks_text``: the sniff's own binary rule) are offered to the readers, whose
# sniff decides, as for every file. Bounded: files named as what is never a log (``_NEVER_PEEKED``:
# checkpoints and weights, arrays, archives, media, compiled files, source code and configs) are
# never opened, nor files over PEEK_MAX_SIZE (a file the readers take is read to its end: a text
# corpus of gigabytes sniffed as a log by chance would be), nor more than MAX_PEEKED files, and at
# most MAX_FALLBACK are taken. What is passed over is counted (``ContentFallback.passed``) and said.
# A verdict is remembered per file state (size, mtime, inode), so a live tailer's re-listing of
# an unchanged tree opens nothing. Only for a tree where nothing was readable: a tree whose logs
# are found by name reads exactly the files it read before (``candidate_files`` is unchanged).
PEEK_BYTES = 4096  # bytes read of a file to tell text from binary (ours)
PEEK_MAX_SIZE = 64 << 20  # bytes: a larger file with an unknown name is not opened (ours)
MAX_PEEKED = 64  # files opened to be looked at, per tree listing (ours: at most 256 KiB read)
#: endings of names that are never a text log (checked before any file is opened)
_NEVER_PEEKED = re.compile(
    r"\.(?:"
    # checkpoints, weights, arrays, serialised objects (TF's model.ckpt-1000.index / .meta too)
    r"pt|pth|ckpt|bin|safetensors|pkl|pickle|joblib|npy|npz|h5|hdf5|keras|onnx|pb|pbtxt|tflite|"
    r"gguf|ggml|msgpack|params|pdparams|pdopt|pdmodel|pdiparams|index|meta|mdl|model|engine|plan|"
    r"trt|ot|mar|nemo|distcp|"
    # data sets and stores
    r"parquet|arrow|feather|tfrecord|tfrecords|record|db|sqlite|sqlite3|lmdb|mdb|idx|zarr|"
    r"avro|orc|hdf|mat|nc|"
    # archives and compressed files (rotated segments of a log-named file are taken by name)
    r"gz|tgz|bz2|xz|zst|lz4|zip|tar|7z|rar|whl|egg|jar|"
    # media and documents
    r"png|jpe?g|gif|bmp|tiff?|webp|svg|ico|pdf|mp[34]|wav|flac|ogg|avi|mov|mkv|webm|"
    r"ttf|otf|woff2?|eps|ps|psd|"
    # compiled files
    r"so|dylib|dll|exe|o|a|pyc|pyo|class|wasm|"
    # source code, notebooks, configs, markup, lock files
    r"py|pyi|pyx|ipynb|sh|bash|zsh|fish|bat|ps1|c|cc|cpp|cxx|h|hh|hpp|cu|cuh|js|mjs|ts|tsx|jsx|"
    r"java|kt|scala|go|rs|rb|pl|php|lua|r|jl|m|swift|sql|html?|css|scss|xml|"
    r"yaml|yml|toml|ini|cfg|conf|properties|env|lock|rst|tex|bib|"
    r"tmp|temp|swp|part|partial|pid|sock|"
    # a git directory's pack files (a mirror, a bare repository)
    r"pack|rev|keep|promisor"
    r")$|~$",
    re.I,
)


class ContentFallback:
    """What the content fallback looked at in one tree listing: the files it took, and
    those it passed over, counted by reason."""

    __slots__ = ("peeked", "taken", "passed")

    def __init__(self) -> None:
        self.peeked = 0  # files opened to be looked at (a remembered verdict opens none)
        self.taken: list[str] = []  # files taken by their content
        self.passed: dict[str, int] = {}  # reason -> files passed over

    def skip(self, why: str) -> None:
        self.passed[why] = self.passed.get(why, 0) + 1

    def passed_text(self) -> str:
        """The files passed over, by reason ("" for none)."""
        return ", ".join(f"{n} {why}" for why, n in self.passed.items())

    def note(self, root: str) -> str | None:
        """What the report and the tailer say, or None (the fallback took nothing and passed nothing over)."""
        if not self.taken and not self.passed:
            return None
        took = (
            f"{len(self.taken)} other file(s) taken by their content ({', '.join(_short(p) for p in self.taken[:3])}"
            f"{' ...' if len(self.taken) > 3 else ''})"
            if self.taken
            else "no other file reads as text"
        )
        passed = self.passed_text()
        return f"no file named as a log under {root}: {took}" + (f"; passed over: {passed}" if passed else "")


def _short(p: str) -> str:
    return os.path.basename(p) or p


#: (path) -> (dev, inode, size, mtime_ns, reads as text): the content fallback's verdicts
_PEEKS: dict[str, tuple[int, int, int, int, bool]] = {}
PEEKS_KEPT = 4096  # verdicts remembered (then forgotten at once; ours)


def _reads_as_text(path: str, st: os.stat_result, seen: ContentFallback) -> bool | None:
    """The file's first PEEK_BYTES read as text (remembered per file state); None when
    it was not opened (MAX_PEEKED reached, or unreadable)."""
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    got = _PEEKS.get(path)
    if got is not None and got[:4] == key:
        return got[4]
    if seen.peeked >= MAX_PEEKED:
        return None
    seen.peeked += 1
    try:
        with open_regular(path) as f:
            raw = f.read(PEEK_BYTES)
    except OSError:
        return None
    text = wide_encoding(raw[:WIDE_PROBE]) is not None or looks_text(raw)
    if len(_PEEKS) >= PEEKS_KEPT:
        _PEEKS.clear()
    _PEEKS[path] = key + (text,)
    return text


def fallback_files(root: str, max_depth: int = MAX_DEPTH, max_dirs: int | None = None) -> list[str]:
    """A tree with no log-named file: its text files named as a log may be saved when
    nobody chose the name (``_FALLBACK_NAME``), at most ``MAX_FALLBACK``; the readers'
    sniff still decides (a ``.md`` with fewer than five records is prose: ``not_a_log``).
    Searched ``max_depth`` levels down (at most ``max_dirs`` directories)."""
    out: list[str] = []
    for n_dirs, (depth, dirpath, dirnames, filenames) in enumerate(_walk(root)):
        if max_dirs is not None and n_dirs >= max_dirs:
            break
        dirnames[:] = _searched(dirnames, depth, max_depth)
        for f in sorted(filenames):
            if (
                _FALLBACK_NAME.search(f)
                and f.lower() not in _NOT_LOG_NAMES
                and os.path.isfile(os.path.join(dirpath, f))
            ):
                out.append(os.path.join(dirpath, f))
                if len(out) >= MAX_FALLBACK:
                    return out
    return out


def content_files(root: str, known, seen: ContentFallback | None = None) -> list[str]:
    """The last resort for a tree where nothing was readable: its files no name rule took
    (not in ``known``, the tree's candidates) that read as text, at most MAX_FALLBACK (see
    above; ``seen`` gets what was taken and passed over). Checkpoint directories are not
    searched (their files are weights, optimizer state and tokenizer files)."""
    seen = seen if seen is not None else ContentFallback()
    known = set(known)
    others: list[str] = []  # (in walk order)
    for depth, dirpath, dirnames, filenames in _walk(root):
        dirnames[:] = [d for d in _searched(dirnames, depth) if checkpoint_step(d, True) is None]
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            if p in known:
                continue
            if len(others) >= MAX_FILES:
                seen.skip(f"past the first {MAX_FILES} files listed")
                continue
            others.append(p)
    return _by_content(others, seen)


#: the first line of Python source: a comment, an import, a definition, a decorator, a docstring, a
#: statement, a name assigned, called or annotated (a log saved under a ``.py`` name starts otherwise)
_PY_START = re.compile(
    r"""^(?:#|import\s|from\s|def\s|class\s|async\s|@|\"\"\"|\'\'\'|if\s|for\s|while\s|with\s|try:|"""
    r"""return\b|print\(|[A-Za-z_][\w.]*\s*(?:=|\(|:|\[))"""
)


#: (path) -> (dev, inode, size, mtime_ns, not Python): ``_saved_as_code``'s verdicts
_CODE_PEEKS: dict[str, tuple[int, int, int, int, bool]] = {}


def _saved_as_code(path: str) -> bool:
    """A file named as Python source whose first line is not Python: a log saved under a code name
    (a ``trainer_state.json`` written to ``__init__.py``: fresh30; a ``nohuo.train.py`` nohup output:
    fresh43). Only the content fallback asks (a tree where nothing else was readable); its first
    PEEK_BYTES read once per file state (remembered, as ``_reads_as_text``'s verdicts)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    got = _CODE_PEEKS.get(path)
    if got is not None and got[:4] == key:
        return got[4]
    verdict = False
    try:
        with open_regular(path) as f:
            head = f.read(PEEK_BYTES)
    except OSError:
        return False
    for ln in head.decode("utf-8", "replace").splitlines():
        t = ln.strip()
        if t:
            verdict = _PY_START.match(t) is None
            break
    if len(_CODE_PEEKS) >= PEEKS_KEPT:
        _CODE_PEEKS.clear()
    _CODE_PEEKS[path] = key + (verdict,)
    return verdict


def _by_content(paths: list[str], seen: ContentFallback) -> list[str]:
    """The files among ``paths`` (none of them named as a log) that read as text, in order."""
    for p in paths:
        f = os.path.basename(p)
        low = f.lower()
        if (
            low.startswith((".", "events.out.tfevents."))
            or low.endswith(LOG_EXT + (".wandb",))  # (a name rule has spoken: a config, W&B's own files)
            or is_candidate(f)  # (a rotated segment: its live file's history, never a log of its own)
            or f in CONFIG_NAMES
            or (
                _NEVER_PEEKED.search(low)
                and not (low.endswith(".py") and _saved_as_code(p))
                and not low.endswith(".ipynb")  # (a notebook's outputs may hold the log: sources/notebook.py)
            )
            or low in _NOT_LOG_NAMES
        ):
            seen.skip("by name (checkpoints, data, archives, code, configs)")
            continue
        try:
            st = os.stat(p)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue  # (FIFOs, sockets, devices: never opened)
        if st.st_size == 0:
            seen.skip("empty")
            continue
        if st.st_size > PEEK_MAX_SIZE:
            seen.skip(f"over {PEEK_MAX_SIZE >> 20} MiB")
            continue
        if len(seen.taken) >= MAX_FALLBACK:
            seen.skip(f"past the first {MAX_FALLBACK} taken")
            continue
        text = _reads_as_text(p, st, seen)
        if text is None:
            seen.skip(f"past the first {MAX_PEEKED} opened")
        elif not text:
            seen.skip("binary")
        else:
            seen.taken.append(p)
    return list(seen.taken)
