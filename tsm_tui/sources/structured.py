"""Named flavours of the JSONL and CSV readers (same parsing, the report names
the framework): LLaMA-Factory ``trainer_log.jsonl``, W&B ``wandb-summary.json``,
Lightning ``metrics.csv`` and Keras ``CSVLogger`` files.
"""

from __future__ import annotations

import csv
import os
import re

from tsm_tui.sources.csv_reader import CsvReader
from tsm_tui.sources.jsonl import JsonlReader


_TOTAL = re.compile(r'"total_steps":\s*+(\d++)')


class LlamaFactoryReader(JsonlReader):
    """``trainer_log.jsonl``: ``{"current_steps": 10, "total_steps": 23800, "loss": ...}``."""

    name = "llama-factory"
    priority = 21

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        if not any('"current_steps"' in ln for ln in head[:20]):
            return 0.0
        s = JsonlReader.sniff(path, head)
        return min(1.0, s + 0.05) if s else 0.0

    def feed(self, line):
        out = super().feed(line)
        if out and "total_steps" not in self.run_info and '"total_steps"' in line:
            m = _TOTAL.search(line)
            if m:
                self.run_info["total_steps"] = m.group(1)  # (bounded by RunFacts)
        return out


class WandbSummaryReader(JsonlReader):
    """W&B ``files/wandb-summary.json``: the last value of every key, one record."""

    name = "wandb-summary"
    priority = 1

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        if os.path.basename(path) != "wandb-summary.json":
            return 0.0
        s = JsonlReader.sniff(path, head)
        return min(1.0, s + 0.05) if s else 0.0


def _header(head: list[str]) -> list[str]:
    for ln in head:
        if ln.strip():
            try:
                return [h.strip().lower() for h in next(csv.reader([ln.strip("\r")]))]
            except (csv.Error, StopIteration):
                return []
    return []


class LightningCsvReader(CsvReader):
    """Lightning ``CSVLogger`` ``lightning_logs/version_N/metrics.csv``: sparse rows with
    ``step`` and ``epoch``; ``lr-<Optimizer>``, ``grad_2.0_norm_total`` columns."""

    name = "lightning-csv"
    priority = 16

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        h = _header(head)
        if "step" not in h:
            return 0.0
        d = os.path.dirname(path)
        lightningish = (
            os.path.basename(path) == "metrics.csv"
            or os.path.exists(os.path.join(d, "hparams.yaml"))
            or os.path.basename(d).startswith("version_")
        )
        if not lightningish:
            return 0.0
        s = CsvReader.sniff(path, head)
        return min(1.0, s + 0.1) if s else 0.0


class KerasCsvReader(CsvReader):
    """Keras ``CSVLogger``: ``epoch`` first, then the metric names sorted; CRLF; one row
    per epoch (the epoch is the step)."""

    name = "keras-csv"
    priority = 16

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        h = _header(head)
        if not h or h[0] != "epoch" or "step" in h or h[1:] != sorted(h[1:]):
            return 0.0
        s = CsvReader.sniff(path, head)
        return min(1.0, s + 0.1) if s else 0.0
