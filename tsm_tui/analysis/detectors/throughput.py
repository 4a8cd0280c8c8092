"""Throughput: the run's speed against its own median (issue 27).

Speed per record, from the first of these the log has: a logged step duration
(Megatron's ``elapsed time per iteration (ms)``, nanoGPT's ``time ...ms``,
``step_time``, ``dt``: ``sources/fields.STEP_TIME_KEYS``), else a logged
throughput (tokens/s, samples/s, MFU, TFLOP/s: ``RATE_KEYS``), else the records'
own timestamps (steps per second between two records).

- a *drop*: ``throughput_drop_records`` records in a row slower than the run's
  median speed / ``throughput_cliff`` (step time 3x the median: trainproof's
  step-time cliff) is a WARN at the step it began (a straggler, a data-loader
  bottleneck, throttling, a noisy neighbour);
- a *pause*: a shorter slow spell, at least ``throughput_pause`` x slower than the
  median, that the run came back from is noted (info): a checkpoint save (a
  checkpoint at that step), an evaluation (a validation loss logged there) or a
  hiccup.

The median is over the last ``throughput_window`` speeds outside slow spells, so a
drop does not become the new normal. O(1) amortised per record (a sorted window
of ~200); frames are screened in numpy (``medians_after``) and only the rows that
could start a slow spell go through ``update``.
"""

from __future__ import annotations

import math

import numpy as np

from tsm_tui.analysis.detectors.base import NONE, ROWS, Detector
from tsm_tui.analysis.detectors.stats import RollingMedian
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord
from tsm_tui.sources.fields import RATE_KEYS, STEP_TIME_KEYS, rate_key, step_time_key

MIN_REF = 20  # speeds in the window before any is judged (ours)


def _secs(s: float) -> str:
    if s >= 120:
        return f"{s / 60:.1f} min"
    return f"{fmt(s)} s"


class ThroughputDetector(Detector):
    id = "throughput"
    title = "Throughput"
    label = "Throughput"
    short = "speed"
    order = 110
    urgency = 110

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        #: where the speed comes from: ("dt", key, scale) / ("rate", key) / ("time", "clock" | "time")
        self.kind: tuple | None = None
        self.ref = RollingMedian(self.settings.throughput_window)
        self.prev_t: float | None = None  # the last record's timestamp (time-based speeds)
        self.prev_step: int | None = None
        self.values = 0
        # the current slow spell: [first step, records, slowest ratio, seconds, last step, fast records since,
        # sum of log ratios, the step the fast records began]
        self.spell: list | None = None
        self.drop: list | None = None  # the drop in progress: [first step, ratio, records]
        self.drops: list[tuple] = []  # (first step, last step or None, slowest ratio) of the drops, bounded
        self.n_drops = 0
        self.pauses = 0
        self.pause_last: tuple | None = None  # (step, seconds or None, ratio)
        self.last_eval: int | None = None  # the step of the last evaluation (a pause there is the eval)
        #: times the logged ``time`` fell while the steps rose, and the first such fall (step,
        #: before, after): a duration, not a clock, once throughput_clock_falls is reached
        self.falls = 0
        self.first_fall: tuple[int, float, float] | None = None

    # -- the speed of one record ------------------------------------------------------------
    def _kind_of(self, extra, has_clock: bool, has_time: bool) -> tuple | None:
        if extra:
            got = step_time_key(extra)
            if got is not None:
                return ("dt", got[0], got[1])
            k = rate_key(extra)
            if k is not None:
                return ("rate", k)
        # a text line's own clock before a logged ``time`` (which may be a duration: mmengine's)
        if has_clock:
            return ("time", "clock")
        if has_time:
            return ("time", "time")
        return None

    def _speed(self, rec: StepRecord) -> tuple[float | None, float | None]:
        """(speed, seconds this record took) of one record; None when it has none."""
        kind = self.kind
        if kind is None:
            kind = self._kind_of(rec.extra, rec.clock is not None, rec.time is not None)
            if kind is None or (kind[1:] == ("clock",) and rec.loss is None):
                # (a line's clock decides only on a training record: a DeepSpeed OVERFLOW line before
                # Megatron's first iteration line, which logs its step time, must not)
                return None, None
            self.kind = kind
        if kind[0] == "time":
            t = rec.clock if kind[1] == "clock" else rec.time
            if t is None or not math.isfinite(t):
                return None, None
            ps, pt = self.prev_step, self.prev_t
            self.prev_t, self.prev_step = t, rec.step
            if pt is not None and ps is not None and rec.step > ps and t < pt:  # (ps and pt are set together)
                self.falls += 1
                if self.first_fall is None:
                    self.first_fall = (rec.step, pt, t)
            if pt is None or ps is None or rec.step <= ps or not t > pt or self.not_a_clock():
                return None, None
            return (rec.step - ps) / (t - pt), t - pt
        x = rec.extra.get(kind[1]) if rec.extra else None
        if x is None or not math.isfinite(x) or x <= 0:
            return None, None
        if kind[0] == "dt":
            d = x * kind[2]
            return 1.0 / d, d
        return x, None

    def not_a_clock(self) -> bool:
        """The logged ``time`` fell throughput_clock_falls times while the steps rose: a duration
        per step or interval (mmengine's ``time: 0.1868``), not a timestamp; no speed from it."""
        return self.falls >= self.settings.throughput_clock_falls

    def _not_training_time(self, med: float | None) -> str | None:
        """Why the record timestamps are not the training's clock, else None."""
        if self.kind is None or self.kind[0] != "time":
            return None
        hosted = self.state.info.hosted_model
        if hosted:
            return f"the record timestamps are when the service's results were synced, not training time (a hosted fine-tune: {hosted})"
        if med is not None and med > self.settings.throughput_max_steps_per_s:
            return (
                f"the record timestamps give {fmt(med)} steps/s, faster than a training step runs (over "
                f"{fmt(self.settings.throughput_max_steps_per_s)}): they are when the records were written (a sync, "
                "a replay), not training time"
            )
        return None

    # -- per record ---------------------------------------------------------------------------
    def update(self, rec: StepRecord) -> list[Alert]:
        if rec.val_loss is not None:
            self.last_eval = rec.step
        v, secs = self._speed(rec)
        if v is None:
            return []
        return self._judge(rec.step, v, secs)

    def _judge(self, step: int, v: float, secs: float | None) -> list[Alert]:
        self.values += 1
        ref = self.ref
        if len(ref) < MIN_REF:
            ref.update(v)
            return []
        med = ref.get()
        assert med is not None  # (MIN_REF values in it)
        ratio = med / v  # how many times slower than the median
        sp = self.spell
        if ratio > self.settings.throughput_cliff:
            if sp is None:
                sp = self.spell = [step, 0, ratio, 0.0, step, 0, 0.0, None]
            sp[1] += 1
            sp[2] = max(sp[2], ratio)
            sp[6] += math.log(ratio)
            sp[4] = step
            sp[5] = 0
            if secs is not None:
                sp[3] += secs
            if self.drop is None:
                if sp[1] >= self.settings.throughput_drop_records:
                    return self._drop_alert(sp, med)
            elif sp[1] >= self.settings.throughput_window:
                # a drop as long as the window: the run's new pace (said once); judged against it from here
                self._end_drop(step)
                self.spell = None
                ref.clear()
            return []
        out: list[Alert] = []
        if sp is not None:
            if self.drop is not None:
                sp[5] += 1  # a drop ends after as many fast records in a row as it took to start
                if sp[5] == 1:
                    sp[7] = step  # (where the pace came back)
                if sp[5] < self.settings.throughput_drop_records:
                    return out
                self._end_drop(sp[7])
            elif sp[2] >= self.settings.throughput_pause:
                out = self._pause_alert(sp, step)
            self.spell = None
        ref.update(v)
        return out

    def _end_drop(self, step: int) -> None:
        assert self.drop is not None  # (called while a drop is open)
        self.drops[-1] = (self.drop[0], step, self.drop[1])
        self.drop = None

    def _what(self) -> str:
        k = self.kind
        if k is None:
            return "speed"
        if k[0] == "dt":
            return f"step time ({k[1]})"
        if k[0] == "rate":
            return k[1]
        if k[1] == "clock":
            return "steps per second (from the log lines' timestamps)"
        return "steps per second (from the records' timestamps)"

    def _drop_alert(self, sp: list, med: float) -> list[Alert]:
        if self._not_training_time(med) is not None:
            return []
        ratio = math.exp(sp[6] / sp[1])  # (the geometric mean over the records that made the drop)
        self.drop = [sp[0], ratio, sp[1]]
        self.n_drops += 1
        self.drops.append((sp[0], None, ratio))
        if len(self.drops) > 20:
            del self.drops[0]
        msg = (
            f"Throughput fell to 1/{fmt(ratio)} of the run's median from step {sp[0]} "
            f"({sp[1]} records in a row more than {fmt(self.settings.throughput_cliff)}x slower; {self._what()})."
        )
        acts = [
            "Look for what slowed every step from there: a straggler rank or node (the ranks check compares "
            "step times when every rank's log is read), the data loader (its wait time), thermal or power "
            "throttling, another job on the same GPUs or network.",
            f"Compare the step time before step {sp[0]} with after it: a lasting change in the data "
            "(longer sequences) or in the setup (a checkpoint or eval every step) slows it too.",
        ]
        return [
            Alert(
                self.id,
                Severity.WARNING,
                sp[4],
                msg,
                value=1.0 / ratio,
                baseline=1.0,
                actions=acts,
                key=f"throughput-drop:{sp[0]}",
            )
        ]

    def _pause_alert(self, sp: list, step: int) -> list[Alert]:
        if self._not_training_time(self.ref.get()) is not None:
            return []
        self.pauses += 1
        secs = sp[3] if sp[3] > 0 else None
        self.pause_last = (sp[0], secs, sp[2])
        why = "a hiccup"
        ck = [s for s, _ in self.state.info.checkpoints if sp[0] - 1 <= s <= sp[4]]
        if ck:
            why = f"a checkpoint save (step {ck[-1]})"
        elif self.last_eval is not None and sp[0] - 1 <= self.last_eval <= sp[4]:
            why = f"an evaluation (step {self.last_eval})"
        dur = f"{_secs(secs)}, " if secs is not None else ""
        msg = f"A pause at step {sp[0]}: {dur}{fmt(sp[2])}x the usual {self._what()}; the run came back ({why})."
        return [Alert(self.id, Severity.INFO, step, msg, value=1.0 / sp[2], baseline=1.0, key="throughput-pause")]

    def on_resume(self, step: int) -> None:
        self.prev_t = self.prev_step = None
        if self.spell is not None:
            self.spell = None
            if self.drop is not None:
                self._end_drop(step)

    # -- frames -------------------------------------------------------------------------------------
    def prepare(self, fr):
        """The frame's speeds (NaN where a row has none) and seconds, as ``_speed`` gives them."""
        if self.kind is None:
            kind = self._kind_of(fr.extra, "clock" in fr.cols, "time" in fr.cols)
            if kind is not None and not (kind[1:] == ("clock",) and "loss" not in fr.cols):
                self.kind = kind  # (a line's clock decides only on training records, as in _speed)
        kind = self.kind
        n = fr.n
        if kind is None:
            return None
        if kind[0] == "time":
            t = fr.get(kind[1])
            if t is None:
                return None
            fin = np.isfinite(t)
            idx = np.arange(n)
            last = np.maximum.accumulate(np.where(fin, idx, -1))  # the last row with a time, up to i
            prev = np.empty(n, dtype=np.int64)
            prev[0] = -1
            prev[1:] = last[:-1]
            has_prev = prev >= 0
            pt = np.where(has_prev, t[np.maximum(prev, 0)], np.nan if self.prev_t is None else self.prev_t)
            ps = np.where(
                has_prev, fr.step[np.maximum(prev, 0)], -(2**62) if self.prev_step is None else self.prev_step
            )
            no_prev = ~has_prev & (self.prev_t is None)
            with np.errstate(invalid="ignore", divide="ignore"):
                dt = t - pt
                if self.not_a_clock() or bool(np.any(fin & ~no_prev & (fr.step > ps) & (dt < 0))):
                    return ROWS  # a time that falls (a duration, or a relaunch's clock): update's counting
                ok = fin & ~no_prev & (fr.step > ps) & (dt > 0)
                v = np.where(ok, (fr.step - ps) / np.where(ok, dt, 1.0), np.nan)
            return v, np.where(ok, dt, np.nan), last
        col = fr.extra.get(kind[1]) if fr.extra else None
        if col is None:
            return None
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = np.isfinite(col) & (col > 0)
            if kind[0] == "dt":
                d = col * kind[2]
                return np.where(ok, 1.0 / np.where(ok, d, 1.0), np.nan), np.where(ok, d, np.nan), None
            return np.where(ok, col, np.nan), np.full(n, np.nan), None

    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        if cx is None:
            return NONE
        if self.spell is not None:
            return np.array([a])  # in a slow spell: row by row until it ends
        v = cx[0][a:b]
        good = np.flatnonzero(~np.isnan(v))
        if not good.size:
            return NONE
        vals = v[good]
        L = len(self.ref)
        # the median before each value, as if every value were fed (true up to the first slow one)
        meds = np.empty(vals.size)
        meds[0] = self.ref.get() if L else np.nan
        if vals.size > 1:
            meds[1:] = self.ref.medians_after(vals[:-1])
        judged = (L + np.arange(vals.size)) >= MIN_REF
        with np.errstate(invalid="ignore", divide="ignore"):
            slow = judged & (meds / vals > self.settings.throughput_cliff)
        hit = np.flatnonzero(slow)
        return np.array([a + int(good[hit[0]])]) if hit.size else NONE

    def bulk(self, fr, cx, a: int, q: int) -> None:
        val = fr.get("val_loss")
        if val is not None and q > a:
            self.last_eval = int(fr.step[q - 1])  # (val_loss is a column: every row has one)
        if cx is None:
            return
        v = cx[0][a:q]
        vals = v[~np.isnan(v)]
        if vals.size:
            self.values += int(vals.size)
            self.ref.extend(vals)
        if self.kind is not None and self.kind[0] == "time":
            last = cx[2]
            j = int(last[q - 1])
            if j >= a:  # (a row of [a, q) had a time: the last one is the previous from here)
                self.prev_t, self.prev_step = float(fr.cols[self.kind[1]][j]), int(fr.step[j])

    # -- the check ----------------------------------------------------------------------------------
    def result(self) -> CheckResult:
        if self.kind is not None and self.kind[0] == "time" and self.not_a_clock():
            s, a, b = self.first_fall or (0, 0.0, 0.0)
            if self.kind[1] == "clock":
                what, why = "the log lines' clock", "lines out of order or of several processes"
            else:
                what, why = "the logged time is no clock", "a duration per step or interval, not a timestamp"
            return self._result(
                Status.SKIP,
                f"{what}: it fell {self.falls} times while the steps rose (first at step {s}: {fmt(a)} -> {fmt(b)}): {why}",
            )
        if self.kind is None or self.values == 0:
            return self._result(Status.SKIP, "no step time, throughput or record timestamps logged")
        med = self.ref.get()
        other = self._not_training_time(med)
        if other is not None:
            return self._result(Status.SKIP, other)
        if self.kind[0] == "dt" and med:
            base = f"median step time {_secs(1.0 / med)} ({self.kind[1]})"
        elif self.kind[0] == "rate" and med is not None:
            base = f"median {self.kind[1]} {fmt(med)}"
        elif med:
            base = f"median {fmt(med)} steps/s ({'log line' if self.kind[1] == 'clock' else 'record'} timestamps)"
        else:
            base = f"{self.values} value(s): too few to judge"
        notes = ""
        if self.pauses:
            p = self.pause_last
            assert p is not None  # (set with every pause)
            notes = f"; {self.pauses} pause(s) it came back from (last at step {p[0]}"
            notes += f", {_secs(p[1])})" if p[1] is not None else ")"
        if self.drop is not None:
            return self._result(
                Status.WARN,
                f"throughput at 1/{fmt(self.drop[1])} of its median since step {self.drop[0]}; {base}{notes}",
            )
        if self.drops:
            first, end, ratio = self.drops[-1]
            return self._result(
                Status.WARN,
                f"{self.n_drops} lasting drop(s) (last: 1/{fmt(ratio)} of the median "
                f"from step {first} to {end}); {base}{notes}",
            )
        return self._result(Status.PASS, base + notes)


__all__ = ["ThroughputDetector", "RATE_KEYS", "STEP_TIME_KEYS"]
