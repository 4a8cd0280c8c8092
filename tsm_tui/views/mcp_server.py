"""``tsm-watch mcp``: the stability monitor as a Model Context Protocol server over stdio,
with the official MCP Python SDK (``pip install 'tsm-tui[mcp]'``; the rest of tsm-watch
never imports it).

The tools are views/agent_tools.py's (no second engine). This module is the protocol
around them: tool names, typed parameters (the input schema the client sees), read-only
annotations, and errors. Every input error is a tool error (``isError``) whose text is
the one line the command line prints for it (``core.errors.error_line``); arguments
that do not fit the input schema get one line naming the argument. The SDK is 2.x
(``mcp.server.mcpserver.MCPServer``, FastMCP's successor).
"""

import functools
import sys
from contextlib import asynccontextmanager
from typing import Any, Literal

from tsm_tui import __version__
from tsm_tui.core.errors import UsageError, error_line
from tsm_tui.core.sanitize import message
from tsm_tui.views.agent_tools import ALERTS_LIMIT, MAX_POINTS, OVERRIDES, SERIES_POINTS, Tools

NAME = "tsm-watch"
INSTRUCTIONS = (
    "Training stability monitor: reads ML training logs (read-only) and judges loss spikes, divergence, "
    "gradient norm, LR schedule, batch size, plateaus, NaN/Inf, fp16 loss scale, checkpoints and output "
    "collapse, with concrete actions. Paths are on this machine (relative ones: to the server's working "
    "directory). Start with report(path) (or list_runs(path) "
    "for a directory of runs); alerts() and series() look closer; preflight() checks a config before a run; "
    "watch() / watch_status() follow a live run. A check at SKIP could not judge: coverage.skipped says why, "
    "and coverage.nothing_judged true means no verdict on the training at all."
)


def _sdk():
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
        from mcp.types import CallToolResult, TextContent, ToolAnnotations
    except ImportError:
        raise UsageError("tsm-watch mcp needs the MCP Python SDK 2.x: pip install 'tsm-tui[mcp]'") from None
    return MCPServer, ToolError, UnexpectedToolError, CallToolResult, TextContent, ToolAnnotations


def _validation_line(tool: str, exc) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err.get("loc", ()))
        parts.append(f"argument {loc}: {err.get('msg', 'invalid')}" if loc else str(err.get("msg")))
    return message(f"tsm-watch: {tool}: " + "; ".join(parts))


def build(parse, preflight_json):
    """The server (not started) and its Tools. ``parse``: the CLI's ``cli.parse``;
    ``preflight_json(opts)``: ``--preflight --json``'s object."""
    MCPServer, ToolError, UnexpectedToolError, CallToolResult, TextContent, ToolAnnotations = _sdk()
    from pydantic import ValidationError

    from tsm_tui.views.tui.series import SeriesStore  # (the metric names; plain Python)

    tools = Tools(parse, preflight_json)

    class CliError(ToolError):
        """An input error: its text is the command line's one line."""

    class Server(MCPServer):
        async def call_tool(self, name, arguments, context=None):
            try:
                return await super().call_tool(name, arguments, context)
            except UnexpectedToolError:
                raise
            except ToolError as e:
                line = None
                x = e
                while x is not None and line is None:
                    if isinstance(x, CliError):
                        line = str(x)
                    elif isinstance(x, ValidationError):
                        line = _validation_line(name, x)
                    x = x.__cause__
                if line is None:
                    raise
                return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)

    @asynccontextmanager
    async def lifespan(_server):
        try:
            yield {}
        finally:
            tools.close()  # watches stop with the server

    server = Server(NAME, instructions=INSTRUCTIONS, version=__version__, lifespan=lifespan, log_level="WARNING")
    ro = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
    live = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=False, openWorldHint=False)

    def guard(fn):
        @functools.wraps(fn)
        def call(*a, **k):
            try:
                return fn(*a, **k)
            except Exception as e:  # noqa: BLE001 - every error is the CLI's one line
                raise CliError(message(error_line(e))) from e

        return call

    metrics = ", ".join(n for n, _ in SeriesStore.METRICS)
    series_doc = (
        f"A downsampled window of one metric of a run ({metrics}) from its source file: rows of "
        "[step_lo, step_hi, min, max, last, nonfinite] per bucket, min and max kept so a one-step "
        f"spike is never averaged away. start / end: steps (default: the whole run); points: buckets "
        f"(default {SERIES_POINTS}, at most {MAX_POINTS})."
    )
    preflight_doc = (
        "Pre-flight checks of a planned run's config (a config file or a directory of them): "
        "exactly `tsm-watch --preflight PATH --json` (checks with status, summary, reference, "
        f"actions; config; sources). overrides: {', '.join(OVERRIDES)} (win over the files, as the "
        "command-line flags do; params and batch_tokens take 125M, 7B, 0.5M)."
    )

    @server.tool(annotations=ro)
    @guard
    def list_runs(path: str) -> dict[str, Any]:
        """The runs under a path (a sweep, lightning_logs/, wandb/, mlruns/, a job's rank logs), failing runs
        first: each with its verdict (FAIL, WARN, PASS, NOT JUDGED, ERROR), critical / warning counts, its
        worst check, first / last / planned step, log format and source file, and age_s (seconds since the
        source file was written)."""
        return tools.list_runs(path)

    @server.tool(annotations=ro)
    @guard
    def report(
        path: str, run: str | None = None, threshold: float | None = None, window: int | None = None
    ) -> dict[str, Any]:
        """The Training Stability Report of a log file or run directory: exactly `tsm-watch PATH --report
        --json` (schema 1: checks with status PASS/WARN/FAIL/SKIP and summary, alerts with actions,
        critical, warnings, actions, sources, coverage). A path holding several runs gives the runs shape
        (kind "runs") unless `run` names one. threshold: gradient-norm threshold (default 1.0); window:
        records in the rolling baseline (default 100). At most 50 alerts per run (alerts_omitted counts
        the rest: the alerts tool has them all)."""
        return tools.report(path, run, threshold, window)

    @server.tool(annotations=ro)
    @guard
    def alerts(
        path: str,
        run: str | None = None,
        since_step: int | None = None,
        severity: Literal["critical", "warning", "info"] | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """The alerts of a run, newest first, each with check, severity, step, value, baseline, message and
        actions. since_step: only alerts at or after this step; severity: this severity or worse;
        limit: at most this many (default 100; omitted counts the rest)."""
        return tools.alerts(path, run, since_step, severity, limit)

    @server.tool(annotations=ro, description=series_doc)
    @guard
    def series(
        path: str,
        metric: str,
        run: str | None = None,
        start: int | None = None,
        end: int | None = None,
        points: int | None = None,
    ) -> dict[str, Any]:
        return tools.series(path, metric, run, start, end, points)

    @server.tool(annotations=ro, description=preflight_doc)
    @guard
    def preflight(path_or_config: str, overrides: dict[str, float | int | str] | None = None) -> dict[str, Any]:
        return tools.preflight(path_or_config, overrides)

    @server.tool(annotations=live)
    @guard
    def watch(path: str, run: str | None = None) -> dict[str, Any]:
        """Start following a live run (a log file, a run directory, or a directory of runs; it may not exist
        yet if its parent does) in the server, as `tsm-watch PATH --follow` does. Returns a handle for
        watch_status. Stops with the server or with watch_stop."""
        return tools.watch(path, run)

    @server.tool(annotations=live)
    @guard
    def watch_status(handle: str) -> dict[str, Any]:
        """What is new in a watched run since the last call: events (alert, status change, source note; the
        history present at the start comes first, marked backlog), each run's current checks and last
        step, whether the history has been read (caught_up), and an error if following stopped."""
        return tools.watch_status(handle)

    @server.tool(annotations=live)
    @guard
    def watch_stop(handle: str) -> dict[str, Any]:
        """Stop following a watched run; returns its last status."""
        return tools.watch_stop(handle)

    return server, tools


def main(parse, preflight_json) -> int:
    """``tsm-watch mcp``: serve over stdio until the client closes the connection."""
    server, tools = build(parse, preflight_json)
    if sys.stdin.isatty():
        print(
            "tsm-watch mcp: a Model Context Protocol server on stdin / stdout, for an MCP client to start "
            "(README: MCP); Ctrl-C ends it. A directory named mcp: tsm-watch ./mcp",
            file=sys.stderr,
        )
    try:
        server.run("stdio")
    finally:
        tools.close()
    return 0


__all__ = ["build", "main", "NAME", "ALERTS_LIMIT"]
