"""Make the real-training fixtures under tests/data/frameworks/ (CPU, ~1 min).

    pip install torch==2.13.0 transformers lightning tensorboard
    python tests/data/frameworks/make_framework_runs.py

Three tiny real runs on text from Python's own stdlib sources (byte-level,
vocabulary 256):

- ``hf_trainer/``: transformers ``Trainer`` with a 2-layer GPT-2
  (n_embd 32), ``logging_steps=1``, ``save_steps=20``, eval every 20 steps,
  ``report_to=["tensorboard"]``; console (stdout + stderr with the tqdm bar)
  captured in ``train.log``; ``trainer.save_state()`` writes the root
  ``trainer_state.json``.
- ``lightning/``: Lightning with ``CSVLogger`` + ``LearningRateMonitor`` and
  ``grad_norm()`` logged each step (``lightning_logs/version_0/metrics.csv``,
  ``hparams.yaml``).
- ``hf_nohup/``: the same Trainer for 700 steps (a batch of random bytes at step 300,
  ``logging_steps=10``, ``logging_first_step=True``, an evaluation every 200 steps), its
  console captured as ``nohup python train.py > train.log 2>&1`` captures it: stdout
  block-buffered (no ``PYTHONUNBUFFERED``), tqdm's stderr not, so the dicts reach the
  file in bursts, long after their steps' bars (issue 26): here all at the end (< 8 KiB).
  ``hf_nohup_every_step/``: 300 steps logged every step (random bytes at step 150), so
  ~40 KiB of dicts arrive in bursts of ~8 KiB during the run. ``hf_nohup_off_grid/``: 175
  steps logged every 50 (no step 1): the 3 dicts reach the file at the exit with the bar at
  175, which no logging grid ends on (TRL's DPO run in bench/corpus/fresh2). ``hf_slurm_out/``: 300
  steps logged every 10 (random bytes at step 150), stdout and stderr in two files as Slurm writes
  them (``slurm-123.out``: the dicts and the final summary alone; ``slurm-123.err``: the bars). Only the logs are kept;
  the true steps (``trainer_state.json``'s log history) go to ``<name>_truth.json`` beside
  this script, for the tests.
- ``tensorboard_only/``: a plain torch loop with ``SummaryWriter``: loss as a
  tensor (``new_style=True``), grad norm and LR as ``simple_value``, a histogram
  every 10 steps; ``config.yaml`` beside it, as many scripts write.

Model weights, optimizer states and pickles are deleted afterwards, only logs,
configs, trainer_state.json, event files and hparams.yaml are kept.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
SEQ = 64
STRIP = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".pkl")


def corpus(n_bytes: int = 200_000) -> bytes:
    lib = sysconfig.get_paths()["stdlib"]
    out = b""
    for name in ("os.py", "inspect.py", "argparse.py", "textwrap.py", "json/decoder.py"):
        with open(os.path.join(lib, name), "rb") as f:
            out += f.read()
        if len(out) >= n_bytes:
            break
    return out[:n_bytes]


def blocks(data: bytes):
    import torch

    t = torch.tensor(list(data), dtype=torch.long)
    n = (len(t) - 1) // SEQ
    return t[: n * SEQ].view(n, SEQ)


def strip(root: str, keep_names: bool = False) -> None:
    """Weights, optimizer states and pickles deleted; ``keep_names``: checkpoint files
    emptied instead (tsm-watch reads checkpoints by name only, never their bytes)."""
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            if keep_names and f.endswith((".ckpt", ".pt")):
                open(p, "wb").close()
            elif f.endswith(STRIP) or f.startswith(("optimizer", "scheduler", "rng_state")):
                os.remove(p)


def hf_run(out: str) -> None:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    torch.manual_seed(0)
    x = blocks(corpus())
    train = [{"input_ids": r, "labels": r} for r in x[:-64]]
    val = [{"input_ids": r, "labels": r} for r in x[-64:]]
    cfg = GPT2Config(vocab_size=256, n_positions=SEQ, n_embd=32, n_layer=2, n_head=2)
    model = GPT2LMHeadModel(cfg)
    args = TrainingArguments(
        output_dir=out,
        max_steps=60,
        per_device_train_batch_size=8,
        per_device_eval_batch_size=16,
        learning_rate=3e-3,
        warmup_steps=6,
        lr_scheduler_type="cosine",
        logging_steps=1,
        save_steps=20,
        eval_strategy="steps",
        eval_steps=20,
        report_to=["tensorboard"],
        use_cpu=True,
        seed=0,
        max_grad_norm=1.0,
        dataloader_num_workers=0,
        disable_tqdm=False,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=val)
    trainer.train()
    trainer.save_state()
    trainer.save_model(out)


#: name -> (max_steps, logging_steps, the step whose batch is random bytes: a data spike,
#: logging_first_step)
NOHUP = {
    "hf_nohup": (700, 10, 300, True),
    "hf_nohup_every_step": (300, 1, 150, True),
    "hf_nohup_off_grid": (175, 50, 100, False),
    "hf_slurm_out": (300, 10, 150, False),
}
#: fixtures whose stdout and stderr go to two files, as Slurm's --output / --error write them: the
#: dicts alone in slurm-123.out, tqdm's bars in slurm-123.err (issue 26: placed by the final summary)
SPLIT_STREAMS = {"hf_slurm_out"}


def hf_nohup_run(out: str) -> None:
    import json

    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    name = os.path.basename(out)
    steps, every, spike, first = NOHUP[name]

    class SpikeTrainer(Trainer):
        def training_step(self, model, inputs, *a, **kw):
            if self.state.global_step == spike - 1:  # (global_step counts the steps done)
                g = torch.Generator().manual_seed(1)
                noise = torch.randint(0, 256, inputs["input_ids"].shape, generator=g)
                inputs = dict(inputs, input_ids=noise, labels=noise)
            return super().training_step(model, inputs, *a, **kw)

    torch.manual_seed(0)
    x = blocks(corpus())
    train = [{"input_ids": r, "labels": r} for r in x[:-64]]
    val = [{"input_ids": r, "labels": r} for r in x[-64:]]
    model = GPT2LMHeadModel(GPT2Config(vocab_size=256, n_positions=SEQ, n_embd=32, n_layer=2, n_head=2))
    args = TrainingArguments(
        output_dir=out,
        max_steps=steps,
        per_device_train_batch_size=8,
        per_device_eval_batch_size=16,
        learning_rate=3e-3,
        warmup_steps=20,
        lr_scheduler_type="cosine",
        logging_steps=every,
        logging_first_step=first,
        save_strategy="no",
        eval_strategy="steps",
        eval_steps=200,
        report_to=[],
        use_cpu=True,
        seed=0,
        max_grad_norm=1.0,
        dataloader_num_workers=0,
        disable_tqdm=False,
    )
    trainer = SpikeTrainer(model=model, args=args, train_dataset=train, eval_dataset=val)
    trainer.train()
    truth = [{k: e[k] for k in ("step", "loss", "eval_loss", "epoch") if k in e} for e in trainer.state.log_history]
    with open(os.path.join(HERE, f"{name}_truth.json"), "w") as f:
        json.dump(truth, f, indent=0)


def lightning_run(out: str, loggers=None, callbacks=(), seed: int = 0, lr: float = 3e-3) -> None:
    """``loggers``: None for the default CSVLogger(out, name="lightning_logs"), else a
    function of ``out`` giving the Trainer's logger list; ``callbacks``: functions of
    ``out`` giving more callbacks (a ModelCheckpoint)."""
    import lightning as L
    import torch
    from lightning.pytorch.callbacks import LearningRateMonitor
    from lightning.pytorch.loggers import CSVLogger
    from lightning.pytorch.utilities import grad_norm

    class CharLM(L.LightningModule):
        def __init__(
            self,
            d_model: int = 32,
            lr: float = 3e-3,
            warmup_steps: int = 6,
            max_steps: int = 60,
            batch_size: int = 8,
            seq_len: int = SEQ,
        ):
            super().__init__()
            self.save_hyperparameters()
            self.emb = torch.nn.Embedding(256, d_model)
            self.rnn = torch.nn.GRU(d_model, d_model, batch_first=True)
            self.head = torch.nn.Linear(d_model, 256)

        def forward(self, x):
            return self.head(self.rnn(self.emb(x))[0])

        def _loss(self, batch):
            (x,) = batch
            logits = self(x[:, :-1])
            return torch.nn.functional.cross_entropy(logits.reshape(-1, 256), x[:, 1:].reshape(-1))

        def training_step(self, batch, i):
            loss = self._loss(batch)
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            return loss

        def validation_step(self, batch, i):
            self.log("val_loss", self._loss(batch))

        def on_before_optimizer_step(self, optimizer):
            norms = grad_norm(self, norm_type=2)
            self.log("grad_2.0_norm_total", norms["grad_2.0_norm_total"])

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
            h = self.hparams

            def f(s):
                if s < h.warmup_steps:
                    return (s + 1) / h.warmup_steps
                return 0.5 * (1 + math.cos(math.pi * (s - h.warmup_steps) / (h.max_steps - h.warmup_steps)))

            sched = torch.optim.lr_scheduler.LambdaLR(opt, f)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    torch.manual_seed(seed)
    x = blocks(corpus())
    tr = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:-64]), batch_size=8, shuffle=True)
    va = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[-64:]), batch_size=16)
    logger = CSVLogger(out, name="lightning_logs") if loggers is None else loggers(out)
    trainer = L.Trainer(
        max_steps=60,
        accelerator="cpu",
        logger=logger,
        log_every_n_steps=1,
        callbacks=[LearningRateMonitor(logging_interval="step")] + [c(out) for c in callbacks],
        val_check_interval=20,
        enable_progress_bar=False,
        gradient_clip_val=1.0,
        enable_model_summary=False,
    )
    trainer.fit(CharLM(lr=lr), tr, va)


def tensorboard_run(out: str) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(0)
    steps, warm, peak = 80, 8, 3e-3
    with open(os.path.join(out, "config.yaml"), "w") as f:
        f.write(
            f"max_steps: {steps}\nwarmup_steps: {warm}\nlearning_rate: {peak}\nbatch_size: 8\n"
            f"seq_len: {SEQ}\nmax_grad_norm: 1.0\n"
        )
    x = blocks(corpus())
    model = torch.nn.Sequential(torch.nn.Embedding(256, 32), torch.nn.Linear(32, 256))
    opt = torch.optim.AdamW(model.parameters(), lr=peak)
    w = SummaryWriter(log_dir=os.path.join(out, "tb"))
    g = torch.Generator().manual_seed(0)
    for step in range(1, steps + 1):
        lr = peak * min(1.0, step / warm) * (0.5 * (1 + math.cos(math.pi * max(0, step - warm) / (steps - warm))))
        for pg in opt.param_groups:
            pg["lr"] = lr
        b = x[torch.randint(0, len(x), (8,), generator=g)]
        logits = model(b[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 256), b[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        w.add_scalar("train/loss", loss.item(), step, new_style=True)
        w.add_scalar("train/grad_norm", gn.item(), step)
        w.add_scalar("train/learning_rate", lr, step)
        if step % 40 == 0:
            w.add_histogram("weights/emb", model[0].weight, step)
    w.close()


# ------------------------------------------------------------------ one job, several loggers
def _csv_tb(names=("csv", "tb")):
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger

    def loggers(out):
        csv = CSVLogger(out, name=names[0]) if names[0] else CSVLogger(out)
        return [csv, TensorBoardLogger(out, name=names[1])]

    return loggers


def _root_checkpoints(out):
    from lightning.pytorch.callbacks import ModelCheckpoint

    return ModelCheckpoint(dirpath=os.path.join(out, "checkpoints"), every_n_train_steps=20, save_top_k=-1)


def lightning_two_loggers(out: str) -> None:
    """``logger=[CSVLogger(out, name="csv"), TensorBoardLogger(out, name="tb")]`` and
    ``ModelCheckpoint(dirpath=out/"checkpoints")``: csv/version_0, tb/version_0, checkpoints/."""
    lightning_run(out, loggers=_csv_tb(), callbacks=[_root_checkpoints])


def lightning_default_plus_tb(out: str) -> None:
    """The default ``lightning_logs/`` (CSVLogger(out)) plus ``TensorBoardLogger(out, name="tb")``,
    Lightning's default checkpointing (into the first logger's version directory)."""
    lightning_run(out, loggers=_csv_tb((None, "tb")))


def lightning_one_name_two_loggers(out: str) -> None:
    """``logger=[CSVLogger(out), TensorBoardLogger(out)]``: both under the default name
    ``lightning_logs``, so the CSV is ``version_0`` and the TensorBoard ``version_1`` of one job."""
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger

    lightning_run(out, loggers=lambda o: [CSVLogger(o), TensorBoardLogger(o)])


def lightning_two_jobs(out: str) -> None:
    """The same script run twice into one save_dir (another seed and LR): csv/version_0 and
    tb/version_0 are one job, csv/version_1 and tb/version_1 the other."""
    lightning_run(out, loggers=_csv_tb(), seed=0, lr=3e-3)
    lightning_run(out, loggers=_csv_tb(), seed=1, lr=1e-3)


def mlflow_csv(out: str) -> None:
    """``logger=[MLFlowLogger(tracking_uri=file:out/mlruns), CSVLogger(out)]``."""
    from lightning.pytorch.loggers import CSVLogger, MLFlowLogger

    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # the file store tsm-watch reads (mlruns/)

    def loggers(o):
        return [MLFlowLogger(experiment_name="charlm", tracking_uri="file:" + os.path.join(o, "mlruns")), CSVLogger(o)]

    lightning_run(out, loggers=loggers, callbacks=[_root_checkpoints])


def wandb_tb_child(out: str) -> None:
    """A plain torch loop logging to W&B (offline) and TensorBoard, printing each step
    (W&B captures the console into files/output.log); checkpoints in out/checkpoints."""
    import torch
    import wandb
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(0)
    steps, peak = 80, 3e-3
    run = wandb.init(
        mode="offline",
        dir=out,
        project="charlm",
        config={"max_steps": steps, "learning_rate": peak, "batch_size": 8, "seq_len": SEQ},
    )
    w = SummaryWriter(log_dir=os.path.join(out, "tb"))
    x = blocks(corpus())
    model = torch.nn.Sequential(torch.nn.Embedding(256, 32), torch.nn.Linear(32, 256))
    opt = torch.optim.AdamW(model.parameters(), lr=peak)
    g = torch.Generator().manual_seed(0)
    os.makedirs(os.path.join(out, "checkpoints"), exist_ok=True)
    for step in range(1, steps + 1):
        b = x[torch.randint(0, len(x), (8,), generator=g)]
        loss = torch.nn.functional.cross_entropy(model(b[:, :-1]).reshape(-1, 256), b[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        opt.step()
        run.log({"train/loss": loss.item(), "train/grad_norm": gn, "train/lr": peak}, step=step)
        w.add_scalar("train/loss", loss.item(), step)
        w.add_scalar("train/grad_norm", gn, step)
        w.add_scalar("train/lr", peak, step)
        print(f"step {step} | loss {loss.item():.4f} | lr {peak:.3e} | grad_norm {gn:.4f}", flush=True)
        if step % 20 == 0:
            torch.save(model.state_dict(), os.path.join(out, "checkpoints", f"step_{step}.pt"))
    w.close()
    run.finish()


# ------------------------------------------------------------------ one file, two writers / several launches
def ddp_worker(rank: int, steps: int, port: str) -> None:
    """One rank of a 2-process DDP job (gloo, CPU): every rank prints the same line per
    step (the loss all-reduced, the grad norm of the averaged gradients) to its stdout,
    the one file every rank inherited."""
    import torch
    import torch.distributed as dist

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", port)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Embedding(256, 16), torch.nn.Linear(16, 256))
    )
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    x = blocks(corpus())
    g = torch.Generator().manual_seed(1 + rank)
    print(f"rank {rank}: world size {dist.get_world_size()}, {len(x)} sequences")
    for step in range(1, steps + 1):
        b = x[torch.randint(0, len(x), (4,), generator=g)]
        loss = torch.nn.functional.cross_entropy(model(b[:, :-1]).reshape(-1, 256), b[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        opt.step()
        t = loss.detach().clone()
        dist.all_reduce(t)
        print(f"step {step} | loss {t.item() / dist.get_world_size():.4f} | lr 3.000e-03 | grad_norm {gn:.4f}")
    dist.destroy_process_group()


def ddp_spawn(steps: int) -> None:
    """``python train.py > train.log`` where train.py starts its two ranks itself
    (``torch.multiprocessing.spawn``): each rank's stdout is the file, block-buffered."""
    import torch.multiprocessing as mp

    mp.spawn(ddp_worker, args=(steps, "29518"), nprocs=2)


def two_writers(out: str, steps: int = 900) -> None:
    """Two ranks printing every line into one file:

    - ``spawn/train.log``: ``python train.py > train.log``, the ranks started by
      ``torch.multiprocessing.spawn``: Python's block buffer (stdout is a file), so
      the copies interleave in blocks of a buffer's worth of lines;
    - ``torchrun/train.log``: ``torchrun --nproc_per_node 2 train.py > train.log``
      (torchrun runs its workers with ``python -u``: line by line, and two writes
      at one shared offset now and then overwrite each other)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["OMP_NUM_THREADS"] = "1"
    for sub, cmd in (
        ("spawn", [__file__, "ddp-spawn", str(steps)]),
        (
            "torchrun",
            [
                "-m",
                "torch.distributed.run",
                "--nproc_per_node",
                "2",
                "--master_port",
                "29517",
                __file__,
                "ddp-child",
                str(steps),
            ],
        ),
    ):
        os.makedirs(os.path.join(out, sub))
        with open(os.path.join(out, sub, "train.log"), "w") as log:
            subprocess.run([sys.executable] + cmd, stdout=log, stderr=subprocess.DEVNULL, check=True, env=env)


def launch_child(argv: list[str]) -> None:
    """One launch of a plain training script as a Slurm job step would run it: an argument
    dump, a banner, a step line every step; ``--crash-at`` raises there (a real traceback),
    ``--resume`` starts after the newest checkpoint."""
    import argparse

    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--max-steps", type=int, default=150)
    ap.add_argument("--crash-at", type=int, default=0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--save-every", type=int, default=25)
    ap.add_argument("--batch-size", type=int, default=8)
    args = ap.parse_args(argv)
    print(args, flush=True)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(256, 32), torch.nn.Linear(32, 256))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    ck = os.path.join(args.out, "checkpoints")
    start = 1
    if args.resume:
        last = max(int(f[5:-3]) for f in os.listdir(ck))
        state = torch.load(os.path.join(ck, f"step_{last}.pt"))
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = last + 1
        print(f"resumed from {ck}/step_{last}.pt", flush=True)
    print(f"==> training for {args.max_steps} steps on cpu", flush=True)
    x = blocks(corpus())
    g = torch.Generator().manual_seed(start)
    for step in range(start, args.max_steps + 1):
        b = x[torch.randint(0, len(x), (args.batch_size,), generator=g)]
        loss = torch.nn.functional.cross_entropy(model(b[:, :-1]).reshape(-1, 256), b[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        opt.step()
        print(f"step {step} | loss {loss.item():.4f} | lr 3.000e-03 | grad_norm {gn:.4f}", flush=True)
        if step % args.save_every == 0:
            os.makedirs(ck, exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, os.path.join(ck, f"step_{step}.pt"))
        if step == args.crash_at:
            raise RuntimeError(f"simulated node failure at step {step}")


def launches(out: str) -> None:
    """Four launches appended to one Slurm output (``#SBATCH --open-mode=append``): a smoke
    test of 10 steps (batch 4), a run from scratch that crashes at step 70, its resume from
    the step-50 checkpoint to 150, then a new run from scratch (the same script re-submitted,
    checkpoints cleared) to 40."""
    log = os.path.join(out, "slurm-4242.out")
    ck = os.path.join(out, "checkpoints")
    plan = [
        ["--max-steps", "10", "--save-every", "1000", "--batch-size", "4"],
        ["--crash-at", "70"],
        ["--resume"],
        ["--max-steps", "40", "--save-every", "1000"],
    ]
    for i, extra in enumerate(plan):
        if i == 3:  # (the step-70 crash left step_25 and step_50; the resume took step_50)
            shutil.rmtree(ck)
        with open(log, "a") as f:
            subprocess.run(
                [sys.executable, __file__, "launch-child", "--out", out] + extra,
                stdout=f,
                stderr=subprocess.STDOUT,
                check=False,
            )


FIXTURES = {
    "lightning_two_loggers": lightning_two_loggers,
    "lightning_default_plus_tb": lightning_default_plus_tb,
    "lightning_two_jobs": lightning_two_jobs,
    "lightning_one_name_two_loggers": lightning_one_name_two_loggers,
    "mlflow_csv": mlflow_csv,
    "two_writers": two_writers,
    "launches": launches,
}


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which == "hf-child":  # run in a subprocess so its console goes to train.log
        hf_run(sys.argv[2])
        return
    if which == "wandb-child":
        wandb_tb_child(sys.argv[2])
        return
    if which == "ddp-child":  # under torchrun
        ddp_worker(int(os.environ["RANK"]), int(sys.argv[2]), os.environ["MASTER_PORT"])
        return
    if which == "ddp-spawn":
        ddp_spawn(int(sys.argv[2]))
        return
    if which == "launch-child":
        launch_child(sys.argv[2:])
        return
    if which == "hf-nohup-child":
        hf_nohup_run(sys.argv[2])
        return
    for name in ("hf_trainer", *NOHUP, "lightning", "tensorboard_only"):
        if which not in ("all", name):
            continue
        out = os.path.join(HERE, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        if name == "hf_trainer":
            with open(os.path.join(out, "train.log"), "w") as log:
                env = dict(os.environ, PYTHONUNBUFFERED="1", TQDM_MININTERVAL="0")
                subprocess.run(
                    [sys.executable, __file__, "hf-child", out],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    check=True,
                    env=env,
                )
        elif name in SPLIT_STREAMS:  # as Slurm runs it: stdout to slurm-123.out, stderr to slurm-123.err
            env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
            with open(os.path.join(out, "slurm-123.out"), "w") as o, open(os.path.join(out, "slurm-123.err"), "w") as e:
                subprocess.run(
                    [sys.executable, __file__, "hf-nohup-child", out], stdout=o, stderr=e, check=True, env=env
                )
            for f in os.listdir(out):
                if not f.startswith("slurm-123."):
                    p = os.path.join(out, f)
                    shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        elif name in NOHUP:  # as nohup runs it: stdout to a file, buffered; stderr too, unbuffered
            with open(os.path.join(out, "train.log"), "w") as log:
                env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
                subprocess.run(
                    [sys.executable, __file__, "hf-nohup-child", out],
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    check=True,
                    env=env,
                )
            for f in os.listdir(out):
                if f != "train.log":
                    p = os.path.join(out, f)
                    shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        elif name == "lightning":
            with contextlib.redirect_stdout(sys.stderr):
                lightning_run(out)
        else:
            tensorboard_run(out)
        strip(out)
    for name, make in FIXTURES.items():
        if which not in ("all", name):
            continue
        out = os.path.join(HERE, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        with contextlib.redirect_stdout(sys.stderr):
            make(out)
        strip(out, keep_names=True)
    if which in ("all", "wandb_tb"):
        out = os.path.join(HERE, "wandb_tb")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        env = dict(os.environ, WANDB_MODE="offline", WANDB_SILENT="true", WANDB_DISABLE_GIT="true")
        subprocess.run([sys.executable, __file__, "wandb-child", out], check=True, env=env, stdout=subprocess.DEVNULL)
        strip(out, keep_names=True)
        for dirpath, dirs, files in os.walk(out):
            for f in files + dirs:  # W&B's debug-core.log links into ~/.cache: not part of the run
                p = os.path.join(dirpath, f)
                if os.path.islink(p) and os.path.isabs(os.readlink(p)):
                    os.remove(p)


if __name__ == "__main__":
    main()
