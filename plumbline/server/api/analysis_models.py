"""Response models of the analysis routes (impact, rerun plan): what ``/openapi.json`` documents;
a test validates real answers against them (``extra="forbid"``: an undocumented key fails)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from plumbline.server.api.models import Model

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
    truncated: bool = Field(description="the node cap cut the answer (nearest nodes kept)")
    hiddenNodes: int = Field(description="nodes reached that the caller's token may not read")
