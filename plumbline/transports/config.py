"""TransportConfig: which transport to use and how to reach its destination."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from plumbline.openlineage.urls import lineage_endpoint, redact_url
from plumbline.transports.errors import TransportConfigError

TRANSPORT_TYPES = ("http", "file", "console")
COMPRESSIONS = (None, "gzip")

# from_dict keys -> field names (camelCase as in Spark conf and the OpenLineage client's YAML)
_KEY_ALIASES = {
    "type": "type",
    "url": "url",
    "api_key": "api_key",
    "apiKey": "api_key",
    "path": "path",
    "timeout": "timeout",
    "headers": "headers",
    "compression": "compression",
}


@dataclass(frozen=True)
class TransportConfig:
    """Settings of one transport; validated on construction (TransportConfigError)."""

    type: str = "console"
    url: str | None = None
    api_key: str | None = None
    path: str | None = None
    timeout: float = 5.0
    headers: Mapping[str, str] = field(default_factory=dict)
    compression: str | None = None

    def __post_init__(self) -> None:
        kind = self.type.strip().lower() if isinstance(self.type, str) else self.type
        if kind not in TRANSPORT_TYPES:
            raise TransportConfigError(
                f"transport type must be one of {', '.join(TRANSPORT_TYPES)}, got {self.type!r}"
            )
        object.__setattr__(self, "type", kind)
        if kind == "http":
            if not self.url:
                raise TransportConfigError("the http transport needs a url")
            try:
                lineage_endpoint(self.url)
            except ValueError as exc:
                raise TransportConfigError(f"transport url: {exc}") from exc
        if kind == "file" and not self.path:
            raise TransportConfigError("the file transport needs a path")
        if self.api_key is not None and not isinstance(self.api_key, str):
            raise TransportConfigError("transport api_key must be a string")
        object.__setattr__(self, "timeout", _positive_float(self.timeout))
        object.__setattr__(self, "headers", _headers(self.headers))
        compression = self.compression
        if isinstance(compression, str):
            compression = compression.strip().lower() or None
            compression = None if compression == "none" else compression
        if compression not in COMPRESSIONS:
            raise TransportConfigError(
                f"transport compression must be 'gzip' or none, got {compression!r}"
            )
        object.__setattr__(self, "compression", compression)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TransportConfig:
        """Build from a mapping (snake_case or camelCase keys; `apiKey` also as `auth: {apiKey}`)."""
        if not isinstance(d, Mapping):
            raise TransportConfigError(
                f"transport config must be a mapping, got {type(d).__name__}"
            )
        values: dict[str, Any] = {}
        for key, value in d.items():
            if key == "auth":  # the OpenLineage client's form: {type: api_key, apiKey: ...}
                if not isinstance(value, Mapping) or "apiKey" not in value:
                    raise TransportConfigError("transport auth must be a mapping with an apiKey")
                values["api_key"] = value["apiKey"]
                continue
            name = _KEY_ALIASES.get(key)
            if name is None:
                known = ", ".join(sorted(set(_KEY_ALIASES) | {"auth"}))
                raise TransportConfigError(f"unknown transport setting {key!r} (known: {known})")
            if value is not None:
                values[name] = value
        return cls(**values)

    @property
    def endpoint(self) -> str | None:
        """The URL the http transport posts to (None for other types)."""
        return lineage_endpoint(self.url) if self.type == "http" and self.url else None

    def __repr__(self) -> str:
        # Never show the api key or URL credentials.
        parts = [f"type={self.type!r}"]
        if self.url:
            parts.append(f"url={redact_url(self.url)!r}")
        if self.api_key:
            parts.append("api_key='***'")
        if self.path:
            parts.append(f"path={self.path!r}")
        parts.append(f"timeout={self.timeout!r}")
        if self.headers:
            parts.append(f"headers={sorted(self.headers)!r}")
        if self.compression:
            parts.append(f"compression={self.compression!r}")
        return f"TransportConfig({', '.join(parts)})"


def _positive_float(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TransportConfigError(f"transport timeout must be a number, got {value!r}") from None
    if not math.isfinite(number) or number <= 0:
        raise TransportConfigError(f"transport timeout must be positive, got {value!r}")
    return number


def _headers(value: Any) -> Mapping[str, str]:
    if not isinstance(value, Mapping):
        raise TransportConfigError("transport headers must be a mapping of names to values")
    for name, val in value.items():
        if not isinstance(name, str) or not isinstance(val, str):
            raise TransportConfigError("transport header names and values must be strings")
    return MappingProxyType(dict(value))
