"""Advice and verdict text checked against the run (issue 26, the held-out fresh2 / fresh3
logs' report text): what a report asks of a run must fit what the run already does and the
unit its steps are in."""

from __future__ import annotations

import copy
import json
import math

from conftest import curve, run

from tsm_tui.analysis.monitor import Monitor
from tsm_tui.cli import main
from tsm_tui.core.frame import frame_from_records
from tsm_tui.core.record import StepRecord
from tsm_tui.core.settings import RunInfo, Settings


def _report(path, capsys) -> dict:
    rc = main([str(path), "--report", "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def _ckpt_action(alerts) -> str:
    (a,) = [a for a in alerts if a.check == "checkpoints"]
    return a.actions[0]


def _both(recs, info):
    """The checkpoint advice fed row by row and as one frame: the same sentence."""
    _, alerts = run(recs, info=copy.deepcopy(info))
    rows = _ckpt_action(alerts)
    mon = Monitor(Settings(), copy.deepcopy(info))
    fr = frame_from_records(recs)
    assert fr is not None
    got = mon.feed_frame(fr) + mon.finalize()
    assert _ckpt_action(got) == rows
    return rows


# ----------------------------------------------------------------------------- 1. checkpoints
ULTRALYTICS_HEAD = (
    "epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/recall(B),"
    "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2"
)


def test_an_epoch_log_is_asked_for_saves_in_epochs(tmp_path, capsys):
    """fresh3 YOLO26 / GAN / W&B epoch runs: "Save a checkpoint every 10 steps or more often,
    not per epoch" to a results.csv of one row per epoch. A step of such a log is an epoch:
    the advice is in epochs (5% of them, at least one)."""
    d = tmp_path / "runs" / "detect" / "train"
    d.mkdir(parents=True)
    rows = [ULTRALYTICS_HEAD]
    for e in range(1, 61):
        box, cls, dfl = 1.2 * e**-0.2, 2.5 * e**-0.35, 1.1 * e**-0.1
        rows.append(
            f"{e},{e * 41.5:.3f},{box:.5f},{cls:.5f},{dfl:.5f},0.5,0.4,0.45,0.3,{box:.5f},{cls:.5f},{dfl:.5f},"
            f"{0.01 * min(1, e / 3):.6g},{0.01 * min(1, e / 3):.6g},{0.01 * min(1, e / 3):.6g}"
        )
    (d / "results.csv").write_text("\n".join(rows) + "\n")
    rep = _report(tmp_path, capsys)
    acts = " ".join(rep["actions"])
    assert "Save a checkpoint every 3 epochs or more often (a step of this log is an epoch)" in acts, acts
    assert "not per epoch" not in acts and "every 10 steps" not in acts


def test_a_history_dict_with_an_epoch_column_is_per_epoch(tmp_path, capsys):
    """fresh3 gan_history_json_dict_of_lists: {"G_loss": [...], "D_loss": [...],
    "epoch_seconds": [...]}, one value per epoch."""
    n = 100
    doc = {
        "G_loss": [40 - 9 * (1 - math.exp(-i / 30)) for i in range(n)],
        "D_loss": [0.6 + 0.01 * math.sin(i) for i in range(n)],
        "epoch_seconds": [61.0 + (i % 3) for i in range(n)],
    }
    p = tmp_path / "gan" / "training_history.json"
    p.parent.mkdir()
    p.write_text(json.dumps(doc))
    acts = " ".join(_report(p.parent, capsys)["actions"])
    assert "Save a checkpoint every 5 epochs or more often" in acts, acts
    # a plain list of per-step losses with no epoch column stays a step log
    q = tmp_path / "steps" / "history.json"
    q.parent.mkdir()
    q.write_text(json.dumps({"loss": doc["G_loss"] * 3, "grad_norm": [0.5] * (3 * n)}))
    acts = " ".join(_report(q.parent, capsys)["actions"])
    assert "epoch" not in acts and "Save a checkpoint every" in acts, acts


def test_epoch_unit_rows_and_frames_agree():
    """A W&B run logging once per epoch on _step (step = epoch - 1) is an epoch log; an HF
    log whose epoch moves 0.01 per step is not."""
    recs = [StepRecord(step=i, loss=3.0 * math.exp(-i / 40) + 0.5, epoch=float(i + 1)) for i in range(200)]
    info = RunInfo(checkpoint_dir_searched=True)
    assert _both(recs, info).startswith("Save a checkpoint every 10 epochs or more often")
    recs = [StepRecord(step=i, loss=3.0 * math.exp(-i / 400) + 0.5, epoch=i / 100) for i in range(1, 2001)]
    assert _both(recs, RunInfo(checkpoint_dir_searched=True)).startswith("Save a checkpoint every 100 steps")
    # real_logs2 hf_qlora_zero_loss: a tiny data set, 1.1 optimizer steps per epoch, logged every 10
    # steps (epochs 9, 18, 26.67 ...): its steps are steps, not epochs
    recs = [StepRecord(step=s, loss=0.03, lr=2e-4, epoch=round(s * 0.889, 2)) for s in range(10, 1001, 10)]
    assert _both(recs, RunInfo(checkpoint_dir_searched=True)).startswith("Save a checkpoint every 50 steps")


def test_a_run_that_already_saves_often_is_not_asked_to_save_every_n_steps():
    """fresh3 wandb_offline_hf_gpt2_overfit: save_steps=500, no checkpoint on disk, was told
    "Save a checkpoint every 607 steps or more often". It already saves every 500: say where
    its checkpoints went, not a new interval."""
    info = RunInfo(save_steps=500, checkpoint_dir_searched=True)
    act = _both(curve(n=12_140), info)
    assert act.startswith("The config already saves every 500 steps"), act
    assert "none is in the run directory" in act and "every 607" not in act
    # an interval too long for the plan is still asked to be shorter, the config's named
    info = RunInfo(save_steps=5000, total_steps=10_000, checkpoint_dir_searched=True)
    act = _both(curve(n=6000), info)
    assert act.startswith("Save a checkpoint every 500 steps or more often (the config saves every 5000)"), act
    # checkpoints on disk, the newest far behind: the config's interval is fine, the saves stopped
    info = RunInfo(
        save_steps=100, total_steps=10_000, checkpoints=[(100, "checkpoint-100")], checkpoint_dir_searched=True
    )
    act = _both(curve(n=9000), info)
    assert act.startswith("The config already saves every 100 steps: keep the newest"), act


# ----------------------------------------------------------------------------- 2. warm-up seen late
def _lr_summary(recs, info=None) -> str:
    mon, _ = run(recs, info=info)
    rows = next(c for c in mon.checks() if c.id == "lr_schedule").summary
    mon = Monitor(Settings(), info or RunInfo())
    mon.feed_frame(frame_from_records(recs))
    mon.finalize()
    assert next(c for c in mon.checks() if c.id == "lr_schedule").summary == rows
    return rows


def test_a_rising_lr_at_a_late_start_is_a_visible_warm_up():
    """fresh3 jsonl_nmt / csv_custom_ema / wandb_offline_hf: logs from step 50 / 100 / 500 whose
    LR rises from 5% / 4% / 25% of its peak read "warm-up not visible". The rise is the warm-up,
    begun before the first logged step; the config's warmup_steps is said beside it."""

    def rows(first, warm, every=50, n=4000, peak=1e-4):
        return [
            StepRecord(
                s,
                loss=7.0 - 2.5 * (1 - math.exp(-s / 3000)),
                lr=peak * min(1.0, s / warm) * (1 - 0.5 * s / (n * every)),
            )
            for s in range(first, first + n * every, every)
        ]

    got = _lr_summary(rows(50, 1000))
    assert got.startswith("warm-up to step 1000, rising from 5% of its peak at step 50, the first logged"), got
    assert "not visible" not in got
    got = _lr_summary(rows(500, 2000, every=250, n=50), RunInfo(warmup_steps=2000))
    assert "rising from 27% of its peak at step 500" in got and "config warmup_steps=2000" in got, got
    # an LR at its peak from the first record: nothing visible; the config's warm-up ended before the log
    flat = [StepRecord(s, loss=3.0, lr=1e-3 * (1 - s / 1e6)) for s in range(100, 40_100, 100)]
    assert _lr_summary(flat).startswith("log starts at step 100: warm-up not visible")
    assert _lr_summary(flat, RunInfo(warmup_steps=50)).startswith(
        "log starts at step 100, after the config's 50-step warm-up"
    )


# ----------------------------------------------------------------------------- 5. plateau advice
def _plateau_actions(recs, info=None) -> list[str]:
    mon, alerts = run(recs, info=info)
    got = [a for a in alerts if a.check == "plateau" and a.key in ("plateau", "plateau_fail")]
    assert got, [(a.key, a.message) for a in alerts if a.check == "plateau"]
    mon = Monitor(Settings(), info or RunInfo())
    frame = mon.feed_frame(frame_from_records(recs)) + mon.finalize()
    assert [a.actions for a in frame if a.check == "plateau" and a.key in ("plateau", "plateau_fail")] == [
        a.actions for a in got
    ]
    return got[0].actions


def test_a_plateau_is_not_given_the_spike_remedy():
    """fresh3 wandb014 (stuck at ln 2 from step 305) and Whisper (at its floor from 3150) were told
    "Restart from the last checkpoint before step N ... and skip ~200-500 batches past it (PaLM)":
    skipping batches does nothing for a run that does not learn or has memorised."""
    rng = __import__("random").Random(3)
    stuck = [
        StepRecord(s, loss=(0.75 - 0.05 * s / 300 if s < 300 else 0.6931) * (1 + rng.gauss(0, 0.01)), lr=1e-4)
        for s in range(0, 3000)
    ]
    acts = _plateau_actions(stuck)
    assert acts[0].startswith("To retry, resume from the last checkpoint before step"), acts
    assert "with the LR or the data changed" in acts[0] and not any("skip ~200-500" in a for a in acts)
    info = RunInfo(checkpoints=[(200, "checkpoint-200"), (2000, "checkpoint-2000")], checkpoint_dir_searched=True)
    acts = _plateau_actions(stuck, info)
    assert acts[0].startswith("To retry, resume from checkpoint-200 (step 200, the last checkpoint before the plateau")
    # flat at the floor of a memorised training set: stop and keep the best, nothing to retry
    mem = [
        StepRecord(s, loss=(0.15 * math.exp(-s / 150) + 2e-4) * (1 + rng.gauss(0, 0.05)), lr=1e-5)
        for s in range(0, 5000, 5)
    ]
    acts = _plateau_actions(mem)
    assert acts[0].startswith("The loss is at its floor: more steps on the same data teach nothing"), acts
    assert not any("resume from" in a or "skip" in a for a in acts)


# ----------------------------------------------------------------------------- 4. grad norm not logged
def _grad_check(recs, info=None):
    mon, _ = run(recs, info=copy.deepcopy(info) if info else None)
    rows = next(c for c in mon.checks() if c.id == "grad_norm")
    mon = Monitor(Settings(), copy.deepcopy(info) if info else RunInfo())
    mon.feed_frame(frame_from_records(recs))
    mon.finalize()
    frames = next(c for c in mon.checks() if c.id == "grad_norm")
    assert (frames.status, frames.summary) == (rows.status, rows.summary)
    return rows.status.value, rows.summary


def test_grad_norm_not_logged_warns_only_where_the_loop_could_log_it():
    """fresh3: "grad norm not logged: flying blind (log it every step)" WARNed on 18 of 20
    tracker logs, Ultralytics / Keras epoch histories and an OpenAI fine-tune among them. A
    per-step training log without it still WARNs (an LLM run without a grad norm is blind to the
    first sign of a spike); a log of one record per epoch, or a hosted fine-tune, says it (SKIP,
    listed under "Could not judge") without the warning."""
    steps = [StepRecord(s, loss=3.0 * math.exp(-s / 500) + 1.0, lr=3e-4) for s in range(1, 2001)]
    assert _grad_check(steps) == ("WARN", "grad norm not logged: flying blind (log it every step)")
    epochs = [StepRecord(e, loss=3.0 * math.exp(-e / 30) + 1.0, epoch=float(e)) for e in range(1, 101)]
    st, why = _grad_check(epochs)
    assert st == "SKIP" and why.startswith("grad norm not logged: one record per epoch"), why
    hosted = RunInfo(hosted_model="curie:ft-acme-2022-12-20-06-21-16")
    st, why = _grad_check(steps[:549], hosted)
    assert st == "SKIP" and "a hosted fine-tune (curie:ft-acme-2022-12-20-06-21-16)" in why, why


def test_the_fine_tuned_model_key_marks_a_hosted_fine_tune():
    """`openai wandb sync` writes the job's fine_tuned_model and hyperparams into the W&B config."""
    from tsm_tui.sources.config import apply_mapping

    info = RunInfo()
    apply_mapping(
        info,
        {"fine_tuned_model": "curie:ft-x-2022", "hyperparams": {"batch_size": 2, "n_epochs": 4}},
        "wandb config",
    )
    assert info.hosted_model == "curie:ft-x-2022" and info.batch_size == 2


def test_clip_advice_says_when_clipping_is_unknown():
    """fresh3: "Clip the gradient norm at 1.0 (GPT-3, LLaMA, OLMo 2 ...)" to a SchNet regression
    with no clip setting read either way: say that it is not known, never that it does not clip."""
    from tsm_tui.analysis import advice
    from tsm_tui.analysis.state import RunState

    got = advice.clip(RunState(RunInfo()))
    assert got.startswith("Whether the run clips its gradient norm is not known (no clip setting read)"), got
    assert advice.clip(RunState(RunInfo(clip=0.0))).startswith("Clip the gradient norm at 1.0: the run does not clip")


# ----------------------------------------------------------------------------- 3. times that are not training time
def _speed_check(recs, info=None):
    mon, alerts = run(recs, info=copy.deepcopy(info) if info else None)
    rows = next(c for c in mon.checks() if c.id == "throughput")
    mon2 = Monitor(Settings(), copy.deepcopy(info) if info else RunInfo())
    fa = mon2.feed_frame(frame_from_records(recs)) + mon2.finalize()
    frames = next(c for c in mon2.checks() if c.id == "throughput")
    assert (frames.status, frames.summary) == (rows.status, rows.summary)
    key = [a.message for a in alerts if a.check == "throughput"]
    assert [a.message for a in fa if a.check == "throughput"] == key
    return rows.status.value, rows.summary, key


def test_a_logged_time_that_falls_is_a_duration_not_a_clock(tmp_path, capsys):
    """fresh2 custom_lm (`ep: 0, batch: 20, time: 9.17, ...`: 392.9 steps/s "from record
    timestamps") and mmpretrain (mmengine's `time: 0.1868`, seconds per iteration: 3.43e5 steps/s):
    a clock never runs back while the steps rise; a duration does, every other record."""
    d = tmp_path / "lm"
    d.mkdir()
    rng = __import__("random").Random(5)
    lines = [
        f"ep: 0, batch: {b}, time: {8.3 + rng.random():.2f}, ntokens: {420 + rng.random() * 80:.2f}/513, "
        f"loss: {10.98 - b * 0.002:.6f}"
        for b in range(20, 281, 20)
    ]
    (d / "train.log").write_text("\n".join(lines) + "\n")
    c = next(c for c in _report(d, capsys)["checks"] if c["id"] == "throughput")
    assert c["status"] == "SKIP" and c["summary"].startswith("the logged time is no clock: it fell"), c
    # mmengine's lines, rows and frames alike
    recs = [
        StepRecord(100 + 137 * e, loss=3.5 - 0.01 * e, lr=1e-4, time=0.187 + 0.002 * rng.random(), epoch=float(e + 1))
        for e in range(140)
    ]
    st, why, alerts = _speed_check(recs)
    assert st == "SKIP" and "no clock" in why and not alerts, why
    # an elapsed-seconds clock (Ultralytics' cumulative `time`) is one: judged as before
    recs = [StepRecord(e, loss=3.0 - 0.01 * e, time=471.0 * e + rng.random()) for e in range(1, 101)]
    assert _speed_check(recs)[0] == "PASS"


def test_timestamps_faster_than_training_are_not_its_speed():
    """fresh3 wandb_openai_finetune_sync: 'median 1626 steps/s (record timestamps)': `openai wandb
    sync` wrote the finished job's 549 rows in 0.33 s. A hosted fine-tune's timestamps are the
    sync's; any record timestamps giving > 1000 steps/s are not training time either."""
    t0 = 1671517295.7
    recs = [StepRecord(s, loss=2.0 - s / 1000, time=t0 + s * 0.0006) for s in range(1, 550)]
    st, why, _ = _speed_check(recs)
    assert st == "SKIP" and why.startswith("the record timestamps give 166"), why
    slow = [StepRecord(s, loss=2.0 - s / 1000, time=t0 + s * 0.3) for s in range(1, 550)]
    assert _speed_check(slow)[0] == "PASS"
    st, why, _ = _speed_check(slow, RunInfo(hosted_model="curie:ft-x"))
    assert st == "SKIP" and "synced, not training time (a hosted fine-tune: curie:ft-x)" in why, why


def _clock_lines(n: int, every: float = 0.4) -> list[str]:
    """kd_retinanet's Python-logging lines: a date, a time with milliseconds, key=value pairs."""
    import datetime as dt

    t0 = dt.datetime(2026, 3, 24, 23, 58, 0)
    out = []
    for i in range(n):
        t = t0 + dt.timedelta(seconds=i * every)
        out.append(
            f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d} | INFO | epoch=0 step={i} lr=0.001 "
            f"total={2.19 - i * 1e-4:.6f} det={1.93 - i * 1e-4:.6f} kd=0.518404"
        )
    return out


def test_a_lines_leading_clock_is_its_records_time(tmp_path, capsys):
    """fresh2 kd_retinanet (`2026-03-24 11:15:52,482 | INFO | epoch=0 step=0 ...`) and avpse
    (`08:35:31  step=100  loss=0.2927 ...`) read "no step time, throughput or record timestamps
    logged". A line's leading date and time (or time of day, across midnight) is its records' time;
    the template fast path and the line-by-line path read the same times."""
    from tsm_tui.sources.generic_text import KeyValueTextReader

    lines = _clock_lines(400)
    d = tmp_path / "kd"
    d.mkdir()
    (d / "train.log").write_text("\n".join(lines) + "\n")
    c = next(c for c in _report(d, capsys)["checks"] if c["id"] == "throughput")
    assert c["status"] == "PASS" and c["summary"].startswith("median 2.5 steps/s (log line timestamps)"), c
    # (kd's lines are read line by line; a plain "step= loss=" one by the template fast path: the same times)
    lines = [ln.replace("epoch=0 ", "").replace("total=", "loss=") for ln in lines]
    by_line = [r.clock for ln in lines for r in KeyValueTextReader(str(d / "train.log")).feed(ln)]
    assert len(by_line) == 400 and abs(by_line[1] - by_line[0] - 0.4) < 1e-6
    items = KeyValueTextReader(str(d / "train.log")).feed_chunk(("\n".join(lines) + "\n").encode())
    assert any(hasattr(x, "cols") for x in items)  # the template fast path ran
    got = [t for x in items for t in (list(x.cols["clock"]) if hasattr(x, "cols") else [x.clock])]
    assert len(got) == 400 and all(abs(a - b) < 1e-6 for a, b in zip(got, by_line))
    # a bare time of day across midnight: the speed stays right
    rd = KeyValueTextReader("x.log")
    times = [
        r.clock
        for i, h in enumerate(("23:59:00", "23:59:40", "00:00:20", "00:01:00"))
        for r in rd.feed(f"{h}  step={100 * (i + 1)}  loss=0.29  lr=1.00e-03  elapsed={71 + 40 * i}s")
    ]
    assert [b - a for a, b in zip(times, times[1:])] == [40.0, 40.0, 40.0], times


def test_time_of_day_clocks_across_midnight_agree_in_the_fast_path():
    """avpse's `08:35:31  step=100  loss=0.2927  lr=1.00e-03 ...` lines, 300 of them crossing
    midnight: the template path's numpy clock column equals the line-by-line reading. (avpse's own
    `elapsed=71s` keeps its lines off the template path: without it they take it.)"""
    from tsm_tui.sources.generic_text import KeyValueTextReader

    lines = []
    for i in range(300):
        t = (23 * 3600 + 50 * 60 + 66 * i) % 86400
        lines.append(
            f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}  step={100 * (i + 1)}  loss={0.29 - i * 1e-4:.4f}  "
            "lr=1.00e-03"
        )
    rd = KeyValueTextReader("x.log")
    by_line = [r.clock for ln in lines for r in rd.feed(ln)]
    items = KeyValueTextReader("x.log").feed_chunk(("\n".join(lines) + "\n").encode())
    assert any(hasattr(x, "cols") for x in items)
    got = [t for x in items for t in (list(x.cols["clock"]) if hasattr(x, "cols") else [x.clock])]
    assert got == by_line and len(got) == 300
    assert all(b - a == 66 for a, b in zip(got, got[1:]))  # (no jump back at midnight)


def test_a_logged_step_time_comes_before_the_lines_clock(capsys):
    """sample_runs/fp16_loss_scale: DeepSpeed's clocked OVERFLOW lines come before Megatron's first
    iteration line, which logs `elapsed time per iteration (ms)`: the logged step time is the speed,
    not the lines' clock (a line's clock decides only on a training record)."""
    import pathlib

    run_dir = pathlib.Path(__file__).resolve().parents[2] / "sample_runs" / "fp16_loss_scale"
    c = next(c for c in _report(run_dir, capsys)["checks"] if c["id"] == "throughput")
    assert c["summary"].startswith("median step time 0.4687 s (elapsed time per iteration (ms))"), c
    # rows and frames: clocked records without a loss leave the speed's source open
    recs = [StepRecord(s, overflow=True, loss_scale=2.0**20, clock=1e9 + s) for s in range(5)]
    recs += [StepRecord(s, loss=5.0, clock=1e9 + 2 * s, extra={"step_time": 0.5}) for s in range(5, 200)]
    mon, _ = run(recs)
    assert next(c for c in mon.checks() if c.id == "throughput").summary.startswith("median step time 0.5 s")
