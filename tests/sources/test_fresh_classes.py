"""Reader classes the fresh held-out set (``bench/corpus/fresh``, corpus4 §3.A) showed
missing: terminal colour codes before sniffing, a bare ``Epoch N`` as the step,
counters printed abbreviated (``step:10K``), a TensorBoard file whose graph record
precedes the scalars. Real lines (quoted from the logs; committed ones read whole)."""

from __future__ import annotations

import os
import struct

import pytest

from tsm_tui.sources.tensorboard import TensorBoardReader
from helpers.livefiles import _ld, tb_event
from helpers.paths import BENCH
from test_formats import read, write  # noqa: E402

FRESH = os.path.join(BENCH, "corpus", "fresh")

# -- terminal escape sequences -------------------------------------------------------------
# Keras 3 colours its bar whenever stdout is a terminal (a ``| tee`` capture keeps the codes)
BAR3 = (
    "\x1b[1m300/300\x1b[0m \x1b[32m" + "\u2501" * 20 + "\x1b[0m\x1b[37m\x1b[0m \x1b[1m0s\x1b[0m 228ms/step"
    " - AUC: 0.7660 - accuracy: 0.5163 - loss: {loss:.4f}"
)
# the file's shape: a callback's print glued to the bar before its last redraw (with the
# validation metrics) is drawn again on a line of its own
GLUED = "Epoch {e} completed in 80.51s\nMetrics:\nloss: 1.1386\n"


def test_keras3_bar_with_ansi_colours_is_sniffed_and_read(tmp_path):
    text = "".join(
        f"Epoch {e}/50\nEpoch {e}/50\n{BAR3.format(loss=9)}{GLUED.format(e=e)}"
        f"{BAR3.format(loss=2 - e / 10)} - val_loss: 1.2018\n"
        for e in range(1, 6)
    )
    fmt, recs, reader = read(write(tmp_path, "train.log", text))
    assert fmt == "keras-stdout"
    assert [r.step for r in recs] == [1, 2, 3, 4, 5]
    assert recs[0].loss == pytest.approx(1.9) and recs[-1].loss == pytest.approx(1.5)
    assert reader.run_info["total_steps"] == 50


def test_keras3_ansi_corpus_log_reads_every_epoch():
    path = os.path.join(FRESH, "keras3_stdout_ansi_two_trainings", "final_training_log.md")
    fmt, recs, _ = read(path)
    assert fmt == "keras-stdout"
    # two trainings of 50 epochs in one file (the second restarts at epoch 1)
    assert [r.step for r in recs] == list(range(1, 51)) * 2
    assert recs[0].loss == pytest.approx(1.5257) and recs[0].val_loss == pytest.approx(1.2018)


def test_escape_codes_never_reach_a_parser(tmp_path):
    # an OSC title and a CSI erase-line around a plain key=value line (loguru, tqdm)
    text = "".join(f"\x1b]0;train\x07\x1b[2Kstep {s} \x1b[31mloss\x1b[0m={3 - s / 10}\n" for s in range(1, 6))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [1, 2, 3, 4, 5] and recs[0].loss == pytest.approx(2.9)


# -- a bare "Epoch N" as the step ---------------------------------------------------------
def test_bare_epoch_then_separator_is_the_step(tmp_path):
    # a custom TF loop (private: corpus fresh/tf_vit_semcom_epoch_loss_250), quoted
    real = [
        "Epoch 1, Loss: 0.003351, Test Loss: 0.011142, Training time: 0.98m",
        "Epoch 2, Loss: 0.001168, Test Loss: 0.005837, Training time: 0.79m",
        "Epoch 3, Loss: 0.001126, Test Loss: 0.010673, Training time: 0.79m",
        "Epoch 4, Loss: 0.000875, Test Loss: 0.008987, Training time: 0.80m",
        "Epoch 5, Loss: 0.000779, Test Loss: 0.008172, Training time: 0.80m",
    ]
    _, recs, reader = read(write(tmp_path, "train_log.txt", "\n".join(real) + "\n"))
    assert [r.step for r in recs] == [1, 2, 3, 4, 5]
    assert recs[0].loss == 0.003351 and recs[0].val_loss == 0.011142
    assert "total_steps" not in reader.run_info  # no "/total" printed: no planned length invented
    for form in ("Epoch {e} | loss {v} | lr 0.001", "Epoch {e}: loss={v} lr=0.001", "Epoch {e}, loss: {v}, lr: 0.001"):
        text = "".join(form.format(e=e, v=2 - e / 10) + "\n" for e in range(1, 6))
        _, recs, _ = read(write(tmp_path, "sep.log", text))
        assert [r.step for r in recs] == [1, 2, 3, 4, 5], form
        assert recs[-1].loss == pytest.approx(1.5) and recs[0].lr == 0.001


def test_bare_epoch_with_a_batch_counter_is_not_the_global_step(tmp_path):
    # "Epoch N, batch b/M" lines: the step is the epoch's offset plus the batch (the counter
    # starts again each epoch), and the epoch's summary line is no record of its own
    lines = []
    for e in range(1, 4):
        lines += [f"Epoch {e}, batch {b}/300, loss: {3 - e / 10 - b / 1000:.3f}" for b in (100, 200, 300)]
        lines.append(f"Epoch {e}, Loss: {3 - e / 10:.3f}, Test Loss: 2.0")
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    assert [r.step for r in recs] == [100, 200, 300, 400, 500, 600, 700, 800, 900]
    assert recs[0].loss == pytest.approx(2.8)


def test_epoch_bar_is_not_a_bare_epoch(tmp_path):
    # Lightning's bar "Epoch 0: 100%|..." names no metric after the separator: its step is the bar's
    from tsm_tui.sources.generic_text import EPOCH_BARE

    assert EPOCH_BARE.search("Epoch 0: 100%|##########| 5/5 [00:01<00:00, loss=0.3]") is None
    assert EPOCH_BARE.search("Epoch 12, Loss: 0.1").group(1) == "12"


# -- counters printed abbreviated ---------------------------------------------------------
LEROBOT = (
    "INFO 2026-06-12 10:58:46 ot_train.py:357 step:{s} smpl:32K ep:101 epch:2.53 loss:{v:.3f} grdn:34.825 "
    "lr:1.0e-05 updt_s:0.502 data_s:0.010"
)


def _fmt_big(n: int) -> str:
    """LeRobot's ``format_big_number`` (precision 0): rounded to the nearest K, M, ..."""
    for suffix in ("", "K", "M", "B"):
        if abs(n) < 1000:
            return f"{n:.0f}{suffix}"
        n /= 1000  # type: ignore[assignment]
    return f"{n:.0f}T"


def test_abbreviated_step_is_placed_by_the_logs_interval(tmp_path):
    steps = list(range(200, 4001, 200))
    text = "".join(LEROBOT.format(s=_fmt_big(s), v=3 - s / 2000) + "\n" for s in steps)
    assert "step:1K " in text and text.count("step:2K ") == 5  # (1600..2400 all print 2K)
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == steps
    assert recs[-1].loss == pytest.approx(1.0) and recs[0].grad_norm == 34.825


def test_abbreviated_step_with_no_interval_known_is_the_printed_value(tmp_path):
    # a log that starts past 1K (a resume) has no step printed in full to learn the interval
    # from: the printed (rounded) value is all it says; a lower-case "m" is no suffix
    text = "".join(LEROBOT.format(s=s, v=2.0) + "\n" for s in ("10K", "10K", "11K", "12K", "12K"))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [10000, 10000, 11000, 12000, 12000]
    from tsm_tui.sources.generic_text import STEP_SUFFIX

    assert STEP_SUFFIX.match("m 3s", 0) is None and STEP_SUFFIX.match("K smpl", 0) is not None


def test_lerobot_corpus_log_reads_every_step():
    path = os.path.join(FRESH, "lerobot_act_train_log_50k", "train_log.txt")
    fmt, recs, _ = read(path)
    assert fmt == "text"
    # printed 400, 600, 800, then 1K 1K 1K 2K ... 50K: a record every 200 steps
    assert [r.step for r in recs] == list(range(400, 50001, 200))
    assert recs[0].loss == 2.215 and recs[0].grad_norm == 49.836


# -- a TensorBoard file whose graph record precedes the scalars ----------------------------
def _record(payload: bytes) -> bytes:
    from tsm_tui.sources.tensorboard import masked_crc

    head = struct.pack("<Q", len(payload))
    return head + struct.pack("<I", masked_crc(head)) + payload + struct.pack("<I", masked_crc(payload))


def _keras_train_file(path, graph_bytes: int = 117_000) -> None:
    """What Keras' TensorBoard callback writes to ``train/`` (write_graph=True, the
    default): the file version, the model graph (its Keras config, JSON text, ~117 KB for
    a MobileNetV3 head), then one ``epoch_*`` scalar per epoch."""
    layer = b'{"class_name": "Dense", "config": {"name": "dense", "units": 128, "activation": "relu"}}, '
    graph = (b'{"class_name": "Functional", "config": {"layers": [' + layer * (graph_bytes // len(layer)))[:graph_bytes]
    wall = b"\x09" + struct.pack("<d", 1.742e9)
    recs = [tb_event(0, file_version="brain.Event:2"), _record(wall + _ld(4, graph))]
    for e in range(30):
        recs += [tb_event(e, "epoch_loss", 1.2 - e / 40), tb_event(e, "epoch_learning_rate", 1e-3)]
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(recs))


def test_tensorboard_graph_record_before_the_scalars_is_skipped_and_counted(tmp_path):
    from tsm_tui.sources.tensorboard import NON_SCALAR

    p = tmp_path / "logs" / "train" / "events.out.tfevents.1742040363.host.17345.0.v2"
    _keras_train_file(p)
    fmt, recs, reader = read(p)  # (the head reads as text: the graph is JSON, the NUL bytes few)
    assert fmt == "tensorboard"
    assert [r.step for r in recs] == list(range(30)) and recs[0].loss == pytest.approx(1.2)
    assert reader.skip_reasons == {NON_SCALAR: 1}  # the graph; the file version is no skip
    # the per-record path (a file followed live, in small pieces) says the same
    r2 = TensorBoardReader(str(p))
    data = p.read_bytes()
    got = [x for i in range(0, len(data), 4096) for x in r2.feed_bytes(data[i : i + 4096])] + r2.flush()
    assert [r.step for r in got] == list(range(30)) and r2.skip_reasons == {NON_SCALAR: 1}


def test_tensorboard_record_over_the_size_bound_does_not_stop_the_file(tmp_path, monkeypatch):
    # a length over MAX_RECORD is taken for a corrupt header: resynced past (counted), and the
    # scalars after it are read (the bound lowered here: a 256 MiB record is no test file)
    from tsm_tui.sources import tensorboard

    monkeypatch.setattr(tensorboard, "MAX_RECORD", 50_000)
    p = tmp_path / "logs" / "train" / "events.out.tfevents.1.v2"
    _keras_train_file(p, graph_bytes=100_000)
    fmt, recs, reader = read(p)
    assert fmt == "tensorboard"
    assert [r.step for r in recs] == list(range(30))
    assert reader.skip_reasons == {"corrupt record header (CRC mismatch)": 1}


def test_keras_tensorboard_corpus_dir_reads_train_file():
    d = os.path.join(FRESH, "keras_tf2_tfevents_train_validation", "20250315-180603")
    (name,) = os.listdir(os.path.join(d, "train"))
    fmt, recs, reader = read(os.path.join(d, "train", name))
    assert fmt == "tensorboard" and len(reader.skip_reasons) == 1
    assert [r.step for r in recs] == list(range(50))
    assert recs[0].loss == pytest.approx(1.13855, abs=1e-5) and recs[0].lr == pytest.approx(1e-3)


def test_lightning_bar_nan_dot_zero_is_a_nan_loss():
    # Lightning's progress bar prints a NaN loss as train_loss_step=nan.0 (OmniAvatar in
    # 'fresh': 5 steps, NaN from step 1, read as no loss at all)
    import math

    from tsm_tui.analysis.replay import analyze
    from tsm_tui.sources.fields import to_float

    assert math.isnan(to_float("nan.0")) and to_float("inf.0") == math.inf
    an = analyze(os.path.join(FRESH, "omniavatar_wan_lightning_nan"))
    nan = next(c for c in an.checks() if c.id == "nonfinite")
    assert nan.status.value == "FAIL" and "first at step 1" in nan.summary
