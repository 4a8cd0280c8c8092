"""The one live loop (tsm_tui.analysis.live) that --follow and the TUI share:
each alert once per run however many files carry the series, checkpoints and
configs re-read when they change, on files really being written."""

from __future__ import annotations

import json
import os
import math
import sys
import time

import numpy as np
import pytest


from helpers.livefiles import append, curve, hf_stdout_line, replace, tb_records, trainer_state
from helpers.wait import WAIT

from tsm_tui.analysis.live import LiveLoop
from tsm_tui.analysis.session import Session
from tsm_tui.core.record import StepRecord
from tsm_tui.sources.feed import Feed
from helpers.wait import pilot_until, wait_until


def spiky(step: int, spike_at: int) -> dict:
    r = curve(step)
    if step == spike_at:
        r["loss"] *= 5
    return r


class _Reader:
    def __init__(self, name: str, priority: int) -> None:
        self.name, self.priority, self.run_info, self.path = name, priority, {}, name
        self.auxiliary = False


class ListFeed(Feed):
    """A feed the test fills by hand (no thread)."""

    def start(self) -> None:
        pass

    def push(self, source: str, recs: list[StepRecord], priority: int = 5) -> None:
        self._put(source, _Reader(source, priority), recs)


def recs(lo: int, hi: int, spike_at: int | None = None) -> list[StepRecord]:
    out = []
    for s in range(lo, hi):
        r = spiky(s, spike_at or -1)
        out.append(StepRecord(step=s, loss=r["loss"], grad_norm=r["grad_norm"], lr=r["learning_rate"]))
    return out


def test_loop_returns_each_alert_once_for_the_run():
    feed = ListFeed()
    loop = LiveLoop(Session(), feed)
    feed.push("a/train.log", recs(1, 301), priority=8)
    feed.push("a/events.tfevents", recs(1, 301), priority=9)
    assert not [a for a, _, _ in loop.step(force_status=True).alerts if a.check == "loss_spike"]
    # the spike arrives in the stdout log first, then in the event file, which then
    # becomes the primary source: one alert for the run
    feed.push("a/train.log", recs(301, 302, spike_at=301), priority=8)
    up1 = loop.step()
    feed.push("a/events.tfevents", recs(301, 302, spike_at=301), priority=9)
    up2 = loop.step()
    spikes = [a for up in (up1, up2) for a, _, _ in up.alerts if a.check == "loss_spike"]
    assert [a.step for a in spikes] == [301]
    assert any(c.check == "loss_spike" and c.status.value != "PASS" for c in up1.statuses + up2.statuses)
    # a third copy (trainer_state.json's whole history) adds nothing
    feed.push("a/trainer_state.json", recs(1, 302, spike_at=301), priority=10)
    assert not [a for a, _, _ in loop.step().alerts if a.check == "loss_spike"]


def test_a_recovered_spike_is_revised_not_changed():
    """The onset alert said "if it does not recover: roll back"; once the loss is back
    the loop hands out its new reading (same identity, that action gone) and the
    alert first returned is left as it was said."""
    feed = ListFeed()
    loop = LiveLoop(Session(), feed)
    feed.push("run.jsonl", recs(1, 302, spike_at=301))
    onset = [la.alert for la in loop.step().alerts if la.alert.check == "loss_spike"]
    assert [a.step for a in onset] == [301]
    assert any(x.startswith("If it does not recover") for x in onset[0].actions)
    said = list(onset[0].actions)
    revised = []
    for lo in range(302, 340, 4):
        feed.push("run.jsonl", recs(lo, lo + 4))
        revised += loop.step().revised
    assert [(la.alert.check, la.alert.step) for la in revised] == [("loss_spike", 301)]
    assert not any(x.startswith("If it does not recover") for x in revised[0].alert.actions)
    assert revised[0].alert.actions == [x for x in said if not x.startswith("If it does not recover")]
    assert onset[0].actions == said  # never mutated


def test_budget_feeds_a_long_history_in_parts():
    feed = ListFeed()
    loop = LiveLoop(Session(), feed)
    feed.push("run.jsonl", recs(1, 5001))
    seen = 0
    for _ in range(10):
        up = loop.step(budget=1000)
        seen += up.records
        if not loop.pending and up.records == 0:
            break
    assert seen == 5000
    assert loop.session.monitor.state.last_step == 5000


def _hf_dir(tmp_path, n: int):
    run = tmp_path / "out"
    tb = run / "runs" / "Dec04_03-30-00_node1"
    tb.mkdir(parents=True)
    hist = [curve(s) for s in range(1, n + 1)]
    append(run / "train.log", "".join(hf_stdout_line(r) for r in hist), "w")
    append(tb / "events.out.tfevents.1796000000.node1.1.0", tb_records(hist, header=True), "w")
    replace(run / "trainer_state.json", trainer_state(hist))
    return run, tb / "events.out.tfevents.1796000000.node1.1.0", hist


@pytest.mark.slow
def test_follow_hf_output_dir_prints_each_alert_once(tmp_path, follow):
    run, events, hist = _hf_dir(tmp_path, 250)
    f = follow(run, "--json")
    assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
    new = [spiky(s, 301) for s in range(251, 321)]
    append(run / "train.log", "".join(hf_stdout_line(r) for r in new))
    append(events, tb_records(new))
    assert f.wait_for(lambda: any('"loss_spike"' in x and '"alert"' in x for x in f.out)), (f.out, f.err)
    replace(run / "trainer_state.json", trainer_state(hist + new))  # the next save rewrites the history
    time.sleep(2.5)
    objs = f.json()
    alerts = [(o["check"], o["step"], o["severity"], o["message"][:40]) for o in objs if o["event"] == "alert"]
    assert len(alerts) == len(set(alerts)), alerts  # nothing printed twice
    spikes = [a for a in alerts if a[0] == "loss_spike" and a[1] == 301]
    assert len(spikes) == 1, alerts
    assert f.stop() == 0


@pytest.mark.slow
def test_on_alert_runs_once_per_critical_alert_across_files(tmp_path, follow):
    run = tmp_path / "run"
    (run / "tb").mkdir(parents=True)
    hist = [curve(s) for s in range(1, 201)]
    append(run / "metrics.jsonl", "".join(json.dumps(r) + "\n" for r in hist), "w")
    events = run / "tb" / "events.out.tfevents.1796000000.node1.1.0"
    append(events, tb_records(hist, header=True), "w")
    pages = tmp_path / "pages.txt"
    hook = f"{sys.executable} -c \"import sys; open({str(pages)!r}, 'a').write(sys.stdin.read())\""
    f = follow(run, "--on-alert", hook)
    assert f.wait_for(lambda: any("watching" in x for x in f.err)), f.err
    time.sleep(1.0)  # the backlog is read (never paged)
    nan = dict(curve(201), loss=math.nan)
    append(run / "metrics.jsonl", json.dumps(nan) + "\n")  # json.dumps writes NaN
    append(events, tb_records([nan]))
    assert f.wait_for(lambda: pages.exists() and pages.read_text().strip(), WAIT), (f.out, f.err)
    time.sleep(2.0)  # a second copy would have arrived by now
    paged = [json.loads(x) for x in pages.read_text().splitlines() if x.strip()]
    assert [(p["check"], p["step"]) for p in paged] == [("nonfinite", 201)], paged
    assert f.stop() == 0


@pytest.mark.slow
def test_checkpoint_saved_a_second_before_the_nan_is_named(tmp_path, follow):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "step_000200.pt").write_bytes(b"x")
    append(run / "metrics.jsonl", "".join(json.dumps(curve(s)) + "\n" for s in range(1, 251)), "w")
    f = follow(run, "--json")
    assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
    (run / "checkpoints" / "step_000250.pt").write_bytes(b"y" * 1000)
    time.sleep(1.0)
    append(
        run / "metrics.jsonl",
        "".join(json.dumps(curve(s)) + "\n" for s in range(251, 300))
        + json.dumps(dict(curve(300), loss=math.nan))
        + "\n",
    )
    assert f.wait_for(lambda: any('"nonfinite"' in x and '"alert"' in x for x in f.out)), (f.out, f.err)
    alert = next(o for o in f.json() if o["event"] == "alert" and o["check"] == "nonfinite")
    text = " ".join(alert["actions"])
    assert "step_000250.pt" in text and "step_000200.pt" not in text, alert
    assert f.stop() == 0


def _flat_run(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    # 99 warm-up steps of 300 logged: fine against 300 steps, too short against 100000 planned
    lines = []
    for s in range(1, 301):
        lr = 3e-4 * min(1.0, s / 99) * (1.0 if s <= 99 else 0.999 ** (s - 99))
        lines.append(json.dumps({"step": s, "loss": 2.0 + 4.0 * math.exp(-s / 80), "grad_norm": 0.4, "lr": lr}) + "\n")
    append(run / "metrics.jsonl", "".join(lines), "w")
    return run


@pytest.mark.slow
def test_config_written_after_start_changes_the_plan_in_follow(tmp_path, follow):
    run = _flat_run(tmp_path)
    f = follow(run, "--json")
    assert f.wait_for(lambda: any('"status"' in x and '"lr_schedule"' in x for x in f.out)), (f.out, f.err)
    before = [o for o in f.json() if o["event"] == "status" and o["check"] == "lr_schedule"][-1]
    assert before["status"] == "PASS" and "logged" in before["summary"], before
    replace(run / "config.json", json.dumps({"max_steps": 100000, "warmup_steps": 99}))
    assert f.wait_for(lambda: any('"lr_schedule"' in x and "100000 planned" in x for x in f.out)), f.out
    after = [o for o in f.json() if o["event"] == "status" and o["check"] == "lr_schedule"][-1]
    assert after["status"] == "WARN" and "100000 planned" in after["summary"], after
    assert f.stop() == 0


def test_config_written_after_start_changes_the_plan_in_the_tui(tmp_path):
    import asyncio

    from tsm_tui.cli import parse
    from tsm_tui.views.tui import TsmApp

    run = _flat_run(tmp_path)

    async def body():
        app = TsmApp.from_options(parse([str(run), "--no-bell"]))
        assert app.mode == "live"
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot_until(
                pilot, lambda: app.check_statuses().get("lr_schedule") == "PASS", WAIT, "lr_schedule: PASS"
            )
            replace(run / "config.json", json.dumps({"max_steps": 100000, "warmup_steps": 99}))
            await pilot_until(
                pilot, lambda: app.check_statuses().get("lr_schedule") == "WARN", WAIT, "lr_schedule: WARN"
            )
            mon = app.session.monitor
            assert mon.state.info.total_steps == 100000
            assert any("100000 planned" in c.summary for c in app.dashboard.run_checks if c.id == "lr_schedule")

    asyncio.run(body())


def _ckpt_dir_run(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint-200").mkdir()
    (run / "checkpoint-200" / "model.safetensors").write_bytes(b"w" * 100)
    append(run / "metrics.jsonl", "".join(json.dumps(curve(s)) + "\n" for s in range(1, 251)), "w")
    return run


@pytest.mark.slow
def test_polling_names_the_checkpoint_directory_saved_a_second_before_the_nan(tmp_path, follow):
    """No events on a network filesystem: the checkpoints are looked at again before
    new records are fed, so the rollback is the checkpoint saved just before."""
    run = _ckpt_dir_run(tmp_path)
    f = follow(run, "--json", "--poll", "0.5")
    assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
    time.sleep(1.0)
    (run / "tmp-checkpoint-300").mkdir()  # HF saves into a temporary name, then renames
    (run / "tmp-checkpoint-300" / "model.safetensors").write_bytes(b"w" * 100)
    os.rename(run / "tmp-checkpoint-300", run / "checkpoint-300")
    time.sleep(0.3)  # well inside the 2 s stat period of polling
    append(
        run / "metrics.jsonl",
        "".join(json.dumps(curve(s)) + "\n" for s in range(251, 310))
        + json.dumps(dict(curve(310), loss=math.nan))
        + "\n",
    )
    assert f.wait_for(lambda: any('"nonfinite"' in x and '"alert"' in x for x in f.out)), (f.out, f.err)
    alert = next(o for o in f.json() if o["event"] == "alert" and o["check"] == "nonfinite")
    text = " ".join(alert["actions"])
    assert "checkpoint-300" in text and "checkpoint-200" not in text, alert
    assert f.stop() == 0


def test_polling_loop_rereads_checkpoints_before_feeding_new_records(tmp_path):
    """The same, with the loop's clock in hand: 0.5 s after the last look (well inside
    the 2 s stat period of polling) a checkpoint saved since is the one named."""
    from tsm_tui.sources.runfiles import RunFiles

    run = tmp_path / "run"
    (run / "checkpoint-200").mkdir(parents=True)
    now = [100.0]
    feed = ListFeed()
    files = RunFiles(str(run))
    session = Session()
    session.set_checkpoints(files.checkpoints())
    loop = LiveLoop(session, feed, files, polling=True, clock=lambda: now[0])
    feed.push("run/metrics.jsonl", recs(1, 251))
    loop.step()
    (run / "checkpoint-300").mkdir()
    now[0] += 0.5
    feed.push("run/metrics.jsonl", recs(251, 310) + [StepRecord(step=310, loss=math.nan)])
    alerts = [la.alert for la in loop.step().alerts if la.alert.check == "nonfinite"]
    assert alerts and "checkpoint-300" in " ".join(alerts[0].actions), alerts


@pytest.mark.slow
def test_a_check_the_config_alone_fails_is_reported_at_the_start(tmp_path, follow):
    """A config read at the start that puts a check at WARN / FAIL (a 0.1% warm-up of
    100000 planned steps) is said at the first pass, not only when it changes."""
    run = _flat_run(tmp_path)
    replace(run / "config.json", json.dumps({"max_steps": 100000, "warmup_steps": 99}))
    f = follow(run, "--json")
    assert f.wait_for(lambda: any('"lr_schedule"' in x and '"status"' in x for x in f.out)), (f.out, f.err)
    st = [o for o in f.json() if o["event"] == "status" and o["check"] == "lr_schedule"][-1]
    assert st["status"] in ("WARN", "FAIL") and "100000 planned" in st["summary"], st
    assert f.stop() == 0


LLAMA_7B = {
    "architectures": ["LlamaForCausalLM"],
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "vocab_size": 32000,
    "num_attention_heads": 32,
    "model_type": "llama",
}


def _hot_run(tmp_path):
    """300 logged steps of a run whose LR peaks at 3e-3 (fine for a toy, 25x too high
    for a 7B model) with 262k tokens a step."""
    run = tmp_path / "run"
    run.mkdir()
    lines = []
    for s in range(1, 301):
        lr = 3e-3 * min(1.0, s / 99)
        lines.append(
            json.dumps(
                {"step": s, "loss": 2.0 + 4.0 * math.exp(-s / 80), "grad_norm": 0.4, "lr": lr, "tokens": s * 262144}
            )
            + "\n"
        )
    append(run / "metrics.jsonl", "".join(lines), "w")
    return run


@pytest.mark.slow
def test_a_late_config_that_fails_a_check_is_paged_once(tmp_path, follow):
    """No new log line after the start: configs written later that turn a check to
    FAIL (the model is 7B, the plan 100000 steps) are news: paged once, not backlog."""
    run = _hot_run(tmp_path)
    pages = tmp_path / "pages.txt"
    hook = f"{sys.executable} -c \"import sys; open({str(pages)!r}, 'a').write(sys.stdin.read() + chr(10))\""
    f = follow(run, "--json", "--on-alert", hook)
    assert f.wait_for(lambda: any('"lr_schedule"' in x and '"status"' in x for x in f.out)), (f.out, f.err)
    time.sleep(0.5)
    replace(run / "config.json", json.dumps(LLAMA_7B))
    replace(
        run / "training_args.json",
        json.dumps({"max_steps": 100000, "warmup_steps": 99, "learning_rate": 3e-3, "per_device_train_batch_size": 64}),
    )
    assert f.wait_for(lambda: any('"lr_schedule"' in x and '"FAIL"' in x for x in f.out)), f.out
    assert f.wait_for(lambda: pages.exists() and "lr_schedule" in pages.read_text(), WAIT), (f.out, f.err)
    time.sleep(1.0)
    paged = [json.loads(x) for x in pages.read_text().splitlines() if x.strip()]
    lr = [p for p in paged if p.get("check") == "lr_schedule"]
    assert len(lr) == 1 and "lifecycle" not in lr[0] and lr[0]["event"] == "firing", paged
    assert "100000 planned" in lr[0]["summary"], lr[0]
    assert f.stop() == 0


@pytest.mark.slow
def test_late_config_sets_warmup_and_model_size_in_follow(tmp_path, follow):
    run = _hot_run(tmp_path)
    f = follow(run, "--json")
    assert f.wait_for(lambda: any('"status"' in x and '"lr_schedule"' in x for x in f.out)), (f.out, f.err)
    first = [o for o in f.json() if o["event"] == "status" and o["check"] == "lr_schedule"][-1]
    assert "300 logged" in first["summary"] and "GPT-3" not in first["summary"], first
    replace(run / "config.json", json.dumps(LLAMA_7B))
    replace(run / "training_args.json", json.dumps({"max_steps": 100000, "warmup_steps": 99}))
    assert f.wait_for(lambda: any('"batch_size"' in x for x in f.out)), f.out
    time.sleep(0.5)
    sts = {o["check"]: o for o in f.json() if o["event"] == "status"}
    # the warm-up against the plan, the peak LR against the 7B reference, the batch against the model size
    assert "0.1% of 100000 planned" in sts["lr_schedule"]["summary"], sts["lr_schedule"]
    assert "LLaMA 7B / OLMo 2 7B recipe" in sts["lr_schedule"]["summary"], sts["lr_schedule"]
    assert sts["batch_size"]["status"] != "SKIP" and "tokens/step" in sts["batch_size"]["summary"], sts["batch_size"]
    assert f.stop() == 0


# ---- the loop's thread makes the Tailer's passes (sources/tail/tailer.py: one thread model)
def _inline_loop(tmp_path, lines: int = 300):
    from tsm_tui.sources.tail import Tailer

    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps(curve(s)) + "\n" for s in range(1, lines + 1)))
    feed = Tailer(str(tmp_path), interval=0.05)
    loop = LiveLoop(Session(), feed)
    loop.start()
    return path, feed, loop


def _step_until(loop, cond, timeout: float = 10.0) -> list:
    got: list = []

    def idle(seconds: float) -> None:  # no wait while a step still had work
        if not got[-1].batches or not loop.pending:
            loop.wait(seconds)

    wait_until(
        lambda: cond(got), timeout, "the loop's steps", every=0.1, tick=lambda: got.append(loop.step()), sleep=idle
    )
    return got


def _steps(ups) -> list[int]:
    out = []
    for up in ups:
        for b in up.batches:
            for r in b.records:
                out.extend(r.step.tolist() if isinstance(r.step, np.ndarray) else [r.step])
    return out


def test_the_loops_thread_makes_the_tailers_passes(tmp_path):
    """The Tailer has no thread: LiveLoop.wait makes every pass, the history's and
    the later ones: lines appended later arrive, in order, through the loop alone."""
    import threading

    path, feed, loop = _inline_loop(tmp_path)
    try:
        ups = _step_until(loop, lambda got: len(_steps(got)) >= 300 and feed.caught_up.is_set())
        assert feed._thread is None and not any(th.name == "Tailer" for th in threading.enumerate())
        append(path, "".join(json.dumps(curve(s)) + "\n" for s in range(301, 311)))
        ups += _step_until(loop, lambda got: 310 in _steps(got))
        assert _steps(ups) == list(range(1, 311))
        # truncated in place and rewritten shorter: read from the start, as with the thread
        append(path, "".join(json.dumps(curve(s)) + "\n" for s in range(1, 6)), mode="w")
        ups = _step_until(loop, lambda got: any("truncated" in e for up in got for e in up.notes))
    finally:
        loop.stop()
    assert feed.wakeups._wake_r is None  # stop() closed what the loop's thread had open


def _read_through(loop, feed, last: int) -> tuple[list[int], int]:
    """Step the loop until ``last`` arrives: the steps, and the most records queued."""
    peak, seen = 0, []
    end = time.monotonic() + 30
    while (not seen or seen[-1] < last) and time.monotonic() < end:
        loop.wait(0.1)
        peak = max(peak, feed._queued)
        seen += _steps([loop.step()])
    return seen, peak


def test_a_pass_reads_at_most_about_the_queue_bound(tmp_path):
    """A burst appended at once (120k lines) is read in parts that the loop drains
    between passes: the queue stays near MAX_QUEUED (the thread's backpressure did
    that before), and every record arrives once, in order."""
    from tsm_tui.sources.feed import MAX_QUEUED

    path, feed, loop = _inline_loop(tmp_path, lines=10)
    try:
        _step_until(loop, lambda got: feed.caught_up.is_set())
        with open(path, "a") as fh:
            fh.write("".join(json.dumps({"step": s, "loss": 2.0 + 1e-6 * s}) + "\n" for s in range(11, 120_011)))
        seen, peak = _read_through(loop, feed, 120_010)
        assert seen == list(range(11, 120_011))
        assert MAX_QUEUED < peak <= MAX_QUEUED + 20_000, peak  # one 1 MiB read past the bound at most
    finally:
        loop.stop()


def test_rotated_history_is_read_in_parts_too(tmp_path):
    """A live log's rotated segments (its history, read before it) are read by the
    loop's passes up to the queue's bound each, like any read: the queue stays near
    MAX_QUEUED, and every record arrives once, oldest segment first."""
    from tsm_tui.sources.feed import MAX_QUEUED
    from tsm_tui.sources.tail import Tailer

    rec = lambda s: json.dumps({"step": s, "loss": 2.0 + 1e-6 * s}) + "\n"  # noqa: E731
    (tmp_path / "train.log.2").write_text("".join(rec(s) for s in range(1, 60_001)))
    (tmp_path / "train.log.1").write_text("".join(rec(s) for s in range(60_001, 120_001)))
    (tmp_path / "train.log").write_text("".join(rec(s) for s in range(120_001, 120_011)))
    feed = Tailer(str(tmp_path), interval=0.05)
    loop = LiveLoop(Session(), feed)
    loop.start()
    try:
        seen, peak = _read_through(loop, feed, 120_010)
        assert seen == list(range(1, 120_011))
        assert peak <= MAX_QUEUED + 40_000, peak  # one 1 MiB chunk's Frame past the bound at most
    finally:
        loop.stop()


def test_a_pass_that_raises_ends_the_feed_with_its_reason(tmp_path):
    path, feed, loop = _inline_loop(tmp_path, lines=10)
    try:
        _step_until(loop, lambda got: feed.caught_up.is_set())

        def boom():
            raise RuntimeError("listing exploded")

        feed._read_events = boom
        append(path, json.dumps(curve(11)) + "\n")
        ups = _step_until(loop, lambda got: any(up.error for up in got))
        assert "RuntimeError: listing exploded" in next(up.error for up in ups if up.error)
        t0, n = time.monotonic(), 0
        while time.monotonic() - t0 < 1.0:  # a dead feed: each wait still waits (no busy loop)
            loop.step()
            loop.wait(0.3)
            n += 1
        assert n <= 12, n
    finally:
        loop.stop()
