"""Cross-site writes and DNS rebinding are refused before any route runs (issue 15 item 4), on
both backends: a JSON content type on writes, an Origin check, and the loopback Host check with
``--allowed-host``. Every refusal stores nothing."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Callable
from typing import Any

import httpx
from ingest_helpers import count, event

Server = Callable[..., Any]


def _post(server: Any, headers: dict[str, str], body: bytes | None = None) -> httpx.Response:
    """POST one fresh event with exactly ``headers`` (httpx adds none but Host and length)."""
    content = body if body is not None else json.dumps(event(str(uuid.uuid4()))).encode()
    return httpx.post(server.lineage_url, content=content, headers=headers, timeout=30)


def _refused(response: httpx.Response, status: int, server: Any, words: str) -> None:
    """The request got ``status`` in the common error shape naming ``words``; nothing stored."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == status and words in body["message"], body
    assert count(server.db_url, "lineage_events") == 0


def test_a_write_without_a_json_content_type_is_refused(make_server: Server) -> None:
    server = make_server()
    for content_type in (
        None,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ):
        headers = {"Content-Type": content_type} if content_type else {}
        _refused(_post(server, headers), 415, server, "needs Content-Type: application/json")


def test_json_content_types_are_accepted(make_server: Server) -> None:
    server = make_server()
    for content_type in (
        "application/json",
        "application/json; charset=utf-8",
        "application/x+json",
    ):
        assert _post(server, {"Content-Type": content_type}).status_code == 201


def test_a_cross_origin_write_is_refused(make_server: Server) -> None:
    server = make_server()
    for origin in ("https://evil.example", "http://127.0.0.1:1", "null"):
        headers = {"Content-Type": "application/json", "Origin": origin}
        _refused(_post(server, headers), 403, server, "cross-origin write refused")


def test_a_same_origin_write_is_accepted(make_server: Server) -> None:
    server = make_server()
    headers = {"Content-Type": "application/json", "Origin": server.url}
    assert _post(server, headers).status_code == 201


def test_an_origin_of_another_scheme_is_refused(make_server: Server) -> None:
    # issue 28 item 9: https://host:port is another origin than the http server at host:port
    server = make_server()
    other = "https://" + server.url.removeprefix("http://")
    headers = {"Content-Type": "application/json", "Origin": other}
    _refused(_post(server, headers), 403, server, "cross-origin write refused")


def _raw_request(
    server: Any, method: str, path: str, headers: list[str], body: bytes
) -> tuple[int, Any]:
    """Send a request as written (httpx refuses to repeat Host): its status and JSON body."""
    address = server.url.removeprefix("http://")
    name, _, port = address.rpartition(":")
    lines = [f"{method} {path} HTTP/1.1", *headers, f"Content-Length: {len(body)}"]
    request = ("\r\n".join(lines) + "\r\nConnection: close\r\n\r\n").encode() + body
    with socket.create_connection((name, int(port)), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(content)


def test_repeated_host_or_origin_headers_are_400(make_server: Server) -> None:
    # issue 28 item 9: only the first was checked, a second one could carry anything
    server = make_server()
    netloc = server.url.removeprefix("http://")
    content = json.dumps(event(str(uuid.uuid4()))).encode()
    for name, repeated in (
        ("Host", [f"Host: {netloc}", "Host: evil.example"]),
        ("Origin", [f"Host: {netloc}", f"Origin: {server.url}", "Origin: https://evil.example"]),
    ):
        headers = ["Content-Type: application/json", *repeated]
        status, body = _raw_request(server, "POST", "/api/v1/lineage", headers, content)
        assert (status, body["code"]) == (400, 400), body
        assert f"more than one {name} header" in body["message"], body
    assert count(server.db_url, "lineage_events") == 0
    status, body = _raw_request(
        server, "GET", "/api/v1/namespaces", [f"Host: {netloc}", f"Host: {netloc}"], b""
    )
    assert status == 400, body
    # one of each still passes
    headers = ["Content-Type: application/json", f"Host: {netloc}", f"Origin: {server.url}"]
    assert _raw_request(server, "POST", "/api/v1/lineage", headers, content)[0] == 201


def test_a_cross_origin_delete_is_refused(make_server: Server) -> None:
    server = make_server()
    assert _post(server, {"Content-Type": "application/json"}).status_code == 201
    response = httpx.delete(
        f"{server.url}/api/v1/namespaces/http-tests", headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 403, response.text
    assert httpx.get(f"{server.url}/api/v1/namespaces/http-tests").status_code == 200


def test_a_foreign_host_is_refused_on_a_loopback_bind(make_server: Server) -> None:
    server = make_server()
    for host in ("evil.example", "rebind.attacker.test:5000", "10.0.0.8"):
        for response in (
            httpx.get(f"{server.url}/api/v1/namespaces", headers={"Host": host}),
            _post(server, {"Content-Type": "application/json", "Host": host}),
        ):
            _refused(response, 421, server, "--allowed-host")
    for host in ("localhost", "app.localhost:80", "127.0.0.2", "[::1]:5000"):
        response = httpx.get(f"{server.url}/api/v1/namespaces", headers={"Host": host})
        assert response.status_code == 200, response.text


def test_allowed_host_adds_a_name_for_reads_writes_and_origins(make_server: Server) -> None:
    server = make_server(allowed_hosts=("lineage.internal",))
    headers = {
        "Content-Type": "application/json",
        "Host": "lineage.internal",
        "Origin": "https://lineage.internal",
    }
    assert _post(server, headers).status_code == 201
    response = httpx.get(f"{server.url}/api/v1/namespaces", headers={"Host": "lineage.internal"})
    assert response.status_code == 200


def test_a_public_bind_checks_hosts_only_when_names_are_given(make_server: Server) -> None:
    anything = make_server(host="0.0.0.0")
    assert httpx.get(f"{anything.url}/api/v1/health", headers={"Host": "any.example"}).is_success
    named = make_server(host="0.0.0.0", allowed_hosts=("lineage.example",))
    url = f"{named.url}/api/v1/health"
    assert httpx.get(url, headers={"Host": "lineage.example"}).is_success
    assert httpx.get(url, headers={"Host": "localhost"}).status_code == 421
