"""Launch boundaries in a text log: the lines a process prints when it starts (or dies).

Slurm appends every launch of a job to one ``.out`` (``--open-mode=append``, a
re-submitted script, a smoke test before the real run); each launch prints what
a starting process prints: an argument dump, a framework's start banner, and a
dying one its traceback. A line of ``LAUNCH`` that is not a record sets the
reader's pending mark; the next record it reads carries ``launch=True`` (the
first record of a new launch). What a launch is (a resume, a continuation, a new
run) is decided from the steps and losses (``analysis.launches``); the mark only
says that a new process wrote from here, so its records are never taken for a
second writer's copies of the old process's lines.

The phrases are the ones these programs print at start (ours, from their logs):
argparse's ``Namespace(``, Python's ``Traceback (most recent call last):``, HF
Trainer's ``***** Running training *****``, Megatron's ``---- arguments ----`` and
``> initializing torch distributed``, Lightning's ``GPU available:``, W&B's
``wandb: Tracking run with wandb``, nanoGPT's ``Initializing a new model from
scratch`` / ``Resuming training from``, a script's ``Resuming from <checkpoint>`` (a real
corpus log: a resume after a native crash that printed no traceback), torchtitan's ``Starting job:``, keithito Tacotron's (and its forks') ``Starting new training run``, torchrun's
``Setting OMP_NUM_THREADS environment variable``, DeepSpeed's launcher
``[launch.py:...] ... WORLD INFO DICT``, a script's own ``TRAIN started at <date>`` / ``Start training`` /
``Starting training`` (fresh82's WGAN grid printed one above each of its 27 launches), RWKV-LM's
``NEW RUN <timestamp>`` at the head of each launch's lines in its train_log.txt (fresh93: 14 of them).
"""

from __future__ import annotations

import re

#: a literal of each phrase: a line holding none of them is no banner (a substring test per
#: literal is ~20x cheaper than the regex on the noise lines that never match)
KEYS = (
    "Namespace(",
    "Traceback (",
    "Running training",
    " arguments ",
    "initializing torch",
    "GPU available",
    "Tracking run",
    "a new model from",
    "Resuming ",
    "Starting job",
    "new training run",
    "OMP_NUM_THREADS",
    "WORLD INFO",
    "started at",
    "tart training",
    "tarting training",
    "NEW RUN ",
)

LAUNCH = re.compile(
    r"Namespace\(|Traceback \(most recent call last\)|\*{5} Running training \*{5}|-{6,} arguments -{6,}"
    r"|> initializing torch distributed|GPU available: (?:True|False)|wandb: Tracking run with wandb"
    r"|Initializing a new model from scratch|Resuming training from|^Resuming from \S|Starting job: |Starting new training run"
    r"|Setting OMP_NUM_THREADS environment variable|WORLD INFO DICT|^NEW RUN \d{4}-\d\d-\d\d-\d\d-\d\d-\d\d"
    r"|(?i:\b(?:train(?:ing)? started at|start(?:ing)? training\b(?![\s:]*+(?:epoch|step|iter|batch|round)))\b)"
)

_KEYS_B = tuple(k.encode() for k in KEYS)


def may_hold_banner(data: bytes) -> bool:
    """A chunk of lines that holds no literal of ``KEYS`` holds no banner (one memory search
    per literal over the chunk, instead of a test per line)."""
    for k in _KEYS_B:
        if k in data:
            return True
    return False


def is_banner(line: str) -> bool:
    """A launch banner (``LAUNCH``)."""
    for k in KEYS:
        if k in line:
            return LAUNCH.search(line) is not None
    return False
