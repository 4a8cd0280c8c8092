"""Make the Aim repository fixtures under tests/data/aim/ with the real SDK (aim 3.x, CPU).

    python -m venv /tmp/aimvenv && /tmp/aimvenv/bin/pip install aim==3.29.1
    /tmp/aimvenv/bin/python tests/data/aim/make_aim_repo.py [OUT_DIR]
    python3.9 -m venv /tmp/aimvenv_old && /tmp/aimvenv_old/bin/pip install aim==3.10.3
    /tmp/aimvenv_old/bin/python tests/data/aim/make_aim_repo.py

OUT_DIR defaults to ``tests/data/aim/sdk-<aim version>/``. Two SDK generations: 3.29.1
writes version 2 sequences (``seqs/v2/chunks/...``, a point keyed by its step's hash, the
step in its own array), 3.10.3 (the last before 3.11; no wheel for Python > 3.9) version 1
(``seqs/chunks/...``, a point keyed by its step). Every byte under its ``.aim/``
is written by ``aim`` itself (RocksDB through aimrocks); only RocksDB's text info logs
(``LOG``, ``LOG.old.*``) and option dumps (``OPTIONS-*``) are deleted. ``aim`` is not a dependency of tsm-tui: the tests
read the checked-in repository and compare it with ``logged.json``, the values each
script passed to ``run.track`` (written by the scripts themselves, NaN as NaN).

- ``spiky`` (experiment ``fixtures``): 40 steps, ``loss`` and ``lr`` in the context
  ``{"subset": "train"}`` with ``epoch=step // 10``, ``loss`` in ``{"subset": "val"}``
  every 10 steps; warm-up then decay; the training loss is 8x at step 25 (a spike) and
  NaN at step 33; the run is closed (its data flushed into an SST file).
- ``killed`` (experiment ``fixtures``): a first process tracks ``loss`` (empty context)
  for steps 0-19 and closes; a second resumes the run (``Run(run_hash=...)``), tracks
  step 19 again with another value (the newest wins), then steps 20-29, and dies with
  ``os._exit`` without closing: its points are only in the write-ahead log (``*.log``).

Small on purpose (the files are checked in, < 300 KB): Aim writes range tombstones
before each value (``ContainerTreeView.set``), about 1.4 KB of SST per tracked value.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

SPIKY = r"""
import json, math
from aim import Run
run = Run(repo=REPO, experiment="fixtures", system_tracking_interval=None, log_system_params=False)
run.name = "spiky"
run["hparams"] = {"lr": 3e-4, "batch_size": 32}
logged = {}
def track(v, name, step, ctx, epoch=None):
    run.track(v, name=name, step=step, epoch=epoch, context=ctx)
    logged.setdefault(json.dumps([name, ctx], sort_keys=True), []).append([step, v, epoch])
for s in range(40):
    loss = 2.0 * math.exp(-s / 20) + 0.2
    if s == 25:
        loss *= 8
    if s == 33:
        loss = float("nan")
    lr = 3e-4 * min(1.0, (s + 1) / 4) * (1 - s / 80)
    track(loss, "loss", s, {"subset": "train"}, s // 10)
    track(lr, "lr", s, {"subset": "train"}, s // 10)
    if s % 10 == 0:
        track(loss * 1.1 if math.isfinite(loss) else 1.0, "loss", s, {"subset": "val"})
run.close()
json.dump({"hash": run.hash, "metrics": logged}, open(OUT, "w"))
"""

KILLED_1 = r"""
import json
from aim import Run
run = Run(repo=REPO, experiment="fixtures", system_tracking_interval=None, log_system_params=False)
run.name = "killed"
logged = {}
for s in range(20):
    run.track(3.0 - s * 0.02, name="loss", step=s)
    logged.setdefault(json.dumps(["loss", {}]), {})[s] = 3.0 - s * 0.02
run.close()
json.dump({"hash": run.hash, "metrics": logged}, open(OUT, "w"))
"""

KILLED_2 = r"""
import json, os
from aim import Run
first = json.load(open(OUT))
logged = first["metrics"]
run = Run(run_hash=first["hash"], repo=REPO, system_tracking_interval=None, log_system_params=False)
for s in range(19, 30):
    run.track(2.5 - s * 0.01, name="loss", step=s)
    logged[json.dumps(["loss", {}])][str(s)] = 2.5 - s * 0.01
json.dump({"hash": first["hash"], "metrics": {k: [[int(s), v, None] for s, v in sorted(d.items(), key=lambda x: int(x[0]))] for k, d in logged.items()}}, open(OUT, "w"))
os._exit(0)  # no close: the second process's points stay in the write-ahead log
"""


def _run(script: str, repo: str, out: str) -> None:
    code = f"REPO = {repo!r}\nOUT = {out!r}\n" + textwrap.dedent(script)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=repo)


def main() -> None:
    from aim.__version__ import __version__ as version

    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, f"sdk-{version}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    tmp = os.path.join(out, "part.json")
    logged = {}
    _run(SPIKY, out, tmp)
    logged["spiky"] = json.load(open(tmp))
    _run(KILLED_1, out, tmp)
    _run(KILLED_2, out, tmp)
    logged["killed"] = json.load(open(tmp))
    os.remove(tmp)
    for dirpath, _, files in os.walk(os.path.join(out, ".aim")):
        for f in files:
            if f == "LOG" or f.startswith(("LOG.old", "OPTIONS-")):
                os.remove(os.path.join(dirpath, f))
    with open(os.path.join(out, "logged.json"), "w") as f:
        json.dump(logged, f, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
