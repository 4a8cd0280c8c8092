"""YAML configs, read through a graph check.

A YAML document is a graph, not a tree: an alias (``*a``) is a second edge to the
node its anchor (``&a``) names, and an alias inside its own anchor's node is a
cycle (``a: &a {b: *a}``, 14 bytes, takes PyYAML > 30 s and 2.2 GB to compose). So before
anything is composed the parser's events are walked once, and on that walk:

* an alias to a node that is still open (its anchor's collection not closed yet)
  is a cycle: refused, with its line;
* every node is counted with each alias counted as the whole node it names
  (each anchor's size remembered when its node closes: never expanded into
  memory, so a "billion laughs" costs its own events, not 9^9 nodes), and so is
  the depth an alias reaches; past MAX_YAML_NODES nodes or MAX_YAML_DEPTH levels:
  refused;
* a second document is refused (a config is one).

Only then is the document composed and constructed. Numbers no setting can hold
are constructed without the work Python would spend on them: a plain scalar of
more than MAX_RESOLVED_CHARS characters is text (YAML 1.1's number patterns are
not run on it: 0.65 s and 240 MB each on 3.8 MB), a decimal integer
of more than MAX_INT_DIGITS digits (a 5,000-digit one raised ValueError and made
the whole file unreadable) or a sexagesimal / hexadecimal / octal / binary one of
more than MAX_NUMBER_CHARS characters (``1:1:1:...`` is quadratic) becomes ``inf``
(its sign kept), and so does a sexagesimal float past that length (``1:...:1.5``
raised OverflowError). ``core/numbers.unusable`` then says the key
is ignored.
"""

from __future__ import annotations

#: nodes a config may expand to, aliases counted where they are used (ours: the
#: largest real configs we read are a few thousand nodes); a "billion laughs" alias
#: bomb of 639 bytes expands to 9^9 nodes (12 s and 1 GB without this bound)
MAX_YAML_NODES = 100_000
#: nesting of collections, aliases counted as the depth of the node they name
#: (ours: real configs nest < 10 deep; the composer recurses)
MAX_YAML_DEPTH = 200
#: longest sexagesimal (``1:30:00``), hexadecimal, octal or binary literal
#: constructed as a number (ours: int64 has 19 digits; past 40 characters a literal
#: is no setting, and sexagesimal costs a multiplication per part)
MAX_NUMBER_CHARS = 40
#: longest decimal integer constructed as an int: Python's own limit for converting
#: text to int and back (sys.int_info.default_max_str_digits), so that every int a
#: config holds can be printed; a 400-digit max_steps stays an int and is named
MAX_INT_DIGITS = 4300
#: longest plain scalar whose type is resolved (int, float, bool, null, timestamp);
#: a longer one is a string (ours: the longest int above, its sign and underscores)
MAX_RESOLVED_CHARS = 4400


class YAMLBound(ValueError):
    """A YAML config refused by the graph check (the message says why and where)."""


_LOADER = None
_FLOAT_TAG = "tag:yaml.org,2002:float"
_NUMBER_CHARS = "0123456789_:.eE+-"


def _loader():
    """The safe loader (libyaml's when PyYAML is built with it), with bounded numbers."""
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class Loader(base):  # type: ignore[misc, valid-type]
            def resolve(self, kind, value, implicit):
                # YAML 1.1's number patterns (sexagesimal ``(?::[0-5]?[0-9])+``) keep a
                # backtracking frame per repetition: on a 3.8 MB plain scalar 0.65 s and
                # 240 MB each. Past MAX_RESOLVED_CHARS a plain scalar made of number
                # characters is a float (Inf when it is one no float holds), any other text
                if kind is yaml.ScalarNode and implicit[0] and len(value) > MAX_RESOLVED_CHARS:
                    return _FLOAT_TAG if not value.strip(_NUMBER_CHARS) else self.DEFAULT_SCALAR_TAG
                return base.resolve(self, kind, value, implicit)

        def construct_int(loader, node):
            text = loader.construct_scalar(node)
            digits = text.replace("_", "").lstrip("+-")
            plain = digits.isdigit() and (digits == "0" or not digits.startswith("0"))  # (not octal)
            if len(digits) > (MAX_INT_DIGITS if plain else MAX_NUMBER_CHARS):
                return float("-inf") if text.lstrip().startswith("-") else float("inf")
            return base.construct_yaml_int(loader, node)

        def construct_float(loader, node):
            text = loader.construct_scalar(node)
            if ":" in text and len(text) > MAX_NUMBER_CHARS:
                return float("-inf") if text.lstrip().startswith("-") else float("inf")
            try:
                return base.construct_yaml_float(loader, node)
            except (ValueError, OverflowError):  # a long scalar of number characters that is none
                return text

        Loader.add_constructor("tag:yaml.org,2002:int", construct_int)
        Loader.add_constructor(_FLOAT_TAG, construct_float)
        _LOADER = (yaml, Loader)
    return _LOADER


def _line(ev) -> int:
    mark = getattr(ev, "start_mark", None)
    return (mark.line + 1) if mark is not None else 0


def _new_anchor(ev, opened: set, sizes: dict) -> None:
    # PyYAML's composer refuses a second anchor of the same name too; refused here, an
    # inner &a closing could not hide that the outer &a is still open
    if ev.anchor in opened or ev.anchor in sizes:
        raise YAMLBound(f"duplicate anchor &{ev.anchor} at line {_line(ev)}")


def check_graph(text: str) -> None:
    """Walk the parser's events once (nothing composed): cycles, expanded size,
    expanded depth and documents, as the module says. Raises YAMLBound."""
    yaml, Loader = _loader()
    parser = Loader(text)
    try:
        sizes: dict = {}  # anchor -> (nodes, depth) of its node, as expanded
        opened: set = set()  # anchors whose collection is still open
        stack: list[list] = []  # open collections: [anchor, nodes, depth below, aliased]
        total = events = docs = 0
        while parser.check_event():
            ev = parser.get_event()
            events += 1
            if events > MAX_YAML_NODES:
                raise YAMLBound(f"YAML has more than {MAX_YAML_NODES} nodes (too big for a config)")
            if isinstance(ev, yaml.DocumentStartEvent):
                docs += 1
                if docs > 1:
                    raise YAMLBound(f"a second YAML document at line {_line(ev)} (a config is one document)")
                continue
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_YAML_DEPTH:
                    raise YAMLBound(f"YAML nested more than {MAX_YAML_DEPTH} levels deep at line {_line(ev)}")
                if ev.anchor is not None:
                    _new_anchor(ev, opened, sizes)
                    opened.add(ev.anchor)
                stack.append([ev.anchor, 1, 0, False])
                continue
            if isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                anchor, n, below, via_alias = stack.pop()
                d = below + 1
                if anchor is not None:
                    opened.discard(anchor)
                    sizes[anchor] = (n, d)
            elif isinstance(ev, yaml.ScalarEvent):
                n, d, via_alias = 1, 0, False
                if ev.anchor is not None:
                    _new_anchor(ev, opened, sizes)
                    sizes[ev.anchor] = (1, 0)
            elif isinstance(ev, yaml.AliasEvent):
                if ev.anchor in opened:
                    raise YAMLBound(f"recursive alias at line {_line(ev)} (*{ev.anchor} inside &{ev.anchor})")
                if ev.anchor not in sizes:
                    raise YAMLBound(f"undefined alias at line {_line(ev)}")
                (n, d), via_alias = sizes[ev.anchor], True
                if len(stack) + d > MAX_YAML_DEPTH:
                    raise YAMLBound(
                        f"YAML nested more than {MAX_YAML_DEPTH} levels deep at line {_line(ev)} (aliases counted)"
                    )
            else:
                continue
            if stack:
                top = stack[-1]
                top[1] += n
                top[2] = max(top[2], d)
                top[3] = top[3] or via_alias
                if top[1] > MAX_YAML_NODES:
                    raise YAMLBound(
                        f"YAML expands to more than {MAX_YAML_NODES} nodes (alias bomb?)"
                        if top[3]
                        else f"YAML has more than {MAX_YAML_NODES} nodes (too big for a config)"
                    )
            else:
                total += n
                if total > MAX_YAML_NODES:
                    raise YAMLBound(f"YAML expands to more than {MAX_YAML_NODES} nodes (alias bomb?)")
    finally:
        parser.dispose()


def safe_yaml(text: str):
    """``yaml.safe_load`` behind the graph check (``check_graph``): size, depth and
    aliases bounded, cycles refused, before anything is composed. Raises YAMLBound
    (a ValueError) or a yaml.YAMLError."""
    check_graph(text)
    yaml, Loader = _loader()
    loader = Loader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
