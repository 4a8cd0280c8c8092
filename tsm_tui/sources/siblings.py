"""Sibling loggers of one job are one run.

A job with several loggers writes the same series into sibling directories of
one parent: Lightning's ``logger=[CSVLogger(save_dir, name="csv"),
TensorBoardLogger(save_dir, name="tb")]`` gives ``csv/version_0/`` and
``tb/version_0/`` (the default ``lightning_logs/version_0/`` plus a ``tb/``
logger alike), W&B beside TensorBoard gives ``wandb/run-*/`` beside ``tb/``,
MLflow beside CSV ``mlruns/<exp>/<run_id>/`` beside ``lightning_logs/version_0/``;
its ``ModelCheckpoint(dirpath=save_dir/"checkpoints")`` sits beside them. The
directory conventions of ``sources.runs`` make each logger directory a run;
``merge`` makes them one again when all of these hold:

- **one parent**: each run is a logger slot of the same directory P
  (``P/<logger>/version_N``, ``P/wandb/run-*`` or a W&B run dir moved to
  ``P/run-*``, ``P/<mlruns>/<exp>/<run_id>``, a DVCLive directory ``P/dvclive``,
  or P's own files), in different slots (``version_0`` and ``version_1`` of one
  logger are two runs, always). Beside a tracker's slot (W&B, DVCLive), a
  directory run ``P/D`` is slot ``D`` of P: the HF Trainer's ``output_dir``
  (``P/outputs/runs/<date_host>/`` TensorBoard, ``checkpoint-N/``) next to the
  W&B run that ``report_to`` made; two such directories are never compared
  with each other (a sweep's runs), only with the tracker's run;
- **same version / time span**: equal version numbers when both have one, else
  overlapping time spans (the modification times of the files in each run's
  directory, the first written at the start: ``hparams.yaml``,
  ``wandb-metadata.json``, ``meta.yaml``; the logs at the end);
- **same series**: their losses agree at the steps both logged (``runs.relation``,
  the rule that keeps stdout, JSONL and TensorBoard of one run together; a run
  with no comparable loss is never merged).

The merged run is rooted at P when P holds that job only (its ``checkpoints/``
are the job's, its files are read together and the richest source is used);
when P holds several jobs (the script run twice into one save_dir), each merged
run keeps its members' directories and their checkpoints only (a shared
``P/checkpoints/`` is nobody's). Cost: runs are bucketed by parent and version,
and each run is compared with at most ``MAX_PEERS`` others: linear in the runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from tsm_tui.sources import registry
from tsm_tui.sources.runs import (
    Head,
    RunSpec,
    head_of,
    rank_groups,
    relation,
    run_name,
)

_VERSION = re.compile(r"^version_(\d+)$")
MAX_PEERS = 8  # other runs of one parent a run is compared with (ours: a job has a few loggers)
SPAN_SLACK = 2.0  # s: file times of one job's loggers (hparams written a moment before the first log; ours)
SPAN_FILES = 64  # files stat-ed per run directory for its time span (bounded)
HEAD_TRIES = 3  # files of a run tried for a loss series to compare (the most structured first)


@dataclass
class Slot:
    parent: str  # P
    slot: str  # the logger directory under P ("." for P's own files)
    version: int | None
    tracker: bool = False  # a tracker's run directory (W&B, DVCLive)
    beside: bool = False  # a directory run that is a slot only because a tracker's run is beside it


def slot_of(spec: RunSpec, top: str) -> Slot | None:
    """Where a run sits among its job's loggers, or None (not a logger directory): a
    ``version_N`` of a logger, a tracker's run directory (its reader's ``logger_slot``:
    W&B, DVCLive, MLflow), else its own files (slot "." of its directory)."""
    root = os.path.abspath(spec.root)
    if not os.path.isdir(spec.path) or os.path.abspath(spec.path) != root:
        return None  # a file that is a run among others' (split_series): not a logger directory
    top = os.path.abspath(top)
    name, up = os.path.basename(root), os.path.dirname(root)
    m = _VERSION.match(name)
    if m:
        p = os.path.dirname(up)
        return Slot(p, os.path.basename(up), int(m.group(1))) if _within(p, top) else None
    for reader in registry.READERS:  # a tracker's run directory: its reader says (``logger_slot``)
        slot = reader.logger_slot(root)
        if slot is not None:
            p, logger, tracker = slot
            return Slot(p, logger, None, tracker=tracker) if _within(p, top) else None
    return Slot(root, ".", None)


def logger_kind(spec: RunSpec) -> str:
    """What wrote a run directory's logs, from their names: "tensorboard" (event files),
    else the extensions of its log files ("csv", "jsonl", ...), sorted."""
    kinds = set()
    for f in spec.files:
        name = os.path.basename(f).lower()
        if name.startswith("events.out.tfevents."):
            kinds.add("tensorboard")
        elif "." in name:
            kinds.add(name.rsplit(".", 1)[1])
    return "+".join(sorted(kinds))


def _two_loggers_one_name(runs: list[RunSpec], slots: list[Slot | None]) -> None:
    """Two loggers of one job under one name (Lightning's ``logger=[CSVLogger(d),
    TensorBoardLogger(d)]``: both ``lightning_logs``, so the CSV is ``version_0`` and the
    TensorBoard ``version_1``): in a logger slot whose versions were written by different
    kinds of logger, each version is a slot of its own kind, paired by time span rather
    than by version number (two versions of one kind stay two runs, always)."""
    by_slot: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(slots):
        if s is not None and s.version is not None:
            by_slot.setdefault((s.parent, s.slot), []).append(i)
    for (parent, slot), idx in by_slot.items():
        kinds = {i: logger_kind(runs[i]) for i in idx}
        if len(idx) < 2 or len(set(kinds.values())) < 2:
            continue
        for i in idx:
            slots[i] = Slot(parent, f"{slot}[{kinds[i]}]", None)


def slots_of(runs: list[RunSpec], top: str) -> list[Slot | None]:
    """Each run's slot (``slot_of``); a directory run ``P/D`` beside a tracker's run
    in P is slot ``D`` of P (``beside``); versions of one logger name written by
    different loggers are slots of their own (``_two_loggers_one_name``)."""
    slots = [slot_of(r, top) for r in runs]
    _two_loggers_one_name(runs, slots)
    tracked = {s.parent for s in slots if s is not None and s.tracker}
    if not tracked:
        return slots
    top = os.path.abspath(top)
    for i, s in enumerate(slots):
        if s is None or s.slot != "." or s.parent == top:
            continue
        up = os.path.dirname(s.parent)
        if up in tracked:
            slots[i] = Slot(up, os.path.basename(s.parent), None, beside=True)
    return slots


def _within(p: str, top: str) -> bool:
    return p == top or p.startswith(top.rstrip(os.sep) + os.sep)


def span(spec: RunSpec) -> tuple[float, float] | None:
    """(first, last) modification time of the files in the run's directory and its logs."""
    times = []
    try:
        with os.scandir(spec.root) as it:
            for i, e in enumerate(it):
                if i >= SPAN_FILES:
                    break
                if e.is_file(follow_symlinks=False):
                    times.append(e.stat(follow_symlinks=False).st_mtime)
    except OSError:
        pass
    for f in spec.files[:SPAN_FILES]:
        try:
            times.append(os.stat(f).st_mtime)
        except OSError:
            continue
    return (min(times), max(times)) if times else None


def _overlap(a, b) -> bool:
    if a is None or b is None:
        return False
    return a[0] <= b[1] + SPAN_SLACK and b[0] <= a[1] + SPAN_SLACK


class Merger:
    """One pass over a path's runs; ``compared`` counts the series comparisons made."""

    def __init__(self, runs: list[RunSpec], top: str, head) -> None:
        self.runs = runs
        self.top = os.path.abspath(top)
        self.head = head  # spec -> Head | None
        self.compared = 0
        self._heads: dict[int, Head | None] = {}

    def _head(self, i: int) -> Head | None:
        if i not in self._heads:
            self._heads[i] = self.head(self.runs[i])
        return self._heads[i]

    def _same(self, i: int, j: int) -> bool:
        a, b = self._head(i), self._head(j)
        if a is None or b is None or not a.steps or not b.steps:
            return False
        self.compared += 1
        return relation(a, b, False) == "same"

    def groups(self) -> list[list[int]]:
        """Indices of the runs to merge, each group of two or more (in path order)."""
        slots = slots_of(self.runs, self.top)
        by_parent: dict[str, list[int]] = {}
        for i, s in enumerate(slots):
            if s is not None:
                by_parent.setdefault(s.parent, []).append(i)
        known = {i: s for i, s in enumerate(slots) if s is not None}  # (the runs in by_parent)
        parent_of = list(range(len(self.runs)))
        members: dict[int, set[str]] = {}

        def find(i: int) -> int:
            while parent_of[i] != i:
                parent_of[i] = parent_of[parent_of[i]]
                i = parent_of[i]
            return i

        for idx in by_parent.values():
            if len({known[i].slot for i in idx}) < 2:
                continue  # one logger's versions, a sweep's runs: never one job
            for i, j in self._pairs(idx, known):
                ri, rj = find(i), find(j)
                if ri == rj:
                    continue
                if known[i].beside and known[j].beside:
                    continue  # two directories beside a tracker's run: a sweep's, never one job
                si = members.get(ri, {known[i].slot})
                sj = members.get(rj, {known[j].slot})
                if si & sj:
                    continue  # one run per logger in a job
                if not self._same(i, j):
                    continue
                parent_of[rj] = ri
                members[ri] = si | sj
        out: dict[int, list[int]] = {}
        for i in range(len(self.runs)):
            out.setdefault(find(i), []).append(i)
        return [sorted(g) for g in out.values() if len(g) > 1]

    def _pairs(self, idx: list[int], slots: Mapping[int, Slot]):
        """Candidate pairs of one parent's runs: other slots, the same version, or
        overlapping time spans (the nearest starts first), at most MAX_PEERS per run."""
        versioned: dict[int, list[int]] = {}
        loose: list[int] = []
        for i in idx:
            v = slots[i].version
            (versioned.setdefault(v, []) if v is not None else loose).append(i)
        for same in versioned.values():
            for a in range(len(same)):
                for b in same[a + 1 : a + 1 + MAX_PEERS]:
                    if slots[same[a]].slot != slots[b].slot:
                        yield same[a], b
        if not loose:
            return
        spans = {i: span(self.runs[i]) for i in idx}
        timed_spans = {i: s for i, s in spans.items() if s is not None}
        timed = sorted(timed_spans, key=lambda i: timed_spans[i][0])
        pos = {i: k for k, i in enumerate(timed)}
        for i in loose:
            k = pos.get(i)
            if k is None:
                continue
            near = timed[max(0, k - MAX_PEERS // 2) : k + MAX_PEERS // 2 + 1]
            for j in near:
                if j != i and slots[j].slot != slots[i].slot and _overlap(spans[i], spans[j]):
                    yield i, j


def merge(runs: list[RunSpec], top: str, readers: dict, segments: dict | None = None) -> tuple[list[RunSpec], int]:
    """The runs with sibling loggers of one job merged (see the module docstring);
    ``readers``: path -> reader (sniffed, not read) of the runs' files. Returns the
    runs in path order and the number of series comparisons made."""
    segments = segments or {}

    def head(spec: RunSpec) -> Head | None:
        units = [p for p in spec.files if p in readers and not getattr(readers[p], "auxiliary", False)]
        if not units:
            return None
        units.sort(key=lambda p: (-getattr(readers[p], "priority", 0), -_size(p), p))
        for p in units[:HEAD_TRIES]:  # the most structured file that has a loss series
            h = head_of(p, type(readers[p]), segments.get(p, ()))
            if h.steps and not h.inferred:
                return h
        return None

    m = Merger(runs, top, head)
    groups = m.groups()
    if not groups:
        return runs, m.compared
    top = os.path.abspath(top)
    slots = slots_of(runs, top)
    merged_into: dict[int, int] = {}
    for g in groups:
        for i in g:
            merged_into[i] = g[0]
    # a parent that holds one job only: the merged run is rooted there
    jobs_at: dict[str, int] = {}
    for i, s in enumerate(slots):
        if s is not None and (i not in merged_into or merged_into[i] == i):
            jobs_at[s.parent] = jobs_at.get(s.parent, 0) + 1
    out: list[RunSpec] = []
    for i, r in enumerate(runs):
        if i not in merged_into:
            out.append(r)
        elif merged_into[i] == i:
            g = next(g for g in groups if g[0] == i)
            si = slots[i]
            assert si is not None  # (a merged run has its slot)
            out.append(_merged([runs[k] for k in g], si.parent, jobs_at[si.parent] == 1, top))
    return out, m.compared


def _size(p: str) -> int:
    try:
        return os.path.getsize(p)
    except OSError:
        return 0


def _merged(parts: list[RunSpec], parent: str, alone: bool, top: str) -> RunSpec:
    files = sorted({f for p in parts for f in p.files})
    members = [p.root for p in parts]
    if alone:
        root = parent
    else:
        root = members[0]  # a parent of several jobs: named after its first logger directory
    spec = RunSpec(
        run_name(root, top),
        root,
        files,
        rank_groups=rank_groups(files),
        path=root,
        ckpt_dir=parent if alone else None,
        searched=True,
    )
    spec.members = [m for m in members if m != root]
    if not alone:
        spec.ckpt_dir = root
    return spec
