#!/usr/bin/env python3
"""Which shapes of hand-written training output the tool reads (issue 26: "fix the class, not the file").

Each shape is what a training loop or a script prints or saves in the wild (a print format, a CSV
layout, a saved array), written as a 200-record log of a falling loss with one 6x spike at record 121.
For every shape the tool is run on the folder (``--report --json``) and the row says whether the
log was read (the steps counted), and whether the spike was found at its step (within one logging
interval). An unread shape is a class of logs the tool cannot judge at all: look at it before any one
file of the corpus.

    python bench/shapes.py [--cmd "python -m tsm_tui"] [--only NAME ...]

Exit 0 always; the last line counts the shapes read and the spikes found.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

#: one line per record: {e} epoch (1..), {s} step (10, 20, ...), {b} batch, {l} loss, {v} val loss, {r} reward
LINES = {
    "pipe_phase": "epoch {e} | train {l:.4f} | val {v:.4f} | lr 1.00e-03",
    "colon_phase": "Epoch {e}: train {l:.4f}, val {v:.4f}",
    "eq_phase": "epoch={e} train={l:.4f} val={v:.4f}",
    "trainloss_words": "Epoch {e}, Train Loss: {l:.4f}, Val Loss: {v:.4f}",
    "iter_slash": "[{e}/200] loss: {l:.4f}",
    "step_slash": "Step {s}/20000 | Loss {l:.4f} | LR 1.00e-04",
    "iter_it": "it {s}: loss {l:.4f}",
    "loss_paren": "epoch {e} loss {l:.4f} ({v:.4f})",
    "semicolon": "step {s}; loss {l:.4f}; grad_norm 1.000",
    "chinese": "Epoch {e}, 训练损失: {l:.4f}, 验证损失: {v:.4f}",
    "chinese_epoch": "第{e}轮 损失: {l:.4f}",
    "dash": "Epoch {e} - loss: {l:.4f} - val_loss: {v:.4f}",
    "mse": "epoch {e}, mse {l:.5f}",
    "nll": "iter {s} nll {l:.4f} kl 0.1",
    "ce": "step {s} ce {l:.4f} acc 0.41",
    "total": "[Epoch {e}] total_loss={l:.4f} recon={v:.4f}",
    "loss_is": "The loss at step {s} is {l:.4f}",
    "loss_of_epoch": "The loss of epoch {e} is {l:.4f}",
    "loss_at_epoch": "Loss at epoch {e}: {l:.4f}",
    "loss_paren_epoch": "Training Loss (epoch {e}): {l:.4f}",
    "train_loss_eq_nospace": "ep:{e},train_loss:{l:.4f},val_loss:{v:.4f}",
    "batch_of": "Batch {b} of epoch {e}: loss = {l:.4f}",
    "brackets": "[Epoch {e}][Iter {b}] loss {l:.4f} lr 1.00e-04",
    "brackets_named": "[epoch {e}] [loss: {l:.4f}] [val: {v:.4f}]",
    "dict_print": "{{'epoch': {e}, 'train_loss': {l:.4f}, 'val_loss': {v:.4f}}}",
    "cost": "Epoch: {e:04d} cost= {l:.9f}",
    "minibatch": "Iter {s}, Minibatch Loss= {l:.6f}, Training Accuracy= 0.90000",
    "logging_fmt": "2024-05-01 12:00:00,123 - INFO - Epoch {e} train_loss {l:.4f}",
    "caffe": "I0506 12:00:00.123 12345 solver.cpp:218] Iteration {s} (1.2 iter/s, 80s/100 iters), loss = {l:.4f}",
    "torch_tutorial": "[{e}, {b:5d}] loss: {l:.3f}",
    "tf_tutorial": "Epoch {e} Batch {b} Loss {l:.4f}",
    "step_hash": "Step #{s}\tLoss: {l:.4f}",
    "word2vec": "Average loss at step {s}: {l:.4f}",
    "fairseq_epoch": "| epoch {e:03d} | loss {l:.3f} | ppl {v:.2f} | wps 1000",
    "imagenet": "Epoch: [{e}][10/100]\tTime 0.100 (0.110)\tLoss {l:.4f} ({v:.4f})\tPrec@1 10.0 (11.0)",
    "grad_word": "step {s} | loss {l:.4f} | lr 1.0e-04 | grad 1.000",
    "bracket_iter": "[Iter {s}/2000] [loss {l:.4f}]",
    "mxnet": "INFO:root:Epoch[{e}] Batch [100]\tSpeed: 1000.00 samples/sec\tTrain-cross-entropy={l:.6f}",
    "gstep": "global_step={s}, loss={l:.4f}",
    "iteration_comma": "iteration {s}, loss: {l:.4f}, time: 0.1s",
    "tab_named": "step\t{s}\tloss\t{l:.4f}",
    "ep_bar": "Ep {e}: loss={l:.4f} acc=0.8",
    "episode": "Episode {e} | Reward: {r:.1f} | Loss: {l:.4f}",
    "xgboost": "[{e}]\ttrain-rmse:{l:.5f}\teval-rmse:{v:.5f}",
    "lightgbm": "[{e}]\ttraining's l2: {l:.5f}\tvalid_1's l2: {v:.5f}",
    "catboost": "{e}:\tlearn: {l:.7f}\ttest: {v:.7f}\tbest: {v:.7f} ({e})\ttotal: 1s\tremaining: 2s",
    "dl4j": "06:38:16.402 [main] INFO o.d.o.l.ScoreIterationListener - Score at iteration {s} is {l:.16f}",
    "espnet": "{e}epoch:train:1-100batch: iter_time=0.105, forward_time=0.2, loss={l:.3f}, acc=0.5",
    "accelerate_bar": "Epoch {e}: 100%|##########| 50/50 [00:10<00:00,  4.9it/s, train_loss: {l:.4f}]",
    "flax": "train epoch: {e}, loss: {l:.4f}, accuracy: 90.00",
    "tab_words": "Epoch: {e} \tTraining Loss: {l:.6f} \tValidation Loss: {v:.6f}",
    "kv_semicolon": "epoch={e}; loss={l:.4f}; val={v:.4f}",
    "upper": "ITER {s} LOSS {l:.4f}",
    "at_step": "loss = {l:.4f} @ step {s}",
    "german": "Epoche {e}, Verlust: {l:.4f}",
    "validation_marker": "step {s:>6} | loss: {l:.4f}\n=== Validation checkpoint ===",
    "spanish": "Época {e}, pérdida: {l:.4f}",
    "french": "Époque {e} - perte: {l:.4f}",
    "russian": "Эпоха {e}, потери: {l:.4f}",
    "portuguese": "Época {e} - perda: {l:.4f}",
    "korean": "에폭 {e}, 손실: {l:.4f}",
    "japanese": "エポック {e}, 損失: {l:.4f}",
    # the second batch (round 9's held-out logs and what print loops print beside them)
    "arrow_tloss": "Epoch [{e}]--->Tloss: {l:.4f}",
    "arrow": "epoch {e} -> loss {l:.4f}",
    "fat_arrow": "Epoch {e} => loss: {l:.4f}",
    "tensor_list": "epoch: {e} loss: tensor([{l:.4f}], device='cuda:0')",
    "numpy_list": "epoch {e} loss [{l:.4f}]",
    "value_first": "Epoch {e} @ 10:27 PM : {l:.4f} C.E. Loss, 94.28% Accuracy",
    "epoch_words_pipe": "Epoch {e:04d} in static KGE | Ave Loss: {l:.4f}",
    "json_in_text": '2024-01-01 00:00:00 INFO metrics: {{"epoch": {e}, "loss": {l:.4f}}}',
    "caffe2_blob": "Tensor loss of type float. Dims: (): {l:.5f}",
    "loss_tensor": "Epoch {e} loss tensor({l:.4f}, device='cuda:0', grad_fn=<NllLossBackward0>)",
    "mnist_example": "Train Epoch: {e} [{b}/60000 (50%)]\tLoss: {l:.6f}",
    "sklearn_mlp": "Iteration {e}, loss = {l:.8f}",
    "pyg": "Epoch: {e:03d}, Loss: {l:.4f}, Train: 0.9000, Val: 0.8000, Test: 0.7000",
    "lightning_bar": "Epoch {e}: 100%|##########| 100/100 [00:01<00:00, 50.00it/s, loss={l:.3f}, v_num=0]",
}
#: whole files: (file name, header or None, row format)
FILES = {
    "csv_phase": ("log.csv", "epoch,train,val", "{e},{l:.4f},{v:.4f}"),
    "csv_semicolon": ("log.csv", "iteration;loss", "{s};{l:.4f}"),
    "csv_decimal_comma": ("log.csv", "epoch;loss", "{e};{lc}"),
    "tsv": ("log.tsv", "epoch\tloss", "{e}\t{l:.4f}"),
    "csv_pandas_index": ("history.csv", ",loss,val_loss", "{i},{l:.4f},{v:.4f}"),
    "csv_mse": ("results.csv", "step,mse", "{s},{l:.4f}"),
    "csv_words": ("Log.CSV", "Epoch,Train Loss,Valid Loss", "{e},{l:.4f},{v:.4f}"),
    "csv_long": ("metrics.csv", "metric,step,value", "train_loss,{s},{l:.4f}"),
    "txt_two_names": ("loss.txt", "epoch loss", "{e} {l:.4f}"),
    "txt_two_columns": ("loss_log.txt", None, "{e} {l:.4f}"),
    "bare_loss_txt": ("loss.txt", None, "{l:.6f}"),
    "jsonl_nested": ("metrics.jsonl", None, '{{"step": {s}, "metrics": {{"train": {{"loss": {l:.6f}}}}}}}'),
    "jsonl_string_numbers": ("log.jsonl", None, '{{"step": "{s}", "loss": "{l:.4f}"}}'),
    "jsonl_split": ("log.jsonl", None, '{{"step": {s}, "split": "train", "loss": {l:.6f}}}'),
    "jsonl_name_value": ("metrics.jsonl", None, '{{"name": "loss", "step": {s}, "value": {l:.6f}}}'),
    "txt_epoch_hyphen": ("loss.txt", None, "{e:04d}-{l:.4f}"),
    "fastai_table": (
        "train.log",
        "epoch     train_loss  valid_loss  accuracy  time",
        "{i:<9} {l:<11.6f} {v:<11.6f} 0.8  00:10",
    ),
    "yolov5_stdout": (
        "train.log",
        "      Epoch    GPU_mem   box_loss   obj_loss   cls_loss  Instances       Size",
        "      {i}/199      3.5G     {l:.4f}    0.03120    0.01234         50        640",
    ),
}
#: shapes known not to be read: kept apart so that a change that reads one shows (the second batch's rest:
#: none of them in the corpus; a tqdm bar with a loss glued after it, a loss with its epoch in parentheses
#: after it, a glued "E001", allennlp's bar, a percent before the loss, a loss in a sentence, one-bracket
#: GAN pairs with D(x) terms, pytorch-a2c-ppo's three-line update, a markdown table, CatBoost's TSV (its
#: catboost_training.json is read), a pandas index column)
KNOWN: dict[str, tuple[str, str | None, str]] = {
    "tqdm_glued": ("train.log", None, "{b}it [00:10,  2.38it/s]{l:.4f}"),
    "loss_paren_epoch_after": ("train.log", None, "train loss = {l:.4f} (epoch {e})"),
    "glued_epoch_letter": ("train.log", None, "E{e:03d} trn_loss={l:.4f} val_loss={v:.4f}"),
    "allennlp": ("train.log", None, "loss: {l:.4f} ||: 100%|##########| 100/100 [00:01<00:00, 50.00it/s]"),
    "percent_epoch": ("train.log", None, "Epoch {e} [100%] loss={l:.4f}"),
    "loss_sentence_was": ("train.log", None, "At epoch {e} the training loss was {l:.4f}"),
    "gan_one_bracket": ("train.log", None, "[{e}/200] Loss_D: {v:.4f} Loss_G: {l:.4f} D(x): 0.5 D(G(z)): 0.4 / 0.3"),
    "markdown_table": ("train.md", "| Epoch | Train Loss | Val Loss |\n|---|---|---|", "| {e} | {l:.4f} | {v:.4f} |"),
    "catboost_tsv": ("catboost_info/learn_error.tsv", "iter\tLogloss", "{i}\t{l:.6f}"),
    "csv_pandas_unnamed": ("loss.csv", "Unnamed: 0,0", "{i},{l:.4f}"),
}


def _series(n: int = 200, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    out = [2.0 * math.exp(-i / 60) + 0.3 + rng.gauss(0, 0.02) for i in range(n)]
    out[120] *= 6
    return out


def _values(i: int, x: float) -> dict:
    return {
        "e": i + 1,
        "s": 10 * (i + 1),
        "b": 100 * (i + 1),
        "i": i,
        "l": x,
        "v": x + 0.1,
        "r": 10.0 * (i + 1),
        "lc": f"{x:.4f}".replace(".", ","),
    }


def write(root: str) -> dict[str, str]:
    """Every shape's folder under ``root``: name -> folder."""
    xs = _series()
    out = {}
    for name, fmt in LINES.items():
        d = os.path.join(root, name)
        os.makedirs(d)
        with open(os.path.join(d, "train.log"), "w", encoding="utf-8") as f:
            f.write("".join(fmt.format(**_values(i, x)) + "\n" for i, x in enumerate(xs)))
        out[name] = d
    for name, (fn, header, fmt) in {**FILES, **KNOWN}.items():
        d = os.path.join(root, name)
        os.makedirs(os.path.join(d, os.path.dirname(fn)), exist_ok=True)
        rows = ([header] if header is not None else []) + [fmt.format(**_values(i, x)) for i, x in enumerate(xs)]
        with open(os.path.join(d, fn), "w", encoding="utf-8") as f:
            f.write("\n".join(rows) + "\n")
        out[name] = d
    try:
        import numpy as np

        d = os.path.join(root, "npy")
        os.makedirs(d)
        np.save(os.path.join(d, "train_losses.npy"), np.array(xs))
        out["npy"] = d
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cmd", default=f"{shlex.quote(sys.executable)} -m tsm_tui")
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args(argv)
    cmd = shlex.split(a.cmd)
    read = found = 0
    with tempfile.TemporaryDirectory() as root:
        shapes = write(root)
        names = [n for n in shapes if not a.only or n in a.only]
        print("| shape | read | steps | spike found at |")
        print("|---|---|---|---|")
        for name in names:
            p = subprocess.run(cmd + [shapes[name], "--report", "--json"], capture_output=True, text=True)
            try:
                r = json.loads(p.stdout)
            except ValueError:
                why = (p.stderr.strip().splitlines() or ["?"])[-1][:80]
                print(f"| {name} | no | - | ({why}) |")
                continue
            n = r["steps"]["count"]
            ok = n >= 180
            read += ok
            at = [x["step"] for x in r["alerts"] if x["check"] == "loss_spike" and x["severity"] != "info"]
            unit = (r["steps"]["last"] or 0) / 200 if r["steps"]["last"] else 1
            hit = any(abs(s - 121 * unit) <= max(unit, 1) + 1 or abs(s - 120 * unit) <= 1 for s in at)
            found += hit
            print(f"| {name} | {'yes' if ok else 'no'} | {n} | {at[0] if at else '-'}{'' if hit else ' (missed)'} |")
        print(f"\nshapes read {read}/{len(names)}, spikes found {found}/{len(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
