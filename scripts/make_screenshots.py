#!/usr/bin/env python
"""Render the README screenshots of the live monitor.

    python scripts/make_screenshots.py            # -> screenshots/*.svg and *.png

SVGs come from Textual's own export (the app runs headless through
``App.run_test``, a pilot presses keys, ``App.save_screenshot`` writes the
file). PNGs are rendered from those SVGs with ``rsvg-convert``
(``apt-get install librsvg2-bin``) or, failing that, ``cairosvg``
(``pip install cairosvg``); the web font the SVG names (Fira Code) is swapped
for a local monospace font first. Without either renderer only SVGs are made.

Sample runs come from ``sample_runs/`` (``python sample_runs/make_samples.py``);
the spike state uses the bundled demo run.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tsm_tui.views.tui import TsmApp  # noqa: E402
from tsm_tui.views.tui.widgets import AlertList  # noqa: E402
from tsm_tui.cli import demo_path  # noqa: E402

OUT = os.path.join(ROOT, "screenshots")
MONO = "DejaVu Sans Mono"


def finished_app(path: str, shown: str) -> TsmApp:
    return TsmApp.finished(path, shown)


async def shoot(
    name: str, path: str, shown: str, size: tuple[int, int], select: str | None = None, keys: tuple[str, ...] = ()
) -> str:
    app = finished_app(path, shown)
    async with app.run_test(size=size) as pilot:
        t0 = time.monotonic()
        while not app.loaded and time.monotonic() - t0 < 20:
            await pilot.pause(0.05)
        while (
            app.live.top is not None and not all(r.checks for r in app.run_rows.values()) and time.monotonic() - t0 < 60
        ):
            await pilot.pause(0.05)
        await pilot.pause(1.2 if app.live.top is not None else 0.2)  # (the runs screen's 1 s tick)
        if select:
            lst = app.query_one(AlertList)
            idx = next((i for i, a in enumerate(lst.alerts) if a.check == select and a.actions), None)
            if idx is not None:
                lst.highlighted = idx
                await pilot.press("enter")
        if keys:
            await pilot.press(*keys)
        await pilot.pause(0.3)
        return app.save_screenshot(f"{name}.svg", OUT)


_TEXT = re.compile(r'<text ([^>]*?)x="([\d.]+)"([^>]*?)textLength="([\d.]+)"([^>]*)>([^<]*)</text>')


def _split_braille(m: re.Match) -> str:
    """The local monospace font has no braille; the fallback font's glyphs are
    wider than a cell. Place each braille character at its own cell."""
    pre, x, mid, length, post, body = m.groups()
    if not any("\u2800" <= ch <= "\u28ff" for ch in body):
        return m.group(0)
    chars = re.findall(r"&#?\w+;|.", body)
    cw = float(length) / max(1, len(chars))
    return "".join(
        f'<text {pre}x="{float(x) + i * cw:.1f}"{mid}textLength="{cw:.1f}"{post}>{ch}</text>'
        for i, ch in enumerate(chars)
        if ch not in (" ", "&#160;")
    )


def to_png(svg: str) -> str | None:
    png = svg[:-4] + ".png"
    text = open(svg, encoding="utf-8").read()
    text = re.sub(r"@font-face\s*\{[^}]*\}", "", text)
    text = text.replace('"Fira Code"', f'"{MONO}"').replace("Fira Code, monospace", f"{MONO}, monospace")
    text = text.replace("<svg ", '<svg xml:space="preserve" ', 1)
    text = _TEXT.sub(_split_braille, text)
    tmp = svg[:-4] + ".tmp.svg"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    try:
        if shutil.which("rsvg-convert"):
            subprocess.run(["rsvg-convert", "-z", "1.25", "-o", png, tmp], check=True)
            return png
        try:
            import cairosvg
        except ImportError:
            return None
        cairosvg.svg2png(url=tmp, write_to=png, scale=1.25)
        return png
    finally:
        os.remove(tmp)


def sweep50() -> str:
    """50 small runs of a learning-rate / weight-decay / seed sweep (two go NaN, three share
    a loss spike at step 250), written once under bench/out; mtimes two hours back."""
    import json
    import math

    d = os.path.join(ROOT, "bench", "out", "screenshot-sweep50")
    if os.path.isdir(d) and len(os.listdir(d)) == 50:
        return d
    back = time.time() - 2 * 3600
    for i in range(50):
        name = f"lr{(1, 2, 3, 6, 10)[i % 5]}e-4_wd0.{i % 2}_seed{i // 10}_{i:02d}"
        p = os.path.join(d, name, "metrics.jsonl")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            for s in range(1, 401):
                loss = 2.0 + 6.0 * math.exp(-s / 120) * (1 + 0.01 * math.sin(s * (i + 1)))
                if i in (7, 33) and s >= 300:
                    loss = float("nan")
                if i in (4, 18, 41) and s == 250:
                    loss *= 5
                lr = 3e-4 * min(1.0, s / 30)
                f.write(json.dumps({"step": s, "loss": loss, "grad_norm": 0.4 + 0.01 * math.cos(s), "lr": lr}) + "\n")
        os.utime(p, (back, back))
    return d


SHOTS = [
    # name, run, path shown, size, alert to select, keys
    ("healthy", "sample_runs/healthy", "sample_runs/healthy", (160, 48), None, ()),
    ("spike-alert", "DEMO", "tsm-watch --demo", (160, 48), "loss_spike", ()),
    ("divergence-rollback", "sample_runs/nan_divergence", "sample_runs/nan_divergence", (160, 48), "nonfinite", ()),
    ("spike-80x24", "DEMO", "tsm-watch --demo", (80, 24), None, ()),
    ("fail-80x24", "sample_runs/spike_no_recover", "sample_runs/spike_no_recover", (80, 24), None, ()),
    ("runs", "sample_runs", "sample_runs", (120, 24), None, ()),
    ("runs-80x24", "SWEEP50", "sweep/", (80, 24), None, ()),
]


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    made = []
    only = set(sys.argv[1:])  # names to make (default: all)
    for name, run, shown, size, select, keys in SHOTS:
        if only and name not in only:
            continue
        path = demo_path() if run == "DEMO" else (sweep50() if run == "SWEEP50" else os.path.join(ROOT, run))
        if not os.path.exists(path):
            print(f"skip {name}: {run} not found (python sample_runs/make_samples.py)", file=sys.stderr)
            continue
        svg = asyncio.run(shoot(name, path, shown, size, select, keys))
        png = to_png(svg)
        made.append(os.path.relpath(svg, ROOT))
        if png:
            made.append(os.path.relpath(png, ROOT))
    print("\n".join(made))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
