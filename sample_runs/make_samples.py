#!/usr/bin/env python3
"""Generate the sample training runs in ``sample_runs/`` by REALLY training tiny
language models on the CPU with PyTorch, with faults injected on purpose.

Every run trains a byte-level language model on a fixed, deterministic slice of
the Python standard library's own source code (read from
``sysconfig.get_paths()["stdlib"]``), so nothing has to be downloaded.

Usage (regeneration only; the committed outputs do not need torch):

    pip install torch==2.13.0 && python sample_runs/make_samples.py

Optional: ``python sample_runs/make_samples.py healthy plateau`` regenerates
only the named runs (EXPECTED.json is then updated for those runs only).

Each run goes to ``sample_runs/<name>/`` with its log file(s), a
``config.json`` (Hugging Face TrainingArguments-style names) and
``checkpoints/step_<N>.pt`` markers.  The markers are EMPTY files: the real
state_dicts are written to a temporary directory (and, for the ``resumed`` run,
actually loaded back to resume), but are not committed to keep the repo small.

Finally ``sample_runs/EXPECTED.json`` is written with facts measured by
re-reading the log files that were just written (first/last step, number of
records with a loss, first non-finite step, detected spike steps, ...).
"""
from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import math
import os
import random
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1767225600.0  # 2026-01-01 00:00:00 UTC: fake start time of every run
SEQ = 64
BATCH = 16
VOCAB = 256  # bytes

# Fixed list of stdlib files used as training text (files missing in a given
# Python version are skipped, so the corpus is deterministic per version).
STDLIB_FILES = [
    "argparse.py", "ast.py", "calendar.py", "collections/__init__.py",
    "configparser.py", "contextlib.py", "csv.py", "dataclasses.py",
    "difflib.py", "enum.py", "fractions.py", "functools.py", "gzip.py",
    "heapq.py", "inspect.py", "json/decoder.py", "json/encoder.py",
    "logging/__init__.py", "pathlib.py", "pprint.py", "random.py",
    "shutil.py", "string.py", "subprocess.py", "tempfile.py", "textwrap.py",
    "threading.py", "typing.py", "zipfile.py",
]

torch.set_num_threads(2)


# ----------------------------------------------------------------------------
# data

def load_corpus():
    root = sysconfig.get_paths()["stdlib"]
    parts = []
    for rel in STDLIB_FILES:
        p = os.path.join(root, rel)
        if os.path.exists(p):
            with open(p, "rb") as f:
                parts.append(f.read())
    data = torch.tensor(list(b"\n".join(parts)), dtype=torch.long)
    n_val = len(data) // 20
    return data[:-n_val], data[-n_val:]


TRAIN, VAL = load_corpus()


def get_batch(gen, split="train", ctx=0, batch=None):
    """Random windows of SEQ+1+ctx bytes; returns (x, y) with y = next byte."""
    d = TRAIN if split == "train" else VAL
    L = SEQ + ctx
    ix = torch.randint(len(d) - L - 1, (batch or BATCH,), generator=gen)
    xb = torch.stack([d[i:i + L] for i in ix.tolist()])
    yb = torch.stack([d[i + 1 + ctx:i + L + 1] for i in ix.tolist()])
    return xb, yb


def random_batch(gen):
    """A corrupted batch: uniformly random bytes (e.g. a binary file that
    slipped into the data pipeline)."""
    xb = torch.randint(0, VOCAB, (BATCH, SEQ + 1), generator=gen)
    return xb[:, :-1], xb[:, 1:]


# ----------------------------------------------------------------------------
# models

class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(B, T, C))
        return x + self.fc2(F.gelu(self.fc(self.ln2(x))))


class TinyGPT(nn.Module):
    """2-layer pre-LN transformer, d=64, 4 heads, byte vocabulary, tied head."""
    ctx = 0

    def __init__(self, d=64, n_layer=2, n_head=4):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d)
        self.pos = nn.Embedding(SEQ, d)
        self.blocks = nn.ModuleList(Block(d, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d)
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)

    def forward(self, x):
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        for b in self.blocks:
            h = b(h)
        return self.ln_f(h) @ self.tok.weight.T


class MLPLM(nn.Module):
    """Bengio-style MLP LM: embeddings of the previous CTX bytes -> Linear ->
    ReLU -> Linear -> next-byte logits."""
    ctx = 8

    def __init__(self, d=32, hidden=256):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.hidden = nn.Linear(self.ctx * d, hidden)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, x):  # x: (B, SEQ+ctx)
        e = self.emb(x)  # B, L, d
        win = e.unfold(1, self.ctx, 1)[:, 1:]  # B, SEQ, d, ctx (window ends at t)
        win = win.transpose(2, 3).reshape(x.shape[0], -1, self.ctx * e.shape[2])
        return self.out(F.relu(self.hidden(win)))


def n_params(model):
    return sum(p.numel() for p in model.parameters())


def lm_loss(model, xb, yb):
    logits = model(xb)
    return F.cross_entropy(logits.reshape(-1, VOCAB), yb.reshape(-1))


@torch.no_grad()
def eval_loss(model, n_batches=8, seed=1234):
    g = torch.Generator().manual_seed(seed)  # same val batches every time
    model.eval()
    tot = 0.0
    for _ in range(n_batches):
        xb, yb = get_batch(g, "val", model.ctx)
        tot += lm_loss(model, xb, yb).item()
    model.train()
    return tot / n_batches


# ----------------------------------------------------------------------------
# optimisation helpers

def lr_lambda(warmup, max_steps, kind="cosine", min_ratio=0.1):
    def f(i):  # i = number of scheduler.step() calls done = optimizer step index (0-based)
        s = i + 1
        if warmup > 0 and s <= warmup:
            return s / warmup
        if kind == "constant" or kind == "constant_with_warmup":
            return 1.0
        prog = min(1.0, (s - warmup) / max(1, max_steps - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * prog))
    return f


def make_opt(model, lr, warmup, max_steps, kind="cosine"):
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(warmup, max_steps, kind))
    return opt, sched


def grad_norm_and_clip(model, max_norm):
    m = float("inf") if max_norm is None else max_norm
    return torch.nn.utils.clip_grad_norm_(model.parameters(), m).item()


def seed_all(seed):
    random.seed(seed)
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def sig(x, n=5):
    """Round to n significant digits (keeps nan/inf)."""
    if x is None or not math.isfinite(x) or x == 0:
        return x
    return float(f"{x:.{n - 1}e}")


class Clock:
    """Fake wall clock: fixed start T0 plus the REAL elapsed compute time."""

    def __init__(self, start=T0):
        self.t = start
        self.last = time.perf_counter()

    def tick(self):
        now = time.perf_counter()
        dt = now - self.last
        self.last = now
        self.t += dt
        return dt

    def stamp(self):
        d = _dt.datetime.fromtimestamp(self.t, _dt.timezone.utc)
        return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{d.microsecond // 1000:03d}"


def run_dir(name):
    d = os.path.join(HERE, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "checkpoints"))
    return d


def save_checkpoint(d, tmp, step, model, opt, sched):
    """Write the real state to a temp dir, and an EMPTY marker in the repo."""
    path = os.path.join(tmp, f"step_{step}.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                "sched": sched.state_dict(), "step": step}, path)
    open(os.path.join(d, "checkpoints", f"step_{step}.pt"), "w").close()
    return path


def write_config(d, **kw):
    base = {"max_steps": None, "warmup_steps": 0, "learning_rate": None,
            "lr_scheduler_type": "cosine", "per_device_train_batch_size": BATCH,
            "seq_length": SEQ, "n_params": None, "max_grad_norm": 1.0,
            "fp16": False, "bf16": False, "logging_steps": 1, "save_steps": None}
    base.update(kw)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(base, f, indent=2)
        f.write("\n")


def jline(obj):
    return json.dumps(obj, separators=(", ", ": ")) + "\n"


# ----------------------------------------------------------------------------
# the runs

def run_healthy(name="healthy", max_steps=1500, lr=1e-3, logging_steps=2, save_steps=250, seed=0, batch=128):
    # a healthy run looks like real pre-training: a batch large enough that the
    # grad norm settles below the clip value (0.3-0.6), checkpoints every 250 steps
    d = run_dir(name)
    gen = seed_all(seed)
    model = TinyGPT()
    warmup = round(0.03 * max_steps)
    opt, sched = make_opt(model, lr, warmup, max_steps)
    clock = Clock()
    tmp = tempfile.mkdtemp()
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        for step in range(1, max_steps + 1):
            xb, yb = get_batch(gen, batch=batch)
            cur_lr = sched.get_last_lr()[0]
            loss = lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = grad_norm_and_clip(model, 1.0)
            opt.step()
            sched.step()
            clock.tick()
            if step % logging_steps == 0 or step == 1:
                f.write(jline({"step": step, "loss": sig(loss.item()), "grad_norm": sig(gn, 4),
                               "lr": sig(cur_lr, 4), "tokens": step * batch * SEQ,
                               "time": round(clock.t, 3)}))
            if step % save_steps == 0:
                save_checkpoint(d, tmp, step, model, opt, sched)
    shutil.rmtree(tmp)
    write_config(d, max_steps=max_steps, warmup_steps=warmup, learning_rate=lr,
                 n_params=n_params(model), logging_steps=logging_steps, save_steps=save_steps,
                 per_device_train_batch_size=batch)
    return {"format": "jsonl", "fault_steps": [],
            "notes": "healthy reference run, nothing injected"}


def garbage_batch(gen):
    """A corrupted batch of high bytes only (128-255: e.g. a compressed blob),
    bytes the model never saw in the clean data."""
    xb = torch.randint(128, VOCAB, (BATCH, SEQ + 1), generator=gen)
    return xb[:, :-1], xb[:, 1:]


def run_spikes_recover(name="spikes_recover", max_steps=1500, lr=1e-3, save_steps=500, seed=1,
                       bad_batch_steps=(500, 900, 1200, 1201), garbage_steps=()):
    d = run_dir(name)
    gen = seed_all(seed)
    bad_gen = torch.Generator().manual_seed(seed + 100)
    model = TinyGPT()
    warmup = round(0.03 * max_steps)
    opt, sched = make_opt(model, lr, warmup, max_steps)
    tmp = tempfile.mkdtemp()
    with open(os.path.join(d, "main.log"), "w") as f:
        for step in range(1, max_steps + 1):
            if step in bad_batch_steps:
                xb, yb = random_batch(bad_gen)
            elif step in garbage_steps:
                xb, yb = garbage_batch(bad_gen)
            else:
                xb, yb = get_batch(gen)
            cur_lr = sched.get_last_lr()[0]
            loss = lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = grad_norm_and_clip(model, 1.0)
            opt.step()
            sched.step()
            f.write(f"s:{step} trl:{loss.item():.4f} lr:{cur_lr:.6f} norm:{gn:.4f}\n")
            if step % 100 == 0:
                f.write(f"s:{step} tel:{eval_loss(model):.4f}\n")
            if step % save_steps == 0:
                save_checkpoint(d, tmp, step, model, opt, sched)
    shutil.rmtree(tmp)
    write_config(d, max_steps=max_steps, warmup_steps=warmup, learning_rate=lr,
                 n_params=n_params(model), logging_steps=1, save_steps=save_steps,
                 eval_steps=100)
    faults = sorted(list(bad_batch_steps) + list(garbage_steps))
    return {"format": "llmc", "fault_steps": faults,
            "notes": (f"a corrupted batch of uniformly random bytes is fed instead of text at "
                      f"steps {list(bad_batch_steps)}"
                      + (f" and of random high bytes (128-255) at {list(garbage_steps)}"
                         if garbage_steps else "")
                      + "; the loss spikes on exactly those steps and the run recovers to its "
                      "trend within 50 steps (see recovery)")}


def megatron_header(args, n):
    out = ["using world size: 1, data-parallel size: 1, tensor-model-parallel size: 1, "
           "pipeline-model-parallel size: 1",
           "------------------------ arguments ------------------------"]
    for k in sorted(args):
        out.append(f"  {k} {'.' * (48 - len(k))} {args[k]}")
    out.append("-------------------- end of arguments ---------------------")
    out.append("building GPT model ...")
    out.append(f" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): {n}")
    out.append("[after model, optimizer, and learning rate scheduler are built] datetime: "
               "2026-01-01 00:00:00")
    out.append("training ...")
    return "\n".join(out) + "\n"


def megatron_line(it, iters, lr, avg_loss, scale, gn, skipped, nan_its, ms):
    s = f" iteration {it:8d}/{iters:8d} |"
    s += f" consumed samples: {it * BATCH:12d} |"
    s += f" elapsed time per iteration (ms): {ms:.1f} |"
    s += f" learning rate: {lr:.3E} |"
    s += f" global batch size: {BATCH:5d} |"
    s += f" lm loss: {avg_loss:.6E} |"
    s += f" loss scale: {scale:.1f} |"
    s += f" grad norm: {gn:.3f} |"
    s += f" number of skipped iterations: {skipped:3d} |"
    s += f" number of nan iterations: {nan_its:3d} |"
    return s + "\n"


def run_spike_no_recover(name="spike_no_recover", iters=1500, lr=1e-3, fault_it=900,
                         lr_mult=100.0, bad_beta2=0.5, log_interval=5, save_interval=200, seed=2):
    d = run_dir(name)
    gen = seed_all(seed)
    model = TinyGPT()
    warmup = round(0.03 * iters)
    opt, sched = make_opt(model, lr, warmup, iters)
    clock = Clock()
    tmp = tempfile.mkdtemp()
    args = {"lr": lr, "min_lr": lr * 0.1, "lr_decay_style": "cosine", "lr_warmup_iters": warmup,
            "train_iters": iters, "global_batch_size": BATCH, "micro_batch_size": BATCH,
            "seq_length": SEQ, "clip_grad": 1.0, "bf16": True, "fp16": False,
            "num_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
            "weight_decay": 0.1, "adam_beta1": 0.9, "adam_beta2": 0.95,
            "log_interval": log_interval, "save_interval": save_interval, "save": "checkpoints",
            "seed": seed}
    with open(os.path.join(d, "train.log"), "w") as f:
        f.write(megatron_header(args, n_params(model)))
        losses, t_int = [], 0.0
        for it in range(1, iters + 1):
            xb, yb = get_batch(gen)
            cur_lr = sched.get_last_lr()[0]
            mult = lr_mult if it >= fault_it else 1.0
            for g in opt.param_groups:
                g["lr"] = cur_lr * mult
                if it >= fault_it:
                    g["betas"] = (0.9, bad_beta2)
            loss = lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            # the "bad config" also dropped gradient clipping
            gn = grad_norm_and_clip(model, None if it >= fault_it else 1.0)
            opt.step()
            sched.step()
            t_int += clock.tick()
            losses.append(loss.item())
            if it % log_interval == 0:
                f.write(megatron_line(it, iters, cur_lr * mult, sum(losses) / len(losses), 1.0, gn,
                                      0, 0, 1000 * t_int / log_interval))
                losses, t_int = [], 0.0
            if it % save_interval == 0:
                save_checkpoint(d, tmp, it, model, opt, sched)
                f.write(f"saving checkpoint at iteration {it:7d} to checkpoints\n")
                f.write(f"  successfully saved checkpoint at iteration {it:7d} to checkpoints\n")
    shutil.rmtree(tmp)
    write_config(d, max_steps=iters, warmup_steps=warmup, learning_rate=lr,
                 n_params=n_params(model), bf16=True, logging_steps=log_interval,
                 save_steps=save_interval)
    return {"format": "megatron", "fault_steps": [fault_it],
            "notes": (f"bad config change at iteration {fault_it}: from then on the LR is "
                      f"multiplied by {lr_mult:g}, gradient clipping is off and adam_beta2 is "
                      f"{bad_beta2:g} instead of 0.95 (this tiny LayerNorm model shrugs off a "
                      "high LR alone); the loss jumps, then keeps climbing and never recovers")}


def run_nan_divergence(name="nan_divergence", max_steps=2000, stop_step=800, lr=5e-3,
                       inf_step=700, save_steps=250, seed=3):
    d = run_dir(name)
    gen = seed_all(seed)
    model = TinyGPT()
    warmup = 20
    opt, sched = make_opt(model, lr, warmup, max_steps)
    tmp = tempfile.mkdtemp()
    steps_per_epoch = len(TRAIN) // (BATCH * SEQ)
    tr_loss = 0.0  # HF Trainer's running accumulator (reset at every log)
    last_logged = 0
    with open(os.path.join(d, "trainer_log.jsonl"), "w") as f:
        for step in range(1, stop_step + 1):
            if step == inf_step:
                # emulate an overflowed weight: one entry of the embedding of
                # the space byte becomes +inf
                with torch.no_grad():
                    model.tok.weight[ord(" "), 0] = float("inf")
            xb, yb = get_batch(gen)
            cur_lr = sched.get_last_lr()[0]
            loss = lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = grad_norm_and_clip(model, 1.0)  # HF default max_grad_norm=1.0
            opt.step()
            sched.step()
            # transformers.Trainer with logging_nan_inf_filter=True (default):
            # a non-finite step loss is replaced by tr_loss / (1 + steps since last log)
            lt = loss.detach()
            if torch.isnan(lt) or torch.isinf(lt):
                tr_loss = tr_loss + tr_loss / (1 + (step - 1) - last_logged)
            else:
                tr_loss = tr_loss + lt.item()
            # logging_steps=1
            logged_loss = round(tr_loss / (step - last_logged), 4)
            tr_loss, last_logged = 0.0, step
            f.write(jline({"loss": logged_loss, "grad_norm": sig(gn, 5),
                           "learning_rate": sig(cur_lr, 5),
                           "epoch": round(step / steps_per_epoch, 4), "step": step}))
            if step % save_steps == 0:
                save_checkpoint(d, tmp, step, model, opt, sched)
    shutil.rmtree(tmp)
    write_config(d, max_steps=max_steps, warmup_steps=warmup, learning_rate=lr,
                 n_params=n_params(model), logging_steps=1, save_steps=save_steps,
                 logging_nan_inf_filter=True)
    return {"format": "hf_jsonl", "fault_steps": [inf_step],
            "notes": (f"LR {lr:g} (too high for this model); at step {inf_step} one weight is set "
                      "to +inf, loss and all gradients become NaN from that step on; HF's "
                      "logging_nan_inf_filter hides the NaN loss (logged as 0.0 with "
                      "logging_steps=1) while grad_norm is NaN; run killed at step "
                      f"{stop_step} of max_steps {max_steps}")}


def run_plateau(name="plateau", max_steps=1500, lr=3e-3, kill_step=400, log_every=2,
                val_every=100, save_steps=500, seed=4):
    d = run_dir(name)
    gen = seed_all(seed)
    model = MLPLM()
    # standard init trick: output bias = log unigram frequencies of the data
    cnt = torch.bincount(TRAIN, minlength=VOCAB).double() + 1
    logp = torch.log(cnt / cnt.sum())
    unigram_entropy = -(cnt / cnt.sum() * logp).sum().item()
    with torch.no_grad():
        model.out.bias.copy_(logp.float())
    warmup = round(0.03 * max_steps)
    opt, sched = make_opt(model, lr, warmup, max_steps, "constant_with_warmup")
    tmp = tempfile.mkdtemp()
    batches_per_epoch = len(TRAIN) // (BATCH * SEQ)
    rows = []
    for step in range(1, max_steps + 1):
        if step == kill_step:
            # kill the hidden layer: every ReLU is dead from now on
            with torch.no_grad():
                model.hidden.weight.zero_()
                model.hidden.bias.fill_(-1000.0)
        xb, yb = get_batch(gen, ctx=model.ctx)
        cur_lr = sched.get_last_lr()[0]
        loss = lm_loss(model, xb, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = grad_norm_and_clip(model, 1.0)
        opt.step()
        sched.step()
        # Lightning: `step` is the 0-based index of the optimizer step, logged when
        # (step + 1) % log_every_n_steps == 0
        lstep = step - 1
        epoch = lstep // batches_per_epoch
        if step % log_every == 0:
            rows.append({"epoch": epoch, "grad_norm": sig(gn, 5), "lr-AdamW": sig(cur_lr, 5),
                         "step": lstep, "train_loss_step": sig(loss.item(), 5)})
        if step % val_every == 0:
            rows.append({"epoch": epoch, "step": lstep, "val_loss": sig(eval_loss(model), 5)})
        if step % save_steps == 0:
            save_checkpoint(d, tmp, step, model, opt, sched)
    shutil.rmtree(tmp)
    keys = sorted({k for r in rows for k in r})
    with open(os.path.join(d, "metrics.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    write_config(d, max_steps=max_steps, warmup_steps=warmup, learning_rate=lr,
                 lr_scheduler_type="constant_with_warmup", n_params=n_params(model),
                 logging_steps=log_every, save_steps=save_steps, eval_steps=val_every,
                 model="MLP LM (8-byte context, emb 32, hidden 256, ReLU)")
    return {"format": "lightning_csv", "fault_steps": [kill_step - 1],
            "unigram_entropy": round(unigram_entropy, 4),
            "notes": (f"MLP LM; before optimizer step {kill_step} (Lightning step "
                      f"{kill_step - 1}) the hidden layer is zeroed with bias -1000 so all ReLUs "
                      "are dead: loss goes flat at the unigram entropy and grad_norm collapses "
                      "while LR stays at its constant peak. Steps in the CSV are Lightning's "
                      "0-based optimizer step index.")}


def run_no_warmup(name="no_warmup", max_steps=1000, lr=3e-2, logging_steps=2, save_steps=500,
                  seed=5, clip=None):
    d = run_dir(name)
    gen = seed_all(seed)
    model = TinyGPT()
    opt, sched = make_opt(model, lr, 0, max_steps, "constant")
    clock = Clock()
    tmp = tempfile.mkdtemp()
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        for step in range(1, max_steps + 1):
            xb, yb = get_batch(gen)
            cur_lr = sched.get_last_lr()[0]
            loss = lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = grad_norm_and_clip(model, clip)
            opt.step()
            sched.step()
            clock.tick()
            if step % logging_steps == 0 or step == 1:
                f.write(jline({"step": step, "loss": sig(loss.item()), "grad_norm": sig(gn, 4),
                               "lr": sig(cur_lr, 4), "tokens": step * BATCH * SEQ,
                               "time": round(clock.t, 3)}))
            if step % save_steps == 0:
                save_checkpoint(d, tmp, step, model, opt, sched)
    shutil.rmtree(tmp)
    write_config(d, max_steps=max_steps, warmup_steps=0, learning_rate=lr,
                 lr_scheduler_type="constant", n_params=n_params(model), max_grad_norm=clip,
                 logging_steps=logging_steps, save_steps=save_steps)
    return {"format": "jsonl", "fault_steps": [1],
            "notes": (f"constant LR {lr:g} from step 1, no warmup, no gradient clipping: grad-norm "
                      "spikes and loss jumps in the first ~100 steps while the model is stuck "
                      "near the unigram loss; it still trains afterwards, to a worse loss than "
                      "the healthy run")}


def run_fp16_loss_scale(name="fp16_loss_scale", iters=1000, lr=1e-3, fault_it=600,
                        log_interval=5, save_interval=200, window=200, seed=6):
    d = run_dir(name)
    gen = seed_all(seed)
    model = TinyGPT()
    warmup = round(0.03 * iters)
    opt, sched = make_opt(model, lr, warmup, iters)
    clock = Clock()
    tmp = tempfile.mkdtemp()
    scale, min_scale, good = 2.0 ** 32, 1.0, 0
    args = {"lr": lr, "min_lr": lr * 0.1, "lr_decay_style": "cosine", "lr_warmup_iters": warmup,
            "train_iters": iters, "global_batch_size": BATCH, "micro_batch_size": BATCH,
            "seq_length": SEQ, "clip_grad": 1.0, "bf16": False, "fp16": True,
            "initial_loss_scale": 2 ** 32, "min_loss_scale": 1.0, "loss_scale_window": window,
            "hysteresis": 1, "num_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
            "weight_decay": 0.1, "adam_beta1": 0.9, "adam_beta2": 0.95,
            "log_interval": log_interval, "save_interval": save_interval, "save": "checkpoints",
            "seed": seed}
    params = [p for p in model.parameters()]
    overflow_its, first_min_it = [], None
    with open(os.path.join(d, "train.log"), "w") as f:
        f.write(megatron_header(args, n_params(model)))
        losses, t_int, skipped, last_gn = [], 0.0, 0, 0.0
        for it in range(1, iters + 1):
            xb, yb = get_batch(gen)
            cur_lr = sched.get_last_lr()[0]
            loss = lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            (loss * scale).backward()
            if it >= fault_it:
                # persistent fp16 overflow (e.g. an attention-logit overflow in a
                # layer): one gradient entry is inf on every iteration from now on
                params[0].grad.view(-1)[0] = float("inf")
            # real fp16 overflow detection: cast the scaled grads to half
            half = [p.grad.half() for p in params]
            overflow = any(not torch.isfinite(h).all() for h in half)
            losses.append(loss.item())
            if overflow:
                new = max(scale / 2, min_scale)
                f.write(f"[{clock.stamp()}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
                        f"OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale:.1f}, "
                        f"reducing to {new:.1f}\n")
                overflow_its.append(it)
                scale, good = new, 0
                skipped += 1
                if scale == min_scale and first_min_it is None and it >= fault_it:
                    first_min_it = it
                gn = last_gn  # Megatron-style: repeat previous grad norm
            else:
                for p, h in zip(params, half):
                    p.grad = h.float() / scale  # unscale the fp16 grads
                gn = grad_norm_and_clip(model, 1.0)
                opt.step()
                sched.step()  # skipped iterations do not advance the schedule
                good += 1
                if good % window == 0:
                    scale *= 2
                last_gn = gn
            t_int += clock.tick()
            if it % log_interval == 0:
                f.write(megatron_line(it, iters, cur_lr, sum(losses) / len(losses), scale, gn,
                                      skipped, 0, 1000 * t_int / log_interval))
                losses, t_int, skipped = [], 0.0, 0
            if it % save_interval == 0:
                save_checkpoint(d, tmp, it, model, opt, sched)
                f.write(f"saving checkpoint at iteration {it:7d} to checkpoints\n")
                f.write(f"  successfully saved checkpoint at iteration {it:7d} to checkpoints\n")
    shutil.rmtree(tmp)
    write_config(d, max_steps=iters, warmup_steps=warmup, learning_rate=lr,
                 n_params=n_params(model), fp16=True, logging_steps=log_interval,
                 save_steps=save_interval, initial_loss_scale=2 ** 32, loss_scale_window=window,
                 min_loss_scale=1.0)
    pre = [i for i in overflow_its if i < fault_it]
    return {"format": "megatron", "fault_steps": [fault_it],
            "loss_scale_min_step": first_min_it,
            "overflow_count_before_fault": len(pre),
            "overflow_count_after_fault": len(overflow_its) - len(pre),
            "notes": (f"emulated fp16 dynamic loss scaling (scaled grads cast to float16, "
                      f"skip+halve on inf/nan, x2 after {window} clean iterations, min 1.0), start "
                      f"2**32 so the first iterations back off; from iteration {fault_it} an inf "
                      "is injected into the grads every iteration: the scale collapses to 1.0 at "
                      f"iteration {first_min_it} and every later iteration is skipped. lm loss is "
                      "the mean forward loss of all 5 iterations of the interval, grad norm "
                      "repeats the last applied value on skipped iterations.")}


def run_resumed(name="resumed", max_steps=2000, crash_step=1300, lr=1e-3, logging_steps=5,
                save_steps=200, seed=7):
    d = run_dir(name)
    tmp = tempfile.mkdtemp()
    warmup = round(0.03 * max_steps)
    path = os.path.join(d, "metrics.jsonl")
    ckpts = {}

    def train(model, opt, sched, gen, start, end, clock, f):
        for step in range(start, end + 1):
            xb, yb = get_batch(gen)
            cur_lr = sched.get_last_lr()[0]
            loss = lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = grad_norm_and_clip(model, 1.0)
            opt.step()
            sched.step()
            clock.tick()
            if step % logging_steps == 0 or step == 1:
                f.write(jline({"step": step, "loss": sig(loss.item()), "grad_norm": sig(gn, 4),
                               "lr": sig(cur_lr, 4), "tokens": step * BATCH * SEQ,
                               "time": round(clock.t, 3)}))
            if step % save_steps == 0:
                ckpts[step] = save_checkpoint(d, tmp, step, model, opt, sched)

    # first process: trains until it "crashes" right after step crash_step
    gen = seed_all(seed)
    model = TinyGPT()
    opt, sched = make_opt(model, lr, warmup, max_steps)
    clock = Clock()
    with open(path, "w") as f:
        train(model, opt, sched, gen, 1, crash_step, clock, f)
    crash_t = clock.t
    del model, opt, sched
    # second process: a fresh model, restored from the last checkpoint
    resume_from = max(s for s in ckpts if s <= crash_step)
    gen = seed_all(seed + 1)  # new process, new data-order seed
    model = TinyGPT()
    opt, sched = make_opt(model, lr, warmup, max_steps)
    state = torch.load(ckpts[resume_from])
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    sched.load_state_dict(state["sched"])
    clock = Clock(crash_t + 240.0)  # 4 minutes to notice the crash and restart
    with open(path, "a") as f:
        train(model, opt, sched, gen, resume_from + 1, max_steps, clock, f)
    shutil.rmtree(tmp)
    write_config(d, max_steps=max_steps, warmup_steps=warmup, learning_rate=lr,
                 n_params=n_params(model), logging_steps=logging_steps, save_steps=save_steps,
                 resume_from_checkpoint=f"checkpoints/step_{resume_from}.pt")
    return {"format": "jsonl", "fault_steps": [crash_step], "resume_step": resume_from,
            "notes": (f"process crashed after step {crash_step}; resumed from the real checkpoint "
                      f"of step {resume_from} (model+optimizer+scheduler) and appended to the same "
                      f"file, so steps {resume_from + 1}-{crash_step} were trained and logged twice "
                      f"(every {logging_steps}th step is logged; the second pass is the valid "
                      "one); the clock jumps 240 s at the restart")}


RUNS = {
    "healthy": run_healthy,
    "spikes_recover": run_spikes_recover,
    "spike_no_recover": run_spike_no_recover,
    "nan_divergence": run_nan_divergence,
    "plateau": run_plateau,
    "no_warmup": run_no_warmup,
    "fp16_loss_scale": run_fp16_loss_scale,
    "resumed": run_resumed,
}


# ----------------------------------------------------------------------------
# re-read what was written, to measure the facts for EXPECTED.json

def read_records(name, fmt):
    """Return a list of (step, loss) in file order, loss may be nan/None."""
    d = os.path.join(HERE, name)
    recs = []
    if fmt in ("jsonl", "hf_jsonl"):
        fn = "metrics.jsonl" if fmt == "jsonl" else "trainer_log.jsonl"
        with open(os.path.join(d, fn)) as f:
            for line in f:
                o = json.loads(line)
                recs.append((o["step"], o.get("loss"), o.get("grad_norm")))
    elif fmt == "llmc":
        with open(os.path.join(d, "main.log")) as f:
            for line in f:
                p = dict(kv.split(":", 1) for kv in line.split())
                if "trl" in p:
                    recs.append((int(p["s"]), float(p["trl"]), float(p["norm"])))
    elif fmt == "megatron":
        with open(os.path.join(d, "train.log")) as f:
            for line in f:
                if line.startswith(" iteration"):
                    fields = [x.strip() for x in line.split("|")]
                    it = int(fields[0].split()[1].split("/")[0])
                    kv = dict(x.rsplit(":", 1) for x in fields[1:] if ":" in x)
                    loss = float(kv["lm loss"]) if "lm loss" in kv else None
                    recs.append((it, loss, float(kv["grad norm"])))
    elif fmt == "lightning_csv":
        with open(os.path.join(d, "metrics.csv")) as f:
            for r in csv.DictReader(f):
                if r["train_loss_step"]:
                    recs.append((int(r["step"]), float(r["train_loss_step"]), float(r["grad_norm"])))
    return recs


def dedupe_resumed(recs):
    """Later occurrences of a step replace earlier ones (resume semantics)."""
    out = []
    for r in recs:
        while out and out[-1][0] >= r[0]:
            out.pop()
        out.append(r)
    return out


def spikes(recs, factor=2.5, window=100, min_hist=20):
    """Onset steps where loss > factor * median(previous `window` finite losses)."""
    hist, onsets, prev = [], [], False
    for step, loss, _ in recs:
        ok = loss is not None and math.isfinite(loss)
        is_spike = ok and len(hist) >= min_hist and loss > factor * statistics.median(hist[-window:])
        if is_spike and not prev:
            onsets.append(step)
        prev = is_spike
        if ok:
            hist.append(loss)
    return onsets


def measure(name, info):
    fmt = info["format"]
    raw = read_records(name, fmt)
    recs = dedupe_resumed(raw)
    nan_first = None
    for step, loss, gn in recs:
        bad = [v for v in (loss, gn) if v is not None and not math.isfinite(v)]
        if bad:
            nan_first = step
            break
    e = {"format": fmt, "first_step": recs[0][0], "last_step": recs[-1][0],
         "records": sum(1 for r in raw if r[1] is not None),
         "fault_steps": info["fault_steps"], "nan_first_step": nan_first,
         "spike_steps": spikes(recs)}
    for k, v in info.items():
        if k not in e:
            e[k] = v
    if len(raw) != len(recs):
        e["duplicate_records"] = len(raw) - len(recs)
    e.update(CHECKS.get(name, lambda r, i: {})(recs, info))
    return e, recs


def _mean(recs, lo, hi):
    v = [l for s, l, _ in recs if lo <= s < hi and l is not None and math.isfinite(l)]
    return sum(v) / len(v)


def _check_spikes_recover(recs, info):
    out = {}
    for f in info["fault_steps"]:
        before = _mean(recs, f - 50, f)
        peak = max(l for s, l, _ in recs if f <= s < f + 3)
        med = statistics.median([l for s, l, _ in recs if f - 100 <= s < f])
        after = _mean(recs, f + 30, f + 50)
        out[str(f)] = {"peak_over_median100": round(peak / med, 2),
                       "mean_loss_50_before": round(before, 4),
                       "mean_loss_30_50_after": round(after, 4),
                       "recovered": after <= before * 1.05}
    return {"recovery": out}


def _check_spike_no_recover(recs, info):
    f = info["fault_steps"][0]
    pre = _mean(recs, f - 100, f)
    last = _mean(recs, recs[-1][0] - 100, recs[-1][0] + 1)
    return {"pre_fault_mean_loss_100": round(pre, 4), "last_100_mean_loss": round(last, 4),
            "last_over_pre": round(last / pre, 2),
            "min_loss_after_fault_over_pre": round(
                min(l for s, l, _ in recs if s > f + 50) / pre, 2)}


def _check_plateau(recs, info):
    last = recs[-1][0]
    w = [r for r in recs if r[0] > last - 800]
    a = sum(r[1] for r in w[:50]) / 50
    b = sum(r[1] for r in w[-50:]) / 50
    k = info["fault_steps"][0]
    gn_before = statistics.median(r[2] for r in recs if k - 200 <= r[0] < k)
    gn_after = statistics.median(r[2] for r in recs if r[0] > last - 800)
    return {"last_800_steps_change_pct": round(100 * abs(b - a) / a, 3),
            "plateau_mean_loss": round(sum(r[1] for r in w) / len(w), 4),
            "grad_norm_median_before": round(gn_before, 4),
            "grad_norm_median_plateau": round(gn_after, 4),
            "lr_at_plateau": "constant peak"}


def _check_no_warmup(recs, info):
    first100 = [r for r in recs if r[0] <= 100]
    ups = sum(1 for p, q in zip(first100, first100[1:]) if q[1] > p[1] * 1.1)
    return {"loss_jumps_gt10pct_first_100": ups,
            "max_grad_norm_first_10": max(r[2] for r in recs if r[0] <= 10),
            "final_mean_loss_100": round(_mean(recs, recs[-1][0] - 99, recs[-1][0] + 1), 4)}


def _check_fp16(recs, info):
    path = os.path.join(HERE, "fp16_loss_scale", "train.log")
    scales, pinned_from, overflow_lines = [], None, 0
    with open(path) as f:
        for line in f:
            if "OVERFLOW!" in line:
                overflow_lines += 1
            if line.startswith(" iteration"):
                it = int(line.split()[1].split("/")[0])
                sc = float(line.split("loss scale:")[1].split("|")[0])
                sk = int(line.split("skipped iterations:")[1].split("|")[0])
                scales.append((it, sc, sk))
    for i, (it, sc, sk) in enumerate(scales):
        if all(x[1] == 1.0 for x in scales[i:]):
            pinned_from = it
            break
    f0 = info["fault_steps"][0]
    return {"overflow_lines": overflow_lines,
            "loss_scale_pinned_at_1_from_logged_iteration": pinned_from,
            "skipped_iterations_total": sum(x[2] for x in scales),
            "skipped_iterations_after_fault": sum(x[2] for x in scales if x[0] > f0),
            "initial_loss_scale_backoff_done_by_iteration": next(
                it for it, sc, sk in scales if sk == 0),
            "median_loss_scale_before_fault": statistics.median(
                x[1] for x in scales if 100 <= x[0] < f0)}


CHECKS = {"spikes_recover": _check_spikes_recover, "spike_no_recover": _check_spike_no_recover,
          "plateau": _check_plateau, "no_warmup": _check_no_warmup,
          "fp16_loss_scale": _check_fp16}


def summarize(name, recs, e):
    losses = [r[1] for r in recs if r[1] is not None and math.isfinite(r[1])]
    print(f"[{name}] first={e['first_step']} last={e['last_step']} records={e['records']} "
          f"nan_first={e['nan_first_step']} spikes={e['spike_steps']}")
    print(f"   loss first={losses[0]:.3f} min={min(losses):.3f} last={losses[-1]:.3f}")


def main(argv):
    names = argv or list(RUNS)
    exp_path = os.path.join(HERE, "EXPECTED.json")
    expected = {}
    if os.path.exists(exp_path) and argv:
        with open(exp_path) as f:
            expected = json.load(f)
    for name in names:
        t = time.time()
        info = RUNS[name]()
        e, recs = measure(name, info)
        expected[name] = e
        summarize(name, recs, e)
        print(f"   {time.time() - t:.1f}s", flush=True)
    expected = {k: expected[k] for k in RUNS if k in expected}
    with open(exp_path, "w") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
