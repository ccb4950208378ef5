from __future__ import annotations

import gzip
import json

import pytest
from ol_test_server import LineageServer, make_event

from plumbline import __version__
from plumbline.transports import (
    HttpTransport,
    TransportConfig,
    TransportError,
    create_transport,
)


def _transport(url: str, **kw: object) -> HttpTransport:
    transport = create_transport(TransportConfig(type="http", url=url, **kw))  # type: ignore[arg-type]
    assert isinstance(transport, HttpTransport)
    return transport


def test_posts_json_with_headers_and_bearer_auth(server: LineageServer) -> None:
    transport = _transport(
        server.url, api_key="k-123", headers={"X-Tenant": "acme", "Content-Type": "text/plain"}
    )
    transport.emit(make_event(1))
    transport.emit(make_event(2))
    assert transport.close() is True

    assert [r.path for r in server.received] == ["/api/v1/lineage", "/api/v1/lineage"]
    assert [r.body for r in server.received] == [make_event(1), make_event(2)]
    headers = server.received[0].headers
    assert headers["authorization"] == "Bearer k-123"
    assert headers["content-type"] == "application/json"  # not overridable by extra headers
    assert headers["x-tenant"] == "acme"
    assert headers["user-agent"] == f"plumbline/{__version__}"
    assert "content-encoding" not in headers
    assert server.received[0].raw == json.dumps(make_event(1), separators=(",", ":")).encode()


def test_no_authorization_header_without_api_key(server: LineageServer) -> None:
    transport = _transport(server.url + "/")
    transport.emit(make_event(1))
    assert "authorization" not in server.received[0].headers
    assert server.received[0].path == "/api/v1/lineage"


def test_url_with_path_is_used_as_given(server: LineageServer) -> None:
    transport = _transport(server.url + "/custom/ingest?tenant=a")
    transport.emit(make_event(1))
    assert server.received[0].path == "/custom/ingest?tenant=a"


def test_gzip_body(server: LineageServer) -> None:
    transport = _transport(server.url, compression="gzip")
    transport.emit(make_event(5))
    received = server.received[0]
    assert received.headers["content-encoding"] == "gzip"
    assert received.headers["content-type"] == "application/json"
    assert json.loads(gzip.decompress(received.raw)) == make_event(5)


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (500, True),
        (502, True),
        (503, True),
        (429, True),
        (400, False),
        (401, False),
        (404, False),
        (422, False),
    ],
)
def test_error_statuses(server: LineageServer, status: int, retryable: bool) -> None:
    server.fail_next(status, message=f"told to answer {status}")
    transport = _transport(server.url, api_key="never-in-messages")
    with pytest.raises(TransportError) as info:
        transport.emit(make_event(1))
    error = info.value
    assert error.status_code == status
    assert error.retryable is retryable
    assert error.body == {"code": status, "message": f"told to answer {status}"}
    assert str(error) == f"HTTP {status} from {server.url}/api/v1/lineage: told to answer {status}"
    assert "never-in-messages" not in str(error)
    transport.emit(make_event(2))  # the next request succeeds: the client is reused after errors
    assert len(server.received) == 2


def test_error_message_includes_field_errors(server: LineageServer) -> None:
    server.reject = lambda event: "eventTime is required" if "eventTime" not in event else None
    transport = _transport(server.url)
    event = make_event(1)
    del event["eventTime"]
    with pytest.raises(TransportError) as info:
        transport.emit(event)
    assert str(info.value) == (
        f"HTTP 422 from {server.url}/api/v1/lineage: "
        "the event breaks the OpenLineage specification (eventTime is required)"
    )
    assert info.value.retryable is False


def test_connection_refused_is_retryable(refused_url: str) -> None:
    transport = _transport(refused_url + "/", api_key="secret-k")
    with pytest.raises(TransportError) as info:
        transport.emit(make_event(1))
    assert info.value.retryable is True
    assert info.value.status_code is None
    assert str(info.value).startswith(f"cannot reach {refused_url}/api/v1/lineage: ")
    assert "secret-k" not in str(info.value)


def test_timeout_is_retryable(server: LineageServer) -> None:
    server.hang_seconds = 5
    transport = _transport(server.url, timeout=0.2)
    with pytest.raises(TransportError, match="timed out posting to") as info:
        transport.emit(make_event(1))
    assert info.value.retryable is True


def test_credentials_in_url_never_appear_in_errors(server: LineageServer) -> None:
    url = server.url.replace("http://", "http://alice:pw-42@")
    server.fail_next(503)
    transport = _transport(url)
    with pytest.raises(TransportError) as info:
        transport.emit(make_event(1))
    assert "pw-42" not in str(info.value)
    assert "pw-42" not in repr(TransportConfig(type="http", url=url, api_key="zz-key"))
    assert "zz-key" not in repr(TransportConfig(type="http", url=url, api_key="zz-key"))


def test_post_sends_a_batch_as_a_json_array(server: LineageServer) -> None:
    transport = _transport(server.url)
    response = transport.post([make_event(1), make_event(2)])
    assert response.status_code == 201
    assert server.received[0].body == [make_event(1), make_event(2)]
