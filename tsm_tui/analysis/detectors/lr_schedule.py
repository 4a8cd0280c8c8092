"""LR schedule: warm-up present and long enough (>= 1% of steps, 2-5%
recommended), peak LR against the model size, LR stuck at 0 while training
continues, and a schedule that never decays.
"""

from __future__ import annotations

import math

import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import NONE, Detector
from tsm_tui.core.numbers import fmt
from tsm_tui.analysis.detectors.references import gpt3_lr_fit, lr_reference, sgd_range
from tsm_tui.analysis.rules import lr_ratio_line, lr_ratio_status, warmup_short
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord

PEAK_TOL = 0.98  # LR within 2% of its max counts as "at peak"
HOLD_RECORDS = 3  # records at the maximum that end the ramp (a constant-LR phase)
JUMP_FACTOR = 1.5  # LR above 1.5x the warm-up peak later on: a jump, not a schedule (ours)
#: a ramp ended by a hold whose LR then rises by at most this many times the ramp's largest rise
#: from one record to the next is the same ramp going on, not a jump: a staircase warm-up, the LR
#: logged per micro-batch and stepped per optimizer step (GPT2-chitchat's "lr" of every batch with
#: gradient accumulation 4 holds each value 4 records: fresh10's gpt2_chinese log; ours)
STAIR_RISE = 2.0
#: a jump this few LR records after a resume is the resume's (a scheduler state not
#: restored shows at the first records of the new segment); later, it is not (ours)
RESUME_NEAR = 20
#: an LR held at lr_fail_factor (10x) the schedule's peak or more for this many records in a
#: row after a jump is no blip: the run trains at an LR it was never planned for (FAIL; ours,
#: the 20 records of ZERO_RECORDS; 10x: the size reference's FAIL line)
JUMP_FAIL_RECORDS = 20
NO_WARMUP_RECORDS = 20  # records at the first LR before we call it "no warm-up"
ZERO_RECORDS = 20  # (ours) LR == 0 for this many records ...
ZERO_FRAC = 0.05  # ... and for 5% of the steps so far
ZERO_END = 0.98  # ... unless at 98% of the plan or later: a schedule that ends at 0 (ours)


class LRScheduleDetector(Detector):
    id = "lr_schedule"
    title = "LR Schedule"
    label = "LR schedule"
    short = "lr"
    column = ("lr", "l")
    core = True
    metric = "lr"
    order = 30
    urgency = 90

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.n = 0
        self.first_step: int | None = None
        self.first_lr: float | None = None
        self.max_lr = 0.0
        self.peak_step: int | None = None
        self.min_after_peak: float | None = None
        self._peak_step_lr = 0.0
        self._prev_lr = -1.0
        self.ramp_done = False
        self._hold = 0
        self._ramp_rise = 0.0  # the ramp's largest rise from one LR record to the next
        self._held = False  # the ramp ended by a hold (not by a fall): a staircase may go on (STAIR_RISE)
        self.ramp_peak = 0.0
        self.jump_at: int | None = None
        self._over = 0  # records in a row at >= lr_fail_factor x the schedule's peak (after a jump)
        self._over_from: int | None = None
        self.jump_failed: tuple[int, int, float] | None = None  # (since, records, highest LR) when FAIL
        self._zero_run = 0
        self._zero_from: int | None = None
        self.zero_at: int | None = None
        self.no_warmup_alerted = False
        self.lr_alerted = ""
        self._since_resume: int | None = None  # LR records since the last resume
        self._unlogged = 0  # records without an LR while none had one
        self.config_alerted = False
        self.ended = False  # finalize(): the log was read to its end (the ramp's verdict is due)

    def update(self, rec: StepRecord) -> list[Alert]:
        lr = rec.lr
        if lr is None:
            if self.n == 0 and not self.config_alerted:
                self._unlogged += 1
                if self._unlogged >= NO_WARMUP_RECORDS:
                    return self._config_alert(rec.step)
            return []
        if not math.isfinite(lr):
            return []
        out: list[Alert] = []
        self.n += 1
        if self._since_resume is not None:
            self._since_resume += 1
        if self.first_lr is None:
            self.first_lr, self.first_step = lr, rec.step
        if self.ramp_done and self._held and not self.jump_at and self._stair(lr):
            self.ramp_done, self._hold = False, 0  # (the next stair of the ramp: it goes on)
        if lr > self.max_lr:
            self.max_lr = lr
            self.min_after_peak = lr
            # peak_step: where the LR first came within 2% of its maximum, during
            # the initial ramp only (a later jump is not warm-up)
            if not self.ramp_done and (self.peak_step is None or self._peak_step_lr < PEAK_TOL * lr):
                self.peak_step, self._peak_step_lr = rec.step, lr
        else:
            self.min_after_peak = min(self.min_after_peak or lr, lr)
        if not self.ramp_done:
            # the ramp ends when the LR falls, or holds its maximum for a few
            # records in which steps were really taken (skipped fp16 steps do
            # not advance the scheduler, so the LR repeats during start-up)
            if lr == self._prev_lr and not rec.skipped and lr >= self.max_lr * PEAK_TOL and lr > 0:
                # (an LR of 0 held is no peak: a warm-up from 0 whose scheduler steps every few records;
                # a ramp ended at 0 made every LR after it a jump, its size a division by 0)
                self._hold += 1
            elif lr != self._prev_lr:
                self._hold = 0
                if lr > self._prev_lr >= 0:
                    self._ramp_rise = max(self._ramp_rise, lr - self._prev_lr)
            if (0 <= lr < self._prev_lr and lr >= 0.0) or self._hold >= HOLD_RECORDS:
                self.ramp_done = True
                self._held = self._hold >= HOLD_RECORDS and not lr < self._prev_lr
                self.ramp_peak = self.max_lr
        elif lr > self.ramp_peak * JUMP_FACTOR and not self.jump_at:
            self.jump_at = rec.step
            res = self.state.resumes
            near = res and self._since_resume is not None and self._since_resume <= RESUME_NEAR
            if near:  # the advice fits what happened: a restart, or a change without one
                why = f"a scheduler state not restored when the run resumed at step {res[-1][1]}?"
                fix = (
                    f"Check the LR scheduler after the restart at step {res[-1][1]}: the schedule's peak was "
                    f"{fmt(self.ramp_peak)}."
                )
            else:
                why = (
                    "no restart in the log"
                    if not res
                    else f"not at a restart (the run resumed at step {res[-1][1]}, {rec.step - res[-1][1]} steps before)"
                )
                why += ": a config change, or an LR set by hand?"
                fix = (
                    f"Restore the LR schedule: the LR went to {fmt(lr)} at step {rec.step}; the schedule's peak "
                    f"was {fmt(self.ramp_peak)}."
                )
            out.append(
                Alert(
                    self.id,
                    Severity.WARNING,
                    rec.step,
                    f"LR jumped to {fmt(lr)} at step {rec.step}, {lr / self.ramp_peak:.1f}x the schedule's peak "
                    f"{fmt(self.ramp_peak)}: {why}",
                    value=lr,
                    baseline=self.ramp_peak,
                    actions=[fix, advice.rollback(self.state, rec.step, "the LR jump")],
                    key="lr_jump",
                )
            )
        if self.jump_at and not self.jump_failed:
            out += self._check_jump_held(rec, lr)
        self._prev_lr = lr
        out += self._check_no_warmup(rec)
        out += self._check_peak(rec)
        out += self._check_zero(rec, lr)
        return out

    def _stair(self, lr: float) -> bool:
        """``lr`` (above the jump line) is the next stair of a ramp that ended by a hold: it rose
        from the record before by at most STAIR_RISE x the ramp's largest rise."""
        prev = self._prev_lr
        return (
            lr > self.ramp_peak * JUMP_FACTOR
            and self._ramp_rise > 0
            and 0 <= prev < lr <= prev + STAIR_RISE * self._ramp_rise
        )

    # -- columnar hooks (the driver is Detector.update_frame) -------------------------
    # The screen flags the rows where update() could do more than count the row,
    # track the maximum / the running minimum and the previous LR: the first LR,
    # during the ramp any LR that does not rise (a hold or a fall ends the ramp) or
    # is <= 0; after it a negative LR, an LR of 0 that could raise "LR stuck at 0",
    # a jump; any new maximum past the peak-vs-size line; the record that would
    # raise "no warm-up". NaN / Inf LRs are not rows for this check. Frames without
    # an LR only count towards the config's verdict (NO_WARMUP_RECORDS of them).
    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        lr = fr.get("lr")
        if lr is None:
            if self.n or self.config_alerted:
                return NONE
            k = a + NO_WARMUP_RECORDS - self._unlogged - 1  # the row whose record says the config's verdict
            return np.array([k]) if k < b else NONE
        return self._screen(fr, lr, a, b)

    def bulk(self, fr, cx, a: int, b: int) -> None:
        lr = fr.get("lr")
        if lr is None:
            if not (self.n or self.config_alerted):
                self._unlogged += b - a
            return
        self._bulk(fr, lr, a, b)

    @staticmethod
    def _rows(fr, lr, a, b):
        x = lr[a:b]
        ok = np.isfinite(x)
        if ok.all():
            return None, x, fr.step[a:b]
        pos = np.flatnonzero(ok)
        return pos, x[pos], fr.step[a:b][pos]

    def _screen(self, fr, lr, a, b) -> np.ndarray:
        pos, v, steps = self._rows(fr, lr, a, b)
        if not v.size:
            return pos
        if self.first_lr is None:
            flag = np.zeros(v.size, dtype=bool)
            flag[0] = True
        elif not self.ramp_done:
            prev = np.empty_like(v)
            prev[0] = self._prev_lr
            prev[1:] = v[:-1]
            flag = ~(v > prev) | ~(v > 0)
        else:
            flag = np.signbit(v)  # negative (or -0.0)
            zero = v == 0
            if zero.any():
                flag |= self._zero_screen(v, steps, zero)
            if not self.jump_at:
                flag |= v > self.ramp_peak * JUMP_FACTOR
            elif not self.jump_failed:  # the rows that count towards (or reset) a held jump
                hi = v >= self.settings.lr_fail_factor * self.ramp_peak
                after = np.empty_like(hi)
                after[0] = self._over > 0
                after[1:] = hi[:-1]
                flag |= hi | (~hi & after)
        runmax = None
        thr = self._peak_threshold()
        if thr is not None or not self.ramp_done:
            runmax = np.maximum(np.maximum.accumulate(v), self.max_lr)  # max_lr after each row
        if thr is not None:
            assert runmax is not None  # (computed above with a threshold)
            flag |= runmax >= thr
        if not self.no_warmup_alerted and self.first_lr is not None and self._starts_at_beginning():
            if self.ramp_done:  # has_warmup() cannot change: flag the NO_WARMUP_RECORDS-th record
                if not self.first_lr < self.ramp_peak * PEAK_TOL:
                    flag[max(0, NO_WARMUP_RECORDS - self.n - 1) :] = True
            else:
                assert runmax is not None  # (computed above while the ramp is not done)
                nk = np.arange(self.n + 1, self.n + 1 + v.size)
                flag |= (nk >= NO_WARMUP_RECORDS) & ~(self.first_lr < runmax * PEAK_TOL)
        hit = np.flatnonzero(flag)
        return a + (hit if pos is None else pos[hit])

    def _peak_threshold(self) -> float | None:
        """The maximum LR above which _check_peak raises its next alert."""
        if self.lr_alerted == "critical" or not self.ramp_done:
            return None
        ref = self._lr_ref()
        if ref is None:
            return None
        return lr_ratio_line(Status.FAIL if self.lr_alerted == "warning" else Status.WARN, self.settings) * ref[0]

    def _zero_screen(self, v, steps, zero) -> np.ndarray:
        """LR == 0 rows after the ramp that update() must see: where _check_zero would
        not simply count the row into the current zero run, or could raise its alert."""
        if self.max_lr <= 0 or self.peak_step is None:
            return zero
        flag = zero & (steps <= self.peak_step)
        if self.zero_at is None:
            idx = np.arange(v.size)
            last_pos = np.maximum.accumulate(np.where(zero, -1, idx))  # the last LR > 0 up to each row
            cont = last_pos < 0  # the zero run that was open before these rows goes on
            run = np.where(cont, self._zero_run + idx + 1, idx - last_pos)
            zf0 = self._zero_from if self._zero_from is not None else int(steps[0])
            zero_from = np.where(cont, zf0, steps[np.minimum(last_pos + 1, v.size - 1)])
            span = steps - (self.first_step or 0)
            alert = zero & (run >= ZERO_RECORDS) & ~(steps - zero_from < ZERO_FRAC * span)
            total = self.state.info.total_steps
            if total:
                alert &= ~(steps >= ZERO_END * total)
            flag |= alert
        return flag

    def _bulk(self, fr, lr, a, b) -> None:
        """Rows the screen passed: LR > 0 (rising, during the ramp) or, after it, 0
        inside a zero run that raises nothing."""
        _, v, steps = self._rows(fr, lr, a, b)
        if not v.size:
            return
        self.n += v.size
        if self._since_resume is not None:
            self._since_resume += v.size
        before = np.empty_like(v)  # max_lr before each row
        before[0] = self.max_lr
        np.maximum.accumulate(v[:-1], out=before[1:])
        np.maximum(before, self.max_lr, out=before)
        new = np.flatnonzero(v > before)
        low, tail = self.min_after_peak, v
        if not self.ramp_done:
            # (rows the screen passed during the ramp rise, each above the one before and > 0: the
            # rises update() takes, from an LR >= 0)
            first = float(v[0] - self._prev_lr) if self._prev_lr >= 0 else 0.0
            rise = first if v.size == 1 else float(np.diff(v).max(initial=first))
            self._ramp_rise = max(self._ramp_rise, rise)
        if new.size:
            if not self.ramp_done:
                self._peak_chain(v[new], steps[new])
            self.max_lr = low = float(v[new[-1]])
            tail = v[new[-1] + 1 :]
        self.min_after_peak = _min_after(low, tail)
        if not self.ramp_done:
            self._hold = 0
        self._prev_lr = float(v[-1])
        pos = np.flatnonzero(v > 0)
        if pos.size and pos[-1] == v.size - 1:
            self._zero_run, self._zero_from = 0, None
        elif pos.size:
            self._zero_run, self._zero_from = int(v.size - 1 - pos[-1]), int(steps[pos[-1] + 1])
        else:
            self._zero_run += v.size
            if self._zero_from is None:
                self._zero_from = int(steps[0])

    def _peak_chain(self, lrs, steps) -> None:
        """peak_step over new maxima ``lrs`` (rising) of the ramp: it moves to a new
        maximum when the last one it took is below PEAK_TOL of it."""
        ps, pl, j = self.peak_step, self._peak_step_lr, 0
        if ps is None:
            ps, pl, j = int(steps[0]), float(lrs[0]), 1
        tol = PEAK_TOL * lrs  # non-decreasing
        while j < lrs.size:
            k = j + int(np.searchsorted(tol[j:], pl, side="right"))  # first tol > pl
            if k >= lrs.size:
                break
            ps, pl, j = int(steps[k]), float(lrs[k]), k + 1
        self.peak_step, self._peak_step_lr = ps, pl

    def _check_jump_held(self, rec, lr) -> list[Alert]:
        line = self.settings.lr_fail_factor * self.ramp_peak
        if lr < line or self.ramp_peak <= 0:
            self._over, self._over_from = 0, None
            return []
        if self._over == 0:
            self._over_from = rec.step
        self._over += 1
        if self._over < JUMP_FAIL_RECORDS:
            return []
        # (_over_from: set at the first record over the line; called after a jump)
        assert self._over_from is not None and self.jump_at is not None
        self.jump_failed = (self._over_from, self._over, self.max_lr)
        r_now, r_max = lr / self.ramp_peak, self.max_lr / self.ramp_peak
        return [
            Alert(
                self.id,
                Severity.CRITICAL,
                rec.step,
                f"LR held at {r_now:.0f}x the schedule's peak {fmt(self.ramp_peak)} for {self._over} records since step "
                f"{self._over_from} (up to {r_max:.0f}x, {fmt(self.max_lr)}): the run is training at an LR it was not "
                "planned for; a loss that comes back under it is luck, not a schedule.",
                value=lr,
                baseline=self.ramp_peak,
                actions=[
                    f"Restore the LR schedule (peak {fmt(self.ramp_peak)}): find what set the LR at step {self.jump_at} "
                    "(a config change, an LR set by hand, a scheduler state not restored).",
                    advice.rollback(self.state, self.jump_at, "the LR jump"),
                ],
                key="lr_jump_held",
            )
        ]

    # -- warm-up -----------------------------------------------------------------
    def _starts_at_beginning(self) -> bool:
        total = self.state.info.total_steps
        fs = self.first_step or 0
        return fs <= max(10, 0.01 * total) if total else fs <= 10

    def has_warmup(self) -> bool | None:
        if self.n == 0 or not self._starts_at_beginning():
            return None
        peak = self.ramp_peak if self.ramp_done else self.max_lr
        assert self.first_lr is not None  # (set with the first LR counted in n)
        return self.first_lr < peak * PEAK_TOL

    def _late_start(self) -> str:
        """The warm-up of a log that starts after the run's beginning: an LR that rises from
        the first logged record is a warm-up that began before it (fresh3: NMT, EMA and HF
        logs from 4-25% of their peak read "warm-up not visible"); the config's warm-up is
        evidence too. No verdict on its length (its start is not in the log)."""
        fs = self.first_step
        peak = self.ramp_peak if self.ramp_done else self.max_lr
        cfg = self.state.info.warmup_steps
        said = f"; config warmup_steps={cfg}" if cfg else ""
        if self.first_lr is not None and peak > 0 and self.first_lr < peak * PEAK_TOL and self.peak_step != fs:
            share = f"{self.first_lr / peak:.0%}" if self.first_lr >= 0.005 * peak else f"{self.first_lr / peak:.2g}x"
            if not self.ramp_done and not self.ended:
                return (
                    f"warm-up in progress: LR {fmt(self.max_lr)} at step {self.peak_step}, rising from {share} of "
                    f"it at step {fs}, the first logged (it began before the log{said})"
                )
            return (
                f"warm-up to step {self.peak_step}, rising from {share} of its peak at step {fs}, the first "
                f"logged (it began before the log{said})"
            )
        if cfg:
            if cfg <= (fs or 0):
                return f"log starts at step {fs}, after the config's {cfg}-step warm-up (warmup_steps)"
            return f"log starts at step {fs}: the LR does not rise in it, though the config warms up for {cfg} steps"
        return f"log starts at step {fs}: warm-up not visible"

    def _rising_at_end(self) -> bool:
        """The LR was at its maximum, above its first value, at the log's last record, its ramp not
        ended (it neither fell nor held): the ramp was cut by the end of the log."""
        last = self.state.last_lr
        return (
            last is not None
            and self.max_lr > 0
            and last >= self.max_lr
            and self.first_lr is not None
            and last > self.first_lr
        )

    def warmup_steps(self) -> int | None:
        if not self.has_warmup():
            return 0 if self.has_warmup() is False else None
        fs, ps = self.first_step or 0, self.peak_step or 0
        return ps if fs <= 1 else ps - fs

    def _total(self) -> tuple[int | None, str]:
        if self.state.info.total_steps:
            return self.state.info.total_steps, "planned"
        if self.state.last_step:
            return self.state.last_step, "logged"
        return None, ""

    def _check_no_warmup(self, rec) -> list[Alert]:
        if self.no_warmup_alerted or self.n < NO_WARMUP_RECORDS or self.has_warmup() is not False:
            return []
        self.no_warmup_alerted = True
        acts, high = [advice.warmup(self.state)], ""
        p = self.state.info.params
        # how high the LR it starts at is: the size reference, extrapolated below its range if need be
        # (none for an LR in SGD's range: the references are Adam's)
        if p and not self._sgd_range():
            ref = self._lr_ref() or (gpt3_lr_fit(p), "the GPT-3 Table 2.1 fit extrapolated to this size")
            r = self.max_lr / ref[0]
            if lr_ratio_status(r, self.settings) != Status.PASS:
                high = f" It starts {r:.0f}x above {fmt(ref[0])} ({ref[1]}, {fmt(p)} parameters)."
                acts.append(
                    f"Lower the LR from {fmt(self.max_lr)} towards {fmt(ref[0] * 2)} (at most 2x {ref[1]}): "
                    "without a warm-up the first updates are taken at the full LR."
                )
        if self.state.info.clip is not None and self.state.info.clip <= 0:
            acts.append(advice.clip(self.state))  # the run does not clip: nothing bounds those first updates
        return [
            Alert(
                self.id,
                Severity.WARNING,
                rec.step,
                f"No LR warm-up: the LR starts at its peak {fmt(self.max_lr)} at step {self.first_step}. "
                f"Warm-up is mandatory: early {'' if self._sgd_range() else 'Adam '}updates are large and can "
                f"destabilise the run.{high}",
                value=self.first_lr,
                baseline=self.max_lr,
                actions=acts,
                key="no_warmup",
            )
        ]

    # -- peak vs size ------------------------------------------------------------
    def _sgd_range(self, final: bool = False) -> bool:
        """The peak is in SGD's range (``references.sgd_range``: a run that learns at it outweighs a
        config that names Adam); at the verdict (``final``), only on a run with no early instability
        (the alerts while it runs look at the LR alone: the same on records and on frames)."""
        return sgd_range(self.max_lr, unstable=final and self.state.early_trouble_step is not None)

    def _lr_ref(self, final: bool = False):
        p = self.state.info.params
        if not p or self._sgd_range(final):
            return None
        total, _ = self._total()
        bt = self.state.info.effective_batch_tokens()
        tokens = bt * self.state.info.total_steps if (bt and self.state.info.total_steps) else None
        return lr_reference(p, tokens)

    def _check_peak(self, rec) -> list[Alert]:
        if self.lr_alerted == "critical" or not self.ramp_done:
            # (the peak is judged once the ramp has ended: an SGD warm-up to 0.1 passed 10x an Adam
            # reference at 0.0066 on its way up, and a ramp's LRs are not its peak)
            return []
        ref = self._lr_ref()
        st = lr_ratio_status(self.max_lr / ref[0], self.settings) if ref is not None else Status.PASS
        if ref is None or st == Status.PASS:
            return []
        sev = Severity.CRITICAL if st == Status.FAIL else Severity.WARNING
        if self.lr_alerted == sev.value:
            return []
        self.lr_alerted = sev.value  # warn once, then once more if it climbs past the FAIL line
        return [
            Alert(
                self.id,
                sev,
                rec.step,
                f"Peak LR {fmt(self.max_lr)} is {self.max_lr / ref[0]:.1f}x the reference {fmt(ref[0])} for "
                f"{fmt(self.state.info.params)} parameters ({ref[1]}).",
                value=self.max_lr,
                baseline=ref[0],
                actions=[
                    f"Lower the peak LR from {fmt(self.max_lr)} to about {fmt(ref[0] * 2)} (at most 2x {ref[1]}).",
                    advice.warmup(self.state),
                ],
                key=f"lr_peak_{sev.value}",
            )
        ]

    # -- LR at zero ----------------------------------------------------------------
    def _check_zero(self, rec, lr) -> list[Alert]:
        if lr > 0 or self.max_lr <= 0:
            self._zero_run, self._zero_from = 0, None
            return []
        if self.peak_step is None or rec.step <= self.peak_step:
            return []
        self._zero_run += 1
        if self._zero_from is None:
            self._zero_from = rec.step
        total = self.state.info.total_steps
        span = rec.step - (self.first_step or 0)
        zero_steps = rec.step - self._zero_from
        # a schedule that ends at 0 just before the run ends is not a fault: the
        # LR must sit at 0 for 20+ records and 5% of the run (ours)
        if self.zero_at is not None or self._zero_run < ZERO_RECORDS or zero_steps < ZERO_FRAC * span:
            return []
        if total and rec.step >= ZERO_END * total:
            return []
        self.zero_at = self._zero_from
        return [
            Alert(
                self.id,
                Severity.WARNING,
                rec.step,
                f"LR has been 0 since step {self._zero_from} ({zero_steps} steps) while training continues: "
                "the steps are wasted compute.",
                value=0.0,
                baseline=self.max_lr,
                actions=["Check the scheduler's horizon (max_steps / decay steps) against the run length."],
                key="lr_zero",
            )
        ]

    def on_resume(self, step: int) -> None:
        self._zero_run = 0
        self._over, self._over_from = 0, None
        self._prev_lr = -1.0
        self._since_resume = 0

    def _config_alert(self, step: int) -> list[Alert]:
        """The LR is not logged (NO_WARMUP_RECORDS records without one, or the end of the
        log) and the config's plan WARNs or FAILs: an alert, so the verdict comes with
        its actions (a WARN without one left "Recommended Actions: None")."""
        self.config_alerted = True
        res = self._from_config()
        if res is None or res.status not in (Status.WARN, Status.FAIL):
            return []
        info = self.state.info
        acts = []
        w, total = info.warmup_steps, info.total_steps
        if w is not None and (w <= 0 or warmup_short(w, total, self.settings)):
            acts.append(advice.warmup(self.state))
        ref = self._lr_ref()
        if (
            info.peak_lr is not None
            and ref is not None
            and lr_ratio_status(info.peak_lr / ref[0], self.settings) != Status.PASS
        ):
            acts.append(f"Lower the peak LR from {fmt(info.peak_lr)} to about {fmt(ref[0] * 2)} (at most 2x {ref[1]}).")
        sev = Severity.CRITICAL if res.status == Status.FAIL else Severity.WARNING
        return [
            Alert(
                self.id,
                sev,
                step,
                f"LR schedule: {res.summary}.",
                value=info.peak_lr,
                baseline=ref[0] if ref else None,
                actions=acts,
                key="lr_config",
            )
        ]

    def finalize(self) -> list[Alert]:
        self.ended = True
        if self.n == 0 and not self.config_alerted and self.state.last_step is not None:
            return self._config_alert(self.state.last_step)
        return []

    def _warmup_said(self, w: int, total: int | None, kind: str) -> tuple[Status, str]:
        """A warm-up of ``w`` (> 0) steps as the summary says it, of the ``total`` steps
        ``kind`` (planned in the config, or those the log shows): WARN under 1% of them
        (``warmup_short``: not the 2000-step warm-ups of LLaMA / OLMo 2 / DeepSeek, well
        under 1% of their very long runs). One phrasing for the logged LR and the config's."""
        if not total:
            return Status.PASS, f"warm-up {w} steps"
        said = f"warm-up {w} steps ({_pct(w / total)} of {total} {kind})"
        if warmup_short(w, total, self.settings):
            return Status.WARN, said + " < 1%"
        return Status.PASS, said

    def _peak_said(self, peak: float) -> tuple[Status, str] | None:
        """A peak LR against the size reference (``lr_ratio_status``) and as the summary
        says it; None without a reference (the model size unknown). One for the logged
        peak and the config's."""
        ref = self._lr_ref(final=True)
        if ref is None:
            return None
        r = peak / ref[0]
        return lr_ratio_status(r, self.settings), f"peak {fmt(peak)} = {r:.1f}x {ref[1]}"

    def _from_config(self) -> CheckResult | None:
        """The LR is not logged but the run's config (or the flags) gives the plan:
        judge the warm-up and the peak from it, and say so."""
        info = self.state.info
        w, total, peak = info.warmup_steps, info.total_steps, info.peak_lr
        if w is None and peak is None:
            return None
        src = sorted(
            {
                info.origin[k].replace(" (log)", "")
                for k in ("warmup_steps", "peak_lr", "schedule", "total_steps")
                if k in info.origin
            }
        )
        parts, status = [], Status.PASS
        if w is not None:
            if w <= 0:
                status = Status.WARN
                parts.append("no warm-up")
            else:
                status, said = self._warmup_said(w, total, "planned")
                parts.append(said)
        if peak is not None:
            judged = self._peak_said(peak)
            if judged is not None:
                status = max(status, judged[0], key=lambda s: s.rank)
                parts.append(judged[1])
            else:
                parts.append(f"peak {fmt(peak)}")
        if info.schedule:
            parts.append(str(info.schedule))
        where = f" ({', '.join(src)})" if src else " or the flags"
        return self._result(status, f"LR not logged; from the config{where}: " + ", ".join(parts))

    def result(self) -> CheckResult:
        if self.n == 0:
            return self._from_config() or self._result(Status.SKIP, "LR not logged")
        parts: list[str] = []
        status = Status.PASS
        hw = self.has_warmup()
        total, kind = self._total()
        cut = hw and self.ended and not self.ramp_done and self._rising_at_end()
        if cut:
            # the log ends inside the ramp (a capture of a run's first steps): the warm-up's
            # length is not known, so not judged short (fresh7: "warm-up 179 steps < 1%" for a
            # warm-up still rising at the last record)
            parts.append(
                f"warm-up still rising when the log ends: LR {fmt(self.max_lr)} at step {self.peak_step} "
                "(its length is not known)"
            )
        elif hw is not None and not self.ramp_done and not self.ended:
            # the ramp has not ended (the LR has neither held its maximum nor fallen): whether
            # there is a warm-up and how long it is are not known yet; a verdict now flipped
            # back ("no warm-up" at step 1 of a 20-step warm-up, then PASS)
            if hw:
                parts.append(f"warm-up in progress: LR {fmt(self.max_lr)} at step {self.peak_step}")
            else:
                parts.append(
                    f"waiting: {self.n} LR record(s), all at {fmt(self.first_lr)} (the warm-up is judged "
                    f"once the LR holds or falls)"
                )
        elif hw is None:
            parts.append(self._late_start())
        elif hw is False:
            early = self.state.early_trouble_step
            if early is not None:
                status = Status.FAIL
                parts.append(f"no warm-up, and instability at step {early}")
            else:
                status = Status.WARN
                parts.append("no warm-up")
        else:
            status, said = self._warmup_said(self.warmup_steps() or 0, total, kind)
            parts.append(said)
        judged = self._peak_said(self.max_lr)
        if judged is not None:
            status = max(status, judged[0], key=lambda s: s.rank)
            parts.append(judged[1])
        elif self.jump_at is not None:  # the schedule's peak, not the jump's
            parts.append(f"peak {fmt(self.ramp_peak)}")
        elif not cut:  # (a ramp cut by the end of the log has no peak yet: its LR is said above)
            sgd = (
                " (SGD's range: the size references are Adam's)"
                if self.state.info.params and self._sgd_range(final=True)
                else ""
            )
            parts.append(f"peak {fmt(self.max_lr)}{sgd}")
        if self.jump_at is not None:
            status = max(status, Status.WARN, key=lambda s: s.rank)
            jump = f"LR jumped {self.max_lr / self.ramp_peak:.0f}x to {fmt(self.max_lr)} at step {self.jump_at}"
            if self.jump_failed is not None:
                status = Status.FAIL
                jump += f", held >= {self.settings.lr_fail_factor:g}x the schedule's peak for {self.jump_failed[1]}+ records"
            parts.insert(0, jump)  # the reason for the verdict first (a narrow pane shows the start of the line)
        if self.zero_at is not None and not (total and self.zero_at >= ZERO_END * total):
            status = max(status, Status.WARN, key=lambda s: s.rank)
            parts.append(f"LR 0 from step {self.zero_at}")
        prog = self.state.progress()
        if prog is not None and prog >= 0.9 and self.min_after_peak is not None and self.max_lr > 0:
            if self.state.last_lr is not None and self.state.last_lr >= 0.9 * self.max_lr:
                status = max(status, Status.WARN, key=lambda s: s.rank)
                parts.append("LR never decayed (cosine decay to ~10% is standard)")
        if status == Status.PASS and hw is not None and not self.ramp_done and not self.ended:
            status = Status.SKIP  # nothing judged yet (a peak against the model size would have been)
        return self._result(status, "; ".join(parts))


def _pct(frac: float) -> str:
    """A share as a percentage with one decimal, or 2 significant digits when that
    would print 0.0% (5 steps of 20000 is 0.025%, not 0.0%)."""
    return f"{frac:.1%}" if frac >= 0.0005 or frac <= 0 else f"{frac * 100:.2g}%"


def _min_after(m: float | None, tail: np.ndarray) -> float | None:
    """``min_after_peak`` after LRs ``tail`` (each >= +0.0, none a new maximum), as
    ``m = min(m or lr, lr)`` row by row: a 0 (falsy) minimum restarts from the next LR."""
    if not tail.size or (m is not None and m < 0):
        return m
    zeros = np.flatnonzero(tail == 0)
    if zeros.size:
        rest = tail[zeros[-1] + 1 :]
        return float(rest.min()) if rest.size else 0.0
    lo = float(tail.min())
    return min(m, lo) if m else lo
