"""Response models of the analysis routes (impact, rerun plan): what ``/openapi.json`` documents;
a test validates real answers against them (``extra="forbid"``: an undocumented key fails)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from plumbline.server.api.models import Model, TruncatedReason

NodeType = Literal["DATASET", "JOB", "DATASET_FIELD"]


class ImpactTransformation(Model):
    type: str = Field(description="DIRECT or INDIRECT")
    subtype: str = Field(description="IDENTITY, TRANSFORMATION, AGGREGATION, JOIN, FILTER, …")


class ImpactLastRun(Model):
    id: str
    state: str | None = Field(description="NEW, RUNNING, COMPLETED, FAILED or ABORTED")
    startedAt: str | None
    endedAt: str | None


class ImpactLastVersion(Model):
    version: str
    createdAt: str | None = Field(description="when the version was written")
    runId: str | None = Field(description="the run that wrote it")


class ImpactNode(Model):
    id: str = Field(description="dataset:NS:NAME, job:NS:NAME or datasetField:NS:NAME:FIELD")
    type: NodeType
    namespace: str
    name: str = Field(description="the job's or dataset's name (a field's dataset)")
    distance: int = Field(description="edges from the start (0: the start itself)")
    path: list[str | None] = Field(
        description="one shortest path, start first; null for a node the caller may not read"
    )
    lastRun: ImpactLastRun | None = Field(
        default=None, description="jobs: the latest run by event time"
    )
    lastVersion: ImpactLastVersion | None = Field(
        default=None, description="datasets and fields: the dataset's current version"
    )
    field: str | None = Field(default=None, description="fields only")
    fieldType: str | None = Field(default=None, description="fields only")
    pathTransformations: list[list[ImpactTransformation]] | None = Field(
        default=None, description="fields only: the transformations of each hop of `path`"
    )
    indirectOnly: bool | None = Field(
        default=None, description="fields only: every path to it crosses an INDIRECT edge"
    )


class ImpactEdge(Model):
    origin: str
    destination: str
    completeness: Literal["inferred", "partial", "complete"] = Field(
        description="how complete the edge's producer said its lineage is: inferred < partial "
        "< complete (a column-mode edge: the best of its transformations)"
    )
    transformations: list[ImpactTransformation] | None = Field(
        default=None, description="column mode: the edge's transformations"
    )


class ImpactLevel(Model):
    distance: int
    nodes: list[str]


class Impact(Model):
    nodeId: str
    direction: Literal["downstream", "upstream"]
    mode: Literal["table", "column"] = Field(description="column when nodeId is a field")
    depth: int
    nodes: list[ImpactNode] = Field(description="by distance, then type, then id; start first")
    edges: list[ImpactEdge] = Field(description="edges among the listed nodes, as data flows")
    levels: list[ImpactLevel] = Field(description="node ids grouped by distance")
    truncated: bool = Field(description="the node cap or the work budget cut the answer")
    truncatedReason: TruncatedReason = None
    hiddenNodes: int = Field(description="nodes reached that the caller's token may not read")


class RerunJob(Model):
    namespace: str
    name: str


class RerunVersionUse(Model):
    namespace: str
    name: str
    version: str | None
    affected: bool = Field(description="the version derives from a bad version")
    versionSource: str | None = Field(
        default=None, description="reads: datasetVersion, catalog or eventTime"
    )


class RerunRun(Model):
    id: str
    state: str
    startedAt: str | None
    endedAt: str | None
    parentRunId: str | None
    parentJob: RerunJob | None
    reads: list[RerunVersionUse]
    writes: list[RerunVersionUse]


class RerunStep(Model):
    order: int = Field(description="1, 2, …: a step never comes before one it reads from")
    job: RerunJob
    parentJob: RerunJob | None = Field(
        description="the job of its runs' parent run (an orchestrator task, a Spark application)"
    )
    after: list[int] = Field(description="the orders of the earlier steps it reads from")
    inCycle: bool = Field(description="its jobs read each other: ordered by run time")
    runs: list[RerunRun] = Field(description="the runs to redo, oldest first")


class RerunGroup(Model):
    parentJob: RerunJob | None
    steps: list[int]


class RerunBadVersion(Model):
    namespace: str
    name: str
    version: str
    createdAt: str | None
    runId: str | None


class RerunPrunedRun(Model):
    id: str
    job: RerunJob
    state: str | None
    endedAt: str | None
    prunedAt: str | None


class RerunPlan(Model):
    source: dict[str, str] = Field(
        description="the question: nodeId with since or version, or runId"
    )
    badVersions: list[RerunBadVersion]
    steps: list[RerunStep]
    groups: list[RerunGroup] = Field(description="steps by parent job, in order")
    affectedVersions: int = Field(description="bad versions and the versions derived from them")
    hiddenSteps: int = Field(description="steps of jobs the caller's token may not read")
    prunedRuns: list[RerunPrunedRun] = Field(
        description="runs `db prune` removed, since the bad data appeared, of jobs reading an "
        "affected dataset: what they read is no longer stored, so they may need a rerun too"
    )
    truncated: bool = Field(
        default=False, description="the work budget cut the plan: it may miss steps"
    )
    truncatedReason: TruncatedReason = None
