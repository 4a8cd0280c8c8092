"""Over-fitting: the evaluation loss rising while the training loss falls (issue 27).

Each evaluation (a record's ``val_loss``: eval / validation / test loss) is compared
with the best one so far. Over-fitting is said when, for ``overfit_evals``
evaluations in a row after the best, the evaluation loss stays above the best by
more than ``overfit_margin`` (relative) while the training loss (the median of its
last ``overfit_train_window`` values) has gone on falling below its level at the
best evaluation (by more than ``overfit_train_fall`` of it: a flat loss's wobble is no fall):

- WARN, with the step of the best evaluation and the checkpoint nearest to it: the
  one to keep (early stopping would have stopped there);
- FAIL when the evaluation loss is back above its first value: everything the run
  gained on held-out data is lost.

An evaluation loss that falls again below the best ends it (the alert stays, the check
returns to PASS with a note); one back within the bar of the best for ``overfit_evals``
evaluations in a row is no longer a FAIL (WARN: still above its best), and ends it when
it is within the margin itself. O(1) per record: a bounded window of training
losses; frames go through ``update`` only at their evaluation rows.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace

import numpy as np

from tsm_tui.analysis.detectors.base import NONE, Detector
from tsm_tui.analysis.detectors.stats import RollingMedian, diff_sd
from tsm_tui.core.numbers import fmt
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord
from tsm_tui.sources.fields import ObjectiveKind

#: the first action of an over-fitting alert: the model to keep (``view`` drops it when stale)
_KEEP = "Keep "
#: an evaluation loss "rises" above its best only by more than NOISE_K x its own noise (the sd of
#: its log values' first differences, robust: ``stats.diff_sd``, over the last NOISE_EVALS of them,
#: from NOISE_MIN on): a noisy evaluation's best is a lucky low and three values above it are
#: noise (fresh6's Aim run: test_loss 0.39-1.9 over its first 30 epochs, falling to 0.07 by its
#: 1000th, read critical "everything gained on held-out data is lost" at epochs 5, 13, 67, 183; ours)
NOISE_K = 3.0
#: the training loss now is the median of its last RECENT values: an evaluation loss that rises
#: while that is divergence_factor x above the training level at the best evaluation rises with
#: the training loss (a blow-up: the Loss Spike check's), not over-fitting (ours; fresh18: an LR scan
#: whose train and validation losses both went to 9e15, read "evaluation loss back above its first
#: value" with "stop early, add regularisation")
RECENT = 3
NOISE_EVALS = 32
#: evaluations in a row above a best that was the run's first evaluation (with the training loss
#: falling) before "back above its first value" is a failure: nothing was gained, and a run's first
#: evaluations are its noisiest (ours; fresh47: a Keras LSTM's validation MSE 0.143, 0.164, 0.161, 0.161
#: over epochs 0-3 read critical "everything gained on held-out data is lost" at epoch 3 of a healthy
#: 1,000-epoch run whose validation MSE fell to 8e-4)
NEVER_GAINED = 10
NOISE_MIN = 4


class OverfittingDetector(Detector):
    id = "overfitting"
    title = "Over-fitting"
    label = "Overfitting"
    short = "ovfit"
    order = 120
    urgency = 80

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.train = RollingMedian(self.settings.overfit_train_window)
        self.recent = RollingMedian(RECENT)  # the training loss now (a spike of its own shows here)
        self.evals = 0
        self.trained = False  # a finite training loss was seen (without one there is nothing to compare)
        self.first: tuple[int, float] | None = None  # (step, eval loss)
        self.best: tuple[int, float, float | None] | None = None  # (step, eval loss, train level then)
        self.last: tuple[int, float] | None = None
        self.above = 0  # evaluations in a row above the best by the margin, with the training loss lower
        self.calm = 0  # evaluations in a row within the bar of the best, not rising (a stretch said ends)
        self.low = math.inf  # the lowest evaluation loss of the stretch above the best so far
        self.jumped = False  # the stretch began right after an evaluation back at the best's level
        self.state_now = "ok"  # ok / warn / fail
        self.said: str | None = None  # the strongest alert said for the current best ("warn" / "fail")
        self.episodes = 0
        self.ended: tuple[int, int] | None = None  # (best step, step it ended) of the last episode that ended
        self._said_keys: set[str] = set()  # keys of the alerts said (one per best evaluation: bounded by them)
        self._revised: list[str] = []  # keys whose ``view`` changed since ``revised`` was asked
        self._logs: deque = deque(maxlen=NOISE_EVALS)  # the last evaluation losses' logs (their noise)
        #: a reinforcement-learning run's records (a policy / value loss, a reward): its ``val_loss`` is the
        #: value function's loss (ModuMorph's PPO: ``pi_loss``, ``val_loss``), no held-out evaluation
        self._kind = ObjectiveKind()
        self.rl_values = 0  # such values read in an RL run's records (not judged)

    def update(self, rec: StepRecord) -> list[Alert]:
        kind = self._kind.see(rec.extra) if rec.extra else self._kind.kind
        x = rec.loss
        if x is not None and math.isfinite(x):
            self.train.update(x)
            self.recent.update(x)
            self.trained = True
        v = rec.val_loss
        if v is None or not math.isfinite(v):
            return []
        if kind == "rl":
            self.rl_values += 1
            return []
        return self._eval(rec.step, v)

    def _eval(self, step: int, v: float) -> list[Alert]:
        self.evals += 1
        before, self.last = self.last, (step, v)
        if v > 0:
            self._logs.append(math.log(v))
        tr = self.train.get()
        if self.first is None:
            self.first = (step, v)
        best = self.best
        if best is not None and best[2] is None and tr is not None:
            best = self.best = (best[0], best[1], tr)  # (no training loss before the best evaluation: the first after)
        if best is None or v < best[1]:
            if self.state_now != "ok" and best is not None:
                self.ended = (best[0], step)
            if best is not None and f"overfit:{best[0]}" in self._said_keys:
                self._revised.append(f"overfit:{best[0]}")  # (its "keep step N" is superseded: ``view``)
            self.best = (step, v, tr)
            self.above, self.calm, self.state_now, self.said = 0, 0, "ok", None
            return []
        rising = (
            v > best[1] * max(1.0 + self.settings.overfit_margin, self._noise_factor())
            if best[1] > 0
            else v > best[1] + self.settings.overfit_margin
        )
        falling = (
            tr is not None
            and best[2] is not None
            and tr < best[2] - abs(best[2]) * self.settings.overfit_train_fall
            and not self._train_blew_up(best[2])
        )
        low, self.low = self.low, (min(self.low, v) if self.above else v)
        if not self.above:  # (a stretch starts: did it jump from the best's level?)
            # (back at the best's level: within recovery_factor of it, the Loss Spike check's bar for "back")
            self.jumped = before is not None and before[1] <= best[1] * self.settings.recovery_factor
        if rising and falling:
            self.above += 1
        elif not rising:
            self.above = 0
            self.calm += 1
            if self.state_now != "ok" and self.calm >= self.settings.overfit_evals:
                # back within the bar (the margin, widened by its noise) of the best for as many evaluations
                # as it took to say it: no longer "back above its first value" (fresh25's DETR: 8.64 against a
                # first 8.07, then ~7.9 for 27 evaluations, kept FAIL "back above its first value (7.87 ...
                # vs 8.067)"); the stretch ended when the evaluation is within the margin itself, though no
                # evaluation beat the best, else it is still above its best (WARN)
                if v <= best[1] * (1.0 + self.settings.overfit_margin):
                    self.ended = (best[0], step)
                    self.state_now = "ok"
                elif self.state_now == "fail":
                    self.state_now = "warn"
        if rising:
            self.calm = 0
        if self.above < self.settings.overfit_evals:
            return []
        if self.jumped and self.above > 1 and v < low and self.state_now == "ok":
            # a stretch that jumped from the best's level, each evaluation of it lower than all before it: an
            # excursion on its way back (a validation loss 1.55, then 5.89, 2.25, 1.85 after a best of 1.469 read
            # critical "everything gained on held-out data is lost" at the third), not a rise; said when a value
            # is not a new low. (One that began above that level is a rise that peaked: fresh52's ECG ResNet,
            # 0.25-0.40 after a best of 0.176, then 0.885, 0.636, 0.430, over-fits.)
            return []
        # (a first evaluation that was the best: nothing was gained to lose, the run has not generalised
        # better since; said as a failure only once that has held for NEVER_GAINED evaluations)
        back = v > self.first[1] and (best[0] != self.first[0] or self.above >= NEVER_GAINED)
        now = "fail" if back else "warn"
        self.state_now = now
        if self.said == now or (self.said == "fail" and now == "warn"):
            return []
        if self.said is None:
            self.episodes += 1
        self.said = now
        return [self._alert(step, v, tr, now)]

    def _train_blew_up(self, level: float) -> bool:
        """The training loss now (RECENT) divergence_factor x above ``level`` (the training level
        at the best evaluation): the evaluation loss rises with it."""
        now = self.recent.get()
        return now is not None and level > 0 and now > level * self.settings.divergence_factor

    def _noise_factor(self) -> float:
        """exp(NOISE_K x the evaluation loss's noise on a log scale); 1 before NOISE_MIN values."""
        if len(self._logs) < NOISE_MIN:
            return 1.0
        return math.exp(NOISE_K * diff_sd(list(self._logs)))

    def _keep(self) -> tuple[int, str] | None:
        """The checkpoint nearest to the best evaluation (the one to keep)."""
        cks = self.state.info.checkpoints
        if not cks or self.best is None:
            return None
        b = self.best[0]
        return min(cks, key=lambda c: (abs(c[0] - b), c[0] > b))

    def _alert(self, step: int, v: float, tr: float | None, now: str) -> Alert:
        assert self.best is not None and self.first is not None  # (update set them before)
        b_step, b_val, b_tr = self.best
        ck = self._keep()
        keep = f"; keep {ck[1]} (step {ck[0]}), the checkpoint nearest to it" if ck else ""
        trend = (
            f" while the training loss fell from {fmt(b_tr)} to {fmt(tr)}"
            if b_tr is not None and tr is not None
            else " while the training loss kept falling"
        )
        if now == "fail":
            head = (
                f"Over-fitting: the evaluation loss is back above its first value ({fmt(v)} at step {step} vs "
                f"{fmt(self.first[1])} at step {self.first[0]}){trend}: everything gained on held-out data is lost"
            )
        else:
            head = (
                f"Over-fitting: the evaluation loss rose from its best {fmt(b_val)} (step {b_step}) to {fmt(v)} "
                f"(step {step}) over {self.above} evaluations{trend}"
            )
        acts = []
        if ck:
            acts.append(f"Keep {ck[1]} (step {ck[0]}): the checkpoint nearest to the best evaluation loss.")
        else:
            acts.append(f"Keep the model of step {b_step} (the best evaluation loss); no checkpoint was found near it.")
        acts.append(
            "Stop early (HF EarlyStoppingCallback / load_best_model_at_end, Lightning EarlyStopping on the "
            "validation loss), or add regularisation: more data or augmentation, dropout, weight decay, "
            "fewer epochs."
        )
        sev = Severity.CRITICAL if now == "fail" else Severity.WARNING
        # (at the step it is seen, as every alert: the best step is in the message and the actions)
        self._said_keys.add(f"overfit:{b_step}")
        return Alert(
            self.id, sev, step, head + keep + ".", value=v, baseline=b_val, actions=acts, key=f"overfit:{b_step}"
        )

    def view(self, a: Alert) -> Alert:
        """An alert about an earlier best evaluation, once a later one is better: its "keep
        the model of step N" is no longer the model to keep (the report's actions take the
        newest alert's: a YOLOv7 run said "keep the model of step 6" with its best at 67)."""
        if a.key and a.key.startswith("overfit:") and self.best is not None and a.key != f"overfit:{self.best[0]}":
            if a.actions and a.actions[0].startswith(_KEEP):
                return replace(a, actions=a.actions[1:])
        return a

    def revised(self) -> list[str]:
        out, self._revised = self._revised, []
        return out

    def on_resume(self, step: int) -> None:
        """Steps went back before the best evaluation: the evaluations after ``step`` are
        superseded (a restart from a checkpoint, or a new run in the same file)."""
        if self.best is not None and self.best[0] > step:
            self.first = self.best = self.last = None
            self.above, self.calm, self.state_now, self.said = 0, 0, "ok", None
            self._logs.clear()

    # -- frames: only evaluation rows need update ---------------------------------------------------
    def prepare(self, fr):
        if fr.extra and self._kind.see(fr.extra) == "rl":
            v = fr.get("val_loss")
            self.rl_values += 0 if v is None else int(np.count_nonzero(np.isfinite(v)))
            return None
        return fr.get("val_loss")

    def screen(self, fr, cx, a: int, b: int) -> np.ndarray:
        if cx is None:
            return NONE
        return a + np.flatnonzero(np.isfinite(cx[a:b]))

    def bulk(self, fr, cx, a: int, q: int) -> None:
        loss = fr.get("loss")
        if loss is None:
            return
        x = loss[a:q]
        x = x[np.isfinite(x)]
        if x.size:
            self.train.extend(x)
            self.recent.extend(x[-RECENT:])
            self.trained = True

    # -- the check -----------------------------------------------------------------------------------
    def result(self) -> CheckResult:
        if self._kind.kind == "rl" and self.rl_values:
            return self._result(
                Status.SKIP,
                f"a reinforcement-learning run: its {self.rl_values} evaluation-named loss value(s) are the value "
                "function's (critic's) loss, not a held-out evaluation",
            )
        if self.evals == 0:
            return self._result(Status.SKIP, "no evaluation / validation loss logged")
        if not self.trained:
            return self._result(Status.SKIP, f"no training loss logged to compare its {self.evals} evaluation(s) with")
        if self.best is None:
            return self._result(Status.PASS, f"{self.evals} evaluation(s), none since the last restart")
        assert self.first is not None and self.last is not None  # (set with the best)
        b_step, b_val, _ = self.best
        ck = self._keep()
        keep = f"; keep {ck[1]} (step {ck[0]})" if ck else ""
        if self.state_now == "fail":
            return self._result(
                Status.FAIL,
                f"evaluation loss back above its first value ({fmt(self.last[1])} at "
                f"step {self.last[0]} vs {fmt(self.first[1])}); best {fmt(b_val)} at "
                f"step {b_step}{keep}",
            )
        if self.state_now == "warn":
            return self._result(
                Status.WARN,
                f"evaluation loss rising since its best {fmt(b_val)} at step {b_step} "
                f"({fmt(self.last[1])} at step {self.last[0]}) while the training loss "
                f"falls{keep}",
            )
        note = ""
        if self.ended is not None:
            note = f"; an over-fitting stretch after step {self.ended[0]} ended at step {self.ended[1]}"
        b_tr = self.best[2]
        if b_tr is not None and self.last[1] > b_val and self._train_blew_up(b_tr):
            note += ": it rose with the training loss (a blow-up, not over-fitting: see Loss Spike Detection)"
        return self._result(
            Status.PASS,
            f"{self.evals} evaluation(s), best {fmt(b_val)} at step {b_step}, last {fmt(self.last[1])}{note}",
        )
