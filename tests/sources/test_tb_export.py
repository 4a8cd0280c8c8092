"""TensorBoard scalars exported to CSV (sources/tb_export.py): the web UI's one-tag files
(``Wall time,Step,Value``, the tag in ``run-<run>-tag-<tag>.csv``) and long-form tables
(``filename,tag,step,value``, one point a row, tag after tag). The long-form file is a real
export committed to the corpus (MIT: bench/corpus/fresh33/tensorboard_export_csv_vallex_tags_plateau);
the UI files are written here in the UI's exact shape (the corpus's are private)."""

from __future__ import annotations

import math
import os
import random

from tsm_tui.sources import registry
from tsm_tui.sources.tb_export import TbExportCsvReader

from helpers import paths
from test_real_shapes import report

VALLEX = os.path.join(paths.ROOT, "bench", "corpus", "fresh33", "tensorboard_export_csv_vallex_tags_plateau")


def ui_export(path, launches, seed=1) -> None:
    """The UI's "Download CSV": one scalar, in the order it was written (each launch's steps
    starting again), CRLF as the UI writes it."""
    rng = random.Random(seed)
    t = 1575618724.7
    rows = ["Wall time,Step,Value"]
    for first, last, every, start in launches:
        for step in range(first, last + 1, every):
            t += 3.1
            rows.append(f"{t!r},{step},{start * math.exp(-step / 4000) * math.exp(rng.gauss(0, 0.05))!r}")
    path.write_text("\r\n".join(rows) + "\r\n")


def test_the_ui_export_is_read_by_its_file_name(tmp_path, capsys):
    d = tmp_path / "run"
    d.mkdir()
    ui_export(d / "run-.-tag-train_loss.csv", [(10, 3000, 10, 3.0)])
    rep = report(d, capsys)
    f = next(f for f in rep["files"] if f["used"])
    assert f["format"] == "tensorboard-csv"
    assert rep["steps"]["count"] == 300
    assert rep["sources"]["loss"]["key"] == "train_loss"


def test_a_ui_export_of_a_non_metric_tag_is_not_a_training_log(tmp_path):
    p = tmp_path / "run-.-tag-accuracy.csv"
    ui_export(p, [(10, 300, 10, 3.0)])
    head = p.read_text().splitlines()[:20]
    assert TbExportCsvReader.sniff(str(p), head) == 0.0
    assert TbExportCsvReader.sniff(str(tmp_path / "run-x-tag-loss.csv"), head) > 0.5


def test_relaunches_in_a_ui_export_keep_their_order(tmp_path, capsys):
    """Steps that start again (a run resumed from an earlier checkpoint) stay in the order they
    ran, by wall time: read as resumes, never shuffled into one step-sorted series."""
    d = tmp_path / "run"
    d.mkdir()
    ui_export(d / "run-.-tag-loss.csv", [(40, 2400, 20, 3.0), (40, 9000, 20, 3.0)])
    rep = report(d, capsys)
    assert [(s["first"], s["last"]) for s in rep["launches"]] == [(40, 2400), (40, 9000)]
    assert rep["steps"]["count"] == 119 + 449  # (each launch's steps: a new run's count anew)
    ls = next(c for c in rep["checks"] if c["id"] == "loss_spike")
    assert ls["status"] != "FAIL", ls


def test_a_long_form_export_is_pivoted_and_its_total_is_the_objective(capsys):
    rep = report(VALLEX, capsys)
    f = next(f for f in rep["files"] if f["used"])
    assert f["format"] == "tensorboard-csv"
    assert rep["steps"]["count"] == 60  # (each tot_loss step written twice: the repeats counted, not records)
    assert f["skip_reasons"] == {"point written twice (the last kept)": 60}
    assert rep["sources"]["loss"]["key"] == "train/tot_loss"  # the total ("tot_loss", icefall's) beside current_loss
    pl = next(c for c in rep["checks"] if c["id"] == "plateau")
    assert pl["status"] in ("WARN", "FAIL")  # (labelled: flat at ~2.63 for the whole fine-tune)


def test_a_long_form_export_with_runs_reads_one_run(tmp_path, capsys):
    rows = ["run,tag,step,value,wall_time"]
    t = 1.7e9
    for run, scale in (("a", 2.0), ("b", 5.0)):
        for s in range(1, 201):
            t += 1.0
            rows.append(f"{run},train/loss,{s},{scale * math.exp(-s / 100)!r},{t!r}")
            rows.append(f"{run},lr,{s},{1e-4 * min(1, s / 20)!r},{t!r}")
    (tmp_path / "scalars.csv").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "scalars.csv", capsys)
    f = next(f for f in rep["files"] if f["used"])
    assert f["records"] == 200 and rep["steps"]["count"] == 200
    assert any("another run" in r for r in f.get("skip_reasons", {}))
    assert rep["sources"]["lr"]["key"] == "lr"


def test_the_reader_is_registered_above_the_generic_csv():
    assert TbExportCsvReader in registry.READERS
    assert registry.READERS.index(TbExportCsvReader) < registry.READERS.index(registry.CsvReader)
