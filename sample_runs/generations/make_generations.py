"""Make the four ``sample_runs/generations/`` runs by real (tiny, CPU) training.

    python sample_runs/generations/make_generations.py [healthy repetitive empty gibberish]

(torch CPU, one thread, a few minutes per run.) A character-level GPT (2 layers,
d=64, 4 heads, context 64, ReLU MLP, ~0.1M parameters, batch 16) is trained for 300 steps on the GPL-3, GFDL-1.3 and Apache-2.0
texts in /usr/share/common-licenses (whitespace collapsed). Every 30 steps it
samples one 160-character continuation from the end-of-text token (temperature
0.8, stopping at end-of-text), as llm.c does. The same seed, model and data are
used for every run; only the fault differs, always after step 150:

- healthy: no fault.                         -> llm.c stdout (``generating:`` blocks)
- repetitive: the data loader serves a duplicated boilerplate shard (one license
  sentence repeated) for 95% of the sequences (a dedup failure); this run
  goes on to step 480 so the loop can set in.
                                            -> metrics.jsonl + samples.jsonl
- empty: a special-token bug: sequences become a short fragment followed by
  end-of-text padding, and the pad positions are not masked out of the loss,
  so the model learns that end-of-text follows end-of-text: generation stops at
  once.                                      -> W&B files/output.log (``Step N sample:``)
- gibberish: the training data is encoded with a different tokenizer (same size,
  permuted ids for every character but space and end-of-text) while samples are
  still decoded with the original table.    -> one JSON Lines file with a ``sample`` field

The JSON Lines runs also log what the training forward pass measures: the share
of zero ReLU outputs (``act_zero_frac``), the mean attention entropy in nats
(``attn_entropy``) and the largest pre-softmax attention logit (``max_attn_logit``).
Metrics are written every 5 steps. Sizes are kept small (the four runs < 60 KB).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS, LOG_EVERY, SAMPLE_EVERY, FAULT_AT = 300, 5, 30, 150
CTX, BATCH, D, HEADS, LAYERS = 64, 16, 64, 4, 2
PEAK_LR, WARMUP = 3e-3, 20
STEPS_REPETITIVE = 480  # the loop needs longer to set in than the other faults
GEN_CHARS, TEMP = 160, 0.8
BOILERPLATE = "This License applies to any program. "


def corpus() -> str:
    parts = []
    for name in ("GPL-3", "GFDL-1.3", "Apache-2.0"):
        with open(os.path.join("/usr/share/common-licenses", name), encoding="utf-8") as f:
            parts.append(f.read())
    return re.sub(r"\s+", " ", " ".join(parts)).strip()


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.fc, self.out = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)
        self.stats: dict[str, float] = {}

    def forward(self, x, measure=False):
        B, T, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        q, k, v = (t.view(B, T, HEADS, D // HEADS).transpose(1, 2) for t in (q, k, v))
        att = q @ k.transpose(-2, -1) / math.sqrt(D // HEADS)
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = att.masked_fill(~mask, float("-inf"))
        p = F.softmax(att, dim=-1)
        if measure:
            with torch.no_grad():
                ent = -(p * torch.log(p.clamp_min(1e-12))).sum(-1)  # per query
                self.stats = {"ent": ent.mean().item(), "max_logit": att.masked_fill(~mask, -1e9).max().item()}
        x = x + self.proj((p @ v).transpose(1, 2).reshape(B, T, D))
        h = F.relu(self.fc(self.ln2(x)))
        if measure:
            self.stats["zero"] = (h == 0).float().mean().item()
        return x + self.out(h)


class TinyGPT(nn.Module):
    def __init__(self, vocab: int) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, D), nn.Embedding(CTX, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln, self.head = nn.LayerNorm(D), nn.Linear(D, vocab)

    def forward(self, idx, measure=False):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x, measure)
        return self.head(self.ln(x))


def lr_at(step: int, steps: int = STEPS) -> float:
    if step < WARMUP:
        return PEAK_LR * (step + 1) / WARMUP
    t = (step - WARMUP) / (steps - WARMUP)
    return PEAK_LR * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def train(fault: str):
    steps = STEPS_REPETITIVE if fault == "repetitive" else STEPS
    torch.manual_seed(1234)
    text = corpus()
    chars = sorted(set(text + BOILERPLATE))
    stoi = {c: i + 1 for i, c in enumerate(chars)}  # 0 = end-of-text
    itos = {i: c for c, i in stoi.items()}
    V = len(chars) + 1
    data = torch.tensor([stoi[c] for c in text])
    dup = torch.tensor([stoi[c] for c in BOILERPLATE * (4 * CTX // len(BOILERPLATE) + 2)])
    g = torch.Generator().manual_seed(99)
    perm = torch.arange(V)
    movable = torch.tensor([i for i in range(1, V) if itos[i] != " "])
    perm[movable] = movable[torch.randperm(len(movable), generator=g)]
    model = TinyGPT(V)
    opt = torch.optim.AdamW(model.parameters(), lr=PEAK_LR, betas=(0.9, 0.95), weight_decay=0.1)
    rows, samples = [], []
    for step in range(1, steps + 1):
        faulty = step > FAULT_AT
        ix = torch.randint(len(data) - CTX - 1, (BATCH,), generator=g)
        x = torch.stack([data[i:i + CTX] for i in ix])
        y = torch.stack([data[i + 1:i + CTX + 1] for i in ix])
        if faulty and fault == "repetitive":
            j = torch.randint(len(BOILERPLATE), (BATCH,), generator=g)
            take = torch.rand(BATCH, generator=g) < 0.95
            for b in range(BATCH):
                if take[b]:
                    x[b], y[b] = dup[j[b]:j[b] + CTX], dup[j[b] + 1:j[b] + CTX + 1]
        elif faulty and fault == "empty":
            seq = torch.zeros(BATCH, CTX + 1, dtype=torch.long)
            for b in range(BATCH):
                n = int(torch.randint(4, 12, (1,), generator=g))
                seq[b, :n] = data[ix[b]:ix[b] + n]  # the rest stays end-of-text padding
            x, y = seq[:, :-1], seq[:, 1:]  # pad targets not masked (the bug)
        elif faulty and fault == "gibberish":
            x, y = perm[x], perm[y]
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step - 1, steps)
        measure = step % LOG_EVERY == 0
        logits = model(x, measure)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        opt.step()
        if measure:
            st = [b.stats for b in model.blocks]
            rows.append({"step": step, "loss": round(loss.item(), 4), "lr": round(lr_at(step - 1, steps), 7),
                         "grad_norm": round(norm, 4),
                         "act_zero_frac": round(sum(s["zero"] for s in st) / len(st), 4),
                         "attn_entropy": round(sum(s["ent"] for s in st) / len(st), 4),
                         "max_attn_logit": round(max(s["max_logit"] for s in st), 3)})
        if step % SAMPLE_EVERY == 0:
            samples.append((step, generate(model, itos)))
        if step % 100 == 0:
            print(f"{fault} step {step} loss {loss.item():.3f}", file=sys.stderr)
    n_params = sum(p.numel() for p in model.parameters())
    return rows, samples, n_params


@torch.no_grad()
def generate(model, itos) -> str:
    g = torch.Generator().manual_seed(7)
    idx = torch.zeros(1, 1, dtype=torch.long)
    out = []
    for _ in range(GEN_CHARS):
        logits = model(idx[:, -CTX:])[0, -1] / TEMP
        nxt = int(torch.multinomial(F.softmax(logits, -1), 1, generator=g))
        if nxt == 0:
            break
        out.append(itos[nxt])
        idx = torch.cat([idx, torch.tensor([[nxt]])], dim=1)
    return "".join(out)


def write_llmc(d, rows, samples, n_params) -> None:
    by_step = dict(samples)
    with open(os.path.join(d, "stdout.log"), "w") as f:
        f.write("+-----------------------+----------------------------------------------------+\n")
        f.write(f"| num_parameters        | {n_params:<50} |\n")
        f.write(f"| max_seq_len           | {CTX:<50} |\n")
        f.write(f"| train_num_batches     | {STEPS:<50} |\n")
        f.write(f"| learning_rate         | {PEAK_LR:<50} |\n")
        f.write("+-----------------------+----------------------------------------------------+\n")
        for r in rows:
            s = r["step"]
            f.write(f"step {s:4d}/{STEPS} | loss {r['loss']:.6f} (+0.00z)| norm {r['grad_norm']:6.4f} (+0.00z)| "
                    f"lr {r['lr']:.2e} | 11.00 ms | -100.0% bf16 MFU | 186182 tok/s\n")
            if s in by_step:  # llm.c samples at the top of the next iteration
                f.write(f"generating:\n---\n{by_step[s]}\n---\n")


def write_jsonl(path, rows, sample_col=None) -> None:
    with open(path, "w") as f:
        for r in rows:
            r = dict(r)
            if sample_col and r["step"] in sample_col:
                r["sample"] = sample_col[r["step"]]
            f.write(json.dumps(r) + "\n")


def main() -> None:
    torch.set_num_threads(1)
    for fault in sys.argv[1:] or ("healthy", "repetitive", "empty", "gibberish"):
        rows, samples, n_params = train(fault)
        d = os.path.join(HERE, fault)
        os.makedirs(d, exist_ok=True)
        if fault == "healthy":
            write_llmc(d, rows, samples, n_params)
        elif fault == "repetitive":
            write_jsonl(os.path.join(d, "metrics.jsonl"), rows)
            with open(os.path.join(d, "samples.jsonl"), "w") as f:
                for s, t in samples:
                    f.write(json.dumps({"step": s, "text": t}) + "\n")
        elif fault == "empty":
            fd = os.path.join(d, "wandb", "run-20250101_000000-gen0empty", "files")
            os.makedirs(fd, exist_ok=True)
            by_step = dict(samples)
            with open(os.path.join(fd, "output.log"), "w") as f:
                for r in rows:
                    s = r["step"]
                    f.write(f"Step {s} -- Train loss: {r['loss']}, LR: {r['lr']}, Grad norm: {r['grad_norm']}\n")
                    if s in by_step:
                        f.write(f"Step {s} sample: {by_step[s]}\n")
        else:
            write_jsonl(os.path.join(d, "train_log.jsonl"), rows, dict(samples))


if __name__ == "__main__":
    main()
