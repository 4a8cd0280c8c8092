"""Config files in the monitor: the run configuration beside the logs
(``read_run_config``: the usual names into a RunInfo) and ``--config FILE``.
Every file is read through the one guarded entry point,
``sources.config_load.read_config_file`` (size, graph and number bounds; issue
32); the pre-flight plan, which reads the same files in full, is in
``tsm_tui.preflight.plan``.

Generic: any JSON / YAML / TOML mapping that uses the usual names (HF
TrainingArguments, Megatron arguments, nanoGPT / llm.c, Lightning hparams) is
flattened and matched against the aliases below. Never unpickles anything
(``training_args.bin`` is a pickle and is left alone). A file refused by a bound,
or a value no setting can hold, is a note (``config.yaml: recursive alias at line
1 ...: ignored``; ``max_steps = a 401-digit integer ignored``): the run is judged
without it.
"""

from __future__ import annotations

import math
import os
import stat

from tsm_tui.core.numbers import UNSET_COUNT, num, shown, unusable  # noqa: F401  (num: re-exported)
from tsm_tui.core.settings import RunInfo
from tsm_tui.sources.arglist import parse_arg_list  # noqa: F401  (re-exported: tests, pre-flight)
from tsm_tui.sources.config_load import MAX_CONFIG_BYTES, ConfigError, read_config_file  # noqa: F401
from tsm_tui.sources.config_yaml import MAX_YAML_DEPTH, MAX_YAML_NODES, safe_yaml  # noqa: F401
from tsm_tui.sources.params import count_params

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
    "clip": ("max_grad_norm", "clip_grad", "grad_clip", "gradient_clipping", "clip_grad_norm", "max_norm",
             "gradient_clip_val"),
    "logging_steps": ("logging_steps", "log_interval", "log_every", "log_every_n_steps"),
    "save_steps": ("save_steps", "save_interval", "checkpoint_every", "save_every", "ckpt_interval"),
    "schedule": ("lr_scheduler_type", "lr_decay_style", "scheduler", "lr_schedule"),
    "beta2": ("adam_beta2", "optimizer.beta2", "optim.beta2", "beta2"),
    "eps": ("adam_epsilon", "adam_eps", "optimizer.eps", "optim.eps", "optimizer.epsilon"),
    "save_strategy": ("save_strategy",),
    "dataset": ("dataset", "dataset_name", "data_path", "train_file", "train_data", "dataset_path", "data.path",
                "data.dataset", "data_dir"),
}
_TEXT = {"schedule", "save_strategy", "dataset"}
#: HF save_strategy values under which save_steps plans nothing (TrainingArguments keeps
#: save_steps=500 in training_args.json whatever the strategy)
_NO_STEP_SAVES = ("no", "epoch", "best", "intervalstrategy.no", "intervalstrategy.epoch", "savestrategy.no",
                  "savestrategy.epoch", "savestrategy.best")
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


def read_run_config(info: RunInfo, directory: str, cache: dict | None = None,
                    notes: list[tuple[str, str]] | None = None) -> list[str]:
    """Apply the config files found in ``directory``; returns the files used.
    ``cache`` (path -> ((size, mtime), mapping, notes)): a file unchanged since it
    was last loaded is not read and parsed again. ``notes`` gets (path, what was
    ignored) for a file refused or a value no setting can hold."""
    used = []
    for name in CONFIG_NAMES:
        p = os.path.join(directory, name)
        try:
            st = os.stat(p)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            sig = (st.st_size, st.st_mtime_ns)
            hit = cache.get(p) if cache is not None else None
            if hit is not None and hit[0] == sig:
                m, refused = hit[1], hit[2]
            else:
                m, refused = load_config(p)
                if cache is not None:
                    cache[p] = (sig, m, refused)
            if refused and notes is not None:
                notes.append((p, refused))
            if m:
                said = apply_mapping(info, m, name)
                if notes is not None:
                    notes += [(p, n) for n in said]
                used.append(p)
    return used


def load_config(path: str) -> tuple[dict | None, str | None]:
    """(mapping or None, why the file was refused or None): never raises. A file
    that is no config (a pickle, a text file without options) is (None, None)."""
    try:
        m, _kind = read_config_file(path)
    except ConfigError as e:
        return None, f"{e.reason}: ignored"
    return m, None


def load_mapping(path: str) -> dict | None:
    """A JSON / YAML / TOML config (or an argument list) as a mapping; None when
    it is not one or cannot be read (no exception)."""
    return load_config(path)[0]


#: activation checkpointing: HF, Megatron (old and new flags), DeepSpeed's section, torchtitan, Lightning / PEFT
_GRAD_CKPT = ("gradient_checkpointing", "recompute_activations", "checkpoint_activations", "recompute_granularity",
              "activation_checkpointing.partition_activations", "use_gradient_checkpointing",
              "enable_gradient_checkpointing", "activation_checkpoint.mode", "ac_mode")


def _grad_checkpointing(flat: dict) -> bool | None:
    for k in _GRAD_CKPT:
        v = flat.get(k)
        if isinstance(v, bool):
            return v
        if isinstance(v, str) and v.strip():
            return v.strip().lower() not in ("none", "false", "no", "off", "0", "null")
    return None


def apply_mapping(info: RunInfo, mapping: dict, origin: str) -> list[str]:
    """The usual names of ``mapping`` into ``info`` (values already set win).
    Returns what was ignored, one sentence each (``max_steps = 1e400 ignored:
    not a usable number``): a number no setting can hold (core/numbers.unusable)
    or a negative count other than -1 ("not set")."""
    flat = _flatten(mapping)
    said: list[str] = []
    strategy = str(flat.get("save_strategy") or "").strip().lower()
    for field, names in _ALIASES.items():
        if field == "save_steps" and strategy in _NO_STEP_SAVES:
            continue  # save_strategy "no" / "epoch": the save_steps beside it plans no save
        for n in names:
            v = flat.get(n)
            if v is None or isinstance(v, (dict, list)):
                continue
            if field not in _TEXT and unusable(v):  # 1e400, "inf", 400 digits: not a setting (ours: 1e18)
                said.append(f"{n} = {shown(v)} ignored: not a usable number")
                continue
            try:
                if field in _TEXT:
                    val = str(v)
                elif isinstance(v, bool):
                    continue
                else:
                    x = float(v)
                    if not math.isfinite(x) or abs(x) > 1e18:
                        continue
                    val = int(x) if field in _INT else x
            except (TypeError, ValueError, OverflowError):
                continue
            if field in _INT and val < UNSET_COUNT:
                said.append(f"{n} = {shown(v)} ignored: a negative count")
            if field in ("params", "peak_lr", "total_steps") and not val > 0:
                continue  # HF writes max_steps=-1 for an epoch-based run
            info.set(field, val, origin)
            break
    if info.clip is None and any(n in flat and flat[n] is None for n in _ALIASES["clip"]):
        # max_grad_norm: null / gradient_clip_val: null written out: the run does not clip
        info.set("clip", 0.0, origin)
    if info.beta2 is None:  # torch's betas=(0.9, 0.95) (a list: not read above)
        for n in ("betas", "adam_betas", "optimizer.betas", "optim.betas"):
            b = flat.get(n)
            if isinstance(b, (list, tuple)) and len(b) == 2 and all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) for x in b):
                info.set("beta2", float(b[1]), origin)
                break
    ratio = flat.get("warmup_ratio")
    if (info.warmup_steps in (None, 0) and isinstance(ratio, (int, float)) and not isinstance(ratio, bool)
            and 0 < ratio <= 1 and info.total_steps):
        info.set("warmup_steps", int(ratio * info.total_steps), origin, override=True)
    if info.precision is None:
        if flat.get("bf16") is True or str(flat.get("precision", "")).startswith("bf16"):
            info.set("precision", "bf16", origin)
        elif flat.get("fp16") is True or str(flat.get("precision", "")) in ("16", "16-mixed", "fp16"):
            info.set("precision", "fp16", origin)
    if info.grad_checkpointing is None:
        gc = _grad_checkpointing(flat)
        if gc is not None:
            info.set("grad_checkpointing", gc, origin)
    if info.params is None:
        try:
            est = count_params(flat)
        except (OverflowError, ValueError, TypeError):  # integers beyond a float, odd values
            est = None
        # n_layer: 1e308 is no model; a count that rests on an assumed vocabulary is a guess,
        # not a fact (a 0.12M byte-level model read 3.32e6 with GPT-2's 50304): left unknown
        if est is not None and 0 < est[0] <= 1e18 and not any(n.startswith("vocabulary size not in") for n in est[2]):
            info.set("params", est[0], f"{origin} (architecture)")
    return said
