"""The version a run's input read when no facet names it: the dataset's version as of the run's
event time (``run_io.read_at``), not as of when the event was normalized.

A dataset's version as of a time is its newest version made by then (``created_at``) by a run
that completed (or by no run: a ``version`` facet on a dataset event), other than the reading run
itself. That is a function of the events, whatever order they arrive in: after each write,

- the inputs this write names are linked to their version as of their ``read_at``;
- inputs read after a version this write made (or completed: its run's COMPLETE came now) are
  linked again, so that a writer whose events arrive late still counts for the runs after it;
- reads of a dataset no run writes are linked to the version their statistics observe
  (:mod:`plumbline.store.write.observed_versions`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from plumbline.openlineage import TERMINAL_STATES, RunEvent
from plumbline.store.read.idlist import in_ids
from plumbline.store.schema import (
    dataset_symlinks,
    dataset_versions,
    datasets,
    lineage_events,
    namespaces,
    run_io,
    runs,
)
from plumbline.store.write.context import Batch
from plumbline.store.write.datasets import version_source
from plumbline.store.write.observed_versions import link_observed_versions
from plumbline.store.write.upsert import select_in
from plumbline.store.write.version_as_of import version_as_of

_AS_OF = version_as_of(run_io.c.dataset_id, run_io.c.read_at, run_io.c.run_id)
_BY_EVENT_TIME = sa.and_(run_io.c.direction == "input", run_io.c.version_source == "eventTime")
# the inputs of some runs whose version as of their read time is not the one linked (most were
# linked as they were inserted: no update, no new row version)
_LINK_RUNS = (
    sa.update(run_io)
    .values(dataset_version_id=_AS_OF)
    .where(
        in_ids(run_io.c.run_id),
        _BY_EVENT_TIME,
        run_io.c.dataset_version_id.is_distinct_from(_AS_OF),
    )
)


# the inputs of a dataset read since a time, whose version as of then changed
_RELINK_SINCE = (
    sa.update(run_io)
    .values(dataset_version_id=_AS_OF)
    .where(
        run_io.c.dataset_id == sa.bindparam("b_dataset_id"),
        _BY_EVENT_TIME,
        run_io.c.read_at >= sa.bindparam("b_since"),
        run_io.c.dataset_version_id.is_distinct_from(_AS_OF),
    )
)
_MADE = sa.select(
    dataset_versions.c.dataset_id, sa.func.min(dataset_versions.c.created_at)
).group_by(dataset_versions.c.dataset_id)


def link_input_versions(connection: Connection, batch: Batch) -> None:
    """Link inputs read by event time to their versions (after the write's other steps)."""
    run_ids = {batch.run_ids[parsed.run_id or ""] for parsed in batch.run_events()}
    observed = link_observed_versions(connection, sorted(run_ids))
    if run_ids:
        connection.execute(_LINK_RUNS, {"ids": sorted(run_ids)})
    since = _versions_made(connection, batch)
    for dataset_id, made_at in observed.items():
        if dataset_id not in since or made_at < since[dataset_id]:
            since[dataset_id] = made_at
    if since:
        connection.execute(
            _RELINK_SINCE,
            [
                {"b_dataset_id": dataset_id, "b_since": since[dataset_id]}
                for dataset_id in sorted(since)
            ],
        )


def _versions_made(connection: Connection, batch: Batch) -> dict[int, Any]:
    """Datasets with a version this write made or completed: the earliest such version's time."""
    finished = sorted(
        {
            parsed.run_id
            for parsed in batch.run_events()
            if isinstance(parsed.event, RunEvent)
            and parsed.event.event_type in TERMINAL_STATES
            and parsed.run_id
        }
    )
    written = sorted(
        {
            version_id
            for index, version_id in batch.version_ids.items()
            if batch.appearances[index].role != "input"
        }
    )
    since: dict[int, Any] = {}
    rows = []
    if finished:
        rows += select_in(connection, _MADE, [dataset_versions.c.run_uuid], finished)
    if written:
        rows += select_in(connection, _MADE, [dataset_versions.c.id], written)
    for dataset_id, made_at in rows:
        if dataset_id not in since or made_at < since[dataset_id]:
            since[dataset_id] = made_at
    return since


@dataclass(frozen=True)
class Rebuilt:
    """What :func:`rebuild_input_versions` did: run inputs linked anew from their runs' raw
    events, and those left as they were (their raw events are gone)."""

    rebuilt: int
    without_events: int


_UNSOURCED = sa.and_(run_io.c.direction == "input", run_io.c.version_source.is_(None))


def rebuild_input_versions(engine: Engine, *, dry_run: bool = False, chunk: int = 500) -> Rebuilt:
    """Link again the run inputs written before migration 0010 (``version_source`` NULL), from
    the raw events of their runs: the ``version`` facet an input carries (``datasetVersion`` or
    ``catalog``), else the dataset's version as of the run's first event naming it
    (``eventTime``). Inputs of runs whose raw events were pruned keep their link, and NULL."""
    with engine.connect() as conn:
        runs_to_do = list(
            conn.execute(
                sa.select(runs.c.id, runs.c.uuid)
                .where(runs.c.id.in_(sa.select(run_io.c.run_id).where(_UNSOURCED)))
                .order_by(runs.c.id)
            ).all()
        )
    rebuilt = without = 0
    for start in range(0, len(runs_to_do), chunk):
        part = runs_to_do[start : start + chunk]
        with engine.connect() as conn, conn.begin() as transaction:
            done, missing = _rebuild(conn, {row.uuid: row.id for row in part})
            rebuilt, without = rebuilt + done, without + missing
            if dry_run:
                transaction.rollback()
    return Rebuilt(rebuilt, without)


def _rebuild(conn: Connection, run_ids: dict[str, int]) -> tuple[int, int]:
    e = lineage_events
    seen: dict[tuple[int, str, str], tuple[Any, str | None, str | None]] = {}
    with_events: set[int] = set()
    query = (
        sa.select(e.c.run_uuid, e.c.event_time, e.c.payload)
        .where(e.c.run_uuid.in_(sorted(run_ids)), e.c.kind == "RunEvent")
        .order_by(e.c.event_time, e.c.id)
    )
    for run_uuid, event_time, payload in conn.execute(query):
        event = json.loads(payload) if isinstance(payload, str | bytes) else payload
        run_id = run_ids[run_uuid]
        with_events.add(run_id)
        for raw in (event or {}).get("inputs") or []:
            if not isinstance(raw, dict):
                continue
            key = (run_id, str(raw.get("namespace")), str(raw.get("name")))
            first, version, source = seen.get(key, (event_time, None, None))
            facet = (raw.get("facets") or {}).get("version")
            offered = facet.get("datasetVersion") if isinstance(facet, dict) else None
            if offered is not None:
                candidate = version_source(raw)
                if source is None or candidate == "datasetVersion" or source == "catalog":
                    version, source = str(offered), candidate
            seen[key] = (min(first, event_time), version, source)
    ids = _dataset_ids(conn, {(ns, name) for _, ns, name in seen})
    counted = conn.execute(
        sa.select(run_io.c.run_id, sa.func.count())
        .where(_UNSOURCED, run_io.c.run_id.in_(sorted(run_ids.values())))
        .group_by(run_io.c.run_id)
    ).all()
    for (run_id, ns, name), (first, version, source) in sorted(seen.items()):
        dataset_id = ids.get((ns, name))
        if dataset_id is None:
            continue
        version_id = None
        if version is not None:
            version_id = conn.execute(
                sa.select(dataset_versions.c.id).where(
                    dataset_versions.c.dataset_id == dataset_id,
                    dataset_versions.c.version == version,
                )
            ).scalar()
        where = (run_io.c.run_id == run_id, run_io.c.dataset_id == dataset_id, _UNSOURCED)
        if version_id is not None:
            values: dict[str, Any] = {"dataset_version_id": version_id, "version_source": source}
        else:
            values = {"version_source": "eventTime"}
        conn.execute(sa.update(run_io).where(*where).values(read_at=first, **values))
    if with_events:
        conn.execute(_LINK_RUNS, {"ids": sorted(with_events)})
        # inputs of runs with raw events that no event names (renamed since): by event time too
        conn.execute(
            sa.update(run_io)
            .where(_UNSOURCED, run_io.c.run_id.in_(sorted(with_events)))
            .values(version_source="eventTime")
        )
        conn.execute(_LINK_RUNS, {"ids": sorted(with_events)})
    done = sum(count for run_id, count in counted if run_id in with_events)
    return done, sum(count for _, count in counted) - done


def _dataset_ids(conn: Connection, keys: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """The datasets these names (or aliases) stand for."""
    found: dict[tuple[str, str], int] = {}
    n, d, link = namespaces, datasets, dataset_symlinks
    for ns, name in keys:
        row = conn.execute(
            sa.select(d.c.id)
            .join(n, n.c.id == d.c.namespace_id)
            .where(n.c.name == ns, d.c.name == name)
        ).scalar()
        if row is None:
            row = conn.execute(
                sa.select(link.c.dataset_id).where(link.c.namespace == ns, link.c.name == name)
            ).scalar()
        if row is not None:
            found[(ns, name)] = int(row)
    return found
