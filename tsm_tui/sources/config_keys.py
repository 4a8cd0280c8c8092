"""The config keys each run setting is read from: one table for the monitor
(``sources/config.apply_mapping``) and pre-flight (``preflight/plan.apply_plan``), so
both read one config one way.

A mapping is flattened once (``flatten``: nested keys as ``a.b.c`` and as their bare
leaf name, lower case, ``-`` as ``_``) and a setting is the first key of its row that
is present and not null, full names before bare ones (``lookup``): ``optimizer.lr``
before a top-level ``lr``, and a nested ``lr`` found by its bare name when nothing
else names it. A framework's own key for a setting is asked first (``KEYS[...].first``:
torchtitan's ``[training] steps``). How a value becomes a setting (units, ratios) is
in ``warmup_from_ratio`` and the readers; the keys are here only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from tsm_tui.core.numbers import num


@dataclass(frozen=True)
class Key:
    """The keys one setting is read from, in priority order."""

    names: tuple[str, ...]
    #: "count" (an int), "amount" (a float), "text", "list" (Adam's betas), "flag" (a switch)
    kind: str = "count"
    #: "7B", "2M" are numbers here (core/numbers.num(sizes=True))
    sizes: bool = False
    #: a framework's own key, asked before the names
    first: dict[str, str] = field(default_factory=dict)
    #: keys read only for these frameworks (llm.c / nanochat's total_batch_size is tokens)
    only: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def for_framework(self, fw: str | None) -> tuple[str, ...]:
        head = (self.first[fw],) if fw in self.first else ()
        tail = tuple(n for n, fws in self.only.items() if fw in fws)
        return head + self.names + tail


KEYS: dict[str, Key] = {
    "total_steps": Key(
        (
            "max_steps",
            "train_iters",
            "max_iters",
            "total_steps",
            "num_training_steps",
            "train_steps",
            "training_steps",
            "trainer.max_steps",
            "total_num_steps",
            "max_duration_steps",
        ),
        first={"torchtitan": "training.steps"},
    ),
    "warmup_steps": Key(
        (
            "warmup_steps",
            "lr_warmup_iters",
            "warmup_iters",
            "num_warmup_steps",
            "lr_warmup_steps",
            "warmup_num_steps",
            "scheduler.t_warmup",
            "t_warmup",
        ),
        sizes=True,
        first={"torchtitan": "lr_scheduler.warmup_steps"},
    ),
    "warmup_ratio": Key(("warmup_ratio", "lr_warmup_fraction", "warmup_fraction", "warmup_pct"), "amount"),
    "peak_lr": Key(
        (
            "optimizer.lr",
            "optimizer.learning_rate",
            "optimizer.params.lr",
            "learning_rate",
            "lr",
            "max_lr",
            "peak_lr",
            "warmup_max_lr",
            "base_lr",
        ),
        "amount",
    ),
    #: the global batch in sequences
    "batch_size": Key(
        (
            "global_batch_size",
            "global_train_batch_size",
            "train_batch_size",
            "training.global_batch_size",
            "total_batch_size_sequences",
        )
    ),
    #: one device's batch (a plain config's batch_size is global for GLOBAL_BATCH_SIZE: global_batch)
    "micro_batch": Key(
        (
            "per_device_train_batch_size",
            "micro_batch_size",
            "train_micro_batch_size_per_gpu",
            "training.local_batch_size",
            "local_batch_size",
            "device_train_microbatch_size",
            "training.batch_size",
            "batch_size",
        )
    ),
    "grad_accum": Key(
        ("gradient_accumulation_steps", "accumulate_grad_batches", "grad_accum", "gradient_accumulation")
    ),
    #: the data-parallel world size (devices; per node for PER_NODE keys, x "nodes")
    "world_size": Key(
        (
            "world_size",
            "n_gpus",
            "num_gpus",
            "gpus",
            "devices",
            "nproc_per_node",
            "num_devices",
            "data_parallel_size",
            "parallelism.data_parallel_shard_degree",
            "dp_degree",
        )
    ),
    "nodes": Key(("nnodes", "num_nodes", "trainer.num_nodes")),
    "batch_tokens": Key(
        ("batch_tokens", "tokens_per_batch", "global_batch_size_tokens", "batch_size_tokens"),
        "amount",
        sizes=True,
        only={"total_batch_size": ("generic", "nanogpt")},
    ),
    "seq_len": Key(
        (
            "seq_length",
            "seq_len",
            "max_seq_length",
            "block_size",
            "max_seq_len",
            "sequence_length",
            "sequence_len",
            "context_length",
            "cutoff_len",
            "max_sequence_length",
            "encoder_seq_length",
            "model.max_sequence_length",
        ),
        first={"torchtitan": "training.seq_len"},
    ),
    "params": Key(
        (
            "params",
            "n_params",
            "num_params",
            "num_parameters",
            "param_count",
            "model_params",
            "model.params",
            "model_size",
        ),
        "amount",
        sizes=True,
    ),
    "clip": Key(
        (
            "max_grad_norm",
            "clip_grad",
            "grad_clip",
            "gradient_clipping",
            "clip_grad_norm",
            "max_norm",
            "gradient_clip_val",
            "trainer.gradient_clip_val",
            "grad_clip_norm",
        ),
        "amount",
        first={"torchtitan": "training.max_norm"},
    ),
    "logging_steps": Key(
        (
            "logging_steps",
            "log_interval",
            "log_every",
            "log_every_n_steps",
            "log_freq",
            "console_log_interval",
            "trainer.log_every_n_steps",
            "steps_per_print",
        ),
        first={"torchtitan": "metrics.log_freq"},
    ),
    "save_steps": Key(
        (
            "save_steps",
            "save_interval",
            "checkpoint_every",
            "save_every",
            "ckpt_interval",
            "every_n_train_steps",
            "checkpoint_interval",
            "save_interval_unsharded",
            "checkpoint.every_n_train_steps",
            "save_every_n_steps",
        ),
        first={"torchtitan": "checkpoint.interval"},
    ),
    "schedule": Key(
        (
            "lr_scheduler_type",
            "lr_decay_style",
            "lr_scheduler.decay_type",
            "scheduler.name",
            "lr_scheduler",
            "scheduler",
            "lr_schedule",
            "schedule",
            "decay_type",
        ),
        "text",
    ),
    #: Adam's (beta1, beta2) as one list (torch's betas=(0.9, 0.95)), before the single keys
    "betas": Key(("betas", "optimizer.betas", "adam_betas", "optimizer.params.betas", "optim.betas"), "list"),
    "beta2": Key(("adam_beta2", "beta2", "optimizer.beta2", "optim.beta2"), "amount"),
    "eps": Key(
        (
            "optimizer.eps",
            "adam_epsilon",
            "adam_eps",
            "eps",
            "epsilon",
            "optimizer.params.eps",
            "optim.eps",
            "optimizer.epsilon",
        ),
        "amount",
    ),
    "save_strategy": Key(("save_strategy",), "text"),
    "hosted_model": Key(("fine_tuned_model",), "text"),
    #: activation (gradient) checkpointing: HF, Megatron (old and new flags), DeepSpeed's
    #: section, torchtitan, Lightning / PEFT (the monitor's; any of them set, not the first)
    "grad_checkpointing": Key(
        (
            "gradient_checkpointing",
            "recompute_activations",
            "checkpoint_activations",
            "recompute_granularity",
            "activation_checkpointing.partition_activations",
            "use_gradient_checkpointing",
            "enable_gradient_checkpointing",
            "activation_checkpoint.mode",
            "ac_mode",
        ),
        "flag",
    ),
    # --- what pre-flight reads beyond the monitor's settings (the run's length in other units,
    # the LR schedule's decay, loss scaling, logging and checkpoint switches, the optimizer) ---
    #: Composer's ``max_duration`` ("10000ba", "2ep", "1e9tok")
    "max_duration": Key(("max_duration",), "text"),
    "total_tokens": Key(
        ("total_tokens", "train_tokens", "max_tokens", "num_tokens", "training_tokens", "tokens"),
        "amount",
        sizes=True,
    ),
    #: Megatron --train-samples: samples over the whole run
    "train_samples": Key(("train_samples",)),
    "epochs": Key(("num_train_epochs", "num_epochs", "max_epochs", "epochs", "trainer.max_epochs"), "amount"),
    "dataset_samples": Key(("num_train_samples", "dataset_size", "num_examples", "train_dataset_size", "num_samples")),
    "warmup_tokens": Key(("warmup_tokens", "lr_warmup_tokens"), "amount", sizes=True),
    #: Megatron --lr-warmup-samples
    "warmup_samples": Key(("lr_warmup_samples",)),
    #: the decay horizon of the LR schedule
    "decay_steps": Key(
        (
            "lr_decay_iters",
            "lr_decay_steps",
            "decay_steps",
            "scheduler.t_max",
            "t_max",
            "scheduler.params.total_num_steps",
        ),
        sizes=True,
    ),
    "decay_tokens": Key(("lr_decay_tokens",), "amount", sizes=True),
    #: nanoGPT's decay_lr: True is its cosine, False a constant LR
    "decay_lr": Key(("decay_lr",), "flag"),
    #: OLMo's scheduler units ("steps" / "tokens")
    "units": Key(("scheduler.units", "units"), "text"),
    "min_lr_ratio": Key(
        ("min_lr_ratio", "alpha_f", "lr_scheduler.min_lr_factor", "min_lr_rate", "final_lr_ratio"), "amount"
    ),
    "min_lr": Key(("min_lr", "lr_min", "lr_scheduler.lr_min", "final_lr"), "amount"),
    "loss_scale": Key(("loss_scale", "fp16.loss_scale", "static_loss_scale"), "amount"),
    "dynamic_scaling": Key(
        (
            "dynamic_loss_scale",
            "use_grad_scaler",
            "grad_scaler",
            "use_loss_scaling",
            "loss_scaling",
            "dynamic_loss_scaling",
            "amp_scaler",
        ),
        "flag",
    ),
    "logging_strategy": Key(("logging_strategy",), "text"),
    "logging_nan_inf_filter": Key(("logging_nan_inf_filter",), "flag"),
    "log_grad_norm": Key(("log_grad_norm", "log_grad_norms", "log_gradient_norm", "track_grad_norm"), "flag"),
    #: checkpoints on or off: torchtitan (old and new name), Lightning
    "checkpointing": Key(
        (
            "checkpoint.enable_checkpoint",
            "checkpoint.enable",
            "enable_checkpointing",
            "trainer.enable_checkpointing",
        ),
        "flag",
    ),
    #: Megatron's --save (no --save: no checkpoint is written)
    "save_dir": Key(("save",), "text"),
    #: nanoGPT saves a checkpoint at each evaluation
    "eval_interval": Key(("eval_interval",)),
    "save_hours": Key(("save_interval_hours", "checkpoint_interval_hours", "save_every_hours"), "amount"),
    "save_minutes": Key(
        (
            "save_interval_minutes",
            "save_every_minutes",
            "checkpoint_interval_minutes",
            "train_time_interval_minutes",
        ),
        "amount",
    ),
    "optimizer": Key(("optim", "optimizer.name", "optimizer_type", "optimizer", "optimizer.type"), "text"),
    "beta1": Key(("adam_beta1", "beta1", "optimizer.beta1"), "amount"),
    #: fine-tune or pre-training: LLaMA-Factory's stage, else the first of the markers
    #: below set (a base model, an adapter), nanoGPT's init_from
    "stage": Key(("stage",), "text"),
    "finetune": Key(
        (
            "finetuning_type",
            "adapter",
            "base_model",
            "model_name_or_path",
            "pretrained_model_name_or_path",
            "finetune",
        ),
        "text",
    ),
    "init_from": Key(("init_from",), "text"),
    #: torchtitan's model flavor ("8B")
    "flavor": Key(("model.flavor",), "text"),
    "dataset": Key(
        (
            "dataset",
            "dataset_name",
            "data_path",
            "train_file",
            "train_data",
            "dataset_path",
            "data.path",
            "data.dataset",
            "data_dir",
        ),
        "text",
    ),
}


def names(setting: str, fw: str | None = None) -> tuple[str, ...]:
    """The keys of ``setting`` for framework ``fw``, in priority order."""
    return KEYS[setting].for_framework(fw)


def flatten(d, prefix: str = "", out: dict | None = None) -> dict:
    """Nested mappings as ``a.b.c`` keys, and each leaf by its bare name as ``~name``
    (the first one met; lower priority in ``lookup``). Keys lower case, ``-`` as ``_``."""
    if out is None:
        out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            k = str(k).lower().replace("-", "_")
            if isinstance(v, dict):
                flatten(v, f"{prefix}{k}.", out)
            else:
                out[f"{prefix}{k}"] = v
                out.setdefault(f"~{k}", v)
    return out


def lookup(flat: dict, *keys: str):
    """(key, value): the first of ``keys`` present and not null, full names before
    bare leaf names; (None, None) when none is."""
    for n in keys:
        if n in flat and flat[n] is not None:
            return n, flat[n]
    for n in keys:
        if "." not in n and flat.get(f"~{n}") is not None:
            return n, flat[f"~{n}"]
    return None, None


def present(flat: dict, *keys: str) -> bool:
    """Any of ``keys`` written out, null included (``max_grad_norm: null``)."""
    return any(n in flat or f"~{n}" in flat for n in keys)


def read(flat: dict, setting: str, fw: str | None = None):
    """(key, value) of ``setting`` in a flattened mapping (``lookup`` over its keys)."""
    return lookup(flat, *names(setting, fw))


#: world-size keys that count one node's devices (the run's are these x the nodes)
PER_NODE = ("nproc_per_node", "gpus", "devices", "n_gpus", "num_gpus")
#: a plain config's ``batch_size`` is the global batch for these frameworks
GLOBAL_BATCH_SIZE = {"generic", "olmo", "deepspeed"}


def global_batch(
    fw: str | None,
    micro: int,
    micro_key: str,
    grad_accum: int | None,
    accum_key: str,
    world: int | None,
    world_key: str,
) -> tuple[int, str, bool]:
    """The global batch when no key gives it, from its parts: micro x accumulation x
    data-parallel world size. (value, how it was made, the world size was assumed 1).
    nanoGPT's gradient_accumulation_steps is already the total over all ranks, and a
    plain config's ``batch_size`` (GLOBAL_BATCH_SIZE) is taken as the global batch: no
    world size for them. One rule for the monitor and pre-flight."""
    ga = grad_accum or 1
    parts = f"{micro_key} {micro} x {accum_key or 'accumulation'} {ga}"
    if world:
        return micro * ga * world, f"{parts} x {world_key} {world}", False
    if fw == "nanogpt" or (micro_key in ("batch_size", "training.batch_size") and fw in GLOBAL_BATCH_SIZE):
        return micro * ga, f"{micro_key} {micro}" + (f" x {accum_key} {ga}" if grad_accum else ""), False
    return micro * ga, f"{parts} x world size (not given: assumed 1)", True


def flag(v) -> bool | None:
    """A config switch: True / False from a bool, a number or a word; None when it is neither."""
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return bool(v)
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "yes", "on", "1", "auto"):
            return True
        if s in ("false", "no", "off", "0", "none", "null", ""):
            return False
    return None


def precision(flat: dict, get, fw: str | None):
    """(precision, key, origin) of a flattened config; precision is bf16 / fp16 /
    fp16-pure / fp32, else (None, None, None). ``get(*names)`` gives (key, value, origin)
    (pre-flight's asks the framework's defaults too). One reading for the monitor and
    pre-flight."""
    k, v, o = get("fp16.enabled")
    if flag(v):
        return "fp16", k, o
    k, v, o = get("bf16.enabled")
    if flag(v):
        return "bf16", k, o
    for name in ("bf16", "fp16", "half"):
        k, v = lookup(flat, name)
        if isinstance(v, (bool, str)) and flag(v):
            return ("bf16" if name == "bf16" else "fp16"), k, get(name)[2]
    for name in (
        "training.mixed_precision_param",
        "mixed_precision_param",
        "precision",
        "mixed_precision",
        "dtype",
        "autocast_precision",
        "trainer.precision",
        "amp_dtype",
        "torch_dtype_training",
    ):
        k, v, o = get(name)
        if v is None:
            continue
        s = str(v).strip().lower()
        if s in ("16-true", "fp16-true", "half-true"):
            return "fp16-pure", k, o  # Lightning "16-true": fp16 weights, no GradScaler
        if "bf16" in s or "bfloat16" in s:
            return "bf16", k, o
        if s in ("16", "16-mixed", "fp16", "float16", "half", "amp", "amp_fp16", "fp16-mixed") or "float16" in s:
            return "fp16", k, o
        if s in ("32", "32-true", "fp32", "float32", "full", "no", "tf32"):
            return "fp32", k, o
    if fw in ("hf", "axolotl"):
        kb, vb = lookup(flat, "bf16")
        kf, vf = lookup(flat, "fp16")
        if flag(vb) is False or flag(vf) is False or kb is None:
            return "fp32", "bf16=false, fp16=false" if kb else "no fp16/bf16 (HF default)", get("fp16")[2]
    if fw == "megatron":
        return "fp32", "no --fp16/--bf16", get("clip_grad")[2]
    return None, None, None


def warmup_in_tokens(flat: dict, key: str | None) -> bool:
    """OLMo's ``scheduler.t_warmup`` under ``units: tokens`` counts tokens, not steps."""
    return (
        key in ("scheduler.t_warmup", "t_warmup")
        and str(lookup(flat, "scheduler.units", "units")[1] or "").lower() == "tokens"
    )


def duration(v) -> tuple[str, float] | None:
    """Composer's ``max_duration`` ("10000ba", "5e12tok", "2ep"; a bare number is batches) as
    ("steps" | "tokens" | "epochs", amount); None for anything else (samples, time)."""
    if not isinstance(v, (str, int, float)) or isinstance(v, bool):
        return None
    m = re.fullmatch(r"([\d.e+_]+)\s*(ba|tok|t|ep|sp)?", str(v).strip().lower())
    if not m:
        return None
    x, unit = num(m.group(1)), m.group(2) or "ba"
    if not x:
        return None
    return {"ba": ("steps", x), "t": ("tokens", x), "tok": ("tokens", x), "ep": ("epochs", x)}.get(unit)


def steps_of_tokens(tokens: float, batch_tokens: float) -> float:
    """A length in tokens (a run's, a warm-up's, a decay's) as steps of the batch:
    round(tokens / batch tokens); the quotient itself when it is no finite number (a ratio
    of hostile values, 1e18 tokens / 1e-320 per batch, is Inf: the bound on a run fact
    refuses it, where ``round(inf)`` raised OverflowError). One rule for the monitor and
    pre-flight."""
    x = tokens / batch_tokens
    return round(x) if math.isfinite(x) else x


def warmup_from_ratio(ratio: float, total_steps: int) -> int | None:
    """Warm-up steps of a warm-up given as a share of the run: ceil(ratio x total), as HF's
    ``TrainingArguments.get_warmup_steps``; None for a ratio outside (0, 1] (HF refuses it)."""
    if not 0 < ratio <= 1 or not total_steps or not math.isfinite(ratio * total_steps):
        return None
    return math.ceil(ratio * total_steps)


# --- the framework a config is for (the keys it reads first, its defaults) -------------------

_MEGATRON_MARKERS = (
    "train_iters",
    "lr_warmup_iters",
    "global_batch_size",
    "num_layers",
    "save_interval",
    "log_interval",
    "clip_grad",
    "lr_decay_style",
    "tensor_model_parallel_size",
)


def detect_framework(m: dict, kind: str = "") -> str:
    """hf / axolotl / megatron / torchtitan / deepspeed / olmo / lightning / nanogpt / generic.
    ``kind`` is the file's (config_load.read_config_file; "" when not known, as for the
    monitor's mappings): Megatron only as an argument list, torchtitan from TOML or unknown."""
    top = {str(k).lower().replace("-", "_") for k in m}
    if kind == "args" and top & set(_MEGATRON_MARKERS):
        return "megatron"
    if (
        kind in ("toml", "")
        and isinstance(m.get("training"), dict)
        and ("job" in m or "lr_scheduler" in m or "parallelism" in m or "checkpoint" in m)
    ):
        return "torchtitan"
    if "base_model" in top and ("micro_batch_size" in top or "sequence_len" in top):
        return "axolotl"
    if top & {
        "per_device_train_batch_size",
        "num_train_epochs",
        "logging_nan_inf_filter",
        "lr_scheduler_type",
        "finetuning_type",
    }:
        return "hf"
    if "zero_optimization" in top or "train_micro_batch_size_per_gpu" in top:
        return "deepspeed"
    if isinstance(m.get("scheduler"), dict) and isinstance(m.get("optimizer"), dict) and "model" in m:
        return "olmo"
    if top & {"accumulate_grad_batches", "gradient_clip_val", "log_every_n_steps", "every_n_train_steps"}:
        return "lightning"
    if top & {"max_iters", "lr_decay_iters", "warmup_iters", "decay_lr", "init_from"}:
        return "nanogpt"
    return "generic"
