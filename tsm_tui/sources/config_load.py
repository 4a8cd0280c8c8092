"""The one guarded way in for every config file, whatever its format.

``read_config_file(path)`` is the only reader of JSON / YAML / TOML configs and
argument lists in the tool (the monitor's ``read_run_config`` and ``--config``,
pre-flight's ``read_plan``). A run directory is untrusted, and so is every config
in it; before anything walks what a file holds:

* **size**: at most MAX_CONFIG_BYTES are read (a bigger JSON / YAML / TOML file is
  refused; a bigger ``.txt`` / ``.sh`` is a log, not a launch script: not read unless
  named); TOML at most MAX_TOML_BYTES (its parser is pure Python);
* **graph**: YAML through ``config_yaml.check_graph`` (cycles refused, nodes and
  depth counted with aliases as what they name, never expanded); JSON and TOML
  structure counted in the text before they are parsed (more than
  MAX_CONFIG_NODES items: refused), TOML keys of more than MAX_CONFIG_DEPTH dotted
  parts refused before ``tomllib`` sees them (it is quadratic in them: 5,000 parts
  0.9 s), and what any parser built measured once more, iteratively
  (``measure``: nodes, depth, cycles) so that no recursive walker downstream can
  exceed the stack;
* **numbers**: JSON integers of more than 4,300 digits (Python refuses to
  convert them) become ``inf``, YAML's likewise (``config_yaml``); a value no setting can hold is left for the key readers,
  which ignore the key and say so (``core/numbers.unusable``);
* **argument lists**: substitution and tokenising linear and bounded
  (``arglist``).

Time is bounded by these: every pass is linear in a bounded input, and the
parsers only run on input the counts accepted. A file that breaks a bound raises
ConfigError naming the file and the bound (``config.yaml: recursive alias at
line 1 ...``): pre-flight exits 2 with it, the monitor names it once and judges
the run without it.
"""

from __future__ import annotations

import json
import os
import re

from tsm_tui.core.safeio import open_regular
from tsm_tui.sources.arglist import ArgListBound, parse_arg_list
from tsm_tui.sources.config_yaml import MAX_INT_DIGITS, MAX_YAML_DEPTH, MAX_YAML_NODES, YAMLBound, safe_yaml

#: the largest config file read (ours: real configs are < 100 KB; DeepSpeed / HF
#: JSON with every default written out is ~10 KB)
MAX_CONFIG_BYTES = 4 << 20
#: the largest TOML config read (ours: tomllib is pure Python, ~1 s of CPU per 4 MiB of
#: escapes or comments, 4.3 s of wall time on a loaded 2-core machine; a torchtitan
#: config is ~3 KB)
MAX_TOML_BYTES = 1 << 20
#: items (values, aliases counted as what they name) in one config, every format
MAX_CONFIG_NODES = MAX_YAML_NODES
#: nesting of one config, every format (TOML: parts of a dotted key)
MAX_CONFIG_DEPTH = MAX_YAML_DEPTH


class ConfigError(ValueError):
    """The input cannot be read as a run configuration (pre-flight exits 2; the
    monitor names it once and leaves the file out). ``str()``: ``"<path>: <reason>"``
    (the reason alone when no one file is meant: ``path`` None)."""

    def __init__(self, path: str | None, reason: str, unreadable: bool = False) -> None:
        self.path = path
        self.reason = reason
        #: the file could not be opened or read at all (no such file, a FIFO, EACCES)
        self.unreadable = unreadable
        super().__init__(f"{path}: {reason}" if path else reason)


#: JSON / YAML files in a run or model directory that are not configurations
_ARG_EXT = (".sh", ".txt", ".args", ".cmd", ".slurm", ".sbatch")
_PICKLE_EXT = (".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".safetensors")


def read_config_file(path: str, named: bool = False) -> tuple[dict | None, str]:
    """(mapping, kind) for one file; kind is "json"/"yaml"/"toml"/"args"/"pickle"/"".

    Raises ConfigError when a config-looking file cannot be read, cannot be
    parsed, is not a mapping or breaks a bound. Never anything else. ``named``:
    the user named this file (``--config``, ``--preflight FILE``): a text file
    too big for a launch script is refused, not passed over as a log.
    """
    low = path.lower()
    name = os.path.basename(low)
    if low.endswith(_PICKLE_EXT):
        return None, "pickle" if not low.endswith(".safetensors") else ""
    structured = low.endswith((".json", ".yaml", ".yml", ".toml"))
    if not structured and not (low.endswith(_ARG_EXT) or "." not in name):
        return None, ""
    try:
        with open_regular(path) as f:  # a FIFO named config.yaml must not block
            size = os.fstat(f.fileno()).st_size
            if size > MAX_CONFIG_BYTES:
                if not structured and not named:
                    return None, ""  # a big text file is a log, not a launch script
                raise ConfigError(
                    path, f"{size / 2**20:.1f} MiB, more than the {MAX_CONFIG_BYTES >> 20} MiB a config may have"
                )
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise ConfigError(path, f"cannot read: {e.strerror or e}", unreadable=True) from None
    if len(raw) > MAX_CONFIG_BYTES:  # grew while it was read
        if not structured and not named:
            return None, ""
        raise ConfigError(path, f"more than the {MAX_CONFIG_BYTES >> 20} MiB a config may have")
    text = raw.decode("utf-8", "replace")
    if not structured:
        try:
            m = parse_arg_list(text)
        except ArgListBound as e:
            raise ConfigError(path, str(e)) from None
        return (m, "args") if m else (None, "")
    kind = "yaml" if low.endswith((".yaml", ".yml")) else low.rsplit(".", 1)[1]
    try:
        obj = _PARSE[kind](text)
    except ConfigError as e:
        raise ConfigError(path, e.reason) from None
    except RecursionError:
        # (the parser's own limit, ~1,000 levels, or measure's below: one message either way;
        # which one meets it depends on the interpreter's recursion limit)
        raise ConfigError(path, f"nested more than {MAX_CONFIG_DEPTH} levels deep") from None
    except MemoryError:
        raise ConfigError(path, f"cannot parse as {kind.upper()}: out of memory") from None
    except Exception as e:  # any parse error or bound: say which and where, one line
        raise ConfigError(path, _reason(e, kind)) from None
    if obj is None and kind == "yaml":
        obj = {}
    if not isinstance(obj, dict):
        raise ConfigError(path, f"not a {kind.upper()} mapping (found {type(obj).__name__})")
    try:
        measure(obj)
    except ValueError as e:
        raise ConfigError(path, str(e)) from None
    return obj, kind


def _reason(e: Exception, kind: str) -> str:
    if isinstance(e, YAMLBound):
        return str(e)
    problem = getattr(e, "problem", None)  # PyYAML: the problem and where, not the context first
    mark = getattr(e, "problem_mark", None)
    if problem:
        msg = f"{problem} at line {mark.line + 1}" if mark is not None else str(problem)
    else:
        msg = str(e).splitlines()[0] if str(e).strip() else type(e).__name__
    return f"cannot parse as {kind.upper()}: {msg[:300]}"


# --- JSON ---------------------------------------------------------------------------------------


def _json_int(s: str):
    # (Python refuses to convert > 4,300 digits: one such number would make the whole file unreadable)
    return int(s) if len(s.lstrip("-")) <= MAX_INT_DIGITS else float(s)


def _json(text: str):
    _count_items(text, ",[{", "JSON")
    return json.loads(text, parse_int=_json_int)


# --- TOML ---------------------------------------------------------------------------------------

# a dotted key where one can start: a line's start, or after "{" / "," (inline tables);
# the parts bare or quoted, possessive throughout (one pass, no backtracking)
_PART = r"""(?:[A-Za-z0-9_-]++|"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"|'[^'\n]*+')"""
_TOML_KEY = re.compile(rf"(?:^|[{{,])[ \t]*+\[?+\[?+[ \t]*+({_PART}(?:[ \t]*+\.[ \t]*+{_PART})*+)", re.M)


def _toml(text: str):
    if len(text) > MAX_TOML_BYTES:
        raise ConfigError(None, f"TOML of more than {MAX_TOML_BYTES >> 20} MiB (too big for a config)")
    _count_items(text, "=,[{", "TOML")
    for m in _TOML_KEY.finditer(text):
        key = m.group(1)
        if key.count(".") >= MAX_CONFIG_DEPTH and len(_split_dotted(key)) > MAX_CONFIG_DEPTH:
            line = text.count("\n", 0, m.start(1)) + 1
            raise ConfigError(None, f"a TOML key of more than {MAX_CONFIG_DEPTH} dotted parts at line {line}")
    import tomllib

    return tomllib.loads(text)


def _split_dotted(key: str) -> list[str]:
    return re.findall(_PART, key)


def _count_items(text: str, marks: str, kind: str) -> None:
    """Items counted in the text before it is parsed: each separator or opening
    bracket starts at most one (counted inside strings too: an over-count, only
    ever of a file far past any real config)."""
    n = sum(text.count(c) for c in marks)
    if n > MAX_CONFIG_NODES:
        raise ConfigError(None, f"{kind} has more than {MAX_CONFIG_NODES} items (too big for a config)")


_PARSE = {"json": _json, "yaml": safe_yaml, "toml": _toml}


# --- the walk every parsed config gets ---------------------------------------------------------


def measure(obj) -> int:
    """Nodes of ``obj`` (each value; a shared value counted where it is used),
    iteratively; ValueError past MAX_CONFIG_NODES nodes, MAX_CONFIG_DEPTH levels or
    on a cycle (a container inside itself)."""
    nodes = 0
    on_path: set[int] = set()
    stack: list = [(obj, 1, False)]
    while stack:
        o, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(o))
            continue
        nodes += 1
        if nodes > MAX_CONFIG_NODES:
            raise ValueError(f"more than {MAX_CONFIG_NODES} nodes (too big for a config)")
        if isinstance(o, (dict, list, tuple)):
            if id(o) in on_path:
                raise ValueError("a value that contains itself (recursive)")
            if depth > MAX_CONFIG_DEPTH:
                raise ValueError(f"nested more than {MAX_CONFIG_DEPTH} levels deep")
            on_path.add(id(o))
            stack.append((o, depth, True))
            kids = o.values() if isinstance(o, dict) else o
            stack.extend((k, depth + 1, False) for k in kids)
    return nodes
