"""Framework formats: real excerpts (tests/data/real, licensed), the real logs in
../shared/real_logs (unlicensed ones never copied: skipped when absent), small
synthetic lines for formats without a committed real log, and corrupt input."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import sqlite3
import struct
from pathlib import Path

import pytest

from tsm_tui.sources import log_files, reading, registry
from tsm_tui.sources.checkpoint_lines import SAVE_KIND
from tsm_tui.sources.tensorboard import TensorBoardReader, crc32c, masked_crc
from helpers import paths

HERE = Path(paths.TESTS)
REAL = HERE / "data" / "real"
SHARED = HERE.parent.parent / "shared" / "real_logs"
need_shared = pytest.mark.skipif(not SHARED.exists(), reason="../shared/real_logs not present")


def read(path):
    """The format, the records (and crash events) and the reader of ``path``; the "checkpoint
    saved" events are left out (tests/sources/test_checkpoint_lines.py has them)."""
    path = str(path)
    reader, fi = registry.open_reader(path)
    assert reader is not None, fi.note
    recs = [r for r in reading.read_records(path, reader) if getattr(r, "kind", None) != SAVE_KIND]
    return fi.format, recs, reader


def at(recs, step):
    return next(r for r in recs if r.step == step and (r.loss is not None or r.grad_norm is not None))


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


# -- licensed real excerpts --------------------------------------------------------------
def test_llmc_excerpt():
    fmt, recs, _ = read(REAL / "llmc_main.log")
    assert fmt == "llmc"
    train = [r for r in recs if r.loss is not None]
    assert len(train) == 298 + 21  # 300 lines minus two val lines, plus steps 9015-9035
    assert train[0].step == 0 and train[-1].step == 9035
    assert at(recs, 9025).grad_norm == pytest.approx(2.02)
    assert any(r.val_loss is not None for r in recs)


def test_modded_nanogpt_2024_excerpt():
    fmt, recs, reader = read(REAL / "modded_nanogpt_2024.txt")
    assert fmt == "modded-nanogpt"
    train = [r for r in recs if r.loss is not None]
    assert train[0].step == 1 and train[-1].step == 5970
    assert at(recs, 5964).loss == pytest.approx(5.7021)
    assert reader.run_info["total_steps"] == 20344


def test_modded_nanogpt_2025_val_only():
    fmt, recs, reader = read(REAL / "modded_nanogpt_2025.txt")
    assert fmt == "modded-nanogpt"
    assert all(r.loss is None for r in recs)  # this format logs no train loss
    vals = [r for r in recs if r.val_loss is not None]
    assert vals[-1].step == 2315 and vals[-1].val_loss == pytest.approx(3.2783)
    assert reader.run_info["total_steps"] == 2315


def test_olmo_excerpt_blocks_and_config():
    fmt, recs, reader = read(REAL / "olmo_train_1B.log")
    assert fmt == "olmo"
    steps = [r.step for r in recs]
    assert steps[:2] == [2500, 2501] and steps[-1] == 7640
    assert len(recs) == 41 + 1  # steps 2500-2540 and the last block
    r = at(recs, 2519)
    assert r.grad_norm == pytest.approx(2.629) and r.loss == pytest.approx(4.074)
    assert r.tokens == 330_170_368  # thousands separators
    ri = reader.run_info
    assert ri["total_steps"] == 7630 and ri["warmup_steps"] == 500 and ri["peak_lr"] == 4e-4
    assert ri["batch_size"] == 64 and ri["seq_len"] == 2048 and ri["clip"] == 1.0
    assert ri["params"] == 1_176_764_416 and ri["precision"] == "bf16"


def test_megatron_deepspeed_excerpt():
    fmt, recs, reader = read(REAL / "megatron_deepspeed_bigscience.txt")
    assert fmt == "megatron"
    iters = [r for r in recs if r.loss is not None or r.loss_missing]
    assert len(iters) >= 65
    r9027 = next(r for r in recs if r.step == 9027)
    assert r9027.loss is None and r9027.loss_missing and r9027.loss_scale == 8192
    assert at(recs, 31219).grad_norm == pytest.approx(960.351)
    assert at(recs, 29050).loss == pytest.approx(7.34, abs=0.01)


def test_llama_factory_excerpt():
    fmt, recs, reader = read(REAL / "llama_factory_trainer_log.jsonl")
    assert fmt == "llama-factory"
    assert len(recs) == 200 and recs[0].step == 10 and recs[-1].step == 2000
    assert recs[0].loss == pytest.approx(3.9862)
    assert reader.run_info["total_steps"] == 23800


def test_keras_csvlogger_crlf_epochs():
    fmt, recs, _ = read(REAL / "keras_training.log")
    assert fmt == "keras-csv"
    assert len(recs) == 24 and recs[0].step == 0 and recs[-1].step == 23
    assert recs[4].lr == pytest.approx(2e-4) and recs[4].val_loss is not None


# -- every file in ../shared/real_logs (licensed or not), in place --------------------------
EXPECTED = {
    # path: (format, records with a loss (or val loss), first step, last step)
    "hf-trainer/trainer_state.json": ("hf-trainer-state", 6687, 1, 6687),
    "keras-csvlogger/training.log": ("keras-csv", 24, 0, 23),
    "lightning-csvlogger/metrics.csv": ("lightning-csv", 2824, 49, 140739),
    "llama-factory/trainer_log.jsonl": ("llama-factory", 2380, 10, 23800),
    "llmc/main.log": ("llmc", 19640, 0, 19560),
    "megatron-deepspeed/bigscience_chronicles_log_excerpts.txt": ("megatron", 67, 29020, 45000),
    "mlflow/mlruns/1/ed05f9cd599442fe9a0c9222184710b8/metrics": ("mlflow", 10, 0, 9),
    "modded-nanogpt/87bd51fd-6203-4c88-b3aa-8a849a6a83ca.txt": ("modded-nanogpt", 20508, 0, 20344),
    "modded-nanogpt/088a77ee-9b67-475a-bbb9-3e92e4698799.txt": ("modded-nanogpt", 11, 0, 2315),
    "nanogpt/train.log": ("nanogpt", 96, 0, 450),
    "olmo/train_1B.log": ("olmo", 7640, 1, 7640),
    "wandb/output.log": ("wandb-output", 500, 0, 499),
    "wandb/wandb-summary.json": ("wandb-summary", 1, 499, 499),
}


@need_shared
def test_every_shared_source_is_found_and_named():
    found = {os.path.relpath(p, SHARED): p for p in log_files.candidate_files(str(SHARED))}
    for rel in EXPECTED:
        assert rel in found, rel
    got = {}
    for rel, p in found.items():
        reader, fi = registry.open_reader(p)
        got[rel] = fi.format
    for rel, (fmt, *_rest) in EXPECTED.items():
        assert got[rel] == fmt, (rel, got[rel])


@need_shared
@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_shared_source_steps(rel):
    fmt, n, first, last = EXPECTED[rel]
    got_fmt, recs, reader = read(SHARED / rel)
    assert got_fmt == fmt
    with_metric = [r for r in recs if r.loss is not None or r.val_loss is not None or r.loss_missing]
    assert len(with_metric) >= n - 2, (len(with_metric), n)
    assert recs[0].step == first and max(r.step for r in recs) == last
    assert reader.skipped == 0


@need_shared
def test_shared_specific_values():
    _, recs, reader = read(SHARED / "nanogpt/train.log")
    assert at(recs, 420).loss == pytest.approx(3.5023) and math.isnan(at(recs, 425).loss)
    assert reader.run_info["params"] == pytest.approx(10.65e6)
    _, recs, reader = read(SHARED / "hf-trainer/trainer_state.json")
    assert at(recs, 6544).grad_norm == pytest.approx(2.155, abs=1e-3)
    assert reader.run_info == {"total_steps": 6687, "logging_steps": 1, "save_steps": 100, "batch_size": 2}
    _, recs, _ = read(SHARED / "olmo/train_1B.log")
    assert at(recs, 2519).grad_norm == pytest.approx(2.629)
    _, recs, _ = read(SHARED / "lightning-csvlogger/metrics.csv")
    assert sum(r.loss is not None for r in recs) == 2814
    assert sum(r.val_loss is not None for r in recs) == 10
    _, recs, _ = read(SHARED / "mlflow/mlruns/1/ed05f9cd599442fe9a0c9222184710b8/metrics")
    assert recs[0].loss == pytest.approx(332.6841735839844) and recs[-1].step == 9


# -- formats without a committed real log: lines from the notes (framework format strings) --
def test_hf_stdout_dicts_tqdm_and_eval(tmp_path):
    bar = "\r  {n}/60 [00:01<00:33,  1.73it/s]"
    text = (
        "loading...\n"
        + bar.format(n=9)
        + bar.format(n=10)
        + "\r      \r{'loss': 1.5618, 'grad_norm': nan, 'learning_rate': 9.9e-05, 'epoch': 0.01}\n"
        + bar.format(n=20)
        + "{'loss': 0.0, 'grad_norm': inf, 'learning_rate': 9.8e-05, 'epoch': 0.02}\n"
        + "\r  3/8 [00:01<00:02,  3.0it/s]{'eval_loss': 2.5, 'eval_runtime': 1.0, 'epoch': 0.02}\n"
        + "{'loss': '1.4', 'grad_norm': '1.0', 'learning_rate': '9.7e-05', 'epoch': '0.03'}\n"
        + "{'train_runtime': 10.0, 'train_loss': 1.2, 'epoch': 0.03}\n"
    )
    fmt, recs, reader = read(write(tmp_path, "train.log", text))
    assert fmt == "hf-stdout"
    assert [r.step for r in recs] == [10, 20, 20, 30]  # eval at the current step; interval 10 inferred
    assert math.isnan(recs[0].grad_norm) and recs[1].loss == 0.0 and math.isinf(recs[1].grad_norm)
    assert recs[2].val_loss == 2.5 and recs[2].loss is None
    assert recs[3].loss == 1.4  # transformers >= 5 prints values as strings
    assert reader.run_info["total_steps"] == 60


def test_fairseq_simple_json_legacy_and_overflow(tmp_path):
    text = (
        "2025-10-15 11:33:32 | INFO | train_inner | epoch 001:    100 / 487 loss=4.655, nll_loss=3.1, ppl=8.5, "
        "wps=1000, ups=1, wpb=2000, bsz=32, num_updates=100, lr=0.0005, gnorm=1.2, loss_scale=8, train_wall=10\n"
        "2023-01-18 06:21:13 | INFO | fairseq.trainer | NOTE: gradient overflow detected, ignoring gradient, "
        "setting loss scale to: 64.0\n"
        '2020-02-07 13:21:07 | INFO | train_inner | {"epoch": 1, "loss": "11.049", "gnorm": "3.1", '
        '"loss_scale": "64", "num_updates": "200", "lr": "0.0004"}\n'
        '2020-02-07 13:22:07 | INFO | valid | {"epoch": 1, "valid_loss": "10.5", "valid_num_updates": "200"}\n'
        '2020-02-07 13:22:08 | INFO | train | {"epoch": 1, "train_loss": "11.2", "train_num_updates": "200"}\n'
        "| epoch 022 | loss 3.882 | nll_loss 2.204 | ppl 4.61 | num_updates 5586 | lr 0.000846213 | gnorm 0.309 "
        "| clip 0% | loss_scale 1.000 | wall 8409\n"
    )
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    assert fmt == "fairseq"
    assert [r.step for r in recs] == [100, 100, 200, 200, 5586]
    assert recs[0].loss == 4.655 and recs[0].grad_norm == 1.2 and recs[0].loss_scale == 8
    assert recs[1].overflow and recs[1].loss_scale == 64
    assert recs[2].loss == 11.049 and recs[3].val_loss == 10.5 and recs[3].loss is None
    assert recs[4].grad_norm == 0.309


def test_fairseq_hydra_logger_names_its_lines_in_brackets(tmp_path):
    """fairseq-hydra's logging ("[2022-06-06 09:20:28,960][valid][INFO] - {...}", fresh123's wav2vec2 run): the
    logger's name in brackets, not between bars. Its validation lines are the validation loss at their update
    (they had been read as none: Over-fitting "no evaluation loss logged"), its epoch summaries no steps."""
    text = (
        '[2022-06-06 09:18:44,886][train_inner][INFO] - {"epoch": 1, "update": 0.252, "loss": "0.264", '
        '"num_updates": "200", "lr": "1.099e-06", "gnorm": "0.149"}\n'
        '[2022-06-06 09:20:28,960][valid][INFO] - {"epoch": 1, "valid_loss": "0.267", "valid_ce_loss": "0.531", '
        '"valid_num_updates": "794"}\n'
        '[2022-06-06 09:20:29,100][train][INFO] - {"epoch": 1, "train_loss": "0.263", "train_num_updates": "794"}\n'
    )
    fmt, recs, _ = read(write(tmp_path, "train.out", text))
    assert fmt == "fairseq"
    assert [(r.step, r.loss, r.val_loss) for r in recs] == [(200, 0.264, None), (794, None, 0.267)]


def test_composer_blocks(tmp_path):
    text = "Run name: x\n" + "".join(
        f"[batch={i}/4800]:\n\t Train time/batch: {i - 1}\n\t Train loss/train/total: {11 - i / 10}\n"
        f"\t Train lr-DecoupledAdamW/group0: 0.0001\n\t Train l2_norm/grad/global: 1.5\n"
        for i in (10, 20, 30)
    )
    fmt, recs, reader = read(write(tmp_path, "console.log", text))
    assert fmt == "composer"
    assert [r.step for r in recs] == [10, 20, 30]
    assert recs[0].loss == 10.0 and recs[0].lr == 1e-4 and recs[0].grad_norm == 1.5
    assert reader.run_info["total_steps"] == 4800


def test_torchtitan_ansi_and_rank_duplicates(tmp_path):
    red, green, reset = "\x1b[31m", "\x1b[32m", "\x1b[39m"
    lines = []
    for s in (1, 2, 3):
        line = (
            f"[rank0]:[titan] 2026-05-18 16:04:50,821 - root - INFO - {red}step: {s:2}  {green}loss: "
            f"{8 - s:8.5f}  grad_norm:  0.7675  memory:  9.46GiB(64.99%)  tps: 7,322  mfu: 0.17%{reset}"
        )
        lines += [line, line.replace("[rank0]:", "")]  # every rank prints it
    fmt, recs, _ = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    assert fmt == "torchtitan"
    assert [r.step for r in recs] == [1, 2, 3] and recs[0].loss == 7.0 and recs[0].grad_norm == 0.7675


def test_nemo_and_deepspeed_lines(tmp_path):
    text = "".join(
        f"Training epoch 0, iteration {i}/149 | lr: 3e-05 | consumed_samples: {i + 1} | global_batch_size: 1 | "
        f"global_step: {i} | reduced_train_loss: {1 + i / 100} | train_step_timing in s: 0.03\n"
        for i in (10, 20)
    )
    fmt, recs, _ = read(write(tmp_path, "nemo.log", text))
    assert fmt == "nemo" and [r.step for r in recs] == [10, 20] and recs[0].loss == 1.1
    text = (
        "[2023-04-28 06:51:30,648] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! Rank 0 "
        "Skipping step. Attempted loss scale: 65536, reducing to 32768\n"
        "[INFO] [logging.py:96:log_dist] [Rank 0] step=2, skipped=1, lr=[1.5e-07, 1.5e-07], mom=[(0.9, 0.95)]\n"
    )
    fmt, recs, _ = read(write(tmp_path, "ds.log", text))
    assert fmt == "deepspeed"
    assert recs[0].overflow and recs[0].loss_scale == 32768


def test_custom_print_format_generic_text(tmp_path):
    text = "".join(f"Step {i} -- Train loss: {2.6 + i / 1000}, Train Acc: 0.13\n" for i in range(12))
    fmt, recs, _ = read(write(tmp_path, "run.txt", text))
    assert fmt == "text" and len(recs) == 12 and recs[-1].step == 11 and recs[-1].extra["Train Acc"] == 0.13


# -- MLflow ---------------------------------------------------------------------------
def test_mlflow_file_store_dir_source(tmp_path):
    run = tmp_path / "mlruns" / "1" / "abc"
    write(run, "meta.yaml", "run_id: abc\nstatus: 3\n")
    write(run, "metrics/loss", "".join(f"16286977{i:05d} {3 - i / 10} {i}\n" for i in range(5)) + "1 nan 5\n")
    write(run, "metrics/train/grad_norm", "".join(f"1 {0.5 + i} {i}\n" for i in range(6)))
    write(run, "metrics/val_loss", "1 2.5 4\n")
    write(run, "params/lr", "0.001")
    files = log_files.candidate_files(str(tmp_path))
    assert files == [str(run / "metrics")]  # one source for the run's metric files
    fmt, recs, _ = read(run / "metrics")
    assert fmt == "mlflow" and [r.step for r in recs] == list(range(6))
    assert recs[4].val_loss == 2.5 and recs[4].grad_norm == 4.5 and math.isnan(recs[5].loss)


def test_mlflow_sqlite(tmp_path):
    db = tmp_path / "mlflow.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE metrics (key TEXT, value FLOAT, timestamp BIGINT, run_uuid TEXT, step BIGINT, is_nan BOOLEAN)"
    )
    rows = [("loss", 3.0 - s / 10, s, "r1", s, 0) for s in range(8)] + [("loss", 0.0, 9, "r1", 8, 1)]
    rows += [("learning_rate", 1e-3, s, "r1", s, 0) for s in range(9)] + [("loss", 1.0, 0, "r0", 0, 0)]
    con.executemany("INSERT INTO metrics VALUES (?,?,?,?,?,?)", rows)
    con.commit()
    con.close()
    assert log_files.candidate_files(str(tmp_path)) == [str(db)]
    fmt, recs, reader = read(db)
    assert fmt == "mlflow-sqlite" and len(recs) == 9 and recs[0].lr == 1e-3
    assert math.isnan(recs[-1].loss) and reader.run_info["mlflow_run"] == "r1"


# -- HF trainer_state.json in checkpoints ------------------------------------------------
def _state(n, nan_at=None):
    hist = [
        {
            "epoch": s / 10,
            "grad_norm": (math.nan if s == nan_at else 0.5),
            "learning_rate": 1e-4,
            "loss": 2.0,
            "step": s,
        }
        for s in range(1, n + 1)
    ]
    hist.append({"epoch": n / 10, "eval_loss": 1.9, "eval_runtime": 1.0, "step": n})
    hist.append({"epoch": n / 10, "step": n, "total_flos": 1.0, "train_loss": 2.0, "train_runtime": 1.0})
    return json.dumps(
        {
            "global_step": n,
            "max_steps": 30,
            "logging_steps": 1,
            "save_steps": 10,
            "train_batch_size": 4,
            "log_history": hist,
        },
        indent=2,
    )


def test_trainer_state_newest_checkpoint_only(tmp_path):
    for n in (10, 20, 30):
        write(tmp_path, f"checkpoint-{n}/trainer_state.json", _state(n, nan_at=25))
    files = log_files.candidate_files(str(tmp_path))
    assert files == [str(tmp_path / "checkpoint-30" / "trainer_state.json")]
    fmt, recs, reader = read(files[0])
    assert fmt == "hf-trainer-state"
    assert [r.step for r in recs] == list(range(1, 31)) + [30]  # + the eval entry; not the summary
    assert math.isnan(recs[24].grad_norm) and recs[24].loss == 2.0  # logging_nan_inf_filter
    assert reader.run_info == {"total_steps": 30, "logging_steps": 1, "save_steps": 10, "batch_size": 4}
    # a root copy wins over the checkpoints
    write(tmp_path, "trainer_state.json", _state(30))
    assert log_files.candidate_files(str(tmp_path)) == [str(tmp_path / "trainer_state.json")]


def test_trainer_state_half_written(tmp_path):
    p = write(tmp_path, "trainer_state.json", _state(5)[:200])
    fmt, recs, reader = read(p)
    assert fmt == "hf-trainer-state" and recs == [] and reader.skipped == 1


# -- TensorBoard framing, CRCs, corruption -------------------------------------------------
EV0 = bytes.fromhex("1800000000000000a37f4b220900000040fc54d9411a0d627261696e2e4576656e743a32eced8f9d")
EV1 = bytes.fromhex("1a00000000000000129bd82d0900000040fc54d94110642a0d0a0b0a046c6f73731500002040e4ce56c8")


def _event(step, tag, value, tensor=False):
    def key(n, wt):
        return bytes([n << 3 | wt])

    def ld(n, b):
        assert len(b) < 128
        return key(n, 2) + bytes([len(b)]) + b

    if tensor:  # TF2 / new_style: TensorProto{dtype DT_FLOAT, tensor_content}
        val = ld(8, key(1, 0) + b"\x01" + ld(2, b"") + ld(4, struct.pack("<f", value)))
    else:
        val = key(2, 5) + struct.pack("<f", value)
    data = key(1, 1) + struct.pack("<d", 1.7e9) + key(2, 0) + bytes([step]) + ld(5, ld(1, ld(1, tag.encode()) + val))
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked_crc(head)) + data + struct.pack("<I", masked_crc(data))


def test_tensorboard_known_vectors_and_crc():
    assert crc32c(b"123456789") == 0xE3069283
    assert _event(100, "loss", 2.5)[12:-4] == EV1[12:-4]
    r = TensorBoardReader("events.out.tfevents.1")
    assert r.feed_bytes(EV0 + EV1[:20]) == []  # half a record: wait
    assert r.feed_bytes(EV1[20:]) == []  # step 100 stays open until another step
    recs = r.flush()
    assert [(x.step, x.loss) for x in recs] == [(100, 2.5)] and r.skipped == 0


def test_tensorboard_merges_tags_tensor_values_and_skips_other_axes():
    data = (
        EV0
        + _event(1, "train/loss", 3.0, tensor=True)
        + _event(1, "train/grad_norm", 1.5)
        + _event(1, "learning-rate", 1e-3)
        + _event(90, "lm loss vs samples", 9.0)
        + _event(2, "lm-loss-training/lm loss", 2.5)
        + _event(2, "loss-scale", 65536.0)
    )
    r = TensorBoardReader("events.out.tfevents.1")
    recs = r.feed_bytes(data) + r.flush()
    assert [(x.step, x.loss, x.grad_norm) for x in recs] == [(1, 3.0, 1.5), (2, 2.5, None)]
    assert recs[0].lr == pytest.approx(1e-3) and recs[1].loss_scale == 65536


def test_tensorboard_corrupt_records_counted_and_resynced():
    good = [_event(s, "loss", float(s)) for s in range(1, 6)]
    bad = bytearray(b"".join(good))
    n = len(good[0])
    bad[n + 14] ^= 0xFF  # data of record 2
    bad[3 * n + 2] ^= 0xFF  # length of record 4
    r = TensorBoardReader("events.out.tfevents.1")
    recs = r.feed_bytes(bytes(bad) + b"\x10\x00") + r.flush()
    assert [x.step for x in recs] == [1, 3, 5]
    assert r.skip_reasons == {
        "corrupt record (data CRC mismatch)": 1,
        "corrupt record header (CRC mismatch)": 1,
        "truncated record at end of file": 1,
    }


def _varint_bytes(x):
    out = bytearray()
    while True:
        b, x = x & 0x7F, x >> 7
        out.append(b | (0x80 if x else 0))
        if not x:
            return bytes(out)


def test_tensorboard_fast_decoder_equals_general():
    """decode_event's one-regex path for add_scalar events gives what walking the
    wire format gives, for odd tags, steps and values, and refuses look-alikes."""
    from tsm_tui.sources.tensorboard import decode_event, decode_event_general

    rng = random.Random(3)

    def ld(n, b):
        return bytes([n << 3 | 2]) + _varint_bytes(len(b)) + b

    cases = []
    for _ in range(3000):
        tag = bytes(
            rng.choice([0x15, 0x0A, 0x2A, 0xFF, 0xC3, 0xA9, 0x61, 0x00])
            for _ in range(rng.choice([0, 1, 4, 40, 118, 119, 120, 127, 128, 200]))
        )
        step = rng.choice([0, 1, 127, 128, 300, 2**31, 2**63 - 1, 2**63, 2**64 - 1, rng.randrange(2**70)])
        val = struct.pack("<f", rng.choice([0.0, -0.0, 2.5, float("nan"), float("inf"), rng.random()]))
        wall = struct.pack("<d", rng.random() * 2e9)
        data = b"\x09" + wall + b"\x10" + _varint_bytes(step) + ld(5, ld(1, ld(1, tag) + b"\x15" + val))
        k = rng.randrange(8)
        if k == 1:  # a second value in the summary
            data += ld(5, ld(1, ld(1, b"lr") + b"\x15" + val))
        elif k == 2:  # metadata after the value
            data = data[:-5] + data[-5:] + b"\x4a\x00"
        elif k == 3:  # a byte off somewhere
            i = rng.randrange(len(data))
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]
        elif k == 4:  # truncated
            data = data[: rng.randrange(len(data))]
        cases.append(data)
    fast = 0
    for data in cases:
        try:
            want = decode_event_general(data)
        except Exception as e:  # noqa: BLE001 - the general decoder's errors must stay the same
            want = type(e)
        try:
            got = decode_event(data)
        except Exception as e:  # noqa: BLE001
            got = type(e)
        assert repr(got) == repr(want), data.hex()
        fast += _fast_match(data)
    assert fast > 1000


def _fast_match(data):
    from tsm_tui.sources.tensorboard import _SIMPLE

    return _SIMPLE.fullmatch(data) is not None


def _tb_stream(seed: int) -> tuple[bytes, random.Random]:
    """A random add_scalar stream: several tag patterns, repeated and skipped steps,
    resumes, NaN / Inf, other-axis tags, long and non-ASCII tags, tensor-valued
    scalars, and sometimes a corrupt byte or a truncated tail."""
    rng = random.Random(seed)

    def rec(data):
        h = struct.pack("<Q", len(data))
        return h + struct.pack("<I", masked_crc(h)) + data + struct.pack("<I", masked_crc(data))

    def ld(n, b):
        return bytes([n << 3 | 2]) + _varint_bytes(len(b)) + b

    def event(step, tag, inner):
        return (
            b"\x09"
            + struct.pack("<d", 1.7e9 + step)
            + b"\x10"
            + _varint_bytes(step % 2**64)
            + ld(5, ld(1, ld(1, tag.encode()) + inner))
        )

    out = [rec(b"\x09" + struct.pack("<d", 1.7e9) + ld(3, b"brain.Event:2"))]
    tags = rng.choice(
        [
            ["train/loss", "train/grad_norm", "train/learning_rate"],
            ["loss"],
            ["loss", "lr", "tokens_per_sec", "loss"],
            ["lm loss", "lm loss vs samples", "grad-norm"],
            ["eval/loss"],
            ["train/loss", "train/loss_scale"],
        ]
    )
    step = rng.choice([0, 1, 120, 2**40])
    for _ in range(rng.choice([5, 50, 3000, 8000])):
        step += rng.choice([1, 0, 2, -5]) if rng.random() < 0.05 else 1
        for t in tags:
            if rng.random() < 0.02:
                continue
            v = rng.choice([rng.random(), math.nan, math.inf, 1e30]) if rng.random() < 0.01 else rng.random() * 3
            if rng.random() < 0.01:
                t = rng.choice(["loss", "odd/\u00fc", "x" * 130])
            if rng.random() < 0.005:  # a TF2 tensor scalar: TensorProto{DT_FLOAT, shape {}, content}
                out.append(rec(event(step, t, ld(8, b"\x08\x01\x12\x00\x22\x04" + struct.pack("<f", v)))))
            else:
                out.append(rec(event(step, t, b"\x15" + struct.pack("<f", v))))
    blob = bytearray(b"".join(out))
    k = rng.random()
    if k < 0.15:
        blob[rng.randrange(len(blob))] ^= 0xFF
    elif k < 0.25:
        blob = blob[: len(blob) - rng.randrange(1, 30)]
    return bytes(blob), rng


@pytest.mark.parametrize("seed", range(40))
def test_tensorboard_columnar_chunks_equal_per_record(seed):
    """A finished file read in chunks on columns (feed_chunk, the replay path) gives
    exactly the records, skips and counters of the per-record path (feed_bytes)."""
    from tsm_tui.core.frame import Frame, expand

    blob, rng = _tb_stream(seed)
    path = "runs/x/" + rng.choice(["train", "validation"]) + "/events.out.tfevents.1"

    def digest(recs, r):
        return (
            [tuple(repr(getattr(x, f)) for f in x.__slots__) for x in recs],
            r.records,
            r.skipped,
            sorted(r.skip_reasons.items()),
            r.events,
            sorted(r.tags),
            r._last_step,
        )

    r1 = TensorBoardReader(path)
    want = digest(r1.feed_bytes(blob) + r1.flush(), r1)
    r2 = TensorBoardReader(path)
    items, pos = [], 0
    while pos < len(blob):
        c = rng.choice([1 << 20, 1000, 17, 65536, rng.randrange(1, 5000)])
        items += r2.feed_chunk(blob[pos : pos + c])
        pos += c
    items += r2.flush()
    assert digest(list(expand(items)), r2) == want
    if len(blob) > 200_000 and not r1.skipped:
        assert any(type(i) is Frame for i in items)  # the columnar path was taken


def test_tensorboard_file_sniffed_as_binary(tmp_path):
    p = tmp_path / "runs" / "events.out.tfevents.1700000000.host.1.0"
    p.parent.mkdir()
    p.write_bytes(EV0 + EV1)
    (tmp_path / "runs" / "events.out.tfevents.1700000000.host.profile-empty").write_bytes(EV0)
    assert log_files.candidate_files(str(tmp_path)) == [str(p)]
    fmt, recs, _ = read(p)
    assert fmt == "tensorboard" and recs[0].loss == 2.5


def test_keras_validation_dir_is_val_loss(tmp_path):
    p = tmp_path / "logs" / "validation" / "events.out.tfevents.1.v2"
    p.parent.mkdir(parents=True)
    p.write_bytes(EV0 + _event(0, "epoch_loss", 0.5, tensor=True) + _event(1, "epoch_loss", 0.4, tensor=True))
    _, recs, _ = read(p)
    assert [(x.step, x.loss, x.val_loss) for x in recs] == [(0, None, 0.5), (1, None, pytest.approx(0.4))]


# -- corrupt text input is counted --------------------------------------------------------
def test_corrupt_jsonl_and_csv_counted(tmp_path):
    lines = [json.dumps({"current_steps": i, "loss": 1.0}) for i in range(1, 6)]
    lines.insert(2, '{"current_steps": 3, "loss": 1.0')  # truncated
    fmt, recs, reader = read(write(tmp_path, "trainer_log.jsonl", "\n".join(lines) + "\n"))
    assert fmt == "llama-factory" and len(recs) == 5 and reader.skipped == 1
    csv = "epoch,loss,lr,val_loss\r\n0,1.0,0.001,1.1\r\n1,0.9,0.001\r\n2,0.8,0.001,0.9\r\n"
    fmt, recs, reader = read(write(tmp_path, "training.log", csv))
    assert fmt == "keras-csv" and [r.step for r in recs] == [0, 2] and reader.skipped == 1


def test_shared_dir_is_not_modified_by_reading(tmp_path):
    # reading a copied run dir leaves no files behind (read-only sources)
    if not SHARED.exists():
        pytest.skip("../shared/real_logs not present")
    dst = tmp_path / "mlflow"
    shutil.copytree(SHARED / "mlflow", dst)
    before = sorted(p.name for p in dst.rglob("*"))
    for p in log_files.candidate_files(str(dst)):
        read(p)
    assert sorted(p.name for p in dst.rglob("*")) == before


# -- audit follow-ups: data bars, the generic reader's rules ---------------------------------
def hf_train(
    total=1000,
    log_every=10,
    first_bar="Map (num_proc=8): 100%|##########| 51760/51760 [00:02<00:00, 20000.00 examples/s]\n",
    eval_every=None,
):
    s = first_bar
    for st in range(1, total + 1):
        s += f"\r  {st * 100 // total}%|#  | {st}/{total} [00:{st % 60:02d}<00:10,  1.2it/s]"
        if st % log_every == 0:
            s += "{'loss': %.4f, 'grad_norm': 1.0, 'learning_rate': 2e-05, 'epoch': %.2f}\n" % (
                3 - st / total,
                st / total,
            )
        if eval_every and st % eval_every == 0:  # an evaluation bar (no label, it/s) and its dict
            s += "".join(f"\r  {k * 2}%|#  | {k}/50 [00:0{k % 10}<00:10,  5.1it/s]" for k in range(0, 51, 10))
            s += "\n{'eval_loss': 2.1, 'eval_runtime': 1.0, 'epoch': 0.5}\n"
    return s


@pytest.mark.parametrize(
    "first_bar",
    [
        "Map (num_proc=8): 100%|##########| 51760/51760 [00:02<00:00, 20000.00 examples/s]\n",
        "Running tokenizer on dataset: 100%|####| 9000/9000 [00:01<00:00, 5000.00 examples/s]\n",
        "Filter: 100%|##########| 5000/5000 [00:00<00:00, 1.00 ba/s]\n",
        "  100%|##########| 120/120 [00:10<00:00, 12.0it/s]\n{'eval_loss': 3.0, 'eval_runtime': 1.0, 'epoch': 0}\n",
    ],
    ids=["map", "tokenizer", "filter", "eval on start"],
)
def test_hf_stdout_steps_come_from_the_training_bar(tmp_path, first_bar):
    """The first bar used to be taken as the training bar: a datasets Map bar made the
    steps 51760.. and the planned total 51760."""
    fmt, recs, reader = read(write(tmp_path, "train.log", hf_train(first_bar=first_bar, eval_every=250)))
    assert fmt == "hf-stdout"
    train = [r.step for r in recs if r.loss is not None]
    assert train == list(range(10, 1001, 10))
    assert [r.step for r in recs if r.val_loss is not None and r.loss is None][-4:] == [250, 500, 750, 1000]
    assert reader.run_info["total_steps"] == 1000


def test_ms_swift_steps_and_total_despite_a_map_bar(tmp_path):
    text = "Map: 100%|##########| 10000/10000 [00:01<00:00, 9000.00 examples/s]\n" + "".join(
        f"Train:  {st // 5}%|#  | {st}/500 [00:10<16:00,  1.94s/it]{{'loss': '{3 - st / 500:.4f}', "
        f"'grad_norm': '0.8', 'learning_rate': '9.9e-05', 'global_step/max_steps': '{st}/500', "
        f"'percentage': '1%'}}\n"
        for st in range(5, 501, 5)
    )
    _, recs, reader = read(write(tmp_path, "stdout.log", text))
    assert [r.step for r in recs] == list(range(5, 501, 5)) and reader.run_info["total_steps"] == 500


GENERIC = {
    "Epoch [{e}/5], Step [{b}/600], Loss: {l:.4f}": "per epoch",
    "Epoch {e} | Batch {b}/600 | Loss: {l:.4f} | Acc: 0.51": "per epoch",
    "Epoch(train) [{e}][{b}/600]  lr: 1.0000e-04  eta: 0:01:00  time: 0.3  loss: {l:.4f}  grad_norm: 1.1": "per epoch",
    "Train: {e0} [ {b:>4d}/600 ({p:>3.0f}%)]  Loss: {l:.3f} ({l:.3f})  Time: 0.3s,  LR: 1.000e-04": "per epoch",
    "Epoch {e} | Step {g}/1800 | Loss: {l:.4f}": "global",
    "step\t{g}\tloss\t{l:.4f}\tlr\t0.0001": "global",
    '2024-05-01 10:00:00 INFO metrics: {{"step": {g}, "loss": {l:.4f}, "lr": 1e-4}}': "global",
    '[rank0] step {g}: metrics {{"loss": {l:.4f}}}': "global",
    "step {g} grad_norm 0.5 loss {l:.4f}": "global",
}


@pytest.mark.parametrize("fmt_line", list(GENERIC))
def test_generic_reader_reads_common_shapes(tmp_path, fmt_line):
    lines = ["Starting training...", "Loading epoch 1 of the data set", "Epoch 1 took 100/200 s"]
    for e in (1, 2, 3):
        for b in range(100, 601, 100):
            g = (e - 1) * 600 + b
            lines.append(fmt_line.format(e=e, e0=e - 1, b=b, g=g, p=b / 6, l=3 - g / 1000))
    fmt, recs, reader = read(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    assert fmt == "text"
    assert [r.step for r in recs] == list(range(100, 1801, 100)), GENERIC[fmt_line]
    assert recs[-1].loss == pytest.approx(3 - 1800 / 1000, abs=1e-3)
    if "[{e}/5]" in fmt_line:
        assert reader.run_info["total_steps"] == 3000


def test_generic_reader_thousands_separators_and_prose(tmp_path):
    from tsm_tui.sources.generic_text import KeyValueTextReader

    r = KeyValueTextReader("x")
    (rec,) = r.feed("step 1,001 | loss 2.5")
    assert rec.step == 1001
    prose = [
        "Epoch 3 finished in 100/200 seconds",
        "the epoch 1 ended; 5/6 of the data read",
        "step 5 of 10 done",
        'config {"lr": 0.1, "warmup_steps": 10}',
        'saved {"step": 5, "lr": 1e-4}',
        "Train: 5 [ 10/20 ]",
        "name\tvalue",
        "step\t5\tlr\t0.1",
    ]
    assert [r.feed(p) for p in prose] == [[]] * len(prose)


def test_space_separated_names_and_values():
    """Names and values with no colon or equals sign (``step 100 grad_norm 0.5 loss 2.3``):
    the metric names nanoGPT and llm.c print spaced, with '_' as well as ' '."""
    from tsm_tui.sources.generic_text import KeyValueTextReader

    r = KeyValueTextReader("x")
    (rec,) = r.feed("step 100 grad_norm 0.5 loss 2.3")
    assert (rec.step, rec.loss, rec.grad_norm) == (100, 2.3, 0.5)
    (rec,) = r.feed("step 101 train_loss 2.2 val_loss 2.5 learning_rate 3e-4")
    assert (rec.loss, rec.val_loss, rec.lr) == (2.2, 2.5, 3e-4)
    # a name that holds "loss" is read whole, never cut to the "train_loss" inside it; the only
    # loss of its record, it is the objective (a DCGAN loop's "gen_loss 0.628, dis_loss 1.398")
    (rec,) = r.feed("step 102 my_train_loss 2.2")
    assert rec.extra == {"my_train_loss": 2.2} and "train_loss" not in rec.extra


def test_tab_separated_table(tmp_path):
    text = "step\tloss\tlr\n" + "".join(f"{i}\t{3 - i / 100:.4f}\t0.0001\n" for i in range(1, 51))
    fmt, recs, _ = read(write(tmp_path, "metrics.tsv", text))
    assert fmt == "csv" and [r.step for r in recs] == list(range(1, 51)) and recs[0].loss == 2.99


def test_csv_batch_column_that_counts_within_each_epoch(tmp_path):
    # a GAN script's training_log.csv (bench/corpus/fresh/gan_training_log_csv): 'Batch' starts
    # at 0 in every epoch; read as the step it made 20 launches of 21 steps
    rows = [(e, b, 0.7 + 0.01 * e, 1.38 - 0.001 * b) for e in range(3) for b in range(21)]
    text = "Epoch,Batch,Gen Loss,Disc Loss\n" + "".join(f"{e},{b},{g},{d}\n" for e, b, g, d in rows)
    fmt, recs, reader = read(write(tmp_path, "training_log.csv", text))
    assert fmt == "csv" and [r.step for r in recs] == list(range(63))
    assert "counts within each epoch" in reader.describe()["step_source"]
    # a relaunch from epoch 1 goes back to step 21 (a resume), not on from 63
    more = "".join(f"1,{b},0.8,1.3\n" for b in range(3))
    _, recs, _ = read(write(tmp_path, "relaunched.csv", text + more))
    assert [r.step for r in recs][-3:] == [21, 22, 23]


def test_a_second_table_written_into_a_csv_is_counted_not_a_new_header(tmp_path):
    # rllab's logger (fresh85's OptionGAN progress.csv): a 3-column table's header, then its rows between
    # the main table's; read as a new header, every later row of the main table was "wrong number of cells"
    main = "SurrogateLoss,vf_loss,Entropy,Iteration"
    rows = [f"{2 - i / 10},{0.3 + i / 50},4.2,{i}" for i in range(8)]
    other = ["MeanGateDist,MinGateDist,MaxGateDist"] + ["[0.27 0.72],[0.16 0.61],[0.38 0.83]"] * 7
    lines = [main, rows[0]] + [x for pair in zip(other, rows[1:]) for x in pair]
    _, recs, reader = read(write(tmp_path, "progress.csv", "\n".join(lines) + "\n"))
    assert [r.step for r in recs] == list(range(8)) and reader.skipped == 7  # (its header and 6 rows)
    # Lightning's rewrite with a new column (a header sharing the old names) still replaces the header
    text = "step,train_loss\n0,2.0\n1,1.9\nstep,train_loss,val_loss\n0,2.0,\n1,1.9,\n1,,2.1\n2,1.8,\n"
    _, recs, reader = read(write(tmp_path, "metrics.csv", text))
    assert [r.val_loss for r in recs if r.val_loss is not None] == [2.1] and reader.skipped == 0


def test_csv_global_step_beside_the_epoch_is_taken_as_it_is(tmp_path):
    # Lightning CSVLogger's 'step' counts on across epochs: never offset
    text = "epoch,step,train_loss\n" + "".join(f"{s // 10},{s},{3 - s / 100}\n" for s in range(40))
    fmt, recs, reader = read(write(tmp_path, "metrics.csv", text))
    assert [r.step for r in recs] == list(range(40)) and reader.describe() == {}
    # an epoch-end row at the last step, already numbered with the next epoch: still global
    text = "epoch,step,train_loss,val_loss\n0,9,2.0,\n1,9,,2.1\n1,19,1.9,\n2,29,1.8,\n"
    _, recs, reader = read(write(tmp_path, "metrics2.csv", text))
    assert [r.step for r in recs] == [9, 9, 19, 29] and reader.describe() == {}


def test_llmc_stdout_val_loss_lines(tmp_path):
    text = "val loss 4.5000\n" + "".join(
        f"step {s:4d}/74 | train loss {5 - s / 100:.6f} | norm 3.8500 | lr 9.00e-06 | 110.61 ms | 38.3% A100 fp16 "
        f"MFU | 148132 tok/s\n" + (f"val loss {4.5 - s / 100:.4f}\n" if s % 10 == 0 else "")
        for s in range(1, 41)
    )
    fmt, recs, _ = read(write(tmp_path, "train.log", text))
    assert fmt == "llmc"
    val = [(r.step, r.val_loss) for r in recs if r.val_loss is not None]
    assert val == [(0, 4.5), (10, 4.4), (20, 4.3), (30, 4.2), (40, 4.1)]
    assert len([r for r in recs if r.loss is not None]) == 40


def _both_paths(path):
    """Records of a file through the line path and the replay's chunk path."""
    from tsm_tui.sources.generic_text import KeyValueTextReader

    text = open(path, encoding="utf-8").read()
    lines = KeyValueTextReader(str(path))
    by_line = [r for ln in text.splitlines(keepends=True) for r in lines.feed(ln)]
    _, by_chunk, reader = read(path)
    return by_line, by_chunk, reader


def test_torchtune_bar_the_global_step_and_loss(tmp_path):
    # torchtune's recipes: pbar.set_description(f"{epoch + 1}|{global_step}|Loss: {loss}"), tqdm
    # redrawing with \r into the captured stdout; the bar's own n/N is the epoch's batch
    text = (
        "".join(
            f"\r{1 + (g - 1) // 50}|{g}|Loss: {3 - g / 100:.4f}:   {g % 50 * 2}%|##   | {1 + (g - 1) % 50}/50 "
            f"[00:03<01:24,  3.14s/it]"
            for g in range(1, 121)
        )
        + "\n"
    )
    p = write(tmp_path, "log.txt", text)
    by_line, by_chunk, _ = _both_paths(p)
    for recs in (by_line, by_chunk):
        assert [r.step for r in recs] == list(range(1, 121))
        assert recs[-1].loss == pytest.approx(1.8) and recs[-1].grad_norm is None


def test_per_epoch_log_the_epoch_is_the_step(tmp_path):
    text = "Starting training...\nEpoch 1/40 took 100/200 s\n" + "".join(
        f"Epoch {e}/40, loss={2 / e:.4f}, val_loss={2.1 / e:.4f}\n" for e in range(1, 41)
    )
    p = write(tmp_path, "train.log", text)
    by_line, by_chunk, reader = _both_paths(p)
    for recs in (by_line, by_chunk):
        assert [r.step for r in recs] == list(range(1, 41))
        assert recs[9].loss == pytest.approx(0.2) and recs[9].val_loss == pytest.approx(0.21)
    assert reader.run_info["total_steps"] == 40


def test_epoch_summary_after_step_lines_is_not_a_step(tmp_path):
    # a log with steps of its own: "Epoch 1/3, val_loss=..." between them is a summary, never step 1
    text = "".join(
        f"step {s} loss={3 - s / 100:.3f}\n"
        + (f"Epoch {s // 50}/3, val_loss={2 - s / 1000:.3f}\n" if s % 50 == 0 else "")
        for s in range(1, 151)
    )
    by_line, by_chunk, _ = _both_paths(write(tmp_path, "train.log", text))
    for recs in (by_line, by_chunk):
        assert [r.step for r in recs if r.loss is not None] == list(range(1, 151))
        # its validation loss (a step-less line with a validation loss alone) is at the last step read
        assert [(r.step, r.val_loss) for r in recs if r.loss is None] == [(50, 1.95), (100, 1.9), (150, 1.85)]


def test_detectron2_total_loss_is_the_loss(tmp_path):
    text = "".join(
        f"[05/01 10:00:{s % 60:02d} d2.utils.events]:  eta: 1:00:00  iter: {s}  total_loss: {3 - s / 100:.3f}  "
        f"loss_cls: 0.1  loss_box_reg: 0.2  lr: 0.02  max_mem: 3000M\n"
        for s in range(19, 400, 20)
    )
    fmt, recs, _ = read(write(tmp_path, "log.txt", text))
    assert fmt == "text" and [r.step for r in recs] == list(range(19, 400, 20))
    assert recs[0].loss == pytest.approx(2.81) and recs[0].extra.get("loss_cls") == pytest.approx(0.1)


def _val_losses(path):
    _, recs, r = read(path)
    return [x.val_loss for x in recs if x.val_loss is not None], r


def test_a_test_loss_beside_a_validation_loss_is_not_one_more_evaluation(tmp_path):
    # a real Lightning metrics.csv (bench/corpus/fresh11, MIT): val_loss per epoch, then one
    # test_loss row from trainer.test (0.032 after a best val_loss of 0.014): read as an
    # evaluation it was the run's "last evaluation"; it is the test set's, not the run's
    src = os.path.join(
        paths.ROOT,
        "bench/corpus/fresh11/lightning_csvlogger_cv_classifier_batch_noise/lightning_logs/version_0/metrics.csv",
    )
    vals, r = _val_losses(src)
    assert len(vals) == 6 and vals[-1] == pytest.approx(0.01422041654586792)
    assert r.field_keys()["val_loss"] == ["val_loss"]
    # the same keys in JSON lines, the test key first: the validation key still wins
    p = tmp_path / "metrics.jsonl"
    rows = [
        {"step": 1, "loss": 2.0},
        {"step": 1, "test_loss": 3.0},
        {"step": 2, "val_loss": 1.5},
        {"step": 3, "loss": 1.0},
    ]
    p.write_text("".join(json.dumps(x) + "\n" for x in rows))
    vals, r = _val_losses(p)
    assert vals[-1] == 1.5 and r.field_keys()["val_loss"] == ["val_loss"]
    # a source with only a test loss: that is its evaluation loss
    p.write_text(
        "".join(json.dumps(x) + "\n" for x in [{"step": s, "loss": 2.0 / s, "test_loss": 2.5 / s} for s in range(1, 5)])
    )
    vals, _ = _val_losses(p)
    assert vals == [2.5, 1.25, 2.5 / 3, 0.625]


def test_a_dict_of_loss_weights_in_a_config_dump_is_no_record(tmp_path):
    # Mask2Former's criterion printed in detectron2's model dump at each launch, as in a real
    # log of bench/corpus/console (d2_mask2former_crashes_then_run): its loss names and weights
    # were read as a record of loss 120.0 at every launch; a metrics dict on its own line is one
    events = "".join(
        f"[08/30 16:{s // 60:02d}:{s % 60:02d}] d2.utils.events INFO:  eta: 0:21:37  iter: {s}  "
        f"total_loss: {2.0 - s / 1000:.3f}  loss_ce: 0.1  loss_mask: 0.01    time: 0.4304  lr: 2e-05  max_mem: 15320M\n"
        for s in range(19, 400, 20)
    )
    dump = (
        "  (criterion): Criterion SetCriterion\n"
        "      matcher: Matcher HungarianMatcher\n"
        "      weight_dict: {'loss_ce': 2.0, 'loss_mask': 5.0, 'loss_dice': 5.0, 'loss_ce_0': 2.0}\n"
        "      loss_weights = {'loss': 1.0, 'aux_loss': 0.4}\n"
    )
    p = tmp_path / "log.txt"
    p.write_text(dump + events + dump + events.replace("iter: ", "iter: 1"), encoding="utf-8")
    _, recs, _ = read(str(p))
    losses = [r.loss for r in recs if getattr(r, "loss", None) is not None]
    assert len(losses) == 40 and max(losses) < 2.0
