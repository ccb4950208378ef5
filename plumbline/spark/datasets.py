"""Dataset identities in OpenLineage's naming convention, and credential stripping.

Files: namespace `file` (or `scheme://authority`), name the absolute path without a trailing
slash. JDBC tables: namespace `postgres://host:port` (the JDBC subprotocol), name
`db.schema.table`. Nothing here talks to the JVM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit


@dataclass(frozen=True)
class DatasetId:
    """An OpenLineage dataset identity."""

    namespace: str
    name: str

    @property
    def key(self) -> str:
        """A single string identifying the dataset inside one capture."""
        return f"{self.namespace}\x00{self.name}"


def from_location(location: str) -> DatasetId:
    """Dataset of a Hadoop path or URI (`file:/tmp/x/`, `/tmp/x`, `hdfs://nn:8020/d`, `s3a://b/k`)."""
    location = strip_credentials(location.strip())
    parts = urlsplit(location)
    scheme = parts.scheme.lower()
    path = parts.path.rstrip("/") or "/"
    if scheme in ("", "file", "local"):
        return DatasetId("file", path)
    if scheme in ("s3a", "s3n"):
        scheme = "s3"
    if scheme in ("s3", "gs", "wasbs", "abfss", "abfs"):
        return DatasetId(f"{scheme}://{parts.hostname or ''}", path.lstrip("/") or "/")
    authority = parts.hostname or ""
    if parts.port:
        authority = f"{authority}:{parts.port}"
    return DatasetId(f"{scheme}://{authority}", path)


def strip_credentials(url: str) -> str:
    """Remove `user:password@` from a URL and password-like query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1] if "@" in parts.netloc else parts.netloc
    query = "&".join(
        p for p in parts.query.split("&") if p and not _SECRET_KEY.match(p.split("=", 1)[0])
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s'\"]+@")
_SECRET_PAIR = re.compile(r"(?i)\b(password|passwd|pwd|secret|token|apikey|api_key)=[^&;,\s'\"]+")


def redact_text(text: str) -> str:
    """Free text (an error message, a stack trace) without URL credentials or `password=...`."""
    return _SECRET_PAIR.sub(r"\1=***", _URL_USERINFO.sub(r"\1", text))


_SECRET_KEY = re.compile(r"(?i).*(password|passwd|pwd|secret|token|key|credential).*")

_JDBC = re.compile(r"^jdbc:(?P<proto>[a-z0-9]+)://(?P<hostport>[^/?;]+)(?:/(?P<db>[^?;]*))?", re.I)


def from_jdbc(url: str, table: str) -> DatasetId:
    """Dataset of a JDBC table: `postgres://host:port`, `db.schema.table` (schema `public`)."""
    match = _JDBC.match(url)
    if match is None:
        return DatasetId(strip_credentials(url.split("?", 1)[0]), table)
    proto = match.group("proto").lower()
    if proto == "postgresql":
        proto = "postgres"
    hostport = match.group("hostport").rsplit("@", 1)[-1]
    if ":" not in hostport:
        hostport += ":5432" if proto == "postgres" else ""
    db = (match.group("db") or "").strip("/")
    parts = [p.strip('"') for p in table.strip().split(".")]
    if proto == "postgres" and len(parts) == 1:
        parts.insert(0, "public")
    return DatasetId(f"{proto}://{hostport}", ".".join([db, *parts] if db else parts))


def table_identifier(database: str | None, table: str) -> str:
    """`db.table` as used in the symlinks facet."""
    return f"{database or 'default'}.{table}"


def from_table(location: str | None, table: str) -> DatasetId:
    """The dataset of a catalog table: named by its location, else by its bare table name."""
    return from_location(location) if location else DatasetId("file", table)
