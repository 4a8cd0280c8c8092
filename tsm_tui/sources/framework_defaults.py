"""What a framework does when the run's configuration does not say: one table, read by
the monitor (``apply_defaults``: a log's framework fills what nothing else set) and by
pre-flight (``config_defaults``: a key the config leaves out takes its framework's
value; not for Lightning, see ``Framework.preflight``). The advice must never tell a run to do what its framework already does (an HF
Trainer run without a ``training_args.json`` clips at 1.0: ``max_grad_norm`` defaults
to 1.0).

A default is the weakest fact about a run: it fills a field nothing else set, its
origin ends in "(default)" in the monitor and in "default (not set in FILE)" in
pre-flight, and a log or a config that says otherwise replaces it. Sources:
transformers ``TrainingArguments`` (4.x), Megatron-LM ``arguments.py``, torchtitan
``JobConfig`` (``torchtitan/config/job_config.py``), Lightning ``Trainer``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tsm_tui.core.settings import RunInfo

DEFAULT = "(default)"  # the end of a default's origin in the monitor


@dataclass(frozen=True)
class Default:
    """One framework default: the setting it fills, the config key that sets it, its value
    and how the monitor names its source."""

    setting: str
    key: str
    value: float | int | str | bool
    source: str


@dataclass(frozen=True)
class Framework:
    #: how pre-flight names the source ("HF TrainingArguments default (not set in x.yaml)")
    label: str
    rows: tuple[Default, ...]
    #: pre-flight asserts these defaults of a config it took for this framework's
    #: (config_keys.detect_framework); False where that guess rests on a key any script may
    #: use. The monitor's framework is its log's format, never a guess
    preflight: bool = True


_HF = Framework(
    "HF TrainingArguments",
    (
        Default("peak_lr", "learning_rate", 5e-5, "HF TrainingArguments learning_rate=5e-5"),
        Default("clip", "max_grad_norm", 1.0, "HF TrainingArguments max_grad_norm=1.0"),
        Default("logging_steps", "logging_steps", 500, "HF TrainingArguments logging_steps=500"),
        Default(
            "logging_nan_inf_filter",
            "logging_nan_inf_filter",
            True,
            "HF TrainingArguments logging_nan_inf_filter=True",
        ),
        Default("beta1", "adam_beta1", 0.9, "HF TrainingArguments adam_beta1=0.9"),
        Default("beta2", "adam_beta2", 0.999, "HF TrainingArguments adam_beta2=0.999"),
        Default("eps", "adam_epsilon", 1e-8, "HF TrainingArguments adam_epsilon=1e-8"),
        Default("schedule", "lr_scheduler_type", "linear", "HF TrainingArguments lr_scheduler_type=linear"),
        Default("save_steps", "save_steps", 500, "HF TrainingArguments save_steps=500"),
        Default("save_strategy", "save_strategy", "steps", "HF TrainingArguments save_strategy=steps"),
        Default("warmup_steps", "warmup_steps", 0, "HF TrainingArguments warmup_steps=0"),
        Default("logging_strategy", "logging_strategy", "steps", "HF TrainingArguments logging_strategy=steps"),
    ),
)

#: framework -> its defaults. The keys are the config keys of sources/config_keys.KEYS the
#: framework reads (pre-flight asks for a key and gets its default when the config leaves it
#: out); axolotl and LLaMA-Factory train with HF's Trainer
FRAMEWORKS: dict[str, Framework] = {
    "hf": _HF,
    "axolotl": _HF,
    "megatron": Framework(
        "Megatron-LM",
        (
            Default("clip", "clip_grad", 1.0, "Megatron --clip-grad 1.0"),
            Default("logging_steps", "log_interval", 100, "Megatron --log-interval 100"),
            Default("beta1", "adam_beta1", 0.9, "Megatron --adam-beta1 0.9"),
            Default("beta2", "adam_beta2", 0.999, "Megatron --adam-beta2 0.999"),
            Default("eps", "adam_eps", 1e-8, "Megatron --adam-eps 1e-08"),
            Default("schedule", "lr_decay_style", "linear", "Megatron --lr-decay-style linear"),
            Default("warmup_steps", "lr_warmup_iters", 0, "Megatron --lr-warmup-iters 0"),
        ),
    ),
    "torchtitan": Framework(
        "torchtitan",
        (
            Default("clip", "training.max_norm", 1.0, "torchtitan training.max_norm=1.0"),
            Default("logging_steps", "metrics.log_freq", 10, "torchtitan metrics.log_freq=10"),
            Default("eps", "optimizer.eps", 1e-8, "torchtitan optimizer.eps=1e-8"),
            Default("beta2", "optimizer.beta2", 0.95, "torchtitan optimizer.beta2=0.95"),
            Default(
                "precision",
                "training.mixed_precision_param",
                "bfloat16",
                "torchtitan training.mixed_precision_param=bfloat16",
            ),
            Default("save_steps", "checkpoint.interval", 500, "torchtitan checkpoint.interval=500"),
        ),
    ),
    "lightning": Framework(
        "Lightning Trainer",
        (Default("clip", "gradient_clip_val", 0.0, "Lightning gradient_clip_val=None: no clipping"),),
        # a config is "lightning" by one of log_every_n_steps, accumulate_grad_batches, ...: a
        # JAX LSTM's W&B config.yaml with log_every_n_steps (corpus fresh3,
        # wandb_jax_ngram_resumed_for_evals) would read "clipping disabled (gradient_clip_val=0)"
        preflight=False,
    ),
}

#: the settings the monitor fills from a log's framework: the ones its advice compares
#: against (clip, Adam's beta2 and epsilon). The other rows describe a config pre-flight
#: reads whole; from a log alone the monitor cannot tell that another key replaced them
#: (HF's warmup_steps=0 under a warmup_ratio, save_steps=500 under save_strategy "epoch")
MONITOR_SETTINGS = ("clip", "beta2", "eps")

#: the framework each reader's format comes from (formats that several frameworks write: none)
_FRAMEWORK = {
    "hf-trainer-state": "hf",
    "hf-stdout": "hf",
    "llama-factory": "hf",
    "megatron": "megatron",
    "lightning-csv": "lightning",
    "torchtitan": "torchtitan",
}  # (LLaMA-Factory trains with HF's Trainer)


def config_defaults(framework: str | None) -> dict[str, float | int | str | bool]:
    """Config key -> the framework's value for it (pre-flight's view of the table)."""
    fw = FRAMEWORKS.get(framework or "")
    return {d.key: d.value for d in fw.rows} if fw and fw.preflight else {}


def default_label(framework: str | None) -> str:
    fw = FRAMEWORKS.get(framework or "")
    return fw.label if fw else ""


def framework_of(reader) -> str | None:
    return _FRAMEWORK.get(getattr(reader, "name", ""))


def apply_defaults(info: RunInfo, framework: str | None) -> None:
    """Fill what nothing else set with the framework's defaults (MONITOR_SETTINGS)."""
    fw = FRAMEWORKS.get(framework or "")
    for d in fw.rows if fw else ():
        if d.setting in MONITOR_SETTINGS:
            info.set(d.setting, d.value, f"{d.source} {DEFAULT}")


def is_default(info: RunInfo, key: str) -> bool:
    return info.origin.get(key, "").endswith(DEFAULT)


def origin_note(info: RunInfo, key: str) -> str:
    """`` (HF TrainingArguments max_grad_norm=1.0, its default)`` when the value is a default."""
    o = info.origin.get(key, "")
    return f" ({o[: -len(DEFAULT)].strip()}, its default)" if o.endswith(DEFAULT) else ""
