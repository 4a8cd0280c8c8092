"""A Jupyter notebook whose saved outputs hold the training log (sources/notebook.py).

The first test runs a real notebook in a real IPython kernel (nbclient, ipykernel) and saves it
with nbformat, as Jupyter does: a NumPy regression trained with an LR that blows it up, its cell
stopped by an exception. The others write the shapes Jupyter saves that a CPU kernel here cannot produce
(fastai's HTML progress table, nbformat 3) and the broken notebooks a user can have."""

from __future__ import annotations

import json
import os

import pytest

from test_more_formats import check
from test_real_shapes import report, used

from tsm_tui.cli import main
from tsm_tui.sources.registry import open_reader

TRAIN_CELL = """\
import numpy as np
rng = np.random.default_rng(0)
x = rng.normal(size=(256, 8)); w_true = rng.normal(size=8); y = x @ w_true
w = np.zeros(8); lr = 0.05
for step in range(1, 301):
    if step == 200:
        lr = 2.5  # the fault: an LR far past the curvature's limit
    idx = rng.integers(0, 256, 32)
    err = x[idx] @ w - y[idx]
    loss = float(np.mean(err ** 2))
    grad = 2 * x[idx].T @ err / 32
    w -= lr * grad
    if step % 2 == 0:
        print(f"step {step} | loss {loss:.6g} | grad_norm {np.linalg.norm(grad):.6g} | lr {lr}")
    if step == 280:
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")  # (the cell's own crash)
"""


def _nb(cells: list[dict], nbformat: int = 4) -> dict:
    return {"cells": cells, "metadata": {}, "nbformat": nbformat, "nbformat_minor": 5}


def _code(outputs: list[dict], source: str = "train()") -> dict:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": outputs, "source": source}


def _write(tmp_path, doc: dict, name: str = "train.ipynb") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return str(p)


@pytest.mark.slow
def test_a_notebook_run_in_a_real_kernel_is_read_from_its_outputs(tmp_path, capsys):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("Notes: step 1 loss 0.5 (prose, not the log)"),
        nbformat.v4.new_code_cell(TRAIN_CELL),
        nbformat.v4.new_code_cell("print('done')"),
    ]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    path = tmp_path / "run" / "train.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, str(path))
    rep = report(path.parent, capsys)  # (a folder: the notebook is found by its content)
    f = used(rep)
    assert f["format"] == "notebook" and "2 code cell(s)" in f["notebook"]
    assert rep["steps"]["first"] == 2 and rep["steps"]["count"] >= 99  # (steps 2..198 at least; then it overflows)
    assert rep["sources"]["grad_norm"]["key"] == "grad_norm"
    bad = [
        a for a in rep["alerts"] if a["check"] in ("nan_inf", "loss_spike", "divergence") and a["severity"] != "info"
    ]
    assert bad and min(a["step"] for a in bad) >= 200  # the LR's blow-up, not before it
    assert check(rep, "crash")["status"] == "FAIL" and "out of memory" in check(rep, "crash")["summary"]


def test_fastai_html_progress_table_is_read_as_its_rows(tmp_path, capsys):
    rows = "".join(
        f"<tr><td>{e}</td><td>{1.2 * 0.8**e:.6f}</td><td>{1.3 * 0.85**e:.6f}</td><td>0.{80 + e}</td><td>00:12</td></tr>\n"
        for e in range(12)
    )
    table = (
        '<table border="1" class="dataframe">\n  <thead>\n    <tr style="text-align: left;">\n'
        "<th>epoch</th><th>train_loss</th><th>valid_loss</th><th>accuracy</th><th>time</th></tr>\n"
        f"  </thead>\n  <tbody>\n{rows}  </tbody>\n</table>"
    )
    out = {
        "output_type": "display_data",
        "data": {"text/html": table, "text/plain": "<IPython.core.display.HTML object>"},
        "metadata": {},
    }
    rep = report(_write(tmp_path, _nb([_code([out], "learn.fine_tune(12)")])), capsys)
    assert rep["steps"] == {"first": 0, "last": 11, "count": 12, "records": 12}
    assert rep["sources"]["loss"]["key"] == "train_loss" and rep["sources"]["val_loss"]["key"] == "valid_loss"


def test_nbformat_3_streams_and_a_keras_log_split_over_outputs(tmp_path, capsys):
    """nbformat 3 keeps cells under ``worksheets``; a stream saved in pieces that cut a line is one text."""
    text = "".join(
        f"Epoch {e}/30\n60000/60000 [====] - 3s - loss: {2.3 * 0.9**e:.4f} - acc: 0.9\n" for e in range(1, 31)
    )
    cut = text.index("loss: ", len(text) // 2) + 3
    outs = [
        {"output_type": "stream", "stream": "stdout", "text": text[:cut]},
        {"output_type": "stream", "stream": "stdout", "text": text[cut:]},
        {"output_type": "pyout", "prompt_number": 3, "text": ["<keras.callbacks.History at 0x7f>"]},
    ]
    cell = {"cell_type": "code", "input": "model.fit(x, y)", "language": "python", "outputs": outs}
    doc = {"worksheets": [{"cells": [cell]}], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}
    rep = report(_write(tmp_path, doc), capsys)
    assert rep["steps"]["count"] == 30 and used(rep)["skipped_lines"] == 0


def test_a_notebook_being_saved_is_a_counted_skip_not_a_traceback(tmp_path, capsys):
    good = json.dumps(_nb([_code([{"output_type": "stream", "name": "stdout", "text": "step 1 loss 2.0\n"}])]))
    p = tmp_path / "cut.ipynb"
    p.write_text(good[: len(good) // 2], encoding="utf-8")
    rc = main([str(p), "--report", "--json"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert "no training steps found" in err and "1 line(s) skipped" in err
    reader, info = open_reader(str(p))
    assert reader is not None and info.format == "notebook"
    assert reader.read_path(str(p)) == []  # type: ignore[attr-defined]  # (a SnapshotReader)
    assert reader.skip_reasons == {"notebook is not valid JSON (being saved? cut short?)": 1}


def test_code_and_markdown_are_never_read_and_a_notebook_without_a_log_says_so(tmp_path):
    doc = _nb(
        [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "\n".join(f"step {i} loss {1 / i}" for i in range(1, 50)),
            },
            _code([], "\n".join(f"# step {i} loss {1 / i}" for i in range(1, 50))),
            _code([{"output_type": "execute_result", "data": {"text/plain": "42"}, "metadata": {}}]),
        ]
    )
    p = _write(tmp_path, doc)
    reader, info = open_reader(p)
    assert reader is not None and info.format == "notebook"
    assert reader.read_path(p) == []  # type: ignore[attr-defined]  # (a SnapshotReader)
    assert "no training metrics" in reader.describe()["notebook"]


def test_a_traceback_s_colour_codes_are_removed(tmp_path, capsys):
    lines = "".join(f"epoch {e} train_loss {1.0 / e:.4f}\n" for e in range(1, 41))
    err = {
        "output_type": "error",
        "ename": "KeyboardInterrupt",
        "evalue": "",
        "traceback": ["\x1b[0;31m----\x1b[0m", "\x1b[0;31mKeyboardInterrupt\x1b[0m: "],
    }
    rep = report(
        _write(tmp_path, _nb([_code([{"output_type": "stream", "name": "stdout", "text": lines}, err])])), capsys
    )
    assert rep["steps"]["count"] == 40
    assert "\x1b" not in json.dumps(rep)


def test_a_folder_of_code_still_passes_over_its_python_files(tmp_path, capsys):
    """Only notebooks are let through the content fallback's 'code' rule, not every source file."""
    (tmp_path / "train.py").write_text("for step in range(10):\n    print(step)\n", encoding="utf-8")
    _write(
        tmp_path,
        _nb(
            [
                _code(
                    [
                        {
                            "output_type": "stream",
                            "name": "stdout",
                            "text": "".join(f"iter {i}: loss {3 - i / 100:.3f}\n" for i in range(100)),
                        }
                    ]
                )
            ]
        ),
    )
    rep = report(tmp_path, capsys)
    assert [os.path.basename(f["path"]) for f in rep["files"] if f["used"]] == ["train.ipynb"]


def test_a_later_cell_s_error_is_after_the_training_not_its_crash(tmp_path, capsys):
    """A cell that printed no record failing after the training's cell (saving the model, plotting): the
    training ran to its end (crash WARN, "after its last record"); an error inside the training's cell is
    its crash (FAIL)."""
    lines = "".join(f"epoch {e} train_loss {1.0 / e:.4f}\n" for e in range(1, 41))
    err = {
        "output_type": "error",
        "ename": "OSError",
        "evalue": "disk full",
        "traceback": [
            "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
            "\x1b[0;31mOSError\x1b[0m                                   Traceback (most recent call last)",
            "Cell \x1b[0;32mIn[2], line 1\x1b[0m\n\x1b[0;32m----> 1\x1b[0m save()",
            "\x1b[0;31mOSError\x1b[0m: disk full",
        ],
    }
    after = _nb([_code([{"output_type": "stream", "name": "stdout", "text": lines}]), _code([err], "save()")])
    rep = report(_write(tmp_path, after, "after.ipynb"), capsys)
    crash = check(rep, "crash")
    assert crash["status"] == "WARN" and "after its last record" in crash["summary"], crash
    inside = _nb([_code([{"output_type": "stream", "name": "stdout", "text": lines}, err])])
    rep = report(_write(tmp_path, inside, "inside.ipynb"), capsys)
    assert check(rep, "crash")["status"] == "FAIL"
