"""Config files in the monitor: the run configuration beside the logs
(``read_run_config``: the usual names into a RunInfo) and ``--config FILE``.
Every file is read through the one guarded entry point,
``sources.config_load.read_config_file`` (size, graph and number bounds; issue
32); the pre-flight plan, which reads the same files in full, is in
``tsm_tui.preflight.plan``.

Generic: any JSON / YAML / TOML mapping that uses the usual names (HF
TrainingArguments, Megatron arguments, nanoGPT / llm.c, Lightning hparams) is
flattened and matched against the aliases below. Never unpickles anything
(``training_args.bin`` is a pickle and is left alone). A file refused by a bound,
or a value no setting can hold, is a note (``config.yaml: recursive alias at line
1 ...: ignored``; ``max_steps = a 401-digit integer ignored``): the run is judged
without it.
"""

from __future__ import annotations

import os
import stat

from tsm_tui.core.numbers import UNSET_COUNT, num, shown, unusable, whole  # noqa: F401  (num: re-exported)
from tsm_tui.core.settings import LOG_FACTS, RunInfo
from tsm_tui.sources.arglist import parse_arg_list  # noqa: F401  (re-exported: tests, pre-flight)
from tsm_tui.sources.config_load import MAX_CONFIG_BYTES, ConfigError, read_config_file  # noqa: F401
from tsm_tui.sources.config_yaml import MAX_YAML_DEPTH, MAX_YAML_NODES, safe_yaml  # noqa: F401
from tsm_tui.sources.config_keys import (
    KEYS,
    PER_NODE,
    detect_framework,
    duration,
    flag,
    flatten,
    global_batch,
    lookup,
    names,
    precision,
    present,
    read,
    steps_of_tokens,
    warmup_from_ratio,
    warmup_in_tokens,
)
from tsm_tui.sources.params import count_params

CONFIG_NAMES = (
    "config.json",
    "training_args.json",
    "hparams.yaml",
    "hparams.yml",
    "config.yaml",
    "config.yml",
    "train_config.yaml",
    "args.json",
    "config.toml",
    "train.toml",
)

#: the settings the monitor reads from a config, each from its keys in sources/config_keys.KEYS
#: (the one table pre-flight reads too); beta2 also from Adam's betas list; the precision from
#: the config's flags (config_keys.precision), not one key
_READ = tuple(k for k in LOG_FACTS if k != "precision")
_TEXT = {"schedule", "save_strategy", "dataset", "hosted_model"}
#: HF save_strategy values under which save_steps plans nothing (TrainingArguments keeps
#: save_steps=500 in training_args.json whatever the strategy)
_NO_STEP_SAVES = (
    "no",
    "epoch",
    "best",
    "intervalstrategy.no",
    "intervalstrategy.epoch",
    "savestrategy.no",
    "savestrategy.epoch",
    "savestrategy.best",
)
_INT = {"total_steps", "warmup_steps", "batch_size", "seq_len", "logging_steps", "save_steps"}


def read_run_config(
    info: RunInfo, directory: str, cache: dict | None = None, notes: list[tuple[str, str]] | None = None
) -> list[str]:
    """Apply the config files found in ``directory``; returns the files used.
    ``cache`` (path -> ((size, mtime), mapping, notes)): a file unchanged since it
    was last loaded is not read and parsed again. ``notes`` gets (path, what was
    ignored) for a file refused or a value no setting can hold."""
    used = []
    for name in CONFIG_NAMES:
        p = os.path.join(directory, name)
        try:
            st = os.stat(p)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            sig = (st.st_size, st.st_mtime_ns)
            hit = cache.get(p) if cache is not None else None
            if hit is not None and hit[0] == sig:
                m, refused = hit[1], hit[2]
            else:
                m, refused = load_config(p)
                if cache is not None:
                    cache[p] = (sig, m, refused)
            if refused and notes is not None:
                notes.append((p, refused))
            if m:
                said = apply_mapping(info, m, name)
                if notes is not None:
                    notes += [(p, n) for n in said]
                used.append(p)
    return used


def load_config(path: str) -> tuple[dict | None, str | None]:
    """(mapping or None, why the file was refused or None): never raises. A file
    that is no config (a pickle, a text file without options) is (None, None)."""
    try:
        m, _kind = read_config_file(path)
    except ConfigError as e:
        return None, f"{e.reason}: ignored"
    return m, None


def _grad_checkpointing(flat: dict) -> bool | None:
    for k in names("grad_checkpointing"):  # (any of them set, not the first key: config_keys.KEYS)
        v = flat.get(k)
        if isinstance(v, bool):
            return v
        if isinstance(v, str) and v.strip():
            return v.strip().lower() not in ("none", "false", "no", "off", "0", "null")
    return None


def _plain(flat: dict) -> dict:
    """A flattened mapping (config_keys.flatten) with bare leaf names as plain keys, below
    the full names: what the architecture count and the precision flags read."""
    out = {k: v for k, v in flat.items() if not k.startswith("~")}
    for k, v in flat.items():
        if k.startswith("~"):
            out.setdefault(k[1:], v)
    return out


def _count(v) -> int | None:
    """A positive whole count (a device batch, an accumulation, a world size), else None
    (core/numbers.whole, pre-flight's rule; the bound on the product is RunInfo's)."""
    n = whole(v)
    return n if n is not None and n >= 1 else None


def _global_batch(flat: dict, fw: str | None, said: list[str]) -> tuple[str | None, int | None, bool]:
    """(how, value, the world size was assumed 1) of the global batch from its parts when no
    key gives it: one device's batch x accumulation x world size (config_keys.global_batch,
    pre-flight's rule); an accumulation or a world size with a fraction is left out and said
    (as pre-flight)."""
    mk, mv = read(flat, "micro_batch", fw)
    micro = _count(mv)
    if mk is None or micro is None:
        return mk, mv, False  # (what is there is said or skipped as before)
    ak, av = read(flat, "grad_accum", fw)
    wk, wv = read(flat, "world_size", fw)
    for k, v in ((ak, av), (wk, wv)):
        if k is not None and whole(v) is None and num(v) is not None:
            said.append(f"{k} = {shown(v)} ignored: not a whole number")
    world = _count(wv)
    if world and wk in PER_NODE:
        nodes = _count(read(flat, "nodes", fw)[1])
        world *= nodes or 1
    gb, how, assumed = global_batch(fw, micro, mk, _count(av), ak or "accumulation", world, wk or "world size")
    return how, gb, assumed


def put_path(mapping: dict, parts: list[str], value) -> None:
    """``value`` at the nested key ``parts`` of ``mapping`` (a tracker's flat config keys,
    W&B's "optimizer.lr" or an Aim attribute's path, as the nested mapping the config rules
    read); a non-mapping met on the way is replaced by one."""
    d = mapping
    for q in parts[:-1]:
        nxt = d.get(q)
        if not isinstance(nxt, dict):
            nxt = d[q] = {}
        d = nxt
    d[parts[-1]] = value


def tracker_facts(mapping: dict, origin: str) -> dict | None:
    """The run facts (``LOG_FACTS``) a tracker's config states (a W&B run's config, an Aim run's
    attributes), by the rules every config goes through (``apply_mapping``); None when the
    mapping cannot be read (too deep, a value no rule takes)."""
    info = RunInfo()
    try:
        apply_mapping(info, mapping, origin)
    except (RecursionError, ValueError, TypeError, OverflowError):
        return None
    return {name: v for name in LOG_FACTS if (v := getattr(info, name)) is not None}


def apply_mapping(info: RunInfo, mapping: dict, origin: str) -> list[str]:
    """The settings of ``mapping`` into ``info`` (values already set win), each from the
    first of its keys (sources/config_keys.KEYS, pre-flight's table) present and not null.
    Returns what was ignored, one sentence each (``max_steps = 1e400 ignored: not a
    usable number``): a number no setting can hold (core/numbers.unusable) or a negative
    count other than -1 ("not set")."""
    flat = flatten(mapping)
    plain = _plain(flat)
    fw = detect_framework(mapping)
    said: list[str] = []
    share: float | None = None  # a warmup_steps below 1: a share of the run
    guessed = False  # the global batch rests on a world size assumed 1
    strategy = str(read(flat, "save_strategy", fw)[1] or "").strip().lower()
    # checkpoints switched on or off (torchtitan [checkpoint] enable_checkpoint, Lightning
    # enable_checkpointing) when no strategy is named: off plans no save, whatever the
    # interval beside it says (torchtitan writes interval = 500 either way)
    switch = flag(read(flat, "checkpointing", fw)[1]) if not strategy else None
    if switch is not None:
        strategy = "steps" if switch else "no"
    for field in _READ:
        if field == "save_steps" and strategy in _NO_STEP_SAVES:
            continue  # save_strategy "no" / "epoch": the save_steps beside it plans no save
        n, v = read(flat, field, fw)
        if field == "batch_size" and n is None:
            n, v, guessed = _global_batch(flat, fw, said)  # (no key gives the global batch: from its parts)
        if field == "beta2":
            nb, b = read(flat, "betas", fw)  # torch's betas=(0.9, 0.95), before adam_beta2 (pre-flight's order)
            if isinstance(b, (list, tuple)) and len(b) == 2 and all(num(x) is not None for x in b):
                n, v = nb, b[1]
        if n is None or isinstance(v, (dict, list)):
            continue
        if field == "warmup_steps" and warmup_in_tokens(flat, n):
            continue  # OLMo's t_warmup with units: tokens is no step count
        if field not in _TEXT and unusable(v):  # 1e400, "inf", 400 digits: not a setting (ours: 1e18)
            said.append(f"{n} = {shown(v)} ignored: not a usable number")
            continue
        if field in _TEXT:
            if str(v).strip():
                info.set(field, str(v), origin)  # text: none of the number rules below
            continue
        val: float | None  # an int for the counts (_INT)
        if field == "clip" and isinstance(v, bool):
            if v:
                continue  # grad_clip: true says nothing about the norm
            val = 0.0  # grad_clip: false: the run does not clip
        else:
            x = num(v, sizes=KEYS[field].sizes)
            if x is None or abs(x) > 1e18:
                continue
            val = whole(v, sizes=KEYS[field].sizes) if field in _INT else x
            if val is None and field == "warmup_steps" and 0 < x < 1:
                share = x  # transformers v5: a warmup_steps below 1 is a share of the run (#41326)
                continue
            if val is None:  # 2.5 steps: no count
                said.append(f"{n} = {shown(v)} ignored: not a whole number")
                continue
            if field == "clip":
                val = max(x, 0.0)
        if field in _INT and val < UNSET_COUNT:
            said.append(f"{n} = {shown(v)} ignored: a negative count")
        if field in ("params", "peak_lr", "total_steps") and not val > 0:
            continue  # HF writes max_steps=-1 for an epoch-based run
        info.set(field, val, origin)
    if info.clip is None and read(flat, "clip", fw)[0] is None and present(flat, *names("clip", fw)):
        # max_grad_norm: null / gradient_clip_val: null written out: the run does not clip
        info.set("clip", 0.0, origin)
    if switch is not None:
        info.set("save_strategy", strategy, origin)
    if info.schedule is None:
        k, d = read(flat, "decay_lr", fw)  # nanoGPT: decay_lr True is its cosine, False a constant LR
        if isinstance(d, bool):
            info.set("schedule", "cosine" if d else "constant", origin)
    length = duration(read(flat, "max_duration", fw)[1])  # Composer / OLMo: "10000ba", "5e12tok"
    if length is not None and length[0] == "steps":
        info.set("total_steps", int(length[1]), origin)
    bt = info.effective_batch_tokens()
    if bt and not (guessed and info.batch_tokens is None):
        # a length in tokens is steps of the batch (config_keys.steps_of_tokens, pre-flight's rule
        # too): GPT-3-style total_tokens / warmup_tokens, OLMo's t_warmup under units: tokens.
        # Not over a batch whose world size was assumed 1: a planned length that rests on a guess
        # is no fact (pre-flight says the assumption; corpus trackers/wandb0230_ngrc_warmup_stopped,
        # 1e8 tokens over local_batch_size 4 x seq_len 256 on an unknown number of devices)
        t = num(read(flat, "total_tokens", fw)[1], sizes=True)
        if t is None and length is not None and length[0] == "tokens":
            t = length[1]
        if info.total_steps is None and t and t > 0:
            info.set("total_steps", steps_of_tokens(t, bt), origin)
        kw, vw = read(flat, "warmup_steps", fw)
        w = num(vw, sizes=True) if warmup_in_tokens(flat, kw) else None
        if w is None:
            w = num(read(flat, "warmup_tokens", fw)[1], sizes=True)
        if info.warmup_steps is None and w is not None and w >= 0:
            info.set("warmup_steps", steps_of_tokens(w, bt), origin)
    _, ratio = read(flat, "warmup_ratio", fw)
    if share is not None:  # (before a warmup_ratio beside it, as transformers v5 reads them)
        ratio = share
    if info.warmup_steps in (None, 0) and num(ratio) is not None and info.total_steps:
        w = warmup_from_ratio(num(ratio), info.total_steps)  # type: ignore[arg-type]
        if w is not None:
            info.set("warmup_steps", w, origin, override=True)
    if info.precision is None:
        prec = precision(flat, lambda *keys: (*lookup(flat, *keys), origin), fw)[0]  # (pre-flight's reading)
        if prec is not None:
            info.set("precision", prec, origin)
    if info.grad_checkpointing is None:
        gc = _grad_checkpointing(plain)
        if gc is not None:
            info.set("grad_checkpointing", gc, origin)
    if info.params is None and fw == "torchtitan":
        flavor = read(flat, "flavor", fw)[1]  # torchtitan's model flavor "8B" ("debugmodel": no size)
        p = num(flavor, sizes=True) if isinstance(flavor, str) else None
        if p:
            info.set("params", p, origin)
    if info.params is None:
        try:
            est = count_params(plain)
        except (OverflowError, ValueError, TypeError):  # integers beyond a float, odd values
            est = None
        # n_layer: 1e308 is no model; a count that rests on an assumed vocabulary is a guess,
        # not a fact (a 0.12M byte-level model read 3.32e6 with GPT-2's 50304): left unknown
        if est is not None and 0 < est[0] <= 1e18 and not any(n.startswith("vocabulary size not in") for n in est[2]):
            info.set("params", est[0], f"{origin} (architecture)")
    return said
