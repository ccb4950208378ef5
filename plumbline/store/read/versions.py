"""Dataset versions and the runs that made and read them: the one place for these queries.

Version lineage, root cause and rerun plans (``plumbline.analysis``) walk the same facts: a run
read input versions (``run_io`` inputs, each with where its version came from, see the schema)
and wrote output versions; a version was written by one run (``dataset_versions.run_uuid``).
Every function takes lists of ids and answers with one statement (or one per chunk of ids), so a
walk costs one round trip per hop, never one per node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import dataset_pk, utc
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.visibility import VisibleTo
from plumbline.store.read.work_budget import read_rows


@dataclass(frozen=True)
class VersionRef:
    """One dataset version: its dataset, its version string, when and by which run it was made."""

    id: int
    uuid: str  # the version's id in the read API (Marquez's ``version``)
    dataset_id: int
    namespace: str
    name: str
    version: str  # the `version` facet's datasetVersion, else the writing run's id
    created_at: datetime | None
    run_uuid: str | None  # the run that wrote it (None: named by a facet, not written by a run)


@dataclass(frozen=True)
class RunVersion:
    """A run's input or output and the version it read or wrote."""

    run_id: int
    run_uuid: str
    direction: str  # 'input' | 'output'
    dataset_id: int
    namespace: str
    name: str
    version_id: int | None  # None: no version known (read before any was made)
    version_uuid: str | None
    version: str | None
    # inputs: 'datasetVersion' | 'catalog' | 'eventTime' | None (linked before migration 0010)
    version_source: str | None
    read_at: datetime | None  # inputs: the event time the run read it at
    produced_by: str | None  # the uuid of the run that wrote the version


_VERSION_COLUMNS = (
    s.dataset_versions.c.id,
    s.dataset_versions.c.uuid,
    s.dataset_versions.c.dataset_id,
    s.namespaces.c.name.label("namespace"),
    s.datasets.c.name,
    s.dataset_versions.c.version,
    s.dataset_versions.c.created_at,
    s.dataset_versions.c.run_uuid,
)


def _versions() -> sa.Select[Any]:
    dv, d, n = s.dataset_versions, s.datasets, s.namespaces
    return (
        sa.select(*_VERSION_COLUMNS)
        .join(d, d.c.id == dv.c.dataset_id)
        .join(n, n.c.id == d.c.namespace_id)
    )


def _version_ref(row: Any) -> VersionRef:
    return VersionRef(
        id=row.id,
        uuid=row.uuid,
        dataset_id=row.dataset_id,
        namespace=row.namespace,
        name=row.name,
        version=row.version,
        created_at=utc(row.created_at),
        run_uuid=row.run_uuid,
    )


_BY_ID = _versions().where(in_ids(s.dataset_versions.c.id))
_OF_DATASET = (
    _versions()
    .where(s.dataset_versions.c.dataset_id == sa.bindparam("dataset_id"))
    .where(
        sa.or_(
            s.dataset_versions.c.uuid == sa.bindparam("version"),
            s.dataset_versions.c.version == sa.bindparam("version"),
        )
    )
    .order_by(s.dataset_versions.c.id)
)
_SINCE = (
    _versions()
    .where(s.dataset_versions.c.dataset_id == sa.bindparam("dataset_id"))
    .where(s.dataset_versions.c.created_at >= sa.bindparam("since"))
    .order_by(s.dataset_versions.c.created_at, s.dataset_versions.c.id)
)
_CURRENT = _versions().where(
    s.dataset_versions.c.id
    == sa.select(s.datasets.c.current_version_id)
    .where(s.datasets.c.id == sa.bindparam("dataset_id"))
    .scalar_subquery()
)


def versions_by_id(conn: Connection, version_ids: Sequence[int]) -> dict[int, VersionRef]:
    """The versions of these ids (those that exist)."""
    if not version_ids:
        return {}
    rows = conn.execute(_BY_ID, {"ids": sorted(set(version_ids))})
    return {row.id: _version_ref(row) for row in rows}


def find_version(
    conn: Connection, namespace: str, name: str, version: str, visible_to: VisibleTo = None
) -> VersionRef:
    """The version ``version`` (its uuid, as the read API names versions, or its version
    string) of dataset ``namespace``/``name`` (by a symlink too), else :class:`NotFoundError`
    naming what was not found (the dataset or the version)."""
    dataset_id = dataset_pk(conn, namespace, name, visible_to=visible_to)
    row = conn.execute(_OF_DATASET, {"dataset_id": dataset_id, "version": version}).first()
    if row is None:
        raise NotFoundError(f"version {version!r} of dataset {name!r} not found in {namespace!r}")
    return _version_ref(row)


def versions_since(conn: Connection, dataset_id: int, since: datetime) -> list[VersionRef]:
    """A dataset's versions made at or after ``since``, oldest first."""
    return [
        _version_ref(row)
        for row in conn.execute(_SINCE, {"dataset_id": dataset_id, "since": since})
    ]


def current_version(conn: Connection, dataset_id: int) -> VersionRef | None:
    """A dataset's current version, if it has one."""
    row = conn.execute(_CURRENT, {"dataset_id": dataset_id}).first()
    return _version_ref(row) if row is not None else None


def _run_versions() -> sa.Select[Any]:
    io, r, d, n, dv = s.run_io, s.runs, s.datasets, s.namespaces, s.dataset_versions
    return (
        sa.select(
            io.c.run_id,
            r.c.uuid.label("run_uuid"),
            io.c.direction,
            io.c.dataset_id,
            n.c.name.label("namespace"),
            d.c.name,
            io.c.dataset_version_id,
            dv.c.uuid.label("version_uuid"),
            dv.c.version,
            io.c.version_source,
            io.c.read_at,
            dv.c.run_uuid.label("produced_by"),
        )
        .join(r, r.c.id == io.c.run_id)
        .join(d, d.c.id == io.c.dataset_id)
        .join(n, n.c.id == d.c.namespace_id)
        .outerjoin(dv, dv.c.id == io.c.dataset_version_id)
        .order_by(io.c.run_id, io.c.direction, n.c.name, d.c.name)
    )


def _run_version(row: Any) -> RunVersion:
    # by position, in the select's column order (a Row's attribute access costs ~1 µs, and a
    # rerun plan reads tens of thousands of these)
    run_id, run_uuid, direction, dataset_id, namespace, name, version_id, version_uuid = row[:8]
    version, source = row[8:10]
    return RunVersion(
        run_id, run_uuid, direction, dataset_id, namespace, name, version_id, version_uuid,
        version, source, utc(row[10]), row[11],
    )  # fmt: skip


_OF_RUNS = _run_versions().where(in_ids(s.run_io.c.run_id))
_READERS = _run_versions().where(
    in_ids(s.run_io.c.dataset_version_id), s.run_io.c.direction == "input"
)
_WRITERS = _run_versions().where(
    in_ids(s.run_io.c.dataset_version_id), s.run_io.c.direction == "output"
)


def run_versions(conn: Connection, run_ids: Sequence[int]) -> list[RunVersion]:
    """What these runs read and wrote, each with its version (by run, inputs first)."""
    if not run_ids:
        return []
    rows = read_rows(conn, _OF_RUNS, {"ids": sorted(set(run_ids))})
    return [_run_version(row) for row in rows]


def readers_of(conn: Connection, version_ids: Sequence[int]) -> list[RunVersion]:
    """The run inputs that read these versions."""
    if not version_ids:
        return []
    rows = read_rows(conn, _READERS, {"ids": sorted(set(version_ids))})
    return [_run_version(row) for row in rows]


def writers_of(conn: Connection, version_ids: Sequence[int]) -> list[RunVersion]:
    """The run outputs that wrote these versions (the runs still stored)."""
    if not version_ids:
        return []
    rows = read_rows(conn, _WRITERS, {"ids": sorted(set(version_ids))})
    return [_run_version(row) for row in rows]


def _downstream_reads_statement() -> sa.Select[Any]:
    """Recursive: the run inputs that read one of the bound ``ids``, then those that read a
    version such a run wrote, and so on. ``UNION`` keeps each (run, version) pair once, so a
    history where runs read each other's outputs in a cycle ends; every step is an index lookup
    (``run_io`` by version, then by run)."""
    first = s.run_io.alias("first_read")
    reads = (
        sa.select(first.c.run_id, first.c.dataset_version_id.label("version_id"))
        .where(in_ids(first.c.dataset_version_id), first.c.direction == "input")
        .cte("affected_reads", recursive=True)
    )
    written, reader = s.run_io.alias("written"), s.run_io.alias("reader")
    step = (
        sa.select(reader.c.run_id, reader.c.dataset_version_id)
        .select_from(reads)
        .join(written, sa.and_(written.c.run_id == reads.c.run_id, written.c.direction == "output"))
        .join(
            reader,
            sa.and_(
                reader.c.dataset_version_id == written.c.dataset_version_id,
                reader.c.direction == "input",
            ),
        )
    )
    reads = reads.union(step)
    return sa.select(reads.c.run_id, reads.c.version_id)


_DOWNSTREAM_READS = _downstream_reads_statement()


def downstream_reads(conn: Connection, version_ids: Sequence[int]) -> list[tuple[int, int]]:
    """``(run id, version id)`` of every run input that read one of these versions or, through
    the versions runs wrote from them, transitively derives from them (one statement)."""
    if not version_ids:
        return []
    rows = read_rows(conn, _DOWNSTREAM_READS, {"ids": sorted(set(version_ids))})
    return [(int(run), int(version)) for run, version in rows]
