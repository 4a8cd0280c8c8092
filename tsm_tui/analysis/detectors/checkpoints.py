"""Checkpoints: rollback points on disk (or, when the run directory has none, the saves the
log says it made). Warn when there are none, or when the newest is far behind the run (a
rollback would throw away much of it).
"Checkpoints every N steps": PaLM / OLMo roll back ~100 steps. The advice is the run's
own: a run whose config already saves often enough is told where its checkpoints went,
not to save "every N steps"; a log of one record per epoch is asked in epochs.
"""

from __future__ import annotations

from tsm_tui.analysis.advice import checkpoint_every, checkpoint_every_epochs
from tsm_tui.analysis.detectors.base import Detector
from tsm_tui.analysis.detectors.step_unit import StepUnit
from tsm_tui.analysis.rules import checkpoint_gap_limit, checkpoint_gap_too_long
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord, TextEvent
from tsm_tui.core.sanitize import message
from tsm_tui.sources.checkpoint_lines import SAVE_KIND


#: a planned save is looked for on disk this share of the save interval after its
#: step (writing a checkpoint takes a while; ours)
SAVE_GRACE = 0.1


def _interval(steps: list[int]) -> int | None:
    """The largest gap between consecutive rollback points (ascending steps), None for one."""
    gaps = [b - a for a, b in zip(steps, steps[1:])]
    return max(gaps) if gaps else None


class CheckpointDetector(Detector):
    id = "checkpoints"
    title = "Checkpoints"
    label = "Checkpoints"
    short = "ckpt"
    order = 80
    urgency = 130
    from_log = False  # judged from the checkpoints on disk and the plan (and the saves the log says)
    reads_events = True  # the log's "checkpoint saved" lines (sources/checkpoint_lines.py)

    def __init__(self, settings, state) -> None:
        super().__init__(settings, state)
        self.unit = StepUnit(settings)  # a step of the log is an epoch: the advice says epochs

    def update(self, rec: StepRecord) -> list[Alert]:
        self.unit.see(rec.step, rec.epoch)
        return []  # judged from RunInfo and the run state at result() / finalize()

    def bulk(self, fr, cx, a: int, b: int) -> None:
        """Frames: no row needs ``update`` (no screen); only the step unit is committed."""
        ep = fr.get("epoch")
        self.unit.see_frame(fr.step[a:b], ep[a:b] if ep is not None else None)

    def on_resume(self, step: int) -> None:
        self.unit.on_resume()

    def event(self, ev: TextEvent, own: bool) -> list[Alert]:
        """A save the log says: at the step its line names, else its file's last record's."""
        if ev.kind != SAVE_KIND:
            return []
        d = ev.details or {}
        named = d.get("step")
        step = int(named) if named else (self.state.last_step if own else ev.before)
        if step is not None:
            self.state.saves.add(step, message(d.get("path", ""), 200))  # (a path from the log: untrusted text)
        return []

    def result(self) -> CheckResult:
        info = self.state.info
        cks = info.checkpoints
        last = self.state.last_step
        saves = self.state.saves
        if not info.checkpoint_dir_searched and not saves:
            return self._result(Status.SKIP, "no run directory to search for checkpoints")
        steps = [s for s, _ in cks]
        # one rule with pre-flight, against the plan when it is known (the steps logged
        # so far would flip the verdict after every save)
        total, save, first = info.total_steps, info.save_steps, self.state.first_step or 0
        span = total if total else max(last or 0, steps[-1] if steps else 0) - first
        # (the gap a rollback may lose: analysis/rules.py, the pre-flight rule; nothing to judge
        # before the first logged step)
        limit = checkpoint_gap_limit(span, self.settings) if span > 0 else None
        of = f"{total} planned" if total else f"{span} logged"
        why = (
            f"> {self.settings.ckpt_max_gap_frac:.0%} of the run ({of})"
            if limit and limit < self.settings.ckpt_max_gap_steps
            else f"> {self.settings.ckpt_max_gap_steps} steps"
        )
        if not cks and saves:
            return self._logged(saves, last, span, limit, why)
        if not cks:
            return self._none_yet(last, first, save, total, span, limit, why)
        interval = _interval(steps)
        desc = f"{len(cks)} checkpoint(s), newest {cks[-1][1]} (step {steps[-1]})"
        if interval:
            desc += f", every ~{interval} steps"
        return self._gap_verdict(desc, interval, steps[-1], last, span, limit, why)

    def _logged(self, saves, last, span, limit, why) -> CheckResult:
        """None on disk, but the log says where it saved: judged on those saves with the same
        gap rule (where they went is for the user to find: the path as the log names it)."""
        steps = saves.steps()
        newest = saves.newest()
        assert newest is not None
        interval = _interval(steps)
        where = f" {newest.path}" if newest.path else ""
        desc = (
            f"none in the run directory, but the log names {saves.count} save(s), newest{where} at step {newest.step}"
            + (f", every ~{interval} steps" if interval else "")
        )
        if len(steps) > 1 and newest.path and {p for _, p in saves.kept()} == {newest.path}:
            desc += " (all to one file: each save overwrites the last)"
        return self._gap_verdict(desc, interval, newest.step, last, span, limit, why)

    def _gap_verdict(self, desc, interval, newest, last, span, limit, why) -> CheckResult:
        """The gap rule on rollback points (on disk or named by the log): the largest interval
        between them, or the newest one's distance behind the run, too long -> WARN."""
        behind = (last - newest) if last is not None else 0
        if limit and (
            (interval and checkpoint_gap_too_long(interval, span, self.settings))
            or checkpoint_gap_too_long(behind, span, self.settings)
        ):
            return self._result(
                Status.WARN, f"{desc}; a rollback could lose {max(interval or 0, behind)} steps ({why})"
            )
        return self._result(Status.PASS, desc)

    def _none_yet(self, last, first, save, total, span, limit, why) -> CheckResult:
        """Nothing on disk yet: judged against the planned saves (the config's save_steps)
        or, without them, the gap the plan allows; before the first save is due, a run
        that has none is on plan (else the verdict would flip WARN -> PASS at its first save)."""
        ran = (last or first) - first
        strategy = (self.state.info.save_strategy or "").lower().rsplit(".", 1)[-1]
        if strategy == "no":  # HF save_strategy "no": no save is planned (its save_steps=500 plans none)
            return self._result(
                Status.WARN,
                'no checkpoints found, and the config plans none (save_strategy "no"): nothing to roll back to',
            )
        if save:
            if limit and checkpoint_gap_too_long(save, span, self.settings):
                return self._result(
                    Status.WARN,
                    f"no checkpoint yet; saves planned every {save} steps: a rollback could lose {save} steps ({why})",
                )
            due = (first // save + 1) * save  # the first save after the log's start
            if last is None or last < due + SAVE_GRACE * save:
                return self._result(
                    Status.PASS, f"no checkpoint yet: the first is planned at step {due} (every {save} steps)"
                )
            return self._result(
                Status.WARN,
                f"no checkpoints found in the run directory, though one was planned at "
                f"step {due} (every {save} steps): nothing to roll back to",
            )
        if total and limit and ran <= limit:
            return self._result(
                Status.PASS,
                f"no checkpoint yet, {ran} steps into the run (a rollback point is due "
                f"within {int(limit)} steps of {total} planned)",
            )
        return self._result(Status.WARN, "no checkpoints found in the run directory: nothing to roll back to")

    def finalize(self) -> list[Alert]:
        res = self.result()
        if res.status != Status.WARN:
            return []
        last = self.state.last_step or 0
        how = self._how(last)
        return [
            Alert(
                self.id,
                Severity.WARNING,
                last,
                f"Checkpoints: {res.summary}.",
                actions=[
                    f"{how}, so a spike can be rolled back to shortly before its onset (PaLM restarted "
                    "~100 steps before)."
                ],
                key="checkpoints",
            )
        ]

    def _how(self, last: int) -> str:
        """What to save, checked against the run: its step unit (epochs), its strategy, the
        interval its config already saves at."""
        info = self.state.info
        epochs = self.unit.epochs()
        if epochs is not None:
            n = checkpoint_every_epochs(epochs)
            return (
                f"Save a checkpoint every {n} epoch{'s' if n > 1 else ''} or more often (a step of this log "
                "is an epoch)"
            )
        # of the planned run when the plan is known (a live run at step 10 of 100k), else of the steps seen
        total = info.total_steps
        every = checkpoint_every(total or last)
        if (info.save_strategy or "").lower().rsplit(".", 1)[-1] in ("no", "epoch"):
            return f'Set save_strategy="steps" and save_steps={every} (or fewer)'
        save = info.save_steps
        span = total if total else last - (self.state.first_step or 0)
        if save and not (span > 0 and checkpoint_gap_too_long(save, span, self.settings)):
            where = f" (save_steps, from {info.origin['save_steps']})" if info.origin.get("save_steps") else ""
            if info.checkpoints:
                return (
                    f"The config already saves every {save} steps{where}: keep the newest checkpoints "
                    "(save_total_limit) and check that the saves did not stop"
                )
            return (
                f"The config already saves every {save} steps{where}, yet none is in the run directory: "
                "check where they are written (output_dir) and that they are not deleted "
                "(save_total_limit) or moved"
            )
        if save:
            return f"Save a checkpoint every {every} steps or more often (the config saves every {save})"
        logged = self.state.saves.steps() if not info.checkpoints else []
        if len(logged) > 1:
            gap = max(b - a for a, b in zip(logged, logged[1:]))
            return f"Save a checkpoint every {every} steps or more often (the log shows saves ~{gap} steps apart)"
        return f"Save a checkpoint every {every} steps or more often"
