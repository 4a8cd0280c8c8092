"""Make the DVCLive fixtures under tests/data/dvclive/ with the real library (CPU, seconds).

    pip install dvclive
    python tests/data/dvclive/make_dvclive_runs.py [OUT_DIR]

Each run is written by ``dvclive.Live`` itself (``save_dvc_exp=False``: no DVC
repository needed); its numbers also go to a JSON Lines twin ``<name>.jsonl`` beside
it, the reference the tests compare with.

- ``spike/``: ``Live(dir="dvclive")``, 120 steps: ``train/loss`` (with
  ``timestamp=True``: DVCLive's optional timestamp column) that falls and spikes 6x
  at step 70, ``train/lr`` with a 10-step warm-up then cosine, ``val/loss`` every 20
  steps, ``epoch`` every step, a metric named ``train/step`` (as Lightning's
  ``DVCLiveLogger`` logs one: its values overwrite the step column, the file has one
  column), and ``log_params``; ``next_step()`` after each step
  writes ``metrics.json``. One run, its metrics one file each.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

SPIKE = r"""
import json, math
from dvclive import Live
twin = open("../spike.jsonl", "w")
with Live(dir="dvclive", save_dvc_exp=False, dvcyaml=None) as live:
    live.log_params({"lr": 3e-3, "max_steps": 120, "warmup_steps": 10, "batch_size": 16})
    for step in range(120):
        loss = 1.2 + 3.0 * math.exp(-step / 30) + 0.01 * math.sin(step)
        if step == 70:
            loss *= 6.0
        lr = 3e-3 * min(1.0, (step + 1) / 10) * (0.5 + 0.5 * math.cos(math.pi * step / 120))
        live.log_metric("train/loss", loss, timestamp=True)
        live.log_metric("train/lr", lr)
        live.log_metric("epoch", step // 40)
        live.log_metric("train/step", float(step + 1))  # a metric named "step" (Lightning logs one)
        row = {"step": step, "train/loss": loss, "train/lr": lr, "epoch": step // 40}
        if step % 20 == 19:
            val = 1.3 + 3.0 * math.exp(-step / 30)
            live.log_metric("val/loss", val)
            row["val/loss"] = val
        twin.write(json.dumps(row) + "\n")
        live.next_step()
"""


def make(out: str) -> None:
    out = os.path.abspath(out)
    for name, script in (("spike", SPIKE),):
        d = os.path.join(out, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        env = dict(os.environ, DVCLIVE_TEST="false", DO_NOT_TRACK="1", DVC_NO_ANALYTICS="1")
        p = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)], cwd=d, env=env, capture_output=True, text=True, timeout=300
        )
        if p.returncode != 0:
            raise SystemExit(f"{name} failed:\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}")
        print(f"{name}: done", flush=True)


if __name__ == "__main__":
    make(sys.argv[1] if len(sys.argv) > 1 else HERE)
