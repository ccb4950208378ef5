"""``GET /runlineage/upstream``: the runs that produced what a run read, recursively (Marquez's
``UpstreamRunLineage``)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import chunks, iso
from plumbline.store.read.errors import InvalidArgumentError
from plumbline.store.read.records import DatasetSummary, UpstreamRun, UpstreamRunLineage
from plumbline.store.read.runs import marquez_state, run_pk_by_uuid
from plumbline.store.read.visibility import VisibleTo, visible_job_id
from plumbline.store.read.walks import upstream_run_walk
from plumbline.store.read.work_budget import read_rows


def get_upstream_runs(
    conn: Connection, run_uuid: str, depth: int, max_nodes: int, visible_to: VisibleTo = None
) -> UpstreamRunLineage:
    """``{"runs": [{"job", "run", "inputs"}], "truncated"}``, nearest runs first.

    A namespace-limited caller (``visible_to``) sees only runs of its jobs; an input written by a
    run it may not see has ``producedByRunId`` null.
    """
    if depth < 0:
        raise InvalidArgumentError("depth must be >= 0")
    start = run_pk_by_uuid(conn, run_uuid, visible_to)
    walk = upstream_run_walk(
        conn, start, max_depth=depth, cap=max(max_nodes, 1), visible_to=visible_to
    )
    ordered = sorted(walk.depths, key=lambda pk: (walk.depths[pk], pk))
    r, j, n, jv = s.runs, s.jobs, s.namespaces, s.job_versions
    io, d, dv = s.run_io, s.datasets, s.dataset_versions
    producer = s.runs.alias("producer")
    if visible_to is None:
        produced_by: sa.ColumnElement[Any] = dv.c.run_uuid
    else:
        produced_by = producer.c.uuid
    runs: dict[int, UpstreamRun] = {}
    inputs: dict[int, list[DatasetSummary]] = defaultdict(list)
    for part in chunks(ordered):
        query = (
            sa.select(
                r.c.id,
                r.c.uuid,
                r.c.started_at,
                r.c.ended_at,
                r.c.current_state,
                n.c.name.label("namespace"),
                j.c.name.label("job"),
                jv.c.uuid.label("version"),
            )
            .join(j, j.c.id == r.c.job_id)
            .join(n, n.c.id == j.c.namespace_id)
            .outerjoin(jv, jv.c.id == r.c.job_version_id)
            .where(r.c.id.in_(part))
        )
        for row in conn.execute(query):
            runs[row.id] = {
                "job": {"namespace": row.namespace, "name": row.job, "version": row.version},
                "run": {
                    "id": row.uuid,
                    "start": iso(row.started_at),
                    "end": iso(row.ended_at),
                    "status": marquez_state(row.current_state),
                },
                "inputs": [],
            }
        io_query: sa.Select[Any] = (
            sa.select(
                io.c.run_id,
                n.c.name.label("namespace"),
                d.c.name,
                dv.c.uuid.label("version"),
                produced_by.label("run_uuid"),
            )
            .join(d, d.c.id == io.c.dataset_id)
            .join(n, n.c.id == d.c.namespace_id)
            .outerjoin(dv, dv.c.id == io.c.dataset_version_id)
            .where(io.c.run_id.in_(part), io.c.direction == "input")
        )
        if visible_to is not None:
            io_query = io_query.outerjoin(
                producer,
                sa.and_(
                    producer.c.uuid == dv.c.run_uuid,
                    visible_job_id(producer.c.job_id, visible_to),
                ),
            )
        io_query = io_query.order_by(io.c.run_id, n.c.name, d.c.name)
        for io_row in read_rows(conn, io_query):
            inputs[io_row.run_id].append(
                {
                    "namespace": io_row.namespace,
                    "name": io_row.name,
                    "version": io_row.version,
                    "producedByRunId": io_row.run_uuid,
                }
            )
    for pk, doc in runs.items():
        doc["inputs"] = inputs.get(pk, [])
    return {"runs": [runs[pk] for pk in ordered if pk in runs], "truncated": walk.truncated}
