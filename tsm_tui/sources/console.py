"""A job's stream file with no training metrics in it (yet): read for its text events.

The traceback of a crashed job is often in a file of its own: Slurm's
``--error`` file (``job.err``), torchrun's ``<rank>/stderr.log``, a ``2> train.err``.
No reader recognises metrics there, so without this module the crash would not be
seen. ``ConsoleReader`` reads a stream-named file
that no format claimed (``.err``, ``.out``, ``.log``, ``.txt``, ``stderr*``, ``stdout*``): it
gives no records, only the text events every reader's lines are tapped for
(``sources/text_events.py``).

A live file may start printing metrics after a long preamble (pip, NCCL chatter):
the lines that carry a metric word are kept (bounded) and sniffed again as they
come, and once a format is recognised the file is read by that format's reader
from there on (the lines kept so far first). A finished file was searched by the
registry already (8 MiB and its end); the same rule then rarely finds more.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import ClassVar

from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader, SourceReader

STREAM_EXT = (".err", ".out", ".log", ".stderr", ".stdout", ".txt")
#: ``.txt`` files that are documents, never a process's output (a run folder's requirements)
_DOC_TXT = re.compile(
    r"^(?:readme|notes?|todo|license|licence|copying|authors|changelog|changes|requirements|constraints)"
    r"(?:[-_.][^/]*)?\.txt$|^(?:vocab|merges|labels?|classes|words|dict|tokens?)(?:[-_.][^/]*)?\.txt$",
    re.I,
)
HINTS = ("loss", "iter", "step", "epoch", "trl:", "{'", " val ", " train ")  # (sources/head.py's metric words)
KEEP = 2000  # candidate lines kept for the next sniff
SNIFF_EVERY = 50  # candidate lines between two sniffs (ours)
SNIFF_MIN = 0.7  # a format must be this sure (five generic records, or a named format's own lines; ours)


def stream_name(path: str) -> bool:
    """A file named like a process's output stream (not notes, not data): a ``.txt`` is one
    unless named as a document or a data list (``_DOC_TXT``): a console saved as
    ``training_output.txt`` (``> out.txt``, ``Tee-Object``; Sacred's ``cout.txt``) holds the
    crash of a run that died before its first logged step as often as a ``.log`` does."""
    low = os.path.basename(path).lower()
    if low.endswith(".txt") and _DOC_TXT.match(low):
        return False
    return low.endswith(STREAM_EXT) or low.startswith(("stderr", "stdout")) or low in ("log", "cout.txt")


class ConsoleReader(LineReader):
    name = "console"
    priority = -10  # never a run's source while any file has records
    #: the registry's sniffer, ``(path, lines) -> (reader class, score)``: set by the
    #: registry (which imports this module), as for a W&B run file's console
    sniffer: ClassVar[Callable[[str, list[str]], tuple[type[SourceReader] | None, float]] | None] = None

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.inner: SourceReader | None = None  # (a text reader: its kind is "lines")
        self._cands: list[str] = []
        self._since = 0

    @property
    def events_only(self) -> bool:
        """Read for text events only so far (never a run's series: sources/registry.py)."""
        return self.inner is None

    @property
    def bar_records(self) -> int:
        """Records its format's reader read from progress-bar redraws (sources/generic_text.py)."""
        return getattr(self.inner, "bar_records", 0)

    def feed(self, line: str) -> list[StepRecord]:
        inner = self.inner
        if inner is not None:
            out = inner.feed(line)
            self.records, self.skipped = inner.records, inner.skipped
            return out
        if type(self).sniffer is None or len(line) > 4096:
            return []
        low = line.lower()
        for h in HINTS:
            if h in low:
                break
        else:
            return []
        if len(self._cands) >= KEEP:
            del self._cands[: KEEP // 2]
        self._cands.append(line)
        self._since += 1
        if self._since < SNIFF_EVERY and len(self._cands) > 5:
            return []
        self._since = 0
        return self._try()

    def _try(self) -> list[StepRecord]:
        try:
            sniffer = type(self).sniffer
            assert sniffer is not None  # (feed calls this only with one set)
            cls, score = sniffer(self.path, self._cands)
        except Exception:  # noqa: BLE001 - a sniffer that fails reads nothing new
            return []
        if cls is None or cls.kind != "lines" or score < SNIFF_MIN or cls is ConsoleReader:
            return []
        inner = self.inner = cls(self.path)
        inner.text_tap = None  # (this reader's own tap looks at every line already)
        inner.skip_reasons = self.skip_reasons
        self.name = inner.name
        self.run_info = inner.run_info
        out: list[StepRecord] = []
        for ln in self._cands:
            out += inner.feed(ln)
        self._cands = []
        self.records, self.skipped = inner.records, inner.skipped
        return out

    def flush(self) -> list[StepRecord]:
        return self.inner.flush() if self.inner is not None else []

    def idle(self) -> list[StepRecord]:
        return self.inner.idle() if self.inner is not None else []
