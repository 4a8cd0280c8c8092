"""DVCLive: one run's directory (``Live(dir="dvclive")``), its metrics one file each.

``Live.log_metric(name, val)`` appends a row to ``<dir>/plots/metrics/<name>.tsv``
(``/`` in a name makes subdirectories: ``train/loss.tsv``, ``val/loss.tsv``;
``monitor_system`` writes ``system/...``), with a header ``[timestamp] step <leaf
name>`` and one row per logged step. ``<dir>`` also holds the summary
``metrics.json``, the logged ``params.yaml`` and, when asked for, ``report.html``
/ ``report.md`` (``dvc.yaml`` is written there or at the project root). DVCLive < 1.0
wrote the same files to ``<dir>/scalars/`` and its summary to ``<dir>.json`` beside the
directory. The ``timestamp`` column is Unix milliseconds.

A DVCLive directory is one run and its metric files are that run's columns:
``plots/metrics/`` is one source (``sources.metric_files``: ``log_files.candidate_files``
offers the directory, not its files), each file's values keyed by its name
(``train/total_loss``), the rows of one step merged into one record. A file with
no value column (a metric named ``step``: its values overwrite the step column,
so the file holds one column) is counted, not read. HF's end-of-training summary
(``train_runtime``, the run-average ``train_loss``: DVCLive's HF callback logs them as
``train/runtime``, ``train/loss`` one step past the last log) is not a step: the
points of its step are counted, not read (``sources.hf_stdout``'s rule).
"""

from __future__ import annotations

import os

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import SnapshotReader
from tsm_tui.sources.fields import to_float
from tsm_tui.sources.metric_files import Points, each_metric, step_records

#: files DVCLive writes into its directory besides ``plots/`` (any one of them names it)
DVCLIVE_FILES = ("metrics.json", "params.yaml", "dvc.yaml", "report.html", "report.md")
#: keys that make a step HF's end-of-training summary (``train_runtime``, ``total_flos``)
#: (and under their flat names: transformers' DVCLiveCallback in 2024 logged ``train_runtime``, ``train_loss`` at
#: ``max_steps``: fresh59's run-average 0.564 after 0.22 read as a spike still open at the end)
SUMMARY_KEYS = frozenset({"train/runtime", "train/train_runtime", "total_flos", "train/total_flos", "train_runtime"})
DEFAULT_DIR = "dvclive"  # Live()'s default ``dir``: its name says so before the first summary


#: DVCLive < 1.0 wrote its summary and report beside the directory: ``<dir>.json``, ``<dir>.html``
OLD_FILES = (".json", ".html")


def metrics_dir(d: str) -> str | None:
    """The metrics directory of the DVCLive directory ``d`` (``is_dvclive_dir``), or None:
    ``plots/metrics/`` (DVCLive >= 1.0), ``scalars/`` (DVCLive < 1.0: the same files,
    ``timestamp step <name>`` rows, with the summary ``<dir>.json`` beside the directory)."""
    named = os.path.basename(d) == DEFAULT_DIR
    new = os.path.join(d, "plots", "metrics")
    if os.path.isdir(new) and (named or any(os.path.isfile(os.path.join(d, f)) for f in DVCLIVE_FILES)):
        return new
    old = os.path.join(d, "scalars")
    if os.path.isdir(old) and (named or any(os.path.isfile(d.rstrip(os.sep) + x) for x in OLD_FILES)):
        return old
    return None


def is_dvclive_dir(d: str) -> bool:
    """``d`` is a DVCLive directory: its metrics directory in it (``metrics_dir``), and
    DVCLive's own files beside it (or DVCLive's default name, before the first
    ``next_step`` writes them)."""
    return metrics_dir(d) is not None


class DvcliveReader(SnapshotReader):
    name = "dvclive"
    priority = 22

    @classmethod
    def run_dir(cls, d: str) -> bool:
        return is_dvclive_dir(d)

    @classmethod
    def logger_slot(cls, d: str) -> tuple[str, str, bool] | None:
        return (os.path.dirname(d), os.path.basename(d), True) if is_dvclive_dir(d) else None  # P/dvclive

    @classmethod
    def source_dir(cls, dirpath: str, name: str, filenames: list[str]) -> bool:
        if name == "metrics":  # plots/metrics/ (DVCLive >= 1.0)
            return os.path.basename(dirpath) == "plots" and is_dvclive_dir(os.path.dirname(dirpath))
        return name == "scalars" and metrics_dir(dirpath) == os.path.join(dirpath, name)  # (DVCLive < 1.0)

    @classmethod
    def sniff_path(cls, path: str) -> float:
        path = path.rstrip(os.sep)
        up = os.path.dirname(path)
        base = os.path.basename(path)
        if base == "metrics" and os.path.basename(up) == "plots":
            up = os.path.dirname(up)
        elif base != "scalars":
            return 0.0
        return 0.95 if os.path.isdir(path) and metrics_dir(up) == path else 0.0

    def read_path(self, path: str) -> list[StepRecord]:
        points: Points = {}
        for key, lines in each_metric(self, path, ".tsv"):
            if not lines:
                continue
            head = lines[0].split("\t")
            si = head.index("step") if "step" in head else -1
            ti = head.index("timestamp") if "timestamp" in head else -1
            vi = len(head) - 1
            if si < 0 or head[vi] in ("step", "timestamp"):
                self.skip("DVCLive metric file with no step or value column")
                continue
            for ln in lines[1:]:
                cols = ln.split("\t")
                if len(cols) != len(head):
                    if ln.strip():
                        self.skip("malformed metric line")
                    continue
                step, v = int64(cols[si]), to_float(cols[vi])
                if step is None or v is None:
                    self.skip("malformed metric line")
                    continue
                items = points.setdefault(step, [])
                items.append((key, v))
                t = to_float(cols[ti]) if ti >= 0 else None
                if t is not None:  # (Unix milliseconds: fields.seconds)
                    items.append(("timestamp", t))
        for step in [s for s, items in points.items() if any(k in SUMMARY_KEYS for k, _ in items)]:
            for _ in points.pop(step):
                self.skip("end-of-training summary (HF train_runtime): not a step")
        return step_records(self, points)
