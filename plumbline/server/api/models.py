"""Response models of the read API: Marquez's JSON shapes (field names as Marquez spells them), so
``/openapi.json`` documents exactly what the routes answer. plumbline's additions are marked."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

RunState = Literal["NEW", "RUNNING", "COMPLETED", "FAILED", "ABORTED"]


# why an analysis answer is cut short (issue 28 item 5), the same field in every analysis answer
TruncatedReason = Annotated[
    Literal["node cap", "work budget"] | None,
    Field(
        description="plumbline addition: why the answer is cut (`truncated`): `node cap`, the walk "
        "reached the server's node cap (nearest nodes kept); `work budget`, the analysis read as "
        "many rows as one answer may (`max_analysis_rows`); null when complete"
    ),
]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DatasetId(Model):
    namespace: str
    name: str


class JobId(Model):
    namespace: str
    name: str


class DatasetVersionId(Model):
    namespace: str
    name: str
    version: str


class JobVersionId(Model):
    namespace: str
    name: str
    version: str | None


class Namespace(Model):
    name: str
    createdAt: datetime
    updatedAt: datetime
    ownerName: str
    description: str | None
    isHidden: bool


class NamespaceList(Model):
    namespaces: list[Namespace]
    totalCount: int = Field(description="plumbline addition: visible namespaces in all pages")


class Source(Model):
    type: str
    name: str
    createdAt: datetime
    updatedAt: datetime
    connectionUrl: str | None
    description: str | None


class SourceList(Model):
    sources: list[Source]
    totalCount: int = Field(description="plumbline addition")


class DatasetField(Model):
    name: str
    type: str | None
    tags: list[str]
    description: str | None


class IoDatasetVersionId(Model):
    namespace: str
    name: str
    version: str | None = Field(
        description="null when no run has written the dataset yet (an external source)"
    )


class IoDatasetVersion(Model):
    datasetVersionId: IoDatasetVersionId
    facets: dict[str, Any]
    datasetVersion: str | None = Field(
        description="plumbline addition: the version as shown (the `version` facet's, else the "
        "writing run's id); null with the version"
    )


class Run(Model):
    id: str
    createdAt: datetime
    updatedAt: datetime
    nominalStartTime: datetime | None
    nominalEndTime: datetime | None
    state: RunState
    startedAt: datetime | None
    endedAt: datetime | None
    durationMs: int | None
    args: dict[str, str]
    jobVersion: JobVersionId | None
    inputDatasetVersions: list[IoDatasetVersion]
    outputDatasetVersions: list[IoDatasetVersion]
    facets: dict[str, Any]
    parentRunId: str | None = Field(description="plumbline addition: the `parent` facet's run")
    errorMessage: str | None = Field(description="plumbline addition: a FAIL event's error")


class RunList(Model):
    runs: list[Run]
    totalCount: int


class RunMatch(Model):
    """A run found by the start of its id."""

    id: str
    state: RunState
    job: JobId
    startedAt: datetime | None
    endedAt: datetime | None


class RunMatchList(Model):
    runs: list[RunMatch]
    totalCount: int = Field(description="How many runs match (the list holds at most `limit`)")


class RunFacets(Model):
    runId: str
    facets: dict[str, Any]


class DatasetData(Model):
    """A dataset as a lineage graph node's ``data``."""

    id: DatasetId
    type: str
    name: str
    physicalName: str
    createdAt: datetime
    updatedAt: datetime
    namespace: str
    sourceName: str
    fields: list[DatasetField]
    tags: list[str]
    lastModifiedAt: datetime | None
    lastLifecycleState: str | None
    description: str | None


class DatasetColumnLineageInput(Model):
    namespace: str
    dataset: str
    field: str
    transformationDescription: str | None
    transformationType: str | None


class DatasetColumnLineage(Model):
    """One field of a dataset and the fields it is computed from (the ``fields`` of the
    ``columnLineage`` facets received, one entry per input field)."""

    name: str
    inputFields: list[DatasetColumnLineageInput]
    transformationDescription: str | None = Field(description="the first input's (deprecated)")
    transformationType: str | None = Field(description="the first input's (deprecated)")


class Dataset(DatasetData):
    currentVersion: str | None
    columnLineage: list[DatasetColumnLineage] | None = Field(
        description="null when no field of the dataset has column lineage"
    )
    facets: dict[str, Any]
    deleted: bool


class DatasetList(Model):
    totalCount: int
    datasets: list[Dataset]


class SchemaFieldType(Model):
    name: str
    type: str | None


class SchemaFieldRetyped(Model):
    name: str
    before: str | None
    after: str | None


class SchemaChanges(Model):
    """Fields added, removed and retyped, nested fields as `parent.child`; types compared
    without case or whitespace (one rule with schema-drift alerts and run diff)."""

    added: list[SchemaFieldType]
    removed: list[SchemaFieldType]
    retyped: list[SchemaFieldRetyped]


class DatasetVersion(Model):
    id: DatasetId
    type: str
    name: str
    physicalName: str
    createdAt: datetime
    version: str
    namespace: str
    sourceName: str
    fields: list[DatasetField]
    tags: list[str]
    lifecycleState: str | None
    description: str | None
    currentSchemaVersion: str | None
    createdByRun: Run | None
    facets: dict[str, Any]
    datasetVersion: str = Field(
        description="plumbline addition: the `version` facet's value, else the writing run's id"
    )
    schemaChanges: SchemaChanges | None = Field(
        default=None,
        description="plumbline addition: what changed in the schema since the dataset's version "
        "before this one in time; null for its first version (or when its contents may not be read)",
    )


class DatasetVersionList(Model):
    totalCount: int
    versions: list[DatasetVersion]


class JobFields(Model):
    """The fields a job has wherever it appears (job documents and lineage graph nodes)."""

    id: JobId
    type: str
    name: str
    simpleName: str
    parentJobName: str | None
    parentJobUuid: str | None
    createdAt: datetime
    updatedAt: datetime
    namespace: str
    inputs: list[DatasetId]
    outputs: list[DatasetId]
    location: str | None
    description: str | None
    latestRun: Run | None


class JobData(JobFields):
    """A job as a lineage graph node's ``data``."""

    currentVersion: str | None
    currentRunUuid: str | None = None


class Job(JobFields):
    latestRuns: list[Run]
    facets: dict[str, Any]
    currentVersion: str | None
    labels: list[str]
    tags: list[str]


class JobList(Model):
    totalCount: int
    jobs: list[Job]


class JobVersion(Model):
    id: JobVersionId
    name: str
    createdAt: datetime
    version: str
    namespace: str
    location: str | None
    context: dict[str, str]
    inputs: list[DatasetId]
    outputs: list[DatasetId]
    latestRun: Run | None


class JobVersionList(Model):
    totalCount: int
    versions: list[JobVersion]


class Edge(Model):
    origin: str
    destination: str


Completeness = Literal["inferred", "partial", "complete"]


class Confidence(Model):
    """How an edge is known (plumbline additions, issue 31 §2)."""

    edgeSource: str | None = Field(
        description="who reported the edge most recently: capture, eventLog, declared or "
        "producer:<name> (null: recorded before edges kept their confidence)"
    )
    completeness: Completeness = Field(description="inferred < partial < complete")
    completenessReasons: list[str] = Field(description='why it is not complete: "<kind>: <detail>"')
    lastSeen: str | None = Field(description="when the edge was last confirmed (event time)")


class LineageEdge(Edge, Confidence):
    """An edge of the job/dataset graph, with how it is known."""


class LineageNode(Model):
    id: str = Field(description="dataset:NS:NAME or job:NS:NAME")
    type: Literal["DATASET", "JOB"]
    data: DatasetData | JobData | None
    inEdges: list[LineageEdge]
    outEdges: list[LineageEdge]


class LineageGraph(Model):
    graph: list[LineageNode]
    truncated: bool = Field(
        description="plumbline addition: true when the node cap or the work budget cut the graph "
        "(nearest nodes kept)"
    )
    truncatedReason: TruncatedReason = None


class Transformation(Model):
    type: str
    subtype: str
    description: str | None
    masking: bool


class ColumnLineageInputField(Model):
    namespace: str
    dataset: str
    datasetVersion: str | None
    field: str
    transformationDescription: str | None
    transformationType: str | None
    transformations: list[Transformation] = Field(description="plumbline addition")
    edgeSource: str | None = Field(
        description="plumbline addition: who reported the edge most recently (see Confidence)"
    )
    completeness: Completeness = Field(
        description="plumbline addition: inferred < partial < complete"
    )
    completenessReasons: list[str] = Field(description="plumbline addition: why not complete")
    lastSeen: str | None = Field(description="plumbline addition: when last confirmed")


class ColumnLineageNodeData(Model):
    namespace: str
    dataset: str
    datasetVersion: str | None
    field: str
    fieldType: str | None
    transformationDescription: str | None
    transformationType: str | None
    inputFields: list[ColumnLineageInputField]


class ColumnLineageNode(Model):
    id: str = Field(description="datasetField:NS:NAME:FIELD")
    type: Literal["DATASET_FIELD"]
    data: ColumnLineageNodeData
    inEdges: list[Edge]
    outEdges: list[Edge]


class ColumnLineageGraph(Model):
    graph: list[ColumnLineageNode]
    truncated: bool = Field(
        description="plumbline addition: true when the node cap or the work budget cut the graph"
    )
    truncatedReason: TruncatedReason = None


class JobSummary(Model):
    namespace: str
    name: str
    version: str | None


class RunSummary(Model):
    id: str
    start: datetime | None
    end: datetime | None
    status: RunState


class DatasetSummary(Model):
    namespace: str
    name: str
    version: str | None
    producedByRunId: str | None


class UpstreamRun(Model):
    job: JobSummary
    run: RunSummary
    inputs: list[DatasetSummary]


class UpstreamRunLineage(Model):
    runs: list[UpstreamRun]
    truncated: bool = Field(description="plumbline addition")
    truncatedReason: TruncatedReason = None


class LineageEventList(Model):
    events: list[dict[str, Any]] = Field(description="OpenLineage events exactly as received")
    totalCount: int


class SearchResult(Model):
    type: Literal["DATASET", "JOB"]
    name: str
    updatedAt: datetime
    namespace: str
    nodeId: str


class SearchResultList(Model):
    totalCount: int
    results: list[SearchResult]


class Tag(Model):
    name: str
    description: str | None


class TagList(Model):
    tags: list[Tag]
    totalCount: int = Field(description="plumbline addition")


class ClassifiedColumn(Model):
    namespace: str
    dataset: str
    field: str
    value: str
    origin: str = Field(description="declared | propagated")
    declaredBy: str = Field(description="tag | rule: how the origin column was classified")
    path: list[dict[str, str]] = Field(
        description="hops from the origin column: namespace, name, field (type, subtype after "
        "the first); a hop a limited token may not see keeps only type, subtype, hidden"
    )


class ClassifiedDataset(Model):
    namespace: str
    dataset: str
    value: str | None


class ClassificationReader(Model):
    namespace: str
    job: str
    reads: list[str]
    latestRunId: str | None
    latestRunState: str | None
    latestRunEndedAt: str | None


class Classification(Model):
    tag: str
    columns: list[ClassifiedColumn]
    datasets: list[ClassifiedDataset]
    readers: list[ClassificationReader]
    totalCount: int


class Declassification(BaseModel):
    """Body of ``PUT …/fields/{field}/declassifications/{tag}``."""

    reason: str = Field(min_length=1, max_length=10_000)


class CreatedTag(BaseModel):
    """Body of ``PUT /tags/{tag}``."""

    description: str | None = None


class LineageMetric(Model):
    startInterval: datetime
    endInterval: datetime
    fail: int
    start: int
    complete: int
    abort: int


class IntervalMetric(Model):
    startInterval: datetime
    endInterval: datetime
    count: int
