"""`/metrics` in Prometheus format: ingest counts, rejects, normalization backlog and failures,
outbox lag, dead letters.

Ingest and delivery counters live in this process (they restart at zero, as Prometheus counters
may); normalization and outbox gauges are read from the database at scrape time, so they survive
restarts and agree across servers sharing a database.
"""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import APIRouter, Request, Response
from prometheus_client import CollectorRegistry, Counter, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from plumbline.openlineage.urls import redact_url
from plumbline.store import normalization_backlog
from plumbline.store.write import conflicts

router = APIRouter(tags=["metrics"])

_registry = CollectorRegistry(auto_describe=True)
_ingested = Counter(
    "plumbline_ingest_events",
    "OpenLineage events received by POST /api/v1/lineage, by result.",
    ["result"],
    registry=_registry,
)
_deliveries = Counter(
    "plumbline_forward_attempts",
    "Forwarding attempts by target and outcome (delivered, failed = will retry, dead).",
    ["target", "outcome"],
    registry=_registry,
)


def record_ingest(accepted: int, rejected: int) -> None:
    """Count events accepted and rejected by `POST /api/v1/lineage`."""
    if accepted:
        _ingested.labels(result="accepted").inc(accepted)
    if rejected:
        _ingested.labels(result="rejected").inc(rejected)


def record_delivery(target: str, outcome: str) -> None:
    """Count one forwarding attempt's outcome for ``target``."""
    _deliveries.labels(target=redact_url(target), outcome=outcome).inc()


class _OutboxCollector:
    """Outbox gauges read from the database at scrape time."""

    def __init__(self, request: Request) -> None:
        self._request = request

    def collect(self) -> Iterator[Metric]:
        from plumbline.store import outbox as queue

        with self._request.app.state.store.connection() as connection:
            summaries = queue.summarize(connection)
        now = queue.utcnow()
        families = {
            "pending": GaugeMetricFamily(
                "plumbline_outbox_pending", "Events waiting to be forwarded.", labels=["target"]
            ),
            "dead": GaugeMetricFamily(
                "plumbline_outbox_dead",
                "Events that exhausted their retries (dead letters).",
                labels=["target"],
            ),
            "delivered": GaugeMetricFamily(
                "plumbline_outbox_delivered", "Events forwarded so far.", labels=["target"]
            ),
            "lag": GaugeMetricFamily(
                "plumbline_outbox_lag_seconds",
                "Age of the oldest event not yet forwarded (0 when none is pending).",
                labels=["target"],
            ),
        }
        for summary in summaries:
            label = [redact_url(summary.target)]
            families["pending"].add_metric(label, summary.pending)
            families["dead"].add_metric(label, summary.dead)
            families["delivered"].add_metric(label, summary.delivered)
            families["lag"].add_metric(label, summary.lag_seconds(now))
        yield from families.values()


class _NormalizationCollector:
    """Events stored but not (yet) in the lineage tables, read at scrape time."""

    def __init__(self, request: Request) -> None:
        self._request = request

    def collect(self) -> Iterator[Metric]:
        with self._request.app.state.store.connection() as connection:
            backlog = normalization_backlog(connection)
        pending = GaugeMetricFamily(
            "plumbline_normalize_pending", "Events stored, waiting to be normalized."
        )
        pending.add_metric([], backlog.pending)
        failed = GaugeMetricFamily(
            "plumbline_normalize_failed",
            "Events stored that could not be normalized (kept, with the error, in pending_events).",
        )
        failed.add_metric([], backlog.failed)
        lag = GaugeMetricFamily(
            "plumbline_normalize_lag_seconds",
            "Age of the oldest event waiting to be normalized (0 when none is).",
        )
        lag.add_metric([], backlog.lag_seconds)
        yield from (pending, failed, lag)


class _ConflictCollector:
    """Lineage conflicts resolved by a rule and reported (:mod:`plumbline.store.write.conflicts`)."""

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            "plumbline_lineage_conflicts",
            "Conflicting events reported by this process, by kind: run_id_reused (the event is "
            "kept, marked failed), parent_job_mismatch, complete_and_fail_same_time (ends FAILED), "
            "weaker_source_overruled (an extraction's terminal state; live capture's stays).",
            labels=["kind"],
        )
        for kind, value in conflicts.counts().items():
            family.add_metric([kind], value)
        yield family


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """Prometheus text exposition of this server's metrics."""
    scrape = CollectorRegistry(auto_describe=False)
    scrape.register(_OutboxCollector(request))
    scrape.register(_NormalizationCollector(request))
    scrape.register(_ConflictCollector())
    body = generate_latest(_registry) + generate_latest(scrape)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
