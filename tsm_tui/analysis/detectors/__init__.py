"""Incremental detectors, one check each. The order here is the report's order:
the five core checks first, then the extra ones."""

from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.analysis.state import RunState
from tsm_tui.analysis.detectors.batch_size import BatchSizeDetector
from tsm_tui.analysis.detectors.checkpoints import CheckpointDetector
from tsm_tui.analysis.detectors.crash import CrashDetector
from tsm_tui.analysis.detectors.grad_norm import GradNormDetector
from tsm_tui.analysis.detectors.loss_scale import LossScaleDetector
from tsm_tui.analysis.detectors.loss_spike import LossSpikeDetector
from tsm_tui.analysis.detectors.lr_schedule import LRScheduleDetector
from tsm_tui.analysis.detectors.nonfinite import NonFiniteDetector
from tsm_tui.analysis.detectors.output_collapse import OutputCollapseDetector
from tsm_tui.analysis.detectors.overfitting import OverfittingDetector
from tsm_tui.analysis.detectors.plateau import PlateauDetector
from tsm_tui.analysis.detectors.throughput import ThroughputDetector

DETECTORS: list[type[Detector]] = [
    LossSpikeDetector,
    GradNormDetector,
    LRScheduleDetector,
    BatchSizeDetector,
    PlateauDetector,
    NonFiniteDetector,
    LossScaleDetector,
    CheckpointDetector,
    OutputCollapseDetector,
    CrashDetector,
    ThroughputDetector,
    OverfittingDetector,
]

__all__ = ["DETECTORS", "Detector", "RunState"]
