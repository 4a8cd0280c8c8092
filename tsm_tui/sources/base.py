"""The reader interface.

A reader turns one file's lines into StepRecords, incrementally: the same
object serves a one-shot report (feed every line, then ``flush``) and the live
tailer (feed lines as they are appended). ``skipped`` counts lines that should
have parsed but did not (corrupt JSON, a truncated row, an over-long line):
nothing is dropped silently. ``run_info`` collects what the log itself says
about the run (total steps, parameter count, batch size ...).
"""

from __future__ import annotations

import math
import os
from typing import Any

from tsm_tui.core.frame import METRIC_FIELDS, pack
from tsm_tui.core.numbers import MAX_INT, int64, iso_time, run_fact
from tsm_tui.core.record import StepRecord
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.fields import (
    describe_objective,
    field_for,
    is_test_loss,
    letter_split,
    LOG2_SCALE,
    scale_of_log2,
    key_roles,
    loss_role,
    named_objective,
    objective,
    counted_name,
    perplexity_named,
    val_perplexity,
    phase_val,
    TIME_MS,
    overflowed,
    seconds,
    to_float,
    total_key,
    total_over,
)
from tsm_tui.sources.head import skip_hole
from tsm_tui.sources.placeholders import SplitPlaceholders
from tsm_tui.sources.launches import is_banner, may_hold_banner
from tsm_tui.sources.lines import MAX_LINE as MAX_LINE  # (re-exported: where readers found it)
from tsm_tui.sources.lines import decode_line, note, split_block
from tsm_tui.sources.text_events import TextTap, tapped

#: an LR printed as 0 with fixed decimals ("0.000"): below the print's precision, not read (note)
ROUNDED_LR = "LR printed as 0.000 (below its printed precision: not read as 0)"
COARSE_ZERO = frozenset(("0.000", "0.0000"))

METRICS = METRIC_FIELDS  # the StepRecord fields the checks judge (one set: core/frame.py)
MAX_SNAPSHOT = 256 << 20  # bytes of a file re-read whole (trainer_state.json): memory stays bounded
_UNSEEN: Any = object()  # (a sentinel: typed Any, a lookup's default leaves the value's type as it is)
isfinite = math.isfinite
#: text fields that carry the run's generations (issue #8): strings (or lists of
#: strings) under these keys become ``StepRecord.samples``
SAMPLE_KEYS = frozenset(
    {"sample", "samples", "text", "generation", "generations", "generated_text", "completion", "output"}
)
MAX_SAMPLES = 16  # samples kept per record
MAX_SAMPLE_CHARS = 16384  # characters kept per sample


def _add_samples(v, samples: list[str] | None) -> list[str] | None:
    """Text under a sample key: a string or a list of strings."""
    if isinstance(v, str):
        vals = [v]
    elif isinstance(v, list):
        vals = [t for t in v if isinstance(t, str)]
    else:
        return samples
    if samples is None:
        samples = []
    for t in vals[: MAX_SAMPLES - len(samples)]:
        samples.append(t[:MAX_SAMPLE_CHARS])
    return samples


#: a second channel of one file (a W&B run file's console: ``run-x.wandb#console``)
CONSOLE = "#console"


def channel_file(source: str) -> tuple[str, str | None]:
    """The file and channel of a source name: ``run.wandb#console`` -> (``run.wandb``, ``console``)."""
    if source.endswith(CONSOLE):
        return source[: -len(CONSOLE)], CONSOLE[1:]
    return source, None


class RunFacts(dict):
    """A reader's ``run_info``: every value is bounded on the way in
    (``core.numbers.run_fact``: counts int64 in range, amounts finite and > 0);
    a value that is none is not kept, so a later good value still gets in."""

    def __setitem__(self, key, value) -> None:
        value = run_fact(key, value)
        if value is not None:
            super().__setitem__(key, value)

    def setdefault(self, key, value=None):
        if key in self:
            return self[key]
        value = run_fact(key, value)
        if value is not None:
            super().__setitem__(key, value)
        return value

    def update(self, *args, **kw) -> None:
        for k, v in dict(*args, **kw).items():
            self[k] = v


#: extra keys whose "is it a validation perplexity" answer a reader remembers (bounded; ours)
PPL_KEYS = 4096


class SourceReader:
    """What every reader of a source is (a text log, a binary tracker file, a file rewritten
    whole): its records, fields, skips and run facts; ``kind`` says how it is fed. The text
    readers are ``LineReader``s, the others ``ByteReader`` or ``SnapshotReader``."""

    #: how the tailer and the report feed this reader: "lines" (complete text
    #: lines), "bytes" (raw appended bytes: binary formats such as TensorBoard
    #: event files) or "snapshot" (the whole file re-read when it changes, e.g.
    #: HF trainer_state.json; the caller drops steps it has already seen)
    kind = "lines"
    #: a line reader that holds records back until more input shows where they end (HF stdout's
    #: buffered bursts, a long-form JSONL step): live, ``idle`` is asked for them once the file has
    #: been quiet for the tailer's IDLE_FLUSH, as a byte reader's are (tail/followed.py)
    holds_lines = False
    #: format name shown in the report
    name = "text"
    #: preference when several readers could read a file (higher wins)
    priority = 0

    def __init_subclass__(cls, **kw) -> None:
        # every line a text reader is fed is looked at for text events (how the run
        # ended: sources/text_events.py), whatever the format: no reader writes it
        super().__init_subclass__(**kw)
        f = cls.__dict__.get("feed")
        if f is not None and not getattr(f, "tapped", False):
            cls.feed = tapped(f)  # type: ignore[method-assign]  # (the subclass's own feed, wrapped once)

    def __init__(self, path: str = "") -> None:
        self.path = path
        #: text events (None: lines are not looked at: a sniffing probe, a binary reader)
        self.text_tap: TextTap | None = TextTap(path) if self.kind == "lines" else None
        self._feeding = False
        self.records = 0
        self.skipped = 0
        self.skip_reasons: dict[str, int] = {}
        self.run_info: dict[str, object] = RunFacts()
        self._fields: dict[str, str | None] = {}
        self._ppl: dict[str, bool] = {}  # extra key -> a validation perplexity (``_val_perplexity``)
        self._last_step = 0
        #: records whose step was inferred by counting (the log names none)
        self.inferred_steps = 0
        #: a launch banner was read and no record since (sources/launches.py)
        self.launch_pending = False
        #: launch banners read
        self.launch_lines = 0
        #: lines are tested for banners (a chunk with no banner literal in it turns this off)
        self.banner_scan = True
        #: the objective rule's choice when the log names no total loss (fields.objective):
        #: (how, keys), fixed by the first record that has one
        self.objective: tuple[str, tuple[str, ...]] | None = None
        self._objectives: dict[tuple, tuple | None] = {}
        self.placeholders = SplitPlaceholders()  # (sources.placeholders)

    # -- a directory-shaped format (a tracker's folder for one run), declared here by its
    # reader: the walk for sources (sources/log_files.py) and the runs (sources/runs.py) ask
    # every registered reader, so a new one is its module and its registry entry
    #: every file at any depth under its run directory is that run's (W&B's ``files/``,
    #: ``tmp/``): a file's run is looked for above any directory; else a file's climb to its
    #: run stops at the run directory (MLflow, DVCLive)
    run_dir_deep = False
    #: dot-directories (passed over by the walk) looked into with ``root_sources`` (Aim's ``.aim``)
    hidden_dirs: tuple[str, ...] = ()

    @classmethod
    def run_dir(cls, d: str) -> bool:
        """``d`` is a directory this format's tracker made for one run: one run, with every file
        under it, never split by series (``runs.tracker_run_dir``)."""
        return False

    @classmethod
    def source_dir(cls, dirpath: str, name: str, filenames: list[str]) -> bool:
        """The sub-directory ``name`` of ``dirpath`` (which holds ``filenames``) is one source of
        this format, read whole and not walked (an MLflow run's ``metrics/``)."""
        return False

    @classmethod
    def root_sources(cls, d: str) -> list[str] | None:
        """``d`` is this format's store: its sources, found without a walk (Aim's repository:
        its runs), else None."""
        return None

    @classmethod
    def logger_slot(cls, d: str) -> tuple[str, str, bool] | None:
        """Where ``d``, a run directory of this format, sits among its job's loggers
        (``sources/siblings.py`` joins sibling loggers of one job into one run):
        ``(P, slot, tracker)``: the directory P the job's loggers share, the name of
        ``d``'s logger slot under P, and whether ``d`` is a tracker's run (a directory run
        of P, such as the HF Trainer's ``output_dir``, is then a slot of P beside it). None:
        not this format's run directory, or the plain case (its own files: slot "." of ``d``)."""
        return None

    # -- sniffing ---------------------------------------------------------------
    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        """How sure (0..1) this reader is that it reads a file starting with ``head``."""
        return 0.0

    # -- reading ----------------------------------------------------------------
    def feed(self, line: str) -> list[StepRecord]:
        """One complete line (without its newline) in, zero or more records out."""
        raise NotImplementedError

    def feed_chunk(self, data: bytes) -> list:
        """Complete lines of a file (a replay reads ~1 MiB at a time) in; records
        and Frames (tsm_tui.core.frame) out, in log order. Readers with a columnar fast
        path override this; the default feeds line by line."""
        out: list = []
        lines, last_open = split_block(data)
        feed = self.feed
        n = len(lines)
        self.banner_scan = may_hold_banner(data)
        try:
            for i, raw in enumerate(lines):
                line = self.decode_line(raw, last_open and i == n - 1)
                recs = feed(line)
                if recs:
                    if self.launch_pending:
                        self.mark_launch(recs)
                    out += recs
                elif line and self.banner_scan:
                    self.note_line(line)
        finally:
            self.banner_scan = True
        return pack(out)

    def note_line(self, line: str) -> None:
        """A line that gave no record: a launch banner sets the pending launch mark."""
        if is_banner(line):
            self.launch_pending = True
            self.launch_lines += 1

    def mark_launch(self, recs: list) -> None:
        """The first record after a launch banner carries ``launch``."""
        for r in recs:
            if type(r) is StepRecord and r.has_metrics():
                r.launch = True
                self.launch_pending = False
                return

    def take_line(self, line: str, recs: list) -> list:
        """Per-line callers (the tailer): the launch mark for one line's records."""
        if recs:
            if self.launch_pending:
                self.mark_launch(recs)
        elif line and self.banner_scan:
            self.note_line(line)
        return recs

    def decode_line(self, raw: bytes, last_open: bool = False) -> str:
        """One raw line (no newline) as text (``sources.lines.decode_line``: over-long
        lines become "", undecodable bytes are replaced, both counted)."""
        return decode_line(raw, self, last_open)

    def flush(self) -> list[StepRecord]:
        """End of input (or of a file that was replaced): emit anything pending."""
        return []

    def describe(self) -> dict:
        """What the report's file entry says besides records and skips (a reader that
        knows how it took the steps, a run's exit code ...): JSON-ready."""
        return {}

    def idle(self) -> list[StepRecord]:
        """Live, no new bytes for ``IDLE_FLUSH`` seconds: emit what waits for more input
        that may never come (TensorBoard's newest step); the reader goes on after."""
        return []

    def skip(self, reason: str) -> None:
        self.skipped += 1
        self.skip_reasons[reason] = self.skip_reasons.get(reason, 0) + 1

    def count_dropped(self, reason: str, n: int) -> None:
        """``n`` records of this source dropped after reading (the session's ordering:
        a duplicate, a step out of order), said with the file's skip reasons."""
        self.skip_reasons[reason] = self.skip_reasons.get(reason, 0) + n

    # -- helpers ------------------------------------------------------------------
    def field_keys(self) -> dict[str, list[str]]:
        """The log keys (JSON keys, CSV columns, TensorBoard tags, ``key: value`` labels)
        this reader has met that feed each StepRecord field, in the order first met
        (the report's ``sources``; readers that parse by position have none).
        Keys that carry generations are listed under ``"samples"``."""
        out: dict[str, list[str]] = {}
        for k, f in self._fields.items():
            if f is not None:
                out.setdefault(f, []).append(k)
            elif k in SAMPLE_KEYS:
                out.setdefault("samples", []).append(k)
        if "val_loss" not in out:  # (a validation perplexity read as its log: _val_perplexity)
            ppl = [k for k, f in self._fields.items() if f is None and val_perplexity(k)]
            if ppl:
                out["val_loss"] = ppl
        ks = out.get("loss")
        if ks and len(ks) > 1:  # the key the loss is read from first (a total before its lm_loss term)
            out["loss"] = sorted(ks, key=lambda k: any(total_over(o, k) for o in ks))
        return out

    def field(self, key: str) -> str | None:
        try:
            return self._fields[key]
        except KeyError:
            f = field_for(key)
            if f == "val_loss":  # a test loss is the evaluation loss only without a validation one
                if is_test_loss(key):
                    if any(g == "val_loss" and not is_test_loss(k) for k, g in self._fields.items()):
                        f = None
                else:
                    for k, g in self._fields.items():
                        if g == "val_loss" and is_test_loss(k):
                            self._fields[k] = None
            self._fields[key] = f
            return f

    def build(self, items, step: int | None = None, keep_extra: bool = True) -> StepRecord | None:
        """A record from (key, value) pairs; None when there is no step or no metric."""
        # hot path (every record of every reader): the field map and float() are
        # inlined for the common value types; to_float handles the rest
        rec = StepRecord(-1, source=self.path)
        extra: dict[str, float] | None = None
        got = False
        samples: list[str] | None = None
        fields = self._fields
        loss_key = ""
        for k, v in items:
            f = fields.get(k, _UNSEEN)
            if f is _UNSEEN:
                f = self.field(k)
            tv = type(v)
            if tv is float:
                x = v
            elif tv is int:
                try:
                    x = float(v)
                except OverflowError:  # a 400-digit integer: no float holds it
                    if f is None:
                        continue  # an extra (LLaMA-Factory's total_steps): left out, the record kept
                    self.skip("step out of range" if f == "step" else "number out of range")
                    return None
            else:
                x = to_float(v)
                if x is not None and not isfinite(x) and x == x and overflowed(v):
                    # "1e400", 400 digits in text, CSV or a JSON float: out of range, as a
                    # JSON integer is (not an Inf: "inf", "Infinity" are spelled so)
                    if f is None:
                        continue
                    self.skip("step out of range" if f == "step" else "number out of range")
                    return None
            if f is None:
                if keep_extra and x is not None:
                    if extra is None:
                        extra = {}
                    extra[k] = x
                elif keep_extra and k in SAMPLE_KEYS:  # text: only non-numeric values get here
                    samples = _add_samples(v, samples)
                continue
            if x is None:
                if f != "time" or tv is not str:
                    continue
                x = iso_time(v)  # a CSV's "2026-02-14T19:09:01.759319" timestamp column
                if x is None:
                    continue
            if f == "step":
                if step is None and isfinite(x):
                    step = int64(x)
                    if step is None:
                        self.skip("step out of range")
                        return None
                continue
            if f == "skipped" or f == "nan_iters":
                n = int64(x)
                if n is not None:
                    setattr(rec, f, n)
                    got = True
                continue
            if f == "time" and x > TIME_MS:
                x = seconds(x)  # Unix milliseconds
            elif f == "loss_scale" and k in LOG2_SCALE:
                x = scale_of_log2(x)  # (its log2: fields.LOG2_SCALE)
            if f == "lr" and x == 0.0 and tv is str and v in COARSE_ZERO:
                # "0.000": an LR printed with 3 or 4 fixed decimals, below their precision, not 0
                # (verl's "actor/lr:0.000" for 1e-6: "LR 0 since step 101, wasted compute"); not read.
                # (With more decimals a 0 is a warm-up's start: PaddleOCR's "lr: 0.000000")
                note(self, ROUNDED_LR)
                continue
            if getattr(rec, f) is None:  # first alias wins (loss before train_loss ...)
                setattr(rec, f, x)
                if f == "loss":
                    loss_key = k
            elif f == "loss" and total_over(k, loss_key):  # a total after its lm_loss term (fields.PART_LOSS)
                rec.loss = x
                loss_key = k
            if f in METRICS:
                got = True
        if rec.loss is None and extra is not None and (pair := letter_split(extra)) is not None:
            tk, vk = pair  # (read from here on as named: fields.LETTER_SPLIT)
            fields[tk], fields[vk] = "loss", "val_loss"
            rec.loss, rec.val_loss = extra.pop(tk), extra.pop(vk)
            got = True
        if rec.loss is None and extra is not None:
            x = self.objective_value(extra, step is not None)
            if x is not None:
                rec.loss = x
                got = True
                if rec.val_loss is None and self.objective is not None and self.objective[0] == "named":
                    rec.val_loss = phase_val(self.objective[1][0], extra)
        if rec.val_loss is None and extra is not None:
            x = self._val_perplexity(extra)
            if x is not None:
                rec.val_loss = x
                got = True
        if rec.val_loss is not None and rec.loss is not None:
            self.placeholders.record(rec, self)
        if not got:
            if samples is None:
                return None
            # generations alone: their own step, or the last step seen
            if step is None:
                step = self._last_step
        if step is not None and not -MAX_INT <= step <= MAX_INT:
            self.skip("step out of range")  # (a reader's own step: a 2^63 iteration number)
            return None
        if step is None:
            # the log names no step (printed HF dicts, some CSVs): count records
            step = self._last_step + 1
            self.inferred_steps += 1
        self._last_step = step
        rec.step = step
        rec.extra = extra or None
        if samples is not None:
            rec.samples = samples
        self.records += 1
        return rec

    def _val_perplexity(self, extra: dict) -> float | None:
        """The validation loss a record's validation perplexity stands for (``fields.val_perplexity``) in a
        file that logs no validation loss of its own: its log, the cross-entropy (NaN / inf kept; under 1 no
        perplexity: None); the key leaves the extras. Each key is looked at once (``_ppl``)."""
        seen = self._ppl
        for k in extra:
            hit = seen.get(k)
            if hit is None:
                hit = val_perplexity(k)
                if len(seen) < PPL_KEYS:
                    seen[k] = hit
            if hit:
                if "val_loss" in self._fields.values():
                    return None  # (the file's own validation loss: the perplexity stays an extra)
                x = extra.pop(k)
                return math.log(x) if x >= 1.0 else (x if x != x else None)
        return None

    def objective_value(self, extra: dict, stepped: bool = True) -> float | None:
        """The objective of a record that logs no total, from its extras (the rule:
        ``objective_plan``), or None; the actor's (a GAN generator's, a ``total``) loss leaves the extras (it is the loss).
        A ``total`` is the loss only in a record with a step of its own (``stepped``: a printed dict
        of parameter counts has one, ``{'mask_decoder': '7,910,428', 'total': '12,733,472'}``)."""
        keys = tuple(extra)
        if not stepped and any(map(total_key, keys)):
            keys = tuple(k for k in keys if not total_key(k))
        plan = self._objectives.get(keys, _UNSEEN)
        if plan is _UNSEEN:
            plan = self.objective_plan(keys)
        if plan is None:
            return None
        how, keys = plan
        if how == "actor" or how == "gen" or how == "total":
            return extra.pop(keys[0])
        x = extra[keys[0]]
        if how == "named" and counted_name(keys[0], x):
            return None  # ("L=512": a length, not the loss's symbol; a loss of exactly 1.0 or 0.0 is one)
        if how == "named" and perplexity_named(keys[0]):
            # (its log, the cross-entropy; NaN and inf stay what they are, a perplexity under 1 is no perplexity)
            return math.log(x) if x >= 1.0 else (x if x != x else None)
        for k in keys[1:]:
            x = x + extra[k]
        return x

    def objective_note(self, checked: set[str] | None = None) -> str | None:
        """What the report says about the training objective: the rule's choice when the
        log names no total, the logged total when loss terms were read beside it; None
        for a log with one loss (nothing to say). ``checked``: the terms the checks judged
        (the loss-spike check's per-term detectors); "also checked" names only those (a key
        seen on a line that made no record is no term of any record)."""
        terms = [k for k, f in self._fields.items() if f is None and loss_role(k) is not None]
        if checked is not None:
            terms = [k for k in terms if k in checked]
        if self.objective is not None and not (
            self.objective[0] == "named" and any(f == "loss" for f in self._fields.values())
        ):  # (a name chosen before the file's first "loss": nanoGPT's "[eval] iter 0: train 9.86 val 9.85")
            how, keys = self.objective
            return describe_objective(how, keys, [k for k in terms if k not in keys])
        if not terms:
            return None
        losses = [k for k, f in self._fields.items() if f == "loss"]
        total = next((k for k in losses if not any(total_over(o, k) for o in losses)), None)
        return describe_objective("total", (total,), terms) if total is not None else None

    def objective_plan(self, keys: tuple) -> tuple[str, tuple[str, ...]] | None:
        """The objective of records with these extra keys and no total loss (the rule:
        ``fields.objective``), remembered per key set. The first choice holds for the
        whole file: a later record lacking one of its keys gets none (a partial sum
        would read as a drop), one with more keys still uses it."""
        roles = key_roles(keys)
        plan = objective(roles)
        if plan is None and (self.objective is None or self.objective[0] == "named"):
            if not any(f == "loss" for f in self._fields.values()):  # (never beside a loss the file logs)
                plan = named_objective(keys)
                roles = dict.fromkeys(keys, "named")
        if plan is not None:
            if self.objective is None:
                self.objective = plan
            elif plan != self.objective:
                plan = self.objective if all(k in roles for k in self.objective[1]) else None
        if len(self._objectives) < 256:
            self._objectives[keys] = plan
        return plan


class LineReader(SourceReader):
    """Text formats read line by line (JSONL, CSV, console logs): ``feed`` one line."""

    kind = "lines"


class ByteReader(SourceReader):
    """Binary append-only formats: ``feed_bytes`` gets raw appended bytes and
    keeps any incomplete record for the next call."""

    kind = "bytes"

    def feed(self, line: str) -> list[StepRecord]:  # pragma: no cover - not line based
        raise TypeError("ByteReader takes bytes: use feed_bytes")

    def feed_chunk(self, data: bytes) -> list:
        """Replay: a chunk of a finished file as records and Frames (readers may
        override with a columnar path giving the same records)."""
        return pack(self.feed_bytes(data))

    @classmethod
    def sniff_bytes(cls, path: str) -> float:
        """How sure this reader is that it reads the (binary) file at ``path``."""
        return 0.0

    def feed_bytes(self, data: bytes) -> list[StepRecord]:
        raise NotImplementedError


class SnapshotReader(SourceReader):
    """Files rewritten whole (HF trainer_state.json): ``read_all`` parses the
    current content; callers keep only records past what they already fed."""

    kind = "snapshot"

    def feed(self, line: str) -> list[StepRecord]:  # pragma: no cover - not line based
        raise TypeError("SnapshotReader reads whole files: use read_all")

    def read_all(self, data: bytes) -> list[StepRecord]:
        raise NotImplementedError

    def restart(self) -> None:
        """A snapshot is read whole each time: the counts are this reading's."""
        self.records = 0
        self.skipped = 0
        self.skip_reasons = {}
        self._last_step = 0
        self.inferred_steps = 0

    @classmethod
    def sniff_path(cls, path: str) -> float:
        """Sources that are not one text file (an MLflow ``metrics/`` directory, a
        SQLite database): how sure this reader is that it reads ``path``."""
        return 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        """The whole source at ``path`` (a file by default; directory sources override)."""
        with open_regular(path) as f:
            first = f.read(1)
            f.seek(0)
            if first == b"\0":  # NUL bytes first (a sparse hole, copy-truncate): jump them, 1 MiB at a time
                skip_hole(f, path)
                while True:
                    pos = f.tell()
                    chunk = f.read(1 << 20)
                    k = len(chunk) - len(chunk.lstrip(b"\0"))
                    if k < len(chunk) or not chunk:
                        f.seek(pos + k)
                        break
            data = f.read(min(MAX_SNAPSHOT, _data_end(f, path) - f.tell()))
        if data[-1:] == b"\0":  # NUL bytes after the document (a file extended past its data)
            data = data.rstrip(b"\0")
        return self.read_all(data)


def _data_end(f, path: str) -> int:
    """Where the data from ``f``'s position ends: the next sparse hole (``SEEK_HOLE``), else
    the file's size. A 1 GiB trainer_state.json that is the document and then a hole was read
    256 MiB deep and copied (558 MB)."""
    pos = f.tell()
    size = os.fstat(f.fileno()).st_size
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return size
    try:
        return min(size, os.lseek(fd, pos, os.SEEK_HOLE))
    except (AttributeError, OSError, ValueError):
        return size
    finally:
        os.close(fd)
