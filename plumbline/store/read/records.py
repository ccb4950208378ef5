"""The read path's results: Marquez's JSON shapes as typed records (field names as Marquez spells
them, instants as ISO-8601 strings). The server's response models
(:mod:`plumbline.server.api.models`) mirror these; the store never imports the server.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class SearchResult(TypedDict):
    type: str  # DATASET | JOB
    name: str
    updatedAt: str | None
    namespace: str
    nodeId: str


class SearchPage(TypedDict):
    totalCount: int
    results: list[SearchResult]


class EventPage(TypedDict):
    events: list[dict[str, Any]]  # OpenLineage events exactly as received
    totalCount: int


class NodeRef(TypedDict):
    """A dataset's or job's id: ``{"namespace", "name"}``."""

    namespace: str
    name: str


class VersionRef(TypedDict):
    """A job version's id (or an input's dataset version: null before any run wrote it)."""

    namespace: str
    name: str
    version: str | None


class Namespace(TypedDict):
    name: str
    createdAt: str | None
    updatedAt: str | None
    ownerName: str
    description: str | None
    isHidden: bool


class NamespacePage(TypedDict):
    namespaces: list[Namespace]
    totalCount: int


class Source(TypedDict):
    type: str
    name: str
    createdAt: str | None
    updatedAt: str | None
    connectionUrl: str | None
    description: str | None


class SourcePage(TypedDict):
    sources: list[Source]
    totalCount: int


class Tag(TypedDict):
    name: str
    description: str | None


class TagPage(TypedDict):
    tags: list[Tag]
    totalCount: int


class DatasetField(TypedDict):
    name: str
    type: str | None
    tags: list[str]
    description: str | None


class ColumnLineageInput(TypedDict):
    namespace: str
    dataset: str
    field: str
    transformationDescription: str | None
    transformationType: str | None


class ColumnLineage(TypedDict):
    """One field of a dataset and the fields it is computed from."""

    name: str
    inputFields: list[ColumnLineageInput]
    transformationDescription: str | None  # the first input's (deprecated in Marquez)
    transformationType: str | None


class DatasetData(TypedDict):
    """A dataset as a lineage graph node's ``data``."""

    id: NodeRef
    type: str
    name: str
    physicalName: str
    createdAt: str | None
    updatedAt: str | None
    namespace: str
    sourceName: str
    fields: list[DatasetField]
    tags: list[str]
    lastModifiedAt: str | None
    lastLifecycleState: str | None
    description: str | None


class Dataset(DatasetData):
    """``GET …/datasets/{dataset}``."""

    currentVersion: str | None
    columnLineage: list[ColumnLineage] | None  # null when no field has column lineage
    facets: dict[str, Any]
    deleted: bool


class DatasetPage(TypedDict):
    totalCount: int
    datasets: list[Dataset]


class IoDatasetVersion(TypedDict):
    datasetVersionId: VersionRef
    facets: dict[str, Any]
    datasetVersion: str | None  # plumbline addition: the version as shown (facet's, else writer's)


class Run(TypedDict):
    id: str
    createdAt: str | None
    updatedAt: str | None
    nominalStartTime: str | None
    nominalEndTime: str | None
    state: str  # Marquez's names: NEW, RUNNING, COMPLETED, FAILED, ABORTED
    startedAt: str | None
    endedAt: str | None
    durationMs: int | None
    args: dict[str, str]
    jobVersion: VersionRef | None
    inputDatasetVersions: list[IoDatasetVersion]
    outputDatasetVersions: list[IoDatasetVersion]
    facets: dict[str, Any]
    parentRunId: str | None  # plumbline addition: the `parent` facet's run
    errorMessage: str | None  # plumbline addition: a FAIL event's error


class RunMatch(TypedDict):
    """A run found by the start of its id: enough to tell matches apart."""

    id: str
    state: str
    job: NodeRef
    startedAt: str | None
    endedAt: str | None


class RunMatches(TypedDict):
    runs: list[RunMatch]
    totalCount: int


class RunFacets(TypedDict):
    runId: str
    facets: dict[str, Any]


class RunPage(TypedDict):
    runs: list[Run]
    totalCount: int


class SchemaFieldType(TypedDict):
    name: str
    type: str | None


class SchemaFieldRetyped(TypedDict):
    name: str
    before: str | None
    after: str | None


class SchemaChanges(TypedDict):
    """What changed from the version before (plumbline.openlineage.schema_diff's one rule)."""

    added: list[SchemaFieldType]
    removed: list[SchemaFieldType]
    retyped: list[SchemaFieldRetyped]


class DatasetVersion(TypedDict):
    id: NodeRef
    type: str
    name: str
    physicalName: str
    createdAt: str | None
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
    datasetVersion: str  # plumbline addition: the `version` facet's value, else the run's id
    schemaChanges: SchemaChanges | None  # plumbline addition: against the version before in time


class DatasetVersionPage(TypedDict):
    totalCount: int
    versions: list[DatasetVersion]


class JobFields(TypedDict):
    """The fields a job has wherever it appears (job documents and lineage graph nodes)."""

    id: NodeRef
    type: str
    name: str
    simpleName: str
    parentJobName: str | None
    parentJobUuid: str | None
    createdAt: str | None
    updatedAt: str | None
    namespace: str
    inputs: list[NodeRef]
    outputs: list[NodeRef]
    location: str | None
    description: str | None
    latestRun: Run | None


class JobData(JobFields):
    """A job as a lineage graph node's ``data``."""

    currentVersion: str | None
    currentRunUuid: str | None


class Job(JobFields):
    """``GET …/jobs/{job}``."""

    latestRuns: list[Run]
    facets: dict[str, Any]
    currentVersion: str | None
    labels: list[str]
    tags: list[str]


class JobPage(TypedDict):
    totalCount: int
    jobs: list[Job]


class JobVersion(TypedDict):
    id: VersionRef
    name: str
    createdAt: str | None
    version: str
    namespace: str
    location: str | None
    context: dict[str, str]
    inputs: list[NodeRef]
    outputs: list[NodeRef]
    latestRun: Run | None


class JobVersionPage(TypedDict):
    totalCount: int
    versions: list[JobVersion]


class Edge(TypedDict):
    origin: str
    destination: str


class Confidence(TypedDict):
    """How an edge is known (issue 31 §2; plumbline additions)."""

    edgeSource: str | None  # capture | eventLog | declared | producer:<name>; None: not recorded
    completeness: str  # inferred < partial < complete
    completenessReasons: list[str]  # "<kind>: <detail>"
    lastSeen: str | None  # when it was last confirmed (an event's time)


class LineageEdge(Edge, Confidence):
    """An edge of the job/dataset graph, with how it is known."""


class LineageNode(TypedDict):
    id: str  # dataset:NS:NAME or job:NS:NAME
    type: str  # DATASET | JOB
    data: DatasetData | JobData | None
    inEdges: list[LineageEdge]
    outEdges: list[LineageEdge]


class LineageGraph(TypedDict):
    graph: list[LineageNode]
    truncated: bool  # plumbline addition: the node cap cut the graph (nearest nodes kept)
    # set by the route (its work budget, plumbline.store.read.work_budget): "node cap", "work budget"
    truncatedReason: NotRequired[str | None]


class Transformation(TypedDict):
    type: str
    subtype: str
    description: str | None
    masking: bool


class ColumnLineageInputField(TypedDict):
    namespace: str
    dataset: str
    datasetVersion: str | None
    field: str
    transformationDescription: str | None
    transformationType: str | None
    transformations: list[Transformation]  # plumbline addition
    # how the edge is known (plumbline additions): its newest transformation's report
    edgeSource: str | None
    completeness: str
    completenessReasons: list[str]
    lastSeen: str | None


class ColumnLineageNodeData(TypedDict):
    namespace: str
    dataset: str
    datasetVersion: str | None
    field: str
    fieldType: str | None
    transformationDescription: str | None
    transformationType: str | None
    inputFields: list[ColumnLineageInputField]


class ColumnLineageNode(TypedDict):
    id: str  # datasetField:NS:NAME:FIELD
    type: str  # DATASET_FIELD
    data: ColumnLineageNodeData
    inEdges: list[Edge]
    outEdges: list[Edge]


class ColumnLineageGraph(TypedDict):
    graph: list[ColumnLineageNode]
    truncated: bool  # plumbline addition
    # set by the route (its work budget, plumbline.store.read.work_budget): "node cap", "work budget"
    truncatedReason: NotRequired[str | None]


class RunSummary(TypedDict):
    id: str
    start: str | None
    end: str | None
    status: str


class DatasetSummary(TypedDict):
    namespace: str
    name: str
    version: str | None
    producedByRunId: str | None


class UpstreamRun(TypedDict):
    job: VersionRef
    run: RunSummary
    inputs: list[DatasetSummary]


class UpstreamRunLineage(TypedDict):
    runs: list[UpstreamRun]
    truncated: bool  # plumbline addition
    # set by the route (its work budget, plumbline.store.read.work_budget): "node cap", "work budget"
    truncatedReason: NotRequired[str | None]


class LineageMetric(TypedDict):
    """Events received in one interval, by event type."""

    startInterval: str | None
    endInterval: str | None
    fail: int
    start: int
    complete: int
    abort: int


class IntervalMetric(TypedDict):
    """How many jobs, datasets or sources existed at the end of one interval."""

    startInterval: str | None
    endInterval: str | None
    count: int


class ClassifiedColumn(TypedDict):
    """A column carrying a classification: declared there, or propagated along ``path`` (hops
    from the origin column, each with the edge's transformation type and subtype)."""

    namespace: str
    dataset: str
    field: str
    value: str
    origin: str  # 'declared' | 'propagated'
    declaredBy: str  # 'tag' | 'rule': how the origin column was classified
    path: list[dict[str, str]]


class ClassifiedDataset(TypedDict):
    """A dataset tagged as a whole (dataset-level tags)."""

    namespace: str
    dataset: str
    value: str | None


class ClassificationReader(TypedDict):
    """A job reading a dataset that holds classified columns, with its latest run."""

    namespace: str
    job: str
    reads: list[str]  # "namespace/dataset.field" of the classified columns it reads
    latestRunId: str | None
    latestRunState: str | None
    latestRunEndedAt: str | None


class Classification(TypedDict):
    """``GET /classifications/{tag}``: every column and dataset carrying the tag, and who reads."""

    tag: str
    columns: list[ClassifiedColumn]
    datasets: list[ClassifiedDataset]
    readers: list[ClassificationReader]
    totalCount: int  # columns carrying the tag (``columns`` is one page of them)
