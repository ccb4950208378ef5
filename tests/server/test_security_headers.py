"""Security headers on every answer, and ``--auth-meta``: tokens on /metrics, /openapi.json and
/docs (issue 15 item 6), on both backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

Server = Callable[..., Any]
META = ("/metrics", "/openapi.json", "/docs")


def _headers(url: str) -> httpx.Headers:
    return httpx.get(url, timeout=30).headers


def test_every_answer_carries_the_security_headers(make_server: Server) -> None:
    server = make_server()
    for path in ("/", "/ui-assets/js/app.js", "/api/v1/namespaces", "/api/v1/nowhere", "/docs"):
        headers = _headers(server.url + path)
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["x-frame-options"] == "DENY", path
        assert headers["referrer-policy"] == "no-referrer", path
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
    ui_policy = _headers(server.url + "/")["content-security-policy"]
    assert "script-src 'self';" in ui_policy and "default-src 'self'" in ui_policy
    refused = httpx.get(f"{server.url}/api/v1/namespaces", headers={"Host": "evil.example"})
    assert refused.status_code == 421 and refused.headers["x-frame-options"] == "DENY"


def test_auth_meta_requires_a_token_on_metrics_and_docs(make_server: Server, db_url: str) -> None:
    server = make_server(auth="required", auth_meta=True)
    engine = create_store_engine(db_url)
    reader = create_token(engine, "dashboards", "read")
    engine.dispose()
    for path in META:
        anonymous = httpx.get(server.url + path, timeout=30)
        assert anonymous.status_code == 401, path
        assert anonymous.json()["code"] == 401 and anonymous.headers["www-authenticate"] == "Bearer"
        bad = httpx.get(server.url + path, headers={"Authorization": "Bearer nope"}, timeout=30)
        assert bad.status_code == 401, path
        good = httpx.get(
            server.url + path, headers={"Authorization": f"Bearer {reader}"}, timeout=30
        )
        assert good.status_code == 200, (path, good.text)
    assert httpx.get(f"{server.url}/api/v1/health", timeout=30).status_code == 200


def test_meta_routes_stay_public_without_auth_meta(make_server: Server) -> None:
    server = make_server(auth="required")
    for path in META:
        assert httpx.get(server.url + path, timeout=30).status_code == 200, path
