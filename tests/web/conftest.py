"""Fixtures for the web UI tests: a headless Chromium, a static server for the UI's modules,
and a place for screenshots (test-artifacts/ui/, gitignored)."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from plumbline.web.routes import STATIC_DIR

from . import analysis_events, lineage_events
from .ui_server import UiServer, serving

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "ui"
HARNESS = b"<!doctype html><meta charset=utf-8><title>harness</title><body></body>"


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless Chromium (Debian's package) for the whole session."""
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh page (own context, so sessionStorage starts empty) at 1440x900."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})  # type: ignore[attr-defined]
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.page_errors = errors  # type: ignore[attr-defined]
    blocked: list[str] = []  # what the server's Content-Security-Policy blocked, on any page
    pg.on(
        "console",
        lambda msg: blocked.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    yield pg
    context.close()
    assert blocked == [], f"the UI broke its Content-Security-Policy: {blocked}"


class _StaticHandler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (stdlib name)
        if self.path == "/__harness__.html":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(HARNESS)))
            self.end_headers()
            self.wfile.write(HARNESS)
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    """A stdlib HTTP server on a free port serving plumbline/web/static (for pure-module tests)."""
    handler = functools.partial(_StaticHandler, directory=str(STATIC_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def harness(page: object, static_url: str) -> object:
    """A blank page on the static server's origin: tests import the UI's modules into it."""
    page.goto(f"{static_url}/__harness__.html")  # type: ignore[attr-defined]
    return page


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Directory for screenshots."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """A server on a fresh SQLite store with the hand-written event set posted over HTTP."""
    yield from serving(tmp_path_factory, "ui", lineage_events.events())


@pytest.fixture(scope="module")
def diamond(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """A server on a fresh SQLite store holding analysis_events.py's diamond and fan-out."""
    yield from serving(tmp_path_factory, "ui-diamond", analysis_events.events())
