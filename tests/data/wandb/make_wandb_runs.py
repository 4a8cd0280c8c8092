"""Make the W&B run-file fixtures under tests/data/wandb/ with the real SDK (offline, CPU).

    pip install wandb torch==2.13.0 transformers accelerate
    python tests/data/wandb/make_wandb_runs.py [OUT_DIR] [--only NAME ...]

OUT_DIR defaults to ``tests/data/wandb/sdk-<wandb version>/``: the fixtures come from two
SDK generations (0.16, whose Python writer keeps ``key`` and logs a dict as one JSON
value, and the Go core of 0.18+, which writes ``nested_key`` and typed records).

Every run is written by ``wandb`` itself in offline mode (``WANDB_MODE=offline``: no
network, no account): the run files are the SDK's own bytes. Only what a run dir holds
besides them is pruned (``requirements.txt``, the SDK's debug logs, ``tmp/``), and
``files/output.log`` is deleted where a test needs a run whose console exists only
inside the ``.wandb`` file.

- ``plain_nan/``: a plain script, ``wandb.log({"train/loss", "train/grad_norm", "lr"})``
  every step for 120 steps, warm-up then cosine; the loss is NaN at step 80 and
  after (the run diverged); it prints nothing; ``output.log`` deleted.
- ``hf_gradspike/``: transformers ``Trainer`` with a 2-layer GPT-2 (byte vocabulary),
  ``report_to="wandb"``, ``logging_steps=1``, ``max_steps=60``, 6 warm-up steps; at
  step 40 a callback scales the input embeddings by 40 for one step (a grad-norm
  spike, the weights restored after the step); HF's own define_metric
  (``train/global_step``); ``output.log`` deleted (the console is in the run file).
- ``console_only/``: a script that logs nothing with ``wandb.log`` and prints
  ``step N | loss X | lr Y | grad_norm Z`` lines (a loss spike at step 50);
  ``output.log`` deleted: the metrics exist only in the run file's console records.
- ``resumed/``: one run (``id`` fixed) written by two processes: steps 0-59, then a
  second process resumes it (``resume="allow"``) and logs steps 60-119 with ``step=``;
  offline mode gives each process its own ``offline-run-*`` directory.

- ``split_placeholders/``: one dict with both splits on every row, the split a row did not
  measure logged as a literal 0.0 (fresh5's SSD DDP script: ``val_loss: 0.0`` on the 10
  training rows of an epoch, ``train_loss: 0.0`` on its validation row), 5 epochs; the
  twin holds each row's real value only; ``output.log`` deleted.
- ``console_per_batch/``: 300 epochs of 3 iterations; each epoch prints a tqdm-style
  ``Epoch: [k/300] Loss: X`` line and logs the same mean with
  ``wandb.log({"train/loss", "train/accuracy", "iteration"})``:
  the console counts epochs, the history iterations, so the run file and its console
  (``files/output.log``, kept) look like two different series of one run (wandb0162
  of the corpus: a W&B run dir is one run, whatever its console says).

Run from a venv with the packages above; ``tests/test_wandb_run.py`` regenerates the
fixtures into a temporary directory and compares what the reader makes of them when
``wandb`` is importable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

PLAIN_NAN = r"""
import json, math, wandb
twin = open("../plain_nan.jsonl", "w")
run = wandb.init(project="tsm-fixtures", name="plain_nan", mode="offline",
                 config={"learning_rate": 3e-4, "max_steps": 120, "warmup_steps": 10, "batch_size": 32})
for step in range(120):
    lr = 3e-4 * min(1.0, (step + 1) / 10) * (0.55 + 0.45 * math.cos(math.pi * step / 120))
    loss = 2.0 + 3.0 * math.exp(-step / 25) + 0.01 * math.sin(step)
    if step >= 80:
        loss = float("nan")
    row = {"train/loss": loss, "train/grad_norm": 0.8 + 0.05 * math.cos(step), "lr": lr}
    run.log(row)
    twin.write(json.dumps({"step": step, **row}) + "\n")
run.finish()
"""

CONSOLE_ONLY = r"""
import json, math, wandb
twin = open("../console_only.jsonl", "w")
run = wandb.init(project="tsm-fixtures", name="console_only", mode="offline",
                 config={"lr": 1e-3, "max_steps": 100})
for step in range(1, 101):
    loss = 1.5 + 2.5 * math.exp(-step / 20) + 0.005 * math.cos(step)
    if step == 50:
        loss *= 6.0
    lr = float(f"{1e-3 * min(1, step / 5):.2e}")
    print(f"step {step} | loss {loss:.4f} | lr {lr:.2e}", flush=True)
    twin.write(json.dumps({"step": step, "loss": round(loss, 4), "lr": lr}) + "\n")
run.finish()
"""

CONSOLE_PER_BATCH = r"""
import json, math, wandb
twin = open("../console_per_batch.jsonl", "w")
run = wandb.init(project="tsm-fixtures", name="console_per_batch", mode="offline",
                 config={"lr": 1e-3, "epochs": 300, "batches": 3})
for epoch in range(300):
    total = 0.0
    for b in range(3):
        i = epoch * 3 + b
        total += 2.0 + 6.0 * math.exp(-i / 150) + 0.4 * math.sin(7 * i)
    print(f"Epoch: [{epoch}/300] Loss: {total / 3:.4f} Acc: 0.00%", flush=True)
    row = {"train/loss": total / 3, "train/accuracy": 0.0, "iteration": 3 * (epoch + 1)}
    run.log(row)
    twin.write(json.dumps({"step": 3 * (epoch + 1), "train/loss": row["train/loss"]}) + "\n")
run.finish()
"""

SPLIT_PLACEHOLDERS = r"""
import json, math, wandb
twin = open("../split_placeholders.jsonl", "w")
run = wandb.init(project="tsm-fixtures", name="split_placeholders", mode="offline",
                 config={"lr": 1e-3, "epochs": 5, "batches": 10})
step = 0
for epoch in range(5):
    for b in range(10):
        loss = 600.0 * math.exp(-step / 40) + 300.0 + 5.0 * math.sin(step)
        run.log({"train_loss": loss, "val_loss": 0.0, "epoch": epoch})
        twin.write(json.dumps({"step": step, "train_loss": loss, "epoch": epoch}) + "\n")
        step += 1
    val = 700.0 * math.exp(-epoch / 3) + 380.0
    run.log({"train_loss": 0.0, "val_loss": val, "epoch": epoch})
    twin.write(json.dumps({"step": step, "val_loss": val, "epoch": epoch}) + "\n")
    step += 1
run.finish()
"""

RESUMED = r"""
import json, math, sys, wandb
part = int(sys.argv[1])
twin = open("../resumed.jsonl", "a")
run = wandb.init(project="tsm-fixtures", id="tsmresume1", name="resumed", mode="offline", resume="allow",
                 config={"learning_rate": 1e-3, "max_steps": 120})
lo, hi = (0, 60) if part == 1 else (60, 120)
for step in range(lo, hi):
    loss = 1.0 + 4.0 * math.exp(-step / 30)
    run.log({"train/loss": loss, "train/learning_rate": 1e-3}, step=step)
    twin.write(json.dumps({"step": step, "train/loss": loss, "train/learning_rate": 1e-3}) + "\n")
run.finish()
"""

HF = r'''
import os, sysconfig, torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments, TrainerCallback
torch.manual_seed(0)
SEQ = 64
lib = sysconfig.get_paths()["stdlib"]
data = b""
for name in ("os.py", "inspect.py", "argparse.py"):
    data += open(os.path.join(lib, name), "rb").read()
t = torch.tensor(list(data[:120_000]), dtype=torch.long)
n = (len(t) - 1) // SEQ
blocks = t[: n * SEQ].view(n, SEQ)

class DS(torch.utils.data.Dataset):
    def __len__(self):
        return len(blocks)
    def __getitem__(self, i):
        return {"input_ids": blocks[i], "labels": blocks[i]}

model = GPT2LMHeadModel(GPT2Config(vocab_size=256, n_positions=SEQ, n_embd=32, n_layer=2, n_head=2))

class Twin(TrainerCallback):
    """The numbers the Trainer logs, as JSON Lines beside the run (the test's reference)."""
    f = open("../hf_gradspike.jsonl", "w")
    def on_log(self, args, state, control, logs=None, **kw):
        import json
        if "train_runtime" in (logs or {}):
            return  # the end-of-training totals: HF's WandbCallback puts them in the summary
        self.f.write(json.dumps({"step": state.global_step, **(logs or {})}) + "\n")
        self.f.flush()

class Spike(TrainerCallback):
    """Scale the input embeddings by 40 for step 40 only (a grad-norm spike)."""
    saved = None
    def on_step_begin(self, args, state, control, **kw):
        if state.global_step == 39:  # the 40th optimizer step
            w = model.transformer.wte.weight
            self.saved = w.detach().clone()
            with torch.no_grad():
                w.mul_(40.0)
    def on_step_end(self, args, state, control, **kw):
        if self.saved is not None:
            with torch.no_grad():
                model.transformer.wte.weight.copy_(self.saved)
            self.saved = None

args = TrainingArguments(output_dir="out", max_steps=60, per_device_train_batch_size=8, learning_rate=3e-3,
                         warmup_steps=6, lr_scheduler_type="cosine", logging_steps=1, save_strategy="no",
                         report_to="wandb", run_name="hf_gradspike", disable_tqdm=True, use_cpu=True,
                         dataloader_num_workers=0, seed=0)
Trainer(model=model, args=args, train_dataset=DS(), callbacks=[Spike(), Twin()]).train()
import wandb
wandb.finish()
'''


def _run(script: str, cwd: str, *argv: str) -> None:
    env = dict(
        os.environ,
        WANDB_MODE="offline",
        WANDB_SILENT="true",
        WANDB_DIR=cwd,
        WANDB_PROJECT="tsm-fixtures",
        WANDB_DISABLE_GIT="true",
        WANDB_CONSOLE="wrap",
        TOKENIZERS_PARALLELISM="false",
        HF_HUB_OFFLINE="1",
        PYTHONHASHSEED="0",
    )
    p = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if p.returncode != 0:
        raise SystemExit(f"{script[:60]!r} failed:\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}")


def _prune(root: str, drop_output: bool) -> None:
    """Keep the run dirs' run files and W&B metadata; drop the SDK's own logs."""
    wb = os.path.join(root, "wandb")
    for name in os.listdir(wb):
        p = os.path.join(wb, name)
        if os.path.islink(p) or not os.path.isdir(p):
            os.remove(p)  # latest-run, debug.log links (a test makes its own link)
            continue
        for sub in ("logs", "tmp"):
            shutil.rmtree(os.path.join(p, sub), ignore_errors=True)
        files = os.path.join(p, "files")
        for f in ("requirements.txt", "wandb-metadata.json", "conda-environment.yaml", "diff.patch"):
            if os.path.exists(os.path.join(files, f)):
                os.remove(os.path.join(files, f))
        if drop_output and os.path.exists(os.path.join(files, "output.log")):
            os.remove(os.path.join(files, "output.log"))
    for junk in ("out",):
        shutil.rmtree(os.path.join(root, junk), ignore_errors=True)


def make(out: str, only: list[str] | None = None) -> None:
    """Each run into ``out/<name>/`` (its JSON Lines twin at ``out/<name>.jsonl``)."""
    out = os.path.abspath(out)
    try:
        import transformers  # noqa: F401

        have_hf = True
    except ImportError:  # an older SDK's venv: the plain runs only
        have_hf = False
    jobs = {
        "plain_nan": lambda d: _run(PLAIN_NAN, d),
        "console_only": lambda d: _run(CONSOLE_ONLY, d),
        "resumed": lambda d: (_run(RESUMED, d, "1"), _run(RESUMED, d, "2")),
        "console_per_batch": lambda d: _run(CONSOLE_PER_BATCH, d),
        "split_placeholders": lambda d: _run(SPLIT_PLACEHOLDERS, d),
        "hf_gradspike": lambda d: _run(HF, d),
    }
    if not have_hf:
        jobs.pop("hf_gradspike")
    for name, job in jobs.items():
        if only and name not in only:
            continue
        d = os.path.join(out, name)
        if os.path.exists(d + ".jsonl"):
            os.remove(d + ".jsonl")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        job(d)
        _prune(d, drop_output=name in ("plain_nan", "console_only", "hf_gradspike", "split_placeholders"))
        print(f"{name}: done", flush=True)


if __name__ == "__main__":
    argv = sys.argv[1:]
    only = None
    if "--only" in argv:
        i = argv.index("--only")
        only, argv = argv[i + 1 :], argv[:i]
    if argv:
        dest = argv[0]
    else:
        import wandb

        dest = os.path.join(HERE, f"sdk-{wandb.__version__}")
    make(dest, only)
