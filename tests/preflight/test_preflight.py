"""Pre-flight check (issue #6): config readers, the seven checks, the CLI."""

from __future__ import annotations

import json
import os

import pytest

from tsm_tui import cli
from tsm_tui.preflight import run_checks
from tsm_tui.preflight.plan import count_params, finalize_plan, parse_arg_list, read_plan
from helpers import paths

DATA = os.path.join(paths.DATA, "preflight")
IDS = ["lr_schedule", "batch_size", "grad_norm", "precision", "logging", "checkpoints", "optimizer"]


def d(name):
    return os.path.join(DATA, name)


def checks(name, **flags):
    plan = read_plan(d(name))
    for k, v in flags.items():
        plan.put(k, v, "command line", override=True)
    plan = finalize_plan(plan)
    return plan, {c.id: c for c in run_checks(plan)}


def statuses(name):
    return {k: c.status.value for k, c in checks(name)[1].items()}


def run_cli(argv, capsys):
    rc = cli.main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


# --- parameter counts ---------------------------------------------------------------------


def test_llama_7b_param_count():
    with open(d("llama_7b/config.json")) as f:
        n, how, _ = count_params(json.load(f))
    assert n == 6_738_415_616  # the published LLaMA-7B count
    assert "gated" in how


def test_gpt2_param_count():
    with open(d("hf_logging_500/config.json")) as f:
        n, _, _ = count_params(json.load(f))
    assert n == 124_439_808  # GPT-2 small


def test_gqa_and_tied_embeddings():
    base = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "tie_word_embeddings": False,
    }
    full, _, _ = count_params(base)
    gqa, _, _ = count_params({**base, "num_key_value_heads": 8})
    # K and V shrink from 32 to 8 heads of 128: 2 * 4096 * (4096 - 1024) per layer
    assert full - gqa == 32 * 2 * 4096 * 3072
    assert 8.0e9 < gqa < 8.1e9  # Llama 3 8B: 8.03B
    tied, _, _ = count_params({**base, "num_key_value_heads": 8, "tie_word_embeddings": True})
    assert gqa - tied == 128256 * 4096


def test_nanogpt_param_count():
    plan = finalize_plan(read_plan(d("nanogpt_shakespeare_char.yaml")))
    # nanoGPT prints 10.65M (without the 256 x 384 position table)
    assert plan.params - 256 * 384 == pytest.approx(10.65e6, rel=0.001)


def test_megatron_args_and_shell_variables():
    m = parse_arg_list(
        "GBS=512\ntorchrun pretrain_gpt.py --num-layers 24 \\\n  --global-batch-size $GBS --bf16 --lr=3e-4\n"
    )
    assert m == {"num_layers": 24, "global_batch_size": 512, "bf16": True, "lr": 3e-4}
    plan = finalize_plan(read_plan(d("megatron_gpt_1.3b.sh")))
    assert plan.params == pytest.approx(1.316e9, rel=0.01)
    assert (plan.total_steps, plan.warmup_steps, plan.batch_size, plan.seq_len) == (286102, 2000, 512, 2048)
    assert (plan.clip, plan.precision, plan.beta2, plan.save_steps, plan.logging_steps) == (1.0, "bf16", 0.95, 1000, 1)


# --- readers ------------------------------------------------------------------------------


def test_hf_training_args_json():
    plan = finalize_plan(read_plan(d("hf_logging_500")))
    assert plan.framework == "hf"
    assert plan.total_steps == 10000
    assert plan.warmup_steps == 300  # warmup_ratio 0.03 x max_steps
    assert plan.batch_size == 64  # 8 per device x 8 accumulation x (world size 1, assumed)
    assert plan.seq_len == 1024  # from config.json, with a note
    assert plan.logging_nan_inf_filter is True
    assert any("training_args.bin ignored" in n for n in plan.notes)
    assert any("world size" in n for n in plan.notes)


def test_hf_yaml_defaults_and_epochs(tmp_path):
    p = tmp_path / "sft.yaml"
    p.write_text(
        "model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\nper_device_train_batch_size: 2\n"
        "gradient_accumulation_steps: 8\nlearning_rate: 1.0e-4\nnum_train_epochs: 3.0\nfp16: true\n"
    )
    plan = finalize_plan(read_plan(str(p)))
    assert plan.finetune is True
    assert plan.total_steps is None
    assert any("epoch-based" in n and "total steps unknown" in n for n in plan.notes)
    # keys a LLaMA-Factory YAML leaves out take HF's defaults, and say so
    assert plan.logging_steps == 500 and "default" in plan.origin["logging_steps"]
    assert plan.beta2 == 0.999 and plan.clip == 1.0
    by = {c.id: c for c in run_checks(plan)}
    assert by["lr_schedule"].status.value == "WARN"  # no warm-up on a fine-tune: WARN, not FAIL
    assert by["precision"].status.value == "WARN"  # fp16 with HF's dynamic GradScaler
    assert "set bf16=true (fp16=false)" in by["precision"].actions
    assert "HF's default logging_steps=500" in by["logging"].summary


def test_epochs_with_dataset_size(tmp_path):
    p = tmp_path / "args.json"
    p.write_text(
        json.dumps(
            {
                "per_device_train_batch_size": 8,
                "gradient_accumulation_steps": 4,
                "world_size": 2,
                "num_train_epochs": 2,
                "max_steps": -1,
                "num_train_samples": 6400,
                "warmup_ratio": 0.05,
            }
        )
    )
    plan = finalize_plan(read_plan(str(p)))
    assert plan.batch_size == 64
    assert plan.total_steps == 200  # 2 epochs x 100 steps
    assert plan.warmup_steps == 10


def test_torchtitan_toml():
    plan = finalize_plan(read_plan(d("torchtitan_llama3_8b.toml")))
    assert plan.framework == "torchtitan"
    assert (plan.params, plan.total_steps, plan.warmup_steps, plan.peak_lr) == (8e9, 100000, 2000, 3e-4)
    assert (plan.batch_size, plan.seq_len, plan.clip, plan.precision) == (512, 8192, 1.0, "bf16")
    assert (plan.save_steps, plan.logging_steps, plan.eps) == (1000, 1, 1e-8)


def test_lightning_hparams():
    plan = finalize_plan(read_plan(d("lightning")))
    assert plan.framework == "lightning"
    assert plan.batch_size == 16 * 4 * 8
    assert plan.precision == "bf16" and plan.beta2 == 0.95 and plan.clip == 1.0


def test_olmo_yaml_token_units():
    plan = finalize_plan(read_plan(d("olmo2_7b.yaml")))
    assert plan.warmup_steps == 2000  # 8,388,608,000 tokens / (1024 x 4096)
    assert plan.batch_size == 1024 and plan.seq_len == 4096
    assert plan.beta2 == 0.95 and plan.eps == 1e-8 and plan.min_lr_ratio == 0.1


def test_command_line_overrides():
    plan = read_plan(d("gpt3_125m.yaml"))
    plan.put("total_steps", 1000, "command line", override=True)
    plan.total_tokens = None
    plan = finalize_plan(plan)
    assert plan.total_steps == 1000
    assert plan.total_tokens == 1000 * 0.5e6


# --- known-good configs pass ----------------------------------------------------------------

GOOD = [
    "gpt3_125m.yaml",
    "gpt3_350m.yaml",
    "gpt3_760m.yaml",
    "gpt3_1.3b.yaml",
    "gpt3_2.7b.yaml",
    "gpt3_6.7b.yaml",
    "gpt3_13b.yaml",
    "llama_7b",
    "olmo2_7b.yaml",
    "nanogpt_shakespeare_char.yaml",
    "torchtitan_llama3_8b.toml",
    "megatron_gpt_1.3b.sh",
    "lightning",
]


#: below the published batch references (GPT-3 Table 2.1 from 100M, DeepSeek B_opt(C) from
#: 1e16 FLOPs): no batch verdict, as the monitor's Batch Size check (one reference rule)
NO_BATCH_REF = {"nanogpt_shakespeare_char.yaml"}


@pytest.mark.parametrize("name", GOOD)
def test_known_good_configs_pass(name):
    st = statuses(name)
    assert list(st) == IDS
    want = {i: "PASS" for i in IDS}
    if name in NO_BATCH_REF:
        want["batch_size"] = "SKIP"
    assert st == want, st


def test_references_are_the_monitors():
    """Pre-flight and the monitor judge a size by one reference rule: a 10.7M-parameter
    nanoGPT gets the GPT-3 fit for its LR (not DeepSeek's fit extrapolated to 5e15 FLOPs)
    and no batch reference; a 121k-parameter toy gets neither (no advice to raise its batch)."""
    plan, by = checks("nanogpt_shakespeare_char.yaml")
    assert "GPT-3 Table 2.1 fit for 10.7M" in by["lr_schedule"].summary
    assert by["batch_size"].summary.startswith("10.7M params is below the published references")
    assert not by["batch_size"].actions
    toy = {
        c.id: c
        for c in run_checks(finalize_plan(read_plan(os.path.join(paths.ROOT, "sample_runs", "healthy", "config.json"))))
    }
    assert "no published reference for 121k params" in toy["lr_schedule"].summary
    assert toy["batch_size"].status.value == "SKIP" and not toy["batch_size"].actions


# --- known-bad configs: the right WARN / FAIL, with numbers ------------------------------------


def only(st, expected):
    """The named checks have the expected status, every other one PASSes."""
    assert st == {i: expected.get(i, "PASS") for i in IDS}, st


def test_no_warmup_fails():
    plan, by = checks("bad_no_warmup.yaml")
    only({k: c.status.value for k, c in by.items()}, {"lr_schedule": "FAIL"})
    c = by["lr_schedule"]
    assert "no LR warm-up" in c.summary
    assert "set warmup_steps to 12000-30000 (2-5% of 600000)" in c.actions[0]


def test_short_warmup_warns(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("params: 125M\nlearning_rate: 6e-4\ntotal_steps: 15000\nwarmup_steps: 100\n")
    _, by = checks(str(p))
    c = by["lr_schedule"]
    assert c.status.value == "WARN"
    assert "0.67% of 15000" in c.summary
    assert "set warmup_steps to 300-750 (2-5% of 15000)" in c.actions


def test_lr_10x_fails_with_numbers():
    _, by = checks("bad_lr_10x.yaml")
    only({k: c.status.value for k, c in by.items()}, {"lr_schedule": "FAIL"})
    c = by["lr_schedule"]
    assert "peak LR 0.009 is 10.1x the reference 8.91e-4" in c.summary
    assert "GPT-3 Table 2.1: 6e-4" in c.summary
    assert c.actions[0].startswith("lower learning_rate from 0.009 to <= 0.001782")
    assert "DeepSeek" in c.reference and "GPT-3 Table 2.1" in c.reference


def test_lr_against_gpt3_table_when_tokens_unknown(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("params: 125M\nlearning_rate: 6e-3\n")
    _, by = checks(str(p))
    c = by["lr_schedule"]
    assert c.status.value == "FAIL"
    assert "lower learning_rate from 0.006 to <= 0.0012 (2x GPT-3 Table 2.1 for 125M)" in c.actions
    p.write_text("params: 125M\nlearning_rate: 2.4e-3\n")  # 4x: WARN
    assert checks(str(p))[1]["lr_schedule"].status.value == "WARN"


def test_fp16_static_loss_scale_fails():
    _, by = checks("bad_fp16_static_scale.yaml")
    only({k: c.status.value for k, c in by.items()}, {"precision": "FAIL"})
    c = by["precision"]
    assert "static loss scale 1" in c.summary
    assert c.actions[0].startswith("set precision: bf16")


def test_megatron_fp16_static_and_dynamic(tmp_path):
    p = tmp_path / "run.sh"
    base = (
        "--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048 --global-batch-size 512 "
        "--lr 2e-4 --train-iters 100000 --lr-warmup-iters 2000 --save ckpt --save-interval 1000 --fp16"
    )
    p.write_text(base + " --loss-scale 4096\n")
    c = checks(str(p))[1]["precision"]
    assert c.status.value == "FAIL" and "static loss scale 4096" in c.summary
    assert "use --bf16 instead of --fp16" in c.actions[0]
    p.write_text(base + "\n")  # no --loss-scale: Megatron's dynamic scaler
    assert checks(str(p))[1]["precision"].status.value == "WARN"


def test_megatron_lengths_in_samples_are_steps_over_its_defaults(tmp_path):
    """--train-samples and --lr-warmup-samples are steps of the global batch; Megatron's default
    lr_warmup_iters = 0, put first, made a --lr-warmup-samples run read "no LR warm-up" (FAIL)."""
    p = tmp_path / "a.sh"
    p.write_text(
        "torchrun pretrain_gpt.py --num-layers 24 --hidden-size 1024 --num-attention-heads 16 --seq-length 2048 "
        "--micro-batch-size 4 --global-batch-size 256 --train-samples 2560000 --lr-warmup-samples 25600 "
        "--lr 3e-4 --lr-decay-style cosine --save-interval 1000\n"
    )
    plan, by = checks(str(p))
    assert (plan.total_steps, plan.warmup_steps) == (10000, 100)
    assert by["lr_schedule"].status.value == "PASS" and "warm-up 100 steps" in by["lr_schedule"].summary
    # --lr-warmup-iters given: it holds (the samples rule only fills what a default set)
    p.write_text(p.read_text().replace("--lr-warmup-samples 25600", "--lr-warmup-iters 300 --lr-warmup-samples 25600"))
    assert checks(str(p))[0].warmup_steps == 300


def test_logging_every_500_steps_warns():
    _, by = checks("hf_logging_500")
    only({k: c.status.value for k, c in by.items()}, {"logging": "WARN"})
    c = by["logging"]
    assert "every 500 steps" in c.summary and "averaged away" in c.summary
    assert "logging_nan_inf_filter=true" in c.summary
    assert c.actions == ["set logging_steps=1", "set logging_nan_inf_filter=false"]


def test_no_clipping_warns_and_fails_with_fp16(tmp_path):
    _, by = checks("bad_no_clip.yaml")
    only({k: c.status.value for k, c in by.items()}, {"grad_norm": "WARN"})
    assert by["grad_norm"].actions == ["set grad_clip=1.0 (GPT-3, LLaMA, OLMo 2, DeepSeek all clip at 1.0)"]
    src = open(d("bad_no_clip.yaml")).read().replace("precision: bf16", "precision: fp16")
    p = tmp_path / "c.yaml"
    p.write_text(src)
    c = checks(str(p))[1]["grad_norm"]
    assert c.status.value == "FAIL" and "fp16" in c.summary


def test_tiny_batch_for_large_model_warns():
    _, by = checks("bad_tiny_batch.yaml")
    only({k: c.status.value for k, c in by.items()}, {"batch_size": "WARN"})
    c = by["batch_size"]
    assert "batch 16.4k tokens is 81x below the 1.33M-token reference" in c.summary
    assert "raise the global batch to >= 133k tokens = 66 sequences of 2048" in c.actions[0]


def test_checkpoints_and_optimizer_findings(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(
        "params: 7B\nlearning_rate: 3e-4\ntotal_steps: 20000\nwarmup_steps: 400\nadam_beta2: 0.999\n"
        "adam_eps: 1e-5\nsave_steps: 5000\n"
    )
    _, by = checks(str(p))
    assert by["checkpoints"].status.value == "WARN" and "25% of 20000" in by["checkpoints"].summary
    assert "save_steps <= 1000" in by["checkpoints"].actions[0]
    o = by["optimizer"]
    assert o.status.value == "WARN"
    assert "beta2 0.999 for 7B params" in o.summary and "eps 1e-05" in o.summary
    assert "warm-up 400 steps < 2/(1-beta2) = 2000 steps" in o.summary
    assert {"set adam_beta2=0.95", "set adam_eps=1e-8"} <= set(o.actions)


def test_unknowns_skip_with_reason(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("learning_rate: 3e-4\nmax_grad_norm: 1.0\n")
    _, by = checks(str(p))
    assert by["batch_size"].status.value == "SKIP" and "--params" in by["batch_size"].summary
    assert by["precision"].status.value == "SKIP"
    assert by["optimizer"].status.value == "SKIP"
    assert by["checkpoints"].status.value == "WARN"  # none configured


# --- CLI: text, JSON, exit codes, bad input -----------------------------------------------------


def test_cli_text_shape_and_exit_codes(capsys):
    rc, out, err = run_cli(["--preflight", d("llama_7b")], capsys)
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "=== Pre-flight Check ==="
    assert all(line.startswith("[PASS] ") for line in lines[1:8])
    assert "CRITICAL ISSUES: 0" in lines and "WARNINGS: 0" in lines and "Recommended Actions:" in lines
    assert "Configuration read:" in lines
    assert any(line.startswith("  params = 6.74B  [config.json: from the architecture") for line in lines)
    rc, out, _ = run_cli(["--preflight", d("bad_no_warmup.yaml")], capsys)
    assert rc == 1
    assert "[FAIL] LR Schedule - no LR warm-up" in out and "CRITICAL ISSUES: 1" in out
    assert "1. set warmup_steps to 12000-30000" in out


def test_cli_json_shape(capsys):
    rc, out, _ = run_cli(["--preflight", d("hf_logging_500"), "--json"], capsys)
    assert rc == 0
    obj = json.loads(out)
    assert obj["schema"] == 1 and obj["kind"] == "preflight"
    assert obj["path"] == d("hf_logging_500")
    assert [c["id"] for c in obj["checks"]] == IDS
    for c in obj["checks"]:
        assert {"id", "title", "status", "summary", "reference"} <= set(c)
        assert c["reference"]
    assert obj["critical"] == 0 and obj["warnings"] == 1
    assert obj["actions"] == ["set logging_steps=1", "set logging_nan_inf_filter=false"]
    assert obj["config"]["logging_steps"] == 500 and obj["config"]["params"] == 124439808


def test_cli_flags_override(capsys):
    rc, out, _ = run_cli(
        [
            "--preflight",
            d("gpt3_125m.yaml"),
            "--json",
            "--peak-lr",
            "6e-3",
            "--total-steps",
            "15000",
            "--warmup-steps",
            "0",
        ],
        capsys,
    )
    obj = json.loads(out)
    assert rc == 1
    assert obj["config"]["peak_lr"] == 6e-3 and obj["config"]["total_steps"] == 15000
    assert obj["sources"]["peak_lr"] == "command line: --peak-lr"
    lr = next(c for c in obj["checks"] if c["id"] == "lr_schedule")
    assert lr["status"] == "FAIL"
    assert "set warmup_steps to 300-750 (2-5% of 15000)" in lr["actions"][0] or any(
        "300-750" in a for a in lr["actions"]
    )


@pytest.mark.parametrize(
    "target,words",
    [
        ("missing", "no such file or directory"),
        ("pickle_only", "never unpickled"),
        ("corrupt.yaml", "cannot parse"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, target, words):
    path = str(tmp_path / "nope") if target == "missing" else d(target)
    rc, out, err = run_cli(["--preflight", path], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_empty_directory_exits_2(tmp_path, capsys):
    rc, _, err = run_cli(["--preflight", str(tmp_path)], capsys)
    assert rc == 2 and "no run configuration found" in err


def test_never_unpickles(tmp_path, monkeypatch):
    import pickle

    (tmp_path / "training_args.bin").write_bytes(b"not really a pickle")
    (tmp_path / "train.yaml").write_text("learning_rate: 3e-4\n")

    def boom(*a, **k):
        raise AssertionError("unpickled")

    monkeypatch.setattr(pickle, "load", boom)
    monkeypatch.setattr(pickle, "loads", boom)
    plan = read_plan(str(tmp_path))
    assert plan.peak_lr == 3e-4
    assert any("pickle" in n for n in plan.notes)
