"""fairseq / metaseq console logs (``--log-format simple|json``, legacy ``|``).

    2025-10-15 11:33:32 | INFO | train_inner | epoch 001:    100 / 487 loss=4.655, ..., num_updates=100, lr=0.0005, gnorm=1.2, loss_scale=8
    2020-02-07 13:21:07 | INFO | train_inner | {"epoch": 1, "loss": "11.049", "gnorm": "3.1", "num_updates": "100", ...}
    [2022-06-06 09:20:28,960][valid][INFO] - {"epoch": 1, "valid_loss": "0.267", ..., "valid_num_updates": "794"}
    | epoch 022 | loss 3.882 | nll_loss 2.204 | ... | num_updates 5586 | lr 0.000846 | gnorm 0.309 | loss_scale 1.000
    ... | fairseq.trainer | NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 64.0

The step is ``num_updates``. JSON values are strings (``to_float`` reads them).
Per-interval lines (``train_inner``) are steps; end-of-epoch ``train`` summaries
(``train_`` prefixed keys) are averages, not steps; ``valid`` lines give the
validation loss at ``num_updates``. Overflow notes become overflow records.
"""

from __future__ import annotations

import json
import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader
from tsm_tui.sources.fields import to_float

# keys start at a word's first character (a long word without "=" was scanned from each of its letters)
KV_EQ = re.compile(r"(?<!\w)([A-Za-z_]\w*+)=([^,\s]++)")
KV_PIPE = re.compile(r"\|\s*+([A-Za-z_]\w*+)\s++([^|\s]++)")
# "gradient overflow detected ... loss scale to: X" as one regex ("detected.*?loss scale") is
# quadratic on a line repeating the first phrase; a search from its first occurrence is not
_LOSS_SCALE_TO = re.compile(r"loss scale to:?\s*+([\d.eE+-]+)")
_OVERFLOW_SET = re.compile(r"overflow detected, setting loss scale to:?\s*+([\d.eE+-]+)")


def _overflow_scale(line: str) -> str | None:
    """The new loss scale of a fairseq overflow line ("" when none is named), or None."""
    i = line.find("gradient overflow detected")
    if i >= 0:
        m = _LOSS_SCALE_TO.search(line, i)
        if m:
            return m.group(1)
    m = _OVERFLOW_SET.search(line)
    return m.group(1) if m else None


SNIFF = re.compile(r"\| (?:train_inner|train|valid) \||\| epoch \d+ \|.*num_updates|num_updates[=\"]")


class FairseqReader(LineReader):
    name = "fairseq"
    priority = 9

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        hits = sum(1 for ln in head[:2000] if "num_updates" in ln and SNIFF.search(ln))
        return 0.8 + 0.15 * min(1.0, hits / 3) if hits else 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.other_lines = 0

    def feed(self, line: str) -> list[StepRecord]:
        if "overflow" in line:
            scale = _overflow_scale(line)
            if scale is not None:
                over = StepRecord(
                    step=max(self._last_step, 0), overflow=True, source=self.path, loss_scale=to_float(scale)
                )
                self.records += 1
                return [over]
        if "num_updates" not in line:
            self.other_lines += 1
            return []
        kind = "train_inner"
        for k in ("| train_inner |", "| valid |", "| train |", "[train_inner]", "[valid]", "[train]"):
            # (a logger's name between bars, or in brackets as fairseq-hydra's logging prints it:
            # "[2022-06-06 09:20:28,960][valid][INFO] - {...}"; fresh123: its validation losses unread)
            if k in line:
                kind = k.strip("|[] ")
                break
        i = line.find("{")
        if i >= 0 and line.rstrip().endswith("}"):
            try:
                obj = json.loads(line[i:])
            except ValueError:
                self.skip("invalid JSON")
                return []
            except RecursionError:
                self.skip("JSON nested too deeply")
                return []
            items = list(obj.items())
        elif "=" in line:
            items = KV_EQ.findall(line)
        else:
            items = KV_PIPE.findall(line)
            if line.lstrip().startswith("| valid"):
                kind = "valid"
        # json summaries prefix every key with the logger name
        pre = kind + "_"
        items = [(k[len(pre) :] if k.startswith(pre) else k, v) for k, v in items]
        d = dict(items)
        step = to_float(d.get("num_updates"))
        if step is None:
            self.other_lines += 1
            return []
        if kind == "train":
            return []  # an epoch average, not a step
        if kind == "valid":
            items = [
                ("val_loss" if k == "loss" else "valid_" + k, v) for k, v in items if k not in ("num_updates", "epoch")
            ]
        items = [(k, v) for k, v in items if k not in ("num_updates", "epoch")]
        step = int64(step)
        if step is None:
            self.skip("step out of range")
            return []
        rec = self.build(items, step=step)
        return [rec] if rec is not None else []
