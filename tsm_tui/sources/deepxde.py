"""DeepXDE's ``loss.dat`` (physics-informed networks: ``dde.saveplot`` / ``utils.save_loss_history``).

``np.savetxt`` of the loss history under the fixed header ``# step, loss_train, loss_test,
metrics_test``, which names column GROUPS, not columns: each row is the step (written as a
float, ``1.000000000000000000e+03``), then the k training loss terms (one per PDE residual,
boundary and initial condition), the same k terms on the test points, then the m test metrics.
The file has no total: the objective DeepXDE minimises is the sum of the k training terms (the
loss weights already applied), so the terms are handed on as ``loss_train_<i>`` and the
objective rule sums them (and checks each); the sum of the test terms is the validation loss.

k is not written anywhere: with C columns, C = 1 + 2k + m. DeepXDE runs log no metric or one
(``metrics=["l2 relative error"]``), so k = (C - 1) // 2, right for m = 0 and m = 1; a run with two
metrics or more would be read with its first metric as a term (said in ``describe``).
"""

from __future__ import annotations

import math
import os
import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader

HEADER = "# step, loss_train, loss_test, metrics_test"
#: a number as np.savetxt writes it by default ("%.18e"), and the rows of a headerless file looked at
_SAVETXT = re.compile(r"[-+]?\d\.\d{18}e[-+]\d{2,3}|[-+]?(?:nan|inf)", re.I)
SNIFF_ROWS = 20
MAX_COLUMNS = 1024  # a wider row is not one (bounded work per line; ours)


class DeepXDEReader(LineReader):
    name = "deepxde"
    priority = 30  # (its header is exact: before the generic text and bare-number readers)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        first = next((ln.strip() for ln in head if ln.strip()), "")
        if first == HEADER:
            return 0.95
        # the same rows with the header gone, under a name that says "loss" (fresh55's case_3_1_loss.dat,
        # kept for a manuscript's plots): np.savetxt's "%.18e" in every column, the first a whole step
        # rising row to row, at least a step and two terms a row
        name = os.path.basename(path).lower()
        if not (name.endswith(".dat") and "loss" in name):
            return 0.0
        rows = [ln.split() for ln in head[:SNIFF_ROWS] if ln.strip()]
        if len(rows) < 2 or any(len(r) < 3 or len(r) != len(rows[0]) for r in rows):
            return 0.0
        if not all(_SAVETXT.fullmatch(t) for r in rows for t in r):
            return 0.0
        steps = [float(r[0]) for r in rows]
        if not all(x.is_integer() for x in steps) or any(b <= a for a, b in zip(steps, steps[1:])):
            return 0.0
        return 0.6

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._k: int | None = None  # training terms per row (fixed by the first row)

    def feed(self, line: str) -> list[StepRecord]:
        s = line.strip()
        if not s or s.startswith("#"):
            return []
        toks = s.split(None, MAX_COLUMNS)
        if len(toks) < 2 or len(toks) > MAX_COLUMNS:
            self.skip("not a loss.dat row")
            return []
        try:
            vals = [float(t) for t in toks]
        except ValueError:
            self.skip("not a loss.dat row")
            return []
        k = (len(vals) - 1) // 2 or 1
        if self._k is None:
            self._k = k
        elif k != self._k:
            self.skip("row of another width")
            return []
        st = vals[0]
        step = int64(st) if math.isfinite(st) and st.is_integer() else None
        if step is None:
            self.skip("bad step")
            return []
        items: list[tuple[str, object]] = [(f"loss_train_{i}", v) for i, v in enumerate(vals[1 : 1 + k])]
        test = vals[1 + k : 1 + 2 * k]
        if len(test) == k:
            items.append(("val_loss", sum(test)))
        rec = self.build(items, step=step)
        return [rec] if rec is not None else []

    def describe(self) -> dict:
        if self._k is None:
            return {}
        return {
            "step_source": f"DeepXDE loss.dat: {self._k} training loss term(s) a row (their sum the objective), "
            "the same terms on the test points (their sum the validation loss), then the test metrics "
            "(taken as one or none: the header names column groups, not columns)"
        }
