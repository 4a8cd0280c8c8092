"""Runs, not files: a directory of many runs gets one verdict per run, found by
the frameworks' own layouts; a run's verdict inside a sweep equals its verdict
alone; ranks of one job are one run."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from livefiles import append, curve, tb_records, trainer_state
from test_follow import Follow

from tsm_tui.analysis.engine import analyze_runs, open_runs
from tsm_tui.cli import main
from tsm_tui.sources.runs import rank_of, run_root

SAMPLES = Path(__file__).resolve().parent.parent / "sample_runs"


def jsonl(path: Path, n: int = 300, nan_at: int | None = None, spike_at: int | None = None, **kw) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for s in range(1, n + 1):
        r = curve(s, **kw)
        r["lr"] = r.pop("learning_rate")
        if s == nan_at:
            r["loss"] = math.nan
        if s == spike_at:
            r["loss"] *= 5
        out.append(json.dumps(r) + "\n")
    path.write_text("".join(out))


def lightning_version(d: Path, n: int = 200, nan_at: int | None = None) -> None:
    d.mkdir(parents=True, exist_ok=True)
    rows = ["epoch,step,train_loss_step,lr-AdamW,grad_2.0_norm_total"]
    for s in range(1, n + 1):
        r = curve(s)
        loss = "nan" if s == nan_at else f"{r['loss']:.5f}"
        rows.append(f"0,{s},{loss},{r['learning_rate']:.6g},{r['grad_norm']:.4f}")
    (d / "metrics.csv").write_text("\n".join(rows) + "\n")
    (d / "hparams.yaml").write_text("lr: 0.0003\nmax_steps: 1000\n")


def hf_output_dir(d: Path, n: int = 200, nan_at: int | None = None) -> None:
    hist = [curve(s) for s in range(1, n + 1)]
    if nan_at:
        hist[nan_at - 1]["loss"] = math.nan
    tb = d / "runs" / "Dec04_03-30-00_node1"
    tb.mkdir(parents=True)
    (tb / "events.out.tfevents.1796000000.node1.1.0").write_bytes(tb_records(hist, header=True))
    (d / "trainer_state.json").write_text(trainer_state(hist).replace("NaN", "NaN"))
    for s in (50, 100, 150):
        (d / f"checkpoint-{s}").mkdir()
        (d / f"checkpoint-{s}" / "trainer_state.json").write_text(trainer_state(hist[:s]))
    (d / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_layer": 4, "n_embd": 128,
                                               "vocab_size": 256}))


def names(path) -> list[str]:
    return sorted(r.name for r in open_runs(str(path)))


def test_hf_output_dir_is_one_run(tmp_path):
    hf_output_dir(tmp_path / "out")
    runs = open_runs(str(tmp_path / "out"))
    assert len(runs) == 1
    assert [c[0] for c in runs[0].info.checkpoints] == [50, 100, 150]
    assert {os.path.basename(f.path) for f in runs[0].files} >= {"trainer_state.json"}


def test_lightning_logs_three_versions(tmp_path):
    for v in range(3):
        lightning_version(tmp_path / "lightning_logs" / f"version_{v}")
    assert names(tmp_path / "lightning_logs") == ["version_0", "version_1", "version_2"]
    assert names(tmp_path) == [f"lightning_logs/version_{v}" for v in range(3)]


def test_wandb_two_runs_and_latest_run_link(tmp_path):
    w = tmp_path / "wandb"
    for rid in ("run-20261204_010101-aaaa1111", "run-20261204_020202-bbbb2222"):
        f = w / rid / "files"
        f.mkdir(parents=True)
        (f / "output.log").write_text("".join(f"Step {s} -- train loss: {curve(s)['loss']:.4f} lr: 0.0003\n"
                                              for s in range(1, 120)))
    os.symlink(w / "run-20261204_020202-bbbb2222", w / "latest-run")
    assert names(w) == ["run-20261204_010101-aaaa1111", "run-20261204_020202-bbbb2222"]


def test_mlruns_two_runs(tmp_path):
    for rid in ("0a1b2c3d4e5f", "9f8e7d6c5b4a"):
        d = tmp_path / "mlruns" / "1" / rid
        (d / "metrics").mkdir(parents=True)
        (d / "meta.yaml").write_text(f"run_id: {rid}\nexperiment_id: '1'\n")
        (d / "metrics" / "loss").write_text("".join(f"{1700000000000 + s} {curve(s)['loss']} {s}\n"
                                                    for s in range(1, 100)))
    (tmp_path / "mlruns" / "1" / "meta.yaml").write_text("name: exp\n")
    assert names(tmp_path / "mlruns") == ["1/0a1b2c3d4e5f", "1/9f8e7d6c5b4a"]


def test_sixteen_rank_job_is_one_run_with_ranks(tmp_path, capsys):
    job = tmp_path / "job_4242"
    for r in range(16):
        jsonl(job / f"rank{r}.jsonl", n=200, nan_at=150 if r == 7 else None)
    runs = open_runs(str(job))
    assert len(runs) == 1 and len(runs[0].ranks) == 16
    assert sorted(rank_of(p) for p in runs[0].ranks) == list(range(16))
    code = main([str(job), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1
    ranks = next(c for c in d["checks"] if c["id"] == "ranks")
    assert ranks["status"] == "FAIL" and "16 ranks read" in ranks["summary"] and "rank 7" in ranks["summary"]
    assert d["ranks"]["count"] == 16
    main([str(job), "--report"])
    assert "ranks: 16 rank logs read" in capsys.readouterr().out


def test_straggler_rank(tmp_path):
    job = tmp_path / "job"
    job.mkdir()
    for r in range(4):
        dt = 1.0 if r != 2 else 1.4  # rank 2 is 40% slower
        lines = [json.dumps({"step": s, "loss": curve(s)["loss"], "time": 1.7e9 + s * dt}) + "\n"
                 for s in range(1, 120)]
        (job / f"log_rank_{r}.jsonl").write_text("".join(lines))
    an = analyze_runs(str(job))[0]
    assert an.ranks is not None and an.ranks.status.value == "WARN"
    assert "rank 2 straggles" in an.ranks.summary


def test_sweep_of_six_runs_and_same_step_spikes(tmp_path, capsys):
    for i in range(6):
        jsonl(tmp_path / f"lr_{i}" / "metrics.jsonl", n=400, spike_at=250 if i < 4 else None)
    assert names(tmp_path) == [f"lr_{i}" for i in range(6)]
    code = main([str(tmp_path), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert d["schema"] == 1 and d["kind"] == "runs" and len(d["runs"]) == 6
    assert [r["run"] for r in d["runs"]] == [f"lr_{i}" for i in range(6)]
    spike = next(a for a in d["runs"][0]["alerts"] if a["check"] == "loss_spike" and a["step"] == 250)
    assert sorted(spike["also_in_runs"]) == ["lr_1", "lr_2", "lr_3"]
    assert d["critical"] == sum(r["critical"] for r in d["runs"])
    main([str(tmp_path), "--report"])
    text = capsys.readouterr().out
    assert text.startswith("=== Runs: 6 in ")
    assert "step 250: 4 runs (lr_0, lr_1, lr_2, lr_3)" in text
    assert "Also in 3 other run(s) at this step" in text


def test_three_frameworks_one_nan_exits_1(tmp_path, capsys):
    hf_output_dir(tmp_path / "hf_out")
    lightning_version(tmp_path / "lightning_logs" / "version_0")
    jsonl(tmp_path / "plain" / "train_log.jsonl", n=300, nan_at=240)
    code = main([str(tmp_path), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1
    by = {r["run"]: {c["id"]: c["status"] for c in r["checks"]} for r in d["runs"]}
    assert set(by) == {"hf_out", "lightning_logs/version_0", "plain"}
    assert by["plain"]["nonfinite"] == "FAIL"
    assert by["hf_out"]["nonfinite"] == "PASS" and by["lightning_logs/version_0"]["nonfinite"] == "PASS"
    # --run picks one; its report is the single-run shape
    code = main([str(tmp_path), "--run", "plain", "--report", "--json"])
    one = json.loads(capsys.readouterr().out)
    assert code == 1 and "kind" not in one and one["path"].endswith("plain")
    assert main([str(tmp_path), "--run", "nope", "--report"]) == 2
    assert "no run named 'nope'" in capsys.readouterr().err


def _strip(d: dict) -> dict:
    d = dict(d)
    d.pop("run", None)
    d.pop("run_info", None)
    d["alerts"] = [{k: v for k, v in a.items() if k != "also_in_runs"} for a in d["alerts"]]
    return d


def test_sample_runs_each_get_their_own_verdict(capsys):
    main([str(SAMPLES), "--report", "--json"])
    sweep = json.loads(capsys.readouterr().out)
    assert sweep["kind"] == "runs"
    got = {r["run"]: r for r in sweep["runs"]}
    expected = json.loads((SAMPLES / "EXPECTED.json").read_text())
    for name in expected:
        if not (SAMPLES / name).is_dir():
            continue
        main([str(SAMPLES / name), "--report", "--json"])
        alone = json.loads(capsys.readouterr().out)
        inside = got[name]
        assert _strip(inside) == _strip(alone), name
        assert inside["run_info"] == alone["run"], name
    # the verdicts the runs were made for (sample_runs/README.md)
    status = {n: {c["id"]: c["status"] for c in r["checks"]} for n, r in got.items()}
    assert status["nan_divergence"]["nonfinite"] == "FAIL"
    assert status["spike_no_recover"]["loss_spike"] == "FAIL"
    assert status["healthy"]["loss_spike"] == "PASS" and got["healthy"]["critical"] == 0
    assert status["fp16_loss_scale"]["loss_scale"] == "FAIL"
    # nothing from another run: each run's checkpoints are its own
    for n, r in got.items():
        for ck in r["run_info"]["checkpoints"]:
            assert not ck["name"].startswith(("healthy/", "nan_divergence/")), (n, ck)
    # EXPECTED.json and README.md are not read as logs
    assert all("EXPECTED.json" not in f["path"] for r in got.values() for f in r["files"])


def test_run_root_conventions(tmp_path):
    top = str(tmp_path)
    assert run_root(f"{top}/out/runs/Dec04_node/events.out.tfevents.1", top) == f"{top}/out/runs/Dec04_node"
    (tmp_path / "out" / "runs" / "Dec04_node").mkdir(parents=True)
    (tmp_path / "out" / "runs" / "Dec04_node" / "events.out.tfevents.1").write_bytes(b"")
    (tmp_path / "out" / "trainer_state.json").write_text("{}")
    assert run_root(f"{top}/out/runs/Dec04_node/events.out.tfevents.1", top) == f"{top}/out"
    assert run_root(f"{top}/exp/logs/train.log", top) == f"{top}/exp"
    assert run_root(f"{top}/exp/checkpoint-100/trainer_state.json", top) == f"{top}/exp"
    u = "088a77ee-9b67-475a-bbb9-3e92e4698799"
    assert run_root(f"{top}/logs/{u}.txt", top) == f"{top}/logs/{u}.txt"


def test_follow_several_runs_names_the_run(tmp_path):
    jsonl(tmp_path / "a" / "metrics.jsonl", n=150)
    jsonl(tmp_path / "b" / "metrics.jsonl", n=150)
    f = Follow(tmp_path, "--json")
    try:
        assert f.wait_for(lambda: any('"status"' in x for x in f.out)), (f.out, f.err)
        recs = [dict(curve(s), lr=3e-4) for s in range(151, 160)]
        recs[-1]["loss"] = math.nan
        append(tmp_path / "b" / "metrics.jsonl", "".join(json.dumps(r) + "\n" for r in recs))
        assert f.wait_for(lambda: any('"nonfinite"' in x and '"alert"' in x for x in f.out)), (f.out, f.err)
        jsonl(tmp_path / "c" / "metrics.jsonl", n=50)  # a run that starts later
        assert f.wait_for(lambda: any('"run": "c"' in x for x in f.out)), f.out
        objs = f.json()
        nan = next(o for o in objs if o["event"] == "alert" and o["check"] == "nonfinite")
        assert nan["run"] == "b" and nan["step"] == 159
        assert all("run" in o for o in objs if o["event"] in ("alert", "status"))
        assert {o["run"] for o in objs if o["event"] == "status"} >= {"a", "b", "c"}
    finally:
        assert f.stop() == 0
