"""What the MCP server's tools answer (``tsm-watch mcp``; views/mcp_server.py is the
protocol around them). No second engine: every answer comes from the code the command
line runs.

* Arguments become a command line and go through the CLI's own parser (``parse``,
  handed over by ``tsm_tui.cli``): the same flags, the same checks, the same one-line
  messages (``core.errors.error_line``).
* ``report``, ``list_runs``, ``alerts`` and ``series`` read the runs with
  ``replay.analyze_runs`` exactly as ``--report`` does; ``report`` returns the report's
  JSON (schema 1) as ``--report --json`` prints it; ``preflight`` returns
  ``--preflight --json``'s object (through the CLI's pre-flight, handed over too:
  views do not import the pre-flight layer).
* ``series`` keeps the metric in the TUI's bounded min / max buckets (views/tui/series.py):
  every bucket keeps its minimum and maximum, so a one-step spike is never averaged
  away, whatever the run's length.
* ``watch`` follows a live run with the ``LiveLoop`` ``--follow`` uses (built by
  analysis/live_open.py), in a thread of the server; ``watch_status`` returns what is new since the
  last call. Memory is bounded (at most ``MAX_EVENTS`` undelivered events per watch, the
  oldest dropped and counted; at most ``MAX_WATCHES`` watches); watches stop with the
  server (``close``).

Results are plain JSON values: no ANSI, no padding; log text is cleaned of control and
bidi characters as in every other view. Nothing here writes anywhere: the server is as
read-only as the command line.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from typing import Any

from tsm_tui.analysis.coverage import coverage
from tsm_tui.analysis.replay import Analysis, RunFailure, analyze_runs
from tsm_tui.core.errors import InputError
from tsm_tui.core.output import dumps
from tsm_tui.core.sanitize import clean
from tsm_tui.sources.base import channel_file
from tsm_tui.views import report as rep

REPORT_ALERTS = 50  # alerts per run in ``report`` (the ``alerts`` tool has them all, newest first)
ALERTS_LIMIT = 100  # default ``limit`` of ``alerts``
SERIES_POINTS = 200  # default ``points`` of ``series``
MAX_POINTS = 2000
MAX_WATCHES = 8
MAX_EVENTS = 1000  # undelivered events kept per watch (alerts, status changes, notes)
TICK = 1.0  # s: longest sleep of a watch's loop (the feed wakes it when data arrive)
_SEV = {"critical": 0, "warning": 1, "info": 2}
#: pre-flight overrides -> the flags that set them
OVERRIDES = {
    "total_steps": "--total-steps",
    "warmup_steps": "--warmup-steps",
    "params": "--params",
    "batch_tokens": "--batch-tokens",
    "peak_lr": "--peak-lr",
    "config": "--config",
}


def _plain(d: dict) -> dict:
    """The object as the command line prints it (NaN as the strings / null the report uses)."""
    return json.loads(dumps(d))


def _arg(v) -> str:
    """A value as it would be typed (1.0 -> "1", so the parser's messages read as the command line's)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return str(v)


def _flags(pairs) -> list[str]:
    out: list[str] = []
    for flag, v in pairs:
        if v is not None:
            out += [flag, _arg(v)]
    return out


def _need(path: str | None, what: str = "path") -> str:
    if path is None or not str(path).strip():
        raise InputError(f"{what} is required (a log file or a run directory)")
    return str(path)


class Tools:
    """The tools, bound to the command line's parser and pre-flight."""

    def __init__(self, parse, preflight_json) -> None:
        self.parse = parse
        self.preflight_json = preflight_json
        self._watches: dict[str, Watch] = {}
        self._next = 1
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ reading runs
    def _options(self, mode: list[str], path: str, run: str | None = None, extra=()):
        argv = mode + _flags([("--run", run), *extra]) + ["--", _need(path)]
        return self.parse(argv)

    def _analyses(self, path: str, run: str | None = None, extra=(), on_batch=None):
        o = self._options(["--report", "--json"], path, run, extra)
        results = analyze_runs(o.path, o.settings, o.info, o.config, only=o.run, on_batch=on_batch)
        return o, results

    def report(
        self, path: str, run: str | None = None, threshold: float | None = None, window: int | None = None
    ) -> dict:
        o, results = self._analyses(path, run, [("--threshold", threshold), ("--window", window)])
        if len(results) == 1:
            d = rep.json_report(results[0])
            _cap(d)
        else:
            d = rep.json_runs_report(results, os.path.abspath(o.path))
            for r in d["runs"]:
                _cap(r)
        return _plain(d)

    def list_runs(self, path: str) -> dict:
        o, results = self._analyses(path)
        now = time.time()
        runs: list[dict[str, Any]] = []  # JSON rows: a failed run's row has fewer keys
        for r in rep._order(results):
            if isinstance(r, RunFailure):
                runs.append({"run": r.run.name, "path": r.run.path, "verdict": "ERROR", "error": clean(r.reason)})
                continue
            crit, warn = r.counts()
            cov = coverage(r, r.checks())
            verdict = "FAIL" if crit else "WARN" if warn else "NOT JUDGED" if cov["nothing_judged"] else "PASS"
            fi = next((f for f in r.run.files if f.used), None)
            worst = max(r.checks(), key=lambda c: c.status.rank)
            mon = r.monitor
            runs.append(
                {
                    "run": r.run.name,
                    "path": r.run.path,
                    "verdict": verdict,
                    "critical": crit,
                    "warnings": warn,
                    "worst": {"check": worst.id, "status": worst.status.value, "summary": clean(worst.summary)},
                    "first_step": mon.first_step,
                    "last_step": mon.last_step,
                    "planned_steps": mon.planned_steps,
                    "format": fi.format if fi else None,
                    "source": channel_file(r.run.primary)[0] if r.run.primary else None,
                    "age_s": _age(r, now),
                }
            )
        return {"path": os.path.abspath(o.path), "runs": runs}

    def alerts(
        self,
        path: str,
        run: str | None = None,
        since_step: int | None = None,
        severity: str | None = None,
        limit: int | None = None,
    ) -> dict:
        if severity is not None and severity not in _SEV:
            raise InputError(f"severity: choose from critical, warning, info: {severity!r}")
        limit = ALERTS_LIMIT if limit is None else int(limit)
        if limit <= 0:
            raise InputError(f"limit must be a positive integer: {limit}")
        o, results = self._analyses(path, run)
        many = len(results) > 1
        rows = []
        for r in results:
            if not isinstance(r, Analysis):
                continue
            for a in r.alerts():
                if since_step is not None and (a.step is None or a.step < since_step):
                    continue
                if severity is not None and _SEV[a.severity.value] > _SEV[severity]:
                    continue
                d = a.to_json()
                if many:
                    d["run"] = r.run.name
                rows.append(d)
        # newest first: the latest step first; alerts of one step keep their order
        rows = [
            x
            for _, x in sorted(
                enumerate(rows), key=lambda t: (-(t[1]["step"] if t[1]["step"] is not None else -1 << 62), t[0])
            )
        ]
        out = {"path": os.path.abspath(o.path), "total": len(rows), "alerts": rows[:limit]}
        if len(rows) > limit:
            out["omitted"] = len(rows) - limit
        return _plain(out)

    def series(
        self,
        path: str,
        metric: str,
        run: str | None = None,
        start: int | None = None,
        end: int | None = None,
        points: int | None = None,
    ) -> dict:
        from tsm_tui.views.tui.series import Series, SeriesStore  # (plain Python; the TUI package loads Textual)

        names = [n for n, _ in SeriesStore.METRICS]
        if metric not in names:
            raise InputError(f"metric: choose from {', '.join(names)}: {metric!r}")
        points = SERIES_POINTS if points is None else int(points)
        if not 1 <= points <= MAX_POINTS:
            raise InputError(f"points must be 1-{MAX_POINTS}: {points}")
        if start is not None and end is not None and end < start:
            raise InputError(f"end ({end}) is before start ({start})")
        # per (run, source): the one series of a record field, or else the store that keeps all
        one = metric in FIELD_METRICS
        kept: dict[tuple[str, str], Series] = {}
        stores: dict[tuple[str, str], SeriesStore] = {}

        def on_batch(r, source, items, reader) -> None:
            split = getattr(reader, "channels", None)  # a W&B run file: history and console apart
            for src, part, _ in split(items) if split is not None else [(source, items, reader)]:
                key = (r.name, src)
                if one:
                    s = kept.get(key)
                    if s is None:
                        s = kept[key] = Series()
                    for it in part:
                        _feed(s, metric, it)
                    continue
                st = stores.get(key)
                if st is None:
                    st = stores[key] = SeriesStore()
                for it in part:
                    if hasattr(it, "cols"):
                        st.add_frame(it)
                    else:
                        st.add(it)

        o, results = self._analyses(path, run, on_batch=on_batch)
        done = [r for r in results if isinstance(r, Analysis)]
        if len(results) > 1:
            names_ = ", ".join(r.run.name for r in results[:12])
            raise InputError(f"{o.path} holds {len(results)} runs: name one with run (runs: {names_})")
        an = done[0]
        primary = an.run.primary
        assert primary is not None, "analyze_run makes an Analysis only when the run has a primary monitor"
        s: Series | None
        if one:
            s = kept.get((an.run.name, primary))
        else:
            st = stores.get((an.run.name, primary))
            s = st.get(metric) if st is not None else None
        out: dict[str, Any] = {
            "path": an.run.path,
            "run": an.run.name,
            "metric": metric,
            "source": channel_file(primary)[0],
            "columns": ["step_lo", "step_hi", "min", "max", "last", "nonfinite"],
            "points": [],
        }
        if s is None or s.last_step is None:
            out["note"] = f"no {metric} in {out['source']}"
            return out
        win = s.window(start, end, points)
        span = win.hi - win.lo + 1
        n = len(win)
        for c in range(n):
            if win.maxs[c] is None and not win.bad[c]:
                continue  # no record fell in this column
            lo = win.lo + (c * span) // n
            hi = win.lo + ((c + 1) * span) // n - 1
            out["points"].append([lo, hi, win.mins[c], win.maxs[c], win.lasts[c], win.bad[c]])
        out.update(
            {
                "first_step": s.first_step,
                "last_step": s.last_step,
                "count": s.count,
                "min": s.vmin,
                "max": s.vmax,
                "last": s.last,
            }
        )
        return _plain(out)

    def preflight(self, path_or_config: str, overrides: dict | None = None) -> dict:
        extra = []
        for k, v in (overrides or {}).items():
            if k not in OVERRIDES:
                raise InputError(f"overrides: unknown key {k!r} (choose from {', '.join(OVERRIDES)})")
            extra.append((OVERRIDES[k], v))
        o = self._options(["--preflight", "--json"], path_or_config, extra=extra)
        return _plain(self.preflight_json(o))

    # ------------------------------------------------------------------ live
    def watch(self, path: str, run: str | None = None) -> dict:
        with self._lock:
            live = [w for w in self._watches.values() if w.running]
            if len(live) >= MAX_WATCHES:
                raise InputError(f"{MAX_WATCHES} runs are watched already: stop one with watch_stop")
            o = self._options(["--follow", "--json"], path, run)
            handle = f"w{self._next}"
            w = Watch(handle, o)  # opens the run (errors raise here, nothing started)
            self._next += 1
            self._watches[handle] = w
        w.start()
        return {
            "handle": handle,
            "path": os.path.abspath(o.path),
            "runs": w.runs(),
            "note": "poll watch_status(handle) for what is new; watch_stop(handle) ends it",
        }

    def watch_status(self, handle: str) -> dict:
        return self._watch(handle).status()

    def watch_stop(self, handle: str) -> dict:
        w = self._watch(handle)
        w.stop()
        with self._lock:
            self._watches.pop(handle, None)
        return w.status() | {"stopped": True}

    def _watch(self, handle: str) -> "Watch":
        w = self._watches.get(handle)
        if w is None:
            known = ", ".join(self._watches) or "none"
            raise InputError(f"no watch {handle!r} (watches: {known}); start one with watch(path)")
        return w

    def close(self) -> None:
        """Stop every watch (the server is ending)."""
        with self._lock:
            ws = list(self._watches.values())
            self._watches.clear()
        for w in ws:
            w.stop()


FIELD_METRICS = ("loss", "grad_norm", "lr", "loss_scale")


def _feed(s, metric: str, it) -> None:
    """One metric of a record or a Frame into a Series, as ``SeriesStore`` feeds it (a step
    that goes back, a resume, truncates the series: row by row then)."""
    if hasattr(it, "cols"):
        col = it.cols.get(metric)
        if col is None or not it.n:
            return
        st = it.step
        if (s.last_step is not None and st[0] < s.last_step) or (st[1:] < st[:-1]).any():
            for i in range(it.n):
                s.append(int(st[i]), float(col[i]))
        else:
            s.extend(st, col)
        return
    v = getattr(it, metric, None)
    if v is not None:
        s.append(it.step, v)


def _cap(d: dict) -> None:
    n = len(d.get("alerts", ()))
    if n > REPORT_ALERTS:
        d["alerts"] = d["alerts"][:REPORT_ALERTS]
        d["alerts_omitted"] = n - REPORT_ALERTS


def _age(an: Analysis, now: float) -> float | None:
    """Seconds since the run's source file (or its newest rotated part) was written."""
    prim = channel_file(an.run.primary)[0] if an.run.primary else None
    paths = [prim, *an.run.segments.get(prim, ())] if prim else []
    times = []
    for p in paths:
        try:
            times.append(os.stat(p).st_mtime)
        except OSError:
            pass
    return round(max(0.0, now - max(times)), 1) if times else None


class Watch:
    """One live run followed in the server: the LiveLoop ``--follow`` drives, in a thread."""

    def __init__(self, handle: str, opts) -> None:
        from tsm_tui.analysis.live_open import open_loop
        from tsm_tui.sources.tail import Tailer

        self.handle = handle
        self.path = os.path.abspath(opts.path)
        self.tailer = Tailer(opts.path, poll=opts.poll)
        self.loop = open_loop(opts, self.tailer)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._events: deque = deque(maxlen=MAX_EVENTS)
        self.dropped = 0
        self.records = 0
        self.alerts_total = 0
        self.error: str | None = None
        self.checks: dict[str, list] = {}
        self.last_step: dict[str, int | None] = {}
        self._thread = threading.Thread(target=self._run, name=f"tsm-watch {handle}", daemon=True)
        self._push("source", {"message": clean(self.tailer.describe())})

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def runs(self) -> list[str]:
        return sorted(self.loop.runs)

    def start(self) -> None:
        self._thread.start()

    def _push(self, kind: str, d: dict) -> None:
        if len(self._events) == self._events.maxlen:
            self.dropped += 1
        self._events.append({"event": kind, **d})

    def _run(self) -> None:
        loop = self.loop
        try:
            loop.start()
            while not self._stop.is_set():
                up = loop.step()
                with self._lock:
                    self._take(up, loop)
                if up.error:
                    with self._lock:
                        self.error = clean(up.error)
                    break
                loop.wait(TICK)
        except Exception as e:  # noqa: BLE001 - said in watch_status, never the server's end
            with self._lock:
                self.error = clean(f"{type(e).__name__}: {e}")
        finally:
            try:
                loop.stop()
            except Exception:  # noqa: BLE001
                pass

    def _take(self, up, loop) -> None:
        self.records += up.records
        for a, backlog, run in up.alerts:
            self.alerts_total += 1
            d = a.to_json()
            d.update({"run": run, "backlog": backlog})
            self._push("alert", d)
        for ch in up.statuses:
            self._push(
                "status",
                {
                    "run": ch.run,
                    "check": ch.check,
                    "status": ch.status.value,
                    "previous": ch.previous.value,
                    "summary": clean(ch.summary),
                    "step": ch.step,
                },
            )
        for ev, run in zip(up.notes, up.note_runs):
            self._push("source", {"run": run, "message": clean(ev)})
        for run, checks in up.run_checks.items():
            self.checks[run] = [{"id": c.id, "status": c.status.value, "summary": clean(c.summary)} for c in checks]
        for name, r in loop.runs.items():
            self.last_step[name] = r.session.last_step()

    def status(self) -> dict:
        with self._lock:
            events = list(self._events)
            self._events.clear()
            dropped, self.dropped = self.dropped, 0
            out = {
                "handle": self.handle,
                "path": self.path,
                "running": self.running and not self._stop.is_set(),
                "caught_up": self.tailer.caught_up.is_set(),
                "records": self.records,
                "alerts_total": self.alerts_total,
                "error": self.error,
                "runs": {
                    name: {"last_step": self.last_step.get(name), "checks": self.checks.get(name, [])}
                    for name in sorted(set(self.last_step) | set(self.checks))
                },
                "events": events,
            }
        if dropped:
            out["dropped"] = dropped
        return _plain(out)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.tailer.ready.set()  # wake the loop's wait
        if self._thread.is_alive():
            self._thread.join(timeout)


__all__ = ["Tools", "Watch"]
