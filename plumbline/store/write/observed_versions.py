"""Versions of datasets no tracked run writes, from what their reads observe.

A landing CSV or a table loaded by another system has no writer in the store, so it had no
versions and a rerun plan from it found nothing to redo. Its reads still observe it: the input
statistics a reader sends (the bytes and number of the files it scanned, else its rows). Each distinct observation is a version of the
dataset (``version`` ``observed:<digest>``, its observation kept in the version's
``plumbline_observed`` facet), made at the first read time that observed it; every read
observing it links to it with ``version_source`` ``observed``. A new observation (the file was
replaced, rows were added) is a new version, so ``rerun-plan?nodeId=dataset:…&since=T`` lists
the runs that read the changed data, then everything downstream.

Only reads with statistics count, and only while no run writes the dataset (a dataset a run
writes has real versions). Readers that prune differently (partition filters) observe
different statistics and so different versions: that is what they read.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import dataset_versions, run_io
from plumbline.store.write.context import derived_uuid
from plumbline.store.write.upsert import insert_returning, select_in, update_many

OBSERVED = "observed"  # run_io.version_source of a link to an observed version
FACET = "plumbline_observed"  # the version facet holding what the reads observed

_INPUTS = sa.select(
    run_io.c.id,
    run_io.c.dataset_id,
    run_io.c.read_at,
    run_io.c.row_count,
    run_io.c.byte_count,
    run_io.c.file_count,
    run_io.c.dataset_version_id,
    run_io.c.version_source,
).where(
    run_io.c.direction == "input",
    sa.or_(run_io.c.version_source == "eventTime", run_io.c.version_source == OBSERVED),
    run_io.c.read_at.is_not(None),
    sa.or_(
        run_io.c.byte_count.is_not(None),
        run_io.c.file_count.is_not(None),
        sa.and_(run_io.c.row_count.is_not(None), run_io.c.row_count > 0),
    ),
)
_WRITTEN = sa.select(run_io.c.dataset_id).where(run_io.c.direction == "output").distinct()
_EXISTING = sa.select(
    dataset_versions.c.dataset_id,
    dataset_versions.c.version,
    dataset_versions.c.id,
    dataset_versions.c.created_at,
)


def _observation(row: Any) -> dict[str, int]:
    """What a read observed of the dataset: the size and number of the files it scanned (known
    before any task runs, so a failed run's are whole), else the rows it read (JDBC, Kafka)."""
    files = {"size": row.byte_count, "fileCount": row.file_count}
    observed = {name: value for name, value in files.items() if value is not None}
    return observed or {"rowCount": row.row_count}


def observed_version(observation: dict[str, int]) -> str:
    """The version string of an observation (the same observation, the same version)."""
    text = json.dumps(observation, sort_keys=True, separators=(",", ":"))
    return f"{OBSERVED}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def link_observed_versions(connection: Connection, run_ids: list[int]) -> dict[int, datetime]:
    """Link these runs' reads of unwritten datasets to observed versions, made as needed; the
    datasets given a version, each with its earliest new version's time (to link again the
    reads after it)."""
    if not run_ids:
        return {}
    reads = select_in(connection, _INPUTS, [run_io.c.run_id], run_ids)
    if not reads:
        return {}
    written = {
        row.dataset_id
        for row in select_in(
            connection, _WRITTEN, [run_io.c.dataset_id], {r.dataset_id for r in reads}
        )
    }
    reads = [r for r in reads if r.dataset_id not in written]
    if not reads:
        return {}
    wanted: dict[tuple[int, str], tuple[datetime, dict[str, int]]] = {}
    key_of: dict[int, tuple[int, str]] = {}  # run_io id -> (dataset, observed version)
    for read in reads:
        observation = _observation(read)
        key = key_of[read.id] = (read.dataset_id, observed_version(observation))
        first = wanted.get(key)
        if first is None or read.read_at < first[0]:
            wanted[key] = (read.read_at, observation)
    existing = {
        (row.dataset_id, row.version): row
        for row in select_in(
            connection,
            _EXISTING,
            [dataset_versions.c.dataset_id, dataset_versions.c.version],
            wanted,
        )
    }
    ids = {key: row.id for key, row in existing.items()}
    made: dict[int, datetime] = {}
    to_write = []
    for (dataset_id, version), (read_at, observation) in sorted(wanted.items()):
        old = existing.get((dataset_id, version))
        if old is not None and old.created_at <= read_at:
            continue  # known, and first observed no later than now
        to_write.append(
            {
                "uuid": derived_uuid("dataset_version", str(dataset_id), version),
                "dataset_id": dataset_id,
                "version": version,
                "facets": {FACET: observation},
                "created_at": read_at,
            }
        )
        if dataset_id not in made or read_at < made[dataset_id]:
            made[dataset_id] = read_at
    for row in insert_returning(connection, dataset_versions, to_write, _earliest):
        ids[(row.dataset_id, row.version)] = row.id
    links = []
    for read in reads:
        version_id = ids[key_of[read.id]]
        if (read.dataset_version_id, read.version_source) != (version_id, OBSERVED):
            links.append(
                {"b_id": read.id, "dataset_version_id": version_id, "version_source": OBSERVED}
            )
    update_many(connection, run_io, links)
    return made


def _earliest(statement: Any) -> Any:
    """A version observed again: it was made at the earliest read that observed it."""
    excluded = statement.excluded
    earlier = sa.case(
        (excluded.created_at < dataset_versions.c.created_at, excluded.created_at),
        else_=dataset_versions.c.created_at,
    )
    return statement.on_conflict_do_update(
        index_elements=["dataset_id", "version"], set_={"created_at": earlier}
    ).returning(dataset_versions.c.dataset_id, dataset_versions.c.version, dataset_versions.c.id)
