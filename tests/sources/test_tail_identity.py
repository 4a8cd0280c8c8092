"""A followed file's identity and what a look makes of it (sources/tail/identity.py):
pure decisions, checked on plain bytes and stat results, no tailer."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from tsm_tui.sources.tail.identity import FINGERPRINT, REWRITTEN, TRUNCATED, Identity, Look, diverged

LINE = b'{"step": %d, "loss": 2.5}\n'


def content(n: int) -> bytes:
    return b"".join(LINE % i for i in range(n))


def pread_of(data: bytes):
    return lambda n, off: data[off : off + n]


def read(data: bytes, chunk: int = 1000) -> Identity:
    """An identity that has read all of ``data`` in chunks, as the tailer does."""
    at = Identity()
    at.opened((1, 2), 100)
    for i in range(0, len(data), chunk):
        at.advance(data[i : i + chunk])
    return at


def st(dev_ino=(1, 2), size=0, mtime=100):
    return SimpleNamespace(st_dev=dev_ino[0], st_ino=dev_ino[1], st_size=size, st_mtime_ns=mtime)


def test_advance_keeps_the_first_and_the_last_bytes_read():
    data = content(100)
    for chunk in (1, 7, 256, 1000, len(data)):
        at = read(data, chunk)
        assert at.offset == len(data)
        assert at.head == data[:FINGERPRINT] and at.tail == data[-FINGERPRINT:], chunk
    short = read(b"ab", 1)
    assert (short.head, short.tail) == (b"ab", b"ab")


def test_opened_and_rewind_start_from_the_beginning():
    at = read(content(50))
    at.seen(1234, 200)
    at.rewind()
    assert (at.offset, at.head, at.tail, at.dev_ino, at.size) == (0, b"", b"", (1, 2), 1234)
    at.opened((3, 4), 300)
    assert (at.dev_ino, at.offset, at.size, at.mtime_ns) == ((3, 4), 0, -1, 300)


def test_look():
    at = read(content(10))
    at.seen(len(content(10)), 200)
    assert at.look(st(size=at.size, mtime=200)) is Look.UNCHANGED
    assert at.look(st(size=at.size, mtime=200), dirty=True) is Look.CHANGED  # a snapshot to read again
    assert at.look(st(size=at.size + 1, mtime=200)) is Look.CHANGED
    assert at.look(st(size=at.size, mtime=201)) is Look.CHANGED  # rewritten to the same size
    assert at.look(st((1, 3), size=at.size, mtime=200)) is Look.OTHER_FILE  # rotated or replaced
    assert Identity().look(st()) is Look.OTHER_FILE  # nothing held yet


def test_damage_appended_truncated_rewritten():
    old = content(40)
    at = read(old)
    assert at.damage(len(old), pread_of(old)) is None
    assert at.damage(len(old) + 30, pread_of(old + content(1))) is None  # appended to
    assert at.damage(len(old) - 1, pread_of(old[:-1])) == TRUNCATED  # (no read needed)
    assert at.damage(0, None) == TRUNCATED
    # the same size or more, other bytes at the head (Lightning's metrics.csv gaining a column)
    new = b"epoch,step,loss,acc\n" + old[20:] + b"x" * 40
    assert at.damage(len(new), pread_of(new)) == REWRITTEN
    # the head kept, the bytes just before our offset changed (a rewrite past the header)
    mid = old[: len(old) - 10] + b"0123456789" + b"more\n"
    assert at.damage(len(mid), pread_of(mid)) == REWRITTEN
    # not open (nothing to compare), and nothing read yet: no damage to tell
    assert at.damage(len(old), None) is None
    assert Identity().damage(10, pread_of(b"whatever")) is None


def test_unreadable_file_is_taken_as_unchanged():
    """An I/O error while comparing: cannot tell, so reading goes forward (the error
    shows up on the read itself)."""

    def fails(n, off):
        raise OSError(5, "EIO")

    at = read(content(20))
    assert at.holds(fails) and at.begins_as_read(fails)
    assert at.damage(at.offset, fails) is None


def test_begins_as_read():
    old = content(20)
    at = read(old)
    assert at.begins_as_read(pread_of(old + b"more"))
    assert not at.begins_as_read(pread_of(b"X" + old[1:]))  # truncated and written again


@pytest.mark.parametrize(("n", "weak"), [(0, False), (1, True), (FINGERPRINT - 1, True), (FINGERPRINT, False)])
def test_weak_when_too_little_was_read_to_tell(n, weak):
    at = read(b"x" * n)
    assert at.weak() is weak


def test_diverged():
    assert not diverged(b"", b"abc") and not diverged(b"abc", b"")
    assert not diverged(b"abc", b"abcdef")
    assert diverged(b"abd", b"abcdef")


def test_decisions_on_a_real_file(tmp_path):
    """The same decisions through ``os.pread`` on a file rewritten in place."""
    p = tmp_path / "metrics.csv"
    p.write_bytes(b"epoch,step,loss\n0,1,2.5\n0,2,2.4\n")
    fd = os.open(p, os.O_RDONLY)
    try:
        at = Identity()
        s = os.fstat(fd)
        at.opened((s.st_dev, s.st_ino), s.st_mtime_ns)
        at.advance(os.pread(fd, 1 << 20, 0))
        at.seen(s.st_size, s.st_mtime_ns)
        assert at.look(os.stat(p)) is Look.UNCHANGED

        def pread(n, off):
            return os.pread(fd, n, off)

        assert at.damage(os.stat(p).st_size, pread) is None
        with open(p, "r+b") as f:  # a column appears: the file rewritten in place
            f.write(b"epoch,step,loss,acc\n0,1,2.5,0.1\n0,2,2.4,0.2\n")
        size = os.stat(p).st_size
        assert at.look(os.stat(p)) is Look.CHANGED
        assert at.damage(size, pread) == REWRITTEN
    finally:
        os.close(fd)
