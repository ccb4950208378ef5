"""Jobs and job versions in Marquez's shapes (``Job``, ``JobVersion``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import cache
from typing import Any, Literal, overload

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import (
    count,
    iso,
    job_pk,
    json_obj,
    namespace_row,
    tag_names_by_owner,
)
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.records import (
    Job,
    JobData,
    JobPage,
    JobVersion,
    JobVersionPage,
    NodeRef,
    Run,
)
from plumbline.store.read.runs import (
    STORED_STATES,
    marquez_state,
    newest_first,
    runs_by_pk,
    runs_by_uuid,
)
from plumbline.store.read.visibility import visible_jobs

LATEST_RUNS = 10


_IO_OF_JOBS = (
    sa.select(
        s.job_dataset_edges.c.job_id,
        s.job_dataset_edges.c.direction,
        s.namespaces.c.name,
        s.datasets.c.name,
    )
    .join(s.datasets, s.datasets.c.id == s.job_dataset_edges.c.dataset_id)
    .join(s.namespaces, s.namespaces.c.id == s.datasets.c.namespace_id)
    .where(in_ids(s.job_dataset_edges.c.job_id), s.datasets.c.is_hidden == sa.false())
    .order_by(s.job_dataset_edges.c.job_id, s.namespaces.c.name, s.datasets.c.name)
)


def _io_by_job(conn: Connection, ids: Sequence[int]) -> dict[int, dict[str, list[NodeRef]]]:
    out: dict[int, dict[str, list[NodeRef]]] = defaultdict(lambda: {"input": [], "output": []})
    for job, direction, namespace, name in conn.execute(_IO_OF_JOBS, {"ids": ids}).all():
        out[job][direction].append({"namespace": namespace, "name": name})
    return out


def _latest_runs(conn: Connection, ids: Sequence[int]) -> dict[int, list[Run]]:
    """The newest runs of each job by event time (at most LATEST_RUNS each), ranked in SQL; the
    job's latest run (``jobs.latest_run_uuid``) first, so that ``latestRun`` is
    ``latestRuns[0]`` even when two runs have events at the same instant."""
    r, j = s.runs, s.jobs
    is_latest = sa.case((r.c.uuid == j.c.latest_run_uuid, 0), else_=1)
    ranked = (
        sa.select(
            r.c.id,
            r.c.job_id,
            sa.func.row_number()
            .over(partition_by=r.c.job_id, order_by=(is_latest, *newest_first(r)))
            .label("rank"),
        )
        .join(j, j.c.id == r.c.job_id)
        .where(in_ids(r.c.job_id))
        .subquery()
    )
    query = (
        sa.select(ranked.c.id, ranked.c.job_id)
        .where(ranked.c.rank <= LATEST_RUNS)
        .order_by(ranked.c.job_id, ranked.c.rank)
    )
    order: dict[int, list[int]] = defaultdict(list)
    for run, job in conn.execute(query, {"ids": ids}).all():
        order[job].append(run)
    runs = runs_by_pk(conn, [pk for pks in order.values() for pk in pks])
    return {job: [runs[pk] for pk in pks] for job, pks in order.items()}


_PARENT = s.jobs.alias("parent")


@cache
def _jobs_query(full: bool) -> sa.Select[Any]:
    """Job rows, unpacked by position (a ``Row``'s attribute access costs ~1 µs: too slow for
    hundreds of graph nodes); facets, the heaviest column, only for full documents."""
    j, n, jv, parent = s.jobs, s.namespaces, s.job_versions, _PARENT
    return (
        sa.select(
            j.c.id,
            j.c.type,
            j.c.name,
            j.c.created_at,
            j.c.updated_at,
            j.c.location,
            j.c.description,
            j.c.latest_run_uuid,
            n.c.name,
            parent.c.name,
            parent.c.uuid,
            jv.c.uuid,
            *([j.c.facets] if full else []),
        )
        .join(n, n.c.id == j.c.namespace_id)
        .outerjoin(parent, parent.c.id == j.c.parent_job_id)
        .outerjoin(jv, jv.c.id == j.c.current_version_id)
        .where(in_ids(j.c.id))
    )


@overload
def jobs_by_pk(
    conn: Connection,
    ids: Sequence[int],
    *,
    full: Literal[True] = True,
    io: dict[int, dict[str, list[NodeRef]]] | None = None,
) -> dict[int, Job]: ...
@overload
def jobs_by_pk(
    conn: Connection,
    ids: Sequence[int],
    *,
    full: Literal[False],
    io: dict[int, dict[str, list[NodeRef]]] | None = None,
) -> dict[int, JobData]: ...
def jobs_by_pk(
    conn: Connection,
    ids: Sequence[int],
    *,
    full: bool = True,
    io: dict[int, dict[str, list[NodeRef]]] | None = None,
) -> dict[int, Job] | dict[int, JobData]:
    """Marquez ``Job`` documents (``full=False``: the lighter ``JobData`` of graph nodes).

    ``io``: the jobs' inputs and outputs when the caller already has them (the graph does).
    """
    wanted = sorted(set(ids))
    out: dict[int, Any] = {}  # Job or JobData, as ``full`` says
    latest_uuid: dict[int, str] = {}
    for (
        pk,
        type_,
        name,
        created_at,
        updated_at,
        location,
        description,
        latest_run_uuid,
        namespace,
        parent_name,
        parent_uuid,
        version_uuid,
        *facets,
    ) in conn.execute(_jobs_query(full), {"ids": wanted}).all():
        simple = name
        if parent_name and name.startswith(parent_name + "."):
            simple = name[len(parent_name) + 1 :]
        doc: dict[str, Any] = {
            "id": {"namespace": namespace, "name": name},
            "type": type_,
            "name": name,
            "simpleName": simple,
            "parentJobName": parent_name,
            "parentJobUuid": parent_uuid,
            "createdAt": iso(created_at),
            "updatedAt": iso(updated_at),
            "namespace": namespace,
            "inputs": [],
            "outputs": [],
            "location": location,
            "description": description,
            "latestRun": None,
            "currentVersion": version_uuid,
        }
        if full:
            doc.update({"latestRuns": [], "facets": json_obj(facets[0]), "labels": [], "tags": []})
        else:
            doc["currentRunUuid"] = latest_run_uuid
        if latest_run_uuid:
            latest_uuid[pk] = latest_run_uuid
        out[pk] = doc
    if io is None:
        io = _io_by_job(conn, wanted)
    for pk, doc in out.items():
        doc["inputs"] = io[pk]["input"]
        doc["outputs"] = io[pk]["output"]
    if full:
        latest = _latest_runs(conn, wanted)
        tags = tag_names_by_owner(conn, s.job_tags.c.job_id, wanted)
        for pk, doc in out.items():
            doc["latestRuns"] = latest.get(pk, [])
            doc["latestRun"] = doc["latestRuns"][0] if doc["latestRuns"] else None
            doc["tags"] = tags.get(pk, [])
    elif latest_uuid:
        latest_pks = dict(conn.execute(_LATEST_RUN_OF_JOBS, {"ids": wanted}).all())
        runs = runs_by_pk(conn, list(latest_pks.values()))
        for pk, run_pk in latest_pks.items():
            out[pk]["latestRun"] = runs[run_pk]
    return out


# job id -> id of its latest run (``jobs.latest_run_uuid``), for many jobs in one statement
_LATEST_RUN_OF_JOBS = (
    sa.select(s.jobs.c.id, s.runs.c.id)
    .join(s.runs, s.runs.c.uuid == s.jobs.c.latest_run_uuid)
    .where(in_ids(s.jobs.c.id))
)


def get_job(conn: Connection, namespace: str, name: str) -> Job:
    """``GET /namespaces/{namespace}/jobs/{job}``."""
    pk = job_pk(conn, namespace, name)
    return jobs_by_pk(conn, [pk])[pk]


def list_jobs(
    conn: Connection,
    namespace: str | None,
    limit: int,
    offset: int,
    last_run_states: Sequence[str] = (),
    namespaces: frozenset[str] | None = None,
) -> JobPage:
    """``GET /namespaces/{namespace}/jobs`` and the cross-namespace ``GET /jobs``."""
    j, r, n = s.jobs, s.runs, s.namespaces
    base = (
        sa.select(j.c.id)
        .join(n, n.c.id == j.c.namespace_id)
        .where(j.c.is_hidden == sa.false(), visible_jobs(n.c.name, namespaces))
    )
    if namespace is not None:
        base = base.where(j.c.namespace_id == namespace_row(conn, namespace).id)
    if last_run_states:
        wanted = {state.upper() for state in last_run_states}
        stored = [state for state in STORED_STATES if marquez_state(state) in wanted]
        latest = sa.select(r.c.uuid).where(r.c.current_state.in_(stored))
        base = base.where(j.c.latest_run_uuid.in_(latest))
    total = count(conn, base)
    ids = list(conn.execute(base.order_by(j.c.name).limit(limit).offset(offset)).scalars())
    docs = jobs_by_pk(conn, ids)
    return {"totalCount": total, "jobs": [docs[i] for i in ids]}


def _version_docs(conn: Connection, job: int, rows: Sequence[sa.Row[Any]]) -> list[JobVersion]:
    base = jobs_by_pk(conn, [job], full=False)[job]
    runs = runs_by_uuid(conn, [row.latest_run_uuid for row in rows if row.latest_run_uuid])
    docs: list[JobVersion] = []
    for row in rows:
        docs.append(
            {
                "id": {"namespace": base["namespace"], "name": base["name"], "version": row.uuid},
                "name": base["name"],
                "createdAt": iso(row.created_at),
                "version": row.uuid,
                "namespace": base["namespace"],
                "location": row.location,
                "context": {},
                "inputs": _dataset_ids(row.inputs),
                "outputs": _dataset_ids(row.outputs),
                "latestRun": runs.get(row.latest_run_uuid) if row.latest_run_uuid else None,
            }
        )
    return docs


def _dataset_ids(value: Any) -> list[NodeRef]:
    """A job version's stored inputs/outputs as ``[{"namespace", "name"}]``."""
    if not isinstance(value, list):
        return []
    ids: list[NodeRef] = []
    for item in value:
        if isinstance(item, dict) and "namespace" in item and "name" in item:
            ids.append({"namespace": item["namespace"], "name": item["name"]})
    return ids


def list_job_versions(
    conn: Connection, namespace: str, name: str, limit: int, offset: int
) -> JobVersionPage:
    """``GET …/jobs/{job}/versions``: ``{"totalCount", "versions"}``, newest first."""
    pk = job_pk(conn, namespace, name)
    jv = s.job_versions
    total = count(conn, sa.select(jv.c.id).where(jv.c.job_id == pk))
    rows = conn.execute(
        sa.select(jv)
        .where(jv.c.job_id == pk)
        .order_by(jv.c.created_at.desc(), jv.c.id.desc())
        .limit(limit)
        .offset(offset)
    ).all()
    return {"totalCount": total, "versions": _version_docs(conn, pk, rows)}


def get_job_version(conn: Connection, namespace: str, name: str, version: str) -> JobVersion:
    """``GET …/jobs/{job}/versions/{version}`` (the version's uuid or its version string)."""
    pk = job_pk(conn, namespace, name)
    jv = s.job_versions
    rows = conn.execute(
        sa.select(jv)
        .where(jv.c.job_id == pk, sa.or_(jv.c.uuid == version, jv.c.version == version))
        .limit(1)
    ).all()
    if not rows:
        raise NotFoundError(f"version {version!r} of job {name!r} not found")
    return _version_docs(conn, pk, rows)[0]
