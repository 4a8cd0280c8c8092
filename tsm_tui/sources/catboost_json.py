"""CatBoost's ``catboost_info/catboost_training.json``: the training log every CatBoost fit writes by default.

``{"meta": {"learn_metrics": [{"best_value": "Max", "name": "TotalF1"}, {"best_value": "Min", "name":
"MultiClass"}], "test_metrics": [...], "iteration_count": 2000, ...}, "iterations": [{"learn": [0.99, 0.69],
"iteration": 0, "passed_time": 0.15, "remaining_time": 317.6, "test": [1, 0.69]}, ...]}``: one object per
boosting round, its values in the order of the metric lists. The objective is the first learn metric to
minimise (``best_value`` "Min": the loss function, CatBoost's ``MultiClass``, ``Logloss``, ``RMSE``; a metric
to maximise, ``TotalF1``, ``AUC``, is no loss), the same metric of the first test set the validation loss;
the round is the step, ``iteration_count`` the planned rounds. CatBoost writes the file as it trains: the
rounds are decoded one by one, so a file cut short (a fit in progress, a killed job) gives the rounds before
the cut, the cut a counted skip. (fresh37's ``catboost_info/`` read "nothing readable": its TSVs name no loss.)
"""

from __future__ import annotations

import json
import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import SnapshotReader
from tsm_tui.sources.jsonl import _parse_float

_META = re.compile(r'"meta"\s*:\s*\{')
_ITERATIONS = re.compile(r'"iterations"\s*:\s*\[')
_NEXT = re.compile(r"\s*,?\s*")
#: the JSON readers' float rule (jsonl._parse_float): a number too big for a float stays its text, a counted
#: "number out of range" in build, never an Inf loss
_DECODER = json.JSONDecoder(parse_float=_parse_float)


def _objective(meta: dict, key: str) -> tuple[int, str] | None:
    """(index, name) of the first metric of ``meta[key]`` to minimise, or None."""
    metrics = meta.get(key)
    if not isinstance(metrics, list):
        return None
    for i, m in enumerate(metrics):
        if isinstance(m, dict) and m.get("best_value") == "Min" and isinstance(m.get("name"), str):
            return i, m["name"]
    return None


def _value(row: object, i: int) -> object | None:
    """The ``i``-th value of a round's list: a number, or the text of one too big for a float (build counts
    it out of range); None when there is none."""
    if not isinstance(row, list) or i >= len(row):
        return None
    v = row[i]
    return v if isinstance(v, (int, float, str)) and not isinstance(v, bool) else None


class CatBoostJsonReader(SnapshotReader):
    name = "catboost"
    priority = 30

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        text = "\n".join(head[:50])
        if '"learn_metrics"' in text and '"iterations"' in text and _META.search(text) is not None:
            return 0.95
        return 0.0

    def read_all(self, data: bytes) -> list[StepRecord]:
        self.restart()
        text = data.decode("utf-8", "replace")
        m = _META.search(text)
        if m is None:
            self.skip("no CatBoost meta object")
            return []
        try:
            meta, _ = _DECODER.raw_decode(text, m.end() - 1)
        except (ValueError, RecursionError):
            self.skip("invalid CatBoost meta object (file being rewritten?)")
            return []
        if not isinstance(meta, dict):
            self.skip("no CatBoost meta object")
            return []
        obj = _objective(meta, "learn_metrics")
        if obj is None:
            self.skip("no CatBoost metric to minimise (no loss)")
            return []
        i, name = obj
        val = _objective(meta, "test_metrics")
        j = val[0] if val is not None and val[1] == name else None
        if isinstance(meta.get("iteration_count"), int):
            self.run_info["total_steps"] = meta["iteration_count"]
        test = f"test/{name}"
        self._fields = {name: "loss", test: "val_loss"}  # (the report's "read: loss <- 'MultiClass'")
        it = _ITERATIONS.search(text, m.end())
        out: list[StepRecord] = []
        pos = it.end() if it is not None else len(text)
        while pos < len(text):
            pos = _NEXT.match(text, pos).end()  # type: ignore[union-attr]  # (\s*,?\s* always matches)
            if pos >= len(text) or text[pos] == "]":
                break
            try:
                row, pos = _DECODER.raw_decode(text, pos)
            except (ValueError, RecursionError):
                self.skip("CatBoost round cut short (a fit in progress?)")
                break
            step = int64(row.get("iteration")) if isinstance(row, dict) else None
            loss = _value(row.get("learn"), i) if isinstance(row, dict) else None
            if step is None or loss is None:
                self.skip("CatBoost round without its iteration or loss")
                continue
            items: list[tuple[str, object]] = [(name, loss)]
            v = _value(row.get("test"), j) if j is not None else None
            if v is not None:
                items.append((test, v))
            rec = self.build(items, step=step)
            if rec is not None:
                out.append(rec)
        return out
