"""Formats of issue 26's round-5 held-out sets (fresh37 / fresh38), each read from a file in
its real shape: DeepXDE's ``loss.dat`` (a group-named header, float steps, the loss only as
terms), DeePMD-kit's ``lcurve.out`` (a real one, MIT: bench/corpus/fresh37), Coqui's trainer
log (a record over several ANSI-coloured lines) and the DARTS family's console lines (no name
on any number). The corpus's own DeepXDE, Coqui and DARTS logs carry no licence: the fixtures
are written here in their exact shapes."""

from __future__ import annotations

import json
import math
import os
import random

import pytest


from helpers import paths
from test_real_shapes import report, used

from tsm_tui.cli import main

DEEPMD = os.path.join(paths.ROOT, "bench", "corpus", "fresh37", "deepmd_lcurve_starter_kit_healthy")


def check(d: dict, cid: str) -> dict:
    return next(c for c in d["checks"] if c["id"] == cid)


def log_report(tmp_path, name: str, text: str, capsys, file: str = "train.log") -> dict:
    """``text`` written as ``<tmp_path>/<name>/<file>`` (UTF-8), and the report on that folder."""
    d = tmp_path / name
    d.mkdir()
    (d / file).write_text(text, encoding="utf-8")
    return report(d, capsys)


def test_deepxde_loss_dat_sums_its_training_terms(tmp_path, capsys):
    """``np.savetxt`` under DeepXDE's header: the step as %.18e, 3 training terms, the same 3 on
    the test points, one metric; a 60x burst in one term at step 40000 is a spike of the sum."""
    rng = random.Random(2)
    rows = ["# step, loss_train, loss_test, metrics_test"]
    for i in range(101):
        step = 1000.0 * i
        terms = [0.5 * math.exp(-i / 20) * math.exp(rng.gauss(0, 0.05)) + 1e-3 for _ in range(3)]
        if i == 40:
            terms[1] *= 60
        test = [t * 1.1 for t in terms]
        vals = [step, *terms, *test, 0.01]
        rows.append(" ".join(f"{v:.18e}" for v in vals) + " ")
    rep = log_report(tmp_path, "model", "\n".join(rows) + "\n", capsys, file="loss.dat")
    f = used(rep)
    assert f["format"] == "deepxde" and f["records"] == 101
    assert rep["steps"] == {"first": 0, "last": 100000, "count": 101, "records": 101}
    assert "loss_train_0 + loss_train_1 + loss_train_2" in f["objective"]
    assert rep["sources"]["val_loss"]["key"] == "val_loss"
    spikes = [a for a in rep["alerts"] if a["check"] == "loss_spike" and a["severity"] != "info"]
    assert spikes and spikes[0]["step"] == 40000


def test_deepmd_lcurve_rmse_columns_are_the_losses(capsys):
    rep = report(DEEPMD, capsys)
    assert rep["sources"]["loss"]["key"] == "rmse_trn"
    assert rep["sources"]["val_loss"]["key"] == "rmse_val"
    assert rep["steps"]["count"] == 101
    assert check(rep, "loss_spike")["status"] == "PASS"  # (labelled healthy)


def test_deepmd_sparse_rows_a_noisy_record_after_a_spike_is_no_failure(tmp_path, capsys):
    """A per-batch RMSE every 1000 steps (the recovery deadline, 500 steps, comes one record
    after the onset): a 2.6x spike whose next records scatter within the loss's own noise is
    judged on a median of 5 records, never FAILed on the one record at the deadline."""
    rng = random.Random(5)
    rows = ["#  step      rmse_trn    rmse_e_trn    rmse_f_trn         lr"]
    for i in range(400):
        v = 0.114 * math.exp(rng.gauss(0, 0.12))
        if i == 200:
            v = 0.292
        if i == 202:
            v = 0.147
        rows.append(f"{i * 1000:7d}      {v:.2e}      {v / 200:.2e}      {v / 2:.2e}    3.2e-06")
    (tmp_path / "lcurve.out").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "lcurve.out", capsys)
    assert check(rep, "loss_spike")["status"] != "FAIL", check(rep, "loss_spike")


ESC = "\x1b"


def coqui_log(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    out = [" > Training Environment:", " | > Current device: 0", " | > Num. of GPUs: 1"]
    out += [f" | > Layer missing in the checkpoint: disc.nets.{i}.convs.0.bias" for i in range(5)]
    step = 1000000
    for e in range(n // 4):
        out += ["", f"{ESC}[4m{ESC}[1m > EPOCH: {e}/1000{ESC}[0m", " --> /tmp/run", ""]
        out += [f"{ESC}[1m > TRAINING (2022-11-03 10:47:31) {ESC}[0m", ""]
        for s in range(4):
            step += 25
            loss = 20 * math.exp(-step / 1e7) * math.exp(rng.gauss(0, 0.05))
            out += [
                f"{ESC}[1m   --> STEP: {s * 9}/36 -- GLOBAL_STEP: {step}{ESC}[0m",
                f"     | > loss_disc: {3 * math.exp(rng.gauss(0, 0.1)):.5f}  (3.46002)",
                f"     | > loss_gen: {1.8 * math.exp(rng.gauss(0, 0.1)):.5f}  (1.98766)",
                f"     | > loss_mel: {loss:.5f}  (23.57030)",
                f"     | > loss_1: {loss + 4:.5f}  (35.54205)",
                "     | > amp_scaler: 1024.00000  (2176.00000)",
                f"     | > step_time: {1.3 + rng.random() / 10:.5f}  (1.38766)",
                "",
            ]
        out += [f"{ESC}[1m > EVALUATION {ESC}[0m", "", f"  {ESC}[1m--> EVAL PERFORMANCE{ESC}[0m"]
        out += [
            f"     | > avg_loader_time: 10.05089 {ESC}[0m(+0.00000)",
            f"     | > avg_loss: {loss:.5f} {ESC}[0m(+0.00000)",
            "",
        ]
    return "\n".join(out) + "\n"


def test_coqui_trainer_log_records_over_several_lines(tmp_path, capsys):
    (tmp_path / "trainer_0_log.txt").write_text(coqui_log(120))
    rep = report(tmp_path / "trainer_0_log.txt", capsys)
    f = used(rep)
    assert f["format"] == "coqui-trainer" and f["records"] >= 120
    assert rep["steps"]["count"] == 120 and rep["steps"]["first"] == 1000025
    assert "generator" in f["objective"]  # (a GAN: loss_disc beside loss_gen)
    assert rep["sources"]["loss_scale"]["key"] == "amp_scaler"
    assert rep["sources"]["val_loss"]["key"] == "val_loss"
    assert check(rep, "throughput")["status"] == "PASS"  # (step_time)


DARTS_HEAD = """05/31 02:32:51 PM gpu device = 0
05/31 02:32:52 PM param size = 1.686136MB
Files already downloaded and verified
"""


def darts_log(epochs: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    out = [DARTS_HEAD.rstrip("\n")]
    level = 2.35
    for e in range(epochs):
        out.append(f"05/31 02:32:56 PM epoch {e} lr {0.025 * (1 + math.cos(math.pi * e / epochs)) / 2 + 1e-3:e}")
        out += ["arch-parameters :", "tensor([[0.2000, 0.1998, 0.2001],", "        [0.1999, 0.1998, 0.2000]])"]
        run = level
        for i in range(0, 400, 50):
            run = level * (1 - 0.02 * i / 400) * math.exp(rng.gauss(0, 0.01))
            out.append(f"05/31 02:33:19 PM train {i:03d} {run:e} {30 + e:f} {80 + e / 2:f}")
        out.append(f"05/31 02:36:11 PM train_acc {30 + e:f}")
        for i in range(0, 400, 50):
            out.append(f"05/31 02:36:12 PM valid {i:03d} {run * 0.95:e} {35 + e:f} {85 + e / 2:f}")
        out.append(f"05/31 02:36:30 PM valid_acc {38 + e:f}")
        level *= 0.97
    return "\n".join(out) + "\n"


def test_darts_lines_without_names(tmp_path, capsys):
    d = tmp_path / "wandb" / "run-20240531_143251-lhtpv4zw" / "files"
    d.mkdir(parents=True)
    (d / "output.log").write_text(darts_log(12))
    (d / "wandb-summary.json").write_text('{"train_acc": 41.0, "_runtime": 4000}\n')
    rep = report(tmp_path, capsys)
    f = used(rep)
    assert f["format"] == "darts" and f["path"].endswith("output.log")
    assert rep["steps"]["count"] == 12 * 8
    assert rep["steps"]["last"] > 11 * 350  # (the counter placed in its epoch: batches of the epochs before)
    assert rep["sources"]["lr"]["key"] == "lr" and rep["sources"]["val_loss"]["key"] == "val_loss"
    assert check(rep, "overfitting")["status"] in ("PASS", "WARN")


def test_pix2pix_loss_log_iters_restart_each_epoch(tmp_path, capsys):
    """CycleGAN / pix2pix's loss_log.txt on a small set: printed every 100 samples, so the epochs
    between two lines are not printed and the first change of epoch shows the counter rising
    (4 -> 8): it is taken for a global step until it starts again at a later epoch, then placed
    in its epoch (96 lines are 96 steps, not 6 steps and 15 resumes)."""
    rng = random.Random(4)
    rows = ["================ Training Loss (Sat Jun 18 08:01:30 2022) ================\r"]
    total, epoch_len = 0, 25
    for epoch in range(1, 400):
        for it in range(1, epoch_len + 1):
            total += 1
            if total % 100 == 0 and len(rows) <= 96:
                g = 20 * math.exp(-total / 3000) * math.exp(rng.gauss(0, 0.2))
                rows.append(
                    f"(epoch: {epoch}, iters: {it - it % 4 or 4}, time: 0.095, data: 0.200) G_GAN: {0.6 + rng.random() / 5:.3f} "
                    f"G_L1: {g:.3f} D_real: {0.5 + rng.random() / 5:.3f} D_fake: {0.5 + rng.random() / 5:.3f} \r"
                )
    (tmp_path / "loss_log.txt").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "loss_log.txt", capsys)
    assert rep["steps"]["count"] == 96
    assert rep["resumes"] == [] and "launches" not in rep


def test_a_time_field_first_and_an_iters_average_loss(tmp_path, capsys):
    """fresh35's ORPO loop: "time:<date>, <clock>, iters:N, iters_average_Loss:X, ...": the time
    is the line's prefix, ``iters`` the step, the interval's average the loss."""
    rows = ["time:2024-03-23, 04:24:46, batch_size:2, trainable_parameters_num:463987712, warmup_steps:2000"]
    for i in range(1, 41):
        rows.append(
            f"time:2024-03-23, 04:{i:02d}:58, iters:{500 * i}, iters_average_Loss:{1.4 - 0.004 * i:.4f}, "
            f"iters_average_logprobability_for_Positive:{-1.4 + 0.004 * i:.4f}, iters_average_Log_Odds_Ratio:-0.7254"
        )
    (tmp_path / "sft_log.txt").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "sft_log.txt", capsys)
    assert rep["sources"]["loss"]["key"] == "iters_average_Loss"
    assert rep["steps"] == {"first": 500, "last": 20000, "count": 40, "records": 40}


def test_a_space_aligned_table_with_camel_case_names_and_a_timestamp_column(tmp_path, capsys):
    """The PyTorch Mario tutorial's MetricLogger: a header of camelCase names (MeanLoss,
    MeanReward: an RL run), rows ending in an ISO time."""
    rows = [
        f"{'Episode':>8}{'Step':>8}{'Epsilon':>10}{'MeanReward':>15}{'MeanLength':>15}{'MeanLoss':>15}"
        f"{'MeanQValue':>15}{'TimeDelta':>15}{'Time':>20}"
    ]
    for e in range(60):
        rows.append(
            f"{e:8d}{1500 + 900 * e:8d}{0.1:10.3f}{300 + e:15.3f}{800.0:15.3f}{0.2 + 0.01 * e:15.3f}"
            f"{0.5:15.3f}{9.1:15.3f}{'2025-04-25T14:49:52':>20}"
        )
    d = tmp_path / "checkpoints" / "2025-04-25T14-49-43"
    d.mkdir(parents=True)
    (d / "log").write_text("\n".join(rows) + "\n")
    rep = report(d / "log", capsys)
    assert rep["sources"]["loss"]["key"] == "MeanLoss"
    assert rep["steps"]["count"] == 60
    assert check(rep, "loss_spike")["status"] != "FAIL"  # (an RL run: MeanReward)


def test_a_relaunch_at_a_later_epoch_is_no_wrapping_counter(tmp_path, capsys):
    """A counter that ran up within one epoch (PaddleOCR's "epoch: [1/75], global_step: 2300") and
    drops at a later epoch ("epoch: [26/50], global_step: 10") is a relaunch, not a batch index:
    the step stays the counter (fresh20's workerlog)."""
    rows = []
    for s in range(10, 210, 10):  # (a counter that runs on across the first change of epoch: global)
        rows.append(
            f"[2026/04/23 18:52:01] ppocr INFO: epoch: [{1 + s // 110}/200], global_step: {s}, lr: 0.000002, loss: {3 - s / 500:.6f}"
        )
    for s in range(10, 2310, 10):
        rows.append(
            f"[2026/04/27 15:23:08] ppocr INFO: epoch: [1/75], global_step: {s}, lr: 0.000011, loss: {2 - s / 5000:.6f}"
        )
    for s in range(10, 110, 10):
        rows.append(
            f"[2026/05/05 17:53:07] ppocr INFO: epoch: [26/50], global_step: {s}, lr: 0.000053, loss: {0.86 - s / 5000:.6f}"
        )
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "train.log", capsys)
    assert max(s["last"] for s in rep["launches"]) <= 2300  # (never (26 - 1) x 2300 + 10)


def test_spacy_training_table(tmp_path, capsys):
    """spaCy v3's table: "E  #  LOSS TOK2VEC  LOSS NER  ENTS_F ...": the "#" column is the step,
    the components' losses (names of two words) summed."""
    rows = [
        "=========================== Initializing pipeline ===========================",
        "✔ Initialized pipeline",
        "ℹ Pipeline: ['tok2vec', 'ner']",
        "E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE ",
        "---  ------  ------------  --------  ------  ------  ------  ------",
    ]
    for i in range(60):
        rows.append(
            f"{i // 10:3d}  {i * 200:6d}  {50 * math.exp(-i / 20) + 5:12.2f}  {800 * math.exp(-i / 15) + 40:8.2f}"
            f"  {min(90, i * 2):6.2f}  50.00  40.00  {min(0.9, i / 60):6.2f}"
        )
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "train.log", capsys)
    assert rep["steps"] == {"first": 0, "last": 11800, "count": 60, "records": 60}
    assert "LOSS_TOK2VEC + LOSS_NER" in used(rep)["objective"]


def test_kohya_and_opennmt_names(tmp_path, capsys):
    kohya = [
        f"steps:  {i:3d}%|██        | {i + 1}/100 [00:{i % 60:02d}<01:00,  1.00it/s, avr_loss={0.12 - i / 2000:.4f}]"
        for i in range(100)
    ]
    (tmp_path / "k.log").write_text("\r".join(kohya) + "\n")
    rep = report(tmp_path / "k.log", capsys)
    assert rep["sources"]["loss"]["key"] == "avr_loss"
    onmt = [
        f"[2023-05-01 12:00:00,000 INFO] Step {100 * (i + 1)}/200000; acc: {10 + i / 2:.2f}; ppl: {math.exp(6 - i / 30):.2f}; "
        f"xent: {6 - i / 30:.2f}; lr: 0.00010; sents:   12000; bsz: 3000/3000/50; 12000/12000 tok/s;   {30 * i} sec;"
        for i in range(60)
    ]
    (tmp_path / "o.log").write_text("\n".join(onmt) + "\n")
    rep = report(tmp_path / "o.log", capsys)
    assert rep["sources"]["loss"]["key"] == "xent" and rep["steps"]["count"] == 60


def test_a_history_nested_in_a_result_object(capsys):
    """huggingface/peft's benchmark result (MIT, bench/corpus/fresh39): the per-step records are
    the list at train_info/metrics, their keys with spaces ("train loss")."""
    d = os.path.join(paths.ROOT, "bench", "corpus", "fresh39", "peft_results_unilora_plateau")
    rep = report(d, capsys)
    f = used(rep)
    assert f["format"] == "json-nested"
    assert rep["sources"]["loss"]["key"] == "train loss"
    assert rep["steps"]["first"] == 250 and rep["steps"]["last"] == 5000
    assert check(rep, "plateau")["status"] in ("WARN", "FAIL")  # (labelled: no progress after step 250)


def test_a_notebook_table_after_prose(capsys):
    """An Unsloth notebook's output pasted into a .txt (MIT, bench/corpus/fresh39): the banner, a
    progress line, then HF's NotebookProgressCallback table ("Step<TAB>Training Loss"), then the
    TrainOutput summary (its metrics dict no step's)."""
    d = os.path.join(paths.ROOT, "bench", "corpus", "fresh39", "unsloth_notebook_table_qwen3_medqa_healthy")
    rep = report(d, capsys)
    assert rep["sources"]["loss"]["key"] == "Training Loss"
    assert rep["steps"]["count"] >= 50 and rep["steps"]["first"] == 10


def test_losses_named_by_their_split_beside_a_step_list(tmp_path, capsys):
    """{"steps": [...], "train": [...], "val": [...]} with the validation list 100x shorter (an
    evaluation every 100 steps): placed every 100 steps, not at steps 0-49."""
    steps = list(range(5000))
    train = [3 * math.exp(-s / 800) + 0.5 for s in steps]
    val = [3 * math.exp(-s / 800) + 0.6 + (s / 5000) ** 2 * 3 for s in steps[::100]]
    (tmp_path / "loss_log.json").write_text(json.dumps({"steps": steps, "train": train, "val": val}))
    rep = report(tmp_path / "loss_log.json", capsys)
    assert rep["sources"]["loss"]["key"] == "train" and rep["sources"]["val_loss"]["key"] == "val"
    assert rep["steps"]["count"] == 5000
    ov = [a for a in rep["alerts"] if a["check"] == "overfitting" and a["severity"] != "info"]
    assert ov and all(a["step"] % 100 == 0 for a in ov)


def test_tensorboardx_export_scalars_to_json(capsys):
    """tensorboardX's writer.export_scalars_to_json (BSD-3, bench/corpus/fresh41): keys
    "<logdir>/data/<main tag>/<tag>: " holding [wall time, step, value] points."""
    d = os.path.join(paths.ROOT, "bench", "corpus", "fresh41", "tbx_json_awd_lstm_423_epochs_healthy")
    rep = report(d, capsys)
    assert used(rep)["format"] == "json-columns"
    assert rep["sources"]["loss"]["key"] == "trn_loss" and rep["sources"]["val_loss"]["key"] == "val_loss"
    assert rep["steps"] == {"first": 1, "last": 423, "count": 423, "records": 423}


def test_tensor_reprs_and_a_total_named_all_loss(tmp_path, capsys):
    """A print loop that prints its tensors ("loss: tensor(0.6931, grad_fn=<...>)", TF2's
    "tf.Tensor(8.07, shape=(), dtype=float32)"), and a total named all_loss beside its terms."""
    rows = []
    for i in range(1, 61):
        t = 0.7 * math.exp(-i / 30)
        rows.append(
            f"epoch 1 step {10 * i} all_loss: tensor({2 * t + 0.1:.4f}, device='cuda:0', grad_fn=<AddBackward0>) "
            f"cls_loss: tf.Tensor({t:.4f}, shape=(), dtype=float32) box_loss: tensor({t + 0.1:.4f})"
        )
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "train.log", capsys)
    assert rep["steps"]["count"] == 60
    assert rep["sources"]["loss"]["key"] == "all_loss"
    assert used(rep)["objective"].startswith("all_loss (the logged total)")


def test_tensorboardx_export_of_two_runs_reads_one(tmp_path, capsys):
    """Two log dirs in one export holding the same tag ("runs/a/loss", "runs/b/loss") are two runs:
    one is read, the other's points counted, never merged step by step."""
    doc = {}
    for run, scale in (("runs/a", 1.0), ("runs/b", 3.0)):
        doc[f"{run}/loss"] = [[1.7e9 + s, s, scale * math.exp(-s / 50) + 0.1] for s in range(1, 101)]
    (tmp_path / "all_scalars.json").write_text(json.dumps(doc))
    rep = report(tmp_path, capsys)
    assert rep["steps"]["count"] == 100
    assert used(rep)["skip_reasons"] == {"points of another run ('runs/b': not the one read)": 100}


def test_launches_printed_two_ways(tmp_path, capsys):
    """A first launch prints "Epoch 1/5 | Batch 10 | Loss" (a counter), the later ones only their
    epoch and a percent ("Epoch 1/5 | Progreso: 0.1% | Loss"): an epoch line beside counted records
    is a summary, but three in a row naming the same epoch are per-batch prints again (fresh41)."""
    rows = ["2026-01-27 15:06:21 [INFO] [TrainModule]: Iniciando entrenamiento. Total de muestras: 174189"]
    rows += [
        f"2026-01-27 15:06:23 [INFO] [TrainModule]: Epoch 1/5 | Batch {b} | Loss: {8.7 - b / 100:.4f}" for b in (0, 10)
    ]
    for _launch in range(3):
        rows.append("2026-01-27 15:07:37 [INFO] [TrainModule]: Instanciando el Modelo GPT...")
        rows += [
            f"2026-01-27 15:09:41 [INFO] [TrainModule]: Epoch 1/5 | Progreso: {i / 10:.1f}% | Loss: {8.7 * math.exp(-i / 40):.4f}"
            for i in range(60)
        ]
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "train.log", capsys)
    assert used(rep)["records"] >= 2 + 3 * 60 - 6


def test_a_gans_relaunches_under_a_banner_are_new_runs(tmp_path, capsys):
    """A WGAN print loop launched 5 times into one file, each launch under its "TRAIN started at" banner from
    epoch 1 and stopped at epoch 30 of 100: a generator loss may start where the last run ended (it does not
    fall as a GAN learns), so the level test read such launches as resumes and their epochs overwrote each
    other (fresh82's grid: 27 launches read as 14)."""
    rng = random.Random(4)
    rows = []
    for launch in range(5):
        rows.append(f"TRAIN started at Fri Oct 24 1{launch}:45:03 2025")
        for e in range(1, 31):  # (launches 0, 2, 4 from ~0.05, as their critic learns; 1 and 3 from ~3.4)
            g = (3.5 - 3.4 * math.exp(-e / 3) if launch % 2 == 0 else 3.5 + 0.2 * math.sin(e / 4)) + rng.gauss(0, 0.05)
            rows.append(f"Epoch {e}/100 | D_loss={-3.5 + rng.gauss(0, 0.3):.4f} | G_loss={g:.4f} | Time=10.83s")
    (tmp_path / "train_log.txt").write_text("\n".join(rows) + "\n")
    main([str(tmp_path), "--report"])
    out = capsys.readouterr().out
    assert "launches: 5 in this file (start 1-30, new run 1-30, new run 1-30, new run 1-30, new run 1-30)" in out, out


@pytest.mark.parametrize(
    "line, banner",
    [
        ("TRAIN started at Fri Oct 24 19:45:03 2025", True),
        ("2024-05-01 10:00:00 INFO Training started at 2024-05-01", True),
        ("Starting training...", True),
        ("Start training", True),
        ("Starting training epoch 3", False),  # (a loop's per-epoch line: no new process)
        ("Start training: epoch 1", False),
        ("epoch 3 started at 10:00:02", False),
        ("restarted at step 500", False),
    ],
)
def test_a_scripts_own_start_line_is_a_launch_banner(line, banner):
    from tsm_tui.sources.launches import is_banner

    assert is_banner(line) is banner


def test_marian_training_and_validation_lines(tmp_path, capsys):
    rows = ["[2019-03-31 05:30:16] [marian] Marian v1.7.6 02f4af4 2018-12-12 18:51:10 -0800"]
    for i in range(1, 61):
        up = 500 * i
        rows.append(
            f"[2019-03-31 08:00:53] Ep. 1 : Up. {up} : Sen. {up * 128:,} : Cost {3 * math.exp(-i / 30) + 1:.8f} : "
            f"Time 4664.34s : 1843.45 words/s : L.r. {3e-4 * min(1, i / 8):.4e}"
        )
        if i % 10 == 0:
            rows.append(
                f"[2019-03-31 10:44:59] [valid] Ep. 1 : Up. {up} : ce-mean-words : {2.5 * math.exp(-i / 40) + 1:.5f} : new best"
            )
            rows.append(f"[2019-03-31 10:45:03] [valid] Ep. 1 : Up. {up} : perplexity : {math.exp(1.5):.5f} : new best")
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "train.log", capsys)
    assert used(rep)["format"] == "marian"
    assert rep["steps"]["count"] == 60 and rep["steps"]["last"] == 30000
    assert {"loss", "val_loss", "lr"} <= set(rep["sources"])


def test_pymarl_recent_stats_at_t_env(tmp_path, capsys):
    """PyMARL's "Recent Stats | t_env: N | Episode: M" header, then tab-separated stats lines."""
    rows = []
    for i in range(1, 41):
        t = 10000 * i + 344
        rows += [
            f"[INFO 20:02:37] my_main t_env: {t - 9000} / 2050000",
            f"[INFO 20:04:23] my_main Recent Stats | t_env: {t:>10} | Episode: {208 * i:>8}",
            "battle_won_mean:           0.0353\tentropy_loss:              0.0089\tep_length_mean:           49.5465",
            f"grad_norm:                 {0.5 + i / 100:.4f}\tloss:                      {0.1 + i / 400:.4f}\tmi_loss:                   0.0012",
            "return_mean:               1.5204\treturn_std:                3.4601\ttarget_mean:               0.0377",
            "",
        ]
    (tmp_path / "cout.txt").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "cout.txt", capsys)
    assert rep["steps"]["first"] == 10344 and rep["steps"]["count"] == 40


def test_opennmt_validation_without_a_counter_ends_at_the_next_training_step(tmp_path, capsys):
    """OpenNMT-py prints "valid's transforms: TransformPipe()" (an evaluation's start, no number), its
    results with no counter, then "Step 10050/100000": counting to the training's planned steps, that
    line is training again (1,797 of 2,000 steps had been read as evaluations: fresh44)."""
    rows = []
    for i in range(1, 101):
        rows.append(
            f"[2024-01-09 20:28:58,917 INFO] Step {50 * i}/100000; acc:  46.42; ppl:  9.64; xent: {3 - i / 100:.2f}; lr: 0.00100; 5316/13020 tok/s;    975 sec"
        )
        if i % 20 == 0:
            rows += [
                "[2024-01-09 20:29:03,624 INFO] valid's transforms: TransformPipe()",
                f"[2024-01-09 20:29:07,747 INFO] Validation perplexity: {16 - i / 10:.4f}",
                "[2024-01-09 20:29:07,747 INFO] Validation accuracy: 47.103",
            ]
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "train.log", capsys)
    assert rep["steps"]["count"] == 100


def test_a_minute_clock_and_a_logger_field_before_the_level(tmp_path, capsys):
    """fresh43's PINN logger: "2025-06-30 15:26 - function:Train - INFO - [Train] epoch:1, ..."."""
    rows = []
    for e in range(1, 61):
        rows.append(
            f"2025-06-30 15:26 - function:Train - INFO - [Train] epoch:{e}, lr:0.002000, total loss:{2928 * math.exp(-e / 5) + 1:.6f}"
        )
        rows.append(
            f"2025-06-30 15:26 - function:Train - INFO - [Valid] epoch:{e}, MSE: {837 * math.exp(-e / 5) + 1:.4f}"
        )
    (tmp_path / "text log.txt").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path / "text log.txt", capsys)
    assert rep["steps"]["count"] == 60 and rep["sources"]["loss"]["key"] == "total loss"


def test_a_log_saved_under_a_code_name(tmp_path, capsys):
    """A tree where nothing is named as a log: a .py whose first line is no Python (a nohup output
    saved as nohuo.train.py, fresh43; a trainer_state.json written to __init__.py, fresh30) is read
    by its content; the real Python source beside it is not."""
    d = tmp_path / "src" / "models"
    d.mkdir(parents=True)
    (d / "model.py").write_text("import torch\n\n\ndef train(loss):\n    print('epoch 1, iter 10, loss', loss)\n")
    rows = [f"epoch {1 + i // 50}, iter {i % 50 + 1}, loss {3 * math.exp(-i / 300) + 0.5:.4f}" for i in range(400)]
    (d / "nohuo.train.py").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path, capsys)
    f = used(rep)
    assert f["path"].endswith("nohuo.train.py") and rep["steps"]["records"] == 400
    assert not any(x["path"].endswith("model.py") and x.get("used") for x in rep["files"])


def test_a_loss_named_by_its_split_or_a_short_name(tmp_path, capsys):
    """A hand-written loop names its training loss by the split alone ("epoch 206 | train 1.1158 (seg
    0.0765, thick 1.0393) | val 1.3227 | lr 3.91e-06", fresh43; "Epoch 3: train 0.53, val 0.61";
    "epoch=3 train=0.53"; the evaluation split word beside it the validation loss) or by the loss function's short name, spaced ("step 10 ce 2.29", "mse 0.03",
    "nll 2.28 kl 0.1"): each is the objective, said so; a spike in it is found. A count under a split
    word ("train 50000 samples") is no loss."""
    shapes = {
        "pipe": "epoch {e} | train {l:.4f} (seg 0.0765, thick {t:.4f}) | val {v:.4f} | lr 3.91e-06 | epoch time 12m 50s",
        "colon": "Epoch {e}: train {l:.4f}, val {v:.4f}",
        "equals": "epoch={e} train={l:.4f} val={v:.4f}",
        "ce": "step {s} ce {l:.4f} acc 0.41",
        "mse": "epoch {e}, mse {l:.5f}",
        "nll": "iter {s} nll {l:.4f} kl 0.1",
    }
    for name, fmt in shapes.items():
        rows = []
        for i in range(200):
            loss = 2.0 * math.exp(-i / 60) + 0.3 + 0.01 * ((i * 7) % 5)
            if i == 120:
                loss *= 6
            rows.append(fmt.format(e=i + 1, s=10 * (i + 1), l=loss, t=loss - 0.07, v=loss + 0.1))
        rep = log_report(tmp_path, name, "\n".join(rows) + "\n", capsys)
        assert rep["steps"]["count"] == 200, name
        objective = used(rep)["objective"]
        key = {"pipe": "train", "colon": "train", "equals": "train"}.get(name, name)
        assert objective.startswith(f"{key} ("), (name, objective)
        spikes = [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"]
        assert spikes and spikes[0] == (121 if name in ("pipe", "colon", "equals", "mse") else 1210), (name, spikes)
        if key == "train":  # (its sibling, the bare evaluation split word, is the validation loss)
            assert check(rep, "overfitting")["status"] == "PASS", name
    d = tmp_path / "counts"
    d.mkdir()
    (d / "train.log").write_text(
        "".join(f"epoch {e}: train 50000, val 10000 | train:  {e}%|###\n" for e in range(1, 60))
    )
    rc = main([str(d), "--report", "--json"])
    capsys.readouterr()
    assert rc == 2


def test_gradient_boosting_rounds(tmp_path, capsys):
    """XGBoost's, LightGBM's and CatBoost's per-round lines, among a script's other prints: the training
    set's loss metric is the loss (a score such as AUC never is), the other set's the validation loss, the
    round the step; the report says which set it took."""
    shapes = {
        "xgb": (
            "[{r}]\ttrain-auc:0.9{r:03d}\ttrain-logloss:{l:.5f}\teval-auc:0.8\teval-logloss:{v:.5f}",
            "train logloss",
        ),
        "lgb": (
            "[{r}]\ttraining's binary_logloss: {l:.6g}\tvalid_1's binary_logloss: {v:.6g}",
            "training binary_logloss",
        ),
        "sk": ("[{r}]\tvalidation_0-rmse:{l:.5f}\tvalidation_1-rmse:{v:.5f}", "validation_0 rmse"),
        "cat": ("{r}:\tlearn: {l:.7f}\ttest: {v:.7f}\tbest: {v:.7f} ({r})\ttotal: 59.6ms\tremaining: 5.9s", "learn"),
    }
    for name, (fmt, objective) in shapes.items():
        rows = ["Fitting the model ...", "[10:32:11] WARNING: using the default evaluation metric"]
        for r in range(0, 300, 3):
            loss = 0.7 * math.exp(-r / 80) + 0.05
            rows.append(fmt.format(r=r, l=loss, v=loss + 0.02 + r / 3000))
        rows.append("Best iteration: 297")
        rep = log_report(tmp_path, name, "\n".join(rows) + "\n", capsys)
        assert rep["steps"]["count"] == 100 and rep["steps"]["last"] == 297, name
        assert used(rep)["objective"].startswith(objective + " ("), (name, used(rep)["objective"])
        assert check(rep, "overfitting")["status"] in ("WARN", "PASS"), name  # (the validation loss is read)
        assert check(rep, "overfitting")["status"] != "SKIP", name


def test_chinese_metric_names(tmp_path, capsys):
    """A Chinese print loop's names ("训练损失: 0.52, 验证损失: 0.61", with ASCII or full-width punctuation)
    are the training and validation losses."""
    for name, fmt in {
        "ascii": "Epoch {e}, 训练损失: {l:.4f}, 验证损失: {v:.4f}",
        "fullwidth": "第{e}轮，训练损失：{l:.4f}，验证损失：{v:.4f}，epoch {e}",
    }.items():
        rows = [fmt.format(e=e, l=2 * math.exp(-e / 20) + 0.2, v=2 * math.exp(-e / 20) + 0.3) for e in range(1, 61)]
        rep = log_report(tmp_path, name, "\n".join(rows) + "\n", capsys, file="log.txt")
        assert rep["steps"]["count"] == 60, name
        assert rep["sources"]["loss"]["key"] == "train_loss" and rep["sources"]["val_loss"]["key"] == "val_loss", name


def test_a_group_of_values_named_by_a_loss_word(tmp_path, capsys):
    """A loss's parts grouped under a loss word: bracketed pairs (fresh118's Jittor VSR log, GBK: a counter,
    "进度: [100/4018]", "预计剩余时间: 125.5分钟", then "Loss: [total: 0.0739][L1: 0.0492][cycle: 0.0193]";
    "nothing readable") or a printed dict (``losses: {'total': .., 'l1': ..}``). The group's names are the
    loss's: its total the objective, the others its terms; a group with no total is the sum of its terms."""
    rows = ["Epoch   0 with Lr 1.00e-4"]
    for i in range(1, 41):
        t = 0.08 * math.exp(-i / 20) + 0.02
        rows.append(
            f"[{100 * i}/4018 ({2.5 * i:.1f}%)]\t进度: [{100 * i}/4018]\t预计剩余时间: {125.5 - i:.1f}分钟\tPSNR: 23.00\t"
            f"Loss: [total: {t:.4f}][L1: {0.6 * t:.4f}][cycle: {0.3 * t:.4f}][mid: 0.0000]"
        )
    path = tmp_path / "jittor"
    path.mkdir()
    (path / "log.txt").write_bytes(("\n".join(rows) + "\n").encode("gbk"))
    rep = report(path, capsys)
    assert rep["steps"]["count"] == 40 and (rep["steps"]["first"], rep["steps"]["last"]) == (100, 4000)
    assert rep["sources"]["loss"]["key"] == "loss_total"
    dicts = [
        f"Iter {100 * i} losses: {{'l1': {math.exp(-i / 20):.4f}, 'perc': {0.5 * math.exp(-i / 20):.4f}}}"
        for i in range(1, 41)
    ]
    rep = log_report(tmp_path, "dict", "\n".join(dicts) + "\n", capsys)
    assert rep["steps"]["count"] == 40 and (rep["steps"]["first"], rep["steps"]["last"]) == (100, 4000)
    assert "loss_l1 + loss_perc" in used(rep)["objective"]


def test_glue_factory_logger(tmp_path, capsys):
    """glue-factory's trainer (fresh123's LightGlue fine-tune: "nothing readable"): a logger's date, name and level
    in one bracket, "[E e | it i]" (the epoch's letter, the iteration within it), then the loss's parts as
    "name value" pairs in braces; "[Validation] {..., loss/total v, ...}" after each epoch. Each iteration placed
    in its epoch, the total the objective, the validation's total the validation loss."""
    rows = ["[07/26/2025 10:27:00 gluefactory INFO] Starting experiment sp+lg_da_megadepth"]
    for e in range(4):
        for it in range(0, 1001, 100):
            t = 1.6 * math.exp(-(e * 1001 + it) / 2000) + 0.3
            rows.append(
                f"[07/26/2025 10:{e + 28}:16 gluefactory INFO] [E {e} | it {it}] loss {{total {t:.3E}, last {0.6 * t:.3E}, "
                f"nll_pos {0.9 * t:.3E}, num_matchable 4.883E+02}}"
            )
        rows.append(
            f"[07/26/2025 10:{e + 28}:50 gluefactory INFO] [Validation] {{match_recall 6.318E-01, loss/total {t + 0.1:.3E}, "
            f"loss/last {t:.3E}}}"
        )
    rep = log_report(tmp_path, "gf", "\n".join(rows) + "\n", capsys, file="finetune.log")
    # (an epoch's length not printed: the counter's last value and its interval, 1,100 steps)
    assert rep["steps"]["first"] == 0 and rep["steps"]["last"] == 3 * 1100 + 1000 and not rep["resumes"]
    assert rep["sources"]["loss"]["key"] == "loss_total"
    assert check(rep, "overfitting")["status"] != "SKIP" and "4 evaluation(s)" in check(rep, "overfitting")["summary"]


def test_more_epoch_and_step_shapes(tmp_path, capsys):
    """Shapes of fresh123 / fresh124's unread logs, each a class: an epoch and its total said with "of" between
    tab-separated "name=value" cells ("Epoch 0 of 250 \t lr=[1e-05] \t loss=0.50 \t val_loss=0.44"); a counter's
    word glued to its number, then "name:value" cells ("Epoch1 Time:178.1s Data:47.8s Loss:5.5364 Xent:5.26");
    a loss said of an iteration however its word is spelt ("train loss of iteraction 2:0.79384094"); a step line
    whose rate is glued to its number ("[TRAIN] Epoch 000 | batch 0010/9565 (  0.1%) | 0.539s/batch"), its
    metrics on the lines after it."""
    loss = [2 * math.exp(-i / 15) + 0.2 for i in range(60)]
    shapes = {
        "of": (
            ["Starting Segmentation training"]
            + [
                f"Epoch {i} of 250 \t lr=[{1e-5 * (1 - i / 250):.6g}] \t loss={v} \t val_loss={v + 0.05} \t val_iou=0.36"
                for i, v in enumerate(loss)
            ],
            (0, 59),
        ),
        "glued": (
            [
                f"Epoch{i + 1} Time:178.1s Data:47.8s Loss:{v:.4f} Xent:{0.9 * v:.4f} Acc:12.89% "
                for i, v in enumerate(loss)
            ],
            (1, 60),
        ),
        "spelt": (
            ["Initial loss after 1:2.2"] + [f"train loss of iteraction {i + 2}:{v:.8f}" for i, v in enumerate(loss)],
            (2, 61),
        ),
        "rate": (
            [
                ln
                for i, v in enumerate(loss)
                for ln in (
                    f"[TRAIN] Epoch 000 | batch {10 * (i + 1):04d}/9565 (  {i / 10:.1f}%) | 0.539s/batch",
                    f"[TRAIN] mean acc: {0.1 + i / 100:.6f}",
                    f"[TRAIN] mean loss: {v:.6f}",
                )
            ],
            (10, 600),
        ),
    }
    for name, (rows, span) in shapes.items():
        rep = log_report(tmp_path, name, "\n".join(rows) + "\n", capsys)
        assert rep["steps"]["count"] == 60 and (rep["steps"]["first"], rep["steps"]["last"]) == span, name
        assert check(rep, "loss_spike")["status"] == "PASS", name


def _lightning_csv(path, base: str, epochs: int, steps_per_epoch: int, every: int, val: str | None = None) -> None:
    """A Lightning CSVLogger metrics.csv of a loss logged with on_step and on_epoch: a row per logged step
    (``<base>_step``, every ``every`` steps), a row per epoch end (``<base>_epoch``, and ``val`` if named)."""
    head = ([val] if val else []) + ["epoch", "step", f"{base}_epoch", f"{base}_step"]
    rows = [",".join(head)]
    step = 0
    for e in range(epochs):
        for _ in range(steps_per_epoch):
            step += 1
            if step % every == 0:
                rows.append(
                    ",".join(
                        ([""] if val else []) + [str(e), str(step - 1), "", f"{2 * math.exp(-step / 300) + 0.1:.4f}"]
                    )
                )
        loss = 2 * math.exp(-step / 300) + 0.1
        if val:
            rows.append(",".join([f"{loss + 0.05:.4f}", str(e), str(step - 1), "", ""]))
        rows.append(",".join(([""] if val else []) + [str(e), str(step - 1), f"{loss:.4f}", ""]))
    path.mkdir(parents=True)
    (path / "metrics.csv").write_text("\n".join(rows) + "\n")


def test_lightning_csv_takes_the_fuller_of_a_losss_step_and_epoch_columns(tmp_path, capsys):
    """Lightning's ``train/loss_step`` (every log_every_n_steps) and ``train/loss_epoch`` (each epoch's mean):
    the step column is the loss, unless the file holds twice as many epoch values (fresh128's latent-diffusion
    runs, one step an epoch logged every 50: "no spikes in 2 loss values" where 100 epoch losses held 14 spikes).
    A loss named after its function (``train_cross_entropy_step`` / ``_epoch``, fresh128's CamVid run: "no
    training steps found") is the loss too, ``val_cross_entropy`` its validation loss."""
    _lightning_csv(tmp_path / "sparse", "train/loss", epochs=100, steps_per_epoch=1, every=50)
    rep = report(tmp_path / "sparse", capsys)
    assert rep["sources"]["loss"]["key"] == "train/loss_epoch" and rep["steps"]["count"] == 100
    _lightning_csv(tmp_path / "dense", "train/loss", epochs=10, steps_per_epoch=100, every=10)
    rep = report(tmp_path / "dense", capsys)
    assert rep["sources"]["loss"]["key"] == "train/loss_step"
    _lightning_csv(
        tmp_path / "ce", "train_cross_entropy", epochs=50, steps_per_epoch=22, every=50, val="val_cross_entropy"
    )
    rep = report(tmp_path / "ce", capsys)
    assert rep["sources"]["loss"]["key"] == "train_cross_entropy_epoch"
    assert rep["sources"]["val_loss"]["key"] == "val_cross_entropy"


def test_folds_that_restart_their_epochs_are_runs(tmp_path, capsys):
    """A cross-validation script's "[Fold f Ep e] tr_loss=... | val_auc=..." lines (fresh121's five-fold GNN, read
    20 of its 318 records: "Ep 001]" was no epoch before its bracket): each fold a run of its epochs, a new run
    at each fold's first epoch."""
    rows = []
    for fold in (1, 2, 3):
        rows += [f"Fold {fold}: train=113 (pos=33, neg=80) | val=29 (pos=9, neg=20)"]
        rows += [
            f"  [Fold {fold} Ep {e:03d}] tr_loss={0.26 * math.exp(-e / (12 + fold)) + 0.05:.4f} tr_auc=0.49 | val_auc=0.37 | 2.1s"
            for e in range(1, 41)
        ]
    rep = log_report(tmp_path, "cv", "\n".join(rows) + "\n", capsys, file="log_train.txt")
    assert [s["kind"] for s in rep["launches"]] == ["start", "new run", "new run"]
    assert [s["records"] for s in rep["launches"]] == [40, 40, 40] and rep["sources"]["loss"]["key"] == "tr_loss"


def test_round_35_console_shapes(tmp_path, capsys):
    """Round 35's unread consoles, each a class: an extended XYZ header printed in a MACE console's preamble
    ("Properties=species:S:1:pos:R:3": "S:1" had been step 1, the 500 epoch lines after it a summary's);
    a Keras-style bar's redraw with an epoch's summary glued to its last number ("mean_acc: 0.797767Epoch
    [2/50],  Loss: 4.6121,": fresh126's UAMFD consoles); an epoch's participle phase ("Epoch 0 trained with
    loss: ...", "Epoch 0 evaluated with loss: ...": the second the validation loss, fresh127's lung U-Net)."""
    rows = [
        '结构1 注释头: Lattice="26.8 0.0 0.0" Properties=species:S:1:pos:R:3:forces:R:3 energy=-39243.02 pbc="T T T"'
    ]
    rows += [
        f"2026-06-27 22:{e % 60:02d}:29.547 INFO: Epoch {e}: head: Default, loss={0.4 * math.exp(-e / 30) + 0.01:.8f}, "
        "RMSE_E_per_atom=  404.34 meV, RMSE_F=  197.77 meV / A"
        for e in range(60)
    ]
    rep = log_report(tmp_path, "mace", "\n".join(rows) + "\n", capsys, file="std.out")
    assert rep["steps"]["count"] == 60 and (rep["steps"]["first"], rep["steps"]["last"]) == (0, 59)
    bar = "   70/10009 [..........] - ETA: 12:28 - CE_loss: 0.595023 - mean_acc: 0.782109"
    rows = [f"{bar}Epoch [{e}/50],  Loss: {4.6 * math.exp(-e / 30):.4f}, Train_Acc: 0.8061," for e in range(2, 42)]
    rep = log_report(tmp_path, "keras_bar", "\n".join(rows) + "\n", capsys, file="record.txt")
    assert rep["steps"]["count"] == 40 and rep["sources"]["loss"]["key"] == "Loss"
    rows = []
    for e in range(30):
        rows.append(f"Epoch {e} trained with loss: {0.02 * math.exp(-e / 5) + 1e-4}. The running time is 4073.88.")
        rows.append(
            f"Epoch {e} evaluated with loss: {3e-4 + 1e-5 * e}, dice score: 1.1e-05. The running time is 713.2."
        )
    rep = log_report(tmp_path, "unet", "\n".join(rows) + "\n", capsys, file="train.out")
    assert rep["steps"]["count"] == 30 and "val_loss" in rep["sources"]
    assert check(rep, "overfitting")["status"] == "FAIL"  # (the validation loss rose all along: over-fitting)


def test_a_month_day_clock_and_a_duration_in_seconds(tmp_path, capsys):
    """fresh130's T2ICount logger: "04-06 22:00:33, Epoch 0 Train, reg:0.3237, ..., mse:100.34, Cost: 715.7 sec"
    (the month and day with no year, a comma after the time: 1 of 105 epochs read) and the epoch's duration in
    seconds named "Cost", read as the run's objective ("a cost: no loss logged"): a named number whose unit
    word is seconds is no metric's value."""
    rows = []
    for e in range(40):
        rows.append(f"04-06 21:{e % 60:02d}:37, {'-' * 50}Epoch:{e}/299{'-' * 50}")
        rows.append(
            f"04-06 22:{e % 60:02d}:33, Epoch {e} Train, reg:0.3237, RRC_stage1:0.78, mae:84.73, "
            f"mse:{100 * math.exp(-e / 20) + 10:.2f}, Cost: {700 + e % 3 * 40:.1f} sec "
        )
    rep = log_report(tmp_path, "t2i", "\n".join(rows) + "\n", capsys, file="train.log")
    assert rep["steps"]["count"] == 40 and (rep["steps"]["first"], rep["steps"]["last"]) == (0, 39)
    assert "Cost" not in used(rep)["objective"]


def test_a_bare_number_file_named_with_a_runs_number_first(tmp_path, capsys):
    """``60loss_history.txt`` (a Keras script's np.savetxt, the run's epochs first in its name; fresh124: "nothing
    readable", the same bytes as ``loss_history.txt`` read): the name's metric is the loss, the number a run's."""
    from tsm_tui.sources.bare_numbers import metric_name, run_index

    assert (metric_name("60loss_history.txt"), run_index("60loss_history.txt")) == ("loss", 60)
    assert metric_name("2024.txt") is None and metric_name("ids_1.txt") is None
    d = tmp_path / "lstm"
    d.mkdir()
    (d / "60loss_history.txt").write_text("".join(f"{0.2 * math.exp(-i / 500) + 0.01:.18e}\n" for i in range(300)))
    rep = report(d, capsys)
    assert rep["steps"]["count"] == 300 and rep["sources"]["loss"]["key"] == "loss"


def test_gbk_log_and_a_counter_before_its_epoch(tmp_path, capsys):
    """A print loop's "Batch: 10/600 | epoch: 0/5 | loss: ..." places the batch in its epoch (the counter
    first; read as a bare counter, each epoch was a resume at step 10), in English or in Chinese written
    in GBK (fresh78's GPT-2 medical QA log: "当前Batch：10/6035 | 当前epoch:0/50 | 当前损失值：10.113 |
    当前准确率：0.00%", "nothing readable"); the GBK lines are counted in the report."""
    for name, fmt, enc in (
        ("en", "Batch: {b}/600 | epoch: {e}/5 | loss: {l:.4f} | acc: 12.5%", "utf-8"),
        ("zh", "当前Batch：{b}/600 | 当前epoch:{e}/5 | 当前损失值：{l:.4f} | 当前准确率：12.50%", "gbk"),
    ):
        rows = ["模型训练开始，起始时间：2024-07-13 06:23:43.091239"]
        rows += [
            fmt.format(b=b, e=e, l=3 * math.exp(-(600 * e + b) / 900) + 1) for e in range(3) for b in range(10, 601, 10)
        ]
        path = tmp_path / name
        path.mkdir()
        (path / "train_log.txt").write_bytes(("\n".join(rows) + "\n").encode(enc))
        rep = report(path, capsys)
        assert rep["steps"]["count"] == 180 and rep["steps"]["first"] == 10 and rep["steps"]["last"] == 1800, name
        assert rep["sources"]["loss"]["key"] == "loss", name
        assert check(rep, "plateau")["status"] == "PASS", name
    main([str(tmp_path / "zh"), "--report"])
    out = capsys.readouterr().out
    assert "GBK-encoded lines (Chinese, decoded as GBK, not UTF-8): 181" in out


def test_dl4j_scores_a_qualified_loss_and_a_vae_total(tmp_path, capsys):
    """Deeplearning4j's "Score at iteration N is X" is the loss at N; a loss named by what it is of
    with a hyperparameter's word ("train_eps_loss", a diffusion model's noise loss) is a loss; a VAE's
    ELBO is the total of its own terms, never summed with them, and its validation ELBO the
    validation loss (fresh46, fresh47)."""
    dl4j = "".join(
        f"06:38:16.402 [main] INFO org.deeplearning4j.optimize.listeners.ScoreIterationListener - "
        f"Score at iteration {100 * i} is {1 + math.exp(-i / 20):.16f}\n"
        for i in range(100)
    )
    rep = log_report(tmp_path, "dl4j", dl4j, capsys)
    assert rep["steps"]["count"] == 100 and rep["steps"]["last"] == 9900
    eps = "".join(
        f"Epoch {e}/2000 train_eps_loss={1 + math.exp(-e / 20):.6f} val_mae={'inf' if e == 1 else '3.2'} lr=0.001\n"
        for e in range(1, 100)
    )
    rep = log_report(tmp_path, "eps", eps, capsys)
    assert rep["steps"]["count"] == 99 and used(rep)["objective"].startswith("train_eps_loss (")
    vae = "".join(
        f"ITER {500 * i} TRAINING (phase 1). loss_vae: {0.5 + math.exp(-i / 20):.4f}; loss_recon: "
        f"{0.4 + math.exp(-i / 20):.4f}; loss_kl: {280 + i % 5:.4f}; loss_mmd: -1.9777; Grad_norm: 6.5e+00\n"
        for i in range(100)
    )
    rep = log_report(tmp_path, "vae", vae, capsys)
    assert used(rep)["objective"].startswith("loss_vae (the logged total)")
    assert next(c for c in rep["checks"] if c["id"] == "plateau")["status"] == "PASS"  # (the KL's flat ~280 is no loss)
    rows = ["epoch,step,train_elbo_loss,train_recon_loss,val_elbo_loss"]
    rows += [
        f"{i // 10},{i},{1 + math.exp(-i / 20):.4f},{0.5 + math.exp(-i / 20):.4f},{1.1 + math.exp(-i / 20):.4f}"
        for i in range(100)
    ]
    rep = log_report(tmp_path, "elbo", "\n".join(rows) + "\n", capsys, file="metrics.csv")
    assert rep["sources"]["loss"]["key"] == "train_elbo_loss" and rep["sources"]["val_loss"]["key"] == "val_elbo_loss"


def test_vits_family_loss_lists(tmp_path, capsys):
    """VITS / so-vits-svc log their losses as an unnamed list after "Train Epoch: N [P%]" (the
    discriminator's, then the generator's terms, the global step, the LR), later so-vits-svc as
    "Losses: [...], step: N, lr: X": the generator's terms are the objective, the discriminator's
    loss checked apart; a list on any other line is no record."""
    rows = ["2023-02-18 17:28:03,219\t32k\tINFO\t{'train': {'log_interval': 200, 'epochs': 10000, 'batch_size': 12}}"]
    for i in range(60):
        t = math.exp(-i / 30)
        rows.append(f"2023-02-18 17:38:38,439\t32k\tINFO\tTrain Epoch: {1 + 4 * i} [0%]")
        rows.append(
            f"2023-02-18 17:38:38,439\t32k\tINFO\t[{2.5 + 0.1 * t:.4f}, {2.4 + t:.4f}, {5 + t:.4f}, "
            f"{18 + 10 * t:.4f}, {1 + t:.4f}, {200 * i}, 9.99e-05]"
        )
        rows.append("2023-02-18 17:38:40,000\t32k\tINFO\t[0.5, 0.5, 0.5, 0.5, 0.5, 7, 1.0]")  # (no record)
        if i % 10 == 9:  # (its "iteration" is the epoch, the file name's number the step)
            rows.append(
                f"2023-02-18 17:39:00,000\t32k\tINFO\tSaving model and optimizer state at iteration {1 + 4 * i} "
                f"to ./logs\\32k\\G_{200 * i}.pth"
            )
    rep = log_report(tmp_path, "old", "\n".join(rows) + "\n", capsys)
    assert rep["steps"]["count"] == 60 and rep["steps"]["last"] == 11800
    assert used(rep)["objective"].startswith(
        "sum of loss_g_adv + loss_fm + loss_mel + loss_kl (a GAN's generator terms"
    )
    assert "loss_disc" in used(rep)["objective"]
    assert rep["run"]["checkpoints_logged"]["saves"][-1]["step"] == 11800
    rows = [
        f"2023-05-01 10:00:00,000 44k INFO Losses: [2.41, 2.5, {6 + math.exp(-i / 30):.3f}, {20 + 5 * math.exp(-i / 30):.3f}, 1.1], "
        f"step: {100 * i}, lr: 1e-4, reference_loss: 31.1"
        for i in range(60)
    ]
    rep = log_report(tmp_path, "new", "\n".join(rows) + "\n", capsys)
    assert rep["steps"]["count"] == 60 and rep["steps"]["last"] == 5900
    assert used(rep)["objective"].startswith("sum of loss_g_adv + loss_fm + loss_mel + loss_kl")


def test_a_loss_said_in_a_sentence_about_its_epoch(tmp_path, capsys):
    """ "The loss of epoch 3 is 0.52", "Training loss after epoch 3 = 0.52", and a print glued by string
    concatenation, "The loss of epoch0is:tf.Tensor(8.07, ...)" (fresh40's TF2 poetry model), are the loss at
    that epoch."""
    for name, fmt in {
        "of": "The loss of epoch {e} is {l:.4f}",
        "after": "Training loss after epoch {e} = {l:.4f}, val loss {v:.4f}",
        "glued": "The loss of epoch{e}is:tf.Tensor({l:.6f}, shape=(), dtype=float32)",
    }.items():
        rows = [fmt.format(e=e, l=2 * math.exp(-e / 20) + 1, v=2 * math.exp(-e / 20) + 1.2) for e in range(60)]
        rep = log_report(tmp_path, name, "\n".join(rows) + "\n", capsys, file="training_loss.txt")
        assert rep["steps"]["count"] == 60 and rep["steps"]["last"] == 59, name


def test_other_languages_episodes_and_bracketed_values(tmp_path, capsys):
    """A print loop in another language ("Época 3, pérdida: 0.52", "Эпоха 3, потери: 0.52", "에폭 3, 손실:
    0.52", "エポック 3, 損失: 0.52"), an RL loop's "Episode 3 | Reward: 10.0 | Loss: 0.52", "[epoch 3] [loss:
    0.52] [val: 0.6]", "Loss at epoch 3: 0.52" and "Training Loss (epoch 3): 0.52": the loss at its epoch."""
    shapes = {
        "es": "Época {e}, pérdida: {l:.4f}",
        "ru": "Эпоха {e}, потери: {l:.4f}",
        "ko": "에폭 {e}, 손실: {l:.4f}",
        "ja": "エポック {e}, 損失: {l:.4f}",
        "fr": "Époque {e} - perte: {l:.4f}",
        "de": "Epoche {e}, Verlust: {l:.4f}",
        "rl": "Episode {e} | Reward: {r:.1f} | Loss: {l:.4f}",
        "brackets": "[epoch {e}] [loss: {l:.4f}] [val: {v:.4f}]",
        "at": "Loss at epoch {e}: {l:.4f}",
        "paren": "Training Loss (epoch {e}): {l:.4f}",
    }
    for name, fmt in shapes.items():
        rows = [fmt.format(e=e, l=2 * math.exp(-e / 20) + 1, v=2 * math.exp(-e / 20) + 1.2, r=e) for e in range(1, 61)]
        rep = log_report(tmp_path, name, "\n".join(rows) + "\n", capsys)
        assert rep["steps"]["count"] == 60 and rep["steps"]["last"] == 60, name


def test_tables_and_records_of_other_shapes(tmp_path, capsys):
    """A CSV whose loss column is named as an objective goes by ("step,mse"), a semicolon-separated one
    with decimal commas ("2,3019" is 2.3019, never 23019), a loop's own two-column "epoch loss" header
    before its "1 0.5432" rows, and JSON lines that hold their metrics in a container
    ({"step": 10, "metrics": {"train": {"loss": 2.31}}}): each read whole, the spike at its step."""
    losses = [2.0 * math.exp(-i / 60) + 0.3 + 0.01 * (i % 3) for i in range(200)]
    losses[120] *= 6
    files = {
        "mse/results.csv": "step,mse\n" + "".join(f"{10 * (i + 1)},{x:.4f}\n" for i, x in enumerate(losses)),
        "semi/log.csv": "epoch;loss\n" + "".join(f"{i + 1};{x:.4f}\n".replace(".", ",") for i, x in enumerate(losses)),
        "table/train.log": "epoch loss\n" + "".join(f"{i + 1} {x:.4f}\n" for i, x in enumerate(losses)),
        "nested/metrics.jsonl": "".join(
            json.dumps({"step": 10 * (i + 1), "metrics": {"train": {"loss": x}}}) + "\n" for i, x in enumerate(losses)
        ),
    }
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir()
        p.write_text(text)
        rep = report(p.parent, capsys)
        assert rep["steps"]["count"] == 200, rel
        spikes = [a for a in rep["alerts"] if a["check"] == "loss_spike" and a["severity"] == "warning"]
        assert spikes and spikes[0]["step"] in (121, 1210) and spikes[0]["value"] < 20, (rel, spikes[:1])


def test_long_form_json_lines(tmp_path, capsys):
    """One metric a line, named by a key ({"name": "loss", "step": 10, "value": 2.31}, a tracker's export,
    a logger's log(name, value, step)): the lines of one step are its record (loss, LR and validation loss
    together), the last one given when the file ends."""
    rows = []
    for i in range(200):
        x = 2.0 * math.exp(-i / 60) + 0.3 + (1.5 if i == 120 else 0.0)
        rows.append(json.dumps({"name": "train/loss", "step": 10 * (i + 1), "value": x, "timestamp": 1.7e9 + i}))
        rows.append(json.dumps({"name": "lr", "step": 10 * (i + 1), "value": 1e-4, "timestamp": 1.7e9 + i}))
        if i % 20 == 19:
            rows.append(json.dumps({"tag": "val/loss", "step": 10 * (i + 1), "value": x + 0.1}))
    (tmp_path / "metrics.jsonl").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path, capsys)
    assert rep["steps"]["count"] == 200 and rep["steps"]["last"] == 2000
    assert rep["sources"]["lr"]["key"] == "lr" and rep["sources"]["val_loss"]["key"] == "val/loss"
    assert [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"][:1] == [1210]


def test_a_validation_header_that_prints_nothing_does_not_swallow_the_training_lines(tmp_path, capsys):
    """ "=== Validation checkpoint ===" after each "step 25 | loss: 2.87" line opened an evaluation
    section from which every later training line was read as a validation at step 25. A step line past
    the last training step, printed by the training's own format, is training; an evaluation at the
    training's step ("Validation:" then the same format at step 300) is still the validation loss."""
    rows = []
    for s in range(25, 2501, 25):
        rows.append(
            f"2025-10-09 15:39:52,850 - INFO - step {s:>6} | loss: {3 * math.exp(-s / 800) + 0.5:.4f} | lr: 0.001"
        )
        rows.append("2025-10-09 15:39:52,851 - INFO - === Validation checkpoint ===")
    rows += ["Validation:", "step   2500 | loss: 0.9000 | lr: 0.001"]
    (tmp_path / "train.log").write_text("\n".join(rows) + "\n")
    rep = report(tmp_path, capsys)
    assert rep["steps"]["count"] == 100 and rep["steps"]["last"] == 2500
    assert check(rep, "overfitting")["status"] != "SKIP" or rep["sources"].get("val_loss") is not None


def test_launches_appended_after_a_validation_header_that_prints_nothing(tmp_path, capsys):
    """A launch's last "=== Validation checkpoint ===" opened an evaluation section that never closed:
    the next launches' "  data: loss=nan, weight=35" lines became validation losses and their "Epoch 0 |
    Total:" lines epoch summaries; then the one-record launches' "Epoch 0" lines, hundreds of lines
    apart, were counted as the per-batch prints of one epoch (a NaN at step 1, a spike at step 30 for
    epoch 3000). A section with no record for EVAL_SILENT_LINES lines is over, and records that far
    apart are no row."""

    def banner(t: str) -> list[str]:
        out = [f"2025-10-09 {t},252 - pinnx - INFO - PINNx v1.0.0 initialized successfully"]
        out += [f"2025-10-09 {t},300 - root - INFO - setting {i}: {i * 0.5}" for i in range(160)]
        out.append(f"2025-10-09 {t},400 - root - INFO - [DEBUG] Loss dict at epoch 0:")
        for name in ("data", "momentum_x", "continuity", "prior"):
            v = "nan" if t == "16:57:30" else "12.5"
            out.append(f"2025-10-09 {t},401 - root - INFO -   {name}: loss={v}, weight=35.07, has_nan=False")
        out += [f"2025-10-09 {t},500 - root - INFO -   device_{i}: mps, precision float32" for i in range(60)]
        return out

    def epoch(t: str, e: int, total: float) -> list[str]:
        return [
            f"2025-10-09 {t},155 - __main__ - INFO - Epoch {e:>6} | Total: {total:.6f} | Residual: {total * 9:.6f}"
            " | BC: 1.02 | Data: 0.5 | Time: 1.7s",
            f"2025-10-09 {t},156 - __main__ - INFO - === Validation checkpoint ===",
        ]

    rows = banner("15:39:10")
    for e in range(0, 300, 25):
        rows += epoch("15:40:00", e, 40 * math.exp(-e / 100) + 10)
    rows.append("2025-10-09 15:43:22,251 - __main__ - INFO - Training completed in 225.8s")
    for t in ("16:57:30", "16:59:25", "17:01:02"):  # three launches that die at their first epoch
        rows += banner(t)
        rows += epoch(t, 0, float("nan"))[:1]
    rows += banner("18:00:00")
    for e in range(0, 8000, 100):
        rows += epoch("18:10:00", e, (786.4 if e == 3000 else 12 * math.exp(-e / 4000) + 8))
    rep = log_report(tmp_path, "pinn", "\n".join(rows) + "\n", capsys)
    assert rep["steps"]["first"] == 0 and rep["steps"]["last"] == 7900
    spikes = [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike" and not a.get("earlier_run")]
    assert spikes[:1] == [3000]
    nonfinite = [a for a in rep["alerts"] if a["check"] == "nonfinite"]
    assert nonfinite and all(a["step"] == 0 for a in nonfinite)
    assert sum(f["records"] for f in rep["files"]) == 12 + 3 + 80
    assert check(rep, "overfitting")["status"] == "SKIP"  # (no validation loss: the "loss=" lines are none)


def _falling(n: int = 120, spike_at: int = 70) -> list[float]:
    """A falling loss with one 6x spike (the shapes' series)."""
    xs = [2.0 * math.exp(-i / 30) + 0.3 for i in range(n)]
    xs[spike_at] *= 6
    return xs


@pytest.mark.parametrize(
    "fmt",
    [
        "Epoch [{e}]--->Tloss: {x:.4f}",  # (fresh42's ReID log; "Tloss" a loop's one-letter split)
        "epoch {e} -> loss {x:.4f}",
        "Epoch {e} => loss: {x:.4f}",
        "Epoch {e}, loss: tensor([{x:.4f}], device='cuda:0')",
        "epoch {e} loss [{x:.4f}]",
        "Epoch {e:04d} in static KGE | Ave Loss: {x:.4f}",
        "Epoch {e} @ 10:27 PM : {x:.4f} C.E. Loss, 94.28% Accuracy",  # (a value before its name: fresh50)
        '2024-01-01 00:00:00 INFO metrics: {{"epoch": {e}, "loss": {x:.4f}}}',  # (its whole epoch the step)
    ],
)
def test_print_shapes_arrows_one_element_lists_and_words_before_a_pipe(tmp_path, capsys, fmt):
    """An arrow between the epoch and the name, a value printed as a one-element list or tensor, a few
    words of the epoch's own before a pipe: each line one record at its epoch, the spike at its epoch."""
    text = "".join(fmt.format(e=i + 1, x=x) + "\n" for i, x in enumerate(_falling()))
    rep = log_report(tmp_path, "run", text, capsys)
    assert rep["steps"] == {"first": 1, "last": 120, "count": 120, "records": 120}
    assert [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"][:1] == [71]


def test_an_arrow_between_two_numbers_is_a_change_not_a_separator(tmp_path, capsys):
    """ "loss: 2.40 -> 2.10" is a value and what it became: the line's loss is its first number (the
    arrow rule needs a name after it); the spike is in the first numbers only."""
    smooth = _falling(spike_at=0)
    text = "".join(
        f"step {10 * (i + 1)} loss: {x:.4f} -> {y:.4f}\n" for i, (x, y) in enumerate(zip(_falling(), smooth))
    )
    rep = log_report(tmp_path, "run", text, capsys)
    assert rep["steps"]["count"] == 120
    assert [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"][:1] == [710]


def test_records_glued_without_a_newline_are_cut_apart(tmp_path, capsys):
    """A loop that prints with end="" glues its records onto one line ("... train_acc: 0.3898epoch: 2/1000,
    train_loss: ..."): each is a record; the lead again after a word ("| best epoch 2") is the line's own."""
    recs = [f"epoch: {i + 1}/120, train_loss: {x:.4f}, train_acc: 0.{i:04d}" for i, x in enumerate(_falling())]
    text = "".join(recs[:10]) + "\n" + "".join(recs[10:]) + "\n"
    rep = log_report(tmp_path, "run", text, capsys)
    assert rep["steps"] == {"first": 1, "last": 120, "count": 120, "records": 120}
    assert [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"][:1] == [71]
    own = "".join(f"epoch: {i + 1}/120, train_loss: {x:.4f}, best epoch: {i}\n" for i, x in enumerate(_falling()))
    rep = log_report(tmp_path, "own", own, capsys)
    assert rep["steps"]["count"] == 120


def test_a_bar_redrawn_on_one_unterminated_line_after_a_header_is_read(tmp_path, capsys):
    """A Lightning bar redrawn with \\r, with no newline at its end (a job killed mid-epoch), after a few
    header lines: the head holds the header only and the deep search never read the unterminated last
    line ("nothing readable", fresh50's U-Net log of 990 steps on one 214 KB line)."""
    xs = _falling(990, 500)
    bar = "\r".join(
        f"Epoch 0:  {s * 100 // 4347:>2}%|#         | {s}/4347 [01:41<1:36:07,  1.35s/it, loss={x:.3f}, v_num=2]"
        for s, x in enumerate(xs, 1)
    )
    head = "GPU available: True, used: True\n" + "".join(f"{i} | layer{i} | Conv2d | 1.2 K\n" for i in range(8))
    rep = log_report(
        tmp_path, "run", head + "\rValidation sanity check: 0it [00:00, ?it/s]\r" + bar, capsys, "train.out"
    )
    assert rep["steps"]["count"] == 990


def test_a_file_of_many_launches_keeps_the_earlier_run_with_the_only_nan(tmp_path, capsys):
    """Past MAX_EARLIER earlier runs, the one counted (not kept) is one whose failures another kept run
    says too: the single NaN launch among a dozen launches stuck at a constant loss stays listed (the
    oldest went first, and with it the NaN of fresh49's file of 158 launches)."""
    rows = []
    for k in range(14):
        for e in range(40):
            if k == 2:
                v = "nan"
            elif k == 13:
                v = f"{2 * math.exp(-e / 10) + 0.3:.4f}"
            else:
                v = f"{7.783 + 0.001 * k:.4f}"
            rows.append(f"epoch:{e} loss:{v}")
    rep = log_report(tmp_path, "run", "\n".join(rows) + "\n", capsys, "train_loss.txt")
    assert len(rep["earlier_runs"]) == 8 and rep["earlier_runs_not_kept"] >= 2
    nan = [a for a in rep["alerts"] if a["check"] == "nonfinite"]
    assert nan and nan[0].get("earlier_run")


@pytest.mark.parametrize(
    "error",
    [
        "[2019-01-22 08:38:54.241]  Exiting due to exception: Found Inf or NaN global norm. : Tensor had Inf values",
        "RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
        "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
        "`error_if_nonfinite=False`",
    ],
)
def test_an_error_that_the_grad_norm_was_not_finite_is_a_non_finite_grad_norm(tmp_path, capsys, error):
    """TF's clip_by_global_norm and PyTorch's clip_grad_norm_(error_if_nonfinite=True) raise when the
    gradients' norm is Inf / NaN: the NaN check says so at the last step read (it read "all finite"),
    once (TF prints the message where it was raised and again after its traceback)."""
    rows = [f"[2019-01-22 08:38:06.126]  Step {50 * i}   [0.780 sec/step, loss={1 / i:.5f}]" for i in range(1, 60)]
    rows += [error, "Traceback (most recent call last):", '  File "train.py", line 150, in <module>', error]
    rep = log_report(tmp_path, "run", "\n".join(rows) + "\n", capsys)
    nan = [a for a in rep["alerts"] if a["check"] == "nonfinite"]
    assert [a["step"] for a in nan] == [2950] and "grad norm" in nan[0]["message"]


def test_a_distributed_warning_the_run_went_on_after_is_no_crash(tmp_path, capsys):
    """torch elastic logs a missed keep-alive heartbeat at WARNING level, naming RendezvousTimeoutError, and
    the run goes on: a warning, not a crash at that step (fresh50's CNN read "crashed at step 38")."""
    warn = (
        "WARNING:torch.distributed.elastic.rendezvous.dynamic_rendezvous:The node 'c3.cluster_776435_0' has "
        "failed to send a keep-alive heartbeat to the rendezvous '3062713' due to an error of type "
        "RendezvousTimeoutError."
    )
    rows = [f"epoch {e} loss {2 * math.exp(-e / 10) + 0.3:.4f}" for e in range(40)]
    rows[30:30] = [warn] * 3
    rep = log_report(tmp_path, "run", "\n".join(rows) + "\n", capsys, "train.out")
    assert check(rep, "crash")["status"] == "WARN"


def test_a_stage_that_starts_far_below_the_run_it_follows_is_a_new_run(tmp_path, capsys):
    """A stacked auto-encoder pre-trains layer after layer, each from epoch 0, layer 1's cost 40x below
    layer 0's: the step went back to the start at a loss far below anything the series reached, so no
    resume of it (a resume starts where it stopped), which had overwritten layer 0's 100 steps."""
    rows = []
    for layer, level in (("0", 0.3), ("1", 0.005), ("final", 0.4)):
        rows += [
            f"Pre-training layer {layer}, epoch {e}, cost  {level * (1 + math.exp(-e / 20)):.6f}" for e in range(100)
        ]
    rep = log_report(tmp_path, "run", "\n".join(rows) + "\n", capsys, "slurm.out")
    assert [s["kind"] for s in rep["launches"]] == ["start", "new run", "new run"]


def test_a_lightning_bar_showing_an_epochs_metrics_and_a_second_phase_after_a_run_that_never_learned(tmp_path, capsys):
    """Lightning's bar with ``self.log(..., on_epoch=True, prog_bar=True)``: every redraw of epoch e shows epoch
    e-1's train_loss (fresh123's probe run: 28 records an epoch of one value, "loss exactly 0.706 for 20 records"
    warned on a number the run printed once). One record an epoch, at its first count. Then a second phase from
    "Epoch 0" after a first that never learned (stuck at ln 2): its loss cannot tell a resume from a new start,
    the step back at the beginning does; read as a resume, the first phase's "not learning" verdict was lost."""

    def bar(e, n, post):
        return f"Epoch {e}: {100 * n // 28:3d}%|#         | {n}/28 [00:00<00:20,  1.31it/s, v_num=28{post}]"

    rows = ["Phase 1: Linear probe  (25 epochs, LR=0.001)"]
    for e in range(25):
        post = (
            f", val_loss={0.691 + 0.001 * (e % 2):.3f}, train_loss={0.700 - 0.0004 * e + 0.002 * (3 * e % 5):.4f}"
            if e
            else ""
        )
        rows += [bar(e, n, post) for n in range(1, 29) for _ in range(2)]
    rows.append("Phase 2: Fine-tune  (50 epochs, LR=0.0001)")
    for e in range(8):
        post = f", val_loss=0.69, train_loss={(0.693, 0.691, 0.692, 0.69, 0.689, 0.66, 0.63)[e - 1]:.3f}" if e else ""
        rows += [bar(e, n, post) for n in range(1, 29)]
    rep = log_report(tmp_path, "bar", "\r".join(rows) + "\n", capsys, file="finetune.log")
    assert [s["kind"] for s in rep["launches"]] == ["start", "new run"]
    assert [s["records"] for s in rep["launches"]] == [24, 7]  # (one an epoch: epoch 0's bar shows none)
    early = [a for a in rep["alerts"] if "an earlier run" in a["message"]]
    assert any(a["check"] == "plateau" and "not learning" in a["message"] for a in early)
    assert not any("exactly" in a["message"] for a in rep["alerts"])


def test_a_banner_then_steps_far_past_the_last_is_a_new_run(tmp_path, capsys):
    """keithito Tacotron prints "Starting new training run" at each launch; a launch that then logs step
    75001 after one that stopped at 514 loaded another run's checkpoint: a new run (the checks judge it
    alone), not the first one continued across a 74,000-step gap that hid its plateau."""
    rows = ["Starting new training run"]
    rows += [
        f"[2025-06-06 18:23:24.672]  Step {s}     [4.755 sec/step, loss={0.5 / s**0.2:.5f}]" for s in range(1, 515)
    ]
    rows += ["", "-" * 20, "Starting new training run", "-" * 20]
    rows += [f"[2025-06-07 06:45:58.952]  Step {s}     [4.7 sec/step, loss=0.1{s % 7}]" for s in range(75001, 76166)]
    rep = log_report(tmp_path, "run", "\n".join(rows) + "\n", capsys)
    assert [s["kind"] for s in rep["launches"]][:2] == ["start", "new run"]
    assert rep["steps"]["first"] == 75001
    assert check(rep, "plateau")["status"] in ("WARN", "FAIL")


def _catboost_json(n: int, spike_at: int | None = None) -> str:
    """``catboost_info/catboost_training.json`` as CatBoost writes it: a meta object (its metrics, which to
    maximise and which to minimise) and one object per round, values in the metric lists' order."""
    meta = (
        '{\n"meta":{"test_sets":["test"],"test_metrics":[{"best_value":"Max","name":"TotalF1"},'
        '{"best_value":"Min","name":"MultiClass"}],"learn_metrics":[{"best_value":"Max","name":"TotalF1"},'
        '{"best_value":"Min","name":"MultiClass"}],"launch_mode":"Train","parameters":"",'
        f'"iteration_count":{n},"learn_sets":["learn"],"name":"experiment"}},\n"iterations":[\n'
    )
    rows = []
    for i in range(n):
        x = 0.7 * math.exp(-i / 40) + 0.05
        if i == spike_at:
            x *= 6
        rows.append(
            f'{{"learn":[0.99,{x:.10f}],"iteration":{i},"passed_time":{0.01 * i:.4f},'
            f'"remaining_time":{0.01 * (n - i):.4f},"test":[1,{x * 1.1:.10f}]}}'
        )
    return meta + ",\n".join(rows) + "\n]}"


def test_catboost_training_json_reads_the_metric_to_minimise(tmp_path, capsys):
    """Every CatBoost fit writes catboost_info/ (TSVs naming no loss, and this JSON): the loss is the learn
    metric to minimise (MultiClass, not TotalF1), its test value the validation loss, the round the step,
    iteration_count the plan; a spike in it is found."""
    d = tmp_path / "tabular" / "catboost_info"
    d.mkdir(parents=True)
    (d / "catboost_training.json").write_text(_catboost_json(200, spike_at=120))
    (d / "learn_error.tsv").write_text("iter\tTotalF1\tMultiClass\n0\t0.99\t0.70\n")
    rep = report(tmp_path / "tabular", capsys)
    f = used(rep)
    assert f["format"] == "catboost" and f["records"] == 200
    assert rep["sources"]["loss"]["key"] == "MultiClass" and rep["sources"]["val_loss"]["key"] == "test/MultiClass"
    assert [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"][:1] == [120]


def test_catboost_training_json_cut_short_keeps_the_rounds_before_the_cut(tmp_path, capsys):
    """A fit in progress (or killed): the file ends inside a round; the rounds before it are read and the
    cut is a counted skip."""
    text = _catboost_json(100)
    cut = text[: text.index('"iteration":60,') + 5]
    rep = log_report(tmp_path, "run", cut, capsys, "catboost_training.json")
    f = used(rep)
    assert f["records"] == 60 and f["skipped_lines"] == 1


@pytest.mark.parametrize(
    ("name", "fmt", "first"),
    [
        ("loss.txt", "{e:04d}-{x:.4f}", 1),  # (an improved YOLOv3's epoch-hyphen-loss file, fresh40)
        ("loss.log", "Tensor loss of type float. Dims: (): {x:.5f}", 1),  # (Caffe2's printed blob, fresh32)
    ],
)
def test_epoch_hyphen_files_and_caffe2_blob_prints(tmp_path, capsys, name, fmt, first):
    """Two shapes of held-out logs that read "nothing readable": each line one record, the spike found."""
    text = "".join(fmt.format(e=i + 1, x=x) + "\n" for i, x in enumerate(_falling()))
    rep = log_report(tmp_path, "run", text, capsys, name)
    assert rep["steps"]["count"] == 120 and rep["steps"]["first"] == first
    assert [a["step"] for a in rep["alerts"] if a["check"] == "loss_spike"][:1] == [71]


def test_a_log_of_one_record_an_epoch_is_judged_in_windows_of_epochs(tmp_path, capsys):
    """200 epochs of a KGE pre-training, a fast drop over the first 20 and flat for the last 180 (fresh48):
    one 200-step window held the whole run, its early drop in every fit ("too noisy to tell flat"); a log
    whose step is its epoch has a window of 20 epochs (or 20% of the run), and the plateau is said."""
    rng = random.Random(3)
    rows = [
        f"2023-11-11 16:00:52,586 - INFO: Epoch {e:04d} in static KGE | Ave Loss: "
        f"{(8.85 - 0.09 * e if e < 20 else 7.03) + rng.gauss(0, 0.01):.4f} "
        for e in range(200)
    ]
    rep = log_report(tmp_path, "kge", "\n".join(rows) + "\n", capsys, "pretrain.log")
    assert rep["steps"]["count"] == 200
    c = check(rep, "plateau")
    assert c["status"] in ("WARN", "FAIL"), c


def test_catboost_training_json_a_number_too_big_for_a_float_is_out_of_range(tmp_path, capsys):
    """A round whose loss is 1e400 (no float holds it) is a counted "number out of range", as in every
    JSON reader, never an Inf loss (the NaN/Inf check's FAIL)."""
    text = _catboost_json(60).replace('"learn":[0.99,', '"learn":[0.99,1e400,', 1)
    text = text.replace('"learn":[0.99,1e400,0.', '"learn":[0.99,1e400],"x":[0.', 1)
    rep = log_report(tmp_path, "run", text, capsys, "catboost_training.json")
    f = used(rep)
    assert f["records"] == 59 and f["skip_reasons"] == {"number out of range": 1}
    assert check(rep, "nonfinite")["status"] == "PASS"


def test_a_name_before_the_epoch_tells_trainings_apart(tmp_path, capsys):
    """fresh51's char-LM log: a script trains four models for 1, then 2, then 5 epochs, one line an epoch,
    each line named by its training (``LSTM_e1 Epoch 1: Loss = 4.18``). Four ``Epoch 1`` lines in a row are
    four trainings, not per-batch prints of one epoch: each is a launch of its own."""
    lines = []
    for plan in (1, 2, 5):
        for i, model in enumerate(("LSTM", "Transformer_L2", "Transformer_L4", "Transformer_L6")):
            for e in range(1, plan + 1):
                lines.append(f"{model}_e{plan} Epoch {e}: Loss = {4.2 - 0.3 * i - 0.1 * e:.4f}")
            lines.append(f"Saved checkpoint to checkpoints/{model}_e{plan}_epoch{plan}.pt")
    rep = log_report(tmp_path, "lm", "\n".join(lines) + "\n", capsys, file="train_log.txt")
    assert used(rep)["records"] == 32
    assert "step_source" not in used(rep)  # (no "steps from line order": no per-batch counting)
    assert len(rep["launches"]) == 12, rep["launches"]


def test_a_new_training_name_back_at_epoch_1_is_a_new_run(tmp_path, capsys):
    """The same script's 10-epoch trainings (the real log's numbers): the Transformer's first losses (3.67,
    3.37, ...) sit nearer the LSTM's end (3.59) than its start (4.17), so the losses alone read a resume that
    overwrote the LSTM's epochs; its new name says another training: every launch is a new run and every
    step is counted."""
    losses = {
        "LSTM_e10": [4.1710, 3.7619, 3.6925, 3.6583, 3.6370, 3.6222, 3.6112, 3.6027, 3.5958, 3.5901],
        "Transformer_L2_e10": [3.6661, 3.3729, 3.3131, 3.2788, 3.2558, 3.2379, 3.2241, 3.2129, 3.2033, 3.1950],
        "Transformer_L4_e10": [3.4599, 3.1294, 3.0495, 3.0019, 2.9694, 2.9461, 2.9286, 2.9149, 2.9038, 2.8947],
    }
    lines = []
    for name, vals in losses.items():
        lines += [f"{name} Epoch {e}: Loss = {v:.4f}" for e, v in enumerate(vals, 1)]
        lines += [f"Saved checkpoint to checkpoints/{name}_epoch10.pt", f"[{name}] Temperature=0.7", "", ""]
    rep = log_report(tmp_path, "lm", "\n".join(lines) + "\n", capsys, file="train_log.txt")
    assert [s["kind"] for s in rep["launches"]] == ["start", "new run", "new run"]
    assert rep["steps"]["count"] == 30


def test_per_batch_prints_under_a_timestamp_are_still_counted(tmp_path, capsys):
    """The name before an epoch is its words with more letters than digits: a timestamp that changes on
    every line is none, so per-batch prints that name only their epoch are still counted as batches."""
    lines = [
        f"2024-03-0{1 + i // 3000} 12:{(i // 60) % 60:02d}:{i % 60:02d},{i % 1000:03d} - INFO - Epoch {1 + i // 100}, Loss: "
        f"{3 * math.exp(-i / 300) + 0.1:.4f}"
        for i in range(600)
    ]
    rep = log_report(tmp_path, "ts", "\n".join(lines) + "\n", capsys)
    assert rep["steps"]["count"] == 600


def test_a_crash_after_the_planned_last_step_is_after_the_training(tmp_path, capsys):
    """Keras' ``Epoch 1000/1000`` then ``model.save_weights`` failing (fresh52's BrainNetCNN notebook): the
    training ran to its plan, the code after it failed: a WARN, not "crashed at step 1000" (FAIL). A crash one
    epoch short of the plan is still the training's crash."""
    bar = "2000/2000 [==============================] - 1s - loss: {:.4f} - acc: 0.99\n"
    tb = (
        'Traceback (most recent call last):\n  File "train.py", line 40, in <module>\n'
        "    model.save_weights('w.h5')\nOSError: Unable to create file (unable to truncate a file which is already open)\n"
    )
    for last, status in ((30, "WARN"), (29, "FAIL")):
        text = "".join(f"Epoch {e}/30\n" + bar.format(1 / e) for e in range(1, last + 1)) + tb
        rep = log_report(tmp_path, f"k{last}", text, capsys)
        crash = check(rep, "crash")
        assert crash["status"] == status, crash
        assert ("planned end (step 30 of 30)" in crash["summary"]) == (status == "WARN"), crash


def test_fit_called_again_after_its_planned_last_epoch_is_a_new_run(tmp_path, capsys):
    """fresh52's notebook trains six auto-encoders in a loop, each ``fit(epochs=25)``: ``Epoch 25/25`` then
    ``Epoch 1/25``. A run that reached its planned last step and starts again at its beginning is a new run,
    even when its losses cannot tell (the next model's first loss near the last one's level), never a resume
    of the last one (its 25 epochs overwritten)."""
    bar = "1053/1053 [==============================] - 9s 8ms/step - loss: {:.4f} - val_loss: {:.4f}\n"
    text = ""
    for start in (0.043, 0.0166, 0.0174):  # (the second and third start near the first one's end)
        text += "".join(f"Epoch {e}/25\n" + bar.format(start * (0.4 + 0.6 / e), 0.05) for e in range(1, 26))
    rep = log_report(tmp_path, "ae", text, capsys)
    assert [s["kind"] for s in rep["launches"]] == ["start", "new run", "new run"], rep["launches"]
    assert rep["steps"]["count"] == 75


def test_trainings_run_to_their_plan_one_after_another(tmp_path, capsys):
    """fresh52's GNN notebook: ``Epoch 10/10`` then ``Epoch 1/10`` under a new model's banner, the LSTM going
    NaN at epoch 4, the GRU and the TGAN NaN from epoch 1 (here the LSTM planned 12 epochs: the plans differ,
    the file's first is no help). A training that ran to its plan and a first epoch again is a launch; with no
    finite loss to tell a resume, each is a new run: all 32 epochs counted, none overwritten."""
    lines = []
    for model, vals in (
        ("LSTM", [0.3641, 0.0675, 0.0136] + [math.nan] * 9),
        ("GRU", [math.nan] * 10),
        ("TGAN", [math.nan] * 10),
    ):
        lines += ["=" * 50, f"\U0001f680 Training {model} for {len(vals)} epochs..."]
        auc = 0.5 if model == "TGAN" else 0.0  # (records alike to the step are one writer's copies)
        lines += [
            f"Epoch {e}/{len(vals)}: Train Loss={v:.4f}, Val Loss=nan, Val AUC={auc:.4f}" for e, v in enumerate(vals, 1)
        ]
        lines += [f"\u2705 {model} final validation AUC: 0.0000", ""]
    rep = log_report(tmp_path, "nb", "\n".join(lines) + "\n", capsys)
    assert [s["kind"] for s in rep["launches"]] == ["start", "new run", "new run"]
    assert rep["steps"]["count"] == 32
    assert check(rep, "nonfinite")["status"] == "FAIL"


def test_a_validation_note_between_epoch_lines_leaves_them_records(tmp_path, capsys):
    """fresh54's nohup capture: ``Epoch e/100 - Train Loss: X, Val Loss: Y`` per epoch, and after each best
    epoch a note ``  保存最佳模型 (val_loss=Y)`` (no step of its own, a validation loss only). The note is no
    per-batch print beside the epochs: every epoch line stays a record (the notes had made them summaries,
    100 epochs read as 1)."""
    lines = ["nohup: ignoring input", "Using device: cuda (vocab_size=58101, device=cuda:4)"]
    best = math.inf
    for e in range(1, 41):
        tl = 5 * math.exp(-e / 10) + 1
        vl = tl * 1.1 + (0.3 if e % 7 == 0 else 0.0)
        lines.append(f"Epoch {e}/100 - Train Loss: {tl:.4f}, Val Loss: {vl:.4f}")
        if vl < best:
            best = vl
            lines.append(f"  \u4fdd\u5b58\u6700\u4f73\u6a21\u578b (val_loss={vl:.4f})")
    rep = log_report(tmp_path, "mt", "\n".join(lines) + "\n", capsys)
    assert rep["steps"]["count"] == 40 and rep["steps"]["last"] == 40
    assert check(rep, "plateau")["status"] == "PASS"


def test_a_log_in_romanian(tmp_path, capsys):
    """fresh54's char-LM log, its words Romanian and written in ASCII (``pas`` the step, ``pierdere`` the
    loss) and the gradient norm as its symbol ``|g|`` between column bars: read as the English would be
    (it read "no training metrics recognised")."""
    lines = ["corpus  : 372,451 tokeni antrenare / 19,602 validare", "vocabular: 45 caractere", ""]
    for i in range(60):
        lines.append(
            f"pas {20 * i:5d} | pierdere {3.7 * math.exp(-i / 15) + 0.3:.4f} | lr 4.00e-03 | |g|  {0.5 + 0.01 * i:.2f} |  {3.2 * i:5.1f}s"
        )
    rep = log_report(tmp_path, "ro", "\n".join(lines) + "\n", capsys)
    assert rep["steps"] == {"first": 0, "last": 1180, "count": 60, "records": 60}
    assert rep["sources"]["loss"]["key"] == "pierdere" and rep["sources"]["grad_norm"]["key"] == "gnorm"


def test_deepxde_loss_dat_renamed_without_its_header():
    """fresh55 (MIT, committed): a DeepXDE loss.dat its authors kept as ``case_3_1_loss.dat`` with the header
    line gone: np.savetxt's "%.18e" rows, the step first. Read as DeepXDE's (it was "no training metrics
    recognised"); a table of other numbers under another name is not taken for one."""
    d = os.path.join(paths.ROOT, "bench", "corpus", "fresh55", "deepxde_loss_dat_elasticity_three_spikes")
    f = os.path.join(d, "manuscript_pinns", "plots", "case_3_1_loss.dat")
    from tsm_tui.sources import registry

    r, _ = registry.open_reader(f)
    assert r is not None and r.name == "deepxde"
    with open(f, encoding="utf-8") as fh:
        head = fh.read().splitlines()
    from tsm_tui.sources.deepxde import DeepXDEReader

    assert DeepXDEReader.sniff("/x/results.dat", head) == 0.0  # (no "loss" in the name)
    assert DeepXDEReader.sniff("/x/loss.dat", [" ".join(ln.split()[:1]) for ln in head]) == 0.0  # (a step alone)
    assert DeepXDEReader.sniff("/x/loss.dat", head[:1] + head[2:3] + head[1:2]) == 0.0  # (steps not rising)


def test_mmcv_json_log_iter_counts_within_its_epoch(tmp_path, capsys):
    """MMCV / MMDetection 2.x ``<timestamp>.log.json`` (fresh55's rotated-detection runs): ``iter`` counts
    within each ``epoch`` (10, 20, ... 150, then 10 again), an evaluation line per epoch (``"mode": "val"``,
    its ``iter`` the evaluation's own count), launches appended. Read as the step, every epoch was a
    relaunch (46 "launches", a NaN at epoch 4 said at step 140); the step is the epochs before times their
    length plus ``iter``, and the NaN is where it is."""
    rows = [{"env_info": "sys.platform: linux", "seed": 0}]
    for launch in range(2):
        for e in range(1, 6):
            for it in range(10, 160, 10):
                loss = 2 * math.exp(-((e - 1) * 150 + it) / 300) + 0.1 + 0.003 * launch  # (another seed)
                if launch == 1 and e == 4 and it >= 140:
                    loss = math.nan
                rows.append({"mode": "train", "epoch": e, "iter": it, "lr": 0.001, "loss": loss, "grad_norm": 1.5})
            rows.append({"mode": "val", "epoch": e, "iter": 40, "lr": 0.001, "mAP": 0.25 + 0.05 * e})
    text = "".join(json.dumps(r) + "\n" for r in rows)
    rep = log_report(tmp_path, "mm", text, capsys, file="20241201_101010.log.json")
    assert rep["steps"]["first"] == 10 and rep["steps"]["last"] == 750
    assert [s["kind"] for s in rep["launches"]] == ["start", "new run"]
    nan = check(rep, "nonfinite")
    assert nan["status"] == "FAIL" and "first at step 590" in nan["summary"]
    assert "counts within each epoch" in used(rep)["step_source"]


def test_an_rl_loop_counts_its_steps_within_each_episode(tmp_path, capsys):
    """fresh55's DQN trader (Python logging): ``Starting episode e/30`` alone, then ``Step s: Loss=X`` every
    100 steps with ``s`` starting again each episode, then an ``Episode e/30 - ... - Avg Loss: X`` summary, and a
    traceback after the last. The episode is carried to the counter (199 "launches" before); the summaries,
    an episode number among steps, are strays, the last one too (it had been "a resume" judged alone)."""
    t = "2025-02-11 18:29:31,677 - __main__ - INFO - "
    lines = []
    for e in range(1, 31):
        lines.append(f"{t}Starting episode {e}/30")
        for s in range(1, 1000, 100):
            lines.append(f"{t}Step {s}: Loss={1.5 + 0.2 * e + 0.1 * math.sin(s):.4f}")
        lines.append(
            f"{t}Episode {e}/30 - Steps: 1000 - Reward: {400 + e:.2f} - Avg Loss: {1.5 + 0.2 * e:.4f} - Epsilon: 0.100"
        )
    lines += [
        f"{t.replace('INFO', 'ERROR')}Traceback (most recent call last):",
        '  File "train_rl_strategy.py", line 387, in <module>',
        "IndexError: index 1208 is out of bounds for axis 0 with size 1208",
    ]
    rep = log_report(tmp_path, "dqn", "\n".join(lines) + "\n", capsys, file="training.log")
    assert rep["steps"]["count"] == 300 and rep["steps"]["last"] > 29 * 900
    assert "launches" not in rep  # (one launch: nothing to list)
    assert used(rep)["skip_reasons"].get("stray record of a lagging writer (step back, then forward again)", 0) >= 29
    assert check(rep, "crash")["status"] in ("WARN", "FAIL")


def test_spinning_up_progress_steps_are_its_environment_steps(tmp_path, capsys):
    """OpenAI Spinning Up's ``progress.txt`` (fresh58's DDPG / PPO / TRPO runs): one row an epoch with the
    environment steps so far (``TotalEnvInteracts``; forks write ``total-env-interacts``, ``Time Steps``).
    Those are the run's steps, as SB3's ``time/total_timesteps`` is (the epoch was read as the step)."""
    for col in ("TotalEnvInteracts", "total-env-interacts", "Time Steps"):
        rows = ["\t".join(["Epoch", "AverageEpRet", col, "LossV", "Time"])]
        rows += [f"{e}\t{-400 + 3 * e:.3f}\t{4000 * e}\t{50.0 / e + 1:.4f}\t{19.5 * e:.2f}" for e in range(1, 51)]
        d = tmp_path / col.replace(" ", "_")
        d.mkdir()
        (d / "progress.txt").write_text("\n".join(rows) + "\n")
        rep = report(d, capsys)
        assert rep["steps"]["first"] == 4000 and rep["steps"]["last"] == 200000, col


def test_a_nan_the_loop_skipped_is_said(tmp_path, capsys):
    """fresh57's Unsloth loop: a NaN batch is skipped with ``[WARNING] NaN loss detected! Skipping batch.``
    and the bar's loss postfix keeps its last finite value: no record holds a NaN ("all 806 records
    finite"). The line is the NaN/Inf check's: a warning at the last record's step, the check WARN."""
    lines = []
    for i in range(1, 81):
        lines.append(f"Training:   {i}%|  | {i}/80 [00:{i:02d}<00:10, 1.0it/s, Loss={3 * math.exp(-i / 30) + 0.5:.4f}]")
        if i in (25, 40):
            lines.append("[WARNING] NaN loss detected! Skipping batch.")
    rep = log_report(tmp_path, "nan", "\n".join(lines) + "\n", capsys)
    nf = check(rep, "nonfinite")
    assert nf["status"] == "WARN" and "skipped 2 non-finite loss(es), first at step 25" in nf["summary"]
    assert check(rep, "crash")["status"] == "PASS"


def test_yolov5_console_old_header_and_a_cut_bar(tmp_path, capsys):
    """YOLOv5's console, two shapes of fresh58: before v6.1 its header names the loss terms without "loss"
    (``Epoch gpu_mem box obj cls labels img_size``: "no training metrics recognised"); a Kaggle notebook's
    saved output kept only the row and the first character of its last bar redraw (``... 151 640: 1``: taken
    for a running bar, none read). Both read an epoch a row; a row whose bar still runs stays a running mean."""
    old = ["     Epoch   gpu_mem       box       obj       cls    labels  img_size"]
    old += [
        f"   {e}/59     3.3G   {0.1 * math.exp(-e / 20):.5f}   {0.07 * math.exp(-e / 30):.5f}   0.04322        33       640"
        for e in range(60)
    ]
    rep = log_report(tmp_path, "v5old", "\n".join(old) + "\n", capsys, file="README.md")
    assert rep["steps"]["count"] == 60 and "box_loss + obj_loss + cls_loss" in used(rep)["objective"]
    cut = []
    for e in range(40):
        cut += ["      Epoch    GPU_mem   box_loss   obj_loss   cls_loss  Instances       Size"]
        cut += [
            f"     {e}/3999      10.7G    {0.09 * math.exp(-e / 15):.5f}    0.02383    0.02846        151        640: 1"
        ]
        cut += ["                 Class     Images  Instances          P          R      mAP50   mAP50-95: 1", ""]
    rep = log_report(tmp_path, "v5cut", "\n".join(cut) + "\n", capsys, file="train_output.log")
    assert rep["steps"]["count"] == 40
    run = ["      Epoch    GPU_mem   box_loss   obj_loss   cls_loss  Instances       Size"]
    run += [
        f"     0/3999      10.7G    {0.09 - 0.005 * i:.4f}    0.02383    0.02846        151        640:  {10 * i}%|#   | {i}/10 [00:{i:02d}<00:10]"
        for i in range(1, 11)
    ]
    rep = log_report(tmp_path, "v5run", "\n".join(run) + "\n", capsys, file="train_output.log")
    assert rep["steps"]["count"] == 1 and used(rep)["records"] == 1  # (the complete bar's row only)


def test_yolov3_family_table_with_a_batch_counter_behind_a_logger(tmp_path, capsys):
    """ultralytics/yolov3's console table and its forks' (fresh121's JDE log, "no training metrics
    recognised"): ``Epoch Batch box conf id total nTargets time`` behind a logger's date and level, the loss
    terms named without "loss" beside a targets' count, rows ``0/29  40/165 ...`` every 40 batches, the header
    again each epoch and an evaluation table between. Each row is a step, the batch counter placed in its
    epoch (not the epoch's number, not the counter alone); the epochs' total is no planned step count."""
    head = (
        "2021-01-25 05:58:00 [INFO]:    Epoch       Batch       box      conf        id     total  nTargets      time"
    )
    lines = []
    for e in range(6):
        lines += [head, "=" * 40, "dataset summary"]
        for b in range(0, 165, 40):
            t = 150 * math.exp(-(e * 165 + b) / 200) - 6
            lines.append(
                f"2021-01-25 06:{e:02d}:{b // 10:02d} [INFO]: {e:>6}/29 {b:>9}/165 {0.17:9.3g} {1.9:9.3g} "
                f"{18.7:9.3g} {t:9.3g} {81.4:9.3g} {7.12:9.3g}"
            )
        lines += [
            "      Image      Total          P          R        mAP",
            "         32      30353          0          0          0       2.14s",
        ]
    rep = log_report(tmp_path, "jde", "\n".join(lines) + "\n", capsys, file="log_train.txt")
    assert rep["steps"]["count"] == 30
    assert (rep["steps"]["first"], rep["steps"]["last"]) == (0, 5 * 165 + 160)
    assert "total_loss" in used(rep)["objective"]
    assert rep["run"]["total_steps"] == 29 * 165  # (the epochs' total times the counter's, not 29)


def test_date_digits_run_together_before_an_epoch_header(tmp_path, capsys):
    """A logger whose date's digits run together, ``%Y%m%d-%H:%M:%S`` (fresh121's ShuffleFaceNet: "nothing
    readable"): ``20200204-19:54:00 Train Epoch: 1/70 ...``, then the epoch's ``total_loss`` on the next line.
    The time is the line's prefix (the header carries its epoch to the loss) and the record's clock."""
    lines = []
    for e in range(1, 31):
        lines.append(f"202002{4 + e // 24:02d}-{e % 24:02d}:54:00 Train Epoch: {e}/70 ...")
        lines.append(
            f"202002{4 + e // 24:02d}-{e % 24:02d}:59:01     total_loss: {25 * math.exp(-e / 20):.4f} time: 5m 1s"
        )
    rep = log_report(tmp_path, "sfn", "\n".join(lines) + "\n", capsys, file="log.log")
    assert rep["steps"]["count"] == 30 and (rep["steps"]["first"], rep["steps"]["last"]) == (1, 30)
    assert check(rep, "throughput")["status"] == "PASS" and "log line timestamps" in check(rep, "throughput")["summary"]


def test_spinning_up_loss_changes_are_no_terms():
    """Spinning Up's PPO / VPG columns: ``LossPi`` and ``LossV`` beside their changes over an update
    (``DeltaLossPi``, ``DeltaLossV``): a change is no term of the objective (the sum of all four was judged)."""
    from tsm_tui.sources.fields import key_roles, loss_role, objective

    assert objective(key_roles(("LossPi", "LossV", "DeltaLossPi", "DeltaLossV"))) == ("sum", ("LossPi", "LossV"))
    assert loss_role("DeltaLossV") is None and loss_role("LossV") == "term"


def test_pixelnerf_trainer_lines(tmp_path, capsys):
    """pixelNeRF's trainer (fresh39's ViT run): ``E e B b loss rc:X rf:Y t:Z  lr L`` every 2 batches, the
    epoch and batch as letters, ``t`` the total of the coarse and fine terms; ``*** Eval: E e B b loss ...``
    every 50 batches; the file cut inside its last line. It read "no training metrics recognised"."""
    lines = ["EXPERIMENT NAME: srn_car_exp", "* Config file: conf/exp/srn.conf"]
    for e in range(3):
        for b in range(0, 100, 2):
            rc, rf = 0.2 * math.exp(-(e * 100 + b) / 150) + 0.01, 0.22 * math.exp(-(e * 100 + b) / 150) + 0.01
            lines.append(f"E {e} B {b} loss rc:{rc} rf:{rf} t:{rc + rf}  lr 0.0001")
            if b % 50 == 0:
                lines.append(f"*** Eval: E {e} B {b} loss rc:{rc * 1.1} rf:{rf * 1.1} t:{(rc + rf) * 1.1}  lr 0.0001")
    text = "\n".join(lines) + "\nE 3 B 0 loss rc:0.02 rf:0.02 t:0.04  lr "
    rep = log_report(tmp_path, "pn", text, capsys, file="vit.log")
    assert rep["steps"]["count"] == 151
    assert "loss_rc, loss_rf" in used(rep)["objective"]
    assert "val_loss" in rep["sources"]  # (the evaluation lines: the validation loss at the last training step)


def test_hf_example_scripts_logging_lines_with_a_month_first_date_and_a_plural_step_word(tmp_path, capsys):
    """fresh90's XLM fine-tune (PaddleNLP's example, HF's ``logging.basicConfig`` format
    "%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt "%m/%d/%Y %H:%M:%S"):
    ``04/12/2022 15:25:49 - INFO - __main__ - global_steps 50 loss: 7.46472330``, 12,137 of them among its
    argument echo and evaluation blocks, read "no training metrics recognised" (exit 2). The month-first
    date, the logger's name after the level and the plural step word are each read."""
    lines = ["04/12/2022 15:25:25 - INFO - __main__ - learning_rate: 2e-06"]
    for i in range(1, 61):
        lines.append(
            f"04/12/2022 15:{25 + i // 60:02d}:{i % 60:02d} - INFO - __main__ - global_steps {50 * i} loss: {2.0 + 1.0 / i:.8f}"
        )
    rep = log_report(tmp_path, "xlm", "\n".join(lines) + "\n", capsys, file="run.log")
    assert rep["steps"]["count"] == 60 and rep["steps"]["first"] == 50 and rep["steps"]["last"] == 3000
    # the lines' clock is their time of day (a month-first or a day-first date cannot be told apart): 50 steps a
    # second
    tp = check(rep, "throughput")
    assert tp["summary"].startswith("median 50 steps/s (log line timestamps)"), tp
    # the ISO date and the singular word under the same logger fields, and the word with no logger at all
    for n, line in enumerate(
        ("2022-04-12 15:25:49 - INFO - __main__ - global_step {s} loss: {x}", "steps {s} loss: {x}")
    ):
        text = "\n".join(line.format(s=10 * i, x=f"{2.0 + 1.0 / i:.4f}") for i in range(1, 41)) + "\n"
        rep = log_report(tmp_path, f"v{n}", text, capsys, file="run.log")
        assert rep["steps"]["count"] == 40 and rep["steps"]["last"] == 400, line


def test_starting_epoch_with_its_total_heads_a_counter_that_starts_again_each_epoch(tmp_path, capsys):
    """fresh91's R-CNN loop: "Starting Epoch e/10" alone, then "Iteration i, Loss: X" every 100 iterations,
    the count starting again at 1 each epoch; read as three launches of 10 steps (the 15,493x spike at
    epoch 2's last iteration unseen, "no spikes in 27 loss values"). The header carries its epoch."""
    lines = ["Starting Epoch 1/10"]
    for e in range(1, 4):
        lines.append(f"Starting Epoch {e}/10")
        for i in range(1, 1000, 100):
            x = 28428.4 if (e, i) == (2, 901) else 1.5 / e + 0.01 * (i % 7)
            lines.append(f"Iteration {i}, Loss: {x}")
    rep = log_report(tmp_path, "rcnn", "\n".join(lines) + "\n", capsys, file="training_log.txt")
    assert rep["steps"]["count"] == 30 and "launches" not in rep
    assert check(rep, "loss_spike")["status"] in ("WARN", "FAIL")
    assert any(a["check"] == "loss_spike" and 1800 <= a["step"] <= 2000 for a in rep["alerts"]), rep["alerts"]


def test_rwkv_lm_train_log_is_read_with_each_new_run_a_launch(tmp_path, capsys):
    """RWKV-LM's out/train_log.txt (trainer.py: "NEW RUN <timestamp>" and the args dict at each launch, then
    "<epoch> <loss> <ppl> <lr> <datetime> <epoch of this launch>" each mini-epoch; RWKV-LM's README prints
    such lines). fresh93's RWKV-PEFT log of 14 launches read "no training metrics recognised"; identical
    values in two launches are two launches, not a second writer's copies (each line's own time)."""
    lines = []
    for day, losses in ((27, (1.179688, 0.515625, 0.339844)), (28, (1.179688, 0.515625, 0.339844, 0.251953))):
        lines.append(f"NEW RUN 2025-05-{day}-10-32-22")
        lines.append(
            "{'load_model': 'rwkv.pth', 'proj_dir': 'out', 'epoch_steps': 100, 'lr_init': 6e-05, 'warmup_steps': 10}"
        )
        for e, x in enumerate(losses):
            lines.append(f"{e} {x:.6f} {math.exp(x):.4f} 0.00001000 2025-05-{day} 10:{33 + e:02d}:28.237880 {e}")
    rep = log_report(tmp_path, "rwkv", "\n".join(lines) + "\n", capsys, file="train_log.txt")
    assert rep["steps"]["records"] == 7 and rep["steps"]["first"] == 0 and rep["steps"]["last"] == 3
    assert [(s["kind"], s["first"], s["last"]) for s in rep["launches"]] == [("start", 0, 2), ("new run", 0, 3)]
    assert check(rep, "throughput")["summary"].startswith("median 0.01667 steps/s"), check(rep, "throughput")


def test_a_log_record_glued_to_a_tqdm_bar_takes_its_own_step(tmp_path, capsys):
    """fresh96's SambaNova BERT console: the tqdm bar's redraw and the logger's record on one line with no
    newline between ("Iteration:  13%|#  | 321/2552 [05:02<32:00,  1.16it/s]2024-04-06 18:32:42,002 - ... -
    epoch:0|local_step:322|global_step:322|average_loss:9.01663|..."): the record's global_step is its step,
    not the bar's count (the steps had read 13-20)."""
    lines = []
    for i in range(321, 361):
        bar = f"Iteration:  13%|#         | {i}/2552 [05:02<32:00,  1.16it/s]"
        rec = f"2024-04-06 18:32:42,002 - bert_mlperf_trainer - info     - epoch:0|local_step:{i + 1}|global_step:{i + 1}|"
        lines.append(bar + rec + f"average_loss:{9.0 - 0.01 * (i - 321):.5f}|learning_rate:4.49e-06")
    rep = log_report(tmp_path, "bert", "\n".join(lines) + "\n", capsys, file="console.log")
    assert rep["steps"]["first"] == 322 and rep["steps"]["last"] == 361 and rep["steps"]["count"] == 40


def test_a_wandb_chart_export_reads_its_first_run_and_names_the_others(tmp_path, capsys):
    """W&B's "Download CSV" of a chart: "Step", then per run "<run> - train/loss" with "__MIN" / "__MAX"
    companions, ten runs side by side (fresh105: "no training metrics recognised", exit 2)."""
    import csv
    import io

    from helpers.reports import report_json

    runs = ["lmbda0_lr5e5", "lmbda1_lr1e4", "lmbda1_bs16"]
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL)
    w.writerow(["Step"] + [f"{r} - train/loss{s}" for r in runs for s in ("", "__MIN", "__MAX")])
    for s in range(200):
        row = [str(s)]
        for j, _ in enumerate(runs):
            v = "" if (j == 0 and s % 2) else f"{(0.4 + j) * 0.99**s:.4f}"
            row += [v, v, v]
        w.writerow(row)
    p = tmp_path / "export" / "train-loss.csv"
    p.parent.mkdir()
    p.write_text(buf.getvalue())
    rep = report_json(p.parent, capsys)
    assert rep["steps"]["count"] == 100 and rep["steps"]["last"] == 198  # (the first run's steps only)
    assert rep["sources"]["loss"]["key"] == "train/loss"
    (src,) = [f for f in rep["files"] if f["used"]]
    assert "W&B chart export" in src["step_source"] and "lmbda1_lr1e4, lmbda1_bs16" in src["step_source"]


def test_a_csv_header_whose_names_hold_an_interval(tmp_path, capsys):
    """A Lightning CSVLogger of a loss per diffusion-time bin: quoted names with commas and numbers,
    "train/auxiliary_loss t=[0.00,0.25)" (fresh113: "no training metrics recognised": most header cells held a
    number, the mark of a log line's fields); an interval's bounds are the name's."""
    import csv
    import io

    from helpers.reports import report_json

    bins = ["[0.00,0.25)", "[0.25,0.50)", "[0.50,0.75)", "[0.75,1.00)"]
    names = [f"train/{t}_loss t={b}" for t in ("aux", "atom", "rots") for b in bins]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["epoch", "step", "train/loss"] + names)
    for s in range(49, 5000, 50):
        w.writerow([s // 1000, s, f"{5 / (1 + s / 500):.4f}"] + [f"{1 / (1 + s / 400):.4f}"] * len(names))
    p = tmp_path / "lightning_logs" / "version_7" / "metrics.csv"
    p.parent.mkdir(parents=True)
    p.write_text(buf.getvalue())
    rep = report_json(tmp_path, capsys)
    assert (rep["steps"]["first"], rep["steps"]["last"], rep["steps"]["count"]) == (49, 4999, 100)
    assert rep["sources"]["loss"]["key"] == "train/loss"
