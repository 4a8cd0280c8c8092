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
- nnU-Net v2 ``nnUNetTrainer.print_to_log_file`` (a date-time, then the message): ``Epoch 3`` then
  ``Current learning rate: 0.00991``, ``train_loss -0.53``, ``val_loss -0.6`` on their own lines;
  nnU-Net v1's ``epoch:  3`` / ``train loss : -0.53`` / ``validation loss: -0.6`` / ``lr: 0.0099``
- CLU's ``LoggingWriter`` (Flax examples, t5x, scenic): ``[%d]%s %s`` after absl's prefix,
  ``I1205 ... logging_writer.py:48] [100] learning_rate=0.001, train_loss=2.3``
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


def _stamp(i: int) -> str:
    return f"2024-03-01 10:{i // 60 % 60:02d}:{i % 60:02d}.{i * 7919 % 1000000:06d}:"


def _nnunet(v: int) -> str:
    """30 epochs as nnU-Net writes them (v2 / v1 ``print_to_log_file``: the date-time and a
    colon, each argument followed by a space), after its start-up lines."""
    out = [f"{_stamp(0)} This split has 80 training and 20 validation cases. "]
    for e in range(30):
        lo, lr, t = round(-0.1 - 0.02 * e, 4), round(0.01 * (1 - e / 1000) ** 0.9, 5), 10 * e
        if v == 2:
            out += [f"{_stamp(t)} ", f"{_stamp(t)} Epoch {e} ", f"{_stamp(t)} Current learning rate: {lr} "]
            out += [f"{_stamp(t + 1)} train_loss {lo} ", f"{_stamp(t + 1)} val_loss {round(lo - 0.05, 4)} "]
            out += [
                f"{_stamp(t + 1)} Pseudo dice [np.float32(0.5), np.float32(0.4)] ",
                f"{_stamp(t + 2)} Epoch time: 120.5 s ",
            ]
        else:
            out += [f"{_stamp(t)} ", f"epoch:  {e} ", f"{_stamp(t + 1)} train loss : {lo:.4f} "]
            out += [
                f"{_stamp(t + 1)} validation loss: {lo - 0.05:.4f} ",
                f"{_stamp(t + 1)} Average global foreground Dice: [0.5] ",
            ]
            out += [f"{_stamp(t + 1)} lr: {lr} ", f"{_stamp(t + 2)} This epoch took 120.500000 s", "", ""]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("v", [1, 2])
def test_nnunet_epochs(tmp_path, v):
    """Before: v2 read nothing ("no training metrics recognised": the date-time before ``Epoch 3``
    hid the epoch header), v1 read no LR. The loss (Dice + CE) goes below 0."""
    fmt, recs, _ = read(write(tmp_path, "training_log_2024_3_1_10_00_00.txt", _nnunet(v)))
    train = [r for r in recs if r.loss is not None]
    assert fmt == "text" and [r.step for r in train] == list(range(30))
    assert [r.loss for r in train] == pytest.approx([round(-0.1 - 0.02 * e, 4) for e in range(30)])
    assert [r.val_loss for r in recs if r.val_loss is not None][:2] == pytest.approx([-0.15, -0.17])
    if v == 2:
        assert train[1].lr == pytest.approx(round(0.01 * (1 - 1 / 1000) ** 0.9, 5))


def test_clu_logging_writer_lines(tmp_path):
    """Flax / t5x through CLU: the step in brackets, the keys sorted; a collection names the
    evaluation's loss. Before: "no training metrics recognised"."""
    pre = "I1205 10:00:00.000000 139872 logging_writer.py:48]"
    text = "".join(
        f"{pre} [{s}] learning_rate=0.001, train_accuracy=0.5, train_loss={_loss(0, s):.6g}\n"
        + (f"{pre} [{s}] collection=eval accuracy=0.6, loss=1.9\n" if s % 500 == 0 else "")
        + (f"{pre} [{s}] Got images: {{'samples': (4, 32, 32, 3)}}.\n" if s % 250 == 0 else "")
        for s in range(50, 2001, 50)
    )
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    train = [r for r in recs if r.loss is not None]
    assert fmt == "text" and [r.step for r in train] == list(range(50, 2001, 50))
    assert train[-1].loss == pytest.approx(_loss(0, 2000)) and train[0].lr == 0.001
    assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [(s, 1.9) for s in range(500, 2001, 500)]


# Lines of the shapes a held-out set of console logs (bench/corpus/fresh4) was refused on: a
# counter the reader did not know before the named values, a logger's prefix, a loss name
# that is neither "loss" nor a known alias, a name and its value with only a space between.
# Each was "nothing readable" (exit 2); {i} is the record's index (1..40), {s} its step.
SHAPES = {
    "percent_then_batch_index": ("[0.06%] batch_index={s} loss={v}", "step"),
    "bracketed_counter": ("  [ {i}] ep={s}  r=  22.2 steps=209.7 ploss={v} vloss=   19.1 ent=1.0", "index"),
    "python_logging_prefix": ("2024-10-26 01:01:49,115 - INFO - batch_index={s} loss={v}", "step"),
    "loguru_prefix": (
        "2024-10-26 01:01:49.115 | INFO     | __main__:train:58 - [0.06%] batch_index={s} loss={v}",
        "step",
    ),
    "scale_and_iteration": ("[0 :  {s}] loss G : {v} loss D : 1.5", "step"),
    "percent_and_fraction": (
        "Training [===   ] 8.5% {s}/58874 | 4.62 it/s | ETA: 11664.8 s | loss={v} | validation_loss=3.9",
        "step",
    ),
    "epoch_space_name_value": ("epoch {i} loss={v}", "index"),
    "epoch_glued_in_brackets": ("[epoch{i}] trian_loss={v} other=1.0", "index"),
    "train_total_loss": ("step={i} train_total_loss={v}", "index"),
    "train_loss_total": ("step={i} train_loss_total={v}", "index"),
    "lightning_bar_total_loss": (
        "Epoch 0:   0%| | {i}/3999 [00:06<6:48:42, 6.13s/it, v_num=29, train_intent_loss_step=2.110, train_total_loss={v}]",
        "index",
    ),
    "name_space_value": (
        "2019-01-15 13:48:31,085 [INFO]: step {s}: gen_loss {v}, dis_loss 1.398384 (1893.4 examples/sec; 0.068 sec/batch)",
        "step",
    ),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_counters_prefixes_and_names_of_held_out_logs(tmp_path, name):
    tpl, axis = SHAPES[name]
    vals = [round(3.0 - i * 0.05 + (0.03 if i % 2 else 0), 4) for i in range(1, 41)]
    text = "\n".join(tpl.format(i=i, s=10 * i, v=v) for i, v in zip(range(1, 41), vals)) + "\n"
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    train = [r for r in recs if r.loss is not None]
    assert fmt == "text"
    assert [r.step for r in train] == [10 * i if axis == "step" else i for i in range(1, 41)]
    assert [r.loss for r in train] == pytest.approx(vals)


def test_epoch_with_its_total_and_a_batch_without_one(tmp_path):
    """``Epoch [1/10], Batch [3], Loss: x`` (a counter within the epoch, no total): the step is the
    epochs before plus the batch, as with ``Step [3/17]``."""
    text = "".join(
        f"2024-08-13 11:14:16,295 - INFO - Epoch [{e}/10], Batch [{b}], Loss: {3 - 0.01 * (e * 10 + b):.4f}\n"
        for e in range(1, 4)
        for b in range(1, 11)
    )
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == [(e - 1) * 10 + b for e in range(1, 4) for b in range(1, 11)]


def test_a_scale_and_its_iteration_counter(tmp_path):
    """A progressive GAN's ``[scale : iteration]``: the iteration starts again at each scale, so
    the step is the scales before plus the iteration (as a batch in its epoch), never a resume."""
    text = "".join(
        f"[{sc} :  {i * 100}] loss G : {1 + i * 0.1:.3f} loss D : 1.5\n" for sc in range(3) for i in range(1, 31)
    )
    fmt, recs, reader = read(write(tmp_path, "train_log.txt", text))
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == [sc * 3000 + i * 100 for sc in range(3) for i in range(1, 31)]
    assert train[0].loss == pytest.approx(1.1)
