"""Serve an app with uvicorn, in the foreground (`plumbline serve`) or on a thread (demo, tests)."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn
from fastapi import FastAPI


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def base_url(sock: socket.socket) -> str:
    """The http URL a bound socket serves on."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def uvicorn_server(app: FastAPI, *, log_level: str = "warning") -> uvicorn.Server:
    """A uvicorn server for ``app`` that does not install its own signal handlers' logging config."""
    config = uvicorn.Config(app, log_level=log_level, lifespan="on", access_log=False)
    return uvicorn.Server(config)


class BackgroundServer:
    """Runs an app on a daemon thread until :meth:`stop`; for the demo and for tests.

    >>> server = BackgroundServer(app, port=0); url = server.start(); ...; server.stop()
    """

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.url: str | None = None

    def start(self, timeout: float = 30.0) -> str:
        """Start serving; returns the base URL once the server accepts requests."""
        sock = bind_socket(self.host, self.port)
        self.url = base_url(sock)
        server = uvicorn_server(self.app)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="plumbline-server", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the plumbline server did not start")
            time.sleep(0.02)
        return self.url

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait for the thread to end."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> BackgroundServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
