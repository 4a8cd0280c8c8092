"""Run configuration read from the run itself (config files beside the logs).

Generic: any JSON / YAML / TOML mapping that uses the usual names (HF
TrainingArguments, Megatron arguments, nanoGPT / llm.c, Lightning hparams) is
flattened and matched against the aliases below. Never unpickles anything
(``training_args.bin`` is a pickle and is left alone).
"""

from __future__ import annotations

import json
import os

from tsm_tui.settings import RunInfo

CONFIG_NAMES = ("config.json", "training_args.json", "hparams.yaml", "hparams.yml", "config.yaml",
                "config.yml", "train_config.yaml", "args.json", "config.toml", "train.toml")

_ALIASES: dict[str, tuple[str, ...]] = {
    "total_steps": ("max_steps", "total_steps", "train_iters", "max_iters", "num_training_steps",
                    "training_steps", "train_steps", "max_duration_steps"),
    "warmup_steps": ("warmup_steps", "lr_warmup_iters", "warmup_iters", "num_warmup_steps", "lr_warmup_steps",
                     "t_warmup"),
    "peak_lr": ("learning_rate", "lr", "max_lr", "peak_lr", "base_lr"),
    "batch_size": ("global_batch_size", "total_batch_size_sequences", "train_batch_size", "batch_size",
                   "per_device_train_batch_size", "global_train_batch_size"),
    "batch_tokens": ("batch_tokens", "tokens_per_batch", "total_batch_size", "global_batch_size_tokens"),
    "seq_len": ("seq_length", "seq_len", "max_seq_length", "block_size", "max_seq_len", "sequence_length",
                "context_length", "cutoff_len"),
    "params": ("n_params", "num_params", "params", "num_parameters", "param_count", "model_params"),
    "clip": ("max_grad_norm", "clip_grad", "grad_clip", "gradient_clipping", "clip_grad_norm", "max_norm"),
    "logging_steps": ("logging_steps", "log_interval", "log_every", "log_every_n_steps"),
    "save_steps": ("save_steps", "save_interval", "checkpoint_every", "save_every", "ckpt_interval"),
    "schedule": ("lr_scheduler_type", "lr_decay_style", "scheduler", "lr_schedule"),
}
_INT = {"total_steps", "warmup_steps", "batch_size", "seq_len", "logging_steps", "save_steps"}


def _flatten(d, prefix="", out=None):
    if out is None:
        out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            if isinstance(v, dict):
                _flatten(v, f"{prefix}{k}.", out)
            else:
                out.setdefault(str(k).lower(), v)
                out[f"{prefix}{k}".lower()] = v
    return out


def load_mapping(path: str) -> dict | None:
    """Parse a JSON / YAML / TOML config; None when it is not one (no exception)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(4 << 20)
    except OSError:
        return None
    low = path.lower()
    try:
        if low.endswith(".json"):
            obj = json.loads(raw.decode("utf-8", "replace"))
        elif low.endswith((".yaml", ".yml")):
            import yaml

            obj = yaml.safe_load(raw.decode("utf-8", "replace"))
        elif low.endswith(".toml"):
            import tomllib

            obj = tomllib.loads(raw.decode("utf-8", "replace"))
        else:
            return None
    except Exception:  # any parse error: not a config we can use
        return None
    return obj if isinstance(obj, dict) else None


def apply_mapping(info: RunInfo, mapping: dict, origin: str) -> None:
    flat = _flatten(mapping)
    for field, names in _ALIASES.items():
        for n in names:
            v = flat.get(n)
            if v is None or isinstance(v, (dict, list)):
                continue
            try:
                if field == "schedule":
                    val = str(v)
                elif isinstance(v, bool):
                    continue
                else:
                    val = int(float(v)) if field in _INT else float(v)
            except (TypeError, ValueError):
                continue
            if field in ("params", "peak_lr", "total_steps") and not val:
                continue
            info.set(field, val, origin)
            break
    ratio = flat.get("warmup_ratio")
    if info.warmup_steps in (None, 0) and isinstance(ratio, (int, float)) and ratio > 0 and info.total_steps:
        info.set("warmup_steps", int(ratio * info.total_steps), origin, override=True)
    if info.precision is None:
        if flat.get("bf16") is True or str(flat.get("precision", "")).startswith("bf16"):
            info.set("precision", "bf16", origin)
        elif flat.get("fp16") is True or str(flat.get("precision", "")) in ("16", "16-mixed", "fp16"):
            info.set("precision", "fp16", origin)
    if info.params is None:
        layers = flat.get("num_hidden_layers") or flat.get("n_layer") or flat.get("num_layers") or flat.get("n_layers")
        hidden = flat.get("hidden_size") or flat.get("n_embd") or flat.get("d_model") or flat.get("dim")
        vocab = flat.get("vocab_size") or flat.get("padded_vocab_size")
        if all(isinstance(x, (int, float)) and x > 0 for x in (layers, hidden)):
            p = 12.0 * layers * hidden * hidden + (vocab or 0) * hidden
            info.set("params", p, f"{origin} (12*L*d^2 + V*d)")


def read_run_config(info: RunInfo, directory: str) -> list[str]:
    """Apply the config files found in ``directory``; returns the files used."""
    used = []
    for name in CONFIG_NAMES:
        p = os.path.join(directory, name)
        if os.path.isfile(p):
            m = load_mapping(p)
            if m:
                apply_mapping(info, m, name)
                used.append(p)
    return used
