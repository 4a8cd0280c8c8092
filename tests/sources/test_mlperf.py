"""MLPerf Training result logs (``:::MLLOG {json}``, sources/mlperf.py): fresh75's eight llama2-70b LoRA
results of four submission rounds read "nothing readable" (exit 2)."""

from __future__ import annotations

import json

from helpers.reports import report_json
from test_formats import read, write  # noqa: E402


def _mllog(key, value, task: str | None = None, **meta) -> str:
    rec = {"namespace": "", "time_ms": 1715167139662, "event_type": "POINT_IN_TIME", "key": key, "value": value}
    rec["metadata"] = {"file": "mlperf_logging_utils.py", "lineno": 102, **meta}
    line = ":::MLLOG " + json.dumps(rec)
    return line if task is None else f"{task}: {line}"


def _result(n: int = 40, spike: int | None = None, task: str | None = None) -> str:
    lines = ["+ echo 'Beginning trial 2 of 10'", ":::DLPAL /home/x/llama2-lora.sqsh 513 9 node[002-004]"]
    lines.append(_mllog("cache_clear", True))  # (the job script's, no task label)
    for key, v in (("global_batch_size", 8), ("opt_base_learning_rate", 3e-4), ("opt_gradient_clip_norm", 0.3)):
        lines.append(_mllog(key, v, task))
    lines += [_mllog("opt_learning_rate_training_steps", 1024, task), _mllog("run_start", None, task)]
    for k in range(1, n + 1):
        loss = 1.3 + 2.0 / k + (2.0 if k == spike else 0.0)
        lines.append(_mllog("train_loss", loss, task, samples_count=80 * k, lr=3e-4 * (1 - k / 2000)))
        if task is not None:
            lines.append(_mllog("train_loss", loss + 0.01, "1", samples_count=80 * k))  # another rank's copy
        if k % 8 == 0:
            lines.append(_mllog("eval_accuracy", 0.95 - k / 1000, task, samples_count=80 * k))
    lines.append(_mllog("run_stop", 0.92, task, samples_count=80 * n, status="success"))
    return "\n".join(lines) + "\n"


def test_mllog_records_on_the_samples_axis(tmp_path, capsys):
    fmt, recs, reader = read(write(tmp_path, "result_2.txt", _result(spike=25)))
    assert fmt == "mlperf"
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == [80 * k for k in range(1, 41)]
    assert train[0].lr == 3e-4 * (1 - 1 / 2000)
    assert all(r.loss is not None and r.val_loss is None for r in recs)  # (eval_accuracy: a quality metric, no loss)
    # the run's facts in the axis's unit: 1024 steps x 8 samples
    assert reader.run_info["total_steps"] == 8192 and reader.run_info["batch_size"] == 8
    assert reader.run_info["peak_lr"] == 3e-4 and reader.run_info["clip"] == 0.3
    assert "metadata.samples_count" in reader.describe()["step_source"]
    d = report_json(str(tmp_path / "result_2.txt"), capsys)
    spike = next(c for c in d["checks"] if c["id"] == "loss_spike")
    assert "2000" in spike["summary"], spike  # (record 25: 2,000 samples)


def test_a_slurm_output_reads_one_task(tmp_path):
    """A Slurm job's output (``srun -l``: `` 0: :::MLLOG``), the job script's lines and its own unlabelled MLLOG
    lines first (Dell's result_9.txt: all 97 records had been skipped as another task's); task 1's copies
    are counted skips."""
    text = (
        _result(task=" 0")
        + " 0: slurmstepd: error: *** STEP 513.21 ON node002 CANCELLED AT 2025-04-21 DUE TO TIME LIMIT ***\n"
    )
    fmt, recs, reader = read(write(tmp_path, "result_9.txt", text))
    assert fmt == "mlperf"
    assert [r.step for r in recs if r.loss is not None] == [80 * k for k in range(1, 41)]
    assert reader.skip_reasons == {"another task's line (srun -l label)": 40}


def test_bad_mllog_lines_are_counted_never_fatal(tmp_path):
    good = [_mllog("train_loss", 2.0 - k / 100, samples_count=10 * k) for k in range(1, 21)]
    bad = [
        ":::MLLOG {not json",
        ":::MLLOG " + "[" * 100000,  # (nested past any parser's depth)
        ":::MLLOG " + json.dumps({"key": "train_loss", "value": 1.0, "metadata": {"samples_count": "x"}}),
        ":::MLLOG " + json.dumps({"key": "train_loss", "value": "NaN", "metadata": {"samples_count": 220}}),
        ":::MLLOG " + json.dumps({"key": "train_loss", "value": 1e400, "metadata": {"samples_count": 230}}),
    ]
    fmt, recs, reader = read(write(tmp_path, "result_0.txt", "\n".join(good + bad) + "\n"))
    assert fmt == "mlperf"
    assert len([r for r in recs if r.loss is not None and abs(r.loss) < 10]) == 20
    assert reader.skip_reasons["invalid MLLOG record"] == 2
    assert reader.skip_reasons["MLLOG record with no step"] == 1
    nan = [r for r in recs if r.step == 220]
    assert len(nan) == 1 and nan[0].loss != nan[0].loss  # (a NaN loss is a record: the NaN/Inf check's)
    assert [r.loss for r in recs if r.step == 230] == [float("inf")]  # (json.dumps writes 1e400 as Infinity)
