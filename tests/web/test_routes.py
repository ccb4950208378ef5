"""mount_ui: assets, index for deep links, and no shadowing of the API (real HTTP server)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

from plumbline.server.runner import BackgroundServer
from plumbline.web.routes import mount_ui


def _app(ui_first: bool) -> FastAPI:
    app = FastAPI()
    if ui_first:
        mount_ui(app)

    @app.get("/api/v1/namespaces/{ns}/datasets/{name:path}")
    def dataset(ns: str, name: str) -> dict:
        return {"namespace": ns, "name": name}

    @app.get("/metrics", response_class=PlainTextResponse)
    def metrics() -> str:
        return "up 1\n"

    if not ui_first:
        mount_ui(app)
    return app


@pytest.fixture(params=["ui_last", "ui_first"])
def client(request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
    server = BackgroundServer(_app(ui_first=request.param == "ui_first"), port=0)
    url = server.start()
    with httpx.Client(base_url=url, timeout=10) as c:
        yield c
    server.stop()


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/lineage?node=dataset%3Afile%3A%2Ftmp%2Fx&depth=2",
        "/impact?node=dataset%3Afile%3A%2Ftmp%2Fx&direction=upstream",
        "/datasets/file/%2Ftmp%2Fwarehouse%2Forders",
        "/jobs/shop/shop.execute_insert_into_hadoop_fs_relation_command.orders",
        "/runs/0192f3a1-0000-7000-8000-000000000001",
        "/runs/0192f3a1-0000-7000-8000-000000000001/diff?against=x",
        "/events?after=2026-01-01T00%3A00%3A00Z",
    ],
)
def test_deep_links_get_the_index(client: httpx.Client, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/ui-assets/js/app.js">' in r.text
    assert r.headers["cache-control"] == "no-cache"


def test_assets_are_served(client: httpx.Client) -> None:
    js = client.get("/ui-assets/js/layout.js")
    assert js.status_code == 200
    assert "javascript" in js.headers["content-type"]
    assert "export function layout(" in js.text
    css = client.get("/ui-assets/app.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert client.get("/ui-assets/js/missing.js").status_code == 404


def test_api_and_metrics_are_not_shadowed(client: httpx.Client) -> None:
    r = client.get("/api/v1/namespaces/file/datasets/%2Ftmp%2Fx")
    assert r.status_code == 200 and r.json() == {"namespace": "file", "name": "/tmp/x"}
    assert client.get("/metrics").text == "up 1\n"
    assert client.get("/openapi.json").json()["paths"].keys() == {
        "/api/v1/namespaces/{ns}/datasets/{name}",
        "/metrics",
    }
    # Unknown API paths stay JSON 404s, never the HTML index.
    missing = client.get("/api/v1/nope")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/json"
    assert client.get("/docs").status_code == 200
    assert "swagger" in client.get("/docs").text.lower()


def test_unknown_top_level_paths_are_404(client: httpx.Client) -> None:
    assert client.get("/favicon.ico").status_code == 404
    assert client.post("/datasets/x/y").status_code in (404, 405)
