"""Output collapse (issue #8): the text metrics against hand-computed values,
the readers of logged generations, and the check's verdicts on the four
``sample_runs/generations`` runs (real tiny CPU training, see its script)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tsm_tui.cli import main
from tsm_tui.analysis.detectors import text_metrics as tm
from tsm_tui.analysis.detectors.output_collapse import unit_kind
from tsm_tui.analysis.replay import analyze
from tsm_tui.analysis.monitor import Monitor
from tsm_tui.core.record import Severity, Status, StepRecord
from tsm_tui.sources.jsonl import JsonlReader
from tsm_tui.sources.text_formats import LlmcReader, WandbOutputReader
from helpers import paths

ROOT = Path(paths.ROOT)
GEN = ROOT / "sample_runs" / "generations"
LLAMA_FACTORY = Path("/work/shared/real_logs/llama-factory/trainer_log.jsonl")


def check(an):
    return next(c for c in an.monitor.checks() if c.id == "output_collapse")


def alerts(an):
    return [a for a in an.monitor.alerts if a.check == "output_collapse"]


# ------------------------------------------------------------------ metrics
def test_seq_rep_hand_computed():
    toks, kind = tm.tokens("a a a a")
    assert toks == ["a", "a", "a", "a"] and kind == "word"
    assert tm.seq_rep(toks, 1) == pytest.approx(0.75)  # 1 unique of 4
    assert tm.seq_rep(toks, 2) == pytest.approx(2 / 3)  # (a a) x3 -> 1 unique of 3
    assert tm.seq_rep(toks, 4) == 0.0  # one 4-gram
    assert tm.seq_rep(toks, 5) is None
    # "the cat sat on the mat": 6 tokens, 5 unique words, 5 distinct bigrams
    toks = "the cat sat on the mat".split()
    assert tm.seq_rep(toks, 1) == pytest.approx(1 - 5 / 6)
    assert tm.seq_rep(toks, 2) == 0.0


def test_distinct_and_repeat_at_k():
    # bigrams: (the cat) (cat the) (the cat) -> 2 unique of 3
    assert tm.distinct([["the", "cat", "the", "cat"]], 2) == pytest.approx(2 / 3)
    # over a set: "a b" + "a b" -> 1 unique bigram of 2
    assert tm.distinct([["a", "b"], ["a", "b"]], 2) == pytest.approx(0.5)
    assert tm.distinct([["a"]], 2) is None
    # a b a b: the 3rd and 4th tokens occurred 2 tokens earlier
    assert tm.repeat_at(["a", "b", "a", "b"], 16) == pytest.approx(2 / 3)
    assert tm.repeat_at(["a", "b", "a", "b"], 1) == 0.0
    assert tm.repeat_at(list("abcdefghij") + ["a"], 5) == 0.0  # 10 tokens back
    assert tm.repeat_at(list("abcdefghij") + ["a"], 16) == pytest.approx(1 / 10)


def test_entropy_nonword_and_fallback():
    assert tm.entropy_bits(tm.class_counts("aA")) == pytest.approx(1.0)  # two classes, 1/2 each
    assert tm.entropy_bits(tm.class_counts("abcd efg")) == 0.0
    assert tm.entropy_bits(tm.class_counts("aA1!")) == pytest.approx(2.0)
    assert tm.nonword_share("x3}q hello") == pytest.approx(0.5)
    assert tm.nonword_share("The cat, it said: (hello) 3.5 GPT-2 don't") == 0.0
    assert tm.nonword_share("zzkq #$%& ok") == pytest.approx(2 / 3)
    # unsegmented text falls back to characters as tokens
    toks, kind = tm.tokens("ab" * 20)
    assert kind == "char" and tm.seq_rep(toks, 4) == pytest.approx(1 - 2 / 37)
    s = tm.analyse("  ")
    assert s.empty and s.rep4 is None
    assert tm.analyse("The quick brown fox jumps over the lazy dog today.").empty is False


def test_unit_key_patterns():
    assert unit_kind("max_attention_logit") == "logit"
    assert unit_kind("layer_3/max_attn_logit") == "logit"
    assert unit_kind("attn/entropy") == "entropy" and unit_kind("Attention-Entropy") == "entropy"
    assert unit_kind("mlp/act_zero_frac") == "zero"
    assert unit_kind("grad_zero_frac") is None and unit_kind("num zeros") is None


# ------------------------------------------------------------------ readers
def test_llmc_generating_blocks():
    r = LlmcReader("stdout")
    lines = [
        "step    1/10 | loss 4.000000 (+0.00z)| norm 1.0000 (+0.00z)| lr 1.00e-03 | 1.0 ms",
        "val loss 4.1",
        "generating:",
        "---",
        "first line",
        "step 5: not a step, text",
        "---",
        "step    2/10 | loss 3.900000 (+0.00z)| norm 1.0000 (+0.00z)| lr 1.00e-03 | 1.0 ms",
        "generating:",
        "---",
        "",
        "---",
        "generating:",
        "---",
        "never closed",
        "step    3/10 | loss 3.800000 (+0.00z)| norm 1.0000 (+0.00z)| lr 1.00e-03 | 1.0 ms",
    ]
    out = [rec for ln in lines for rec in r.feed(ln)] + r.flush()
    got = [(x.step, x.loss, x.samples) for x in out]
    assert got == [
        (1, 4.0, None),
        (1, None, None),
        (1, None, ["first line\nstep 5: not a step, text"]),
        (2, 3.9, None),
        (2, None, [""]),
        (2, None, ["never closed"]),
        (3, 3.8, None),
    ]
    assert out[1].val_loss == 4.1  # llm.c's "val loss X" line: the last step printed
    assert all(x.has_metrics() for x in out)


def test_wandb_sample_lines():
    r = WandbOutputReader("output.log")
    lines = [
        "Step 5 -- Train loss: 2.0, LR: 0.1",
        "Step 5 sample: the cat sat",
        "sample: ",
        "Step 6 -- Train loss: 1.9",
    ]
    got = [(x.step, x.loss, x.samples) for ln in lines for x in r.feed(ln)]
    assert got == [(5, 2.0, None), (5, None, ["the cat sat"]), (5, None, [""]), (6, 1.9, None)]


def test_jsonl_text_fields():
    r = JsonlReader("m.jsonl")
    a = r.feed('{"step": 10, "loss": 2.5, "sample": "hello there"}')[0]
    assert a.loss == 2.5 and a.samples == ["hello there"]
    b = r.feed('{"step": 20, "samples": ["one", "two", 3]}')[0]
    assert b.step == 20 and b.loss is None and b.samples == ["one", "two"]
    c = r.feed('{"completion": "no step here"}')[0]
    assert c.step == 20 and c.samples == ["no step here"]  # the last step seen
    d = r.feed('{"step": 30, "loss": 2.0, "samples": 1024}')[0]  # a count, not text
    assert d.samples is None and d.extra == {"samples": 1024.0}
    assert r.feed('{"step": 40, "note": "text"}') == []


def _curve(path: Path, n: int = 200) -> None:
    with open(path, "w") as f:
        for s in range(1, n + 1):
            f.write(json.dumps({"step": s, "loss": round(3.0 - s / n, 4)}) + "\n")


GOOD = [
    "The model writes a plain sentence about the weather in the hills today.",
    "Another sentence follows, with words that mean something to a reader here.",
    "Licenses grant rights to copy, modify and share the program freely.",
]


def test_samples_files_beside_the_log(tmp_path):
    _curve(tmp_path / "train.jsonl")
    (tmp_path / "generations").mkdir()
    for i, s in enumerate(range(20, 201, 20)):
        text = GOOD[i % 3] if s <= 100 else ""
        (tmp_path / "generations" / f"step_{s}.txt").write_text(text + "\n")
    an = analyze(str(tmp_path))
    assert an.run.primary.endswith("train.jsonl")
    c = check(an)
    assert c.status == Status.FAIL and "empty" in c.summary
    crit = [a for a in alerts(an) if a.severity == Severity.CRITICAL]
    assert crit and crit[0].step == 140 and "from step 120" in crit[0].message
    fmts = {os.path.basename(f.path): f.format for f in an.run.files}
    assert fmts["step_20.txt"] == "generation-text" and fmts["train.jsonl"] == "jsonl"


def test_samples_jsonl_read_before_the_log(tmp_path):
    # "a_samples" sorts before the log: its records wait for the monitor
    d = tmp_path / "run"
    d.mkdir()
    with open(d / "samples.jsonl", "w") as f:
        for i, s in enumerate(range(20, 201, 20)):
            f.write(json.dumps({"step": s, "text": GOOD[i % 3]}) + "\n")
    _curve(d / "z_train.jsonl")
    an = analyze(str(d))
    c = check(an)
    assert c.status == Status.PASS and "10 sample(s)" in c.summary
    assert an.monitor.records == 200  # samples files do not count as training records


# ------------------------------------------------------------------ the four sample runs
def _gen(name: str) -> Path:
    p = GEN / name
    if not p.exists():
        pytest.skip(f"{p} not present")
    return p


def test_healthy_run_passes():
    an = analyze(str(_gen("healthy")))
    c = check(an)
    assert an.run.files[0].format == "llmc"
    assert c.status == Status.PASS and "10 sample(s) at 10 step(s)" in c.summary
    assert alerts(an) == []


def test_repetitive_run_fails():
    an = analyze(str(_gen("repetitive")))
    assert os.path.basename(an.run.primary) == "metrics.jsonl"
    c = check(an)
    assert c.status == Status.FAIL and "repeat" in c.summary
    crit = [a for a in alerts(an) if a.severity == Severity.CRITICAL]
    assert crit and crit[0].step >= 180 and "seq-rep-4" in crit[0].message
    assert any("Lower the peak LR" in x for x in crit[0].actions)


def test_empty_run_fails():
    an = analyze(str(_gen("empty")))
    c = check(an)
    assert c.status == Status.FAIL and "empty" in c.summary
    got = [(a.severity, a.step) for a in alerts(an)]
    assert got == [(Severity.WARNING, 180), (Severity.CRITICAL, 210)]
    crit = alerts(an)[1]
    assert "(still fine at step 150)" in crit.message and "Sample at step 210: (empty)" in crit.message
    assert any("special tokens" in x for x in crit.actions)
    assert any("Restart from the last checkpoint before step 180" in x for x in crit.actions)


def test_gibberish_run_fails():
    an = analyze(str(_gen("gibberish")))
    c = check(an)
    assert c.status == Status.FAIL and "gibberish" in c.summary
    crit = [a for a in alerts(an) if a.severity == Severity.CRITICAL]
    assert [a.step for a in crit] == [210] and "from step 180" in crit[0].message
    assert any("tokenizer" in x for x in crit[0].actions)


def test_json_report_has_the_check(capsys):
    code = main([str(_gen("gibberish")), "--report", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1
    c = next(c for c in d["checks"] if c["id"] == "output_collapse")
    assert c["title"] == "Output Collapse" and c["status"] == "FAIL"
    ids = [c["id"] for c in d["checks"]]
    assert ids.index("output_collapse") == ids.index("checkpoints") + 1  # (the extra checks' order)
    assert any(a["check"] == "output_collapse" and a["severity"] == "critical" for a in d["alerts"])


def test_no_generations_skips(tmp_path):
    _curve(tmp_path / "train.jsonl")
    c = check(analyze(str(tmp_path)))
    assert c.status == Status.SKIP and c.summary == "no generations logged"


# ------------------------------------------------------------------ alerts show sanitised text
def test_sample_text_is_sanitised(tmp_path):
    with open(tmp_path / "m.jsonl", "w") as f:
        for s in range(1, 301):
            row = {"step": s, "loss": round(3.0 - s / 300, 4)}
            if s % 20 == 0:
                row["sample"] = (
                    GOOD[(s // 20) % 3]
                    if s <= 160
                    else "\x1b]0;x\x07[bold]pwned[/bold] \x1b[31m" + "over and over " * 30
                )
            f.write(json.dumps(row) + "\n")
    an = analyze(str(tmp_path))
    crit = [a for a in alerts(an) if a.severity == Severity.CRITICAL]
    assert crit and check(an).status == Status.FAIL
    for a in alerts(an):
        assert "\x1b" not in a.message and "\x07" not in a.message
    msg = crit[0].message
    assert '"[bold]pwned[/bold] over and over' in msg  # shown as text, never as markup
    shown = msg.split("Sample at step ")[1]
    assert len(shown) < 140


# ------------------------------------------------------------------ units, memorisation
def _mon(recs) -> Monitor:
    m = Monitor()
    for r in recs:
        m.feed(r)
    m.finalize()
    return m


def _oc(m: Monitor):
    return next(c for c in m.checks() if c.id == "output_collapse"), [
        a for a in m.alerts if a.check == "output_collapse"
    ]


def test_attention_logit_over_100_warns_and_over_1000_fails():
    recs = [StepRecord(s, loss=2.0, extra={"max_attention_logit": 20.0 + s}) for s in range(1, 120)]
    c, al = _oc(_mon(recs))
    assert c.status == Status.WARN and [a.step for a in al] == [82]  # steps 80-82: 100, 101, 102 -> median 101 > 100
    assert "Kimi K2" in al[0].message and al[0].severity == Severity.WARNING
    recs += [StepRecord(s, loss=2.0, extra={"max_attention_logit": 5000.0}) for s in range(120, 125)]
    c, al = _oc(_mon(recs))
    assert c.status == Status.FAIL and al[-1].severity == Severity.CRITICAL


def test_attention_entropy_collapse_and_dead_units():
    ent = [3.0] * 20 + [1.2] * 10 + [0.3] * 10
    recs = [StepRecord(s + 1, loss=2.0, extra={"attn_entropy": e, "act_zero_frac": 0.5}) for s, e in enumerate(ent)]
    c, al = _oc(_mon(recs))
    assert c.status == Status.FAIL
    assert [(a.severity, a.step) for a in al] == [(Severity.WARNING, 22), (Severity.CRITICAL, 32)]
    assert "Zhai" in al[0].message
    recs = [
        StepRecord(s, loss=2.0, extra={"mlp/act_zero_frac": z})
        for s, z in enumerate([0.5] * 10 + [0.95] * 5 + [0.995] * 5, start=1)
    ]
    c, al = _oc(_mon(recs))
    assert [(a.severity, a.step) for a in al] == [(Severity.WARNING, 12), (Severity.CRITICAL, 17)]


def test_memorisation_warns():
    losses = [2.0 * 0.97**s for s in range(400)] + [0.003] * 200
    recs = [StepRecord(s + 1, loss=x) for s, x in enumerate(losses)]
    recs.append(StepRecord(600, val_loss=1.5))
    c, al = _oc(_mon(recs))
    assert c.status == Status.WARN and "memorisation" in c.summary
    assert len(al) == 1 and al[0].severity == Severity.WARNING and "memorising" in al[0].message
    # a healthy curve well above 0.01 does not
    c, al = _oc(_mon([StepRecord(s, loss=2.0 + 1 / s) for s in range(1, 600)]))
    assert c.status == Status.SKIP and al == []
    # nor a fit whose eval loss is as low (a regression's MSE on held-out data: fresh47's Keras LSTM)
    recs = [StepRecord(s + 1, loss=x) for s, x in enumerate(losses)]
    for r in recs:
        r.val_loss = 1.5 * r.loss
    c, al = _oc(_mon(recs))
    assert c.status == Status.SKIP and al == []


@pytest.mark.skipif(not LLAMA_FACTORY.exists(), reason="shared real logs not present")
def test_llama_factory_memorisation():
    an = analyze(str(LLAMA_FACTORY))
    c = check(an)
    assert c.status == Status.WARN and "memorisation" in c.summary
    a = alerts(an)[0]
    assert 11600 <= a.step <= 14000 and a.value < 0.01 and "since step 1" in a.message
