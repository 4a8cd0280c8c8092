"""Files that hold only the run's generations (issue #8), read beside its training log.

Convention (documented in README):

- ``samples.jsonl``, ``generations.jsonl`` (or ``.ndjson``), or any ``*.jsonl`` in a
  ``generations/`` or ``samples/`` directory: one JSON object per line with a step and
  the text, ``{"step": 1200, "text": "..."}``; the text key may be any of
  ``sample``, ``samples`` (a list), ``text``, ``generation``, ``generations``,
  ``generated_text``, ``completion``, ``output``.
- ``generations/step_<N>.txt`` (also ``iter_<N>``, ``sample_<N>``, ``gen_<N>``, ``-``
  or no separator): one sample per file, the whole file, at step N.

These readers are *auxiliary*: their records go to the run's primary source (the
training log), never become a source of their own (see ``Session``).
"""

from __future__ import annotations

import os
import re

from tsm_tui.core.record import StepRecord
from tsm_tui.core.numbers import int64
from tsm_tui.sources.base import MAX_SAMPLE_CHARS, SnapshotReader
from tsm_tui.sources.jsonl import JsonlReader

_NAMES = ("samples.jsonl", "generations.jsonl", "samples.ndjson", "generations.ndjson")
GENERATION_DIRS = _DIRS = ("generations", "samples")
_STEP_FILE = re.compile(r"^(?:step|iter|sample|gen)[_-]?(\d+)\.txt$", re.I)


class SamplesJsonlReader(JsonlReader):
    name = "samples-jsonl"
    priority = 25
    auxiliary = True

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        base = os.path.basename(path).lower()
        parent = os.path.basename(os.path.dirname(path)).lower()
        if base in _NAMES or (parent in _DIRS and base.endswith((".jsonl", ".ndjson"))):
            if any(ln.lstrip().startswith("{") for ln in head[:50]):
                return 1.0
        return 0.0


class GenerationTextReader(SnapshotReader):
    """``generations/step_<N>.txt``: the file is one sample at step N."""

    name = "generation-text"
    priority = 25
    auxiliary = True

    @classmethod
    def step_of(cls, path: str) -> int | None:
        if os.path.basename(os.path.dirname(path)).lower() not in _DIRS:
            return None
        m = _STEP_FILE.match(os.path.basename(path))
        return int64(m.group(1)) if m else None

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        return 1.0 if cls.step_of(path) is not None else 0.0

    def read_all(self, data: bytes) -> list[StepRecord]:
        step = self.step_of(self.path)
        if step is None:
            return []
        text = data.decode("utf-8", "replace")
        if text.endswith("\n"):
            text = text[:-1]
        self.records = 1
        return [StepRecord(step=step, samples=[text[:MAX_SAMPLE_CHARS]], source=self.path)]
