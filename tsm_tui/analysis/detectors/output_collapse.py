"""Output collapse: read what the model says, not only its loss.

Three kinds of evidence, one check:

1. Generations the run logs (``StepRecord.samples``: llm.c ``generating:``
   blocks, JSON Lines text fields, ``samples.jsonl`` / ``generations/``, W&B
   ``Step N sample:`` lines). Each sampling step is summarised by the metrics
   of :mod:`tsm_tui.analysis.detectors.text_metrics`; the *level* of a metric is its
   median over the last 3 sampling steps, compared with absolute limits and
   with the run's own best level so far (early samples of a young model are
   poor, so "its own best" is the reference, not the first samples):

   - empty: most (> 1/2) of the last 3 sampling steps' samples have fewer than
     5 non-space characters -> FAIL; >= 1/3 -> WARN (ours);
   - repetition: seq-rep-4 level >= 0.9, or >= 0.6 and >= 0.3 above its best
     -> FAIL; >= 0.3 and >= 0.2 above its best, or distinct-2 below half its
     best -> WARN (ours; GPT-2 greedy continuations score 0.355, nucleus
     sampling 0.005, Welleck et al. 2019; a sentence repeated 4 times ~0.7);
   - gibberish: non-word share >= 0.5 and >= 0.3 above its best, or
     character-class entropy >= 1.5 bits and >= 0.8 above its best -> FAIL;
     non-word share >= 0.25 and >= 0.15 above its best, or entropy >= 1.0
     bits and >= 0.5 above its best -> WARN (ours: English ~0.4 bits, random
     printable ASCII ~1.9 bits);
   - length: median length below 1/4 of its best (which was >= 40 chars) -> WARN;
   - sudden change: the character-class mix of the last 3 sampling steps
     differs from the first 3 by a total variation distance >= 0.5 -> WARN.

2. Dead units and attention collapse, where the run logs them (``extra``
   keys, lower-cased, ``/`` ``-`` and spaces as ``_``; per-layer variants such
   as ``layer_3/attn_entropy`` are tracked one by one):

   - activation zero fraction (``*zero_frac*``, ``*zero_fraction*``,
     ``*frac_zero*``, ``*dead_frac*``, ``*dead_units*``, ``*dead_neurons*``):
     level >= 0.9 -> WARN, >= 0.99 -> FAIL (ours);
   - attention entropy (``*attn_entropy*``, ``*attention_entropy*``): level
     below 50% of its early level -> WARN, below 20% -> FAIL (Zhai et al.
     2023, attention-entropy collapse; 50% is the notes' suggestion, 20% ours);
     the early level is the median of the 6th-15th values (after the first
     steps' drop from uniform attention);
   - max attention logit (``max_attention_logit`` (Megatron),
     ``max_attn_logit``, ``attn_logit_max``, ``attention_logit_max``,
     ``max_qk_logit``, ``qk_max``): > 100 -> WARN (Kimi K2 clips QK logits at
     tau = 100), > 1000 or non-finite -> FAIL (ours).

3. Memorisation: the training loss near zero (< 0.01 nats, and < 5% of the run's first
   loss, for most of the last
   ~50 loss values: an exponential average of "below 0.01" >= 0.5) while the
   run goes on -> WARN: over-fitting, not health (the LLaMA-Factory log in
   the shared real logs goes to 0.0018 after 50 epochs). It lives here, not
   in ``plateau``: the plateau check calls a flat loss with a decayed LR
   "converged" (correctly, for the loss); memorisation is about what the model
   will say (its training data back), which is this check's question.

The level limits are (ours) unless a source is named. Work per record is a
few comparisons unless the record carries samples or watched ``extra`` keys.
"""

from __future__ import annotations

import math
from collections import deque
from statistics import median

import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors import text_metrics as tm
from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord
from tsm_tui.core.sanitize import clean
from tsm_tui.sources.fields import ObjectiveKind

HISTORY = 50  # sampling steps kept
LEVEL = 3  # sampling steps in a level (median)
MAX_SAMPLES = 16  # samples per step analysed
MAX_CHARS = 8000  # characters of a sample analysed
SHOW = 120  # characters of a sample shown in an alert
EMPTY_FAIL, EMPTY_WARN = 0.5, 1 / 3
REP4_FAIL_ABS, REP4_FAIL, REP4_FAIL_RISE, REP4_WARN, REP4_WARN_RISE = 0.9, 0.6, 0.3, 0.3, 0.2
D2_WARN_FRAC = 0.5
NW_FAIL, NW_FAIL_RISE, NW_WARN, NW_WARN_RISE = 0.5, 0.3, 0.25, 0.15
CCE_FAIL, CCE_FAIL_RISE, CCE_WARN, CCE_WARN_RISE = 1.5, 0.8, 1.0, 0.5
LEN_WARN_FRAC, LEN_MIN_BEST = 0.25, 40
SHIFT_WARN = 0.5
ZERO_WARN, ZERO_FAIL = 0.9, 0.99
ENT_WARN, ENT_FAIL = 0.5, 0.2
LOGIT_WARN, LOGIT_FAIL = 100.0, 1000.0  # Kimi K2 QK-Clip tau = 100; 10x ours
MEMO_LOSS, MEMO_ALPHA, MEMO_SHARE, MEMO_MIN = 0.01, 1 / 50, 0.5, 50
#: ... and below this share of the run's first loss: near zero for the loss's own scale (ours:
#: fresh8's spiking ResNet, a loss that starts at 0.037 and learns down to 0.006 with its test
#: accuracy rising to 0.77, read "memorisation"; a cross-entropy starts at ln(classes) or more)
MEMO_FIRST_FRAC = 0.05
#: ... unless the eval loss is at most this many times the training loss: held-out data fitted as
#: well is no memorisation (ours: fresh47's Keras LSTM on normalised prices, train MSE 6.2e-4 and
#: validation MSE 8.4e-4 after 1,000 epochs, read "memorising its training data"; the alert's own
#: words call an eval loss above 2x the training loss the sign)
MEMO_HELD_OUT = 2.0
MAX_UNIT_KEYS = 64

_ZERO = ("zero_frac", "zero_fraction", "frac_zero", "dead_frac", "dead_units", "dead_neurons")
_ENT = ("attn_entropy", "attention_entropy")
_LOGIT = ("max_attention_logit", "max_attn_logit", "attn_logit_max", "attention_logit_max", "max_qk_logit", "qk_max")
_SEV_STATUS = {Severity.CRITICAL: Status.FAIL, Severity.WARNING: Status.WARN}


def unit_kind(key: str) -> str | None:
    """Which dead-unit / attention series an ``extra`` key is, if any."""
    k = key.lower().replace("/", "_").replace("-", "_").replace(" ", "_")
    if any(p in k for p in _LOGIT):
        return "logit"
    if any(p in k for p in _ENT):
        return "entropy"
    if any(p in k for p in _ZERO) and "grad" not in k:
        return "zero"
    return None


class _Point:
    """One sampling step."""

    __slots__ = ("step", "n", "empty", "rep4", "d2", "length", "nonword", "cce", "classes", "text", "texts")

    def __init__(self, step: int, texts: list[str]) -> None:
        stats = [tm.analyse(t[:MAX_CHARS]) for t in texts]
        self.step = step
        self.n = len(stats)
        self.empty = sum(s.empty for s in stats)
        self.rep4 = _med([s.rep4 for s in stats if s.n_tokens >= tm.MIN_TOKENS])
        self.d2 = tm.distinct([tm.tokens(t[:MAX_CHARS])[0] for t in texts], 2)
        self.length = median(s.length for s in stats) if stats else 0
        self.nonword = _med([s.nonword for s in stats if not s.empty])
        self.cce = _med([s.cc_entropy for s in stats if not s.empty])
        self.classes: dict[str, int] = {}
        for s in stats:
            for k, v in s.classes.items():
                self.classes[k] = self.classes.get(k, 0) + v
        self.texts = [_show(t) for t in texts[:2]]
        self.text = self.texts[0] if self.texts else ""


def _med(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return median(xs) if xs else None


def _show(text: str) -> str:
    t = clean(text, 4 * SHOW).strip()
    return t if len(t) <= SHOW else t[: SHOW - 1] + "…"


class _Unit:
    __slots__ = ("key", "kind", "n", "early", "ref", "recent", "sev", "onset", "peak")

    def __init__(self, key: str, kind: str) -> None:
        self.key, self.kind = key, kind
        self.n = 0
        self.early: list[float] = []
        self.ref: float | None = None
        self.recent: deque[float] = deque(maxlen=3)
        self.sev: Severity | None = None
        self.onset: int | None = None
        self.peak: float | None = None


class _Finding:
    __slots__ = ("kind", "sev", "step", "onset", "summary")

    def __init__(self, kind: str, sev: Severity, step: int, onset: int, summary: str) -> None:
        self.kind, self.sev, self.step, self.onset, self.summary = kind, sev, step, onset, summary


def _memo_bar(first: float) -> float:
    """The level below which a loss is near zero: MEMO_LOSS, and MEMO_FIRST_FRAC of the run's
    first loss when that is lower (a loss whose own scale is small). A log whose first loss is
    near zero already (a resumed run's) has no scale of its own to tell: MEMO_LOSS."""
    return min(MEMO_LOSS, MEMO_FIRST_FRAC * first) if first >= MEMO_LOSS else MEMO_LOSS


class OutputCollapseDetector(Detector):
    id = "output_collapse"
    title = "Output Collapse"
    label = "Outputs"
    short = "gen"
    order = 90
    urgency = 70
    reads_samples = True

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.points: deque[_Point] = deque(maxlen=HISTORY)
        self.n_points = 0
        self.n_samples = 0
        self.best: dict[str, float] = {}
        self.early_classes: dict[str, int] = {}
        self._early_points = 0
        self.findings: dict[str, _Finding] = {}
        self._keys: dict[str, str | None] = {}
        self.units: dict[str, _Unit] = {}
        # memorisation
        self._loss_n = 0
        self._low = 0.0
        self._low_start: int | None = None
        self._memo_bar: float | None = None  # below it a loss is near zero (set by the first loss)
        self._val: float | None = None
        self.memo: _Finding | None = None
        #: the memorisation rule has spoken (``memo``), or found the eval loss as low as the training
        #: loss when it would have (MEMO_HELD_OUT: a fit that generalises): judged once
        self._memo_judged = False
        #: MEMO_RL: a reinforcement-learning objective (a reward, a KL, a policy loss beside it: fields.rl_key) near 0 is
        #: no memorisation: GRPO's loss is ~0 by construction (fresh126's Unsloth GRPO run, "training loss ~0 since
        #: step 57: memorisation"); the rule does not judge such a run
        self._kind = ObjectiveKind()

    # ------------------------------------------------------------------ update
    def update(self, rec: StepRecord) -> list[Alert]:
        out: list[Alert] | None = None
        if rec.samples is not None:
            out = self._samples(rec)
        x = rec.loss
        g = rec.grad_norm
        if rec.extra and not self._memo_judged and self._kind.see(rec.extra) == "rl":
            self._memo_judged = True  # (an RL objective near 0 is no memorised data: MEMO_RL)
        # loss 0.0 beside a NaN/Inf grad norm is a dead run (HF's NaN filter), not
        # memorisation: the NaN check reports it; beside a grad norm of 0 nothing is trained
        # (every label masked): the plateau and grad-norm checks say it
        if x is not None and x == x and not (g is not None and (not math.isfinite(g) or (g == 0 and x == 0))):
            self._loss_n += 1
            if self._memo_bar is None:
                self._memo_bar = _memo_bar(x)
            low = 0.0 <= x < self._memo_bar
            if low and self._low_start is None:
                self._low_start = rec.step
            self._low += (low - self._low) * MEMO_ALPHA
            if self._low < 0.25:
                self._low_start = None
            elif self._low >= MEMO_SHARE and not self._memo_judged and self._loss_n >= MEMO_MIN:
                a = self._memorised(rec, x)
                if a is not None:
                    out = (out or []) + [a]
        if rec.val_loss is not None:
            self._val = rec.val_loss
        ex = rec.extra
        if ex is not None:
            keys = self._keys
            for k, v in ex.items():
                kind = keys.get(k, "")
                if kind == "":
                    kind = keys[k] = unit_kind(k) if len(keys) < 4096 else None
                if kind is not None:
                    a = self._unit(rec, k, kind, v)
                    if a is not None:
                        out = (out or []) + [a]
        return out or []

    # ------------------------------------------------------------------ frames
    # Columnar hooks (the driver is Detector.update_frame). Frames carry no samples.
    # The screen flags the rows where a watched ``extra`` series could do more than
    # count the value and keep the last three: a unit's first value, a non-finite
    # logit, the early values that set the entropy reference, a level past a limit
    # not yet reported. The memorisation EMA runs in bulk (exactly: a closed form
    # while it is at rest, row by row otherwise) up to the record that raises the
    # alert.
    def prepare(self, fr):
        """The watched ``extra`` series of this frame: (key, kind)."""
        watched = []
        if fr.extra and not self._memo_judged and self._kind.see(fr.extra) == "rl":
            self._memo_judged = True  # (as update(): MEMO_RL)
        if fr.extra:
            keys = self._keys
            for k in fr.extra:  # what update() does on the first row
                kind = keys.get(k, "")
                if kind == "":
                    kind = keys[k] = unit_kind(k) if len(keys) < 4096 else None
                if kind is not None:
                    watched.append((k, kind))
        return watched

    def screen(self, fr, watched, a: int, b: int) -> np.ndarray:
        flag = np.zeros(b - a, dtype=bool)
        for k, kind in watched:
            u = self.units.get(k)
            if u is None:
                if len(self.units) < MAX_UNIT_KEYS:
                    flag[0] = True
                continue
            v = fr.extra[k][a:b]
            if kind == "logit":
                flag |= ~np.isfinite(v)
            good = v == v
            if kind == "entropy" and u.ref is None:
                flag |= good
                continue
            if u.sev == Severity.CRITICAL:
                continue
            vals = np.concatenate((np.array(u.recent, dtype=float), v[good]))
            if vals.size < 3:
                continue
            x0, x1, x2 = vals[:-2], vals[1:-1], vals[2:]
            lv = np.maximum(np.minimum(x0, x1), np.minimum(np.maximum(x0, x1), x2))  # median of 3
            if kind == "zero":
                warn, crit = lv >= ZERO_WARN, lv >= ZERO_FAIL
            elif kind == "entropy":
                ref = u.ref or 0.0
                warn, crit = (lv < ENT_WARN * ref, lv < ENT_FAIL * ref) if ref > 0 else (lv != lv, lv != lv)
            else:
                warn, crit = lv > LOGIT_WARN, lv > LOGIT_FAIL
            bad = crit if u.sev == Severity.WARNING else warn | crit
            # level j is the median of vals[j:j + 3], seen by the row of vals[j + 2]
            hit = np.flatnonzero(bad) + 2 - len(u.recent)
            flag[np.flatnonzero(good)[hit[hit >= 0]]] = True
        return a + np.flatnonzero(flag)

    def bulk(self, fr, watched, a: int, b: int) -> int:
        stop = self._memo_bulk(fr, a, b)
        val = fr.get("val_loss")
        if val is not None and stop > a:
            self._val = float(val[stop - 1])
        for k, _ in watched:
            u = self.units.get(k)
            if u is not None:
                v = fr.extra[k][a:stop]
                u.n += v.size
                u.recent.extend(v[v == v][-3:].tolist())
        return stop

    def _memo_bulk(self, fr, a: int, b: int) -> int:
        """The memorisation EMA over rows [a, b); returns the row that raises the alert
        (not committed), else b."""
        x = fr.get("loss")
        if x is None:
            return b
        x = x[a:b]
        ok = x == x
        g = fr.get("grad_norm")
        if g is not None:
            ok &= np.isfinite(g[a:b]) & ~((g[a:b] == 0) & (x == 0))
        rows = None if ok.all() else np.flatnonzero(ok)
        steps = fr.step[a:b]
        if rows is not None:
            x, steps = x[rows], steps[rows]
        k = self._memo(x, steps)
        return b if k < 0 else a + (k if rows is None else int(rows[k]))

    def _memo(self, x: np.ndarray, steps: np.ndarray) -> int:
        """update()'s memorisation EMA over the loss values ``x``, value by value with
        the same float operations. Once the values stay on one side of the bar (``_memo_bar``) and
        the EMA is a fixed point for them (0.0 for a run never near zero) the rest
        only counts. Stops before the value that raises the alert: returns its index
        (else -1)."""
        m = x.size
        if not m:
            return -1
        if self._memo_bar is None:
            self._memo_bar = _memo_bar(float(x[0]))  # (the first loss, as update() takes it)
        low = (x >= 0.0) & (x < self._memo_bar)
        change = np.flatnonzero(low[1:] != low[:-1])
        tail = int(change[-1]) + 1 if change.size else 0  # low[tail:] is all one value
        flags, last = low[:tail].tolist(), bool(low[tail])
        ema, n, start, hit = self._low, self._loss_n, self._low_start, -1
        k = 0
        while k < m:
            f = flags[k] if k < tail else last
            nxt = ema + (f - ema) * MEMO_ALPHA
            if k >= tail and nxt == ema and (ema < MEMO_SHARE or self._memo_judged):
                if ema < 0.25:
                    start = None
                elif f and start is None:
                    start = int(steps[k])
                n += m - k
                break
            s1 = int(steps[k]) if f and start is None else start
            if nxt < 0.25:
                s1 = None
            elif nxt >= MEMO_SHARE and not self._memo_judged and n + 1 >= MEMO_MIN:
                hit = k
                break
            ema, n, start = nxt, n + 1, s1
            k += 1
        self._low, self._loss_n, self._low_start = ema, n, start
        return hit

    # ------------------------------------------------------------------ samples
    def _samples(self, rec: StepRecord) -> list[Alert]:
        assert rec.samples is not None  # (called for a record with samples)
        texts = [t for t in rec.samples[:MAX_SAMPLES] if isinstance(t, str)]
        if not texts:
            return []
        p = _Point(rec.step, texts)
        self.points.append(p)
        self.n_points += 1
        self.n_samples += p.n
        if self._early_points < LEVEL and p.empty < p.n:
            self._early_points += 1
            for k, v in p.classes.items():
                self.early_classes[k] = self.early_classes.get(k, 0) + v
        recent = list(self.points)[-LEVEL:]
        lv = self._levels(recent)
        rel = self.n_points > LEVEL  # a best level exists before the recent window
        out: list[Alert] = []
        for kind, sev, msg, onset, value, base in self._judge(lv, recent, rel):
            out += self._raise(kind, sev, msg, rec.step, onset, value, base, recent)
        # the best levels include the current one (a level cannot be worse than itself)
        if len(recent) >= 2:
            for k, better in (("rep4", min), ("d2", max), ("length", max), ("nonword", min), ("cce", min)):
                level = lv.get(k)
                if level is not None:
                    self.best[k] = better(self.best[k], level) if k in self.best else level
        return out

    @staticmethod
    def _levels(recent: list[_Point]) -> dict[str, float | None]:
        n = sum(p.n for p in recent)
        return {
            "empty": sum(p.empty for p in recent) / n if n else 0.0,
            "rep4": _med([p.rep4 for p in recent]),
            "d2": _med([p.d2 for p in recent]),
            "length": _med([p.length for p in recent]),
            "nonword": _med([p.nonword for p in recent]),
            "cce": _med([p.cce for p in recent]),
        }

    def _judge(self, lv, recent, rel):
        b = self.best
        out = []
        e = lv["empty"]
        if len(recent) >= 2 and e > EMPTY_FAIL:
            out.append(
                (
                    "empty",
                    Severity.CRITICAL,
                    f"{e:.0%} of the samples of the last {len(recent)} sampling steps "
                    f"are empty or near-empty (< {tm.NEAR_EMPTY_CHARS} characters)",
                    self._onset(recent, _is_empty),
                    e,
                    None,
                )
            )
        elif len(recent) >= 2 and e >= EMPTY_WARN:
            out.append(
                (
                    "empty",
                    Severity.WARNING,
                    f"{e:.0%} of the samples of the last {len(recent)} sampling steps are empty or near-empty",
                    self._onset(recent, _is_empty),
                    e,
                    None,
                )
            )
        r = lv["rep4"]
        br = b.get("rep4")
        if r is not None and len(recent) >= 2:
            rise = r - br if (rel and br is not None) else 0.0
            src = "(GPT-2 greedy decoding scores 0.355, nucleus sampling 0.005: Welleck et al.)"
            if r >= REP4_FAIL_ABS or (r >= REP4_FAIL and rise >= REP4_FAIL_RISE):
                out.append(
                    (
                        "repetition",
                        Severity.CRITICAL,
                        f"the samples repeat themselves: seq-rep-4 {r:.2f}{_vs(br, rel)} {src}",
                        self._onset(recent, lambda p: _ge(p.rep4, REP4_WARN)),
                        r,
                        br,
                    )
                )
            elif r >= REP4_WARN and rise >= REP4_WARN_RISE:
                out.append(
                    (
                        "repetition",
                        Severity.WARNING,
                        f"repetition is rising: seq-rep-4 {r:.2f}{_vs(br, rel)} {src}",
                        self._onset(recent, lambda p: _ge(p.rep4, REP4_WARN)),
                        r,
                        br,
                    )
                )
        d2, bd2 = lv["d2"], b.get("d2")
        if rel and d2 is not None and bd2 and d2 < D2_WARN_FRAC * bd2 and "repetition" not in [o[0] for o in out]:
            out.append(
                (
                    "repetition",
                    Severity.WARNING,
                    f"distinct-2 fell to {d2:.2f} from {bd2:.2f} at best: the samples reuse the same word pairs",
                    self._onset(recent, lambda p: p.d2 is not None and p.d2 < D2_WARN_FRAC * bd2),
                    d2,
                    bd2,
                )
            )
        nw, bnw = lv["nonword"], b.get("nonword")
        ce, bce = lv["cce"], b.get("cce")
        if rel and nw is not None and bnw is not None:
            if (nw >= NW_FAIL and nw - bnw >= NW_FAIL_RISE) or (
                ce is not None and bce is not None and ce >= CCE_FAIL and ce - bce >= CCE_FAIL_RISE
            ):
                sev = Severity.CRITICAL
            elif (nw >= NW_WARN and nw - bnw >= NW_WARN_RISE) or (
                ce is not None and bce is not None and ce >= CCE_WARN and ce - bce >= CCE_WARN_RISE
            ):
                sev = Severity.WARNING
            else:
                sev = None
            if sev is not None:
                lim = bnw + NW_WARN_RISE
                out.append(
                    (
                        "gibberish",
                        sev,
                        f"the samples turned to gibberish: {nw:.0%} of the words are not "
                        f"word-like (best {bnw:.0%}), character-class entropy {fmt(ce)} bits (best {fmt(bce)})",
                        self._onset(recent, lambda p: _ge(p.nonword, lim)),
                        nw,
                        bnw,
                    )
                )
        ln, bln = lv["length"], b.get("length")
        if rel and ln is not None and bln and bln >= LEN_MIN_BEST and ln < LEN_WARN_FRAC * bln and e < EMPTY_WARN:
            out.append(
                (
                    "length",
                    Severity.WARNING,
                    f"the samples got short: median {ln:.0f} characters vs {bln:.0f} at best",
                    self._onset(recent, lambda p: p.length < LEN_WARN_FRAC * bln),
                    ln,
                    bln,
                )
            )
        if rel and self._early_points >= LEVEL and not out:
            cur: dict[str, int] = {}
            for p in recent:
                for k, v in p.classes.items():
                    cur[k] = cur.get(k, 0) + v
            dist = tm.class_distance(cur, self.early_classes)
            if dist >= SHIFT_WARN:
                out.append(
                    (
                        "shift",
                        Severity.WARNING,
                        f"the samples changed character: the mix of letters, digits "
                        f"and symbols moved {dist:.2f} (total variation) from the first samples",
                        recent[0].step,
                        dist,
                        None,
                    )
                )
        return out

    @staticmethod
    def _onset(recent: list[_Point], bad) -> int:
        onset = recent[-1].step
        for p in reversed(recent):
            if not bad(p):
                break
            onset = p.step
        return onset

    def _raise(self, kind, sev, what, step, onset, value, base, recent) -> list[Alert]:
        f = self.findings.get(kind)
        if f is not None and (f.sev == sev or f.sev == Severity.CRITICAL):
            return []
        if f is not None:
            onset = min(onset, f.onset)
        before = [p for p in self.points if p.step < onset]
        good = f" (still fine at step {before[-1].step})" if before else ""
        self.findings[kind] = _Finding(kind, sev, step, onset, f"{_label(kind, value)} since step {onset}")
        shown = next((p.text for p in reversed(recent) if p.step >= onset), recent[-1].text)
        sample = (
            f' Sample at step {recent[-1].step}: "{shown}".'
            if shown
            else f" Sample at step {recent[-1].step}: (empty)."
        )
        return [
            Alert(
                self.id,
                sev,
                step,
                f"Output collapse from step {onset}{good}: {what}.{sample}",
                value=value,
                baseline=base,
                actions=self._actions(kind, onset),
                key=f"output_collapse:{kind}:{sev.value}",
            )
        ]

    def _actions(self, kind: str, onset: int) -> list[str]:
        roll = advice.rollback(self.state, onset, "the collapse")
        tok = (
            "Check the tokenizer and special tokens: the same vocabulary and ids for the training data and for "
            "decoding samples, EOS / pad tokens masked out of the loss, the sampler's stop condition."
        )
        data = (
            f"Check the data mix around step {onset}: duplicated or boilerplate documents (dedup), one source "
            f"dominating, empty or truncated documents."
        )
        if kind == "empty":
            return [roll, tok, data]
        if kind == "repetition":
            return [
                roll,
                advice.lower_lr(self.state),
                data,
                "Sample with temperature / nucleus (top-p 0.9-0.95), not greedy: greedy decoding repeats "
                "itself even in healthy models (Welleck et al.).",
            ]
        if kind == "gibberish":
            return [roll, tok, advice.lower_lr(self.state), data]
        return [roll, advice.lower_lr(self.state), data, tok]

    # ------------------------------------------------------------------ units
    def _unit(self, rec: StepRecord, key: str, kind: str, v: float) -> Alert | None:
        u = self.units.get(key)
        if u is None:
            if len(self.units) >= MAX_UNIT_KEYS:
                return None
            u = self.units[key] = _Unit(key, kind)
        u.n += 1
        if kind == "logit" and not math.isfinite(v):
            return self._unit_alert(rec, u, Severity.CRITICAL, v, f"{key} is {fmt(v)}: the attention logits overflowed")
        if v != v:
            return None
        u.recent.append(v)
        if kind == "entropy" and u.ref is None:
            if u.n > 5:
                u.early.append(v)
            if len(u.early) >= 10:
                u.ref = median(u.early)
                u.early = []
            return None
        if len(u.recent) < 3:
            return None
        lv = median(u.recent)
        sev = None
        if kind == "zero":
            if lv >= ZERO_FAIL:
                sev = Severity.CRITICAL
            elif lv >= ZERO_WARN:
                sev = Severity.WARNING
            what = (
                f"{key} {fmt(lv)}: {lv:.1%} of the activations are zero (dead units; WARN >= "
                f"{ZERO_WARN:.0%}, FAIL >= {ZERO_FAIL:.0%})"
            )
        elif kind == "entropy":
            ref = u.ref or 0.0
            if ref > 0 and lv < ENT_FAIL * ref:
                sev = Severity.CRITICAL
            elif ref > 0 and lv < ENT_WARN * ref:
                sev = Severity.WARNING
            what = (
                (
                    f"{key} {fmt(lv)} vs {fmt(ref)} early in the run ({lv / ref:.0%}): attention entropy collapse "
                    f"(Zhai et al. 2023: it comes with oscillating loss or divergence)"
                )
                if ref > 0
                else ""
            )
        else:
            if lv > LOGIT_FAIL:
                sev = Severity.CRITICAL
            elif lv > LOGIT_WARN:
                sev = Severity.WARNING
            what = (
                f"{key} {fmt(lv)}: attention logits above {fmt(LOGIT_WARN)}, where Kimi K2's QK-Clip caps them "
                f"(logit growth precedes loss divergence)"
            )
        if sev is None:
            if u.sev is None:
                u.onset = None
            return None
        if u.onset is None:
            u.onset = rec.step
        return self._unit_alert(rec, u, sev, lv, what)

    def _unit_alert(self, rec, u: _Unit, sev: Severity, v: float, what: str) -> Alert | None:
        if u.sev is not None and (u.sev == sev or u.sev == Severity.CRITICAL):
            return None
        u.sev = sev
        u.peak = v
        onset = u.onset if u.onset is not None else rec.step
        u.onset = onset
        acts = [advice.rollback(self.state, onset, "the collapse"), advice.lower_lr(self.state)]
        if u.kind == "logit":
            acts.append(
                "Bound the attention logits: QK-layernorm or QK-clip at 100 (Kimi K2), or soft-capping; "
                "z-loss 1e-4 (PaLM) for the output logits."
            )
        elif u.kind == "entropy":
            acts.append("Keep attention entropy up: QK-layernorm or sigmaReparam (Zhai et al. 2023), a longer warm-up.")
        else:
            acts.append(
                "Check for dead ReLUs: lower LR, smaller init, or a smooth activation (GELU / SwiGLU); "
                "check the weight decay."
            )
        return Alert(
            self.id,
            sev,
            rec.step,
            f"{what[:1].upper()}{what[1:]} at step {rec.step} (since step {onset}).",
            value=v,
            baseline=u.ref,
            actions=acts,
            key=f"output_collapse:{u.key}:{sev.value}",
        )

    # ------------------------------------------------------------------ memorisation
    def _memorised(self, rec: StepRecord, x: float) -> Alert | None:
        """The memorisation alert, or None when the eval loss is as low as the training loss (at
        most MEMO_HELD_OUT x it): a fit that generalises, not memorised data."""
        self._memo_judged = True
        v = rec.val_loss if rec.val_loss is not None else self._val
        if v is not None and 0 <= v <= MEMO_HELD_OUT * x:
            return None
        onset = self._low_start if self._low_start is not None else rec.step
        val = (
            f"; eval loss {fmt(self._val)}, {self._val / max(x, 1e-12):.0f}x higher"
            if self._val is not None and self._val > 2 * x
            else ""
        )
        self.memo = _Finding(
            "memorisation",
            Severity.WARNING,
            rec.step,
            onset,
            f"training loss ~{fmt(x)} since step {onset}: memorisation",
        )
        return Alert(
            self.id,
            Severity.WARNING,
            rec.step,
            f"Training loss near zero: {fmt(x)} at step {rec.step}, below {fmt(self._memo_bar or MEMO_LOSS)} for most of the last "
            f"~{MEMO_MIN} values since step {onset}{val}. The model is memorising its training data: "
            f"over-fitting, not health.",
            value=x,
            baseline=self._memo_bar or MEMO_LOSS,
            actions=[
                f"Use the checkpoint from before step {onset} (or the one with the best eval loss) "
                f"rather than the last one.",
                "Train on more (deduplicated) data or for fewer epochs; add or raise dropout / weight "
                "decay; hold out an eval set and stop when its loss rises.",
            ],
            key="output_collapse:memorisation",
        )

    # ------------------------------------------------------------------ resume / result
    def on_resume(self, step: int) -> None:
        keep = [p for p in self.points if p.step <= step]
        self.points = deque(keep, maxlen=HISTORY)
        self.findings = {k: f for k, f in self.findings.items() if f.onset <= step}
        for u in self.units.values():
            u.recent.clear()
            if u.onset is not None and u.onset > step:
                u.sev = u.onset = None

    def result(self) -> CheckResult:
        parts: list[tuple[Severity, str]] = [(f.sev, f.summary) for f in self.findings.values()]
        for u in self.units.values():
            if u.sev is not None:
                parts.append((u.sev, f"{u.key} {fmt(u.peak)} since step {u.onset}"))
        if self.memo is not None:
            parts.append((self.memo.sev, self.memo.summary))
        if parts:
            parts.sort(key=lambda p: p[0] != Severity.CRITICAL)
            sev = parts[0][0]
            more = f" (+{len(parts) - 1} more)" if len(parts) > 1 else ""
            return self._result(_SEV_STATUS[sev], parts[0][1] + more)
        if self.n_points:
            recent = list(self.points)[-LEVEL:]
            lv = self._levels(recent)
            r = f"seq-rep-4 {lv['rep4']:.2f}, " if lv["rep4"] is not None else ""
            nw = f"{lv['nonword']:.0%} non-words, " if lv["nonword"] is not None else ""
            return self._result(
                Status.PASS, f"{self.n_samples} sample(s) at {self.n_points} step(s): {r}{nw}{lv['empty']:.0%} empty"
            )
        if self.units:
            return self._result(
                Status.PASS, "no generations logged; " + ", ".join(sorted(self.units)[:3]) + " within limits"
            )
        return self._result(Status.SKIP, "no generations logged")


def _label(kind: str, v: float) -> str:
    return {
        "empty": f"{v:.0%} of the recent samples empty",
        "repetition": f"samples repeat themselves (seq-rep-4 / distinct-2 {v:.2f})",
        "gibberish": f"samples turned to gibberish ({v:.0%} non-words)",
        "length": f"samples shortened to ~{v:.0f} characters",
        "shift": f"samples changed character (distance {v:.2f})",
    }.get(kind, kind)


def _is_empty(p: _Point) -> bool:
    return p.empty * 2 > p.n or p.empty == p.n


def _ge(x: float | None, lim: float) -> bool:
    return x is not None and x >= lim


def _vs(best: float | None, rel: bool) -> str:
    return f" (best {best:.2f} earlier in the run)" if rel and best is not None else ""
