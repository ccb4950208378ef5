"""Settings of one server process, built by `plumbline serve` (flags, config file, environment:
see :func:`plumbline.server.config.build_settings`) or by tests. The server reads nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from plumbline.openlineage.urls import lineage_endpoint, redact_url, target_key
from plumbline.server.outbox.policy import OutboxPolicy
from plumbline.store import DEFAULT_MAX_ANALYSIS_ROWS
from plumbline.store.write.alert_rules import AlertRules
from plumbline.store.write.classification_rules import ClassificationRules

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_BODY_BYTES_LIMIT = 1024 * 1024 * 1024  # the largest --max-body-bytes accepted
DEFAULT_INGEST_MEMORY_BYTES = 512 * 1024 * 1024
INGEST_MEMORY_BYTES_LIMIT = 1024**4  # the largest --ingest-memory-bytes accepted (1 TiB)
DEFAULT_BODY_TIMEOUT_SECONDS = 10.0
DEFAULT_BODY_MIN_RATE = 16 * 1024


@dataclass(frozen=True)
class ForwardTarget:
    """Another OpenLineage backend every accepted event is passed on to."""

    url: str
    api_key: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def endpoint(self) -> str:
        """Where events are posted: the URL's lineage endpoint."""
        return lineage_endpoint(self.url)

    @property
    def key(self) -> str:
        """The outbox's name of this target (no credentials)."""
        return target_key(self.url)


NOTIFY_PREFIX = "notify:"


@dataclass(frozen=True)
class NotifyTarget:
    """A webhook change alerts are posted to (issue 19), through the same outbox as forwarding;
    ``namespaces``/``kinds`` empty: all."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    namespaces: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    api_key: str | None = None
    # loopback and private addresses allowed (link-local never: plumbline.server.outbox.addresses)
    allow_private: bool = False

    @property
    def endpoint(self) -> str:
        """The URL itself (checked: http or https)."""
        lineage_endpoint(self.url)  # raises ValueError for a URL that is not http(s)
        return self.url.strip()

    @property
    def key(self) -> str:
        """The outbox's name of this webhook: ``notify:`` and the URL without credentials."""
        return NOTIFY_PREFIX + redact_url(self.endpoint)

    def wants(self, kind: str, namespace: str) -> bool:
        """Whether an alert of ``kind`` about ``namespace`` goes to this webhook."""
        return (not self.kinds or kind in self.kinds) and (
            not self.namespaces or namespace in self.namespaces
        )


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
    # rows one analysis read may read from the store; past them its answer is cut and says so
    max_analysis_rows: int = DEFAULT_MAX_ANALYSIS_ROWS
    # retry policy of the forwarding outbox
    outbox: OutboxPolicy = OutboxPolicy()
    # threads that store accepted events raw, on PostgreSQL (None: two; SQLite always has one)
    writer_threads: int | None = None
    # one line per request on the plumbline.access logger (see plumbline.server.access_log)
    access_log: bool = True
    # bytes all concurrent ingestion requests may hold (plumbline.server.ingest_budget)
    ingest_memory_bytes: int = DEFAULT_INGEST_MEMORY_BYTES
    # a request body must arrive at body_min_rate bytes/s on average after its first
    # body_timeout_seconds, else 408 (plumbline.server.ingest)
    body_timeout_seconds: float = DEFAULT_BODY_TIMEOUT_SECONDS
    body_min_rate: int = DEFAULT_BODY_MIN_RATE
    # Host names served besides loopback ones (plumbline.server.request_guard)
    allowed_hosts: tuple[str, ...] = ()
    # with auth 'required': /metrics, /openapi.json and /docs need a read token too
    auth_meta: bool = False
    # change alerts (issue 19): their thresholds, and how often the freshness check runs
    alerts: AlertRules = AlertRules()
    # classifications (issue 32 §1): INDIRECT subtypes that propagate, column rules
    classifications: ClassificationRules = ClassificationRules()
    alert_check_seconds: float = 60.0
    # webhooks change alerts are posted to
    notify: tuple[NotifyTarget, ...] = ()
