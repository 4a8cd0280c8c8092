"""The minimum-records rule (``registry.not_a_log``): a ``.txt`` with fewer than five records
is notes, not a log, unless a record's loss is NaN / Inf: a run NaN from its first step
(OmniAvatar on Wan2.1, bench/corpus/fresh/omniavatar_wan_lightning_nan: five steps, every
loss NaN) is short and is the most urgent thing to report."""

from __future__ import annotations

import json

from tsm_tui.cli import main
from tsm_tui.sources import registry

# the chatter before the first step (a config echo, DeepSpeed INFO lines): longer than the
# head the sniff samples, so the NaN lines are found by the deeper search
PREAMBLE = "".join(
    f"[2025-06-13 10:22:{i % 60:02d},101] [INFO] [config.py:1000:print] zero_optimization stage {i}\n"
    for i in range(1200)
)


def nan_bar(n: int, total: int = 100) -> str:
    """A tqdm bar's final redraw with a NaN loss in its postfix (tqdm prints float('nan') as nan)."""
    return f"Epoch 0:   {n}%|          | {n}/{total} [00:{49 + n:02d}<1:22:02,  0.02it/s, v_num=45, loss=nan]\n"


def test_a_run_nan_from_its_first_step_is_read_whatever_its_length(tmp_path, capsys):
    p = tmp_path / "train_log.txt"
    p.write_text(PREAMBLE + "".join(nan_bar(n) for n in range(1, 6)))
    reader, fi = registry.open_reader(str(p))
    assert reader is not None and fi.note is None
    rc = main([str(tmp_path), "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert (d["steps"]["first"], d["steps"]["last"]) == (1, 5)
    nonfinite = [c for c in d["checks"] if c["id"] == "nonfinite"]
    assert nonfinite and nonfinite[0]["status"] == "FAIL"


def test_a_short_nan_run_with_no_preamble(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("step 1 loss: nan\nstep 2 loss: inf\n")
    reader, fi = registry.open_reader(str(p))
    assert reader is not None and fi.note is None


def test_a_text_file_with_three_numbers_is_still_not_a_log(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("lr 3e-4 was fine\nstep 100 loss 4.1 after warm-up\nbatch 32\n")
    rc = main([str(tmp_path), "--report"])
    assert rc == 2 and "too few records for a log" in capsys.readouterr().err


def test_notes_with_finite_losses_past_the_head_are_still_not_a_log(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("step 1 loss 4.1\n" + PREAMBLE + "step 2 loss 4.0\n")
    reader, fi = registry.open_reader(str(p))
    assert reader is None and fi.note == "too few records for a log (notes?)"
