"""``tsm-watch --print prometheus-rules`` and ``--print grafana-dashboard``.

The rules read the metrics of ``tsm_tui.views.prometheus``. They match series
on all their labels (``run`` plus whatever the scrape adds: ``instance``,
``job``), so the same rules serve ``--metrics-port`` targets and textfiles read
by node_exporter. Thresholds are ours:

* ``TsmCheckFailed``: a check at FAIL, at once (``for: 0m``: a NaN does not
  heal; the first evaluation after the scrape fires);
* ``TsmCheckWarning``: a check at WARN for 10 minutes (warnings come and go);
* ``TsmRunStalled``: no new record for 10x the run's usual interval between
  records, at least 5 minutes (checkpoint saves and evaluations pause a run
  for minutes), or for 15 minutes when the interval is not known yet; not
  once the planned steps are done, nor for a run whose crash check is at FAIL
  (its last lines are a crash: dead, not stalled; ``TsmCheckFailed`` says it);
* ``TsmMonitorDown``: the ``tsm`` scrape job is down, or a textfile's
  heartbeat (rewritten every 30 s) is 2 minutes old.

Neither of the last two applies to a one-shot ``--report --prom-file`` export
(``tsm_following 0``): nothing keeps it fresh, and its run is not being watched.
"""

from __future__ import annotations

import json

from tsm_tui.core.settings import STALL_FACTOR  # x the usual interval (the TUI's too)

STALL_MIN = 300  # s, floor of the stall threshold (ours: checkpoint saves, evaluations)
STALL_UNKNOWN = 900  # s, when the run's interval is not known (15 min)
HEARTBEAT_STALE = 120  # s: 4 heartbeats (views/prometheus.py HEARTBEAT = 30 s)


def _check_rule(alert: str, value: int, status: str, wait: str, severity: str, said: str) -> str:
    """The rule of a check at ``status`` (``tsm_check_status == value``, views/prometheus
    STATUS_VALUE) held for ``wait``: the alert carries the summary and action of the check's
    ``tsm_check_info`` series. One rule for FAIL and WARN, which differ only in these."""
    return f"""\
      - alert: {alert}
        expr: |
          (tsm_check_status == {value})
            * ignoring(status, summary, action) group_left(summary, action)
          tsm_check_info{{status="{status}"}}
        for: {wait}
        labels:
          severity: {severity}
        annotations:
          summary: "Training run {{{{ $labels.run }}}}: {{{{ $labels.check }}}} {said}"
          description: "{{{{ $labels.summary }}}}"
          action: "{{{{ $labels.action }}}}"
          run: "{{{{ $labels.run }}}}"
"""


_CHECK_FAILED = _check_rule("TsmCheckFailed", 2, "FAIL", "0m", "critical", "FAILED")
_CHECK_WARNING = _check_rule("TsmCheckWarning", 1, "WARN", "10m", "warning", "WARN")

RULES = f"""\
# tsm-watch alerting rules (tsm-watch --print prometheus-rules > /etc/prometheus/tsm-rules.yml)
# Load with rule_files: [tsm-rules.yml]; check with: promtool check rules tsm-rules.yml
# Scrape tsm-watch --metrics-port targets as job "tsm" (TsmMonitorDown), or let node_exporter's
# textfile collector read --prom-file files (the heartbeat covers those).
groups:
  - name: tsm-watch
    rules:
{_CHECK_FAILED}{_CHECK_WARNING}      - alert: TsmRunStalled
        expr: |
          (
              (time() - tsm_last_record_timestamp_seconds)
                > clamp_min({STALL_FACTOR} * tsm_expected_interval_seconds, {STALL_MIN})
            or
              ((time() - tsm_last_record_timestamp_seconds) > {STALL_UNKNOWN}
                unless tsm_expected_interval_seconds)
          )
          unless (tsm_last_step >= tsm_planned_steps)
          unless (tsm_following == 0)
          unless on(run) (tsm_check_status{{check="crash"}} == 2)
        for: 1m
        labels:
          severity: critical
        annotations:
          summary: "Training run {{{{ $labels.run }}}} logged nothing for {{{{ $value | humanizeDuration }}}}"
          description: "No new step for {STALL_FACTOR}x the run's usual interval (at least {STALL_MIN // 60} min; {STALL_UNKNOWN // 60} min when the interval is not known)."
          action: "Check the job: hung collective (NCCL timeout), dead node, full disk, or a stuck data loader; py-spy dump the rank-0 process."
          run: "{{{{ $labels.run }}}}"
      - alert: TsmMonitorDown
        expr: |
          up{{job="tsm"}} == 0
            or
          ((time() - tsm_monitor_heartbeat_timestamp_seconds) > {HEARTBEAT_STALE}
            unless (tsm_following == 0))
        for: 2m
        labels:
          severity: warning
        annotations:
          summary: "tsm-watch on {{{{ $labels.instance }}}} is down{{{{ with $labels.run }}}} (run {{{{ . }}}}){{{{ end }}}}"
          description: "Its verdicts are stale: the monitor exited or cannot write its textfile."
          action: "Restart tsm-watch --follow for the run (systemd: systemctl restart tsm-watch@RUN)."
          run: "{{{{ $labels.run }}}}"
      # To alert when no tsm target exists at all (a node that should always run one):
      # - alert: TsmMonitorAbsent
      #   expr: absent(up{{job="tsm"}})
      #   for: 5m
"""


def dashboard() -> dict:
    """A Grafana dashboard: runs x checks table; loss, grad norm and LR per run."""
    ds = {"type": "prometheus", "uid": "${datasource}"}
    run = 'run=~"$run"'

    def ts(pid, title, expr, y, x=0, w=12, log=False):
        p = {
            "id": pid,
            "type": "timeseries",
            "title": title,
            "datasource": ds,
            "gridPos": {"h": 8, "w": w, "x": x, "y": y},
            "targets": [{"refId": "A", "datasource": ds, "expr": expr, "legendFormat": "{{run}}"}],
            "fieldConfig": {"defaults": {"custom": {"spanNulls": False}}, "overrides": []},
            "options": {"legend": {"displayMode": "list", "placement": "bottom"}, "tooltip": {"mode": "multi"}},
        }
        if log:
            p["fieldConfig"]["defaults"]["custom"]["scaleDistribution"] = {"type": "log", "log": 10}
        return p

    status_map = [
        {
            "type": "value",
            "options": {
                "-1": {"text": "SKIP", "color": "text", "index": 0},
                "0": {"text": "PASS", "color": "green", "index": 1},
                "1": {"text": "WARN", "color": "yellow", "index": 2},
                "2": {"text": "FAIL", "color": "red", "index": 3},
            },
        }
    ]
    table = {
        "id": 1,
        "type": "table",
        "title": "Runs x checks",
        "datasource": ds,
        "gridPos": {"h": 9, "w": 24, "x": 0, "y": 0},
        "targets": [
            {
                "refId": "A",
                "datasource": ds,
                "expr": f"max by (run, check) (tsm_check_status{{{run}}})",
                "format": "table",
                "instant": True,
            }
        ],
        "transformations": [
            {"id": "groupingToMatrix", "options": {"rowField": "run", "columnField": "check", "valueField": "Value"}}
        ],
        "fieldConfig": {
            "defaults": {
                "mappings": status_map,
                "custom": {"cellOptions": {"type": "color-background"}},
                "color": {"mode": "fixed", "fixedColor": "transparent"},
            },
            "overrides": [
                {
                    "matcher": {"id": "byName", "options": "run\\check"},
                    "properties": [{"id": "custom.cellOptions", "value": {"type": "auto"}}],
                }
            ],
        },
        "options": {"showHeader": True},
    }
    progress = {
        "id": 2,
        "type": "table",
        "title": "Progress",
        "datasource": ds,
        "gridPos": {"h": 7, "w": 24, "x": 0, "y": 9},
        "targets": [
            {
                "refId": "A",
                "datasource": ds,
                "expr": f"max by (run) (tsm_last_step{{{run}}})",
                "format": "table",
                "instant": True,
            },
            {
                "refId": "B",
                "datasource": ds,
                "expr": f"max by (run) (tsm_planned_steps{{{run}}})",
                "format": "table",
                "instant": True,
            },
            {
                "refId": "C",
                "datasource": ds,
                "expr": f"max by (run) (tsm_steps_per_second{{{run}}})",
                "format": "table",
                "instant": True,
            },
            {
                "refId": "D",
                "datasource": ds,
                "expr": f"max by (run) (time() - tsm_last_record_timestamp_seconds{{{run}}})",
                "format": "table",
                "instant": True,
            },
        ],
        "transformations": [
            {"id": "merge", "options": {}},
            {
                "id": "organize",
                "options": {
                    "excludeByName": {"Time": True},
                    "renameByName": {
                        "Value #A": "last step",
                        "Value #B": "planned",
                        "Value #C": "steps/s",
                        "Value #D": "seconds since last record",
                    },
                },
            },
        ],
        "fieldConfig": {"defaults": {}, "overrides": []},
        "options": {"showHeader": True},
    }
    panels = [
        table,
        progress,
        ts(3, "Loss", f"tsm_loss{{{run}}}", 16, 0),
        ts(4, "Gradient norm", f"tsm_grad_norm{{{run}}}", 16, 12, log=True),
        ts(5, "Learning rate", f"tsm_learning_rate{{{run}}}", 24, 0),
        ts(6, "Alerts per hour", f"sum by (run, check) (increase(tsm_alerts_total{{{run}}}[1h]))", 24, 12),
    ]
    panels[5]["targets"][0]["legendFormat"] = "{{run}} {{check}}"
    return {
        "title": "tsm-watch: training stability",
        "uid": "tsm-watch",
        "tags": ["tsm-watch", "training"],
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "30s",
        "templating": {
            "list": [
                {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Prometheus"},
                {
                    "name": "run",
                    "type": "query",
                    "datasource": ds,
                    "label": "run",
                    "query": {"query": "label_values(tsm_run_info, run)", "refId": "run"},
                    "definition": "label_values(tsm_run_info, run)",
                    "includeAll": True,
                    "multi": True,
                    "current": {"text": "All", "value": "$__all"},
                    "allValue": ".*",
                    "refresh": 2,
                },
            ]
        },
        "panels": panels,
    }


def text(what: str) -> str:
    if what == "prometheus-rules":
        return RULES
    if what == "grafana-dashboard":
        return json.dumps(dashboard(), indent=2) + "\n"
    raise ValueError(what)
