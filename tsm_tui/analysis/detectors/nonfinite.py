"""NaN / Inf in the loss, the grad norm, a loss term or a model output (log-probs, rewards):
always critical.

Also where frameworks hide it: HF replaces a NaN loss with the running mean
(``logging_nan_inf_filter``), so a finite loss beside a NaN grad norm is a NaN
step, and ``loss == 0.0`` with a NaN grad norm is a dead run; Megatron omits
``lm loss`` and counts ``number of nan iterations``.
"""

from __future__ import annotations

import math

import numpy as np

from tsm_tui.analysis import advice
from tsm_tui.analysis.detectors.base import NONE, Detector
from tsm_tui.analysis.detectors.components import (
    grad_keys,
    loss_terms,
    nonfinite_grads,
    nonfinite_outputs,
    nonfinite_terms,
    only_objective_terms,
    output_keys,
)
from tsm_tui.analysis.detectors.lr_peak import SchedulePeak
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord, TextEvent
from tsm_tui.core.sanitize import message
from tsm_tui.sources.text_events import NAN_SKIP_KIND


def _bad(x: float | None) -> bool:
    return x is not None and not math.isfinite(x)


def _grad_stats(rec: StepRecord) -> list[float]:
    """A record's gradient statistics: its grad norm and its extras that name one (``grad_keys``)."""
    ex = rec.extra or {}
    return [ex[k] for k in grad_keys(ex)] + ([rec.grad_norm] if rec.grad_norm is not None else [])


class NonFiniteDetector(Detector):
    id = "nonfinite"
    title = "NaN/Inf Values"
    label = "NaN/Inf"
    short = "nan"
    column = ("nan", "n")
    order = 60
    urgency = 20

    #: a loop's "NaN loss detected! Skipping batch." lines (sources/text_events.NAN_SKIP_KIND)
    reads_events = True

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.skipped = 0  # steps the loop said it skipped for a non-finite loss ...
        self.first_skip: int | None = None  # ... the first one's step
        self.n = 0
        self.bad = 0
        self.first: int | None = None
        #: the first bad record that is not a loss component's NaN beside a finite loss (the
        #: loss, the grad norm, an output or a gradient statistic): the run's own NaN, critical
        self.first_total: int | None = None
        #: the first record whose loss or grad norm itself is non-finite (a NaN iteration, a missing loss): said
        #: too when a model output's or a gradient statistic's NaN came first (fresh126's GRPO runs: a NaN ``kl``
        #: from step 3, the grad norm NaN from step 140 never said where it began)
        self.first_core: int | None = None
        self.last_bad: int | None = None
        self.first_what = ""
        self.last_good_loss: float | None = None
        self._sched = SchedulePeak()  # the LR schedule's peak, for "lower the peak LR" (a jump is not it)
        #: the log's first record was logged before any update, its gradient statistics NaN placeholders
        #: (``_before_any_update``): said in the verdict, not counted ...
        self.placeholder = False
        #: ... known at the next record: that first record, held until then
        self._held: StepRecord | None = None

    def update(self, rec: StepRecord) -> list[Alert]:
        if rec.loss is None and rec.grad_norm is None and not rec.nan_iters and not rec.loss_missing:
            grads = nonfinite_grads(rec.extra)  # a line of gradient statistics alone (I-JEPA's grad_stats)
            if not grads:
                return []
            self.n += 1  # (counted as a bad row of a Frame with neither loss nor grad norm is: bulk)
            return self._bad_record(rec, f"gradient statistic {grads[0][0]} is {fmt(grads[0][1])}")
        self.n += 1
        self._sched.update(rec.lr)
        out = self._judge_held(rec) if self._held is not None else []
        if self._before_any_update(rec):
            self._held = rec
            return out
        return out + self._update(rec)

    def _judge_held(self, rec: StepRecord) -> list[Alert]:
        """The record after a held first one (``_before_any_update``): a step more than one past it whose
        gradient statistics are finite proves the first logged before any update (a placeholder); else (an
        epoch log's epoch 0, whose mean over its updates overflowed: fresh25's MAE run) it was a NaN of the
        run, said now at its own step."""
        held = self._held
        assert held is not None  # (called when held)
        self._held = None
        stats = _grad_stats(rec)
        if rec.step > held.step + 1 and stats and all(math.isfinite(v) for v in stats):
            self.placeholder = True
            self.last_good_loss = held.loss
            return []
        return self._update(held)

    def finalize(self) -> list[Alert]:
        held, self._held = self._held, None  # (a log of that one record: no next one to tell)
        return self._update(held) if held is not None else []

    def _update(self, rec: StepRecord) -> list[Alert]:
        what = None
        term = False  # a loss component's NaN beside a finite loss only
        if _bad(rec.loss):
            what = f"loss is {fmt(rec.loss)}"
        elif _bad(rec.grad_norm):
            if rec.loss == 0.0:
                what = f"loss is 0.0 with grad norm {fmt(rec.grad_norm)} (a dead run, not convergence)"
            elif rec.loss is not None and self.state.info.precision in ("fp16", "fp16-pure"):
                # fp16: the loss scaler skips a step whose gradients overflowed (now and then is its
                # normal work), or the logger hides a NaN loss: both fit a finite loss beside it
                what = (
                    f"grad norm is {fmt(rec.grad_norm)} while the logged loss looks finite ({fmt(rec.loss)}): an fp16 "
                    "overflow the loss scaler skipped (repeated ones are the fault) or a NaN loss the logger hides "
                    "(HF logging_nan_inf_filter)"
                )
            elif rec.loss is not None:
                what = (
                    f"grad norm is {fmt(rec.grad_norm)} while the logged loss looks finite ({fmt(rec.loss)}): "
                    "the logger is hiding a NaN loss (HF logging_nan_inf_filter)"
                )
            else:
                what = f"grad norm is {fmt(rec.grad_norm)}"
        elif rec.nan_iters:
            what = f"{rec.nan_iters} iteration(s) with a NaN loss in the interval"
        elif rec.loss_missing and not rec.skipped:
            what = "loss missing from the training line (Megatron omits it on NaN steps)"
        elif rec.extra:
            bad = nonfinite_terms(rec.extra)  # a loss term (a critic's loss, a component of the total)
            if bad:
                what = f"loss component {bad[0][0]} is {fmt(bad[0][1])} while the loss is {fmt(rec.loss)}"
                term = only_objective_terms(rec.extra, [k for k, _ in bad])
            else:
                out = nonfinite_outputs(rec.extra)  # a model output (log-probs, rewards: TRL)
                if out:
                    names = ", ".join(k for k, _ in out[:3]) + (f" (+{len(out) - 3} more)" if len(out) > 3 else "")
                    what = f"{names} {'is' if len(out) == 1 else 'are'} {fmt(out[0][1])} while the loss is {fmt(rec.loss)}: the forward pass went non-finite"
                else:
                    grads = nonfinite_grads(rec.extra)
                    if grads:
                        what = (
                            f"gradient statistic {grads[0][0]} is {fmt(grads[0][1])} while the loss is {fmt(rec.loss)}"
                        )
        if what is None:
            if rec.loss is not None:
                self.last_good_loss = rec.loss
            return []
        core = _bad(rec.loss) or _bad(rec.grad_norm) or bool(rec.nan_iters) or (rec.loss_missing and not rec.skipped)
        return self._bad_record(rec, what, term, core)

    def _before_any_update(self, rec: StepRecord) -> bool:
        """The log's first record, at step 0, logged before any update (an evaluation at initialisation):
        its loss and outputs finite and EVERY gradient statistic of it (the grad norm, gradient and update
        norms) NaN / Inf: no gradient exists yet, the NaN is a placeholder, not the run's (ours: fresh102's
        grokking CSVs, row 0 of step 0 with NaN gradient and Muon update norms, read FAIL)."""
        if rec.step != 0 or self.n != 1 or rec.nan_iters or rec.loss_missing or _bad(rec.loss) or rec.loss is None:
            return False
        vals = _grad_stats(rec)
        if not vals or any(math.isfinite(v) for v in vals):
            return False
        return not nonfinite_terms(rec.extra) and not nonfinite_outputs(rec.extra)

    def _bad_record(self, rec: StepRecord, what: str, term: bool = False, core: bool = False) -> list[Alert]:
        """Count a non-finite record; the first one's alert: critical, but a warning when it
        is a loss component's NaN beside a finite loss (a per-class loss of a class the batch
        lacks is 0 / 0; the objective trains on: fresh6's Aim run, a component NaN at epoch 159
        of 200 with the total finite to the end, read FAIL). The run's own first NaN after
        such a warning is said (critical) too, and so is the first NaN of the loss or the grad
        norm itself (``core``) after a model output's or a gradient statistic's (``first_core``)."""
        self.bad += 1
        self.last_bad = rec.step
        if core and self.first_core is None:
            self.first_core = rec.step
            if self.first_total is not None:
                self.first_what = f"{self.first_what}; the loss / grad norm itself from step {rec.step}: {what}"
                return [
                    self._alert(rec, what, False, f" (after the non-finite values said at step {self.first_total})")
                ]
        if self.first_total is not None or (term and self.first is not None):
            return []
        if self.first is None:
            self.first = rec.step
            self.first_what = what
        if not term:
            self.first_total = rec.step
            if self.first != rec.step:
                self.first_what = f"{self.first_what}; then at step {rec.step}: {what}"
        return [self._alert(rec, what, term)]

    def _alert(self, rec: StepRecord, what: str, term: bool, note: str = "") -> Alert:
        return Alert(
            self.id,
            Severity.WARNING if term else Severity.CRITICAL,
            rec.step,
            f"Non-finite values at step {rec.step}: {what}{note}"
            + (" (the loss trains on: watch it; a component of an empty selection is 0 / 0)." if term else "."),
            value=rec.grad_norm if _bad(rec.grad_norm) and not _bad(rec.loss) else rec.loss,
            baseline=self.last_good_loss,
            actions=[
                advice.rollback(self.state, rec.step, "the first NaN"),
                advice.lower_lr(self.state, peak=self._sched.peak),
                advice.clip(self.state),
                advice.bf16() if self.state.info.precision in ("fp16", "fp16-pure") else advice.check_data(rec.step),
            ],
            key="nonfinite_term" if term else ("nonfinite_core" if note else "nonfinite"),
        )

    def event(self, ev: TextEvent, own: bool) -> list[Alert]:
        """The loop's own guard skipped a non-finite loss: a NaN the records never show (the loop
        prints no nan value). A warning at the last record's step, the first time; the check WARNs
        (FAILs on a NaN it reads, as ever)."""
        if ev.kind != NAN_SKIP_KIND or not own:
            return []
        self.skipped += 1
        if self.first_skip is not None:
            return []
        step = self.state.last_step if self.state.last_step is not None else ev.before
        self.first_skip = step if step is not None else 0
        return [
            Alert(
                self.id,
                Severity.WARNING,
                step,
                f"The training loop skipped a non-finite loss at step {self.first_skip} (its own guard: "
                f"{message(ev.text, 120)}): the records show no NaN, the run had one.",
                actions=[advice.lower_lr(self.state, peak=self._sched.peak), advice.clip(self.state)],
                key="nonfinite_skipped",
            )
        ]

    # -- columnar hooks (the driver is Detector.update_frame) -------------------------
    # Only the first bad record raises an alert (through update()); other rows are
    # counted: bad ones (non-finite loss or grad norm, nan_iters > 0) and the last
    # good loss. Frames carry no loss_missing rows.
    def prepare(self, fr):
        loss, gn, nan_iters = fr.get("loss"), fr.get("grad_norm"), fr.get("nan_iters")
        if loss is None and gn is None and nan_iters is None:
            return None  # no row counts
        bad = np.zeros(fr.n, dtype=bool)
        for col in (loss, gn):
            if col is not None:
                bad |= ~np.isfinite(col)
        if nan_iters is not None:
            bad |= nan_iters != 0
        core = bad.copy()  # (the loss, the grad norm, a NaN iteration: ``first_core``)
        if fr.extra and (loss is not None or gn is not None):
            for k in loss_terms(fr.extra) + output_keys(fr.extra) + grad_keys(fr.extra):
                bad |= ~np.isfinite(fr.extra[k])
        return bad, core

    def screen(self, fr, masks, a: int, b: int) -> np.ndarray:
        if self._held is not None:
            return np.array([a])  # (the next row tells the held one: ``_judge_held``)
        if masks is None:
            return NONE
        bad, core = masks
        if self.first_total is not None:
            # (the loss's or the grad norm's own first NaN after another's: said where it is, as update() does)
            return NONE if self.first_core is not None else a + np.flatnonzero(core[a:b])[:1]
        # the first bad row says the alert; until the run's own NaN, each bad row (a component's
        # NaN is a warning: the next bad row may be the critical one)
        return a + np.flatnonzero(bad[a:b])[:1]

    def bulk(self, fr, masks, a: int, b: int) -> None:
        if masks is None:
            return
        bad = masks[0]
        loss = fr.get("loss")
        bad = bad[a:b]
        nbad = int(np.count_nonzero(bad))
        lr = fr.get("lr")
        if lr is not None:  # the rows update() would count
            self._sched.update_many(lr[a:b] if loss is not None or fr.get("grad_norm") is not None else lr[a:b][bad])
        # rows with neither loss nor grad norm count only when nan_iters says so (then they are bad)
        self.n += (b - a) if loss is not None or fr.get("grad_norm") is not None else nbad
        if nbad:
            self.bad += nbad
            self.last_bad = int(fr.step[a + int(np.flatnonzero(bad)[-1])])
        if loss is not None:
            good = np.flatnonzero(~bad)[-1:] if nbad else (b - a - 1,)
            if len(good):
                self.last_good_loss = float(loss[a + int(good[0])])

    def result(self) -> CheckResult:
        if self.n == 0:
            return self._result(Status.SKIP, "no loss or grad norm in the log")
        if self.bad:
            tail = f", last at {self.last_bad}" if self.last_bad != self.first else ""
            if self.first_total is None:  # loss components only, the loss finite throughout
                return self._result(
                    Status.WARN,
                    f"{self.bad} record(s) with a non-finite loss component, first at step {self.first}{tail}; "
                    "the loss itself finite",
                )
            return self._result(Status.FAIL, f"{self.bad} non-finite record(s), first at step {self.first}{tail}")
        if self.skipped:
            return self._result(
                Status.WARN,
                f"all {self.n} records finite, but the loop skipped {self.skipped} non-finite loss(es), "
                f"first at step {self.first_skip}",
            )
        if self.placeholder:
            return self._result(
                Status.PASS,
                f"the loss finite in all {self.n} records; the gradient statistics NaN at step 0 only: logged "
                "before any update (no gradient yet), not a NaN of the run",
            )
        return self._result(Status.PASS, f"all {self.n} records finite")
