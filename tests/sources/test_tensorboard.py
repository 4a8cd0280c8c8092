"""TensorBoard event files (``sources/tensorboard.py``): a graph record before the scalars (Keras'
``write_graph``) skipped and counted, a record over the size bound resynced past, per-epoch tags
at the epoch's number placed at its last batch (Ludwig), Lightning 1.x's ``valid_loss_epoch``.
Real files of the held-out sets fresh / fresh5 and event files written here."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from helpers import paths
from helpers.livefiles import _ld, tb_event
from helpers.paths import BENCH
from test_formats import read  # noqa: E402

from tsm_tui.sources.tensorboard import EPOCH_PLACED, TensorBoardReader

FRESH = os.path.join(BENCH, "corpus", "fresh")


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


FRESH5 = Path(paths.BENCH) / "corpus" / "fresh5"


LUDWIG = FRESH5 / "ludwig_results_two_experiment_runs" / "results"


def test_ludwig_tensorboard_batch_loss_and_epoch_summaries_at_the_epochs_end():
    """Ludwig 0.3's TensorBoard (real, corpus): the per-batch combined loss is the loss; the
    per-epoch validation loss, logged at the epoch's NUMBER after the epoch's batches, is placed
    at the epoch's last batch (no step goes back: it read as 16 resumes)."""
    (ev,) = (LUDWIG / "experiment_run" / "model" / "log" / "train").iterdir()
    fmt, recs, reader = read(ev)
    assert fmt == "tensorboard"
    train = [r for r in recs if r.loss is not None]
    val = [r for r in recs if r.val_loss is not None]
    assert len(train) == 64 and [r.step for r in train] == list(range(64))
    assert len(val) == 16 and [r.step for r in val] == [4 * e - 1 for e in range(1, 17)]
    steps = [r.step for r in recs]
    assert steps == sorted(steps)
    assert reader.skip_reasons[EPOCH_PLACED] == 16


def test_an_epoch_tag_at_its_own_step_is_not_moved(tmp_path):
    """Keras-like tags named ``epoch_`` in a file whose steps never go back stay where they are;
    a per-batch tag that goes back (a new launch) is not an epoch summary and is not moved."""
    evs = [tb_event(s, "epoch_loss", 2.0 - s / 10) for s in range(5)]
    evs += [tb_event(s, "batch_loss", 3.0 - s / 100) for s in (10, 11, 12, 0, 1)]
    p = tmp_path / "events.out.tfevents.1.host"
    p.write_bytes(b"".join(evs))
    _, recs, reader = read(p)
    assert [r.step for r in recs] == [0, 1, 2, 3, 4, 10, 11, 12, 0, 1]
    assert EPOCH_PLACED not in reader.skip_reasons


def test_lightning_1x_valid_loss_epoch_is_the_validation_loss():
    """Lightning 1.x TensorBoard (real, corpus): valid_loss_epoch read, valid_loss_step (per
    validation batch, ``/epoch_N`` tags restarting at 0) not the training loss."""
    (ev,) = (FRESH5 / "tb_lightning1x_step_epoch_and_valid_step_tags" / "lightning_logs" / "version_0").glob(
        "events.out.tfevents.*"
    )
    _, recs, reader = read(ev)
    assert len([r for r in recs if r.val_loss is not None]) == 2
    keys = reader.field_keys()
    assert keys["loss"] == ["train_loss_step"] and keys["val_loss"] == ["valid_loss_epoch"]


@pytest.mark.parametrize(
    "tags,objective",
    [
        # YOLOv5-style trainers: three loss terms and the LR groups once per epoch, no total (fresh107's yolov4-tiny)
        (("train/box_loss", "train/obj_loss", "train/cls_loss", "x/lr0"), "sum"),
        # Stable-Baselines3 SAC: the actor's and the critic's losses, the LR (fresh107's SAC runs)
        (("train/actor_loss", "train/critic_loss", "train/ent_coef_loss", "train/learning_rate"), "actor"),
    ],
)
def test_loss_terms_without_a_total_make_the_objective_at_every_step(tmp_path, tags, objective):
    """Steps that all carry the same tags took the columnar path, which made a Frame of the LR and left the
    terms as extras: no loss but at the file's last step (read one step of 922, of 32)."""
    evs = []
    for s in range(60):
        for j, t in enumerate(tags):
            v = 1e-3 if "lr" in t or "learning_rate" in t else (0.5 + j / 10) * (1 + 2 * 0.97**s)
            evs.append(tb_event(s, t, v))
    p = tmp_path / "runs" / "events.out.tfevents.1.host"
    p.parent.mkdir()
    p.write_bytes(b"".join(evs))
    _, recs, reader = read(p)
    losses = [r for r in recs if r.loss is not None]
    assert [r.step for r in losses] == list(range(60))
    terms = [t for t in tags if "loss" in t]
    first = [(0.5 + j / 10) * 3 for j, t in enumerate(tags) if "loss" in t]
    want = sum(first) if objective == "sum" else first[0]
    assert losses[0].loss == pytest.approx(want, rel=1e-6)
    assert reader.objective is not None and reader.objective[0] == objective and reader.objective[1][0] == terms[0]
