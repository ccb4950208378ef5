"""Settings of one server process, built by `plumbline serve` (flags, config file, environment:
see :func:`plumbline.server.config.build_settings`) or by tests. The server reads nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from plumbline.server.outbox.policy import OutboxPolicy
from plumbline.store.write.alert_rules import AlertRules

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_BODY_BYTES_LIMIT = 1024 * 1024 * 1024  # the largest --max-body-bytes accepted


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
    # retry policy of the forwarding outbox
    outbox: OutboxPolicy = OutboxPolicy()
    # threads that store accepted events raw, on PostgreSQL (None: two; SQLite always has one)
    writer_threads: int | None = None
    # one line per request on the plumbline.access logger (see plumbline.server.access_log)
    access_log: bool = True
    # Host names served besides loopback ones (plumbline.server.request_guard)
    allowed_hosts: tuple[str, ...] = ()
    # with auth 'required': /metrics, /openapi.json and /docs need a read token too
    auth_meta: bool = False
    # change alerts (issue 19): their thresholds, and how often the freshness check runs
    alerts: AlertRules = AlertRules()
    alert_check_seconds: float = 60.0
