"""Where webhooks may be posted (issue 28 item 8): never link-local (the cloud's metadata
service), loopback and private addresses only when ``allow_private`` says so (checked on the
literal in the settings and on the resolved addresses before every post and every redirect), a
307 followed rather than killing the alert, and an ``api_key`` never traded for the URL's user
info. Real HTTP to a local recording server; the end-to-end test on both stores."""

from __future__ import annotations

import ipaddress
import socket
import time
from typing import Any

import httpx
import pytest
from downstream_server import Downstream
from pipeline import DS, day, orders, raw
from store_summary import dataset

from plumbline.server.app import create_app
from plumbline.server.config import ConfigError, build_settings
from plumbline.server.outbox import delivery
from plumbline.server.outbox.delivery import TargetClient
from plumbline.server.runner import BackgroundServer
from plumbline.server.settings import NotifyTarget, ServerSettings

BODY = b'{"type": "plumbline.alert"}'


def _settings(tmp_path: Any, table: str) -> ServerSettings:
    config = tmp_path / "plumbline.toml"
    config.write_text(table)
    return build_settings(db_url="sqlite://", config_file=config)


@pytest.mark.parametrize(
    ("url", "allow", "refused"),
    [
        ("http://169.254.169.254/latest/meta-data/", "true", "link-local"),
        ("http://[fe80::1]/hook", "true", "link-local"),
        ("http://[::ffff:169.254.169.254]/hook", "true", "link-local"),
        ("http://0.0.0.0:8080/hook", "true", "not a unicast"),
        ("http://127.0.0.1:5000/api/v1/tokens", "false", "loopback"),
        ("http://localhost:9090/admin", "false", "loopback"),
        ("http://10.1.2.3/hook", "false", "private"),
        ("http://[fd00::1]/hook", "false", "private"),
    ],
)
def test_refused_webhook_addresses(tmp_path: Any, url: str, allow: str, refused: str) -> None:
    table = f'[[notify]]\nurl = "{url}"\nallow_private = {allow}\n'
    with pytest.raises(ConfigError, match=refused):
        _settings(tmp_path, table)


def test_private_addresses_when_allowed_and_public_ones(tmp_path: Any) -> None:
    for url in ("http://127.0.0.1:5000/hook", "http://10.1.2.3/hook", "http://localhost/h"):
        table = f'[[notify]]\nurl = "{url}"\nallow_private = true\n'
        assert _settings(tmp_path, table).notify[0].allow_private
    assert _settings(tmp_path, '[[notify]]\nurl = "https://hooks.example/a"\n').notify
    with pytest.raises(ConfigError, match="allow_private must be true or false"):
        _settings(tmp_path, '[[notify]]\nurl = "https://h.example/a"\nallow_private = "yes"\n')
    with pytest.raises(ConfigError, match="loopback"):  # --notify URLs are checked the same way
        build_settings(db_url="sqlite://", notify_urls=("http://127.0.0.1:9/x",))


def test_user_info_with_an_api_key_is_refused(tmp_path: Any) -> None:
    for kind in ("notify", "forward"):
        table = f'[[{kind}]]\nurl = "https://bob:pw@hooks.example/a"\napi_key = "k"\n'
        with pytest.raises(ConfigError, match="user info"):
            _settings(tmp_path, table)


def test_the_key_is_sent_never_the_user_info(downstream: Downstream) -> None:
    url = downstream.url.replace("http://", "http://bob:secret@") + "/hooks/a"
    client = TargetClient(NotifyTarget(url=url, api_key="k-123", allow_private=True), 5)
    try:
        assert client.deliver(BODY).delivered
    finally:
        client.close()
    [received] = downstream.received
    assert received.headers["authorization"] == "Bearer k-123"


def test_resolved_addresses_are_checked_before_each_post(downstream: Downstream) -> None:
    name = socket.gethostname()  # a host name, not a literal: only resolving tells what it is
    resolved = {ipaddress.ip_address(a[4][0]) for a in socket.getaddrinfo(name, 80)}
    if not resolved or not all(a.is_loopback or a.is_private for a in resolved):
        pytest.skip(f"{name} does not resolve to this machine's private addresses")
    url = downstream.url.replace("127.0.0.1", name) + "/hooks/a"
    client = TargetClient(NotifyTarget(url=url), 5)  # passes the settings' literal check
    try:
        result = client.deliver(BODY)
    finally:
        client.close()
    assert not result.delivered and not result.retryable
    assert result.error is not None and "resolves to" in result.error
    assert downstream.received == []
    allowed = TargetClient(NotifyTarget(url=url, allow_private=True), 5)
    try:
        assert allowed.deliver(BODY).delivered
    finally:
        allowed.close()


def test_the_connection_goes_to_the_address_that_was_checked(
    downstream: Downstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: a name that resolved to a public address for the check and resolves to
    loopback for the connection. The pre-post check is made to pass (as a rebinding DNS server
    would make it); the connection's own check refuses, and nothing reaches the loopback server."""
    monkeypatch.setattr(delivery, "check_resolved", lambda url, allow_private: None)
    url = downstream.url.replace("127.0.0.1", "localhost") + "/hooks/a"
    client = TargetClient(NotifyTarget(url=url), 5)
    try:
        result = client.deliver(BODY)
    finally:
        client.close()
    assert not result.delivered and not result.retryable
    assert result.error is not None and "localhost resolves to" in result.error, result.error
    assert downstream.received == []
    allowed = TargetClient(NotifyTarget(url=url, allow_private=True), 5)
    try:
        assert allowed.deliver(BODY).delivered
    finally:
        allowed.close()
    assert [r.path for r in downstream.received] == ["/hooks/a"]


def test_redirects_are_followed_within_the_policy(downstream: Downstream) -> None:
    downstream.redirects["/hooks/old"] = "/hooks/new"
    downstream.redirects["/hooks/meta"] = "http://169.254.169.254/latest/meta-data/"
    downstream.redirects["/hooks/loop"] = "/hooks/loop"
    old, meta, loop = (
        TargetClient(NotifyTarget(url=f"{downstream.url}/hooks/{p}", allow_private=True), 5)
        for p in ("old", "meta", "loop")
    )
    try:
        assert old.deliver(BODY).delivered
        to_meta = meta.deliver(BODY)
        looping = loop.deliver(BODY)
    finally:
        for client in (old, meta, loop):
            client.close()
    assert [r.path for r in downstream.received] == ["/hooks/new"]
    assert not to_meta.retryable and "link-local" in (to_meta.error or "")
    assert looping.retryable and "redirects" in (looping.error or "")


def test_an_alert_reaches_a_moved_webhook_on_both_stores(
    db_url: str, downstream: Downstream
) -> None:
    downstream.redirects["/hooks/old"] = f"{downstream.url}/hooks/new"
    downstream.redirects["/hooks/meta"] = "http://169.254.169.254/latest/meta-data/"
    targets = tuple(
        NotifyTarget(url=f"{downstream.url}/hooks/{p}", kinds=("schema-drift",),
                     allow_private=True)
        for p in ("old", "meta")
    )  # fmt: skip
    settings = ServerSettings(db_url=db_url, port=0, notify=targets, alert_check_seconds=3600)
    server = BackgroundServer(create_app(settings))
    url = server.start()
    try:
        for hour in range(6):
            assert httpx.post(f"{url}/api/v1/lineage", json=day(hour)).status_code == 201
        changed = day(6, inputs=[raw(), dataset(DS, "fx")],
                      outputs=[orders({"id": "string", "price": "double"})])  # fmt: skip
        assert httpx.post(f"{url}/api/v1/lineage", json=changed).status_code == 201
        downstream.wait_for(lambda d: len(d.received) >= 1)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            targets_state = httpx.get(f"{url}/api/v1/forwarding", timeout=30).json()["targets"]
            meta = next(t for t in targets_state if t["target"].endswith("/hooks/meta"))
            if meta["dead"]:
                break
            time.sleep(0.1)
    finally:
        server.stop()
    [received] = downstream.received
    assert received.path == "/hooks/new"
    assert received.event["alert"]["kind"] == "schema-drift"
    assert meta["dead"] == 1 and meta["pending"] == 0
