"""`plumbline serve --workers N`: N server processes sharing one listening socket.

One Python process uses one core for its Python work (the interpreter's lock), so on PostgreSQL,
where writes of different datasets run side by side, more processes take more of the machine.
The parent binds the socket, forks the workers, forwards SIGINT/SIGTERM to them and waits; if
one worker dies, the others are stopped too and the parent exits with an error, rather than
serving on with part of its capacity. Each worker builds its own app (engine, writer, outbox
delivery); the outbox claims rows with ``SKIP LOCKED``, so workers never send an event twice.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
from collections.abc import Callable
from types import FrameType

logger = logging.getLogger(__name__)


def run_workers(count: int, sock: socket.socket, serve: Callable[[socket.socket], None]) -> int:
    """Fork ``count`` processes that each run ``serve(sock)``; returns the exit status."""
    sys.stdout.flush()
    sys.stderr.flush()
    children: set[int] = set()
    for _ in range(count):
        pid = os.fork()
        if pid == 0:  # the worker
            status = 1
            try:
                serve(sock)
                status = 0
            except BaseException:  # noqa: BLE001 - a worker reports what stopped it, then exits
                logger.exception("a plumbline worker failed")
            finally:
                os._exit(status)
        children.add(pid)

    stopping = False

    def stop(_signum: int, _frame: FrameType | None) -> None:
        # SIGTERM to the workers either way: after a terminal's SIGINT, which reached them too,
        # uvicorn takes a second SIGINT as "exit now", and a SIGTERM as the same graceful exit
        nonlocal stopping
        stopping = True
        for child in children:
            _signal(child, signal.SIGTERM)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    status = 0
    try:
        while children:
            try:
                pid, wait_status = os.wait()
            except ChildProcessError:
                break
            except InterruptedError:
                continue
            children.discard(pid)
            code = os.waitstatus_to_exitcode(wait_status)
            if not stopping:  # a worker ended on its own: stop the rest
                logger.error("plumbline worker %d ended (%d); stopping the others", pid, code)
                stopping, status = True, 1
                for child in children:
                    _signal(child, signal.SIGTERM)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass  # already gone
