"""tsm-tui: Training Stability Monitor.

Data flows one way: sources (find, tail and parse logs into StepRecords) ->
detectors (pure, incremental) -> monitor (check status, alerts, advice) ->
views (text / JSON report, Textual app). Nothing below ``tsm_tui.views.tui``
imports Textual.
"""

__version__ = "0.1.0"
