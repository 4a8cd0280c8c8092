"""One config-key table (sources/config_keys.py): the monitor (sources/config.apply_mapping)
and pre-flight (preflight/plan.apply_plan) read one config one way. Each case is a drift
the two readers had before the table, with the reading that won."""

from __future__ import annotations

import pytest

from tsm_tui.core.numbers import whole
from tsm_tui.core.settings import RunInfo
from tsm_tui.preflight.plan import Plan, apply_plan, finalize_plan
from tsm_tui.sources.config import apply_mapping
from tsm_tui.sources.config_keys import KEYS, flatten, lookup, names, read, warmup_from_ratio

#: the settings both sides keep, compared field by field
SHARED = (
    "total_steps",
    "warmup_steps",
    "peak_lr",
    "batch_tokens",
    "seq_len",
    "params",
    "clip",
    "logging_steps",
    "save_steps",
    "schedule",
    "beta2",
    "eps",
)


def both(mapping: dict, kind: str = "") -> tuple[RunInfo, Plan]:
    info = RunInfo()
    apply_mapping(info, mapping, "config")
    plan = Plan()
    apply_plan(plan, mapping, "config", kind)
    finalize_plan(plan)
    return info, plan


@pytest.mark.parametrize(
    "mapping, kind, want",
    [
        # DeepSpeed WarmupLR's warmup_num_steps: the monitor did not read it
        (
            {
                "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 300, "warmup_max_lr": 3e-4}},
                "train_batch_size": 256,
            },
            "",
            {"warmup_steps": 300, "peak_lr": 3e-4},
        ),
        # Axolotl's sequence_len: the monitor did not read it
        ({"base_model": "x", "sequence_len": 4096, "micro_batch_size": 2}, "", {"seq_len": 4096}),
        # HF warmup_ratio: ceil(ratio x max_steps) as TrainingArguments.get_warmup_steps (the monitor floored)
        ({"max_steps": 1001, "warmup_ratio": 0.03, "per_device_train_batch_size": 4}, "", {"warmup_steps": 31}),
        # a model size written "7B": the monitor could not read it
        ({"model_size": "7B", "max_steps": 1000}, "", {"params": 7e9}),
        # torchtitan's own keys ([training] steps / max_norm / seq_len, [metrics] log_freq, [checkpoint] interval)
        (
            {
                "job": {"dump_folder": "x"},
                "training": {"steps": 1000, "max_norm": 0.5, "seq_len": 2048},
                "metrics": {"log_freq": 5},
                "checkpoint": {"interval": 200},
                "lr_scheduler": {"warmup_steps": 20},
            },
            "toml",
            {
                "total_steps": 1000,
                "clip": 0.5,
                "seq_len": 2048,
                "logging_steps": 5,
                "save_steps": 200,
                "warmup_steps": 20,
            },
        ),
        # grad_clip: false is "no clipping" (pre-flight's reading; the monitor skipped booleans)
        ({"grad_clip": False, "max_iters": 100}, "", {"clip": 0.0}),
        # OLMo's t_warmup in tokens is no step count (the monitor took 2e6 tokens as 2e6 steps)
        (
            {
                "scheduler": {"name": "cosine_with_warmup", "units": "tokens", "t_warmup": 2_000_000},
                "optimizer": {"name": "adamw", "lr": 4e-4},
                "model": {"d_model": 64},
            },
            "",
            {"warmup_steps": None},
        ),
        # DeepSpeed's optimizer.params.eps under its bare name (the monitor had no bare "eps")
        (
            {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4, "eps": 1e-6, "betas": [0.9, 0.95]}}},
            "",
            {"eps": 1e-6, "beta2": 0.95, "peak_lr": 1e-4},
        ),
        # nanoGPT's decay_lr: True is its cosine (pre-flight's reading)
        ({"max_iters": 5000, "decay_lr": True, "warmup_iters": 100, "learning_rate": 6e-4}, "", {"schedule": "cosine"}),
        # torchtitan's [checkpoint] enable_checkpoint = false: no saves, whatever interval says (the
        # monitor read interval = 500 as saves planned); its model flavor "8B" is the model's size
        (
            {
                "job": {"dump_folder": "x"},
                "model": {"name": "llama3", "flavor": "8B"},
                "training": {"steps": 1000},
                "checkpoint": {"enable_checkpoint": False, "interval": 500},
            },
            "toml",
            {"save_strategy": "no", "params": 8e9},
        ),
        # GPT-3-style lengths in tokens (Brown et al. 2020 App. B: 375M warm-up tokens, 300B in all,
        # 0.5M per batch): steps of the batch (the monitor read neither)
        (
            {"batch_tokens": "0.5M", "total_tokens": "300B", "warmup_tokens": "375M", "learning_rate": 6e-4},
            "",
            {"total_steps": 600_000, "warmup_steps": 750},
        ),
        # Composer / OLMo max_duration in batches or tokens (the monitor did not read it)
        ({"max_duration": "10000ba", "global_train_batch_size": 512}, "", {"total_steps": 10_000}),
        (
            {"max_duration": "2e9tok", "global_train_batch_size": 512, "max_sequence_length": 2048},
            "",
            {"total_steps": 1907},
        ),
    ],
)
def test_monitor_and_preflight_read_one_config_one_way(mapping, kind, want):
    info, plan = both(mapping, kind)
    for f, v in want.items():
        assert getattr(info, f) == v, (f, getattr(info, f))
        assert getattr(plan, f) == v, (f, getattr(plan, f))
    for f in SHARED:  # and nothing else read differently
        a, b = getattr(info, f), getattr(plan, f)
        if a is not None and b is not None:
            assert a == pytest.approx(b) if isinstance(a, float) else str(a).lower() == str(b).lower(), (f, a, b)


def test_lookup_full_names_before_bare_names():
    flat = flatten({"learning_rate": 1e-3, "optimizer": {"lr": 3e-4}, "Max-Steps": 10})
    assert lookup(flat, *names("peak_lr")) == ("optimizer.lr", 3e-4)  # the optimizer's LR is the one used
    assert lookup(flat, "max_steps") == ("max_steps", 10)  # lower case, "-" as "_"
    flat = flatten({"model": {"lr": 1e-3}})
    assert lookup(flat, "lr") == ("lr", 1e-3)  # a nested key by its bare name
    assert lookup(flatten({"lr": None, "max_lr": 2e-4}), "lr", "max_lr") == ("max_lr", 2e-4)  # null: not set
    assert read(flatten({"total_batch_size": 524288}), "batch_tokens", "nanogpt") == ("total_batch_size", 524288)
    assert read(flatten({"total_batch_size": 64}), "batch_tokens", "hf") == (None, None)


def test_framework_first_keys_and_table_shape():
    assert names("total_steps", "torchtitan")[0] == "training.steps"
    assert names("total_steps")[0] == "max_steps"
    for field, key in KEYS.items():
        assert len(set(key.names)) == len(key.names), field  # no key twice in a row
        assert all(n == n.lower() and "-" not in n for n in key.names), field


@pytest.mark.parametrize(
    "ratio, total, want",
    [
        (0.03, 1001, 31),
        (0.03, 1000, 30),
        (1.0, 50, 50),
        (0.0, 100, None),
        (1.5, 100, None),
        (0.1, None, None),
        (float("inf"), 10, None),
    ],
)
def test_warmup_from_ratio(ratio, total, want):
    assert warmup_from_ratio(ratio, total) == want


@pytest.mark.parametrize(
    "mapping, kind, want",
    [
        # HF: one device's batch x accumulation (world size not given: 1, and pre-flight says so)
        ({"per_device_train_batch_size": 8, "gradient_accumulation_steps": 4, "max_steps": 10}, "", 32),
        # nanoGPT: gradient_accumulation_steps is already the total over all ranks
        ({"batch_size": 12, "gradient_accumulation_steps": 40, "block_size": 1024, "n_layer": 12}, "", 480),
        # DeepSpeed per-GPU micro batch x accumulation x 8 devices per node x 2 nodes
        (
            {"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 8, "nproc_per_node": 8, "nnodes": 2},
            "",
            512,
        ),
        # a plain config's batch_size is the global batch
        ({"batch_size": 64, "max_steps": 10}, "", 64),
    ],
)
def test_the_global_batch_is_made_one_way(mapping, kind, want):
    # the monitor took one device's batch as the run's while pre-flight multiplied it by the
    # accumulation and the world size: the Batch Size check and pre-flight judged two batches
    info, plan = both(mapping, kind)
    assert info.batch_size == plan.batch_size == want


@pytest.mark.parametrize(
    "v, want",
    [
        (1000, 1000),
        (1000.0, 1000),  # JSON's float of a count
        ("1e3", 1000),  # YAML 1.1 reads 1e3 as a string
        ("1,000", 1000),
        ("1_000", 1000),
        (" 64 ", 64),
        (-1, -1),  # "not set" (HF, Lightning): the callers say what a negative count means
        (0, 0),
        (True, None),
        (False, None),
        (None, None),
        ("auto", None),  # DeepSpeed's "auto"
        ("", None),
        (float("inf"), None),
        (float("nan"), None),
        ("1e400", None),
        (10**400, None),  # no float holds it
        (2.5, None),  # neither 2 nor 3
        (0.1, None),  # HF v5 reads a warmup_steps / save_steps below 1 as a fraction of the run
        ("2.6", None),
        ([4], None),
    ],
)
def test_one_rule_for_a_count_in_a_config(v, want):
    assert whole(v) == want


def test_whole_reads_sizes_when_asked():
    assert whole("2k", sizes=True) == 2000 and whole("2k") is None
    assert whole("1.5k", sizes=True) == 1500 and whole("1.25k", sizes=True) == 1250
    assert whole("0.5k", sizes=True) == 500 and whole("1.0005k", sizes=True) is None


HF = {"max_steps": 1000, "learning_rate": 3e-4}


@pytest.mark.parametrize(
    "mapping, want, said",
    [
        # a device batch of 2.5: the monitor took 2 from the micro-batch key alone (its
        # _count refused 2.5, then the batch key's rule rounded it), pre-flight 2 x 4 = 8
        ({**HF, "per_device_train_batch_size": 2.5, "gradient_accumulation_steps": 4}, {"batch_size": None}, 1),
        # an accumulation of 1.5: the monitor left it out (16), pre-flight rounded it (32)
        ({**HF, "per_device_train_batch_size": 16, "gradient_accumulation_steps": 1.5}, {"batch_size": 16}, 1),
        # 2.5 nodes of 8 devices: the monitor counted 1 node (32), pre-flight 2 (64)
        (
            {"train_micro_batch_size_per_gpu": 4, "nproc_per_node": 8, "nnodes": 2.5, "train_iters": 10},
            {"batch_size": 32},
            0,
        ),
        # a device batch past 1e9: the monitor took it alone as the global batch (2e9),
        # pre-flight multiplied it by the accumulation (4e9)
        ({**HF, "per_device_train_batch_size": 2e9, "gradient_accumulation_steps": 2}, {"batch_size": 4e9}, 0),
        # HF v5's share of the run (transformers#41326): both read ceil(0.1 x 1000) steps (they
        # read 0, "no warm-up", then nothing: advice against the config)
        ({**HF, "warmup_steps": 0.1}, {"warmup_steps": 100}, 0),
        # ... before a warmup_ratio beside it, as transformers v5 does
        ({**HF, "warmup_steps": 0.25, "warmup_ratio": 0.05}, {"warmup_steps": 250}, 0),
        # a share with no run length: no step count
        ({"learning_rate": 3e-4, "warmup_steps": 0.1}, {"warmup_steps": None}, 0),
        # 2.6 warm-up steps: the monitor rounded (3), pre-flight truncated (2)
        ({**HF, "warmup_steps": 2.6}, {"warmup_steps": None}, 1),
        # save every 0.6 of the run: both read a save at every step
        ({**HF, "save_steps": 0.6}, {"save_steps": None}, 1),
        # whole numbers however written: read by both, as before
        (
            {"max_steps": "1e3", "warmup_steps": 100.0, "per_device_train_batch_size": "1,024", "save_steps": True},
            {"total_steps": 1000, "warmup_steps": 100, "batch_size": 1024, "save_steps": None},
            0,
        ),
    ],
)
def test_counts_the_two_readers_read_two_ways_before(mapping, want, said):
    info, plan = both(mapping)
    for f, v in want.items():
        assert getattr(info, f) == v, (f, getattr(info, f))
        assert getattr(plan, f) == v, (f, getattr(plan, f))
    notes = apply_mapping(RunInfo(), mapping, "config")
    plan_notes = [n for n in plan.notes if "not a whole number" in n]
    assert len([n for n in notes if "not a whole number" in n]) == len(plan_notes) == said, (notes, plan.notes)


def test_a_length_in_tokens_over_a_guessed_batch_stays_unknown_to_the_monitor():
    """A W&B run's config (corpus trackers/wandb0230_ngrc_warmup_stopped): total_tokens 1e8 over
    local_batch_size 4 x seq_len 256 on devices it does not count. Pre-flight plans 97,656 steps
    and says the world size is assumed 1; the monitor keeps no planned length that rests on a guess
    (as for a parameter count on an assumed vocabulary)."""
    mapping = {"total_tokens": 1e8, "local_batch_size": 4, "seq_len": 256, "learning_rate": 5e-4}
    info, plan = both(mapping)
    assert plan.total_steps == 97_656 and any("world size not given" in n for n in plan.notes)
    assert info.batch_size == 4 and info.total_steps is None
    info, plan = both(dict(mapping, world_size=8))  # the devices given: one reading
    assert info.total_steps == plan.total_steps == 12_207
