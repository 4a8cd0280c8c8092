"""Run one ``--on-alert`` command: judged by its own exit, bounded in time and memory.

``run(cmd, data, timeout)`` starts ``cmd`` through the shell in its own session
(process group), writes ``data`` (the event's JSON) to its stdin and reads its
stderr, then returns a ``HookResult``:

- the command is judged by **its own exit**: a hook that starts a background
  child and exits (``notify-send ... &``, the child holding stderr open) is done
  when the shell exits; what it wrote before is read, the pipe is then closed (a
  child that writes to it later gets EPIPE) and its children are left alone;
- stderr is read as it comes and only its last ``KEEP`` bytes are kept (a hook
  that prints 200 MiB costs the monitor a pipe buffer, not 200 MiB);
- after ``timeout`` seconds, or when ``cancel`` is set (the monitor exits), the
  whole process group is killed (SIGKILL) and the result says so; nothing here
  raises for what the command does.

The wait is on the child's pidfd (Linux >= 5.3) or, where there is none, a poll of
its exit every ``POLL`` seconds while it runs.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass

KEEP = 8192  # bytes of a hook's stderr kept (its last line is shown)
READ = 65536  # bytes read from the pipe at a time
POLL = 0.05  # s between two looks at the child's exit when no pidfd is available
REAP = 2.0  # s to wait for a killed process group's leader to be reaped
CANCEL_LOOK = 0.25  # s between two looks at ``cancel`` while a hook runs


@dataclass
class HookResult:
    returncode: int | None = None  # None: could not start, or killed on the timeout
    timed_out: bool = False
    cancelled: bool = False  # killed because the monitor exits
    error: str | None = None  # could not start (the OSError's text)
    stderr_tail: bytes = b""
    stderr_bytes: int = 0  # all it wrote to stderr

    def last_line(self) -> str:
        lines = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""


def run(cmd: str, data: bytes, timeout: float, cancel=None) -> HookResult:
    try:
        # its own session (process group): a timed-out hook is ended with every child it
        # started (a pager's curl, a shell pipeline), none left orphaned
        p = subprocess.Popen(
            cmd,
            shell=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as e:
        return HookResult(error=e.strerror or str(e))
    res = HookResult()
    assert p.stdin is not None and p.stderr is not None  # (both pipes)
    try:
        _talk(p, data, time.monotonic() + timeout, res, cancel)
    finally:
        for pipe in (p.stdin, p.stderr):
            try:
                pipe.close()
            except OSError:
                pass
        if res.timed_out or res.cancelled or p.poll() is None:
            res.timed_out = not res.cancelled
            _kill_group(p)
        res.returncode = None if res.timed_out or res.cancelled else p.returncode
    return res


def _talk(p: subprocess.Popen, data: bytes, deadline: float, res: HookResult, cancel) -> None:
    assert p.stdin is not None and p.stderr is not None  # (run opens both pipes)
    err_fd, in_fd = p.stderr.fileno(), p.stdin.fileno()
    os.set_blocking(err_fd, False)
    os.set_blocking(in_fd, False)
    tail = bytearray()
    sent = 0
    pidfd = _pidfd(p.pid)
    with selectors.DefaultSelector() as sel:
        sel.register(err_fd, selectors.EVENT_READ, "err")
        if data:
            sel.register(in_fd, selectors.EVENT_WRITE, "in")
        else:
            p.stdin.close()
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ, "exit")
        try:
            while True:
                if p.poll() is not None:
                    _drain(err_fd, tail, res)  # what it wrote before it exited; not a background child's
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    res.timed_out = True
                    break
                if cancel is not None and cancel.is_set():
                    res.cancelled = True
                    break
                for key, _ in sel.select(min(left, POLL if pidfd is None else CANCEL_LOOK)):
                    if key.data == "err":
                        if not _read(err_fd, tail, res):
                            sel.unregister(err_fd)  # EOF: everything that held it is gone
                    elif key.data == "in":
                        try:
                            sent += os.write(in_fd, data[sent : sent + READ])
                        except BlockingIOError:
                            continue
                        except OSError:  # it does not read its stdin (EPIPE): fine
                            sent = len(data)
                        if sent >= len(data):
                            sel.unregister(in_fd)
                            p.stdin.close()
        finally:
            if pidfd is not None:
                os.close(pidfd)
    res.stderr_tail = bytes(tail)


def _read(fd: int, tail: bytearray, res: HookResult) -> bool:
    """One read of stderr into the bounded tail; False at EOF."""
    try:
        chunk = os.read(fd, READ)
    except BlockingIOError:
        return True
    except OSError:
        return False
    if not chunk:
        return False
    res.stderr_bytes += len(chunk)
    tail += chunk
    if len(tail) > KEEP:
        del tail[: len(tail) - KEEP]
    return True


def _drain(fd: int, tail: bytearray, res: HookResult) -> None:
    """What is in the pipe now, without waiting for more (a background child of the
    hook may hold it open for as long as it lives)."""
    for _ in range(16):  # (the pipe holds 64 KiB; a child still writing is not waited for)
        try:
            chunk = os.read(fd, READ)
        except (BlockingIOError, OSError):
            return
        if not chunk:
            return
        res.stderr_bytes += len(chunk)
        tail += chunk
        if len(tail) > KEEP:
            del tail[: len(tail) - KEEP]


def _pidfd(pid: int) -> int | None:
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return opener(pid)
    except OSError:  # an old kernel, or seccomp
        return None


def _kill_group(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:  # already gone
        pass
    try:
        p.wait(REAP)
    except subprocess.TimeoutExpired:  # (uninterruptible sleep): reaped by the next Popen
        pass
