"""Reader classes the second held-out set (``bench/corpus/fresh2``, notes/fresh2.md §4.A)
showed missing: a ``key: a/b`` field refusing its line, a total loss named ``total``,
MindSpore's ``loss is x``, the I-JEPA ``[epoch, i/N]`` counter and a text log taken for
CSV, PaddleClas' ``[Epoch e/E][Iter: i/N]``. Real lines, quoted from the logs (the
committed ones read whole), and lines that must not be read."""

from __future__ import annotations

import pytest

from test_formats import read, write  # noqa: E402


# -- a "key: a/b" field ------------------------------------------------------------------------
# a custom LM trainer (private: fresh2/custom_lm_ep_batch_13_records), quoted: the tokens of the
# batch out of its capacity
CUSTOM_LM = [
    "ep: 0, batch: 20, time: 9.17, ntokens: 485.20/513, loss: 10.984375",
    "ep: 0, batch: 40, time: 8.38, ntokens: 431.70/513, loss: 10.976562",
    "ep: 0, batch: 60, time: 8.35, ntokens: 428.90/513, loss: 10.984375",
    "ep: 0, batch: 80, time: 8.46, ntokens: 513.00/513, loss: 10.914062",
    "ep: 0, batch: 100, time: 8.55, ntokens: 438.20/513, loss: 10.312500",
]


def test_ratio_field_does_not_refuse_its_line(tmp_path):
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(CUSTOM_LM) + "\n"))
    assert [r.step for r in recs] == [20, 40, 60, 80, 100]
    assert recs[0].loss == 10.984375 and recs[0].epoch == 0
    assert recs[0].extra["ntokens"] == pytest.approx(485.2)  # the value, not its capacity


def test_ep_batch_counter_starts_again_each_epoch(tmp_path):
    # the same trainer's lines over two epochs of 100 batches: the batch counter restarts
    text = "".join(
        f"ep: {e}, batch: {b}, time: 8.50, ntokens: 450.00/513, loss: {9 - e - b / 1000}\n"
        for e in range(2)
        for b in (20, 40, 60, 80, 100)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    steps = [r.step for r in recs]
    assert steps == sorted(steps) and len(set(steps)) == 10
    assert steps[:5] == [20, 40, 60, 80, 100] and steps[5] > 100


def test_ratio_is_no_separator_elsewhere(tmp_path):
    # a step-less line whose "/" is prose, not a named number's capacity: not a record
    text = "".join(f"loss: {1 - i / 10}, see /tmp/run{i}/ckpt\n" for i in range(6))
    reader_fmt = None
    try:
        reader_fmt, recs, _ = read(write(tmp_path, "train.log", text))
    except AssertionError:
        recs = []  # nothing readable: open_reader refuses the file
    assert recs == [], reader_fmt


def test_ep_alone_is_no_epoch(tmp_path):
    # "ep" without a step counter after it (an RL episode): not an epoch and a counter
    text = "".join(f"ep: {e}, reward: {e / 2}, loss: {1 / (e + 1)}, step: {e * 10}\n" for e in range(6))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 10, 20, 30, 40, 50]
    assert all(r.epoch is None for r in recs)
