"""Which runs of a directory share their data order: only those are compared step for
step. A loss spike at the same step in several runs points at the data at that step
only when the runs read the same data in the same order (one sweep: the same dataset,
the same batches, hence the same steps per epoch; configs that differ in swept knobs
such as the LR, the weight decay or the seed). An HF GPT-2 run and a Lightning
regression model that both spiked near step 250 share nothing.

The rule (ours): two runs are one sweep when they sit side by side (the same parent
directory: ``sweep/<run>/``, ``lightning_logs/version_N``, ``wandb/run-*``), were written by
the same framework / log format, and agree on every data-order fact both configs state:
the dataset, the batch size, the sequence length, the tokens per batch. A fact only one
of them states is no contradiction (a sweep's runs often log only their swept knobs).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tsm_tui.core.record import Alert
from tsm_tui.core.settings import RunInfo

#: steps apart that still count as "the same step" in two runs of a sweep (ours: one step of
#: slack for a log that counts from 0 against one that counts from 1)
SPIKE_NEAR = 1

#: the facts that fix the order in which a run reads its data (the LR, weight decay, warm-up,
#: model size and seed are what sweeps vary: they do not change which batch comes at a step)
DATA_ORDER = ("dataset", "batch_size", "seq_len", "batch_tokens")


@dataclass(frozen=True)
class DataOrder:
    parent: str
    format: str
    facts: tuple

    def shares_with(self, other: "DataOrder") -> bool:
        if self.parent != other.parent or self.format != other.format:
            return False
        return all(a is None or b is None or a == b for a, b in zip(self.facts, other.facts))


def data_order(info: RunInfo | None, fmt: str | None, root: str) -> DataOrder:
    """What decides a run's data order, as far as its files say."""
    parent = os.path.dirname(os.path.abspath(root).rstrip(os.sep))
    facts = tuple(getattr(info, k, None) if info is not None else None for k in DATA_ORDER)
    return DataOrder(parent, fmt or "?", facts)


def spike_onset(a: Alert) -> int | None:
    """The step of a loss spike that counts for the same-step rule (a ``loss_spike`` alert
    above info, at a known step), else None. The live loop and the runs report ask this."""
    if a.check == "loss_spike" and a.severity.value != "info" and a.step is not None:
        return a.step
    return None


def near_steps(step: int) -> range:
    """The steps that count as ``step`` in another run of the sweep (SPIKE_NEAR either side)."""
    return range(step - SPIKE_NEAR, step + SPIKE_NEAR + 1)


def same_step_spikes(onsets: dict[str, set[int]], orders: dict[str, DataOrder]) -> dict[str, dict[int, list[str]]]:
    """run -> {spike step -> the other runs of its sweep (``DataOrder.shares_with``) with a
    spike onset at that step, give or take SPIKE_NEAR}: the whole rule over finished runs
    (the live loop applies it one alert at a time, with ``spike_onset`` and ``near_steps``)."""
    out: dict[str, dict[int, list[str]]] = {}
    for name, steps in onsets.items():
        for s in steps:
            near = near_steps(s)
            others = sorted(
                n
                for n, o in onsets.items()
                if n != name and orders[n].shares_with(orders[name]) and any(x in near for x in o)
            )
            if others:
                out.setdefault(name, {})[s] = others
    return out


def also_text(names: list[str], cause: str | None) -> str:
    """`` Also in 2 other run(s) of the sweep at this step (a, b): ...``: the data at that
    step, unless the alert's own evidence says otherwise (an LR jump or an fp16 overflow at
    the same step in several runs is what they share: the schedule or the precision)."""
    shown = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
    head = f" Also in {len(names)} other run(s) of the sweep at this step ({shown})"
    if cause == "lr":
        return head + ": with the LR jump here, look at the schedule they share, then at the data at this step."
    if cause == "fp16":
        return head + ": with the fp16 overflow here, look at the precision settings they share."
    return head + ": the data at this step, not the optimizer."
