"""Response models of the lineage health routes (alerts, coverage): what ``/openapi.json``
documents; tests validate real answers against them (``extra="forbid"``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from plumbline.server.api.models import Model


class BlastNode(Model):
    id: str = Field(description="dataset:NS:NAME, job:NS:NAME or datasetField:NS:NAME:FIELD")
    type: str
    distance: int


class BlastRadius(Model):
    datasets: int = Field(description="downstream datasets")
    jobs: int = Field(description="downstream jobs")
    fields: int = Field(description="downstream fields (a field's alert)")
    nodes: list[BlastNode] = Field(description="the nearest 100, by distance")
    truncated: bool
    error: str | None = None


class Alert(Model):
    id: int
    kind: str = Field(
        description="new-edge, stopped-edge, schema-drift, volume-anomaly, "
        "duration-anomaly, freshness, failure-after-success or observed-deviation"
    )
    seenAt: str = Field(description="when plumbline found it")
    runId: str | None = Field(description="the run that caused it")
    subject: str = Field(description="the dataset, job or field, as a Marquez node id")
    namespace: str = Field(description="the subject's namespace")
    details: dict[str, Any]
    blastRadius: BlastRadius | None = Field(description="null until computed (just after)")
    acknowledgedAt: str | None
    acknowledgedBy: str | None


class AlertList(Model):
    alerts: list[Alert]


class Producer(Model):
    producer: str
    events: int


class CoverageMeasures(Model):
    unproducedInputs: int = Field(description="datasets read, with no known producer")
    outputs: int
    outputsWithoutSchema: int
    outputsWithoutColumnLineage: int
    outputFields: int
    outputFieldsWithLineage: int
    columnLineageShare: float | None = Field(description="output fields with column lineage")
    jobsWithUnfinishedRuns: int
    unfinishedRuns: int = Field(description="runs with a START and no end")
    failedEventRuns: int = Field(description="runs with events that failed normalization")
    failedEvents: int
    producers: list[Producer]


class NamespaceCoverage(CoverageMeasures):
    namespace: str
    examples: dict[str, list[str]] = Field(description="names behind the counts, 20 at most")


class Coverage(Model):
    since: str
    overall: CoverageMeasures
    namespaces: list[NamespaceCoverage]
