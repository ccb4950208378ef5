"""Jobs, job versions (distinct location + inputs + outputs shapes) and job<->dataset edges."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage import TERMINAL_STATES, JobEvent, ParsedEvent, RunEvent, event_digest
from plumbline.store.schema import job_dataset_edges, job_versions, jobs, namespaces
from plumbline.store.write.confidence import confidence_changed, confidence_update
from plumbline.store.write.context import Batch, JobState, Key, as_utc, derived_uuid
from plumbline.store.write.facets import merge_facets_at, time_key
from plumbline.store.write.upsert import (
    execute_many,
    greatest,
    insert_ignore,
    insert_returning,
    least,
    select_in,
    update_many,
)

# the jobType facet's processingType -> Marquez's job type
_JOB_TYPES = {"BATCH": "BATCH", "STREAMING": "STREAM", "STREAM": "STREAM", "SERVICE": "SERVICE"}


def parent_job_key(parsed: ParsedEvent) -> Key | None:
    """The job of the run's ``parent`` facet, if any."""
    event = parsed.event
    if not isinstance(event, RunEvent) or event.run.facets is None:
        return None
    parent = event.run.facets.parent
    return (parent.job.namespace, parent.job.name) if parent is not None else None


def job_keys(batch: Batch) -> set[Key]:
    keys: set[Key] = set()
    for parsed in batch.events:
        for key in (batch.job_key(parsed), parent_job_key(parsed)):
            if key is not None:
                keys.add(key)
    return keys


# a job's state, looked up by name and locked (PostgreSQL) in id order, in one statement
_LOCK_JOBS = (
    sa.select(
        namespaces.c.name.label("ns"),
        jobs.c.name,
        jobs.c.id,
        jobs.c.type,
        jobs.c.description,
        jobs.c.location,
        jobs.c.facets,
        jobs.c.facet_times,
        jobs.c.parent_job_id,
        jobs.c.parent_job_at,
        jobs.c.current_version_id,
        jobs.c.latest_run_uuid,
        jobs.c.latest_run_at,
        jobs.c.current_version_at,
        jobs.c.is_hidden,
    )
    .join(namespaces, jobs.c.namespace_id == namespaces.c.id)
    .order_by(jobs.c.id)
    .with_for_update(of=jobs, key_share=True)
)


def _lock_jobs(connection: Connection, batch: Batch, keys: set[Key]) -> None:
    for row in select_in(connection, _LOCK_JOBS, [namespaces.c.name, jobs.c.name], keys):
        batch.job_ids[(row.ns, row.name)] = row.id
        batch.job_state[row.id] = JobState(
            id=row.id,
            type=row.type,
            description=row.description,
            location=row.location,
            facets=dict(row.facets or {}),
            facet_times=dict(row.facet_times or {}),
            parent_job_id=row.parent_job_id,
            parent_job_at=as_utc(row.parent_job_at),
            current_version_id=row.current_version_id,
            current_version_at=as_utc(row.current_version_at),
            latest_run_uuid=row.latest_run_uuid,
            latest_run_at=as_utc(row.latest_run_at),
            stored_latest_run=row.latest_run_uuid,
            stored_type=row.type,
            # a soft-deleted job that events mention again comes back, as in Marquez
            changed=bool(row.is_hidden),
        )


def resolve_jobs(connection: Connection, batch: Batch) -> None:
    """Create missing jobs (the events' jobs and their parents); lock and load their state."""
    keys = job_keys(batch)
    if not keys:
        return
    _lock_jobs(connection, batch, keys)
    missing = sorted(keys - batch.job_ids.keys())
    if missing:
        insert_ignore(
            connection,
            jobs,
            [
                {
                    "uuid": str(uuid.uuid4()),
                    "namespace_id": batch.namespace_ids[ns],
                    "name": name,
                    "created_at": batch.now,
                    "updated_at": batch.now,
                }
                for ns, name in missing
            ],
        )
        _lock_jobs(connection, batch, set(missing))


def apply_job_facets(batch: Batch) -> None:
    """Fold each event's job facets into its job: facets, location, description, type, parent."""
    for parsed in batch.events:
        key = batch.job_key(parsed)
        if key is None:
            continue
        event = parsed.event
        assert isinstance(event, RunEvent | JobEvent)
        state = batch.job_state[batch.job_ids[key]]
        before = replace(state)
        # facets from an event older than those kept change nothing, nor do the columns they give
        state.facets, state.facet_times, taken = merge_facets_at(
            state.facets,
            state.facet_times,
            parsed.raw["job"].get("facets"),
            time_key(parsed.event_time),
        )
        facets = event.job.facets
        if facets is not None:
            location = facets.source_code_location
            if location is not None and not location.deleted and "sourceCodeLocation" in taken:
                state.location = location.url
            documentation = facets.documentation
            if documentation is not None and not documentation.deleted and "documentation" in taken:
                state.description = documentation.description
            job_type = facets.job_type
            if job_type is not None and job_type.processing_type and "jobType" in taken:
                state.type = _JOB_TYPES.get(job_type.processing_type.upper(), state.type)
        parent = parent_job_key(parsed)
        if parent is not None and parent != key and _not_older(parsed, state.parent_job_at):
            state.parent_job_id = batch.job_ids[parent]
            state.parent_job_at = as_utc(parsed.event_time)
        if isinstance(event, RunEvent) and _not_older(parsed, state.latest_run_at):
            state.latest_run_uuid = parsed.run_id
            state.latest_run_at = as_utc(parsed.event_time)
        state.changed = state.changed or state != before


def _not_older(parsed: ParsedEvent, known_at: datetime | None) -> bool:
    """Whether the event is at least as new as what a job's column was last set from."""
    return known_at is None or parsed.event_time >= known_at


def _version_hash(location: str | None, inputs: list[Key], outputs: list[Key]) -> str:
    document = {"location": location, "inputs": sorted(inputs), "outputs": sorted(outputs)}
    return event_digest(document)  # sha256 of the canonical JSON


def write_job_versions(connection: Connection, batch: Batch) -> dict[str, int]:
    """A job version per distinct shape, from terminal run events and job events.

    Returns run uuid -> job version id for the runs that completed in this write.
    """
    rows: dict[tuple[int, str], dict[str, Any]] = {}
    run_versions: dict[str, tuple[int, str]] = {}
    for parsed in batch.events:
        event = parsed.event
        is_terminal_run = isinstance(event, RunEvent) and event.event_type in TERMINAL_STATES
        if not (is_terminal_run or isinstance(event, JobEvent)):
            continue
        key = batch.job_key(parsed)
        assert key is not None and isinstance(event, RunEvent | JobEvent)
        job_id = batch.job_ids[key]
        location = batch.job_state[job_id].location
        inputs = _canonical(batch, event.inputs)
        outputs = _canonical(batch, event.outputs)
        version = _version_hash(location, inputs, outputs)
        row = rows.setdefault(
            (job_id, version),
            {
                "uuid": derived_uuid("job_version", *key, version),
                "job_id": job_id,
                "version": version,
                "location": location,
                "inputs": [{"namespace": ns, "name": name} for ns, name in inputs],
                "outputs": [{"namespace": ns, "name": name} for ns, name in outputs],
                "latest_run_uuid": None,
                "latest_run_at": None,
                "created_at": batch.now,
                "updated_at": batch.now,
            },
        )
        if isinstance(event, RunEvent):  # events are in event-time order: the newest is last
            row["latest_run_uuid"] = parsed.run_id
            row["latest_run_at"] = as_utc(parsed.event_time)
            run_versions[parsed.run_id or ""] = (job_id, version)
        state = batch.job_state[job_id]
        if _not_older(parsed, state.current_version_at):  # events are in event-time order
            state.pending_version = (job_id, version)
            state.current_version_at = as_utc(parsed.event_time)
    if not rows:
        return {}
    upserted = insert_returning(
        connection, job_versions, [rows[key] for key in sorted(rows)], _upsert_job_versions
    )
    ids = {(row.job_id, row.version): row.id for row in upserted}
    for state in batch.job_state.values():
        pending, state.pending_version = state.pending_version, None
        if pending is not None:
            state.current_version_id = ids[pending]
            state.changed = True  # the version, or at least the time it is current from
    return {run_uuid: ids[key] for run_uuid, key in run_versions.items()}


def _upsert_job_versions(statement: Any) -> Any:
    excluded = statement.excluded
    # a run of this version at least as new as the one kept (NULL: unknown, older than any)
    newer_run = sa.and_(
        excluded.latest_run_uuid.is_not(None),
        sa.or_(
            job_versions.c.latest_run_at.is_(None),
            excluded.latest_run_at >= job_versions.c.latest_run_at,
        ),
    )
    statement = statement.on_conflict_do_update(
        index_elements=["job_id", "version"],
        set_={
            "latest_run_uuid": sa.case(
                (newer_run, excluded.latest_run_uuid), else_=job_versions.c.latest_run_uuid
            ),
            "latest_run_at": sa.case(
                (newer_run, excluded.latest_run_at), else_=job_versions.c.latest_run_at
            ),
            "updated_at": excluded.updated_at,
        },
    )
    return statement.returning(job_versions.c.job_id, job_versions.c.version, job_versions.c.id)


def _canonical(batch: Batch, datasets: list[Any] | None) -> list[Key]:
    """The datasets' own names (an alias resolves to the dataset it names), sorted."""
    return sorted(
        {batch.dataset_state[batch.dataset_ids[(d.namespace, d.name)]].key for d in datasets or []}
    )


def update_jobs(connection: Connection, batch: Batch) -> None:
    """Write back the jobs whose state changed."""
    updates = [
        {
            "b_id": job_id,
            "type": state.type,
            "description": state.description,
            "location": state.location,
            "facets": state.facets or None,
            "facet_times": state.facet_times or None,
            "parent_job_id": state.parent_job_id,
            "parent_job_at": state.parent_job_at,
            "current_version_id": state.current_version_id,
            "latest_run_uuid": state.latest_run_uuid,
            "latest_run_at": state.latest_run_at,
            "current_version_at": state.current_version_at,
            "is_hidden": False,
            "updated_at": batch.now,
        }
        for job_id, state in sorted(batch.job_state.items())
        if state.changed
    ]
    if not updates:
        return
    update_many(connection, jobs, updates)


def write_job_edges(connection: Connection, batch: Batch) -> None:
    """Upsert one edge per distinct (job, dataset, direction): first/last seen, runs counted once."""
    edges: dict[tuple[int, int, str], dict[str, Any]] = {}
    for appearance in batch.appearances:
        if appearance.role == "static":
            continue
        parsed = appearance.event
        key = batch.job_key(parsed)
        assert key is not None
        job_id = batch.job_ids[key]
        dataset_id = batch.dataset_ids[appearance.key]
        edge_key = (job_id, dataset_id, appearance.role)
        time = as_utc(appearance.time)
        edge = edges.setdefault(
            edge_key,
            {
                "job_id": job_id,
                "dataset_id": dataset_id,
                "direction": appearance.role,
                "first_seen": time,
                "last_seen": time,
                "runs": set(),
            },
        )
        edge["first_seen"] = min(edge["first_seen"], time)
        edge["last_seen"] = max(edge["last_seen"], time)
        # appearances come in event-time order: the latest one says how the edge is known
        source, completeness, reasons = batch.confidence(parsed)
        edge["edge_source"] = source
        if completeness is not None or "completeness" not in edge:
            edge["completeness"], edge["completeness_reasons"] = completeness, reasons
        run_id = batch.run_ids.get(parsed.run_id or "")
        if run_id is not None and (run_id, dataset_id, appearance.role) in batch.new_io:
            edge["runs"].add(run_id)
    if not edges:
        return
    rows = []
    for edge_key in sorted(edges):
        edge = edges[edge_key]
        runs = edge.pop("runs")
        rows.append({**edge, "run_count": len(runs)})

    def conflict(statement: Any) -> Any:
        excluded = statement.excluded
        table = job_dataset_edges
        return statement.on_conflict_do_update(
            index_elements=["job_id", "dataset_id", "direction"],
            set_={
                "first_seen": least(connection, table.c.first_seen, excluded.first_seen),
                "last_seen": greatest(connection, table.c.last_seen, excluded.last_seen),
                "run_count": table.c.run_count + excluded.run_count,
                **confidence_update(table, excluded),
            },
            # nothing new (no new run, times within the known span, the same confidence): the
            # row stays as it is
            where=sa.or_(
                excluded.run_count > sa.literal_column("0"),
                excluded.first_seen < table.c.first_seen,
                excluded.last_seen > table.c.last_seen,
                confidence_changed(table, excluded),
            ),
        )

    execute_many(connection, job_dataset_edges, rows, conflict)
