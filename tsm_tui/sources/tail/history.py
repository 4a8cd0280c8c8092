"""A live log's older rotated segments (``x.log.2.gz``, ``x.log.1`` beside ``x.log``),
read as its history before the file itself: one series, one reader, oldest first,
in batches up to the tailer's queue bound per look (``drain``). Their files are
known at once (remembered as read), so they are never followed on their own.
"""

from __future__ import annotations

import os
from typing import Iterator, Protocol

from tsm_tui.core.frame import Frame
from tsm_tui.sources import reading
from tsm_tui.sources.base import SourceReader
from tsm_tui.sources.tail import rotation
from tsm_tui.sources.tail.delivery import Delivery
from tsm_tui.sources.tail.intake import IoError
from tsm_tui.sources.tail.paths import fid as _fid
from tsm_tui.sources.tail.paths import short as _short

BATCH = 4096  # records per batch handed over


class Queue(Protocol):
    retired_ids: rotation.ReadIds  # rotated files read already (never read again)

    def put(self, source: str, reader: SourceReader, records: list) -> None: ...

    def over_budget(self) -> bool: ...


class History:
    """The history still to hand over for one followed path."""

    def __init__(self, path: str, delivery: Delivery, host: Queue, io_error: IoError) -> None:
        self.path = path
        self.delivery = delivery
        self.host = host
        self.io_error = io_error
        self.batches: Iterator[list] | None = None  # the segments' batches still to deliver

    def start(self, segs: list[str]) -> None:
        """Read ``segs`` (oldest first) at the next looks, before the file itself."""
        todo = []
        for seg in segs:
            try:
                st = os.stat(seg)
                self.host.retired_ids.add(
                    _fid(st), rotation.head_of(seg), rotation.content_head(seg) if seg.endswith(".gz") else None
                )
            except OSError as e:
                self.io_error(seg, e, "read error")
                continue
            todo.append(seg)
        if todo:
            self.batches = self._batches(todo)

    def drain(self) -> bool:
        """Hand the batches over up to the queue's bound; True once none is left."""
        while self.batches is not None:
            if self.host.over_budget():
                return False
            batch = next(self.batches, None)
            if batch is None:
                self.batches = None
            else:
                self.host.put(self.path, self.delivery.reader, batch)
        return True

    def _batches(self, segs: list[str]) -> Iterator[list]:
        for seg in segs:
            batch: list = []
            try:
                for item in reading.read_segment(seg, self.delivery.reader):
                    batch.append(item)
                    if len(batch) >= BATCH or type(item) is Frame:
                        yield batch
                        batch = []
            except OSError as e:
                self.io_error(seg, e, "read error")
            except Exception as e:  # a reader bug (or a corrupt .gz) must not stop the tailer
                self.delivery.reader.skip(f"reader error: {type(e).__name__} (segment {_short(seg)})")
            yield batch
