"""Issue 17: truer verdicts, pinned to exact steps on seeded streams (bench/cases.py)
and on the real-training samples in sample_runs/."""

from __future__ import annotations

import math
import os
import random
import sys

import pytest

from tsm_tui.analysis.replay import analyze
from tsm_tui.analysis.monitor import PER_KEY, Monitor
from tsm_tui.core.record import Alert, Severity, StepRecord
from tsm_tui.core.settings import RunInfo, Settings
from helpers import paths

ROOT = paths.ROOT
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cases  # noqa: E402


def feed(name, **plan):
    rows, labels, info = cases.CASES[name]()
    info.update(plan)
    mon = Monitor(Settings(), RunInfo(**info))
    alerts = []
    for r in rows:
        alerts += mon.feed(StepRecord(**r))
    alerts += mon.finalize()
    return mon, alerts


def check(mon, cid):
    return next(c for c in mon.checks() if c.id == cid)


def of(alerts, cid, sev=None):
    return [(a.step, a.severity.value) for a in alerts if a.check == cid and (sev is None or a.severity.value == sev)]


# -- 1. divergence called within a handful of records of a sustained excursion ----------------
def test_lr_bump_excursion_is_critical_after_five_records():
    mon, alerts = feed("case_lr_bump_excursion")
    assert of(alerts, "loss_spike") == [(801, "warning"), (805, "critical"), (847, "info")]
    crit = [a for a in alerts if a.severity == Severity.CRITICAL][0]
    assert "KillLossSpike" in crit.message and crit.cause == "lr"
    assert any("Restore the LR schedule" in x for x in crit.actions)
    res = check(mon, "loss_spike")  # it came back: a warning with its history, not a pass
    assert res.status.value == "WARN" and "sustained excursion at step 801" in res.summary


def test_spike_no_recover_sample_is_critical_at_1020_and_plateau_does_not_call_it_improving():
    an = analyze(os.path.join(ROOT, "sample_runs", "spike_no_recover"))
    crit = [a for a in an.monitor.alerts if a.check == "loss_spike" and a.severity == Severity.CRITICAL]
    assert crit[0].step == 1020  # was 1215 (10x the baseline at 1025, 230x at 1060)
    assert crit[0].cause == "lr" and "LR jumped" in crit[0].message
    pl = check(an.monitor, "plateau")
    assert pl.status.value == "SKIP" and "rising, not flat" in pl.summary and "improving" not in pl.summary


# -- 2. lasting damage is not recovery --------------------------------------------------------
def test_lr_bump_for_the_rest_of_the_run_is_lasting_damage_with_its_cause():
    mon, alerts = feed("case_lr_bump_damaged")
    # one page per incident; the damage is said once the new level holds the middle of the rolling window (its
    # median crossed at 851: a median alone jumps between the two modes of a mixed loss, fresh85's MONAI run)
    assert of(alerts, "loss_spike") == [(801, "warning"), (805, "critical"), (866, "warning")]
    dmg = [a for a in alerts if a.check == "loss_spike"][-1]
    assert "lasting damage" in dmg.message and "1.55x" in dmg.message and dmg.cause == "lr"  # (settled at 2.9: 1.51x)
    assert dmg.actions[0].startswith("Restart from the last checkpoint before step 801")
    assert dmg.actions[1].startswith("Restore the LR schedule: the LR went from")
    res = check(mon, "loss_spike")
    assert res.status.value == "FAIL" and "lasting damage" in res.summary and "recovered" not in res.summary


def test_open_spike_at_the_end_is_not_called_recovered():
    rows, _, info = cases.lr_bump_damaged()
    mon = Monitor(Settings(), RunInfo(**info))
    for r in rows[:803]:  # the log ends 3 records after the onset
        mon.feed(StepRecord(**r))
    mon.finalize()
    s = check(mon, "loss_spike").summary
    assert "still open" in s and "recovered" not in s.replace("still open", "")


def test_lasting_damage_is_said_live_while_every_record_still_counts_as_a_spike():
    # audit B3: 1.8x for 5 records, then 1.4x for good: the settle rule and the deadline
    # did not run while records counted as spikes, so only the end of the log said it
    rows, _, info = cases.damage_settles()
    mon = Monitor(Settings(), RunInfo(**info))
    live = []
    for r in rows:
        live += mon.feed(StepRecord(**r))  # no finalize: --follow
    assert of(live, "loss_spike") == [(2001, "warning"), (2040, "critical")]
    dmg = [a for a in live if a.check == "loss_spike"][-1]
    assert "lasting damage" in dmg.message and "1.39x" in dmg.message and dmg.cause == "lr"
    assert check(mon, "loss_spike").summary == "spike at step 2001 did not recover: lasting damage; likely an LR change"


@pytest.mark.parametrize(
    "name,pages", [("case_damage_noisy", [(1505, "critical")]), ("case_blowup", [(2018, "critical")])]
)
def test_one_incident_pages_once(name, pages):
    # audit B8: after the damage (or the divergence) the rolling median against the
    # pre-spike best, and spikes against the rebuilt baseline of a blow-up, paged again
    mon, alerts = feed(name)
    assert of(alerts, "loss_spike", "critical") == pages
    assert check(mon, "loss_spike").status.value == "FAIL"


def test_blowup_is_one_incident_with_its_peak():
    mon, alerts = feed("case_blowup")
    assert of(alerts, "loss_spike") == [(2005, "warning"), (2018, "critical"), (2058, "warning")]
    assert check(mon, "loss_spike").summary == (
        "spike at step 2005 (peak 2.96e21 at step 3000) turned into divergence; likely optimizer state"
    )


def _new_level_run(spikes, sd=0.05, seed=1):
    """A loss at 2.0 that jumps to 10 at step 400 and stays there (an incident that goes critical and is
    paged: it never comes back), with a 4x spike at each of ``spikes``."""
    rng = random.Random(seed)
    mon = Monitor(Settings(), RunInfo())
    out = []
    for s in range(1, 1201):
        x = (2.0 if s < 400 else 10.0) * math.exp(rng.gauss(0, sd))
        out += mon.feed(StepRecord(s, loss=x * (4 if s in spikes else 1)))
    out += mon.finalize()
    return [(a.step, a.key.split(":")[0]) for a in out if a.check == "loss_spike"]


def test_spikes_against_the_new_level_after_a_critical_incident_are_said():
    # the critical alert says where the trouble began; bursts against the level the loss is at since
    # (LEVEL_N: the median of the values since the onset) were folded into it, unsaid (SB3 A2C / DQN
    # value losses, fresh67's DQN: jumps of 2.7-4.1x every 10 episodes after an incident at episode 11)
    head = [(400, "loss_spike"), (404, "loss_spike_excursion"), (449, "loss_spike_fail")]
    got = _new_level_run({600, 800, 801, 1000})
    assert got == head + [(600, "loss_spike_level"), (800, "loss_spike_level"), (1000, "loss_spike_level")]
    # (one alert a burst: 800 and 801 are one); the new level's noise alone says nothing, nor does the climb
    # to it (the window straddling the two levels), at a 5% or a 30% noise
    assert _new_level_run(set()) == head
    assert [k for _, k in _new_level_run(set(), sd=0.3)] == [k for _, k in head]


def test_a_spike_soon_after_a_paged_incident_came_back_is_said():
    # a blow-up to 50x for 150 records (paged), then back at its level: the rolling baseline still holds the
    # blow-up's values for a window, so a 4x spike 30 records after the return was unsaid (fresh64's A2C value
    # loss back from 1e5 to 10-800, fresh58's PPO value loss back from 3e5 with 90x bursts); the level rule
    # judges the values since the return for a window
    def run(spikes, sd=0.05):
        rng = random.Random(1)
        mon = Monitor(Settings(), RunInfo())
        out = []
        for s in range(1, 1001):
            x = (100.0 if 400 <= s < 550 else 2.0) * math.exp(rng.gauss(0, sd))
            out += mon.feed(StepRecord(s, loss=x * (4 if s in spikes else 1)))
        out += mon.finalize()
        return [(a.step, a.key.split(":")[0]) for a in out if a.check == "loss_spike"]

    got = run({580, 900})
    assert (580, "loss_spike_level") in got and (900, "loss_spike") in got
    assert not any(k == "loss_spike_level" for _, k in run(set())) and not any(
        k == "loss_spike_level" for _, k in run(set(), sd=0.3)
    )


def test_a_bad_batch_that_never_recovers_is_not_a_bad_batch():
    # audit B10: the onset (grad norm 3x on the same step) says "a bad batch"; the loss
    # stays above 2x for 5 records and settles at 1.5x: the cause is revised (the LR is
    # not logged, so an LR change cannot be ruled out) and "skip the batch" goes
    mon, alerts = feed("case_damage_no_lr")
    ls = [a for a in alerts if a.check == "loss_spike"]
    assert [(a.step, a.cause) for a in ls] == [(1201, "data"), (1205, "optimizer"), (1269, "optimizer")]
    assert "the LR is not logged, so an LR change cannot be ruled out" in ls[1].message
    assert check(mon, "loss_spike").summary.endswith("lasting damage; likely optimizer state")
    assert not any(x.startswith("Inspect and skip the batch") for x in mon.actions())
    assert any(x.startswith("Inspect and skip the batch") for x in ls[0].actions)  # said, never changed


def test_lower_lr_advice_uses_the_schedules_peak_not_the_jump():
    # audit B5: no learning_rate in the config, the LR jumps 20x: "Lower the peak LR from
    # <the jumped LR>" was the advice; the schedule's peak was 3e-4
    # issue 31: a spike caused by that LR jump is not told to lower the peak at all (the
    # schedule was fine before it: restoring it is the remedy, and it leads)
    mon, alerts = feed("case_damage_settles")
    acts = mon.actions()
    assert not any(x.startswith("Lower the peak LR from") and "3e-4" not in x.split(" to ")[0] for x in acts)
    assert any(x.startswith("Restore the LR schedule") for x in acts)
    from tsm_tui.analysis import advice
    from tsm_tui.analysis.state import RunState
    from tsm_tui.core.settings import RunInfo

    st = RunState(RunInfo())
    st.peak_lr = 6e-3  # the jumped LR, the highest the log saw
    assert advice.lower_lr(st, peak=3e-4) == "Lower the peak LR from 3e-4 to 1.5e-4."
    assert advice.lower_lr(RunState(RunInfo(peak_lr=2e-4)), peak=3e-4) == "Lower the peak LR from 2e-4 to 1e-4."


# -- 3. incidents keep their largest event; the budget keeps the largest ---------------------------
def test_grad_incident_peak_is_a_new_alert_and_the_summary_names_the_largest():
    mon, alerts = feed("case_grad_incident")
    gs = [a for a in alerts if a.key == "grad_spike"]
    assert [a.step for a in gs] == [700, 707, 800, 900, 1000, 1100, 1200, 1300, 1400]
    assert "grew" in gs[1].message and gs[1].value > 4 * gs[0].value
    kept = sorted(a.step for a in mon.alerts if a.key == "grad_spike")
    assert kept == [a.step for a in gs] and len(kept) <= PER_KEY  # (each incident located: within the budget)
    assert (
        check(mon, "grad_norm").summary
        == "8 spike(s), the largest at step 1300 (18.0x), 700 (16.2x at 707), 1400 (13.5x)"
    )


def test_budget_never_mutates_an_alert():
    mon = Monitor()
    values = [float(PER_KEY - i) for i in range(PER_KEY)] + [PER_KEY + 5.0, 0.5]  # (the budget's last: 1.0)
    sent = [
        Alert("grad_norm", Severity.WARNING, i, f"m{i}", value=v, baseline=1.0, key="k") for i, v in enumerate(values)
    ]
    before = [(a.step, a.value, a.message) for a in sent]
    kept = mon._store(list(sent))
    assert [a.step for a in kept] == list(range(PER_KEY + 1))  # (the last, smaller than all kept: not)
    assert sorted(a.step for a in mon.alerts) == list(range(PER_KEY - 1)) + [PER_KEY]  # the largest kept
    assert [(a.step, a.value, a.message) for a in sent] == before


# -- 4. plateaus end as plateaus ---------------------------------------------------------------
def test_flat_at_chance_level_fails():
    mon, alerts = feed("case_flat_at_chance")
    assert of(alerts, "plateau") == [(305, "warning"), (449, "critical")]
    assert check(mon, "plateau").status.value == "FAIL"


def test_loss_exactly_zero_is_not_convergence():
    mon, alerts = feed("case_zero_loss")
    assert of(alerts, "plateau") == [(39, "critical")]
    res = check(mon, "plateau")
    assert res.status.value == "FAIL" and res.summary == "loss exactly 0 since step 20: not learning"


def test_slow_qlora_that_never_improved_is_a_plateau():
    mon, alerts = feed("case_slow_qlora")
    # not gained 10% and, at its pace, will not over the rest of its 68k-step plan: below
    # its bar for 2 windows at step 16050. Issue 26: that is also the shape of a continued
    # pre-training that falls 4% over its run ("slow steady progress is not a plateau"):
    # still measurably falling, it is a warning that says so, never a FAIL
    assert of(alerts, "plateau") == [(16050, "warning")]
    res = check(mon, "plateau")
    assert res.status.value == "WARN" and res.summary.startswith("improving only 0.")
    assert "per 13590-step window for 64700 steps since step 3300" in res.summary


def test_lr_frozen_at_zero_mid_schedule_is_dead_optimizer_state_not_convergence():
    mon, alerts = feed("case_lr_frozen")
    assert of(alerts, "plateau") == [(1217, "warning"), (1601, "critical")]
    assert "frozen LR / dead optimizer state" in [a for a in alerts if a.check == "plateau"][0].message
    res = check(mon, "plateau")
    assert res.status.value == "FAIL" and "converged" not in res.summary


@pytest.mark.parametrize("name", sorted(cases.HEALTHY_NOISY))
def test_healthy_noisy_run_raises_no_plateau_and_ends_pass(name):
    # audit B1: a noisy run that still improves (power law / fine-tune tail, 3-12% noise,
    # logged every 1 or 10 steps) raised "Loss flat" alerts from one noisy window each
    mon, alerts = feed(name)
    assert of(alerts, "plateau") == []
    res = check(mon, "plateau")
    # (what its newest window measured: improving, or too noisy to tell; never "flat")
    assert res.status.value == "PASS" and res.summary.startswith(
        ("loss still improving (falls", "no plateau proven")
    ), res.summary


def test_a_later_plateau_is_reported_again():
    # audit B2: closing a reported plateau reset nothing, so the next one was FAIL with no alert
    mon, alerts = feed("case_two_plateaus")
    assert of(alerts, "plateau") == [(769, "warning"), (833, "critical"), (2305, "warning"), (2689, "critical")]
    msgs = [a.message for a in alerts if a.check == "plateau"]
    assert "since step 402 at ~3" in msgs[0] and "since step 1538 at ~2.395" in msgs[2]
    res = check(mon, "plateau")
    assert res.status.value == "FAIL"
    # (the first closes one block after its descent begins: a reported plateau moves on only
    # when the loss falls faster than the bar it was proven flat under)
    assert res.summary == "flat for 1462 steps since step 1538 at ~2.399; flat for 1071 steps from step 402 before"


def test_a_plateau_is_reported_only_when_its_whole_span_is_flat():
    # the level over the open span must not have dropped: a loss that falls 0.8% per
    # window (a fine-tune's tail, 1% noise) is moving; the same loss held flat is not
    from tsm_tui.analysis.detectors.plateau import PlateauDetector

    def run(drop):
        mon = Monitor(Settings(), RunInfo(total_steps=4000), detectors=[PlateauDetector])
        rng = __import__("random").Random(3)
        out = []
        for s in range(1, 4001):
            lvl = 2.0 + 3.0 * __import__("math").exp(-s / 150) - drop * s / 4000
            out += mon.feed(StepRecord(s, loss=lvl * (1 + rng.gauss(0, 0.01)), lr=3e-4))
        return [(a.step, a.severity.value) for a in out], mon.checks()[0]

    alerts, res = run(0.12)  # 6% over the run, ~1.2% per 800-step window at the end
    assert alerts == [] and res.status.value == "PASS"
    alerts, res = run(0.0)
    assert alerts[:1] == [(1089, "warning")] and res.status.value == "FAIL"


# -- 6b. issue 26: slow progress, the end of a schedule, runs that never learn, a collapsed LR --
CORPUS = os.path.join(ROOT, "bench", "corpus")  # the labelled real logs (licences in their SOURCES.md)


def test_continued_pretraining_falling_slowly_is_no_plateau_fail():
    # the real run of the class (NSLLM, loss -3.7% over 2178 steps, cosine LR):
    # it was "FAIL flat for 2030 steps since step 145"
    an = analyze(os.path.join(CORPUS, "trackers", "llamafactory_cpt_slow_cosine"))
    pl = check(an.monitor, "plateau")
    assert pl.status.value == "WARN" and pl.summary.startswith("improving only 0.6")
    assert not [a for a in an.monitor.alerts if a.severity == Severity.CRITICAL]
    msg = [a.message for a in an.monitor.alerts if a.check == "plateau"]
    assert len(msg) == 1 and msg[0].startswith("Loss improving only slowly for 400 steps since step 145")
    mon, alerts = feed("case_cpt_slow")  # the same shape, generated
    assert of(alerts, "plateau") == [(1250, "warning")] and check(mon, "plateau").status.value == "WARN"


def test_a_resumed_runs_converged_tail_at_the_end_of_its_plan_is_convergence():
    # its LR read against the resume's first LR was "still 100% of peak": a plateau FAIL
    mon, alerts = feed("case_resumed_tail")
    assert of(alerts, "plateau") == []
    res = check(mon, "plateau")
    assert res.status.value == "PASS" and res.summary == "flat since step 9001 at 92% of the planned run: converged"
    # a plateau proven before the end of the plan is not excused by reaching it
    mon, alerts = feed("case_two_plateaus")
    assert check(mon, "plateau").status.value == "FAIL"


def test_a_run_that_never_learns_is_said():
    # trainproof's dead-run rule (median of the first 5 vs the last 5 < 5% better) and a
    # line through the run that cannot show a gain: it read "loss still improving"
    mon, alerts = feed("case_never_learns")
    assert of(alerts, "plateau") == [(930, "warning")]  # (at 90% of its plan: a run is judged whole)
    assert [a.key for a in alerts if a.check == "plateau"] == ["plateau_never"]
    res = check(mon, "plateau")
    assert res.status.value == "WARN" and res.summary.startswith("loss never measurably improved since step 10")
    # the real nanochat smoke run: 100 steps at ln(32768), proven flat: critical
    an = analyze(os.path.join(CORPUS, "console", "nanochat_dead_run_assert_crash"))
    crit = [a for a in an.monitor.alerts if a.check == "plateau"]
    assert [(a.step, a.severity.value) for a in crit] == [(92, "critical")]
    assert crit[0].message.startswith("Loss never improved in 92 steps since step 0: median 10.4 of the last 5")
    assert check(an.monitor, "plateau").status.value == "FAIL"


def test_a_run_that_learns_slowly_is_never_called_dead():
    # the healthy generated runs of the quality bench's plateau sweep that fall 15% in a
    # line (3% after a fifth of the run) and the fine-tune tails: no never-learned alert
    from quality import _sweep_run

    for shape in ("lin", "ft"):
        for noise in (0.03, 0.12):
            mon = Monitor(Settings(), RunInfo(total_steps=10000))
            alerts = []
            for r in _sweep_run("healthy", shape, 10000, 10, noise, 0):
                alerts += mon.feed(r)
            alerts += mon.finalize()
            assert [a for a in alerts if a.key == "plateau_never"] == []


def test_an_lr_collapsed_before_the_end_is_not_convergence():
    # an LR at 0 from 70% of the run (no plan) read "flat ... with the LR decayed: converged"
    mon, alerts = feed("case_lr_collapsed")
    res = check(mon, "plateau")
    assert res.status.value == "WARN" and "converged" not in res.summary
    assert res.summary.endswith("LR 0 since step 2100: the schedule ended before the run")
    msg = [a.message for a in alerts if a.check == "plateau"]
    assert msg and "LR 0 since step 2100 (at 75% of the steps logged): a collapsed LR schedule" in msg[0]
    lr = check(mon, "lr_schedule")  # the LR Schedule check says the collapse itself
    assert lr.status.value == "WARN" and lr.summary.endswith("LR 0 from step 2100")


def test_a_loss_at_its_printed_floor_is_said():
    # issue 26: a 16-shot fine-tune printed 0.0000 on most lines with 1e-4 .. 5e-4 between
    # them; the constant rule never saw 20 zeros in a row and the verdict was "rising, not
    # flat: 1.6x its best" (the best was its luckiest block: 7e-5)
    mon, alerts = feed("case_zero_floor")
    said = [a for a in alerts if a.check == "plateau"]
    assert [(a.step, a.severity.value, a.key) for a in said] == [(769, "warning", "plateau_floor")]
    assert said[0].message.startswith("Loss exactly 0 (as logged) in ") and "memorised" in said[0].message
    res = check(mon, "plateau")
    assert res.status.value == "WARN" and res.summary.startswith("loss exactly 0 in ")
    assert "rising" not in res.summary


def test_a_real_run_that_memorises_is_at_its_floor_not_frozen():
    # a plain-PyTorch MLP memorising 16 samples (tests/data/frameworks/pytorch_memorise,
    # written live beside tsm-watch): 0.0001 for 123 lines in a row was FAILed "not learning
    # (frozen weights)"; it is the floor of what a 4-decimal log prints. Both paths: the
    # report (frames) and record by record
    log = os.path.join(paths.DATA, "frameworks", "pytorch_memorise", "train.log")
    an = analyze(log)
    said = [a for a in an.monitor.alerts if a.check == "plateau"]
    assert [(a.step, a.severity.value, a.key) for a in said] == [(1214, "warning", "plateau_floor")]
    assert said[0].message.startswith("Loss constant at 1e-4 for 123 records since step 1092: ")
    assert said[0].value == 1e-4
    res = check(an.monitor, "plateau")
    assert res.status.value == "WARN" and res.summary.endswith(
        "at its floor (memorised, not computed, or no reward signal)"
    )
    assert res.summary.startswith("loss exactly 0 in ")
    mon, alerts = Monitor(Settings(), RunInfo()), []
    with open(log) as f:
        for line in f:
            st, lo, lr, gn = (float(p.split()[-1]) for p in line.split("|"))
            alerts += mon.feed(StepRecord(step=int(st), loss=lo, lr=lr, grad_norm=gn))
    alerts += mon.finalize()
    assert [(a.step, a.key) for a in alerts if a.check == "plateau"] == [(1214, "plateau_floor")]
    assert check(mon, "plateau").summary == res.summary


def test_a_constant_zero_is_the_constant_rules_alone():
    # a loss of exactly 0 every record is "not learning" (critical), not also "at its floor"
    mon, alerts = feed("case_zero_loss")
    assert [a.key for a in alerts if a.check == "plateau"] == ["plateau_const"]


def test_a_sparse_log_too_short_for_its_window_is_not_judged_flat():
    # 50 records every 20 steps: a 200-step window holds 10, the fit needs MIN_RECORDS (20):
    # no flat window is ever said; the run as a whole is judged by the never-learned rule
    # (this one never moved)
    mon, alerts = feed("case_sparse_flat")
    assert [a.key for a in alerts if a.check == "plateau"] == ["plateau_never"]
    assert check(mon, "plateau").status.value == "FAIL"


def test_a_log_too_short_for_a_window_is_not_called_improving():
    # 40 records over 39 steps (or a sparse log: d2_fasterrcnn_semisup, 50 records every 20
    # steps): no window was ever fitted; "loss still improving" would be a verdict nothing
    # measured
    mon = Monitor(Settings(), RunInfo())
    for s in range(1, 41):
        mon.feed(StepRecord(step=s, loss=2.0 - 0.01 * s))
    mon.finalize()
    res = check(mon, "plateau")
    assert res.status.value == "SKIP"
    assert res.summary == (
        "39 steps logged: too few to judge a plateau (a 200-step window holding 20 losses; "
        "--plateau-steps sets the window)"
    )


def test_too_few_to_judge_counts_the_steps_since_a_resume():
    # a log that went back to step 10 after 300 steps judges what follows the resume: 30
    # steps of it are too few (and not "-270 steps logged")
    mon = Monitor(Settings(), RunInfo())
    for s in list(range(1, 301)) + list(range(10, 41)):
        mon.feed(StepRecord(step=s, loss=2.0 * 0.999**s))
    mon.finalize()
    res = check(mon, "plateau")
    assert res.status.value == "SKIP" and res.summary.startswith("30 steps since the resume at step ")


def test_a_reported_plateau_that_drifts_as_its_lr_decays_stays_a_plateau():
    # hysteresis: a plateau proven flat (under 1% per window) and reported moves on only when
    # the loss falls faster than that; a 0.3%-per-window drift while the LR anneals closed
    # it and the verdict read "stalled for 6630 steps from step 740, then improved"
    mon, alerts = feed("case_lora_drift")
    assert of(alerts, "plateau") == [(1530, "critical")]
    res = check(mon, "plateau")
    assert res.status.value == "FAIL" and res.summary.startswith("flat for 6760 steps since step 740")


def test_a_stall_that_ended_is_improved_only_when_the_loss_got_below_its_level():
    # a reported stall at ~5.2 ends by a dip (the span moves); the verdict "then improved" held
    # even when the loss went back to within 1% of the stall's level by the end (fresh68's LSTM:
    # flat at 5.22 from step 33,700, 5.16 at the end, PASS): under SHORT_GAIN (2%) it is a WARN
    from tsm_tui.analysis.detectors.plateau import PlateauDetector

    def run(end_level):
        mon = Monitor(Settings(), RunInfo(), detectors=[PlateauDetector])
        rng = random.Random(5)
        out = []
        for s in range(10, 40001, 10):
            lvl = 5.2 + 0.9 * math.exp(-s / 1000)
            if 30000 < s <= 33000:
                lvl = 5.2 - 0.4 * (s - 30000) / 3000
            elif s > 33000:
                lvl = 4.8 + (end_level - 4.8) * min(1, (s - 33000) / 3000)
            out += mon.feed(StepRecord(s, loss=lvl * (1 + rng.gauss(0, 0.005))))
        out += mon.finalize()
        return of(out, "plateau"), check(mon, "plateau")

    alerts, res = run(5.15)
    assert alerts == [(8650, "warning")]
    assert res.status.value == "WARN"
    assert res.summary.startswith("stalled for 30550 steps from step 4020 at ~5.195, and only 0.9% lower since")
    alerts, res = run(4.8)  # 7.6% below the stall's level: it improved
    assert alerts == [(8650, "warning")]
    assert (res.status.value, res.summary) == ("PASS", "stalled for 30550 steps from step 4020, then improved")


def test_a_noisy_loss_that_made_no_progress_for_most_of_its_plan_is_said():
    # fresh70's MAML: a per-batch loss falling to ~1.05 by 30% of its 100,000 planned iterations, then window
    # medians wandering 1.00-1.13 to the end (no LR logged) read "no plateau proven ... too noisy": its level
    # too noisy to bound within 10%, the end of its plan taken for convergence. No gain at all over the
    # stretch is a WARN; the end of a plan exempts only a stretch that begins there (its converged tail)
    from tsm_tui.analysis.detectors.plateau import PlateauDetector

    def run(total):
        rng = random.Random(3)
        mon = Monitor(Settings(), RunInfo(total_steps=total), detectors=[PlateauDetector])
        out = []
        for i in range(1000):
            s = i * 100
            lvl = 1.05 + 3.6 * math.exp(-s / 8000) + 0.06 * math.sin(s / 9000)
            out += mon.feed(StepRecord(s, loss=lvl * math.exp(rng.gauss(0, 0.45))))
        out += mon.finalize()
        return of(out, "plateau"), check(mon, "plateau")

    for total in (100000, None):
        alerts, res = run(total)
        assert alerts == [(99900, "warning")]
        assert res.status.value == "WARN" and res.summary.startswith("no progress for 69900 steps since step 30000")


def test_about_one_record_an_epoch_is_no_running_mean():
    # a Lightning CSV of a PINN: the per-step loss every 50 steps of 63-step epochs, one 125.8 blow-up at an
    # epoch change: the mean change at a change (the blow-up in it) was 49x the mean inside an epoch and the
    # log was read as epochs' running means (no plateau rule for it). Fewer records inside epochs than epoch
    # changes: no window lies inside one epoch, so no running means
    from tsm_tui.analysis.detectors.plateau import PlateauDetector

    mon = Monitor(Settings(), RunInfo(), detectors=[PlateauDetector])
    rng = random.Random(2)
    for i in range(1, 1261):
        s = 50 * i - 1
        x = 125.8 if i == 323 else 0.05 * math.exp(rng.gauss(0, 0.1))
        mon.feed(StepRecord(s, loss=x, epoch=float(s // 63)))
    det = mon.detectors[0]
    assert det._epochs_whole() and not det._running_means()


def test_rising_means_diverged_by_the_loss_spike_rule():
    # the plateau check steps aside ("rising, not flat") only for what the Loss Spike
    # check's divergence rule would call divergence: 1.5x the best level AND 0.05 above it
    from tsm_tui.analysis.rules import diverged

    s = Settings()
    assert not diverged(4.24e-4, 2.59e-4, s)  # 1.6x, but 0.0002 in loss units: noise near 0
    assert diverged(3.2, 2.0, s) and not diverged(2.9, 2.0, s) and not diverged(3.2, 0.0, s)


def test_grad_spike_in_the_warm_up_of_a_real_megatron_run():
    # Megatron-LM, log every iteration: 111.6 at iteration 5 (start-up), 85.8 at 30 while
    # the level is ~1.7: it was "PASS 344 values, median 0.5125, max 111.6"
    an = analyze(os.path.join(CORPUS, "console", "megatron_torchrun_ranks_collective_hang"))
    g = [a for a in an.monitor.alerts if a.key == "grad_spike"]
    assert [a.step for a in g] == [30]
    assert "85.79 vs median 1.719 of the last 9 values (49.9x" in g[0].message


# -- 7. early spikes ----------------------------------------------------------------------------
def test_early_spike_in_the_fast_descent_is_found():
    mon, alerts = feed("case_early_spike")
    assert of(alerts, "loss_spike") == [(60, "warning"), (63, "info")]
    assert alerts[0].cause == "data"


@pytest.mark.parametrize("at,mult,tau", [(30, 2.6, 40), (30, 3.0, 150), (100, 3.0, 40), (100, 2.6, 60)])
def test_early_spike_before_the_baseline_window_fills_and_in_a_fast_descent(at, mult, tau):
    # audit B4: no spike at step 30 was ever looked at (the baseline needs 35 records),
    # and at step 100 of a fast descent the window's spread is the descent itself
    import math
    import random

    rng = random.Random(at * 7 + tau)
    mon = Monitor(Settings(), RunInfo())
    alerts = []
    for s in range(1, 1501):
        loss = (2.0 + 8.0 * math.exp(-s / tau) + 0.3 * (1 - s / 1500)) * math.exp(rng.gauss(0, 0.015))
        alerts += mon.feed(StepRecord(s, loss=loss * (mult if s == at else 1.0), lr=3e-4 * min(1, s / 20)))
    assert of(alerts, "loss_spike")[:1] == [(at, "warning")]
    assert [x for x in of(alerts, "loss_spike") if x[1] != "info"] == [(at, "warning")]


def test_healthy_fast_descents_raise_no_early_spike():
    import math
    import random

    for seed in range(20):
        rng = random.Random(seed)
        mon = Monitor(Settings(), RunInfo())
        alerts = []
        for s in range(1, 801):
            noise = 0.02 + 0.1 * (seed % 4) / 3  # 2-12%
            loss = (2.0 + 8.0 * math.exp(-s / (30 + 10 * seed))) * math.exp(rng.gauss(0, noise))
            alerts += mon.feed(StepRecord(s, loss=loss, lr=3e-4 * min(1, s / 20)))
        assert of(alerts, "loss_spike") == [], seed


# -- 10. the kind of spike ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,step,cause,evidence",
    [
        ("case_early_spike", 60, "data", "grad norm spiked on the same step"),
        ("case_optimizer_spike", 900, "optimizer", "grad norm climbed for 4 records"),
        ("case_lr_bump_excursion", 801, "lr", "LR jumped"),
        ("case_fp16_spike", 700, "fp16", "loss scale fell"),
    ],
)
def test_spike_cause(name, step, cause, evidence):
    mon, alerts = feed(name)
    onset = [a for a in alerts if a.check == "loss_spike" and a.severity == Severity.WARNING][0]
    assert onset.step == step and onset.cause == cause and evidence in onset.message
    assert onset.to_json()["cause"] == cause
    assert (
        f"likely {__import__('tsm_tui.analysis.detectors.loss_spike', fromlist=['CAUSES']).CAUSES[cause]}"
        in check(mon, "loss_spike").summary
    )


def test_spikes_recover_sample_is_bad_data():
    an = analyze(os.path.join(ROOT, "sample_runs", "spikes_recover"))
    rec = [a for a in an.monitor.alerts if a.check == "loss_spike" and a.severity == Severity.INFO]
    assert [(a.step, a.cause) for a in rec] == [(503, "data"), (903, "data"), (1204, "data")]
    assert (
        check(an.monitor, "loss_spike").summary
        == "3 spike(s) at step 500, 900, 1200, all recovered; likely a bad batch"
    )


# -- 5, 6, 8, 9: config, absolute levels, advice, checkpoints ----------------------------------------
def test_lr_schedule_judged_from_the_config_when_not_logged():
    info = RunInfo(total_steps=7630, warmup_steps=500, peak_lr=4e-4, schedule="cosine_with_warmup")
    info.origin.update(total_steps="train.log", warmup_steps="train.log", peak_lr="train.log")
    mon = Monitor(Settings(), info)
    for s in range(1, 50):
        mon.feed(StepRecord(s, loss=3.0 - s * 0.01))
    res = check(mon, "lr_schedule")
    assert res.status.value == "PASS"
    assert res.summary == (
        "LR not logged; from the config (train.log): warm-up 500 steps (6.6% of 7630 planned), "
        "peak 4e-4, cosine_with_warmup"
    )


def test_lr_schedule_warn_from_the_config_comes_with_an_alert_and_its_actions():
    # audit B7: "LR not logged; from the config: no warm-up" WARNed with no alert, so the
    # report said "Recommended Actions: None"; and 5 steps of 20000 printed "0.0%"
    info = RunInfo(total_steps=7630, warmup_steps=0, peak_lr=4e-4)
    info.origin.update(total_steps="o.log", warmup_steps="o.log", peak_lr="o.log")
    mon = Monitor(Settings(), info)
    alerts = []
    for s in range(1, 50):
        alerts += mon.feed(StepRecord(s, loss=3.0 - s * 0.01))
    assert [(a.step, a.key) for a in alerts if a.check == "lr_schedule"] == [(20, "lr_config")]
    assert check(mon, "lr_schedule").status.value == "WARN"
    assert mon.actions() == [
        "Add a linear LR warm-up of 153-382 steps (2-5% of 7630), then cosine decay to 10% of peak."
    ]
    info = RunInfo(total_steps=20000, warmup_steps=5, peak_lr=4e-4)
    mon = Monitor(Settings(), info)
    for s in range(1, 10):  # shorter than 20 records: said at the end of the log
        mon.feed(StepRecord(s, loss=3.0))
    assert [a.key for a in mon.finalize() if a.check == "lr_schedule"] == ["lr_config"]
    assert "warm-up 5 steps (0.025% of 20000 planned) < 1%" in check(mon, "lr_schedule").summary


@pytest.mark.parametrize("jump_at,blamed", [(3000, False), (810, True)])
def test_lr_jump_blames_a_restart_only_right_after_it(jump_at, blamed):
    # audit B6: an LR jump at step 3000 was "the scheduler after the restart at step 801"
    import math

    mon = Monitor(Settings(), RunInfo(total_steps=4000, warmup_steps=40))
    steps = [(s, 0) for s in range(1, 1001)] + [(s, 1) for s in range(801, 4001)]  # crashed at 1000, resumed from 800
    alerts = []
    for s, seg in steps:
        lr = (
            3e-4 * min(1.0, s / 40) * (0.55 + 0.45 * math.cos(math.pi * s / 4000)) * (40 if seg and s >= jump_at else 1)
        )
        alerts += mon.feed(StepRecord(s, loss=2.0 + 3.0 * math.exp(-s / 300), lr=lr))
    (jump,) = [a for a in alerts if a.key == "lr_jump"]
    if blamed:
        assert jump.actions[0].startswith("Check the LR scheduler after the restart at step 801")
    else:
        assert jump.actions[0].startswith("Restore the LR schedule: the LR went to")
        assert "not at a restart (the run resumed at step 801, 2199 steps before)" in jump.message


def test_short_grad_norm_log_is_judged_on_absolute_levels():
    mon = Monitor()
    for s in range(1, 40):
        mon.feed(StepRecord(s * 100, loss=3.0, grad_norm=6.0 + (s % 3)))
    alerts = mon.finalize()
    assert [(a.check, a.key) for a in alerts if a.check == "grad_norm"] == [("grad_norm", "grad_high")]
    assert check(mon, "grad_norm").status.value == "WARN"


def test_lr_jump_without_restart_does_not_blame_a_restart():
    mon, alerts = feed("case_lr_bump_excursion")
    jump = [a for a in alerts if a.check == "lr_schedule"][0]
    assert "restart" not in jump.actions[0] and jump.actions[0].startswith("Restore the LR schedule")
    assert "LR jumped 52x to 0.01546 at step 801" in check(mon, "lr_schedule").summary


def test_clip_read_from_lightning_gradient_clip_val(tmp_path):
    from tsm_tui.sources.config import read_run_config

    (tmp_path / "hparams.yaml").write_text("gradient_clip_val: 1.0\nmax_steps: 500\n")
    info = RunInfo()
    read_run_config(info, str(tmp_path))
    assert info.clip == 1.0


def test_checkpoint_verdict_is_against_the_plan():
    info = RunInfo(total_steps=500, checkpoints=[(50, "ckpt-50")], checkpoint_dir_searched=True)
    mon = Monitor(Settings(), info)
    for s in range(1, 68):
        mon.feed(StepRecord(s, loss=2.0))
    assert check(mon, "checkpoints").status.value == "PASS"  # 17 steps behind, of 500 planned
    for s in range(68, 160):
        mon.feed(StepRecord(s, loss=2.0))
    res = check(mon, "checkpoints")
    assert res.status.value == "WARN" and "(> 20% of the run (500 planned))" in res.summary


def test_a_gans_rising_generator_loss_is_never_a_fail():
    # a DCGAN's training_log.csv (Epoch, Batch, Gen Loss, Disc Loss): the generator loss goes
    # 0.72 -> 2.5 as the discriminator wins, normal adversarial dynamics; "turned into
    # divergence" is said, as a warning (like an RL run's loss)
    import random as _r

    rng = _r.Random(3)
    mon, alerts = Monitor(Settings(), RunInfo()), []
    for s in range(420):
        g = (0.72 + 1.8 * min(1.0, s / 100)) * math.exp(rng.gauss(0, 0.15))
        alerts += mon.feed(StepRecord(step=s, loss=g, extra={"Disc Loss": 1.4 - min(1.1, s / 100)}))
    alerts += mon.finalize()
    res = check(mon, "loss_spike")
    assert not [a for a in alerts if a.check == "loss_spike" and a.severity == Severity.CRITICAL]
    # (without the GAN rule: FAIL "spike at step 95 did not recover: lasting damage")
    assert res.status.value == "WARN" and res.summary.startswith("spike at step 95 did not recover")
    assert res.summary.endswith(
        "(a GAN: its generator loss rises as the discriminator learns, judge it by its samples (FID); a warning, not a failure)"
    )


def test_a_gans_rising_generator_loss_is_no_instability_against_a_missing_warm_up():
    """fresh4's PaddleGAN distillation: a constant LR (no warm-up) and a generator loss rising 1.5x in
    the first 10% of the plan, said as a GAN's warning, read "no warm-up, and instability at step
    3170" (critical): the adversarial rise is not the instability a warm-up prevents. A plain run's
    early spike still is."""
    import random as _r

    for gan in (True, False):
        rng = _r.Random(3)
        mon, alerts = Monitor(Settings(), RunInfo(total_steps=5000)), []
        for s in range(420):
            g = (0.72 + 1.8 * min(1.0, s / 100)) * math.exp(rng.gauss(0, 0.15))
            extra = {"Disc Loss": 1.4 - min(1.1, s / 100)} if gan else None
            alerts += mon.feed(StepRecord(step=s, loss=g, lr=2e-4, extra=extra))
        alerts += mon.finalize()
        lr = check(mon, "lr_schedule")
        assert lr.status.value == ("WARN" if gan else "FAIL"), (gan, lr.summary)
        assert lr.summary.startswith("no warm-up" if gan else "no warm-up, and instability at step")


def test_steps_past_the_plan_are_never_more_than_all_of_it():
    # TRL under nohup, its steps counted 145 apart: "flat since step 14830 at 1214% of the
    # planned run: converged". Past the plan, the plan or the step axis is wrong: said so
    from tsm_tui.analysis.state import RunState

    st = RunState(RunInfo(total_steps=100), last_step=1214)
    assert st.progress() == 1.0 and st.past_plan()
    assert not RunState(RunInfo(total_steps=100), last_step=100).past_plan()
    mon, _ = feed("case_resumed_tail", total_steps=1000)
    res = check(mon, "plateau")
    assert "%" not in res.summary
    assert "past the planned run (step 9201 of 1000 planned: the plan or the step axis is wrong)" in res.summary


# -- no progress by a rise (issue 26, fresh2 / fresh3) ---------------------------------------
def _rise_rows(rise: float, noise: float, n: int = 1000, gan: bool = False, seed: int = 3):
    """A loss that falls to its best at step 200, then climbs ``rise`` above it by the end."""
    import random

    rng = random.Random(seed)
    for s in range(1, n + 1):
        base = 3.0 * math.exp(-s / 40) + 1.0 if s <= 200 else 1.0 + rise * (s - 200) / (n - 200)
        extra = {"loss_D": 0.7} if gan else None
        yield StepRecord(s, loss=base * math.exp(rng.gauss(0, noise)), extra=extra)


def _judge(rows):
    mon = Monitor(Settings(), RunInfo())
    alerts = [a for r in rows for a in mon.feed(r)] + mon.finalize()
    return check(mon, "plateau"), [a for a in alerts if a.key == "plateau_rise"]


def test_a_loss_that_climbs_back_above_its_best_is_no_progress_not_improving():
    """A loss 40% above its best for 800 steps (under the 1.5x of divergence) read "loss still
    improving" (fresh3's Lightning W&B run: 0.0372 -> 0.0535)."""
    res, rise = _judge(_rise_rows(0.4, 0.03))
    assert res.status.value == "WARN" and res.summary.startswith("no progress for"), res.summary
    assert len(rise) == 1 and rise[0].severity == Severity.WARNING and rise[0].step == 1000
    assert "above its best" in rise[0].message


@pytest.mark.parametrize(
    "rise, noise, gan",
    [
        (0.1, 0.03, False),  # a drift under RISE_MIN
        (0.25, 0.5, False),  # a very noisy loss: its luckiest block's level is ~2-3 se low
        (0.4, 0.03, True),  # a GAN's generator climbs as its discriminator learns
    ],
)
def test_no_rise_said_within_noise_or_for_an_adversarial_objective(rise, noise, gan):
    res, rise_alerts = _judge(_rise_rows(rise, noise, gan=gan))
    assert rise_alerts == [] and not res.summary.startswith("no progress"), res.summary


def test_no_rise_rule_on_a_loss_whose_best_is_zero():
    """A best level of exactly 0 (a loss printed as 0.0: real_logs2 hf_qlora_zero_loss' shape)
    is no base for the rise rule's ratio: no rise is said and the check does not fail."""
    rows = [StepRecord(s, loss=0.0328 if s == 10 else 0.0) for s in range(10, 1001, 10)]  # its shape
    res, rise = _judge(rows)
    assert "failed" not in res.summary and rise == []


def test_a_second_divergence_after_the_loss_came_back_is_said():
    """fresh3 hf_checkpoints_lora_diverges_twice: the loss diverged, came back to its level for
    ~300 steps, then climbed 3x again, unsaid (the divergence rule fired once per run). Back
    within recovery_factor x its best, the rule watches again; rows and frames agree."""
    import random

    from test_frames import run_both

    rng = random.Random(5)

    def level(s):
        if s < 400:
            return 2.0 + 4.0 * math.exp(-s / 60)
        if s < 800:
            return 2.0 + 2.0 * min(1.0, (s - 400) / 100)  # a slow climb to 2x, held
        if s < 1400:
            return 2.0
        return 2.0 + 3.0 * min(1.0, (s - 1400) / 150)  # again, to 2.5x

    recs = [StepRecord(s, loss=level(s) * math.exp(rng.gauss(0, 0.03))) for s in range(1, 2001)]
    mon = Monitor(Settings(), RunInfo())
    alerts = [a for r in recs for a in mon.feed(r)] + mon.finalize()
    crit = [a.step for a in alerts if a.check == "loss_spike" and a.severity == Severity.CRITICAL]
    back = [a.step for a in alerts if (a.key or "").startswith("loss_divergence_back")]
    # the first climb is a spike that turned into divergence, the second the rolling-median rule
    assert len(crit) == 2 and 400 < crit[0] < 800 and 1400 < crit[1] < 1700, crit
    assert len(back) == 1 and crit[0] < back[0] < crit[1]
    assert check(mon, "loss_spike").status.value == "FAIL"
    run_both(recs)


def test_an_unproven_plateau_does_not_read_still_improving():
    """fresh5 wandb01311 (issue 26): a heavy-tailed per-batch loss, flat at 2.25 with 5% of
    its records 2.7x off, is never proven flat by the bound; the verdict says what its newest
    window measured, not "loss still improving"."""
    rnd = random.Random(7)
    recs = []
    for s in range(20120):
        z = rnd.gauss(0, 1.0 if rnd.random() < 0.05 else 0.35)
        recs.append(StepRecord(s, loss=round((2.25 + 1.5 * math.exp(-s / 1500)) * math.exp(z), 4)))
    mon = Monitor(Settings(), RunInfo())
    for r in recs:
        mon.feed(r)
    mon.finalize()
    res = check(mon, "plateau")
    assert not res.summary.startswith("loss still improving"), res.summary
    assert res.summary.startswith("no plateau proven: the newest window's loss") or res.status.value != "PASS"


def test_early_is_never_the_whole_of_a_short_run():
    """fresh22's 500-step LM fine-tune (held out, healthy): a constant LR and its epoch-maximum bump
    at step 476 read "no warm-up, and instability at step 476" (a FAIL): "early" was the first 500
    steps, the whole run. Early is at most a quarter of a planned run (monitor.EARLY_SHORT); a spike
    at step 100 of that run is still early, and long runs keep 500 steps or 10% of the plan."""
    for spike_at, total, want in ((476, 500, "WARN"), (100, 500, "FAIL"), (450, 5000, "FAIL"), (600, 5000, "WARN")):
        rng = random.Random(5)
        mon = Monitor(Settings(), RunInfo(total_steps=total))
        for s in range(1, min(total, 700) + 1):
            loss = (2.0 + 3.0 * math.exp(-s / 60)) * math.exp(rng.gauss(0, 0.02))
            if s == spike_at:
                loss *= 4
            mon.feed(StepRecord(step=s, loss=loss, lr=3e-3))
        mon.finalize()
        lr = check(mon, "lr_schedule")
        assert lr.status.value == want, (spike_at, total, lr.summary)
        assert lr.summary.startswith(
            "no warm-up" if want == "WARN" else f"no warm-up, and instability at step {spike_at}"
        )


@pytest.mark.parametrize("per_epoch", [True, False])
def test_a_spike_an_epoch_after_the_last_one_came_back_is_its_own(per_epoch):
    """fresh77's FER CNN (one record an epoch, W&B): bursts at epochs 66 and 69 with the loss back at its level at 68,
    and 134 / 137 with 136 back, were one incident each (the "came back" rule asks 3 records). In a log of one
    record an epoch one record back is a whole epoch: the second burst is said. A per-step log keeps the rule."""
    mon = Monitor(Settings(), RunInfo())
    alerts: list[Alert] = []
    rnd = random.Random(3)
    for s in range(1, 121):
        loss = 1.8 * (1 + 0.01 * rnd.uniform(-1, 1))
        if s in (66, 67):
            loss = 12.0
        if s == 69:
            loss = 9.0
        alerts += mon.feed(StepRecord(step=s, loss=loss, epoch=float(s) if per_epoch else None))
    alerts += mon.finalize()
    steps = [a.step for a in alerts if a.check == "loss_spike" and a.message.startswith("Loss spike at step")]
    assert steps == ([66, 69] if per_epoch else [66]), [(a.step, a.key, a.message[:60]) for a in alerts]
