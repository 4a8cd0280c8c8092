"""Generated training logs for the benchmarks (never committed: ``bench/out/``).

Three formats of the same run: JSON Lines (``{"step","loss","grad_norm","lr"}``),
Megatron-LM text lines and TensorBoard event files. The TFRecord/protobuf
encoder below is our own (the subset ``tsm_tui.sources.tensorboard`` decodes),
so generating needs no tensorflow.

The run: warm-up over 1% of the steps then cosine decay to 10%; loss
``2 + 8 exp(-t/tau)`` times log-normal noise (1.5%); grad norm log-normal
around 0.5 with decay; a few recovering loss spikes (4x, decaying over ~30
steps) with grad-norm spikes on the same step.
"""

from __future__ import annotations

import math
import os
import random
import struct

from tsm_tui.sources.tensorboard import masked_crc

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")


def curve(n: int, seed: int = 1, spikes: int = 5):
    """Yield (step, loss, grad_norm, lr) for steps 1..n."""
    rng = random.Random(seed)
    warm = max(10, n // 100)
    tau = max(50.0, n * 0.05)
    spike_at = sorted(rng.sample(range(n // 5, n - 200), spikes)) if n > 2000 and spikes else []
    sp = {s: 0 for s in spike_at}
    gauss = rng.gauss
    exp = math.exp
    cos = math.cos
    amp = 0.0
    for step in range(1, n + 1):
        lr = (
            3e-4 * step / warm
            if step <= warm
            else 3e-4 * (0.1 + 0.45 * (1 + cos(math.pi * (step - warm) / (n - warm))))
        )
        if step in sp:
            amp = 3.0
        base = 2.0 + 8.0 * exp(-step / tau)
        loss = base * exp(gauss(0.0, 0.015)) * (1.0 + amp)
        gn = 0.5 * (1 + exp(-step / tau)) * exp(gauss(0.0, 0.15)) * (1.0 + 4 * amp)
        amp *= 0.85
        if amp < 1e-3:
            amp = 0.0
        yield step, loss, gn, lr


def path_for(fmt: str, n: int, seed: int = 1) -> str:
    d = os.path.join(OUT, f"{fmt}-{n}-{seed}")
    os.makedirs(d, exist_ok=True)
    name = {
        "jsonl": "metrics.jsonl",
        "megatron": "train.log",
        "tensorboard": "events.out.tfevents.1700000000.bench.1.0",
    }[fmt]
    return os.path.join(d, name)


def write_jsonl(n: int, seed: int = 1) -> str:
    p = path_for("jsonl", n, seed)
    if os.path.exists(p):
        return p
    with open(p + ".tmp", "w") as f:
        buf = []
        for s, loss, gn, lr in curve(n, seed):
            buf.append(f'{{"step": {s}, "loss": {loss:.6f}, "grad_norm": {gn:.6f}, "lr": {lr:.6e}}}\n')
            if len(buf) >= 10000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))
    os.replace(p + ".tmp", p)
    return p


MEGATRON = (
    " iteration {s:8d}/ {n:8d} | consumed samples: {cs:12d} | elapsed time per iteration (ms): {ms:.1f} | "
    "learning rate: {lr:.6E} | global batch size: {b:5d} | lm loss: {loss:.6E} | loss scale: 1.0 | "
    "grad norm: {gn:.3f} | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
)


def write_megatron(n: int, seed: int = 1) -> str:
    p = path_for("megatron", n, seed)
    if os.path.exists(p):
        return p
    with open(p + ".tmp", "w") as f:
        buf = []
        for s, loss, gn, lr in curve(n, seed):
            buf.append(MEGATRON.format(s=s, n=n, cs=s * 512, ms=1234.5 + (s % 7), lr=lr, b=512, loss=loss, gn=gn))
            if len(buf) >= 10000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))
    os.replace(p + ".tmp", p)
    return p


# -- TFRecord / protobuf encoding (Event{1 wall_time, 2 step, 5 summary{1 value{1 tag, 2 simple_value}}})
def _varint(x: int) -> bytes:
    out = bytearray()
    while True:
        b = x & 0x7F
        x >>= 7
        if x:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _ld(num: int, payload: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def event(
    step: int, wall: float, tag: str | None = None, value: float | None = None, file_version: str | None = None
) -> bytes:
    b = b"\x09" + struct.pack("<d", wall)
    if step:
        b += b"\x10" + _varint(step)
    if file_version is not None:
        b += _ld(3, file_version.encode())
    if tag is not None:
        v = _ld(1, tag.encode()) + b"\x15" + struct.pack("<f", value)
        b += _ld(5, _ld(1, v))
    return b


def record(data: bytes) -> bytes:
    h = struct.pack("<Q", len(data))
    return h + struct.pack("<I", masked_crc(h)) + data + struct.pack("<I", masked_crc(data))


def write_tensorboard(n: int, seed: int = 1) -> str:
    p = path_for("tensorboard", n, seed)
    if os.path.exists(p):
        return p
    with open(p + ".tmp", "wb") as f:
        f.write(record(event(0, 1.7e9, file_version="brain.Event:2")))
        buf = []
        for s, loss, gn, lr in curve(n, seed):
            w = 1.7e9 + s * 0.5
            for tag, v in (("train/loss", loss), ("train/grad_norm", gn), ("train/learning_rate", lr)):
                buf.append(record(event(s, w, tag, v)))
            if len(buf) >= 30000:
                f.write(b"".join(buf))
                buf = []
        f.write(b"".join(buf))
    os.replace(p + ".tmp", p)
    return p


WRITERS = {"jsonl": write_jsonl, "megatron": write_megatron, "tensorboard": write_tensorboard}


def generate(fmt: str, n: int, seed: int = 1) -> str:
    return WRITERS[fmt](n, seed)
