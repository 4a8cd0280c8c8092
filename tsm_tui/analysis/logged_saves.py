"""The checkpoint saves a run's log says it made (``sources/checkpoint_lines.py``): the
rollback points when the run directory holds none (a log copied away from its run, a run
that writes its checkpoints to another file system).

A save to a path the log saves to again later was overwritten then: it is no rollback
point for a step after the overwrite (``model_latest.pth``, a ``checkpoint.pth`` written
every epoch). Bounded: the newest ``KEEP`` saves and the last step of up to ``KEEP_PATHS``
paths; the count of all of them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

KEEP = 256
KEEP_PATHS = 1024


@dataclass(frozen=True)
class Save:
    step: int
    path: str  # as the log names it ("" when the line names none)
    overwritten_at: int | None = None  # the step of a later save to the same path


class LoggedSaves:
    def __init__(self) -> None:
        self._saves: deque[tuple[int, str]] = deque(maxlen=KEEP)
        self._last: dict[str, int] = {}  # path -> the step of its newest save
        self.reused: set[str] = set()  # paths saved to more than once (each save overwrites the last)
        self.count = 0

    def add(self, step: int, path: str) -> None:
        if self._saves and self._saves[-1] == (step, path):
            return  # (one save said by two lines, or by two files of the run)
        self.count += 1
        self._saves.append((step, path))
        if path and (path in self._last or len(self._last) < KEEP_PATHS):
            if path in self._last and self._last[path] != step:
                self.reused.add(path)
            self._last[path] = step

    def __bool__(self) -> bool:
        return self.count > 0

    def kept(self) -> list[tuple[int, str]]:
        """The kept saves (step, path), in the order the log said them."""
        return list(self._saves)

    def steps(self) -> list[int]:
        """The kept saves' steps, ascending, one per step."""
        return sorted({s for s, _ in self._saves})

    def newest(self) -> Save | None:
        if not self._saves:
            return None
        s, p = max(self._saves, key=lambda x: (x[0], bool(x[1])))  # (at one step, the line that names a path)
        return Save(s, p)

    def first(self) -> Save | None:
        """The earliest kept save."""
        if not self._saves:
            return None
        s, p = min(self._saves, key=lambda x: x[0])
        return Save(s, p)

    def before(self, step: int) -> Save | None:
        """The newest save strictly before ``step``, with the step it was overwritten at when
        the log saved to its path again later (a path it names; "" names none)."""
        best: tuple[int, str] | None = None
        for s, p in self._saves:
            if s < step and (best is None or s >= best[0]):
                best = (s, p)
        if best is None:
            return None
        s, p = best
        later = self._last.get(p) if p else None
        return Save(s, p, later if later is not None and later > s else None)
