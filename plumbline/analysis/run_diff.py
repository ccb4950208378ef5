"""What changed between two runs of a job (``GET /jobs/runs/{id}/diff``, ``plumbline diff``).

A run is compared with the job's last COMPLETE run before it (or any run asked for): inputs added
and removed; for each input and output whether its version changed, its schema changes, its
row/byte/file counts before and after; the job's version (source code, SQL, Spark version, job
facets); run facets that changed (Spark properties, parameters, the processing engine); duration;
column lineage edges added or removed; the run's error. ``suspects`` ranks what most likely made
the difference (for a failed run: its cause), most likely first.

Column lineage, and the schema of an input no version records, come from the runs' raw events;
where those were pruned the answer says so (``columnLineage.available`` false and why).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NoReturn

from sqlalchemy.engine import Connection

from plumbline.analysis.pruned import PrunedRun, pruned_complete_runs, pruned_run
from plumbline.openlineage import deviations
from plumbline.openlineage.schema_diff import diff_schemas
from plumbline.store import InvalidArgumentError, NotFoundError, VisibleTo, iso
from plumbline.store.read.run_facts import (
    IoFacts,
    RunFacts,
    run_and_previous,
    run_pk,
    runs_events,
    runs_facts,
)
from plumbline.store.read.runs import marquez_state

# run facets that describe this run only, never how it was made: not compared
# (the observed deviations are compared on their own: `observedDeviations`)
_VOLATILE_RUN_FACETS = frozenset({"parent", "nominalTime", "errorMessage", deviations.FACET})
# facet fields every facet has (who wrote it), not part of what it says
_FACET_BASE = frozenset({"_producer", "_schemaURL", "_deleted"})
# job facets whose change is a change of the job's code
_CODE_FACETS = ("sourceCode", "sql", "sourceCodeLocation")


@dataclass(frozen=True)
class Pair:
    """A value before (in the run compared against) and after (in the run)."""

    before: Any
    after: Any

    @property
    def changed(self) -> bool:
        return bool(self.before != self.after)

    def to_json(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after}


@dataclass(frozen=True)
class SchemaChange:
    """A field added, removed or of another type (nested fields as ``parent.child``)."""

    field: str
    change: str  # added | removed | typeChanged
    type_before: str | None
    type_after: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "change": self.change,
            "typeBefore": self.type_before,
            "typeAfter": self.type_after,
        }

    def describe(self) -> str:
        """``temp_c string -> double``, ``temp_c added (double)``, ``temp_c removed (string)``."""
        if self.change == "typeChanged":
            return f"{self.field} {self.type_before} -> {self.type_after}"
        kind = self.type_after if self.change == "added" else self.type_before
        return f"{self.field} {self.change}" + (f" ({kind})" if kind else "")


@dataclass(frozen=True)
class IoDiff:
    """One input or output of either run."""

    namespace: str
    name: str
    status: str  # added (only the run has it) | removed (only the other run) | kept
    version: Pair
    version_source: Pair
    version_changed: bool | None  # None: a version is unknown on one side
    schema_known: bool  # both schemas known (else schema_changes is empty for want of them)
    schema_changes: tuple[SchemaChange, ...]
    row_count: Pair
    byte_count: Pair
    file_count: Pair
    # the statistics (rowCount, byteCount, fileCount) the run's failure emptied: symptoms
    caused_by_failure: tuple[str, ...] = ()

    def _statistics(self) -> tuple[tuple[str, str, Pair], ...]:
        return (
            ("rowCount", "rows", self.row_count),
            ("byteCount", "bytes", self.byte_count),
            ("fileCount", "files", self.file_count),
        )

    @property
    def statistics_changed(self) -> bool:
        """Statistics that changed before the run (those its failure emptied left out)."""
        return any(
            p.before is not None and p.after is not None and p.changed
            for key, _, p in self._statistics()
            if key not in self.caused_by_failure
        )

    @property
    def changed(self) -> bool:
        return (
            self.status != "kept"
            or bool(self.version_changed)
            or bool(self.schema_changes)
            or self.statistics_changed
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "status": self.status,
            "versionChanged": self.version_changed,
            "version": self.version.to_json(),
            "versionSource": self.version_source.to_json(),
            "schemaKnown": self.schema_known,
            "schemaChanges": [c.to_json() for c in self.schema_changes],
            "rowCount": self.row_count.to_json(),
            "byteCount": self.byte_count.to_json(),
            "fileCount": self.file_count.to_json(),
            "statisticsChanged": self.statistics_changed,
            "causedByFailure": list(self.caused_by_failure),
        }


@dataclass(frozen=True)
class FacetChange:
    """A run or job facet added, removed or changed; for a facet holding a map (Spark
    properties, parameters), the keys that changed."""

    facet: str
    change: str  # added | removed | changed
    keys: tuple[tuple[str, Any, Any], ...] = ()  # (key, before, after)

    def to_json(self) -> dict[str, Any]:
        return {
            "facet": self.facet,
            "change": self.change,
            "keys": [{"key": k, "before": b, "after": a} for k, b, a in self.keys],
        }


@dataclass(frozen=True)
class ColumnEdge:
    """A column lineage edge: an output field made from an input field."""

    output: tuple[str, str, str]  # namespace, dataset, field
    input: tuple[str, str, str]
    type: str
    subtype: str

    def to_json(self) -> dict[str, Any]:
        def node(ref: tuple[str, str, str]) -> dict[str, str]:
            return {"namespace": ref[0], "name": ref[1], "field": ref[2]}

        return {
            "output": node(self.output),
            "input": node(self.input),
            "type": self.type,
            "subtype": self.subtype,
        }


@dataclass(frozen=True)
class ColumnLineageDiff:
    """Column lineage edges only one run has; ``available`` false when a run's raw events (where
    a run's own column lineage is kept) were pruned."""

    available: bool
    reason: str | None
    added: tuple[ColumnEdge, ...] = ()
    removed: tuple[ColumnEdge, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "available": self.available,
            "reason": self.reason,
            "added": [e.to_json() for e in self.added],
            "removed": [e.to_json() for e in self.removed],
        }


@dataclass(frozen=True)
class RunSide:
    """One side of a diff."""

    id: str
    namespace: str
    job: str
    state: str  # Marquez's names, as the rest of the API: COMPLETED, FAILED, ABORTED, RUNNING…
    started_at: datetime | None
    ended_at: datetime | None
    job_version: str | None
    error_message: str | None

    @property
    def duration_ms(self) -> int | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return int((self.ended_at - self.started_at).total_seconds() * 1000)

    @classmethod
    def of(cls, run: RunFacts) -> RunSide:
        return cls(
            id=run.uuid,
            namespace=run.namespace,
            job=run.job,
            state=marquez_state(run.state),
            started_at=run.started_at,
            ended_at=run.ended_at,
            job_version=run.job_version,
            error_message=run.error_message,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "job": {"namespace": self.namespace, "name": self.job},
            "state": self.state,
            "startedAt": iso(self.started_at),
            "endedAt": iso(self.ended_at),
            "durationMs": self.duration_ms,
            "jobVersion": self.job_version,
            "errorMessage": self.error_message,
        }


@dataclass(frozen=True)
class Suspect:
    """Something that differs and may explain the run's outcome."""

    # inputChanged | jobChanged | runFacetsChanged | observedDeviation | outputChanged | error;
    # what a failure
    # caused (RunDiff.caused_by_failure): inputRead | outputWritten
    kind: str
    subject: str  # the dataset (namespace/name), facet or job concerned
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "detail": self.detail}


@dataclass(frozen=True)
class RunDiff:
    """What changed between ``against`` and ``run`` (``against`` None: nothing to compare with,
    ``against_reason`` says why)."""

    run: RunSide
    against: RunSide | None
    against_reason: str  # lastCompleteBefore | requested | noEarlierCompleteRun
    inputs: tuple[IoDiff, ...]
    outputs: tuple[IoDiff, ...]
    job_version: Pair
    job_version_changed: bool | None
    job_facet_changes: tuple[FacetChange, ...]
    spark_version: Pair
    run_facet_changes: tuple[FacetChange, ...]
    duration_ms: Pair
    column_lineage: ColumnLineageDiff
    error: str | None
    suspects: tuple[Suspect, ...]
    pruned: tuple[PrunedRun, ...] = field(default=())
    # what the run's failure itself caused (emptied reads and writes), apart from the suspects
    caused_by_failure: tuple[Suspect, ...] = field(default=())
    # where each run's plan and execution disagreed (issue 31 §3: the capture's
    # plumbline_observedDeviations run facet): lists of deviations before and after
    observed_deviations: Pair = field(default=Pair([], []))

    @property
    def new_deviations(self) -> list[dict[str, Any]]:
        """The run's deviations the run compared against did not have."""
        seen = {_deviation_key(d) for d in self.observed_deviations.before}
        return [d for d in self.observed_deviations.after if _deviation_key(d) not in seen]

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run.to_json(),
            "against": self.against.to_json() if self.against else None,
            "againstReason": self.against_reason,
            "inputs": [i.to_json() for i in self.inputs],
            "outputs": [o.to_json() for o in self.outputs],
            "inputsAdded": [_ref(i) for i in self.inputs if i.status == "added"],
            "inputsRemoved": [_ref(i) for i in self.inputs if i.status == "removed"],
            "jobVersion": self.job_version.to_json(),
            "jobVersionChanged": self.job_version_changed,
            "jobFacetChanges": [c.to_json() for c in self.job_facet_changes],
            "sparkVersion": self.spark_version.to_json(),
            "runFacetChanges": [c.to_json() for c in self.run_facet_changes],
            "durationMs": self.duration_ms.to_json(),
            "columnLineage": self.column_lineage.to_json(),
            "error": self.error,
            "errorSummary": error_summary(self.error) if self.error else None,
            "suspects": [s.to_json() for s in self.suspects],
            "causedByFailure": [s.to_json() for s in self.caused_by_failure],
            "prunedRuns": [p.to_json() for p in self.pruned],
            "observedDeviations": {
                **self.observed_deviations.to_json(),
                "new": self.new_deviations,
            },
        }


def _deviation_key(item: dict[str, Any]) -> tuple[str, str, str, str]:
    return (item["kind"], item["namespace"], item["name"], item.get("field") or "")


def _ref(io: IoDiff) -> dict[str, str]:
    return {"namespace": io.namespace, "name": io.name}


def diff_runs(
    conn: Connection, run_id: str, against: str | None = None, visible_to: VisibleTo = None
) -> RunDiff:
    """The diff of run ``run_id`` against run ``against`` (default: the job's last COMPLETE run
    before it). Unknown runs: :class:`NotFoundError` naming them (and saying when a run was
    pruned); a run of another job: :class:`InvalidArgumentError`.

    A handful of statements whatever the runs: the run with the one to compare it with, both
    runs' facts, their inputs and outputs, their raw events, and the pruned runs in between
    (asked only when the job has pruned runs at all: the first statement says)."""
    found = run_and_previous(conn, run_id, visible_to)
    if found is None:
        _not_found(conn, run_id)
    pk, previous, job_has_pruned_runs = found
    pruned: tuple[PrunedRun, ...] = ()
    other: RunFacts | None
    if against is not None:
        other_pk = run_pk(conn, against, visible_to)
        if other_pk is None:
            _not_found(conn, against)
        facts = runs_facts(conn, [pk, other_pk])
        run, other = facts[pk], facts[other_pk]
        if other.job_id != run.job_id:
            raise InvalidArgumentError(
                f"run {against!r} is a run of job {other.namespace}:{other.job}, not of"
                f" {run.namespace}:{run.job}"
            )
        reason = "requested"
    else:
        facts = runs_facts(conn, [pk] if previous is None else [pk, previous])
        run = facts[pk]
        other = facts.get(previous) if previous is not None else None
        reason = "lastCompleteBefore" if other is not None else "noEarlierCompleteRun"
        if job_has_pruned_runs:
            pruned = tuple(_pruned_between(conn, run, other))
    events = runs_events(conn, [f.uuid for f in (run, other) if f is not None])
    return compare(run, other, reason, events, pruned)


def _not_found(conn: Connection, run_id: str) -> NoReturn:
    """:class:`NotFoundError` naming the run (and when it was pruned, if so)."""
    gone = pruned_run(conn, run_id)
    if gone is not None:
        raise NotFoundError(f"run {run_id!r} was pruned at {iso(gone.pruned_at)}")
    raise NotFoundError(f"run {run_id!r} not found")


def facts_of_run(conn: Connection, run_id: str, visible_to: VisibleTo) -> RunFacts:
    """The facts of a run; :class:`NotFoundError` naming it (and when it was pruned, if so)."""
    pk = run_pk(conn, run_id, visible_to)
    if pk is None:
        _not_found(conn, run_id)
    return runs_facts(conn, [pk])[pk]


def _pruned_between(conn: Connection, run: RunFacts, other: RunFacts | None) -> list[PrunedRun]:
    """COMPLETE runs of the job, pruned, that would have been compared with instead."""
    after = other.time if other is not None else None
    return pruned_complete_runs(conn, run.job_id, after, run.time)


def compare(
    run: RunFacts,
    other: RunFacts | None,
    reason: str,
    events_of: dict[str, list[dict[str, Any]]],
    pruned: tuple[PrunedRun, ...] = (),
) -> RunDiff:
    """The diff of two runs' facts (``other`` None: everything of ``run`` counts as added), from
    their raw events by run uuid (for column lineage, and schemas no version records)."""
    events = events_of.get(run.uuid, [])
    other_events = events_of.get(other.uuid, []) if other is not None else []
    failed = other is not None and run.state in ("FAIL", "ABORT")
    inputs = _io_diffs(run, other, "input", events, other_events, failed)
    outputs = _io_diffs(run, other, "output", events, other_events, failed)
    before_jobs = other.job_facets if other else {}
    job_changes = _facet_changes(before_jobs, run.job_facets, frozenset()) if other else ()
    spark = Pair(_engine_version(other) if other else None, _engine_version(run))
    job_version = Pair(other.job_version if other else None, run.job_version)
    job_version_changed = (
        _job_changed(run, other, job_version, job_changes, spark) if other is not None else None
    )
    run_changes = (
        _facet_changes(other.facets, run.facets, _VOLATILE_RUN_FACETS) if other is not None else ()
    )
    before, after = RunSide.of(other) if other else None, RunSide.of(run)
    lineage = _column_lineage_diff(run, other, events, other_events)
    diff = RunDiff(
        run=after,
        against=before,
        against_reason=reason,
        inputs=inputs,
        outputs=outputs,
        job_version=job_version,
        job_version_changed=job_version_changed,
        job_facet_changes=tuple(job_changes),
        spark_version=spark,
        run_facet_changes=tuple(run_changes),
        duration_ms=Pair(before.duration_ms if before else None, after.duration_ms),
        column_lineage=lineage,
        error=run.error_message,
        suspects=(),
        pruned=pruned,
        observed_deviations=Pair(
            deviations.run_deviations(other.facets) if other is not None else [],
            deviations.run_deviations(run.facets),
        ),
    )
    return _with_suspects(diff)


def _job_changed(
    run: RunFacts,
    other: RunFacts,
    job_version: Pair,
    job_changes: Sequence[FacetChange],
    spark: Pair,
) -> bool | None:
    """Whether the job's code or engine changed. Its code facets (source code, SQL, location)
    decide when it has any: the job version also hashes the inputs and outputs a run named, so a
    run that failed before naming its outputs has another version with the same code (inputs
    and outputs are compared on their own). Without code facets the versions decide: the same
    version is the same job; another one means a change only between two runs that completed
    (None: unknown)."""
    if spark.before is not None and spark.after is not None and spark.changed:
        return True
    if any(c.facet in _CODE_FACETS for c in job_changes):
        return True
    if any(f in facets for f in _CODE_FACETS for facets in (run.job_facets, other.job_facets)):
        return False
    if job_version.before is None or job_version.after is None:
        return None
    if not job_version.changed:
        return False
    return True if run.state == other.state == "COMPLETE" else None


def _io_diffs(
    run: RunFacts,
    other: RunFacts | None,
    direction: str,
    events: list[dict[str, Any]],
    other_events: list[dict[str, Any]],
    failed: bool = False,
) -> tuple[IoDiff, ...]:
    """The inputs or outputs of both runs; ``failed``: the run failed (or was aborted), so the
    statistics it reports as zero or not at all where the other run had some are what its
    failure caused (the failed tasks' counts are lost, the write did not happen)."""
    mine = {(io.namespace, io.name): io for io in run.io if io.direction == direction}
    theirs = (
        {(io.namespace, io.name): io for io in other.io if io.direction == direction}
        if other
        else {}
    )
    diffs = []
    for key in sorted(mine.keys() | theirs.keys()):
        after, before = mine.get(key), theirs.get(key)
        status = "kept" if after and before else ("added" if after else "removed")
        schema_after = _schema(after, direction, events)
        schema_before = _schema(before, direction, other_events)
        known = schema_after is not None and schema_before is not None
        version = Pair(before.version if before else None, after.version if after else None)
        diffs.append(
            IoDiff(
                namespace=key[0],
                name=key[1],
                status=status,
                version=version,
                version_source=Pair(
                    before.version_source if before else None,
                    after.version_source if after else None,
                ),
                version_changed=(
                    version.changed
                    if version.before is not None and version.after is not None
                    else None
                ),
                schema_known=known,
                schema_changes=(
                    _schema_changes(schema_before or [], schema_after or []) if known else ()
                ),
                row_count=Pair(_count(before, "row_count"), _count(after, "row_count")),
                byte_count=Pair(_count(before, "byte_count"), _count(after, "byte_count")),
                file_count=Pair(_count(before, "file_count"), _count(after, "file_count")),
                caused_by_failure=_emptied(before, after) if failed else (),
            )
        )
    return tuple(diffs)


_STATISTICS = (("rowCount", "row_count"), ("byteCount", "byte_count"), ("fileCount", "file_count"))


def _emptied(before: IoFacts | None, after: IoFacts | None) -> tuple[str, ...]:
    """The statistics a failed run reports as zero, or not at all, where the other run had some."""
    if before is None:
        return ()
    return tuple(
        key
        for key, name in _STATISTICS
        if _count(before, name) and not _count(after, name)  # > 0 before; 0 or missing now
    )


def _count(io: IoFacts | None, name: str) -> int | None:
    return getattr(io, name) if io is not None else None


def _schema(
    io: IoFacts | None, direction: str, events: list[dict[str, Any]]
) -> list[dict[str, Any]] | None:
    """The schema of an input or output as the run saw it: its version's, else the newest
    ``schema`` facet the run's raw events sent for it."""
    if io is None:
        return None
    if io.schema is not None:
        return io.schema
    found = None
    for event in events:
        for dataset in event.get(f"{direction}s") or []:
            if not isinstance(dataset, dict):
                continue
            if (dataset.get("namespace"), dataset.get("name")) != (io.namespace, io.name):
                continue
            schema = (dataset.get("facets") or {}).get("schema")
            if isinstance(schema, dict) and isinstance(schema.get("fields"), list):
                found = schema["fields"]
    return found


def _schema_changes(before: list[Any], after: list[Any]) -> tuple[SchemaChange, ...]:
    diff = diff_schemas(before, after)
    return (
        tuple(SchemaChange(name, "added", None, kind) for name, kind in diff.added)
        + tuple(SchemaChange(r.name, "typeChanged", r.before, r.after) for r in diff.retyped)
        + tuple(SchemaChange(name, "removed", kind, None) for name, kind in diff.removed)
    )


def _content(facet: Any) -> Any:
    """What a facet says, without the fields every facet has."""
    if isinstance(facet, dict):
        return {k: v for k, v in facet.items() if k not in _FACET_BASE}
    return facet


def _facet_changes(
    before: dict[str, Any], after: dict[str, Any], ignored: frozenset[str]
) -> list[FacetChange]:
    changes = []
    for name in sorted((before.keys() | after.keys()) - ignored):
        if name not in before:
            changes.append(FacetChange(name, "added"))
        elif name not in after:
            changes.append(FacetChange(name, "removed"))
        elif _content(before[name]) != _content(after[name]):
            changes.append(FacetChange(name, "changed", _key_changes(before[name], after[name])))
    return changes


def _key_changes(before: Any, after: Any) -> tuple[tuple[str, Any, Any], ...]:
    """The keys that differ, for a facet holding a map (``properties``, ``parameters``…) or for
    the facet's own fields."""
    old, new = _content(before), _content(after)
    if not isinstance(old, dict) or not isinstance(new, dict):
        return ()
    maps = [
        k for k in old.keys() & new.keys() if isinstance(old[k], dict) and isinstance(new[k], dict)
    ]
    if len(maps) == 1 and set(old) == set(new) == {maps[0]}:
        old, new = old[maps[0]], new[maps[0]]
    return tuple(
        (key, old.get(key), new.get(key))
        for key in sorted(old.keys() | new.keys())
        if old.get(key) != new.get(key)
    )


def _engine_version(run: RunFacts) -> str | None:
    engine = run.facets.get("processing_engine")
    if not isinstance(engine, dict):
        return None
    version = engine.get("version")
    name = engine.get("name")
    return f"{name} {version}" if name and version else version


def _edges(events: list[dict[str, Any]]) -> set[ColumnEdge]:
    """The column lineage edges a run's raw events carry (the latest facet of each output)."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for event in events:
        for dataset in event.get("outputs") or []:
            if not isinstance(dataset, dict):
                continue
            facet = (dataset.get("facets") or {}).get("columnLineage")
            if isinstance(facet, dict) and isinstance(facet.get("fields"), dict):
                latest[(str(dataset.get("namespace")), str(dataset.get("name")))] = facet
    edges: set[ColumnEdge] = set()
    for (namespace, name), facet in latest.items():
        for out_field, spec in facet["fields"].items():
            for source in (spec or {}).get("inputFields") or []:
                if not isinstance(source, dict):
                    continue
                transformations = source.get("transformations") or [{}]
                for transformation in transformations:
                    edges.add(
                        ColumnEdge(
                            output=(namespace, name, out_field),
                            input=(
                                str(source.get("namespace")),
                                str(source.get("name")),
                                str(source.get("field")),
                            ),
                            type=str(transformation.get("type") or ""),
                            subtype=str(transformation.get("subtype") or ""),
                        )
                    )
    return edges


def _column_lineage_diff(
    run: RunFacts,
    other: RunFacts | None,
    events: list[dict[str, Any]],
    other_events: list[dict[str, Any]],
) -> ColumnLineageDiff:
    if other is None:
        return ColumnLineageDiff(False, "no run to compare with")
    missing = [r.uuid for r, e in ((run, events), (other, other_events)) if not e]
    if missing:
        return ColumnLineageDiff(
            False, f"the raw events of run(s) {', '.join(missing)} were pruned (db prune)"
        )
    mine, theirs = _edges(events), _edges(other_events)

    def order(edge: ColumnEdge) -> tuple[Any, ...]:
        return (edge.output, edge.input, edge.type, edge.subtype)

    return ColumnLineageDiff(
        True,
        None,
        added=tuple(sorted(mine - theirs, key=order)),
        removed=tuple(sorted(theirs - mine, key=order)),
    )


def _describe(io: IoDiff) -> str:
    parts = []
    if io.status != "kept":
        parts.append(io.status)
    # an observed version only restates the statistics shown below
    observed = io.version_source.before == io.version_source.after == "observed"
    if io.version_changed and not observed:
        parts.append(f"version {io.version.before} -> {io.version.after}")
    if io.schema_changes:
        parts.append("schema: " + ", ".join(c.describe() for c in io.schema_changes[:5]))
    for key, label, pair in io._statistics():
        if key in io.caused_by_failure:
            continue  # a symptom of the failure: listed apart (_symptoms)
        if pair.before is not None and pair.after is not None and pair.changed:
            parts.append(f"{label} {pair.before} -> {pair.after}")
    return "; ".join(parts)


def _symptoms(diff: RunDiff) -> tuple[Suspect, ...]:
    """What the run's failure itself caused: reads and writes it emptied, outputs it did not
    write; the failure's effects, not what changed before it ran."""
    found = []
    for kind, ios in (("inputRead", diff.inputs), ("outputWritten", diff.outputs)):
        for io in ios:
            if kind == "outputWritten" and io.status == "removed":
                found.append(Suspect(kind, f"{io.namespace}:{io.name}", "not written"))
                continue
            parts = [
                f"{label} {pair.before} -> {pair.after if pair.after is not None else 'none'}"
                for key, label, pair in io._statistics()
                if key in io.caused_by_failure
            ]
            if parts:
                found.append(Suspect(kind, f"{io.namespace}:{io.name}", "; ".join(parts)))
    return tuple(found)


def _with_suspects(diff: RunDiff) -> RunDiff:
    """Rank what changed: the job's code and engine, then inputs (added, removed or with a new
    schema before a new version or a change of size), run settings, outputs; a failed run's
    error last, as the symptom."""
    suspects: list[tuple[int, Suspect]] = []
    if diff.against is None:
        # nothing to compare with: everything of the run is "added", which explains nothing
        if diff.error:
            suspects.append((5, _error_suspect(diff)))
        return RunDiff(**{**diff.__dict__, "suspects": tuple(s for _, s in suspects)})
    if diff.job_version_changed:
        what = [c.facet for c in diff.job_facet_changes if c.facet in _CODE_FACETS]
        if diff.spark_version.changed:
            what.append(f"Spark {diff.spark_version.before} -> {diff.spark_version.after}")
        if diff.job_version.changed and not what:
            what.append(f"job version {diff.job_version.before} -> {diff.job_version.after}")
        suspects.append(
            (0, Suspect("jobChanged", f"{diff.run.namespace}:{diff.run.job}", ", ".join(what)))
        )
    for io in diff.inputs:
        if io.changed:
            # a new version of an input is what most runs read: below added, removed, schema
            strong = io.status != "kept" or io.schema_changes
            suspects.append(
                (
                    1 if strong else 2,
                    Suspect("inputChanged", f"{io.namespace}:{io.name}", _describe(io)),
                )
            )
    for change in diff.run_facet_changes:
        keys = ", ".join(k for k, _, _ in change.keys[:5])
        suspects.append(
            (
                3,
                Suspect(
                    "runFacetsChanged",
                    change.facet,
                    f"{change.change}{': ' + keys if keys else ''}",
                ),
            )
        )
    for item in diff.new_deviations:
        # the plan and the run disagreed where they did not before: an input pruned away, an
        # output written empty, a column written null throughout
        column = f".{item['field']}" if item.get("field") else ""
        suspects.append(
            (
                2,
                Suspect(
                    "observedDeviation",
                    f"{item['namespace']}:{item['name']}{column}",
                    f"{item['kind']}: {item['detail']}",
                ),
            )
        )
    completed = diff.run.state == "COMPLETED"
    for io in diff.outputs:
        # a run that did not complete wrote nothing, or not all: a missing output is its symptom
        if (io.status == "removed" and not completed) or (
            io.status == "kept" and not io.schema_changes
        ):
            continue
        suspects.append((4, Suspect("outputChanged", f"{io.namespace}:{io.name}", _describe(io))))
    if diff.error:
        suspects.append((5, _error_suspect(diff)))
    ranked = tuple(s for _, s in sorted(suspects, key=lambda item: item[0]))
    symptoms = _symptoms(diff) if diff.run.state in ("FAILED", "ABORTED") else ()
    return RunDiff(**{**diff.__dict__, "suspects": ranked, "caused_by_failure": symptoms})


def _error_suspect(diff: RunDiff) -> Suspect:
    return Suspect("error", f"{diff.run.namespace}:{diff.run.job}", error_summary(diff.error or ""))


def error_summary(message: str) -> str:
    """The gist of an error message: its innermost exception's message when the first line
    chains several (Spark's "Job aborted … SparkNumberFormatException: [CAST_INVALID_INPUT] …"),
    else its last line that names an exception, else its first line; at most 300 characters."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0]
    if "Exception: " in first:
        head, gist = first.rsplit("Exception: ", 1)
        if gist.startswith("["):  # Spark's error class names it: "[CAST_INVALID_INPUT] …"
            return gist[:300]
        name = re.split(r"[\s.:$]", head)[-1]  # the exception's simple class name
        return f"{name}Exception: {gist}"[:300]
    named = [line for line in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b", line)]
    return (named[-1] if named else first)[:300]
