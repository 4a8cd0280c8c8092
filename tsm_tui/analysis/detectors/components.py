"""The terms of a training objective, checked one by one (issue 26).

A detection run logs ``loss_cls`` and ``loss_box_reg`` beside their total; a YOLO
run logs ``train/box_loss`` + ``train/cls_loss`` + ``train/dfl_loss`` and no total
(the reader sums them: ``sources/fields.objective``); an RLHF run logs the actor's
loss and the critic's. A spike in one term can vanish in the sum (a 3x jump of a
term that is a third of the total is a 1.7x bump of it), and a critic that blows
up leaves the actor's loss alone. So each loss term in a record's extra numbers
(``fields.loss_role``) gets the loss-spike rule of its own: one loss-spike
detector per term, fed the term as its loss, its alerts said as the term's
("Loss component train/cls_loss: Loss spike at ..."), at most warnings (the
objective's own series decides a FAIL; ours). NaN/Inf in any term is the
``nonfinite`` check's (``nonfinite_terms``).
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from tsm_tui.core.frame import Frame
from tsm_tui.core.record import Alert, Severity, Status, StepRecord
from tsm_tui.sources.fields import gan_key, key_roles

if TYPE_CHECKING:
    from tsm_tui.analysis.detectors.base import Detector

MAX_TERMS = 16  # terms checked per run (a log with hundreds of *_loss keys: the first 16; ours)
PREFIX = "Loss component "
_CONTEXT = ("lr", "grad_norm", "loss_scale")  # what the spike rule reads besides the loss (its cause)


class _Roles:
    """The loss terms of a record's key set (``fields.key_roles``: per key, a GAN's
    generator and discriminator keys recognised on the record), remembered (a log has
    a few key sets, read many times)."""

    def __init__(self) -> None:
        self._sets: dict[tuple, dict[str, str]] = {}

    def roles(self, keys) -> dict[str, str]:
        """The loss terms of the key set and their roles, in key order (a total is the loss)."""
        ks = tuple(keys)
        out = self._sets.get(ks)
        if out is None:
            if len(self._sets) >= 4096:
                self._sets.clear()
            roles = key_roles(ks)
            out = self._sets[ks] = {k: roles[k] for k in ks if roles.get(k, "total") != "total"}
        return out

    def terms(self, keys) -> list[str]:
        return list(self.roles(keys))


_ROLES = _Roles()


def loss_terms(keys) -> list[str]:
    """The keys among ``keys`` that are loss terms (the objective's components, an
    actor's or a critic's loss ...)."""
    return _ROLES.terms(keys)


def nonfinite_terms(extra: dict | None) -> list[tuple[str, float]]:
    """(key, value) of the loss terms of a record's extra numbers that are NaN / Inf."""
    if not extra:
        return []
    bad = [k for k, v in extra.items() if not math.isfinite(v)]
    if not bad:
        return []
    return [(k, extra[k]) for k in loss_terms(extra) if k in bad]  # (the record's keys: a GAN's are told on all)


#: the roles of a term of the objective (fields.key_roles): a NaN there beside a finite loss never
#: reached the loss (a per-class loss of a class the batch lacks: 0 / 0); another model's loss (a
#: critic's, a discriminator's) or an actor's is a model of the run gone NaN
OBJECTIVE_TERMS = ("term", "gen_term")


def only_objective_terms(extra: dict, keys: list[str]) -> bool:
    """``keys`` (loss terms of ``extra``) are all terms of the objective (OBJECTIVE_TERMS)."""
    roles = _ROLES.roles(extra)
    return all(roles.get(k) in OBJECTIVE_TERMS for k in keys)


#: a model output a trainer logs beside its loss (TRL DPO / PPO / GRPO: log-probs, logits,
#: rewards, KL, entropy): NaN there is the forward pass gone non-finite even when the logged
#: loss is not (a DPO run whose loss read 2.45e9, then 0.0, with every logp NaN); not the
#: evaluation's (eval/, val/, test/ prefixes) (ours)
_OUTPUT = re.compile(r"(?:^|[/_.])(?:logps?|log_?probs?|logits|rewards?|kl|approx_kl|entropy)(?:$|[/_.])")
_NOT_TRAIN = re.compile(r"^(?:eval|val|valid|validation|test)[/_.]")


def _training_keys(keys, rx: re.Pattern) -> list[str]:
    """The keys (lower-cased) ``rx`` finds, not the evaluation's (``_NOT_TRAIN``)."""
    out = []
    for k in keys:
        n = k.lower()
        if rx.search(n) and not _NOT_TRAIN.match(n):
            out.append(k)
    return out


def _nonfinite(extra: dict | None, select) -> list[tuple[str, float]]:
    """(key, value) of a record's extra numbers that are NaN / Inf, among the keys ``select`` keeps."""
    if not extra:
        return []
    bad = [k for k, v in extra.items() if not math.isfinite(v)]
    return [(k, extra[k]) for k in select(bad)] if bad else []


def output_keys(keys) -> list[str]:
    """The keys of a record's extra numbers that name a model output (``_OUTPUT``)."""
    return _training_keys(keys, _OUTPUT)


def nonfinite_outputs(extra: dict | None) -> list[tuple[str, float]]:
    """(key, value) of the model outputs of a record's extra numbers that are NaN / Inf."""
    return _nonfinite(extra, output_keys)


#: a gradient statistic a trainer logs beside (or instead of) the total norm: a layer's norm, the
#: largest, a list of them (I-JEPA's ``grad_stats``, ``grad_norm/layer.3``, ``gradients/max``); NaN /
#: Inf there makes the total grad norm NaN / Inf (ours)
_GRAD = re.compile(r"(?:^|[/_.])grad(?:ient)?s?(?:$|[/_.])")


def grad_keys(keys) -> list[str]:
    """The keys of a record's extra numbers that name a gradient statistic (``_GRAD``), not the evaluation's."""
    return _training_keys(keys, _GRAD)


def nonfinite_grads(extra: dict | None) -> list[tuple[str, float]]:
    """(key, value) of the gradient statistics of a record's extra numbers that are NaN / Inf."""
    return _nonfinite(extra, grad_keys)


class Components:
    """One spike detector per loss term, owned by the loss-spike check."""

    def __init__(self, cls, settings, state) -> None:
        self._cls, self._s, self._state = cls, settings, state  # a term's detector: cls(settings, state, part=True)
        self.parts: dict[str, Detector] = {}  # term -> its detector, in the order first seen
        self._keys: dict[str, tuple[str, str | None]] = {}  # our alert key -> (term, the part's key)

    def _part(self, k: str) -> Detector | None:
        d = self.parts.get(k)
        if d is None and len(self.parts) < MAX_TERMS:
            d = self.parts[k] = self._cls(self._s, self._state, part=True)
            if gan_key(k):  # a GAN's term bursts as its two models play: judged as a GAN's objective is
                d.see_keys((k,))
        return d

    def _said(self, k: str, alerts: list[Alert]) -> list[Alert]:
        out = []
        for a in alerts:
            key = f"component:{k}:{a.key or a.check}"
            self._keys[key] = (k, a.key)
            out.append(
                replace(
                    a,
                    severity=Severity.WARNING if a.severity == Severity.CRITICAL else a.severity,
                    message=f"{PREFIX}{k}: {a.message}",
                    key=key,
                )
            )
        return out

    def update(self, rec: StepRecord) -> list[Alert]:
        out: list[Alert] = []
        for k in loss_terms(rec.extra):
            d = self._part(k)
            if d is None:
                continue
            assert rec.extra is not None  # (its loss terms)
            found = d.update(
                StepRecord(
                    rec.step,
                    loss=rec.extra[k],
                    lr=rec.lr,
                    grad_norm=rec.grad_norm,
                    loss_scale=rec.loss_scale,
                    source=rec.source,
                )
            )
            if found:
                out += self._said(k, found)
        return out

    def update_frame(self, fr: Frame) -> list[Alert]:
        out: list[Alert] = []
        for k in loss_terms(fr.extra):
            d = self._part(k)
            if d is None:
                continue
            assert fr.extra is not None and fr._state is not None  # (its loss terms; a frame being driven)
            cols = {"loss": fr.extra[k]}
            for f in _CONTEXT:
                c = fr.get(f)
                if c is not None:
                    cols[f] = c
            sub = Frame(fr.step, cols, None, fr.source)
            st = copy.copy(fr._state)  # the same RunState per row, its own records
            st.recs, st.fr = {}, sub
            sub._state = st
            try:
                found = d.update_frame(sub)
            finally:
                sub._state = None
            if found:
                out += self._said(k, found)
        return out

    def on_resume(self, step: int) -> None:
        for d in self.parts.values():
            d.on_resume(step)

    def finalize(self) -> list[Alert]:
        out: list[Alert] = []
        for k, d in self.parts.items():
            out += self._said(k, d.finalize())
        return out

    def view(self, a: Alert) -> Alert:
        got = self._keys.get(a.key or "")
        if got is None:
            return a
        k, key = got
        v = self.parts[k].view(replace(a, key=key))
        return a if v.actions == a.actions else replace(a, actions=v.actions)

    def revised(self) -> list[str]:
        out = []
        for k, d in self.parts.items():
            for key in d.revised():
                out.append(f"component:{k}:{key}")
        return out

    def findings(self) -> str:
        """The terms whose own check warned or failed, for the loss-spike summary."""
        said = []
        for k, d in self.parts.items():
            r = d.result()
            if r.status in (Status.WARN, Status.FAIL):
                said.append(f"{k}: {r.summary}")
        return "; ".join(said)
