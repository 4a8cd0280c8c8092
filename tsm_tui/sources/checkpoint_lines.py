"""A log's line that says a checkpoint was saved: where, and at which step when it says so.

A run's checkpoints are looked for on disk (``locate.py``); a log copied away from its run
directory, or a run that writes them elsewhere (an object store, another file system), has
none there while its log says every save: fvcore's "Saving checkpoint to
output/model_0004999.pth", Megatron's "saving checkpoint at iteration 500 to ...", HF's
"Saving model checkpoint to out/checkpoint-500", flax's "Saving checkpoint at step: 1000",
a script's "Checkpoint saved to checkpoints/checkpoint_epoch_5.pt" or "saved
checkpoints/base.pt (epoch 0, step 256)". The Checkpoints check and the rollback advice
read them (``analysis/logged_saves.py``) when the disk has none.

What counts: a save verb and a checkpoint word (checkpoint, ckpt, model, weights, state)
within a few words of each other; the path the line names (a token with a ``/`` or a
checkpoint file's extension, else the word after "to"), if any ("Saving model..." names
none: a save all the same; a progress bar of a save, transformers v5's "Writing model
shards: 100%|...| 1/1", names none either, and is one save when it reaches 100%). Not a plan ("Checkpoints will be saved to ..."), not a load
("Loading checkpoint from ...", "resuming from ..."), not a failure ("failed to save").
The step is the one the line names (``at step: 1000``, ``iteration 500``,
``checkpoint-500``, ``ckpt_step0047850.pt``); else the reader's last record's.
"""

from __future__ import annotations

import re

#: the cheap test first (every line that gave no record passes here): a save verb's stem
_HINT = re.compile(r"(?i)\bsav(?:e|ed|ing)\b|\bwr(?:ote|iting)\b|\bstored\b")
_WORD = r"\b(?:checkpoints?|ckpts?|models?|weights|state(?:_dict)?|training\s++states?)\b"
_SAVE = re.compile(
    rf"(?i)\b(?:sav(?:e|ed|ing)|wrote|writing|stored)\b[^\n]{{0,40}}?{_WORD}"
    rf"|{_WORD}[^\n]{{0,30}}?\b(?:saved|written|stored)\b"
)
_NOT = re.compile(
    r"(?i)\b(?:will|would\s+be|to\s+be|prepar(?:e|es|ing)|about\s+to|going\s+to|fail(?:ed|ure|s)?|not|unable|skip(?:ped|ping)?|"
    r"load(?:ed|ing)?|resum(?:e|ed|ing)|restor(?:e|ed|ing))\b"
)
_PLAN = re.compile(r"(?i)\b(?:every|interval|frequency)\b")  # anywhere on the line: a plan, not a save
#: a path: a token with a slash, or a file name with a checkpoint's extension; else the word
#: after "to" / "at" / "in" (nanoGPT's "saving checkpoint to out-shakespeare-char"). (A file name's
#: dotted parts are taken one by one: a run of name characters taken whole, dots with it, left no
#: extension to match, and "saved checkpoint_epoch0213.pth + updated loss_history.csv/png" named the
#: plot: fresh43)
_PATH = re.compile(
    r"""(?<![\w"'])["']?((?:[A-Za-z]:)?[\w.~\-]*+[/\\][^\s"',;()]++|(?:[\w\-]++\.)++(?:pt|pth|ckpt|bin|safetensors|pdparams|h5|keras|npz|pkl|msgpack)\b)"""
)
_CKPT_FILE = r"(?:pt|pth|ckpt|bin|safetensors|pdparams|h5|keras|msgpack)"
_SAVED_FILE = re.compile(
    rf"(?i)\b(?:sav(?:e|ed|ing)|wrote|writing|stored)\b(?:\s++(?:to|at|in|into)\b)?[\s:]++[\"']?[^\s\"']*?\.{_CKPT_FILE}\b"
)


def _mask(m: re.Match) -> str:
    """A path as a word that names nothing, of its length (positions in the line stay the
    same): its directory names are no checkpoint word ("Saving config to
    /runs/checkpoints/config.yaml" saves no checkpoint)."""
    g = m.group()
    return "P" * len(g) if ("/" in g or "\\" in g) else g


_TO = re.compile(
    r"\b(?:to|into|at|in)\s++[\"']?(?!(?:iteration|iter|step|epoch|global)s?\b|\d++\b)([\w.\-]{2,}+)(?![\w.\-]*+\s*+[:=])"
)
#: a step the line (or the path) names
_STEP = re.compile(
    r"(?i)(?:\b(?:global[ _]step|step|iteration|iter)s?\b\s*+[:=#]?\s*+|checkpoint[-_]|ckpt[-_]|step_?|iter_?)0*+(\d{1,12})\b"
)

#: the VITS family's save (VITS, so-vits-svc, Bert-VITS2: ``utils.save_checkpoint`` logs "Saving model and
#: optimizer state at iteration {epoch} to ./logs/32k/G_{global_step}.pth"): its "iteration" is the epoch, the
#: file name's number the step (fresh25: saves read at "steps" up to 401 of a 20,000-step run)
_VITS_SAVE = re.compile(r"optimizer state at iteration \d++ to \S*?[GD]_(\d{1,12}+)\.pth\b")
#: a tqdm bar (transformers v5 draws one per save: "Writing model shards: 100%|#####| 1/1
#: [00:00<00:00, 485.23it/s]", at 0% and at 100%) and a count written n/N
_BAR = re.compile(r"(\d{1,3})%\|")
_COUNT = re.compile(r"\d++/\d++")

SAVE_KIND = "checkpoint_saved"  # the TextEvent kind of such a line (text_events.py)


def reports_a_save(line: str) -> bool:
    """The line is about a save, its numbers the save's (a line that gave a record): a save
    before any loss it names ("Checkpoint saved -> ckpt_best.pt (epoch 12, loss 2.07e+01)":
    the best loss at the save, not a step of training; fresh9's Hydra run printed one per new
    best, and they read as 66 training steps among 30). A record's line that saves after its
    metrics ("step 1000 loss 2.3 | saved ckpt-1000.pt") stays a record, and so do the records a
    save line without a loss of its own ends (a group of lines before it)."""
    if save_line(line) is None:
        return False
    low = line.lower()
    masked = _PATH.sub(_mask, line) if ("/" in line or "\\" in line) else line
    m = _SAVE.search(masked) or _SAVED_FILE.search(line)
    j = low.find("loss")
    # (a save line that names no loss gave no record itself: the records it came with are a
    # group's it ended, "Train Loss" / "Valid Loss" lines before "Saved Best Model to ...")
    return m is not None and 0 <= m.start() < j


def save_line(line: str) -> tuple[str, int | None] | None:
    """(path or "", step or None) of a line that says a checkpoint was saved, or None."""
    if not ("av" in line or "AV" in line or "rot" in line or "rit" in line or "tor" in line or "RIT" in line):
        return None  # (substring tests first: most lines that give no record are a bar or prose; ~0.1 us)
    if _HINT.search(line) is None:
        return None
    masked = _PATH.sub(_mask, line) if ("/" in line or "\\" in line) else line
    m = _SAVE.search(masked)
    if m is None:  # the verb, then (within two words) a checkpoint file: "saved checkpoints/base.pt"
        m = _SAVED_FILE.search(line)
    if m is None or _NOT.search(line, 0, m.end()) or _PLAN.search(line):
        return None
    bar = _BAR.search(line)
    if bar is not None:  # a progress bar of the save ("Writing model shards: 100%|...| 1/1"): one
        if bar.group(1) != "100":  # save when it completes; its n/N is no path
            return None
        path = ""
    else:
        p = _PATH.search(line, m.start()) or _TO.search(line, m.end())
        path = p.group(1).rstrip(".:") if p is not None else ""
        if _COUNT.fullmatch(path):
            path = ""  # "3/10": a count, not a path
    v = _VITS_SAVE.search(line) if "optimizer state at iteration" in line else None
    if v is not None:
        return path, int(v.group(1))
    s = _STEP.search(line, m.start())
    step = int(s.group(1)) if s is not None else None
    return path, step
