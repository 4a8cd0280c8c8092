"""Loss plateau: the loss stops improving for a long stretch while the LR is
still high. Told apart from convergence (LR decayed to <= 20% of its peak, or
the run >= 90% done). A grad norm that collapses with it hints at dead units or
a dead optimizer state.

A window is evidence of a stall only when it is flat by every test: no
material drop (< plateau_rel), no significant move (|t| < 2), no spike in it
and no new LR peak (warm-up); a plateau it opens is reported once it has stayed
open a quarter window more (the numbers behind each rule: bench/RESULTS.md 6).

State is a bounded list of block means (at most MAX_BLOCKS; neighbours merge
when it fills), so memory is constant and the work per record is O(1)
amortised: the window is evaluated once per completed block.
"""

from __future__ import annotations

import math

import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord

MAX_BLOCKS = 64
MIN_RECORDS = 20  # fewer records in the window cannot tell flat from noisy
T_IMPROVING = 3.0  # Welch t of (first third - last third) means (ours)
T_SIGNIFICANT = 2.0
#: a loss above the recent level + max(SPIKE_SD sd, SPIKE_REL x level) is a spike
#: (level and sd of the newest blocks holding >= REF_RECORDS records). 1.3x is the
#: smallest spike the loss-spike rules report (SIGMA_MIN_RATIO); 4 sd keeps noise out.
SPIKE_SD = 4.0
SPIKE_REL = 0.3
REF_RECORDS = 20
#: a plateau is reported once it has stayed open (not measurably improving) for
#: this share of the window after the flat window that opened it (ours): one
#: noisy window of a slow descent (10 records a third) can look flat by chance.
CONFIRM = 1 / 4
#: a decayed LR means "converged" only this far into a planned run (ours: a cosine
#: to 10% passes 20% of its peak at 69% of the run, a linear decay at 80%, WSD later);
#: earlier, an LR at ~0 is a frozen scheduler / dead optimizer state
CONVERGE_PROGRESS = 0.6
#: a run whose loss has improved by less than this share of its first level since a
#: log that starts at the beginning has not materially learned: a statistically
#: significant drift (Welch t >= 3 over many records) alone does not end its plateau (ours)
RUN_MIN_GAIN = 0.10
FIRST_RECORDS = 20  # records whose mean is the run's first level
#: the very same loss value this many records in a row and over >= CONST_FRAC of the
#: run is not a plateau but a loss that is not computed (exactly 0: masked or leaked
#: labels; any constant: frozen weights or a logging bug) (ours)
CONST_RECORDS = 20
CONST_FRAC = 0.1
#: an open plateau whose level has still dropped this much since it opened is a slow
#: improvement (WARN), not a stall (ours)
SLOW_DROP = 0.05


def _moments(blocks) -> tuple[float, float, int]:
    n = sum(b.n for b in blocks)
    m = sum(b.s for b in blocks) / n
    v = max(0.0, sum(b.ss for b in blocks) / n - m * m)
    return m, v, n


def _seq_sum(s: float, x: np.ndarray) -> float:
    """``s + x[0] + x[1] + ...`` added left to right, as a loop of ``s += v`` does."""
    return float(np.concatenate(([s], x)).cumsum()[-1])


class _Block:
    __slots__ = ("first", "last", "s", "ss", "n", "gs", "gn")

    def __init__(self, step: int) -> None:
        self.first = self.last = step
        self.s = 0.0
        self.ss = 0.0
        self.n = 0
        self.gs = 0.0
        self.gn = 0

    def merge(self, o: "_Block") -> None:
        self.last = o.last
        self.s += o.s
        self.ss += o.ss
        self.n += o.n
        self.gs += o.gs
        self.gn += o.gn


class PlateauDetector(Detector):
    id = "plateau"
    title = "Loss Plateau"

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.blocks: list[_Block] = []
        self.block_size = 1
        self._cur: _Block | None = None
        self.n = 0
        self.start: int | None = None  # current plateau's first step
        self.level: float | None = None
        self.longest: tuple[int, int] | None = None  # (start, end) of the longest stall that ended
        self.warned = False
        self.failed = False
        self.dead_hint = False
        self.converged_at: int | None = None
        self._gn_early: float | None = None
        self._cap: float | None = None  # a loss above it is a spike (see SPIKE_SD)
        self._spike_at: int | None = None  # step of the newest one
        self._opened_at = 0  # step of the evaluation that opened the current plateau
        self._confirmed = False  # the last evaluated window was flat, CONFIRM x L after the opening
        self._first_n = 0  # the run's first level: mean of its first FIRST_RECORDS losses
        self._first_s = 0.0
        self._same_val: float | None = None  # the current run of identical loss values
        self._same_from: int | None = None
        self._same_n = 0
        self.const: tuple[float, int] | None = None  # (value, first step) of a constant loss
        self.rising: tuple[float, float] | None = None  # the last window climbed: (from, to) means
        self.lr_early: float | None = None  # progress at which a decayed LR was seen too early
        self.best: tuple[float, int] | None = None  # the lowest completed block mean and its last step
        self.start_level: float | None = None  # the level when the open plateau began

    def update(self, rec: StepRecord) -> list[Alert]:
        x = rec.loss
        if x is None or not math.isfinite(x):
            return []
        self.n += 1
        if self._cap is not None and x > self._cap:
            self._spike_at = rec.step
        if self._first_n < FIRST_RECORDS:
            self._first_n += 1
            self._first_s += x
        if x == self._same_val:
            self._same_n += 1
        else:
            self._same_val, self._same_from, self._same_n = x, rec.step, 1
        b = self._cur
        if b is None:
            b = self._cur = _Block(rec.step)
        b.last = rec.step
        b.s += x
        b.ss += x * x
        b.n += 1
        if rec.grad_norm is not None and math.isfinite(rec.grad_norm):
            b.gs += rec.grad_norm
            b.gn += 1
        if b.n < self.block_size:
            return []
        self.blocks.append(b)
        self._cur = None
        bm = b.s / b.n
        if self.best is None or bm < self.best[0]:
            self.best = (bm, b.last)
        if len(self.blocks) > MAX_BLOCKS:
            merged = []
            for i in range(0, len(self.blocks) - 1, 2):
                a = self.blocks[i]
                a.merge(self.blocks[i + 1])
                merged.append(a)
            if len(self.blocks) % 2:
                merged.append(self.blocks[-1])
            self.blocks = merged
            self.block_size *= 2
        self._cap = self._level_cap()
        return self._constant(rec) + self._evaluate(rec)

    def _constant(self, rec: StepRecord) -> list[Alert]:
        """The very same loss for CONST_RECORDS records and CONST_FRAC of the run so far."""
        if self.const is not None or self._same_n < CONST_RECORDS or self._same_from is None:
            return []
        span = rec.step - (self.state.first_step or 0)
        if span <= 0 or rec.step - self._same_from < CONST_FRAC * span:
            return []
        v = self._same_val
        self.const = (v, self._same_from)
        why = ("a loss of exactly 0: the labels are masked out or leak into the inputs, the loss is not computed, "
               "or NaN / Inf is logged as 0 (HF logging_nan_inf_filter)"
               if v == 0 else "frozen weights (no optimizer step applied) or a logging bug")
        return [Alert(
            self.id, Severity.CRITICAL, rec.step,
            f"Loss exactly {fmt(v)} for {self._same_n} records since step {self._same_from}: the model is not "
            f"learning ({why}).",
            value=v, baseline=None,
            actions=["Check the loss computation and the labels (masking, padding, label shift) on one batch by hand.",
                     "Check that optimizer steps are applied (grad norm, skipped steps, frozen parameters)."],
            key="plateau_const")]

    def _level_cap(self) -> float | None:
        """Above this a loss is a spike (see SPIKE_SD); None until REF_RECORDS are in blocks."""
        n, sm, ss = 0, 0.0, 0.0
        for b in reversed(self.blocks):
            n, sm, ss = n + b.n, sm + b.s, ss + b.ss
            if n >= REF_RECORDS:
                m = sm / n
                return m + max(SPIKE_SD * math.sqrt(max(0.0, ss / n - m * m)), SPIKE_REL * abs(m))
        return None

    # -- columnar path -------------------------------------------------------------
    # Only the record that completes a block does more than add to the open block
    # (merge, evaluate with the RunState it saw): it goes through update(); the
    # rows before it are added in bulk, in the same order (cumsum adds one value
    # at a time, as ``b.s += x`` does; np.sum would add pairwise).
    def update_frame(self, fr) -> list[Alert]:
        loss = fr.get("loss")
        if loss is None:
            return []
        gn = fr.get("grad_norm")
        ok = np.isfinite(loss)
        rows = None if ok.all() else np.flatnonzero(ok)
        if rows is not None:
            loss, gn, steps = loss[rows], (gn[rows] if gn is not None else None), fr.step[rows]
        else:
            steps = fr.step
        out: list[Alert] = []
        k, m = 0, loss.size
        while k < m:
            c = k + self.block_size - (self._cur.n if self._cur is not None else 0) - 1  # completes the block
            if c > k:
                e = min(c, m)
                self._add(loss[k:e], steps[k:e], gn[k:e] if gn is not None else None)
                if c >= m:
                    break
            out += self.update(fr.at(c if rows is None else int(rows[c])))
            k = c + 1
        return out

    def _add(self, x, steps, gn) -> None:
        b = self._cur
        if b is None:
            b = self._cur = _Block(int(steps[0]))
        self.n += x.size
        if self._first_n < FIRST_RECORDS:
            k = min(x.size, FIRST_RECORDS - self._first_n)
            self._first_s = _seq_sum(self._first_s, x[:k])
            self._first_n += k
        ch = np.flatnonzero(x[1:] != x[:-1])
        if not ch.size and x[0] == self._same_val:
            self._same_n += x.size
        else:
            k = int(ch[-1]) + 1 if ch.size else 0
            self._same_val, self._same_from, self._same_n = float(x[k]), int(steps[k]), x.size - k
        if self._cap is not None:
            hit = np.flatnonzero(x > self._cap)
            if hit.size:
                self._spike_at = int(steps[hit[-1]])
        b.last = int(steps[-1])
        b.s = _seq_sum(b.s, x)
        b.ss = _seq_sum(b.ss, x * x)
        b.n += x.size
        if gn is not None:
            gn = gn[np.isfinite(gn)]
            if gn.size:
                b.gs = _seq_sum(b.gs, gn)
                b.gn += gn.size

    def _gained(self, level: float) -> bool:
        """The run has materially improved since its first level (see RUN_MIN_GAIN); a
        log that does not start at the beginning of the run cannot tell."""
        st = self.state
        total = st.info.total_steps
        if (st.first_step or 0) > (max(100, 0.01 * total) if total else 100) or not self._first_n:
            return True
        first = self._first_s / self._first_n
        return first == 0 or (first - level) / abs(first) >= RUN_MIN_GAIN

    def _moving(self, rel: float, t: float, t_need: float, level: float | None = None) -> bool:
        """The window's loss measurably improves, or climbs, at significance ``t_need``."""
        slow_ok = t >= T_IMPROVING and (level is None or self._gained(level))
        improving = t >= t_need and (rel >= self.s.plateau_rel or slow_ok)
        rising = -rel >= self.s.plateau_rel and t <= -t_need
        return improving or rising

    def window_steps(self) -> int:
        span = (self.state.last_step or 0) - (self.state.first_step or 0)
        return max(self.s.plateau_steps, int(0.2 * span))

    def _evaluate(self, rec: StepRecord) -> list[Alert]:
        L = self.window_steps()
        now = rec.step
        self._confirmed = False
        st = self.state
        prog = st.progress()
        if (self.lr_early is None and prog is not None and prog < CONVERGE_PROGRESS and st.last_lr is not None
                and st.peak_lr and st.peak_lr_step is not None and st.peak_lr_step < now
                and st.last_lr <= self.s.decayed_lr_frac * st.peak_lr):
            self.lr_early = prog  # the LR fell to ~0 long before the plan's end: it never "finished"
        win = [b for b in self.blocks if b.last > now - L]
        if len(win) < 3 or sum(b.n for b in win) < MIN_RECORDS or now - win[0].first < 0.8 * L:
            return []
        k = max(1, len(win) // 3)
        first, last = win[:k], win[-k:]
        m1, v1, n1 = _moments(first)
        m3, v3, n3 = _moments(last)
        rel = (m1 - m3) / abs(m1) if m1 else 0.0
        se = math.sqrt(v1 / n1 + v3 / n3)
        t = (m1 - m3) / se if se > 0 else (math.inf if m1 > m3 else 0.0)
        # still improving: a drop that is significant against the loss's own noise
        # (Welch t >= 2) and either material (>= plateau_rel) or very significant
        # (t >= 3: slow late-training progress is not a plateau). Ending a plateau
        # that is already open takes t >= 3, so one lucky window does not close it.
        t_need = T_IMPROVING if self.start is not None else T_SIGNIFICANT
        self.rising = (m1, m3) if (-rel >= self.s.plateau_rel and t <= -T_SIGNIFICANT) else None
        if self._moving(rel, t, t_need, m3):
            # a loss that climbs is diverging (loss_spike reports it), not flat
            if self.start is not None:
                self._close(now)
            return []
        # A window opens a plateau, or raises one that is open, only when it is
        # flat: no significant move (|t| < 2), no material improvement either
        # (rel < plateau_rel; a noisy descent, rel 2.4% at t 1.9, is not flat, just
        # not yet significant), and no spike in it (a recovering spike in the last
        # third lifts its mean and spread: a descending loss would look flat). An
        # open plateau whose window is not flat stays open and raises nothing.
        spiky = self._spike_at is not None and self._spike_at > now - L
        # ... and not in a warm-up: a loss that waits for a still-rising LR is not
        # a plateau (the LR set its running peak inside the window)
        warming = self.state.peak_lr_step is not None and self.state.peak_lr_step > now - L
        if rel >= self.s.plateau_rel or spiky or warming or self._moving(rel, t, T_SIGNIFICANT, m3):
            return []
        if self.start is None:
            self.start = win[0].first
            self._opened_at = now
            self.level = self.start_level = m3
            gpre = [b.gs / b.gn for b in self.blocks if b.gn and b.last < self.start]
            self._gn_early = sorted(gpre)[len(gpre) // 2] if gpre else None
        self.level = m3
        gn_now = [b.gs / b.gn for b in last if b.gn]
        if self._gn_early and gn_now and max(gn_now) < 0.1 * self._gn_early:
            self.dead_hint = True
        if self._converged() and not (self.warned or self.failed):
            # (a plateau reported while the LR was high stays one when the LR decays later)
            if self.converged_at is None:
                self.converged_at = self.start
            return []
        dur = now - self.start
        if now - self._opened_at < CONFIRM * L:  # one flat window is not yet a plateau
            return []
        self._confirmed = True
        out: list[Alert] = []
        lr_txt = self._lr_text()
        hint = (" The grad norm collapsed with it: dead units or a dead optimizer state."
                if self.dead_hint else "")
        if dur >= L and not self.warned:
            self.warned = True
            out.append(self._alert(Severity.WARNING, rec, dur, lr_txt, hint))
        if dur >= 2 * L and not self.failed:
            self.failed = True
            out.append(self._alert(Severity.CRITICAL, rec, dur, lr_txt, hint))
        return out

    def _alert(self, sev, rec, dur, lr_txt, hint) -> Alert:
        actions = [advice.rollback(self.state, self.start or rec.step, "the plateau")]
        if self.dead_hint:
            actions.append("Check for dead activations and a stuck optimizer (reset Adam moments on restart; "
                           "lower epsilon to 1e-8 as OLMo 2 did).")
        else:
            actions.append("Check the data pipeline (repeated or shuffled-label batches) and the LR: too low "
                           "stalls, too high bounces.")
        return Alert(
            self.id, sev, rec.step,
            f"Loss flat for {dur} steps since step {self.start} at ~{fmt(self.level)}{lr_txt}.{hint}",
            value=self.level, baseline=None, actions=actions,
            key="plateau_fail" if sev == Severity.CRITICAL else "plateau",
        )

    def _lr_text(self) -> str:
        st = self.state
        if st.last_lr is not None and st.peak_lr:
            if st.last_lr <= self.s.decayed_lr_frac * st.peak_lr and self.lr_early is not None:
                return (f", LR {fmt(st.last_lr)} ({st.last_lr / st.peak_lr:.0%} of peak) since {self.lr_early:.0%} "
                        "of the planned run: a frozen LR / dead optimizer state, not a finished schedule")
            return f", LR still {fmt(st.last_lr)} ({st.last_lr / st.peak_lr:.0%} of peak)"
        return ""

    def _converged(self) -> bool:
        """Flat loss is convergence when the LR has decayed (and, with a plan, the run is
        past CONVERGE_PROGRESS: an LR at 0 at 47% of a cosine is frozen, not done); only
        when the LR is not logged does "the run is >= 90% done" stand in for it."""
        st = self.state
        prog = st.progress()
        if st.last_lr is not None and st.peak_lr:
            return st.last_lr <= self.s.decayed_lr_frac * st.peak_lr and self.lr_early is None
        return prog is not None and prog >= 0.9

    def _recent_level(self) -> float | None:
        n, sm = 0, 0.0
        for b in reversed(self.blocks):
            n, sm = n + b.n, sm + b.s
            if n >= REF_RECORDS:
                return sm / n
        return None

    def _close(self, now: int) -> None:
        if self.start is not None and (self.warned or self.failed):
            if self.longest is None or now - self.start > self.longest[1] - self.longest[0]:
                self.longest = (self.start, now)
        self.start = None

    def on_resume(self, step: int) -> None:
        self.blocks = [b for b in self.blocks if b.last <= step]
        self._cur = None
        self._cap = self._level_cap()
        if self._spike_at is not None and self._spike_at > step:
            self._spike_at = None
        if self.start is not None and self.start > step:
            self.start = None

    def result(self) -> CheckResult:
        if self.n < MIN_RECORDS:
            return self._result(Status.SKIP, f"{self.n} loss values: too few to judge")
        L = self.window_steps()
        now = self.state.last_step or 0
        dead = "; grad norm collapsed (dead units / optimizer state?)" if self.dead_hint else ""
        if self.const is not None and self._same_val == self.const[0] and self._same_from == self.const[1]:
            return self._result(Status.FAIL, f"loss exactly {fmt(self.const[0])} since step {self.const[1]}: "
                                             "not learning")
        if self.start is not None and (not self._converged() or self.warned or self.failed):
            dur = now - self.start
            sl, lv = self.start_level, self.level
            if sl and lv is not None and (sl - lv) / abs(sl) >= SLOW_DROP and (self.warned or self._confirmed):
                return self._result(Status.WARN, f"improving slowly: {fmt(sl)} -> {fmt(lv)} over {dur} steps since "
                                                 f"step {self.start} (< {self.s.plateau_rel:.0%} per {L}-step window)")
            if self.longest is not None:  # an earlier stall of the same run: it never really moved on
                a, b = self.longest
                dead += f"; flat for {b - a} steps from step {a} before"
            if self.failed or (self._confirmed and dur >= 2 * L):
                return self._result(Status.FAIL, f"flat for {dur} steps since step {self.start} at ~{fmt(self.level)}{dead}")
            if self.warned or (self._confirmed and dur >= L):
                return self._result(Status.WARN, f"flat for {dur} steps since step {self.start}{dead}")
        cur = self._recent_level()
        if cur is not None and self.best is not None and self.best[0] > 0 \
                and cur >= self.s.divergence_factor * self.best[0]:
            return self._result(Status.SKIP, f"loss {fmt(cur)}, {cur / self.best[0]:.1f}x its best {fmt(self.best[0])} "
                                             f"(step {self.best[1]}): rising, not flat (see Loss Spike Detection)")
        if self.longest is not None:  # a stall that ended by itself is history, not a fault
            a, b = self.longest
            return self._result(Status.PASS, f"stalled for {b - a} steps from step {a}, then improved")
        if self.rising is not None:
            a, b = self.rising
            return self._result(Status.SKIP, f"loss climbing ({fmt(a)} -> {fmt(b)} over the last {L} steps): "
                                             "diverging, not flat (see Loss Spike Detection)")
        if self.converged_at is not None:
            return self._result(Status.PASS, f"flat since step {self.converged_at} with the LR decayed: converged")
        return self._result(Status.PASS, f"loss still improving (window {L} steps)")
