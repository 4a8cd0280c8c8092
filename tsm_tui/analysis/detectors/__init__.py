"""Incremental detectors, one check each, and the registry every view reads.

A check is one module here: a ``Detector`` subclass with its id, names (``title``,
``label``, ``short``, ``column``), ``metric`` and ``order`` (detectors/base.py). The
registry finds it by itself (every module of this package is looked at), so a new check
is its module, its thresholds in ``core/settings.py`` and its test, nothing else.

``DETECTORS``: the checks every Monitor runs, in the report's order (``order``: the
five core checks first, then the extra ones). ``RUN_DETECTORS``: checks of a run's
several files together (``ranks``: fed every per-rank log by the run, not by one
source's Monitor; reported only when they apply). ``CHECKS``: id -> class, for both.
"""

from __future__ import annotations

import importlib
import pkgutil

from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.analysis.state import RunState


def _discover() -> list[type[Detector]]:
    """Every Detector subclass with an id defined in a module of this package, by ``order``."""
    found: list[type[Detector]] = []
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{__name__}.{m.name}")
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, Detector) and obj.__module__ == mod.__name__ and obj.id:
                found.append(obj)
    return sorted(found, key=lambda d: (d.order, d.id))


_ALL = _discover()
DETECTORS: list[type[Detector]] = [d for d in _ALL if not d.per_run]
RUN_DETECTORS: list[type[Detector]] = [d for d in _ALL if d.per_run]
CHECKS: dict[str, type[Detector]] = {d.id: d for d in _ALL}


def label(check_id: str) -> str:
    """A check's name in the TUI's check panel (its id when the registry does not know it)."""
    d = CHECKS.get(check_id)
    return d.label if d is not None else check_id


def short(check_id: str) -> str:
    """A check's name in at most 5 characters (the runs table, the runs report)."""
    d = CHECKS.get(check_id)
    return d.short if d is not None else check_id[:5]


__all__ = ["CHECKS", "DETECTORS", "RUN_DETECTORS", "Detector", "RunState", "label", "short"]
