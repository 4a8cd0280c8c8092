"""Where the bytes went when a followed log was rotated between two passes.

The tailer holds the file it follows open, so a rename rotation never takes from
it the file it was reading: it reads that one to its end. What a pass can miss is
what happened *between* two passes:

- **rename chains** (logrotate's ``create``, ``RotatingFileHandler``): ``x`` ->
  ``x.1`` -> ``x.2`` ... several times: the generations written in between sit
  under rotated names (``x.1``, ``x.2`` ..., ``x-20261203``, ``x.1.gz``) and were
  never opened;
- **copytruncate**: the file we hold was copied to ``x.1`` and truncated; what
  was written since our last read is in the copy (from our offset on), and, when
  it happened more than once, whole copies lie between.

``rotated_since`` lists the rotated siblings of a path written since a time,
oldest first (``segments.rotated_base`` order: ``.7`` before ``.1``, dates in
order); ``continues`` tells whether a copy holds the bytes we read (the same
first bytes, the same bytes before our offset, at least that long). ``ReadIds``
remembers the files read that way (and the history segments), by device and
inode with their first bytes, so that a file is never read twice and an inode
number reused by a later generation is not mistaken for one already read.
"""

from __future__ import annotations

import os
import stat
import time
import zlib
from collections import OrderedDict
from typing import NamedTuple

from tsm_tui.core.safeio import open_fd
from tsm_tui.sources.segments import ROTATED, open_segment, rotated_base
from tsm_tui.sources.tail.paths import close_fd

MAX_SIBLINGS = 4096  # rotated siblings of one log looked at (a directory of a huge rotation count)
MAX_IDS = 4096  # files read as rotated generations or history remembered (oldest forgotten)
HEAD = 256  # first bytes kept per remembered file: an inode number reused by another file, or
#             a compressed copy of a file read already (gzip keeps the original's mtime)


class Sibling(NamedTuple):
    path: str
    st: os.stat_result

    @property
    def id(self) -> tuple[int, int]:
        return self.st.st_dev, self.st.st_ino

    @property
    def compressed(self) -> bool:
        return self.path.endswith(".gz")


def rotated_since(path: str, since_ns: int) -> list[Sibling]:
    """Regular files beside ``path`` named as its rotated segments, last written at
    or after ``since_ns`` (a file's mtime), oldest first, from a listing taken while
    no rotation was under way (``_stable_listing``)."""
    return [s for s in _stable_listing(path) if s.st.st_mtime_ns >= since_ns]


LIST_TRIES = 50  # listings taken at most while a rotation shifts the names under us
LIST_PAUSE = 0.001  # s between two of them


def _stable_listing(path: str) -> list[Sibling]:
    """A shift (``x.2`` -> ``x.3``, ``x.1`` -> ``x.2``, ``x`` -> ``x.1``) is several
    renames: a listing taken in the middle misses a name or sees a gap. A listing is
    taken as it is when the one before it was the same and the numbers run 1..N
    without a gap (or the same listing came three times: a gap that stays)."""
    prev: list[Sibling] | None = None
    same = 0
    cur: list[Sibling] = []
    for i in range(LIST_TRIES):
        cur = _listing(path)
        if prev is not None and [(s.path, s.id) for s in cur] == [(s.path, s.id) for s in prev]:
            same += 1
            if same >= 2 or _contiguous(cur):
                return cur
        else:
            same = 0
        prev = cur
        if i:
            time.sleep(LIST_PAUSE)
    return cur


def _contiguous(sibs: list[Sibling]) -> bool:
    nums = set()
    for s in sibs:
        m = ROTATED.match(os.path.basename(s.path))
        if m is not None and m.group("n") is not None:
            nums.add(int(m.group("n")))
    return not nums or nums == set(range(1, max(nums) + 1))


def _listing(path: str) -> list[Sibling]:
    d, base = os.path.split(path)
    out: list[tuple[tuple, int, Sibling]] = []
    try:
        with os.scandir(d or ".") as it:
            for e in it:
                name = e.name
                if not name.startswith(base) or name == base:
                    continue
                rb = rotated_base(name)
                if rb is None or rb[0] != base:
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                out.append((rb[1], st.st_mtime_ns, Sibling(e.path, st)))
                if len(out) >= MAX_SIBLINGS:
                    break
    except OSError:
        return []
    out.sort(key=lambda x: (x[0], x[1]))
    return [s for _, _, s in out]


def between(sibs: list[Sibling], old_id, new_id) -> list[Sibling]:
    """The siblings (oldest first) after the file ``old_id`` and before ``new_id``
    (either may be absent: then from the oldest / to the newest)."""
    ids = [s.id for s in sibs]
    if new_id in ids:
        sibs = sibs[: ids.index(new_id)]
        ids = ids[: len(sibs)]
    if old_id in ids:
        sibs = sibs[ids.index(old_id) + 1 :]
    return sibs


def open_id(s: Sibling) -> int | None:
    """A descriptor of the file listed as ``s``, wherever it went since the listing
    (a rotation renames every generation by one); None when it is gone."""
    where: str | None = s.path
    for _ in range(LIST_TRIES):
        if where is None:
            return None
        try:
            fd = open_fd(where)
        except FileNotFoundError:
            fd = None
        if fd is not None:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) == s.id:
                return fd
            os.close(fd)
        where = next((t.path for t in _stable_listing(_base_path(s.path)) if t.id == s.id), None)
    return None


def _base_path(path: str) -> str:
    d, name = os.path.split(path)
    rb = rotated_base(name)
    return os.path.join(d, rb[0]) if rb is not None else path


def head_of(path: str, n: int = HEAD) -> bytes:
    """The first ``n`` bytes of a regular file as stored (b"" when it cannot be read)."""
    try:
        fd = open_fd(path)
    except OSError:
        return b""
    try:
        return os.pread(fd, n, 0)
    except OSError:
        return b""
    finally:
        os.close(fd)


def content_head(path: str, n: int = HEAD) -> bytes:
    """The first ``n`` bytes of a segment's content (decompressed for ``.gz``)."""
    if not path.endswith(".gz"):
        return head_of(path, n)
    try:
        with open_segment(path) as f:
            return f.read(n)
    except (OSError, EOFError, zlib.error):
        return b""


def heads_of(s: Sibling) -> tuple[bytes, bytes]:
    """(first bytes as stored, first bytes of the content) of the file listed as ``s``,
    found by its inode (b"", b"" when it is gone)."""
    try:
        fd = open_id(s)
    except OSError:
        return b"", b""
    if fd is None:
        return b"", b""
    try:
        raw = os.pread(fd, HEAD, 0)
        if not s.compressed:
            return raw, raw
        content = b""
        try:
            for data in gunzip(fd, HEAD):
                content += data
                if len(content) >= HEAD:
                    break
        except (OSError, EOFError, zlib.error):
            pass
        return raw, content[:HEAD]
    except OSError:
        return b"", b""
    finally:
        os.close(fd)


def continues(fd: int, size: int, head: bytes, tail: bytes, offset: int) -> bool:
    """The open file ``fd`` (``size`` bytes) is a copy of what we read up to ``offset``:
    its first bytes are ``head`` and the bytes before ``offset`` are ``tail``."""
    if size < offset or not (head or tail):
        return False
    try:
        if head and os.pread(fd, len(head), 0) != head:
            return False
        if tail and os.pread(fd, len(tail), offset - len(tail)) != tail:
            return False
    except OSError:
        return False
    return True


def holder(s: Sibling, head: bytes, tail: bytes, offset: int) -> int | None:
    """An open descriptor of ``s`` when it holds what was read of a file up to ``offset``
    (its first bytes ``head``, the bytes before ``offset`` ``tail``: ``continues``);
    the caller closes it."""
    if s.compressed or s.st.st_size < offset:
        return None
    try:
        fd = open_id(s)
    except OSError:
        return None
    if fd is None:
        return None
    try:
        if continues(fd, os.fstat(fd).st_size, head, tail, offset):
            return fd
    except OSError:
        pass
    close_fd(fd)
    return None


def open_rotated(path: str, since_ns: int, fid: tuple[int, int]) -> int | None:
    """A descriptor of the file ``fid`` under a rotated name of ``path`` (written at or
    after ``since_ns``, not compressed since), or None."""
    for s in rotated_since(path, since_ns):
        if s.id == fid and not s.compressed:
            try:
                return open_id(s)
            except OSError:
                return None
    return None


PIN = 4096  # bytes compared to tell a copy of a file as it is from a copy of older bytes


def copy_of(s: Sibling, live: int) -> bool:
    """The copy ``s`` is a copy of the open file ``live`` as it is now (copytruncate's
    copy, maybe still being written, of a file not truncated since): no longer than
    it, and the same first bytes (``PIN`` of them at most). A copy of bytes the file
    held before a truncation is longer than what it holds now, or begins otherwise."""
    if s.compressed:
        return False
    try:
        fd = open_id(s)
    except OSError:
        return False
    if fd is None:
        return False
    try:
        size = os.fstat(fd).st_size
        if size > os.fstat(live).st_size:
            return False
        k = min(size, PIN)
        return os.pread(fd, k, 0) == os.pread(live, k, 0)
    except OSError:
        return False
    finally:
        os.close(fd)


def before_copies_of(sibs: list[Sibling], live: int) -> list[Sibling]:
    """``sibs`` (oldest first) without the newest ones that are copies of ``live`` as
    it is: only the newest can be (a copy older than one that is not holds bytes
    from before a truncation, however its first bytes look)."""
    k = len(sibs)
    while k and copy_of(sibs[k - 1], live):
        k -= 1
    return sibs[:k]


def gunzip(fd: int, chunk: int = 1 << 20):
    """The decompressed content of the open ``.gz`` file ``fd`` (left open), in chunks."""
    import gzip

    raw = os.fdopen(os.dup(fd), "rb")
    with raw, gzip.GzipFile(fileobj=raw, mode="rb") as g:
        while True:
            data = g.read1(chunk)
            if not data:
                return
            yield data


class ReadIds:
    """Files read whole (rotated generations, history segments): device and inode
    with their first bytes as stored and as content; bounded."""

    def __init__(self) -> None:
        self._ids: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        self._content: dict[tuple[int, int], bytes] = {}

    def add(self, fid: tuple[int, int], raw: bytes, content: bytes | None = None) -> None:
        """``raw``: the file's first bytes as stored (``HEAD`` of them), ``content``: of
        its content when it is compressed (read from the file read, never again by
        name: the name may be another file's by now)."""
        self._ids[fid] = raw
        self._content[fid] = raw if content is None else content
        self._ids.move_to_end(fid)
        while len(self._ids) > MAX_IDS:
            old, _ = self._ids.popitem(last=False)
            self._content.pop(old, None)

    def contents(self) -> set[bytes]:
        """The first bytes of every file read (compressed ones decompressed)."""
        return {h for h in self._content.values() if h}

    def __contains__(self, fid) -> bool:
        return fid in self._ids

    def __iter__(self):
        return iter(self._ids)

    def same(self, s: Sibling) -> bool:
        """``s`` is a file read already (not another file that got its inode number).
        Its first bytes are read from the file with that inode, wherever a rotation
        moved it since the listing (the name may be another file's by now)."""
        head = self._ids.get(s.id)
        if head is None:
            return False
        if not head:
            return True
        try:
            fd = open_id(s)
        except OSError:
            return True  # cannot tell: (never read twice)
        if fd is None:
            return True  # gone: nothing to read anyway
        try:
            now = os.pread(fd, len(head), 0)
        except OSError:
            return True
        finally:
            os.close(fd)
        if now == head:
            return True
        del self._ids[s.id]  # the inode number was reused: that file is gone
        self._content.pop(s.id, None)
        return False
