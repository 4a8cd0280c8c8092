"""Records spread over several lines, for the generic text reader.

The generic reader (generic_text.py) reads a record per line. Some logs print one over
several lines; the record is then the group:

- **a step carried across lines**: a line that names a step and no metric
  (``Step 100``, ``global step: 100``, a per-epoch log's ``Epoch 3/120``), then
  lines of named numbers without a step of their own (``  loss: 2.31``,
  ``train loss: 2.31, lr: 1e-4``): one record at that step, closed by the next line
  that is not such a continuation (another step, a blank line, prose), the end of
  the file, or 2 s without new bytes live;
- **an epoch carried to per-epoch counters** (PaddlePaddle ``Model.fit``):
  ``Epoch 2/5`` alone on a line, then ``step  10/938 - loss: 0.42 - acc: 0.86``:
  the counter starts again each epoch, so the step is the epoch's offset plus the
  counter (the same rule as ``Epoch [2/5], Step [10/938]`` on one line);
- **evaluation sections**: a line naming an evaluation and no number (``Eval
  begin...``, ``Evaluating...``, ``Validation:``) starts one; its step lines are
  validation losses at the last training step, not training steps; it ends at a
  line saying the evaluation ended (``Eval samples: 10000``), a blank line, an
  epoch header, or a step line counting to another total;
- **summary sections of a per-epoch log**: CoreNet's ``*** Training summary for epoch 0``
  then a tab-indented ``loss={'classification': 4.72, 'total_loss': 4.80}`` (the epoch's
  averages: no record, counted in ``skip_reasons``), ``*** Validation summary for epoch 0``
  then ``loss={... 'total_loss': 4.70} || top1={'logits': 0.98}`` (a validation loss at the
  last training step); a MetricLogger evaluation (DETR, torchvision references): its
  ``Test:  [3000/3685] ... loss: 56.80 (78.68)`` progress lines are the evaluation's running
  values (counted, no record), the ``Averaged stats: loss: 40.53 (104.80)`` after them its
  result (the global average in parentheses: a validation loss at the last training step);
- **a header of column names, then rows of values** (Ultralytics' console:
  ``Epoch GPU_mem box_loss cls_loss dfl_loss Instances Size`` then
  ``1/50 8.37G 0.9014 2.375 0.9244 52 640: 100% ━━━ 75/75``; fastai's
  ``epoch train_loss valid_loss accuracy time`` then ``0 0.512 0.401 0.85 00:10``):
  a header names a step column (epoch, step, iter) and a metric; a row has a value
  under every name; a row followed by a progress bar is a record when the bar is
  complete (the redraws before are running means); the header holds to a blank line
  (warnings may come between it and its rows);
- **tables of names and values** (Stable-Baselines3, OpenAI baselines):
  ``| train/ | |``, ``|    loss | 6.54 |`` between lines of dashes: one record per
  table, its keys prefixed by their section (``train/loss``), the step its
  ``time/total_timesteps`` (else a step key).

While a group, a table, an evaluation section, a carried epoch or a column header is open, every
line goes through the per-line parser (the replay's line templates are single-line). Every piece here is linear: regexes anchored at a
line's start with possessive runs, tables split with ``str.split``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.fields import loss_role
from tsm_tui.sources.lines import note

MAX_GROUP_LINES = 32  # continuation lines in one group (a header followed by a long listing: closed there)
EVAL_SILENT_LINES = 64  # lines an evaluation section runs with no record before it is over (ours: fresh46's PINN log)
MAX_GROUP_PAIRS = 256  # named numbers kept per group or table (memory stays bounded; ours)
# an epoch header alone on its line: "Epoch 2/5", "Epoch [2/5]", "=== Epoch 2/5 ==="
# (or with no total: PointNet++'s "**** EPOCH 000 ****")
# (or after a phase word: ST-GCN / mmskeleton's "Training epoch: 0", "Eval epoch: 4": group 1)
# (or an RL loop's episode, "Starting" / "Beginning" before it: fresh55's DQN "Starting episode 3/100" then
# "Step 101: Loss=2.99", the step counting within the episode; a loop's "Starting epoch 3" before its own
# "Epoch 3 finished -- Train loss: X" lines is no header: fresh25's U-Net log, its epochs then read per step;
# one with its total is: fresh91's R-CNN loop, "Starting Epoch 2/10" then "Iteration 101, Loss: 1.81", the
# iteration counting within the epoch, read as three launches of 10 steps); a note in parentheses after it
# holds no metric's value (fresh114's "Epoch 2/25 (device=cuda)", then "  step 00020: loss=0.0817": each epoch
# read as a launch), a float in it is one ("Epoch 3 (lr=0.001)": no header)
EPOCH_HEADER = re.compile(
    r"^\W*+(?:(?:start(?:ing)?+|begin(?:ning)?+)\s++(?=episode|epoch\s*+[:=]?\s*+\[?\s*+\d++\s*+/))?(?:(train\w*+|eval\w*+|valid\w*+|test\w*+)\s++)?"
    r"(?:epoch|episode)\s*+[:=]?\s*+\[?\s*+(\d++)(?:\s*+/\s*+(\d++))?\s*+\]?"
    r"(?:\s*+\((?![^()\n]{0,64}?[:=]\s*+[-+]?\d*+\.\d)[A-Za-z_][\w.:=/ ,-]{0,63}+\))?\W*+$",
    re.I,
)
# a batch counter alone on its line, within the epoch of the last header: PointNet++'s
# " ---- batch: 050 ----" (then "mean loss: 2.89" / "accuracy: 0.28" on the next lines)
BATCH_HEADER = re.compile(r"^\W*+batch\s*+[:=]?\s*+(\d++)(?:\s*+/\s*+(\d++))?\W*+$", re.I)
# a tqdm bar ("train:  10%|█   | 20/200 [00:36<05:33, 1.2it/s, loss=0.42]"): a record of its own
# (its count), never the continuation of an epoch header's group
BAR_LINE = re.compile(r"\|\s*+\d++/\d++\s*+\[")
# an evaluation starts: a line naming it with no digit (a header)
EVAL_BEGIN = re.compile(r"^\W*+(?:eval(?:uat\w*+)?|validat\w*+|valid|testing|test)\b[^\d\n]*+$", re.I)
# ... unless it is a config's key and its entries (yacs: "TEST:", then "  BATCH_SIZE: 10")
YACS_KEY = re.compile(r"^[A-Z][A-Z0-9_]*+:\s*+$")
YACS_ENTRY = re.compile(r"^\s++[A-Z][A-Z0-9_]*+:\s")
# ... and ends
EVAL_END = re.compile(r"^\W*+(?:eval\w*+|validat\w*+|test\w*+)\s++(?:samples|end|ended|done|finished|results?)\b", re.I)
# ... and a line naming the evaluation's end after other words: verl's "validation generation end" (printed
# after its validation pass, before the next "step:N - ..." training line): no section opens there. Linear:
# the words are possessive runs, each tried once from the line's start.
EVAL_OVER = re.compile(
    r"^\W*+(?:eval\w*+|validat\w*+|test\w*+)(?:\s++[A-Za-z_]++){0,3}?\s++(?:end|ended|done|finished)\W*+$", re.I
)
# a column header's names, and a row's values (a number, "1/50", "8.37G", "00:10")
_NAME = re.compile(r"[A-Za-z_][\w./()%-]*+")
_TAB_NAME = re.compile(r"[A-Za-z_][\w./()% -]*+")  # (a tab-separated header's: "Training Loss")
_TWO_NAMES = re.compile(r"\s*+[A-Za-z_][\w./()%-]*+\s++[A-Za-z_]")  # (a cheap first test: two names lead)


def _yolo5_names(toks: list[str]) -> list[str]:
    """A YOLO-family console header with its losses' names: YOLOv5's (before v6.1) "Epoch gpu_mem box obj
    cls [total] labels img_size", ultralytics/yolov3's "Epoch Batch xy wh conf cls total nTargets time" and its
    forks' (JDE's "Epoch Batch box conf id total nTargets time"): beside "gpu_mem", or "total" and a targets'
    count, the loss terms are read so."""
    low = [t.lower() for t in toks]
    if "gpu_mem" not in low and not ("total" in low and ("ntargets" in low or "targets" in low)):
        return toks
    return [YOLO5_TERMS.get(t, n) for t, n in zip(low, toks)]


# an aligned table's header and rows: cells apart by two or more blanks, a name of several words or
# symbols ("Train Loss", "W/D/L(this iter)", "mean|TD|", "|dW|"); its rows' cells may be no number
# ("2/0/2", "0.9 min": skipped, only when they hold a digit)
_ALIGNED = re.compile(r"\s{2,}+|\t")
_ALIGNED_NAME = re.compile(r"[A-Za-z_|][\w./()%|-]*+(?: [\w./()%|-]++){0,4}+")
_VALUE = re.compile(r"[-+]?(?:\d[\d.]*+(?:[eE][-+]?\d++)?+[A-Za-z%]?+(?:/\d++)?+|nan|inf)(?::\d++)*+:?", re.I)
COLUMN_STEPS = ("epoch", "step", "iter", "iteration")
#: YOLOv5's console header before v6.1 names its three loss terms and their sum without "loss" (fresh58: a
#: log pasted into a README read "no training metrics recognised"); beside "gpu_mem" they are read so
YOLO5_TERMS = {
    **{t: f"{t}_loss" for t in ("box", "obj", "cls", "conf", "xy", "wh", "id", "giou")},
    "total": "total_loss",
}
SPACY_HEADER = re.compile(r"^E\s++#\s++(?=LOSS )")
SPACY_LOSS = re.compile(r"\bLOSS ([A-Z][\w-]*+)")
# an ISO date and time under a column (the PyTorch Mario tutorial's MetricLogger: "... 8.927
# 2025-04-25T14:49:52"): a row's value, not a metric's (it holds ":", left as "00:10" is)
_STAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d++)?")
MAX_COLUMNS = 32  # names in a column header (a wider line is not one; ours)
_NOT_FINITE = ("nan", "inf", "+inf", "-inf", "+nan", "-nan")
# a progress bar after a row: "640: 100% ━━━ 75/75" (complete when the count reaches the total)
_BAR_COUNT = re.compile(r"(?<![\d/])(\d++)/(\d++)(?![\d/])")
DASHES = re.compile(r"^\s*+-{8,}+\s*+$")  # (not llm.c's "+----+----+" header box)
# a short rule inside a group (PointNet's "----" between "**** EPOCH 000 ****" and "mean loss: 2.41"):
# no line of the record, no end of it (a long one, DASHES, ends it)
RULE = re.compile(r"^\s*+[-=*_~.]{1,7}+\s*+$")
# a printed JSON object's brace alone on its line inside a group (robomimic prints "Train Epoch 1",
# then its metrics with json.dumps(indent=4): "{", '    "Loss": 0.33,', ..., "}"): no line of the
# record, no end of it
BRACE = re.compile(r"^\s*+[{}],?\s*+$")
# a training counter in brackets just before a printed dict record: an absl trainer's
# "[Train 10/1882] {'grads_finite': 1.0, 'train_loss': 0.0077}", CoreNet's "Epoch:   1 [
# 116/10000000], loss: {'classification': 4.72, 'total_loss': 4.79}" (the epoch, the counter and
# its total; the counter's key may name the dict); an evaluation's counter ("[Eval 3/10]") or a
# bare "[3/10]" is none
DICT_COUNTER = re.compile(
    r"(?:(?<!\w)epoch\s*+[:=]?\s*+(\d++)\s*+|\[\s*+(?=[a-z]))\[?\s*+"
    r"(?:(?:train(?:ing)?+|iter(?:ation)?+|step|batch|update)\s*+[:#]?\s*+)?(\d++)\s*+/\s*+(\d++)\s*+\]"
    r"\s*+[-:|,]?\s*+(?:[a-z_]\w*+\s*+[:=]\s*+)?$",
    re.I,
)
DICT_COUNTER_SPAN = 64  # characters before the dict searched for that counter

# a summary's header: "*** Training summary for epoch 0", "*** Validation summary for epoch 0"
# (no named number on it)
SUMMARY_HEADER = re.compile(
    r"(?<![\w])(train(?:ing)?+|validation|valid|val|test(?:ing)?+|eval(?:uation)?+)\s++summary\b[^=:]*+$", re.I
)
SUMMARY_HEADER_MAX = 400  # a longer line is no summary's header (and the search stays linear; ours)
# a MetricLogger evaluation's progress line: "Test:  [3000/3685]  eta: 0:01:06  loss: 84.12 (107.01)"
MLOG_EVAL = re.compile(
    r"^\s*+(?:test|val(?:id(?:ation)?+)?+|eval(?:uation)?+)\s*+:\s*+\[\s*+\d++\s*+/\s*+\d++\s*+\]", re.I
)
MLOG_STATS = "Averaged stats:"
# a MetricLogger meter: "loss: 40.5374 (104.8026)" (the window's median, the global average)
MLOG_METER = re.compile(
    r"(?<![\w.])([A-Za-z_][\w.]*+):\s++[-+]?[\d.]++(?:[eE][-+]?\d++)?+\s++\(([-+]?[\d.]++(?:[eE][-+]?\d++)?+)\)"
)
SUMMARY_NOTE = "epoch summary lines (the epoch's averages, not a step's record)"
EVAL_PROGRESS_NOTE = "evaluation progress lines (running values; the result is read from its summary)"
#: a table's step: the environment steps first (SB3's "time/total_timesteps")
TABLE_STEP = ("time/total_timesteps", "total_timesteps", "timesteps", "time/iterations", "iterations")


def dict_counter(line: str, i: int) -> tuple[int | None, int, int] | None:
    """(epoch or None, counter, its total) printed just before the dict at ``i``
    (``DICT_COUNTER``), or None."""
    if i <= 0:
        return None
    m = DICT_COUNTER.search(line, max(0, i - DICT_COUNTER_SPAN), i)
    if m is None:
        return None
    e = int64(m.group(1)) if m.group(1) else None
    n, total = int64(m.group(2)), int64(m.group(3))
    if n is None or total is None or (m.group(1) and e is None):
        return None
    return e, n, total


def _table_row(line: str) -> tuple[str, str] | None:
    """``| name | value |`` as (name, value), else None."""
    parts = line.split("|")
    if len(parts) != 4 or parts[0].strip() or parts[3].strip():
        return None
    k = parts[1].strip()
    return (k, parts[2].strip()) if k else None


#: an epoch header that names the same epoch above this many records in a row (each header with a
#: record after it) has stopped being a step: the records' ordinal is (ours: a per-epoch log whose
#: training and evaluation blocks each repeat the epoch's header shows it twice, never three times)
FROZEN_HEADERS = 3


class LineGroups:
    """The multi-line state of a generic text reader (mixed into KeyValueTextReader;
    the reader provides ``_cont_pairs(line)``, ``_dict_pairs(text)``, ``build`` and ``_ctx_on``)."""

    #: a multi-line context may be open (a group, a table, an evaluation section, a carried
    #: epoch): the per-line hot path checks this one flag
    _open = False
    _last_step: int  # (the reader's)
    records: int

    if TYPE_CHECKING:  # what the reader (KeyValueTextReader, a SourceReader) provides; nothing at run time
        run_info: dict[str, object]
        inferred_steps: int
        skip_reasons: dict[str, int]
        _no_template: bool

        def skip(self, reason: str) -> None: ...
        def field(self, key: str) -> str | None: ...
        def build(self, items, step: int | None = None, keep_extra: bool = True) -> StepRecord | None: ...
        def _metric_record(self, items) -> StepRecord | None: ...
        def _ctx_on(self) -> None: ...
        def _named_steps(self) -> bool: ...
        def _epoch_step(self, e: int, epochs: int | None, n: int, per: int | None) -> int | None: ...
        def _cont_pairs(self, line: str) -> list: ...
        @staticmethod
        def _dict_pairs(text: str) -> list: ...
        @staticmethod
        def _step_of_line(line: str) -> re.Match[str] | None: ...

    def _ctx_reset(self) -> None:
        self._cols: list[str] | None = None  # the last column header's names ...
        self._cols_tabbed = False  # ... apart by tabs (names may hold spaces) ...
        self._cols_aligned = False  # ... or by two blanks or more (names may hold one: ``_ALIGNED``) ...
        self._cols_alt: list[str] | None = None  # ... the names so split, when they differ from a plain split's
        self._cols_step: tuple[int | None, int | None] = (None, None)  # ... the step's column, the epoch's
        self._cols_rows = 0  # ... rows read under a header with no step column (their number is the step)
        self._cols_batch: int | None = None  # ... a batch counter's column beside the epoch's
        self._grp: list[Any] | None = None  # [step, pairs, lines]
        self._carry: tuple[int, int | None] | None = None  # (epoch, epochs) of the last epoch header
        self._evalsec: list[Any] | None = None  # [total of its first step line or None, records, lines since one]
        self._tbl: list[Any] | None = None  # [pairs, section prefix]
        self._summ: str | None = None  # "train" / "val": a summary's lines follow; "mlog": a MetricLogger evaluation

    # -- the wrapper's part: before a line is read as a line ---------------------------
    def _before(self, line: str) -> tuple[bool, list[StepRecord]]:
        """(the line was taken, records to emit first)."""
        out: list[StepRecord] = []
        if self._cols is not None:
            got = self._column_row(line)
            if got is not None:
                return True, got
        if self._tbl is not None:
            got = self._table(line)
            if got is not None:
                return True, got
        grp = self._grp
        if grp is not None:
            if RULE.match(line) or BRACE.match(line):
                return True, []
            if len(grp[2]) < MAX_GROUP_LINES and self._is_continuation(line):
                pairs = self._cont_pairs(line)
                if pairs:
                    grp[1] += pairs[: MAX_GROUP_PAIRS - len(grp[1])]
                    grp[2].append(line)
                    return True, []
            out = self._close_group()
        sec = self._evalsec
        if sec is not None:
            if EVAL_END.match(line) or EPOCH_HEADER.match(line) or self._eval_silent(sec) or self._yacs_section(line):
                self._evalsec = None
        return False, out

    def _yacs_section(self, line: str) -> bool:
        """The section just opened is a config's (a yacs / YAML dump's upper-case ``TEST:`` key, its entries
        indented upper-case keys: detectron2, maskrcnn-benchmark, SSD print theirs at each launch), no
        evaluation: fresh79's SSD logs read every training line after it as a validation loss."""
        return (
            self.__dict__.get("_evalsec_key", False)
            and self._evalsec is not None
            and self._evalsec[1] == self.records
            and YACS_ENTRY.match(line) is not None
        )

    def _eval_silent(self, sec: list[Any]) -> bool:
        """An evaluation section that has read no record for EVAL_SILENT_LINES lines is over: a header
        that prints nothing of its own ("=== Validation checkpoint ===", the last of a launch) had kept
        one open across the next launches of the file, every "loss=" line of theirs a validation loss."""
        if self.records != sec[1]:
            sec[1], sec[2] = self.records, 0
            return False
        sec[2] += 1
        return sec[2] > EVAL_SILENT_LINES

    # -- summary sections -----------------------------------------------------------------
    def _summary(self, line: str) -> list[StepRecord] | None:
        """A summary's header or line, a MetricLogger evaluation's line: what it gives (the
        line taken), else None (read as usual). Called for a line holding "ummary", starting
        with "Test:" / "Averaged stats:" or the like, and while a summary is open."""
        kind = self._summ
        if kind == "mlog":
            if MLOG_EVAL.match(line):
                note(self, EVAL_PROGRESS_NOTE)
                return []
            if line.startswith(MLOG_STATS):
                self._summ = None
                return self._val_record(MLOG_METER.findall(line))
            if self._step_of_line(line) is not None:
                self._summ = None  # training again, no result printed
            return None
        if kind is not None:
            if line[:1] in " \t" and ("=" in line or ":" in line):
                if kind == "train":
                    note(self, SUMMARY_NOTE)
                    return []
                i = line.find("{'")
                if i >= 0:
                    j = line.find("}", i)
                    return self._val_record(self._dict_pairs(line[i : j + 1 if j > i else len(line)]))
                return self._val_record(self._cont_pairs(line))
            self._summ = None
        if "ummary" in line and len(line) <= SUMMARY_HEADER_MAX:
            m = SUMMARY_HEADER.search(line)
            if m is not None:
                self._summ = "train" if m.group(1)[:2].lower() == "tr" else "val"
                return self._close_group()
        elif MLOG_EVAL.match(line):
            self._summ = "mlog"
            note(self, EVAL_PROGRESS_NOTE)
            return []
        return None

    def _val_record(self, pairs: list) -> list[StepRecord]:
        """A validation loss from a summary's pairs (its loss, or its validation loss), at
        the last training step; [] when none is there."""
        prev, n = self._last_step, self.records
        rec = self.build(pairs, step=max(prev, 0))
        self._last_step = prev
        v = None if rec is None else (rec.val_loss if rec.val_loss is not None else rec.loss)
        if rec is None or v is None:
            self.records = n
            note(self, SUMMARY_NOTE)
            return []
        return [StepRecord(rec.step, val_loss=v, source=rec.source)]

    def _is_continuation(self, line: str) -> bool:
        s = line.lstrip()
        return not (
            s[:1] == "|"
            or "OVERFLOW" in line
            or DASHES.match(line)
            or EPOCH_HEADER.match(line)
            or self._step_of_line(line) is not None
            or ("{'" in line and self._own_dict_record(line))
            or (("it/s" in line or "s/it" in line) and BAR_LINE.search(line) is not None)
        )

    def _own_dict_record(self, line: str) -> bool:
        """A printed dict that is a record of its own, never a continuation of a header's
        group: it has its own counter (``dict_counter``), or the log's records so far were
        printed dicts counted one by one (a prose line naming a step between them, absl's
        "Saving checkpoint at step: 1000", would otherwise swallow the next 32 records)."""
        return self.inferred_steps > 0 or dict_counter(line, line.find("{'")) is not None

    def _blank(self) -> list[StepRecord]:
        self._evalsec = None
        self._cols = None  # a table of columns ends at a blank line (Ultralytics prints one before each header)
        return self._close_group()

    # -- a step carried across lines -------------------------------------------------------
    def _open_group(self, step: int, pairs: list) -> None:
        self._ctx_on()
        self._grp = [step, list(pairs), []]

    def _close_group(self) -> list[StepRecord]:
        grp = self._grp
        if grp is None:
            return []
        self._grp = None
        if not grp[2]:
            return []  # a header alone (prose: "saving at step 500")
        rec = self.build(grp[1], step=grp[0])
        if rec is None:
            return []
        if len(grp) > 3 and grp[3]:  # an epoch header's group: its total is the planned steps
            self.run_info.setdefault("total_steps", grp[3])
        self._no_template = True  # (a probe's: several lines are no template)
        return [rec]

    # -- epoch headers and evaluation sections --------------------------------------------
    def _epoch_header(self, line: str) -> bool:
        m = EPOCH_HEADER.match(line)
        if m is None:
            return False
        if m.group(1) and not m.group(1).lower().startswith("train"):
            # an evaluation's epoch header (ST-GCN's "Eval epoch: 4", its mean_loss on the next line):
            # an evaluation section, its loss the validation loss at the last training step
            self._open_eval()
            return True
        e, total = int64(m.group(2)), int64(m.group(3)) if m.group(3) else None
        if e is None:
            self.skip("step out of range")
            return True
        self._ctx_on()
        self._carry = (e, total)
        self._evalsec = None
        if not self._named_steps():  # a per-epoch log: the epoch is the step of what follows
            self._grp = [self._header_step(e), [], [], total]
        return True

    def _header_step(self, e: int) -> int:
        """The step of the record under an epoch header of epoch ``e``: ``e``, unless the header
        printed the same epoch before FROZEN_HEADERS records in a row: an epoch that never moves
        is no step, the record's ordinal is (fresh82's GNN loop prints "Epoch: 0-----" above each of
        its 2,966 losses: read at step 0, 1,924 of them dropped as a second writer's copies)."""
        rep = self.__dict__.get("_hdr_rep")  # (epoch, headers of it in a row with a record each, records then)
        if rep is not None and rep[1] >= FROZEN_HEADERS:
            return self.records  # (frozen: for the rest of the file)
        n = rep[1] + 1 if rep is not None and rep[0] == e and self.records > rep[2] else 0
        self._hdr_rep = (e, n, self.records)
        return self.records if n >= FROZEN_HEADERS else e

    def _batch_header(self, line: str) -> bool:
        """A batch counter alone on its line after an epoch header: a step (the epoch's
        offset plus the counter, ``_epoch_step``) whose metrics follow."""
        m = BATCH_HEADER.match(line)
        carry = self._carry
        if m is None or carry is None:
            return False
        e, epochs = carry
        n = int64(m.group(1))
        per = int64(m.group(2)) if m.group(2) else None
        step = self._epoch_step(e, epochs, n, per) if n is not None else None
        if step is None:
            self.skip("step out of range")
            return True
        self._evalsec = None
        self._open_group(step, [("epoch", str(e))])
        return True

    def _eval_header(self, line: str) -> bool:
        if EVAL_BEGIN.match(line) is None or EVAL_OVER.match(line) is not None:
            return False
        self._open_eval()
        self._evalsec_key = YACS_KEY.match(line) is not None  # (``_yacs_section``)
        return True

    def _open_eval(self) -> None:
        """An evaluation section begins (its counter's total, if any, fixed by its first step line)."""
        self._ctx_on()
        self._evalsec = [None, self.records, 0]

    def _in_eval(self, total: int | None) -> bool:
        """A step line inside an evaluation section (the first one's total fixes the
        section's; a line counting to another total is training again)."""
        sec = self._evalsec
        if sec is None:
            return False
        if sec[0] is None:
            if total is not None and str(total) == str(self.run_info.get("total_steps")):
                # counting to the training's planned steps: the training's next step, not an evaluation's
                # (OpenNMT-py's "valid's transforms: TransformPipe()" line, then its validation results
                # with no counter, then "Step 10050/100000": 1,797 of 2,000 steps read as evaluations)
                self._evalsec = None
                return False
            sec[0] = total if total is not None else -1
            return True
        if total is not None and sec[0] != -1 and total != sec[0]:
            self._evalsec = None
            return False
        return True

    # -- column headers and their rows ----------------------------------------------------------
    def _column_header(self, line: str) -> bool:
        sp = SPACY_HEADER.match(line) if line[:1] == "E" else None
        if sp is not None:
            # spaCy v3's training table: "E    #       LOSS TOK2VEC  LOSS NER  ENTS_F ..." (the epoch, the
            # step, a loss per pipeline component: names of two words)
            line = "epoch step " + SPACY_LOSS.sub(r"LOSS_\1", line[sp.end() :])
        elif line[:1] == "#":
            line = line[1:]  # (np.savetxt(..., header="epoch train_loss val_loss") writes "#epoch train_loss ...")
        if ":" in line or "=" in line or "," in line or _TWO_NAMES.match(line) is None:
            return False  # (no name holds these, a row of names starts with two: metric lines leave here)
        tabbed = "\t" in line.strip()
        if tabbed:
            # a table copied from a notebook's output (HF's NotebookProgressCallback: "Step\tTraining
            # Loss\tValidation Loss"): its names hold spaces, its cells are apart by tabs, two columns do
            toks = [t.strip() for t in line.strip().split("\t", MAX_COLUMNS)]
            if not 2 <= len(toks) <= MAX_COLUMNS or not all(_TAB_NAME.fullmatch(t) for t in toks):
                return False
        else:
            toks = line.split(None, MAX_COLUMNS)
            # (two names do: a loop's own "epoch loss" header before its "1 0.5432" rows; a step word and a
            # loss, below, and its rows must follow)
            plain = 2 <= len(toks) <= MAX_COLUMNS and all(_NAME.fullmatch(t) for t in toks)
            alt = self._aligned_names(line, len(toks))
            if not plain:
                if alt is None or not self._column_names(alt, False):
                    return False
                toks, alt = alt, None
                self._set_columns(toks, False, aligned=True)
                return True
            if alt is not None and not self._column_names(alt, False):
                alt = None
            if not self._column_names(toks, False):
                return False
            self._set_columns(toks, False, alt=alt)
            return True
        if not self._column_names(toks, tabbed):
            return False
        self._set_columns(toks, tabbed)
        return True

    @staticmethod
    def _aligned_names(line: str, plain: int) -> list[str] | None:
        """The names of an aligned header (``_ALIGNED``) when one holds a blank or a symbol a plain
        name does not (else None: the plain split's are the same names)."""
        s = line.strip()
        if "  " not in s:
            return None
        toks = _ALIGNED.split(s, MAX_COLUMNS)
        if len(toks) == plain or not 2 <= len(toks) <= MAX_COLUMNS:
            return None
        return toks if all(_ALIGNED_NAME.fullmatch(t) for t in toks) else None

    def _column_names(self, toks: list[str], tabbed: bool) -> bool:
        """``toks`` name a table's columns: a step column (or, tab-separated, a loss) and a metric."""
        toks = _yolo5_names(toks)
        low = [t.lower() for t in toks]
        stepped = any(t in COLUMN_STEPS for t in low)
        if not stepped and not (tabbed and any(self.field(t) == "loss" for t in toks)):
            # (with no step column only a tab-separated header with the loss: bearpaw's pytorch-classification
            # Logger, "Learning Rate\tTrain Loss\tValid Loss\tTrain Acc.\tValid Acc.", one row an epoch; fresh109:
            # "no training metrics recognised")
            return False
        return any(self.field(t) in ("loss", "val_loss", "grad_norm", "lr") or loss_role(t) for t in toks)

    def _set_columns(self, toks: list[str], tabbed: bool, aligned: bool = False, alt: list[str] | None = None) -> None:
        """A column header's names are the table's (its rows follow: ``_column_row``)."""
        self._ctx_on()
        toks = _yolo5_names(toks)
        low = [t.lower() for t in toks]
        self._cols, self._cols_tabbed, self._cols_aligned, self._cols_alt = toks, tabbed, aligned, alt
        # the step column: a step / iteration one over the epoch when the header has both ("epoch step
        # LOSS_NER ...": spaCy's; the epoch then stays an item of the row)
        at = next((i for i, c in enumerate(low) if c in COLUMN_STEPS and c != "epoch"), None)
        ep = low.index("epoch") if "epoch" in low else None
        self._cols_step = (at, ep) if at is not None else (ep, None)
        # a batch counter with its total beside the epoch ("Epoch Batch ...", rows "0/29  40/165 ...":
        # ultralytics/yolov3's and its forks'; fresh121's JDE log read nothing): the row's step is the counter
        # placed in its epoch (``_epoch_step``); a "batch" cell with no total is no counter (a batch size)
        self._cols_batch = low.index("batch") if at is None and ep is not None and "batch" in low else None
        self._cols_rows = 0  # (a header with no step column: its rows are numbered from 1)

    def _column_row(self, line: str) -> list[StepRecord] | None:
        """A row of values under the last column header: its record, [] for a running
        bar's redraw, None when the line is not a row. A header whose names an aligned split
        reads otherwise (``_cols_alt``) is read so from its first row that fits only that."""
        got = self._column_row1(line)
        alt = self._cols_alt
        if alt is not None:
            self._cols_alt = None  # (the first row decides)
            if got is None:
                cols = self._cols
                self._set_columns(alt, False, aligned=True)
                got = self._column_row1(line)
                if got is None:
                    self._set_columns(cols or [], False, alt=alt)  # (no row of either: as it was)
        return got

    def _column_row1(self, line: str) -> list[StepRecord] | None:
        cols = self._cols
        assert cols is not None  # (called while a column header is open)
        blank: set[int] = set()
        if self._cols_tabbed:
            # (a notebook's empty cells: "No log" before the first evaluation: no value, not no row)
            toks = [t.strip() for t in line.strip().split("\t", len(cols))]
            blank = {i for i, t in enumerate(toks) if t in ("", "No log")}
        elif self._cols_aligned:
            toks = _ALIGNED.split(line.strip(), len(cols))
            if len(toks) != len(cols):
                toks = line.split(None, len(cols))  # (cells wide enough to touch: one blank between)
                if len(toks) != len(cols):
                    return None
            # (a cell of other text holding a digit, "2/0/2", "0.9 min": no metric's number, not no row)
            blank = {i for i, t in enumerate(toks) if not _VALUE.fullmatch(t) and any(c.isdigit() for c in t)}
        else:
            toks = line.split(None, len(cols))
        if len(toks) < len(cols) or not all(
            i in blank or _VALUE.fullmatch(t) or _STAMP.fullmatch(t) for i, t in enumerate(toks[: len(cols)])
        ):
            return None
        rest = toks[len(cols)] if len(toks) > len(cols) else ""
        if rest:
            last = None
            for last in _BAR_COUNT.finditer(rest):  # noqa: B007  (the bar's count is the last "n/total")
                pass
            if last is not None and last.group(1) != last.group(2):
                return []  # a bar still running: its values are running means
            if last is None and ("%" in rest or "|" in rest):
                return []  # (... one with no count yet)
            # (a bar cut before its count, "640: 1": a saved notebook output kept the row's first characters
            # of its last redraw only, fresh58's Kaggle YOLOv5 run: the row is the epoch's only state)
        items, step = [], None
        at, epoch_at = self._cols_step
        batch_at, counter, planned = self._cols_batch, None, None
        for i, (name, v) in enumerate(zip(cols, toks)):
            if i in blank:
                continue
            v = v.rstrip(":")
            if i == at:
                n, _, total = v.partition("/")
                step = int64(n) if n.isdigit() else None
                if step is None:
                    return None
                planned = total if total.isdigit() else None
                continue
            if i == batch_at:
                n, _, total = v.partition("/")
                if n.isdigit() and total.isdigit():
                    counter = (int(n), int(total))
                    continue
            if i == epoch_at and v.isdigit():
                items.append(("epoch", v))
                continue
            if (v[-1:].isalpha() and v.lower() not in _NOT_FINITE) or ":" in v or v[-1:] == "%":
                continue  # 8.37G, 00:10, 85%: not a metric's number (a NaN loss is kept)
            items.append((name, v))
        if counter is not None and step is not None:
            epochs = int(planned) if planned is not None else None
            step = self._epoch_step(int(step), epochs, *counter)  # (the epoch's total is no step's)
        elif planned is not None:
            self.run_info.setdefault("total_steps", planned)
        numbered = step is None and at is None and epoch_at is None
        if numbered:
            self._cols_rows += 1
            step = self._cols_rows
        if step is None:
            return None
        rec = self.build(items, step=step)
        if rec is not None and numbered:
            self.inferred_steps += 1  # (the report says the steps are the rows' numbers)
        if rec is None:
            return []
        self._no_template = True
        return [rec]

    # -- tables ---------------------------------------------------------------------------
    def _table_start(self, line: str) -> bool:
        if DASHES.match(line) is None:
            return False
        self._ctx_on()
        self._tbl = [[], ""]
        return True

    def _table(self, line: str) -> list[StepRecord] | None:
        """A line inside a table: None when it is not part of one (the table is dropped)."""
        tbl = self._tbl
        assert tbl is not None  # (called while a table is open)
        if DASHES.match(line):
            self._tbl = [[], ""]  # the closing line (and maybe the next table's opening one)
            return self._table_record(tbl[0])
        row = _table_row(line)
        if row is None:
            self._tbl = None
            return None
        k, v = row
        if not v:
            tbl[1] = k if k.endswith("/") else k + "/"  # a section: "rollout/", "train/"
            return []
        if len(tbl[0]) < MAX_GROUP_PAIRS:
            tbl[0].append((k if k.startswith(tbl[1]) or not tbl[1] else tbl[1] + k.lstrip("/"), v))
        return []

    def _table_record(self, pairs: list) -> list[StepRecord]:
        if not pairs:
            return []
        vals = dict(pairs)
        step = None
        for k in TABLE_STEP:
            v = vals.get(k)
            if v is not None:
                try:
                    step = int64(float(v))
                except ValueError:
                    step = None
                if step is not None:
                    break
        rec = self.build(pairs, step=step) if step is not None else self._metric_record(pairs)
        if rec is None:
            return []
        self._no_template = True
        return [rec]
