"""Reader classes the fourth held-out set (``bench/corpus/fresh4``, notes/fresh4.md §4.A4-A7)
showed missing: a ``.txt`` console not scanned for its crash, UTF-16 / UTF-32 text called
binary, records dropped after a prose line that names a step, an epoch label that lags one
record at each boundary, summary / evaluation blocks read as training records. Real lines
(quoted from the frameworks' logs, or printed by their format strings) and lines that must not
be read so."""

from __future__ import annotations

import codecs
import json
import os

import pytest

from tsm_tui.cli import main
from tsm_tui.sources import head, registry
from helpers.paths import BENCH

from test_formats import read, write  # noqa: E402

FRESH4 = os.path.join(BENCH, "corpus", "fresh4")

# -- A4: a .txt console, UTF-16 / UTF-32 text ------------------------------------------------------
TRACEBACK = (
    "step 1 starting\n"
    "Traceback (most recent call last):\n"
    '  File "train_gpt.py", line 1, in <module>\n'
    "RuntimeError: No available kernel. Aborting execution.\n"
)


def _report(path, capsys) -> tuple[int, dict | str]:
    code = main([str(path), "--report", "--json"])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if code in (0, 1) else cap.err)


@pytest.mark.parametrize("name", ["training_output.txt", "train.log", "cout.txt", "console-rank0.txt"])
def test_a_console_with_a_crash_and_no_metric_is_read_for_it_whatever_its_extension(tmp_path, capsys, name):
    code, d = _report(write(tmp_path, name, TRACEBACK), capsys)
    assert code == 1, d
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert (
        c["status"] == "FAIL"
        and "before its first logged step" in c["summary"]
        and "No available kernel" in c["summary"]
    )


def test_a_txt_with_nothing_says_it_was_read_for_crash_lines(tmp_path, capsys):
    code, err = _report(write(tmp_path, "output.txt", "loading data\nbuilding model\n"), capsys)
    assert code == 2 and "read for crash lines only" in err


@pytest.mark.parametrize("name", ["requirements.txt", "README.txt", "notes.txt", "vocab.txt", "LICENSE.txt"])
def test_documents_named_txt_are_not_consoles(tmp_path, capsys, name):
    # a quoted traceback in notes or a requirements list is no crash of a run
    code, err = _report(write(tmp_path, name, TRACEBACK), capsys)
    assert code == 2 and "crash lines" not in err


@pytest.mark.parametrize(
    "enc,bom",
    [
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-32-be", codecs.BOM_UTF32_BE),
        ("utf-16-le", b""),  # BOM-less: every other byte NUL under ASCII
    ],
)
def test_a_tiny_wide_text_file_is_text_not_binary(tmp_path, capsys, enc, bom):
    p = tmp_path / "training_output.txt"
    p.write_bytes(bom + TRACEBACK.replace("\n", "\r\n").encode(enc))
    h = head.sample_head(str(p), registry.BINARY)
    assert h.lines is not None and h.lines[0] == "step 1 starting" and h.hole == 0
    code, d = _report(p, capsys)
    assert code == 1, d
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert c["status"] == "FAIL" and "No available kernel" in c["summary"]
    f = d["files"][0]
    assert "skip_reasons" not in f, f  # its NUL bytes are text, not a hole; its BOM no bad byte


def test_wide_records_read_whole_with_non_ascii_text(tmp_path):
    # UTF-16 LE with a BOM and CRLF, as PowerShell's Tee-Object writes it; a non-ASCII name on
    # every line (each byte pair of "é" / "损" is no ASCII): every record and value read
    text = "".join(f"step {s} | loss {3 - s / 100:.4f} | modèle 损失\r\n" for s in range(1, 41))
    p = tmp_path / "train.log"
    p.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    _, recs, reader = read(p)
    assert [r.step for r in recs] == list(range(1, 41))
    assert recs[-1].loss == pytest.approx(2.6)
    assert reader.skipped == 0 and not reader.skip_reasons


def test_wide_encoding_needs_its_evidence():
    assert head.wide_encoding(codecs.BOM_UTF8 + b"step 1 loss 2") is None
    assert head.wide_encoding(b"step 1 loss 2.0\n") is None
    assert head.wide_encoding("ok".encode("utf-16-le")) is None  # (4 bytes: too few to tell)
    assert head.wide_encoding(b"\x00" * 64) is None  # a hole, not text
    assert head.wide_encoding("步骤 1 损失 2.0".encode("utf-16-le")) is None  # only a BOM names non-ASCII
    assert head.wide_encoding("step 10 loss 2.0".encode("utf-16-le")) == "utf-16-le"


def test_the_real_powershell_capture_reports_its_crash(capsys):
    p = os.path.join(FRESH4, "paramgolf_utf16_powershell_crash", "training_output.txt")
    if not os.path.exists(p):
        pytest.skip("bench/corpus/fresh4 not present")
    code, d = _report(p, capsys)
    assert code == 1
    c = next(c for c in d["checks"] if c["id"] == "crash")
    assert c["status"] == "FAIL" and "No available kernel" in c["summary"]


# -- A6: an epoch label that lags one record at each boundary ------------------------------------
# ppgan/engine/trainer.py's format: "Epoch: {}/{}, iter: {}/{}" then "lr: ..." and the losses
# ("%s: %.3f"); the label is computed from the iteration before the counter moves on, so the
# first record of each epoch still carries the last epoch's label (fresh4 paddlegan workerlog.0
# lines 522-536: "Epoch: 1/100, iter: 980/989", "Epoch: 1/100, iter: 1/989", "Epoch: 2/100, iter: 11/989")
def _ppgan(epochs: int, per: int = 989, every: int = 10) -> str:
    out = []
    for g in range(every, epochs * per + 1, every):
        it = (g - 1) % per + 1
        label = (g - every - 1) // per + 1 if g > every else 1  # one interval behind
        out.append(
            f"[05/20 05:16:07] ppgan.engine.trainer INFO: Epoch: {label}/100, iter: {it}/{per} lr: 2.000e-04 "
            f"perceptual: 102.727 equivariance_value: 0.110 loss: {3 - g / 10000:.4f} batch_cost: 1.31 sec "
            f"reader_cost: 0.00 sec ips: 3.04 images/s eta: 14 days"
        )
    return "\n".join(out) + "\n"


def test_a_lagging_epoch_label_is_no_resume(tmp_path, capsys):
    p = write(tmp_path, "workerlog.0", _ppgan(3))
    _, recs, _ = read(p)
    steps = [r.step for r in recs]
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert steps[:3] == [10, 20, 30] and 990 in steps and steps[-1] == 2960
    code, d = _report(p, capsys)
    assert code in (0, 1) and not d.get("launches"), d.get("launches")


@pytest.mark.parametrize("strict", [False, True])
def test_the_epoch_rule_takes_one_lagging_label(strict):
    from tsm_tui.sources.epoch_steps import EpochCounter

    c = EpochCounter(strict)
    seq = [(1, 970), (1, 980), (1, 1), (2, 11), (2, 21), (2, 971), (2, 981), (2, 2), (3, 12)]
    assert [c.step(e, 100, n, 989)[0] for e, n in seq] == [970, 980, 990, 1000, 1010, 1960, 1970, 1980, 1990]
    assert c.mode == "epoch"


def test_a_restart_of_the_same_epoch_is_not_taken_for_a_lag():
    from tsm_tui.sources.epoch_steps import EpochCounter

    # out of rhythm: iter 30 of 989, then iter 1 under the same label (a relaunch of epoch 1)
    c = EpochCounter()
    assert [c.step(1, None, n, 989)[0] for n in (10, 20, 30, 1, 11)] == [10, 20, 30, 1, 11]
    # in rhythm but back at the run's first counter: I-JEPA relaunched epoch 2 ("[2,  2550/ 2562]"
    # then "[2,     0/ 2562]", "[2,    25/ 2562]": fresh2 ijepa_style_multiloss_gradstats_nan)
    c = EpochCounter()
    seq = [(1, 0), (1, 25), (1, 2550), (2, 0), (2, 25), (2, 2525), (2, 2550), (2, 0), (2, 25)]
    assert [c.step(e, None, n, 2562)[0] for e, n in seq][-2:] == [2562, 2587]
    # a global counter never lags: it only grows, a smaller one is a resume
    c = EpochCounter()
    seq = [(1, 980), (1, 990), (2, 1000), (2, 1010), (2, 5)]
    assert [c.step(e, None, n, None)[0] for e, n in seq] == [980, 990, 1000, 1010, 5]
    # a validation counter of another length under the same label is no wrap of this one
    c = EpochCounter()
    assert [c.step(1, None, n, p)[0] for n, p in ((980, 989), (989, 989), (5, 50))] == [980, 989, 5]


def test_epochs_longer_than_the_first_move_the_next_ones_on():
    """fresh4 pgan_paddle_scales_resume_blowup: "[scale : iteration]" with no length printed; scale 0
    runs 48,000 iterations, scales 1-5 96,000 each. Placed at (scale x the first one's length) the
    later scales overlapped (3,358 of 5,278 steps); the next epoch starts past the longer one's end."""
    from tsm_tui.sources.epoch_steps import EpochCounter

    c = EpochCounter()
    lengths = (480, 960, 960)  # a record every 10 iterations, counters 10..length
    got = [c.step(e, None, n, None)[0] for e, ln in enumerate(lengths) for n in range(10, ln + 1, 10)]
    assert got == list(range(10, sum(lengths) + 1, 10))
    assert c.in_last_epoch(20) == 480 + 960 + 20
    # back at scale 1 (a relaunch from its checkpoint): its offset found again, then scale 2's
    assert [c.step(e, None, n, None)[0] for e, n in ((1, 500), (1, 960), (2, 10))] == [980, 1440, 1450]
    # epochs of one length (the counter starting at 0 and at the interval) are as before
    c = EpochCounter()
    assert [c.step(e, None, n, None)[0] for e in (1, 2, 3) for n in (0, 50, 100)] == [
        0,
        50,
        100,
        150,
        200,
        250,
        300,
        350,
        400,
    ]
    # a shorter last epoch changes nothing; a printed length is trusted as it is
    c = EpochCounter()
    assert [c.step(e, None, n, None)[0] for e, n in ((0, 50), (0, 100), (1, 50), (2, 50), (2, 100))] == [
        50,
        100,
        150,
        250,
        300,
    ]
    c = EpochCounter()
    assert [c.step(e, None, n, 100)[0] for e, n in ((0, 100), (1, 50), (1, 120), (2, 10))] == [100, 150, 220, 210]


# -- A5: a prose line naming a step between records that carry their own counter ----------------
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


# -- A7: summary and evaluation sections of per-epoch logs ----------------------------------------
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
    code, d = _report(p, capsys)
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
