"""What one followed log hands over: bytes through its reader into records, each
record delivered once.

``FollowedFile`` (``followed.py``) decides which bytes come next and from which file
(the file at the path, a rotated generation, a copytruncate's copy); ``Delivery``
holds what turns them into records and what went out already:

- the reader, and the line splitter's held partial line (``sources/lines.py``): a
  line reader's bytes are cut into lines, a big block (the history present at start,
  a burst) through the reader's chunked path (Frames; the same records as line by
  line); a byte reader's chunks go to it as they are;
- what was delivered: the records parsed from the content since it last started over
  and the highest step. When the content starts over with what was delivered
  (a rewrite in place, a file replaced: ``start_rewrite``), its first records up to
  that step are not delivered again (``accept``); when it starts over with new
  content (a rotation, a copytruncate: ``start_over``) they are;
- a snapshot reader's last snapshot (its steps): a new one delivers the records past
  the longest step prefix they share (a resumed run's shorter history is said).
"""

from __future__ import annotations

from array import array
from typing import Iterable, Protocol, cast

from tsm_tui.core.frame import Frame
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import ByteReader, SourceReader
from tsm_tui.sources.lines import LineSplitter, feed_block, feed_lines
from tsm_tui.sources.tail.paths import short as _short

CHUNKED_MIN = 64 << 10  # blocks of lines at least this big go through the reader's chunked (Frame) path


class Sink(Protocol):
    """Where the records go (the tailer's queue) and what is said about them."""

    def put(self, source: str, reader: SourceReader, records: list) -> None: ...

    def note(self, text: str, path: str | None = None) -> None: ...


class Delivery:
    """The records of one logical stream (a path, whatever file sits there)."""

    def __init__(self, path: str, reader: SourceReader, sink: Sink) -> None:
        self.path = path
        self.reader = reader
        self.sink = sink
        self.lines = LineSplitter(reader)  # the partial last line; inside an over-long line
        self.parsed = 0  # records parsed from the current incarnation of the file
        self.max_step: int | None = None  # highest step delivered from this path
        # rewrite mode: the first ``skip_n`` records of the new content with a
        # step <= ``skip_floor`` were delivered already
        self.skip_n = 0
        self.skip_floor: int | None = None
        self.snap_steps = array("q")  # snapshot readers: steps of the last snapshot

    def accept(self, recs: list) -> list:
        """Drop records a rewrite repeats; track what was delivered (a Frame counts
        its rows; while a rewrite is being skipped over it goes row by row)."""
        out: list = []
        rows: Iterable[StepRecord]
        for r in recs:
            if type(r) is Frame:
                if self.skip_floor is None:
                    self.parsed += r.n
                    out.append(r)
                    top = int(r.step.max())
                    if self.max_step is None or top > self.max_step:
                        self.max_step = top
                    continue
                rows = r.records()
            else:
                rows = (r,)
            for x in rows:
                idx = self.parsed
                self.parsed += 1
                if self.skip_floor is not None:
                    if idx < self.skip_n and x.step <= self.skip_floor:
                        continue
                    self.skip_floor = None  # past the old content: normal delivery from here
                out.append(x)
                if self.max_step is None or x.step > self.max_step:
                    self.max_step = x.step
        return out

    def start_rewrite(self) -> None:
        """The content starts over: the records parsed so far may come again."""
        if self.max_step is not None and self.parsed:
            self.skip_n, self.skip_floor = self.parsed, self.max_step
        self.parsed = 0

    def start_over(self) -> None:
        """New content from its start (a rotation, a copytruncate): every record is new."""
        self.parsed, self.skip_floor = 0, None

    def fresh_reader(self) -> None:
        try:
            self.reader = type(self.reader)(self.path)
        except Exception:  # a reader needing other arguments: keep the old one
            pass

    def feed(self, data: bytes) -> None:
        """Bytes read from the file at the path, through its reader."""
        if self.reader.kind == "bytes":
            try:
                # a big read (history, a burst): the replay's columnar path, same records
                reader = cast(ByteReader, self.reader)
                recs = reader.feed_chunk(data) if len(data) >= CHUNKED_MIN else reader.feed_bytes(data)
            except Exception as e:  # a reader bug must not stop the tailer
                self.reader.skip(f"reader error: {type(e).__name__}")
                recs = []
            self.sink.put(self.path, self.reader, self.accept(recs))
        else:
            self.feed_lines(data)

    def feed_lines(self, data: bytes) -> None:
        """Bytes of a line reader's file (read at the offset, or a rotated generation's)
        cut into lines (``sources/lines.py``): a big block (the history present at start,
        a burst) through the reader's chunked path (Frames; the same records as line by
        line), a small one line by line."""
        split = self.lines
        split.sink = self.reader  # (a fresh reader after a restart counts from here)
        block = split.push(data)
        if not block:
            return
        if len(block) >= CHUNKED_MIN:
            items = feed_block(self.reader, block)
        else:
            items = feed_lines(self.reader, block)
        self.sink.put(self.path, self.reader, self.accept(items))

    def flush(self) -> None:
        """What the reader holds back, delivered: the file it read is done."""
        try:
            recs = self.reader.flush()
        except Exception:
            recs = []
        self.sink.put(self.path, self.reader, self.accept(recs))

    def idle(self) -> None:
        """What a byte reader holds back waiting for more (TensorBoard's newest step),
        delivered while no new bytes come."""
        try:
            recs = self.reader.idle()
        except Exception as e:  # noqa: BLE001 - a reader bug must not stop the tailer
            self.reader.skip(f"reader error: {type(e).__name__}")
            return
        if recs:
            self.sink.put(self.path, self.reader, self.accept(recs))

    def snapshot(self, recs: list) -> None:
        """A snapshot reader's new snapshot: the records past the step prefix it shares
        with the last one."""
        old = self.snap_steps
        common = 0
        lim = min(len(old), len(recs))
        while common < lim and old[common] == recs[common].step:
            common += 1
        self.snap_steps = array("q", (r.step for r in recs))
        new = recs[common:]
        if common < len(old) and new:
            self.sink.note(f"{_short(self.path)}: history rewritten from step {new[0].step} (resumed run)", self.path)
        self.start_over()
        self.sink.put(self.path, self.reader, self.accept(new))
