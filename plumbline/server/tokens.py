"""Bearer tokens for central auth: create, list, revoke, and look up by hash.

A token is ``plb_`` + 32 random bytes (url-safe base64). Only its sha256 hex digest is stored (by
:mod:`plumbline.store.tokens`); the token itself is shown once, by :func:`create_token`'s caller.
High-entropy tokens make a lookup by hash safe without a constant-time compare.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable

from sqlalchemy.engine import Connection, Engine

from plumbline.errors import PlumblineError
from plumbline.store import tokens as stored
from plumbline.store.tokens import TokenInfo, list_tokens, touch_token

__all__ = [
    "SCOPES",
    "TOKEN_PREFIX",
    "TokenError",
    "TokenInfo",
    "create_token",
    "find_active_token",
    "generate_token",
    "hash_token",
    "list_tokens",
    "revoke_token",
    "touch_token",
]

TOKEN_PREFIX = "plb_"
SCOPES = ("read", "write", "admin")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,254}$")


class TokenError(PlumblineError):
    """A token operation that cannot be done (bad name or scope, duplicate, unknown token)."""


def hash_token(token: str) -> str:
    """The sha256 hex digest stored for ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def generate_token() -> str:
    """A new random token with the recognizable ``plb_`` prefix."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


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
    if not stored.insert_token(engine, name, hash_token(token), scope, limited):
        raise TokenError(f"a token named {name!r} already exists (revoke it or pick another name)")
    return token


def revoke_token(engine: Engine, name: str) -> TokenInfo:
    """Revoke the token named ``name`` (idempotent); raises :class:`TokenError` when unknown."""
    info = stored.revoke_token(engine, name)
    if info is None:
        raise TokenError(f"no token named {name!r}")
    return info


def find_active_token(connection: Connection, token: str) -> TokenInfo | None:
    """The active (not revoked) token matching ``token``, or None."""
    return stored.active_token_by_hash(connection, hash_token(token))
