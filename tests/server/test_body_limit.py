"""Every body but ingestion's is bounded at the door (plumbline/server/body_limit.py): a body over
MAX_REQUEST_BYTES is 413 by its declared length or as its bytes arrive, on every route that takes
one, before the route reads it; within the limit it reaches the route whole; ingestion keeps its
own, larger max_body_bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from plumbline.server.body_limit import MAX_REQUEST_BYTES

BODY_ROUTES = [
    ("PUT", "/api/v1/tags/pii"),
    ("POST", "/api/v1/alerts/1/ack"),
    ("PUT", "/api/v1/namespaces/ns/datasets/d/fields/f/declassifications/pii"),
    ("POST", "/api/v1/expectations/check"),
]
HUGE = json.dumps({"description": "x" * (MAX_REQUEST_BYTES + 10)}).encode()


def _chunks() -> Iterator[bytes]:  # no Content-Length: the limit is met as the bytes arrive
    for start in range(0, len(HUGE), 65536):
        yield HUGE[start : start + 65536]


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
def test_a_body_over_the_limit_is_413_on_every_route(
    live_server: Any, method: str, path: str
) -> None:
    headers = {"Content-Type": "application/json"}
    by_length = httpx.request(method, live_server.url + path, content=HUGE, headers=headers)
    assert by_length.status_code == 413, by_length.text[:300]
    assert by_length.json()["message"] == f"the body is over the limit of {MAX_REQUEST_BYTES} bytes"
    chunked = httpx.request(method, live_server.url + path, content=_chunks(), headers=headers)
    assert chunked.status_code == 413, chunked.text[:300]


def test_a_body_within_the_limit_reaches_the_route_whole(live_server: Any) -> None:
    description = "y" * (MAX_REQUEST_BYTES - 100)
    body = json.dumps({"description": description}).encode()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 65536):
            yield body[start : start + 65536]

    response = httpx.put(
        live_server.url + "/api/v1/tags/pii",
        content=chunks(),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 200, response.text[:300]
    [tag] = [t for t in response.json()["tags"] if t["name"] == "pii"]
    assert tag["description"] == description


def test_ingestion_keeps_its_own_larger_limit(live_server: Any) -> None:
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2024-01-01T00:00:00Z",
        "run": {"runId": "0190c3d4-8f6a-7c3b-9a2e-3f1d2c4b5a60"},
        "job": {"namespace": "ns", "name": "big", "facets": {}},
        "inputs": [],
        "outputs": [],
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    # one event padded past MAX_REQUEST_BYTES with whitespace: ingestion's limit is max_body_bytes
    body = json.dumps(event).encode() + b" " * (MAX_REQUEST_BYTES + 10)
    response = httpx.post(
        live_server.url + "/api/v1/lineage",
        content=body,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 201, response.text[:300]
