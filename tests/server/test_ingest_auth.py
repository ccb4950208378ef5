"""Ingestion under `--auth required`: the token's name is kept with each event, and a token limited
to some namespaces may not write elsewhere (nothing of the request is stored then)."""

from __future__ import annotations

import uuid
from typing import Any

import sqlalchemy as sa
from ingest_helpers import count, event, post

from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine


def _token(db_url: str, name: str, scope: str, namespaces: list[str] | None = None) -> str:
    engine = create_store_engine(db_url)
    try:
        return create_token(engine, name, scope, namespaces)
    finally:
        engine.dispose()


def test_token_name_is_stored_with_the_events(make_server: Any) -> None:
    server = make_server(auth="required")
    token = _token(server.db_url, "producer-a", "write")
    assert post(server.url, event(str(uuid.uuid4()))).status_code == 401
    response = post(
        server.url, event(str(uuid.uuid4())), headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 201
    engine = create_store_engine(server.db_url)
    try:
        with engine.connect() as connection:
            names = (
                connection.execute(sa.text("SELECT token_name FROM lineage_events")).scalars().all()
            )
    finally:
        engine.dispose()
    assert names == ["producer-a"]


def test_namespace_limited_token_cannot_write_elsewhere(make_server: Any) -> None:
    server = make_server(auth="required")
    token = _token(server.db_url, "team-a", "write", ["team_a"])
    headers = {"Authorization": f"Bearer {token}"}
    allowed = event(str(uuid.uuid4()), namespace="team_a")
    assert post(server.url, allowed, headers=headers).status_code == 201
    other = event(str(uuid.uuid4()), namespace="team_b")
    response = post(
        server.url, [event(str(uuid.uuid4()), namespace="team_a"), other], headers=headers
    )
    assert response.status_code == 403
    assert "team_b" in response.json()["message"]
    assert count(server.db_url, "lineage_events") == 1
