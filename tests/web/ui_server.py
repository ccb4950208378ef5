"""A live plumbline server for the UI tests, and posting events to it as a producer would."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest


@dataclass
class UiServer:
    """A live plumbline server holding the known lineage of lineage_events.py."""

    url: str
    db_url: str


def start_server(db_url: str, **settings: object) -> tuple[object, str]:
    """A plumbline server on ``db_url`` with ``settings``, on a free port: (server, its URL)."""
    from plumbline.server.app import create_app
    from plumbline.server.runner import BackgroundServer
    from plumbline.server.settings import ServerSettings

    app = create_app(ServerSettings(db_url=db_url, port=0, **settings))  # type: ignore[arg-type]
    server = BackgroundServer(app, port=0)
    return server, server.start()


def post_events(url: str, events: list[dict], token: str | None = None) -> None:
    """POST each event to the server's lineage endpoint, as a producer would."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=url, timeout=60, headers=headers) as client:
        for event in events:
            r = client.post("/api/v1/lineage", json=event)
            assert r.status_code == 201, (r.status_code, r.text)


def serving(
    tmp_path_factory: pytest.TempPathFactory, name: str, events: list[dict[str, Any]]
) -> Iterator[UiServer]:
    """A server on a fresh SQLite store with ``events`` posted over HTTP, stopped afterwards."""
    db_url = f"sqlite:///{tmp_path_factory.mktemp(name) / 'store.db'}"
    server, url = start_server(db_url)
    try:
        post_events(url, events)
        yield UiServer(url=url, db_url=db_url)
    finally:
        server.stop()  # type: ignore[attr-defined]
