"""Readers' replay fast path (feed_chunk -> Frames) against the per-line path.

Every record (all fields), the skip counts and what the log says about the run
must be the same whether a file is read line by line (``feed``, as the live
tailer does) or in chunks (``read_items``, as a replay does).
"""

from __future__ import annotations

import glob
import json
import math
import os
import random

import pytest

from tsm_tui.core.frame import Frame
from tsm_tui.sources import reading, registry
from tsm_tui.sources.base import MAX_LINE
from helpers import paths

ROOT = paths.ROOT


def per_line(path: str, reader) -> list:
    out = []
    with open(path, "rb") as f:
        for raw in f:
            if len(raw) > MAX_LINE:
                reader.skip("long")
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("utf-8", "replace")
            line = line.rstrip("\n").rstrip("\r")
            out += reader.take_line(line, reader.feed(line))  # (as the tailer feeds a line: launch marks too)
    return out + reader.flush()


def digest(recs, reader) -> tuple:
    rows = [tuple(repr(getattr(r, f)) for f in r.__slots__) for r in recs]
    return (
        rows,
        reader.records,
        reader.skipped,
        sorted(reader.run_info.items(), key=str),
        getattr(reader, "other_lines", None),
    )


def check(path: str) -> int:
    """Both ways equal; returns how many rows came as Frames."""
    r1, _ = registry.open_reader(path)
    if r1 is None or r1.kind != "lines":
        return 0
    want = digest(per_line(path, r1), r1)
    r2, _ = registry.open_reader(path)
    items = list(reading.read_items(path, r2))
    recs = []
    framed = 0
    for it in items:
        if isinstance(it, Frame):
            framed += it.n
            recs += it.records()
        else:
            recs.append(it)
    got = digest(recs, r2)
    assert got[1:] == want[1:], path
    assert len(got[0]) == len(want[0]), path
    for i, (a, b) in enumerate(zip(got[0], want[0])):
        assert a == b, f"{path}: record {i}: {a} != {b}"
    return framed


def megatron_line(it: int, loss, lr: float, gn: float, width: int = 8, skipped: int = 0) -> str:
    lo = "" if loss is None else f" lm loss: {loss:E} |"
    return (
        f" iteration {it:>{width}}/  100000 | consumed samples: {it * 512:>12} | elapsed time per iteration (ms): "
        f"{1234.5 + it % 7:.1f} | learning rate: {lr:E} | global batch size:   512 |{lo} loss scale: "
        f"{65536.0 if it % 3 else 32768.0:.1f} | grad norm: {gn:.3f} | number of skipped iterations: {skipped:>3} | "
        f"number of nan iterations: {0 if loss is not None else 1:>3} |"
    )


def test_megatron_variants(tmp_path):
    rng = random.Random(3)
    lines = [
        "using world size: 8",
        "> building GPT model ...",
        "    lr ........................ 0.0003",
        "    train_iters ............... 100000",
    ]
    for it in range(1, 3000):
        if it % 500 == 0:
            lines.append(f"[2024-01-01 12:{it % 60:02d}:00] saving checkpoint at iteration {it:>7} to /ckpt")
        if it % 777 == 0:
            lines.append(megatron_line(it, None, 1e-4, float("nan")))  # NaN step: no lm loss
            continue
        if it % 911 == 0:
            lines.append("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
        loss = 10 * math.exp(-it / 800) + rng.random() * 0.1
        gn = rng.random() * (100 if it % 1000 == 5 else 2)
        lines.append(megatron_line(it, loss, 3e-4 * min(1, it / 100), gn, skipped=1 if it % 50 == 0 else 0))
        if it % 1300 == 0:
            lines.append(megatron_line(it, -loss, 3e-4, gn))  # a sign the template has not seen
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n")
    framed = check(str(p))
    assert framed > 2000  # most iteration lines came as frames


def test_jsonl_variants(tmp_path):
    rng = random.Random(5)
    out = []
    step = 0
    for _block in range(200):
        kind = rng.randint(0, 14)
        for _ in range(rng.randint(1, 60)):
            step += 1
            d = {"step": step, "loss": rng.random() * 3, "grad_norm": rng.random(), "lr": 1e-4}
            if kind == 1:
                d["loss"] = float("nan")
            elif kind == 2:
                d = {"step": step, "eval_loss": rng.random()}
            elif kind == 3:
                d["flag"] = True
            elif kind == 4:
                d["loss"] = str(round(rng.random(), 3))
            elif kind == 5:
                d["nested"] = {"a": 1.0}
            elif kind == 6:
                out.append('{"step": 3, "loss": 1.')
                continue
            elif kind == 7:
                out.append("")
            elif kind == 8:
                d = {
                    "loss": 1.0,
                    "train_loss": 2.0,
                    "step": step,
                    "global_step": step + 5,
                    "skipped": 1,
                    "number_of_skipped_iterations": 2,
                }
            elif kind == 9:
                d["text"] = "hello"
            elif kind == 10:
                d = {"step": str(step), "loss": "1,000"}
            elif kind == 11:
                d = {"lr": 1e-3, "step": step, "loss": 1e300, "loss_scale": 2.0**16, "tokens_per_s": 3}
            elif kind == 12:
                d = {"step": step + 0.5, "loss": 1.0}
            elif kind == 13:
                d["grad_norm"] = None  # null: the field is absent, not NaN
            elif kind == 14:
                d = {"step": step, "loss": " 2.5 ", "lr": "nan", "x": "1_000"}
            out.append(json.dumps(d) + ("\r" if kind == 7 and rng.random() < 0.3 else ""))
    p = tmp_path / "metrics.jsonl"
    p.write_bytes(
        ("\n".join(out)).encode() + b'\n{"step": 99999, "loss": 1.0, "x": "\xff\xfe"}\n{"step": 100000, "loss": 2}'
    )
    framed = check(str(p))
    assert framed > 1000


# lines that would parse differently as one array than one by one: split
# ("},{" inside a line), merged (brackets closed on the next line), braces in
# strings, whitespace around the object, NaN, a truncated last line
_ODD = [
    '{"step": 7, "loss": 1.0},{"step": 8, "loss": 2.0}',
    '{"step": 9, "loss": [[\n]], "x": 1}',
    '{"step": 7, "loss": 1.0},{"step": 8, "loss": 2.0}\n{"step": 9, "loss": [[\n]], "x": 1}',
    '{"step": 10, "loss": 1.5, "note": "{"}',
    ' {"step": 11, "loss": 1.5}',
    '{"step": 12, "loss": 1.5}  \r',
    '{"step": 13, "loss": NaN}',
    '{"step": 14, "loss": 1.5, "tag": "a}b"}',
    '{"step": 15, "loss": 1.5}}',
    '{"step": 16, "loss": 1.5}]',
    '{"step": 17, "loss": 1.5}, 5',
    '{"step": 18, "loss": 1.5}, {"step": 19, "loss": 1.5}',
    '{"step": 20, "loss": {"a": 1}}',
    "",
]


@pytest.mark.parametrize("odd", range(len(_ODD) + 1))
def test_jsonl_whole_chunk(tmp_path, odd):
    """Uniform chunks parse as one array (JsonlReader._whole); one odd line
    anywhere must give exactly what the per-line path gives."""
    lines = [json.dumps({"step": s, "loss": 2.0 + s * 1e-5, "grad_norm": 0.5, "lr": 1e-4}) for s in range(1, 30001)]
    if odd < len(_ODD):
        at = 20000 + odd * 7
        lines[at:at] = _ODD[odd].split("\n")
    p = tmp_path / "metrics.jsonl"
    p.write_text("\n".join(lines) + ("\n" if odd % 2 else ""))  # half without a final newline
    assert check(str(p)) > 20000


FILES = sorted(
    p
    for pat in ("sample_runs/**/*", "tests/data/**/*")
    for p in glob.glob(os.path.join(ROOT, pat), recursive=True)
    if os.path.isfile(p) and not p.endswith((".pt", ".png", ".svg"))
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_repo_files(path):
    check(path)


SHARED = sorted(
    glob.glob("/work/shared/real_logs/**/*", recursive=True)
    + glob.glob(os.path.join(ROOT, "..", "shared", "real_logs", "**", "*"), recursive=True)
)


@pytest.mark.skipif(not SHARED, reason="../shared/real_logs not present")
@pytest.mark.slow
def test_real_logs():
    framed = sum(check(p) for p in SHARED if os.path.isfile(p))
    assert framed > 0
