"""VITS-family trainers' log (VITS, so-vits-svc, Bert-VITS2, GPT-SoVITS, MB-iSTFT-VITS and their many forks):
their ``train.py`` logs, every ``log_interval`` steps,

    2023-02-18 17:41:42,594	32k	INFO	Train Epoch: 5 [0%]
    2023-02-18 17:41:42,595	32k	INFO	[2.0601, 2.7058, 6.0664, 18.2168, 1.0864, 200, 9.995000937421877e-05]

(``logger.info([x.item() for x in losses] + [global_step, lr])``), or, in later so-vits-svc,
``Losses: [2.47, 2.48, 5.38, 20.96, 1.02], step: 1000, lr: 9.97e-05``. No name on any loss: their order
is the trainer's, ``[loss_disc, loss_gen, loss_fm, loss_mel, (loss_dur,) loss_kl]``: the discriminator's
loss first, then the generator's adversarial, feature-matching, mel, (duration,) and KL terms. A GAN: the
objective is the sum of the generator's terms, the discriminator's loss is checked apart (the objective
rule, ``fields.key_roles``). A list is read only on the line after ``Train Epoch: N [...]`` (or as the
named ``Losses:`` form): a list elsewhere is no record. Its last two numbers are the global step and the LR.
"""

from __future__ import annotations

import re

from tsm_tui.core.numbers import int64
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.base import LineReader

_NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf|-inf"
EPOCH = re.compile(r"Train Epoch:\s*+(\d{1,9}+)\s*+\[")
#: the list after it: 4 to 8 losses, the step, the LR (``]`` ends the line)
LIST = re.compile(rf"\[\s*+((?:(?:{_NUM})\s*+,\s*+){{5,9}}(?:{_NUM}))\s*+\]\s*+$")
NAMED = re.compile(
    rf"Losses:\s*+\[\s*+((?:(?:{_NUM})\s*+,\s*+){{3,7}}(?:{_NUM}))\s*+\],\s*+step:\s*+(\d++),\s*+lr:\s*+({_NUM})"
)
#: the generator's terms by their count (the discriminator's loss before them); ``loss_g_adv``: the
#: adversarial term, not the generator's total (``fields._gan_side``)
TERMS = {
    3: ("loss_g_adv", "loss_fm", "loss_mel"),
    4: ("loss_g_adv", "loss_fm", "loss_mel", "loss_kl"),
    5: ("loss_g_adv", "loss_fm", "loss_mel", "loss_dur", "loss_kl"),
}
SNIFF_ROWS = 2  # Train Epoch lines each followed by its list (ours)


def _names(n: int) -> tuple[str, ...]:
    """Names of ``n`` losses: the discriminator's, then the generator's terms."""
    g = TERMS.get(n - 1) or tuple(f"loss_g_{i}" for i in range(1, n))
    return ("loss_disc", *g)


class VitsReader(LineReader):
    name = "vits"
    priority = 14  # (below the structured formats: a line shape, no names)

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        n, after = 0, False
        for ln in head:
            if NAMED.search(ln) is not None or (after and LIST.search(ln) is not None):
                n += 1
            after = EPOCH.search(ln) is not None
        return 0.8 if n >= SNIFF_ROWS else 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self._epoch: int | None = None  # the epoch of the "Train Epoch" line just before, else None

    def feed(self, line: str) -> list[StepRecord]:
        if "Train Epoch" in line:
            m = EPOCH.search(line)
            self._epoch = int(m.group(1)) if m is not None else None
            return []
        epoch, self._epoch = self._epoch, None
        if "Losses:" in line:
            m = NAMED.search(line)
            if m is None:
                return []
            losses, step, lr = [v.strip() for v in m.group(1).split(",")], m.group(2), m.group(3)
        elif epoch is not None and line.rstrip().endswith("]"):
            m = LIST.search(line)
            if m is None:
                return []
            *losses, step, lr = [v.strip() for v in m.group(1).split(",")]
        else:
            return []
        s = int64(float(step)) if step.replace(".", "", 1).isdigit() else None
        if s is None:
            self.skip("step out of range")
            return []
        items: list[tuple[str, object]] = list(zip(_names(len(losses)), losses))
        items.append(("lr", lr))
        if epoch is not None:
            items.append(("epoch", epoch))
        rec = self.build(items, step=s)
        return [rec] if rec is not None else []
