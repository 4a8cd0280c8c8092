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
    d = {"loss": r["loss"], "grad_norm": r["grad_norm"], "learning_rate": r["learning_rate"],
         "epoch": round(s / total, 4)}
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


def tb_event(step: int, tag: str | None = None, value: float | None = None, wall: float = 1.7e9,
             file_version: str | None = None) -> bytes:
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
        for tag, key in (("train/loss", "loss"), ("train/grad_norm", "grad_norm"),
                         ("train/learning_rate", "learning_rate")):
            out.append(tb_event(r["step"], tag, r[key]))
    return b"".join(out)


def trainer_state(recs: list[dict], max_steps: int = 1000) -> str:
    hist = [{"epoch": r["step"] / max_steps, "grad_norm": r["grad_norm"], "learning_rate": r["learning_rate"],
             "loss": r["loss"], "step": r["step"]} for r in recs]
    return json.dumps({"global_step": recs[-1]["step"] if recs else 0, "max_steps": max_steps,
                       "logging_steps": 1, "save_steps": 50, "log_history": hist}, indent=2)


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
