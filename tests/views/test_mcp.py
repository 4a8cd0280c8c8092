"""``tsm-watch mcp``: the MCP server driven by the official SDK's own client, in-process
(initialize, list tools, every tool on sample_runs/ and a growing log for ``watch``,
malformed arguments, paths that do not exist) and over stdio (the real command). Its
answers are the command line's: the same JSON, the same one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver")

from mcp import Client, StdioServerParameters  # noqa: E402

from tsm_tui.cli import _preflight_json, main, parse  # noqa: E402
from tsm_tui.views import agent_tools  # noqa: E402
from tsm_tui.views.mcp_server import build  # noqa: E402
from helpers.wait import await_until
from helpers import paths

ROOT = paths.ROOT
SAMPLES = os.path.join(ROOT, "sample_runs")
SPIKE = os.path.join(SAMPLES, "spike_no_recover")
TOOLS = {"list_runs", "report", "alerts", "series", "preflight", "watch", "watch_status", "watch_stop"}


def _session(fn, server=None):
    """Run ``fn(client)`` against a fresh in-process server (initialize handshake)."""
    server, tools = server or build(parse, _preflight_json)
    out = {}

    async def go():
        async with Client(server, mode="legacy") as c:
            out["v"] = await fn(c)

    anyio.run(go)
    return out["v"], tools


def _call(name: str, args: dict):
    async def fn(c):
        return await c.call_tool(name, args)

    r, _ = _session(fn)
    return r


def _ok(r) -> dict:
    assert not r.is_error, r.content
    assert r.structured_content is not None
    # the text content is the same object (for clients that read text)
    assert json.loads(r.content[0].text) == r.structured_content
    return r.structured_content


def _err(r) -> str:
    assert r.is_error and r.structured_content is None
    text = r.content[0].text
    assert "\n" not in text and "\x1b" not in text
    return text


def _cli_json(capsys, *args) -> dict:
    main(list(args))
    return json.loads(capsys.readouterr().out)


def _cli_err(capsys, *args) -> str:
    assert main(list(args)) == 2
    return capsys.readouterr().err.strip()


# ----------------------------------------------------------------------------- the protocol


def test_initialize_and_list_tools():
    async def fn(c):
        return c.server_info, c.instructions, await c.list_tools()

    (info, instructions, listed), _ = _session(fn)
    assert info.name == "tsm-watch"
    assert "read-only" in instructions
    by = {t.name: t for t in listed.tools}
    assert set(by) == TOOLS
    for t in listed.tools:
        assert t.annotations.read_only_hint is True and t.annotations.destructive_hint is False
        assert t.description and t.output_schema["type"] == "object"
    assert by["report"].input_schema["required"] == ["path"]
    assert set(by["report"].input_schema["properties"]) == {"path", "run", "threshold", "window"}
    assert set(by["alerts"].input_schema["properties"]) >= {"path", "run", "since_step", "severity"}
    assert set(by["series"].input_schema["properties"]) >= {"path", "metric", "run", "start", "end", "points"}
    assert set(by["preflight"].input_schema["properties"]) == {"path_or_config", "overrides"}
    assert "loss, grad_norm, lr" in by["series"].description  # (from the TUI's series store)


# ----------------------------------------------------------------------------- the tools


def test_report_is_the_command_lines_json(capsys):
    d = _ok(_call("report", {"path": SPIKE}))
    assert d == _cli_json(capsys, SPIKE, "--report", "--json")
    assert (
        d["critical"] == 2 and d["coverage"]["ran"]
    )  # the spike's divergence and the LR jump held and d["sources"]["loss"]["key"] == "lm loss"
    # thresholds go through the command line's flags
    d2 = _ok(_call("report", {"path": SPIKE, "threshold": 5, "window": 50}))
    assert d2 == _cli_json(capsys, SPIKE, "--report", "--json", "--threshold", "5", "--window", "50")
    assert d2 != d


def test_report_of_a_directory_and_of_one_run_in_it(capsys):
    d = _ok(_call("report", {"path": SAMPLES}))
    assert d["kind"] == "runs" and d == _cli_json(capsys, SAMPLES, "--report", "--json")
    one = _ok(_call("report", {"path": SAMPLES, "run": "healthy"}))
    assert one == _cli_json(capsys, SAMPLES, "--report", "--json", "--run", "healthy")
    assert one["critical"] == 0


def test_report_caps_alerts_and_says_so(monkeypatch, capsys):
    full = _cli_json(capsys, SPIKE, "--report", "--json")
    assert len(full["alerts"]) > 3
    monkeypatch.setattr(agent_tools, "REPORT_ALERTS", 3)
    d = _ok(_call("report", {"path": SPIKE}))
    assert len(d["alerts"]) == 3 and d["alerts_omitted"] == len(full["alerts"]) - 3


def test_list_runs(capsys):
    d = _ok(_call("list_runs", {"path": SAMPLES}))
    cli = _cli_json(capsys, SAMPLES, "--report", "--json")
    assert {r["run"] for r in d["runs"]} == {r["run"] for r in cli["runs"]}
    by = {r["run"]: r for r in cli["runs"]}
    order = {"FAIL": 0, "WARN": 1}
    ranks = [order.get(r["verdict"], 2) for r in d["runs"]]
    assert ranks == sorted(ranks)  # failing runs first
    for r in d["runs"]:
        c = by[r["run"]]
        assert (r["critical"], r["warnings"], r["last_step"]) == (c["critical"], c["warnings"], c["steps"]["last"])
        want = "FAIL" if c["critical"] else "WARN" if c["warnings"] else "PASS"
        assert r["verdict"] == want
        assert r["age_s"] >= 0 and r["source"] == next(f["path"] for f in c["files"] if f["used"])
        assert r["worst"]["status"] in ("FAIL", "WARN", "PASS", "SKIP")


def test_alerts_newest_first_and_filters(capsys):
    cli = _cli_json(capsys, SPIKE, "--report", "--json")
    d = _ok(_call("alerts", {"path": SPIKE}))
    assert d["total"] == len(cli["alerts"])
    steps = [a["step"] for a in d["alerts"]]
    assert steps == sorted(steps, reverse=True)
    assert sorted(map(json.dumps, d["alerts"])) == sorted(map(json.dumps, cli["alerts"]))
    assert all(a["actions"] is not None for a in d["alerts"])
    crit = _ok(_call("alerts", {"path": SPIKE, "severity": "critical"}))
    assert [a["severity"] for a in crit["alerts"]] == [
        a["severity"] for a in cli["alerts"] if a["severity"] == "critical"
    ]
    assert crit["alerts"]
    warn = _ok(_call("alerts", {"path": SPIKE, "severity": "warning"}))
    assert {a["severity"] for a in warn["alerts"]} == {"critical", "warning"}
    late = _ok(_call("alerts", {"path": SPIKE, "since_step": 1100}))
    assert late["alerts"] and all(a["step"] >= 1100 for a in late["alerts"])
    few = _ok(_call("alerts", {"path": SPIKE, "limit": 2}))
    assert len(few["alerts"]) == 2 and few["omitted"] == d["total"] - 2 and few["alerts"] == d["alerts"][:2]
    many = _ok(_call("alerts", {"path": SAMPLES, "severity": "critical"}))
    assert {a["run"] for a in many["alerts"]} >= {"spike_no_recover", "nan_divergence"}


def _lm_losses():
    with open(os.path.join(SPIKE, "train.log")) as f:
        return [(int(m[1]), float(m[2])) for m in re.finditer(r"iteration\s+(\d+)/.*?lm loss: ([0-9.Ee+-]+)", f.read())]


def test_series_keeps_the_spike():
    vals = _lm_losses()
    d = _ok(_call("series", {"path": SPIKE, "metric": "loss", "points": 8}))
    assert d["columns"] == ["step_lo", "step_hi", "min", "max", "last", "nonfinite"]
    pts = d["points"]
    assert 1 <= len(pts) <= 8 and d["source"].endswith("train.log")
    assert pts[0][0] == vals[0][0] and pts[-1][1] == vals[-1][0]
    assert all(a[1] < b[0] for a, b in zip(pts, pts[1:]))  # buckets in order, not overlapping
    peak_step, peak = max(vals, key=lambda sv: sv[1])
    col = next(p for p in pts if p[0] <= peak_step <= p[1])
    assert col[3] == pytest.approx(peak)  # the spike is the bucket's max, never averaged away
    assert d["max"] == pytest.approx(peak) and d["count"] == len(vals)
    for lo, hi, mn, mx, _last, bad in pts:
        inside = [v for s, v in vals if lo <= s <= hi]
        assert mn == pytest.approx(min(inside)) and mx == pytest.approx(max(inside)) and bad == 0
    win = _ok(_call("series", {"path": SPIKE, "metric": "loss", "start": 900, "end": 1000, "points": 1000}))
    assert win["points"][0][0] >= 900 and win["points"][-1][1] <= 1000
    assert [p[2] for p in win["points"]] == pytest.approx([v for s, v in vals if 900 <= s <= 1000])


def test_series_of_a_metric_the_log_lacks_and_of_several_runs():
    d = _ok(_call("series", {"path": os.path.join(SAMPLES, "healthy"), "metric": "loss_scale"}))
    assert d["points"] == [] and "no loss_scale" in d["note"]
    err = _err(_call("series", {"path": SAMPLES, "metric": "loss"}))
    assert err.startswith(f"tsm-watch: {SAMPLES} holds ") and "name one with run" in err
    one = _ok(_call("series", {"path": SAMPLES, "metric": "grad_norm", "run": "nan_divergence"}))
    assert any(p[5] for p in one["points"])  # NaN grad norms are counted where they happened


def test_preflight_is_the_command_lines_json(capsys):
    cfg = os.path.join(SAMPLES, "healthy", "config.json")
    d = _ok(_call("preflight", {"path_or_config": cfg}))
    assert d == _cli_json(capsys, "--preflight", cfg, "--json")
    d7 = _ok(_call("preflight", {"path_or_config": cfg, "overrides": {"params": "7B", "total_steps": 3000}}))
    assert d7 == _cli_json(capsys, "--preflight", cfg, "--json", "--params", "7B", "--total-steps", "3000")
    assert d7["config"]["params"] == 7e9


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "tool,args,cli",
    [
        ("report", {"path": "/no/such/run"}, ["/no/such/run", "--report"]),
        ("list_runs", {"path": "/no/such/run"}, ["/no/such/run", "--report"]),
        ("alerts", {"path": "/no/such/run"}, ["/no/such/run", "--report"]),
        ("series", {"path": "/no/such/run", "metric": "loss"}, ["/no/such/run", "--report"]),
        ("preflight", {"path_or_config": "/no/such/config.yaml"}, ["--preflight", "/no/such/config.yaml"]),
        ("watch", {"path": "/no/such/dir/run"}, ["/no/such/dir/run", "--follow"]),
        ("report", {"path": SPIKE, "threshold": -1}, [SPIKE, "--report", "--threshold", "-1"]),
        ("report", {"path": SPIKE, "window": 0}, [SPIKE, "--report", "--window", "0"]),
        ("report", {"path": SAMPLES, "run": "nope"}, [SAMPLES, "--report", "--run", "nope"]),
        (
            "preflight",
            {"path_or_config": os.path.join(SAMPLES, "healthy"), "overrides": {"params": "lots"}},
            ["--preflight", os.path.join(SAMPLES, "healthy"), "--params", "lots"],
        ),
    ],
)
def test_input_errors_are_the_command_lines_one_line(tool, args, cli, capsys):
    assert _err(_call(tool, args)) == _cli_err(capsys, *cli)


@pytest.mark.parametrize(
    "tool,args,want",
    [
        ("report", {}, "tsm-watch: report: argument path: Field required"),
        ("report", {"path": 3}, "tsm-watch: report: argument path: Input should be a valid string"),
        ("report", {"path": SPIKE, "threshold": "high"}, "tsm-watch: report: argument threshold: Input should be"),
        ("alerts", {"path": SPIKE, "severity": "fatal"}, "tsm-watch: alerts: argument severity: Input should be"),
        ("alerts", {"path": SPIKE, "limit": 0}, "tsm-watch: limit must be a positive integer: 0"),
        ("series", {"path": SPIKE, "metric": "accuracy"}, "tsm-watch: metric: choose from loss, grad_norm, lr"),
        ("series", {"path": SPIKE, "metric": "loss", "points": 0}, "tsm-watch: points must be 1-2000: 0"),
        ("series", {"path": SPIKE, "metric": "loss", "start": 10, "end": 5}, "tsm-watch: end (5) is before start (10)"),
        ("preflight", {"path_or_config": SPIKE, "overrides": {"lr": 1}}, "tsm-watch: overrides: unknown key 'lr'"),
        ("preflight", {"path_or_config": SPIKE, "overrides": [1]}, "tsm-watch: preflight: argument overrides: "),
        ("watch_status", {"handle": "w99"}, "tsm-watch: no watch 'w99' (watches: none)"),
        ("report", {"path": ""}, "tsm-watch: path is required"),
    ],
)
def test_malformed_arguments_are_one_line_tool_errors(tool, args, want):
    assert _err(_call(tool, args)).startswith(want)


def test_unknown_tool_is_a_tool_error():
    r = _call("delete_run", {"path": SPIKE})
    assert r.is_error and "delete_run" in r.content[0].text


# ----------------------------------------------------------------------------- watch


def _jsonl(path, steps, nan_at=None):
    with open(path, "a") as f:
        for s in steps:
            loss = "NaN" if s == nan_at else f"{2.0 + 6.0 * 2.718 ** (-s / 300):.4f}"
            f.write(f'{{"step": {s}, "loss": {loss}, "grad_norm": 0.5, "lr": 0.0003}}\n')
            f.flush()


def _until(c, handle, pred, seconds=30.0):
    """Poll watch_status until ``pred(events, status)``; every event seen is collected."""
    seen: list = []

    async def look():
        st = _ok(await c.call_tool("watch_status", {"handle": handle}))
        seen.extend(st["events"])
        return st if pred(seen, st) else None

    async def go():
        return await await_until(look, seconds, lambda: f"watch_status: {seen[-5:]}", every=0.2, pause=anyio.sleep)

    return go(), seen


def test_watch_a_growing_log(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    log = run / "metrics.jsonl"
    _jsonl(log, range(1, 301))
    server, tools = build(parse, _preflight_json)

    async def fn(c):
        w = _ok(await c.call_tool("watch", {"path": str(run)}))
        h = w["handle"]
        assert w["runs"] == ["run"]
        coro, seen = _until(c, h, lambda ev, st: st["caught_up"] and st["records"] >= 300)
        st = await coro
        assert st["running"] and st["runs"]["run"]["last_step"] == 300
        assert any(e["event"] == "source" for e in seen)
        checks = {x["id"]: x["status"] for x in st["runs"]["run"]["checks"]}
        assert checks.get("nonfinite") == "PASS"
        # the run goes on and breaks: a NaN loss arrives while watching
        writer = threading.Thread(target=_jsonl, args=(log, range(301, 321)), kwargs={"nan_at": 315})
        writer.start()
        writer.join()
        # waits for the last record too: the alert can come out while 316..320 are still unread
        coro, seen2 = _until(
            c,
            h,
            lambda ev, st: (
                st["records"] >= 320 and any(e["event"] == "alert" and e["check"] == "nonfinite" for e in ev)
            ),
        )
        st2 = await coro
        nan = next(e for e in seen2 if e["event"] == "alert" and e["check"] == "nonfinite")
        assert nan["step"] == 315 and nan["severity"] == "critical" and nan["actions"] and nan["backlog"] is False
        assert nan["run"] == "run" and st2["records"] == 320
        # nothing is said twice: a second poll has only what is new
        again = _ok(await c.call_tool("watch_status", {"handle": h}))
        assert not any(e["event"] == "alert" and e["step"] == 315 for e in again["events"])
        return h

    h, _ = _session(fn, (server, tools))
    # the watch stopped with the server
    assert tools._watches == {}
    assert not any(t.name == f"tsm-watch {h}" and t.is_alive() for t in threading.enumerate())


@pytest.mark.slow
def test_watch_stop_and_the_limit_of_watches(tmp_path, monkeypatch):
    monkeypatch.setattr(agent_tools, "MAX_EVENTS", 5)
    monkeypatch.setattr(agent_tools, "MAX_WATCHES", 2)
    runs = []
    for i in range(3):
        d = tmp_path / f"r{i}"
        d.mkdir()
        _jsonl(d / "m.jsonl", range(1, 200), nan_at=150 if i == 0 else None)
        runs.append(str(d))

    async def fn(c):
        a = _ok(await c.call_tool("watch", {"path": runs[0]}))["handle"]
        b = _ok(await c.call_tool("watch", {"path": runs[1]}))["handle"]
        full = _err(await c.call_tool("watch", {"path": runs[2]}))
        assert full == "tsm-watch: 2 runs are watched already: stop one with watch_stop"
        coro, _ = _until(c, a, lambda ev, st: st["caught_up"] and st["records"] >= 199)
        await coro
        stopped = _ok(await c.call_tool("watch_stop", {"handle": a}))
        assert stopped["stopped"] is True and stopped["running"] is False
        assert _err(await c.call_tool("watch_status", {"handle": a})).startswith("tsm-watch: no watch 'w1'")
        c3 = _ok(await c.call_tool("watch", {"path": runs[2]}))["handle"]
        await _until(c, c3, lambda ev, st: st["caught_up"])[0]
        return b

    _, tools = _session(fn)
    assert tools._watches == {}


def test_watch_events_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(agent_tools, "MAX_EVENTS", 3)
    d = tmp_path / "r"
    d.mkdir()
    _jsonl(d / "m.jsonl", range(1, 400), nan_at=100)
    with open(d / "m.jsonl", "a") as f:  # many NaN records: more events than the bound
        for s in range(400, 460):
            f.write(f'{{"step": {s}, "loss": NaN, "grad_norm": NaN, "lr": 0.0003}}\n')

    async def fn(c):
        h = _ok(await c.call_tool("watch", {"path": str(d)}))["handle"]
        polls = []
        for _ in range(150):
            st = _ok(await c.call_tool("watch_status", {"handle": h}))
            polls.append(st)
            if st["caught_up"] and st["records"] >= 459:
                return polls
            await anyio.sleep(0.2)
        raise AssertionError("not caught up")

    polls, _ = _session(fn)
    # never more than MAX_EVENTS undelivered; what did not fit is counted, not silently lost
    assert max(len(p["events"]) for p in polls) <= 3
    assert sum(p.get("dropped", 0) for p in polls) > 0
    assert sum(p.get("dropped", 0) + len(p["events"]) for p in polls) >= polls[-1]["alerts_total"]


# ----------------------------------------------------------------------------- stdio and the extra


@pytest.mark.slow
def test_stdio_server_is_the_real_command():
    params = StdioServerParameters(command=sys.executable, args=["-m", "tsm_tui", "mcp"], cwd=ROOT)
    out = {}

    async def go():
        async with Client(params, mode="legacy", read_timeout_seconds=120) as c:
            out["info"] = c.server_info
            out["tools"] = {t.name for t in (await c.list_tools()).tools}
            out["report"] = await c.call_tool("report", {"path": "sample_runs/spike_no_recover"})
            out["err"] = await c.call_tool("report", {"path": "nope"})

    anyio.run(go)
    assert out["info"].name == "tsm-watch" and out["tools"] == TOOLS
    assert _ok(out["report"])["critical"] == 2
    assert _err(out["err"]) == "tsm-watch: no such file or directory: nope"


def test_mcp_takes_no_arguments(capsys):
    assert main(["mcp", "--report"]) == 2
    assert capsys.readouterr().err.strip() == (
        "tsm-watch: tsm-watch mcp takes no arguments (for a directory named "
        "mcp: tsm-watch ./mcp) (see tsm-watch --help)"
    )


def test_without_the_sdk_mcp_says_how_to_install_and_the_rest_works():
    code = (
        "import sys\n"
        "sys.modules['mcp'] = None\n"
        "from tsm_tui.cli import main\n"
        "rc = main(['sample_runs/healthy', '--report', '--format', 'sarif'])\n"
        "assert rc == 0, rc\n"
        "sys.exit(main(['mcp']))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip() == (
        "tsm-watch: tsm-watch mcp needs the MCP Python SDK 2.x: pip install 'tsm-tui[mcp]' (see tsm-watch --help)"
    )
    assert json.loads(p.stdout)["version"] == "2.1.0"
