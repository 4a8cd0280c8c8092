"""Each bundled sample run (made by real CPU training, see sample_runs/README.md)
gives its expected verdict in --report and --report --json."""

import json
from pathlib import Path

import pytest

from tsm_tui.cli import main
from tsm_tui.analysis.replay import analyze
from helpers import paths

SAMPLES = Path(paths.SAMPLES)
EXPECTED = json.loads((SAMPLES / "EXPECTED.json").read_text())


def report(name, capsys, *extra):
    code = main([str(SAMPLES / name), "--report", "--json", *extra])
    d = json.loads(capsys.readouterr().out)
    return code, d, {c["id"]: c for c in d["checks"]}


def alerts(d, check, severity=None):
    return [a for a in d["alerts"] if a["check"] == check and (severity is None or a["severity"] == severity)]


def test_expected_covers_every_run():
    runs = {p.name for p in SAMPLES.iterdir() if p.is_dir() and p.name != "generations"}
    assert runs <= set(EXPECTED) and len(runs) >= 8


def test_healthy(capsys):
    code, d, c = report("healthy", capsys)
    assert code == 0
    for cid in ("loss_spike", "lr_schedule", "plateau", "nonfinite"):
        assert c[cid]["status"] == "PASS", c[cid]
    assert not alerts(d, "loss_spike", "warning") and not alerts(d, "nonfinite")
    assert d["steps"]["first"] == EXPECTED["healthy"]["first_step"]
    assert d["steps"]["last"] == EXPECTED["healthy"]["last_step"]


def test_spikes_recover(capsys):
    code, d, c = report("spikes_recover", capsys)
    exp = EXPECTED["spikes_recover"]
    assert code == 0
    assert c["loss_spike"]["status"] == "WARN" and "recovered" in c["loss_spike"]["summary"]
    onsets = [a["step"] for a in alerts(d, "loss_spike", "warning")]
    for s in exp["spike_steps"]:
        assert any(abs(o - s) <= 2 for o in onsets), (s, onsets)
    assert len(alerts(d, "loss_spike", "info")) >= len(exp["spike_steps"])  # each recovery reported
    assert not alerts(d, "loss_spike", "critical")


def test_spike_no_recover(capsys):
    code, d, c = report("spike_no_recover", capsys)
    exp = EXPECTED["spike_no_recover"]
    assert code == 1
    assert c["loss_spike"]["status"] == "FAIL"
    crit = alerts(d, "loss_spike", "critical")
    assert crit
    onset = exp["fault_steps"][0]
    # the rollback names the newest checkpoint saved before the fault
    ckpts = [x["step"] for x in d["run"]["checkpoints"] if x["step"] < onset]
    assert ckpts, d["run"]["checkpoints"]
    assert any(f"(step {max(ckpts)}, the last checkpoint before" in act for act in crit[0]["actions"]), crit[0]
    # the LR held at 40x its schedule's peak from step 900 is critical too (issue 31 §6): its
    # own remedy (restore the schedule) and the rollback lead
    assert d["actions"][0].startswith(("Roll back to", "Restore the LR schedule"))
    assert any(a.startswith("Roll back to") for a in d["actions"][:2])
    assert c["lr_schedule"]["status"] == "FAIL"


def test_nan_divergence(capsys):
    code, d, c = report("nan_divergence", capsys)
    exp = EXPECTED["nan_divergence"]
    assert code == 1
    assert c["nonfinite"]["status"] == "FAIL"
    nf = alerts(d, "nonfinite", "critical")
    assert [a["step"] for a in nf] == [exp["nan_first_step"]]
    assert any("Roll back" in x or "Restart" in x for x in nf[0]["actions"])


def test_plateau(capsys):
    code, d, c = report("plateau", capsys)
    assert c["plateau"]["status"] in ("WARN", "FAIL")
    assert alerts(d, "plateau")
    assert "flat" in c["plateau"]["summary"]


def test_no_warmup(capsys):
    code, d, c = report("no_warmup", capsys)
    assert c["lr_schedule"]["status"] in ("WARN", "FAIL")
    assert "no warm-up" in c["lr_schedule"]["summary"]
    nw = [a for a in alerts(d, "lr_schedule") if "No LR warm-up" in a["message"]]
    assert nw and any("warm-up" in x for x in nw[0]["actions"])


def test_fp16_loss_scale(capsys):
    code, d, c = report("fp16_loss_scale", capsys)
    exp = EXPECTED["fp16_loss_scale"]
    assert code == 1
    assert c["loss_scale"]["status"] == "FAIL"
    ls = alerts(d, "loss_scale", "critical")
    assert ls and all(a["step"] >= exp["fault_steps"][0] for a in ls)  # start-up back-offs are normal
    assert any("bf16" in x for x in ls[0]["actions"])


def test_resumed(capsys):
    code, d, c = report("resumed", capsys)
    exp = EXPECTED["resumed"]
    res = alerts(d, "resume")
    assert len(res) == 1 and d["resumes"]
    assert c["loss_spike"]["status"] == "PASS"
    assert d["steps"]["last"] == exp["last_step"]


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED))
def test_text_and_json_agree(name, capsys):
    if not (SAMPLES / name).is_dir():
        pytest.skip("not a run dir")
    main([str(SAMPLES / name), "--report"])
    text = capsys.readouterr().out
    an = analyze(str(SAMPLES / name))
    for chk in an.monitor.checks():
        assert f"[{chk.status.value}] {chk.title}" in text
