"""Find a run's log files, sniff which reader applies, read them line by line.

Readers are tried in priority order; the best sniff score wins. Binary files,
checkpoints and configs are passed over with a stated reason.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterator

from tsm_tui.core.frame import expand, pack
from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import MAX_LINE, LineReader
from tsm_tui.sources.config import CONFIG_NAMES
from tsm_tui.sources.blocks import ComposerReader, OLMoReader
from tsm_tui.sources.csv_reader import CsvReader
from tsm_tui.sources.fairseq import FairseqReader
from tsm_tui.sources.hf_stdout import HFStdoutReader
from tsm_tui.sources.hf_trainer_state import HFTrainerStateReader
from tsm_tui.sources.jsonl import JsonlReader
from tsm_tui.sources.kv_text import KeyValueTextReader
from tsm_tui.sources.mlflow import MlflowFileStoreReader, MlflowSqliteReader
from tsm_tui.sources.samples import GENERATION_DIRS, GenerationTextReader, SamplesJsonlReader
from tsm_tui.sources.structured import KerasCsvReader, LightningCsvReader, LlamaFactoryReader, WandbSummaryReader
from tsm_tui.sources.tensorboard import TensorBoardReader
from tsm_tui.sources.text_formats import (DeepSpeedReader, LlmcReader, MegatronReader, ModdedNanoGPTReader,
                                          NanoGPTReader, NeMoReader, TorchtitanReader, WandbOutputReader)

# highest priority first; a file goes to the reader with the best sniff score
READERS: list[type[LineReader]] = sorted([
    HFTrainerStateReader, TensorBoardReader, MlflowFileStoreReader, MlflowSqliteReader,
    LlamaFactoryReader, JsonlReader, LightningCsvReader, KerasCsvReader, CsvReader,
    OLMoReader, ComposerReader, FairseqReader, HFStdoutReader,
    MegatronReader, NeMoReader, LlmcReader, ModdedNanoGPTReader, NanoGPTReader, TorchtitanReader,
    WandbOutputReader, DeepSpeedReader, KeyValueTextReader, WandbSummaryReader,
    SamplesJsonlReader, GenerationTextReader,
], key=lambda r: -r.priority)

LOG_EXT = (".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".log", ".txt", ".out", ".err", ".stdout")
SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", "venv", "site-packages", "wandb-cache"}
HEAD_BYTES = 64 * 1024
BINARY = "binary file (NUL bytes): not a text log"
MAX_FILES = 10000  # log files taken from one tree; reaching it is said (never silent)
LIMIT_NOTE = ("more than {n} log files under {path}: only the first {n} are read "
              "(point tsm-watch at a smaller directory, or use --run)")
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

    def to_json(self) -> dict:
        d = {"path": self.path, "format": self.format, "records": self.records,
             "skipped_lines": self.skipped_lines, "used": self.used}
        if self.skip_reasons:
            d["skip_reasons"] = dict(self.skip_reasons)
        if self.note:
            d["note"] = self.note
        return d


def _is_candidate(f: str) -> bool:
    low = f.lower()
    if f in CONFIG_NAMES or low.endswith(("_config.json", "args.json")):
        return False
    if low.startswith("events.out.tfevents."):
        return not low.endswith("profile-empty")
    return low.endswith(LOG_EXT) or ".log." in low or low in ("stdout", "stderr", "log", "mlflow.db")


def _natural(name: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def candidate_files(root: str) -> list[str]:
    """Log-like files below ``root`` (newest first within a directory is not assumed).

    Besides text logs: TensorBoard event files, MLflow ``mlflow.db`` and each MLflow
    run's ``metrics/`` *directory* (one source per run: its metric files together).
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
            else:
                keep.append(d)
        dirnames[:] = keep
        # generations/step_<N>.txt in step order (step_20 before step_100)
        gen = os.path.basename(dirpath) in GENERATION_DIRS
        for f in (sorted(filenames, key=_natural) if gen else sorted(filenames)):
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
    return out


def read_head(path: str) -> tuple[list[str] | None, str | None]:
    """First lines of a file, or (None, reason) for unreadable / binary files."""
    try:
        with open_regular(path) as f:
            raw = f.read(HEAD_BYTES)
            more = bool(f.read(1))
    except OSError as e:
        return None, f"cannot read: {e.strerror or e}"
    if not raw:
        return [], None
    if b"\x00" in raw:
        return None, BINARY
    text = raw.decode("utf-8", "replace")
    lines = text.split("\n")
    if more and len(lines) > 1:
        lines = lines[:-1]  # the cut last line would not parse
    return [ln.rstrip("\r") for ln in lines], None


def sniff(path: str, head: list[str]) -> tuple[type[LineReader] | None, float]:
    best, score = None, 0.0
    for r in READERS:
        try:
            s = r.sniff(path, head)
        except Exception:  # noqa: BLE001 - a reader that cannot sniff this head does not read it
            continue
        # a tie goes to the more specific reader (a named flavour of the generic one)
        if s > score or (s == score and s > 0 and best is not None and issubclass(r, best)):
            best, score = r, s
    return best, score


def open_reader(path: str) -> tuple[LineReader | None, FileInfo]:
    info = FileInfo(path=path)
    if os.path.isdir(path):
        # directory sources (an MLflow run's metrics/)
        for r in READERS:
            if r.kind == "snapshot" and r.sniff_path(path) > 0:
                info.format, info.score = r.name, r.sniff_path(path)
                return r(path), info
        info.note = "directory: not a known source"
        return None, info
    head, why = read_head(path)
    if head is None and why == BINARY:
        # binary formats (TensorBoard events, SQLite) sniff on the raw bytes / the path
        for r in READERS:
            s = r.sniff_bytes(path) if r.kind == "bytes" else (
                r.sniff_path(path) if r.kind == "snapshot" else 0.0)
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
    if cls is not None and cls.kind == "lines" and _json_document(path, head):
        cls = None  # EXPECTED.json, labels.json, a pretty-printed config: one document, not a log
    if cls is None:
        info.note = "no training metrics recognised"
        return None, info
    info.format, info.score = cls.name, score
    return cls(path), info


def _json_document(path: str, head: list[str]) -> bool:
    """A ``.json`` file holding one pretty-printed document rather than JSON Lines."""
    if not path.lower().endswith(".json"):
        return False
    first = next((ln.strip() for ln in head if ln.strip()), "")
    return first.startswith(("{", "[")) and not (first.startswith("{") and first.endswith("}"))


CHUNK = 1 << 20


def reader_error(e: BaseException) -> str:
    """The skip reason for input a reader raised on (deeply nested JSON, a value
    no type holds ...): counted per file, never the end of the report."""
    return f"unreadable ({type(e).__name__})"


def guarded_chunk(reader: LineReader, data: bytes) -> list:
    """``reader.feed_chunk(data)``; when it raises, the chunk's lines one by one,
    each line that raises a counted skip (the others are still read)."""
    try:
        return reader.feed_chunk(data)
    except Exception as e:  # noqa: BLE001 - contained, counted
        if reader.kind != "lines":
            reader.skip(reader_error(e))
            return []
    lines = data.split(b"\n")
    last_open = not data.endswith(b"\n")
    if not last_open:
        lines.pop()
    out: list = []
    for i, raw in enumerate(lines):
        try:
            out += reader.feed(reader.decode_line(raw, last_open and i == len(lines) - 1))
        except Exception as e:  # noqa: BLE001
            reader.skip(reader_error(e))
    return out


def guarded_flush(reader: LineReader) -> list:
    try:
        return reader.flush()
    except Exception as e:  # noqa: BLE001
        reader.skip(reader_error(e))
        return []


def read_items(path: str, reader: LineReader) -> Iterator:
    """Every record of a finished file, whatever the reader's kind, as StepRecords
    and (for the long uniform stretches of line formats) Frames, in log order."""
    if reader.kind == "lines":
        with open_regular(path) as f:
            rest = b""
            discard = False  # inside a line longer than MAX_LINE: drop to its end
            while True:
                data = f.read(CHUNK)
                if not data:
                    break
                buf = rest + data if rest else data
                j = buf.rfind(b"\n")
                if j < 0:
                    rest = buf
                    if len(rest) > MAX_LINE and not discard:
                        discard = True
                        reader.skip(f"line longer than {MAX_LINE // (1 << 20)} MiB")
                    if discard:
                        rest = b""
                    continue
                head = buf if j == len(buf) - 1 else buf[: j + 1]
                rest = buf[j + 1:]
                if discard:
                    head = head[head.find(b"\n") + 1:]
                    discard = False
                if head:
                    yield from guarded_chunk(reader, head)
            if rest and not discard:
                yield from guarded_chunk(reader, rest)
    elif reader.kind == "bytes":
        with open_regular(path) as f:
            while True:
                data = f.read(CHUNK)
                if not data:
                    break
                yield from guarded_chunk(reader, data)
    else:
        try:
            recs = reader.read_path(path)
        except OSError:
            raise
        except Exception as e:  # noqa: BLE001 - a snapshot that does not parse: counted
            reader.skip(reader_error(e))
            recs = []
        yield from pack(recs)
    yield from guarded_flush(reader)


def read_records(path: str, reader: LineReader) -> Iterator[StepRecord]:
    """Every record of a finished file, one StepRecord at a time (frames expanded)."""
    yield from expand(read_items(path, reader))
