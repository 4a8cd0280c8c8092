"""Steps of HF / TRL stdout dicts, which name none (issue 26). Under ``nohup`` stdout is
block-buffered and tqdm's stderr is not: the dicts reach the file in bursts long after
their bars. The fixtures are real: transformers 4.57 ``Trainer`` runs captured as
``nohup python train.py > train.log 2>&1`` does (tests/data/frameworks/make_framework_runs.py),
with the run's own log history (``*_truth.json``) as the answer."""

from __future__ import annotations

import json
import os
import re

import pytest

from tsm_tui.analysis.replay import analyze
from tsm_tui.sources import reading, registry
from tsm_tui.sources.hf_stdout import HFStdoutReader
from helpers import paths
from helpers.reports import report_json
from test_formats import write  # noqa: E402

FW = os.path.join(paths.DATA, "frameworks")


def _read(path):
    reader, fi = registry.open_reader(path)
    assert fi.format == "hf-stdout"
    return list(reading.read_records(path, reader)), reader


def _truth(name):
    with open(os.path.join(FW, f"{name}_truth.json")) as f:
        return [(t["step"], t.get("loss", t.get("eval_loss"))) for t in json.load(f) if "loss" in t or "eval_loss" in t]


def _got(recs):
    return [(r.step, r.loss if r.loss is not None else r.val_loss) for r in recs]


def test_a_buffered_log_gets_the_steps_the_run_logged():
    """700 steps logged every 10 (and at step 1): all 74 dicts reach the file after the
    last bar, at the exit. Before: steps 200-9220 (the bar's 700 for the first dict, then
    the interval guessed from the eval bar)."""
    path = os.path.join(FW, "hf_nohup", "train.log")
    recs, reader = _read(path)
    assert _got(recs) == _truth("hf_nohup")
    assert "block-buffered" in reader.step_source
    top = max(recs, key=lambda r: r.grad_norm or 0.0)
    assert top.step == 300  # the batch of random bytes: its grad norm, 13x the median, at its own step


def test_logging_steps_printed_in_the_log_are_used(tmp_path):
    """The TrainingArguments repr many scripts print: the dicts' order x logging_steps."""
    src = open(os.path.join(FW, "hf_nohup", "train.log")).read()
    args = "TrainingArguments(\n_n_gpu=0,\nlogging_first_step=True,\nlogging_steps=10,\nmax_steps=700,\n)\n"
    (tmp_path / "train.log").write_text(args + src)
    recs, reader = _read(str(tmp_path / "train.log"))
    assert _got(recs) == _truth("hf_nohup")
    assert "logging_steps printed" in reader.step_source


@pytest.mark.skipif(not os.path.exists(os.path.join(FW, "hf_nohup_every_step_truth.json")), reason="fixture")
def test_bursts_during_the_run_and_a_spike_at_its_step():
    """300 steps logged every step: ~40 KiB of dicts in 8 KiB bursts during the run; the
    batch of random bytes at step 150 is a loss spike at step 150."""
    path = os.path.join(FW, "hf_nohup_every_step", "train.log")
    recs, reader = _read(path)
    assert _got(recs) == _truth("hf_nohup_every_step")
    an = analyze(path)
    assert [a.step for a in an.alerts() if a.check == "loss_spike" and a.severity.value != "info"][:1] == [150]


def test_unbuffered_dicts_keep_the_bar_counter():
    """The real unbuffered fixture (PYTHONUNBUFFERED=1): each dict right after its bar."""
    recs, reader = _read(os.path.join(FW, "hf_trainer", "train.log"))
    train = [r.step for r in recs if r.loss is not None]
    assert train == list(range(1, 61))
    assert reader.step_source == "the training bar's counter drawn before each dict"


def test_live_a_held_burst_is_delivered_when_the_file_goes_quiet():
    r = HFStdoutReader("x")
    assert r.feed("\r 10%|#  | 10/100 [00:01<00:09,  9.9it/s]") == []
    assert r.feed("{'loss': 2.0, 'grad_norm': 1.0, 'learning_rate': 1e-4, 'epoch': 0.1}") == []  # held
    (rec,) = r.idle()  # 2 s without new bytes (the tailer)
    assert rec.step == 10 and rec.loss == 2.0


def test_no_bar_at_all():
    """disable_tqdm: nothing to place a burst by, nothing held; logging_steps when printed."""
    r = HFStdoutReader("x")
    r.feed("logging_steps=5,")
    got = [r.feed("{'loss': %s, 'learning_rate': 1e-4, 'epoch': 0.1}" % (3 - i / 10))[0].step for i in range(3)]
    assert got == [5, 10, 15] and "logging_steps" in r.step_source
    r = HFStdoutReader("x")
    got = [r.feed("{'loss': 2.0, 'epoch': 0.1}")[0].step for _ in range(3)]
    assert got == [1, 2, 3] and r.step_source.startswith("counted")


def _trl_nohup_log() -> str:
    """The shape of a TRL SFTTrainer run under nohup (bench/corpus/fresh/trl_sft_qwen3_qlora_nohup,
    lines as written there): a token dict before the first bar; training bars joined by \\r;
    stdout flushed in 8 KiB bursts, so each eval dict comes glued after the next stretch
    of bars, and one burst is flushed at bar 585, between two logging steps (580, 590)."""

    def bars(a, b):
        return "".join(
            f"\r {n * 100 // 600:2d}%|#         | {n}/600 [00:{n % 60:02d}<1:00:00, 21.3s/it]" for n in range(a, b + 1)
        )

    def d(step):
        return (
            f"{{'loss': {2.0 - step / 1000:.4f}, 'grad_norm': 0.15, 'learning_rate': 0.0002, "
            f"'entropy': 1.35, 'num_tokens': {step * 20000}.0, 'mean_token_accuracy': 0.63, 'epoch': {step / 600:.2f}}}"
        )

    def eval_bar():
        return "\n" + "".join(f"\r  {n}%|          | {n}/984 [00:00<02:19,  7.05it/s]\x1b[A\n" for n in (0, 2, 3))

    ev = "{'eval_loss': 1.38, 'eval_runtime': 287.4, 'eval_samples_per_second': 3.4, 'epoch': %.2f}"
    out = [
        "The tokenizer has new PAD/BOS/EOS tokens. Updated tokens: {'bos_token_id': None, 'pad_token_id': 151643}.\n"
    ]
    out.append(bars(0, 200) + d(10) + "\n" + "".join(d(s) + "\n" for s in range(20, 201, 10)) + eval_bar())
    out.append(
        bars(201, 400) + ev % (200 / 600) + "\n" + "".join(d(s) + "\n" for s in range(210, 401, 10)) + eval_bar()
    )
    out.append(bars(401, 585) + ev % (400 / 600) + "\n" + "".join(d(s) + "\n" for s in range(410, 581, 10)))
    out.append(bars(586, 600) + d(590) + "\n" + d(600) + "\n")
    return "".join(out)


def test_a_burst_flushed_between_two_logging_steps_keeps_the_grid(tmp_path):
    """TRL under nohup: 18 dicts (410..580) flushed at bar 585. They fit the grid of 10 the
    earlier bursts fitted; counting them put the dicts 185 apart (a 600-step run read to
    step 3700, a grad spike at step 1170 reported at 14645)."""
    p = tmp_path / "training.log"
    p.write_text(_trl_nohup_log())
    recs, reader = _read(str(p))
    assert [r.step for r in recs if r.loss is not None] == list(range(10, 601, 10))
    assert [r.step for r in recs if r.val_loss is not None] == [200, 400]
    assert "block-buffered" in reader.step_source and "counted" not in reader.step_source


def test_a_burst_flushed_at_the_exit_is_placed_by_its_epochs():
    """175 steps logged every 50 (no step 1), the real run: the 3 dicts reach the file at the
    exit with the bar at 175, on no grid that ends there. Their epochs (2 decimals) x the
    steps per epoch the final summary gives (its epoch at the bar's last step) place them
    at 50, 100, 150; before, they were counted from the bar: 175, 176, 177 (TRL's DPO run
    in bench/corpus/fresh2 whose NaN at step 50 was said at 175)."""
    recs, reader = _read(os.path.join(FW, "hf_nohup_off_grid", "train.log"))
    assert _got(recs) == _truth("hf_nohup_off_grid")
    assert "epoch x the steps per epoch" in reader.step_source


def _exit_burst(epochs, summary_epoch, total=175):
    bars = "".join(
        f"\r{n * 100 // total:3d}%|#| {n}/{total} [00:{n % 60:02d}<00:00, 27.0s/it]" for n in range(total + 1)
    )
    dicts = "".join(
        "{'loss': %.1f, 'learning_rate': 0.0005, 'epoch': %s}\n" % (2 - i / 10, e) for i, e in enumerate(epochs)
    )
    summary = "{'train_runtime': 4730.6, 'train_loss': 1.9, 'epoch': %s}\n" % summary_epoch if summary_epoch else ""
    return bars + "\n" + dicts + summary + "***** train metrics *****\n"


@pytest.mark.parametrize(
    ("epochs", "summary", "total", "want"),
    [
        (["0.28", "0.57", "0.85"], "1.0", 175, [50, 100, 150]),  # TRL DPO: one epoch, 2-decimal epochs
        (["0.12", "0.24", "0.36", "0.48"], "0.5", 500, [120, 240, 360, 480]),  # logging_steps 120
        ([str(s / 2400) for s in (500, 1000, 1500, 2000)], str(2300 / 2400), 2300, [500, 1000, 1500, 2000]),
        (["0.5", "1.0", "1.5"], "2.0", 80, [20, 40, 60]),  # two epochs of 40 steps
    ],
)
def test_exit_bursts_of_other_shapes(tmp_path, epochs, summary, total, want):
    p = tmp_path / "train.log"
    p.write_text(_exit_burst(epochs, summary, total))
    recs, reader = _read(str(p))
    assert [r.step for r in recs] == want


def test_an_exit_burst_without_a_summary_or_off_any_grid_is_counted(tmp_path):
    """No final summary (the run was killed): no steps per epoch, so the dicts are counted
    from the bar and the report says so; epochs that fit no one interval likewise."""
    p = tmp_path / "train.log"
    p.write_text(_exit_burst(["0.28", "0.57", "0.85"], None))
    recs, reader = _read(str(p))
    assert [r.step for r in recs] == [175, 176, 177] and reader.step_source.startswith("counted")
    p.write_text(_exit_burst(["0.3", "0.6", "0.7"], "1.0"))
    recs, reader = _read(str(p))
    assert [r.step for r in recs] == [175, 176, 177] and reader.step_source.startswith("counted")


@pytest.mark.parametrize(
    ("epochs", "summary"),
    [(["1e300", "2e300"], "1e-300"), (["0.1", "0.2"], "1e-300"), (["0.5", "0.5"], "1"), (["0.1", "0.2"], "1e999")],
)
def test_absurd_epochs_place_nothing_by_epoch(tmp_path, epochs, summary):
    """Epochs that give no finite whole steps per epoch or interval (a summary epoch of 1e-300,
    equal epochs, inf) leave the dicts counted, at once (no search over a huge range)."""
    p = tmp_path / "train.log"
    p.write_text(_exit_burst(epochs, summary))
    recs, reader = _read(str(p))
    assert [r.step for r in recs] == [175, 176] and reader.step_source.startswith("counted")


def test_a_dict_in_a_message_is_no_log_dict(tmp_path):
    # transformers' "Updated tokens: {'bos_token_id': None, 'pad_token_id': 151643}." after a
    # data bar (a torchrun log of bench/corpus/fresh10, its lines as printed): read as a log
    # dict, it set the plan from that bar (40595 samples) instead of the training bar (573)
    bar = "".join(f"处理样本: {p}%|█| {n}/40595 [00:01<00:00, 396.81it/s]\n" for p, n in ((50, 20000), (100, 40595)))
    lines = (
        bar + "The tokenizer has new PAD/BOS/EOS tokens that differ from the model config and generation config. "
        "Updated tokens: {'bos_token_id': None, 'pad_token_id': 151643}.\n"
        + "".join(f"  {s // 6}%|          | {s}/573 [14:31<12:43:55, 81.41s/it]\n" for s in range(1, 21))
        + "{'loss': 0.0037, 'grad_norm': 0.0015739569207653403, 'learning_rate': 1.8e-06, 'epoch': 0.05}\n"
        + "".join(f"  {s // 6}%|          | {s}/573 [14:31<12:43:55, 81.41s/it]\n" for s in range(21, 31))
        + "{'loss': 0.0035, 'grad_norm': 0.0014034733176231384, 'learning_rate': 3.8e-06, 'epoch': 0.1}\n"
    )
    p = tmp_path / "finetune.log"
    p.write_text(lines, encoding="utf-8")
    recs, reader = _read(str(p))
    assert [(r.step, r.loss) for r in recs if r.loss is not None] == [(20, 0.0037), (30, 0.0035)]
    assert reader.run_info["total_steps"] == 573


# ------------------------------------------------------------------ a traceback after the training's end
# fresh13's TRL GRPO stdout (private; written by us in its shape): the Traceback header released the
# held dicts and was never looked at; now a WARN "crashed after its last record", and a crash inside
# a later training in the same file still a FAIL.
def trl_log(traceback_after_summary: bool, more_training: bool = False) -> str:
    """A TRL GRPO stdout's shape (transformers 5: values quoted; written by us): a dict per step, the
    end-of-training summary, then the script's own traceback (fresh13's: json.dump of a numpy bool)."""
    out = []
    for k in range(1, 41):
        out.append(
            f"{{'loss': '0.0{k % 9 + 1}', 'grad_norm': '0.{k % 7 + 1}', 'learning_rate': '{5e-06 - k * 1e-07:.3e}', "
            f"'reward': '0.5', 'reward_std': '0.3536', 'kl': '0.06914', 'epoch': '{k * 0.001:.4f}'}}"
        )
    out.append(
        "{'train_runtime': '6185', 'train_samples_per_second': '0.129', 'train_loss': '0.0347', 'epoch': '0.04'}"
    )
    if more_training:  # a second training in the same file, that crashes in its middle
        out += [
            f"{{'loss': '0.05', 'grad_norm': '0.2', 'learning_rate': '1e-06', 'epoch': '{k * 0.001:.4f}'}}"
            for k in range(1, 6)
        ]
    tb = [
        "Traceback (most recent call last):",
        '  File "/input0/scripts/run_pilot.py", line 279, in run_single_training',
        "    json.dump(cb.logs, f, indent=2)",
        '  File "/usr/local/lib/python3.10/json/encoder.py", line 179, in default',
        "    raise TypeError(f'Object of type {o.__class__.__name__} '",
        "TypeError: Object of type bool_ is not JSON serializable",
    ]
    return "\n".join(out + (tb if traceback_after_summary or more_training else [])) + "\n"


def test_a_traceback_after_the_training_summary_is_a_crash_after_the_last_record(tmp_path, capsys):
    write(tmp_path / "logs", "gate2_seed44.log", trl_log(True))
    rep = report_json(tmp_path, capsys)
    crash = next(c for c in rep["checks"] if c["id"] == "crash")
    assert crash["status"] == "WARN" and "after its last record (step 40)" in crash["summary"], crash
    (a,) = [a for a in rep["alerts"] if a["check"] == "crash"]
    assert a["severity"] == "warning" and a["step"] == 40 and "TypeError" in a["message"]


def test_a_crash_in_a_training_after_a_finished_one_still_fails(tmp_path, capsys):
    write(tmp_path / "logs", "run.log", trl_log(False, more_training=True))
    rep = report_json(tmp_path, capsys)
    crash = next(c for c in rep["checks"] if c["id"] == "crash")
    assert crash["status"] == "FAIL" and "after its last record" not in crash["summary"], crash


def test_a_step_named_on_the_line_before_a_dict_is_its_step(capsys):
    """fresh17 GraphRetro's nohup.out (MIT, committed): "After 201 steps, Global Step: 201", a memory
    line, then "Train Metrics so far: {'loss': 2.2425, 'accuracy': 0.1364}"; an epoch's summary dict
    after "-------- Completed Epoch: 1 Global Step: 1250 ----". Counted, its 800 dicts read as steps
    1-800 of a 125,000-step run; and its config dump ({'model': 'lg_ind', ..., 'lr': 0.001}) was an
    LR record whose "no warm-up" failed the healthy run."""
    path = os.path.join(paths.BENCH, "corpus", "fresh17", "nohup_graphretro_gnn_dict_metrics", "nohup.out")
    recs, reader = _read(path)
    losses = [(r.step, r.loss) for r in recs if r.loss is not None]
    assert losses[:5] == [(1, 5.6897), (201, 2.2425), (401, 1.9807), (601, 1.7859), (801, 1.626)]
    assert (1250, 1.4009) in losses and losses[-1][0] == 125000 and len(losses) == 800
    assert not any(r.lr is not None for r in recs)  # (the config dump is no record)
    assert reader.step_source.startswith("the step named on a line of its own")
    d = report_json(path, capsys)
    assert not [c for c in d["checks"] if c["status"] == "FAIL"]
    # a dict alone, no step line before it: still by the bar or counted, as before
    r = HFStdoutReader("x")
    r.feed("Global Step: 40")
    assert r.feed("{'loss': 2.0, 'epoch': 0.1}")[0].step == 40
    assert r.feed("{'loss': 1.9, 'epoch': 0.2}")[0].step == 41  # (named once: the next dict is counted on)


def test_a_step_or_epoch_named_before_a_dict_on_its_line_is_its_step(tmp_path, capsys):
    """fresh20's Titans log (private): Python logging's "%(asctime)s - %(name)s - %(levelname)s -
    %(message)s" with "Epoch 59: {'loss': 5.25}", nine launches appended. Counted, its 246 dicts
    were steps 1-246, one series: the relaunches read as a spike and a divergence (a FAIL), the
    second launch's spikes placed at the wrong steps. The named epoch is the step; back: a launch."""
    lines = []
    for launch, epochs in enumerate((40, 2, 30)):
        for e in range(epochs):
            loss = 10.6 / (1 + e / 3) + launch * 0.01
            if launch == 2 and e == 25:
                loss *= 6  # a spike of the third launch, at its epoch 25
            lines.append(f"2025-02-22 12:15:{e % 60:02d},882 - titans_training - INFO - Epoch {e}: {{'loss': {loss}}}")
    path = str(write(tmp_path, "train.log", "\n".join(lines) + "\n"))
    recs, reader = _read(path)
    assert [r.step for r in recs] == list(range(40)) + [0, 1] + list(range(30))
    assert reader.step_source.startswith("the step or epoch named before each dict on its line")
    d = report_json(str(tmp_path), capsys)
    assert [(x["first"], x["last"]) for x in d["launches"]] == [(0, 39), (0, 1), (0, 29)]
    assert [a["step"] for a in d["alerts"] if a["check"] == "loss_spike" and a["severity"] != "info"] == [25]
    # "step 1200 | {...}" and "iter 30: {...}" alike; an eval dict keeps the last training step
    r = HFStdoutReader("x")
    assert r.feed("step 1200 | {'loss': 2.0}")[0].step == 1200
    assert r.feed("iter 1300: {'loss': 1.9}")[0].step == 1300
    assert r.feed("{'eval_loss': 2.1}")[0].step == 1300


def test_dicts_without_bars_are_placed_by_the_final_summary(tmp_path):
    """stdout captured apart from tqdm's stderr (a Slurm .out, nohup with 2>/dev/null): only the dicts
    and the final summary. The summary's steps (train_runtime x train_steps_per_second) over its epoch
    place the dicts on the run's logging grid (fresh42's ChatMD fine-tune: a grad spike at 2510 read
    at 251); the same log still being written (no summary yet) is counted, and says so."""
    with open(os.path.join(FW, "hf_nohup", "train.log"), encoding="utf-8") as f:
        text = f.read()
    dicts = [d for d in re.findall(r"\{'[^{}]*\}", text) if "loss'" in d or "'train_runtime'" in d]
    path = tmp_path / "slurm-1.out"
    path.write_text("".join(d + "\n" for d in dicts))
    recs, reader = _read(str(path))
    assert _got(recs) == _truth("hf_nohup")
    assert "final summary" in reader.step_source
    path.write_text("".join(d + "\n" for d in dicts[:-1]))  # (live: no summary yet)
    recs, reader = _read(str(path))
    assert [r.step for r in recs][:3] == [1, 2, 3] and reader.step_source.startswith("counted")


def test_a_slurm_out_of_dicts_alone_gets_the_steps_the_run_logged(capsys):
    """A real transformers 5 Trainer run (300 steps logged every 10, random bytes at step 150) under
    Slurm: stdout in slurm-123.out (its dicts and final summary alone), stderr with the bars in
    slurm-123.err. The dicts get their logged steps from the summary; the spike is said at 150."""
    path = os.path.join(FW, "hf_slurm_out", "slurm-123.out")
    recs, reader = _read(path)
    with open(os.path.join(FW, "hf_slurm_out_truth.json")) as f:
        truth = [(e["step"], e["loss"]) for e in json.load(f) if "loss" in e]
    got = [(r.step, r.loss) for r in recs if r.loss is not None]
    assert [s for s, _ in got] == [s for s, _ in truth]
    assert all(abs(a - b) <= 5e-4 * abs(b) for (_, a), (_, b) in zip(got, truth))  # (printed with 4 digits)
    assert "final summary" in reader.step_source
    d = report_json(os.path.join(FW, "hf_slurm_out"), capsys)
    assert d["steps"]["last"] == 300
    assert 150 in [a["step"] for a in d["alerts"] if a["check"] in ("loss_spike", "grad_norm")]


def test_dicts_before_a_bar_snapshot_are_placed_by_the_summary_read_past_generations(tmp_path):
    """A training script whose callback tests the model every 100 steps: the dicts of those steps
    come first, then a snapshot of the bar printed with the test ("100/700 [...]=== INFERENCE TEST
    ==="), the generations, and after the final summary ~9 KiB more of them (fresh66's TRL log: its
    200 dicts read at steps 1-900 "counted" for 5-1000, the summary past the 8 KiB looked at). The
    first block has no bar before it: its epochs x the summary's steps per epoch place it; the
    blocks after it follow the bar."""
    with open(os.path.join(FW, "hf_nohup", "train.log"), encoding="utf-8") as f:
        text = f.read()
    dicts = [d for d in re.findall(r"\{'[^{}]*\}", text) if "'loss'" in d or "'train_runtime'" in d]
    train, summary = [d for d in dicts if "'train_runtime'" not in d], dicts[-1]
    with open(os.path.join(FW, "hf_nohup_truth.json")) as f:  # (the layout below leaves out step 1's dict)
        truth = [e["step"] for e in json.load(f) if "loss" in e and e["step"] != 1]
    lines = []
    for i, d in enumerate(train[1:], 1):  # (every 10 steps: 10, 20, ...)
        lines.append(d)
        if i % 10 == 0:
            lines.append(f" {i * 10 // 7}%|####| {i * 10}/700 [01:11<11:13,  1.34it/s]=== INFERENCE TEST ===")
            lines += ["user prompt : tell me a story", "answer : once upon a time"] * 3
    lines.append(summary)
    lines += ["user prompt : what is your name?", "answer : " + "my name is a model " * 20] * 40
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    recs, reader = _read(str(path))
    assert [r.step for r in recs if r.loss is not None] == truth
    assert "steps per epoch of the final summary" in reader.step_source


def _wandb_console(spike_at: int) -> str:
    """A W&B console capture (files/output.log) of an HF Trainer run logging every step: the bar drawn now and
    then ("  2%|▏ | 8/500 [...]"), each dict after the bar of its step, the dict of a step whose bar was drawn lost
    (the capture keeps the bar's redraw); the LR rises by 1e-5 a step (warm-up)."""
    out = ["  0%|          | 0/500 [00:00<?, ?it/s]"]
    step, bars = 0, [8, 14, 19, 28, 34, 41, 47, 52, 61, 66, 75, 80]
    for b in bars:
        for k in range(step + 1, b):
            g = 40.0 if k == spike_at else 1.0 + 0.1 * (k % 3)
            out.append(
                f"{{'loss': {3 - k / 100:.4f}, 'grad_norm': {g}, 'learning_rate': {k * 1e-5:.5g}, 'epoch': 0.0}}"
            )
        step = b
        out.append(f"  {b * 100 // 500}%|▏         | {b}/500 [00:05<10:18,  3.16it/s]")
    return "\n".join(out) + "\n"


def test_dicts_between_bars_of_a_capture_that_lost_lines(tmp_path, capsys):
    """fresh72's ViVidBot W&B output.log: dicts between the bar's counters 0, 8, 14, 19 ... of 1963 (each after the
    bar of its step; no logging_steps printed, epochs 0.0) were counted onto steps 1-541 for 169 dicts (a spike at
    step 131 said at 420). Each burst is placed by the bar's counters around it, one interval apart: the LR's steps.
    (A lagging capture whose bursts end at the bar's counter, fresh7's, gets within 3 steps of its LR's on the real
    file; this synthetic one, one dict of each burst lost, is fitted by the block-buffered grid first.)"""
    p = str(write(tmp_path, "output.log", _wandb_console(spike_at=37)))
    recs = [r for r in _read(p)[0] if r.loss is not None]
    assert [r.step for r in recs] == [round(r.lr / 1e-5) for r in recs]
    d = report_json(p, capsys)
    assert "lost lines" in d["files"][0]["step_source"]
    grad = next(c for c in d["checks"] if c["id"] == "grad_norm")
    assert "37" in grad["summary"], grad
