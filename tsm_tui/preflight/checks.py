"""Pre-flight: one function per check, each from the plan to a PreCheck."""

from __future__ import annotations

import math

from tsm_tui.analysis.advice import checkpoint_every
from tsm_tui.analysis.rules import checkpoint_gap_too_long, lr_ratio_status, warmup_published, warmup_short
from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.detectors.references import (
    BELOW_BATCH_REFS,
    MIN_PARAMS,
    batch_reference,
    deepseek_batch_tokens,
    gpt3_batch_tokens,
    gpt3_lr,
    sgd_range,
)
from tsm_tui.core.record import Status
from tsm_tui.core.settings import Settings
from tsm_tui.preflight.plan import Plan

from tsm_tui.preflight.references import BETA2_MAX, CKPT_MAX_HOURS, EPS_MAX, LARGE_PARAMS, LOG_AVERAGED, LOG_WARN
from tsm_tui.preflight.references import (
    DECAY_TOO_LONG,
    PreCheck,
    WARMUP_REC,
    _Acc,
    _BF16,
    _lr_ratio,
    human,
    key,
    lr_ref,
    pct,
)

# --- the checks -----------------------------------------------------------------------------


def check_lr_schedule(plan: Plan, s: Settings) -> PreCheck:
    a = _Acc("lr_schedule")
    W, T, ft = plan.warmup_steps, plan.total_steps, bool(plan.finetune)
    wk = key(plan, "warmup_steps")

    def rec_range(total: int) -> str:  # (called where the run length is known)
        lo, hi = max(1, round(total * WARMUP_REC[0])), max(1, round(total * WARMUP_REC[1]))
        return f"{lo}-{hi} (2-5% of {total})"

    if W is None:
        a.info("warm-up unknown" + (f" ({plan.warmup_ratio:g} of an unknown run length)" if plan.warmup_ratio else ""))
    elif W == 0:
        what = "fine-tune" if ft else "from-scratch run"
        act = f"set {wk} to {rec_range(T)}" if T else f"add a linear warm-up of 2-5% of the steps ({wk})"
        a.add(
            Status.WARN if ft else Status.FAIL,
            f"no LR warm-up ({what}): the first Adam updates hit at the peak LR",
            act + ", then cosine decay to 10% of the peak",
        )
    elif T:
        frac = W / T
        published = warmup_published(W, s, plan.warmup_tokens)
        if W >= T:
            a.add(
                Status.WARN,
                f"warm-up {W} steps >= the run's {T}: the LR never leaves warm-up",
                f"set {wk} to {rec_range(T)}",
            )
        elif warmup_short(W, T, s, plan.warmup_tokens):
            a.add(
                Status.WARN,
                f"warm-up {W} steps is {pct(frac)} of {T} (< 1%; 2-5% recommended)",
                f"set {wk} to {rec_range(T)}",
            )
        else:
            why = ""
            if frac < WARMUP_REC[0] and published:
                why = (
                    f"; >= {s.warmup_published_steps} steps, as LLaMA / OLMo 2 / DeepSeek"
                    if W >= s.warmup_published_steps
                    else f"; {human(plan.warmup_tokens)} tokens, as GPT-3"
                )
            elif frac < WARMUP_REC[0]:
                why = "; 2-5% recommended"
            a.add(Status.PASS, f"warm-up {W} steps ({pct(frac)} of {T}{why})")
    else:
        a.add(Status.PASS, f"warm-up {W} steps (run length unknown: --total-steps)")

    # decay after warm-up
    sch = (plan.schedule or "").lower()
    sk = key(plan, "schedule")
    if sch:
        no_decay = sch in ("constant", "constant_with_warmup", "none", "fixed", "const") or (
            plan.min_lr_ratio is not None and plan.min_lr_ratio >= 0.999
        )
        if no_decay and not ft:
            a.add(
                Status.WARN,
                f"{sch} LR: no decay after warm-up",
                f"set {sk}=cosine (decay to 10% of the peak over the run: GPT-3, LLaMA, OLMo 2)",
            )
        elif no_decay:
            a.info(f"{sch} LR (fine-tune)")
        else:
            a.add(
                Status.PASS,
                f"{sch} decay" + (f" to {plan.min_lr_ratio:.0%} of the peak" if plan.min_lr_ratio is not None else ""),
            )
    if plan.decay_steps and T:
        r = plan.decay_steps / T
        if r > DECAY_TOO_LONG:
            a.add(
                Status.WARN,
                f"the schedule decays over {plan.decay_steps} steps but the run is {T} "
                f"({fmt(r, 2)}x): the LR is still high when training stops",
                f"set {key(plan, 'decay_steps')} to {T} (the run's length; Chinchilla)",
            )

    # peak LR against model size
    ref = lr_ref(plan)
    lr = plan.peak_lr
    if lr and ref and sgd_range(None, plan.optimizer):
        # (only a named SGD-like optimizer: a config that names none gets its framework's default, AdamW in
        # HF / Megatron / torchtitan, and an LR of 0.1 there is the mistake this check is for)
        a.info(
            f"peak LR {fmt(lr)}: optimizer {plan.optimizer}; the size references (GPT-3 Table 2.1, DeepSeek) "
            "are fitted on Adam runs"
        )
    elif lr and ref:
        ratio = lr / ref[0]
        lk = key(plan, "peak_lr")
        also = (
            f"; GPT-3 Table 2.1: {fmt(gpt3_lr(plan.params)[0])}"
            if "GPT-3" not in ref[1] and plan.params and plan.params >= MIN_PARAMS
            else ""
        )
        text = f"peak LR {fmt(lr)} is {fmt(ratio, 3)}x the reference {fmt(ref[0])} ({ref[1]}{also})"
        act = f"lower {lk} from {fmt(lr)} to <= {fmt(2 * ref[0])} (2x {ref[1]})"
        st = lr_ratio_status(ratio, s)
        if st != Status.PASS:
            a.add(st, text, act)
        else:
            a.add(Status.PASS, f"peak LR {fmt(lr)} = {fmt(ratio, 2)}x the reference {fmt(ref[0])} ({ref[1]})")
    elif lr and plan.params:
        a.info(
            f"peak LR {fmt(lr)}: no published reference for {human(plan.params)} params (GPT-3 Table 2.1 starts at 125M; its fit is not extrapolated below 10M)"
        )
    elif lr:
        a.info(f"peak LR {fmt(lr)} (model size unknown: --params)")
    return a.result("warm-up, schedule and LR not in the config (--warmup-steps, --total-steps, --peak-lr)")


def check_batch(plan: Plan, s: Settings) -> PreCheck:
    a = _Acc("batch_size")
    p, bt = plan.params, plan.effective_batch_tokens()
    if not p or not bt:
        if plan.batch_size and not plan.seq_len and not plan.batch_tokens:
            why = f"batch {plan.batch_size} sequences, sequence length unknown (--batch-tokens)"
        elif not p and not bt:
            why = "model size and batch size unknown (--params, --batch-tokens)"
        elif not p:
            why = f"model size unknown (--params); batch {human(bt)} tokens"
        else:
            why = f"batch size unknown (--batch-tokens); {human(p)} params"
        return a.result(why)
    if plan.finetune:
        return a.result(
            f"fine-tune: the GPT-3 / DeepSeek batch references are for pre-training; batch {human(bt)} "
            f"tokens for {human(p)} params"
        )
    got = batch_reference(p, plan.total_tokens)
    if got is None:
        return a.result(f"{human(p)} params is {BELOW_BATCH_REFS}; batch {human(bt)} tokens")
    ref, name = got
    if name.startswith("GPT-3 Table 2.1 /"):  # both: say each
        g, ds = gpt3_batch_tokens(p), deepseek_batch_tokens(6.0 * p * (plan.total_tokens or 0))
        name = f"geometric mean of GPT-3 Table 2.1 {human(g)} and DeepSeek B_opt(C) {human(ds)}"
    elif name.startswith("GPT-3"):
        name = f"GPT-3 Table 2.1 for {human(p)}"
    r = bt / ref
    f = s.batch_factor
    assumed = " (world size assumed 1)" if "assumed 1" in (plan.keys.get("batch_size") or "") else ""
    seq = plan.seq_len
    if r < 1 / f:
        need = ref / f
        seqs = f" = {math.ceil(need / seq)} sequences of {seq}" if seq else ""
        a.add(
            Status.WARN,
            f"batch {human(bt)} tokens{assumed} is {1 / r:.0f}x below the {human(ref)}-token "
            f"reference ({name}): noisy gradients, spikes more likely",
            f"raise the global batch to >= {human(need)} tokens{seqs} (reference {human(ref)}; gradient "
            f"accumulation or more devices), or lower the LR (Adam's best LR scales ~ sqrt(batch))",
        )
    elif r > f:
        a.add(
            Status.WARN,
            f"batch {human(bt)} tokens is {r:.0f}x above the {human(ref)}-token reference ({name}): "
            "beyond the critical batch size, tokens are wasted",
            f"lower the batch to <= {human(ref * f)} tokens or ramp it up over the first 1-5% of tokens "
            "(GPT-3, Llama 3, DeepSeek-V3)",
        )
    else:
        a.add(Status.PASS, f"{human(bt)} tokens/step{assumed} = {fmt(r, 2)}x the reference {human(ref)} ({name})")
    return a.result()


def check_clipping(plan: Plan, s: Settings) -> PreCheck:
    a = _Acc("grad_norm")
    c = plan.clip
    ck = key(plan, "clip")
    if c is not None and c > 0:
        extra = " (looser than the usual 1.0)" if c > 1.0 else ""
        a.add(Status.PASS, f"clip at {fmt(c)}{extra}")
        return a.result()
    what = (
        "clipping disabled" + (f" ({plan.keys.get('clip')}={fmt(c)})" if c is not None else "")
        if c is not None
        else "no gradient clipping in the config"
    )
    worse = []
    if plan.precision in ("fp16", "fp16-pure"):
        worse.append("fp16: an overflowing step is applied unclipped")
    ratio = _lr_ratio(plan)
    if ratio is not None and lr_ratio_status(ratio, s) != Status.PASS:
        worse.append(f"the peak LR is {fmt(ratio, 2)}x the size reference")
    status = Status.FAIL if worse else Status.WARN
    text = what + (" and " + " and ".join(worse) if worse else ": one bad batch can blow up the weights")
    a.add(status, text, f"set {ck}=1.0 (GPT-3, LLaMA, OLMo 2, DeepSeek all clip at 1.0)")
    return a.result()


def check_precision(plan: Plan, s: Settings) -> PreCheck:
    a = _Acc("precision")
    p = plan.precision
    fw = plan.framework or "generic"
    to_bf16 = _BF16.get(fw, "set precision: bf16")
    if p is None:
        return a.result("precision not in the config (bf16 / fp16 settings)")
    if p == "bf16":
        a.add(Status.PASS, "bf16: fp32's exponent range, no loss scaling needed")
    elif p == "fp32":
        a.add(Status.PASS, "fp32 (no mixed precision): stable; bf16 would be ~2x faster")
    elif plan.dynamic_scaling is False:
        if p == "fp16-pure":
            why = f"pure fp16 ({plan.keys.get('precision', 'precision')}): no loss scaler"
        elif plan.loss_scale:
            why = f"static loss scale {fmt(plan.loss_scale)} ({plan.keys.get('loss_scale', 'loss_scale')})"
        else:
            why = f"loss scaler disabled ({plan.keys.get('dynamic_scaling', '')})"
        a.add(
            Status.FAIL,
            f"fp16 without dynamic loss scaling, {why}: gradients under- or overflow (fp16 max "
            "65504) with nothing to back off",
            f"{to_bf16}; or at least dynamic loss scaling (Megatron: drop --loss-scale; DeepSpeed: loss_scale 0)",
        )
    else:
        sure = (
            ""
            if plan.dynamic_scaling or fw in ("hf", "axolotl", "megatron", "lightning", "nanogpt", "deepspeed")
            else " (scaler assumed)"
        )
        a.add(
            Status.WARN,
            f"fp16 with dynamic loss scaling{sure}: works, but overflow skips steps and a collapsing "
            "loss scale preceded OPT-175B's divergences",
            to_bf16,
        )
    return a.result()


def check_logging(plan: Plan, s: Settings) -> PreCheck:
    a = _Acc("logging")
    n, strat = plan.logging_steps, plan.logging_strategy
    lk = key(plan, "logging_steps")
    if strat in ("no", "none"):
        a.add(Status.WARN, "logging disabled (logging_strategy=no)", f"set logging_strategy=steps and {lk}=1")
    elif strat == "epoch":
        a.add(
            Status.WARN,
            "loss logged once per epoch: spikes are averaged away",
            f"set logging_strategy=steps and {lk}=1",
        )
    elif n is not None:
        src = plan.origin.get("logging_steps", "")
        default = (
            " (HF's default logging_steps=500)"
            if "HF" in src and "default" in src
            else (" (HF's default value)" if n == 500 and plan.framework in ("hf", "axolotl") else "")
        )
        if n >= LOG_AVERAGED:
            a.add(
                Status.WARN,
                f"loss logged every {n} steps{default}: the logged loss is the mean over the "
                f"interval, so a spike is averaged away and seen up to {n} steps late",
                f"set {lk}=1",
            )
        elif n > LOG_WARN:
            a.add(
                Status.WARN, f"loss logged every {n} steps (> {LOG_WARN}): short spikes are smoothed out", f"set {lk}=1"
            )
        else:
            a.add(Status.PASS, f"loss logged every {n} step{'s' if n != 1 else ''}")
    if plan.logging_nan_inf_filter:
        src = plan.origin.get("logging_nan_inf_filter", "")
        d = " (HF default)" if "default" in src else ""
        a.add(
            Status.WARN,
            f"logging_nan_inf_filter=true{d}: HF logs the running mean instead of a NaN/Inf loss, "
            "so a broken run shows finite losses",
            "set logging_nan_inf_filter=false",
        )
    elif plan.logging_nan_inf_filter is False:
        a.add(Status.PASS, "NaN filter off")
    if plan.log_grad_norm is False:
        a.add(
            Status.WARN,
            "grad norm not logged: it leads the loss (OLMo 2, GLM-130B)",
            f"log the gradient norm ({plan.keys.get('log_grad_norm', 'log_grad_norm')}=true)",
        )
    return a.result("logging interval not in the config (e.g. logging_steps, log_interval)")


def check_checkpoints(plan: Plan, s: Settings) -> PreCheck:
    a = _Acc("checkpoints")
    T, S, strat = plan.total_steps, plan.save_steps, plan.save_strategy
    sk = key(plan, "save_steps")
    rec = checkpoint_every(T)
    act = f"set {sk} <= {rec} (a rollback point a few hundred steps before any spike: PaLM restarted ~100 steps before)"
    if strat in ("no", "none", "false"):
        how = plan.keys.get("save_strategy", "save_strategy=no")
        a.add(Status.WARN, f"no checkpoints configured ({how}): nothing to roll back to", act)
    elif strat == "end":
        a.add(Status.WARN, f"checkpoint only at the end ({plan.keys.get('save_strategy')})", act)
    elif strat == "epoch" and S is None or (strat == "epoch" and plan.framework in ("hf", "axolotl")):
        if T and plan.epochs:
            per = T / plan.epochs
            st = Status.WARN if checkpoint_gap_too_long(per, T, s) else Status.PASS
            a.add(st, f"checkpoint once per epoch = every {per:.0f} steps ({pct(per / T)} of {T})", act)
        else:
            a.add(
                Status.WARN,
                "checkpoint once per epoch: rollback points could be far apart (steps per epoch unknown)",
                act,
            )
    elif S is not None:
        if T:
            frac = S / T
            if checkpoint_gap_too_long(S, T, s):
                a.add(
                    Status.WARN,
                    f"checkpoint every {S} steps = {pct(frac)} of {T} (> {s.ckpt_max_gap_frac:.0%} or > {s.ckpt_max_gap_steps} steps)",
                    act,
                )
            else:
                a.add(Status.PASS, f"every {S} steps ({pct(frac)} of {T}, {T // S} rollback points)")
        elif checkpoint_gap_too_long(S, None, s):
            a.add(Status.WARN, f"checkpoint every {S} steps (> {s.ckpt_max_gap_steps})", act)
        else:
            a.add(Status.PASS, f"every {S} steps (run length unknown)")
    if plan.save_hours is not None:
        if plan.save_hours > CKPT_MAX_HOURS:
            a.add(
                Status.WARN,
                f"checkpoint every {fmt(plan.save_hours, 3)} h (> {CKPT_MAX_HOURS:g} h)",
                f"save at least every {CKPT_MAX_HOURS:g} hours",
            )
        else:
            a.add(Status.PASS, f"every {fmt(plan.save_hours, 3)} h")
    if a.status == Status.SKIP:
        a.add(Status.WARN, "no checkpoint interval in the config: there may be nothing to roll back to", act)
    return a.result()


def check_optimizer(plan: Plan, s: Settings) -> PreCheck:
    a = _Acc("optimizer")
    name = (plan.optimizer or "").lower()
    if name and not any(x in name for x in ("adam", "lamb", "lion_adam")):
        return a.result(f"optimizer {plan.optimizer}: the beta2 / epsilon checks are for Adam(W)")
    b2, eps, p, W = plan.beta2, plan.eps, plan.params, plan.warmup_steps
    if b2 is None and eps is None:
        return a.result("Adam beta2 and epsilon not in the config")
    large = p is not None and p > LARGE_PARAMS
    size = f" for {human(p)} params" if p else ""
    if b2 is not None:
        if b2 > BETA2_MAX and large and plan.finetune:
            a.add(Status.PASS, f"beta2 {b2:g} (fine-tune; pre-training recipes use 0.95 at this size)")
        elif b2 > BETA2_MAX and large:
            a.add(
                Status.WARN,
                f"beta2 {b2:g}{size}: GPT-3, LLaMA and OLMo 2 use 0.95 (a slow second moment "
                "lags gradient spikes; Bai et al. 2025)",
                f"set {key(plan, 'beta2')}=0.95",
            )
        else:
            a.add(Status.PASS, f"beta2 {b2:g}" + ("" if p else " (model size unknown)"))
        need = math.ceil(2.0 / (1.0 - b2)) if b2 < 1 else None
        if need and W:
            if W < need:
                a.add(
                    Status.WARN,
                    f"warm-up {W} steps < 2/(1-beta2) = {need} steps (Ma & Yarats 2021)",
                    f"set {key(plan, 'warmup_steps')} >= {need} (or beta2 0.95: 40 steps)",
                )
            else:
                a.add(Status.PASS, f"warm-up >= 2/(1-beta2) = {need}")
    if eps is not None:
        if eps > EPS_MAX and large:
            a.add(
                Status.WARN,
                f"eps {eps:g}{size}: OLMo 2 moved 1e-5 -> 1e-8 (larger early updates, faster "
                "stabilisation); updates degrade as gradients approach eps (Molybog et al.)",
                f"set {key(plan, 'eps')}=1e-8",
            )
        else:
            a.add(Status.PASS, f"eps {eps:g}")
    return a.result()


CHECKS = (
    check_lr_schedule,
    check_batch,
    check_clipping,
    check_precision,
    check_logging,
    check_checkpoints,
    check_optimizer,
)


_IDS = {
    check_lr_schedule: "lr_schedule",
    check_batch: "batch_size",
    check_clipping: "grad_norm",
    check_precision: "precision",
    check_logging: "logging",
    check_checkpoints: "checkpoints",
    check_optimizer: "optimizer",
}


def run_checks(plan: Plan, settings: Settings | None = None) -> list[PreCheck]:
    s = settings or Settings()
    out = []
    for c in CHECKS:
        try:
            out.append(c(plan, s))
        except (ArithmeticError, ValueError, TypeError) as e:  # a value no arithmetic survives
            out.append(
                PreCheck(
                    _IDS[c], Status.SKIP, f"not evaluated: a configured value is out of range ({type(e).__name__})", ""
                )
            )
    return out


def counts(checks: list[PreCheck]) -> tuple[int, int]:
    return (sum(c.status == Status.FAIL for c in checks), sum(c.status == Status.WARN for c in checks))


def actions(checks: list[PreCheck]) -> list[str]:
    out: list[str] = []
    for st in (Status.FAIL, Status.WARN):
        for c in checks:
            if c.status == st:
                for a in c.actions:
                    if a not in out:
                        out.append(a)
    return out
