"""Classes of console logs the generic text reader did not read (issue 26, corpus3 §4.A):
counters in brackets, parentheses or after a phase word, losses named without ``loss``
(BasicSR ``l_*``, loss functions' names, a GAN's terms), ``| name value |`` fields, tqdm
postfix metrics, step-less lines, records spread over lines. Real lines, quoted from the
logs of ``bench/corpus`` (committed ones read whole; private ones as short quoted lines),
and lines that must NOT be read."""

from __future__ import annotations

import os

import pytest

from tsm_tui.sources.fields import key_roles, loss_role, objective
from tsm_tui.sources.generic_text import KeyValueTextReader

from helpers.paths import BENCH
from test_formats import read, write  # noqa: E402

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
