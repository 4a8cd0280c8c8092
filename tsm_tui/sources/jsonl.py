"""JSON Lines: one object per line; nested dicts flattened with ``/``.

Python's json accepts the bare NaN / Infinity that Python writers emit (HF,
LLaMA-Factory). A line that does not decode (corrupt, truncated) is skipped
and counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np

from tsm_tui.core.frame import INT_FIELDS, METRIC_FIELDS, Frame
from tsm_tui.core.numbers import MAX_INT
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import MAX_LINE, LineReader
from tsm_tui.sources.epoch_steps import EpochCounter
from tsm_tui.sources.fields import SPLIT_KEYS, TIME_MS, eval_split, field_for, split_scoped, total_over
from tsm_tui.sources.lines import split_block
from tsm_tui.sources.placeholders import SplitPlaceholders

_fast_loads: Callable[[bytes | str], Any] | None
_FastError: type[ValueError]
try:  # orjson is ~3x faster but rejects NaN; use it first and fall back.
    import orjson as _orjson

    _fast_loads = _orjson.loads
    _FastError = _orjson.JSONDecodeError
except ImportError:  # pragma: no cover - optional
    _fast_loads = None
    _FastError = ValueError

MIN_RUN = 16  # lines of one key set worth a Frame
_PLAIN = {int, float, str}
_INT64_END = float(1 << 63)
_INF = float("inf")


def _parse_float(s: str):
    x = float(s)
    return s if x in (_INF, -_INF) else x  # 1e400: its text, a counted "number out of range" in build


def _loads(line: str):
    if _fast_loads is not None:
        try:
            return _fast_loads(line)
        except _FastError:
            pass
    return json.loads(line, parse_float=_parse_float)


#: keys that name the metric of a long-form line (one metric a line: ``{"name": "loss", "step": 10,
#: "value": 2.31}``, a tracker's export, a logger's ``log(name, value, step)``), and the most keys such a
#: line holds (the name, the value, a step, a time or two)
LONG_NAMES = ("name", "tag", "metric", "key")
LONG_MAX_KEYS = 6


def flatten(d: dict, prefix: str = "", out: dict | None = None) -> dict:
    if out is None:
        out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            flatten(v, key + "/", out)
        else:
            out[key] = v
    return out


def _whole_epoch(e) -> int | None:
    """A JSON ``epoch`` value as a whole epoch number (``3`` or ``3.0``), else None (a fraction, a string,
    out of range)."""
    if type(e) is float and e.is_integer():
        e = int(e)
    return e if type(e) is int and 0 <= e <= MAX_INT else None


class JsonlReader(LineReader):
    name = "jsonl"
    priority = 20
    holds_lines = True  # (a long-form step held until the next: delivered live when the file goes quiet)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        lines = [ln for ln in head if ln.strip()][:50]
        if not lines:
            return 0.0
        ok = 0
        for ln in lines:
            s = ln.strip()
            if not (s.startswith("{") and s.endswith("}")):
                continue
            try:
                obj = json.loads(s)
            except (ValueError, RecursionError):
                continue
            # (a number under a metric's name: a dict of lists is a history dump, json_doc.py)
            if isinstance(obj, dict) and any(field_for(k) and not isinstance(v, list) for k, v in flatten(obj).items()):
                ok += 1
        if not ok:
            return 0.0
        return 0.5 + 0.5 * ok / len(lines)

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._count = 0
        self._plans: dict[tuple, tuple | None] = {}
        #: records stepped by their epoch (``_epoch_step``): None until one is, False once two in a
        #: row named the same epoch
        self._epochs: bool | None = None
        self._epoch_last: int | None = None
        #: a long-form file's record being gathered (``_long_form``): its step value and its pairs
        self._long: tuple[object, dict] | None = None
        #: a step key beside a whole ``epoch`` key: a global step, or a counter that starts again each
        #: epoch (MMCV's ``{"mode": "train", "epoch": 3, "iter": 140, ...}``), told at the first change of
        #: epoch (epoch_steps.py: the rule the text and CSV readers use); None until a record has both
        self._ecount: EpochCounter | None = None

    # -- replay fast path ------------------------------------------------------------
    def feed_chunk(self, data: bytes) -> list:
        """Whole chunks of lines with one key set become Frames: orjson parses the
        chunk as one array when that provably equals parsing each line (``_whole``),
        else each line; numpy takes all values in one pass. Anything the per-line
        path would treat differently (NaN / Infinity tokens, booleans, nulls,
        strings that are not numbers, nested objects, corrupt or over-long lines,
        another key set) goes line by line through ``feed``; a run of same-key
        lines inside a mixed chunk is still a Frame."""
        if _fast_loads is None:
            return super().feed_chunk(data)
        # numpy would turn a boolean into 1.0 and a null into NaN; build() ignores both
        # (single-byte gates first: memchr, ~20x cheaper than the word searches)
        flagged = (b"u" in data and (b"true" in data or b"null" in data)) or (b"f" in data and b"false" in data)
        # a launch banner read and no record since: the next record carries the mark, so
        # the chunk goes the mixed way (a Frame carries no launch mark)
        objs = None if self.launch_pending else self._whole(data)
        if objs is not None:
            fr = self._frame(objs, flagged)
            if fr is not None:
                return [fr]
        lines, last_open = split_block(data)
        if not lines:
            return []
        try:
            objs = list(map(_fast_loads, lines))
            same = len(set(map(len, objs))) == 1
        except (_FastError, TypeError):
            return self._mixed(lines, last_open, flagged=flagged)
        if not same or self.launch_pending or (len(data) >= MAX_LINE and max(map(len, lines)) >= MAX_LINE):
            return self._mixed(lines, last_open, objs, flagged)
        fr = self._frame(objs, flagged)
        return [fr] if fr is not None else self._mixed(lines, last_open, objs, flagged)

    @staticmethod
    def _whole(data: bytes) -> list | None:
        """The chunk's objects from one orjson call over the lines joined as an
        array, when that is provably what parsing each line gives; else None.

        Proof: every line starts with "{" and the chunk holds no other "{", so
        each "{" opens a top-level object (n objects, none nested, none in a
        string) and object i starts at line i. It must close before line i + 1
        starts, and only JSON whitespace may follow it (anything else breaks the
        array or adds a non-object element): line i is exactly object i, which
        is what parsing line i alone gives. NaN / Infinity (which orjson
        rejects), corrupt lines and lines long enough to be skipped keep the
        per-line path."""
        body = data[:-1] if data.endswith(b"\n") else data
        if not body.startswith(b"{") or body.endswith(b"\n"):  # (an empty last line)
            return None
        a = np.frombuffer(body, np.uint8)  # numpy counts bytes ~7x faster than bytes.count
        nl, ob = a == 10, a == 123  # "\n", "{"
        n = int(np.count_nonzero(nl)) + 1
        if (
            int(np.count_nonzero(ob)) != n
            or int(np.count_nonzero(nl[:-1] & ob[1:])) != n - 1
            or len(body) - n + 1 >= MAX_LINE
        ):
            return None
        assert _fast_loads is not None  # (feed_chunk's columnar path: orjson is there)
        try:
            objs = _fast_loads(b"[" + body.replace(b"\n", b",") + b"]")
        except _FastError:  # NaN / Infinity, a corrupt line: line by line
            return None
        try:  # (the proof above makes every element an object; _frame's itemgetter rejects any other)
            if len(objs) != n or len(set(map(len, objs))) != 1:
                return None
        except TypeError:
            return None
        return objs

    def _mixed(self, lines: list[bytes], last_open: bool, objs: list | None = None, flagged: bool = True) -> list:
        if objs is None:
            assert _fast_loads is not None  # (feed_chunk's columnar path: orjson is there)
            objs = []
            for raw in lines:
                try:
                    objs.append(_fast_loads(raw))
                except _FastError:
                    objs.append(None)
        out: list = []
        n = len(lines)
        i = 0
        while i < n:
            o = objs[i]
            j = i + 1
            if type(o) is dict and len(lines[i]) < MAX_LINE and not self.launch_pending:
                keys = tuple(o)
                while j < n and type(objs[j]) is dict and tuple(objs[j]) == keys and len(lines[j]) < MAX_LINE:
                    j += 1
                fr = self._frame(objs[i:j], flagged) if j - i >= MIN_RUN else None
                if fr is not None:
                    out.append(fr)
                    i = j
                    continue
            for k in range(i, j):  # (take_line: a launch banner marks the next record, as per line)
                line = self.decode_line(lines[k], last_open and k == n - 1)
                out += self.take_line(line, self.feed(line))
            i = j
        return out

    def _plan(self, keys: tuple):
        """Which column feeds which record field, exactly as ``build`` maps a
        line with these keys; None when such lines cannot be a Frame."""
        try:
            return self._plans[keys]
        except KeyError:
            pass
        plan = None
        step = None
        fields: dict[str, int] = {}
        extra: list[tuple[str, int]] = []
        for i, k in enumerate(keys):
            f = self.field(k)
            if f is None:
                extra.append((k, i))
            elif f == "step":
                if step is None:
                    step = i
            elif f in INT_FIELDS:
                fields[f] = i  # the last one wins in build
            elif f not in fields:
                fields[f] = i  # the first alias wins in build
            elif f == "loss" and total_over(k, keys[fields[f]]):
                fields[f] = i  # ... unless a total follows its lm_loss term (as in build)
        terms: tuple[int, ...] = ()
        if "loss" not in fields and extra:  # no total: the objective rule (fields.objective), as build does
            obj = self.objective_plan(tuple(k for k, _ in extra))
            if obj is not None:
                how, oks = obj
                at = dict(extra)
                if how == "actor" or how == "total":
                    fields["loss"] = at[oks[0]]
                    extra = [(k, i) for k, i in extra if k != oks[0]]
                else:
                    terms = tuple(at[k] for k in oks)
        if step is not None and (set(fields) & METRIC_FIELDS or set(fields) & set(INT_FIELDS) or terms):
            plan = (
                itemgetter(*keys) if len(keys) > 1 else (lambda d, _k=keys[0]: (d[_k],)),
                step,
                fields,
                extra,
                terms,
            )
        self._plans[keys] = plan
        return plan

    def _frame(self, objs: list, flagged: bool = True) -> Frame | None:
        try:
            keys = tuple(objs[0])
        except TypeError:
            return None
        plan = self._plan(keys)
        if plan is None or type(objs[0]) is not dict:
            return None
        getter, step_i, fields, extra, terms = plan
        n, k = len(objs), len(keys)
        try:
            if flagged:  # only numbers and numeric strings: what to_float reads the same way
                rows = list(map(getter, objs))
                if not set(map(type, chain.from_iterable(rows))) <= _PLAIN:
                    return None
                vals = chain.from_iterable(rows)
            else:
                vals = chain.from_iterable(map(getter, objs))
            arr = np.fromiter(vals, np.float64, n * k).reshape(n, k)
        except (KeyError, ValueError, TypeError, OverflowError):
            return None  # a missing key, a string that is not a number, a nested object, not a dict
        if not np.isfinite(arr).all():
            return None  # "nan" / "1e400" strings: the per-line path tells an NaN from a number out of range
        steps = arr[:, step_i]
        e = fields.get("epoch")
        if e is not None and (self._ecount is None or self._ecount.mode != "global"):
            ev = arr[:, e]
            if np.array_equal(ev, np.floor(ev)):
                return None  # (whole epochs beside the step key: ``_within_epoch`` tells what the step is)
        ints = [i for f, i in fields.items() if f in INT_FIELDS]
        if not np.isfinite(steps).all() or (ints and not np.isfinite(arr[:, ints]).all()):
            return None  # the per-line path skips non-finite steps and counters
        if np.abs(steps).max() >= _INT64_END or (ints and np.abs(arr[:, ints]).max() >= _INT64_END):
            return None  # would wrap in int64: the per-line path counts it as skipped
        cols = {f: (arr[:, i].astype(np.int64) if f in INT_FIELDS else arr[:, i].copy()) for f, i in fields.items()}
        if SplitPlaceholders.in_columns(cols):
            return None  # 0.0 placeholders of the other split: the per-line path drops them
        t = cols.get("time")
        if t is not None and t.size and t.max() > TIME_MS:
            np.divide(t, 1000.0, out=t, where=t > TIME_MS)  # Unix milliseconds (fields.seconds, as build)
        if terms:  # the sum of the loss terms, added left to right as build adds them
            tot = arr[:, terms[0]].copy()
            for i in terms[1:]:
                tot += arr[:, i]
            cols["loss"] = tot
        n = len(objs)
        fr = Frame(steps.astype(np.int64), cols, {k: arr[:, i].copy() for k, i in extra}, self.path)
        self.records += n
        self._last_step = int(fr.step[-1])
        if self.text_tap is not None:
            self.text_tap.ran_to(self._last_step)
        return fr

    def feed(self, line: str) -> list[StepRecord]:
        s = line.strip()
        if not s:
            return []
        if s[0] != "{":
            self.skip("not a JSON object")
            return []
        try:
            obj = _loads(s)
        except ValueError:
            self.skip("invalid JSON")
            return []
        except RecursionError:  # json's decoder recurses per level (orjson stops at 1024)
            self.skip("JSON nested too deeply")
            return []
        if not isinstance(obj, dict):
            self.skip("not a JSON object")
            return []
        # the decoders build plain dicts only: a type test in C, no generator per line
        if dict in map(type, obj.values()):
            obj = flatten(obj)
        if "value" in obj:
            long = self._long_form(obj)
            if long is not None:
                return long
        inferred = self.inferred_steps
        if not SPLIT_KEYS.isdisjoint(obj):  # (a record of an evaluation split: its loss is the validation loss)
            rec = self.build(split_scoped(list(obj.items())))
        else:
            rec = self.build(obj.items())
        if rec is None:
            return []
        if self.inferred_steps != inferred:
            if self._epochs is not False:
                self._epoch_step(rec, obj.get("epoch"))
        elif "epoch" in obj:
            self._within_epoch(rec, obj)
        return [rec]

    def _within_epoch(self, rec: StepRecord, obj: dict) -> None:
        """A record whose step key sits beside a whole epoch: its step through the epoch counter
        (``_ecount``). A counter that starts again each epoch (MMCV's ``iter``; read as the step, every
        epoch was a relaunch, fresh55's detection log 46 "launches" and its NaN at step 140 for 1070)
        becomes ``(epoch - first) x epoch length + counter``; a global one stays. An evaluation split's
        record (MMCV's ``"mode": "val"``: its ``iter`` is the evaluation's own count) is at the last
        training step once the counter is known to be a batch index."""
        e = _whole_epoch(obj["epoch"])
        if e is None:
            return
        if eval_split(obj.items()) is not None:
            if self._ecount is not None and self._ecount.mode == "epoch" and self._last_step is not None:
                rec.step = self._last_step
            return
        if self._ecount is None:
            self._ecount = EpochCounter()
        step = self._ecount.step(e, None, rec.step, None)[0]
        if step is not None:
            rec.step = self._last_step = step

    def _long_form(self, obj: dict) -> list[StepRecord] | None:
        """One metric a line, named by a key (``{"name": "loss", "step": 10, "value": 2.31}``; LONG_NAMES):
        the lines of one step gathered into its record, given when the step changes (or the file ends);
        None for a line of another shape."""
        if len(obj) > LONG_MAX_KEYS:
            return None
        name = next((obj[k] for k in LONG_NAMES if type(obj.get(k)) is str), None)
        if name is None or not name.strip():
            return None
        rest = {k: v for k, v in obj.items() if k not in LONG_NAMES and k != "value"}
        if any(self.field(k) not in ("step", "time") for k in rest):
            return None  # (another key with a value of its own: no long form)
        step = next((v for k, v in rest.items() if self.field(k) == "step"), None)
        out: list[StepRecord] = []
        if self._long is not None and self._long[0] != step:
            out = self._long_record()
        if self._long is None:
            self._long = (step, dict(rest))
        self._long[1][name] = obj["value"]
        return out

    def _long_record(self) -> list[StepRecord]:
        held, self._long = self._long, None
        if held is None:
            return []
        rec = self.build(held[1].items())
        return [rec] if rec is not None else []

    def flush(self) -> list[StepRecord]:
        return self._long_record() + super().flush()

    def idle(self) -> list[StepRecord]:
        return self._long_record() + super().idle()

    def _epoch_step(self, rec: StepRecord, e) -> None:
        """A record with no step key but a whole ``epoch`` (DETR / MAE / DeiT's ``log.txt``: one JSON
        object an epoch, ``{"epoch": 0, "train_loss": ..., "train_lr": ...}``): the epoch is its step,
        while no two records in a row name the same epoch (then they are counted, from there on); an
        epoch below the last one starts again (a new launch appended). Counted before: fresh25's
        DETR log read its epochs 110-159 as steps 211-260."""
        e = _whole_epoch(e)
        if e is None or e == self._epoch_last:
            # decided on the first record: a fractional epoch (HF's 0.01, 0.02 ... that reach 1.0) or
            # none is no step; two records in a row of one epoch are several an epoch: counted
            self._epochs = False
            return
        self._epochs, self._epoch_last = True, e
        rec.step = self._last_step = e
        self.inferred_steps -= 1

    def describe(self) -> dict:
        d = super().describe()
        if self._epochs:
            d["step_source"] = "the epoch key: one record an epoch, no step key"
        elif self._ecount is not None and self._ecount.mode == "epoch":
            d["step_source"] = (
                "the epoch and the step key: the step key counts within each epoch, so the step is the "
                "batches of the epochs before plus it"
            )
        return d
