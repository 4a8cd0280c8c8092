"""A Jupyter notebook (``.ipynb``) whose saved outputs hold a training log.

A model trained in a notebook leaves its log in the cells' outputs, not in a file of its own:
Keras' ``Epoch 1/50`` lines, a PyTorch loop's prints, a fastai progress table, tqdm bars, the
traceback that stopped it. The notebook is JSON rewritten whole on every save, so it is read as a
snapshot: the text of every code cell's outputs, in cell order, is cut into lines and read by the
text reader those lines call for (the registry's sniffer, set on ``NotebookReader.text_sniffer``,
as a W&B run file's console is), as if it had been the run's stdout. What is taken:

- ``stream`` outputs (stdout and stderr): their text;
- ``execute_result`` / ``display_data``: the ``text/plain`` form; when the only text is an HTML
  table (fastai's progress table, a DataFrame shown as HTML: ``text/plain`` is then
  ``<IPython.core.display.HTML object>``), its rows as lines of cells (``epoch train_loss ...`` /
  ``0 0.594 0.419 ...``, as fastai prints it on a console);
- ``error`` outputs: the traceback, its colour codes removed (the crash check reads it; a cell that
  printed no record failing after a cell that did is a failure after the training, not its crash);
- nbformat 3 (``worksheets`` / ``pyout``) as well as 4.

Markdown and source are never read (a cell's source that says ``loss = 0.5`` is code, not a log).
A notebook that does not parse (being saved, cut short) is a counted skip; so are lines longer
than ``MAX_LINE``. (fresh44's OpenNMT run kept in a notebook's output read "passed over as code".)
"""

from __future__ import annotations

import html
import json
import os
import re
from typing import Callable, ClassVar

from tsm_tui.core.frame import expand
from tsm_tui.core.record import StepRecord, TextEvent
from tsm_tui.core.sanitize import strip_ansi
from tsm_tui.sources.base import SnapshotReader, SourceReader
from tsm_tui.sources.text_events import AFTER_END

_MARKS = ('"nbformat"', '"cells"', '"worksheets"')
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr\s*>", re.S | re.I)
_CELL = re.compile(r"<t[hd]\b[^>]*>(.*?)</t[hd]\s*>", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
#: ``text/plain`` of a rich output that has no text of its own (the HTML is the output)
_OBJECT = re.compile(r"^<[\w.]+ object(?: at 0x[0-9a-f]+)?>$|^<IPython\.", re.I)
MAX_TABLE_CHARS = 4 << 20  # characters of one HTML output searched for table rows (ours: a bounded regex scan)


def _text(v: object) -> str:
    """An output's text: a string, or nbformat's list of strings (each keeping its newline)."""
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "".join(s for s in v if isinstance(s, str))
    return ""


def _table_lines(markup: str) -> list[str]:
    """The rows of the HTML tables in ``markup`` as lines of cells separated by two spaces."""
    out = []
    for row in _ROW.finditer(markup[:MAX_TABLE_CHARS]):
        cells = [html.unescape(_TAG.sub("", c)).strip() for c in _CELL.findall(row.group(1))]
        cells = [c.replace(" ", "_") if c and " " in c and not _looks_number(c) else c for c in cells]
        if any(cells):
            out.append("  ".join(c or "-" for c in cells))
    return out


def _looks_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def output_text(out: dict) -> str:
    """The text one output of a code cell contributes to the log."""
    kind = out.get("output_type")
    if kind == "stream":
        return _text(out.get("text"))
    if kind == "error":
        tb = out.get("traceback")
        if isinstance(tb, list):
            return strip_ansi("\n".join(s for s in tb if isinstance(s, str))) + "\n"
        return f"{out.get('ename', 'Error')}: {out.get('evalue', '')}\n"
    if kind in ("execute_result", "display_data", "pyout"):
        got = out.get("data")
        data: dict = got if isinstance(got, dict) else out  # (nbformat 3 keeps them flat)
        plain = _text(data.get("text/plain", data.get("text")))
        if plain and not _OBJECT.match(plain.strip()):
            return plain if plain.endswith("\n") else plain + "\n"
        markup = _text(data.get("text/html", data.get("html")))
        if "<tr" in markup or "<TR" in markup:
            rows = _table_lines(markup)
            return "\n".join(rows) + "\n" if rows else ""
    return ""


def notebook_cells(doc: object) -> list[dict]:
    """The code cells of a parsed notebook (nbformat 4's ``cells``, nbformat 3's ``worksheets``)."""
    if not isinstance(doc, dict):
        return []
    cells = doc.get("cells")
    if not isinstance(cells, list):
        cells = []
        for ws in doc.get("worksheets") or []:
            if isinstance(ws, dict) and isinstance(ws.get("cells"), list):
                cells += ws["cells"]
    return [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]


def _after_training(items: list) -> None:
    """A fatal line of a cell that printed no record, after a cell that did: the training's cell had
    finished, a later cell failed (saving the model, an evaluation): the crash check's "after its last
    record" (text_events.AFTER_END), never the training's crash (fresh52: an IOError saving the model
    after 1,000 epochs read "crashed at step 1000")."""
    for ev in items:
        if type(ev) is TextEvent and ev.level == "fatal":
            ev.details = {**(ev.details or {}), AFTER_END: "a later notebook cell (the training's cell had finished)"}


class NotebookReader(SnapshotReader):
    """A ``.ipynb`` read as the text its code cells printed (see the module's docstring)."""

    name = "notebook"
    priority = 30
    #: its records come from text whose lines were looked at for crash lines (the crash check judges it)
    reads_text = True
    #: ``(path, lines) -> a line reader's class or None``: which text reader the outputs call for;
    #: set by the registry (which imports this module), as ``WandbRunReader.console_sniffer``
    text_sniffer: ClassVar[Callable[[str, list[str]], type[SourceReader] | None] | None] = None

    @classmethod
    def sniff(cls, path: str, head: list[str]) -> float:
        if not path.lower().endswith(".ipynb"):
            return 0.0
        text = "\n".join(head[:40])
        return 0.99 if text.lstrip().startswith("{") and any(m in text for m in _MARKS) else 0.0

    def __init__(self, path: str = "") -> None:
        super().__init__(path)
        self.inner: SourceReader | None = None
        self.code_cells = 0
        self.output_lines = 0

    def read_all(self, data: bytes) -> list[StepRecord]:
        self.restart()
        self.inner = None
        try:
            doc = json.loads(data.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            self.skip("notebook is not valid JSON (being saved? cut short?)")
            return []
        cells = notebook_cells(doc)
        self.code_cells = len(cells)
        texts: list[str] = []  # each code cell's outputs as one text of whole lines
        for cell in cells:
            outs = cell.get("outputs")
            # a cell's outputs are one text (a stream is saved in pieces that need not end a line)
            text = "".join(output_text(o) for o in (outs if isinstance(outs, list) else ()) if isinstance(o, dict))
            if text:
                texts.append(text if text.endswith("\n") else text + "\n")
        self.output_lines = sum(t.count("\n") for t in texts)
        sniffer = type(self).text_sniffer
        if sniffer is None or not texts:
            return []
        cls = sniffer(self.path[: -len(".ipynb")] + ".log", [ln for t in texts for ln in t.split("\n")[:-1]])
        if cls is None:
            return []  # (describe says so: no training metrics in its outputs)
        inner = self.inner = cls(self.path)
        out: list = []
        trained = False  # a cell before this one gave records
        for t in texts:
            # a cell's lines as a file's chunk: the reader's columnar path where it has one, launch banners
            # marked, over-long lines counted (sources/lines.py), as a replay reads a file
            # (a snapshot's records one by one: the tailer keeps the steps it has delivered, core.frame.expand)
            got = list(expand(inner.feed_chunk(t.encode("utf-8", "replace"))))
            mine = any(type(r) is not TextEvent for r in got)
            if trained and not mine:
                _after_training(got)
            trained = trained or mine
            out += got
        out += inner.flush()
        self._take(inner)
        return out

    def _take(self, inner: SourceReader) -> None:
        """What the text reader learnt is this reader's (the report asks this reader)."""
        self.records = inner.records
        self.skipped = inner.skipped
        self.skip_reasons = dict(inner.skip_reasons)
        self.run_info.update(inner.run_info)
        self._fields = inner._fields
        self.objective = inner.objective
        self.inferred_steps = inner.inferred_steps

    def flush(self) -> list[StepRecord]:
        return []

    def objective_note(self, checked: set[str] | None = None) -> str | None:
        return self.inner.objective_note(checked) if self.inner is not None else None

    def describe(self) -> dict:
        d = dict(self.inner.describe()) if self.inner is not None else {}
        d["notebook"] = (
            f"{os.path.basename(self.path)}: the outputs of {self.code_cells} code cell(s), {self.output_lines} line(s)"
            + (f", read as {self.inner.name}" if self.inner is not None else ": no training metrics in them")
        )
        return d
