"""The ``api_tokens`` table: store, list, revoke and look up bearer tokens by their hash.

The store keeps only a token's sha256 hex digest; making, hashing and validating tokens is the
server's job (:mod:`plumbline.server.tokens`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from plumbline.store.schema import api_tokens


@dataclass(frozen=True)
class TokenInfo:
    """A stored token, without its secret."""

    name: str
    scope: str
    namespaces: tuple[str, ...] | None
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _now() -> datetime:
    return datetime.now(UTC)


def insert_token(
    engine: Engine, name: str, token_hash: str, scope: str, namespaces: Sequence[str] | None
) -> bool:
    """Store a token by its hash; False (and nothing stored) when ``name`` is taken."""
    with engine.begin() as connection:
        if _row_by_name(connection, name) is not None:
            return False
        connection.execute(
            sa.insert(api_tokens).values(
                name=name,
                token_hash=token_hash,
                scope=scope,
                namespaces=list(namespaces) if namespaces is not None else None,
                created_at=_now(),
            )
        )
    return True


def list_tokens(engine: Engine, *, include_revoked: bool = True) -> list[TokenInfo]:
    """Every stored token, oldest first."""
    query = sa.select(api_tokens).order_by(api_tokens.c.id)
    if not include_revoked:
        query = query.where(api_tokens.c.revoked_at.is_(None))
    with engine.connect() as connection:
        return [_info(row) for row in connection.execute(query).mappings()]


def revoke_token(engine: Engine, name: str) -> TokenInfo | None:
    """Revoke the token named ``name`` (idempotent); None when there is no such token."""
    with engine.begin() as connection:
        row = _row_by_name(connection, name)
        if row is None:
            return None
        if row["revoked_at"] is None:
            connection.execute(
                sa.update(api_tokens).where(api_tokens.c.id == row["id"]).values(revoked_at=_now())
            )
        row = _row_by_name(connection, name)
    assert row is not None
    return _info(row)


def active_token_by_hash(connection: Connection, token_hash: str) -> TokenInfo | None:
    """The active (not revoked) token whose hash is ``token_hash``, or None."""
    row = (
        connection.execute(sa.select(api_tokens).where(api_tokens.c.token_hash == token_hash))
        .mappings()
        .first()
    )
    if row is None or row["revoked_at"] is not None:
        return None
    return _info(row)


def touch_token(engine: Engine, name: str) -> None:
    """Record that the token ``name`` was just used."""
    with engine.begin() as connection:
        connection.execute(
            sa.update(api_tokens).where(api_tokens.c.name == name).values(last_used_at=_now())
        )


def _row_by_name(connection: Connection, name: str) -> sa.RowMapping | None:
    return (
        connection.execute(sa.select(api_tokens).where(api_tokens.c.name == name))
        .mappings()
        .first()
    )


def _aware(value: datetime | None) -> datetime | None:
    # SQLite gives naive datetimes back; everything is stored in UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _info(row: sa.RowMapping) -> TokenInfo:
    namespaces = row["namespaces"]
    created = _aware(row["created_at"])
    assert created is not None
    return TokenInfo(
        name=row["name"],
        scope=row["scope"],
        namespaces=tuple(namespaces) if namespaces is not None else None,
        created_at=created,
        last_used_at=_aware(row["last_used_at"]),
        revoked_at=_aware(row["revoked_at"]),
    )
