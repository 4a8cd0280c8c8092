"""The readers, and which one a file gets: sniff a file, open its reader.

Readers are tried in priority order; the best sniff score wins. A file no reader
takes (binary, empty, a document about runs: ``not_a_log``) gets a stated reason;
a job's output stream with no metrics is read for its crash lines. Which files of
a tree are logs is ``sources/log_files.py``'s; reading a finished file to its end
is ``sources/reading.py``'s.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

from tsm_tui.sources.aim import AimRunReader
from tsm_tui.sources.bare_numbers import BareNumbersReader
from tsm_tui.sources.base import ByteReader, SnapshotReader, SourceReader
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
    tail_lines,
)
from tsm_tui.sources.hf_trainer_state import HFTrainerStateReader
from tsm_tui.sources.dvclive import DvcliveReader
from tsm_tui.sources.json_doc import JsonArrayReader, JsonColumnsReader, JsonNestedListReader
from tsm_tui.sources.jsonl import JsonlReader
from tsm_tui.sources.keras_stdout import KerasProgressReader
from tsm_tui.sources.generic_text import KeyValueTextReader
from tsm_tui.sources.mlflow import MlflowFileStoreReader, MlflowSqliteReader
from tsm_tui.sources.samples import GenerationTextReader, SamplesJsonlReader
from tsm_tui.sources.structured import KerasCsvReader, LightningCsvReader, LlamaFactoryReader, WandbSummaryReader
from tsm_tui.sources.tensorboard import TensorBoardReader
from tsm_tui.sources.tb_export import TbExportCsvReader
from tsm_tui.sources.deepxde import DeepXDEReader
from tsm_tui.sources.boosting import BoostingReader
from tsm_tui.sources.catboost_json import CatBoostJsonReader
from tsm_tui.sources.mlperf import MlperfReader
from tsm_tui.sources.notebook import NotebookReader
from tsm_tui.sources.vits import VitsReader
from tsm_tui.sources.darts import DartsReader
from tsm_tui.sources.coqui import CoquiTrainerReader
from tsm_tui.sources.marian import MarianReader
from tsm_tui.sources.yolo_results_txt import YoloResultsTxtReader
from tsm_tui.sources.wandb_run import WandbRunReader
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
READERS: list[type[SourceReader]] = sorted(
    [
        HFTrainerStateReader,
        TensorBoardReader,
        WandbRunReader,
        MlflowFileStoreReader,
        MlflowSqliteReader,
        AimRunReader,
        DvcliveReader,
        BareNumbersReader,
        LlamaFactoryReader,
        JsonlReader,
        JsonArrayReader,
        JsonColumnsReader,
        JsonNestedListReader,
        LightningCsvReader,
        KerasCsvReader,
        TbExportCsvReader,
        DeepXDEReader,
        DartsReader,
        BoostingReader,
        CatBoostJsonReader,
        NotebookReader,
        VitsReader,
        CoquiTrainerReader,
        MarianReader,
        CsvReader,
        YoloResultsTxtReader,
        MlperfReader,
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

HEAD_BYTES = 64 * 1024  # (the head is sampled by sources/head.py)
HEAD_SNIFF_LINES = 400  # lines of a head the generic text sniffer reads (KeyValueTextReader.sniff)
BINARY = "binary file (NUL bytes): not a text log"


def register(reader: type[SourceReader]) -> None:
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
    #: what the reader says of the file (``SourceReader.describe``: the step's key, a console, an exit code)
    details: dict = field(default_factory=dict)
    #: the file's channel the run's checks use, when not its main one (``console``)
    channel: str | None = None
    #: the training objective, when the log names several losses (fields.objective)
    objective: str | None = None
    #: "content": a file no name rule takes, read because nothing named as a log was readable
    #: (``log_files.content_files``)
    found_by: str | None = None

    def to_json(self) -> dict:
        d: dict[str, object] = {
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
        if self.found_by:
            d["found_by"] = self.found_by
        return d


def deep_sniff(path: str, start: int, stop: int = DEEP_BYTES) -> tuple[type[SourceReader] | None, float, int]:
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


def sniff(path: str, head: list[str], exclude: type | None = None) -> tuple[type[SourceReader] | None, float]:
    best: type[SourceReader] | None = None
    score = 0.0
    for r in READERS:
        if exclude is not None and issubclass(r, exclude):
            continue
        if score >= 1.0 and best is not None and not issubclass(r, best):
            continue  # no sniff scores above 1.0: only a more specific flavour could still win (a tie)
        try:
            s = r.sniff(path, head)
        except Exception:  # noqa: BLE001 - a reader that cannot sniff this head does not read it
            continue
        # a tie goes to the more specific reader (a named flavour of the generic one)
        if s > score or (s == score and s > 0 and best is not None and issubclass(r, best)):
            best, score = r, s
    return best, score


def _console_reader(path: str, head: list[str]) -> type[SourceReader] | None:
    cls, _score = sniff(path, head)
    if cls is not None and cls.kind == "lines":
        return cls
    # no metrics in it (yet): read for its crash lines, and as a format once metrics appear
    return ConsoleReader


# the console inside a W&B run file reads like its files/output.log
WandbRunReader.console_sniffer = staticmethod(_console_reader)


def _notebook_text_reader(path: str, lines: list[str]) -> type[SourceReader] | None:
    """The line reader a notebook's output text calls for (its head, then its lines that carry a
    metric word, as a file's deep search), or None: no training metrics in it."""
    cls, _score = sniff(path, lines[:HEAD_SNIFF_LINES])
    if cls is None and len(lines) > HEAD_SNIFF_LINES:
        cls, _score = sniff(path, hinted_lines(lines)[:2000])
    return cls if cls is not None and cls.kind == "lines" else None


NotebookReader.text_sniffer = staticmethod(_notebook_text_reader)

# a stream file's lines are sniffed again as they come (metrics after a long preamble)
ConsoleReader.sniffer = staticmethod(sniff)


def _console(path: str, info: FileInfo) -> tuple[SourceReader | None, FileInfo]:
    """A job's output stream in which no metrics were recognised (``job.err``, a rank's
    ``stderr.log``): read for its crash lines (sources/console.py); other files are not read."""
    if not stream_name(path):
        return None, info
    info.format, info.score = ConsoleReader.name, 0.0
    info.note = (info.note or "no training metrics recognised") + ": read for crash lines only"
    return ConsoleReader(path), info


def open_reader(path: str, deep_from: int = 0) -> tuple[SourceReader | None, FileInfo]:
    """The reader for ``path`` and what is known about it. ``deep_from``: a file
    sniffed before up to that offset (the tailer's retry as it grows) is searched
    on from there, not again from its start."""
    info = FileInfo(path=path)
    if os.path.isdir(path):
        # directory sources (an MLflow run's metrics/)
        for r in READERS:
            if issubclass(r, SnapshotReader) and r.sniff_path(path) > 0:  # (kind "snapshot")
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
            s = (
                r.sniff_bytes(path)
                if issubclass(r, ByteReader)  # (kind "bytes")
                else (r.sniff_path(path) if issubclass(r, SnapshotReader) else 0.0)
            )
            if s > 0:
                info.format, info.score = r.name, s
                return r(path), info
    elif h.hole:
        # NUL bytes in a head that reads as text: a record format whose first records are
        # mostly text (a Keras TensorBoard ``train/`` file: its second record is the model's
        # graph as JSON, 117 KB) is still that format; the binary readers' sniffers check
        # their magic (TensorBoard: a record header's CRC; W&B: the file's magic)
        for r in READERS:
            s = r.sniff_bytes(path) if issubclass(r, ByteReader) else 0.0  # (kind "bytes")
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
    if cls is not None and issubclass(cls, CsvReader):
        cls, score = _csv_or_text(path, head, cls, score)
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


def _csv_or_text(path: str, head: list[str], cls, score: float) -> tuple[type[SourceReader], float]:
    """A file whose first line reads as a CSV header: the CSV reader's, unless its rows give no
    record where another reader's lines do (a text log whose first line, or a config dump
    before its records, has commas: "[1,     0/ 2562] - train_losses - ..." is no row).
    A header with no rows yet stays CSV (a live file)."""
    probe = cls(path)
    probe.text_tap = None
    for ln in head:
        if probe.feed(ln):
            return cls, score
    if not probe.skipped:
        return cls, score  # (the header alone, or rows to come)
    other, s = sniff(path, head, exclude=CsvReader)
    return (other, s) if other is not None and other.kind == "lines" else (cls, score)


_NOT_LOG_JSON = re.compile(r"^(?:expected|labels?)[^/]*\.json$|summary[^/]*\.json$", re.I)
PROSE_EXT = (".txt", ".md")
PROSE_MIN = 0.7  # the generic text reader's score for 5 record lines in the head (fewer: notes, not a log; ours)
PROSE_RECORDS = 5  # ... or as many records after the head


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
        if not _a_log_after_all(path, head, cls, more, end):
            return "too few records for a log (notes?)"
    return None


def _a_log_after_all(path: str, head: list[str], cls, more: bool, end: int) -> bool:
    """A record of ``cls`` read from the head, or from the lines after it that carry a metric word
    (up to ``DEEP_BYTES``, when the file goes on), has a NaN / Inf loss (a run that is NaN from its
    first steps is short and the most urgent one to report); or the lines after the head hold
    PROSE_RECORDS records (a log whose head is something else: fresh27's Torch7 run, optim.Logger's
    5,000 bare numbers written over the start of the cmd:log file, its 4,534 records after them).
    One probe, one pass over the deep lines."""
    probe = cls(path)
    probe.text_tap = None  # (a probe: the run's text events are read with the file)
    n = 0
    for ln in head:
        for r in probe.feed(ln):
            n += 1
            if r.loss is not None and not math.isfinite(r.loss):
                return True
    if n >= PROSE_RECORDS:
        # (the head's own records, past the sniffer's first lines: fresh43's normalizing-flow log, 100 "sim N"
        # lines between its epochs' records, 11 in a head of 1,200 lines, read "too few records (notes?)")
        return True
    if not more:
        return False
    for lines, _ in deep_lines(path, end, DEEP_BYTES):
        for ln in lines:
            for r in probe.feed(ln):
                n += 1
                if n >= PROSE_RECORDS or r.loss is not None and not math.isfinite(r.loss):
                    return True
    return False


def _json_document(path: str, head: list[str]) -> bool:
    """A ``.json`` file holding one pretty-printed document rather than JSON Lines."""
    if not path.lower().endswith(".json"):
        return False
    first = next((ln.strip() for ln in head if ln.strip()), "")
    return first.startswith(("{", "[")) and not (first.startswith("{") and first.endswith("}"))
