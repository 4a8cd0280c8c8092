"""Gradient-boosting libraries' per-round evaluation lines, as their training prints them:

    [0]	train-rmse:17.14452	eval-rmse:17.30551                   XGBoost (``evals=``, ``verbose_eval``)
    [10]	training's binary_logloss: 0.3123	valid_1's binary_logloss: 0.3390   LightGBM (``log_evaluation``)
    0:	learn: 0.6853203	test: 0.6861442	best: 0.6861442 (0)	total: 59.6ms	remaining: 59.6s   CatBoost

One record per boosting round (the step is the round, as printed). The loss is the training set's
first metric that is not a score (AUC, NDCG, MAP, accuracy rise as the model learns: never a loss):
the set named as training data (``train``, ``training``, ``learn``, ``dtrain``), else the first set
printed (XGBoost's scikit-learn API names its sets ``validation_0``, ``validation_1``: the first is
the training data as usually passed, which the report says); the first other set's same metric is
the validation loss. Lines among other console output (warnings, a notebook's prints) are left to the
crash scan; the rounds need not be consecutive (``verbose_eval=10``).
"""

from __future__ import annotations

import re

from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader

# (every regex here is anchored and possessive / atomic: linear in the line's length)
_NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|-?nan|-?inf"
#: XGBoost: "[N]" then tab-separated "set-metric:value"
XGB = re.compile(rf"^\[(\d{{1,9}})\]((?:\t[\w.]++-[\w@.\-]++:(?>{_NUM}))++)\s*+$")
XGB_CELL = re.compile(rf"\t([\w.]++)-([\w@.\-]+):({_NUM})")
#: LightGBM: "[N]" then tab-separated "set's metric: value"
LGB = re.compile(rf"^\[(\d{{1,9}})\]((?:\t[\w.\-]++'s [\w@.\-]++:\s?(?>{_NUM}))++)\s*+$")
LGB_CELL = re.compile(rf"\t([\w.\-]++)'s ([\w@.\-]+):\s?({_NUM})")
#: CatBoost: "N:" then "learn: v" and, with an eval set, "test: v" ("best: v (i)", times follow)
CAT = re.compile(rf"^(\d{{1,9}}):\tlearn:\s*+({_NUM})(?:\ttest:\s*+({_NUM}))?(?:\t|\s*$)")
#: metrics that rise as a model learns: scores, never a loss
_SCORE = re.compile(r"^(?:auc|aucpr|pr_?auc|ndcg|map|pre|precision|recall|accuracy|acc|r2|f1)(?:@.*)?$", re.I)
_TRAIN_SETS = frozenset({"train", "training", "learn", "dtrain", "train_set"})
SNIFF_ROWS = 3  # round lines a head needs (ours)


def _cells(line: str) -> tuple[str, int, list[tuple[str, str, str]]] | None:
    """(library, round, [(set, metric, value)]) of an XGBoost or LightGBM round line, or None."""
    if not line.startswith("["):
        return None
    m = XGB.match(line)
    if m is not None:
        return "XGBoost", int(m.group(1)), XGB_CELL.findall(m.group(2))
    m = LGB.match(line)
    if m is not None:
        return "LightGBM", int(m.group(1)), LGB_CELL.findall(m.group(2))
    return None


class BoostingReader(LineReader):
    name = "boosting"
    priority = 14  # (below the structured formats: a line shape)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        n = sum(1 for ln in head if _cells(ln.rstrip("\r\n")) is not None or CAT.match(ln) is not None)
        return 0.8 if n >= SNIFF_ROWS else 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        #: (training set, metric, validation set or None, whether the training set was named so)
        self._plan: tuple[str, str, str | None, bool] | None = None
        self._lib = ""

    def feed(self, line: str) -> list[StepRecord]:
        s = line.rstrip("\r\n")
        c = _cells(s)
        if c is not None:
            lib, n, cells = c
            if self._plan is None:
                self._plan = _plan(cells)
                self._lib = lib
            if self._plan is None:
                return []
            tr, metric, va, _ = self._plan
            vals = {(k, m): v for k, m, v in cells}
            if (tr, metric) not in vals:
                return []
            items: list[tuple[str, object]] = [("loss", vals[(tr, metric)])]
            if va is not None and (va, metric) in vals:
                items.append(("val_loss", vals[(va, metric)]))
            return self._round(n, items)
        m = CAT.match(s)
        if m is not None:
            self._lib = "CatBoost"
            items = [("loss", m.group(2))]
            if m.group(3) is not None:
                items.append(("val_loss", m.group(3)))
            return self._round(int(m.group(1)), items)
        return []

    def _round(self, n: int, items: list[tuple[str, object]]) -> list[StepRecord]:
        rec = self.build(items, step=n)  # (a round has at most 9 digits: always in range)
        return [rec] if rec is not None else []

    def objective_note(self, checked: set[str] | None = None) -> str | None:
        """Which set's metric is the loss (the report's "objective")."""
        if self._lib == "CatBoost":
            return "learn (CatBoost's training-set metric per round; test: the validation loss)"
        if self._plan is None:
            return None
        tr, metric, va, named = self._plan
        why = "the training set" if named else "the first set printed, taken as the training data: no set named train"
        also = f"; {va} {metric}: the validation loss" if va is not None else ""
        return f"{tr} {metric} ({self._lib}'s per-round metric of {why}){also}"


def _plan(cells: list[tuple[str, str, str]]) -> tuple[str, str, str | None, bool] | None:
    """The training set and its loss metric (no score), and the validation set, of a round's cells."""
    sets: list[str] = []
    for k, _, _ in cells:
        if k not in sets:
            sets.append(k)
    named = [k for k in sets if k.lower() in _TRAIN_SETS]
    tr = named[0] if named else (sets[0] if sets else None)
    if tr is None:
        return None
    metric = next((m for k, m, _ in cells if k == tr and _SCORE.match(m) is None), None)
    if metric is None:
        return None
    va = next((k for k in sets if k != tr and any(kk == k and m == metric for kk, m, _ in cells)), None)
    return tr, metric, va, bool(named)
