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


# -- a total loss named "total" ----------------------------------------------------------------
# a RetinaNet distillation loop (private: fresh2/kd_retinanet_keyvalue_total_flat), quoted
KD = [
    "2026-03-24 11:15:52,482 | INFO | epoch=0 step=0 lr=0.001 total=2.192192 det=1.932989 kd=0.518404 w_l2=201.642 w_max=4.595",
    "2026-03-24 11:15:52,861 | INFO | epoch=0 step=1 lr=0.001 total=2.234082 det=1.983843 kd=0.500477 w_l2=201.642 w_max=4.595",
    "2026-03-24 11:15:53,407 | INFO | epoch=0 step=2 lr=0.001 total=2.284371 det=2.043554 kd=0.481633 w_l2=201.642 w_max=4.595",
    "2026-03-24 11:15:53,782 | INFO | epoch=0 step=3 lr=0.001 total=2.177182 det=1.933845 kd=0.486675 w_l2=201.641 w_max=4.595",
]


def test_total_is_the_objective_when_no_loss_is_logged(tmp_path):
    _, recs, reader = read(write(tmp_path, "train.log", "\n".join(KD) + "\n"))
    assert [r.step for r in recs] == [0, 1, 2, 3]
    assert [r.loss for r in recs] == [2.192192, 2.234082, 2.284371, 2.177182]
    assert "total" not in recs[0].extra and recs[0].extra["det"] == 1.932989  # (the terms stay extras)
    assert reader.objective_note() == "total (the logged total)"


def test_total_beside_a_loss_is_not_the_loss(tmp_path):
    # a logged loss is the objective; a "total" beside it stays an extra number (no loss term)
    from tsm_tui.analysis.detectors.components import loss_terms

    text = "".join(f"step={s} loss={2 - s / 10} total={5 - s / 10} det=1.5\n" for s in range(5))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert recs[0].loss == 2.0 and recs[0].extra["total"] == 5.0
    assert loss_terms(recs[0].extra) == []
    # a step-less dict of parameter counts (private: fresh2/avpse_time_only_keyvalue_resume), quoted,
    # before the run's records: its "total" is no loss
    params = (
        "08:34:20  Parameters: {'band_split': '35,972', 'visual_conditioning': '426,368', "
        "'band_sequence_rnn': '4,360,704', 'mask_decoder': '7,910,428', 'total': '12,733,472'}\n"
    )
    _, recs, _ = read(write(tmp_path, "params.log", params + text))
    assert [r.step for r in recs] == [0, 1, 2, 3, 4] and recs[0].loss == 2.0
    # a name that only holds "total" is not one ("total_steps", "mem_total")
    text = "".join(f"step={s} lr=0.001 total_steps=100 mem_total={s + 1.5}\n" for s in range(5))
    try:
        _, recs, _ = read(write(tmp_path, "other.log", text))
    except AssertionError:
        recs = []
    assert all(r.loss is None for r in recs)
