"""A web page on another origin cannot post events to a local server (issue 15 item 4), checked
in Chromium as the attack was: ``fetch(…, {mode: 'no-cors'})`` with a text/plain body, a form
post, and a CORS request with a JSON content type (its preflight is never granted)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

ATTACKS = {
    "no-cors text/plain": "fetch(url, {method: 'POST', mode: 'no-cors', body})",
    "no-cors no type": "fetch(url, {method: 'POST', mode: 'no-cors', body: new Blob([body])})",
    "cors json": (
        "fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'}, body})"
    ),
    "form post": (
        "(() => { const f = document.createElement('form'); f.method = 'POST'; f.action = url;"
        " f.enctype = 'text/plain'; const i = document.createElement('input'); i.name = body;"
        " f.appendChild(i); document.body.appendChild(f); f.submit(); })()"
    ),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_foreign_page_cannot_post_events(
    harness: Any, make_server: Callable[..., Any], attack: str
) -> None:
    server = make_server()
    body = json.dumps(
        {
            "eventType": "COMPLETE",
            "eventTime": "2024-03-01T12:00:00Z",
            "producer": "https://example.com/attacker",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": str(uuid.uuid4())},
            "job": {"namespace": "planted", "name": "job"},
        }
    )
    harness.evaluate(
        f"async ([url, body]) => {{ try {{ await {ATTACKS[attack]}; }} catch (e) {{}} }}",
        [server.lineage_url, body],
    )
    harness.wait_for_timeout(300)  # a form post navigates: let it reach the server
    events = httpx.get(f"{server.url}/api/v1/events/lineage", timeout=30).json()
    assert events["totalCount"] == 0, events
