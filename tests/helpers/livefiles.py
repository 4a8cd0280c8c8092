"""Writers for the files a training job really leaves behind, used by the live
tests: HF Trainer's captured stdout (tqdm counter glued to the log dict),
TensorBoard event files (length, masked CRC-32C, Event protobuf), JSON Lines
and trainer_state.json (rewritten whole at each save)."""

from __future__ import annotations

import json
import math
import os
import struct

from tsm_tui.sources.tensorboard import masked_crc


def curve(step: int, total: int = 1000, warmup: int = 30, peak: float = 3e-4) -> dict:
    loss = 2.0 + 6.0 * math.exp(-step / 300) * (1 + 0.01 * math.sin(step))
    lr = peak * step / warmup if step <= warmup else peak * (0.5 + 0.5 * math.cos(math.pi * step / total))
    return {"step": step, "loss": loss, "grad_norm": 0.4 + 0.01 * math.cos(step), "learning_rate": lr}


def hf_stdout_line(r: dict, total: int = 1000) -> str:
    """One ProgressCallback print as captured in a file: a tqdm redraw, then the dict."""
    s = r["step"]
    d = {
        "loss": r["loss"],
        "grad_norm": r["grad_norm"],
        "learning_rate": r["learning_rate"],
        "epoch": round(s / total, 4),
    }
    return f"{100 * s // total:3d}%|#  | {s}/{total} [00:{s % 60:02d}<00:10,  9.9it/s]{d!r}\n"


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


def tb_event(
    step: int, tag: str | None = None, value: float | None = None, wall: float = 1.7e9, file_version: str | None = None
) -> bytes:
    b = b"\x09" + struct.pack("<d", wall)
    if step:
        b += b"\x10" + _varint(step)
    if file_version is not None:
        b += _ld(3, file_version.encode())
    if tag is not None:
        v = _ld(1, tag.encode()) + b"\x15" + struct.pack("<f", value)
        b += _ld(5, _ld(1, v))
    head = struct.pack("<Q", len(b))
    return head + struct.pack("<I", masked_crc(head)) + b + struct.pack("<I", masked_crc(b))


def tb_records(recs: list[dict], header: bool = False) -> bytes:
    out = [tb_event(0, file_version="brain.Event:2")] if header else []
    for r in recs:
        for tag, key in (
            ("train/loss", "loss"),
            ("train/grad_norm", "grad_norm"),
            ("train/learning_rate", "learning_rate"),
        ):
            out.append(tb_event(r["step"], tag, r[key]))
    return b"".join(out)


def trainer_state(recs: list[dict], max_steps: int = 1000) -> str:
    hist = [
        {
            "epoch": r["step"] / max_steps,
            "grad_norm": r["grad_norm"],
            "learning_rate": r["learning_rate"],
            "loss": r["loss"],
            "step": r["step"],
        }
        for r in recs
    ]
    return json.dumps(
        {
            "global_step": recs[-1]["step"] if recs else 0,
            "max_steps": max_steps,
            "logging_steps": 1,
            "save_steps": 50,
            "log_history": hist,
        },
        indent=2,
    )


def append(path, data, mode: str = "a") -> None:
    with open(path, mode + ("b" if isinstance(data, bytes) else "")) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def replace(path, text: str) -> None:
    """Write a whole file the way HF saves trainer_state.json: a new file, then a rename."""
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# -- W&B run files (run-<id>.wandb): a test-only writer of the SDK's framing -----------------
WB_BLOCK = 32 * 1024


def wb_frame(payloads: list[bytes], version: int = 0, max_chunk: int | None = None) -> bytes:
    """Records framed as W&B writes them: the 7-byte header, 32 KiB blocks, FULL /
    FIRST / MIDDLE / LAST chunks, zero padding, CRC-32/IEEE over type + payload."""
    import zlib

    out = bytearray(b":W&B\xe1\xbe" + bytes((version,)))
    for p in payloads:
        first = True
        while True:
            left = WB_BLOCK - len(out) % WB_BLOCK
            if left < 7:
                out += b"\0" * left
                continue
            room = left - 7 if max_chunk is None else min(left - 7, max_chunk)
            part, p = p[:room], p[room:]
            typ = (1 if not p else 2) if first else (4 if not p else 3)
            out += struct.pack("<IHB", zlib.crc32(part, zlib.crc32(bytes((typ,)))), len(part), typ) + part
            first = False
            if not p:
                break
    return bytes(out)


def _wb_item(key: str, value_json: str, nested: bool = True) -> bytes:
    k = b"".join(_ld(2, part.encode()) for part in [key]) if nested else _ld(1, key.encode())
    return k + _varint(16 << 3 | 2) + _varint(len(value_json.encode())) + value_json.encode()


def wb_history(step: int, row: dict, nested: bool = True) -> bytes:
    """A ``Record{history}`` as the Go core writes it (``nested_key`` items, ``_step``)."""
    items = {**row, "_step": step}
    body = b"".join(
        _ld(
            1,
            _wb_item(
                k, v if isinstance(v, str) else repr(float(v)).replace("nan", "NaN").replace("inf", "Infinity"), nested
            ),
        )
        for k, v in items.items()
    )
    body += _ld(2, (b"\x08" + _varint(step)) if step else b"")
    return b"\x08" + _varint(step + 1) + _ld(2, body)


def wb_output(line: str) -> bytes:
    """A ``Record{output_raw}`` (stdout)."""
    return _ld(13, b"\x08\x01" + _ld(3, line.encode()))


def wb_record(field: int, body: bytes = b"") -> bytes:
    return _ld(field, body)
