"""Webhooks for change alerts (issue 19): posted through the forwarding outbox to a real local
HTTP server, filtered by kind and namespace, retried while it fails, and delivered after the
plumbline server restarts (nothing lost), on both stores."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from downstream_server import Downstream
from pipeline import DS, day, orders, raw
from store_summary import dataset

from plumbline.server.app import create_app
from plumbline.server.config import ConfigError, build_settings
from plumbline.server.runner import BackgroundServer
from plumbline.server.settings import NotifyTarget, ServerSettings

HOURS = 6


def _start(db_url: str, targets: tuple[NotifyTarget, ...]) -> tuple[BackgroundServer, str]:
    settings = ServerSettings(db_url=db_url, port=0, notify=targets, alert_check_seconds=3600)
    server = BackgroundServer(create_app(settings))
    return server, server.start()


def _alerts_completed(url: str, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        alerts = httpx.get(f"{url}/api/v1/alerts", timeout=30).json()["alerts"]
        if len(alerts) == count and all(a["blastRadius"] is not None for a in alerts):
            return alerts  # completed, and queued for the webhooks in the same transaction
        time.sleep(0.1)
    raise AssertionError("alerts not completed after 30 s")


def test_webhooks_filter_retry_and_survive_a_restart(db_url: str, downstream: Downstream) -> None:
    targets = (
        NotifyTarget(url=f"{downstream.url}/hooks/drift", kinds=("schema-drift",),
                     headers={"X-Team": "data"}, allow_private=True),
        NotifyTarget(url=f"{downstream.url}/hooks/elsewhere", namespaces=("elsewhere",),
                     allow_private=True),
        NotifyTarget(url=f"{downstream.url}/hooks/all", allow_private=True),
    )  # fmt: skip
    downstream.fail_with = 503  # down for now: the outbox keeps retrying
    server, url = _start(db_url, targets)
    try:
        for hour in range(HOURS):
            assert httpx.post(f"{url}/api/v1/lineage", json=day(hour)).status_code == 201
        changed = day(HOURS, inputs=[raw(), dataset(DS, "fx")],
                      outputs=[orders({"id": "string", "price": "double"})])  # fmt: skip
        assert httpx.post(f"{url}/api/v1/lineage", json=changed).status_code == 201
        alerts = _alerts_completed(url, 2)
        downstream.wait_for(lambda d: d.failures >= 1)
    finally:
        server.stop()
    downstream.fail_with = None
    server, url = _start(db_url, targets)  # a new process would do the same: all is in the db
    try:
        downstream.wait_for(lambda d: len(d.received) >= 3)
        time.sleep(1.0)  # nothing more arrives
    finally:
        server.stop()
    by_path: dict[str, list[Any]] = {}
    for received in downstream.received:
        by_path.setdefault(received.path, []).append(received)
    assert sorted(by_path) == ["/hooks/all", "/hooks/drift"]  # nothing of namespace elsewhere
    [drift] = by_path["/hooks/drift"]
    assert drift.headers["x-team"] == "data"
    body = drift.event
    assert body["type"] == "plumbline.alert"
    expected = next(a for a in alerts if a["kind"] == "schema-drift")
    assert body["alert"] == expected  # the alert as the API lists it, blast radius included
    assert body["alert"]["blastRadius"]["jobs"] == 1
    assert sorted(r.event["alert"]["kind"] for r in by_path["/hooks/all"]) == [
        "new-edge", "schema-drift"
    ]  # fmt: skip


def test_notify_settings_are_checked(tmp_path: Any) -> None:
    config = tmp_path / "plumbline.toml"
    config.write_text('[[notify]]\nurl = "https://hooks.example/a"\nkinds = ["schema-drfit"]\n')
    with pytest.raises(ConfigError, match="schema-drfit"):
        build_settings(db_url="sqlite://", config_file=config)
    config.write_text('[[notify]]\nurl = "ftp://hooks.example/a"\n')
    with pytest.raises(ConfigError, match="notify target"):
        build_settings(db_url="sqlite://", config_file=config)
    config.write_text(
        '[[notify]]\nurl = "https://hooks.example/a"\nnamespaces = ["shop"]\n'
        'kinds = ["freshness"]\nheaders = { "X-Team" = "data" }\n'
    )
    settings = build_settings(db_url="sqlite://", config_file=config,
                              notify_urls=("https://hooks.example/b",))  # fmt: skip
    assert settings.notify == (
        NotifyTarget(url="https://hooks.example/a", headers={"X-Team": "data"},
                     namespaces=("shop",), kinds=("freshness",)),
        NotifyTarget(url="https://hooks.example/b"),
    )  # fmt: skip
    assert settings.notify[0].key == "notify:https://hooks.example/a"
    assert settings.notify[0].wants("freshness", "shop")
    assert not settings.notify[0].wants("freshness", "other")
    assert not settings.notify[0].wants("new-edge", "shop")
