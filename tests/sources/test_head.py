"""A file's head for sniffing (``sources/head.py``): UTF-16 / UTF-32 text is text, not binary (a
PowerShell ``Tee-Object`` capture, held-out set fresh4), read whole with non-ASCII names, and a wide
encoding only taken on its evidence."""

from __future__ import annotations

import codecs
import os

import pytest
from helpers.paths import BENCH
from helpers.reports import report_or_err
from test_formats import read  # noqa: E402
from test_registry import TRACEBACK  # noqa: E402

from tsm_tui.sources import head, registry

FRESH4 = os.path.join(BENCH, "corpus", "fresh4")


# -- (fresh4 §4.A4) UTF-16 / UTF-32 text ----------------------------------------------------
@pytest.mark.parametrize(
    "enc,bom",
    [
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
        ("utf-16-le", b""),  # BOM-less: every other byte NUL under ASCII
    ],
)
def test_a_tiny_wide_text_file_is_text_not_binary(tmp_path, capsys, enc, bom):
    p = tmp_path / "training_output.txt"
    p.write_bytes(bom + TRACEBACK.replace("\n", "\r\n").encode(enc))
    h = head.sample_head(str(p), registry.BINARY)
    assert h.lines is not None and h.lines[0] == "step 1 starting" and h.hole == 0
    code, d = report_or_err(p, capsys)
    assert code == 1, d
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert c["status"] == "FAIL" and "No available kernel" in c["summary"]
    f = d["files"][0]
    assert "skip_reasons" not in f, f  # its NUL bytes are text, not a hole; its BOM no bad byte


def test_wide_records_read_whole_with_non_ascii_text(tmp_path):
    # UTF-16 LE with a BOM and CRLF, as PowerShell's Tee-Object writes it; a non-ASCII name on
    # every line (each byte pair of "é" / "损" is no ASCII): every record and value read
    text = "".join(f"step {s} | loss {3 - s / 100:.4f} | modèle 损失\r\n" for s in range(1, 41))
    p = tmp_path / "train.log"
    p.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    _, recs, reader = read(p)
    assert [r.step for r in recs] == list(range(1, 41))
    assert recs[-1].loss == pytest.approx(2.6)
    assert reader.skipped == 0 and not reader.skip_reasons


def test_wide_encoding_needs_its_evidence():
    assert head.wide_encoding(codecs.BOM_UTF8 + b"step 1 loss 2") is None
    assert head.wide_encoding(b"step 1 loss 2.0\n") is None
    assert head.wide_encoding("ok".encode("utf-16-le")) is None  # (4 bytes: too few to tell)
    assert head.wide_encoding(b"\x00" * 64) is None  # a hole, not text
    assert head.wide_encoding("步骤 1 损失 2.0".encode("utf-16-le")) is None  # only a BOM names non-ASCII
    assert head.wide_encoding("step 10 loss 2.0".encode("utf-16-le")) == "utf-16-le"


def test_the_real_powershell_capture_reports_its_crash(capsys):
    p = os.path.join(FRESH4, "paramgolf_utf16_powershell_crash", "training_output.txt")
    if not os.path.exists(p):
        pytest.skip("bench/corpus/fresh4 not present")
    code, d = report_or_err(p, capsys)
    assert code == 1
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert c["status"] == "FAIL" and "No available kernel" in c["summary"]
