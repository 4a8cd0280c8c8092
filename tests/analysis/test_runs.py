"""Runs, not files: a directory of many runs gets one verdict per run, found by
the frameworks' own layouts; a run's verdict inside a sweep equals its verdict
alone; ranks of one job are one run."""

from __future__ import annotations

import json
import math
import os

import pytest
from pathlib import Path


from helpers.livefiles import append, curve, tb_records, trainer_state
from helpers.follow import Follow

from tsm_tui.analysis.replay import analyze_runs
from tsm_tui.analysis.run_open import open_runs
from tsm_tui.cli import main
from tsm_tui.sources.runs import rank_of, run_root
from helpers.wait import poll_until
from helpers import paths

SAMPLES = Path(paths.SAMPLES)


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
    (d / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_layer": 4, "n_embd": 128, "vocab_size": 256}))


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
        (f / "output.log").write_text(
            "".join(f"Step {s} -- train loss: {curve(s)['loss']:.4f} lr: 0.0003\n" for s in range(1, 120))
        )
    os.symlink(w / "run-20261204_020202-bbbb2222", w / "latest-run")
    assert names(w) == ["run-20261204_010101-aaaa1111", "run-20261204_020202-bbbb2222"]


def test_mlruns_two_runs(tmp_path):
    for rid in ("0a1b2c3d4e5f", "9f8e7d6c5b4a"):
        d = tmp_path / "mlruns" / "1" / rid
        (d / "metrics").mkdir(parents=True)
        (d / "meta.yaml").write_text(f"run_id: {rid}\nexperiment_id: '1'\n")
        (d / "metrics" / "loss").write_text(
            "".join(f"{1700000000000 + s} {curve(s)['loss']} {s}\n" for s in range(1, 100))
        )
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
        lines = [
            json.dumps({"step": s, "loss": curve(s)["loss"], "time": 1.7e9 + s * dt}) + "\n" for s in range(1, 120)
        ]
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
    assert code == (1 if d["critical"] else 0)  # exit 1 when a run has a critical alert
    main([str(tmp_path), "--report"])
    text = capsys.readouterr().out
    assert text.startswith("=== Runs: 6 in ")
    assert "step 250: 4 runs (lr_0, lr_1, lr_2, lr_3)" in text
    assert "Also in 3 other run(s) of the sweep at this step" in text


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


@pytest.mark.slow
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


# --------------------------------------------------------------------------- layouts of the audit (issue 15, B1-B7, B12)
def nanogpt_log(
    path: Path,
    n: int = 300,
    nan_at: int | None = None,
    spike_at: int | None = None,
    ms: float = 1000.0,
    scale: float = 1.0,
    seed: int = 0,
) -> None:
    """nanoGPT's stdout: ``iter N: loss X, time Tms, mfu M%``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for s in range(1, n + 1):
        loss = curve(s)["loss"] * scale * (1 + 0.003 * math.sin(s * (seed + 1)))
        if nan_at and s >= nan_at:
            loss = math.nan
        if spike_at and s >= spike_at:
            loss *= 3  # a spike that does not recover
        t = ms * (1 + 0.01 * math.sin(s + seed))
        lines.append(f"iter {s}: loss {loss:.4f}, time {t:.2f}ms, mfu 40.00%\n")
    path.write_text("".join(lines))


def megatron_log(path: Path, n: int = 200, ms: float = 1000.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for s in range(1, n + 1):
        t = ms * (1 + 0.01 * math.sin(s))
        lines.append(
            f" iteration {s:8d}/ {1000:8d} | consumed samples: {512 * s:12d} | elapsed time per iteration "
            f"(ms): {t:.1f} | learning rate: 3.000E-04 | global batch size:   512 | lm loss: "
            f"{curve(s)['loss']:.6E} | loss scale: 4096.0 | grad norm: 0.400 | number of skipped "
            f"iterations:   0 | number of nan iterations:   0 |\n"
        )
    path.write_text("".join(lines))


def llmc_log(path: Path, n: int = 600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            f"s:{s} trl:{11.0 - 0.01 * s + 0.02 * math.sin(s):.4f} lr:0.000300 norm:{0.4:.2f}\n" for s in range(0, n)
        )
    )


def report(path, *extra) -> tuple[int, dict]:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main([str(path), "--report", "--json", *map(str, extra)])
    return code, json.loads(buf.getvalue())


def statuses(d: dict) -> dict:
    return {c["id"]: c["status"] for c in d["checks"]}


def test_slurm_array_tasks_are_runs_not_ranks(tmp_path):
    """Slurm's default ``slurm-%A_%a.out`` names array tasks: different runs. Task 2
    diverges: the sweep FAILs (exit 1) as task 2 alone does."""
    d = tmp_path / "slurm_array"
    for t in range(4):
        nanogpt_log(d / f"slurm-4242_{t}.out", n=600, spike_at=400 if t == 2 else None)
    code, sweep = report(d)
    assert code == 1 and sweep["kind"] == "runs"
    got = {r["run"]: r for r in sweep["runs"]}
    assert set(got) == {f"slurm-4242_{t}.out" for t in range(4)}
    assert statuses(got["slurm-4242_2.out"])["loss_spike"] == "FAIL"
    assert statuses(got["slurm-4242_0.out"])["loss_spike"] == "PASS"
    assert all("ranks" not in r for r in sweep["runs"])
    code_alone, alone = report(d / "slurm-4242_2.out")
    assert code_alone == 1 and _strip(got["slurm-4242_2.out"]) == _strip(alone)


def test_seed_files_are_runs(tmp_path):
    for seed in (1, 2, 3):
        nanogpt_log(tmp_path / f"train_seed_{seed}.log", seed=seed, nan_at=250 if seed == 3 else None)
    code, sweep = report(tmp_path)
    assert code == 1
    by = {r["run"]: statuses(r) for r in sweep["runs"]}
    assert set(by) == {"train_seed_1.log", "train_seed_2.log", "train_seed_3.log"}
    assert by["train_seed_3.log"]["nonfinite"] == "FAIL" and by["train_seed_1.log"]["nonfinite"] == "PASS"


def test_slurm_tasks_of_one_step_are_ranks(tmp_path):
    """``srun --output=slurm-%j.%t.out``: tasks 0..N-1 of one job step that ended together."""
    for t in range(4):
        nanogpt_log(tmp_path / f"slurm-777.{t}.out", seed=t, nan_at=200 if t == 1 else None)
    runs = open_runs(str(tmp_path))
    assert len(runs) == 1 and len(runs[0].ranks) == 4
    code, d = report(tmp_path)
    assert code == 1 and statuses(d)["ranks"] == "FAIL" and "rank 1" in d["checks"][-1]["summary"]


def test_torchrun_log_dir_is_one_run_with_ranks(tmp_path):
    """torchrun ``--log-dir``: ``<run_id>/attempt_0/<rank>/stdout.log``; rank 3 is 20% slower:
    a straggler found from nanoGPT's printed step time."""
    top = tmp_path / "torchrun_logs"
    for r in range(4):
        base = top / "none_abc123" / "attempt_0" / str(r)
        nanogpt_log(base / "stdout.log", seed=r, ms=1200.0 if r == 3 else 1000.0)
        (base / "stderr.log").write_text("")
    runs = open_runs(str(top))
    assert len(runs) == 1 and len(runs[0].ranks) == 4
    code, d = report(top)
    assert "kind" not in d and statuses(d)["ranks"] == "WARN"
    ranks = next(c for c in d["checks"] if c["id"] == "ranks")
    assert "rank 3 straggles (1.20x" in ranks["summary"]
    assert d["ranks"]["count"] == 4 and d["ranks"]["used"].endswith("attempt_0/0/stdout.log")


def test_rank_dirs_are_one_run(tmp_path):
    for r in range(4):
        nanogpt_log(tmp_path / "job" / f"rank_{r}" / "train.log", seed=r, nan_at=150 if r == 2 else None)
    runs = open_runs(str(tmp_path / "job"))
    assert len(runs) == 1 and len(runs[0].ranks) == 4
    code, d = report(tmp_path / "job")
    assert code == 1 and statuses(d)["ranks"] == "FAIL"
    assert statuses(d)["nonfinite"] == "PASS"  # the checks read rank 0's series


def test_megatron_rank_logs_straggler(tmp_path):
    """Megatron's ``elapsed time per iteration (ms)`` reaches the ranks check (it was dropped)."""
    for r in range(8):
        megatron_log(tmp_path / f"log_rank_{r}.txt", ms=1200.0 if r == 5 else 1000.0)
    code, d = report(tmp_path)
    ranks = next(c for c in d["checks"] if c["id"] == "ranks")
    assert ranks["status"] == "WARN" and "rank 5 straggles (1.20x" in ranks["summary"]


def test_straggler_threshold_is_levanters(tmp_path):
    for slow, want in ((1.14, "PASS"), (1.16, "WARN")):
        job = tmp_path / f"job_{slow}"
        for r in range(8):
            lines = [
                json.dumps({"step": s, "loss": curve(s)["loss"], "step_time": (slow if r == 2 else 1.0)}) + "\n"
                for s in range(1, 120)
            ]
            job.mkdir(exist_ok=True)
            (job / f"rank{r}.jsonl").write_text("".join(lines))
        _, d = report(job)
        assert statuses(d)["ranks"] == want, slow


def test_flat_directory_of_two_runs(tmp_path):
    """A nanoGPT train.log that goes NaN beside an unrelated llm.c main.log: two runs (their
    losses at the same steps disagree), the NaN one FAILs, exit 1."""
    nanogpt_log(tmp_path / "train.log", n=450, nan_at=425)
    llmc_log(tmp_path / "main.log")
    code, sweep = report(tmp_path)
    assert code == 1 and sweep["kind"] == "runs"
    by = {r["run"]: statuses(r) for r in sweep["runs"]}
    assert by["train.log"]["nonfinite"] == "FAIL" and by["main.log"]["nonfinite"] == "PASS"
    for r in sweep["runs"]:  # a file among other runs' files has no checkpoints of its own
        assert statuses(r)["checkpoints"] == "SKIP"
        _, alone = report(tmp_path / r["run"])
        assert _strip(r) == _strip(alone), r["run"]


def test_hf_output_dir_stdout_jsonl_tensorboard_stay_one_run(tmp_path):
    """One run writing the same series to stdout, trainer_state.json and TensorBoard."""
    from helpers.livefiles import hf_stdout_line

    out = tmp_path / "out"
    hf_output_dir(out, n=200, nan_at=180)
    (out / "train_stdout.log").write_text(
        "".join(hf_stdout_line(dict(curve(s), loss=math.nan if s == 180 else curve(s)["loss"])) for s in range(1, 201))
    )
    runs = open_runs(str(out))
    assert len(runs) == 1 and len(runs[0].readers) == 3
    code, d = report(out)
    assert code == 1 and "kind" not in d and statuses(d)["checkpoints"] == "PASS"


def test_modded_nanogpt_checkpoints_stay_with_their_run(tmp_path):
    """``logs/<uuid>.txt`` + ``logs/<uuid>/state_step*.pt``: the other run in ``logs/`` gets none."""
    a, b = "088a77ee-9b67-475a-bbb9-3e92e4698799", "87bd51fd-6203-4c88-b3aa-8a849a6a83ca"
    logs = tmp_path / "logs"
    logs.mkdir()
    for u in (a, b):
        (logs / f"{u}.txt").write_text(
            "".join(
                f"step:{s}/1000 train_loss:{curve(s)['loss']:.4f} train_time:{s * 100}ms step_avg:100.00ms\n"
                for s in range(1, 600)
            )
        )
    (logs / a).mkdir()
    for s in (200, 400):
        (logs / a / f"state_step{s:06d}.pt").write_bytes(b"")
    _, sweep = report(tmp_path)
    got = {r["run"]: r for r in sweep["runs"]}
    assert [c["step"] for c in got[f"logs/{a}.txt"]["run_info"]["checkpoints"]] == [200, 400]
    assert got[f"logs/{b}.txt"]["run_info"]["checkpoints"] == []
    assert statuses(got[f"logs/{b}.txt"])["checkpoints"] == "SKIP"
    for name, r in got.items():  # inside == alone (B7)
        _, alone = report(tmp_path / name)
        assert _strip(r) == _strip(alone), name


def test_root_run_keeps_its_own_checkpoints(tmp_path):
    """A root run with train_log.jsonl: ``crashed/checkpoints`` (no log) and another run's
    ``ablation_a/checkpoints`` are not its rollback points, with or without ``--run``."""
    jsonl(tmp_path / "train_log.jsonl", n=300, nan_at=240)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "step_100.pt").write_bytes(b"")
    (tmp_path / "crashed" / "checkpoints").mkdir(parents=True)
    (tmp_path / "crashed" / "checkpoints" / "step_230.pt").write_bytes(b"")
    jsonl(tmp_path / "ablation_a" / "metrics.jsonl", n=300)
    (tmp_path / "ablation_a" / "checkpoints").mkdir()
    (tmp_path / "ablation_a" / "checkpoints" / "step_225.pt").write_bytes(b"")
    code, sweep = report(tmp_path)
    got = {r["run"]: r for r in sweep["runs"]}
    assert set(got) == {".", "ablation_a"}
    root = got["."]
    assert root["path"] == str(tmp_path)  # the path itself, not path/path
    assert [c["name"] for c in root["run_info"]["checkpoints"]] == ["checkpoints/step_100.pt"]
    assert "step_100" in " ".join(root["actions"]) or any(
        "step_100" in a["message"] + " ".join(a["actions"]) for a in root["alerts"]
    )
    assert [c["name"] for c in got["ablation_a"]["run_info"]["checkpoints"]] == ["checkpoints/step_225.pt"]
    code, one = report(tmp_path, "--run", ".")
    assert [c["name"] for c in one["run"]["checkpoints"]] == ["checkpoints/step_100.pt"]


def test_hf_output_dir_before_its_first_save(tmp_path):
    """``hf_a/runs/<date_host>/events`` alone is run ``hf_a`` (not ``hf_a/runs/...``), and
    the same run once ``checkpoint-200`` appears: the NaN and the rollback stay together."""
    for name in ("hf_a", "hf_b"):
        hist = [curve(s) for s in range(1, 220)]
        if name == "hf_a":
            hist[210]["loss"] = math.nan
        tb = tmp_path / name / "runs" / "Dec04_03-30-00_node1"
        tb.mkdir(parents=True)
        (tb / "events.out.tfevents.1796000000.node1.1.0").write_bytes(tb_records(hist, header=True))
    assert names(tmp_path) == ["hf_a", "hf_b"]
    (tmp_path / "hf_a" / "checkpoint-200").mkdir()
    (tmp_path / "hf_a" / "checkpoint-200" / "trainer_state.json").write_text(
        trainer_state([curve(s) for s in range(1, 201)])
    )
    code, sweep = report(tmp_path)
    got = {r["run"]: r for r in sweep["runs"]}
    assert set(got) == {"hf_a", "hf_b"} and code == 1
    assert statuses(got["hf_a"])["nonfinite"] == "FAIL"
    assert [c["step"] for c in got["hf_a"]["run_info"]["checkpoints"]] == [200]
    assert any("checkpoint-200" in a for a in got["hf_a"]["actions"])


def test_documents_and_notes_are_not_runs(tmp_path):
    for i in range(2):
        jsonl(tmp_path / f"run_{i}" / "metrics.jsonl", n=200)
    (tmp_path / "EXPECTED.json").write_text(json.dumps({"run_1": {"nan": 450, "loss": 1.0, "step": 3}}))
    (tmp_path / "labels.json").write_text(json.dumps({"run_a": "healthy", "step": 250, "loss": 9.1}))
    (tmp_path / "results_summary.json").write_text(json.dumps({"step": 200, "loss": 2.1}) + "\n")
    (tmp_path / "one.json").write_text(json.dumps({"best": {"step": 3, "loss": 1.0}}))
    (tmp_path / "notes.txt").write_text("sweep notes\nstep 100 loss 4.1 looked fine\nlr 3e-4 was best\n")
    assert names(tmp_path) == ["run_0", "run_1"]
    code, sweep = report(tmp_path)
    assert code == 0 and [r["run"] for r in sweep["runs"]] == ["run_0", "run_1"]
    # W&B's own summary is still read (a reader owns that name)
    w = tmp_path / "wandb" / "run-20261204_010101-aaaa1111" / "files"
    w.mkdir(parents=True)
    (w / "wandb-summary.json").write_text(json.dumps({"loss": 2.1, "_step": 399}))
    from tsm_tui.sources import registry

    assert registry.open_reader(str(w / "wandb-summary.json"))[0] is not None
    assert registry.open_reader(str(tmp_path / "labels.json"))[0] is None


def test_near_step_spikes_across_runs(tmp_path):
    """The same spike one step apart in two runs (a log counting from 0 against one counting
    from 1) is the same step of the data."""
    jsonl(tmp_path / "a" / "metrics.jsonl", n=400, spike_at=250)
    jsonl(tmp_path / "b" / "metrics.jsonl", n=400, spike_at=251)
    jsonl(tmp_path / "c" / "metrics.jsonl", n=400, spike_at=300)
    _, sweep = report(tmp_path)
    got = {r["run"]: r for r in sweep["runs"]}
    a = next(x for x in got["a"]["alerts"] if x["check"] == "loss_spike" and x["step"] == 250)
    assert a["also_in_runs"] == ["b"]
    c = next(x for x in got["c"]["alerts"] if x["check"] == "loss_spike" and x["step"] == 300)
    assert "also_in_runs" not in c


# --------------------------------------------------------------------------- ranks: cost and live (B13, B14)
def test_rank_tracker_reads_frames_as_rows():
    """A frame by column gives the tracker the state its rows give one by one."""
    import numpy as np

    from tsm_tui.analysis.detectors.ranks import RankTracker
    from tsm_tui.core.frame import Frame

    rng = np.random.default_rng(3)
    for case in range(30):
        n = int(rng.integers(1, 300))
        step = np.arange(1, n + 1, dtype=np.int64) * int(rng.integers(1, 4))
        loss = rng.normal(3.0, 0.2, n)
        loss[rng.random(n) < 0.05] = np.nan
        cols = {"loss": loss}
        extra = None
        if case % 3 != 0:
            t = 1.7e9 + np.cumsum(rng.random(n))
            t[rng.random(n) < 0.1] = np.nan
            cols["time"] = t
        if case % 3 != 1:
            dt = rng.normal(1.0, 0.1, n) * 1000
            dt[rng.random(n) < 0.2] = np.nan
            extra = {"time_ms": dt}
        fr = Frame(step, cols, extra)
        a, b = RankTracker("x", 0), RankTracker("x", 0)
        a.update(fr.slice(0, n // 2))
        a.update(fr.slice(n // 2, n))
        for i in range(n):
            b.update(fr.record(i))
        for k in ("records", "last_step", "nan_step", "loss_seen"):
            assert getattr(a, k) == getattr(b, k), (case, k)
        assert list(a.losses) == list(b.losses), case
        assert np.allclose(list(a.dts), list(b.dts)), case


def test_other_ranks_cost_a_tracker_not_nine_detectors(tmp_path):
    for r in range(16):
        jsonl(tmp_path / f"rank{r}.jsonl", n=300, nan_at=200 if r == 9 else None)
    an = analyze_runs(str(tmp_path))[0]
    assert len(an.session.monitors) == 1 and an.run.primary.endswith("rank0.jsonl")
    assert an.ranks.status.value == "FAIL" and "rank 9" in an.ranks.summary


def test_live_created_runs_keep_their_own_checkpoints(tmp_path):
    """Runs that appear while watching get the same side files as in the report: the root
    run's rollback is its own checkpoint, never the run below it (B4d)."""
    from tsm_tui.analysis.live import LiveLoop
    from tsm_tui.core.settings import Settings
    from tsm_tui.sources import log_files, registry
    from tsm_tui.sources.feed import ReplayFeed

    jsonl(tmp_path / "train_log.jsonl", n=300)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "step_100.pt").write_bytes(b"")
    jsonl(tmp_path / "b" / "metrics.jsonl", n=300)
    (tmp_path / "b" / "checkpoints").mkdir()
    (tmp_path / "b" / "checkpoints" / "step_225.pt").write_bytes(b"")
    readers = {p: registry.open_reader(p)[0] for p in log_files.candidate_files(str(tmp_path))}
    loop = LiveLoop.many(ReplayFeed(readers), str(tmp_path), Settings())
    loop.start()
    try:
        poll_until(lambda: loop.finished, 20, every=0.05, tick=lambda: loop.step(force_status=True), sleep=loop.wait)
    finally:
        loop.stop()
    assert set(loop.runs) == {".", "b"}
    assert [c[1] for c in loop.runs["."].session.info.checkpoints] == ["checkpoints/step_100.pt"]
    assert [c[1] for c in loop.runs["b"].session.info.checkpoints] == ["checkpoints/step_225.pt"]


@pytest.mark.slow
def test_follow_says_rank_departures_with_the_run(tmp_path):
    """--follow on a job directory: NaN on one rank and a straggler, as they happen, with "run"."""
    job = tmp_path / "job"
    for r in range(4):
        nanogpt_log(job / f"rank{r}.log", n=150, seed=r, ms=1300.0 if r == 1 else 1000.0)
    f = Follow(job, "--json")
    try:
        assert f.wait_for(lambda: any('"rank_straggler"' in x or "Straggler" in x for x in f.out)), (f.out, f.err)
        with open(job / "rank2.log", "a") as fh:
            fh.write("".join(f"iter {s}: loss nan, time 1000.00ms, mfu 40.00%\n" for s in range(151, 156)))
        assert f.wait_for(lambda: any("Non-finite loss on rank 2" in x for x in f.out)), (f.out, f.err)

        def ranks_failed() -> bool:  # (the status line follows the alert: wait for it too)
            return any(o["event"] == "status" and o["check"] == "ranks" and o["status"] == "FAIL" for o in f.json())

        f.wait_for(ranks_failed)
        objs = f.json()
        nan = next(o for o in objs if o["event"] == "alert" and o["check"] == "ranks" and o["severity"] == "critical")
        assert nan["run"] == "job" and nan["step"] == 151
        assert all("run" in o for o in objs)
        ranks = [o for o in objs if o["event"] == "status" and o["check"] == "ranks"]
        assert ranks and ranks[-1]["status"] == "FAIL"
    finally:
        assert f.stop() == 0


def test_same_step_spikes_only_within_one_sweep(tmp_path):
    """Issue 31 §7: runs are compared step for step only when they share their data
    order (analysis/sweep.py): the same parent, the same log format, no data-order fact
    that differs. An LR sweep (configs differing in the LR) is one; a run with another
    batch size, a run written by another framework and a run elsewhere are not."""
    sweep = tmp_path / "sweep"
    for name, cfg in (
        ("lr1e-4", {"learning_rate": 1e-4, "per_device_train_batch_size": 16, "dataset": "owt"}),
        ("lr3e-4", {"learning_rate": 3e-4, "per_device_train_batch_size": 16, "dataset": "owt"}),
        ("bs64", {"learning_rate": 3e-4, "per_device_train_batch_size": 64, "dataset": "owt"}),
        ("other_data", {"learning_rate": 3e-4, "per_device_train_batch_size": 16, "dataset": "c4"}),
    ):
        jsonl(sweep / name / "metrics.jsonl", n=400, spike_at=250)
        (sweep / name / "config.json").write_text(json.dumps(cfg))
    # another framework's log beside them (llm.c main.log), spiking at the same step
    llmc = sweep / "llmc"
    llmc.mkdir()
    lines = []
    for s in range(1, 401):
        r = curve(s)
        loss = r["loss"] * (5 if s == 250 else 1)
        lines.append(f"s:{s} trl:{loss:.4f} lr:{r['learning_rate']:.6f} norm:{r['grad_norm']:.4f}\n")
    (llmc / "main.log").write_text("".join(lines))
    _, rep = report(sweep)
    got = {r["run"]: r for r in rep["runs"]}
    assert set(got) == {"lr1e-4", "lr3e-4", "bs64", "other_data", "llmc"}

    def also(name):
        a = next(x for x in got[name]["alerts"] if x["check"] == "loss_spike" and x["step"] == 250)
        return a.get("also_in_runs", [])

    assert also("lr1e-4") == ["lr3e-4"] and also("lr3e-4") == ["lr1e-4"]
    assert also("bs64") == [] and also("other_data") == [] and also("llmc") == []
