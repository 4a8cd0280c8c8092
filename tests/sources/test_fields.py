"""Field names and values (``sources/fields.py``): which key is the loss, the validation loss or
no field (a split and a granularity inside the name, a trailing colon, a ratio with the loss),
the objective and loss terms a log's keys give, ``nan.0`` as NaN, Unix milliseconds as seconds.
Keys quoted from real logs (Lightning, Ludwig, a nanoGPT fork's monitor of the held-out sets)."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest
from helpers.reports import report_json, report_rc
from helpers.paths import BENCH
from test_formats import read, write  # noqa: E402

from tsm_tui.sources.generic_text import KeyValueTextReader
from tsm_tui.sources.fields import field_for, key_roles, loss_role, normalise, objective, seconds

FRESH = os.path.join(BENCH, "corpus", "fresh")


def test_lightning_bar_nan_dot_zero_is_a_nan_loss():
    # Lightning's progress bar prints a NaN loss as train_loss_step=nan.0 (OmniAvatar in
    # 'fresh': 5 steps, NaN from step 1, read as no loss at all)
    import math

    from tsm_tui.analysis.replay import analyze
    from tsm_tui.sources.fields import to_float

    assert math.isnan(to_float("nan.0")) and to_float("inf.0") == math.inf
    an = analyze(os.path.join(FRESH, "omniavatar_wan_lightning_nan"))
    nan = next(c for c in an.checks() if c.id == "nonfinite")
    assert nan.status.value == "FAIL" and "first at step 1" in nan.summary


# -- a loss's split and granularity inside its name ------------------------------------------
@pytest.mark.parametrize(
    "key,field",
    [
        # Lightning's self.log(on_step=True, on_epoch=True) suffixes, every split word
        ("valid_loss_epoch", "val_loss"),
        ("valid_loss", "val_loss"),
        ("val_loss_epoch", "val_loss"),
        ("eval_loss_epoch", "val_loss"),
        ("dev_loss", "val_loss"),
        ("test_loss_epoch", "val_loss"),
        ("validation_loss_epoch", "val_loss"),
        ("train_loss_step", "loss"),
        ("training_loss_step", "loss"),
        # Ludwig's TensorBoard tags
        ("combined/batch_train_reg_mean_loss", "loss"),
        ("combined/epoch_validation_loss", "val_loss"),
        ("combined/epoch_test_loss", "val_loss"),
        # the nested statistics document's paths
        ("training/combined/loss", "loss"),
        ("validation/combined/loss", "val_loss"),
        ("test/combined/loss", "val_loss"),
        # not a loss of the run's objective at its steps:
        ("valid_loss_step", None),  # one value per validation batch (its step restarts each epoch)
        ("val_loss_step", None),
        ("train_loss_epoch", None),  # the epoch's summary beside the per-step series
        ("combined/epoch_training_loss", None),  # Ludwig's, at the epoch's number
        ("label/batch_train_mean_loss_label", None),  # one output feature's loss (a term)
        ("training/label/loss", None),
        ("train_reg_loss", None),  # a detector's box-regression term
        ("train_val_loss", None),  # two splits: nobody's
        ("ema/train_loss", None),
        ("train/train_loss", None),  # HF's run average at its end (a split named twice)
        # the split after the word (fresh67: "loss_val", "loss_test" were terms of the objective)
        ("loss_val", "val_loss"),
        ("loss_valid", "val_loss"),
        ("loss_test", "val_loss"),
        ("loss_dev", "val_loss"),
        ("loss_val_epoch", "val_loss"),
        ("loss_tr", "loss"),
        ("loss_val_step", None),
        ("loss_train_epoch", None),
        ("loss_val_train", None),  # two splits: nobody's
    ],
)
def test_split_and_granularity_words_in_a_loss_name(key, field):
    assert field_for(key) == field
    if field is not None:
        assert loss_role(key) is None  # (a split's loss is never a term of the objective)


@pytest.mark.parametrize("key", ["total/steps", "total/timesteps", "time/total_timesteps"])
def test_the_baselines_loggers_step_columns(key):
    # OpenAI baselines' DDPG progress.csv: "total/steps" beside "total/epochs" (fresh67: read by row index)
    assert field_for(key) == "step"


def test_millisecond_timestamps_in_any_reader(tmp_path):
    """A Unix time above 1e11 is milliseconds (the per-record path and the JSONL columns path)."""
    assert seconds(1664787192871.0) == pytest.approx(1664787192.871) and seconds(1.7e9) == 1.7e9
    rows = "".join(f"{1664787192871 + 60000 * i},{i},{2.0 - i / 100}\n" for i in range(40))
    _, recs, _ = read(write(tmp_path, "log.csv", "timestamp,step,loss\n" + rows))
    assert recs[1].time - recs[0].time == pytest.approx(60.0)
    text = "".join(
        json.dumps({"step": i, "loss": 2.0 - i / 100, "_timestamp": 1664787192871 + 60000 * i}) + "\n"
        for i in range(40)
    )
    _, recs, _ = read(write(tmp_path, "m.jsonl", text))
    from tsm_tui.core.frame import expand

    recs = list(expand(recs))
    assert recs[1].time - recs[0].time == pytest.approx(60.0)
    text = "".join(json.dumps({"step": i, "loss": 1.0, "_timestamp": 1.7e9 + i}) + "\n" for i in range(40))
    _, recs, _ = read(write(tmp_path, "s.jsonl", text))
    assert list(expand(recs))[1].time == 1.7e9 + 1  # seconds stay seconds


def test_a_key_with_a_trailing_colon_is_its_name():
    # wandb_0_12_gnn_flat_loss (private): wandb.log({"train loss:": ..., "validation loss:": ...})
    assert normalise("train loss:") == "train_loss" and field_for("train loss:") == "loss"
    assert field_for("validation loss:") == "val_loss" and field_for("lr=") == "lr"
    assert normalise(":") == ""


ROOT = Path(__file__).resolve().parents[2]


F10 = ROOT / "bench" / "corpus" / "fresh10"


MONITOR = F10 / "nanogpt_jsonl_monitor_grad_spikes" / "reports" / "monitor.jsonl"


# ------------------------------------------------------------------ ratios are no loss terms
def test_a_loss_named_with_its_unit_is_the_loss():
    """A prose name that says what the loss is averaged over ("loss per token", GNTPP's "... Log-Loss per
    event") is that loss; a ratio key written as one word (``loss_per_token``, below) is not."""
    assert field_for(normalise("loss per token")) == "loss"
    assert field_for(normalise("Train Loss per event")) == "loss"
    assert field_for(normalise("val loss per sample")) == "val_loss"
    assert normalise("loss per second") == "loss_per_second"  # (not a unit a loss is averaged over)
    assert loss_role("loss_per_token") is None


def test_lightnings_fit_stage_scope_is_the_training():
    """stable-pretraining's CSVLogger names the training stage ``fit/`` (``fit/loss_step`` beside a probe's
    ``train/inet_probe_loss_step``: fresh83's LeJEPA run read "no loss values in the log")."""
    assert field_for("fit/loss_step") == "loss" and field_for("fit/loss") == "loss"
    assert field_for("fit/loss_epoch") is None  # (a summary beside the per-step series, as train/loss_epoch)
    roles = key_roles(["fit/loss_step", "fit/inv_step", "fit/sigreg_step", "train/inet_probe_loss_step"])
    assert "fit/loss_step" not in roles  # (the loss itself, no term)


def test_a_ratio_with_the_loss_is_no_loss_term():
    # reports/monitor.jsonl: "gn_over_loss" is grad_norm / loss (0.2485 = 2.9661 / 11.9345 at iter 0)
    first = json.loads(MONITOR.open(encoding="utf-8").readline())
    assert abs(first["gn_over_loss"] - first["grad_norm"] / first["loss"]) < 1e-12
    for key in ("gn_over_loss", "loss_per_token", "train/loss_per_sample", "loss_div_tokens", "gnOverLoss"):
        assert loss_role(key) is None, key
    # terms stay terms; a loss computed per token is still a loss; the other rules are unchanged
    for key in ("aux_loss", "train/cls_loss", "per_token_loss", "overlap_loss", "loss_z"):
        assert loss_role(key) == "term", key
    assert loss_role("loss_ratio") is None and loss_role("gn/loss") is None
    assert field_for("loss_scale") == "loss_scale" and loss_role("loss_scale") is None
    assert objective(key_roles(["box_loss", "gn_over_loss", "cls_loss"])) == ("sum", ("box_loss", "cls_loss"))


def test_the_monitor_lines_name_no_ratio_in_their_objective(tmp_path):
    lines = MONITOR.read_text(encoding="utf-8").splitlines(keepends=True)[:800]
    _, recs, reader = read(write(tmp_path, "monitor.jsonl", "".join(lines)))
    assert len(recs) == 800 and recs[-1].step == 799
    assert "gn_over_loss" not in (reader.objective_note() or "")


def test_the_monitor_log_report_names_no_ratio_component(capsys):
    rc, rep, _ = report_rc(MONITOR.parent.parent, capsys)
    assert rc in (0, 1) and rep is not None
    assert not any("gn_over_loss" in (a.get("message") or "") for a in rep["alerts"])
    spike = next(c for c in rep["checks"] if c["id"] == "loss_spike")
    assert spike["status"] == "PASS"
    assert "gn_over_loss" not in json.dumps([f.get("objective") for f in rep["files"]])


VERL = Path(__file__).resolve().parents[2] / "bench" / "corpus" / "fresh13" / "wandb_verl_agent_distill_grad_blowup"
VERL_RUN = VERL / "wandb" / "run-20251130_144822-gjvwlq13"


def feed_text(lines: list[str]) -> list:
    r = KeyValueTextReader("train.log")
    r.text_tap = None
    out = []
    for ln in lines:
        out += r.feed(ln)
    return out + r.flush()


# ------------------------------------------------------------------ role-prefixed names
# RL trainers' names (verl's ``actor/grad_norm``, ``actor/lr`` beside ``critic/grad_norm``; OpenRLHF's
# ``actor_lr`` / ``train/actor_lr``; TRL's ``policy/...``): the actor's (policy's) grad norm and LR are
# the run's, another model's never, in every reader (``fields.ROLE_METRIC``). The verl W&B run is
# committed (bench/corpus/fresh13/wandb_verl_agent_distill_grad_blowup, SOURCES.md: Apache-2.0).
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
    rep = report_json(tmp_path, capsys)
    assert rep["sources"]["grad_norm"]["key"] == "actor/grad_norm"
    assert rep["sources"]["lr"]["key"] == "actor/lr"
    gn = next(c for c in rep["checks"] if c["id"] == "grad_norm")
    assert gn["status"] == "WARN" and "spike" in gn["summary"] and "not logged" not in gn["summary"]
    # the blow-up from step 36 on (0.70-0.99 before, 10-19 from 38: notes/fresh13.md)
    steps = [a["step"] for a in rep["alerts"] if a["check"] == "grad_norm" and a["severity"] != "info"]
    assert any(34 <= s <= 40 for s in steps), steps


# ------------------------------------------------------------------ verl's console lines
# ``step:1 - global_seqlen/min:158003 - actor/pg_loss:np.float64(0.0204) - ...`` (NumPy 2 scalar
# reprs), after a "validation generation end" line that opens no evaluation section.
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
    recs = feed_text(
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
    recs = feed_text(lines)
    assert [r.step for r in recs] == [1, 2, 3, 4, 5] and all(r.val_loss is None for r in recs)
    # a section header is still one
    recs = feed_text(["Validation", "step:1 loss: 2.0", "Evaluation done"])
    assert recs and recs[0].val_loss == 2.0


# ------------------------------------------------------------------ plural names of a history's lists, glued abbreviations
@pytest.mark.parametrize(
    "key, field",
    [
        ("train_losses", "loss"),
        ("losses", None),  # a bare list name: a record's terms (``losses=[0.4, inf]``), not the loss
        ("epoch_losses", "loss"),
        ("val_losses", "val_loss"),
        ("validation_losses", "val_loss"),
        ("g_losses", None),  # a GAN's generator: a model's loss (loss_role), never the run's alias
        ("trloss", "loss"),  # glued abbreviations (fresh15's GNN print: "trloss: 1.4891, ... valloss:")
        ("trainloss", "loss"),
        ("valloss", "val_loss"),
        ("validloss", "val_loss"),
        ("evalloss", "val_loss"),
    ],
)
def test_plural_and_glued_loss_names(key, field):
    assert field_for(key) == field


def test_a_json_history_of_loss_lists_is_read(tmp_path, capsys):
    # fresh16's results/training_history.json (MIT, committed): {"train_losses": [...], "val_losses":
    # [...]} of a 50-epoch diffusion loop; "nothing readable" while the plural names were unknown
    src = Path(BENCH) / "corpus" / "fresh16" / "json_history_preference_diffusion_lists"
    shutil.copytree(src, tmp_path / "run")
    rep = report_json(tmp_path / "run", capsys)
    assert rep["steps"]["records"] == 50
    assert {c["id"]: c["status"] for c in rep["checks"]}["overfitting"] == "PASS"  # the val losses read


def test_a_split_key_makes_an_evaluation_records_loss_the_validation_loss(tmp_path):
    """fresh18's CS336 runs: one metrics.jsonl holds {"step": 50, "split": "train", "loss": 4.51}
    and {"step": 50, "split": "val", "loss": 4.51}; read as one loss series, every step was a
    duplicate and the evaluations' losses training losses. The split's value scopes the record."""
    rows = []
    for s in (50, 100, 150):
        rows.append({"step": s, "split": "train", "loss": 5.0 - s / 100, "learning_rate": 1e-3})
        rows.append({"step": s, "split": "val", "loss": 5.5 - s / 100, "learning_rate": 1e-3})
    _, recs, reader = read(write(tmp_path, "metrics.jsonl", "".join(json.dumps(r) + "\n" for r in rows)))
    assert [(r.step, r.loss, r.val_loss) for r in recs] == [
        (50, 4.5, None),
        (50, None, 5.0),
        (100, 4.0, None),
        (100, None, 4.5),
        (150, 3.5, None),
        (150, None, 4.0),
    ]
    assert not reader.skip_reasons
    # a PyTorch tutorial's CSV: epoch,phase,loss,acc (any of the split words; "test" an evaluation)
    text = "epoch,phase,loss,acc\n" + "".join(
        f"{e},train,{2 - e / 10},0.5\n{e},{'test' if e % 2 else 'Validation'},{2.2 - e / 10},0.4\n" for e in range(1, 5)
    )
    _, recs, _ = read(write(tmp_path, "log.csv", text))
    assert [r.loss for r in recs if r.loss is not None] == pytest.approx([1.9, 1.8, 1.7, 1.6])
    assert [r.val_loss for r in recs if r.val_loss is not None] == pytest.approx([2.1, 2.0, 1.9, 1.8])
    # a "mode" that names no split (a run's "mode": "pretrain") changes nothing
    rows = [{"step": s, "mode": "pretrain", "loss": 3.0} for s in (1, 2)]
    _, recs, _ = read(write(tmp_path, "m.jsonl", "".join(json.dumps(r) + "\n" for r in rows)))
    assert [r.loss for r in recs] == [3.0, 3.0]


@pytest.mark.parametrize("key", ["grad_norm_pre_clip", "grad_norm_before_clip", "unclipped_grad_norm"])
def test_the_grad_norm_before_clipping_is_the_grad_norm(key):
    assert field_for(key) == "grad_norm"
    assert field_for("grad_norm_post_clip") is None  # (held at the clip threshold: it hides a spike)


@pytest.mark.parametrize("key", ["grad_norm_avg", "avg_grad_norm", "grad_norm_mean", "mean_grad_norm"])
def test_the_grad_norm_averaged_over_the_logging_interval_is_the_grad_norm(key, tmp_path):
    # fresh23's TinyRefine CSV (private): "grad_norm_avg" every 100 steps read "grad norm not logged"
    assert field_for(key) == "grad_norm"
    rows = [f"step,loss,{key}"] + [f"{s},{3 - s / 1000},{18.8 - s / 100}" for s in range(100, 1100, 100)]
    _, recs, _ = read(write(tmp_path, "training_history.csv", "\n".join(rows) + "\n"))
    assert [r.grad_norm for r in recs[:2]] == [17.8, 16.8]


def test_a_training_loss_per_epoch_is_the_loss_of_a_csv_with_no_other(tmp_path):
    """fresh19's EEG transformer (Lightning CSVLogger, on_step=False): epoch,step,train_acc_epoch,
    train_loss_epoch,val_acc,val_loss. train_loss_epoch is no loss beside a per-step series (a
    summary on its own axis); alone, it is the loss (its 402 NaN epochs read "nothing judged")."""
    rows = ["epoch,step,train_acc_epoch,train_loss_epoch,val_acc,val_loss"]
    for e in range(4):
        rows += [f"{e},{2 * e + 2},,,0.24,1.38", f"{e},{2 * e + 2},0.27,{1.38 - e / 100 if e < 3 else 'nan'},,"]
    _, recs, _ = read(write(tmp_path, "metrics.csv", "\n".join(rows) + "\n"))
    train = [r.loss for r in recs if r.loss is not None]
    assert train[:3] == pytest.approx([1.38, 1.37, 1.36]) and math.isnan(train[3])
    rows = ["epoch,step,train_loss_step,train_loss_epoch"] + [
        f"0,{s},{2 - s / 100},{'' if s < 9 else 1.9}" for s in range(10)
    ]
    _, recs, _ = read(write(tmp_path, "m2.csv", "\n".join(rows) + "\n"))
    assert [r.loss for r in recs][:2] == [2.0, 1.99] and len([r for r in recs if r.loss is not None]) == 10


def test_rllib_learner_stats_keys():
    # RLlib's progress.csv (fresh34): the learner's stats under a path of its policy
    from tsm_tui.sources.fields import field_for

    assert field_for("info/learner/default_policy/learner_stats/total_loss") == "loss"
    assert field_for("info/learner/default_policy/learner_stats/cur_lr") == "lr"
    assert field_for("info/learner/default_policy/learner_stats/grad_gnorm") == "grad_norm"


def test_a_log_of_perplexity_alone_is_read_as_its_log(tmp_path, capsys):
    # fresh69's NMTGMinor prints "Epoch 1, 100/1056; ; ppl: <151 digits>.00 ; lr: 1.0" and no loss: nothing
    # was read. A training perplexity is the exp of the per-token cross-entropy: its log is the loss
    from tsm_tui.cli import main

    p = tmp_path / "train.log"
    lines = [f"Epoch  1, {i:5d}/ 1056; ; ppl: {v:.2f} ; lr: 1.0000000" for i, v in ((1, 16615.48), (100, 2.07e151))]
    p.write_text("\n".join(lines + ["Epoch  1,   200/ 1056; ; ppl: " + "6" * 282 + ".00 ; lr: 1.0000000"]) + "\n")
    main([str(p), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert d["steps"]["count"] == 3
    (f,) = [f for f in d["files"] if f.get("used")]
    assert f["objective"] == "ppl (a perplexity, read as its log, the cross-entropy: no loss logged)"
    from tsm_tui.sources import reading, registry

    reader, _ = registry.open_reader(str(p))
    got = [r.loss for r in reading.read_records(str(p), reader)]
    want = [math.log(16615.48), math.log(2.07e151), math.log(float("6" * 282))]
    assert all(math.isclose(a, b, rel_tol=1e-6) for a, b in zip(got, want)) and len(got) == 3
    assert field_for("val_ppl") is None and loss_role("ppl") is None  # (never a term beside a loss)


@pytest.mark.parametrize(
    "key, field",
    [
        ("grad_2_norm_step", "grad_norm"),  # (fresh86's DiffWave CSVLogger: "not in the log: grad norm")
        ("grad_2_norm", "grad_norm"),
        ("grad_norm_step", "grad_norm"),
        ("train/grad_norm_step", "grad_norm"),
        ("grad_2.0_norm_total_step", "grad_norm"),
        ("grad_2_norm_epoch", None),  # (the epoch's mean beside the per-step series)
        ("grad_norm_epoch", None),
    ],
)
def test_lightnings_step_suffix_on_a_grad_norm(key, field):
    assert field_for(key) == field


def test_a_sum_beside_unnamed_loss_terms_is_the_total(tmp_path):
    """TabDDPM prints its two diffusion terms and their sum ("Step 500/30000 MLoss: 0.0 GLoss: 0.2917 Sum: 0.2917",
    fresh88: exit 2): the sum is the loss, as a bare "total" is."""
    text = "".join(
        f"Step {500 * i}/30000 MLoss: 0.0 GLoss: {0.3 - i / 1000:.4f} Sum: {0.3 - i / 1000:.4f}\n" for i in range(1, 41)
    )
    fmt, recs, reader = read(write(tmp_path, "results/training_log.txt", text))
    assert [r.step for r in recs] == [500 * i for i in range(1, 41)]
    assert recs[0].loss == 0.299 and reader.objective == ("total", ("Sum",))


def test_the_trainers_own_scope_is_trainings():
    # fresh113's MDLM Lightning CSV: "trainer/loss" and "trainer/lr" on rows of their own (the reader took the
    # epoch-level "train/nll" and said "LR not logged")
    from tsm_tui.sources.fields import field_for

    assert [field_for(k) for k in ("trainer/loss", "trainer/lr", "trainer/global_step")] == ["loss", "lr", "step"]
