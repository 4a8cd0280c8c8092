"""``--metrics-port`` under slow and half-open clients (issue 33 item 3): a bounded
server, never starved, never taking the descriptors the tailer needs. Real
sockets, a real ``tsm-watch --follow`` under ``ulimit -n 512``."""

from __future__ import annotations

import json
import os
import socket
import sys
import time

import pytest
import urllib.request

from helpers.follow import record, write_lines
from helpers.proc import spawn, stop
from helpers.wait import poll_until, wait_until
from tsm_tui.views import metrics_server
from tsm_tui.views.metrics_server import MetricsServer

# a port picked free and then handed to a child: on the xdist worker of test_prometheus.py
pytestmark = pytest.mark.xdist_group("ports")
LIMITED = (
    "import os, resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512)); "
    "os.execv(sys.executable, [sys.executable, '-m', 'tsm_tui', *sys.argv[1:]])"
)


def get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def half_open(port: int, n: int) -> list[socket.socket]:
    """``n`` connections that never send a byte."""
    out = []
    for _ in range(n):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
        except OSError:
            s.close()
            continue
        out.append(s)
    return out


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.slow
def test_600_half_open_connections_under_ulimit_512_neither_starve_scrapes_nor_the_tailer(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    log = run / "train.log"
    write_lines(log, [record(s) for s in range(1, 101)], "w")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    o = spawn([sys.executable, "-c", LIMITED, str(run), "--follow", "--json", "--metrics-port", str(port)])
    p, out, err = o.p, o.out, o.err
    socks: list[socket.socket] = []
    try:
        wait_until(
            lambda: any("serving metrics" in x for x in out),
            20,
            lambda: f"'serving metrics' ({err})",
            alive=lambda: p.poll() is None,
        )
        socks = half_open(port, 600)
        assert len(socks) >= 550  # (the server accepts them all; it keeps the newest 32)
        t0 = time.monotonic()
        for _ in range(5):  # scrapes still answer, promptly
            status, body = get(f"http://127.0.0.1:{port}/metrics")
            assert status == 200 and "tsm_last_step" in body
        assert time.monotonic() - t0 < 5
        assert fds(p.pid) < 40 + metrics_server.MAX_CONNECTIONS, sorted(os.listdir(f"/proc/{p.pid}/fd"))
        # the log rotates and the new file carries a NaN: the tailer can still open it
        os.rename(log, run / "train.log.1")
        write_lines(log, [record(101), dict(record(102), loss=float("nan"))], "w")
        poll_until(lambda: any('"nonfinite"' in x and '"alert"' in x for x in out), 15)
        alerts = [json.loads(x) for x in out if '"alert"' in x and '"nonfinite"' in x]
        assert alerts and alerts[0]["step"] == 102, (out[-5:], err[-5:])
        socks += half_open(port, 100)  # more of them, while the run is being followed
        want = 'tsm_check_status{check="nonfinite",run="run"} 2.0'
        # (the exporter rebuilds at most once a second)
        wait_until(lambda: want in get(f"http://127.0.0.1:{port}/metrics")[1], 10, want, every=0.2)
        assert not any("Too many open files" in x for x in out + err), err
    finally:
        for s in socks:
            s.close()
        rc = stop(o, timeout=20)
    assert rc == 0 and not any("Traceback" in x for x in err), err


def test_a_client_that_sends_nothing_or_never_reads_is_dropped_after_the_timeout(monkeypatch):
    monkeypatch.setattr(metrics_server, "REQUEST_TIMEOUT", 0.5)
    body = b"x" * (8 << 20)  # more than the socket buffers hold: a client that does not read blocks the send
    srv = MetricsServer("127.0.0.1", 0, lambda accept: (body, "text/plain"))
    port = srv.server_address[1]
    try:
        silent = socket.create_connection(("127.0.0.1", port))
        stuck = socket.create_connection(("127.0.0.1", port))
        stuck.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")  # ... and never reads
        wait_until(lambda: srv.open_connections == 2, 5, "both connections open")
        wait_until(lambda: srv.open_connections == 0 and srv.dropped == 2, 2, "both dropped after the 0.5 s timeout")
        assert silent.recv(10) == b""  # closed by the server
        status, got = get(f"http://127.0.0.1:{port}/metrics")  # a reader that reads is served
        assert status == 200 and len(got) == len(body)
        silent.close()
        stuck.close()
    finally:
        srv.shutdown()
        srv.server_close()


def test_connections_beyond_the_cap_drop_the_oldest_and_scrapes_go_through():
    srv = MetricsServer("127.0.0.1", 0, lambda accept: (b"tsm_up 1\n", "text/plain; version=0.0.4"))
    port = srv.server_address[1]
    socks = half_open(port, 3 * metrics_server.MAX_CONNECTIONS)
    try:
        time.sleep(0.3)
        assert srv.open_connections <= metrics_server.MAX_CONNECTIONS
        for _ in range(3):
            assert get(f"http://127.0.0.1:{port}/metrics") == (200, "tsm_up 1\n")
        assert srv.served == 3
    finally:
        for s in socks:
            s.close()
        srv.shutdown()


def test_openmetrics_when_asked_and_methods(tmp_path):
    from tsm_tui.views import prometheus

    exp = prometheus.Exporter(None, port=0)
    try:
        exp.run("r", str(tmp_path))
        exp.publish(force=True)
        req = urllib.request.Request(
            f"http://127.0.0.1:{exp.port}/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"}
        )
        with urllib.request.urlopen(req, timeout=5) as r:
            assert r.headers["Content-Type"].startswith("application/openmetrics-text")
            assert r.read().decode().rstrip().endswith("# EOF")
        status, text = get(f"http://127.0.0.1:{exp.port}/metrics")
        assert status == 200 and 'tsm_following{run="r"} 1.0' in text
        with socket.create_connection(("127.0.0.1", exp.port)) as s:
            s.sendall(b"POST /metrics HTTP/1.0\r\n\r\n")
            assert s.recv(100).startswith(b"HTTP/1.0 405")
    finally:
        exp.close()
