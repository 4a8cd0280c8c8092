"""What a framework does when the run's configuration does not say: the advice must
never tell a run to do what its framework already does (an HF Trainer run without a
``training_args.json`` clips at 1.0: ``max_grad_norm`` defaults to 1.0).

A default is the weakest fact about a run: it fills a field nothing else set, its
origin ends in "(default)", and a log or a config that says otherwise replaces it.
Sources: transformers ``TrainingArguments`` (max_grad_norm=1.0, adam_beta2=0.999,
adam_epsilon=1e-8), Megatron-LM ``arguments.py`` (--clip-grad 1.0, --adam-beta2 0.999,
--adam-eps 1e-08), Lightning ``Trainer`` (gradient_clip_val=None: no clipping).
"""

from __future__ import annotations

from tsm_tui.core.settings import RunInfo

DEFAULT = "(default)"  # the end of a default's origin
#: the framework each reader's format comes from (formats that several frameworks write: none)
_FRAMEWORK = {
    "hf-trainer-state": "hf",
    "hf-stdout": "hf",
    "llama-factory": "hf",
    "megatron": "megatron",
    "lightning-csv": "lightning",
}  # (LLaMA-Factory trains with HF's Trainer)
DEFAULTS: dict[str, dict[str, tuple[float, str]]] = {
    "hf": {
        "clip": (1.0, "HF TrainingArguments max_grad_norm=1.0"),
        "beta2": (0.999, "HF TrainingArguments adam_beta2=0.999"),
        "eps": (1e-8, "HF TrainingArguments adam_epsilon=1e-8"),
    },
    "megatron": {
        "clip": (1.0, "Megatron --clip-grad 1.0"),
        "beta2": (0.999, "Megatron --adam-beta2 0.999"),
        "eps": (1e-8, "Megatron --adam-eps 1e-08"),
    },
    "lightning": {"clip": (0.0, "Lightning gradient_clip_val=None: no clipping")},
}


def framework_of(reader) -> str | None:
    return _FRAMEWORK.get(getattr(reader, "name", ""))


def apply_defaults(info: RunInfo, framework: str | None) -> None:
    """Fill what nothing else set with the framework's defaults."""
    for key, (value, why) in DEFAULTS.get(framework or "", {}).items():
        info.set(key, value, f"{why} {DEFAULT}")


def is_default(info: RunInfo, key: str) -> bool:
    return info.origin.get(key, "").endswith(DEFAULT)


def origin_note(info: RunInfo, key: str) -> str:
    """`` (HF TrainingArguments max_grad_norm=1.0, its default)`` when the value is a default."""
    o = info.origin.get(key, "")
    return f" ({o[: -len(DEFAULT)].strip()}, its default)" if o.endswith(DEFAULT) else ""
