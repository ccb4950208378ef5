"""Settings of one server process, built by `plumbline serve` (flags, config file) or by tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from plumbline.server.outbox.policy import OutboxPolicy

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class ForwardTarget:
    """Another OpenLineage backend every accepted event is passed on to."""

    url: str
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ServerSettings:
    """Everything a server needs to start; defaults suit a local, single-user server."""

    db_url: str
    host: str = "127.0.0.1"
    port: int = 5000
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    auth: str = "open"  # 'open' | 'required'
    store: bool = True  # False: proxy-only (forward without keeping lineage)
    forward: tuple[ForwardTarget, ...] = ()
    # catalog name -> pyiceberg properties
    catalogs: dict[str, dict[str, Any]] = field(default_factory=dict)
    # graph endpoints cut their result at this many nodes and say so
    max_graph_nodes: int = 2000
    # retry policy of the forwarding outbox (None: defaults and PLUMBLINE_OUTBOX_* variables)
    outbox: OutboxPolicy | None = None
