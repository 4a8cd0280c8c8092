"""The pre-flight plan: a planned run's configuration, read in full.

``read_plan(path)`` reads a config file or a directory of them into a Plan:
a RunInfo plus what the pre-flight checks need beyond it (Adam beta2/eps,
loss-scale settings, HF's NaN filter, checkpoint interval, ...). Every value
remembers the file and the key it came from, so the report can say
"learning_rate = 3e-4 (train.yaml: learning_rate)" and the actions can name
the key to change. Inputs:

* Hugging Face TrainingArguments (``to_json_string()`` JSON, LLaMA-Factory /
  Axolotl YAML): global batch = per_device_train_batch_size x
  gradient_accumulation_steps x world size (when given); ``max_steps=-1`` is
  an epoch-based run. Keys the file leaves out take HF's defaults
  (logging_steps=500, logging_nan_inf_filter=True, max_grad_norm=1.0,
  adam_beta2=0.999, adam_epsilon=1e-8, lr_scheduler_type=linear, save_steps=500).
* the model's ``config.json`` (parameter count from the architecture, see
  ``count_params``);
* Lightning ``hparams.yaml``, torchtitan TOML, Megatron argument lists (a text
  or shell file: ``--num-layers 24 --lr 3e-4 ...``), DeepSpeed JSON, OLMo YAML
  and plain YAML / TOML / JSON with the usual names.

``training_args.bin`` is a pickle (torch.save): it is never opened.
"""

from __future__ import annotations

import math
import os
from typing import Any
from dataclasses import dataclass, field as _field

from tsm_tui.core.numbers import FACT_COUNTS, MAX_FACT_TEXT, UNSET_COUNT, run_fact, shown, unusable, whole
from tsm_tui.core.settings import RunInfo
from tsm_tui.sources.config import MAX_CONFIG_BYTES, ConfigError, num, parse_arg_list, read_config_file  # noqa: F401
from tsm_tui.sources.config_keys import (
    PER_NODE,
    detect_framework,
    duration,
    flag,
    flatten,
    global_batch,
    lookup,
    names,
    precision,
    present,
    read,
    steps_of_tokens,
    warmup_from_ratio,
    warmup_in_tokens,
)
from tsm_tui.sources.framework_defaults import config_defaults, default_label
from tsm_tui.sources.params import count_params  # noqa: F401  (re-exported: tests, older imports)


@dataclass
class Plan(RunInfo):
    """RunInfo plus the settings only a pre-flight check needs."""

    beta1: float | None = None
    beta2: float | None = None
    eps: float | None = None
    optimizer: str | None = None
    #: static loss scale (> 0) or 0 / None for dynamic (Megatron, DeepSpeed)
    loss_scale: float | None = None
    #: False when the fp16 loss scaler is explicitly disabled or static
    dynamic_scaling: bool | None = None
    logging_nan_inf_filter: bool | None = None
    logging_strategy: str | None = None
    log_grad_norm: bool | None = None
    save_strategy: str | None = None
    save_hours: float | None = None
    #: decay horizon of the LR schedule in steps (lr_decay_iters, t_max ...)
    decay_steps: int | None = None
    min_lr_ratio: float | None = None
    warmup_ratio: float | None = None
    warmup_tokens: float | None = None
    total_tokens: float | None = None
    epochs: float | None = None
    dataset_samples: int | None = None
    micro_batch: int | None = None
    grad_accum: int | None = None
    world_size: int | None = None
    finetune: bool | None = None
    framework: str | None = None
    #: a length in samples (Megatron --train-samples, --lr-warmup-samples): steps of the global
    #: batch once it is known (finalize_plan)
    train_samples: int | None = None
    warmup_samples: int | None = None
    #: the decay horizon in tokens (value, key, file): steps of the batch once it is known
    decay_tokens: tuple[float, str, str] | None = None
    #: config key each value was read from, for the report and the actions
    keys: dict[str, str] = _field(default_factory=dict)
    #: what the reader could not know or assumed, one sentence each
    notes: list[str] = _field(default_factory=list)
    files: list[str] = _field(default_factory=list)

    def put(self, name: str, value, origin: str, key: str | None = None, override: bool = False) -> None:
        if value is None:
            return
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            # the bound every run fact goes through (core/numbers.run_fact: counts int64
            # within their minimum and 1e18, amounts finite in (0, 1e18], the rest finite)
            bounded = run_fact(name, value)
            if bounded is None:
                where = f"{origin}: " if origin else ""
                self.note(f"{where}{key or name} = {shown(value)} ignored: not a usable number")
                return
            value = bounded
        if getattr(self, name) is None or override:
            setattr(self, name, value)
            self.origin[name] = origin
            if key:
                self.keys[name] = key

    def key(self, name: str, default: str) -> str:
        return self.keys.get(name) or default

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


# --- scalar parsing ------------------------------------------------------------


_NOT_CONFIG = (
    "trainer_state.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "generation_config.json",
    "vocab.json",
    "added_tokens.json",
    "all_results.json",
    "train_results.json",
    "eval_results.json",
    "preprocessor_config.json",
    "adapter_config.json",
)


def is_model_config(m: dict) -> bool:
    keys = set(m)
    return bool(keys & {"architectures", "model_type"}) or (
        bool(keys & {"num_hidden_layers", "n_layer"})
        and bool(keys & {"hidden_size", "n_embd"})
        and not keys & {"learning_rate", "lr", "max_iters", "max_steps"}
    )


def read_plan(path: str, extra_config: str | None = None) -> Plan:
    """Read PATH (a config file or a directory holding the run's configs)."""
    if not os.path.exists(path):
        raise ConfigError(None, f"no such file or directory: {path}")
    plan = Plan()
    paths: list[str] = []
    if extra_config:
        if not os.path.isfile(extra_config):
            raise ConfigError(None, f"no such config file: {extra_config}")
        paths.append(extra_config)
    if os.path.isdir(path):
        try:
            names = sorted(os.listdir(path))
        except OSError as e:
            raise ConfigError(None, f"cannot read directory {path}: {e.strerror or e}") from None
        files = [os.path.join(path, n) for n in names if os.path.isfile(os.path.join(path, n))]
        # training configs first (their values win), the model's config.json last
        files.sort(key=lambda p: (os.path.basename(p) == "config.json", os.path.basename(p)))
        paths += files
    else:
        paths.append(path)
    # (path, mapping, kind) of each config read, training configs and model configs apart
    training: list[tuple[str, dict, str]] = []
    models: list[tuple[str, dict, str]] = []
    pickles: list[str] = []
    bad: list[ConfigError] = []
    for p in paths:
        if os.path.basename(p).lower() in _NOT_CONFIG or p.lower().endswith(".index.json"):
            continue
        try:
            m, kind = read_config_file(p, named=p in (path, extra_config))
        except ConfigError as e:
            if p == path or p == extra_config:
                raise
            bad.append(e)
            continue
        if kind == "pickle":
            pickles.append(p)
            continue
        if not m:
            continue
        (models if is_model_config(m) else training).append((p, m, kind))
    for p in pickles:
        plan.note(
            f"{os.path.basename(p)} ignored: it is a pickle and is never loaded "
            "(export the arguments with TrainingArguments.to_json_string() instead)"
        )
    for err in bad:  # named once, the plan made without it
        plan.note(f"{os.path.basename(err.path or '')}: {err.reason}: ignored")
    if not training and not models:
        if pickles:
            raise ConfigError(
                None,
                f"only pickled files in {path} ({', '.join(os.path.basename(p) for p in pickles)}): "
                "they are never unpickled; save the TrainingArguments with to_json_string() "
                "or pass a YAML / JSON / TOML config",
            )
        if bad:
            raise bad[0]
        raise ConfigError(
            None, f"no run configuration found in {path} (JSON / YAML / TOML or a Megatron argument list)"
        )
    for p, m, kind in training:
        apply_plan(plan, m, os.path.basename(p), kind)
        plan.files.append(p)
    for p, m, _kind in models:
        apply_model_config(plan, m, os.path.basename(p))
        plan.files.append(p)
    return plan


# --- the training configuration --------------------------------------------------


# The keys each setting is read from, the flattener, the lookup and the framework are the
# monitor's too: sources/config_keys (one table). What follows is what pre-flight makes of
# the values (defaults, units, the notes and the keys to name in an action).


_FT_STAGES = ("sft", "dpo", "rm", "ppo", "kto", "orpo", "simpo", "grpo")


class _Config:
    """One training-config mapping as pre-flight reads it: the framework it is for, its
    flattened keys, and the framework's defaults for the keys it leaves out."""

    def __init__(self, plan: Plan, mapping: dict, origin: str, kind: str) -> None:
        self.plan, self.mapping, self.origin = plan, mapping, origin
        self.fw = detect_framework(mapping, kind)
        if plan.framework is None or plan.framework == "generic":
            plan.framework = self.fw
        self.flat = flatten(mapping)
        self.defaults = config_defaults(self.fw)  # (sources/framework_defaults: the monitor's table too)
        self.default_origin = f"{default_label(self.fw)} default (not set in {origin})"

    def get(self, *keys: str, default: bool = True) -> tuple[str | None, Any, str]:
        """(key, value, origin) of the first of ``keys`` set, else of the first the
        framework has a default for; a value no setting can hold is said and None."""
        k, v = lookup(self.flat, *keys)
        if k is None and default:
            for n in keys:
                if n in self.defaults:
                    return n, self.defaults[n], self.default_origin
        if k is not None and unusable(v):  # 1e400, .inf, 400 digits: the key is ignored, and said
            self.plan.note(f"{self.origin}: {k} = {shown(v)} ignored: not a usable number")
            return k, None, self.origin
        return k, v, self.origin

    def setting(self, name: str, default: bool = True) -> tuple[str | None, Any, str]:
        """``get`` over the keys of ``name`` in sources/config_keys.KEYS (the monitor's table)."""
        return self.get(*names(name, self.fw), default=default)

    def value(self, name: str) -> tuple[str | None, Any]:
        """(key, value) of ``name`` as written, no default, no bound."""
        return read(self.flat, name, self.fw)

    def put(self, name: str, value, key: str | None, origin: str, **kw) -> None:
        self.plan.put(name, value, origin, key, **kw)

    def count(self, name: str, k: str | None, v, o: str, store: bool = True) -> int | None:
        """A count the config gives: put (``store``) and returned when at least its
        minimum (core/numbers.FACT_COUNTS); 0 and -1 mean "not set" (HF, Lightning);
        another negative count, or one past the bound, is ignored and said."""
        n = whole(v)
        if n is None:
            if num(v) is not None:  # 2.5 steps: no count (HF reads 0.1 as a fraction of the run)
                self.plan.note(f"{o}: {k} = {shown(v)} ignored: not a whole number")
            return None
        if n < UNSET_COUNT:
            self.plan.note(f"{o}: {k} = {shown(v)} ignored: a negative count")
            return None
        if n < FACT_COUNTS[name]:
            return None
        if run_fact(name, n) is None:
            self.plan.note(f"{o}: {k} = {shown(v)} ignored: not a usable number")
            return None
        if store:
            self.put(name, n, k, o)
        return n


def _model_size(c: _Config) -> None:
    """A model size given outright (plain configs: ``params: 7B``)."""
    k, v, o = c.setting("params")
    p = num(v, sizes=True)
    if p and p > 0:
        c.put("params", p, k, o)


def _run_length(c: _Config) -> None:
    """Steps, tokens, samples, epochs, the dataset's size."""
    k, v, o = c.setting("total_steps")
    n = whole(v)
    if n is not None and n <= 0 and k == "max_steps":
        c.plan.note(f"{c.origin}: max_steps={n} means an epoch-based run")
    else:
        c.count("total_steps", k, v, o)
    k, v, o = c.setting("max_duration")
    d = duration(v)
    if d is not None:
        unit, x = d
        if unit == "steps":
            c.put("total_steps", int(x), k, o)
        else:
            c.put("total_tokens" if unit == "tokens" else "epochs", x, k, o)
    k, v, o = c.setting("total_tokens")
    t = num(v, sizes=True)
    if t and t > 0:
        c.put("total_tokens", t, k, o)
    k, v, o = c.setting("train_samples")
    ts = c.count("dataset_samples", k, v, o, store=False)
    if ts:
        c.plan.train_samples = ts
    k, v, o = c.setting("epochs")
    e = num(v)
    if e and e > 0:
        c.put("epochs", e, k, o)
    k, v, o = c.setting("dataset_samples")
    c.count("dataset_samples", k, v, o)


def _batch(c: _Config) -> None:
    """The batch in tokens or sequences, or its parts (one device's batch, accumulation,
    world size), and the sequence length."""
    k, v, o = c.setting("batch_tokens")
    bt = num(v, sizes=True)
    if bt and bt > 0:
        c.put("batch_tokens", bt, k, o)
    for name in ("batch_size", "micro_batch", "grad_accum"):
        k, v, o = c.setting(name)
        c.count(name, k, v, o)
    k, v, o = c.setting("world_size")
    ws = c.count("world_size", k, v, o, store=False)
    if ws:
        kn, vn, _ = c.setting("nodes")
        nodes = whole(vn)
        if nodes and nodes > 1 and k in PER_NODE:
            ws *= nodes
            k = f"{k} x {kn}"
        c.put("world_size", ws, k, o)
    k, v, o = c.setting("seq_len")
    c.count("seq_len", k, v, o)


def _peak_lr(c: _Config) -> None:
    k, v, o = c.setting("peak_lr")
    lr = num(v)
    if lr is not None and lr > 0:
        c.put("peak_lr", lr, k, o)


def _warmup(c: _Config) -> None:
    """The LR warm-up in steps, as a share of the run, in tokens or in samples (steps once
    the run's length and batch are known: finalize_plan)."""
    plan = c.plan
    k, v, o = c.setting("warmup_steps")
    w = num(v, sizes=True)
    if w is not None and w >= 0:
        if warmup_in_tokens(c.flat, k):
            c.put("warmup_tokens", w, k, o)
        elif whole(v, sizes=True) is None and 0 < w < 1:
            # transformers v5 reads a warmup_steps below 1 as a share of the run (warmup_ratio's
            # successor, huggingface/transformers#41326); a warmup_ratio beside it is read after
            c.put("warmup_ratio", w, k, o)
        elif whole(v, sizes=True) is None:
            plan.note(f"{o}: {k} = {shown(v)} ignored: not a whole number")
        else:
            c.put("warmup_steps", whole(v, sizes=True), k, o)
    elif w is not None and w < UNSET_COUNT:
        plan.note(f"{o}: {k} = {shown(v)} ignored: a negative count")
    k, v, o = c.setting("warmup_tokens")
    wt = num(v, sizes=True)
    if wt is not None and wt >= 0:
        c.put("warmup_tokens", wt, k, o)
    k, v, o = c.setting("warmup_ratio")
    wr = num(v)
    if wr is not None and 0 < wr <= 1:
        c.put("warmup_ratio", wr, k, o)
    elif wr is not None and wr > 1:
        plan.note(f"{o}: {k} = {shown(v)} ignored: a share of the run is at most 1")
    k, v, o = c.setting("warmup_samples")
    ws_samples = c.count("dataset_samples", k, v, o, store=False)
    if ws_samples:
        plan.warmup_samples = ws_samples


def _decay(c: _Config) -> None:
    """The LR schedule, its decay horizon (in steps or tokens) and its floor."""
    plan = c.plan
    units_tokens = str(c.value("units")[1] or "").lower() == "tokens"
    k, v, o = c.setting("schedule")
    if isinstance(v, str) and v.strip():
        c.put("schedule", v.strip(), k, o)
    elif v is None:
        k2, d = c.value("decay_lr")
        if isinstance(flag(d), bool):
            plan.put("schedule", "cosine" if flag(d) else "constant", c.origin, f"{k2}={d}")
    k, v, o = c.setting("decay_steps")
    ds = num(v, sizes=True)
    if ds and ds > 0:
        if units_tokens and k in ("scheduler.t_max", "t_max"):
            plan.decay_tokens = (ds, f"{k}", c.origin)
        else:
            c.put("decay_steps", int(ds), k, o)
    k, v, o = c.setting("decay_tokens")
    dt = num(v, sizes=True)
    if dt:
        plan.decay_tokens = (dt, k or "", c.origin)
    k, v, o = c.setting("min_lr_ratio")
    if num(v) is not None:
        c.put("min_lr_ratio", num(v), k, o)
    else:
        k, v, o = c.setting("min_lr")
        min_lr = num(v)
        if min_lr is not None and plan.peak_lr:
            c.put("min_lr_ratio", min_lr / plan.peak_lr, k, o)


def _clipping(c: _Config) -> None:
    """The gradient-norm clip; a key written out as null (HF / Lightning) or false: no clipping."""
    clip_names = names("clip", c.fw)
    k, v, o = c.get(*clip_names, default=False)
    if k is None:
        for n in clip_names:
            if present(c.flat, n):  # present and null: clipping disabled (HF / Lightning treat None as off)
                k, v, o = n, 0.0, c.origin
                break
        else:
            k, v, o = c.get(*clip_names)
    x = num(v) if not isinstance(v, bool) else (None if v else 0.0)
    if k is not None and x is not None:
        c.put("clip", max(x, 0.0), k, o)


def _precision(c: _Config) -> None:
    """bf16 / fp16 / fp16-pure / fp32 (config_keys.precision, the monitor's reading) and
    the fp16 loss scaler: static, dynamic or off."""
    plan, origin = c.plan, c.origin
    prec, pk, po = precision(c.flat, c.get, c.fw)
    if prec:
        c.put("precision", prec, pk, po)
    k, v, o = c.setting("loss_scale")
    ls = num(v)
    if ls is not None:
        c.put("loss_scale", ls, k, o)
        if ls > 0:
            plan.put("dynamic_scaling", False, origin, f"{k}={v}")
    k, v, o = c.setting("dynamic_scaling")
    if v is not None:
        if isinstance(v, str) and v.lower() in ("static", "dynamic"):
            plan.put("dynamic_scaling", v.lower() == "dynamic", origin, f"{k}={v}")
        elif flag(v) is not None:
            plan.put("dynamic_scaling", flag(v), origin, f"{k}={v}")
    if plan.precision == "fp16-pure":
        plan.put("dynamic_scaling", False, plan.origin.get("precision", origin), plan.keys.get("precision"))


def _logging(c: _Config) -> None:
    """The logging interval and strategy, HF's NaN filter, whether the grad norm is logged."""
    k, v, o = c.setting("logging_steps")
    c.count("logging_steps", k, v, o)
    k, v, o = c.setting("logging_strategy")
    if isinstance(v, str):
        c.put("logging_strategy", v.lower(), k, o)
    for name in ("logging_nan_inf_filter", "log_grad_norm"):
        k, v, o = c.setting(name)
        if flag(v) is not None:
            c.put(name, flag(v), k, o)


def _checkpoints(c: _Config) -> None:
    """When checkpoints are saved: the strategy, checkpoints on or off, the interval in
    steps (nanoGPT: each eval; Megatron: none without --save) or in time."""
    plan, origin = c.plan, c.origin
    k, v, o = c.setting("save_strategy")
    if isinstance(v, str):
        c.put("save_strategy", v.lower(), k, o)
    k, v, o = c.setting("checkpointing")
    if flag(v) is False:
        c.put("save_strategy", "no", k, o)
    elif flag(v) is True:
        c.put("save_strategy", "steps", k, o)
    k, v, o = c.setting("save_steps")
    c.count("save_steps", k, v, o)
    if c.fw == "nanogpt" and plan.save_steps is None:
        k, v, o = c.setting("eval_interval")
        if whole(v):
            c.put("save_steps", whole(v), f"{k} (nanoGPT saves at each eval)", o)
    if c.fw == "megatron":
        if not present(c.flat, *names("save_dir", c.fw)):
            plan.put("save_strategy", "no", origin, "no --save")
        elif plan.save_steps is None:
            plan.put("save_strategy", "end", origin, "--save without --save-interval")
    k, v, o = c.setting("save_hours")
    if num(v):
        c.put("save_hours", num(v), k, o)
    k, v, o = c.setting("save_minutes")
    minutes = num(v)
    if minutes:
        c.put("save_hours", minutes / 60, k, o)


def _optimizer(c: _Config) -> None:
    """The optimizer's name and Adam's betas and epsilon (a ``betas`` list before the single keys)."""
    k, v, o = c.setting("optimizer")
    if isinstance(v, str):
        c.put("optimizer", v, k, o)
    k, v, o = c.setting("betas")
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(num(x) is not None for x in v):
        c.put("beta1", num(v[0]), f"{k}[0]", o)
        c.put("beta2", num(v[1]), f"{k}[1]", o)
    for name in ("beta2", "beta1", "eps"):
        k, v, o = c.setting(name)
        if num(v) is not None:
            c.put(name, num(v), k, o)


def _finetune(c: _Config) -> None:
    """Fine-tune or pre-training: LLaMA-Factory's stage, else a base model / adapter named,
    nanoGPT's init_from."""
    plan, origin = c.plan, c.origin
    stage = str(c.value("stage")[1] or "").lower()
    if stage == "pt":
        plan.put("finetune", False, origin, "stage=pt")
    elif stage in _FT_STAGES:
        plan.put("finetune", True, origin, f"stage={stage}")
    else:
        for n in names("finetune", c.fw):
            kk, vv = lookup(c.flat, n)
            if vv not in (None, False, "", "none"):
                plan.put("finetune", True, origin, f"{kk}={shown(vv, MAX_FACT_TEXT)}")
                break
        kk, vv = c.value("init_from")
        if isinstance(vv, str):
            plan.put("finetune", vv != "scratch", origin, f"init_from={vv}")


def _inline_model(c: _Config) -> None:
    """The model, when the training config describes it (nanoGPT, Megatron, OLMo, Lightning;
    torchtitan's flavor "8B") and no size was given."""
    plan = c.plan
    if plan.params is not None:
        return
    inner = c.mapping.get("model")
    model = inner if isinstance(inner, dict) else c.mapping
    if c.fw == "torchtitan":
        flavor = str(c.value("flavor")[1] or "")
        p = num(flavor, sizes=True)
        if p:
            plan.put("params", p, c.origin, f"model.flavor={flavor}")
    else:
        est = count_params(model, c.fw)
        if est:
            plan.put("params", est[0], c.origin, est[1])
            for msg in est[2]:
                plan.note(msg)


#: the concerns of a training config, in the order they are read (a note comes out in it)
_CONCERNS = (
    _model_size,
    _run_length,
    _batch,
    _peak_lr,
    _warmup,
    _decay,
    _clipping,
    _precision,
    _logging,
    _checkpoints,
    _optimizer,
    _finetune,
    _inline_model,
)


def apply_plan(plan: Plan, mapping: dict, origin: str, kind: str = "") -> None:
    """Fill ``plan`` from one training-config mapping (values already set win)."""
    c = _Config(plan, mapping, origin, kind)
    for concern in _CONCERNS:
        concern(c)


# --- parameter count from the architecture: tsm_tui/sources/params.py (one counter for all)


def apply_model_config(plan: Plan, mapping: dict, origin: str) -> None:
    """A model's config.json: the parameter count and, as a fallback, the context length."""
    est = count_params(mapping)
    if est and plan.params is None:
        plan.put("params", est[0], origin, est[1])
        for msg in est[2]:
            plan.note(msg)
    ctx = whole(mapping.get("max_position_embeddings") or mapping.get("n_positions"))
    if plan.seq_len is None and ctx:
        plan.put("seq_len", ctx, origin, "max_position_embeddings (assumed training length)")
        plan.note(f"sequence length not in the training config: assumed {ctx} from {origin}")


def _up(x: float):
    return math.ceil(x) if math.isfinite(x) else x


def finalize_plan(plan: Plan) -> Plan:
    """Derive what follows from the values read (after command-line overrides)."""
    # global batch from its parts: micro x accumulation x data-parallel world size
    if plan.batch_size is None and plan.batch_tokens is None and plan.micro_batch:
        gb, parts, assumed = global_batch(
            plan.framework,
            plan.micro_batch,
            plan.key("micro_batch", "batch"),
            plan.grad_accum,
            plan.key("grad_accum", "") if plan.grad_accum else "accumulation",
            plan.world_size,
            "world size",
        )
        if assumed:
            plan.note("world size not given: the global batch assumes 1 device (pass --batch-tokens to override)")
        plan.put("batch_size", gb, plan.origin.get("micro_batch", ""), parts)
    bt = plan.effective_batch_tokens()
    # a length in samples (Megatron --train-samples, --lr-warmup-samples) is that many steps of
    # the global batch, rounded up: one rule for the run and its warm-up
    for name, samples, how in (
        ("total_steps", plan.train_samples, "train_samples / global batch"),
        ("warmup_steps", plan.warmup_samples, "lr_warmup_samples / global batch"),
    ):
        # (over a framework default: Megatron's lr_warmup_iters = 0 is put before this rule, and
        # a --lr-warmup-samples run read "no LR warm-up", FAIL)
        defaulted = "default (not set in" in plan.origin.get(name, "")
        if (getattr(plan, name) is None or defaulted) and samples and plan.batch_size:
            plan.put(name, math.ceil(samples / plan.batch_size), plan.origin.get("batch_size", ""), how, override=True)
    # total steps from tokens, or from epochs x dataset size
    if plan.total_steps is None and plan.total_tokens and bt:
        plan.put(
            "total_steps",
            steps_of_tokens(plan.total_tokens, bt),
            plan.origin.get("total_tokens", ""),
            f"{plan.key('total_tokens', 'tokens')} / batch tokens",
        )
    if plan.total_steps is None and plan.epochs and plan.dataset_samples and plan.batch_size:
        steps = math.ceil(plan.dataset_samples / plan.batch_size) * plan.epochs
        plan.put(
            "total_steps",
            _up(steps),
            plan.origin.get("dataset_samples", ""),
            f"{plan.key('epochs', 'epochs')} x ceil(samples / global batch)",
        )
    if plan.total_steps is None and plan.epochs is None and plan.framework in ("hf", "axolotl"):
        plan.note(
            "no max_steps and no num_train_epochs: HF trains 3 epochs by default, total steps unknown "
            "(set max_steps or pass --total-steps)"
        )
    if plan.total_steps is None and plan.epochs:
        plan.note(
            f"epoch-based run ({plan.epochs:g} epochs) without a dataset size: total steps unknown "
            "(set max_steps or pass --total-steps)"
        )
    if plan.total_tokens is None and plan.total_steps and bt:
        plan.total_tokens = run_fact("total_tokens", plan.total_steps * bt)
    # warm-up from tokens or from a ratio
    if (
        plan.warmup_tokens is not None
        and bt
        and (plan.warmup_steps is None or plan.warmup_steps == 0 and "default" in plan.origin.get("warmup_steps", ""))
    ):
        plan.put(
            "warmup_steps",
            steps_of_tokens(plan.warmup_tokens, bt),
            plan.origin.get("warmup_tokens", ""),
            f"{plan.key('warmup_tokens', 'warmup tokens')} / batch tokens",
            override=True,
        )
    if plan.warmup_ratio and plan.total_steps and not plan.warmup_steps:
        plan.put(
            "warmup_steps",
            warmup_from_ratio(plan.warmup_ratio, plan.total_steps),
            plan.origin.get("warmup_ratio", ""),
            f"{plan.key('warmup_ratio', 'warmup_ratio')} x total steps",
            override=True,
        )
    elif plan.warmup_ratio and not plan.total_steps and not plan.warmup_steps:
        plan.note(f"warm-up is {plan.warmup_ratio:g} of the run, but the run length is unknown")
    dt = plan.decay_tokens
    if dt and plan.decay_steps is None and bt:
        plan.put("decay_steps", steps_of_tokens(dt[0], bt), dt[2], f"{dt[1]} / batch tokens")
    if plan.decay_steps is None and plan.framework in ("megatron", "nanogpt") and plan.total_steps:
        # Megatron: lr_decay_iters defaults to train_iters; nanoGPT's lr_decay_iters "should be ~= max_iters"
        plan.put("decay_steps", plan.total_steps, plan.origin.get("total_steps", ""), "= total steps")
    return plan


#: fields shown in the report, in order
PLAN_FIELDS = (
    "params",
    "total_steps",
    "total_tokens",
    "warmup_steps",
    "peak_lr",
    "schedule",
    "decay_steps",
    "min_lr_ratio",
    "batch_size",
    "seq_len",
    "batch_tokens",
    "micro_batch",
    "grad_accum",
    "world_size",
    "epochs",
    "clip",
    "precision",
    "loss_scale",
    "dynamic_scaling",
    "logging_steps",
    "logging_strategy",
    "logging_nan_inf_filter",
    "log_grad_norm",
    "save_steps",
    "save_strategy",
    "save_hours",
    "optimizer",
    "beta1",
    "beta2",
    "eps",
    "finetune",
)
