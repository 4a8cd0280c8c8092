"""What a report could judge, and from what ("could not judge", said plainly).

Every report says which checks ran and which were skipped (with the check's own
reason), which metrics it read from which file and key (``sources``), which
metrics the log does not have, and, when no check that reads the log could run,
that nothing about the training was judged: a report with no FAIL is then not a
clean bill of health.

The metrics a run's files carry are noted while they are read (``note_metrics``,
called once per batch by the replay: O(1) per Frame, a few attribute reads per
plain record, nothing once every metric has been seen); the keys come from the
readers (``SourceReader.field_keys``). The list of checks comes from the detector
registry (``detectors.DETECTORS``) and the run's own results, so a new check is
covered without a word here.
"""

from __future__ import annotations

from tsm_tui.analysis.detectors import DETECTORS
from tsm_tui.core.frame import Frame
from tsm_tui.core.record import Status
from tsm_tui.sources.base import channel_file

#: the StepRecord fields the checks read, in report order (core/frame.py METRIC_FIELDS),
#: plus "samples": the generations the output-collapse check reads
METRICS = ("loss", "val_loss", "grad_norm", "lr", "loss_scale")
SAMPLES = "samples"
_ALL = METRICS + (SAMPLES,)
#: how the reports name a metric
LABEL = {
    "loss": "training loss",
    "val_loss": "validation loss",
    "grad_norm": "grad norm",
    "lr": "learning rate",
    "loss_scale": "fp16 loss scale",
    SAMPLES: "generations",
}


def note_metrics(items, seen: set[str]) -> None:
    """Add to ``seen`` the metrics the records and Frames of one batch carry."""
    missing = [m for m in _ALL if m not in seen]
    if not missing:
        return
    for it in items:
        if type(it) is Frame:
            for m in missing:
                if m in it.cols:
                    seen.add(m)
        else:
            for m in missing:
                if getattr(it, m, None) is not None:
                    seen.add(m)
        if len(seen) == len(_ALL):
            return
        missing = [m for m in missing if m not in seen]


def from_log_checks() -> dict[str, bool]:
    """check id -> whether its verdict comes from the log's series (the registry's word)."""
    return {d.id: d.from_log for d in DETECTORS}


def sources(an) -> dict:
    """metric -> {"file", "format", "key"} for each metric the checks read: the run's
    source file (``an.run.primary``) for the series, the file the generations came
    from for ``samples``. ``key`` is the log's own name for it (JSON key, CSV column,
    TensorBoard tag, console label), None for formats read by position; ``keys``
    lists every name when the log used several."""
    run = an.run
    out: dict[str, dict] = {}
    prim = run.primary
    seen = run.metrics.get(prim, set()) if prim else set()
    for m in METRICS:
        if m in seen:
            out[m] = _where(run, prim, m)
    if SAMPLES in seen:
        out[SAMPLES] = _where(run, prim, SAMPLES)
    else:  # generations from a file beside the log (samples.jsonl, generation text files)
        for p, got in run.metrics.items():
            cls = run.reader_types.get(p)
            if SAMPLES in got and cls is not None and getattr(cls, "auxiliary", False):
                out[SAMPLES] = _where(run, p, SAMPLES)
                break
    return out


def _where(run, source: str, metric: str) -> dict:
    file, channel = channel_file(source)
    name, fields = run.source_keys.get(source, (None, {}))
    fi = next((f for f in run.files if f.path == file), None)
    keys = fields.get(metric, [])
    d = {"file": file, "format": name if channel or fi is None else fi.format, "key": keys[0] if keys else None}
    if channel:
        d["channel"] = channel  # (a W&B run file's console: the printed metrics)
    if len(keys) > 1:
        d["keys"] = list(keys)
    return d


def coverage(an, checks=None) -> dict:
    """Which checks ran, which were skipped and why, which metrics the log lacks, and
    whether anything about the training was judged."""
    checks = checks if checks is not None else an.checks()
    log = from_log_checks()
    ran = [c.id for c in checks if c.status != Status.SKIP]
    skipped = [{"id": c.id, "title": c.title, "reason": c.summary} for c in checks if c.status == Status.SKIP]
    got = sources(an)
    unread = [m for m in _ALL if m not in got]
    nothing = not any(log.get(c.id, True) for c in checks if c.status != Status.SKIP)
    return {"ran": ran, "skipped": skipped, "unread": unread, "nothing_judged": nothing}


__all__ = ["METRICS", "SAMPLES", "LABEL", "note_metrics", "sources", "coverage", "from_log_checks"]
