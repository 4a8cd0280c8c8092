"""Prometheus export: the exposition (checked by promtool), the rules (promtool
test rules), --follow with --prom-file / --metrics-port on a run being
appended to, the --on-alert incident lifecycle, and a real Prometheus
scraping a follower and firing TsmCheckFailed."""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tsm_tui.cli import main
from tsm_tui.core.record import Alert, CheckResult, Severity, Status, StepRecord
from tsm_tui.analysis.live import StatusChange
from tsm_tui.views import prometheus, prometheus_rules
from tsm_tui.views.incidents import Incidents

from helpers.follow import record, write_lines
from helpers.wait import poll_until, wait_until
from helpers import paths

ROOT = paths.ROOT
DATA = os.path.join(ROOT, "tests", "data", "prometheus")
PROMTOOL = shutil.which("promtool")
PROMETHEUS = shutil.which("prometheus")
INSTALL = "install Prometheus to run it (Debian/Ubuntu: apt-get install prometheus; it provides promtool too)"
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason=f"no promtool: {INSTALL}")
# servers on ports picked free (_free_port) and real Prometheus processes: on one xdist worker,
# with test_metrics_port.py, so two workers never race for a port another just released
pytestmark = pytest.mark.xdist_group("ports")


def promtool_metrics(text: str) -> None:
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    assert not (p.stdout + p.stderr).strip(), p.stdout + p.stderr  # no lint findings either


def samples(text: str) -> dict[str, float]:
    out = {}
    for ln in text.splitlines():
        if ln and not ln.startswith("#"):
            k, v = ln.rsplit(" ", 1)
            out[k] = float(v)
    return out


class Clock:
    def __init__(self, t=1_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def _checks(status=Status.PASS, summary="ok"):
    return [
        CheckResult("nonfinite", "NaN / Inf", status, summary),
        CheckResult("loss_scale", "fp16 loss scale", Status.SKIP, "no loss scale logged"),
    ]


# ---------------------------------------------------------------------- exposition
def test_exposition_values_nan_and_hostile_labels(tmp_path):
    hostile = 'run "x"\\\n\x1b[31mred\u202eevil'
    exp = prometheus.Exporter(str(tmp_path / "tsm.prom"), clock=Clock())
    m = exp.run(prometheus.label(hostile), str(tmp_path))
    src = str(tmp_path / 'log "1".jsonl')
    m.observe(
        src,
        [
            StepRecord(1, loss=2.0, grad_norm=0.5, lr=1e-4),
            StepRecord(2, loss=float("nan"), grad_norm=float("inf"), loss_scale=65536.0),
        ],
        False,
        "jsonl",
    )
    m.alert(Alert("nonfinite", Severity.CRITICAL, 2, "NaN", actions=["Restart from step 1"]))
    m.set_checks(_checks(Status.FAIL, 'NaN at step 2 "quoted"\nnext'))
    m.primary = src
    exp.publish(force=True)
    text = (tmp_path / "tsm.prom").read_text()
    s = samples(text)
    run = 'run="run \\"x\\"\\\\ redevil"'
    assert math.isnan(s[f"tsm_loss{{{run}}}"])
    assert s[f"tsm_grad_norm{{{run}}}"] == math.inf
    assert s[f"tsm_learning_rate{{{run}}}"] == 1e-4  # the last LR logged, from an earlier record
    assert s[f"tsm_loss_scale{{{run}}}"] == 65536.0
    assert s[f'tsm_check_status{{check="nonfinite",{run}}}'] == 2
    assert s[f'tsm_check_status{{check="loss_scale",{run}}}'] == -1
    assert s[f'tsm_alerts_total{{check="nonfinite",{run},severity="critical"}}'] == 1
    assert "\x1b" not in text and "\u202e" not in text
    assert 'summary="NaN at step 2 \\"quoted\\" next"' in text and 'action="Restart from step 1"' in text
    assert "# TYPE tsm_alerts_total counter" in text and "# HELP tsm_check_status" in text
    assert 'source="log \\"1\\".jsonl"' in text
    assert os.listdir(tmp_path) == ["tsm.prom"]  # no temp file left behind
    if PROMTOOL:
        promtool_metrics(text)


def test_writes_at_most_once_a_second_and_a_heartbeat(tmp_path):
    clock = Clock()
    exp = prometheus.Exporter(str(tmp_path / "tsm.prom"), clock=clock)
    m = exp.run("r", str(tmp_path))
    assert exp.publish()  # the first write is at once
    for i in range(10):  # ten changes within 0.9 s: no write
        clock.t += 0.09
        m.set_checks(_checks(Status.FAIL if i % 2 else Status.PASS))
        exp._dirty = True
        assert not exp.publish()
    clock.t += 0.2
    assert exp.publish() and exp.writes == 2
    clock.t += 5
    assert not exp.publish()  # nothing changed
    clock.t += prometheus.HEARTBEAT
    assert exp.publish()  # the heartbeat
    assert samples((tmp_path / "tsm.prom").read_text())['tsm_monitor_heartbeat_timestamp_seconds{run="r"}'] == clock.t


def test_summary_label_changes_only_with_the_status(tmp_path):
    m = prometheus.RunModel("r", str(tmp_path))
    m.set_checks(_checks(Status.FAIL, "1 non-finite record(s)"))
    m.set_checks(_checks(Status.FAIL, "7 non-finite record(s)"))
    assert m.checks["nonfinite"].summary == "1 non-finite record(s)"
    m.set_checks(_checks(Status.PASS, "all finite"))
    assert m.checks["nonfinite"].summary == "all finite"


def test_interval_and_rate_from_arrivals(tmp_path):
    m = prometheus.RunModel("r", str(tmp_path))
    src = str(tmp_path / "a.jsonl")
    for i in range(10):
        m.observe(src, [StepRecord(10 * i + k, loss=1.0) for k in range(1, 11)], False, "jsonl", now=100.0 + 2 * i)
    m.primary = src
    snap = m.snapshot(0)
    assert snap.interval == pytest.approx(2.0) and snap.steps_per_s == pytest.approx(5.0)
    assert snap.last_ts == pytest.approx(118.0)


def test_bad_prom_file_and_port_are_usage_errors(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    write_lines(run / "log.jsonl", [record(s) for s in range(1, 50)], "w")
    assert main([str(run), "--report", "--prom-file", str(tmp_path / "nope" / "x.prom")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert main([str(run), "--report", "--metrics-port", "9999"]) == 2
    assert "--metrics-port needs --follow" in capsys.readouterr().err
    assert main([str(run), "--print", "prometheus-rules"]) == 2
    assert "--print takes no PATH" in capsys.readouterr().err
    assert main(["--metrics-port", "70000", str(run)]) == 2


def test_report_writes_the_file(tmp_path):
    out = tmp_path / "tsm.prom"
    rc = main([os.path.join(ROOT, "sample_runs", "nan_divergence"), "--report", "--json", "--prom-file", str(out)])
    assert rc == 1
    s = samples(out.read_text())
    assert s['tsm_check_status{check="nonfinite",run="nan_divergence"}'] == 2
    assert s['tsm_nonfinite_total{run="nan_divergence"}'] > 0
    assert s['tsm_planned_steps{run="nan_divergence"}'] == 2000
    assert s['tsm_following{run="nan_divergence"}'] == 0  # a one-shot export: no stall / monitor-down rule
    if PROMTOOL:
        promtool_metrics(out.read_text())


def test_run_label_names_jobs_whose_directories_share_a_name(tmp_path):
    """Two jobs on one node, both in a directory called ``output``: --run-label keeps
    their series apart in node_exporter's textfile directory; a log file given
    directly is named after its directory, not the file."""
    src = os.path.join(ROOT, "sample_runs", "nan_divergence")
    out = tmp_path / "a.prom"
    assert main([src, "--report", "--json", "--prom-file", str(out), "--run-label", "job-41/output"]) == 1
    s = samples(out.read_text())
    assert s['tsm_check_status{check="nonfinite",run="job-41/output"}'] == 2
    log = next(os.path.join(src, f) for f in sorted(os.listdir(src)) if f.endswith((".jsonl", ".log")))
    out2 = tmp_path / "b.prom"
    main([log, "--report", "--json", "--prom-file", str(out2)])
    s2 = samples(out2.read_text())
    assert any(k.startswith("tsm_last_step{") and 'run="nan_divergence"' in k for k in s2), sorted(s2)[:5]
    assert main([src, "--report", "--run-label", "x"]) == 2  # it labels exported metrics only


# ---------------------------------------------------------------------- rules and dashboard
@needs_promtool
def test_rules_pass_promtool_check_and_unit_tests(tmp_path):
    rules = tmp_path / "tsm-rules.yml"
    rules.write_text(prometheus_rules.text("prometheus-rules"))
    shutil.copy(os.path.join(DATA, "rules_test.yml"), tmp_path / "rules_test.yml")
    p = subprocess.run([PROMTOOL, "check", "rules", str(rules)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "4 rules found" in p.stdout, p.stdout + p.stderr
    p = subprocess.run(
        [PROMTOOL, "test", "rules", "rules_test.yml"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert p.returncode == 0, p.stdout + p.stderr


def test_print_dashboard_is_json_with_the_panels(capsys):
    assert main(["--print", "grafana-dashboard"]) == 0
    d = json.loads(capsys.readouterr().out)
    exprs = " ".join(t["expr"] for p in d["panels"] for t in p["targets"])
    for name in ("tsm_check_status", "tsm_loss", "tsm_grad_norm", "tsm_learning_rate"):
        assert name in exprs
    assert d["panels"][0]["transformations"][0]["id"] == "groupingToMatrix"


# ---------------------------------------------------------------------- incidents (--on-alert)
def _sc(status, previous, step=1):
    return StatusChange("nonfinite", status, previous, f"{status.value} summary", step, "r")


def test_flapping_check_pages_once_and_resolves_once():
    sent, clock = [], Clock()
    inc = Incidents(sent.append, cooldown=300, clock=clock)
    nan = Alert("nonfinite", Severity.CRITICAL, 5, "NaN", actions=["Restart"])
    inc.update([(nan, False, "r")], [_sc(Status.FAIL, Status.PASS)], backlog=False)
    assert [d["event"] for d in sent] == ["alert"] and sent[0]["lifecycle"] == "firing"
    assert sent[0]["message"] == "NaN" and sent[0]["actions"] == ["Restart"] and sent[0]["run"] == "r"
    for i in range(20):  # flaps FAIL <-> WARN every 10 s, more critical alerts
        clock.t += 10
        inc.update([], [_sc(Status.WARN, Status.FAIL)], backlog=False)
        clock.t += 10
        inc.update(
            [(Alert("nonfinite", Severity.CRITICAL, 10 + i, "NaN again"), False, "r")],
            [_sc(Status.FAIL, Status.WARN)],
            backlog=False,
        )
    assert len(sent) == 1 and inc.suppressed == 20
    clock.t += 10
    inc.update([], [_sc(Status.PASS, Status.FAIL)], backlog=False)
    clock.t += 299
    inc.tick()
    assert len(sent) == 1
    clock.t += 2
    inc.tick()
    assert sent[-1]["event"] == "resolved" and sent[-1]["flaps"] == 20 and sent[-1]["incident"] == sent[0]["incident"]
    # a new incident later pages again, as "firing" when no critical alert came with it
    clock.t += 1000
    inc.update([], [_sc(Status.FAIL, Status.PASS)], backlog=False)
    assert sent[-1]["event"] == "firing" and len(sent) == 3


def test_backlog_opens_incidents_silently_and_cooldown_zero_pages_each_alert():
    sent, clock = [], Clock()
    inc = Incidents(sent.append, cooldown=300, clock=clock)
    inc.update(
        [(Alert("nonfinite", Severity.CRITICAL, 5, "NaN"), True, "r")], [_sc(Status.FAIL, Status.PASS)], backlog=True
    )
    inc.update([(Alert("nonfinite", Severity.CRITICAL, 9, "NaN"), False, "r")], [], backlog=False)
    assert sent == []  # an old problem, still open: no page on restart
    sent2 = []
    inc0 = Incidents(sent2.append, cooldown=0, clock=clock)
    for s in range(3):
        inc0.update([(Alert("grad_norm", Severity.CRITICAL, s, "spike"), False, "r")], [], backlog=False)
    assert [d["event"] for d in sent2] == ["alert"] * 3


# ---------------------------------------------------------------------- --follow end to end
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout=2.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


@pytest.mark.slow
def test_follow_prom_file_and_metrics_port_on_a_growing_run(tmp_path, follow):  # noqa: F811
    run = tmp_path / "job-42"
    run.mkdir()
    log = run / "trainer_log.jsonl"
    write_lines(log, [record(s) for s in range(1, 101)], "w")
    prom = tmp_path / "textfile" / "tsm_job42.prom"
    prom.parent.mkdir()
    port = _free_port()
    f = follow(run, "--prom-file", prom, "--metrics-port", port, "--json")
    assert f.wait_for(lambda: prom.exists() and 'tsm_last_step{run="job-42"} 100.0' in prom.read_text())
    for s in range(101, 121):  # a live, healthy run being appended to
        write_lines(log, [record(s)])
        time.sleep(0.05)
    assert f.wait_for(lambda: 'tsm_last_step{run="job-42"} 120.0' in prom.read_text())
    write_lines(log, [dict(record(121), loss=float("nan"))])
    assert f.wait_for(lambda: 'tsm_check_status{check="nonfinite",run="job-42"} 2.0' in prom.read_text())
    text = prom.read_text()
    assert 'tsm_loss{run="job-42"} NaN' in text
    assert 'tsm_run_info{format="jsonl",run="job-42",source="trainer_log.jsonl"} 1.0' in text
    if PROMTOOL:
        promtool_metrics(text)
    served = _get(f"http://127.0.0.1:{port}/metrics")
    assert 'tsm_check_status{check="nonfinite",run="job-42"} 2.0' in served
    assert f.stop() == 0
    assert [n for n in os.listdir(prom.parent)] == ["tsm_job42.prom"]


@pytest.mark.slow
def test_on_alert_gets_one_firing_page(tmp_path, follow):  # noqa: F811
    run = tmp_path / "run"
    run.mkdir()
    log = run / "trainer_log.jsonl"
    write_lines(log, [record(s) for s in range(1, 101)], "w")
    pages = tmp_path / "pages.jsonl"
    f = follow(run, "--on-alert", f"cat >> {pages}")
    assert f.wait_for(lambda: any("nonfinite: SKIP -> PASS" in e for e in f.err))
    for s in range(101, 106):
        write_lines(log, [dict(record(s), loss=float("nan"))])
        time.sleep(0.3)
    assert f.wait_for(lambda: pages.exists() and pages.read_text().strip())
    time.sleep(1.0)
    assert f.stop() == 0
    got = [json.loads(x) for x in pages.read_text().splitlines()]
    assert len(got) == 1, got
    assert got[0]["event"] == "alert" and got[0]["lifecycle"] == "firing" and got[0]["check"] == "nonfinite"
    assert got[0]["status"] == "FAIL" and got[0]["run"] == "run" and got[0]["step"] == 101


# ---------------------------------------------------------------------- a real Prometheus
def _start_prometheus(tmp_path, ports) -> tuple[subprocess.Popen, str]:
    """A Prometheus scraping ``ports`` every second with tsm's rules; (process, API URL)."""
    (tmp_path / "tsm-rules.yml").write_text(prometheus_rules.text("prometheus-rules"))
    targets = ", ".join(f"'127.0.0.1:{p}'" for p in ports)
    (tmp_path / "prometheus.yml").write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        "rule_files: [tsm-rules.yml]\n"
        f"scrape_configs: [{{job_name: tsm, static_configs: [{{targets: [{targets}]}}]}}]\n"
    )
    pport = _free_port()
    prom = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{pport}",
            "--log.level=warn",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return prom, f"http://127.0.0.1:{pport}/api/v1"


def _stop_prometheus(prom: subprocess.Popen) -> None:
    prom.terminate()
    try:
        prom.wait(10)
    except subprocess.TimeoutExpired:
        prom.kill()
        prom.wait()


@pytest.mark.skipif(PROMETHEUS is None or PROMTOOL is None, reason=f"no prometheus binary: {INSTALL}")
@pytest.mark.slow
def test_real_prometheus_fires_tsm_check_failed_for_a_nan_only(tmp_path, follow):  # noqa: F811
    runs = {}
    for name in ("bad", "good"):
        d = tmp_path / name
        d.mkdir()
        write_lines(d / "trainer_log.jsonl", [record(s) for s in range(1, 101)], "w")
        runs[name] = (d, _free_port())
    procs = {n: follow(d, "--metrics-port", p) for n, (d, p) in runs.items()}
    prom, api = _start_prometheus(tmp_path, [p for _, p in runs.values()])
    try:

        def alerts():
            try:
                return json.loads(_get(f"{api}/alerts"))["data"]["alerts"]
            except OSError:
                return None

        def targets_up():
            try:
                t = json.loads(_get(f"{api}/targets"))["data"]["activeTargets"]
            except OSError:
                return False
            return len(t) == 2 and all(x["health"] == "up" for x in t)

        wait_until(targets_up, 30, "Prometheus to scrape both followers", every=0.3, alive=lambda: prom.poll() is None)
        for s in range(101, 111):  # both runs are live and healthy for a while
            for d, _ in runs.values():
                write_lines(d / "trainer_log.jsonl", [record(s)])
            time.sleep(0.1)
        time.sleep(3)  # several scrapes and rule evaluations of two healthy runs
        assert not [a for a in alerts() or [] if a["labels"]["alertname"] == "TsmCheckFailed"]
        write_lines(runs["bad"][0] / "trainer_log.jsonl", [dict(record(111), loss=float("nan"))])
        write_lines(runs["good"][0] / "trainer_log.jsonl", [record(111)])

        def failed():
            return [a for a in alerts() or [] if a["labels"]["alertname"] == "TsmCheckFailed"]

        got = wait_until(failed, 20, "TsmCheckFailed to become pending or firing", every=0.3)
        assert {a["labels"]["run"] for a in got} == {"bad"}
        nan = [a for a in got if a["labels"]["check"] == "nonfinite"]
        assert nan and nan[0]["state"] in ("pending", "firing")
        assert "non-finite" in nan[0]["annotations"]["description"]
        assert nan[0]["annotations"]["action"].startswith("Restart from the last checkpoint")
        time.sleep(2)  # the healthy run stays quiet
        assert {a["labels"]["run"] for a in failed()} == {"bad"}
    finally:
        _stop_prometheus(prom)
        for p in procs.values():
            p.stop()


# ---------------------------------------------------------------------- the TUI's live worker
def test_tui_live_worker_feeds_the_exporter(tmp_path):
    import asyncio

    from helpers.tui import wait_loaded
    from tsm_tui.views import outputs
    from tsm_tui.views.tui import TsmApp

    prom = tmp_path / "tsm.prom"
    run = os.path.join(ROOT, "sample_runs", "nan_divergence")

    async def go():
        app = TsmApp.finished(run)
        exp = prometheus.Exporter(str(prom))
        app.exporter = outputs.Outputs([prometheus.Metrics(exp, run, run)])  # (what run_app sets)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_loaded(pilot, app)
        exp.close()

    asyncio.run(go())
    s = samples(prom.read_text())
    assert s['tsm_check_status{check="nonfinite",run="nan_divergence"}'] == 2
    assert s['tsm_last_step{run="nan_divergence"}'] == 800


@pytest.mark.slow
def test_follow_a_sweep_exports_one_series_set_per_run(tmp_path, follow):  # noqa: F811
    top = tmp_path / "sweep"
    for name in ("lr-1e-4", "lr-3e-4"):
        (top / name).mkdir(parents=True)
        write_lines(top / name / "trainer_log.jsonl", [record(s) for s in range(1, 81)], "w")
    prom = tmp_path / "tsm_sweep.prom"
    f = follow(top, "--prom-file", prom)
    assert f.wait_for(
        lambda: (
            prom.exists()
            and all(f'tsm_last_step{{run="{n}"}} 80.0' in prom.read_text() for n in ("lr-1e-4", "lr-3e-4"))
        )
    )
    write_lines(top / "lr-3e-4" / "trainer_log.jsonl", [dict(record(81), loss=float("nan"))])
    assert f.wait_for(lambda: 'tsm_check_status{check="nonfinite",run="lr-3e-4"} 2.0' in prom.read_text())
    s = samples(prom.read_text())
    assert s['tsm_check_status{check="nonfinite",run="lr-1e-4"}'] == 0
    if PROMTOOL:
        promtool_metrics(prom.read_text())
    assert f.stop() == 0


# ---------------------------------------------------------------------- run labels stay distinct (issue 33)
def test_run_labels_that_cleaning_would_merge_stay_distinct():
    long_a, long_b = "x" * 170 + "-a", "x" * 170 + "-b"
    names = ["lr-1", "lr\u202e-1", "lr-\x1b[31m1", long_a, long_b, "résumé run 7"]
    labels = [prometheus.unique_label(n) for n in names]
    assert len(set(labels)) == len(names), labels
    assert labels[0] == "lr-1" and labels[5] == "résumé run 7"  # a name the cleaner leaves alone is its label
    for lab in labels[1:5]:
        assert "~" in lab and len(lab) <= prometheus.LABEL_MAX
        assert "\u202e" not in lab and "\x1b" not in lab
    assert prometheus.unique_label("lr\u202e-1") == labels[1]  # stable: a function of the name alone
    assert labels[1].startswith("lr-1~") and len(labels[1].split("~")[1]) == 8


@pytest.mark.slow
def test_a_healthy_sibling_no_longer_hides_a_fail(tmp_path, follow):  # noqa: F811
    """Two runs of a sweep whose names differ only in a bidi override, two more only
    after the 160-character cut: each keeps its own series, and the NaN run reads FAIL
    while its healthy look-alike reads PASS (they used to be one ``run`` label)."""
    top = tmp_path / "sweep"
    names = ["lr-1", "lr\u202e-1", "y" * 170 + "-good", "y" * 170 + "-bad"]
    for n in names:
        (top / n).mkdir(parents=True)
        write_lines(top / n / "trainer_log.jsonl", [record(s) for s in range(1, 81)], "w")
    prom = tmp_path / "tsm_sweep.prom"
    f = follow(top, "--prom-file", prom)
    labels = {n: prometheus.unique_label(n) for n in names}
    assert len(set(labels.values())) == 4
    assert f.wait_for(
        lambda: (
            prom.exists() and all(f'tsm_last_step{{run="{lab}"}} 80.0' in prom.read_text() for lab in labels.values())
        )
    ), (prom.read_text() if prom.exists() else "", f.err)
    for bad in ("lr\u202e-1", "y" * 170 + "-bad"):
        write_lines(top / bad / "trainer_log.jsonl", [dict(record(81), loss=float("nan"))])
    for good in ("lr-1", "y" * 170 + "-good"):
        write_lines(top / good / "trainer_log.jsonl", [record(81)])
    assert f.wait_for(
        lambda: all(
            f'tsm_check_status{{check="nonfinite",run="{labels[b]}"}} 2.0' in prom.read_text()
            for b in ("lr\u202e-1", "y" * 170 + "-bad")
        )
    )
    s = samples(prom.read_text())
    for good in ("lr-1", "y" * 170 + "-good"):
        assert s[f'tsm_check_status{{check="nonfinite",run="{labels[good]}"}}'] == 0
        assert s[f'tsm_last_step{{run="{labels[good]}"}}'] == 81
    if PROMTOOL:
        promtool_metrics(prom.read_text())
    assert f.stop() == 0


@pytest.mark.skipif(PROMETHEUS is None or PROMTOOL is None, reason=f"no prometheus binary: {INSTALL}")
@pytest.mark.slow
def test_real_prometheus_fires_for_the_run_whose_name_only_a_bidi_character_sets_apart(tmp_path, follow):  # noqa: F811
    top = tmp_path / "sweep"
    for n in ("lr-1", "lr\u202e-1"):
        (top / n).mkdir(parents=True)
        write_lines(top / n / "trainer_log.jsonl", [record(s) for s in range(1, 101)], "w")
    port = _free_port()
    f = follow(top, "--metrics-port", port)
    prom, api = _start_prometheus(tmp_path, [port])

    def failed():
        try:
            got = json.loads(_get(f"{api}/alerts"))["data"]["alerts"]
        except OSError:
            return []
        return [a for a in got if a["labels"]["alertname"] == "TsmCheckFailed"]

    try:

        def up() -> bool:
            try:
                t = json.loads(_get(f"{api}/targets"))["data"]["activeTargets"]
            except OSError:
                return False
            return bool(t) and t[0]["health"] == "up"

        poll_until(up, 30, every=0.3, alive=lambda: prom.poll() is None)
        assert prom.poll() is None, prom.stderr.read()
        write_lines(top / "lr\u202e-1" / "trainer_log.jsonl", [dict(record(101), loss=float("nan"))])
        write_lines(top / "lr-1" / "trainer_log.jsonl", [record(101)])
        poll_until(lambda: [a for a in failed() if a["labels"]["check"] == "nonfinite"], 20, every=0.3)
        nan = [a for a in failed() if a["labels"]["check"] == "nonfinite"]
        assert [a["labels"]["run"] for a in nan] == [prometheus.unique_label("lr\u202e-1")], failed()
        q = json.loads(_get(f"{api}/query?query=tsm_check_status%7Bcheck%3D%22nonfinite%22%7D"))["data"]["result"]
        assert {r["metric"]["run"]: r["value"][1] for r in q} == {
            "lr-1": "0",
            prometheus.unique_label("lr\u202e-1"): "2",
        }
    finally:
        _stop_prometheus(prom)
        f.stop()


# ---------------------------------------------------------------------- --prom-file never follows a link (issue 32)
def _plant(tmp_path, name: str):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.symlink(victim, name)
    return victim


def test_prom_file_replaces_a_link_at_its_name_and_never_writes_through_it(tmp_path):
    d = tmp_path / "textfile"
    d.mkdir()
    target = d / "tsm.prom"
    victim = _plant(tmp_path, target)
    err = __import__("io").StringIO()
    exp = prometheus.Exporter(str(target), err=err, clock=Clock())
    exp.run("r", str(tmp_path))
    assert exp.publish(force=True)
    assert victim.read_text() == "precious\n"
    assert not os.path.islink(target) and "tsm_following" in target.read_text()
    assert oct(os.stat(target).st_mode & 0o777) == "0o644"  # node_exporter (another user) reads it
    assert "was a symbolic link: replaced by the exported file" in err.getvalue()
    assert sorted(os.listdir(d)) == ["tsm.prom"]
    exp.publish(force=True)
    assert err.getvalue().count("symbolic link") == 1


def test_prom_file_temp_names_are_unpredictable_and_exclusive(tmp_path, monkeypatch):
    """A link planted at the old predictable name (<file>.<pid>.tmp) or at the very
    name mkstemp draws first: the target stays untouched (O_EXCL: mkstemp draws again)."""
    import tempfile

    d = tmp_path / "textfile"
    d.mkdir()
    target = d / "tsm.prom"
    victims = []
    for i, name in enumerate(
        [f"{target}.{os.getpid()}.tmp", d / ".tsm.prom.planted1.tmp", d / ".tsm.prom.planted2.tmp"]
    ):
        (tmp_path / f"v{i}").mkdir()
        victims.append(_plant(tmp_path / f"v{i}", name))
    names = iter(["planted1", "planted2", "fresh123"])
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    exp = prometheus.Exporter(str(target), clock=Clock())
    exp.run("r", str(tmp_path))
    assert exp.publish(force=True)
    for v in victims:
        assert v.read_text() == "precious\n"
    assert "tsm_following" in target.read_text() and not os.path.islink(target)
    assert sorted(os.listdir(d)) == sorted(
        [".tsm.prom.planted1.tmp", ".tsm.prom.planted2.tmp", f"tsm.prom.{os.getpid()}.tmp", "tsm.prom"]
    )


def test_prom_file_through_the_cli_with_a_planted_link(tmp_path):
    src = os.path.join(ROOT, "sample_runs", "nan_divergence")
    target = tmp_path / "tsm.prom"
    victim = _plant(tmp_path, target)
    p = subprocess.run(
        [sys.executable, "-m", "tsm_tui", src, "--report", "--prom-file", str(target)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=60,
    )
    assert p.returncode == 1, p.stderr
    assert victim.read_text() == "precious\n"
    assert 'tsm_check_status{check="nonfinite",run="nan_divergence"} 2.0' in target.read_text()
    assert "symbolic link" in p.stderr and p.stderr.count("\n") == 1
