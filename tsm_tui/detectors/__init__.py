"""Incremental detectors, one check each. The order here is the report's order:
the five core checks first, then the extra ones."""

from tsm_tui.detectors.base import Detector, RunState
from tsm_tui.detectors.batch_size import BatchSizeDetector
from tsm_tui.detectors.checkpoints import CheckpointDetector
from tsm_tui.detectors.grad_norm import GradNormDetector
from tsm_tui.detectors.loss_scale import LossScaleDetector
from tsm_tui.detectors.loss_spike import LossSpikeDetector
from tsm_tui.detectors.lr_schedule import LRScheduleDetector
from tsm_tui.detectors.nonfinite import NonFiniteDetector
from tsm_tui.detectors.output_collapse import OutputCollapseDetector
from tsm_tui.detectors.plateau import PlateauDetector

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
]

__all__ = ["DETECTORS", "Detector", "RunState"]
