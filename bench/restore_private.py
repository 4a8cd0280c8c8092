"""Restore the private half of the labelled corpus from the sources its SOURCES.md names.

The logs of ``bench/corpus/<set>`` whose licence does not allow a copy here are labelled with
``"private": true`` and live under ``<shared>/corpus_private/<set>/``. That directory is outside the
repository and has been lost between sessions; every private file is listed in its set's SOURCES.md
as ``- **Repo:** owner/name @ `commit``` followed by ``- `src` -> `dst` (blob `prefix`, N bytes)``.
This script writes each one back from a git mirror of the repository (``--mirrors``, one
``owner+name/repo`` clone each, bare or with ``.git``, as the tool library's ``fetch`` leaves them) with
``git show commit:src`` and checks the blob id prefix and the byte size before keeping it.

    python bench/restore_private.py [--shared ../shared] [--mirrors /work/.mirror] [--set more]

Exit 0 when every private file is present and verified, 1 otherwise (what is missing is printed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_LINE = re.compile(r"\*\*Repo:\*\*\s+([\w.-]+/[\w.-]+)\s+@\s+`([0-9a-f]{40})`")
FILE_LINE = re.compile(r"^\s*- `([^`]+)` -> `([^`]+)` \(blob `([0-9a-f]+)`, ([\d,]+) bytes\)")


def sources(md: str, set_name: str) -> list[tuple[str, str, str, str, str, int]]:
    """(repo, commit, src, dst relative to the set, blob prefix, size) for every file line."""
    out = []
    repo = commit = None
    marker = f"corpus_private/{set_name}/"
    with open(md, encoding="utf-8") as f:
        for line in f:
            m = REPO_LINE.search(line)
            if m:
                repo, commit = m.group(1), m.group(2)
                continue
            m = FILE_LINE.match(line)
            if m and repo and commit:
                dst = m.group(2)
                if marker in dst:
                    dst = dst.split(marker, 1)[1]
                out.append((repo, commit, m.group(1), dst, m.group(3), int(m.group(4).replace(",", ""))))
    return out


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--set", action="append", dest="sets")
    a = ap.parse_args(argv)
    root = os.path.join(HERE, "corpus")
    sets = a.sets or sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "labels.json")))
    ok = bad = have = 0
    for name in sets:
        with open(os.path.join(root, name, "labels.json"), encoding="utf-8") as f:
            labels = json.load(f)
        private = [v["path"].rstrip("/") for v in labels.values() if isinstance(v, dict) and v.get("private")]
        for repo, commit, src, dst, blob, size in sources(os.path.join(root, name, "SOURCES.md"), name):
            if not any(dst == p or dst.startswith(p + "/") for p in private):
                continue
            target = os.path.join(a.shared, "corpus_private", name, dst)
            if os.path.isfile(target):
                with open(target, "rb") as f:
                    if blob_id(f.read()).startswith(blob):
                        have += 1
                        continue
            git = os.path.join(a.mirrors, repo.replace("/", "+"), "repo")
            if os.path.isdir(os.path.join(git, ".git")):  # some mirrors are a clone with a work tree
                git = os.path.join(git, ".git")
            try:
                data = subprocess.run(
                    ["git", "--git-dir", git, "show", f"{commit}:{src}"], capture_output=True, check=True
                ).stdout
            except (subprocess.CalledProcessError, FileNotFoundError) as e:
                print(f"{name}/{dst}: cannot read {repo}@{commit[:12]}:{src} ({e})", file=sys.stderr)
                bad += 1
                continue
            if len(data) != size or not blob_id(data).startswith(blob):
                print(f"{name}/{dst}: {len(data)} bytes, blob {blob_id(data)[:12]}; SOURCES.md says {size}, {blob}")
                bad += 1
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
            ok += 1
    print(f"private corpus: {have} already present, {ok} restored, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
