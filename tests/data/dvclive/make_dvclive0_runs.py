"""Make the DVCLive < 1.0 fixtures under tests/data/dvclive/v0/ with the real library (CPU, seconds).

    python -m venv /tmp/dvc0 && /tmp/dvc0/bin/pip install 'dvclive==0.12.1'
    /tmp/dvc0/bin/python tests/data/dvclive/make_dvclive0_runs.py [OUT_DIR]

DVCLive before 1.0 wrote ``<path>/scalars/<name>.tsv`` (``timestamp step <name>`` rows, the
timestamp in Unix milliseconds) and its summary ``<path>.json`` beside the directory, no
``plots/metrics/`` (fresh5's dvclive0 run, an HF callback, had this layout).

- ``v0/default/dvclive``: ``Live(path="dvclive")`` (the default name), 60 steps: ``loss`` that
  falls and spikes 6x at step 40, ``learning_rate`` with a 5-step warm-up, ``eval/loss``
  every 10 steps.
- ``v0/named/live``: the same under ``Live(path="live")``: a DVCLive directory by its
  ``live.json`` summary beside it.
"""

from __future__ import annotations

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(path: str) -> None:
    from dvclive import Live

    live = Live(path=path, report=None)
    for step in range(60):
        loss = 1.2 + 3.0 * math.exp(-step / 20)
        if step == 40:
            loss *= 6.0
        live.log("loss", loss)
        live.log("learning_rate", 1e-3 * min(1.0, (step + 1) / 5))
        if step % 10 == 9:
            live.log("eval/loss", 1.5 + 2.0 * math.exp(-step / 25))
        live.next_step()


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "v0")
    for sub, name in (("default", "dvclive"), ("named", "live")):
        d = os.path.join(out, sub)
        os.makedirs(d, exist_ok=True)
        cwd = os.getcwd()
        os.chdir(d)
        try:
            write(name)
        finally:
            os.chdir(cwd)


if __name__ == "__main__":
    main()
