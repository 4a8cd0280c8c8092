"""Which filesystem holds a path, and whether it is a network one (inotify
misses other hosts' writes there: those paths are polled)."""

from __future__ import annotations

import os

NETWORK_FS = frozenset(
    {
        "nfs",
        "nfs4",
        "lustre",
        "gpfs",
        "cifs",
        "smb3",
        "smbfs",
        "smb",
        "fuse.sshfs",
        "sshfs",
        "beegfs",
        "ceph",
        "fuse.ceph",
        "fuse.ceph-fuse",
        "cephfs",
        "fuse.glusterfs",
        "glusterfs",
        "9p",
        "afs",
        "ncpfs",
        "panfs",
        "wekafs",
        "fuse.gcsfuse",
        "fuse.s3fs",
        "fuse.rclone",
        "fuse.juicefs",
        "fuse.lizardfs",
        "fuse.moosefs",
        "orangefs",
        "pvfs2",
        "ocfs2",
        "gfs2",
        "vboxsf",
        "virtiofs",
        "fuse.weka",
    }
)


# ----------------------------------------------------------------------------- mounts
def _unescape(s: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as \ooo
    if "\\" not in s:
        return s
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 3 < len(s) and all(c in "01234567" for c in s[i + 1 : i + 4]):  # (not "²³⁴", not 8/9)
            out.append(chr(int(s[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def parse_mounts(text: str, mountinfo: bool = True) -> list[tuple[str, str]]:
    """(mount point, fstype) pairs from /proc/self/mountinfo (or /proc/mounts) text."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if mountinfo:
            if "-" not in parts:
                continue
            sep = parts.index("-")
            if len(parts) < 5 or sep + 1 >= len(parts):
                continue
            out.append((_unescape(parts[4]), parts[sep + 1]))
        elif len(parts) >= 3:
            out.append((_unescape(parts[1]), parts[2]))
    return out


def filesystem_type(path: str, mounts: list[tuple[str, str]] | None = None) -> str | None:
    """The fstype of the mount holding ``path`` (or its nearest existing ancestor)."""
    if mounts is None:
        mounts = []
        for name, mi in (("/proc/self/mountinfo", True), ("/proc/mounts", False)):
            try:
                with open(name, encoding="utf-8", errors="replace") as f:
                    mounts = parse_mounts(f.read(), mi)
                break
            except OSError:
                continue
    p = os.path.realpath(os.path.abspath(path))  # resolves the part that exists
    best, fstype = -1, None
    for mp, fs in mounts:  # later entries shadow earlier ones at the same point
        mp_n = mp.rstrip("/") or "/"
        if p == mp_n or p.startswith(mp_n.rstrip("/") + "/") or mp_n == "/":
            if len(mp_n) >= best:
                best, fstype = len(mp_n), fs
    return fstype


def is_network_fs(fstype: str | None) -> bool:
    if not fstype:
        return False
    return fstype in NETWORK_FS or fstype.split(".")[0] in NETWORK_FS
