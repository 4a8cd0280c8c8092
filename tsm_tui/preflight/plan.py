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
import re
from dataclasses import dataclass, field as _field

from tsm_tui.core.numbers import FACT_COUNTS, MAX_FACT_TEXT, UNSET_COUNT, run_fact, shown, unusable, whole
from tsm_tui.core.settings import RunInfo
from tsm_tui.sources.config import MAX_CONFIG_BYTES, ConfigError, num, parse_arg_list, read_config_file  # noqa: F401
from tsm_tui.sources.config_keys import (
    detect_framework,
    PER_NODE,
    flag,
    flatten,
    global_batch,
    lookup,
    names,
    precision,
    present,
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
    training, models, pickles, bad = [], [], [], []
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
    for e in bad:  # named once, the plan made without it
        plan.note(f"{os.path.basename(e.path or '')}: {e.reason}: ignored")
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


def apply_plan(plan: Plan, mapping: dict, origin: str, kind: str = "") -> None:
    """Fill ``plan`` from one training-config mapping (values already set win)."""
    fw = detect_framework(mapping, kind)
    if plan.framework is None or plan.framework == "generic":
        plan.framework = fw
    flat = flatten(mapping)
    defaults = config_defaults(fw)  # (sources/framework_defaults: the monitor's table too)
    dflt_origin = f"{default_label(fw)} default (not set in {origin})"

    def get(*names, default=True):
        k, v = lookup(flat, *names)
        if k is None and default:
            for n in names:
                if n in defaults:
                    return n, defaults[n], dflt_origin
        if k is not None and unusable(v):  # 1e400, .inf, 400 digits: the key is ignored, and said
            plan.note(f"{origin}: {k} = {shown(v)} ignored: not a usable number")
            return k, None, origin
        return k, v, origin

    def put(name, value, k, o, **kw):
        if value is not None:
            plan.put(name, value, o, k, **kw)

    def count(name, k, v, o, store=True):
        """A count the config gives: put (``store``) and returned when at least its
        minimum (core/numbers.FACT_COUNTS); 0 and -1 mean "not set" (HF, Lightning);
        another negative count, or one past the bound, is ignored and said."""
        n = whole(v)
        if n is None:
            if num(v) is not None:  # 2.5 steps: no count (HF reads 0.1 as a fraction of the run)
                plan.note(f"{o}: {k} = {shown(v)} ignored: not a whole number")
            return None
        if n < UNSET_COUNT:
            plan.note(f"{o}: {k} = {shown(v)} ignored: a negative count")
            return None
        if n < FACT_COUNTS[name]:
            return None
        if run_fact(name, n) is None:
            plan.note(f"{o}: {k} = {shown(v)} ignored: not a usable number")
            return None
        if store:
            put(name, n, k, o)
        return n

    # --- model size given outright (plain configs) ---------------------------
    k, v, o = get(*names("params", fw))
    p = num(v, sizes=True)
    if p and p > 0:
        put("params", p, k, o)

    # --- steps, tokens, epochs ------------------------------------------------------
    k, v, o = get(*names("total_steps", fw))
    n = whole(v)
    if n is not None and n <= 0 and k == "max_steps":
        plan.note(f"{origin}: max_steps={n} means an epoch-based run")
    else:
        count("total_steps", k, v, o)
    k, v, o = get("max_duration")
    if isinstance(v, (str, int, float)) and v is not None:
        s = str(v).strip().lower()
        m = re.fullmatch(r"([\d.e+_]+)\s*(ba|tok|t|ep|sp)?", s)
        if m:
            x, unit = num(m.group(1)), m.group(2) or "ba"
            if x:
                if unit == "ba":
                    put("total_steps", int(x), k, o)
                elif unit in ("t", "tok"):
                    put("total_tokens", x, k, o)
                elif unit == "ep":
                    put("epochs", x, k, o)
    k, v, o = get("total_tokens", "train_tokens", "max_tokens", "num_tokens", "training_tokens", "tokens")
    t = num(v, sizes=True)
    if t and t > 0:
        put("total_tokens", t, k, o)
    k, v, o = get("train_samples")  # Megatron --train-samples: samples over the whole run
    ts = count("dataset_samples", k, v, o, store=False)
    if ts:
        plan._train_samples = ts  # type: ignore[attr-defined]
    k, v, o = get("num_train_epochs", "num_epochs", "max_epochs", "epochs", "trainer.max_epochs")
    e = num(v)
    if e and e > 0:
        put("epochs", e, k, o)
    k, v, o = get("num_train_samples", "dataset_size", "num_examples", "train_dataset_size", "num_samples")
    count("dataset_samples", k, v, o)

    # --- batch -------------------------------------------------------------------------
    k, v, o = get(*names("batch_tokens", fw))
    bt = num(v, sizes=True)
    if bt and bt > 0:
        put("batch_tokens", bt, k, o)
    k, v, o = get(*names("batch_size", fw))
    count("batch_size", k, v, o)
    k, v, o = get(*names("micro_batch", fw))
    count("micro_batch", k, v, o)
    k, v, o = get(*names("grad_accum", fw))
    count("grad_accum", k, v, o)
    ws = None
    k, v, o = get(*names("world_size", fw))
    ws = count("world_size", k, v, o, store=False)
    if ws:
        kn, vn, _ = get(*names("nodes", fw))
        nodes = whole(vn)
        if nodes and nodes > 1 and k in PER_NODE:
            ws *= nodes
            k = f"{k} x {kn}"
        put("world_size", ws, k, o)
    k, v, o = get(*names("seq_len", fw))
    count("seq_len", k, v, o)

    # --- learning rate and schedule ------------------------------------------------------
    k, v, o = get(*names("peak_lr", fw))
    lr = num(v)
    if lr is not None and lr > 0:
        put("peak_lr", lr, k, o)
    units_tokens = str(lookup(flat, "scheduler.units", "units")[1] or "").lower() == "tokens"
    k, v, o = get(*names("warmup_steps", fw))
    w = num(v, sizes=True)
    if w is not None and w >= 0:
        if warmup_in_tokens(flat, k):
            put("warmup_tokens", w, k, o)
        elif whole(v, sizes=True) is None and 0 < w < 1:
            # transformers v5 reads a warmup_steps below 1 as a share of the run (warmup_ratio's
            # successor, huggingface/transformers#41326); a warmup_ratio beside it is read after
            put("warmup_ratio", w, k, o)
        elif whole(v, sizes=True) is None:
            plan.note(f"{o}: {k} = {shown(v)} ignored: not a whole number")
        else:
            put("warmup_steps", whole(v, sizes=True), k, o)
    elif w is not None and w < UNSET_COUNT:
        plan.note(f"{o}: {k} = {shown(v)} ignored: a negative count")
    k, v, o = get("warmup_tokens", "lr_warmup_tokens")
    wt = num(v, sizes=True)
    if wt is not None and wt >= 0:
        put("warmup_tokens", wt, k, o)
    k, v, o = get(*names("warmup_ratio", fw))
    wr = num(v)
    if wr is not None and 0 < wr <= 1:
        put("warmup_ratio", wr, k, o)
    elif wr is not None and wr > 1:
        plan.note(f"{o}: {k} = {shown(v)} ignored: a share of the run is at most 1")
    k, v, o = get("lr_warmup_samples")
    ws_samples = count("dataset_samples", k, v, o, store=False)
    if ws_samples:
        plan._warmup_samples = ws_samples  # type: ignore[attr-defined]
    k, v, o = get(*names("schedule", fw))
    if isinstance(v, str) and v.strip():
        put("schedule", v.strip(), k, o)
    elif v is None:
        k2, d = lookup(flat, "decay_lr")
        if isinstance(flag(d), bool):
            plan.put("schedule", "cosine" if flag(d) else "constant", origin, f"{k2}={d}")
    k, v, o = get(
        "lr_decay_iters",
        "lr_decay_steps",
        "decay_steps",
        "scheduler.t_max",
        "t_max",
        "scheduler.params.total_num_steps",
    )
    ds = num(v, sizes=True)
    if ds and ds > 0:
        if units_tokens and k in ("scheduler.t_max", "t_max"):
            plan._decay_tokens = (ds, f"{k}", origin)  # type: ignore[attr-defined]
        else:
            put("decay_steps", int(ds), k, o)
    k, v, o = get("lr_decay_tokens")
    if num(v, sizes=True):
        plan._decay_tokens = (num(v, sizes=True), k, origin)  # type: ignore[attr-defined]
    k, v, o = get("min_lr_ratio", "alpha_f", "lr_scheduler.min_lr_factor", "min_lr_rate", "final_lr_ratio")
    if num(v) is not None:
        put("min_lr_ratio", num(v), k, o)
    else:
        k, v, o = get("min_lr", "lr_min", "lr_scheduler.lr_min", "final_lr")
        if num(v) is not None and plan.peak_lr:
            put("min_lr_ratio", num(v) / plan.peak_lr, k, o)

    # --- clipping --------------------------------------------------------------------------
    clip_names = names("clip", fw)
    k, v, o = get(*clip_names, default=False)
    if k is None:
        for n in clip_names:
            if present(flat, n):  # present and null: clipping disabled (HF / Lightning treat None as off)
                k, v, o = n, 0.0, origin
                break
        else:
            k, v, o = get(*clip_names)
    c = num(v) if not isinstance(v, bool) else (None if v else 0.0)
    if k is not None and c is not None:
        put("clip", max(c, 0.0), k, o)

    # --- precision and loss scaling -----------------------------------------------------------
    prec, pk, po = precision(flat, get, fw)
    if prec:
        put("precision", prec, pk, po)
    k, v, o = get("loss_scale", "fp16.loss_scale", "static_loss_scale")
    ls = num(v)
    if ls is not None:
        put("loss_scale", ls, k, o)
        if ls > 0:
            plan.put("dynamic_scaling", False, origin, f"{k}={v}")
    k, v, o = get(
        "dynamic_loss_scale",
        "use_grad_scaler",
        "grad_scaler",
        "use_loss_scaling",
        "loss_scaling",
        "dynamic_loss_scaling",
        "amp_scaler",
    )
    if v is not None:
        if isinstance(v, str) and v.lower() in ("static", "dynamic"):
            plan.put("dynamic_scaling", v.lower() == "dynamic", origin, f"{k}={v}")
        elif flag(v) is not None:
            plan.put("dynamic_scaling", flag(v), origin, f"{k}={v}")
    if plan.precision == "fp16-pure":
        plan.put("dynamic_scaling", False, plan.origin.get("precision", origin), plan.keys.get("precision"))

    # --- logging --------------------------------------------------------------------------------
    k, v, o = get(*names("logging_steps", fw))
    count("logging_steps", k, v, o)
    k, v, o = get("logging_strategy")
    if isinstance(v, str):
        put("logging_strategy", v.lower(), k, o)
    k, v, o = get("logging_nan_inf_filter")
    if flag(v) is not None:
        put("logging_nan_inf_filter", flag(v), k, o)
    k, v, o = get("log_grad_norm", "log_grad_norms", "log_gradient_norm", "track_grad_norm")
    if flag(v) is not None:
        put("log_grad_norm", flag(v), k, o)

    # --- checkpoints ----------------------------------------------------------------------------
    k, v, o = get(*names("save_strategy", fw))
    if isinstance(v, str):
        put("save_strategy", v.lower(), k, o)
    k, v, o = get(
        "checkpoint.enable_checkpoint", "checkpoint.enable", "enable_checkpointing", "trainer.enable_checkpointing"
    )
    if flag(v) is False:
        put("save_strategy", "no", k, o)
    elif flag(v) is True:
        put("save_strategy", "steps", k, o)
    k, v, o = get(*names("save_steps", fw))
    count("save_steps", k, v, o)
    if fw == "nanogpt" and plan.save_steps is None:
        k, v, o = get("eval_interval")
        if whole(v):
            put("save_steps", whole(v), f"{k} (nanoGPT saves at each eval)", o)
    if fw == "megatron":
        if not present(flat, "save"):
            plan.put("save_strategy", "no", origin, "no --save")
        elif plan.save_steps is None:
            plan.put("save_strategy", "end", origin, "--save without --save-interval")
    k, v, o = get("save_interval_hours", "checkpoint_interval_hours", "save_every_hours")
    if num(v):
        put("save_hours", num(v), k, o)
    k, v, o = get(
        "save_interval_minutes", "save_every_minutes", "checkpoint_interval_minutes", "train_time_interval_minutes"
    )
    if num(v):
        put("save_hours", num(v) / 60, k, o)

    # --- optimizer ------------------------------------------------------------------------------
    k, v, o = get("optim", "optimizer.name", "optimizer_type", "optimizer", "optimizer.type")
    if isinstance(v, str):
        put("optimizer", v, k, o)
    k, v, o = get(*names("betas", fw))
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(num(x) is not None for x in v):
        put("beta1", num(v[0]), f"{k}[0]", o)
        put("beta2", num(v[1]), f"{k}[1]", o)
    k, v, o = get(*names("beta2", fw))
    if num(v) is not None:
        put("beta2", num(v), k, o)
    k, v, o = get("adam_beta1", "beta1", "optimizer.beta1")
    if num(v) is not None:
        put("beta1", num(v), k, o)
    k, v, o = get(*names("eps", fw))
    if num(v) is not None:
        put("eps", num(v), k, o)

    # --- fine-tune or pre-training ---------------------------------------------------------------
    stage = str(lookup(flat, "stage")[1] or "").lower()
    if stage == "pt":
        plan.put("finetune", False, origin, "stage=pt")
    elif stage in _FT_STAGES:
        plan.put("finetune", True, origin, f"stage={stage}")
    else:
        for n in (
            "finetuning_type",
            "adapter",
            "base_model",
            "model_name_or_path",
            "pretrained_model_name_or_path",
            "finetune",
        ):
            kk, vv = lookup(flat, n)
            if vv not in (None, False, "", "none"):
                plan.put("finetune", True, origin, f"{kk}={shown(vv, MAX_FACT_TEXT)}")
                break
        kk, vv = lookup(flat, "init_from")
        if isinstance(vv, str):
            plan.put("finetune", vv != "scratch", origin, f"init_from={vv}")

    # --- the model, when described inline (nanoGPT, Megatron, OLMo, Lightning) -----------------
    if plan.params is None:
        model = mapping.get("model") if isinstance(mapping.get("model"), dict) else mapping
        if fw == "torchtitan":
            flavor = str(lookup(flat, "model.flavor")[1] or "")
            p = num(flavor, sizes=True)
            if p:
                plan.put("params", p, origin, f"model.flavor={flavor}")
        else:
            est = count_params(model, fw)
            if est:
                plan.put("params", est[0], origin, est[1])
                for msg in est[2]:
                    plan.note(msg)


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


def _whole(x: float):
    """round(x); x itself when it is no finite number (``Plan.put`` says so): a
    ratio of hostile values (1e18 tokens / 1e-320 per batch) is Inf, and
    ``round(inf)`` was an OverflowError in ``finalize_plan``."""
    return round(x) if math.isfinite(x) else x


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
        ("total_steps", getattr(plan, "_train_samples", None), "train_samples / global batch"),
        ("warmup_steps", getattr(plan, "_warmup_samples", None), "lr_warmup_samples / global batch"),
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
            _whole(plan.total_tokens / bt),
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
            _whole(plan.warmup_tokens / bt),
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
    dt = getattr(plan, "_decay_tokens", None)
    if dt and plan.decay_steps is None and bt:
        plan.put("decay_steps", _whole(dt[0] / bt), dt[2], f"{dt[1]} / batch tokens")
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
