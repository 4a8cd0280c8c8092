"""Keras ``model.fit`` console output (``sources/keras_stdout.py``) with the terminal's colour codes
kept (a ``| tee`` capture of Keras 3's bar, held-out set fresh): sniffed and read, the
corpus log's two trainings read whole."""

from __future__ import annotations

import os

import pytest
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


def test_validation_metrics_drawn_after_a_print_broke_the_bar(tmp_path):
    """fresh20's Mask R-CNN nohup.out (private): Keras 2 draws the finished bar ("145/145 ... -
    ETA: 0s - loss: ...") before validation runs; a data generator's print ended that line, and the
    bar drawn again after validation, with its val_* metrics, came on the next. Only the first was
    read: 23 epochs of val_loss were "not in the log"."""
    bs = "\x08" * 40
    out = []
    for e in range(1, 4):
        loss, val = 0.2 - e / 100, 0.3 - e / 200
        out.append(f"Epoch {e}/3")
        out.append(
            f"{bs}144/145 [============================>.] - ETA: 1s - batch: 71.5000 - loss: {loss:.4f}"
            f"{bs}145/145 [==============================] - ETA: 0s - batch: 72.0000 - loss: {loss:.4f}"
        )
        out.append("current root: /data/train")
        out.append(
            f"{bs}145/145 [==============================] - 309s 2s/step - batch: 72.0000 - loss: {loss:.4f} - "
            f"mrcnn_mask_loss: 0.0537 - val_loss: {val:.4f} - val_mrcnn_mask_loss: 0.0702"
        )
    name, recs, _ = read(write(tmp_path, "nohup.out", "\n".join(out) + "\n"))
    assert name == "keras-stdout"
    assert [(r.step, r.loss) for r in recs if r.loss is not None] == [(1, 0.19), (2, 0.18), (3, 0.17)]
    assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [(1, 0.295), (2, 0.29), (3, 0.285)]


def test_the_lr_a_callback_prints_after_the_validation_is_read(tmp_path):
    """fresh26's PBS job outputs (Keras 3 under TF, ReduceLROnPlateau): the epoch's bar drawn complete,
    then drawn again after validation with "- val_loss: ... - lr: 1.0000e-04"; only the val_* metrics
    of that second line were kept: "LR not logged" beside an LR cut from 1e-4 to 5e-5."""
    bs = "\x08" * 40
    out = []
    for e in range(1, 5):
        lr = 1e-4 if e < 3 else 5e-5
        out.append(f"Epoch {e}/4")
        out.append(
            f"{bs}297/297 [==============================] - ETA: 0s - loss: {0.2 - e / 100:.4f} - accuracy: 0.9"
        )
        out.append(
            f"{bs}297/297 [==============================] - 126s 129ms/step - loss: {0.2 - e / 100:.4f}"
            f" - accuracy: 0.9 - val_loss: 0.0564 - val_accuracy: 0.9486 - lr: {lr:.4e}"
        )
    _, recs, _ = read(write(tmp_path, "job.o250130", "\n".join(out) + "\n"))
    assert [(r.step, r.lr) for r in recs if r.lr is not None] == [(1, 1e-4), (2, 1e-4), (3, 5e-5), (4, 5e-5)]
    assert len([r for r in recs if r.val_loss is not None]) == 4


# -- fit(verbose=2): one line an epoch, no bar ------------------------------------------------
@pytest.mark.parametrize(
    "line",
    [
        # TF 2.x (fresh52's Colab notebook): the count, the epoch's time, the metrics, then the timings
        "51/51 - 30s - loss: {loss:.4f} - auc: 0.5451 - val_loss: 0.3100 - val_auc: 0.5730 - 30s/epoch - 588ms/step",
        # Keras 2: no count
        " - 5s - loss: {loss:.4f} - acc: 0.9012 - val_loss: 0.3100 - val_acc: 0.8800",
        # Keras 3: the timings first
        "1875/1875 - 3s - 1ms/step - accuracy: 0.8612 - loss: {loss:.4f} - val_accuracy: 0.85 - val_loss: 0.3100",
    ],
)
def test_fit_verbose_2_lines_with_warnings_between_are_read(tmp_path, line):
    warn = (
        "/usr/local/lib/python3.7/dist-packages/ipykernel_launcher.py:13: UserWarning: `Model.predict_generator` "
        "is deprecated\n  del sys.path[0]\n | val_auc: 0.6297926593210245\n"
    )
    text = "".join(f"Epoch {e}/15\n{warn}{line.format(loss=0.7 * 0.9**e)}\n" for e in range(1, 16))
    fmt, recs, reader = read(write(tmp_path, "train.log", text))
    assert fmt == "keras-stdout"
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == list(range(1, 16))
    assert train[0].loss == pytest.approx(0.63) and train[0].val_loss == pytest.approx(0.31)
    assert reader.run_info["total_steps"] == 15
