"""Runs, not files: which files under a path one training job wrote.

A run is the set of files one job wrote: its logs in every format and from
every rank, its configs, its checkpoints. ``run_root(file, top)`` walks up
from a log file to the directory that holds its run, by the frameworks' own
conventions:

- PyTorch Lightning: ``lightning_logs/version_N/`` is one run each;
- a tracker's run directory is one run, always, with every file under it
  (``tracker_run_dir``): W&B's ``run-<time>-<id>/`` (and ``offline-run-*``),
  one per process, under ``wandb/`` or moved out of it (its name and its
  ``files/`` or ``run-<id>.wandb``), whose ``files/output.log`` is the same
  run's console and whose ``tmp/``, ``logs/`` are the SDK's own (``latest-run``
  is a link to one of them and is never walked: links are not followed);
  MLflow's ``mlruns/<exp>/<run_id>/`` (``meta.yaml`` beside ``metrics/``);
  DVCLive's directory (``plots/metrics/`` beside ``metrics.json``,
  ``params.yaml`` or ``dvc.yaml``), whose metric files are one source, its
  columns (``sources.dvclive``);
- HF Trainer ``output_dir``: ``checkpoint-N/`` and ``runs/<date_host>/`` (a
  directory of TensorBoard event files under ``runs/``) belong to the
  directory above them, always: before the first save the output_dir holds
  nothing else, and it is the same run after it;
- torchrun ``--log-dir``: ``<run_id>/attempt_K/<rank>/stdout.log`` is rank
  ``<rank>`` of the run ``<run_id>``; ``rank_N/`` (``rank-N``, ``rankN``)
  directories are ranks of the run above them;
- directories that only organise one run's files (``logs/``, ``tb/``,
  ``train/``, ``validation/``, ``checkpoints/``, ``files/`` ...) belong to
  their parent;
- modded-nanogpt's ``logs/<uuid>.txt``: one run per file (the name is the run);
  its checkpoints are in ``logs/<uuid>/``;
- anything else: the directory holding the file.

Ranks are named explicitly (``rank3.log``, ``log_rank_3.txt``, ``rank-3``,
``local_rank_3``, ``node-1.log``, ``worker_2``, the torchrun and ``rank_N/``
directories above, and Slurm's per-task ``slurm-<job>.<task>.out`` when the
tasks are 0..N-1 of one job and ended together). A bare trailing number is
not a rank: ``slurm-4242_3.out`` (Slurm's ``%A_%a`` array default) and
``train_seed_1.log`` are different runs.

Files in one directory are one run unless their series say otherwise
(a tracker's run directory is never split: its files are one process's)
(``split_series``, after the files are sniffed): two logs that both start
training at the same step are different runs when they are numbered siblings
(``slurm-4242_0.out``, ``slurm-4242_1.out``) or when their losses at the same
steps disagree beyond the precision they were printed with (nanoGPT's
``train.log`` beside llm.c's ``main.log``). The same series written twice
(stdout, JSONL and TensorBoard of one HF run) agrees and stays one run; a log
that starts later (a resumed run's new file) or logs no loss is kept with it.

A sweep directory whose subdirectories each hold a run is many runs; the
path itself is one run when all its files lead to it.
"""

from __future__ import annotations

import bisect
import math
import os
import re
from dataclasses import dataclass, field

from tsm_tui.sources import log_files, registry
from tsm_tui.sources.bare_numbers import is_bare_dir
from tsm_tui.sources.checkpoints import checkpoint_step
from tsm_tui.sources.json_doc import per_split_summary
from tsm_tui.sources.wandb_run import run_dir_id

#: directories that hold part of one run's files (climbed through to the run)
INNER_DIRS = frozenset(
    {
        "logs",
        "log",
        "files",
        "tb",
        "tensorboard",
        "tb_logs",
        "tblogs",
        "events",
        "metrics",
        "train",
        "training",
        "validation",
        "val",
        "valid",
        "eval",
        "evaluation",
        "test",
        "checkpoints",
        "checkpoint",
        "ckpt",
        "ckpts",
        "samples",
        "generations",
        "stdout",
        "stderr",
        "console",
        "artifacts",
        "weights",
        "model",  # (Ludwig's experiment_run/model/: its weights, progress and TensorBoard log)
    }
)
_VERSION = re.compile(r"^version_\d+$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
#: a rank / node / process named in a file name (never a bare trailing number)
_RANK = re.compile(
    r"(?:^|[^a-z0-9])(?:local_rank|global_rank|rank|node|worker|process|proc)[-_.]?(\d{1,5})"
    r"(?=$|[^0-9])",
    re.I,
)
_RANK_DIR = re.compile(r"^(?:local_rank|global_rank|rank|node|worker)[-_]?(\d{1,5})$", re.I)
_ATTEMPT = re.compile(r"^attempt_\d+$")
_DIGITS = re.compile(r"^\d{1,5}$")
#: Slurm ``--output=slurm-%j.%t.out``: task ``%t`` of job ``%j``
_SLURM_TASK = re.compile(r"^slurm-(\d+)\.(\d{1,5})\.(?:out|err|log)$")
SLURM_TASKS_TOGETHER = 300.0  # s: tasks of one job step end together (ours); job steps run one after another
_CKPTISH = re.compile(r"ckpt|checkpoint", re.I)
_TB = "events.out.tfevents."


def _checkpoint_dir(name: str) -> bool:
    return checkpoint_step(name, True) is not None and not _VERSION.match(name)


def tracker_run_dir(d: str) -> bool:
    """``d`` is a directory a tracker made for one run (W&B, MLflow, DVCLive, an Aim
    run's database: the registered readers' ``run_dir``): one run, with every file under
    it, never split by series."""
    return any(r.run_dir(d) for r in registry.READERS)


def _deep_run_above(path: str, top: str) -> str | None:
    """The run directory of a format whose files at any depth are its run's (W&B's:
    ``run_dir_deep``; ``top`` itself, or one below it) that ``path`` is in, if any."""
    deep = [r for r in registry.READERS if r.run_dir_deep]
    d = os.path.dirname(path)
    while d == top or (len(d) > len(top) and d.startswith(top + os.sep)):
        if any(r.run_dir(d) for r in deep):
            return d
        if d == top:
            break
        d = os.path.dirname(d)
    return None


def _only_event_files(d: str, depth: int = 0) -> bool:
    """``d`` holds TensorBoard event files only (HF's hparams sub-directory of them allowed)."""
    try:
        entries = list(os.scandir(d))
    except OSError:
        return False
    seen = False
    for e in entries:
        if e.name.startswith("."):
            continue
        if e.name.startswith(_TB):
            seen = True
        elif depth == 0 and e.is_dir(follow_symlinks=False) and _only_event_files(e.path, 1):
            seen = True
        else:
            return False
    return seen


def _climbs(name: str, pname: str) -> bool:
    """A directory called ``name`` (in ``pname``) only organises its parent's run."""
    low = name.lower()
    return (
        low in INNER_DIRS
        or _checkpoint_dir(name)
        or bool(_RANK_DIR.match(name))
        or bool(_ATTEMPT.match(name))
        or (bool(_DIGITS.match(name)) and bool(_ATTEMPT.match(pname)))
    )


def run_root(path: str, top: str) -> str:
    """The directory of the run that the log file (or MLflow ``metrics/`` dir) ``path``
    belongs to; for modded-nanogpt's ``logs/<uuid>.txt`` the file itself."""
    top = os.path.abspath(top).rstrip(os.sep) or os.sep
    path = os.path.abspath(path)
    if path == top:
        return top if os.path.isdir(path) else os.path.dirname(path)
    d = os.path.dirname(path)
    if is_bare_dir(path):
        d = path  # a folder of bare-number metric files: in its run as its files would be
    stem = os.path.splitext(os.path.basename(path))[0]
    if _UUID.match(stem) and not os.path.isdir(path):
        return path  # modded-nanogpt: logs/<uuid>.txt is a run of its own
    if os.path.isdir(path) and tracker_run_dir(path):
        return path  # a source that is a tracker's run directory (Aim's seqs/chunks/<hash>): a run of its own
    deep = _deep_run_above(path, top)
    if deep is not None:
        return deep  # W&B's files/output.log, tmp/run-<id>.wandb: the run's, wherever they sit in it
    while len(d) > len(top) and d.startswith(top + os.sep):
        name = os.path.basename(d)
        parent = os.path.dirname(d)
        pname = os.path.basename(parent)
        if pname == "lightning_logs" and _VERSION.match(name):
            return d
        if tracker_run_dir(d):  # (MLflow's, DVCLive's: the climb stops at it)
            return d
        if _climbs(name, pname):
            d = parent
            continue
        if pname == "runs" and parent != top and _only_event_files(d):
            d = os.path.dirname(parent)  # HF: output_dir/runs/<date_host>/events.out.tfevents.*
            continue
        return d
    return top


def climb(d: str) -> str:
    """The run directory above ``d`` for a file given alone (no watched path above it):
    ``exp/logs`` -> ``exp``, ``job/rank_3`` -> ``job``, ``wandb/run-X/tmp`` -> ``wandb/run-X``."""
    d = os.path.abspath(d)
    up = d
    deep = [r for r in registry.READERS if r.run_dir_deep]
    while os.path.dirname(up) != up:  # inside a W&B run dir (files/, tmp/): that run dir
        if any(r.run_dir(up) for r in deep):
            return up
        up = os.path.dirname(up)
    while True:
        name, parent = os.path.basename(d), os.path.dirname(d)
        if parent == d or not _climbs(name, os.path.basename(parent)):
            return d
        d = parent


def rank_of(path: str) -> int | None:
    """The rank a per-rank log names: in its file name (``rank3.log``, ``log_rank_3.txt``,
    ``rank-3.jsonl``, ``node-1.log``) or its directory (``rank_3/train.log``, torchrun's
    ``attempt_0/3/stdout.log``), else None. Slurm task files are ranks only as a group
    (``rank_groups``)."""
    base = os.path.basename(path)
    if base.startswith(_TB):
        return None
    m = _RANK.search(base.split(".")[0])
    if m:
        return int(m.group(1))
    d = os.path.dirname(path)
    dname = os.path.basename(d)
    m = _RANK_DIR.match(dname)
    if m:
        return int(m.group(1))
    if _DIGITS.match(dname) and _ATTEMPT.match(os.path.basename(os.path.dirname(d))):
        return int(dname)
    return None


def _shape(path: str) -> str:
    return re.sub(r"\d+", "#", path)


def _slurm_tasks(files: list[str]) -> dict[str, int]:
    """Slurm ``slurm-<job>.<task>.out`` files that are the tasks 0..N-1 of one job step:
    path -> task. Job steps (``%j.%s``) look the same but run one after another: the
    tasks of one step end together (their files' mtimes within SLURM_TASKS_TOGETHER)."""
    by_job: dict[tuple, list[tuple[int, str]]] = {}
    for f in files:
        m = _SLURM_TASK.match(os.path.basename(f))
        if m:
            by_job.setdefault((os.path.dirname(f), m.group(1), os.path.splitext(f)[1]), []).append((int(m.group(2)), f))
    out: dict[str, int] = {}
    for tasks in by_job.values():
        ids = sorted(t for t, _ in tasks)
        if len(ids) < 2 or ids != list(range(len(ids))):
            continue
        try:
            times = [os.stat(f).st_mtime for _, f in tasks]
        except OSError:
            continue
        if max(times) - min(times) <= SLURM_TASKS_TOGETHER:
            out.update({f: t for t, f in tasks})
    return out


def rank_groups(files: list[str]) -> list[list[str]]:
    """Groups of per-rank files of one run: the same log (path equal but for the rank
    number and the attempt), two or more ranks, each sorted by rank; the largest first."""
    slurm = _slurm_tasks(files)
    groups: dict[str, list[tuple[int, str]]] = {}
    for f in files:
        if os.path.isdir(f):
            continue
        r = slurm.get(f)
        if r is None:
            r = rank_of(f)
        if r is None:
            continue
        groups.setdefault(_shape(f), []).append((r, f))
    out = []
    for members in groups.values():
        ranks = {r for r, _ in members}
        if len(ranks) < 2:
            continue
        if len(ranks) < len(members):  # torchrun restarts: attempt_0/3 and attempt_1/3: the newest attempt
            newest: dict[int, str] = {}
            for r, f in sorted(members, key=lambda x: _attempt(x[1])):
                newest[r] = f
            members = list(newest.items())
        out.append([f for _, f in sorted(members)])
    out.sort(key=lambda g: -len(g))
    return out


def _attempt(path: str) -> int:
    for part in reversed(path.split(os.sep)):
        if _ATTEMPT.match(part):
            return int(part.split("_")[1])
    return 0


def slurm_task(path: str, ranks: list[str]) -> int | None:
    """The rank of ``path`` in the rank list (Slurm tasks have no rank token)."""
    r = rank_of(path)
    if r is None:
        m = _SLURM_TASK.match(os.path.basename(path))
        if m and path in ranks:
            r = int(m.group(2))
    return r


@dataclass
class RunSpec:
    name: str  # the run's path relative to the watched path ("." for the path itself in a sweep)
    root: str  # where its configs are searched (and its checkpoints, unless ckpt_dir says otherwise)
    files: list[str] = field(default_factory=list)
    #: per-rank log files of this run (empty: not a multi-rank run); set when the files are opened
    ranks: list[str] = field(default_factory=list)
    #: candidate groups of per-rank files (``rank_groups``)
    rank_groups: list[list[str]] = field(default_factory=list)
    #: the run's own path (a directory, or the one file that is the run)
    path: str = ""
    #: where its checkpoints are (None: it has no directory of its own: a file among other runs' files)
    ckpt_dir: str | None = ""
    #: the checkpoint directory counts as searched (a directory run; a file run only when found)
    searched: bool = True
    #: other directories of this run (sibling loggers merged into it, ``sources.siblings``):
    #: their checkpoints are its too
    members: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.path:
            self.path = self.root
        if self.ckpt_dir == "":
            self.ckpt_dir = self.root


def run_name(root: str, top: str) -> str:
    top = os.path.abspath(top)
    if os.path.abspath(root) == top:
        return "."
    return os.path.relpath(root, top)


def uuid_dir(path: str) -> str:
    """modded-nanogpt's checkpoints of ``logs/<uuid>.txt``: ``logs/<uuid>/``."""
    return os.path.splitext(path)[0]


def _spec_for_root(root: str, top: str, fs: list[str]) -> RunSpec:
    if not os.path.isdir(root):  # a file that is a run of its own (modded-nanogpt's logs/<uuid>.txt)
        own = uuid_dir(root)
        return RunSpec(
            run_name(root, top), own, fs, rank_groups=[], path=root, ckpt_dir=own, searched=os.path.isdir(own)
        )
    return RunSpec(run_name(root, top), root, fs, rank_groups=rank_groups(fs), path=root)


def group_runs(files: list[str], top: str) -> list[RunSpec]:
    """Candidate log files under ``top`` grouped into runs by directory conventions,
    in path order (``split_series`` may split a directory's files further once they
    are sniffed). One run found: it is named after ``top``."""
    top = os.path.abspath(top)
    by_root: dict[str, list[str]] = {}
    for f in files:
        by_root.setdefault(run_root(f, top), []).append(f)
    _join_resumed_wandb(by_root)
    if len(by_root) <= 1:
        root, fs = next(iter(by_root.items()), (top if os.path.isdir(top) else os.path.dirname(top), []))
        spec = _spec_for_root(root, top, fs)
        spec.name = os.path.basename(top.rstrip(os.sep)) or top
        return [spec]
    return [_spec_for_root(root, top, by_root[root]) for root in sorted(by_root, key=log_files.natural)]


def _join_resumed_wandb(by_root: dict[str, list[str]]) -> None:
    """W&B run dirs of one run id (``resume=``: each process writes a new
    ``run-<time>-<id>/``) are one run, rooted at the newest."""
    by_id: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for root in by_root:
        if os.path.basename(os.path.dirname(root)) != "wandb":
            continue
        rid = run_dir_id(os.path.basename(root), root)
        if rid is not None:
            by_id.setdefault((os.path.dirname(root), rid[1]), []).append((rid[0], root))
    for group in by_id.values():
        if len(group) < 2:
            continue
        group.sort()
        newest = group[-1][1]
        for _, root in group[:-1]:
            by_root[newest] = by_root.pop(root) + by_root[newest]


class Roots:
    """The runs' roots, sorted: the roots below one root found by bisection (a tree of
    20,000 runs compared every pair)."""

    def __init__(self, runs: list[RunSpec]) -> None:
        self.roots = sorted({r.root for r in runs})

    def below(self, root: str) -> list[str]:
        me = root.rstrip(os.sep) + os.sep
        i = bisect.bisect_left(self.roots, me)
        out = []
        while i < len(self.roots) and self.roots[i].startswith(me):
            out.append(self.roots[i])
            i += 1
        return out


def other_roots(spec: RunSpec, runs: list[RunSpec], roots: Roots | None = None) -> list[str]:
    """Roots of the other runs below this one's root (their checkpoints are not this run's)."""
    below = (roots or Roots(runs)).below(spec.root)
    return [r for r in below if r != spec.root and os.path.isdir(r)]


# --------------------------------------------------------------------------- checkpoints
def _owning_part(name: str) -> bool:
    """A directory between a run's root and a checkpoint that keeps the checkpoint the run's."""
    return (
        name.lower() in INNER_DIRS
        or bool(_CKPTISH.search(name))
        or bool(_RANK_DIR.match(name))
        or checkpoint_step(name, True) is not None
    )


def owns_checkpoint(rel: str) -> bool:
    """A checkpoint at ``rel`` (relative to a run's root) is that run's: every directory on
    the way is one that organises the run's files (``checkpoints/``, ``ckpt_v2/``,
    ``rank_0/``); ``crashed/checkpoints/step_230.pt`` belongs to ``crashed/``, a directory
    of its own (another run, or a run that left no log), not to the run above it."""
    parts = rel.split(os.sep)[:-1]
    return all(_owning_part(p) for p in parts)


# --------------------------------------------------------------------------- series
HEAD_RECORDS = 256  # loss records compared per file (ours: a few hundred steps say whether two series are one)
AGREE = 0.8  # share of the common steps whose losses agree for "the same series" (ours)
DISAGREE = 0.5  # below this share: different series (ours); in between: kept together


@dataclass
class Head:
    """The start of one file's loss series."""

    steps: list[int]
    losses: list[float]
    inferred: bool  # the log names no steps (counted): not comparable by step
    _interval: int | None = field(default=None, repr=False)
    _by_step: dict | None = field(default=None, repr=False)

    @property
    def first(self) -> int | None:
        return self.steps[0] if self.steps else None

    @property
    def interval(self) -> int:
        if self._interval is None:
            d = [b - a for a, b in zip(self.steps, self.steps[1:]) if b > a]
            self._interval = sorted(d)[len(d) // 2] if d else 1
        return self._interval

    @property
    def by_step(self) -> dict:
        if self._by_step is None:
            self._by_step = dict(zip(self.steps, self.losses))
        return self._by_step


def _decimals(x: float) -> int:
    """Decimal places a value was printed with (up to 8: a float32 or full-precision value)."""
    for d in range(9):
        if abs(round(x, d) - x) <= 1e-9 * max(1.0, abs(x)):
            return d
    return 9


def agree(a: float, b: float) -> bool:
    """Two loss values are the same value printed twice (to the coarser precision)."""
    tol = 0.5 * 10.0 ** -min(_decimals(a), _decimals(b)) + 1e-5 * max(abs(a), abs(b))
    return abs(a - b) <= tol


def comparable(a: Head, b: Head) -> bool:
    """Both series name their steps and start together (within a logging interval):
    only then can they be told "same" or "different"."""
    if a.inferred or b.inferred or not a.steps or not b.steps:
        return False
    assert a.first is not None and b.first is not None  # (both have steps)
    return abs(a.first - b.first) <= max(a.interval, b.interval, 1)


def relation(a: Head, b: Head, numbered: bool) -> str:
    """ "same", "different" or "unknown" for two files' series."""
    if not comparable(a, b):
        return "unknown"  # (not both from the start: a resumed run's new log, a later segment)
    if numbered:
        return "different"  # slurm-4242_0.out, slurm-4242_1.out: an array, seeds
    la = a.by_step
    common = [s for s in b.steps if s in la]
    if not common:
        return "unknown"
    lb = b.by_step
    ok = sum(1 for s in common if agree(la[s], lb[s]))
    if ok >= AGREE * len(common):
        return "same"
    if ok < DISAGREE * len(common) and not any(_shifted(la, b, d) for d in (1, -1)):
        return "different"
    return "same"


def _shifted(la: dict, b: Head, d: int) -> bool:
    """``b``'s losses are ``la``'s one step on (``d``): one run counted from 0 in one file and
    from 1 in the other (a tracker's ``step`` from 0 beside its console's tqdm count from 1:
    Sacred's metrics.json and cout.txt)."""
    lb = b.by_step
    common = [s for s in b.steps if s + d in la]
    return len(common) >= 2 and sum(1 for s in common if agree(la[s + d], lb[s])) >= AGREE * len(common)


def numbered_siblings(p: str, q: str) -> bool:
    """Two files in one directory whose names differ only in their numbers."""
    return (
        os.path.dirname(p) == os.path.dirname(q)
        and os.path.basename(p) != os.path.basename(q)
        and _shape(os.path.basename(p)) == _shape(os.path.basename(q))
    )


FIRST_CLUSTERS = 4  # clusters every unit is tried against, in order (ours)
MAX_CANDIDATES = 16  # more clusters tried, those whose loss values match the unit's most (ours)
FREE_SCAN = 64  # clusters looked through for one with no member that starts with the unit (ours)
#: records of a head indexed by (step, loss bucket) to find where the same series may be:
#: spread over the head (the runs of a sweep start alike and part later)
KEY_AT = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233)
KEY_CAP = 32  # clusters kept per index key (a key shared by more tells nothing; bounded work; ours)
#: bucket widths of the index: a value and its copy printed to the coarser precision are in
#: the same or a neighbouring bucket of every width above their tolerance (``agree``); the
#: fine ones tell a sweep's close runs apart
WIDTHS = (0.1, 0.01, 0.001)


def _keys(h: Head, probe: bool = False):
    """(width, step, bucket) keys of a head; ``probe``: each with the nearest other bucket
    too, and only the widths its own precision allows."""
    n = len(h.steps)
    for i in KEY_AT:
        if i >= n:
            break
        v = h.losses[i]
        if not (math.isfinite(v) and abs(v) < 1e12):
            continue
        tol = 0.5 * 10.0 ** -_decimals(v) + 1e-5 * abs(v)
        for w in WIDTHS:
            if probe and w < tol:
                break
            x = v / w
            b = math.floor(x)
            yield (w, h.steps[i], b)
            if probe:  # the buckets a value within ``tol`` of v can fall in
                if x - b < tol / w:
                    yield (w, h.steps[i], b - 1)
                if b + 1 - x <= tol / w:
                    yield (w, h.steps[i], b + 1)


class _Cluster:
    __slots__ = ("members", "firsts", "span")

    def __init__(self) -> None:
        self.members: list[int] = []
        self.firsts: list[tuple[int, int]] = []  # (first step, unit) of comparable members, sorted
        self.span = 1  # the largest logging interval of those members


class Clusterer:
    """Units (representative path, head) into series: each joins the first cluster none
    of whose members it is a different run from (``relation``).

    Linear in the units: a unit is only ever "different" from members that start with it
    (``comparable``), found by bisection in each cluster; and it is tried against the first
    FIRST_CLUSTERS clusters and the MAX_CANDIDATES others whose members logged the same loss
    values at the same steps (an index of (step, loss to 0.1, 0.01 and 0.001) at KEY_AT records
    of each head, KEY_CAP clusters per key), then against the first
    cluster among the first FREE_SCAN with no member that starts with it (a resumed run's
    new log joins the run it continues). A unit "different" from every cluster tried
    starts a new one: in a directory of thousands of distinct runs, a cluster beyond those
    is one whose values never matched. ``compared`` counts the series comparisons made."""

    def __init__(self) -> None:
        self.clusters: list[_Cluster] = []
        self.compared = 0
        self._index: dict[tuple[int, int], dict[int, None]] = {}  # (step, bucket) -> clusters (ordered)
        self._units: list[tuple[str, Head, str, str]] = []  # path, head, directory, name shape

    def _differs(self, c: _Cluster, u: int) -> bool:
        p, h, d, shape = self._units[u]
        if h.inferred or not h.steps:
            return False
        assert h.first is not None  # (it has steps)
        r = max(h.interval, c.span, 1)
        lo = bisect.bisect_left(c.firsts, (h.first - r, -1))
        for first, j in c.firsts[lo:]:
            if first > h.first + r:
                break
            q, hq, dq, shq = self._units[j]
            numbered = d == dq and shape == shq and os.path.basename(p) != os.path.basename(q)
            self.compared += 1
            if relation(hq, h, numbered) == "different":
                return True
        return False

    def _has_comparable(self, c: _Cluster, h: Head) -> bool:
        assert h.first is not None  # (add asks only for a head with steps)
        r = max(h.interval, c.span, 1)
        lo = bisect.bisect_left(c.firsts, (h.first - r, -1))
        return lo < len(c.firsts) and c.firsts[lo][0] <= h.first + r

    def add(self, path: str, h: Head) -> int:
        """The unit's cluster index."""
        u = len(self._units)
        self._units.append((path, h, os.path.dirname(path), _shape(os.path.basename(path))))
        tried: list[int] = list(range(min(FIRST_CLUSTERS, len(self.clusters))))
        if len(self.clusters) > FIRST_CLUSTERS and h.steps and not h.inferred:
            score: dict[int, int] = {}
            for key in _keys(h, probe=True):
                for ci in self._index.get(key, ()):
                    if ci >= FIRST_CLUSTERS:
                        score[ci] = score.get(ci, 0) + 1
            tried += sorted(sorted(score, key=lambda c: (-score[c], c))[:MAX_CANDIDATES])
            free = next(
                (
                    ci
                    for ci in range(FIRST_CLUSTERS, min(len(self.clusters), FREE_SCAN))
                    if not self._has_comparable(self.clusters[ci], h)
                ),
                None,
            )
            if free is not None and free not in tried:
                tried = sorted(tried + [free])
        for ci in tried:
            if not self._differs(self.clusters[ci], u):
                self._join(ci, u)
                return ci
        self.clusters.append(_Cluster())
        self._join(len(self.clusters) - 1, u)
        return len(self.clusters) - 1

    def _join(self, ci: int, u: int) -> None:
        c = self.clusters[ci]
        c.members.append(u)
        h = self._units[u][1]
        if h.steps and not h.inferred:
            assert h.first is not None  # (it has steps)
            bisect.insort(c.firsts, (h.first, u))
            c.span = max(c.span, h.interval)
            for key in _keys(h):
                got = self._index.setdefault(key, {})
                if len(got) < KEY_CAP:
                    got[ci] = None


def cluster(units: list[tuple[str, Head]], stats: dict | None = None) -> list[list[int]]:
    """Units (representative path, head) into series (``Clusterer``); ``stats["compared"]``:
    the series comparisons made."""
    c = Clusterer()
    for p, h in units:
        c.add(p, h)
    if stats is not None:
        stats["compared"] = stats.get("compared", 0) + c.compared
    return [cl.members for cl in c.clusters]


def head_of(path: str, reader_cls, segments=()) -> Head:
    """The first HEAD_RECORDS loss values of a file (a fresh reader; never the one that reads it)."""
    from tsm_tui.core.frame import Frame
    from tsm_tui.sources.reading import read_items

    reader = reader_cls(path)
    steps: list[int] = []
    losses: list[float] = []
    try:
        for it in read_items(path, reader, segments):
            if type(it) is Frame:
                col = it.get("loss")
                if col is None:
                    continue
                for s, v in zip(it.step[:HEAD_RECORDS].tolist(), col[:HEAD_RECORDS].tolist()):
                    if math.isfinite(v):
                        steps.append(s)
                        losses.append(v)
            elif it.loss is not None and math.isfinite(it.loss):
                steps.append(it.step)
                losses.append(it.loss)
            if len(steps) >= HEAD_RECORDS:
                break
    except Exception:  # noqa: BLE001 - a file that does not read is not compared
        return Head([], [], False)
    return Head(steps[:HEAD_RECORDS], losses[:HEAD_RECORDS], getattr(reader, "inferred_steps", 0) > 0)


def _unit_key(p: str, reader) -> tuple:
    try:
        size = os.path.getsize(p)
    except OSError:
        size = 0
    return (-getattr(reader, "priority", 0), -size, p)


def split_series(spec: RunSpec, readers: dict, segments: dict, top: str, stats: dict | None = None) -> list[RunSpec]:
    """A directory run's files as one run per series (see the module docstring).
    ``readers``: path -> reader of its readable files (not read yet; a fresh reader
    reads each head); ``segments``: path -> its older rotated segments. The run
    itself when its files are one series (the usual case: one log, or the same
    series written to stdout, JSONL and TensorBoard)."""
    if tracker_run_dir(spec.root):
        return [spec]  # one process's run: its console and its history are one run
    rank_set = set(spec.ranks)
    units: list[str] = []
    for p, r in readers.items():
        if p in rank_set or getattr(r, "auxiliary", False) or rank_of(p) is not None or per_split_summary(p, r):
            continue
        units.append(p)
    if spec.ranks:
        units.append(next((p for p in spec.ranks if p in readers), spec.ranks[0]))
    if len(units) < 2:
        return [spec]
    units.sort(key=lambda p: _unit_key(p, readers.get(p)))
    heads = [head_of(p, type(readers[p]), segments.get(p, ())) for p in units]
    groups = cluster(list(zip(units, heads)), stats)
    if len(groups) == 1:
        return [spec]
    top = os.path.abspath(top)
    placed: set[str] = set()
    members: list[list[str]] = []
    for g in groups:
        fs: list[str] = []
        for i in g:
            p = units[i]
            fs += [p] + list(segments.get(p, ()))
            if spec.ranks and p in rank_set:
                fs += [q for q in spec.ranks if q != p]
        members.append(fs)
        placed.update(fs)
    # what is not a series of its own (unreadable files, generations, another rank
    # group such as stderr) stays with the first series (the most structured format)
    members[0] += [f for f in spec.files if f not in placed]
    # the directories below the run's root that hold files of one series only (by ancestry)
    under: dict[str, set[int]] = {}
    root = spec.root.rstrip(os.sep)
    for gi, fs in enumerate(members):
        for f in fs:
            d = os.path.dirname(f)
            while len(d) > len(root) and d.startswith(root + os.sep):
                under.setdefault(d, set()).add(gi)
                d = os.path.dirname(d)
    out = []
    for gi, (g, fs) in enumerate(zip(groups, members)):
        rep = units[g[0]]
        d = os.path.dirname(rep)
        own = (
            d != spec.root
            and under.get(d) == {gi}
            and all(os.path.dirname(f) == d or f.startswith(d + os.sep) for f in fs)
        )
        path = d if own else rep
        ranks = list(spec.ranks) if any(f in rank_set for f in fs) else []
        out.append(
            RunSpec(
                run_name(path, top),
                spec.root,
                sorted(fs),
                ranks=ranks,
                rank_groups=[ranks] if ranks else [],
                path=path,
                ckpt_dir=d if own else None,
                searched=own,
            )
        )
    return out


MAX_SIBLINGS = 16  # a file given alone: siblings compared with it (more: a directory of many runs' logs; ours)


def file_spec(path: str) -> RunSpec:
    """PATH is one log file: the run it is, with the same checkpoint rule as in a
    directory report (a file among other runs' files has no checkpoints of its own)."""
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if _UUID.match(stem):
        own = uuid_dir(path)
        return RunSpec(os.path.basename(path), own, [path], path=path, ckpt_dir=own, searched=os.path.isdir(own))
    root = climb(os.path.dirname(path))
    shared = _shares_dir(path)
    return RunSpec(os.path.basename(path), root, [path], path=path, ckpt_dir=None if shared else root, searched=False)


def _shares_dir(path: str) -> bool:
    """The directory of ``path`` holds logs of other runs (numbered siblings or other
    series that start with it: ``split_series``'s rule)."""
    d = os.path.dirname(path)
    try:
        names = sorted(n for n in os.listdir(d) if log_files.is_candidate(n))
    except OSError:
        return False
    paths = [os.path.join(d, n) for n in names if os.path.isfile(os.path.join(d, n))]
    groups = [g for g in log_files.group_sources(paths) if path not in g]
    if not groups:
        return False
    if len(groups) > MAX_SIBLINGS:
        return True
    me = None
    for g in groups:
        reader, _ = registry.open_reader(g[-1])
        if reader is None or getattr(reader, "auxiliary", False) or rank_of(g[-1]) is not None:
            continue
        if me is None:
            r0, _ = registry.open_reader(path)
            if r0 is None:
                return False
            me = head_of(path, type(r0))
        if relation(me, head_of(g[-1], type(reader), g[:-1]), numbered_siblings(path, g[-1])) == "different":
            return True
    return False
