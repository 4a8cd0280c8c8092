"""Find checkpoints in a run directory and the step each one was saved at.

Names understood: HF ``checkpoint-N/``, DeepSpeed ``global_stepN/``, Megatron
``iter_000N/``, Lightning ``*step=N*.ckpt``, and ``step_N`` / ``step-N`` /
``ckpt_N`` / ``model_N`` files or dirs (``.pt``, ``.pth``, ``.ckpt``,
``.safetensors``, ``.bin``). Only names are read, never the files.
"""

from __future__ import annotations

import os
import re
from tsm_tui.core.numbers import int64

#: whole names (a file's or a directory's alike) ...
_WHOLE = [
    re.compile(r"^checkpoint[-_](\d+)$"),
    re.compile(r"^global_step(\d+)$"),
    re.compile(r"^iter_(\d+)$"),
]
#: ... and a file's name that holds a step or starts with a checkpoint word and a number
_PATTERNS = _WHOLE + [
    re.compile(r"step[=_\-]?(\d+)"),
    re.compile(r"^(?:ckpt|model|checkpoint|state)[_\-]?(\d+)"),
]
_EXT = (".pt", ".pth", ".ckpt", ".safetensors", ".bin", ".distcp", "")
#: a directory is a checkpoint when its whole name is one (after a checkpoint extension: DeepSpeed's
#: Lightning ``epoch=0-step=100.ckpt/``): a run's folder that only starts like one is searched
#: (fresh102's ``model3_depth_ablation_one_epoch/training_logs/``, skipped as checkpoint 3: "no log files found")
_DIR_PATTERNS = _WHOLE + [
    re.compile(r"(?:^|[=_\-])step[=_\-]?(\d+)$"),
    re.compile(r"^(?:ckpt|model|checkpoint|state)[_\-]?(\d+)$"),
]
MAX_ENTRIES = 20000  # bound the walk on huge dirs


def checkpoint_step(name: str, is_dir: bool) -> int | None:
    base = name
    low = name.lower()
    ext = next((e for e in _EXT if e and low.endswith(e)), None)
    if is_dir:
        base = name[: -len(ext)] if ext is not None else name
    else:
        if ext is None:
            return None
        base = name[: -len(ext)]
    for pat in _DIR_PATTERNS if is_dir else _PATTERNS:
        m = pat.search(base)
        if m:
            return int64(m.group(1))
    return None


def find_checkpoints(root: str, max_depth: int = 3, exclude=(), descend=None) -> list[tuple[int, str]]:
    """(step, relative name) pairs, ascending by step; one entry per step.
    ``exclude``: directories not searched (other runs below this one); ``descend(name)``:
    whether a sub-directory that is no checkpoint is searched (default: every one)."""
    found: dict[int, str] = {}
    skip = {os.path.abspath(e) for e in exclude}
    seen = 0
    root = os.path.abspath(root)
    base_depth = root.rstrip(os.sep).count(os.sep)
    for dirpath, dirnames, filenames in os.walk(root, onerror=lambda e: None):
        depth = dirpath.count(os.sep) - base_depth
        keep = []
        for d in dirnames:
            seen += 1
            st = checkpoint_step(d, True)
            if st is not None:
                found.setdefault(st, os.path.relpath(os.path.join(dirpath, d), root))
            elif (
                depth < max_depth
                and not d.startswith(".")
                and os.path.join(dirpath, d) not in skip
                and (descend is None or descend(d))
            ):
                keep.append(d)
        dirnames[:] = keep  # do not descend into checkpoints themselves
        for f in filenames:
            seen += 1
            st = checkpoint_step(f, False)
            if st is not None:
                found.setdefault(st, os.path.relpath(os.path.join(dirpath, f), root))
        if seen > MAX_ENTRIES:
            break
    return sorted(found.items())
