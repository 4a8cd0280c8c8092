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

from tsm_tui.cli import main

from helpers import paths

DEEPMD = os.path.join(paths.ROOT, "bench", "corpus", "fresh37", "deepmd_lcurve_starter_kit_healthy")


def report(path, capsys) -> dict:
    rc = main([str(path), "--report", "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def used(d: dict) -> dict:
    return next(f for f in d["files"] if f["used"])


def check(d: dict, cid: str) -> dict:
    return next(c for c in d["checks"] if c["id"] == cid)


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
    d = tmp_path / "model"
    d.mkdir()
    (d / "loss.dat").write_text("\n".join(rows) + "\n")
    rep = report(d, capsys)
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
