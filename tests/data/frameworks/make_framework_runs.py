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


def strip(root: str) -> None:
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith(STRIP) or f.startswith(("optimizer", "scheduler", "rng_state")):
                os.remove(os.path.join(dirpath, f))


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
        output_dir=out, max_steps=60, per_device_train_batch_size=8, per_device_eval_batch_size=16,
        learning_rate=3e-3, warmup_steps=6, lr_scheduler_type="cosine", logging_steps=1,
        save_steps=20, eval_strategy="steps", eval_steps=20, report_to=["tensorboard"],
        use_cpu=True, seed=0, max_grad_norm=1.0,
        dataloader_num_workers=0, disable_tqdm=False,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=val)
    trainer.train()
    trainer.save_state()
    trainer.save_model(out)


def lightning_run(out: str) -> None:
    import lightning as L
    import torch
    from lightning.pytorch.callbacks import LearningRateMonitor
    from lightning.pytorch.loggers import CSVLogger
    from lightning.pytorch.utilities import grad_norm

    class CharLM(L.LightningModule):
        def __init__(self, d_model: int = 32, lr: float = 3e-3, warmup_steps: int = 6, max_steps: int = 60,
                     batch_size: int = 8, seq_len: int = SEQ):
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

    torch.manual_seed(0)
    x = blocks(corpus())
    tr = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:-64]), batch_size=8, shuffle=True)
    va = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[-64:]), batch_size=16)
    trainer = L.Trainer(
        max_steps=60, accelerator="cpu", logger=CSVLogger(out, name="lightning_logs"), log_every_n_steps=1,
        callbacks=[LearningRateMonitor(logging_interval="step")], val_check_interval=20,
        enable_progress_bar=False, gradient_clip_val=1.0, enable_model_summary=False,
    )
    trainer.fit(CharLM(), tr, va)


def tensorboard_run(out: str) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    torch.manual_seed(0)
    steps, warm, peak = 80, 8, 3e-3
    with open(os.path.join(out, "config.yaml"), "w") as f:
        f.write(f"max_steps: {steps}\nwarmup_steps: {warm}\nlearning_rate: {peak}\nbatch_size: 8\n"
                f"seq_len: {SEQ}\nmax_grad_norm: 1.0\n")
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


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which == "hf-child":  # run in a subprocess so its console goes to train.log
        hf_run(sys.argv[2])
        return
    for name in ("hf_trainer", "lightning", "tensorboard_only"):
        if which not in ("all", name):
            continue
        out = os.path.join(HERE, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        if name == "hf_trainer":
            with open(os.path.join(out, "train.log"), "w") as log:
                env = dict(os.environ, PYTHONUNBUFFERED="1", TQDM_MININTERVAL="0")
                subprocess.run([sys.executable, __file__, "hf-child", out], stdout=log, stderr=subprocess.STDOUT,
                               check=True, env=env)
        elif name == "lightning":
            with contextlib.redirect_stdout(sys.stderr):
                lightning_run(out)
        else:
            tensorboard_run(out)
        strip(out)


if __name__ == "__main__":
    main()
