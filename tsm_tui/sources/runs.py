"""Runs, not files: which files under a path one training job wrote.

A run is the set of files one job wrote: its logs in every format and from
every rank, its configs, its checkpoints. ``run_root(file, top)`` walks up
from a log file to the directory that holds its run, by the frameworks' own
conventions:

- PyTorch Lightning: ``lightning_logs/version_N/`` is one run each;
- W&B: ``wandb/run-*/`` (and ``offline-run-*``) one each; ``latest-run`` is a
  link to one of them and is never walked (links are not followed);
- MLflow: ``mlruns/<exp>/<run_id>/`` (``meta.yaml`` beside ``metrics/``);
- HF Trainer ``output_dir``: ``runs/<date_host>/`` event files and
  ``checkpoint-N/`` belong to the directory above them;
- directories that only organise one run's files (``logs/``, ``tb/``,
  ``train/``, ``validation/``, ``checkpoints/``, ``files/`` ...) belong to
  their parent;
- modded-nanogpt's ``logs/<uuid>.txt``: one run per file (the name is the run);
- anything else: the directory holding the file. Files in one directory are
  one run: per-rank logs (``rank0.log``, ``log_rank_1.txt`` ...) are its ranks,
  stdout next to a JSONL or TensorBoard file is the same series twice.

A sweep directory whose subdirectories each hold a run is many runs; the
path itself is one run when all its files lead to it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from tsm_tui.sources.checkpoints import checkpoint_step

#: directories that hold part of one run's files (climbed through to the run)
INNER_DIRS = frozenset({
    "logs", "log", "files", "tb", "tensorboard", "tb_logs", "tblogs", "events", "metrics", "train",
    "training", "validation", "val", "valid", "eval", "evaluation", "test", "checkpoints", "checkpoint",
    "ckpt", "ckpts", "samples", "generations", "stdout", "stderr", "console",
})
_VERSION = re.compile(r"^version_\d+$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
#: a number naming a rank / node / process in a file name
_RANK = re.compile(r"(?:^|[^a-z0-9])(?:rank|local_rank|node|proc|process|worker|gpu|device|r)[-_.]?(\d{1,5})"
                   r"(?=$|[^0-9])", re.I)
_TRAILING_NUM = re.compile(r"[-_.](\d{1,5})$")
_TB = "events.out.tfevents."


def _checkpoint_dir(name: str) -> bool:
    return checkpoint_step(name, True) is not None and not _VERSION.match(name)


def _is_mlflow_run(d: str) -> bool:
    return os.path.isfile(os.path.join(d, "meta.yaml")) and os.path.isdir(os.path.join(d, "metrics"))


def _only_event_files(d: str) -> bool:
    try:
        names = os.listdir(d)
    except OSError:
        return False
    return bool(names) and all(n.startswith(_TB) or n.startswith(".") for n in names)


def _has_run_files(d: str) -> bool:
    """``d`` holds a run of its own (an HF output_dir): a trainer state, arguments,
    a checkpoint or a log file directly in it."""
    try:
        names = os.listdir(d)
    except OSError:
        return False
    for n in names:
        low = n.lower()
        if n in ("trainer_state.json", "training_args.bin", "config.json", "all_results.json") \
                or _checkpoint_dir(n) or low.endswith((".log", ".jsonl", ".out", ".csv")):
            return True
    return False


def run_root(path: str, top: str) -> str:
    """The directory of the run that the log file (or MLflow ``metrics/`` dir) ``path`` belongs to."""
    top = os.path.abspath(top).rstrip(os.sep) or os.sep
    path = os.path.abspath(path)
    if path == top:
        return top if os.path.isdir(path) else os.path.dirname(path)
    d = os.path.dirname(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if _UUID.match(stem) and not os.path.isdir(path):
        return path  # modded-nanogpt: logs/<uuid>.txt is a run of its own
    while len(d) > len(top) and d.startswith(top + os.sep):
        name = os.path.basename(d)
        parent = os.path.dirname(d)
        pname = os.path.basename(parent)
        if pname == "lightning_logs" and _VERSION.match(name):
            return d
        if pname == "wandb" and name.startswith(("run-", "offline-run-")):
            return d
        if _is_mlflow_run(d):
            return d
        if _checkpoint_dir(name) or name.lower() in INNER_DIRS:
            d = parent
            continue
        if pname == "runs" and _only_event_files(d) and _has_run_files(os.path.dirname(parent)):
            d = os.path.dirname(parent)  # HF: output_dir/runs/<date_host>/events.out.tfevents.*
            continue
        return d
    return top


def rank_of(path: str) -> int | None:
    """The rank a per-rank log file names (``rank3.log``, ``log_rank_3.txt``,
    ``slurm-123_3.out``, ``node-1.log``), else None."""
    base = os.path.basename(path)
    stem = base.split(".")[0] if not base.startswith(_TB) else base
    m = _RANK.search(stem)
    if m:
        return int(m.group(1))
    m = _TRAILING_NUM.search(os.path.splitext(base)[0])
    return int(m.group(1)) if m else None


def rank_group(files: list[str]) -> list[str]:
    """The files of one run that are ranks of the same log: same directory, same
    extension, names equal but for the rank number (two or more of them)."""
    groups: dict[tuple, list[str]] = {}
    for f in files:
        if os.path.isdir(f) or os.path.basename(f).startswith(_TB):
            continue
        r = rank_of(f)
        if r is None:
            continue
        base = os.path.basename(f)
        shape = re.sub(r"\d+", "#", base)
        groups.setdefault((os.path.dirname(f), shape), []).append(f)
    best = max(groups.values(), key=len, default=[])
    return sorted(best, key=lambda p: rank_of(p) or 0) if len(best) >= 2 else []


@dataclass
class RunSpec:
    name: str  # the run's path relative to the watched path; the path's own name for the path itself
    root: str  # where its configs and checkpoints are searched
    files: list[str] = field(default_factory=list)
    #: per-rank log files of this run (empty: not a multi-rank run)
    ranks: list[str] = field(default_factory=list)


def run_name(root: str, top: str) -> str:
    top = os.path.abspath(top)
    if os.path.abspath(root) == top:
        return os.path.basename(top.rstrip(os.sep)) or top
    return os.path.relpath(root, top)


def group_runs(files: list[str], top: str) -> list[RunSpec]:
    """Candidate log files under ``top`` grouped into runs, in path order. One
    run found: its root is ``top`` itself (configs and checkpoints are searched
    from there, as for a single run directory)."""
    top = os.path.abspath(top)
    by_root: dict[str, list[str]] = {}
    for f in files:
        by_root.setdefault(run_root(f, top), []).append(f)
    if len(by_root) <= 1:
        root = top if os.path.isdir(top) else os.path.dirname(top)
        fs = next(iter(by_root.values()), [])
        return [RunSpec(run_name(top, top), root, fs, rank_group(fs))]
    out = []
    for root in sorted(by_root, key=lambda r: [int(t) if i % 2 else t for i, t in enumerate(re.split(r"([0-9]+)", r))]):
        fs = by_root[root]
        out.append(RunSpec(run_name(root, top), root if os.path.isdir(root) else os.path.dirname(root),
                           fs, rank_group(fs)))
    return out


def other_roots(spec: RunSpec, runs: list[RunSpec]) -> list[str]:
    """Roots of the other runs below this one's root (their checkpoints are not this run's)."""
    me = spec.root.rstrip(os.sep) + os.sep
    return [r.root for r in runs if r is not spec and r.root.startswith(me)]
