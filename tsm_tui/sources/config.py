"""Config files: one loader for every JSON / YAML / TOML file and argument list
(``read_config_file``), and the run configuration beside the logs
(``read_run_config``: the usual names into a RunInfo). The pre-flight plan, which
reads the same files in full, is in ``tsm_tui.preflight.plan``.

Generic: any JSON / YAML / TOML mapping that uses the usual names (HF
TrainingArguments, Megatron arguments, nanoGPT / llm.c, Lightning hparams) is
flattened and matched against the aliases below. Never unpickles anything
(``training_args.bin`` is a pickle and is left alone).
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import stat

from tsm_tui.core.numbers import num  # noqa: F401  (configs' numbers; re-exported for the readers)
from tsm_tui.core.safeio import open_regular
from tsm_tui.core.settings import RunInfo
from tsm_tui.sources.params import count_params

CONFIG_NAMES = ("config.json", "training_args.json", "hparams.yaml", "hparams.yml", "config.yaml",
                "config.yml", "train_config.yaml", "args.json", "config.toml", "train.toml")

_ALIASES: dict[str, tuple[str, ...]] = {
    "total_steps": ("max_steps", "total_steps", "train_iters", "max_iters", "num_training_steps",
                    "training_steps", "train_steps", "max_duration_steps"),
    "warmup_steps": ("warmup_steps", "lr_warmup_iters", "warmup_iters", "num_warmup_steps", "lr_warmup_steps",
                     "t_warmup"),
    "peak_lr": ("learning_rate", "lr", "max_lr", "peak_lr", "base_lr"),
    "batch_size": ("global_batch_size", "total_batch_size_sequences", "train_batch_size", "batch_size",
                   "per_device_train_batch_size", "global_train_batch_size"),
    "batch_tokens": ("batch_tokens", "tokens_per_batch", "total_batch_size", "global_batch_size_tokens"),
    "seq_len": ("seq_length", "seq_len", "max_seq_length", "block_size", "max_seq_len", "sequence_length",
                "context_length", "cutoff_len"),
    "params": ("n_params", "num_params", "params", "num_parameters", "param_count", "model_params"),
    "clip": ("max_grad_norm", "clip_grad", "grad_clip", "gradient_clipping", "clip_grad_norm", "max_norm",
             "gradient_clip_val"),
    "logging_steps": ("logging_steps", "log_interval", "log_every", "log_every_n_steps"),
    "save_steps": ("save_steps", "save_interval", "checkpoint_every", "save_every", "ckpt_interval"),
    "schedule": ("lr_scheduler_type", "lr_decay_style", "scheduler", "lr_schedule"),
}
_INT = {"total_steps", "warmup_steps", "batch_size", "seq_len", "logging_steps", "save_steps"}




def _flatten(d, prefix="", out=None):
    if out is None:
        out = {}
    if isinstance(d, dict):
        for k, v in d.items():
            if isinstance(v, dict):
                _flatten(v, f"{prefix}{k}.", out)
            else:
                out.setdefault(str(k).lower(), v)
                out[f"{prefix}{k}".lower()] = v
    return out


def read_run_config(info: RunInfo, directory: str, cache: dict | None = None) -> list[str]:
    """Apply the config files found in ``directory``; returns the files used.
    ``cache`` (path -> ((size, mtime), mapping)): a file unchanged since it was
    last loaded is not read and parsed again."""
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
                m = hit[1]
            else:
                m = load_mapping(p)
                if cache is not None:
                    cache[p] = (sig, m)
            if m:
                apply_mapping(info, m, name)
                used.append(p)
    return used


# --- loading ------------------------------------------------------------------

MAX_CONFIG_BYTES = 4 << 20


class ConfigError(ValueError):
    """The input cannot be read as a run configuration (the CLI exits 2)."""



# --- Megatron-style argument lists -----------------------------------------------

# within one line ([ \t], [^"\n]): "^\s*" ran over every following blank line from
# each line start (40k blank lines: 38 s)
_ASSIGN = re.compile(r"^[ \t]*+(?:export[ \t]++)?([A-Za-z_][A-Za-z0-9_]*+)=(\"[^\"\n]*+\"|'[^'\n]*+'|\S*+)[ \t]*+$", re.M)


def parse_arg_list(text: str) -> dict | None:
    """``--num-layers 24 --bf16 --lr=3e-4`` (a launch script or a text file) -> mapping.

    Shell variables assigned in the same text (``GBS=512`` ... ``$GBS``) are
    substituted; ``\\`` line continuations and ``#`` comments are handled.
    None when fewer than two ``--name`` options are found.
    """
    env = {m.group(1): m.group(2).strip("\"'") for m in _ASSIGN.finditer(text)}

    def subst(s: str) -> str:
        return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), m.group(0)), s)

    body = text.replace("\\\r\n", " ").replace("\\\n", " ")
    out: dict = {}
    for line in body.splitlines():
        if "--" not in line:
            continue
        try:
            toks = shlex.split(subst(line), comments=True)
        except ValueError:
            toks = subst(line).split()
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.startswith("--") and len(t) > 2:
                name, eq, val = t[2:].partition("=")
                name = name.replace("-", "_").lower()
                if eq:
                    out[name] = _scalar(val)
                elif i + 1 < len(toks) and not toks[i + 1].startswith("--"):
                    out[name] = _scalar(toks[i + 1])
                    i += 1
                else:
                    out[name] = True
            i += 1
    return out if len(out) >= 2 else None


def _scalar(s: str):
    x = num(s)
    if x is not None:
        return int(x) if re.fullmatch(r"[+-]?\d+", s.strip()) else x
    b = s.strip().lower()
    if b in ("true", "false"):
        return b == "true"
    return s


# --- reading files ---------------------------------------------------------------

#: JSON / YAML files in a run or model directory that are not configurations
_ARG_EXT = (".sh", ".txt", ".args", ".cmd", ".slurm", ".sbatch")


def read_config_file(path: str) -> tuple[dict | None, str]:
    """(mapping, kind) for one file; kind is "json"/"yaml"/"toml"/"args"/"pickle"/"".

    Raises ConfigError when a config-looking file cannot be parsed.
    """
    low = path.lower()
    name = os.path.basename(low)
    if low.endswith((".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".safetensors")):
        return None, "pickle" if not low.endswith(".safetensors") else ""
    try:
        with open_regular(path) as f:  # a FIFO named config.yaml must not block
            if os.fstat(f.fileno()).st_size > MAX_CONFIG_BYTES:
                return None, ""
            raw = f.read(MAX_CONFIG_BYTES)
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror or e}")
    text = raw.decode("utf-8", "replace")
    if low.endswith((".json", ".yaml", ".yml", ".toml")):
        kind = "yaml" if low.endswith((".yaml", ".yml")) else low.rsplit(".", 1)[1]
        try:
            if kind == "json":
                obj = json.loads(text)
            elif kind == "yaml":
                obj = safe_yaml(text)
            else:
                import tomllib

                obj = tomllib.loads(text)
        except RecursionError:
            raise ConfigError(f"cannot parse {path} as {kind.upper()}: nested too deeply") from None
        except Exception as e:  # any parse error: say where, one line
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise ConfigError(f"cannot parse {path} as {kind.upper()}: {msg}")
        if obj is None and kind == "yaml":
            obj = {}
        if not isinstance(obj, dict):
            raise ConfigError(f"{path} is not a {kind.upper()} mapping (found {type(obj).__name__})")
        return obj, kind
    if low.endswith(_ARG_EXT) or "." not in name:
        m = parse_arg_list(text)
        return (m, "args") if m else (None, "")
    return None, ""


#: YAML nodes a config may expand to, aliases counted where they are used (ours:
#: the largest real configs we read are a few thousand nodes); a "billion laughs"
#: alias bomb of 639 bytes expands to 9^9 nodes (12 s and 1 GB before this bound)
MAX_YAML_NODES = 100_000
#: nesting of collections (ours: real configs nest < 10 deep; the composer recurses)
MAX_YAML_DEPTH = 200


def _yaml_loader():
    import yaml

    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built with it


def safe_yaml(text: str):
    """``yaml.safe_load`` with size, depth and aliases bounded, in two passes:
    the parser's events are counted first (nothing composed: a 4 MiB flat list of
    2M numbers, no bomb, used to be composed node by node before any bound was
    checked, 37-60 s), then the composed node graph is measured with aliases
    expanded (each node once, memoised) before anything is constructed. Past
    MAX_YAML_NODES nodes or MAX_YAML_DEPTH levels: ValueError."""
    yaml, Loader = _yaml_loader()
    counter = Loader(text)
    try:
        n = depth = 0
        while counter.check_event():
            ev = counter.get_event()
            n += 1
            if n > MAX_YAML_NODES:
                raise ValueError(f"YAML has more than {MAX_YAML_NODES} nodes (too big for a config)")
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise ValueError(f"YAML nested more than {MAX_YAML_DEPTH} levels deep")
            elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    finally:
        counter.dispose()
    loader = Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        sizes: dict[int, int] = {}
        stack = [(node, False)]
        while stack:  # iterative: deep nesting costs no recursion here
            n, done = stack.pop()
            if id(n) in sizes:
                continue
            kids = [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else (
                n.value if isinstance(n, yaml.SequenceNode) else [])
            if done:
                total = 1 + sum(sizes.get(id(c), 1) for c in kids)
                sizes[id(n)] = total
                if total > MAX_YAML_NODES:
                    raise ValueError(f"YAML expands to more than {MAX_YAML_NODES} nodes (alias bomb?)")
                continue
            stack.append((n, True))
            stack.extend((c, False) for c in kids if id(c) not in sizes)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_mapping(path: str) -> dict | None:
    """A JSON / YAML / TOML config (or an argument list) as a mapping; None when
    it is not one or cannot be read (no exception)."""
    try:
        m, _kind = read_config_file(path)
    except ConfigError:
        return None
    return m


def apply_mapping(info: RunInfo, mapping: dict, origin: str) -> None:
    flat = _flatten(mapping)
    for field, names in _ALIASES.items():
        for n in names:
            v = flat.get(n)
            if v is None or isinstance(v, (dict, list)):
                continue
            try:
                if field == "schedule":
                    val = str(v)
                elif isinstance(v, bool):
                    continue
                else:
                    x = float(v)
                    if not math.isfinite(x) or abs(x) > 1e18:  # 1e400, "inf": not a setting (ours: 1e18)
                        continue
                    val = int(x) if field in _INT else x
            except (TypeError, ValueError, OverflowError):
                continue
            if field in ("params", "peak_lr", "total_steps") and not val > 0:
                continue  # HF writes max_steps=-1 for an epoch-based run
            info.set(field, val, origin)
            break
    ratio = flat.get("warmup_ratio")
    if (info.warmup_steps in (None, 0) and isinstance(ratio, (int, float)) and not isinstance(ratio, bool)
            and 0 < ratio <= 1 and info.total_steps):
        info.set("warmup_steps", int(ratio * info.total_steps), origin, override=True)
    if info.precision is None:
        if flat.get("bf16") is True or str(flat.get("precision", "")).startswith("bf16"):
            info.set("precision", "bf16", origin)
        elif flat.get("fp16") is True or str(flat.get("precision", "")) in ("16", "16-mixed", "fp16"):
            info.set("precision", "fp16", origin)
    if info.params is None:
        try:
            est = count_params(flat)
        except (OverflowError, ValueError, TypeError):  # integers beyond a float, odd values
            est = None
        if est is not None and 0 < est[0] <= 1e18:  # n_layer: 1e308 is no model
            info.set("params", est[0], f"{origin} (architecture)")
