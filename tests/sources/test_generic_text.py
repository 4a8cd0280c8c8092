"""The generic text reader (``sources/generic_text.py``, ``KeyValueTextReader``): console logs of
``name: value`` / ``name=value`` pairs. Counters in brackets, parentheses, after a phase word, beside
an epoch (``ep``, ``Epoch N``, a minibatch, a progress table's count before its unit word) or
abbreviated (``step:10K``); losses named without ``loss`` (BasicSR ``l_*``, loss functions' names, a
GAN's terms, ``total``, MindSpore's ``loss is x``); ``| name value |`` fields, tqdm postfix metrics,
sentences ending in a full stop, NaN inside a named list, summary and evaluation sections that are
no training records. Real lines, quoted from the logs of ``bench/corpus`` and its held-out sets
(committed ones read whole; private ones as short quoted lines), and lines that must NOT be read."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from helpers.reports import report_json, report_or_err
from helpers import paths
from helpers.paths import BENCH
from test_formats import read, write  # noqa: E402

from tsm_tui.cli import main
from tsm_tui.sources.fields import key_roles, loss_role, objective
from tsm_tui.sources.generic_text import KeyValueTextReader, _sentence_stops

CORPUS = os.path.join(BENCH, "corpus", "more")


def _lines(text: str) -> tuple[list, KeyValueTextReader]:
    r = KeyValueTextReader("x")
    out = [rec for ln in text.split("\n") for rec in r.feed(ln)]
    return out + r.flush(), r


def _both(tmp_path, text: str, name: str = "train.log"):
    """The records by the line path and by the replay's chunk path (templates)."""
    by_line, _ = _lines(text)
    _, by_chunk, reader = read(write(tmp_path, name, text))
    return by_line, by_chunk, reader


# -- counters ------------------------------------------------------------------------------
def test_gluoncv_bracketed_epoch_and_batch_and_loss_function_names(tmp_path):
    # MXNet/GluonCV SSD log (private: corpus more/gluoncv_ssd_mxnet_log)
    text = (
        "2020-08-31 14:53:06,644 - train_net.py[line:175] - INFO: [Epoch 0][Batch 0], Speed: 0.926 samples/sec, "
        "CrossEntropy=1.83e+00, SmoothL1=3.00e-03, val_AP=0.136\n"
        "2020-08-31 14:53:31,142 - train_net.py[line:175] - INFO: [Epoch 0][Batch 50], Speed: 0.563 samples/sec, "
        "CrossEntropy=9.23e-01, SmoothL1=2.18e-03, val_AP=0.169\n"
        "2020-08-31 14:53:54,413 - train_net.py[line:175] - INFO: [Epoch 1][Batch 0], Speed: 0.603 samples/sec, "
        "CrossEntropy=2.98e-02, SmoothL1=2.81e-03, val_AP=0.299\n"
    )
    by_line, by_chunk, reader = _both(tmp_path, text)
    for recs in (by_line, by_chunk):
        # the batch counter starts again at epoch 1: the epoch is 50 + 50 batches long
        assert [r.step for r in recs] == [0, 50, 100]
        assert recs[1].loss == pytest.approx(0.923 + 0.00218)  # the sum of the two terms (no total logged)
    assert reader.objective == ("sum", ("CrossEntropy", "SmoothL1"))


def test_swav_epoch_and_counter_in_brackets(tmp_path):
    # SwAV's logger (private: console/swav_cifar_restarts_epoch_iter), tab-separated, no counter total
    text = (
        "INFO - 09/02/20 14:18:08 - 0:00:30 - Epoch: [0][0]\tTime 5.399 (5.399)\tData 0.725 (0.725)\t"
        "Loss 4.2811 (4.2811)\tLr: 0.0000\n"
        "INFO - 09/02/20 14:19:41 - 0:02:03 - Epoch: [0][50]\tTime 2.376 (1.927)\tData 0.000 (0.014)\t"
        "Loss 4.2079 (4.2377)\tLr: 0.0019\n"
        "INFO - 09/02/20 14:21:10 - 0:03:31 - Epoch: [1][0]\tTime 1.714 (1.851)\tData 0.000 (0.007)\t"
        "Loss 4.1233 (4.1972)\tLr: 0.0038\n"
    )
    recs, _ = _lines(text)
    assert [(r.step, r.loss) for r in recs] == [(0, 4.2811), (50, 4.2079), (100, 4.1233)]


def test_minimind_counter_in_parentheses_is_the_step():
    # MiniMind (private: console/minimind_pretrain_epoch_paren): the epoch is [1/1], the step (10/39695)
    recs, _ = _lines(
        "Epoch:[1/1](10/39695), loss: 8.5371, logits_loss: 8.5371, aux_loss: 0.0000, lr: 0.00050000, "
        "epoch_time: 130.0min\n"
        "Epoch:[1/1](20/39695), loss: 8.2461, logits_loss: 8.2461, aux_loss: 0.0000, lr: 0.00050000, "
        "epoch_time: 112.0min\n"
    )
    assert [(r.step, r.loss) for r in recs] == [(10, 8.5371), (20, 8.2461)]


def test_basicsr_iter_with_thousands_l_terms_and_lr_tuple():
    # IQA-PyTorch / BasicSR logger (private: more/basicsr_pyiqa_torchrun_nohup)
    recs, r = _lines(
        "2025-02-04 16:44:33,923 INFO: Start training from epoch: 0, iter: 0\n"
        "2025-02-04 17:18:23,956 INFO: [basel..][epoch: 18, iter:   1,000, lr:(2.766e-05,)] [eta: 2:32:53, "
        "time (data): 2.020 (0.524)] l_mos: 6.4552e-04 l_metric: 6.1209e-02 train_metrics/srcc: 9.7059e-01 "
        "train_metrics/plcc: 9.8247e-01 \n"
        "2025-02-04 17:21:20,242 INFO: [basel..][epoch: 19, iter:   1,100, lr:(2.741e-05,)] [eta: 2:27:59, "
        "time (data): 1.758 (0.278)] l_mos: 5.1400e-04 l_metric: 5.4691e-02 train_metrics/srcc: 9.7647e-01 "
        "train_metrics/plcc: 9.9166e-01 \n"
    )
    assert [r.step for r in recs] == [1000, 1100]  # the global iter, "1,000" whole
    assert recs[0].loss == pytest.approx(6.4552e-04 + 6.1209e-02)
    assert recs[0].lr == pytest.approx(2.766e-05)
    assert "eta" not in recs[0].extra  # a clock ("eta: 2:32:53") is no number
    assert r.objective == ("sum", ("l_mos", "l_metric"))


def test_bracketed_epoch_batch_lines_beside_epoch_summaries():
    # a custom trainer (private: more/custom_mamba_dekf_negative_loss): the per-batch lines are the
    # series (global step (E - 1) x 5305 + b); the per-epoch summary lines are not read once they are
    recs, _ = _lines(
        "12:34:13 [INFO]   [1/100] batch 50/5305 loss=-108.9600 lr=1.00e-05\n"
        "12:34:16 [INFO]   [1/100] batch 100/5305 loss=-104.5000 lr=1.00e-05\n"
        "12:36:36 [INFO] Epoch 1/100 (127.7s) | train_loss=-89.9885 pos=1.5312 siz=-3.2146 | val_loss=-76.1845 "
        "val_pos=1.5345 | kappa_m=0.340 kappa_s=0.038 | NaN=0\n"
        "12:36:39 [INFO]   [2/100] batch 50/5305 loss=-70.1000 lr=3.40e-04\n"
    )
    assert [(r.step, r.loss) for r in recs] == [(50, -108.96), (100, -104.5), (5355, -70.1)]


def test_dgcnn_counter_after_a_phase_word():
    # DGCNN (private: more/dgcnn_train_epoch_lines); its "Test N, loss:" lines are validation losses
    recs, _ = _lines(
        "Train 0, loss: 2.689309, train acc: 0.450777, train avg acc: 0.239456\n"
        "Test 0, loss: 2.311022, test acc: 0.502000, test avg acc: 0.301000\n"
        "Train 1, loss: 2.184874, train acc: 0.647465, train avg acc: 0.469325\n"
    )
    assert [(r.step, r.loss, r.val_loss) for r in recs] == [
        (0, 2.689309, None),
        (0, None, 2.311022),
        (1, 2.184874, None),
    ]
    # a phase word and a number in prose: no loss, no record, no step taken
    recs, r = _lines("Test 1: passed, time: 0.5\nTraining 5 epochs, lr: 0.001\n")
    assert recs == [] and r.records == 0


def test_cyclegan_loss_log_generator_objective_and_epoch_length():
    # pytorch-CycleGAN-and-pix2pix loss_log.txt (BSD, committed): "(epoch: 1, iters: 1400, ...)" then
    # "(epoch: 2, iters: 48, ...)": the iters run on modulo the print interval, the epoch is 1452 long
    fmt, recs, reader = read(os.path.join(CORPUS, "cyclegan_loss_log_200ep", "loss_log.txt"))
    assert fmt == "text"
    assert reader.objective == ("gen_sum", ("G_A", "G_B", "cycle_A", "idt_A", "cycle_B", "idt_B"))
    steps = {r.step: r for r in recs}
    assert 1500 in steps and 1452 + 48 == 1500
    # the labelled generator spikes (labels.json: G_A+G_B+cycle_A+cycle_B+idt_A+idt_B at (epoch-1) x 1452 + iters)
    assert steps[25300].loss == pytest.approx(18.897)
    assert steps[102000].loss == pytest.approx(16.422)
    assert steps[286800].loss == pytest.approx(14.9)
    assert steps[25300].extra["D_A"] is not None  # the discriminator's terms are kept (checked apart)
    assert "G_A" in reader.objective_note() and "discriminator" in reader.objective_note()


# -- multi-line records, step-less lines, bars ---------------------------------------------
def test_pointnet2_multiline_batches_and_eval_sections():
    # charlesq34/pointnet2 log_train.txt (MIT, committed)
    fmt, recs, _ = read(os.path.join(CORPUS, "pointnet2_log_train_multiline", "log", "log_train.txt"))
    train = [r for r in recs if r.loss is not None]
    val = [r for r in recs if r.val_loss is not None]
    assert fmt == "text" and len(train) == 502 and len(val) == 251
    assert (train[0].step, train[0].loss, train[0].extra["accuracy"]) == (50, 2.895573, 0.282534)
    assert (val[0].step, val[0].val_loss) == (100, 1.511317)  # "eval mean loss" at the epoch's last step
    assert train[2].step == 150  # "**** EPOCH 001 ****" / " ---- batch: 050 ----": epoch 1's first


def test_stepless_lines_read_in_order_once_repeated(tmp_path):
    # CLIP-LoRA (private: console/clip_lora_nostep_zero_loss): no step anywhere
    body = (
        "LR: 0.000200, Acc: 59.3750, Loss: 0.8672\n"
        "LR: 0.000200, Acc: 43.7500, Loss: 0.9688\n"
        "LR: 0.000200, Acc: 37.5000, Loss: 0.9565\n"
        "LR: 0.000199, Acc: 62.5000, Loss: 0.8010\n"
    )
    text = (
        "Namespace(lr=0.0002, n_iters=500, shots=16, backbone='ViT-B/16')\n"
        + body
        + "**** Final test accuracy: 96.87. ****\n"
    )
    by_line, by_chunk, reader = _both(tmp_path, text)
    for recs in (by_line, by_chunk):
        assert [(r.step, r.loss) for r in recs] == [(1, 0.8672), (2, 0.9688), (3, 0.9565), (4, 0.8010)]
    assert "line order" in reader.describe()["step_source"]


def test_stepless_two_word_losses_and_an_evaluation_between_epochs(tmp_path):
    """fresh27's NumPy CNN: "train mean loss: 2.3026" alone on its line (two words before "loss"), a counter
    line and an accuracy line around it, and "eval mean loss" after each epoch: exit 2 "nothing readable"
    (two words were not a loss's name), then 17 of 187 records (the evaluation ended the series)."""
    text = ""
    for e in range(3):
        text += f"------------start train {e}/3----------\n"
        for b in range(1, 6):
            text += f"-----------train loss & acc-----------\n{b * 100}/500 (batchs) completed!\n"
            text += f"train mean loss: {2.3 / (e * 5 + b):.4f}\ntrain accuracy: 0.{e}{b}\n"
        text += f"------------start eval----------\neval mean loss: {0.4 / (e + 1):.4f}\neval accuracy: 0.9\n"
    by_line, by_chunk, reader = _both(tmp_path, text)
    for recs in (by_line, by_chunk):
        train = [(r.step, r.loss) for r in recs if r.loss is not None]
        assert train == [(k, round(2.3 / k, 4)) for k in range(1, 16)]
        assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [(5, 0.4), (10, 0.2), (15, 0.1333)]
    assert "line order" in reader.describe()["step_source"]


@pytest.mark.parametrize("sep", ["  ", ": "])
def test_a_loss_split_by_one_letter_is_a_pair(tmp_path, sep):
    """fresh67's ConvLSTM: "epoch          0  loss_t  734.32562  loss_v  720.33147  loss_min  9999.00000", one line
    an epoch, read nothing (exit 2). ``loss_t`` beside ``loss_v`` is the training and the validation loss; a
    ``loss_v`` with no ``loss_t`` (an RL critic's value loss) is not a validation loss."""
    text = "".join(
        f"epoch {e:10d}  loss_t{sep}{700 - e:.5f}  loss_v{sep}{690 - e:.5f}  loss_min{sep}9999.00000\n"
        for e in range(30)
    )
    by_line, by_chunk, reader = _both(tmp_path, text)
    for recs in (by_line, by_chunk):
        assert [(r.step, r.loss, r.val_loss) for r in recs][:2] == [(0, 700.0, 690.0), (1, 699.0, 689.0)]
        assert len(recs) == 30
    keys = reader.field_keys()
    assert keys["loss"] == ["loss_t"] and keys["val_loss"] == ["loss_v"]
    recs, _ = _lines("".join(f"step {k} loss_pi: 0.{k} loss_v: {k}.5\n" for k in range(1, 5)))
    assert all(r.val_loss is None for r in recs)


def test_stepless_lines_that_are_no_training_log_are_not_read():
    # a summary printed once or twice, a YAML config's loss weights, an arg dump: no records
    recs, r = _lines(
        "Test loss: 0.3021, acc: 0.9123\nBest loss: 0.2900, acc: 0.9200\n"
        "  loss: 1.0\n  loss: 1.0\n  loss: 1.0\n"
        "Namespace(batch_size=96, decay_rate=0.7, learning_rate=0.001, loss=0.5)\n" * 3
    )
    assert recs == [] and r.records == 0
    # a log whose lines name their step: a step-less line of numbers is no step of its own
    recs, _ = _lines("step 1 loss=2.0\nstep 2 loss=1.9\n" + "Acc: 50.0, Loss: 0.9\n" * 3)
    assert [r.step for r in recs] == [1, 2]


def test_tqdm_postfix_metrics_at_the_bars_count():
    # 3D Gaussian Splatting train.py (private: more/gaussian_splatting_tqdm_loss): one \r line
    line = (
        "\rTraining progress:   0%|          | 0/30000 [00:00<?, ?it/s]"
        "\rTraining progress:   0%|          | 10/30000 [00:01<1:02:13,  8.03it/s, Loss=0.2493386]"
        "\rTraining progress:   0%|          | 20/30000 [00:01<38:41, 12.91it/s, Loss=0.2663366]"
        "\rTraining progress:   0%|          | 20/30000 [00:01<38:41, 12.91it/s, Loss=0.2663366]"
        "\rTraining progress:  10%|█         | 3000/30000 [00:37<05:33, 80.96it/s, Loss=0.0360670]"
    )
    recs, r = _lines(line)
    assert [(x.step, x.loss) for x in recs] == [(10, 0.2493386), (20, 0.2663366), (3000, 0.036067)]
    assert all(x.extra is None for x in recs)  # the rate (it/s) and times are not metrics
    assert r.run_info["total_steps"] == 30000
    # bars without metrics in their postfix are no records
    recs, _ = _lines(
        "\rReading camera 1/251\rReading camera 2/251\n"
        "Loading checkpoint shards: 100%|##########| 5/5 [00:01<00:00,  3.20it/s]\n"
    )
    assert recs == []


def test_pipe_fields_name_value_and_a_generator_loss(tmp_path):
    # a GAN trainer (private: console/custom_tse_resumes_dataloader_crash): "| loss_G -2.6541 |"
    text = (
        "step  705000 | phase 2 | loss_G -2.6541 | sep -2.7236 | phase_l 0.0944 | amp_l 0.0223 | rms 1.06 | "
        "lr 1.32e-04 | rss 1283MB | 1.52s\n"
        "step  705100 | phase 2 | loss_G 4.3104 | sep 4.2646 | phase_l 0.0870 | amp_l 0.0023 | rms 0.95 | "
        "lr 1.32e-04 | rss 1501MB | 0.25s\n"
        "Validation loss: 1.9943 | si_sdr: -2.25 dB | rms_ratio: 0.901 | ta_energy: -27.5 dB\n"
    )
    recs, r = _lines(text)
    assert [(x.step, x.loss, x.val_loss) for x in recs] == [
        (705000, -2.6541, None),
        (705100, 4.3104, None),
        (705100, None, 1.9943),
    ]
    assert recs[0].lr == pytest.approx(1.32e-04) and recs[0].extra["sep"] == -2.7236
    assert "rss" not in recs[0].extra  # "1283MB" is no number
    assert r.objective == ("gen", ("loss_G",))


def test_pipe_field_grad_is_the_grad_norm():
    # a custom Qwen3 trainer (private: console/custom_qwen3_resume_jump)
    recs, _ = _lines("step   47700 | loss 1.4684 | lr 1.79e-04 | grad 0.075 | 113.4k tok/s | mfu 114.07%\n")
    assert [(x.step, x.loss, x.grad_norm, x.lr) for x in recs] == [(47700, 1.4684, 0.075, 1.79e-04)]


# -- the objective rule for names without "loss" -----------------------------------------------
@pytest.mark.parametrize(
    "key,role",
    [
        ("CrossEntropy", "term"),
        ("SmoothL1", "term"),
        ("RPN_SmoothL1", "term"),
        ("ObjLoss", "term"),
        ("l_mos", "term"),
        ("l_pix", "term"),
        ("l_g_gan", "model"),
        ("val_CrossEntropy", None),
        ("l_r", None),
        ("D_A", None),
        ("smooth_loss", None),
        ("train_acc", None),
    ],
)
def test_loss_names_without_the_word(key, role):
    assert loss_role(key) == role


@pytest.mark.parametrize(
    "keys,plan",
    [
        (
            ("D_A", "G_A", "cycle_A", "idt_A", "D_B", "G_B", "cycle_B", "idt_B"),
            ("gen_sum", ("G_A", "G_B", "cycle_A", "idt_A", "cycle_B", "idt_B")),
        ),  # CycleGAN
        (("G_GAN", "G_L1", "D_real", "D_fake"), ("gen_sum", ("G_GAN", "G_L1"))),  # pix2pix
        (("G_GAN", "D_real", "D_fake", "G", "NCE", "NCE_Y"), ("gen", ("G",))),  # CUT logs its generator total
        (("Loss_D", "Loss_G", "D(x)"), ("gen", ("Loss_G",))),  # the PyTorch DCGAN example
        (("errD", "errG"), ("gen", ("errG",))),
        (
            ("l_g_pix", "l_g_percep", "l_g_gan", "l_d_real", "l_d_fake"),
            ("gen_sum", ("l_g_pix", "l_g_percep", "l_g_gan")),
        ),
        (("d_loss", "g_loss"), ("gen", ("g_loss",))),
        # not a GAN: a model width and a grad norm, a bare G without a discriminator
        (("d_model", "g_norm"), None),
        (("G", "lr"), None),
    ],
)
def test_a_gans_objective_is_its_generators(keys, plan):
    assert objective(key_roles(keys)) == plan


FRESH = os.path.join(BENCH, "corpus", "fresh")


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


def test_an_epoch_with_a_phase_word_before_its_metrics(tmp_path):
    # a Python logging loop (private: corpus fresh15/logging_epoch_loss_stroke_clf_constant), its shape:
    # a phase word between the epoch and the metrics; "validation" makes the loss the validation loss
    lines = []
    for e in range(4):
        t = f"2023-10-05 18:4{e}:40,153 - INFO - "
        lines += [
            f"{t}epoch: {e} start, learning rate: 0.01",
            f"{t}epoch: {e} end, loss: {2.2 - e / 10:.4f}",
            f"{t}epoch: {e} validation, acc: 0.60, loss: {2.3 - e / 20:.4f}",
            f"{t}epoch: {e} model saved",
        ]
    _, recs, reader = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    assert [r.loss for r in recs if r.loss is not None] == pytest.approx([2.2, 2.1, 2.0, 1.9])
    assert [r.step for r in recs if r.loss is not None] == [0, 1, 2, 3]
    assert [r.val_loss for r in recs if r.val_loss is not None] == pytest.approx([2.3, 2.25, 2.2, 2.15])
    assert [r.step for r in recs if r.lr is not None] == [0, 1, 2, 3]
    assert not any(r.loss is not None and r.val_loss is not None for r in recs)  # (no train loss from an eval line)
    for form, kind in (
        ("Epoch {e} train: loss={v}", "loss"),
        ("epoch {e} [val] | loss {v}", "val_loss"),
        ("Epoch {e} finished, Loss: {v}", "loss"),
        ("epoch_{e} test, loss: {v}", "val_loss"),
    ):
        text = "".join(form.format(e=e, v=2 - e / 10) + "\n" for e in range(1, 6))
        _, recs, _ = read(write(tmp_path, "p.log", text))
        assert [r.step for r in recs] == [1, 2, 3, 4, 5], form
        assert getattr(recs[-1], kind) == pytest.approx(1.5), form
    # a word that is no phase: no step read from it (prose, a progress count)
    text = "".join(f"epoch {e} saved to ckpt, size: {e * 3}\nEpoch {e} progress: 100/2000\n" for e in range(1, 6))
    _, recs, _ = read(write(tmp_path, "n.log", text))
    assert recs == []


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


# -- MindSpore's LossMonitor: "<name> is <value>" ----------------------------------------------
# (private: fresh2/mindspore_lossmonitor_epoch_step), quoted: dataset sink mode prints once per
# epoch, at the epoch's last step (LossMonitor: cur_step_in_epoch = (cur_step_num - 1) % batch_num + 1)
MINDSPORE = [
    "=> Total step: 18600",
    "learning_rate 0.00101",
    "begin train",
    "epoch: 1 step: 62, loss is 2.279783010482788",
    "Train epoch time: 8835.742 ms, per step time: 142.512 ms",
    "epoch: 1 acc: 0.33482142857142855, best acc is 0.33482142857142855",
    "epoch: 2 step: 62, loss is 2.2144224643707275",
    "Train epoch time: 4066.611 ms, per step time: 65.591 ms",
    "epoch: 2 acc: 0.4419642857142857, best acc is 0.4419642857142857",
    "epoch: 3 step: 62, loss is 1.6496938467025757",
    "Train epoch time: 4138.418 ms, per step time: 66.749 ms",
    "epoch: 3 acc: 0.5535714285714286, best acc is 0.5535714285714286",
]


def test_mindspore_loss_is_read_at_the_global_step(tmp_path):
    _, recs, _ = read(write(tmp_path, "train_log.log", "\n".join(MINDSPORE) + "\n"))
    train = [r for r in recs if r.loss is not None]
    assert [r.loss for r in train] == [2.279783010482788, 2.2144224643707275, 1.6496938467025757]
    # the step within the epoch placed in its epoch: (epoch - 1) x 62 + 62
    assert [r.step for r in train] == [62, 124, 186] and [r.epoch for r in train] == [1, 2, 3]
    # the per-step form (LossMonitor(per_print_times=1)): the counter starts again each epoch
    text = "".join(f"epoch: {e} step: {s}, loss is {3 - e / 10 - s / 100}\n" for e in (1, 2) for s in (1, 2, 3))
    _, recs, _ = read(write(tmp_path, "steps.log", text))
    assert [r.step for r in recs] == [1, 2, 3, 4, 5, 6]


def test_name_is_value_in_prose_is_no_metric(tmp_path):
    # "best acc is 0.33" (two words before "is") and a sentence are prose: no loss taken from them
    text = "".join(
        f"step {s}, lr: 0.001, best loss is {s / 10}\nstep {s}: the loss is {s / 10} now, lr: 0.001\n"
        for s in range(1, 6)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert recs and all(r.loss is None for r in recs)


# -- the epoch and the counter in one bracket ---------------------------------------------------
# an I-JEPA fork (private: fresh2/ijepa_style_multiloss_gradstats_nan), quoted: a record every 25
# iterations of 2562, then the grad_stats line of the same iteration
IJEPA_FORK = [
    "INFO:root:Epoch 1",
    "INFO:root:[1,     0/ 2562] - train_losses - Parent Class: 7.679 - Children class: 0.693 -Autoencoder Loss (total): 230.668 - Reconstruction/K-Means Loss: [0.653 / 230.014] - [wd: 5.00e-02] [lr: 7.50e-05] [mem: 6.00e+04] (3043.0 ms)",
    "INFO:root:[1,     0] grad_stats: [5.29e-04 3.07e-03] (0.00e+00, 4.16e+00)",
    "INFO:root:[1,    25/ 2562] - train_losses - Parent Class: 7.130 - Children class: 0.695 -Autoencoder Loss (total): 350.794 - Reconstruction/K-Means Loss: [0.098 / 350.696] - [wd: 5.00e-02] [lr: 7.52e-05] [mem: 6.49e+04] (1256.1 ms)",
    "INFO:root:[1,    25] grad_stats: [4.97e-04 2.69e-02] (0.00e+00, 3.84e+00)",
    "INFO:root:[1,    50/ 2562] - train_losses - Parent Class: 6.805 - Children class: 0.695 -Autoencoder Loss (total): 350.852 - Reconstruction/K-Means Loss: [0.058 / 350.794] - [wd: 5.00e-02] [lr: 7.53e-05] [mem: 6.49e+04] (1215.0 ms)",
]


def test_ijepa_fork_bracket_counter_is_placed_in_its_epoch(tmp_path):
    # epoch 2's first line (the same shape) after epoch 1's: step = (epoch - 1) x 2562 + iteration
    nxt = IJEPA_FORK[1].replace("[1,     0/", "[2,     0/")
    _, recs, reader = read(write(tmp_path, "nohup.out", "\n".join(IJEPA_FORK + [nxt]) + "\n"))
    assert [r.step for r in recs] == [0, 25, 50, 2562]
    assert [r.epoch for r in recs] == [1, 1, 1, 2]
    assert recs[0].lr == 7.5e-05 and recs[0].extra["Parent Class"] == 7.679
    # no "loss" key: the one loss the line names (with its qualifier) is the objective
    assert recs[0].loss == 230.668 and "Loss (total)" in reader.objective_note()


def test_ijepa_and_pytorch_tutorial_bracket_counters(tmp_path):
    # facebookresearch/ijepa src/train.py: '[%d, %5d] loss: %.3f masks: %.1f %.1f [wd: %.2e] [lr: %.2e] ...'
    text = "".join(
        f"INFO:root:[{e}, {i:5d}] loss: {7.679 - e / 10 - i / 1000:.3f} masks: 68.0 44.0 [wd: 4.00e-02] "
        f"[lr: 1.00e-04] [mem: 5.24e+04] (1100.0 ms)\n"
        f"INFO:root:[{e}, {i:5d}] grad_stats: [1.51e-02 2.27e-02] (1.19e-02, 3.95e-02)\n"
        for e in (1, 2)
        for i in (0, 10, 20)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    # the counter starts again: an epoch of 30 iterations (0-29, a record every 10: epoch_steps.py)
    assert [r.step for r in recs] == [0, 10, 20, 30, 40, 50]
    assert recs[0].loss == pytest.approx(7.579) and recs[0].lr == 1e-4
    # the PyTorch CIFAR-10 tutorial: print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 2000:.3f}')
    text = "".join(f"[{e}, {i:5d}] loss: {2.3 - e / 10 - i / 100000:.3f}\n" for e in (1, 2) for i in (2000, 4000, 6000))
    _, recs, _ = read(write(tmp_path, "cifar.log", text))
    assert [r.step for r in recs] == [2000, 4000, 6000, 8000, 10000, 12000]


def test_bracketed_lists_are_no_counter(tmp_path):
    # a grad_stats line alone, a config's milestones: no metric after the bracket, no record
    text = "".join(
        f"INFO:root:[1, {i:5d}] grad_stats: [5.29e-04 3.07e-03] (0.00e+00, 4.16e+00)\n"
        f"milestones: [30, 60] gamma: 0.1\nstep {i} loss: {1 - i / 100}\n"
        for i in range(6)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 1, 2, 3, 4, 5] and all(r.epoch is None for r in recs)


def test_nan_in_a_named_list_is_a_nonfinite_value_of_that_name(tmp_path):
    # fresh2 ijepa_style_multiloss_gradstats_nan: "[56,   775] grad_stats: [nan 1.05e-01] (0.00e+00, inf)"
    # (the first layer's grad norm NaN) was no record: a list is no metric, but its NaN / Inf is
    bad = "INFO:root:[2,    25] grad_stats: [nan 1.05e-01] (0.00e+00, inf)"
    nxt = [line.replace("[1,", "[2,") for line in IJEPA_FORK[1:]]
    nxt[3] = bad
    _, recs, _ = read(write(tmp_path, "nohup.out", "\n".join(IJEPA_FORK + nxt) + "\n"))
    (rec,) = [r for r in recs if r.extra and "grad_stats" in r.extra]
    # the step as its loss line's (epoch 2, iteration 25 of the 2562 its loss lines print)
    assert rec.step == 2562 + 25 and rec.loss is None and math.isnan(rec.extra["grad_stats"])
    assert [r.step for r in recs if r.loss is not None] == [0, 25, 50, 2562, 2587, 2612]
    # on a step line beside a loss: the list's name non-finite, the loss read as always
    _, recs, _ = read(
        write(
            tmp_path,
            "t.log",
            "".join(f"step {s} loss {1 - s / 100} losses=[0.4, {'inf' if s == 3 else 0.5}]\n" for s in range(1, 6)),
        )
    )
    assert [r.step for r in recs] == [1, 2, 3, 4, 5] and recs[2].extra == {"losses": math.inf}
    assert all(r.extra is None for r in recs if r.step != 3)
    # words in a list (a mode named "nan-safe", "info") are no numbers: no record from the line
    _, recs, _ = read(
        write(
            tmp_path,
            "w.log",
            "".join(f"[1, {i:5d}] modes: [info nan] [skip, inf]\nstep {i} loss: 0.5\n" for i in range(5)),
        )
    )
    assert all(r.extra is None for r in recs)


def test_nan_gradient_statistic_fails_the_nonfinite_check(tmp_path):
    from tsm_tui.analysis.replay import analyze

    lines = []
    for e in (1, 2):
        for i in range(0, 2562, 25):
            lines.append(
                f"INFO:root:[{e}, {i:5d}/ 2562] - train_losses - Autoencoder Loss (total): {300 - e - i / 1000:.3f} - [lr: 7.50e-05]"
            )
            g = "nan" if (e, i) == (2, 775) else "4.52e-01"
            lines.append(f"INFO:root:[{e}, {i:5d}] grad_stats: [{g} 7.39e-02] (0.00e+00, 7.59e+00)")
    res = analyze(write(tmp_path, "nohup.out", "\n".join(lines) + "\n"))
    c = next(c for c in res.checks() if c.id == "nonfinite")
    assert c.status.value == "FAIL" and "first at step 3337" in c.summary
    (a,) = [a for a in res.alerts() if a.check == "nonfinite"]
    assert "gradient statistic grad_stats is NaN" in a.message


# -- PaddleClas: [Train][Epoch e/E][Iter: i/N], lr(Scheduler), [Eval] batches -------------------
PADDLECLAS = os.path.join(BENCH, "corpus", "fresh2", "paddleclas_train_log_twenty_launches", "train.log")


def test_paddleclas_log_places_each_iteration_in_its_epoch():
    fmt, recs, reader = read(PADDLECLAS)
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    first = train[0]
    # "[Train][Epoch 1/400][Iter: 0/98]lr(LinearWarmup): 0.00000204, CELoss: 6.93139, loss: 6.93139, ..."
    assert (first.step, first.epoch, first.loss, first.lr) == (0, 1, 6.93139, 0.00000204)
    # "[Train][Epoch 2/400][Iter: 0/98]lr(LinearWarmup): 0.00020204, ...": epoch 2 starts at 98
    assert any(r.step == 98 and r.epoch == 2 and r.lr == 0.00020204 for r in train)
    assert reader.run_info["total_steps"] == 400 * 98
    # "[Eval][Epoch 1][Iter: 0/25]CELoss: 6.89671, loss: 6.89671, ...": an evaluation batch, no training
    # step; "[Eval][Epoch 1][Avg]CELoss: 6.90268, loss: 6.90268, ...": the validation loss
    assert not any(r.loss == 6.89671 for r in recs)
    assert recs[next(i for i, r in enumerate(recs) if r.val_loss is not None)].val_loss == 6.90268
    assert len({r.step for r in train}) >= 4000


def test_scheduler_named_lr_and_eval_tags(tmp_path):
    from tsm_tui.sources.fields import field_for

    assert field_for("lr(LinearWarmup)") == "lr" and field_for("lr(Cosine)") == "lr"
    assert field_for("lr(1)") is None and field_for("clr(Cosine)") is None
    # an untagged line with the same counter is a training record; a "[Test]" one is not
    text = "".join(
        f"[Train][Epoch {e}/3][Iter: {i}/20]lr(Cosine): 0.1, loss: {3 - e / 10 - i / 100}\n"
        f"[Test][Epoch {e}][Iter: {i}/5]loss: 9.0\n"
        for e in (1, 2, 3)
        for i in (0, 10)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 10, 20, 30, 40, 50] and all(r.loss < 9 for r in recs)


# -- step-less lines under an epoch header ------------------------------------------------------
# a W&B sweep agent's stdout (private: fresh2/gat_wandb_sweep_five_runs_loss_lines), quoted: one
# "Loss:" line per batch, six batches an epoch, the epoch only in a header line above them
GAT_EPOCH0 = [
    "Epoch 0",
    "Loss:  157.06246948242188",
    "Loss:  128.66001892089844",
    "Loss:  108.10821533203125",
    "Loss:  92.78180694580078",
    "Loss:  76.54788208007812",
    "Loss:  74.62910461425781",
    "Evaluating...",
    "Epoch 1",
    "Loss:  60.9283561706543",
    "Loss:  51.787879943847656",
    "Loss:  43.23619079589844",
    "Loss:  38.94865798950195",
    "Loss:  32.40391540527344",
    "Loss:  26.287525177001953",
    "Evaluating...",
]


def test_single_loss_lines_under_epoch_headers_are_placed_in_their_epoch(tmp_path):
    # the tqdm bar between the header and the losses (its \r redraws) as the file has it
    bar = "\r  0%|          | 0/6 [00:00<?, ?it/s]\r 17%|#         | 1/6 [00:04<00:22,  4.43s/it]"
    lines = GAT_EPOCH0[:1] + [bar] + GAT_EPOCH0[1:9] + [bar] + GAT_EPOCH0[9:]
    _, recs, reader = read(write(tmp_path, "train.out", "\n".join(lines) + "\n"))
    assert [r.step for r in recs] == list(range(12))
    assert [r.epoch for r in recs] == [0] * 6 + [1] * 6
    assert recs[0].loss == 157.06246948242188 and recs[-1].loss == 26.287525177001953
    assert "epoch headers" in reader.describe()["step_source"]
    # with no header: line order, as for the lines of several named numbers
    text = "".join(f"Loss: {2 - i / 100}\n" for i in range(10))
    _, recs, _ = read(write(tmp_path, "plain.log", text))
    assert [r.step for r in recs] == list(range(1, 11))  # (the n-th line is step n)


def test_single_number_lines_that_are_not_a_loss_are_not_records(tmp_path):
    # an LR echo, a "best loss" summary, a YAML config's indented loss weight, and a loss in a
    # log whose records name their steps
    text = "".join(f"lr: 0.001\nbest loss: {1 / (i + 1)}\n  loss: {i}.5\n" for i in range(6))
    try:
        _, recs, _ = read(write(tmp_path, "notes.log", text))
    except AssertionError:
        recs = []
    assert recs == []
    text = "".join(f"step {s} loss: {2 - s / 10}\nLoss: 9.5\n" for s in range(6))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == [0, 1, 2, 3, 4, 5] and all(r.loss < 9 for r in recs)


# -- (fresh4 §4.A5) a prose line naming a step between records that carry their own counter ----------------
# JAX-CFD's train.py through absl logging (fresh4 jaxcfd_absl_train_dicts lines 172, 274):
# logging.info('[Train %d/%d] %s', step, num_steps, metrics) and flax's checkpoints.py
# "Saving checkpoint at step: %s"
def _absl(n: int, every: int, save_at: tuple[int, ...], counter: bool = True) -> str:
    out = []
    for s in range(every, n * every + 1, every):
        head = f"[Train {s}/{n * every}] " if counter else ""
        out.append(
            f"I1216 14:22:57.913980 139628846601088 train.py:577] {head}{{'grads_finite': 1.0, "
            f"'loss_scale': 1.0, 'train_loss': {0.0077 - s * 1e-6!r}}}"
        )
        if s in save_at:
            out.append(f"I1216 14:32:56.861886 139628846601088 checkpoints.py:120] Saving checkpoint at step: {s}")
    return "\n".join(out) + "\n"


def test_a_checkpoint_line_swallows_no_record_and_the_counter_is_the_step(tmp_path):
    _, recs, reader = read(write(tmp_path, "train_log.txt", _absl(188, 10, (1000, 1880))))
    assert [r.step for r in recs] == list(range(10, 1881, 10))
    assert reader.skipped == 0 and reader.inferred_steps == 0
    assert reader.run_info.get("total_steps") in (1880, "1880")


def test_counted_dict_records_keep_their_axis_past_a_prose_step(tmp_path):
    # the same records without their counter: counted one by one, a "step: 100" line between them
    # moves nothing and takes nothing
    _, recs, reader = read(write(tmp_path, "train.log", _absl(30, 10, (100,), counter=False)))
    assert [r.step for r in recs] == list(range(1, 31)) and reader.skipped == 0


def test_an_evaluation_counter_before_a_dict_is_no_training_step(tmp_path):
    text = _absl(10, 10, ()) + "I1216 14:50:00.000000 1 train.py:600] [Eval 3/10] {'eval_loss': 0.5}\n"
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs if r.loss is not None][-1] == 100
    assert all(r.step != 3 for r in recs)


def test_the_real_absl_log_reads_every_record():
    p = os.path.join(
        os.environ.get("TSM_SHARED", "/work/shared"),
        "corpus_private",
        "fresh4",
        "jaxcfd_absl_train_dicts",
        "train_log.txt",
    )
    if not os.path.exists(p):
        pytest.skip("private corpus not present")
    _, recs, reader = read(p)
    steps = [r.step for r in recs if r.loss is not None]
    assert len(steps) == 188 and steps[0] == 10 and steps[-1] == 1880 and reader.skipped == 0


# -- (fresh4 §4.A7) summary and evaluation sections of per-epoch logs ----------------------------------------
# CoreNet's engine/default_trainer.py and metrics/stats.py (fresh4 corenet_dict_losses_ansi lines
# 1502-1607, ANSI level tags as printed by its logger): one iteration line per epoch (a global
# counter), the epoch's training summary, the validation summary
def _corenet(epochs: int) -> str:
    out = []
    it = 1
    for e in range(epochs):
        t, v = 4.8 - e * 0.05, 4.7 - e * 0.06
        out += [
            f"2024-07-17 04:40:34 - \x1b[34m\x1b[1mLOGS   \x1b[0m - Epoch: {e:3d} [{it:8d}/{10000000:8d}], loss: "
            f"{{'classification': {t - 0.08:.4f}, 'neural_augmentation': 0.083, 'total_loss': {t:.4f}}}, "
            f"LR: [{1e-06 * (e + 1):.2e}, {1e-06 * (e + 1):.2e}], Avg. batch load time: 165.919, Elapsed time: 180.42",
            f"2024-07-17 04:40:58 - \x1b[34m\x1b[1mLOGS   \x1b[0m - *** Training summary for epoch {e}",
            f"\t loss={{'classification': {t - 0.09:.4f}, 'neural_augmentation': 0.0826, 'total_loss': {t - 0.01:.4f}}}",
            "2024-07-17 04:43:53 - \x1b[33m\x1b[1mWARNING\x1b[0m - Found recall at precision 1.0 when recall at "
            "precision 0.5 was requested.",
            f"2024-07-17 04:43:55 - \x1b[34m\x1b[1mLOGS   \x1b[0m - *** Validation summary for epoch {e}",
            f"\t loss={{'classification': {v:.4f}, 'neural_augmentation': 0.0, 'total_loss': {v:.4f}}} || "
            f"top1={{'logits': {0.9766 + e:.4f}}} || top5={{'logits': 4.8828}} || "
            f"multiclass_classification_pr(pred=logits)={{'ODS-F1': [0.0388, 0.0416], 'AP': [0.01, 0.02]}}",
        ]
        it += 115
    return "\n".join(out) + "\n"


def test_corenet_summaries_are_no_training_records(tmp_path, capsys):
    p = write(tmp_path, "finetune.out", _corenet(30))
    _, recs, reader = read(p)
    train = [r for r in recs if r.loss is not None]
    val = [r for r in recs if r.val_loss is not None]
    assert [r.step for r in train] == [1 + 115 * e for e in range(30)]  # the global counter
    assert train[0].loss == pytest.approx(4.8) and train[0].lr == pytest.approx(1e-6)  # the list's first LR
    assert [r.step for r in val] == [r.step for r in train]  # at the last training step
    assert val[-1].val_loss == pytest.approx(4.7 - 29 * 0.06)
    assert reader.skip_reasons == {"epoch summary lines (the epoch's averages, not a step's record)": 30}
    code, d = report_or_err(p, capsys)
    checks = {c["id"]: c for c in d["checks"]}
    assert checks["lr_schedule"]["status"] != "SKIP" and checks["overfitting"]["status"] != "SKIP"


# DETR's util/misc.py MetricLogger.log_every ("{header}  [{i}/{n}]  eta: {eta}  {meters}  time: ...") and
# engine.py's print("Averaged stats:", metric_logger); the header "Epoch: [13]" in training, "Test:" in
# evaluate() (fresh4 detr_metriclogger_resume_epochs lines 18-71)
def _metriclogger(epochs: int) -> str:
    out = []
    for e in range(epochs):
        for i in list(range(0, 400, 100)) + [399]:
            out.append(
                f"Epoch: [{e}]  [{i:3d}/400]  eta: 0:53:34  loss: {80 - e * 5 - i / 100:.4f} ({90 - e * 5:.4f})  "
                "time: 0.9167  data: 0.0000  max mem: 17237"
            )
        out += [
            f"Epoch: [{e}] Total time: 0:53:41 (0.8744 s / it)",
            f"Averaged stats: loss: 59.3179 ({90 - e * 5:.4f})",
        ]
        for i in (0, 50, 99):
            out.append(
                f"Test:  [{i:2d}/100]  eta: 0:22:53  loss: 108.6257 (108.6257)  time: 0.3726  data: 0.2539  max mem: 19947"
            )
        out += ["Test: Total time: 0:05:56 (0.0967 s / it)", f"Averaged stats: loss: 40.5374 ({100 + e:.4f})"]
    return "\n".join(out) + "\n"


def test_metriclogger_evaluation_is_validation(tmp_path):
    _, recs, reader = read(write(tmp_path, "pretrain.out", _metriclogger(4)))
    train = [r for r in recs if r.loss is not None]
    val = [r for r in recs if r.val_loss is not None]
    assert len(train) == 20 and all(r.loss < 81 for r in train)  # no Test: line among them
    assert [r.val_loss for r in val] == [100, 101, 102, 103]  # the global average, not the median
    assert [r.step for r in val] == [train[k].step for k in (4, 9, 14, 19)]
    assert (
        reader.skip_reasons.get("evaluation progress lines (running values; the result is read from its summary)") == 12
    )


def test_summary_words_elsewhere_change_nothing(tmp_path):
    # "summary" in prose, a test counter without a colon, "Averaged stats" of training only
    text = "".join(
        f"step {s} loss {3 - s / 100:.3f} lr 0.0001\n"
        + (
            "writing summary to runs/exp1\nTest [3/10] skipped\nAveraged stats: loss: 2.0 (2.1)\n"
            if s % 10 == 0
            else ""
        )
        for s in range(1, 41)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs if r.loss is not None] == list(range(1, 41))
    assert not any(r.val_loss is not None for r in recs)


def test_an_lr_list_on_a_deepspeed_progress_line_makes_no_record(tmp_path):
    # DeepSpeed-Chat step 3 (bench/corpus/console/ds_chat_step3_chatglm6b_dcu): two engines print
    # "step=N, skipped=0, lr=[...]" between the run's own records; they stay no records
    text = "".join(
        f"[2023-06-26 18:44:51,546] [INFO] [logging.py:96:log_dist] [Rank 0] step={s + 1}, skipped=0, "
        f"lr=[{(s + 1) * 1e-8:.0e}, {(s + 1) * 1e-8:.0e}], mom=[(0.9, 0.95), (0.9, 0.95)]\n"
        * 2
        + f"epoch: 0|step: {s}|ppo_ep: 1|act_loss: {0.3 + s / 100}|cri_loss: 2.35|unsuper_loss: 0.0\n"
        "average reward score: -3.4609375\n" + "-" * 85 + "\n"
        for s in range(30)
    )
    _, recs, reader = read(write(tmp_path, "step3.log", text))
    assert [r.step for r in recs if r.loss is not None] == list(range(30))
    assert not reader.skipped


# -- Lightning's progress bar -----------------------------------------------------------------------
# quoted from fresh5's wandb0210 console (Lightning 2.x, 10 training + 3 validation batches an
# epoch): the bar is reset under the old epoch's label before the next epoch's first batch
BAR = "Epoch {e}:  {p:>2}%|███████      | {n}/13 [00:00<00:04,  2.92it/s, loss={loss}, v_num=-100]"


def test_lightning_bar_counter_restarting_each_epoch_is_no_relaunch(tmp_path):
    lines = []
    for e in range(3):
        lines.append(BAR.format(e=e, p=0, n=0, loss=3.0).replace("2.92it/s", "?it/s"))
        for n in range(1, 14):
            lines.append(BAR.format(e=e, p=n * 7, n=n, loss=round(3.0 - e - n / 20, 2)))
        lines.append(BAR.format(e=e, p=0, n=0, loss=1.0).replace("2.92it/s", "?it/s"))  # the reset
    r = KeyValueTextReader(str(tmp_path / "output.log"))
    recs = [x for ln in lines for x in r.feed(ln)] + r.flush()
    steps = [x.step for x in recs]
    assert steps == sorted(steps) and len(set(steps)) == 39 == r.bar_records
    assert [x.epoch for x in recs[:14:13]] == [0.0, 1.0]


#: Lightning 1.x (TQDMProgressBar, refresh every 50 batches, 336 training + 59 validation batches an epoch)
#: in a nohup capture (fresh81's dialogue generator): each epoch's bar first drawn finished under the new
#: epoch's label, each position drawn twice (the old postfix, then the new)
OLD_BAR = "Epoch {e}: {p:>3}%|█▎        | {n}/395 [24:56<2:52:06, 29.93s/it, loss={loss}, v_num=0]"


def test_a_finished_bar_drawn_under_the_next_epochs_label_is_no_step(tmp_path):
    lines, loss = [], 3.0
    for e in range(4):
        if e:
            lines.append(OLD_BAR.format(e=e, p=100, n=395, loss=loss))  # (the last epoch's bar, the new label)
        for n in range(50, 351, 50):
            lines.append(OLD_BAR.format(e=e, p=n * 100 // 395, n=n, loss=loss))
            loss = round(loss * 0.97, 3)
            lines.append(OLD_BAR.format(e=e, p=n * 100 // 395, n=n, loss=loss))
        lines.append(OLD_BAR.format(e=e, p=100, n=395, loss=loss))
    r = KeyValueTextReader(str(tmp_path / "train.log"))
    recs = [x for ln in lines for x in r.feed(ln)] + r.flush()
    steps = [x.step for x in recs]
    # read as epoch e's end, each epoch went back a whole epoch ("resumed at step 445 after reaching 790")
    assert steps == sorted(steps) and len(set(steps)) == len(steps) == 4 * 8
    assert steps[-1] == 4 * 395 and steps[7:9] == [395, 395 + 50] and r.other_lines == 3 + 4 * 7


def test_a_train_bar_drawn_anew_under_each_epoch_header_and_an_eval_bar(tmp_path, capsys):
    """A DDP script's stdout (fresh19 tqdm_ddp_poster_adapter_flat, private): a timestamped
    "===== Epoch e/3 =====" header (its zone named in the brackets), an "eval:" bar, then a
    "train:" bar from 1 again, tqdm's \r redraws kept in one line under nohup. The train bar's
    count is a batch of the header's epoch (it was read as a launch each epoch, 21 of them, and
    the eval bar's losses as training losses); the finished eval bar (drawn twice) is one
    validation loss at the last training step."""

    def bar(desc, n, tot, loss):
        post = f", loss={loss:.4f}, lp_real=0.8205" if loss is not None else ""
        return f"\r{desc}: {100 * n // tot:3d}%|#         | {n}/{tot} [00:20<01:07, 1.25it/s{post}]"

    out = []
    for e in range(1, 4):
        out.append(f"[2026-04-15 01:{e:02d}:27 \u5317\u4eac\u65f6\u95f4] ===== Epoch {e}/3 =====")
        out.append("".join([bar("eval", 0, 4, None)] + [bar("eval", n, 4, 0.5 - e / 100) for n in (1, 2, 3, 4, 4)]))
        draws = [bar("train", 0, 5, None)]
        for n in range(1, 6):
            draws += [bar("train", n - 1, 5, 0.6 - e / 10 - n / 100), bar("train", n, 5, 0.6 - e / 10 - n / 100)]
        out.append("".join(draws))
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(out) + "\n"))
    train = [(r.step, r.epoch) for r in recs if r.loss is not None]
    assert train == [(5 * (e - 1) + n, e) for e in range(1, 4) for n in range(1, 6)]
    assert recs[0].loss == pytest.approx(0.49)  # epoch 1's first batch, not the eval bar's 0.49 of its pass
    # the eval bar before any training is no record; the next ones at the end of the epoch before
    assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [(5, 0.48), (10, 0.47)]
    report = report_json(str(tmp_path), capsys)
    assert report["steps"]["first"] == 1 and report["steps"]["last"] == 15, report["steps"]
    assert not report.get("launches") and not report.get("resumes"), sorted(report)  # (one launch: none listed)


def _desc_bars(desc, epochs=3, per=40, stop=None):
    """A training loop's tqdm bar per epoch under nohup (one line of \r redraws each, tqdm's
    default format), its loss in the description (``pbar.set_description(...)``): batch k's
    loss is drawn at count k - 1 (set_description refreshes) and again at k (the update)."""
    out = []
    for e in range(epochs):
        draws = []
        for k in range(1, (stop if stop and e == epochs - 1 else per) + 1):
            loss = 3.0 - (e * per + k) / 100
            for n in (k - 1, k):
                draws.append(f"\r{desc(e, loss)}: {100 * n // per:3d}%|#         | {n}/{per} [00:10<00:12,  4.50it/s]")
        out.append("".join(draws))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    "desc",
    [
        lambda e, x: f"Epoch {e} loss {x:.4f}",
        lambda e, x: f"loss: {x:.4f}",
        lambda e, x: f"train loss: {x:.4f} | lr: 1.0e-04",
        lambda e, x: f"accuracy: 0.5000, loss: {x:.4f} ||",  # AllenNLP's
        lambda e, x: f"Train Epoch {e + 1}/3 [loss={x:.3f}]",
    ],
)
def test_a_loss_in_a_bars_description(tmp_path, desc):
    """``pbar.set_description(f"... loss {loss:.4f}")``, the way many a training loop shows its
    loss, was "no training metrics recognised" (exit 2); a bar drawn anew each epoch with no
    epoch named anywhere was one launch per epoch. Each count's first drawing is its batch's
    loss; a finished bar of the same total starting again is the next epoch."""
    _, recs, _ = read(write(tmp_path, "train.log", _desc_bars(desc)))
    assert [r.step for r in recs] == list(range(1, 121))
    assert [r.loss for r in recs[:3]] == pytest.approx([2.99, 2.98, 2.97], abs=1e-3)
    assert recs[-1].loss == pytest.approx(1.80, abs=1e-3)


def test_a_bar_that_stopped_short_and_starts_again_is_a_relaunch(tmp_path, capsys):
    # the script died at batch 25 of 40 and was started again: the steps go back (a launch),
    # not on (the next epoch)
    text = _desc_bars(lambda e, x: f"loss {x + 0.1:.4f}", epochs=1, stop=25)
    text += _desc_bars(lambda e, x: f"loss {x:.4f}", epochs=2)
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == list(range(1, 26)) + list(range(1, 81))
    report = report_json(str(tmp_path), capsys)
    assert [(x["first"], x["last"]) for x in report["launches"]] == [(1, 25), (1, 80)]


def test_iters_counter_and_double_pipes_with_two_word_loss_terms(tmp_path, capsys):
    """fresh20's CIRKD Slurm .out (private): "Iters: 10/20000 || Lr: 0.019992 || Task Loss: 3.2864 ||
    KD Loss: 1.6073|| Cost Time: 0:00:20 || ...": "Iters" was no step word (exit 2, "no training
    metrics recognised"). Two loss terms and no total: their sum is the objective, said."""
    text = "".join(
        f"2023-10-02 23:08:57,029 semantic_segmentation INFO: Iters: {i}/20000 || Lr: 0.0199 || "
        f"Task Loss: {3.0 + i / 1000:.4f} || KD Loss: {1.6 - i / 2000:.4f}|| Cost Time: 0:00:20 || "
        "Estimated Time: 11:13:35\n"
        for i in range(10, 1010, 10)
    )
    _, recs, _ = read(write(tmp_path, "train.out", text))
    assert [r.step for r in recs] == list(range(10, 1010, 10))
    assert recs[0].lr == 0.0199 and recs[0].loss == pytest.approx(3.01 + 1.595)
    d = report_json(str(tmp_path), capsys)
    assert d["files"][0]["objective"] == "sum of Task Loss + KD Loss (no total logged)", d["files"]


def test_a_config_section_named_eval_does_not_make_later_training_lines_validation(tmp_path):
    """paddle_vinvl's workerlog (console, committed): its config dump has an "EVAL:" section, read as an
    evaluation's start; it stayed open over the training lines after it, and an epoch's "** ** Epoch
    [1] done! Training loss: 0.02386 ** **" was a validation loss. A training record closes it."""
    text = "EVAL:\n  CHECKPOINT_DIR: \n  DEV: minival\n" + "".join(
        f"02/13/2022 23:58:26 - INFO - Epoch: [1], step: [{s}], lr: 0.000019, batch_loss: 0.03, avg_loss: 0.0239\n"
        for s in range(100, 4500, 100)
    )
    text += "02/13/2022 23:58:43 - INFO - ** ** Epoch [1] done! Training loss: 0.02386 ** **\n"
    _, recs, _ = read(write(tmp_path, "workerlog.0", text))
    assert [r.step for r in recs if r.loss is not None] == list(range(100, 4500, 100))
    assert not [r for r in recs if r.val_loss is not None]
    # an evaluation section that is one still gives its loss as the validation loss
    text = "".join(f"step {s} loss: {2 - s / 1000}\n" for s in range(10, 60, 10))
    text += "Evaluating\nmean_loss: 1.99\n"
    _, recs, _ = read(write(tmp_path, "b.log", text))
    assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [(50, 1.99)]


def test_an_lr_printed_as_zero_with_fixed_decimals_and_a_pprinted_config(tmp_path):
    """fresh22's verl PPO console (private): Ray's prefix, a pprint-ed Hydra config whose nested
    "'optim': {'lr': 1e-06," was read as an LR record (a 'warm-up' at steps 1-2), then every step's
    "actor/lr:0.000" (1e-6 printed with 3 decimals) read as an LR of 0: "LR 0 since step 101, wasted
    compute". The nested dict is configuration; "0.000" is below the print's precision, not 0."""
    pre = "\x1b[36m(TaskRunner pid=14640)\x1b[0m "
    text = pre + "{'actor_rollout_ref': {'actor': {'clip_ratio': 0.2,\n"
    text += pre + "                                  'optim': {'lr': 1e-06,\n"
    text += pre + "                                            'weight_decay': 0.01},\n"
    text += "".join(
        f"{pre}step:{s} - actor/pg_loss:{0.01 * (s % 3) - 0.01} - actor/lr:0.000 - critic/lr:0.000 - "
        f"actor/grad_norm:{0.5 + s / 1000}\n"
        for s in range(101, 161)
    )
    path = write(tmp_path, "train.log", text)
    _, recs, reader = read(path)
    assert [r.step for r in recs] == list(range(101, 161)) and not any(r.lr is not None for r in recs)
    assert reader.skip_reasons.get("LR printed as 0.000 (below its printed precision: not read as 0)") == 60
    # a real 0 stays 0: "0.0", "0", "0e+00", "0.000000e+00"
    for zero in ("0.0", "0", "0e+00", "0.000000e+00"):
        _, recs, _ = read(write(tmp_path, "z.log", "".join(f"step {s} loss: 1.0 lr: {zero}\n" for s in range(1, 4))))
        assert [r.lr for r in recs] == [0.0, 0.0, 0.0], zero


def test_fresh23_print_shapes(tmp_path):
    """fresh23 (held out, measured on a5014d6: 5/12 formats), four of its unread shapes:
    Keras 2 verbose=2 with ModelCheckpoint(verbose=1) lines between the header and the metrics (read as
    epoch records of val_acc: the file unread); a logger's time prefix glued to its message and an
    "Epoch: 0002" header over "iter:0020" counters that start again each epoch (60 launches of 7
    steps); a TF1 loop's "current step: 58035th step" over "batch loss:0.0047"; Paddle's "avg loss so
    far is 0.1097" after "Epoch 0, Step 25, ..."."""
    keras = "".join(
        f"Epoch {e}/3\nEpoch {e - 1:05d}: val_acc improved from -inf to 0.69706, saving model to w.hdf5\n"
        f"300s - loss: {3.4 - e / 10:.4f} - acc: 0.7004 - val_loss: 3.4281 - val_acc: 0.6971\n"
        for e in range(1, 4)
    )
    _, recs, _ = read(write(tmp_path, "keras.log", keras))
    assert [(r.step, r.loss) for r in recs] == [(1, 3.3), (2, 3.2), (3, 3.1)]
    gcn = "".join(
        f"[2022-06-26 21:02:45,778]Epoch: {e:04d}\n"
        + "".join(
            f"[2022-06-26 21:02:49,172]iter:{i:04d} loss_train: {2 - e / 10:.4f} acc_train: 0.35\n"
            for i in (20, 40, 60)
        )
        for e in range(1, 4)
    )
    _, recs, _ = read(write(tmp_path, "gcn.log", gcn))
    assert [r.step for r in recs] == [20, 40, 60, 80, 100, 120, 140, 160, 180]
    tf1 = "".join(f"current step: {s}th step\nbatch loss:{4 - s / 100}\n" for s in range(1, 30))
    _, recs, _ = read(write(tmp_path, "tf1.log", tf1))
    assert [r.step for r in recs] == list(range(1, 30)) and recs[0].loss == 3.99
    paddle = "".join(
        f"Epoch {e}, Step {s}, total used time 7.17 (s), avg loss so far is {0.1 / (1 + e + s / 100)}\n"
        for e in range(3)
        for s in (25, 50, 75, 100, 125)
    )
    _, recs, _ = read(write(tmp_path, "train.log", paddle))
    assert [r.step for r in recs] == [125 * e + s for e in range(3) for s in (25, 50, 75, 100, 125)]
    assert recs[0].loss == pytest.approx(0.1 / 1.25)


def test_mxnet_speedometer_batch_ranges(tmp_path):
    """fresh23's SSH face detector (MIT, committed): MXNet's Speedometer prints "Epoch[5] Batch [0-40]"
    (auto_reset=False; "[20-40]" with it): the range's end is the batch count. Read as its start (0),
    each epoch's records fell on one step (3,052 records on 39 steps)."""
    for reset in (False, True):
        text = "".join(
            f"2018-10-11 09:16:49,200 INFO - Epoch[{e}] Batch [{b - 20 if reset else 0}-{b}]\tSpeed: 25.77 "
            f"samples/sec\tM0_RPNAcc=0.996745\tM0_RPNL1BboxLoss={0.08 - e / 1000 - b / 100000:.6f}\n"
            for e in range(5, 8)
            for b in range(20, 101, 20)
        )
        _, recs, _ = read(write(tmp_path, f"train{reset}.log", text))
        steps = [r.step for r in recs]
        assert len(set(steps)) == 15 and steps == sorted(steps), (reset, steps)


def test_mxnet_speedometer_one_metric_a_line(tmp_path):
    """fresh61's MXNet SSD (Module.fit with three metrics): the Speedometer prints each metric of a batch
    on a line of its own under the same "Epoch[e] Batch [b]" ("Train-Acc=", "Train-ObjectAcc=", then
    "Train-SmoothL1="), and the epoch's result as "Epoch[e] Train-SmoothL1=". A first line with no loss
    was a header whose group took every later line of the epoch (the counter was no step of a line's
    own): 776 batch records read as 257. Each batch is a record, at its step in the epoch."""
    lines = []
    for e in range(3):
        for b in range(20, 401, 20):
            for name, v in (("Acc", 0.5), ("ObjectAcc", 0.1), ("SmoothL1", 2.0 / (1 + e + b / 400))):
                lines.append(f"Epoch[{e}] Batch [{b}]\tSpeed: 36.22 samples/sec\tTrain-{name}={v:.6f}")
        lines += [
            f"Epoch[{e}] Train-Acc=0.9",
            f"Epoch[{e}] Train-SmoothL1={2.0 / (2 + e):.6f}",
            f"Epoch[{e}] Time cost=106.6",
        ]
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    losses = [r for r in recs if r.loss is not None]
    steps = [r.step for r in losses]
    assert len(losses) == 60 and steps == sorted(steps) and len(set(steps)) == 60, steps[:25]
    assert losses[0].loss == pytest.approx(2.0 / 1.05) and losses[-1].loss == pytest.approx(2.0 / 4.0)


def test_mlx_lm_validation_lines_are_no_training_losses(tmp_path):
    """fresh63's MLX-LM LoRA log: "Iter 200: Val loss 0.351, Val took 8.840s" beside "Iter 200: Train loss 0.030,
    Learning Rate 1.000e-04, ...". The spaced pair "Val loss" was read, and its tail word "loss 0.351" again as
    a training loss at that step: 10 phantom spikes (0.351 against a baseline of 0.035)."""
    lines = ["Iter 1: Val loss 1.896, Val took 8.128s"]
    for i in range(10, 1010, 10):
        if i % 200 == 0:
            lines.append(f"Iter {i}: Val loss {0.4 - i / 10000:.3f}, Val took 8.840s")
        lines.append(
            f"Iter {i}: Train loss {0.75 * 0.999**i:.3f}, Learning Rate 1.000e-04, It/sec 1.035, Tokens/sec 485.9"
        )
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    train = [r for r in recs if r.loss is not None]
    val = [r for r in recs if r.val_loss is not None]
    assert len(train) == 100 and all(r.val_loss is None for r in train)
    assert [r.step for r in val] == [1, 200, 400, 600, 800, 1000] and all(r.loss is None for r in val)


def test_a_second_level_tag_after_the_loggers_is_part_of_the_prefix(tmp_path):
    """fresh63's CLoRA run logs through a logger that re-prints the script's own tagged lines:
    "[2025-07-07 12:01:34,174] INFO: [INFO] loss: 2.8619, orth_loss: 0.0018, total_loss: 2.8637, grad_norm: 21.1250",
    no step anywhere: "no training metrics recognised" (exit 2). The second tag is the prefix's too."""
    text = "".join(
        f"[2025-07-07 12:{i // 60 % 60:02d}:{i % 60:02d},174] INFO: [INFO] loss: {2.9 - i / 1000:.4f}, orth_loss: 0.0018, "
        f"total_loss: {2.9018 - i / 1000:.4f}, grad_norm: 21.1250\n"
        for i in range(60)
    )
    _, recs, _ = read(write(tmp_path, "train.log", text))
    losses = [r for r in recs if r.loss is not None]
    assert len(losses) == 60 and losses[0].loss == pytest.approx(2.9) and losses[0].grad_norm == 21.125


def test_a_qualified_counter_after_the_epoch_is_the_step(tmp_path):
    # pylogging_t5_distill (private): logging's "%(asctime)s - %(levelname)s - %(message)s"
    text = "".join(
        f"2024-11-05 23:17:05,224 - INFO - Epoch {1 + i // 20}, Global Batch {5 * (i + 1)}, "
        f"Training Loss: {33 - i * 0.1:.4f}, Validation Loss: 11.8694, Validation Accuracy: 0.0000\n"
        for i in range(40)
    )
    _, recs, _ = read(write(tmp_path, "training.log", text))
    # the counter runs on across epochs (a global one): it is the step
    assert [r.step for r in recs] == list(range(5, 201, 5))
    assert recs[0].loss == 33.0 and recs[0].val_loss == 11.8694 and recs[-1].epoch == 2


def test_batch_counter_leading_its_line_is_placed_in_the_header_epoch(tmp_path):
    # pc_transformer_29_launches (private): "Epoch e/5" alone on its line, then the batches
    out = []
    for e in range(1, 4):
        out.append(f"Epoch {e}/5")
        out += [
            f"  Batch {b}/100 | Batch Energy: 3.2260 | Batch Loss: {11 - e - b / 100:.4f}  | Perplexity: 61766.2092"
            for b in range(10, 101, 10)
        ]
    out[5] = out[5].replace("Batch Loss: 9.5000", "Batch Loss: nan")  # (the log's NaN batches)
    _, recs, _ = read(write(tmp_path, "training.log", "\n".join(out) + "\n"))
    # 30 records, not 3: (epoch - 1) x 100 + batch
    assert [r.step for r in recs] == [100 * (e - 1) + b for e in range(1, 4) for b in range(10, 101, 10)]
    assert recs[0].loss == 9.9 and recs[0].epoch == 1 and recs[-1].epoch == 3
    assert math.isnan(recs[4].loss) and recs[4].step == 50
    # with no header a "Batch n/N" line is not taken for a step of its own; "batch 32" is a size
    _, recs, _ = read(
        write(tmp_path, "b.log", "".join(f"batch 32 | loss: {1 / s:.3f} | step {s}\n" for s in range(1, 30)))
    )
    assert [r.step for r in recs] == list(range(1, 30))


def test_ep_with_its_total_is_an_epoch(tmp_path):
    # dino_pretrain_collapse_then_finetune (private): print(f"dino pretrain ep {ep:2d}/{E}  loss={loss:.5f}")
    text = "".join(f"  dino pretrain ep {e:2d}/25  loss={3.15 + e / 100:.5f}\n" for e in range(1, 26))
    _, recs, reader = read(write(tmp_path, "ssl_dino_run.log", text))
    assert [r.step for r in recs] == list(range(1, 26)) and recs[0].loss == 3.16
    assert reader.run_info["total_steps"] in (25, "25")
    # "ep" with no total stays no counter (a word, "step" abbreviated elsewhere)
    text = "".join(f"rep {e} reps done, loss 0.5\n" for e in range(1, 6))
    fmt, recs, _ = read(write(tmp_path, "reps.log", text + "".join(f"step {s} loss {1 / s}\n" for s in range(1, 30))))
    assert [r.step for r in recs] == list(range(1, 30))


def test_a_phase_word_leading_the_line_is_an_evaluation(tmp_path):
    # fresh audio_sep_train_epoch_batches (private; Demucs / Dora's logger): the validation's
    # batches "- Valid | Epoch 1 | 1/3" were read as training counters of another length (86 of
    # its 86 steps read as 6, 63 records "stray"); its summary is the validation loss
    out = ["- Training..."]
    for e in range(1, 4):
        out += [
            f"- Train | Epoch {e} | {b}/573 | 1.45 it/sec | Loss {0.3 - e / 100 - b / 1e5:.4f} | Reco 0.2312 | Grad 0.1202"
            for b in (143, 286, 429, 572)
        ]
        out.append(f"- Train Summary | Epoch {e} | Loss={0.3 - e / 100:.4f} | Reco=0.1994 | Grad=0.0963")
        out += [f"- Valid | Epoch {e} | {b}/3 | 0.31 it/sec | Loss 0.2213 | Reco 0.2213 | Nsdr 3.922" for b in (1, 2)]
        out.append(f"- Valid Summary | Epoch {e} | Loss={0.25 - e / 100:.4f} | Reco=0.2223 | Nsdr=3.8 | Best=0.2223")
    _, recs, _ = read(write(tmp_path, "train_log.txt", "\n".join(out) + "\n"))
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == [573 * (e - 1) + b for e in range(1, 4) for b in (143, 286, 429, 572)]
    val = [(r.step, r.val_loss) for r in recs if r.val_loss is not None]
    assert val == [(572, 0.24), (573 + 572, 0.23), (2 * 573 + 572, 0.22)]
    # "val_loss: 0.3 epoch 2" and "Test 12, loss: 0.5" are not this rule's (a key; a phase counter)
    from tsm_tui.sources.generic_text import EVAL_LEAD

    assert EVAL_LEAD.match("val_loss: 0.3 epoch 2") is None and EVAL_LEAD.match("Test 12, loss: 0.5") is None
    assert EVAL_LEAD.match("Test epoch 3: loss 0.5") is not None


JINGJU = Path(paths.TESTS).parent / "bench" / "corpus" / "fresh10" / "apex_transformer_jingju_100k_steps"


# apex_transformer_jingju_100k_steps (committed, Apache-2.0: zhengmidon/jingju_baseline's finetuning.log),
# lines 1-52 verbatim but for the apex option dump, shortened
JINGJU_HEAD = """nohup: ignoring input
Using GPU 0 for training.
Selected optimization level O1:  Insert automatic casts around Pytorch functions and Tensor methods.

Defaults for this optimization level are:
enabled                : True
opt_level              : O1
loss_scale             : dynamic
Worker is training ...
|     1000/  100000 steps| 14071.82 tokens/s| loss    5.53| acc: 0.188
------validating------
validation loss:4.879089684688169
time usage 57.40252614021301s
------validation complete------
|     2000/  100000 steps| 14100.14 tokens/s| loss    4.90| acc: 0.258
------validating------
validation loss:4.490028438164556
time usage 57.36634373664856s
------validation complete------
Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 65536.0
|     3000/  100000 steps| 14006.17 tokens/s| loss    4.58| acc: 0.279
------validating------
validation loss:4.174941787740966
time usage 57.878963470458984s
------validation complete------
|     4000/  100000 steps| 13979.04 tokens/s| loss    4.25| acc: 0.301
------validating------
validation loss:3.7817093683510423
time usage 57.47017812728882s
------validation complete------
|     5000/  100000 steps| 13972.41 tokens/s| loss    3.94| acc: 0.339
------validating------
validation loss:3.600331609126985
time usage 57.43608093261719s
------validation complete------
|     6000/  100000 steps| 13919.26 tokens/s| loss    3.78| acc: 0.355
------validating------
validation loss:3.4593839231206474
time usage 57.486650466918945s
------validation complete------
Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 131072.0
"""


def test_a_count_before_its_unit_word_is_the_step_of_a_progress_table(tmp_path):
    fmt, recs, reader = read(write(tmp_path, "finetuning.log", JINGJU_HEAD))
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == [1000, 2000, 3000, 4000, 5000, 6000]
    # the key and its value inside a cell apart by spaces ("loss    5.53"), or by ":" ("acc: 0.188")
    assert [r.loss for r in train] == [5.53, 4.9, 4.58, 4.25, 3.94, 3.78] and train[0].extra == {"acc": 0.188}
    # the throughput cell ("14071.82 tokens/s": a number before its name) is no metric of its own name
    assert all(set(r.extra or {}) == {"acc"} for r in train)
    # the validation loss printed on its own line is the last step's
    vals = [(r.step, r.val_loss) for r in recs if r.val_loss is not None]
    assert vals[0] == (1000, 4.879089684688169) and [s for s, _ in vals] == [1000, 2000, 3000, 4000, 5000, 6000]
    assert reader.run_info["total_steps"] == 100000
    # apex amp's "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 65536.0": a skipped
    # fp16 step at the last step read, with the new loss scale (no loss: not a non-finite training loss)
    over = [(r.step, r.loss_scale) for r in recs if r.overflow]
    assert over == [(2000, 65536.0), (6000, 131072.0)] and all(r.loss is None for r in recs if r.overflow)
    assert len(recs) == 14


def test_the_whole_committed_progress_table_log_reads_its_100_records():
    fmt, recs, _ = read(JINGJU / "finetuning.log")
    train = [r for r in recs if r.loss is not None]
    assert fmt == "text" and len(train) == 100
    assert train[0].step == 1000 and train[-1].step == 100000 and train[-1].loss == 1.78
    assert sum(r.val_loss is not None for r in recs) == 100
    assert sum(r.overflow for r in recs) == 38


def test_other_units_and_tables_of_the_same_shape(tmp_path):
    # fairseq / OpenNMT-style tables of other trainers (shapes written here, values made up): "updates" and
    # "iters" count steps too, a cell of "name value" or "name: value" or "name=value"
    text = "".join(
        f"| {s:>6d}/ 5000 updates | loss {4 - s / 1000:.3f} | ppl {2 ** (4 - s / 1000):.2f} | lr 5e-4 |\n"
        for s in range(100, 1100, 100)
    )
    _, recs, reader = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == list(range(100, 1100, 100))
    assert recs[0].loss == pytest.approx(3.9) and recs[0].lr == 5e-4 and reader.run_info["total_steps"] == 5000
    text = "".join(f"[train] {s}/200 iters | loss={1 / s:.4f} | grad_norm 0.5\n" for s in range(1, 30))
    _, recs, _ = read(write(tmp_path, "iters.log", text))
    assert [r.step for r in recs] == list(range(1, 30)) and recs[0].grad_norm == 0.5


def test_prose_that_counts_steps_is_no_record_and_no_header(tmp_path):
    # a count of steps with no metric on its line is prose: no record, and the lines after it are not its
    # metrics (a "step 100" alone would head them: text_groups); a rate "steps/s" is no count
    text = "".join(
        f"Finished {s}/1000 steps, saving a checkpoint\nbest: 0.5\nthroughput 3.2 steps/s\nspeed: {s}/1000 steps/s\n"
        for s in range(100, 1100, 100)
    )
    path = write(tmp_path, "notes.log", text)
    from tsm_tui.sources import registry

    reader, fi = registry.open_reader(str(path))
    assert reader is None or fi.format == "console", fi.note


# -- GPT2-chitchat's logger ---------------------------------------------------------------------------
# gpt2_chinese_pylogging_eight_launches is private (no licence found): these lines are written here in its
# shape (GPT2-chitchat's train.py: logger.info("batch {} of epoch {}, loss {}, batch_acc {}, lr {}".format(
# batch_idx + 1, epoch + 1, loss.item() * ..., batch_acc, scheduler.get_lr())), logging's
# "%(asctime)s - %(levelname)s - %(message)s"), the values made up


def _launch(batches: int, epochs: int = 1, bracket: bool = True) -> str:
    out = [
        "2024-02-11 20:57:54,593 - INFO - using device:cpu\n",
        "2024-02-11 20:57:57,530 - INFO - args:Namespace(batch_size=4, epochs=100, gradient_accumulation_steps=4, "
        "log_step=1, lr=2.6e-05, warmup_steps=4000)\n",
        "2024-02-11 20:58:02,375 - INFO - starting training\n",
    ]
    k = 0
    for e in range(1, epochs + 1):
        for b in range(1, batches + 1):
            lr = 6.5e-9 * (k // 4)
            lrs = f"[{lr}]" if bracket else f"{lr}"
            out.append(
                f"2024-02-11 20:58:{k % 60:02d},930 - INFO - batch {b} of epoch {e}, loss {9.6 - k / 100}, "
                f"batch_acc {k / 1000}, lr {lrs}\n"
            )
            k += 1
        out.append(f"2024-02-11 21:58:03,930 - INFO - epoch {e}: loss 9.1, predict_acc 0.01\n")
    return "".join(out)


def test_a_batch_of_its_epoch_then_comma_cells(tmp_path):
    _, recs, _ = read(write(tmp_path, "log/train.log", _launch(12, bracket=True) + _launch(30, bracket=False)))
    assert [r.step for r in recs] == list(range(1, 13)) + list(range(1, 31))
    # "loss 9.6" and "batch_acc 0.0" apart by a space; the LR a one-element list ("lr [0.0]") or a number
    assert recs[0].loss == 9.6 and recs[0].extra == {"batch_acc": 0.0} and recs[0].lr == 0.0
    assert recs[4].lr == 6.5e-9 and recs[-1].lr == pytest.approx(6.5e-9 * 7)
    # each launch's first record carries the mark (its "args:Namespace(" banner)
    assert [r.step for r in recs if r.launch] == [1, 1]
    # the epoch's summary line ("epoch 1: loss 9.1, predict_acc 0.01") is no step
    assert all(r.epoch == 1 for r in recs)


def test_the_batch_counter_starts_again_each_epoch(tmp_path):
    # epoch 2's batches come after epoch 1's: the epoch's length is its last batch logged (epoch_steps.py)
    _, recs, _ = read(write(tmp_path, "train.log", _launch(10, epochs=3)))
    assert [r.step for r in recs] == list(range(1, 31))
    assert [r.epoch for r in recs] == [1] * 10 + [2] * 10 + [3] * 10
    # a fork that names its cells in words and prints a second loss: "batch accuracy" needs its ":" (a
    # name of several words apart from its value by a space is prose), "a_loss" is read
    text = "".join(
        f"batch {b} of epoch 1, loss {3 - b / 100}, acc 0.{b:02d}, lr [{b}e-06, {b}e-06], a_loss 0.{b:02d}\n"
        for b in range(1, 21)
    )
    _, recs, _ = read(write(tmp_path, "fork.log", text))
    assert [r.step for r in recs] == list(range(1, 21))
    assert recs[4].lr == 5e-06 and recs[4].extra["acc"] == 0.05 and recs[4].extra["a_loss"] == 0.05


def test_a_sentence_after_a_step_gives_no_cells(tmp_path):
    # "name value" without ":" / "=" is read only where the line is a list of such cells to its end
    # (a counter of its epoch with no metric after it heads no group: "best loss: 0.5" is not its record)
    text = "".join(
        f"step {s}, the loss is {s / 10} now\nstep {s}, saving model to ckpt 3\nbatch {s} of epoch 1, loss was "
        f"{s / 10}\nsaving the model at step {s} of epoch 1\nbest loss: 0.5\n"
        for s in range(1, 8)
    )
    path = write(tmp_path, "prose.log", text)
    from tsm_tui.sources import registry

    reader, fi = registry.open_reader(str(path))
    assert reader is None or fi.format == "console", fi.note
    # a list of cells after a step marker, on any step line: read (the whole line is cells)
    _, recs, _ = read(write(tmp_path, "cells.log", "".join(f"step {s}, loss 1.{s}, acc 0.{s}\n" for s in range(1, 9))))
    assert recs[0].loss == 1.1 and recs[0].extra == {"acc": 0.1}


def test_bad_lines_of_both_classes_never_raise(tmp_path):
    lines = [
        "batch 3 of epoch 1, loss 9.4, batch_acc",  # truncated
        "batch 4 of epoch 1, loss 9.4, batch_acc 0.0, lr [",
        "batch 99999999999999999999999 of epoch 1, loss 9.4",  # a counter out of range
        "batch 5 of epoch 99999999999999999999999, loss 9.4",
        "batch 6 of epoch 1, loss 1e400, lr [1e400]",  # a number out of range
        "batch 7 of epoch 1, loss nan, batch_acc 0.0, lr [nan]",
        "batch 8 of epoch 1, loss inf, lr [" + "1," * 50000 + "x",  # a hostile list
        "|  999999999999999999999999/ 1 steps| loss    5.0|",
        "|     9/  100 steps| loss    nan| acc: 0.1",
        "|     10/  100 steps| loss    5.0|" + " loss 1" * 20000,
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 1e400",
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to",
        "Gradient overflow.  " * 5000 + "Skipping step, loss scaler 0 reducing loss scale to 2.0",
    ]
    _, recs, reader = read(write(tmp_path, "bad.log", "\n".join(lines * 3) + "\n"))
    assert any(r.loss is not None and math.isnan(r.loss) for r in recs)
    assert reader.skipped > 0  # (the counters out of range: counted, not read)


ROOT = Path(__file__).resolve().parents[2]


NOHUP = ROOT / "bench" / "corpus" / "fresh12" / "nohup_ddp_video_sr_nan_crash_loop" / "nohup.out"


def feed(lines: list[str]) -> list:
    r = KeyValueTextReader("train.log")
    r.text_tap = None  # (the records only: no crash or checkpoint lines)
    out = []
    for ln in lines:
        out += r.feed(ln)
    return out + r.flush()


# ------------------------------------------------------------------ sentence-style print logs
def dae_log(epochs: int = 3, per: int = 1000, every: int = 100) -> str:
    """A log in the DAE notebook's shape (written by us): a CUDA line, the notebook widget's repr, a
    record every ``every`` minibatches, a validation loss every 10 records, a torch warning."""
    out = ["CUDA is supported", "HBox(children=(IntProgress(value=0, max=1000), HTML(value='')))"]
    k = 0
    for e in range(epochs):
        for mb in range(0, per, every):
            loss = 4.212063789367676 if k == 0 else 0.8 + 0.01 * (k % 7)
            out.append(f"epoch: {e}. Minibatch: {mb}. Training loss: {loss}.")
            if k == 0:
                out.append(
                    "/home/u/.local/lib/python3.6/site-packages/torch/nn/functional.py:1332: UserWarning: "
                    "nn.functional.sigmoid is deprecated. Use torch.sigmoid instead."
                )
            if k % 10 == 0:
                out.append(f"Val loss: {1038.166259765625 + k}")
            k += 1
    return "\n".join(out) + "\n"


def test_a_sentence_style_log_is_read_with_its_epoch_and_minibatch(tmp_path):
    fmt, recs, reader = read(write(tmp_path, "log/train_DAE.log", dae_log()))
    assert fmt == "text"
    train = [r for r in recs if r.loss is not None]
    assert len(train) == 30
    # the epoch's length is the first epoch's last counter plus the logging interval (900 + 100):
    # epoch_steps.py, as every epoch / counter log whose length is not printed
    assert [r.step for r in train[:3]] == [0, 100, 200]
    assert train[10].step == 1000 and train[-1].step == 2 * 1000 + 900
    assert train[0].loss == pytest.approx(4.212063789367676)
    assert train[1].loss == pytest.approx(0.81)
    val = [r for r in recs if r.val_loss is not None]
    assert [r.step for r in val] == [0, 1000, 2000] and val[0].val_loss == pytest.approx(1038.166259765625)


def test_a_sentence_style_log_is_judged(tmp_path, capsys):
    write(tmp_path / "run", "log/train_DAE.log", dae_log(epochs=4, per=2000))
    rc = main([str(tmp_path / "run"), "--report", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    assert rep["steps"]["first"] == 0 and rep["steps"]["last"] == 3 * 2000 + 1900
    assert rep["steps"]["count"] == 80


@pytest.mark.parametrize(
    "line, want",
    [
        ("epoch: 0. Minibatch: 100. Training loss: 1.5.", "epoch: 0  Minibatch: 100  Training loss: 1.5 "),
        ("loss: 1. lr: 2e-05.", "loss: 1  lr: 2e-05 "),  # a float printed with no decimals: 1 either way
        ("loss: nan.", "loss: nan "),
        ("torch 1.13.1. CUDA 11.7.", "torch 1.13.1. CUDA 11.7 "),  # a version's last part is no number
        ("host 10.0.0.1. port: 29500.", "host 10.0.0.1. port: 29500 "),  # an address's neither
        ("saved model.100.pt. loss: 0.5.", "saved model.100.pt. loss: 0.5 "),
        ("loading resnet50. done", "loading resnet50. done"),  # a word's digits
        ("loss: 1.5... waiting", "loss: 1.5... waiting"),  # an ellipsis
        ("step 3.5e-3.x", "step 3.5e-3.x"),  # a stop before a letter: not a sentence's end
    ],
)
def test_only_a_number_that_ends_a_sentence_loses_its_stop(line, want):
    assert _sentence_stops(line) == want


def test_dotted_runs_are_not_read_as_numbers():
    # (a version, an address, a file name, an ellipsis: no record, as before)
    assert feed(["step: 5. version: 1.2.3.", "step: 6. host: 10.0.0.1.", "step: 7. saved: model.100.pt."]) == []
    assert feed(["step: 8. loss: 1.5..."]) == []
    (rec,) = feed(["Step 9. Loss: 0.25. Accuracy: 0.5."])
    assert (rec.step, rec.loss) == (9, 0.25)


def test_a_minibatch_counter_is_placed_in_its_epoch():
    recs = feed([f"Epoch {e}, Minibatch {b}, loss: 0.{e}{b}" for e in (1, 2) for b in (10, 20, 30)])
    assert [r.step for r in recs] == [10, 20, 30, 40, 50, 60]
    recs = feed([f"Epoch [{e}/5], Mini-batch [{b}/30], loss: 0.5" for e in (1, 2) for b in (10, 20, 30)])
    assert [r.step for r in recs] == [10, 20, 30, 40, 50, 60]


# ------------------------------------------------------------------ a non-finite line of another shape
HEAD = [  # nohup.out's lines, as the file has them, a selection of its lines 9-84 (a launch's epoch / LR line,
    # its first record, the NaN warnings of two ranks, the traceback's first and last lines, the next launch's records)
    "Epoch=97, lr=0.00063625",
    "average time cost 35.06993476019966 ms",
    "",
    "2021-11-23 18:14:05 Epoch[97/800](20/500): Loss: 0.00826599",
    "epoch 97, skip iteration 21, loss nan",
    "epoch 97, skip iteration 21, loss nan",
    "Traceback (most recent call last):",
    '  File "main.py", line 55, in <module>',
    "RuntimeWarning: epoch 97, iteration 21, loss nan",
    "2021-11-23 18:14:52 Epoch[97/800](20/500): Loss: 0.01279326",
    "2021-11-23 18:15:07 Epoch[97/800](40/500): Loss: 0.01577588",
]


RELAUNCH = [  # a later launch from epoch 1 of 900 (nohup.out lines 25107-25108)
    "2021-11-30 18:41:38 Epoch[1/900](20/500): Loss: 0.05061171",
    "2021-11-30 18:41:51 Epoch[1/900](40/500): Loss: 0.03956886",
]


def test_the_nan_warning_is_placed_in_its_epoch_as_the_records_are():
    recs = feed(HEAD)
    nan = [r for r in recs if r.loss is not None and r.loss != r.loss]
    assert [r.step for r in nan] == [48021, 48021, 48021]
    train = [r.step for r in recs if r.loss is not None and r.loss == r.loss]
    assert train == [48020, 48020, 48040]  # (97 - 1) x 500 + 20: the first line shows a batch index


def test_a_relaunch_below_the_first_epoch_is_never_placed_below_zero():
    recs = feed(HEAD + RELAUNCH)
    assert [r.step for r in recs[-2:]] == [20, 40]
    assert min(r.step for r in recs) >= 0


@pytest.mark.skipif(not NOHUP.exists(), reason="bench/corpus/fresh12 not present")
def test_the_committed_crash_loop_log_reads_no_negative_step_and_its_first_nan_at_48021():
    fmt, recs, _ = read(NOHUP)
    assert fmt == "text"
    steps = [int(s) for r in recs for s in (r.step if hasattr(r, "n") else [r.step])]
    assert min(steps) >= 0
    nan = [r for r in recs if not hasattr(r, "n") and r.loss is not None and r.loss != r.loss]
    assert nan[0].step == 48021


@pytest.mark.parametrize(
    "line",
    [
        "epoch: 1. " * 20000 + "x",
        "loss: " + "1." * 100000 + " ",
        "loss: " + "1" * 200000 + ". ",
        "epoch 1, skip " * 14000 + "iteration 5, loss nan",
        "epoch 1 " + "a" * 200000 + " iteration 5 loss nan",
        "Epoch[1/2](1/2): Loss: 1." + " epoch 1, iteration 1." * 9000,
    ],
)
def test_hostile_sentence_lines_do_not_raise(line):
    r = KeyValueTextReader("train.log")
    r.feed("Epoch[97/800](20/500): Loss: 0.5")
    r.feed(line)
    r.feed_chunk((line + "\n").encode() * 2)
    r.flush()


# ------------------------------------------------------------------ "Training iter #N:"
# fresh14's TF1 LSTM nohup.out is private: the lines below are written by us in its shape.
def tf1_lines(n: int = 30) -> list[str]:
    """The TF1 LSTM nohup's shape (written by us): a record every 2,000 iterations, a test line after it."""
    out = ["WARNING:tensorflow:From lstm.py:88: dynamic_rnn (from tensorflow.python.ops.rnn) is deprecated."]
    for k in range(1, n + 1):
        out.append(
            f"Training iter #{2000 * k}:   Batch Loss = {25.265766 - k * 0.1:.6f}, Accuracy = 0.{34 + k}00000035762787"
        )
        out.append(f"PERFORMANCE ON TEST SET: Batch Loss = {26.36 - k * 0.1:.4f}, Accuracy = 0.16")
        out.append("")
    return out


def test_an_iter_counter_after_a_hash_is_the_step():
    recs = [r for r in feed(tf1_lines()) if r.loss is not None]
    assert [r.step for r in recs] == [2000 * k for k in range(1, 31)]
    assert recs[0].loss == pytest.approx(25.165766)
    for line, step in [("Iter #5: loss = 2.5", 5), ("step #3, loss: 1.25", 3), ("Iteration #12 loss=0.5", 12)]:
        (r,) = feed([line])
        assert r.step == step


def test_the_tf1_nohup_shape_reads_from_a_folder(tmp_path, capsys):
    write(tmp_path / "kfold3", "nohup.out", "\n".join(tf1_lines(60)) + "\n")
    rep = report_json(tmp_path, capsys)
    assert rep["sources"]["loss"]["key"] == "Batch Loss"
    assert (rep["steps"]["first"], rep["steps"]["last"]) == (2000, 120000)


# ------------------------------------------------------------------ W&B's console lines
def test_wandb_run_summary_flushed_among_the_steps_is_no_record(tmp_path):
    # nanoGPT under nohup with wandb on (fresh15's held-out log, this shape): W&B's exit block
    # ("wandb: Run history:" sparklines, "wandb: Run summary:" key / value lines) was flushed
    # between "iter 2906" and "iter 2907"; its "iter 3000" was read as a record, then 2907 as a
    # step going back: a phantom resume, and the LR from the summary line only
    it = "".join(f"iter {s}: loss {2.0 - s / 5000:.4f}, time 25.31ms, mfu 0.06%\n" for s in range(0, 50))
    block = (
        "wandb: \n"
        "wandb: Run history:\n"
        "wandb:            iter ▁▁▁▂▂▂▂▂▂▃▃▃▃▃▃▄▄▄▄▄▅▅▅▅▅▅▆▆▆▆▆▆▇▇▇▇▇███\n"
        "wandb:      train/loss █▆▅▅▅▅▄▄▅▄▄▅▄▄▄▄▃▃▂▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁\n"
        "wandb: \n"
        "wandb: Run summary:\n"
        "wandb:            iter 3000\n"
        "wandb:              lr 0.0001\n"
        "wandb:      train/loss 0.02522\n"
        "wandb:        val/loss 0.85618\n"
        "wandb: \n"
    )
    rest = "".join(f"iter {s}: loss {2.0 - s / 5000:.4f}, time 25.31ms, mfu 0.06%\n" for s in range(50, 60))
    p = write(tmp_path, "train_output.log", it + block + rest)
    fmt, recs, _ = read(p)
    steps = [r.step for r in recs if getattr(r, "loss", None) is not None]
    assert fmt == "nanogpt" and steps == list(range(60))
    assert all(getattr(r, "lr", None) is None for r in recs)


def test_leading_bracketed_counters_are_the_step(tmp_path):
    """Two or more bracketed counters lead the line, then its metrics: the PyTorch DCGAN example's
    "[0/5][50/1583]\\tLoss_D: ...\\tLoss_G: ..." (epoch from 0, 1583 batches an epoch) and LEADS'
    "[66][66/1200][1/1] | loss: 1.905e+03 | ..." (fresh17, MIT: one full batch an epoch, the epoch is
    the step), read "no training metrics recognised". An evaluation line among them whose numbers are
    no metric opens no group that swallows the records after it."""
    text = "".join(
        f"[{e}/5][{b}/1583]\tLoss_D: 1.2\tLoss_G: {5 - e - b / 2000:.4f}\tD(x): 0.5\tD(G(z)): 0.4 / 0.3\n"
        for e in range(3)
        for b in (0, 50, 100)
    )
    _, recs, _ = read(write(tmp_path, "dcgan.log", text))
    assert [r.step for r in recs] == [0, 50, 100, 1583, 1633, 1683, 3166, 3216, 3266]
    path = os.path.join(BENCH, "corpus", "fresh17", "print_leads_neural_ode_loss_blowup", "exp", "LongRun", "log.txt")
    _, recs, _ = read(path)
    losses = [(r.step, r.loss) for r in recs if r.loss is not None]
    assert len(losses) == 1200 and losses[0] == (1, 0.09959) and losses[-1][0] == 1200
    assert dict(losses)[77] == 1.122e14  # (the blow-up of its environment 0, epochs 66-77)
    # brackets with no total after the first: no step from them (one bracket is a leading count, as
    # "[3/100] loss: 0.5" is step 3 of 100: test_a_counter_leading_a_line_of_named_metrics)
    _, recs, _ = read(write(tmp_path, "one.log", "[1][2] loss: 0.4\n[1][3] loss: 0.3\n"))
    assert recs == []


def test_a_phase_words_full_stop_and_an_abbreviated_name(tmp_path):
    """TransReID's logger: "Epoch[2] done. Loss: 8.670 (Base: 7.850, ...), Acc: 2.708%, Lr: 2.03e-04"
    (fresh17's SDF-Net log read nothing); an MT fine-tune's "Epoch: 1 | Step: 100 | Avg. loss: 30.605"."""
    text = "".join(
        f"2026-05-27 20:50:{e:02d} transreid.train INFO: Epoch[{e}] done. Loss: {12 - e:.3f} (Base: 9.860, "
        f"Orth: 1.742), Acc: 0.208%, Lr: 1.04e-04\n"
        for e in range(1, 6)
    )
    _, recs, _ = read(write(tmp_path, "train_log.txt", text))
    assert [(r.step, r.loss, r.lr) for r in recs][:2] == [(1, 11.0, 1.04e-4), (2, 10.0, 1.04e-4)]
    text = "".join(f"Epoch: 1 | Step: {s} | Avg. loss: {30 - s / 100:.3f}\n" for s in (100, 200, 300))
    _, recs, _ = read(write(tmp_path, "train2.log", text))
    assert [(r.step, r.loss) for r in recs] == [(100, 29.0), (200, 28.0), (300, 27.0)]


def test_a_phase_worded_epoch_header_and_its_metrics_on_the_next_lines(tmp_path):
    """ST-GCN / mmskeleton's print_log (fresh17, its 25 launches): "[03.24.23|09:56:11] Training epoch: 0"
    then "[03.24.23|09:56:31] \\tmean_loss: nan"; every 5 epochs "Eval epoch: 4" and its mean_loss (the
    validation loss). Read "too few records for a log": the first NaN at epoch 0 was never seen."""
    lines = []
    for e in range(6):
        lines += [f"[03.24.23|09:5{e}:11] Training epoch: {e}", f"[03.24.23|09:5{e}:31] \tmean_loss: nan"]
        lines += [f"[03.24.23|09:5{e}:31] Time consumption:", f"[03.24.23|09:5{e}:31] Done."]
        if e == 4:
            lines += ["[03.24.23|09:57:51] Eval epoch: 4", "[03.24.23|09:58:13] \tmean_loss: 5.99"]
            lines += ["[03.24.23|09:58:13] \tTop1: 0.00%", "[03.24.23|09:58:13] Done."]
    _, recs, _ = read(write(tmp_path, "log.txt", "\n".join(lines) + "\n"))
    train = [r.step for r in recs if r.loss is not None]
    assert train == [0, 1, 2, 3, 4, 5] and all(math.isnan(r.loss) for r in recs if r.loss is not None)
    assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [(4, 5.99)]


def test_a_validation_perplexity_is_the_validation_loss_as_its_log(tmp_path):
    """OpenNMT-py prints "Validation perplexity: 74.75" and no validation loss (fresh81: over-fitting SKIP "no
    evaluation / validation loss logged"): its log, at the last step read; a file that logs a validation loss
    keeps it (the perplexity beside it stays an extra)."""
    lines = []
    for i in range(1, 41):
        lines.append(
            f"[2025-09-21 08:39:16,816 INFO] Step {50 * i}/ 5000; acc:  20.18; ppl: {900 / i:.2f}; xent: "
            f"{math.log(900 / i):.2f}; lr: 0.00020; 4466/6179 tok/s;     32 sec"
        )
        if i % 10 == 0:
            lines.append(f"[2025-09-21 08:43:41,636 INFO] Validation perplexity: {1000 / i:.4f}")
    _, recs, reader = read(write(tmp_path, "onmt/train.log", "\n".join(lines) + "\n"))
    val = [(r.step, round(r.val_loss, 4)) for r in recs if r.val_loss is not None]
    assert val == [(500 * k, round(math.log(float(f"{1000 / (10 * k):.4f}")), 4)) for k in range(1, 5)]
    assert reader.field_keys()["val_loss"] == ["Validation perplexity"]
    both = [ln.replace("Validation perplexity: ", "Validation loss: 3.2, Validation perplexity: ") for ln in lines]
    _, recs, reader = read(write(tmp_path, "both/train.log", "\n".join(both) + "\n"))
    assert [r.val_loss for r in recs if r.val_loss is not None] == [3.2] * 4


def test_an_epoch_header_that_never_moves_is_no_step(tmp_path):
    """fresh82's GNN loop prints "Epoch: 0-----" above every one of its losses (the epoch never moves):
    from the fourth header of the same epoch in a row, the records' ordinal is the step (read at step 0,
    1,924 of its 2,966 records were dropped as a second writer's copies). A header repeated once (the
    training block and the evaluation block of one epoch) stays the step."""
    sep = "=" * 40
    text = "".join(
        f"{sep}\nEpoch: 0{'-' * 29}\nTrain_loss: {0.6 * 0.99**i if i % 7 else 0.0}\n{sep}\n" for i in range(50)
    )
    _, recs, _ = read(write(tmp_path, "graph_model_train.log", text))
    steps = [r.step for r in recs if r.loss is not None]
    assert len(steps) == 50 and steps[3:] == list(range(3, 50)) and steps[:3] == [0, 0, 0]
    text = "".join(f"Epoch: {e}\ntrain loss: {2 - e / 50}\nEpoch: {e}\nval loss: {2.1 - e / 50}\n" for e in range(30))
    _, recs, _ = read(write(tmp_path, "two_blocks.log", text))
    assert [r.step for r in recs if r.loss is not None] == list(range(30))


@pytest.mark.parametrize(
    "form",
    [
        "{n} loss: {v} lr: 0.001",  # print(step, "loss:", loss, "lr:", lr)
        "{n}\tloss={v}\tlr=0.001",
        "#{n} loss {v}",
        "({n}) loss: {v}",
        "Batch {n}/1000 Loss {v}",  # (no epoch header before it)
        "update {n}, loss {v}",  # an RL loop's update counter
        "Step[{n}/1000] loss={v}",
        "global_step {n}: loss {v}",
        "[{n}/1000] Loss_D: 1.2 Loss_G: {v}",
        "Ep {n}: loss={v}",
        "ep {n}, loss {v}",
        # fresh25: MAML's bracketed iteration with a unit on a value, darknet's two shapes, a double dash
        "[{n}/100000] batch loss : {v} | time : 4.9s",
        "{n}: {v}, {v} avg, 0.000100 rate, 10.471825 seconds, {n} images",
        " {n}: {v}, {v} avg loss, 0.001000 rate, 3.2 seconds, 64 images, 10.5 hours left",
        "Epoch {n} -- loss: {v}",
        "epoch 1, phase train, step {n}, loss_train, {v}",  # a name, a comma, its value
        "[INFO 12/08/2022 05:05:48 AM step {n} loss: {v}",  # a level-first prefix, 12-hour clock, no "]"
        "2021-11-02 10:00:00: Epoch {n} finished -- Train loss: {v} - Val loss: 0.9109 -- Elapsed time: 16.1s",
        # fresh81: Sockeye's epoch and batch letters (the batch counted over the run), a perplexity its only metric
        "[INFO:sockeye.training] E=0 B={n}\ts/sec=309.73 tok/sec=4673.93 u/sec=0.45\tppl={v}",
    ],
)
def test_a_counter_leading_a_line_of_named_metrics(tmp_path, form):
    """Shapes of quick scripts' prints that no rule took (fresh17's held-out logs showed two of them):
    the count that leads the line is the step. (An epoch before a loss named right after it, "Epoch: 3
    Loss: 0.41", is not read as the step: a per-batch print repeats its epoch, "epoch: 0 loss: 0.69" 40
    times; such lines are counted, as before.)"""
    text = "".join(form.format(n=n, v=round(3 - i / 10, 2)) + "\n" for i, n in enumerate(range(10, 130, 10)))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs if r.loss is not None] == list(range(10, 130, 10)), form


@pytest.mark.parametrize(
    "form",
    ["{n} files copied, 3 skipped", "2024 was a year: loss {v}", "Epoch {n} progress: 100/2000", "{n}: {v}"],
)
def test_prose_that_starts_with_a_number_is_no_record(tmp_path, form):
    text = "".join(form.format(n=n, v=3 - i / 10) + "\n" for i, n in enumerate(range(10, 130, 10)))
    _, recs, _ = read(write(tmp_path, "train.log", text))
    assert [r for r in recs if r.loss is not None] == []


def test_darknets_line_gives_the_batch_loss_its_average_and_the_lr(tmp_path):
    text = "".join(
        f"Region 16 Avg IOU: -nan, Class: -nan, Obj: -nan, No Obj: 0.000098, .5R: -nan, .75R: -nan,  count: 0\n"
        f"{n}: {5 + n % 3:.6f}, {5.5:.6f} avg, 0.000100 rate, 10.471825 seconds, {n} images\nLoaded: 0.000177 seconds\n"
        for n in range(6001, 6041)
    )
    _, recs, reader = read(write(tmp_path, "train.log", text))
    assert [r.step for r in recs] == list(range(6001, 6041))
    assert recs[0].loss == 5 + 6001 % 3 and recs[0].lr == 1e-4 and recs[0].extra["avg"] == 5.5
    assert all(math.isfinite(r.loss) for r in recs)  # (the regions' "-nan" are no loss)


def test_epoch_headers_behind_a_level_first_prefix(tmp_path):
    """fresh25's YOLO-style logger: "[INFO 12/08/2022 05:05:48 AM ########EPOCH 1/100 ########" then
    "[INFO ... AM Mean loss 159.87": the prefix hid the headers (1 of 688 records read)."""
    pre = "[INFO 12/08/2022 05:{:02d}:48 AM "
    lines = []
    for e in range(1, 31):
        lines.append(pre.format(e) + f"########EPOCH {e}/100 ########")
        lines.append(pre.format(e) + "Train mAP: <function mean_average_precision at 0x7f93f7bcb130>")
        lines.append(pre.format(e) + f"Mean loss {900 / e:.4f}")
    _, recs, _ = read(write(tmp_path, "yolo.log", "\n".join(lines) + "\n"))
    train = [r for r in recs if r.loss is not None]
    assert len(train) == 30 and [r.loss for r in train][:2] == [900.0, 450.0]
    steps = [r.step for r in train]
    assert steps == sorted(steps) and len(set(steps)) == 30


def test_a_phase_named_on_a_step_line_is_an_evaluation(tmp_path, capsys):
    """fresh29's EC trainer: "epoch 0 | global step 40 | mode validation | loss 2.07" lines were training
    records, and the last one, after "Best model stats:", a resume to step 0 that left the plateau
    check nothing to judge."""
    lines = []
    for s in range(0, 2000, 10):
        lines.append(
            f"09-01-21 17:54:03 - epoch {s // 1000} | global step {s} | mode train | loss {2.08 - 0.3 * (s < 300)} | accuracy 12.5"
        )
        if s % 400 == 0:
            lines.append(
                f"09-01-21 18:03:35 - epoch {s // 1000} | global step {s} | mode validation | loss 2.0794 | accuracy 12.7"
            )
    lines += [
        "09-03-21 05:57:52 - Best model stats: ",
        "09-03-21 05:57:52 - epoch 0 | global step 0 | mode validation | loss 2.0797",
    ]
    _, recs, _ = read(write(tmp_path, "train.out", "\n".join(lines) + "\n"))
    train = [r.step for r in recs if r.loss is not None]
    assert train == list(range(0, 2000, 10))
    assert [r.step for r in recs if r.val_loss is not None][-1] == 1990  # (the last training step)
    d = report_json(str(tmp_path / "train.out"), capsys)
    assert not d.get("launches") and d["steps"]["last"] == 1990


def test_train_ep_is_a_counter(tmp_path):
    # SSDA-MME's print: "S real T sketch Train Ep: 3500 lr0.00798 \t Loss Classification: 8.31 Loss T 0.11 Method MME"
    text = "".join(
        f"S real T sketch Train Ep: {s} lr0.00798 \t Loss Classification: {3 - s / 5000:.6f} Loss T 0.109691 Method MME\n"
        for s in range(0, 6600, 100)
    )
    _, recs, _ = read(write(tmp_path, "source_weigh_more.out", text))
    assert [r.step for r in recs if r.loss is not None] == list(range(0, 6600, 100))


def test_fresh27_shapes(tmp_path):
    """fresh27's held-out shapes: a date in angle brackets between the counter and the loss (SimCLR's
    logger), an epoch in parentheses (an NTM copy task), TF Estimator's evaluation dict (its "loss" was
    a training record: a spike "still open" at the end)."""
    text = "".join(
        f"DEBUG:root:@rank0 Epoch: {e}\t<2021-11-28 01:09:18> loss: {8 - e / 100:.4f}\n" for e in range(1, 41)
    )
    _, recs, _ = read(write(tmp_path, "training.log", text))
    assert [r.step for r in recs] == list(range(1, 41))
    text = "".join(f"Epoch: ({e}), Loss : {5 / (e + 1):.6f} , acc: 48.4%\n" for e in range(40))
    _, recs, _ = read(write(tmp_path, "log.txt", text))
    assert [r.step for r in recs] == list(range(40))
    lines = [f"INFO:tensorflow:loss = {1 / (s + 1):.5f}, step = {s * 100} (162.563 sec)" for s in range(20)]
    lines.append(
        "INFO:tensorflow:Saving dict for global step 1900: eval_accuracy = 0.85, eval_loss = 0.7217, "
        "global_step = 1900, loss = 0.7219"
    )
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    assert [r.step for r in recs if r.loss is not None] == [s * 100 for s in range(20)]
    assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [(1900, 0.7217)]


def test_a_log_whose_head_is_something_else(tmp_path, capsys):
    """fresh27's Torch7 run: optim.Logger's header and 5,000 bare numbers written over the start of the
    cmd:log file, its keyed lines after them: "too few records for a log (notes?)"."""
    head = "RNN training error vs. #iterations\t\n" + "".join(f" {7.19e6 / (i + 1):.4e}\t\n" for i in range(5000))
    body = "".join(
        f"2016-09-03 15:22:35[outputs/rnn,model=rnn Deep Head Motion Control]:  Epoch 5, iter = {i}, "
        f"Loss = {14000 + (i % 7)}, lr = 0.0010 \n"
        for i in range(466, 1000)
    )
    p = write(tmp_path, "log.txt", head + body)
    d = report_json(str(p), capsys)
    assert d["steps"]["first"] == 466 and d["steps"]["count"] == 534


def test_a_logs_records_spaced_by_chatter_in_its_head(tmp_path, capsys):
    """fresh43's normalizing-flow log: a YAML config, then each epoch's line after 100 "sim N" lines. The sniffer's
    first lines held one record, the file's 1,200-line head eleven: "too few records for a log (notes?)". A head with
    five records is a log (fewer: notes, as before)."""
    rows = ["### Experiment Configuration ###", "model:", "  nflow: 60", "", "### Training Log ###"]
    for e in range(11):
        rows += [f"sim  {i}" for i in range(1, 101)]
        rows.append(
            f"epoch: {e}, loss: {7.94 + 1.6 * e:.2f}, loss2: 0.28, pf:0.00e+00, loss data: -10.51, logdet: -0.31"
        )
    p = write(tmp_path, "exp_1_nflow60.txt", "\n".join(rows) + "\n")
    d = report_json(str(p), capsys)
    assert d["steps"]["count"] == 11 and d["steps"]["last"] == 10
    p = write(
        tmp_path, "notes.txt", "\n".join(rows[:5] + [f"sim {i}" for i in range(500)] + ["epoch: 0, loss: 7.9"]) + "\n"
    )
    assert main([str(p), "--report"]) == 2 and "too few records for a log" in capsys.readouterr().err


def test_ultralytics_rows_under_their_header_past_the_head(tmp_path, capsys):
    """fresh29's Slurm log of a YOLOv8 run: each epoch's row is redrawn with "\\r" after its column header,
    324 redraws on one physical line (42 KiB): the head held the header, not a whole row, and the deep
    search looked only at lines with a metric word (the headers): "nothing readable"."""
    head = "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size\n"
    out = ["Ultralytics YOLOv8.0.20 Python-3.10.12 torch-2.0.1 CUDA:0\n" * 3]
    for e in range(1, 21):
        loss = 3.0 / e
        redraws = "".join(
            f"\r       {e}/20      4.81G      {loss:.4f}      {loss / 2:.4f}      {loss / 3:.4f}        605        640: "
            f"{n * 100 // 600:3d}%|##########| {n}/600 [03:33<00:00,  1.62s/it]"
            for n in range(601)
        )
        out.append("\n" + head + "\r  0%|          | 0/600 [00:00<?, ?it/s]" + redraws + "\n")
        out.append("                   all          6        404      0.733      0.544      0.648      0.216\n")
    p = write(tmp_path, "job.out", "".join(out))
    d = report_json(str(p), capsys)
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (1, 20, 20)


def test_fresh31_32_shapes(tmp_path):
    """Held-out shapes of fresh31 / fresh32: an outer counter with no total then one with a total (the
    ChineseNER family's "iteration:5 step:300/1044": the iteration is an epoch); np.savetxt's "#" header;
    a GAN's named losses with no step ("Discriminator Loss: D  | Generator Loss: G" after "Training on
    Batch b"), counted."""
    lines = [
        f"2018-07-05 20:56:51,323 - log\\train.log - INFO - iteration:{it} step:{s}/1044, NER loss:{20 / (it * 10 + s / 100):.6f}"
        for it in range(1, 4)
        for s in range(100, 1001, 100)
    ]
    _, recs, _ = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    steps = [r.step for r in recs]
    assert len(set(steps)) == 30 and steps == sorted(steps) and steps[:2] == [100, 200]
    text = "#epoch train_loss val_loss\n" + "".join(f"{e} {4 / (e + 1)} {4.1 / (e + 1)}\n" for e in range(40))
    _, recs, _ = read(write(tmp_path, "losses.txt", text))
    assert [r.step for r in recs] == list(range(40)) and recs[1].val_loss == 4.1 / 2
    text = "".join(
        f"Training on Batch {b % 25}\nDiscriminator Loss: {1.4 - b / 1000}  | Generator Loss: {0.6 + b / 1000}\n"
        for b in range(100)
    )
    _, recs, _ = read(write(tmp_path, "output.log", text))
    assert [r.step for r in recs] == list(range(1, 101))


def _openai_table(step: int, loss: float, lg: float) -> str:
    rows = [("grad_norm", 0.07), ("lg_loss_scale", lg), ("loss", loss), ("samples", step * 64), ("step", step)]
    bar = "-" * 28 + "\n"
    return bar + "".join(f"| {k:<13} | {v:<8.3g} |\n" for k, v in rows) + bar


def test_guided_diffusion_fp16_overflows_and_log2_loss_scale(tmp_path, capsys):
    """fresh73's guided-diffusion runs (OpenAI's logger: a table a logging interval, fp16_util's MixedPrecisionTrainer):
    ``lg_loss_scale`` is the loss scale's log2 (the FP16 check read "no loss scale logged"), and "Found NaN, decreased
    lg_loss_scale to 23.776" is a step skipped for an fp16 overflow (read as nothing: the log.txt beside the run's
    progress.csv, the same records, was passed over with the overflows only it holds)."""
    text = "Logging to ./results\ntraining...\n"
    for k in range(40):
        text += _openai_table(k * 10, 1.0 / (k + 1), 20 + k * 0.1)
        if k in (12, 30):
            text += f"Found NaN, decreased lg_loss_scale to {20 + k * 0.1 - 1:.3f}\n"
    _, recs, _ = read(write(tmp_path, "log.txt", text))
    scales = [r.loss_scale for r in recs if r.loss is not None]
    assert scales[0] == 2.0**20 and scales[10] == pytest.approx(2.0**21)
    over = [(r.step, r.loss_scale) for r in recs if r.overflow]
    assert over == [(120, pytest.approx(2.0**20.2)), (300, pytest.approx(2.0**22))]
    d = report_json(str(tmp_path / "log.txt"), capsys)
    fp16 = next(c for c in d["checks"] if c["id"] == "loss_scale")
    assert fp16["status"] != "SKIP" and "2 skipped step(s)" in fp16["summary"], fp16


def test_the_bert_fine_tuning_tutorials_epoch_blocks(tmp_path):
    """fresh78's BERT run (Chris McCormick's fine-tuning tutorial loop, three trainings in one file): an epoch
    header, batch progress lines, then "  Average training loss: 0.77" and "  Validation Loss: 0.60", indented.
    Read nothing (exit 2: indented, a config's "  loss: 1.0" looks alike); then, unindented, the first two
    epochs' validation losses were lost while their losses were held for STEPLESS_MIN lines. Under an epoch
    header a step-less loss line is that epoch's, read at once; an indented one with no header stays unread."""
    body = ""
    for e in range(1, 5):
        body += f"\n======== Epoch {e} / 4 ========\nTraining...\n"
        body += "".join(f"  Batch   {b:>3}  of  1,832.    Elapsed: 0:00:20.\n" for b in range(50, 300, 50))
        body += (
            f"\n  Average training loss: {0.8 - e / 10:.2f}\n  Training epcoh took: 0:12:09\n\nRunning Validation...\n"
        )
        body += f"  Accuracy: 0.79\n  Validation Loss: {0.6 - e / 50:.2f}\n  Validation took: 0:00:27\n"
    by_line, by_chunk, reader = _both(tmp_path, body)
    for recs in (by_line, by_chunk):
        assert [(r.step, r.loss) for r in recs if r.loss is not None] == [(0, 0.7), (1, 0.6), (2, 0.5), (3, 0.4)]
        assert [(r.step, r.val_loss) for r in recs if r.val_loss is not None] == [
            (0, 0.58),
            (1, 0.56),
            (2, 0.54),
            (3, 0.52),
        ]
    assert "epoch headers" in reader.describe()["step_source"]
    recs, _ = _lines("".join(f"model:\n  name: m{k}\n  loss: 1.0\n" for k in range(5)))
    assert recs == []


def test_a_plural_step_word_before_its_count_and_a_comma(tmp_path):
    """fresh79's TF1 loop: "Steps 10, Total time 1.94, data 0.02%. Loss 1.008e+02 lr 1.000e-04" read nothing."""
    text = "".join(
        f"*Dec01-2040*  2019-12-01 12:41:{k:02d} Steps {10 * k}, Total time 1.94, data 0.02%. Loss {100 / k:.3e} lr 1.000e-04\n"
        for k in range(1, 23)
    )
    by_line, by_chunk, _ = _both(tmp_path, text)
    for recs in (by_line, by_chunk):
        assert [r.step for r in recs] == [10 * k for k in range(1, 23)] and recs[0].loss == 100.0


def _ssd_launch(lr0: float, first: int, every: int, n: int, peak: float) -> str:
    """One launch of lufficc/SSD's trainer: its yacs config dump (a ``TEST:`` key among them), then its lines."""
    text = "2025-04-05 00:03:04,739 SSD INFO: Using 1 GPUs\n2025-04-05 00:03:04,740 SSD INFO: Arguments: "
    text += f"Namespace(config_file='configs/vgg_ssd300.yaml', local_rank=0, log_step={every}, save_step=250)\n"
    text += "2025-04-05 00:03:04,740 SSD INFO: Running with config:\nSOLVER:\n  BATCH_SIZE: 2\n"
    text += f"  LR: {peak}\n  MAX_ITER: 6800\nTEST:\n  BATCH_SIZE: 10\n  NMS_THRESHOLD: 0.45\n"
    text += "SSD.trainer INFO: Start training ...\n"
    for k in range(n):
        it = first + k * every
        lr = min(peak, lr0 + (peak - lr0) * k / 5)
        text += f"2025-04-05 00:03:{k % 60:02d},854 SSD.trainer INFO: iter: {it:06d}, lr: {lr:.5f}, "
        text += f"total_loss: {16 - k * 0.1:.3f} ({16 - k * 0.05:.3f}), reg_loss: 6.684 (6.684), time: 0.875 (0.875)\n"
    return text


def test_a_yacs_test_key_opens_no_evaluation_and_a_relaunch_at_another_lr_is_a_new_run(tmp_path, capsys):
    """fresh79's lufficc/SSD logs (12 and 21 launches): the yacs config dump's ``TEST:`` key opened an evaluation
    section, and every training line after it was read as a validation loss ("0 steps with a training loss"). Read,
    a relaunch at 50x the LR the run before it had logged (another config, starting at its own first logging step)
    was taken for a resume whose "LR jumped 50x" FAILed the healthy log: it is a new run."""
    text = _ssd_launch(4e-5, 10, 10, 15, 1e-4) + _ssd_launch(2e-3, 50, 50, 30, 5e-3)
    p = write(tmp_path, "log.txt", text)
    _, recs, _ = read(p)
    assert len([r for r in recs if r.loss is not None]) == 45 and all(r.val_loss is None for r in recs)
    d = report_json(p, capsys)
    assert [s["kind"] for s in d["launches"]] == ["start", "new run"], d["launches"]
    lr = next(c for c in d["checks"] if c["id"] == "lr_schedule")
    assert lr["status"] != "FAIL" and "jumped" not in lr["summary"], lr


@pytest.mark.parametrize(
    "tail,secs",
    [
        ("| 179s elapsed", 179.0),  # (fresh99's tiny LM: the name after its number)
        ("| elapsed: 12.5s", 12.5),
        ("time elapsed 3.2 min", 192.0),
        ("Elapsed time: 0:03:12", 192.0),
        ("elapsed_time=1.5h", 5400.0),
        ("elapsed: 42", 42.0),  # (no unit: seconds, a pair as it is)
    ],
)
def test_the_elapsed_time_with_its_unit_is_the_records_time(tmp_path, tail, secs):
    p = write(
        tmp_path, "train_log.txt", "".join(f"step {s} | loss {3 - s / 100:.3f} | {tail}\n" for s in range(10, 90, 10))
    )
    _, recs, _ = read(p)
    assert [r.step for r in recs] == list(range(10, 90, 10))
    assert all(r.time == pytest.approx(secs) for r in recs)


def test_a_stall_between_elapsed_times_is_a_pause_of_the_throughput_check(tmp_path, capsys):
    """fresh99's shape: "[Phase 3]   step  3250/5000 | loss 0.109 | lr 2.07e-04 | 410s elapsed", then the next
    record 28 minutes later; without a clock the check read "no step time ... logged"."""
    lines, t = [], 0.0
    for s in range(50, 5001, 50):
        t += 1700.0 if s == 3300 else 5.0
        lines.append(
            f"[Phase 3]   step {s:5d}/5000 | loss {2.0 * 0.9995**s + 0.1:.3f} | lr 3.00e-04 | {t:.0f}s elapsed\n"
        )
    rep = report_json(write(tmp_path, "results/train_log.txt", "".join(lines)), capsys)
    tp = next(c for c in rep["checks"] if c["id"] == "throughput")
    assert tp["status"] != "SKIP" and "pause" in tp["summary"] and "step 3300, 28.3 min" in tp["summary"], tp


def test_norms_between_bars_and_a_splits_line_with_no_step(tmp_path, capsys):
    """simple-nmt's console (fresh105: "no training metrics recognised", exit 2): "Epoch 1 - |param|=6.52e+02
    |g_param|=2.04e+05 loss=4.2095e+00 ppl=67.32" (the gradient's norm as a symbol between bars), then
    "Validation - loss=3.5795e+00 ppl=35.86 best_loss=inf best_ppl=inf" (the split's line: its losses were prose)."""
    lines = []
    for e in range(1, 31):
        lines.append(f"Epoch {e} - |param|=6.52e+02 |g_param|={2e5 / e:.2e} loss={4.2 * 0.97**e:.4e} ppl=67.32   \n")
        lines.append(f"Validation - loss={3.6 * 0.98**e:.4e} ppl=35.86 best_loss=inf best_ppl=inf   \n")
    rep = report_json(write(tmp_path, "run/train.log", "".join(lines)), capsys)
    assert rep["steps"]["count"] == 30
    assert rep["sources"]["loss"]["key"] == "loss" and rep["sources"]["grad_norm"]["key"] == "grad_norm"
    assert rep["sources"]["val_loss"]["key"] == "validation_loss"


def test_a_splits_lines_under_an_epoch_header_are_its_losses():
    # fresh105's LNN console: "[Epoch 1] Dataset: QUICKDRAW | Method: LSTM", then "TRAIN | Acc: 0.3260 | Loss:
    # 1.8273" and "TEST  | Acc: 0.5391 | Loss: 1.3037": the test line's loss is the validation loss, never the loss
    r = KeyValueTextReader("x.log")
    out = []
    for e in range(1, 6):
        for ln in (
            f"[Epoch {e}] Dataset: QUICKDRAW | Method: LSTM",
            f"TRAIN | Acc: 0.{e}260 | Loss: {2 - e / 10:.4f}",
            f"TEST  | Acc: 0.{e}391 | Loss: {1.5 - e / 10:.4f}",
            "------------------------------",
        ):
            out += r.feed(ln + "\n")
    out += r.flush()
    train = [(x.step, x.loss) for x in out if x.loss is not None]
    val = [(x.step, x.val_loss) for x in out if x.val_loss is not None]
    assert train == [(e, pytest.approx(2 - e / 10)) for e in range(1, 6)]
    # (the first two epochs' test lines come before the lines' pattern is known: held, then counted as prose)
    assert val == [(e, pytest.approx(1.5 - e / 10)) for e in range(3, 6)]


def test_an_epoch_opening_a_line_is_its_own_step_after_a_step_line_with_no_loss():
    # fresh109's CLDOT loss_log.txt opens with "Epoch 49,test_rmse: 0.95,..." (no loss: a step line that opens a
    # group), then "Epoch 1,train_rmse: 2.2065,...,Total Loss: 4.7224," lines: each was taken for its continuation,
    # every one folded into one record at 49 ("too few records for a log")
    r = KeyValueTextReader("x.log")
    out = r.feed("Epoch 49,test_rmse: 0.9539,test_pcc: 0.93666,test_r_2: 0.87728\n")
    for e in range(1, 31):
        out += r.feed(
            f"Epoch {e},train_rmse: {2.2 - e / 100:.4f},train_pcc: 0.84511,Total Loss: {4.7 - e / 10:.4f}, \n"
        )
        out += r.feed(f"Epoch {e},test_rmse: {1.9 - e / 100:.4f},test_pcc: 0.87945\n")
    out += r.flush()
    train = [(x.step, x.loss) for x in out if x.loss is not None]
    assert train == [(e, pytest.approx(4.7 - e / 10)) for e in range(1, 31)]


def test_names_and_values_in_turn_between_commas():
    # fresh109's NeRF trainer: "Step, 0, Loss, 0.1142, PSNR, 9.42, StepTime, 5.42, TrainTime, 5.42," ("no training
    # steps found", 165 lines skipped); prose with commas stays prose
    r = KeyValueTextReader("x.log")
    out = []
    for s in range(40):
        out += r.feed(f"Step, {s}, Loss, {0.12 - s / 1e4:.6f}, PSNR, 9.42, StepTime, 3.9, TrainTime, {4 * s:.2f},\n")
    out += r.feed("Loading scenes, lights, cameras, and rays\n")
    out += r.flush()
    assert [(x.step, x.loss) for x in out] == [(s, pytest.approx(0.12 - s / 1e4)) for s in range(40)]


def test_a_tab_separated_table_with_no_step_column_is_read_by_row(tmp_path, capsys):
    """bearpaw's pytorch-classification Logger (copied into many repositories): "==>Arguments:" and its key:value
    lines, then "Learning Rate\\tTrain Loss\\tValid Loss\\tTrain Acc.\\tValid Acc." and one tab-separated row an
    epoch (fresh109's two CS385 logs: "no training metrics recognised"); the step is the row's number."""
    lines = ["==>Arguments:\n", "arch:deep\n", "epochs:100\n", "lr:0.01\n", "==>Training log:\n"]
    lines.append("Learning Rate\tTrain Loss\tValid Loss\tTrain Acc.\tValid Acc.\t\n")
    for e in range(60):
        lines.append(f"0.010000\t{2.3 - e / 100:.6f}\t{2.25 - e / 120:.6f}\t{17 + e / 2:.6f}\t{18 + e / 2:.6f}\t\n")
    rep = report_json(write(tmp_path, "checkpoints/deep/log.txt", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (1, 60, 60)
    assert rep["sources"]["loss"]["key"] == "Train Loss" and rep["sources"]["val_loss"]["key"] == "Valid Loss"
    assert rep["sources"]["lr"]["key"] == "Learning Rate"


def test_a_bracketed_epoch_after_a_clock_is_its_lines_own_step(tmp_path, capsys):
    # fresh112's Siamese log: "[2025-10-08 20:42:06] [Epoch 1] train_loss=0.139715", then "[...] [Epoch 1] val
    # ROC-AUC=0.8064 ..." (no loss) and an "[INFO] Saved new best model" line: every later epoch was folded into
    # epoch 1's group ("too few records for a log")
    lines = []
    for e in range(1, 16):
        lines.append(f"[2025-10-08 20:{e:02d}:06] [Epoch {e}] train_loss={0.1397 - e / 1e4:.6f}\n")
        lines.append(f"[2025-10-08 20:{e:02d}:20] [Epoch {e}] val ROC-AUC=0.8064 EER=0.2675 thr=-0.8045\n")
        lines.append(f"[2025-10-08 20:{e:02d}:21] [INFO] Saved new best model at epoch {e}, AUC=0.8064\n")
    rep = report_json(write(tmp_path, "outputs/train_log.txt", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (1, 15, 15)


def test_a_json_object_printed_under_a_step_header_is_its_record(tmp_path, capsys):
    """robomimic's console: "Train Epoch N", then the epoch's metrics as json.dumps(indent=4) prints them
    ("{", '    "Loss": 0.3287,', ..., "}"), then "Epoch N Memory Usage: 8403 MB" (fresh112: "no training metrics
    recognised"); "Policy_Grad_Norms" is the policy's gradient norm."""
    lines = ["============= Model Summary =============\n", "BC_RNN (\n", "  ModuleDict(\n", ")\n"]
    for e in range(1, 9):
        m = {"Cosine_Loss": 0.09 / e, "L1_Loss": 0.15 / e, "Loss": 0.33 / e, "Policy_Grad_Norms": 0.2 / e**3}
        m["Time_Epoch"] = 3.8
        lines += [f"Train Epoch {e}\n", json.dumps(m, indent=4) + "\n", f"\nEpoch {e} Memory Usage: 8403 MB\n\n"]
    lines.append("finished run successfully!\n")
    rep = report_json(write(tmp_path, "checkpoints/train_log.txt", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (1, 8, 8)
    assert rep["sources"]["loss"]["key"] == "Loss" and rep["sources"]["grad_norm"]["key"] == "Policy_Grad_Norms"
    # (a JSON entry is read only as a whole line continuing a record: a prose line quoting one is no record)
    recs, _ = _lines('Note: set "lr": 0.1 in the config\nstep 5 loss=2.0\n')
    assert [(r.step, r.loss, r.lr) for r in recs] == [(5, 2.0, None)]


def test_an_epoch_and_its_counter_in_one_bracket_after_a_colon(tmp_path, capsys):
    """ezpz / ai4sci trainers behind Hydra's coloured prefix: "[0] [1/5: 5120 / 160145 (3%)] epoch=1.0000 dt=0.52
    running_loss=0.0004 batch_loss=0.0114" (fresh111: "no training metrics recognised"): epoch 1 of 5, sample 5120 of
    160145 (the step is the epoch's offset plus the counter, as "Epoch [1/5], Step [100/600]" is)."""
    head = "\x1b[36m2022-11-12 16:51:42,092\x1b[0m][\x1b[34mai4sci.trainer\x1b[0m][\x1b[32mINFO\x1b[0m] - [0] "
    lines = [json.dumps({"data": {"batch_size": 512}}, indent=4) + "\n"] * 3
    for e in range(3):
        for n in range(0, 160145, 5120):
            loss = 0.0147 - e / 1000 - n / 1e8
            lines.append(
                f"[{head}[{e}/5: {n} / 160145 ({n * 100 // 160145}%)] epoch={e}.0000 dt=0.5444 "
                f"running_loss={n / 1e7:.4f} batch_loss={loss:.4f} acc=0.0001\n"
            )
        lines.append("[2022-11-12 16:56:37,563][__main__][INFO] - [TRAIN]  loss=0.0016  acc=0%\n")
    rep = report_json(write(tmp_path, "homework/training.txt", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["count"]) == (0, 96)
    assert rep["steps"]["last"] == 2 * 160145 + 158720
    assert rep["sources"]["loss"]["key"] == "batch_loss"


def test_an_aligned_table_whose_names_hold_blanks_and_symbols(tmp_path, capsys):
    """A table printed with padded columns: names of two words ("Train Loss") or symbols ("W/D/L(this iter)",
    "mean|TD|", "|dW|": fresh112's TD-leaf self-play log, "no training metrics recognised"), cells apart by two
    blanks or more; a cell of other text with a digit ("2/0/2", "0.9 min") is no metric and no reason to drop
    the row."""
    lines = ["TD-Leaf self-play training: depth=2 lambda=0.7 lr=0.001\n"]
    lines.append(
        "iter  games  positions  avg_plies  W/D/L(this iter)   mean|TD|   loss_before  loss_after  |dW|     elapsed\n"
    )
    for i in range(1, 38):
        lines.append(
            f"{i:4d}  {4 * i:5d}  {300 * i:9d}  {96.2:9.1f}  2/0/2  {0.336:18.3f}  {10 / i:11.4f}  "
            f"{9 / i:10.4f}  {0.048:6.3f}  {0.9 * i:7.1f} min\n"
        )
    lines.append("Done: 37 iterations\n")
    rep = report_json(write(tmp_path, "outputs/training_log.txt", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (1, 37, 37)
    # ... and one whose names a plain split reads as other columns: the first row decides
    t = ["Epoch    Train Loss    Val Loss    Val Acc\n"]
    t += [f"{e:5d}    {2 / e:10.4f}    {2.2 / e:8.4f}    {0.5 + e / 50:7.3f}\n" for e in range(1, 21)]
    rep = report_json(write(tmp_path / "b", "log.txt", "".join(t)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (1, 20, 20)
    assert rep["sources"]["loss"]["key"] == "Train Loss" and rep["sources"]["val_loss"]["key"] == "Val Loss"
    # (a plain table is read as before: names apart by single blanks, the same columns either way)
    t = ["epoch   loss   acc\n"] + [f"{e:5d}   {1 / e:.4f}   0.5\n" for e in range(1, 21)]
    rep = report_json(write(tmp_path / "c", "log.txt", "".join(t)), capsys)
    assert rep["steps"]["count"] == 20 and rep["sources"]["loss"]["key"] == "loss"


def test_an_epoch_header_with_a_note_in_parentheses_places_its_counters(tmp_path, capsys):
    """fresh114's nohup console: "Epoch 2/25 (device=cuda)", then "  step 00020: loss=0.0817" restarting at 20 each
    epoch: the header was not read (its note), each epoch a launch of its own, 174 of 1,450 steps judged. A note
    with a float in it holds a metric ("Epoch 3 (lr=0.001)"): no header."""
    lines = ["nohup: ignoring input\n"]
    for e in range(1, 6):
        lines.append(f"Epoch {e}/5 (device=cuda)\n")
        lines += [f"  step {s:05d}: loss={1 / (e + s / 1000):.4f}\n" for s in range(20, 1001, 20)]
        lines.append("  Val | mean=13.03 median=1.00\n")
    rep = report_json(write(tmp_path, "train.log", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (20, 5000, 250)
    from tsm_tui.sources.text_groups import EPOCH_HEADER

    assert EPOCH_HEADER.match("Epoch 2/25 (device=cuda:0)") and EPOCH_HEADER.match("Epoch 3 (train)")
    assert EPOCH_HEADER.match("Epoch 3 (lr=0.001)") is None


def test_a_duration_named_like_a_step_is_no_step(tmp_path, capsys):
    """MGPT's console (fresh117): "[6300/72000 (Shard 300/3000 |   8%)] LR:2.99e-04 Fwd:3ms Loss:146ms Opt:190ms |
    Step:523ms | Loss: 1.9373 | Val: 1.8382": "Step:523ms" is the step's duration, not its number (the steps
    collapsed onto timings, "resumed at step 523 after reaching 688"); the bracketed counter leading the line,
    with its note in parentheses, is the step."""
    lines = ["Step       Progress & Timings                      Train Loss   Val Loss\n"]
    for i, s in enumerate(range(6001, 9000, 300)):
        lines.append(
            f"[{s}/72000 (Shard {s - 6000}/3000 |   8%)] LR:2.99e-04 Fwd:3ms Loss:{140 + i}ms Opt:190ms | "
            f"Step:{500 + 37 * (i % 5)}ms | Loss: {1.9 - i / 100:.4f} | Val: 1.8382\n"
        )
    rep = report_json(write(tmp_path, "logs/log_two.txt", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (6001, 8701, 10)
    assert rep["resumes"] == [] and rep["sources"]["loss"]["key"] == "Loss"
    recs, _ = _lines("step 500 loss=2.0\nstep 510 loss=1.9\n")
    assert [r.step for r in recs] == [500, 510]  # (a step word and its number as before)


def test_a_source_files_line_number_is_no_metric():
    """A Python warning's location ("C:\\...\\torch\\optim\\lr_scheduler.py:232: UserWarning: ...") between a loop's
    lines: "lr_scheduler.py" was read as an LR ("lr_" prefix) of 232, a warm-up peaking at a rate the run never
    had (fresh121's five-fold GNN log). A source file's name is no metric."""
    text = "".join(
        f"step {e} | loss={0.26 - e / 1000:.4f} tr_auc=0.49 | val_auc=0.37 | 2.1s\n"
        + (
            "C:\\Users\\x\\.venv\\lib\\site-packages\\torch\\optim\\lr_scheduler.py:232: UserWarning: The epoch "
            "parameter in `scheduler.step()` was not necessary\n"
            if e % 3 == 0
            else ""
        )
        for e in range(1, 31)
    )
    recs, _ = _lines(text)
    assert recs and all(r.lr is None for r in recs)
    from tsm_tui.sources.fields import field_for

    assert field_for("lr_scheduler.py") is None and field_for("lr_AdamW") == "lr"


def test_the_cs230_starter_codes_epoch_header_and_split_metric_lines(tmp_path, capsys):
    """Stanford CS230's starter code (forked widely): "%(asctime)s:%(levelname)s: %(message)s", the level glued to the
    time's colon ("2018-07-27 17:05:58,802:INFO: Epoch 1/10"), then "- Train metrics: accuracy: 0.398 ; loss: 1.542"
    and "- Eval metrics: accuracy: 0.224 ; loss: 2.692" (fresh121: 1 of 10 epochs read, no validation loss)."""
    lines = ["2018-07-27 17:05:58,048:INFO: Starting training for 12 epoch(s)\n"]
    for e in range(1, 13):
        lines.append(f"2018-07-27 17:{e:02d}:58,802:INFO: Epoch {e}/12\n")
        lines.append(
            f"2018-07-27 17:{e:02d}:59,821:INFO: - Train metrics: accuracy: 0.398 ; loss: {1.5 - e / 20:.3f}\n"
        )
        lines.append(f"2018-07-27 17:{e:02d}:59,855:INFO: - Eval metrics: accuracy: 0.224 ; loss: {2.7 - e / 30:.3f}\n")
        lines.append(
            f"2018-07-27 17:{e:02d}:59,856:INFO: - Found new best accuracy, saving in best_weights/after-epoch-{e}\n"
        )
    rep = report_json(write(tmp_path, "experiments/base_model/train.log", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (1, 12, 12)
    assert rep["sources"]["loss"]["key"] == "train_loss" and rep["sources"]["val_loss"]["key"] == "eval_loss"


def test_a_counter_ending_a_line_of_metrics_is_its_step(tmp_path, capsys):
    """The PyTorch quickstart tutorial's training loop prints "loss: 2.303864  [   64/60000]" (samples seen in the
    epoch), under "Epoch 1" and a rule of dashes, with "Test Error: / Accuracy: 50.0%, Avg loss: 2.0" after each
    epoch; fresh120's MindSpore port prints it after a clock under "Epoch: 1 " headers ("no training steps found").
    The counter is the step within the header's epoch (or, with no header, the epoch its restarts count)."""
    lines = []
    for e in range(1, 6):
        lines.append(f"Epoch {e}\n-------------------------------\n")
        lines += [f"loss: {2.3 / (e + i / 60000):>7f}  [{i:>5d}/60000]\n" for i in range(0, 60000, 6400)]
        lines.append(f"Test Error: \n Accuracy: 50.0%, Avg loss: {2.0 / e:>8f} \n\n")
    rep = report_json(write(tmp_path / "a", "out.txt", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"]) == (0, 4 * 60000 + 57600) and rep["steps"]["count"] == 50
    assert rep["sources"]["loss"]["key"] == "loss" and "val_loss" in rep["sources"]
    bare = [
        f"2023-08-07 15:56:18 - loss: {2.3 / (e + 1 + i / 437):.6f}  [{i:>5d}/  437]\n"
        for e in range(4)
        for i in range(0, 437, 100)
    ]
    rep = report_json(write(tmp_path / "b", "run.txt", "".join(bare)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (0, 3 * 437 + 400, 20)
    assert rep["resumes"] == []
    # (a line that only ends in such a bracket, no loss before it, is none: ezpz's rank lines)
    recs, _ = _lines("[2025-11-23 23:04:37,387346][I][ezpz/dist:1509:setup_torch] ['x3206c0s37b1n0'][1/7]\n")
    assert recs == []


def test_the_epochs_number_before_its_word(tmp_path, capsys):
    """MaxwellNet's logger: "INFO [Train] 12 epoch. Loss: 397.46155" (fresh120: "no training metrics recognised")."""
    lines = [
        f"Tue, 16 May 2023 01:43:{e:02d} train_maxwellnet.py[line:142] INFO [Train] {e} epoch. Loss: {400 - e:.5f}\n"
        for e in range(1, 41)
    ]
    rep = report_json(write(tmp_path, "logs/maxwellnet.log", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (1, 40, 40)
    recs, _ = _lines("We trained for 3 epoch and stopped.\nstep 5 loss=2.0\n")
    assert [r.step for r in recs] == [5]  # (prose with an epoch count and no named number after it: no record)


def test_an_epoch_and_its_total_each_in_brackets(tmp_path, capsys):
    """A logger's "Epoch [0]/[199] \\t Training Phase Loss: 0.0699 \\t Accuracy: 0.5862" (fresh121's ResNet log of three
    launches: 0 of 300 epochs read); its "Current batch:200/1600  loss:[ 0.59]" lines between are no epoch's."""
    lines = []
    for e in range(60):
        lines += [
            f"2018-01-27 10:38:45,165 INFO    : train --- Current batch:{b}/1600  loss:[ 0.59]\n" for b in (200, 400)
        ]
        lines.append(
            f"2018-01-27 10:42:38,904 INFO    : Epoch [{e}]/[199] \t Training Phase Loss: {0.07 - e / 1e4:.6f} \t Accuracy: 0.58\n"
        )
        lines.append(f"2018-01-27 10:42:38,956 INFO    : Save module: checkpoints/{e}_train_state.pth\n")
    rep = report_json(write(tmp_path, "logs/resnet.log", "".join(lines)), capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (0, 59, 60)
