"""Seeded synthetic runs for the verdict classes of issues 17 and 26 (tests and bench/quality.py).

Each case returns ``(records, labels, info)``: records as dicts
(``step, loss, grad_norm, lr`` and optionally ``loss_scale``), labels as
``{"spike": [...], "divergence": [...], "plateau": [...]}`` (onset steps) and
RunInfo keyword arguments (the plan a config would give).
"""

from __future__ import annotations

import math
import random


def _lr(s: int, n: int, warm: int, peak: float = 3e-4) -> float:
    if s <= warm:
        return peak * s / warm
    return peak * (0.1 + 0.45 * (1 + math.cos(math.pi * (s - warm) / (n - warm))))


def _base(s: int, tau: float = 150.0, floor: float = 1.65, amp: float = 6.0, n: int = 1500) -> float:
    """A descent that keeps improving slowly (a healthy run is never flat): ~1.9 at step 800."""
    return floor + amp * math.exp(-s / tau) + 0.45 * max(0.0, 1 - s / n)


def lr_bump_excursion(seed: int = 1, n: int = 1500):
    """LR x100 at step 801 for 40 steps, no clipping: the loss jumps 1.9 -> 7.3,
    stays above 2x its baseline for ~30 steps, then comes back to its trend."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lr = _lr(s, n, 30)
        loss = _base(s) * math.exp(rng.gauss(0, 0.015))
        gn = 0.5 * math.exp(rng.gauss(0, 0.1))
        if 801 <= s < 841:
            lr *= 100
            loss *= 1 + 2.85 * math.exp(-(s - 801) / 25)
            gn *= 20
        elif 841 <= s < 880:
            loss *= 1 + 2.85 * math.exp(-40 / 25) * math.exp(-(s - 841) / 5)
        out.append({"step": s, "loss": loss, "grad_norm": gn, "lr": lr})
    return out, {"divergence": [801]}, {"total_steps": n, "warmup_steps": 30, "peak_lr": 3e-4, "clip": 0.0}


def lr_bump_damaged(seed: int = 2, n: int = 1200):
    """LR x100 from step 801 to the end: the loss jumps 1.9 -> 5.8, settles near 2.9
    (1.5x its pre-bump level) and stays there."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lr = _lr(s, n, 30)
        loss = _base(s) * math.exp(rng.gauss(0, 0.015))
        gn = 0.5 * math.exp(rng.gauss(0, 0.1))
        if s >= 801:
            lr *= 100
            loss = (2.9 + 2.9 * math.exp(-(s - 801) / 15)) * math.exp(rng.gauss(0, 0.02))
            gn *= 3
        out.append({"step": s, "loss": loss, "grad_norm": gn, "lr": lr})
    return out, {"divergence": [801]}, {"total_steps": n, "warmup_steps": 30, "peak_lr": 3e-4}


def grad_incident(seed: int = 3, n: int = 1500):
    """Grad-norm spikes: 3.3x at 700 then 15x seven steps later (one incident), then
    seven later incidents of growing size (the largest, 17.5x and 13.8x, last)."""
    rng = random.Random(seed)
    spikes = {700: 3.3, 707: 15.0, 800: 4.0, 900: 4.2, 1000: 4.4, 1100: 5.0, 1200: 6.0, 1300: 17.5, 1400: 13.8}
    out = []
    for s in range(1, n + 1):
        gn = 0.5 * math.exp(rng.gauss(0, 0.05)) * spikes.get(s, 1.0)
        loss = _base(s) * math.exp(rng.gauss(0, 0.015))
        out.append({"step": s, "loss": loss, "grad_norm": gn, "lr": _lr(s, n, 30)})
    return out, {}, {"total_steps": n, "warmup_steps": 30}


def early_spike(seed: int = 4, n: int = 1500):
    """A 2.6x bad batch at step 60 of 1500 during the fast initial descent."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        loss = _base(s, tau=80, amp=8.0) * math.exp(rng.gauss(0, 0.015))
        gn = (0.5 + 2 * math.exp(-s / 40)) * math.exp(rng.gauss(0, 0.1))
        if s == 60:
            loss *= 2.6
            gn *= 6
        out.append({"step": s, "loss": loss, "grad_norm": gn, "lr": _lr(s, n, 30)})
    return out, {"spike": [60]}, {"total_steps": n, "warmup_steps": 30}


def early_spike_fast(seed: int = 17, n: int = 1500, at: int = 30, mult: float = 2.6, tau: float = 40):
    """A bad batch at step 30 of a fast descent (before the 35 records the spike baseline
    window needs) or, with at=100, a 3x one where the window's spread is the descent
    itself (audit B4; its sweep: 0 of 40 at step 30 were found)."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        loss = (2.0 + 8.0 * math.exp(-s / tau) + 0.3 * (1 - s / n)) * math.exp(rng.gauss(0, 0.015))
        out.append({"step": s, "loss": loss * (mult if s == at else 1.0), "lr": 3e-4 * min(1.0, s / 20)})
    return out, {"spike": [at]}, {"total_steps": n, "warmup_steps": 20}


def flat_at_chance(seed: int = 5, n: int = 500):
    """Loss falls for 50 steps to chance level (ln 13.5 = 2.60) and stays there."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lvl = 2.60 + 1.5 * max(0.0, 1 - s / 50)
        out.append(
            {
                "step": s,
                "loss": lvl * math.exp(rng.gauss(0, 0.01)),
                "grad_norm": 0.3 * math.exp(rng.gauss(0, 0.1)),
                "lr": _lr(s, n, 10),
            }
        )
    return out, {"plateau": [50]}, {"total_steps": n, "warmup_steps": 10}


def zero_loss(seed: int = 6, n: int = 300):
    """Loss exactly 0.0 from step 20 (labels leaked into the inputs, a masked loss)."""
    out = []
    for s in range(1, n + 1):
        loss = 2.0 * (1 - s / 20) if s < 20 else 0.0
        out.append({"step": s, "loss": loss, "grad_norm": 0.0 if s >= 20 else 1.0, "lr": _lr(s, n, 10)})
    return out, {"plateau": [20]}, {"total_steps": n, "warmup_steps": 10}


def slow_qlora(seed: int = 7, n: int = 68000, every: int = 50):
    """A QLoRA fine-tune whose loss goes 1.42 -> 1.36 over all its 68k steps (noise 3%)."""
    rng = random.Random(seed)
    out = []
    for s in range(every, n + 1, every):
        lvl = 1.42 - 0.06 * s / n
        out.append(
            {
                "step": s,
                "loss": lvl * math.exp(rng.gauss(0, 0.03)),
                "grad_norm": 0.4 * math.exp(rng.gauss(0, 0.1)),
                "lr": _lr(s, n, 100, 2e-4),
            }
        )
    return out, {"plateau": [every]}, {"total_steps": n, "warmup_steps": 100}


def lr_frozen(seed: int = 8, n: int = 2000):
    """Cosine schedule planned over 2000 steps; the LR drops to 0 at step 940 (47%)
    and the loss stops moving: a dead optimizer state, not convergence."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lr = _lr(s, n, 40)
        lvl = _base(min(s, 940), tau=300)
        if s >= 940:
            lr = 0.0
        out.append(
            {
                "step": s,
                "loss": lvl * math.exp(rng.gauss(0, 0.01)),
                "grad_norm": 0.4 * math.exp(rng.gauss(0, 0.1)),
                "lr": lr,
            }
        )
    return out, {"plateau": [940]}, {"total_steps": n, "warmup_steps": 40}


def optimizer_spike(seed: int = 9, n: int = 1500):
    """The grad norm climbs for 4 records (2x, 3x, 4x, 6x) before the loss spikes 3x at
    step 900; the loss takes ~80 steps to come back (Adam's second-moment estimates)."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        loss = _base(s) * math.exp(rng.gauss(0, 0.015))
        gn = 0.5 * math.exp(rng.gauss(0, 0.08))
        if 896 <= s < 900:
            gn *= (2.0, 3.0, 4.0, 6.0)[s - 896]
        if s >= 900:
            loss *= 1 + 2.0 * math.exp(-(s - 900) / 25)
            gn *= 1 + 8.0 * math.exp(-(s - 900) / 10)
        out.append({"step": s, "loss": loss, "grad_norm": gn, "lr": _lr(s, n, 30)})
    return out, {"spike": [900]}, {"total_steps": n, "warmup_steps": 30}


def fp16_spike(seed: int = 10, n: int = 1500):
    """fp16: the loss scale collapses 2^16 -> 2^4 over steps 698-700 and the loss spikes 3x at 700."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        loss = _base(s) * math.exp(rng.gauss(0, 0.015))
        scale = 65536.0 if s < 698 else (4096.0 if s < 700 else 16.0 if s < 760 else 1024.0)
        if 700 <= s < 703:
            loss *= 3.0
        out.append(
            {
                "step": s,
                "loss": loss,
                "grad_norm": 0.5 * math.exp(rng.gauss(0, 0.1)),
                "lr": _lr(s, n, 30),
                "loss_scale": scale,
            }
        )
    return out, {"spike": [700]}, {"total_steps": n, "warmup_steps": 30, "precision": "fp16"}


def damage_settles(
    seed: int = 13,
    n: int = 3000,
    onset: int = 2001,
    peak: float = 1.8,
    settle: float = 1.4,
    peak_records: int = 5,
    noise: float = 0.02,
    log_lr: bool = True,
):
    """The LR goes 20x up at ``onset`` for the rest of the run: the loss peaks at 1.8x its
    level for 5 records and settles at 1.4x. Every record after the onset stays above
    the spike rule's line against the pre-spike baseline, and that is the damage: it must
    be said live, not at the end of the log (audit B3)."""
    rng = random.Random(seed)
    out = []
    pre = _base(onset, n=n)
    for s in range(1, n + 1):
        lr, lvl = _lr(s, n, 60), _base(s, n=n)
        if s >= onset:
            lvl = pre * (peak if s - onset < peak_records else settle)
            lr *= 20
        r = {"step": s, "loss": lvl * math.exp(rng.gauss(0, noise)), "grad_norm": 0.4 * math.exp(rng.gauss(0, 0.1))}
        if log_lr:
            r["lr"] = lr
        out.append(r)
    return out, {"divergence": [onset]}, {"total_steps": n, "warmup_steps": 60}


def damage_noisy(seed: int = 14):
    """As damage_settles, peak 3x for 6 records, settled at 1.5x, 10% noise: the sustained
    excursion pages at once; the damage and the rolling median that climbs past 1.5x
    its best afterwards are the same incident (one page; audit B8)."""
    return damage_settles(seed, n=3000, onset=1501, peak=3.0, settle=1.5, peak_records=6, noise=0.10)


def damage_no_lr(seed: int = 15):
    """A jump to 3x with the grad norm 6x on the same step (a bad batch, by the onset's
    evidence), then 1.5x for the rest of the run, the LR not logged: a bad batch recovers,
    so the cause is revised and 'skip the batch' leaves the actions (audit B10)."""
    rng = random.Random(seed)
    out = []
    n, onset = 2000, 1201
    pre = _base(onset)
    for s in range(1, n + 1):
        lvl, gn = _base(s), 0.4 * math.exp(rng.gauss(0, 0.1))
        if s >= onset:
            lvl = pre * (1.5 + 1.5 * math.exp(-(s - onset) / 15))
            gn *= 6 if s == onset else 3
        out.append({"step": s, "loss": lvl * math.exp(rng.gauss(0, 0.015)), "grad_norm": gn})
    return out, {"divergence": [onset]}, {"total_steps": n}


def blowup(seed: int = 16, n: int = 3000, onset: int = 2000, rate: float = 0.05):
    """From ``onset`` the loss grows 5% a record to the end (to ~1e21): one incident, one
    page, however many times the rebuilt baseline would call the climb a new spike (B8)."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lvl = _base(s, n=n) if s < onset else _base(onset, n=n) * (1 + rate) ** (s - onset + 1)
        gn = 0.4 * math.exp(rng.gauss(0, 0.1)) * (1 + 0.3 * max(0, s - onset + 1))
        out.append({"step": s, "loss": lvl * math.exp(rng.gauss(0, 0.02)), "grad_norm": gn, "lr": _lr(s, n, 60)})
    return out, {"divergence": [onset]}, {"total_steps": n, "warmup_steps": 60}


def _noisy_level(shape: str, s: int, n: int) -> float:
    if shape == "pretrain":  # a power law, still falling ~1.3% per 20% of the run at its end
        return 2.2 + 4.8 * (1 + s / (0.02 * n)) ** -0.8
    # a fine-tune: a fast drop, then a long tail that keeps falling ~8% over the run
    return 1.2 * (1 - 0.08 * s / n) + 1.0 * math.exp(-s / (0.05 * n))


def healthy_noisy(seed: int = 11, n: int = 10000, every: int = 10, noise: float = 0.06, shape: str = "pretrain"):
    """A healthy run that improves to its end, with per-record noise (small batches):
    no window of it is flat, but one noisy window can look flat (issue 17 audit, B1)."""
    rng = random.Random(seed)
    out = []
    for s in range(every, n + 1, every):
        out.append(
            {
                "step": s,
                "loss": _noisy_level(shape, s, n) * math.exp(rng.gauss(0, noise)),
                "grad_norm": 0.5 * (1 + 2 * math.exp(-s / (0.05 * n))) * math.exp(rng.gauss(0, 0.1 + noise)),
                "lr": _lr(s, n, max(1, n // 50)),
            }
        )
    return out, {}, {"total_steps": n, "warmup_steps": max(1, n // 50)}


#: the noisy healthy runs of the quality bench: shapes x noise x logging interval
HEALTHY_NOISY = {
    f"case_healthy_{shape}_noise{noise}_e{every}": (shape, noise, every, n)
    for shape in ("pretrain", "finetune")
    for noise in (0.03, 0.06, 0.12)
    for every, n in ((1, 5000), (10, 20000))
}


def two_plateaus(seed: int = 12, n: int = 3000):
    """The loss falls to 3.0, stays there for 800 steps with the LR at its peak, falls
    again to 2.4 (a phase change) and stays there to the end: two plateaus, each its
    own alert (a later plateau is not a silent continuation of the first; audit B2)."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        if s < 400:
            lvl = 3.0 + 3.0 * (1 - s / 400) ** 2
        elif s < 1200:
            lvl = 3.0
        elif s < 1500:
            lvl = 3.0 - 0.6 * (s - 1200) / 300
        else:
            lvl = 2.4
        out.append(
            {
                "step": s,
                "loss": lvl * math.exp(rng.gauss(0, 0.02)),
                "grad_norm": 0.5 * math.exp(rng.gauss(0, 0.1)),
                "lr": 3e-4 * min(1.0, s / 30),
            }
        )
    return out, {"plateau": [400, 1500]}, {"total_steps": n, "warmup_steps": 30}


# -- issue 26 §2: slow progress, the end of a schedule, runs that never learn, a collapsed LR --
def cpt_slow(seed: int = 19, n: int = 5000, every: int = 10, noise: float = 0.02):
    """Continued pre-training: the loss falls slowly all the way, ~4% over the run, the
    LR still decaying on a cosine (the shape of the real NSLLM run in
    bench/corpus/trackers/llamafactory_cpt_slow_cosine): slow steady progress, not a plateau."""
    rng = random.Random(seed)
    out = []
    for s in range(every, n + 1, every):
        lvl = 2.0 * (1 - 0.04 * (s / n) ** 0.8)
        out.append(
            {
                "step": s,
                "loss": lvl * math.exp(rng.gauss(0, noise)),
                "grad_norm": 0.3 * math.exp(rng.gauss(0, 0.1)),
                "lr": _lr(s, n, 100, 5e-5),
            }
        )
    return out, {}, {"total_steps": n, "warmup_steps": 100}


def resumed_tail(seed: int = 20, n: int = 10000, start: int = 9000):
    """A resumed run whose log starts at 90% of its plan: the converged tail, the LR on
    the end of its cosine (first logged LR 8% of the schedule's peak): convergence."""
    rng = random.Random(seed)
    out = []
    for s in range(start + 1, n + 1):
        out.append(
            {
                "step": s,
                "loss": 2.31 * math.exp(rng.gauss(0, 0.01)),
                "grad_norm": 0.25 * math.exp(rng.gauss(0, 0.1)),
                "lr": _lr(s, n, 100),
            }
        )
    return out, {}, {"total_steps": n, "warmup_steps": 100}


def never_learns(seed: int = 22, n: int = 1000, every: int = 10):
    """A LoRA fine-tune whose loss never improves (5% noise around 2.12, the LR decaying
    linearly from its peak to 0; the shape of real_logs2 hf_flat_loss_plateau)."""
    rng = random.Random(seed)
    out = []
    for s in range(every, n + 1, every):
        out.append(
            {
                "step": s,
                "loss": 2.12 * math.exp(rng.gauss(0, 0.05)),
                "grad_norm": 0.9 * math.exp(rng.gauss(0, 0.2)),
                "lr": 2e-4 * (1 - s / n),
            }
        )
    return out, {"plateau": [every]}, {"total_steps": n}


def lr_collapsed(seed: int = 23, n: int = 3000):
    """The LR schedule ends at 70% of the run (a cosine that reaches 0 at step 2100, then
    0 while training goes on; no plan in the log): the loss stops moving with it, a
    collapsed LR, not convergence."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lr = _lr(s, 2100, 30) * (1 - s / 2100) if s < 2100 else 0.0
        out.append(
            {
                "step": s,
                "loss": _base(min(s, 2100), tau=300, n=2100) * math.exp(rng.gauss(0, 0.01)),
                "grad_norm": 0.4 * math.exp(rng.gauss(0, 0.1)),
                "lr": lr,
            }
        )
    return out, {"plateau": [2100]}, {}


# -- issue 26, second round: a loss at its printed floor, a sparse log, a plateau that drifts --
def zero_floor(seed: int = 24, n: int = 3000):
    """A 16-shot fine-tune that memorises its training set: the loss, printed with 4
    decimals, falls from 0.9 to ~0 in 400 steps, then reads 0.0000 on most lines with
    1e-4 .. 5e-4 between them (the shape of the real CLIP-LoRA run in
    bench/corpus/console/SOURCES.md, clip_lora_nostep_zero_loss)."""
    rng = random.Random(seed)
    out = []
    for s in range(1, n + 1):
        lvl = 0.9 * math.exp(-s / 60)
        x = lvl * math.exp(rng.gauss(0, 0.3)) + (rng.choice((0, 0, 0, 0, 0, 1, 2, 5)) * 1e-4 if s > 400 else 0.0)
        out.append({"step": s, "loss": round(x, 4), "grad_norm": 0.05 + lvl, "lr": 2e-4 * (1 - s / n)})
    return out, {"plateau": [700]}, {"total_steps": n}


def sparse_flat(seed: int = 25, n: int = 1000, every: int = 20):
    """A detection fine-tune logged every 20 iterations (50 records) whose loss does not
    move from its first record (1% noise, constant LR): 10 records in a 200-step window,
    too few to fit one; the never-learned rule judges the run as a whole."""
    rng = random.Random(seed)
    out = [
        {
            "step": s,
            "loss": 0.14 * math.exp(rng.gauss(0, 0.01)),
            "grad_norm": 1.2 * math.exp(rng.gauss(0, 0.1)),
            "lr": 4e-3,
        }
        for s in range(every - 1, n, every)
    ]
    return out, {"plateau": [every - 1]}, {}


def lora_drift(seed: int = 26, n: int = 7500, every: int = 10):
    """A LoRA fine-tune that falls from 5.3 to 3.43 by step 750, then sits there while
    its LR decays linearly to 5% of the peak, drifting 1% lower by step 3000 and 0.6%
    more around step 5000 (the decile medians of the real GPT-2 LoRA run
    hf_gpt2_lora_shakespeare_flat): one plateau from ~740 to the end, not a stall that
    "then improved" (closing it takes a fall faster than the bar it was proven flat under)."""
    rng = random.Random(seed)
    out = []
    for s in range(every, n + 1, every):
        lvl = (
            3.43
            + 1.87 * max(0.0, 1 - s / 750) ** 2
            - 0.035 * min(1.0, max(0.0, s - 750) / 2250)
            - 0.022 * min(1.0, max(0.0, s - 4500) / 750)
        )
        lr = 5e-5 * min(1.0, s / 500) * (1 - 0.95 * max(0, s - 500) / (n - 500))
        out.append(
            {
                "step": s,
                "loss": lvl * math.exp(rng.gauss(0, 0.02)),
                "grad_norm": 2.0 * math.exp(rng.gauss(0, 0.1)),
                "lr": lr,
            }
        )
    return out, {"plateau": [1000]}, {"total_steps": 7843}


CASES = {
    "case_optimizer_spike": optimizer_spike,
    "case_fp16_spike": fp16_spike,
    "case_lr_bump_excursion": lr_bump_excursion,
    "case_lr_bump_damaged": lr_bump_damaged,
    "case_grad_incident": grad_incident,
    "case_early_spike": early_spike,
    "case_early_spike_30": early_spike_fast,
    "case_early_spike_100": lambda: early_spike_fast(18, at=100, mult=3.0),
    "case_flat_at_chance": flat_at_chance,
    "case_zero_loss": zero_loss,
    "case_slow_qlora": slow_qlora,
    "case_lr_frozen": lr_frozen,
    "case_two_plateaus": two_plateaus,
    "case_damage_settles": damage_settles,
    "case_damage_noisy": damage_noisy,
    "case_damage_no_lr": damage_no_lr,
    "case_blowup": blowup,
    "case_cpt_slow": cpt_slow,
    "case_resumed_tail": resumed_tail,
    "case_never_learns": never_learns,
    "case_lr_collapsed": lr_collapsed,
    "case_zero_floor": zero_floor,
    "case_sparse_flat": sparse_flat,
    "case_lora_drift": lora_drift,
    **{
        name: (
            lambda shape=shape, noise=noise, every=every, n=n, seed=21 + i: healthy_noisy(seed, n, every, noise, shape)
        )
        for i, (name, (shape, noise, every, n)) in enumerate(HEALTHY_NOISY.items())
    },
}
