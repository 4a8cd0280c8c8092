"""Which files a tailer follows: the log file it was given, or the logs found under
its directory, re-listed on a "created" / "moved" event and on a slow timer
(``Tailer``'s schedule). Which files of a tree are logs, and which are one log, are
the report's rules (``sources/log_files.py``: ``candidate_files``, ``group_sources``);
what is here is what following adds to them.

A file that cannot be sniffed yet (empty, only a header) is tried again when it
grows, searched on from where the last try stopped (``SNIFF_RETRY_LIMIT``).
While none of the files found gives a series (no file named as a log, or none a
training log), the directory's other small text files are sniffed too, by their
content (``log_files.content_files``: bounded; each file's verdict remembered per
file state, so re-listing an unchanged tree opens nothing); which ones is said.
Rotated segments (``x.log.1``, ``x.log.2.gz``) are the history of their live file,
read once before it, never followed on their own; temporary files are skipped;
a rotated generation of a followed log that the file itself will read is not
followed as a file of its own.
"""

from __future__ import annotations

import os
from typing import Protocol

from tsm_tui.sources import log_files, registry
from tsm_tui.sources.base import SourceReader
from tsm_tui.sources.head import DEEP_BYTES
from tsm_tui.sources.tail import rotation
from tsm_tui.sources.tail.followed import FollowedFile
from tsm_tui.sources.tail.paths import short, temporary

# a file still unreadable is sniffed again as it grows, from where the last try
# stopped, up to this offset (sources/head.py's bounded deep scan); past it each
# retry samples the head and the file's last 256 KiB only
SNIFF_RETRY_LIMIT = DEEP_BYTES


class Owner(Protocol):
    """What discovery needs from its tailer."""

    path: str
    files: dict[str, FollowedFile]
    errors: int

    def note(self, text: str, path: str | None = None) -> None: ...

    def file_failed(self, f: FollowedFile | None, path: str, e: Exception) -> None: ...

    def known_ids(self) -> set[tuple[int, int]]: ...

    def follow(self, path: str, reader: SourceReader) -> FollowedFile: ...


class Discovery:
    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        # unsniffable path -> (size, ctime, bytes sniffed) when last tried
        self.pending: dict[str, tuple[int, int, int]] = {}
        self.segments: dict[str, list[str]] = {}  # live path -> older rotated segments at discovery
        self._limit_said = False
        self._by_content: list[str] = []  # files last said to be taken by their content
        self._scan_error: str | None = None

    def targets(self) -> list[str]:
        """The logs to follow now (a rotated group's live file only)."""
        path = self.owner.path
        if os.path.isdir(path):
            try:
                found = log_files.candidate_files(path)
            except Exception as e:  # noqa: BLE001 - one odd name or directory never ends the tailer
                self._scan_failed(e)
                return []
            if len(found) >= log_files.MAX_FILES and not self._limit_said:
                self._limit_said = True
                self.owner.note(log_files.LIMIT_NOTE.format(n=log_files.MAX_FILES, path=path))
            found = [p for p in found if not temporary(os.path.basename(p))]
            # rotated segments (x.log.1, x.log.2.gz) are the history of their live
            # file: read once before it (``FollowedFile.read_history``), never followed on their own
            try:
                groups = log_files.group_sources(found)
            except Exception as e:  # noqa: BLE001 - (as above): every file on its own then
                self._scan_failed(e)
                groups = [[p] for p in found]
            out = []
            for g in groups:
                out.append(g[-1])
                if len(g) > 1:
                    self.segments[g[-1]] = g[:-1]
            return out
        if os.path.exists(path):
            return [path]
        return []

    def _scan_failed(self, e: Exception) -> None:
        """Listing the tree raised: counted and said once per kind; the files
        already followed are still read, the next scan tries again."""
        self.owner.errors += 1
        msg = f"{short(self.owner.path)}: listing the files failed ({type(e).__name__}): following what was found"
        if msg != self._scan_error:
            self._scan_error = msg
            self.owner.note(msg)

    def scan(self) -> None:
        """Follow the logs that appeared since the last scan; while none of them gives a
        series, the directory's other small text files too (``by_content``)."""
        files = self.owner.files
        found = self.targets()
        targets = [p for p in found if p not in files]
        if targets:
            self._settle_rotations(targets)
            known = self.owner.known_ids()
            targets = [p for p in targets if not self._stray_generation(p)]
            self._scan_all(targets, known)
        if not self._series() and os.path.isdir(self.owner.path):
            more = [p for p in self.by_content(found) if p not in files]
            if more:
                self._scan_all(more, self.owner.known_ids())

    def _scan_all(self, targets: list[str], known: set) -> None:
        for p in targets:
            try:
                self._scan_one(p, known)
            except Exception as e:  # noqa: BLE001 - a file that breaks sniffing is skipped, not the tailer
                self.owner.file_failed(self.owner.files.get(p), p, e)

    def _series(self) -> bool:
        """A followed file gives a series (not a stream read for its crash lines only)."""
        return any(not getattr(f.reader, "events_only", False) for f in self.owner.files.values())

    def by_content(self, found: list[str]) -> list[str]:
        """The directory's small text files no name rule took (``log_files.content_files``:
        each file's verdict remembered per file state, so an unchanged tree opens nothing);
        which ones is said when that set changes."""
        seen = log_files.ContentFallback()
        try:
            more = log_files.content_files(self.owner.path, found, seen)
        except Exception as e:  # noqa: BLE001 - (as a listing): the names found are still followed
            self._scan_failed(e)
            return []
        more = [p for p in more if not temporary(os.path.basename(p))]
        if more and more != self._by_content:
            self._by_content = list(more)
            self.owner.note(seen.note(self.owner.path) or "")
        return more

    def _rotated_log_of(self, p: str) -> FollowedFile | None:
        """The followed line log that ``p`` is a rotated name of (``x.1`` beside ``x``)."""
        d, name = os.path.split(p)
        rb = rotation.rotated_base(name)
        f = self.owner.files.get(os.path.join(d, rb[0])) if rb is not None else None
        return f if f is not None and f.reader.kind == "lines" else None

    def _settle_rotations(self, targets: list[str]) -> None:
        """A new name that is a rotated name of a followed log (``x.1`` beside ``x``)
        may be a generation written since the last pass: the followed file is polled
        first, which reads such generations as its own, so that the scan then knows
        them and does not follow them as files of their own."""
        done: set[str] = set()
        for p in targets:
            f = self._rotated_log_of(p)
            if f is None or f.path in done:
                continue
            done.add(f.path)
            try:
                f.poll()
            except Exception as e:  # noqa: BLE001 - as in the tailer's pass
                self.owner.file_failed(f, f.path, e)

    def _stray_generation(self, p: str) -> bool:
        """``p`` is named as a rotated generation of a followed log that we saw rotate:
        never followed as a log of its own (its records would come a second time, or
        out of order as another source). A copy whose truncation is yet to come is
        read when the truncation is seen (``Generations.after_truncation``)."""
        f = self._rotated_log_of(p)
        return f is not None and f.rotations > 0

    def _scan_one(self, p: str, known: set) -> None:
        try:
            st = os.stat(p)
        except OSError:
            return
        if (st.st_dev, st.st_ino) in known:
            return  # a rotated copy (or a hard link) of a file already followed
        key = (st.st_size, st.st_ctime_ns)
        last = self.pending.get(p)
        if last is not None and last[:2] == key:
            return  # tried in this state already (past SNIFF_RETRY_LIMIT a retry samples the file's end only)
        # (kept if sniffing raises: tried again when the file changes)
        self.pending[p] = key + (last[2] if last else 0,)
        # a file that showed nothing recognisable yet is searched on from where
        # the last try stopped (a long preamble: pip output, argument dumps)
        deep = max(0, last[2] - 4096) if last else 0
        reader, fi = registry.open_reader(p, deep_from=deep) if deep else registry.open_reader(p)
        segs = self.segments.get(p, [])
        if reader is None and segs:  # the live file is empty (just rotated): the newest segment says
            r2, _ = registry.open_reader(segs[-1])
            if r2 is not None and r2.kind == "lines":
                reader = type(r2)(p)
        if reader is None:
            if fi.note and fi.note.startswith("cannot read") and last is None:
                self.owner.errors += 1
                self.owner.note(f"{p}: {fi.note}", p)
            self.pending[p] = key + (max(fi.sniffed_to, last[2] if last else 0),)
            return
        self.pending.pop(p, None)
        f = self.owner.follow(p, reader)
        if p.endswith(".gz") and not segs and reader.kind == "lines":
            f.archived = True  # a lone x.log.gz (an archived run): its content, once
            f.read_history([p])
            return
        if segs and reader.kind == "lines":
            f.read_history(segs)
        f.open()
        if f.fd is not None:
            known.add(f.dev_ino)
