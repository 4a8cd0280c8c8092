"""What the command line asked for, as typed values.

The flag table in ``tsm_tui.cli`` fills one ``Options``; the views receive it
(or the parts they need) and never see an argparse namespace.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tsm_tui.core.settings import RunInfo, Settings


@dataclass
class Options:
    path: str | None = None
    #: detector thresholds (``--threshold``, ``--window`` ...)
    settings: Settings = field(default_factory=Settings)
    #: what the flags say about the run (``--total-steps``, ``--params`` ...): wins over files
    info: RunInfo = field(default_factory=RunInfo)
    config: str | None = None
    #: ``--run NAME``: one run of a directory holding several
    run: str | None = None
    report: bool = False
    json: bool = False
    follow: bool = False
    replay: bool = False
    speed: float = 50.0
    demo: bool = False
    preflight: bool = False
    poll: float | None = None
    on_alert: str | None = None
    bell: bool = True
    #: --on-alert: seconds a check stays below FAIL before its incident resolves,
    #: and within which repeats of an incident are not paged
    alert_cooldown: float = 300.0
    #: Prometheus: textfile-collector file, /metrics port and address, ``--print`` WHAT
    prom_file: str | None = None
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    run_label: str | None = None
    print_what: str | None = None
    #: ``--format``: text, json (= ``--json``), github (Actions workflow commands), sarif (SARIF 2.1.0)
    format: str | None = None
    debug: bool = False
    #: the values of an exporter's own flags (``Flag(..., "exports.<key>")`` on its class,
    #: views/outputs.py): a new exporter's flag needs no field here
    exports: dict[str, object] = field(default_factory=dict)

    def fresh_info(self) -> RunInfo:
        """A copy of the flags' RunInfo for one run (configs and logs add to it)."""
        info = RunInfo()
        for name, origin in self.info.origin.items():
            info.set(name, getattr(self.info, name), origin, override=True)
        return info
