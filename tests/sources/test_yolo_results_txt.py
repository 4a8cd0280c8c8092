"""YOLOv5 (2021) / YOLOv7 ``results.txt``: rows written with the writers' own format
strings (train.py: ``'%10s' * 2 + '%10.4g' * 6`` then ``'%10.4g' * 7``), and the
headerless numeric tables it must not claim."""

from __future__ import annotations

import math

import pytest

from tsm_tui.sources import reading, registry


def row(epoch, last, mem, mloss, targets, img, results):
    """One line as YOLOv5 v5.0 / YOLOv7 train.py writes it."""
    s = ("%10s" * 2 + "%10.4g" * 6) % ("%g/%g" % (epoch, last), mem, *mloss, targets, img)
    return s + "%10.4g" * 7 % results + "\n"


def run_rows(n, last, nan_at=None):
    out = []
    for e in range(n):
        box, obj, cls = 0.08 - 0.0002 * e, 0.085 - 0.0001 * e, 0.03 - 0.0001 * e
        if e == nan_at:
            box = math.nan
        mloss = (box, obj, cls, box + obj + cls)
        res = (0.4 + 0.001 * e, 0.2, 0.1 + 0.001 * e, 0.04, 0.05, 0.08, 0.015)
        out.append(row(e, last, "%.3gG" % 3.19, mloss, 500 + e, 640, res))
    return "".join(out)


def read(path):
    reader, fi = registry.open_reader(str(path))
    assert reader is not None, fi.note
    return fi, list(reading.read_records(str(path), reader)), reader


def test_rows_read_per_epoch_with_terms_and_validation(tmp_path):
    p = tmp_path / "runs" / "train" / "exp" / "results.txt"
    p.parent.mkdir(parents=True)
    p.write_text(run_rows(30, 199))
    fi, recs, reader = read(p)
    assert fi.format == "yolo-results-txt"
    assert [r.step for r in recs] == list(range(30))
    r = recs[3]
    assert r.loss == pytest.approx(0.0794 + 0.0847 + 0.0297, abs=1e-4)  # the logged total
    assert r.extra["train/box_loss"] == pytest.approx(0.0794)
    assert r.extra["metrics/mAP_0.5"] == pytest.approx(0.103)
    assert r.val_loss == pytest.approx(0.05 + 0.08 + 0.015)
    assert reader.run_info["total_steps"] == 200  # 0/199: 200 epochs planned
    assert "train/obj_loss" in reader.objective_note()


def test_a_nan_term_and_a_cut_last_line(tmp_path):
    p = tmp_path / "results.txt"
    text = run_rows(12, 49, nan_at=7)
    p.write_text(text + "    12/49     3.19G   0.07")  # a writer still at work
    fi, recs, reader = read(p)
    assert fi.format == "yolo-results-txt"
    assert len(recs) == 12
    assert math.isnan(recs[7].extra["train/box_loss"]) and math.isnan(recs[7].loss)
    assert reader.skip_reasons == {"not a results.txt row": 1}


def test_no_validation_gives_no_val_loss(tmp_path):
    p = tmp_path / "results.txt"
    p.write_text("".join(row(e, 9, "0G", (0.1, 0.1, 0.1, 0.3), 10, 320, (0,) * 7) for e in range(5)))
    _, recs, _ = read(p)
    assert len(recs) == 5 and all(r.val_loss is None for r in recs)


@pytest.mark.parametrize(
    "text",
    [
        # 15 numbers without the N/M epoch cell
        "".join(" ".join(str(i + j) for j in range(15)) + "\n" for i in range(10)),
        # N/M and 15 cells but no GPU memory cell
        "".join(f"{i}/9 " + " ".join("0.5" for _ in range(14)) + "\n" for i in range(10)),
        # a fraction column in a table of another width
        "".join(f"{i}/9 1.2G 0.1 0.2 0.3\n" for i in range(10)),
        # epoch past its last epoch
        "".join(row(e + 20, 9, "1G", (0.1,) * 4, 1, 1, (0.1,) * 7) for e in range(5)),
    ],
)
def test_other_headerless_tables_are_not_claimed(tmp_path, text):
    p = tmp_path / "results.txt"
    p.write_text(text)
    _, fi = registry.open_reader(str(p))
    assert fi.format != "yolo-results-txt"
