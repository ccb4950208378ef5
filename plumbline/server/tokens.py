"""Bearer tokens for central auth: create, list, revoke, and look up by hash.

A token is ``plb_`` + 32 random bytes (url-safe base64). Only its sha256 hex digest is stored; the
token itself is shown once, by :func:`create_token`'s caller. High-entropy tokens make a lookup by
hash safe without a constant-time compare.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from plumbline.store.schema import api_tokens

TOKEN_PREFIX = "plb_"
SCOPES = ("read", "write", "admin")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,254}$")


class TokenError(Exception):
    """A token operation that cannot be done (bad name or scope, duplicate, unknown token)."""


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


def hash_token(token: str) -> str:
    """The sha256 hex digest stored for ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def generate_token() -> str:
    """A new random token with the recognizable ``plb_`` prefix."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _now() -> datetime:
    return datetime.now(UTC)


def create_token(
    engine: Engine, name: str, scope: str, namespaces: Iterable[str] | None = None
) -> str:
    """Store a new token named ``name``; returns the token (the only time it is available)."""
    if not _NAME.match(name or ""):
        raise TokenError(
            f"invalid token name {name!r}: use letters, digits and . _ @ - (up to 255 characters)"
        )
    if scope not in SCOPES:
        raise TokenError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    limited = sorted(set(namespaces)) if namespaces else None
    if limited is not None and any(not ns for ns in limited):
        raise TokenError("namespaces must not be empty strings")
    token = generate_token()
    with engine.begin() as connection:
        if _row_by_name(connection, name) is not None:
            raise TokenError(
                f"a token named {name!r} already exists (revoke it or pick another name)"
            )
        connection.execute(
            sa.insert(api_tokens).values(
                name=name,
                token_hash=hash_token(token),
                scope=scope,
                namespaces=limited,
                created_at=_now(),
            )
        )
    return token


def list_tokens(engine: Engine, *, include_revoked: bool = True) -> list[TokenInfo]:
    """Every stored token, oldest first."""
    query = sa.select(api_tokens).order_by(api_tokens.c.id)
    if not include_revoked:
        query = query.where(api_tokens.c.revoked_at.is_(None))
    with engine.connect() as connection:
        return [_info(row) for row in connection.execute(query).mappings()]


def revoke_token(engine: Engine, name: str) -> TokenInfo:
    """Revoke the token named ``name`` (idempotent); raises :class:`TokenError` when unknown."""
    with engine.begin() as connection:
        row = _row_by_name(connection, name)
        if row is None:
            raise TokenError(f"no token named {name!r}")
        if row["revoked_at"] is None:
            connection.execute(
                sa.update(api_tokens).where(api_tokens.c.id == row["id"]).values(revoked_at=_now())
            )
        row = _row_by_name(connection, name)
    assert row is not None
    return _info(row)


def find_active_token(connection: Connection, token: str) -> TokenInfo | None:
    """The active (not revoked) token matching ``token``, or None."""
    row = (
        connection.execute(
            sa.select(api_tokens).where(api_tokens.c.token_hash == hash_token(token))
        )
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
