#!/usr/bin/env python3
"""Real tiny CPU training runs with the faults of issue 31 (the advice checked against
the run), written by a plain PyTorch loop as JSON Lines with a config beside them.

    pip install torch==2.13.0 && python tests/data/faults/make_fault_runs.py [NAME ...]
    python tests/data/faults/make_fault_runs.py data_fault --out /tmp/live --live 0.05
        # the same run written live, one record every 0.05 s (to watch it in the TUI)

The model, data and optimizer are sample_runs/make_samples.py's TinyGPT recipe (byte-level
stdlib sources, AdamW betas 0.9/0.95, clip 1.0, linear warm-up then cosine to 10%):

- ``data_fault``: from step 202 on every batch is uniformly random bytes (a data
  pipeline that started feeding a binary file): the loss jumps to ~ln(256) and stays.
- ``lr_jump``: from step 200 on the LR is 12x its planned peak, rising to 117x at the end
  (an LR set by hand / a scheduler bug); the loss never comes back to its level.
- ``lr_collapse``: the scheduler's horizon is 150 steps of a 400-step run: from step 150
  the LR is 1% of its peak; the loss stalls far above where it was heading.

Each run: ``metrics.jsonl`` (step, loss, grad_norm, lr, time), ``config.json``
(HF TrainingArguments names: max_steps, warmup_steps, learning_rate, adam_beta2,
max_grad_norm, save_steps ...) and empty ``checkpoints/step_<N>.pt`` markers.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "sample_runs"))

import make_samples as ms  # noqa: E402  (torch, the corpus, TinyGPT)
import torch  # noqa: E402

STEPS, WARMUP, PEAK, SAVE = 400, 20, 1e-3, 100


def lr_at(name: str, s: int) -> float:
    if s <= WARMUP:
        return PEAK * s / WARMUP
    horizon = 150 if name == "lr_collapse" else STEPS
    prog = min(1.0, (s - WARMUP) / (horizon - WARMUP))
    lr = PEAK * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * prog)))
    if name == "lr_collapse" and s >= horizon:
        lr = PEAK * 0.01
    if name == "lr_jump" and s >= 200:
        lr = PEAK * (12 + 105 * (s - 200) / (STEPS - 200))
    return lr


def run(name: str, out: str, live: float = 0.0) -> None:
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "checkpoints"), exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(
            {
                "max_steps": STEPS,
                "warmup_steps": WARMUP,
                "learning_rate": PEAK,
                "lr_scheduler_type": "cosine",
                "per_device_train_batch_size": ms.BATCH,
                "seq_length": ms.SEQ,
                "max_grad_norm": 1.0,
                "adam_beta1": 0.9,
                "adam_beta2": 0.95,
                "adam_epsilon": 1e-8,
                "weight_decay": 0.1,
                "logging_steps": 1,
                "save_steps": SAVE,
                "save_strategy": "steps",
                "dataset": "stdlib-bytes",
            },
            f,
            indent=2,
        )
        f.write("\n")
    gen = ms.seed_all(3)
    model = ms.TinyGPT()
    opt = torch.optim.AdamW(model.parameters(), lr=PEAK, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
    t = time.time() if live else ms.T0
    with open(os.path.join(d, "metrics.jsonl"), "w") as f:
        for s in range(1, STEPS + 1):
            lr = lr_at(name, s)
            for g in opt.param_groups:
                g["lr"] = lr
            t0 = time.perf_counter()
            if name == "data_fault" and s >= 202:
                xb, yb = ms.random_batch(gen)
            else:
                xb, yb = ms.get_batch(gen)
            loss = ms.lm_loss(model, xb, yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = ms.grad_norm_and_clip(model, 1.0)
            opt.step()
            t = time.time() if live else t + (time.perf_counter() - t0)
            f.write(
                json.dumps(
                    {
                        "step": s,
                        "loss": round(loss.item(), 5),
                        "grad_norm": round(gn, 5),
                        "lr": float(f"{lr:.6g}"),
                        "time": round(t, 3),
                    }
                )
                + "\n"
            )
            f.flush()
            if s % SAVE == 0:
                open(os.path.join(d, "checkpoints", f"step_{s}.pt"), "w").close()
            if live:
                time.sleep(live)


def main(argv: list[str]) -> int:
    out, live, names = HERE, 0.0, []
    it = iter(argv)
    for a in it:
        if a == "--out":
            out = next(it)
        elif a == "--live":
            live = float(next(it))
        else:
            names.append(a)
    for name in names or ["data_fault", "lr_jump", "lr_collapse"]:
        run(name, out, live)
        print(os.path.join(out, name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
