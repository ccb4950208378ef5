"""Ingestion under `--auth required`: the token's name is kept with each event, and a token limited
to some namespaces may not write elsewhere (such events are rejected, the others of the batch kept;
the whole rule is tested in tests/auth/test_limited_tokens.py)."""

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
    token = _token(server.db_url, "team-a", "write", ["team_a", "db"])  # its job and data
    headers = {"Authorization": f"Bearer {token}"}
    allowed = event(str(uuid.uuid4()), namespace="team_a")
    assert post(server.url, allowed, headers=headers).status_code == 201
    other = event(str(uuid.uuid4()), namespace="team_b")
    response = post(
        server.url, [event(str(uuid.uuid4()), namespace="team_a"), other], headers=headers
    )
    assert response.status_code == 201
    assert response.json()["rejected"] == [1]
    assert "team_b" in response.json()["errors"][0]["message"]
    assert count(server.db_url, "lineage_events") == 2
    alone = post(server.url, other, headers=headers)
    assert alone.status_code == 403
    assert alone.json()["message"] == "this token may not access namespace 'team_b'"
    foreign_output = event(str(uuid.uuid4()), namespace="team_a")
    foreign_output["outputs"] = [{"namespace": "warehouse", "name": "theirs"}]
    assert post(server.url, foreign_output, headers=headers).status_code == 403
    assert count(server.db_url, "lineage_events") == 2
