"""CSV with a header: Lightning CSVLogger (sparse rows, sorted header, rewritten
when a column appears), Keras CSVLogger (CRLF, one row per epoch), and
similar. A row whose cell count does not match the header is skipped and
counted. Without a step column, the epoch is the step; with neither, a table
that has a loss column (stable-baselines3's SAC ``progress.csv``: actor / critic
losses, no timestep) is a series of its data rows (the row's number is the step,
counted, as the report says). Tab-separated tables
(``step<TAB>loss``: a header with tabs and no comma) are read the same way.

A step column that starts again when the epoch column moves on (``Epoch,Batch,...``:
a batch index within each epoch) is a per-epoch counter, not the run's step: the step
is the batches of the epochs before plus the batch (decided at the first new epoch;
Lightning's global ``step`` beside ``epoch`` keeps counting and is taken as it is).
"""

from __future__ import annotations

import csv
import re

from tsm_tui.core.record import StepRecord
from tsm_tui.core.numbers import int64
from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.epoch_steps import EpochCounter
from tsm_tui.sources.fields import (
    SPLIT_KEYS,
    SYMBOL_KEY,
    epoch_train_loss,
    field_for,
    loss_role,
    named_objective,
    split_scoped,
)


#: a number standing alone in a cell ("Loss 6.9e+00 (6.9e+00)", "Epoch: [0][ 50/1000]"), not
#: part of a name ("mAP50-95", "lr-AdamW/pg1", "loss_0", "acc@1"): a first line where most
#: cells hold one is a record of a log whose fields are tab-separated (the PyTorch ImageNet
#: example, mmcv's "Epoch [1][50/1000]\tlr: ...", Swin's "Train: [0/300][100/1251]\t..."),
#: not a header (a header names its columns)
_VALUE = re.compile(r"(?<![\w.\-/@])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w\-/@]|\.\w)")
#: ... but an interval in a name is the name's ("train/loss t=[0.00,0.25)": a loss per diffusion-time
#: bin of a Lightning CSVLogger, quoted for its comma; fresh113: "no training metrics recognised")
_INTERVAL = re.compile(r"[\[(]\s*+[-+]?[\d.]++\s*+,\s*+[-+]?[\d.]++\s*+[\])]")


def _value_cell(h: str) -> bool:
    """A header cell holding a number of its own (``_VALUE``), an interval's bounds aside."""
    if "," in h:
        h = _INTERVAL.sub("", h)
    return _VALUE.search(h) is not None


#: a W&B chart's CSV export ("Download CSV" of a panel): "Step", then per run "<run> - <metric>" and its
#: "__MIN" / "__MAX" companions (the band of a smoothed or grouped line), several runs side by side
#: (fresh105's "lmbda0_lr5e5_steps20k - train/loss", ten runs: "no training metrics recognised")
WANDB_EXPORT = re.compile(r"(.+?) - (\S.*?)(__MIN|__MAX)?")


def wandb_export(header: list[str]) -> tuple[str, list[str | None], list[str]] | None:
    """A W&B chart export's header (WANDB_EXPORT): (the first run's name, the header with that run's metric
    names and None for every other cell but the step, the other runs' names); None for another header."""
    runs: list[str] = []
    out: list[str | None] = []
    for h in header:
        if field_for(h) == "step":
            out.append(h)
            continue
        m = WANDB_EXPORT.fullmatch(h)
        if m is None:
            return None
        if m.group(1) not in runs:
            runs.append(m.group(1))
        out.append(m.group(2) if m.group(1) == runs[0] and m.group(3) is None else None)
    if not runs or len(out) == len([c for c in out if c is not None and field_for(c) == "step"]):
        return None
    return runs[0], out, runs[1:]


#: a cell that holds a name and its value (``epoch0is:tf.Tensor(8.07``, ``loss: 2.3``): no header's
_PAIR_IN_CELL = re.compile(r"[:=](?:\s++|[A-Za-z_.]++\(\s*+)[-+]?\d")  # (not "mAP_0.5:0.95": a range)


class CsvReader(LineReader):
    name = "csv"
    priority = 15

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        lines = [ln.strip("\r") for ln in head if ln.strip()]
        if len(lines) < 2:
            return 0.0
        delim = _delimiter(lines[0])
        if delim is None:
            return 0.0
        try:
            header = next(csv.reader([lines[0]], delimiter=delim))
        except csv.Error:
            return 0.0
        exported = wandb_export([h.strip() for h in header])
        if exported is not None:
            header = [h for h in exported[1] if h is not None]
        if sum(1 for h in header if _value_cell(h)) * 2 > len(header):
            return 0.0  # a log line whose fields are tab / comma separated, not a header (see _VALUE)
        if any(_PAIR_IN_CELL.search(h) for h in header):
            return 0.0  # a named value in a cell ("loss:tf.Tensor(8.07, shape=(), ...)"): a log line, not names
        fields = [field_for(h) for h in header]
        # (a column named as an objective goes by when no name says loss: "step,mse", "epoch,cost")
        named = named_objective(tuple(h.strip() for h in header if h.strip() != SYMBOL_KEY)) is not None
        if not any(f and f != "step" for f in fields) and not any(loss_role(h) for h in header) and not named:
            return 0.0
        if not (
            "step" in fields
            or "epoch" in [h.strip().lower() for h in header]
            or named
            or any(f in ("loss", "val_loss") or (f is None and loss_role(h)) for f, h in zip(fields, header))
        ):
            return 0.0  # (a table with no step needs a loss: its rows are then the steps)
        n = len(exported[1]) if exported is not None else len(header)
        good = sum(1 for ln in lines[1:20] if len(_cells(ln, delim) or ()) == n)
        return 0.4 + 0.5 * good / max(1, len(lines[1:20]))

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.header: list[str] | None = None
        self._step_col: int | None = None
        self._epoch_col: int | None = None
        self._split = False  # a split / phase column (fields.split_scoped)
        self._delim = ","
        self._row = 0  # data rows read (the step of a table with no step column)
        self._other_width: int | None = None  # the width of a second table written into the file (OTHER_TABLE)
        #: the step column beside an epoch column: a global step or a batch index within each
        #: epoch (strict: Lightning's epoch-end row repeats its global step under the next epoch)
        self._epochs = EpochCounter(strict=True)
        #: a W&B chart export (``wandb_export``): the cells read (the first run's), its name, the other runs
        self._keep: list[bool] | None = None
        self.export: tuple[str, list[str]] | None = None

    def feed(self, line: str) -> list[StepRecord]:
        line = line.rstrip("\r")
        if not line.strip():
            return []
        if self.header is None:
            self._delim = _delimiter(line) or ","
        try:
            row = next(csv.reader([line], delimiter=self._delim))
        except csv.Error:
            self.skip("malformed CSV")
            return []
        if self._delim == ";" and "," in line:
            # (a semicolon-separated file's decimal comma: "2,3019" is 2.3019, never 23019)
            row = [c.replace(",", ".") if _DECIMAL_COMMA.fullmatch(c.strip()) else c for c in row]
        if self.header is None:
            self._set_header(row)
            return []
        if row == self.header:
            return []  # the header again (Lightning's rewrite, a concatenated file)
        if len(row) != len(self.header):
            if len(row) == self._other_width:
                self.skip(OTHER_TABLE)
                return []
            # Lightning rewrites the file with a new header when a column appears:
            # a row that looks like a header replaces the old one
            if all(field_for(c) is not None or not _is_number(c) for c in row) and not any(_is_number(c) for c in row):
                if self.records and self.header is not None and not set(self.header) & {c.strip() for c in row}:
                    # ... but a header with none of the table's names, after its records, is a second table's
                    # written into the same file, its rows between the table's (rllab's logger: OptionGAN's
                    # "MeanGateDist,MinGateDist,MaxGateDist" under a 30-column progress.csv: fresh85, every
                    # row after it "wrong number of cells")
                    self._other_width = len(row)
                    self.skip(OTHER_TABLE)
                    return []
                self._set_header(row)
                return []
            self.skip("wrong number of cells")
            return []
        step = None
        if self._step_col is not None:
            v = row[self._step_col].strip()
            if v:
                try:
                    step = int64(float(v))
                except ValueError:
                    step = None
                if step is None:
                    self.skip("bad step")
                    return []
                if self._epoch_col is not None:
                    step = self._within_epoch(step, row[self._epoch_col].strip())
                    if step is None:
                        self.skip("step out of range")
                        return []
        elif self._epoch_col is not None:
            v = row[self._epoch_col].strip()
            try:
                step = int64(float(v)) if v else None
            except ValueError:
                step = None
        else:
            # no step and no epoch column (stable-baselines3's SAC progress.csv: one row per
            # dump): the data row's number, rows without a metric counted too
            self._row += 1
            step = self._row
        if self._keep is not None:
            items = [(h, c) for h, c, k in zip(self.header, row, self._keep) if k and c != ""]
        else:
            items = [(h, c) for h, c in zip(self.header, row) if c != ""]
        if self._split:
            items = split_scoped(items)  # (a phase column: an evaluation row's loss is the validation loss)
        rec = self.build(items, step=step)
        if rec is not None and self._step_col is None and self._epoch_col is None:
            self.inferred_steps += 1
        return [rec] if rec is not None else []

    def _within_epoch(self, raw: int, ev: str) -> int | None:
        """The run's step for a row whose step column says ``raw`` in epoch ``ev``
        (sources/epoch_steps.py); a row with no whole epoch is placed in the last one."""
        try:
            epoch = float(ev) if ev else None
        except ValueError:
            epoch = None
        if epoch is None or not epoch.is_integer():
            return self._epochs.in_last_epoch(raw)
        return self._epochs.step(int(epoch), None, raw, None)[0]

    def describe(self) -> dict:
        if self.export is not None:
            first, others = self.export
            more = f"; the other {len(others)} not read: {', '.join(others[:6])}" + (" ..." if len(others) > 6 else "")
            return {
                "step_source": f"W&B chart export: the Step column of run '{first}' (the file's first of "
                f"{len(others) + 1} run(s){more if others else ''})"
            }
        if self._epochs.mode != "epoch" or self.header is None or self._step_col is None or self._epoch_col is None:
            return {}
        b, e = self.header[self._step_col], self.header[self._epoch_col]
        return {
            "step_source": f"'{e}' and '{b}': '{b}' counts within each epoch, so the step is the batches of the "
            f"epochs before plus '{b}'"
        }

    def _set_header(self, row: list[str]) -> None:
        self.header = [h.strip() for h in row]
        exported = wandb_export(self.header)
        self._keep = None
        if exported is not None:
            first, names, others = exported
            self.export = (first, others)
            self._keep = [n is not None for n in names]
            self.header = [n if n is not None else h for n, h in zip(names, self.header)]
        fields = [self.field(h) for h in self.header]  # (cached per name: a header of 300k cells)
        self._step_col = fields.index("step") if "step" in fields else None
        low = [h.lower() for h in self.header]
        self._epoch_col = low.index("epoch") if "epoch" in low else None
        self._split = not SPLIT_KEYS.isdisjoint(low)
        if self._twins(fields):
            return
        if "loss" not in fields:  # (no per-step loss: a training loss per epoch is the loss)
            at = next((h for h, f in zip(self.header, fields) if f is None and epoch_train_loss(h)), None)
            if at is not None:
                self._fields[at] = "loss"

    def _twins(self, fields: list[str | None]) -> bool:
        """The training loss logged as a ``_step`` and an ``_epoch`` column (TWIN_FULLER, TWIN_THIN): one is the
        loss, the other no field. A loss named after its function (``train_cross_entropy_step``: no
        "loss" in it, fresh128's CamVid run read "no training steps found") is one too when no column is the
        loss, and its validation twin (``val_cross_entropy``) the validation loss when none is named. True
        when a pair was found."""
        assert self.header is not None
        names = self.header
        at = {h: i for i, h in enumerate(names)}
        for i, (h, f) in enumerate(zip(names, fields)):
            if not h.endswith("_step") or (j := at.get(h[:-5] + "_epoch")) is None:
                continue
            base = h[:-5]
            if f != "loss" and not ("loss" not in fields and f is None and loss_role(base) == "term"):
                continue
            n_step, n_epoch = self._filled(i, j)
            thin = n_step < TWIN_THIN and n_epoch >= TWIN_FULLER * max(n_step, 1)
            take, other = (j, i) if thin else (i, j)
            self._fields[names[take]] = "loss"
            self._fields[names[other]] = None
            if "val_loss" not in fields:
                bare = _TWIN_SCOPE.sub("", base)
                for v in (f"val_{bare}", f"valid_{bare}", f"val/{bare}", f"validation_{bare}"):
                    if v in at and fields[at[v]] is None:
                        self._fields[v] = "val_loss"
                        break
            return True
        return False

    def _filled(self, i: int, j: int) -> tuple[int, int]:
        """The non-empty cells of columns ``i`` and ``j`` in the file's first TWIN_PEEK bytes ((0, 0) when
        it cannot be read: a stream)."""
        n_i = n_j = 0
        try:
            with open_regular(self.path) as f:
                text = f.read(TWIN_PEEK).decode("utf-8", "replace")
        except (OSError, ValueError):
            return 0, 0
        width = len(self.header or ())
        for row in csv.reader(text.splitlines()[1:], delimiter=self._delim):
            if len(row) == width:
                n_i += bool(row[i].strip())
                n_j += bool(row[j].strip())
        return n_i, n_j


#: Lightning logs a loss with on_step and on_epoch as two columns, ``<name>_step`` (every log_every_n_steps)
#: and ``<name>_epoch`` (each epoch's mean): the step column is the loss (its raw values: a batch's spike, which
#: an epoch's mean smooths away) unless it holds fewer than TWIN_THIN values (half the spike rules' window of 100:
#: ours) and the epoch column TWIN_FULLER x as many (a run of a few steps an epoch logged every 50: fresh128's
#: latent-diffusion runs, 2 step values beside 100 epoch values, read "no spikes in 2 loss values"; fresh71's PINA
#: runs, 140 step values beside 1,000 epoch means, keep their steps: the means hid a burst), counted in the file's
#: first TWIN_PEEK bytes when the header is read (a live file with no rows yet keeps the step column; ours)
TWIN_FULLER = 2.0
TWIN_THIN = 50
TWIN_PEEK = 4 << 20
_TWIN_SCOPE = re.compile(r"^(?:train(?:ing)?|tr)[/_.]", re.I)

OTHER_TABLE = "a second table's line (another header and its rows between the table's)"
_DECIMAL_COMMA = re.compile(r"[-+]?\d++,\d++(?:[eE][-+]?\d++)?")


def _delimiter(header: str) -> str | None:
    """ "," for a CSV header, tab for a tab-separated one, ";" for a semicolon-separated one (a spreadsheet
    saved where the comma is the decimal mark, pandas' ``sep=";"``), else None."""
    if "," in header:
        return ","
    if "\t" in header:
        return "\t"
    if ";" in header:
        return ";"
    return None


def _cells(line: str, delim: str = ",") -> list[str] | None:
    """One CSV row's cells; None when it is not one (a lone CR inside a cell ...)."""
    try:
        return next(csv.reader([line], delimiter=delim), [])
    except csv.Error:
        return None


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False
