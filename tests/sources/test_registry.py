"""Which reader a file gets (``sources/registry.py``): a text log with a comma legend is text, not
CSV; a job's console with a crash and no metric is read for its crash lines whatever its
extension, and documents named ``.txt`` are no consoles (held-out sets fresh2, fresh4)."""

from __future__ import annotations


import pytest
from helpers.reports import report_or_err
from test_formats import read, write  # noqa: E402


# -- a file the CSV reader takes and reads nothing from ----------------------------------------
def test_text_log_with_a_comma_legend_is_read_as_text(tmp_path):
    # a legend line that reads as a CSV header, then text records with as many commas: no CSV row
    text = "step, loss, lr\n" + "".join(f"step {s}, loss {2 - s / 100}, lr 0.001\n" for s in range(1, 30))
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    assert fmt == "text" and [r.step for r in recs] == list(range(1, 30))
    # a real CSV stays CSV; so does one whose rows have not come yet
    fmt, recs, _ = read(write(tmp_path, "metrics.csv", "step,loss\n" + "".join(f"{s},{1 / s}\n" for s in range(1, 9))))
    assert fmt.endswith("csv") and len(recs) == 8
    from tsm_tui.sources import registry

    reader, fi = registry.open_reader(str(write(tmp_path, "live.csv", "step,loss,lr\n1,2.0,0.1\n")))
    assert fi.format.endswith("csv")


# -- (fresh4 §4.A4) a .txt console read for its crash ------------------------------------
TRACEBACK = (
    "step 1 starting\n"
    "Traceback (most recent call last):\n"
    '  File "train_gpt.py", line 1, in <module>\n'
    "RuntimeError: No available kernel. Aborting execution.\n"
)


@pytest.mark.parametrize("name", ["training_output.txt", "train.log", "cout.txt", "console-rank0.txt"])
def test_a_console_with_a_crash_and_no_metric_is_read_for_it_whatever_its_extension(tmp_path, capsys, name):
    code, d = report_or_err(write(tmp_path, name, TRACEBACK), capsys)
    assert code == 1, d
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert (
        c["status"] == "FAIL"
        and "before its first logged step" in c["summary"]
        and "No available kernel" in c["summary"]
    )


def test_a_txt_with_nothing_says_it_was_read_for_crash_lines(tmp_path, capsys):
    code, err = report_or_err(write(tmp_path, "output.txt", "loading data\nbuilding model\n"), capsys)
    assert code == 2 and "read for crash lines only" in err


@pytest.mark.parametrize("name", ["requirements.txt", "README.txt", "notes.txt", "vocab.txt", "LICENSE.txt"])
def test_documents_named_txt_are_not_consoles(tmp_path, capsys, name):
    # a quoted traceback in notes or a requirements list is no crash of a run
    code, err = report_or_err(write(tmp_path, name, TRACEBACK), capsys)
    assert code == 2 and "crash lines" not in err
