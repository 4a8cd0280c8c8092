"""Real logs as they come (issue 16): long preambles, NUL holes, formats seen in the wild,
two writers in one file, rotated segments, long JSONL lines, steps counted as steps.

Every fixture is made here, shaped like the real thing (the real logs are unlicensed and
stay out of the repo); each class is checked in ``--report`` and while tailing a file
that is really being appended to.
"""

from __future__ import annotations

import gzip
import json
import os
import time

import pytest

from tsm_tui.analysis.session import Session
from tsm_tui.cli import main
from tsm_tui.sources import log_files, reading, registry
from tsm_tui.sources.head import HOLE

from test_tail import append


def report(path, capsys) -> dict:
    rc = main([str(path), "--report", "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def used(d: dict) -> dict:
    return next(f for f in d["files"] if f["used"])


# ----------------------------------------------------------------------------- fixtures
def shell_trace(nbytes: int) -> str:
    """What a launcher prints first: `set -x` trace, an environment dump, NCCL chatter."""
    out, i, n = [], 0, 0
    while n < nbytes:
        out.append(f"+ export NCCL_SOCKET_IFNAME=ib{i % 4} CUDA_DEVICE_MAX_CONNECTIONS=1 OMP_NUM_THREADS={i}\n")
        out.append(f"node{i % 8}:{i}:{i} [0] NCCL INFO Channel {i % 32:02d}/32 :    0   1   2   3   4   5   6   7\n")
        n += len(out[-1]) + len(out[-2])
        i += 1
    return "".join(out)


def megatron_lines(a: int, b: int, total: int = 500) -> str:
    return "".join(
        f" iteration {s:8d}/{total:8d} | consumed samples: {s * 512:12d} | elapsed time per iteration (ms): 1234.5 |"
        f" learning rate: {min(s, 100) * 6e-6:.3E} | global batch size:   512 | lm loss: {7 - s * 0.004:.6E} |"
        f" loss scale: 4096.0 | grad norm: {1.2 + (s % 7) * 0.01:.3f} | number of skipped iterations:   0 |"
        f" number of nan iterations:   0 |\n"
        for s in range(a, b)
    )


def megatron_log() -> str:
    args = "".join(
        f"  {k} {'.' * (40 - len(k))} {v}\n"
        for k, v in [("train_iters", 500), ("lr", "0.0006"), ("lr_warmup_iters", 100), ("global_batch_size", 512)]
    )
    return (
        shell_trace(110 * 1024)
        + "------------------------ arguments ------------------------\n"
        + args
        + megatron_lines(1, 121)
    )


def swift_dict(s: int, total: int = 84) -> str:
    # ms-swift: HF-style dicts with string values, glued to tqdm redraws
    return (
        f"Train:  {100 * s // total:2d}%|#   | {s}/{total} [00:{s:02d}<07:26,  5.65s/it]"
        f"{{'loss': '{2.0 - s * 0.01:.5f}', 'token_acc': '0.58', 'grad_norm': '2.03', 'learning_rate': '9.6e-05',"
        f" 'memory(GiB)': '17.46', 'epoch': '{s / total:.2f}', 'global_step/max_steps': '{s}/{total}',"
        f" 'percentage': '{100 * s / total:.2f}%', 'elapsed_time': '28s', 'remaining_time': '7m 26s'}}\r"
        f"Train:  {100 * s // total:2d}%|#   | {s + 1}/{total} [00:{s:02d}<07:00,  5.4s/it]\n"
    )


def swift_log() -> str:
    pip = "".join(
        f"Requirement already satisfied: package{i} in /usr/lib/python3/dist-packages (from swift) ({i}.0)\n"
        for i in range(3000)
    )
    return pip + "[INFO:swift] model_parameter_info: 7615.62M Params\n" + "".join(swift_dict(s) for s in range(1, 61))


def jsonl(a: int, b: int, **extra) -> str:
    return "".join(json.dumps({"step": s, "loss": round(3.0 - s * 1e-3, 6), **extra}) + "\n" for s in range(a, b))


# ----------------------------------------------------------------------------- 1. metrics that start late
def test_late_metrics_megatron_and_ms_swift_report(tmp_path, capsys):
    (tmp_path / "meg").mkdir()
    (tmp_path / "meg" / "train.log").write_text(megatron_log())
    d = report(tmp_path / "meg", capsys)
    f = used(d)
    assert f["format"] == "megatron" and f["records"] == 120
    assert d["steps"]["first"] == 1 and d["steps"]["last"] == 120
    assert d["run"]["total_steps"] == 500  # the argument dump before the metrics was read too

    (tmp_path / "swift").mkdir()
    (tmp_path / "swift" / "stdout.log").write_text(swift_log())
    assert os.path.getsize(tmp_path / "swift" / "stdout.log") > 284 * 1024
    d = report(tmp_path / "swift", capsys)
    assert used(d)["format"] == "hf-stdout"
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (1, 60, 60)
    assert d["run"]["total_steps"] == 84


def test_nothing_recognisable_is_still_said_so(tmp_path, capsys):
    p = tmp_path / "notes.txt"
    p.write_text(shell_trace(300 * 1024))
    assert main([str(p), "--report"]) == 2
    assert "no training metrics recognised" in capsys.readouterr().err


def test_late_metrics_while_tailing(tmp_path, tail):
    p = tmp_path / "train.log"
    append(p, shell_trace(150 * 1024), "w")
    c = tail(tmp_path)
    c.settle(0.6)
    assert c.records == []  # nothing recognisable yet
    append(p, shell_trace(60 * 1024))  # the launcher keeps talking
    c.settle(0.6)
    append(p, megatron_lines(1, 31))  # then training starts
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 31)))
    # (a stream file is followed from its first line for its crash lines, sources/console.py,
    # and read as Megatron once its metrics start)
    assert c.t.files[str(p)].reader.name == "megatron"
    append(p, megatron_lines(31, 41))
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 41)))


# ----------------------------------------------------------------------------- 2. NUL holes
def holed(tmp_path):
    p = tmp_path / "train.log"
    with open(p, "wb") as f:
        f.write(b"\0" * 11000)  # copy-truncate: the writer kept its offset
        f.write(jsonl(1, 51).encode())
        f.write(b"\0" * 700)  # a second hole mid-file
        f.write(jsonl(51, 101).encode())
    return p


def test_nul_hole_skipped_and_counted_report(tmp_path, capsys):
    holed(tmp_path)
    d = report(tmp_path, capsys)
    f = used(d)
    assert f["format"] == "jsonl" and f["records"] == 100 and f["skipped_lines"] == 0
    assert f["skip_reasons"] == {HOLE: 11700}
    assert (d["steps"]["first"], d["steps"]["last"]) == (1, 100)


def test_sparse_hole_and_binary_files_still_binary(tmp_path):
    p = tmp_path / "sparse.log"
    with open(p, "wb") as f:
        f.seek(1 << 20)  # a sparse hole of 1 MiB (SEEK_DATA jumps it)
        f.write(jsonl(1, 11).encode())
    r, fi = registry.open_reader(str(p))
    assert fi.format == "jsonl"
    assert [x.step for x in reading.read_records(str(p), r)] == list(range(1, 11))
    assert r.skip_reasons[HOLE] == 1 << 20
    b = tmp_path / "blob.log"  # NULs among binary bytes: still not a text log
    b.write_bytes(bytes(range(256)) * 64)
    assert registry.open_reader(str(b))[1].note == registry.BINARY


def test_nul_hole_while_tailing(tmp_path, tail):
    p = holed(tmp_path)
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 101)))
    with open(p, "ab") as f:
        f.write(b"\0" * 300 + jsonl(101, 111).encode())
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 111)))
    assert c.t.files[str(p)].reader.skip_reasons[HOLE] == 12000


# ----------------------------------------------------------------------------- 3. formats
LLMC_HEAD = """+-----------------------+----------------------------------------------------+
| Parameter             | Value                                              |
+-----------------------+----------------------------------------------------+
| max_steps             | -1                                                 |
| learning_rate         | 6.000000e-04                                       |
| warmup_iterations     | 700                                                |
| num_parameters        | 124475904                                          |
+-----------------------+----------------------------------------------------+
"""


def llmc_lines(a, b, total=19560):
    return "".join(
        f"step {s:4d}/{total} | train loss {3.5 - s * 0.001:.6f} | norm {0.9 + (s % 5) * 0.1:.4f} "
        f"(+{s % 3}.13z)| lr {min(s, 700) * 6e-4 / 700:.2e} | 123.45 ms | 45.6% bf16 MFU | 412345 tok/s\n"
        for s in range(a, b)
    )


def test_llmc_stdout_grad_norm_and_no_negative_total(tmp_path, capsys):
    p = tmp_path / "train.log"
    p.write_text(LLMC_HEAD + llmc_lines(1, 201))
    d = report(p, capsys)
    assert used(d)["format"] == "llmc"
    gn = next(c for c in d["checks"] if c["id"] == "grad_norm")
    assert "not logged" not in gn["summary"]
    assert d["run"]["total_steps"] == 19560  # from the step lines, not max_steps -1
    lr = next(c for c in d["checks"] if c["id"] == "lr_schedule")
    assert "of -1 planned" not in lr["summary"] and "-" not in lr["summary"].split("% of")[0][-12:]
    r, _ = registry.open_reader(str(p))
    recs = list(reading.read_records(str(p), r))
    assert recs[0].grad_norm == pytest.approx(1.0) and recs[0].loss == pytest.approx(3.499)


def test_negative_total_ignored_everywhere(tmp_path, capsys):
    p = tmp_path / "train.log"
    p.write_text(
        LLMC_HEAD.replace("warmup", "xwarmup")
        + "".join(f"s:{s} trl:{3 - s * 1e-3:.4f} lr:0.0006 norm:1.0\n" for s in range(1, 101))
    )
    d = report(p, capsys)
    assert d["run"].get("total_steps") is None  # max_steps -1 is "not set"; nothing else says
    lr = next(c for c in d["checks"] if c["id"] == "lr_schedule")
    assert "planned" not in lr["summary"]


def test_build_nanogpt_log(tmp_path, capsys):
    log = tmp_path / "log"
    log.mkdir()
    lines = []
    for s in range(0, 300):
        if s % 100 == 0:
            lines += [f"{s} val {10.9 - s * 0.01:.4f}", f"{s} hella 0.{2459 + s}"]
        lines.append(f"{s} train {10.98 - s * 0.01:.6f}")
    (log / "log.txt").write_text("\n".join(lines) + "\n")
    d = report(tmp_path, capsys)
    f = used(d)
    assert f["format"] == "build-nanogpt" and f["records"] == 306
    assert d["steps"]["count"] == 300 and (d["steps"]["first"], d["steps"]["last"]) == (0, 299)
    r, _ = registry.open_reader(str(log / "log.txt"))
    recs = list(reading.read_records(str(log / "log.txt"), r))
    assert recs[0].val_loss == pytest.approx(10.9) and recs[1].extra == {"hella": 0.2459}


def keras_log(epochs=12):
    out = ['Model: "sequential"', "Total params: 101,770", ""]
    for e in range(1, epochs + 1):
        out.append(f"Epoch {e}/{epochs}")
        loss = 0.3 / e
        out.append(
            "   1/1875 [..............................] - ETA: 9:05 - loss: 2.3321 - accuracy: 0.0625\r"
            f"  64/1875 [>.............................] - ETA: 2s - loss: 0.9 - accuracy: 0.7\r"
            f"1875/1875 [==============================] - 5s 3ms/step - loss: {loss:.4f} - accuracy: 0.91"
            f" - val_loss: {loss * 1.1:.4f} - val_accuracy: 0.95 - lr: 0.0010"
        )
    return "\n".join(out) + "\n"


def test_keras_progress_lines(tmp_path, capsys):
    p = tmp_path / "train.log"
    p.write_text(keras_log())
    d = report(p, capsys)
    assert used(d)["format"] == "keras-stdout"
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (1, 12, 12)
    assert d["run"]["total_steps"] == 12
    k3 = tmp_path / "k3.log"  # Keras 3 bars
    k3.write_text(
        "".join(
            f"Epoch {e}/5\n1875/1875 ━━━━━━━━━━━━━━━━━━━━ 3s 1ms/step - accuracy: 0.86 - "
            f"loss: {0.5 / e:.4f} - val_accuracy: 0.95 - val_loss: 0.15\n"
            for e in range(1, 6)
        )
    )
    r, fi = registry.open_reader(str(k3))
    assert fi.format == "keras-stdout"
    assert [(x.step, x.loss) for x in reading.read_records(str(k3), r)][-1] == (5, 0.1)


def test_generic_reader_reads_a_named_step(tmp_path, capsys):
    p = tmp_path / "custom.log"
    p.write_text(
        "starting run\n"
        + "".join(
            f"2026-01-02 10:00:{s % 60:02d} INFO trainer: global_step={s} loss={2.5 - s * 0.01:.3f} "
            f"lr=3e-4 tokens_per_sec=12345.6\n"
            for s in range(1, 81)
        )
        + "  lr=3e-4 batch=32 (config echo)\n"
    )
    d = report(p, capsys)
    assert used(d)["format"] == "text" and used(d)["records"] == 80
    assert (d["steps"]["first"], d["steps"]["last"]) == (1, 80)


def test_formats_while_tailing(tmp_path, tail):
    p = tmp_path / "train.log"
    append(p, LLMC_HEAD + llmc_lines(1, 6), "w")
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == [1, 2, 3, 4, 5])
    append(p, llmc_lines(6, 11))
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 11)))
    assert all(r.grad_norm is not None for r in c.records)
    assert c.t.files[str(p)].reader.run_info.get("total_steps") == 19560
    k = tmp_path / "keras.log"
    append(k, keras_log(3), "w")
    assert c.wait_for(lambda: c.steps.get(str(k)) == [1, 2, 3])


# ----------------------------------------------------------------------------- 4. two writers
def two_writers(path, resume_at=None):
    """Two ranks write the same lines into one file; their buffers flush in blocks, so
    rank 1's copy of a block lands after rank 0's. Optionally one real resume."""
    steps = list(range(1, 201))
    if resume_at:
        steps = list(range(1, 151)) + list(range(resume_at, 301))
    lines = [
        json.dumps(
            {
                "current_steps": s,
                "total_steps": 300,
                "loss": round(2.0 - s * 1e-3 + (0.01 if i >= 150 else 0), 6),
                "learning_rate": 1e-4,
            }
        )
        + "\n"
        for i, s in enumerate(steps)
    ]
    out = []
    for i in range(0, len(lines), 4):  # blocks of 4 lines per flush, rank 0 then rank 1
        out += lines[i : i + 4] * 2
    path.write_text("".join(out))
    return steps


def test_two_writers_report_one_resume(tmp_path, capsys):
    two_writers(tmp_path / "trainer_log.jsonl", resume_at=101)
    d = report(tmp_path, capsys)
    assert d["resumes"] == [{"from": 150, "to": 101}]
    f = used(d)
    assert (
        f["records"] == 2 * 350
        and f["skip_reasons"]["duplicate record (same step, same values: two writers in one file)"] == 350
    )
    assert d["steps"]["count"] == 300 and d["steps"]["records"] == 350


def test_two_writers_no_resume_and_stray_line(tmp_path, capsys):
    p = tmp_path / "trainer_log.jsonl"
    two_writers(p)
    with open(p, "a") as f:  # one stray line of a lagging writer, then on
        f.write(json.dumps({"current_steps": 150, "loss": 9.0}) + "\n")
        f.write(json.dumps({"current_steps": 201, "loss": 1.7}) + "\n")
    d = report(tmp_path, capsys)
    assert d["resumes"] == []
    assert d["steps"]["count"] == 201
    assert used(d)["skip_reasons"]["stray record of a lagging writer (step back, then forward again)"] == 1


def _timed_csv(path, rows) -> None:
    """A custom trainer's metrics.csv (fresh3 csv_custom_pretrain_resumes_loss_jumps' header):
    rows of (step, loss, ISO timestamp)."""
    lines = ["timestamp,step,loss,perplexity,learning_rate"]
    lines += [f"{t},{s},{lo},{2.718**lo:.2f},2.8e-04" for s, lo, t in rows]
    path.write_text("\n".join(lines) + "\n")


def test_a_relaunch_one_interval_back_is_a_resume_by_its_timestamps(tmp_path, capsys):
    """A relaunch that goes back one logging interval (49100 -> 49050) passes the old maximum at
    its second record: by steps alone it looked like a lagging writer's stray line, and its
    restart loss (1.7x) became a spike that 'did not recover' (a false FAIL on a healthy run).
    Its records were written hours later than the newest one: a new launch."""
    day1 = [
        (s, round(5.2 - 0.00001 * s, 4), f"2026-02-14T{10 + s // 10000:02d}:{s // 100 % 60:02d}:00")
        for s in range(40000, 49101, 50)
    ]
    day2 = [
        (
            s,
            round(5.0 + 3.2 * 0.99 ** ((s - 49050) / 50), 4),
            f"2026-02-15T{16 + (s - 49050) // 6000:02d}:{(s - 49050) // 100 % 60:02d}:30",
        )
        for s in range(49050, 55001, 50)
    ]
    _timed_csv(tmp_path / "metrics.csv", day1 + day2)
    d = report(tmp_path, capsys)
    assert d["resumes"] == [{"from": 49100, "to": 49050}]
    assert "stray record of a lagging writer (step back, then forward again)" not in used(d).get("skip_reasons", {})
    spikes = next(c for c in d["checks"] if c["id"] == "loss_spike")
    assert spikes["status"] != "FAIL", spikes


def test_a_lagging_writers_older_line_is_still_stray_with_timestamps(tmp_path, capsys):
    """A record of an earlier step written no later than the newest record delivered is a
    lagging writer's (the timestamp rule only tells later writes apart)."""
    rows = [(s, 2.0, f"2026-02-14T10:{s // 60:02d}:{s % 60:02d}") for s in range(100, 2001, 10)]
    rows.insert(150, (1490, 2.5, "2026-02-14T10:24:50"))  # written at step 1490's time, printed after 1590
    _timed_csv(tmp_path / "metrics.csv", rows)
    d = report(tmp_path, capsys)
    assert d["resumes"] == []
    assert used(d)["skip_reasons"]["stray record of a lagging writer (step back, then forward again)"] == 1


@pytest.mark.slow
def test_two_writers_while_tailing(tmp_path, tail):
    p = tmp_path / "trainer_log.jsonl"
    text_steps = two_writers(tmp_path / "full.jsonl.src", resume_at=101)
    data = (tmp_path / "full.jsonl.src").read_text().splitlines(keepends=True)
    os.remove(tmp_path / "full.jsonl.src")
    append(p, "".join(data[:100]), "w")
    c = tail(tmp_path)
    session = Session()
    alerts = []

    def pump(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for b in c.t.drain():
                alerts.extend(session.feed(b.source, b.records, b.reader))
            time.sleep(0.02)

    pump(1.0)
    for i in range(100, len(data), 37):  # written in pieces as the job runs
        append(p, "".join(data[i : i + 37]))
        pump(0.3)
    pump(0.5)
    alerts += session.finalize()
    assert [a.step for a in alerts if a.check == "resume"] == [101]
    assert session.monitor.loss_steps == 300 and session.monitor.records == len(text_steps)


# ----------------------------------------------------------------------------- 5. rotation
def rotated(tmp_path):
    with gzip.open(tmp_path / "train.log.2.gz", "wt") as f:
        f.write(jsonl(1, 101))
    (tmp_path / "train.log.1").write_text(jsonl(101, 201))
    (tmp_path / "train.log").write_text(jsonl(201, 251))


def test_rotated_segments_are_one_series_report(tmp_path, capsys):
    rotated(tmp_path)
    d = report(tmp_path, capsys)
    assert len(d["files"]) == 1
    f = d["files"][0]
    assert f["path"].endswith("train.log") and f["records"] == 250
    assert [os.path.basename(s) for s in f["segments"]] == ["train.log.2.gz", "train.log.1"]
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (1, 250, 250)
    assert d["resumes"] == []


def test_dated_segments_in_order(tmp_path):
    for name, (a, b) in {"app.log-20261201": (1, 11), "app.log-20261202.gz": (11, 21), "app.log": (21, 31)}.items():
        data = jsonl(a, b).encode()
        (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    groups = log_files.group_sources(log_files.candidate_files(str(tmp_path)))
    assert [[os.path.basename(p) for p in g] for g in groups] == [
        ["app.log-20261201", "app.log-20261202.gz", "app.log"]
    ]
    rank = log_files.group_sources([str(tmp_path / "r.log.0"), str(tmp_path / "r.log.1")])
    assert len(rank) == 2  # x.log.0 / x.log.1 are per-rank files, not rotation


def test_rotation_while_tailing(tmp_path, tail):
    rotated(tmp_path)
    c = tail(tmp_path)
    live = str(tmp_path / "train.log")
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 251)))
    assert list(c.steps) == [live]
    # logrotate runs again: .1 -> .2.gz (compressed), live -> .1, a new live file
    with open(tmp_path / "train.log.1", "rb") as src, gzip.open(tmp_path / "train.log.3.gz", "wb") as dst:
        dst.write(src.read())
    os.rename(tmp_path / "train.log", tmp_path / "train.log.1.tmpname")
    os.rename(tmp_path / "train.log.1.tmpname", tmp_path / "train.log.1")
    append(tmp_path / "train.log", jsonl(251, 261))
    assert c.wait_for(lambda: c.all_steps()[-1:] == [260])
    c.t.wake()
    c.settle(0.6)
    assert c.all_steps() == list(range(1, 261)) and list(c.steps) == [live]


# ----------------------------------------------------------------------------- 6. long lines
def test_jsonl_lines_longer_than_the_head(tmp_path, capsys, tail):
    p = tmp_path / "metrics.jsonl"
    p.write_text(jsonl(1, 11, blob="x" * 100_000))
    d = report(tmp_path, capsys)
    assert used(d)["format"] == "jsonl" and used(d)["records"] == 10
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 11)))
    append(p, jsonl(11, 13, blob="y" * 300_000))
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 13)))


# ----------------------------------------------------------------------------- 7. counting
def test_steps_count_counts_steps_with_a_loss(tmp_path, capsys):
    p = tmp_path / "metrics.csv"  # Lightning: a train row and a val row per step
    rows = ["epoch,step,train_loss_step,val_loss"]
    for s in range(1, 81):
        rows.append(f"0,{s * 10},{2.0 - s * 0.01:.4f},")
        rows.append(f"0,{s * 10},,{2.1 - s * 0.01:.4f}")
    p.write_text("\n".join(rows) + "\n")
    d = report(p, capsys)
    assert d["steps"]["count"] == 80 and d["steps"]["records"] == 160
    assert main([str(p), "--report"]) in (0, 1)
    assert "(160 records, 80 steps with a training loss)" in capsys.readouterr().out


# ----------------------------------------------------------------------------- audit follow-ups
# two writers: a lag of several lines and one real resume (the duplicate memory used to be
# cleared when the resume was confirmed: each later line of the lagging writer jumped forward)
def lagged_writers(path, lag, jitter=False, seed=1):
    import random

    rnd = random.Random(seed)
    steps = [(i, 0) for i in range(1, 301)] + [(i, 1) for i in range(201, 501)]  # resume 300 -> 201
    lines = [
        json.dumps(
            {"current_steps": i, "total_steps": 500, "loss": round(5 - i / 200 + seg * 0.01, 5), "learning_rate": 2e-5}
        )
        + "\n"
        for i, seg in steps
    ]
    out, a, b, n = [], 0, 0, len(lines)
    while a < n or b < n:  # writer A leads, B follows within ``lag`` lines (fixed, or jittered up to it)
        ahead = a - b
        if a < n and (ahead < (rnd.randint(1, lag) if jitter else lag)):
            out.append(lines[a])
            a += 1
        else:
            out.append(lines[b])
            b += 1
    path.write_text("".join(out))


@pytest.mark.parametrize(
    "lag,jitter,seed",
    [
        (1, False, 0),
        (3, False, 0),
        (4, False, 0),
        (10, False, 0),
        (3, True, 1),
        (10, True, 2),
        (30, True, 3),
        (30, True, 4),
    ],
)
def test_two_writers_with_a_lag_report_one_resume(tmp_path, capsys, lag, jitter, seed):
    lagged_writers(tmp_path / "trainer_log.jsonl", lag, jitter, seed)
    d = report(tmp_path, capsys)
    assert d["resumes"] == [{"from": 300, "to": 201}], (lag, d["resumes"][:5])
    assert d["steps"]["count"] == 500 and d["steps"]["records"] == 600
    dup = "duplicate record (same step, same values: two writers in one file)"
    assert used(d)["skip_reasons"] == {dup: 600}


def test_a_deterministic_restart_still_repeats_its_steps(tmp_path, capsys):
    """One writer whose resumed segment repeats the old values exactly: a resume, every
    repeated step delivered (only a lagging writer's copies are duplicates)."""
    steps = list(range(1, 301)) + list(range(201, 401))
    (tmp_path / "m.jsonl").write_text("".join(json.dumps({"step": s, "loss": 5 - s / 200}) + "\n" for s in steps))
    d = report(tmp_path, capsys)
    assert d["resumes"] == [{"from": 300, "to": 201}]
    assert d["steps"]["records"] == 500 and not used(d).get("skip_reasons")


def test_records_after_a_resume_are_not_held_live():
    """A resume's first records waited for 3 in a row below the old maximum, and nothing
    delivered them live: a job that resumed and logged NaN at once was never paged."""
    from tsm_tui.analysis import ordering
    from tsm_tui.core.record import StepRecord
    from tsm_tui.sources.base import SourceReader

    reader = SourceReader("m.jsonl")
    s = Session()
    s.feed("m.jsonl", [StepRecord(i, loss=4 - i / 1000) for i in range(1, 301)], reader)
    alerts = s.feed("m.jsonl", [StepRecord(201, loss=float("nan"))], reader)  # non-finite: at once
    assert {a.check for a in alerts} >= {"resume", "nonfinite"}
    s2 = Session()
    s2.feed("m.jsonl", [StepRecord(i, loss=4 - i / 1000) for i in range(1, 301)], reader)
    assert s2.feed("m.jsonl", [StepRecord(201, loss=3.0)], reader) == []  # held: maybe a stray line
    assert s2.release_held(idle=60) == []  # not idle long enough
    s2.orderers["m.jsonl"].pushed_at -= ordering.HOLD_IDLE + 1
    assert [a.check for a in s2.release_held()] == ["resume"]  # idle: a resume, delivered


@pytest.mark.slow
def test_follow_pages_a_nan_right_after_a_resume(tmp_path):
    from helpers.follow import Follow

    log = tmp_path / "metrics.jsonl"
    log.write_text("".join(json.dumps({"step": i, "loss": 4 - i / 1000}) + "\n" for i in range(1, 301)))
    f = Follow(tmp_path, "--json")
    try:
        assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
        with open(log, "a") as fh:
            fh.write('{"step": 201, "loss": 3.5}\n{"step": 202, "loss": NaN}\n')
        assert f.wait_for(lambda: any('"nonfinite"' in x and '"critical"' in x for x in f.out), timeout=15), f.out[-5:]
    finally:
        f.stop()


# rank files: train.log.0 .. train.log.3 (or .1 .. .4) are not rotation
def nano(a, b, r=0):
    return "".join(f"iter {i}: loss {3 - i / 1000 + r * 0.01:.4f}, time 12.3ms, mfu 40.00%\n" for i in range(a, b))


@pytest.mark.parametrize("first", [0, 1])
def test_per_rank_files_are_not_rotated_segments(tmp_path, capsys, first):
    for r in range(first, first + 4):
        (tmp_path / f"train.log.{r}").write_text(nano(1, 201, r))
    d = report(tmp_path, capsys)
    # numbered siblings whose losses disagree are runs of their own (sources/runs.py);
    # either way, no file is a segment of another and nothing reads as a resume
    runs = d["runs"] if d.get("kind") == "runs" else [d]
    files = [f for r in runs for f in r["files"]]
    assert sorted(os.path.basename(f["path"]) for f in files) == [f"train.log.{r}" for r in range(first, first + 4)]
    assert not any(f.get("segments") for f in files)
    assert all(f["records"] == 200 for f in files)
    for r in runs:
        assert r["resumes"] == []
        assert (r["steps"]["first"], r["steps"]["last"]) == (1, 200)


def test_numbered_plain_segments_in_step_order_are_rotation(tmp_path, capsys):
    (tmp_path / "train.log.2").write_text(nano(1, 101))
    (tmp_path / "train.log.1").write_text(nano(101, 201))
    (tmp_path / "train.log").write_text(nano(201, 251))
    d = report(tmp_path, capsys)
    (f,) = d["files"]
    assert [os.path.basename(s) for s in f["segments"]] == ["train.log.2", "train.log.1"]
    assert f["records"] == 250 and d["resumes"] == []


@pytest.mark.parametrize("kind", ["truncated", "not gzip", "trailing garbage"])
def test_a_bad_gz_segment_costs_that_segment_only(tmp_path, capsys, kind):
    """A truncated .gz ended the report ("internal error: EOFError"); one that is not gzip,
    or has garbage after its data, lost the whole series, the live file included."""
    good = gzip.compress(nano(1, 100).encode())
    data = {
        "truncated": good[: len(good) // 2],
        "not gzip": nano(1, 100).encode(),
        "trailing garbage": good + b"\0junk" * 8,
    }[kind]
    (tmp_path / "train.log.2.gz").write_bytes(data)
    (tmp_path / "train.log.1").write_text(nano(100, 200))
    (tmp_path / "train.log").write_text(nano(200, 300))
    d = report(tmp_path, capsys)
    f = used(d)
    assert d["steps"]["last"] == 299 and f["records"] >= 200
    if kind == "trailing garbage":
        assert f["records"] == 299  # the data before the garbage is read
    (why,) = f["skip_reasons"]
    assert why.startswith("rotated segment train.log.2.gz: ") and f["skip_reasons"][why] == 1


def test_a_bad_gz_segment_while_tailing(tmp_path, tail):
    (tmp_path / "train.log.2.gz").write_bytes(gzip.compress(nano(1, 100).encode())[:40])
    (tmp_path / "train.log.1").write_text(nano(100, 200))
    (tmp_path / "train.log").write_text(nano(200, 300))
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps()[-1:] == [299])
    append(tmp_path / "train.log", nano(300, 310))
    assert c.wait_for(lambda: c.all_steps()[-1:] == [309])
    assert c.t.error is None


# an archived log alone: train.log.gz with no live file (a finished run, gzipped to keep)
@pytest.mark.parametrize("kind", ["whole", "truncated", "not gzip"])
def test_an_archived_gz_log_alone_is_read(tmp_path, capsys, kind):
    """A lone train.log.gz was "binary file (NUL bytes): not a text log" (sniffed on its
    compressed bytes), and a truncated one then ended the report with "internal error:
    EOFError"; now its content is read up to a fault, which is counted and said."""
    good = gzip.compress(nano(1, 3001).encode())
    data = {"whole": good, "truncated": good[: len(good) // 2], "not gzip": b"\x1f\x8b" + b"\0garbage" * 50}[kind]
    (tmp_path / "train.log.gz").write_bytes(data)
    if kind == "not gzip":
        assert main([str(tmp_path), "--report"]) == 2
        assert "(train.log.gz: corrupt gzip data)" in capsys.readouterr().err
        return
    d = report(tmp_path, capsys)
    f = used(d)
    if kind == "whole":
        assert f["records"] == 3000 and d["steps"]["last"] == 3000 and not f.get("skip_reasons")
    else:
        assert 100 < f["records"] < 3000 and d["steps"]["first"] == 1
        (why,) = f["skip_reasons"]
        assert why == "archived log train.log.gz: compressed data cut short: read up to there"


def test_an_archived_gz_log_alone_while_tailing(tmp_path, tail):
    (tmp_path / "train.log.gz").write_bytes(gzip.compress(nano(1, 301).encode()))
    c = tail(tmp_path)
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 301)))
    c.settle(0.5)  # read once: the compressed file is never followed as text
    assert c.all_steps() == list(range(1, 301)) and c.t.error is None


# a preamble longer than the deep search
@pytest.mark.slow
def test_a_preamble_past_the_deep_search_still_finds_the_metrics(tmp_path, capsys):
    p = tmp_path / "train.log"
    p.write_text(shell_trace(9 << 20) + megatron_lines(1, 301, 300))
    d = report(tmp_path, capsys)
    assert used(d)["format"] == "megatron" and used(d)["records"] == 300
    q = tmp_path / "notes" / "notes.txt"
    q.parent.mkdir()
    q.write_text(shell_trace(9 << 20))
    assert main([str(q), "--report"]) == 2
    err = capsys.readouterr().err
    assert "no training metrics recognised in the first" in err and "MiB" in err and "stops there" in err, err


@pytest.mark.slow
def test_a_preamble_past_the_deep_search_while_tailing(tmp_path, tail):
    p = tmp_path / "train.log"
    append(p, shell_trace(9 << 20), "w")
    c = tail(tmp_path)
    c.settle(0.6)
    assert c.records == []
    append(p, megatron_lines(1, 31, 300))
    assert c.wait_for(lambda: c.all_steps() == list(range(1, 31)), timeout=20)


# ----------------------------------------------------------------------------- issue 26: corpus classes
# A log saved under a name no log has: MrCogito/Deep_learning_2023 @ 7af1c07
# outputs/dynamoFix/Markdown/dynamoFix_0.md (MIT; bench/corpus/console/lsf_painn_huge_flat_loss_killed):
# an LSF job's stdout inside a Markdown report. Exit 2 "no log files found" before.
LSF_MD_HEAD = (
    "# Parameters\n\n| PARAMETER | TYPE | VALUE |\n|---|---|---|\n| <c>epochs</c> | <d>int</d> | <f>1000</f> |\n\n"
    "# Output\n\n```\nwandb: Tracking run with wandb version 0.16.0\n"
)


def lsf_epoch_lines(n: int) -> str:
    return "".join(
        f"Epoch [{e}/1000], Train Loss: {3.19e31 * (1 + 0.001 * (e % 3)):.4f}, Train L1 Loss: 189592338475984.6562\n"
        f"Epoch [{e}/1000], Validation Loss: {2.74e31:.4f}, Validation L1: 310916858317743.3125, "
        f"Smoothed Validation Loss: {2.74e31:.4f}\n"
        for e in range(1, n + 1)
    )


@pytest.mark.parametrize("name", ["dynamoFix_0.md", "painn.o4821337", "stdout_job"])
def test_a_folder_with_no_log_named_file_reads_its_other_text_files(tmp_path, capsys, name):
    (tmp_path / name).write_text(
        LSF_MD_HEAD + lsf_epoch_lines(60) + "```\n\n# LSF summary\nTERM_OWNER: job killed by owner.\n"
    )
    d = report(tmp_path, capsys)
    assert used(d)["path"].endswith(name) and used(d)["format"] == "text"
    assert (d["steps"]["first"], d["steps"]["last"]) == (1, 60)


def test_the_fallback_names_are_read_only_when_no_log_is_named(tmp_path, capsys):
    (tmp_path / "train.log").write_text("".join(f"step {s} loss {4 - s * 0.01:.3f}\n" for s in range(1, 41)))
    (tmp_path / "NOTES.md").write_text(LSF_MD_HEAD + lsf_epoch_lines(60))
    assert log_files.candidate_files(str(tmp_path)) == [str(tmp_path / "train.log")]
    # notes and a licence alone: still nothing to read (a .md with fewer than five records is prose)
    other = tmp_path / "other"
    other.mkdir()
    (other / "LICENSE").write_text("MIT License\n")
    (other / "README.md").write_text("# Run notes\nstep 100 loss 4.1 looked fine\n")
    assert log_files.candidate_files(str(other)) == [str(other / "README.md")]
    rc = main([str(other), "--report"])
    assert rc == 2 and "too few records for a log" in capsys.readouterr().err


# PaddleNLP's logger in a PaddlePaddle launcher's workerlog.0: cattidea/VinVL-Paddle @ 4e2d441
# log/workerlog.0 (Apache-2.0; bench/corpus/console/paddle_vinvl_retrieval_workerlog): an epoch and a
# counter in brackets, no total, the counter starting again at 100 in every epoch. "no training
# metrics recognised" (exit 2) before.
def paddle_lines(epochs: int, per: int = 4400, every: int = 100, first: int = 100) -> str:
    out = ["02/13/2022 23:10:01 - INFO - Num Iters: 4425\n"]
    for e in range(1, epochs + 1):
        out.append(f"02/13/2022 23:10:01 - INFO - =====> Start epoch {e}:\n")
        for k in range(first, per + 1 if first else per, every):
            out.append(
                f"02/13/2022 23:11:11 - INFO - Epoch: [{e}], step: [{k}], lr: 0.000020, "
                f"batch_loss: {0.05 / (e + k / per):.4f}, avg_loss: {0.08 / (e + k / per):.4f}\n"
            )
        out.append(f"02/14/2022 00:48:23 - INFO - ** ** Epoch [{e}] done! Training loss: 0.01823 ** **\n")
    return "".join(out)


def test_an_epoch_and_a_bracketed_counter_with_no_total(tmp_path, capsys):
    (tmp_path / "workerlog.0").write_text(paddle_lines(3))
    d = report(tmp_path, capsys)
    assert used(d)["format"] == "text" and used(d)["records"] == 132
    # the labels' global step: (E - 1) * 4400 + k, the epoch's length from the first epoch's last counter
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (100, 13200, 132)


def test_an_epoch_counter_from_zero_adds_the_logging_interval(tmp_path, capsys):
    p = tmp_path / "train.log"
    p.write_text(
        "".join(
            f"Epoch {e} Step {k} loss {3 - 0.01 * (e * 10 + k / 10):.3f}\n"
            for e in range(1, 4)
            for k in range(0, 100, 10)
        )
    )
    d = report(p, capsys)
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (0, 290, 30)


def test_an_epoch_with_a_global_counter_keeps_the_counter(tmp_path, capsys):
    p = tmp_path / "train.log"
    p.write_text(
        "".join(f"Epoch: [{1 + s // 500}], step: [{s}], loss: {3 - s * 0.001:.3f}\n" for s in range(100, 1600, 100))
    )
    d = report(p, capsys)
    assert (d["steps"]["first"], d["steps"]["last"], d["steps"]["count"]) == (100, 1500, 15)
