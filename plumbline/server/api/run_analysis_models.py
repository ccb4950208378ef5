"""Response models of run diff, root cause and version lineage: what ``/openapi.json`` documents;
a test validates real answers against them (``extra="forbid"``: an undocumented key fails). The
web UI reads these keys, so they only ever grow."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from plumbline.server.api.models import Model, TruncatedReason


class JobRef(Model):
    namespace: str
    name: str


class RunSide(Model):
    id: str
    job: JobRef
    state: str | None = Field(description="START, RUNNING, COMPLETE, FAIL or ABORT")
    startedAt: str | None
    endedAt: str | None
    durationMs: int | None
    jobVersion: str | None
    errorMessage: str | None


class PrunedRun(Model):
    id: str
    job: JobRef
    state: str | None
    endedAt: str | None
    prunedAt: str = Field(description="when `plumbline db prune` removed it")


class Pair(Model):
    before: Any = Field(description="in the run compared against")
    after: Any = Field(description="in the run")


class SchemaChange(Model):
    field: str = Field(description="nested fields as parent.child")
    change: Literal["added", "removed", "typeChanged"]
    typeBefore: str | None
    typeAfter: str | None


class IoDiff(Model):
    namespace: str
    name: str
    status: Literal["added", "removed", "kept"] = Field(
        description="added: only the run has it; removed: only the run compared against"
    )
    versionChanged: bool | None = Field(description="null: a version is unknown on one side")
    version: Pair
    versionSource: Pair = Field(
        description="inputs: datasetVersion (a version facet), catalog (enrichment's snapshot "
        "id) or eventTime (the version as of the run's event time)"
    )
    schemaKnown: bool = Field(description="both schemas known")
    schemaChanges: list[SchemaChange]
    rowCount: Pair
    byteCount: Pair
    fileCount: Pair
    statisticsChanged: bool = Field(
        description="statistics changed before the run (those its failure emptied left out)"
    )
    causedByFailure: list[Literal["rowCount", "byteCount", "fileCount"]] = Field(
        description="statistics a failed run reports as zero or not at all where the other run "
        "had some: what the failure caused, not a change before it ran"
    )


class KeyChange(Model):
    key: str
    before: Any
    after: Any


class FacetChange(Model):
    facet: str
    change: Literal["added", "removed", "changed"]
    keys: list[KeyChange] = Field(description="for a facet holding a map: the keys that changed")


class FieldRef(Model):
    namespace: str
    name: str
    field: str


class ColumnEdge(Model):
    output: FieldRef
    input: FieldRef
    type: str
    subtype: str


class ColumnLineageDiff(Model):
    available: bool = Field(description="false when a run's raw events were pruned")
    reason: str | None
    added: list[ColumnEdge]
    removed: list[ColumnEdge]


class Suspect(Model):
    kind: Literal[
        "jobChanged", "inputChanged", "runFacetsChanged", "observedDeviation", "outputChanged",
        "error",
    ]  # fmt: skip
    subject: str
    detail: str


class FailureEffect(Model):
    kind: Literal["inputRead", "outputWritten"]
    subject: str
    detail: str


class DatasetRef(Model):
    namespace: str
    name: str


class Deviation(Model):
    kind: Literal["unreadInput", "emptyOutput", "allNullColumn"]
    namespace: str
    name: str
    field: str | None = Field(default=None, description="the column (allNullColumn)")
    detail: str


class ObservedDeviations(Model):
    before: list[Deviation] = Field(description="the run compared against's")
    after: list[Deviation] = Field(description="the run's")
    new: list[Deviation] = Field(description="the run's, not the run compared against's")


class RunDiff(Model):
    run: RunSide
    against: RunSide | None
    againstReason: Literal["lastCompleteBefore", "requested", "noEarlierCompleteRun"]
    inputs: list[IoDiff]
    outputs: list[IoDiff]
    inputsAdded: list[DatasetRef]
    inputsRemoved: list[DatasetRef]
    jobVersion: Pair
    jobVersionChanged: bool | None = Field(
        description="the job version, its source code or SQL facet, or the Spark version changed"
    )
    jobFacetChanges: list[FacetChange]
    sparkVersion: Pair
    runFacetChanges: list[FacetChange]
    durationMs: Pair
    columnLineage: ColumnLineageDiff
    error: str | None = Field(description="the run's error message")
    errorSummary: str | None = Field(description="its innermost exception's message")
    suspects: list[Suspect] = Field(description="what most likely made the difference, first")
    causedByFailure: list[FailureEffect] = Field(
        description="what a failed run's failure itself caused (reads and writes it emptied, "
        "outputs it did not write), apart from what changed before it ran"
    )
    prunedRuns: list[PrunedRun] = Field(
        description="runs of the job pruned that would have been compared with instead"
    )
    observedDeviations: ObservedDeviations = Field(
        description="where each run's plan and its execution disagreed (the capture's "
        "plumbline_observedDeviations run facet)"
    )
    truncated: bool = Field(
        default=False, description="the work budget cut the runs' facts: the diff may be partial"
    )
    truncatedReason: TruncatedReason = None


class ProducedVersion(Model):
    namespace: str
    name: str
    version: str | None


class UpstreamRun(Model):
    distance: int = Field(description="runs away from the start")
    run: RunSide
    state: str | None
    suspect: bool
    reasons: list[
        Literal["failed", "jobChanged", "outputChanged", "observedDeviation", "inputChanged"]
    ]
    against: str | None = Field(description="the run its changes are measured against")
    changes: list[Suspect]
    produced: list[ProducedVersion] = Field(description="the versions it wrote that were read")


class RootCause(Model):
    run: RunSide
    against: str | None
    changes: list[Suspect] = Field(description="what changed in the run itself")
    upstream: list[UpstreamRun] = Field(description="suspects first, each group nearest first")
    prunedRuns: list[PrunedRun] = Field(description="writers of versions read, since pruned")
    truncated: bool
    truncatedReason: Literal["node cap", "work budget"] | None = Field(
        default=None,
        description="why the answer is cut: the walk reached the node cap, or more upstream runs "
        "than one answer compares (the nearest are kept) or more rows than one answer may read "
        "(`max_analysis_rows`); null when complete",
    )


class VersionNode(Model):
    namespace: str
    name: str
    version: str | None = Field(
        description="the version's id, as `…/datasets/{dataset}/versions` names it; null: read "
        "before any version was known"
    )
    datasetVersion: str | None = Field(
        description="the `version` facet's value (a snapshot id), else the writing run's id"
    )
    distance: int = Field(description="runs away from the start (0: the start)")
    runId: str | None = Field(description="the run that wrote this version")
    createdAt: str | None
    viaRunId: str | None = Field(description="the run linking it to the level before")
    versionSource: str | None = Field(description="upstream: how that run's input was linked")
    writerPruned: PrunedRun | None


class VersionLineage(Model):
    direction: Literal["upstream", "downstream"]
    depth: int
    versions: list[VersionNode]
    truncated: bool
    truncatedReason: TruncatedReason = None
    hiddenVersions: int = Field(description="versions reached that the token may not read")
