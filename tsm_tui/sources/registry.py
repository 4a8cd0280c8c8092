"""The readers, and which one a file gets: find a run's log files, sniff them.

Readers are tried in priority order; the best sniff score wins. Binary files,
checkpoints and configs are passed over with a stated reason. Reading a finished
file to its end is ``sources/reading.py``'s.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

from tsm_tui.core.frame import expand
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.config import CONFIG_NAMES
from tsm_tui.sources.blocks import ComposerReader, OLMoReader
from tsm_tui.sources.build_nanogpt import BuildNanoGPTReader
from tsm_tui.sources.console import ConsoleReader, stream_name
from tsm_tui.sources.csv_reader import CsvReader
from tsm_tui.sources.fairseq import FairseqReader
from tsm_tui.sources.hf_stdout import HFStdoutReader
from tsm_tui.sources.head import (
    DEEP_BYTES,
    TAIL_BYTES,
    deep_lines,
    hinted_lines,
    sample_head,
    strip_nul,
    tail_lines,
)
from tsm_tui.sources.hf_trainer_state import HFTrainerStateReader
from tsm_tui.sources.dvclive import DvcliveReader, is_dvclive_dir
from tsm_tui.sources.json_doc import JsonArrayReader, JsonColumnsReader
from tsm_tui.sources.jsonl import JsonlReader
from tsm_tui.sources.keras_stdout import KerasProgressReader
from tsm_tui.sources.generic_text import KeyValueTextReader
from tsm_tui.sources.mlflow import MlflowFileStoreReader, MlflowSqliteReader
from tsm_tui.sources import segments as _segments
from tsm_tui.sources.samples import GENERATION_DIRS, GenerationTextReader, SamplesJsonlReader
from tsm_tui.sources.structured import KerasCsvReader, LightningCsvReader, LlamaFactoryReader, WandbSummaryReader
from tsm_tui.sources.tensorboard import TensorBoardReader
from tsm_tui.sources.yolo_results_txt import YoloResultsTxtReader
from tsm_tui.sources.wandb_run import WandbRunReader, same_run_files
from tsm_tui.sources.text_formats import (
    DeepSpeedReader,
    LlmcReader,
    MegatronReader,
    ModdedNanoGPTReader,
    NanoGPTReader,
    NeMoReader,
    TorchtitanReader,
    WandbOutputReader,
)

# highest priority first; a file goes to the reader with the best sniff score
READERS: list[type[LineReader]] = sorted(
    [
        HFTrainerStateReader,
        TensorBoardReader,
        WandbRunReader,
        MlflowFileStoreReader,
        MlflowSqliteReader,
        DvcliveReader,
        LlamaFactoryReader,
        JsonlReader,
        JsonArrayReader,
        JsonColumnsReader,
        LightningCsvReader,
        KerasCsvReader,
        CsvReader,
        YoloResultsTxtReader,
        OLMoReader,
        ComposerReader,
        FairseqReader,
        HFStdoutReader,
        MegatronReader,
        NeMoReader,
        LlmcReader,
        ModdedNanoGPTReader,
        NanoGPTReader,
        TorchtitanReader,
        WandbOutputReader,
        DeepSpeedReader,
        KeyValueTextReader,
        WandbSummaryReader,
        SamplesJsonlReader,
        GenerationTextReader,
        BuildNanoGPTReader,
        KerasProgressReader,
    ],
    key=lambda r: -r.priority,
)

LOG_EXT = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".log", ".txt", ".out", ".err", ".stdout")
#: log files named without an extension (PaddlePaddle's launcher writes log/workerlog.N, one per rank)
LOG_NAMES = ("stdout", "stderr", "log", "workerlog")
SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", "site-packages", "wandb-cache"}
HEAD_BYTES = 64 * 1024  # (the head is sampled by sources/head.py)
HEAD_SNIFF_LINES = 400  # lines of a head the generic text sniffer reads (KeyValueTextReader.sniff)
BINARY = "binary file (NUL bytes): not a text log"
MAX_FILES = 10000  # log files taken from one tree; reaching it is said (never silent)
LIMIT_NOTE = (
    "more than {n} log files under {path}: only the first {n} are read "
    "(point tsm-watch at a smaller directory, or use --run)"
)
MAX_DEPTH = 6


def register(reader: type[LineReader]) -> None:
    """Add a reader (framework formats plug in here)."""
    if reader not in READERS:
        READERS.append(reader)
        READERS.sort(key=lambda r: -r.priority)


@dataclass
class FileInfo:
    path: str
    format: str | None = None
    records: int = 0
    skipped_lines: int = 0
    skip_reasons: dict[str, int] = field(default_factory=dict)
    note: str | None = None
    used: bool = False
    score: float = 0.0
    #: older rotated segments read before this file, oldest first (one series)
    segments: list[str] = field(default_factory=list)
    #: bytes the sniffing looked at (the tailer resumes a deep sniff from here)
    sniffed_to: int = 0
    #: what the reader says of the file (``LineReader.describe``: the step's key, a console, an exit code)
    details: dict = field(default_factory=dict)
    #: the file's channel the run's checks use, when not its main one (``console``)
    channel: str | None = None
    #: the training objective, when the log names several losses (fields.objective)
    objective: str | None = None

    def to_json(self) -> dict:
        d = {
            "path": self.path,
            "format": self.format,
            "records": self.records,
            "skipped_lines": self.skipped_lines,
            "used": self.used,
        }
        if self.skip_reasons:
            d["skip_reasons"] = dict(self.skip_reasons)
        if self.note:
            d["note"] = self.note
        if self.segments:
            d["segments"] = list(self.segments)
        if self.details:
            d.update(self.details)
        if self.channel:
            d["channel"] = self.channel
        if self.objective:
            d["objective"] = self.objective
        return d


#: W&B's own diagnostics (``wandb/debug.log``, ``run-*/logs/debug-internal.log``, links
#: at ``wandb/`` to the newest run's): the SDK's log, never the training's
WANDB_DEBUG = ("debug.log", "debug-internal.log", "debug-core.log")


def _is_candidate(f: str) -> bool:
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
        reader, _ = open_reader(path)
        if reader is None or reader.kind != "lines":
            return None
        with open_regular(path) as f:
            head = f.read(SPAN_BYTES)
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - SPAN_BYTES))
            tail = f.read(SPAN_BYTES)
    except Exception:  # noqa: BLE001 - no span: the caller falls back on the files' times
        return None
    steps = []
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


def _natural(name: str) -> list:
    """Sort key: ``step_20`` before ``step_100``. Only ASCII digit runs are numbers
    (``"²".isdigit()`` is True but ``int("²")`` raises: a file named so in samples/
    would end the report and kill the tailer). Keys of any two names compare:
    text and numbers alternate from a text part."""
    return [int(t) if i % 2 else t for i, t in enumerate(_ASCII_DIGITS.split(name))]


def candidate_files(root: str) -> list[str]:
    """Log-like files below ``root`` (newest first within a directory is not assumed).

    Besides text logs: TensorBoard event files, MLflow ``mlflow.db``, and the
    directories of one file per metric (one source per run: its metric files
    together): each MLflow run's ``metrics/`` and each DVCLive directory's
    ``plots/metrics/``.
    Checkpoint directories are not searched, except that the newest checkpoint's
    ``trainer_state.json`` is offered when its parent has no root copy (it holds
    the full history: the older checkpoints' copies would count steps twice).
    """
    out: list[str] = []
    root = os.path.abspath(root)
    base = root.rstrip(os.sep).count(os.sep)
    from tsm_tui.sources.checkpoints import checkpoint_step

    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
        depth = dirpath.count(os.sep) - base
        ckpts = []
        keep = []
        for d in sorted(dirnames):
            if d in SKIP_DIRS or d.startswith(".") or depth >= MAX_DEPTH:
                continue
            s = checkpoint_step(d, True)
            if s is not None:
                ckpts.append((s, d))
            elif d == "metrics" and "meta.yaml" in filenames:
                out.append(os.path.join(dirpath, d))  # an MLflow run's metrics
            elif d == "metrics" and os.path.basename(dirpath) == "plots" and is_dvclive_dir(os.path.dirname(dirpath)):
                out.append(os.path.join(dirpath, d))  # a DVCLive directory's metrics
            else:
                keep.append(d)
        dirnames[:] = keep
        # generations/step_<N>.txt in step order (step_20 before step_100)
        gen = os.path.basename(dirpath) in GENERATION_DIRS
        in_wandb = "wandb" in dirpath.split(os.sep)[-3:]
        for f in sorted(filenames, key=_natural) if gen else sorted(filenames):
            if in_wandb and (f in WANDB_DEBUG or f.startswith("debug-cli.")):
                continue
            if _is_candidate(f):
                out.append(os.path.join(dirpath, f))
                if len(out) >= MAX_FILES:
                    return out
        if ckpts and "trainer_state.json" not in filenames:
            for _, d in sorted(ckpts, reverse=True):
                p = os.path.join(dirpath, d, "trainer_state.json")
                if os.path.isfile(p):
                    out.append(p)
                    break
    return out or fallback_files(root)


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


def fallback_files(root: str) -> list[str]:
    """A tree with no log-named file: its text files named as a log may be saved when
    nobody chose the name (``_FALLBACK_NAME``), at most ``MAX_FALLBACK``; the readers'
    sniff still decides (a ``.md`` with fewer than five records is prose: ``not_a_log``)."""
    out: list[str] = []
    root = os.path.abspath(root)
    base = root.rstrip(os.sep).count(os.sep)
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        if dirpath.count(os.sep) - base >= MAX_DEPTH:
            dirnames[:] = []
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


def deep_sniff(path: str, start: int, stop: int = DEEP_BYTES) -> tuple[type[LineReader] | None, float, int]:
    """Nothing recognised in the head: scan on from ``start`` in bounded windows,
    sniffing the lines that carry a metric-ish word; stop at a confident match
    (>= 0.7: a named format, or five generic hits). Returns (reader, score, offset reached)."""
    best, score, reached = None, 0.0, start
    cands: list[str] = []
    for lines, reached in deep_lines(path, start, stop):  # noqa: B007  (read after the loop)
        if not lines:
            continue
        cands += lines
        cls, s = sniff(path, cands[-2000:])
        if cls is not None and s > score:
            best, score = cls, s
        if score >= 0.7:
            break
    return best, score, reached


def sniff(path: str, head: list[str]) -> tuple[type[LineReader] | None, float]:
    best, score = None, 0.0
    for r in READERS:
        if score >= 1.0 and not issubclass(r, best):
            continue  # no sniff scores above 1.0: only a more specific flavour could still win (a tie)
        try:
            s = r.sniff(path, head)
        except Exception:  # noqa: BLE001 - a reader that cannot sniff this head does not read it
            continue
        # a tie goes to the more specific reader (a named flavour of the generic one)
        if s > score or (s == score and s > 0 and best is not None and issubclass(r, best)):
            best, score = r, s
    return best, score


def _console_reader(path: str, head: list[str]) -> type[LineReader] | None:
    cls, _score = sniff(path, head)
    if cls is not None and cls.kind == "lines":
        return cls
    # no metrics in it (yet): read for its crash lines, and as a format once metrics appear
    return ConsoleReader


# the console inside a W&B run file reads like its files/output.log
WandbRunReader.console_sniffer = staticmethod(_console_reader)
# a stream file's lines are sniffed again as they come (metrics after a long preamble)
ConsoleReader.sniffer = staticmethod(sniff)


def _console(path: str, info: FileInfo) -> tuple[LineReader | None, FileInfo]:
    """A job's output stream in which no metrics were recognised (``job.err``, a rank's
    ``stderr.log``): read for its crash lines (sources/console.py); other files are not read."""
    if not stream_name(path):
        return None, info
    info.format, info.score = ConsoleReader.name, 0.0
    info.note = (info.note or "no training metrics recognised") + ": read for crash lines only"
    return ConsoleReader(path), info


def open_reader(path: str, deep_from: int = 0) -> tuple[LineReader | None, FileInfo]:
    """The reader for ``path`` and what is known about it. ``deep_from``: a file
    sniffed before up to that offset (the tailer's retry as it grows) is searched
    on from there, not again from its start."""
    info = FileInfo(path=path)
    if os.path.isdir(path):
        # directory sources (an MLflow run's metrics/)
        for r in READERS:
            if r.kind == "snapshot" and r.sniff_path(path) > 0:
                info.format, info.score = r.name, r.sniff_path(path)
                return r(path), info
        info.note = "directory: not a known source"
        return None, info
    h = sample_head(path, BINARY)
    head, why = h.lines, h.why
    info.sniffed_to = h.end
    if head is None and why == BINARY:
        # binary formats (TensorBoard events, SQLite) sniff on the raw bytes / the path
        for r in READERS:
            s = r.sniff_bytes(path) if r.kind == "bytes" else (r.sniff_path(path) if r.kind == "snapshot" else 0.0)
            if s > 0:
                info.format, info.score = r.name, s
                return r(path), info
    elif h.hole:
        # NUL bytes in a head that reads as text: a record format whose first records are
        # mostly text (a Keras TensorBoard ``train/`` file: its second record is the model's
        # graph as JSON, 117 KB) is still that format; the binary readers' sniffers check
        # their magic (TensorBoard: a record header's CRC; W&B: the file's magic)
        for r in READERS:
            s = r.sniff_bytes(path) if r.kind == "bytes" else 0.0
            if s > 0:
                info.format, info.score = r.name, s
                return r(path), info
    if head is None:
        info.note = why
        return None, info
    if not any(ln.strip() for ln in head) and GenerationTextReader.step_of(path) is None:
        info.note = "empty file"
        return None, info
    cls, score = sniff(path, head)
    if cls is None and len(head) > HEAD_SNIFF_LINES:
        # a head longer than the generic sniffer reads (a config dump of 700 lines before
        # detectron2's first "iter:" line): its lines that carry a metric word, as deep_sniff does
        cls, score = sniff(path, hinted_lines(head))
    sniffed = cls is not None
    if cls is not None and cls.kind == "lines":
        why_not = not_a_log(path, head, cls, score, h.more, h.end)
        if why_not:
            info.note = why_not  # EXPECTED.json, labels.json, a pretty-printed config, notes
            return None, info
    if not sniffed and h.more and (head is not None and len(head) > 1 or deep_from):
        # the metrics may start late (pip output, an argument dump, NCCL chatter)
        cls, score, info.sniffed_to = deep_sniff(path, max(h.end, deep_from))
        if cls is None:
            # a preamble longer than the deep search: the file's end says what it is
            lines, size = tail_lines(path, info.sniffed_to)
            if lines:
                cls, score = sniff(path, lines)
            if cls is None and size > info.sniffed_to + HEAD_BYTES:  # (stopped short of the end)
                info.note = (
                    f"no training metrics recognised in the first {info.sniffed_to / (1 << 20):.1f} MiB "
                    f"and the last {TAIL_BYTES >> 10} KiB of {size / (1 << 20):.1f} MiB (the search "
                    f"stops there; point tsm-watch at the part that holds the metrics)"
                )
                return _console(path, info)
    if cls is None:
        info.note = "no training metrics recognised"
        return _console(path, info)
    info.format, info.score = cls.name, score
    return cls(path), info


_NOT_LOG_JSON = re.compile(r"^(?:expected|labels?)[^/]*\.json$|summary[^/]*\.json$", re.I)
PROSE_EXT = (".txt", ".md")
PROSE_MIN = 0.7  # the generic text reader's score for 5 record lines in the head (fewer: notes, not a log; ours)


def not_a_log(path: str, head: list[str], cls, score: float, more: bool, end: int = 0) -> str | None:
    """Why a file that a line reader would read is not a log, or None.

    - ``EXPECTED*.json``, ``labels*.json``, ``*summary*.json``: documents about runs
      (except a summary a reader owns: W&B's ``wandb-summary.json``);
    - a ``.json`` file that is one document (pretty-printed, or one line holding one
      object or array): a log is a series of records, one per line;
    - a ``.txt`` / ``.md`` file the generic text reader finds fewer than five records in:
      prose (notes saying "step 100 loss 4.1"), not a training log; unless a record's loss
      is NaN / Inf (in the head, or in the lines after it up to ``DEEP_BYTES`` from ``end``):
      a run that is NaN from its first steps is short and is the most urgent one to report.
    """
    name = os.path.basename(path)
    owned = cls is WandbSummaryReader
    if not owned and _NOT_LOG_JSON.search(name):
        return "a document about runs (by its name), not a log"
    if path.lower().endswith(".json") and not owned:
        if _json_document(path, head):
            return "one JSON document, not a log"
        lines = [ln for ln in head if ln.strip()]
        if len(lines) == 1 and not more:
            return "one JSON object, not a series of records"
    if cls is KeyValueTextReader and path.lower().endswith(PROSE_EXT) and score < PROSE_MIN:
        if not _nonfinite_loss(path, head, cls, more, end):
            return "too few records for a log (notes?)"
    return None


def _nonfinite_loss(path: str, head: list[str], cls, more: bool, end: int) -> bool:
    """A record of ``cls`` read from the head (and, when the file goes on, from the lines
    after it that carry a metric word, up to ``DEEP_BYTES``) has a NaN / Inf loss."""
    probe = cls(path)
    probe.text_tap = None  # (a probe: the run's text events are read with the file)

    def bad(lines: list[str]) -> bool:
        for ln in lines:
            for r in probe.feed(ln):
                if r.loss is not None and not math.isfinite(r.loss):
                    return True
        return False

    if bad(head):
        return True
    if more:
        for lines, _ in deep_lines(path, end, DEEP_BYTES):
            if bad(lines):
                return True
    return False


def _json_document(path: str, head: list[str]) -> bool:
    """A ``.json`` file holding one pretty-printed document rather than JSON Lines."""
    if not path.lower().endswith(".json"):
        return False
    first = next((ln.strip() for ln in head if ln.strip()), "")
    return first.startswith(("{", "[")) and not (first.startswith("{") and first.endswith("}"))
