"""Console lines of widely used trainers that were not read (issue 26: a probe of 28 framework
formats beside the corpus found 7 unread). Each text is built from the trainer's own log format
string (the source named), three epochs of records, read through the registry as a user's file
is (the sniff chooses the reader: tab-separated fields once made these lines a CSV "header").

- PyTorch examples ``imagenet/main.py`` ``ProgressMeter``: ``Epoch: [0][  50/1000]\\tTime ...``
- mmcv 1.x ``TextLoggerHook`` (mmdet / mmseg 2.x): ``Epoch [1][50/1000]\\tlr: ...`` and, for
  iteration-based runs, ``Iter [50/160000]\\tlr: ...``
- Swin Transformer ``main.py``: ``Train: [0/300][100/1251]\\teta ... loss 6.8 (6.9)``
- PyTorch-GAN (eriklindernoren) ``[Epoch 1/200] [Batch 50/938] [D loss: ...] [G loss: ...]``
- ESPnet2 ``Trainer``'s reporter: ``1epoch:train:51-100batch: iter_time=..., loss=36.2, ...``
- LitGPT ``finetune``: ``Epoch 1 | iter 200 step 50 | loss train: 2.033, val: n/a | ...``
"""

from __future__ import annotations

import pytest

from test_formats import read, write  # noqa: E402

N, EVERY = 1000, 50  # batches per epoch, logging interval


def _loss(e: int, i: int) -> float:
    return round(4.0 - 0.0005 * (e * N + i), 4)


FORMATS = {
    "imagenet": lambda e, i, lo: (
        f"Epoch: [{e}][{i:>4}/{N}]\tTime  0.123 ( 0.456)\tData  0.001 ( 0.010)\tLoss {lo:.4e} ({lo:.4e})\t"
        "Acc@1   0.00 (  0.10)\tAcc@5   0.39 (  0.49)"
    ),
    "mmcv_epoch": lambda e, i, lo: (
        f"2024-01-01 10:00:00,000 - mmdet - INFO - Epoch [{e + 1}][{i}/{N}]\tlr: 2.000e-02, eta: 1:00:00, "
        f"time: 0.300, data_time: 0.010, memory: 3000, loss_rpn_cls: 0.0500, loss_cls: {lo * 0.6:.4f}, "
        f"loss_bbox: {lo * 0.4:.4f}, loss: {lo:.4f}, grad_norm: 1.2345"
    ),
    "swin": lambda e, i, lo: (
        f"[2024-01-01 10:00:00 swin_tiny] (main.py 200): INFO Train: [{e}/300][{i}/{N}]\teta 0:10:00 lr 0.000100\t"
        f"time 0.3000 (0.3100)\tloss {lo:.4f} ({lo:.4f})\tgrad_norm 1.2345 (1.3000)\tmem 8000MB"
    ),
    "pytorch_gan": lambda e, i, lo: f"[Epoch {e + 1}/3] [Batch {i}/{N}] [D loss: {lo / 2:.4f}] [G loss: {lo:.4f}]",
    "espnet": lambda e, i, lo: (
        f"[gpu1] 2024-01-01 10:00:00,000 (trainer:732) INFO: {e + 1}epoch:train:{i - EVERY + 1}-{i}batch: "
        f"iter_time=1.2e-04, forward_time=0.100, loss_ctc={lo * 1.3:.3f}, loss_att={lo * 0.8:.3f}, acc=0.500, "
        f"loss={lo:.3f}, backward_time=0.100, grad_norm=1.234, clip=100.000, loss_scale=1.000, "
        "optim_step_time=0.010, optim0_lr0=1.000e-04, train_time=0.600"
    ),
}


def _text(fmt) -> str:
    return "\n".join(fmt(e, i, _loss(e, i)) for e in range(3) for i in range(EVERY, N + 1, EVERY)) + "\n"


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_epoch_and_batch_counters_give_the_global_step(tmp_path, name):
    fmt, recs, _ = read(write(tmp_path, "train.log", _text(FORMATS[name])))
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    assert len(train) == 60
    # the batch counter starts again at each epoch: the step is the epochs before plus the batch
    assert [r.step for r in train] == [e * N + i for e in range(3) for i in range(EVERY, N + 1, EVERY)]
    want = [_loss(e, i) for e in range(3) for i in range(EVERY, N + 1, EVERY)]
    if name == "pytorch_gan":
        assert [r.loss for r in train] == pytest.approx(want)  # the generator's loss (a GAN's objective)
    else:
        assert [r.loss for r in train] == pytest.approx(want, rel=1e-3)


def test_mmcv_iteration_based_run(tmp_path):
    text = "".join(
        f"2021-01-01 10:00:00,000 - mmseg - INFO - Iter [{s}/160000]\tlr: 9.997e-03, eta: 1 day, 2:00:00, "
        f"time: 0.500, data_time: 0.010, memory: 3000, decode.loss_ce: {0.7 * _loss(0, s):.4f}, "
        f"decode.acc_seg: 30.0, aux.loss_ce: {0.3 * _loss(0, s):.4f}, aux.acc_seg: 28.0, loss: {_loss(0, s):.4f}\n"
        for s in range(50, 3001, 50)
    )
    fmt, recs, reader = read(write(tmp_path, "20210101_100000.log", text))
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == list(range(50, 3001, 50))
    assert train[3].loss == pytest.approx(_loss(0, 200))
    assert reader.run_info.get("total_steps") == 160000


def test_espnet_epoch_results_lines_are_not_steps(tmp_path):
    """ESPnet's per-epoch "Nepoch results: [train] ... loss=..., [valid] loss=..." summary is
    no training record (its train and valid losses share one key)."""
    lines = _text(FORMATS["espnet"]).splitlines()
    out = []
    for ln in lines:
        out.append(ln)
        if "951-1000batch" in ln:
            e = ln.split("INFO: ")[1].split("epoch")[0]
            out.append(
                f"[gpu1] 2024-01-01 10:00:00,000 (trainer:338) INFO: {e}epoch results: [train] iter_time=1.2e-04, "
                "loss_ctc=3.000, loss_att=2.000, acc=0.500, loss=2.400, train_time=0.600, time=10 minutes, "
                "[valid] loss_ctc=2.900, loss_att=1.900, acc=0.550, loss=2.300, time=1 minute"
            )
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(out) + "\n"))
    train = [r for r in recs if r.loss is not None]
    assert len(train) == 60 and 2.4 not in [r.loss for r in train]


def test_litgpt_loss_train(tmp_path):
    text = "".join(
        f"Epoch 1 | iter {4 * s} step {s} | loss train: {_loss(0, s):.3f}, val: n/a | iter time: 123.45 ms (step) "
        "remaining time: 1:00:00\n"
        for s in range(10, 501, 10)
    )
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    train = [r for r in recs if r.loss is not None]
    assert fmt == "text" and len(train) == 50
    assert train[-1].loss == pytest.approx(_loss(0, 500), abs=1e-3)


@pytest.mark.parametrize(
    "header",
    [
        "step,loss,lr",
        "epoch\ttrain_loss\tvalid_loss\taccuracy",
        "epoch,train/box_loss,metrics/mAP50-95(B),lr/pg0",
        "Epoch,Batch,Gen Loss,Disc Loss",
    ],
)
def test_real_headers_are_still_tables(tmp_path, header):
    sep = "\t" if "\t" in header else ","
    n = len(header.split(sep))
    rows = [sep.join(str(v) for v in [s] + [round(2.0 - 0.01 * s, 3)] * (n - 1)) for s in range(1, 31)]
    fmt, recs, _ = read(write(tmp_path, "log.csv" if sep == "," else "log.tsv", header + "\n" + "\n".join(rows) + "\n"))
    assert fmt == "csv" and len([r for r in recs if r.loss is not None]) == 30
