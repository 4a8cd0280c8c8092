"""Pre-flight: published anchors, the config keys each framework uses, and the result type."""

from __future__ import annotations

from dataclasses import dataclass, field

from tsm_tui.analysis.detectors.references import lr_reference
from tsm_tui.core.record import Status
from tsm_tui.preflight.plan import Plan


SCHEMA = 1

# --- published anchors (detection-anchors.md) -----------------------------------------

#: (the published long-run warm-ups that pass the 1% rule, 2000 steps / 375M tokens, are
#: Settings.warmup_published_steps / _tokens, judged by analysis/rules.py)
#: warm-up of 2-5% of the run recommended (issue #6; Wortsman et al. use 5%)
WARMUP_REC = (0.02, 0.05)
#: a schedule horizon this much longer than the run leaves the LR high at the end
#: (ours; Chinchilla: the cosine cycle should match the training horizon)
DECAY_TOO_LONG = 1.25
#: logging intervals: > 10 steps WARN; >= 100 steps averages spikes away (ours;
#: HF's default is 500 and its logged loss is the mean over the interval)
LOG_WARN, LOG_AVERAGED = 10, 100
#: checkpoint interval: > 6 hours (ours); in steps, > 20% of the run or > 5000 steps is the
#: report's Checkpoints rule (core/settings.py ckpt_max_gap_*, analysis/rules.py)
CKPT_MAX_HOURS = 6.0
#: optimizer: "large" model, beta2 and eps limits (GPT-3 / LLaMA / OLMo 2 use
#: beta2 0.95, eps 1e-8; OLMo 2 moved eps 1e-5 -> 1e-8)
LARGE_PARAMS, BETA2_MAX, EPS_MAX = 1e9, 0.99, 1e-6

REFERENCES = {
    "lr_schedule": "warm-up: >= 1% of steps, 2-5% recommended (issue #6, Wortsman et al. 5%), or the published "
    "2000 steps (LLaMA 1/2, OLMo 2, DeepSeek) / 375M tokens (GPT-3 App. B); decay to 10% over the "
    "run (GPT-3, LLaMA, OLMo 2; Chinchilla: cycle = run); peak LR: GPT-3 Table 2.1, LLaMA / OLMo 2 "
    "recipes, DeepSeek LLM eta_opt(C) = 0.3118 C^-0.125; > 3x WARN, >= 10x FAIL (ours)",
    "batch_size": "GPT-3 Table 2.1 (0.5M-3.2M tokens by size); DeepSeek LLM B_opt(C) = 0.2920 C^0.3271; critical "
    "batch size (McCandlish et al. 2018, Kaplan et al. 2020); 1/10x-10x band ours",
    "grad_norm": "global-norm clip 1.0: GPT-3 App. B, LLaMA 1/2, OLMo 2, DeepSeek, BLOOM, Megatron --clip-grad "
    "default; OPT-175B tightened to 0.3",
    "precision": "BLOOM-176B (bf16 after the 104B fp16 runs failed), OPT-175B (fp16 loss-scale collapse before "
    "divergence); torch GradScaler / Megatron / DeepSpeed dynamic loss scaling",
    "logging": "HF Trainer: logging_steps=500 default, loss averaged over the interval, logging_nan_inf_filter=True "
    "default hides NaN losses; grad norm leads the loss (OLMo 2, GLM-130B); > 10 steps WARN (ours)",
    "checkpoints": "PaLM (restart ~100 steps before a spike, skip 200-500 batches), OPT-175B (35+ manual restarts), "
    "LLM360 K2; > 20% of the run, > 5000 steps or > 6 h apart WARN (ours; the same rule as the live check)",
    "optimizer": "GPT-3 App. B, LLaMA, OLMo 2: Adam beta2 0.95, eps 1e-8; OLMo 2 moved eps 1e-5 -> 1e-8; Molybog "
    "et al. 2023 (eps -> 0); Ma & Yarats 2021: warm-up >= 2/(1-beta2) steps",
}
TITLES = {
    "lr_schedule": "LR Schedule",
    "batch_size": "Batch Size",
    "grad_norm": "Gradient Clipping",
    "precision": "Precision",
    "logging": "Logging",
    "checkpoints": "Checkpoints",
    "optimizer": "Optimizer (Adam beta2 / eps)",
}

# what each setting is called in each framework, for the actions
_KEYS = {
    "hf": {
        "warmup_steps": "warmup_steps",
        "peak_lr": "learning_rate",
        "clip": "max_grad_norm",
        "logging_steps": "logging_steps",
        "save_steps": "save_steps",
        "beta2": "adam_beta2",
        "eps": "adam_epsilon",
        "schedule": "lr_scheduler_type",
        "decay_steps": "max_steps",
    },
    "megatron": {
        "warmup_steps": "--lr-warmup-iters",
        "peak_lr": "--lr",
        "clip": "--clip-grad",
        "logging_steps": "--log-interval",
        "save_steps": "--save-interval",
        "beta2": "--adam-beta2",
        "eps": "--adam-eps",
        "schedule": "--lr-decay-style",
        "decay_steps": "--lr-decay-iters",
    },
    "torchtitan": {
        "warmup_steps": "[lr_scheduler] warmup_steps",
        "peak_lr": "[optimizer] lr",
        "clip": "[training] max_norm",
        "logging_steps": "[metrics] log_freq",
        "save_steps": "[checkpoint] interval",
        "beta2": "[optimizer] beta2",
        "eps": "[optimizer] eps",
        "schedule": "[lr_scheduler] decay_type",
        "decay_steps": "[lr_scheduler] decay_ratio",
    },
    "lightning": {
        "clip": "gradient_clip_val",
        "logging_steps": "log_every_n_steps",
        "save_steps": "ModelCheckpoint(every_n_train_steps)",
    },
    "nanogpt": {
        "warmup_steps": "warmup_iters",
        "clip": "grad_clip",
        "logging_steps": "log_interval",
        "save_steps": "eval_interval",
        "beta2": "beta2",
        "decay_steps": "lr_decay_iters",
    },
}
_KEYS["axolotl"] = _KEYS["hf"]
_GENERIC = {
    "warmup_steps": "warmup_steps",
    "peak_lr": "learning_rate",
    "clip": "max_grad_norm",
    "logging_steps": "log_interval",
    "save_steps": "save_interval",
    "beta2": "adam_beta2",
    "eps": "adam_eps",
    "schedule": "lr_schedule",
    "decay_steps": "lr_decay_steps",
}
_BF16 = {
    "hf": "set bf16=true (fp16=false)",
    "axolotl": "set bf16: true (fp16: false)",
    "megatron": "use --bf16 instead of --fp16",
    "lightning": "set precision='bf16-mixed'",
    "torchtitan": 'set [training] mixed_precision_param = "bfloat16"',
    "nanogpt": "set dtype='bfloat16'",
    "deepspeed": 'set "bf16": {"enabled": true} and "fp16": {"enabled": false}',
}
FRAMEWORKS = {
    "hf": "HF TrainingArguments",
    "axolotl": "Axolotl (HF names)",
    "megatron": "Megatron-LM arguments",
    "torchtitan": "torchtitan TOML",
    "lightning": "Lightning hparams",
    "nanogpt": "nanoGPT-style",
    "olmo": "OLMo YAML",
    "deepspeed": "DeepSpeed JSON",
    "generic": "plain config",
}


def key(plan: Plan, field_name: str) -> str:
    """The name to use in an action: the key read from the file, else the framework's."""
    k = plan.keys.get(field_name)
    if (
        k
        and plan.origin.get(field_name) != "command line"
        and "(" not in k
        and " " not in k
        and "default" not in (plan.origin.get(field_name) or "")
    ):
        return f"--{k.replace('_', '-')}" if plan.framework == "megatron" else k
    return _KEYS.get(plan.framework or "", {}).get(field_name) or _GENERIC.get(field_name, field_name)


def human(x: float | None) -> str:
    """125M, 6.74B, 0.5M: parameter and token counts."""
    if x is None:
        return "n/a"
    x = float(f"{x:.3g}")
    for div, suf in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suf}"
    return f"{x:.3g}"


def pct(x: float) -> str:
    return f"{x * 100:.2g}%" if x < 0.1 else f"{x * 100:.0f}%"


# --- results ----------------------------------------------------------------------------


@dataclass
class PreCheck:
    id: str
    status: Status
    summary: str
    reference: str
    actions: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        return TITLES[self.id]

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status.value,
            "summary": self.summary,
            "reference": self.reference,
            "actions": list(self.actions),
        }


class _Acc:
    """Findings of one check: the worst status wins, texts and actions accumulate."""

    def __init__(self, cid: str):
        self.id = cid
        self.status = Status.SKIP
        self.texts: list[tuple[int, str]] = []
        self.actions: list[str] = []

    def add(self, status: Status, text: str, action: str | None = None) -> None:
        if status.rank > self.status.rank:
            self.status = status
        self.texts.append((status.rank, text))
        if action and status in (Status.WARN, Status.FAIL) and action not in self.actions:
            self.actions.append(action)

    def info(self, text: str) -> None:  # a remark that does not change the status
        self.texts.append((0, text))

    def result(self, skip_reason: str = "") -> PreCheck:
        if self.status == Status.SKIP:
            text = skip_reason or "; ".join(t for _, t in self.texts) or "not enough configuration"
            return PreCheck(self.id, Status.SKIP, text, REFERENCES[self.id])
        # the worst findings first, then the rest in order
        ordered = sorted(self.texts, key=lambda t: -t[0])
        return PreCheck(self.id, self.status, "; ".join(t for _, t in ordered), REFERENCES[self.id], self.actions)


# --- shared references ----------------------------------------------------------------------


def lr_ref(plan: Plan) -> tuple[float, str] | None:
    """The size reference of the monitor's LR check (``lr_reference``: the most permissive
    of GPT-3 Table 2.1, a modern recipe of this size and DeepSeek eta_opt(C) when the token
    budget is known), named with the numbers it was taken at."""
    p = plan.params
    if not p:
        return None
    got = lr_reference(p, plan.total_tokens)
    if got is None:
        return None
    ref, name = got
    if name.startswith("GPT-3"):
        name = f"{name} for {human(p)}"
    elif name.startswith("DeepSeek"):
        c = 6.0 * p * (plan.total_tokens or 0)
        name = f"DeepSeek eta_opt(C) for {human(p)} params on {human(plan.total_tokens or 0)} tokens, C = {c:.2g} FLOPs"
    return ref, name


def _lr_ratio(plan: Plan) -> float | None:
    r = lr_ref(plan)
    return plan.peak_lr / r[0] if (r and plan.peak_lr) else None
