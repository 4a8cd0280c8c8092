"""What a rotation between two looks left beside a followed path, read in order
before the path's new content (which siblings exist and which bytes they hold is
asked of ``sources/tail/rotation.py``; the bytes go through the file's ``Intake``):

- rename (``x`` -> ``x.1`` -> ``x.2`` ...): the generations rotated after the file
  we held and before the one now at the path, never opened, whole, oldest first
  (``after_rename``); a ``.gz`` copy of a file read already is recognised by its
  first bytes and not read again;
- copytruncate (the file we hold truncated after a copy): the copy that holds what
  we read, on from our offset, then any later copies whole, then the file from its
  start with the same reader (``after_truncation``); the same when we had read
  nothing of it yet (``truncated_unseen``), or only a few bytes (``weakly_truncated``
  tells it from an append).

The path's file is passed in as ``fd`` (None: not open); the rotations seen so
far, which make the path's rotated names its own, are counted by its caller.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Protocol

from tsm_tui.sources.tail import rotation
from tsm_tui.sources.tail.delivery import Delivery
from tsm_tui.sources.tail.identity import FINGERPRINT, Identity, diverged
from tsm_tui.sources.tail.intake import CHUNK, Intake
from tsm_tui.sources.tail.paths import close_fd as _close_fd
from tsm_tui.sources.tail.paths import short as _short


class Rotated(Protocol):
    """What the tailer knows of rotated files."""

    retired_ids: rotation.ReadIds  # rotated files read already (never read again)

    def note(self, text: str, path: str | None = None) -> None: ...

    def unread(self, sibs: list[rotation.Sibling]) -> list[rotation.Sibling]: ...

    def held_heads(self) -> set[bytes]: ...


class Generations:
    """The rotated siblings of one followed path."""

    def __init__(self, path: str, at: Identity, delivery: Delivery, intake: Intake, host: Rotated) -> None:
        self.path = path
        self.at = at
        self.delivery = delivery
        self.intake = intake
        self.host = host

    def after_rename(self, old_id, since: int, upto, new: int | None = None) -> None:
        """The file held (``old_id``) was rotated away: the generations rotated after
        it and before ``upto`` (the file now at the path, open as ``new``), written
        since ``since`` (its mtime at the last look) and never opened, are read whole,
        oldest first. A copy of the new file as it is (copytruncate, maybe still being
        written) is left for its truncation."""
        todo = self.host.unread(rotation.between(rotation.rotated_since(self.path, since), old_id, upto))
        if new is not None:
            todo = rotation.before_copies_of(todo, new)
        if not todo:
            return
        read_heads: set[bytes] | None = None
        names = []
        for s in todo:
            if s.compressed:
                # compressed after the rotation (gzip keeps the mtime): a copy of a file read
                # already, or a generation never opened
                if read_heads is None:
                    read_heads = self.host.retired_ids.contents() | self.host.held_heads() | {bytes(self.at.head)}
                raw, head = rotation.heads_of(s)
                if head in read_heads:
                    self.host.retired_ids.add(s.id, raw, head)
                    continue
            # (a line cut between two files is joined: a copytruncate's copies cut lines
            # anywhere; rename rotation happens between records)
            if self.intake.generation(s):
                names.append(_short(s.path))
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            self.host.note(
                f"{_short(self.path)} rotated {len(names) + 1} times since the last look: "
                f"read the generations in between too ({shown})",
                self.path,
            )

    def after_truncation(self, fd: int | None) -> str | None:
        """The file held (open as ``fd``) was truncated or rewritten: when a rotated copy
        of it holds what we read (copytruncate), read the copy on from our offset,
        then any later copies whole, and go on in the file from its start with the
        same reader (a line the copy cut is completed there): None (a rotation, for
        the caller to count). Else a note for the restart's message ("" or why the
        rest cannot be read)."""
        if self.delivery.reader.kind != "lines" or not self.at.offset:
            return ""
        sibs = self._copies()
        for s in sibs:
            held = rotation.holder(s, self.at.head, self.at.tail, self.at.offset)
            if held is None:
                continue
            try:
                self.intake.rest_of(held, self.at.offset)
                self.host.retired_ids.add(s.id, os.pread(held, rotation.HEAD, 0))
            finally:
                _close_fd(held)
            names = [_short(s.path)]
            first = self._later_copies(fd, s.id, names)
            self.host.note(
                f"{_short(self.path)} truncated after a copy (copytruncate): read the rest from "
                f"{names[0]} (from byte {self.at.offset:,})"
                + (f" and {', '.join(names[1:])}" if len(names) > 1 else "")
                + ", then the file from its start",
                self.path,
            )
            self.at.rewind()
            self.delivery.start_over()
            self.at.size = -1
            if first:
                self.intake.take(first)
            return None
        if any(s.compressed for s in sibs):
            return (
                " (its rotated copy was compressed before it was read: lines written between the last "
                "read and the rotation are not read)"
            )
        return ""

    def weakly_truncated(self, fd: int | None, rotations: int) -> bool:
        """What we read of a copytruncated file (``rotations``: it was rotated before) is
        too short to tell it apart (``Identity.weak``): a copy of it made since that
        holds what we read, while the file holds other bytes after our offset, says it
        was truncated and written again past our offset; so does a copy made after
        that one (only a truncation comes between two copies). (Only then: a listing
        per look.)"""
        if not (self.at.weak() and rotations and self.delivery.reader.kind == "lines"):
            return False
        sibs = self._copies()
        for i, s in enumerate(sibs):
            held = rotation.holder(s, self.at.head, self.at.tail, self.at.offset)
            if held is None:
                continue
            try:
                ours = os.pread(fd, FINGERPRINT, self.at.offset) if fd is not None else b""
                theirs = os.pread(held, FINGERPRINT, self.at.offset)
            except OSError:
                continue
            finally:
                _close_fd(held)
            if diverged(ours, theirs) or i + 1 < len(sibs):
                return True
        return False

    def truncated_unseen(self, fd: int | None) -> None:
        """A copytruncated file we have read nothing of yet (empty at the last look):
        written, copied and truncated since, its copies hold bytes we never saw; they
        come before what the file holds now (no offset of ours to tell it by)."""
        names: list[str] = []
        first = self._later_copies(fd, None, names)
        if names:
            self.host.note(
                f"{_short(self.path)} truncated after a copy (copytruncate) before it was read: read "
                f"{', '.join(names)}, then the file from its start",
                self.path,
            )
            if first:
                self.intake.take(first)

    def copy_of_held(self) -> int | None:
        """A descriptor of the file the path held, found under a rotated name."""
        if self.delivery.reader.kind != "lines" or self.at.dev_ino is None:
            return None
        return rotation.open_rotated(self.path, self.at.mtime_ns, self.at.dev_ino)

    def _copies(self, after=None) -> list[rotation.Sibling]:
        """The unread rotated siblings written since our last look, after the file
        ``after`` (when given) and before the held file (which may have been renamed
        since: only what is older than it counts), oldest first."""
        return self.host.unread(
            rotation.between(rotation.rotated_since(self.path, self.at.mtime_ns), after, self.at.dev_ino)
        )

    def _later_copies(self, fd: int | None, after, names: list[str]) -> bytes:
        """After the copy ``after`` that held our offset: the copies made after it (each the
        whole content between two truncations), up to the file's current start. That
        start is pinned (read) before each listing: a copy that does not begin with it
        holds older bytes, made before a truncation that came before the pin (read it
        whole, then look again); one that begins with it is a copy of the file as it
        is, maybe still being written by the rotation (left for the truncation that
        will follow it: ``after_truncation`` then finds it). Returns the file's first
        chunk, to be taken as its start."""
        first = b""
        read = partial(os.pread, fd) if fd is not None else None
        for _ in range(rotation.LIST_TRIES):
            try:
                first = read(CHUNK, 0) if read is not None else b""
            except OSError:
                first = b""
            later = self._copies(after)
            older = later if fd is None else rotation.before_copies_of(later, fd)
            if not older:
                break
            for t in older:
                if self.intake.generation(t):
                    names.append(_short(t.path))
        return first
