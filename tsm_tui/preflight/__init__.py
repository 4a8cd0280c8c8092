"""Pre-flight: check a planned run's configuration before it starts (issue #6).

``tsm-watch --preflight PATH [--json]`` reads the run's config (a file or a
directory of them, see ``tsm_tui.sources.config.read_plan``), lets the command
line override it, and runs seven checks, each citing its published reference
and saying what to change, with numbers:

==============  ==========================================================================
lr_schedule     warm-up, decay, schedule length, peak LR against model size
batch_size      tokens per step against model size and compute
grad_norm       gradient clipping configured
precision       bf16 over fp16; fp16 needs dynamic loss scaling
logging         every step, not averaged; HF's NaN filter off; grad norm logged
checkpoints     rollback points close enough together
optimizer       Adam beta2 / epsilon for large models; warm-up >= 2/(1-beta2)
==============  ==========================================================================

Thresholds follow ``tsm_tui.core.settings.Settings`` (warm-up 1%, LR 3x / 10x, batch
band 10x); "(ours)" marks a heuristic of ours, not a published number. The
published numbers are collected in ../shared/notes/detection-anchors.md.

Exit codes: 0 no critical issue, 1 a check FAILed, 2 unreadable input
(``InputError``: one line on stderr).
"""

from tsm_tui.preflight.checks import run_checks  # noqa: F401
from tsm_tui.preflight.report import json_report, main, plan_from, text_report  # noqa: F401
