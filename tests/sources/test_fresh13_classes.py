"""Classes the held-out sets fresh13 and fresh14 (notes/fresh13.md, notes/fresh14.md) showed unread:

1. role-prefixed metric names of RL trainers (verl's ``actor/grad_norm``, ``actor/lr`` beside
   ``critic/grad_norm``; OpenRLHF's ``actor_lr`` / ``train/actor_lr``; TRL's ``policy/...``): the
   actor's (policy's) grad norm and LR are the run's, another model's never, in every reader
   (``fields.ROLE_METRIC``). The verl W&B run is committed (bench/corpus/fresh13/
   wandb_verl_agent_distill_grad_blowup, SOURCES.md: Apache-2.0): its ``.wandb`` and its console
   ``files/output.log`` are read as they are.
2. verl's console lines, ``step:1 - global_seqlen/min:158003 - actor/pg_loss:np.float64(0.0204) -
   actor/grad_norm:np.float64(0.72) - ...`` (NumPy 2 scalar reprs), after a "validation generation
   end" line that opened no evaluation section.
3. a file that is one Python / JSON list of numbers (``f.write(str(losses))``; fresh14's ResNet-18
   ``train_loss.txt``, private, no licence: the files below are written by us in its shape).
4. a counter written ``Training iter #N:`` (fresh14's TF1 LSTM nohup.out, private: the lines below
   are written by us in its shape: its keys, separators and test lines).
5. a Traceback after the training's end (fresh13's TRL GRPO stdout, private: written by us in its shape):
   its header released the HF reader's held dicts and was never looked at ("no crash or error lines");
   now a WARN "crashed after its last record", and a crash inside a later training still a FAIL.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import pytest

from tsm_tui.cli import main
from tsm_tui.sources.bare_numbers import BareNumbersReader, bare_content, list_head
from tsm_tui.sources.fields import field_for, loss_role
from tsm_tui.sources.generic_text import KeyValueTextReader
from tsm_tui.sources.reading import read_records

from test_formats import read, write  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VERL = ROOT / "bench" / "corpus" / "fresh13" / "wandb_verl_agent_distill_grad_blowup"
VERL_RUN = VERL / "wandb" / "run-20251130_144822-gjvwlq13"


def report(path, capsys) -> dict:
    rc = main([str(path), "--report", "--json"])
    out, err = capsys.readouterr()
    assert rc in (0, 1), err
    return json.loads(out)


def feed(lines: list[str]) -> list:
    r = KeyValueTextReader("train.log")
    r.text_tap = None
    out = []
    for ln in lines:
        out += r.feed(ln)
    return out + r.flush()


# ------------------------------------------------------------------ 1. role-prefixed names
@pytest.mark.parametrize(
    "key, field",
    [
        ("actor/grad_norm", "grad_norm"),  # verl
        ("actor/lr", "lr"),
        ("train/actor_lr", "lr"),  # OpenRLHF
        ("actor_lr", "lr"),
        ("policy/learning_rate", "lr"),
        ("policy_grad_norm", "grad_norm"),
        ("critic/grad_norm", None),  # another model's: never the run's
        ("critic/lr", None),
        ("train/critic_lr", None),
        ("actor/pg_loss", None),  # the actor's loss is the objective rule's (loss_role), not an alias
        ("actor/entropy", None),
        ("actor/ppo_kl", None),
    ],
)
def test_a_role_prefix_before_a_known_name(key, field):
    assert field_for(key) == field


def test_the_actor_loss_is_still_the_objective():
    assert loss_role("actor/pg_loss") == "actor"
    assert loss_role("critic/vf_loss") == "model"


def test_the_actor_grad_norm_wins_over_the_critic_whatever_the_column_order(tmp_path):
    # verl's key names, a critic logged before the actor (written by us)
    rows = ["step,critic/grad_norm,critic/lr,actor/grad_norm,actor/lr,actor/pg_loss,critic/vf_loss"]
    rows += [f"{i},{50 + i},1e-05,{0.7 + i / 100},1e-06,{0.02 + i / 1000},{1.5 - i / 100}" for i in range(1, 31)]
    fmt, recs, _ = read(write(tmp_path, "metrics.csv", "\n".join(rows) + "\n"))
    assert fmt == "lightning-csv" or fmt.endswith("csv")
    r = next(r for r in recs if r.step == 10)
    assert r.grad_norm == pytest.approx(0.8) and r.lr == pytest.approx(1e-06)
    assert r.loss == pytest.approx(0.03)  # the actor's loss: the objective
    assert r.extra["critic/grad_norm"] == 60


def test_jsonl_reads_the_actor_names(tmp_path):
    lines = [
        json.dumps(
            {"step": i, "critic/grad_norm": 40.0, "actor/grad_norm": 0.5, "actor/lr": 1e-6, "actor/pg_loss": -0.1}
        )
        for i in range(1, 21)
    ]
    _, recs, _ = read(write(tmp_path, "metrics.jsonl", "\n".join(lines) + "\n"))
    assert all(r.grad_norm == 0.5 and r.lr == 1e-6 for r in recs)


@pytest.mark.skipif(not VERL_RUN.is_dir(), reason="bench/corpus/fresh13 not present")
def test_the_verl_wandb_file_reads_the_actor_grad_norm_and_lr(tmp_path, capsys):
    run = tmp_path / "wandb" / VERL_RUN.name
    shutil.copytree(VERL_RUN, run)
    (run / "files" / "output.log").unlink()  # the .wandb file alone
    rep = report(tmp_path, capsys)
    assert rep["sources"]["grad_norm"]["key"] == "actor/grad_norm"
    assert rep["sources"]["lr"]["key"] == "actor/lr"
    gn = next(c for c in rep["checks"] if c["id"] == "grad_norm")
    assert gn["status"] == "WARN" and "spike" in gn["summary"] and "not logged" not in gn["summary"]
    # the blow-up from step 36 on (0.70-0.99 before, 10-19 from 38: notes/fresh13.md)
    steps = [a["step"] for a in rep["alerts"] if a["check"] == "grad_norm" and a["severity"] != "info"]
    assert any(34 <= s <= 40 for s in steps), steps


# ------------------------------------------------------------------ 2. verl's console lines
@pytest.mark.skipif(not VERL_RUN.is_dir(), reason="bench/corpus/fresh13 not present")
def test_the_verl_console_is_read_step_by_step(tmp_path):
    log = VERL_RUN / "files" / "output.log"
    fmt, recs, reader = read(log)
    train = [r for r in recs if r.loss is not None]
    assert [r.step for r in train] == list(range(1, 60))  # step:0 is the initial validation only
    assert all(r.val_loss is None for r in recs)  # "validation generation end" opened no evaluation
    assert train[0].grad_norm == pytest.approx(0.7215317189693451) and train[0].lr == pytest.approx(1e-06)
    assert train[0].loss == pytest.approx(0.02044692570699327)  # actor/pg_loss: np.float64(...) unwrapped
    assert reader.field_keys()["grad_norm"] == ["actor/grad_norm"]


def test_numpy_scalar_reprs_are_numbers():
    recs = feed(
        [
            "step:3 - actor/entropy:0.2 - actor/pg_loss:np.float64(-0.395) - actor/grad_norm:np.float64(0.352)"
            " - actor/lr:np.float64(1e-06) - response_length/mean:np.float32(970.0)",
        ]
    )
    (r,) = recs
    assert (r.step, r.loss, r.grad_norm, r.lr) == (3, -0.395, 0.352, 1e-06)
    assert r.extra["response_length/mean"] == 970.0


def test_a_line_naming_the_evaluations_end_opens_no_section():
    lines = ["validation generation end"]
    lines += [f"step:{i} - actor/pg_loss:0.{i} - actor/grad_norm:1.{i}" for i in range(1, 6)]
    recs = feed(lines)
    assert [r.step for r in recs] == [1, 2, 3, 4, 5] and all(r.val_loss is None for r in recs)
    # a section header is still one
    recs = feed(["Validation", "step:1 loss: 2.0", "Evaluation done"])
    assert recs and recs[0].val_loss == 2.0


# ------------------------------------------------------------------ 3. one list of numbers
def resnet_losses(n: int) -> list[float]:
    """Per-batch losses in the ResNet-18 file's range (0.27-0.75; written by us)."""
    return [0.5 + 0.2 * math.sin(i * 1.7) + 0.00000001 * i for i in range(n)]


def test_a_python_list_file_is_one_series_stepped_by_index(tmp_path, capsys):
    vals = resnet_losses(3130)
    write(tmp_path / "run", "train_loss.txt", str(vals))
    rep = report(tmp_path / "run", capsys)
    (src,) = [f for f in rep["files"] if f["used"]]
    assert src["format"] == "bare-numbers" and src["records"] == 3130 and src["skipped_lines"] == 0
    assert src["step_source"].startswith("list index")
    assert rep["sources"]["loss"]["key"] == "train_loss"
    assert (rep["steps"]["first"], rep["steps"]["last"]) == (0, 3129)


@pytest.mark.parametrize(
    "text, want",
    [
        ("[0.5, 0.4, 0.3,]", [0.5, 0.4, 0.3]),  # Python's trailing comma
        ("[0.5, nan, inf, 0.3]", [0.5, math.nan, math.inf, 0.3]),  # str() of a list with a NaN
        ("[0.5, NaN, Infinity, -Infinity]", [0.5, math.nan, math.inf, -math.inf]),  # json.dump's
        ("[np.float64(0.5), np.float64(0.4)]", [0.5, 0.4]),  # NumPy 2 scalars in a list
        ("[\n  0.5,\n  0.4,\n  0.3\n]\n", [0.5, 0.4, 0.3]),  # json.dump(indent=2)
        ("[0.5, 0.4, 0.3", [0.5, 0.4, 0.3]),  # cut short (a copy taken mid-write)
    ],
)
def test_list_shapes(tmp_path, text, want):
    p = write(tmp_path, "loss.txt", text)
    assert bare_content(str(p))
    recs = list(read_records(str(p), BareNumbersReader(str(p))))
    got = [r.loss for r in recs]
    assert [r.step for r in recs] == list(range(len(want)))
    assert all((math.isnan(a) and math.isnan(b)) or a == b for a, b in zip(got, want)), got


@pytest.mark.parametrize("text", ["[]", "[1, 2] [3]", "[0.5, 'a', 0.3]", "[0.5] epoch 3", "[tensor(0.5)]"])
def test_what_is_not_one_list_of_numbers(tmp_path, text):
    assert not bare_content(str(write(tmp_path, "loss.txt", text)))
    assert not list_head(text, cut=False)


def test_a_large_list_is_streamed_across_chunks(tmp_path):
    vals = resnet_losses(200_000)  # ~4 MB on one line: several LIST_CHUNKs, items cut between them
    p = write(tmp_path, "loss.txt", str(vals))
    r = BareNumbersReader(str(p))
    recs = r.read_path(str(p))
    assert len(recs) == 200_000 and r.skipped == 0
    assert [x.loss for x in recs[::9973]] == vals[::9973]
    assert recs[-1].step == 199_999 and recs[-1].loss == vals[-1]


@pytest.mark.slow
@pytest.mark.parametrize(
    "body",
    [
        b"[" + b"1" * (1 << 20),  # a 1 MiB number, the list never closed
        b"[" + b"1" * (3 << 20) + b", 0.5]",  # ... over several chunks, then a value
        b"[" + b" " * (3 << 20) + b"0.5",  # blanks
        b"[" + b"0.5, " * (1 << 14) + b"1" * (1 << 20),  # values, then a run of digits
    ],
    ids=["digits", "digits_then_value", "blanks", "values_then_digits"],
)
def test_hostile_list_files_are_linear_and_bounded(tmp_path, body):
    p = tmp_path / "loss.txt"
    p.write_bytes(body)
    t = time.perf_counter()
    r = BareNumbersReader(str(p))
    recs = r.read_path(str(p))
    assert time.perf_counter() - t < 5
    assert len(recs) in (0, 1, 1 << 14)  # the values before the run, or the one after it
    assert r.skipped <= 2


# ------------------------------------------------------------------ 4. "Training iter #N:"
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
    rep = report(tmp_path, capsys)
    assert rep["sources"]["loss"]["key"] == "Batch Loss"
    assert (rep["steps"]["first"], rep["steps"]["last"]) == (2000, 120000)


# ------------------------------------------------------------------ 5. a traceback after the training's end
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
    rep = report(tmp_path, capsys)
    crash = next(c for c in rep["checks"] if c["id"] == "crash")
    assert crash["status"] == "WARN" and "after its last record (step 40)" in crash["summary"], crash
    (a,) = [a for a in rep["alerts"] if a["check"] == "crash"]
    assert a["severity"] == "warning" and a["step"] == 40 and "TypeError" in a["message"]


def test_a_crash_in_a_training_after_a_finished_one_still_fails(tmp_path, capsys):
    write(tmp_path / "logs", "run.log", trl_log(False, more_training=True))
    rep = report(tmp_path, capsys)
    crash = next(c for c in rep["checks"] if c["id"] == "crash")
    assert crash["status"] == "FAIL" and "after its last record" not in crash["summary"], crash
