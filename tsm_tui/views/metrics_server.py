"""The ``--metrics-port`` endpoint: a small HTTP/1.0 server on one thread, bounded.

``prometheus_client``'s server holds one thread per connection with no timeout:
~510 half-open connections take a 512-descriptor limit, its accept loop spins a
core, scrapes time out, and the tailer cannot open a rotated log any more.
This one serves the same exposition (``generate_latest`` / OpenMetrics when asked)
from one ``selectors`` loop with:

- at most ``MAX_CONNECTIONS`` connections held: a new connection beyond it drops
  the oldest one (a scraper sends its request at once; a half-open client is
  what waits longest), so the exporter never holds more than that many
  descriptors, whatever arrives;
- ``REQUEST_TIMEOUT`` seconds per connection, from accept to the last byte of
  the answer (a client that sends nothing, or never reads, is dropped);
- a request head of at most ``MAX_REQUEST`` bytes; one answer per connection
  (``Connection: close``);
- ``accept`` failing for want of descriptors (EMFILE / ENFILE) pauses accepting
  for ``ACCEPT_PAUSE`` seconds instead of spinning on a readable listener.

``render(accept_header) -> (body, content_type)`` is called on this thread and
must only format prebuilt data (``Exporter`` swaps whole family lists).
"""

from __future__ import annotations

import errno
import selectors
import socket
import threading
import time
from collections import OrderedDict

MAX_CONNECTIONS = 32  # connections held at once (ours: Prometheus scrapes one at a time per target)
REQUEST_TIMEOUT = 5.0  # s from accept to the answer's last byte (ours; Prometheus' default scrape timeout is 10 s)
MAX_REQUEST = 8192  # bytes of request line and headers
ACCEPT_PAUSE = 0.1  # s without accepting after EMFILE / ENFILE
TICK = 0.5  # s: the longest the loop sleeps (timeouts are checked at least this often)


class _Conn:
    __slots__ = ("sock", "deadline", "inbuf", "out", "sent")

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.inbuf = bytearray()
        self.out: bytes | None = None
        self.sent = 0


class MetricsServer:
    def __init__(self, host: str, port: int, render) -> None:
        self.render = render
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, addr = infos[0]
        self._lsock = socket.socket(family, kind, proto)
        try:
            self._lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._lsock.bind(addr)
            self._lsock.listen(128)
            self._lsock.setblocking(False)
        except OSError:
            self._lsock.close()
            raise
        self.server_address = self._lsock.getsockname()
        self._conns: OrderedDict[int, _Conn] = OrderedDict()  # by fd, oldest first
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._sel.register(self._lsock, selectors.EVENT_READ, "listen")
        self._sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._listening = True
        self._paused_until = 0.0
        self._stop = threading.Event()
        self.served = 0
        self.dropped = 0  # connections ended for the cap or the timeout
        self._thread = threading.Thread(target=self._loop, name="metrics-port", daemon=True)
        self._thread.start()

    # -- the loop
    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                if not self._listening and now >= self._paused_until:
                    self._sel.register(self._lsock, selectors.EVENT_READ, "listen")
                    self._listening = True
                wait = TICK
                if self._conns:
                    wait = min(wait, max(0.0, next(iter(self._conns.values())).deadline - now))
                if not self._listening:
                    wait = min(wait, max(0.0, self._paused_until - now))
                for key, mask in self._sel.select(wait):
                    if key.data == "listen":
                        self._accept()
                    elif key.data == "wake":
                        try:
                            self._wake_r.recv(64)
                        except OSError:
                            pass
                    else:
                        self._io(key.data, mask)
                self._expire(time.monotonic())
        finally:
            self._close_all()

    def _accept(self) -> None:
        for _ in range(64):  # a burst of connections: accepted in one go, a bounded one
            try:
                sock, _ = self._lsock.accept()
            except BlockingIOError:
                return
            except OSError as e:
                if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self._sel.unregister(self._lsock)
                    self._listening = False
                    self._paused_until = time.monotonic() + ACCEPT_PAUSE
                return
            sock.setblocking(False)
            while len(self._conns) >= MAX_CONNECTIONS:
                self._drop(next(iter(self._conns)))
            c = _Conn(sock, time.monotonic() + REQUEST_TIMEOUT)
            self._conns[sock.fileno()] = c
            self._sel.register(sock, selectors.EVENT_READ, c)

    def _io(self, c: _Conn, mask: int) -> None:
        fd = c.sock.fileno()
        if fd not in self._conns:
            return
        try:
            if mask & selectors.EVENT_READ and c.out is None:
                data = c.sock.recv(4096)
                if not data:
                    self._drop(fd, counted=False)
                    return
                c.inbuf += data
                end = c.inbuf.find(b"\r\n\r\n")
                if end < 0:
                    end = c.inbuf.find(b"\n\n")
                if end < 0:
                    if len(c.inbuf) > MAX_REQUEST:
                        self._answer(c, 431, b"request header too large\n", "text/plain; charset=utf-8")
                    return
                self._respond(c, bytes(c.inbuf[:end]))
            if mask & selectors.EVENT_WRITE and c.out is not None:
                self._send(c)
        except OSError:
            self._drop(fd, counted=False)

    def _respond(self, c: _Conn, head: bytes) -> None:
        lines = head.decode("latin-1").split("\n")
        parts = lines[0].strip().split()
        if len(parts) < 2 or parts[0] not in ("GET", "HEAD"):
            self._answer(c, 405, b"only GET\n", "text/plain; charset=utf-8")
            return
        accept = ""
        for ln in lines[1:]:
            k, _, v = ln.partition(":")
            if k.strip().lower() == "accept":
                accept = v.strip()
        try:
            body, ctype = self.render(accept)
        except Exception as e:  # noqa: BLE001 - an answer, never a dead server
            self._answer(c, 500, f"error: {type(e).__name__}\n".encode(), "text/plain; charset=utf-8")
            return
        self.served += 1
        self._answer(c, 200, b"" if parts[0] == "HEAD" else body, ctype, len(body))

    def _answer(self, c: _Conn, code: int, body: bytes, ctype: str, length: int | None = None) -> None:
        reason = {
            200: "OK",
            405: "Method Not Allowed",
            431: "Request Header Fields Too Large",
            500: "Internal Server Error",
        }[code]
        head = (
            f"HTTP/1.0 {code} {reason}\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {len(body) if length is None else length}\r\nConnection: close\r\n\r\n"
        )
        c.out = head.encode("latin-1") + body
        self._sel.modify(c.sock, selectors.EVENT_WRITE, c)
        self._send(c)

    def _send(self, c: _Conn) -> None:
        assert c.out is not None  # (called with an answer to send)
        try:
            c.sent += c.sock.send(c.out[c.sent :])
        except BlockingIOError:
            return
        if c.sent >= len(c.out):
            try:
                c.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            self._drop(c.sock.fileno(), counted=False)

    def _expire(self, now: float) -> None:
        while self._conns:
            fd, c = next(iter(self._conns.items()))
            if c.deadline > now:
                return
            self._drop(fd)

    def _drop(self, fd: int, counted: bool = True) -> None:
        c = self._conns.pop(fd, None)
        if c is None:
            return
        if counted:
            self.dropped += 1
        try:
            self._sel.unregister(c.sock)
        except (KeyError, ValueError):
            pass
        try:
            c.sock.close()
        except OSError:
            pass

    def _close_all(self) -> None:
        for fd in list(self._conns):
            self._drop(fd, counted=False)
        for s in (self._lsock, self._wake_r, self._wake_w):
            try:
                s.close()
            except OSError:
                pass
        try:
            self._sel.close()
        except OSError:
            pass

    # -- the socketserver-like interface the exporter uses
    def shutdown(self) -> None:
        self._stop.set()
        try:
            self._wake_w.send(b"x")
        except OSError:
            pass
        self._thread.join(5)

    def server_close(self) -> None:
        if self._thread.is_alive():
            self.shutdown()

    @property
    def open_connections(self) -> int:
        return len(self._conns)
