"""``GET /lineage``: the job/dataset lineage graph around a node, in Marquez's graph shape.

As Marquez's (``LineageDao.getLineage``), the graph is the connected graph within the depth: jobs
are linked when they share a dataset, whichever way each uses it, so a job's siblings (other
readers of its inputs, other writers of its outputs) and their own neighbours are in it, not only
its ancestors and descendants. Depth counts job hops: depth 0 around a job is the job with its
inputs and outputs, depth 1 adds every job sharing one of those datasets, and so on. Around a
dataset, the walk starts from every job that reads or writes it (Marquez starts from one of them,
its latest writer, and reaches the others one hop later). The walk is breadth first, one statement
per level, each job visited once.
"""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import dataset_pk, job_pk
from plumbline.store.read.confidence import confidence
from plumbline.store.read.datasets import datasets_by_pk
from plumbline.store.read.errors import InvalidArgumentError
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.jobs import jobs_by_pk
from plumbline.store.read.nodeids import dataset_node, job_node, resolve_node_id
from plumbline.store.read.records import (
    Confidence,
    DatasetData,
    JobData,
    LineageEdge,
    LineageGraph,
    LineageNode,
    NodeRef,
)
from plumbline.store.read.visibility import VisibleTo, visible_job_id
from plumbline.store.read.work_budget import read_rows

DEFAULT_DEPTH = 20

_EDGE, _DATASET, _NAMESPACE = s.job_dataset_edges, s.datasets, s.namespaces
_EDGES_OF_JOBS = (
    sa.select(
        _EDGE.c.job_id,
        _EDGE.c.dataset_id,
        _EDGE.c.direction,
        _NAMESPACE.c.name.label("namespace"),
        _DATASET.c.name,
        _EDGE.c.last_seen,
        _EDGE.c.edge_source,
        _EDGE.c.completeness,
        _EDGE.c.completeness_reasons,
    )
    .join(_DATASET, _DATASET.c.id == _EDGE.c.dataset_id)
    .join(_NAMESPACE, _NAMESPACE.c.id == _DATASET.c.namespace_id)
    .where(
        in_ids(_EDGE.c.job_id),
        _DATASET.c.is_hidden == sa.false(),
    )
)


class _JobEdge(NamedTuple):
    # field order is the sort order of a job's edges
    namespace: str
    name: str
    direction: str
    dataset_id: int
    confidence: Confidence


def _job_datasets(conn: Connection, jobs: list[int]) -> dict[int, list[_JobEdge]]:
    """Every visible edge of each job, with the dataset's namespace and name, sorted."""
    out: dict[int, list[_JobEdge]] = defaultdict(list)
    for job, dataset, direction, namespace, name, *known in read_rows(
        conn, _EDGES_OF_JOBS, {"ids": jobs}
    ):
        last_seen, source, completeness, reasons = known
        known_as = confidence(source, completeness, reasons, last_seen)
        out[job].append(_JobEdge(namespace, name, direction, dataset, known_as))
    for edges in out.values():
        edges.sort(key=lambda e: (e.namespace, e.name, e.direction, e.dataset_id))
    return out


_J = s.jobs
_SEED_JOBS = (
    sa.select(_EDGE.c.job_id)
    .join(_J, _J.c.id == _EDGE.c.job_id)
    .where(_EDGE.c.dataset_id == sa.bindparam("start"), _J.c.is_hidden == sa.false())
)
_VIA, _HOP = _EDGE.alias("via"), _EDGE.alias("hop")
_NEIGHBOURS = (
    sa.select(_HOP.c.job_id)
    .select_from(_VIA)
    .join(_DATASET, sa.and_(_DATASET.c.id == _VIA.c.dataset_id, _DATASET.c.is_hidden == sa.false()))
    .join(_HOP, _HOP.c.dataset_id == _VIA.c.dataset_id)
    .join(_J, sa.and_(_J.c.id == _HOP.c.job_id, _J.c.is_hidden == sa.false()))
    .where(in_ids(_VIA.c.job_id))
    .distinct()
)


def _connected_jobs(
    conn: Connection, kind: str, start: int, max_depth: int, cap: int, visible_to: VisibleTo
) -> tuple[dict[int, int], bool]:
    """Jobs connected to the start node through shared datasets (either direction), with their
    depth (job hops), breadth first; hidden jobs and datasets are not crossed, nor jobs
    ``visible_to`` may not see. Stops once more than ``cap`` jobs are found (then True)."""
    if kind == "JOB":
        frontier = [start]
    else:
        seed = _SEED_JOBS.where(visible_job_id(_J.c.id, visible_to))
        frontier = sorted({row[0] for row in read_rows(conn, seed, {"start": start})})
    depths = dict.fromkeys(frontier, 0)
    step = _NEIGHBOURS.where(visible_job_id(_J.c.id, visible_to))
    level = 0
    while frontier and level < max_depth and len(depths) <= cap:
        level += 1
        found = {row[0] for row in read_rows(conn, step, {"ids": frontier})} - depths.keys()
        frontier = sorted(found)
        depths.update(dict.fromkeys(frontier, level))
    return depths, len(depths) > cap


def get_lineage(
    conn: Connection, node_id: str, depth: int, max_nodes: int, visible_to: VisibleTo = None
) -> LineageGraph:
    """The graph around ``node_id`` within ``depth`` job hops, at most ``max_nodes`` nodes.

    A namespace-limited caller (``visible_to``) walks only through the jobs it may see, so the graph
    holds those jobs and the datasets they touch; a start node it may not see is not found.

    Returns ``{"graph": [node…], "truncated": bool}``; ``truncated`` says the cap cut the graph (the
    nearest nodes are kept). A ``#version`` suffix on the node id is accepted and ignored.
    """
    if depth < 0:
        raise InvalidArgumentError("depth must be >= 0")
    node = resolve_node_id(conn, node_id)
    if node.kind == "DATASET_FIELD":
        raise InvalidArgumentError("dataset fields have column lineage: use /column-lineage")
    if node.kind == "JOB":
        start = job_pk(conn, node.namespace, node.name, visible_to=visible_to)
    else:
        start = dataset_pk(conn, node.namespace, node.name, visible_to=visible_to)
    cap = max(max_nodes, 1)

    depths, truncated = _connected_jobs(conn, node.kind, start, depth, cap, visible_to)
    ordered = sorted(depths, key=lambda job: (depths[job], job))
    # each job is a node: past the cap's first jobs none can be kept, so their edges are not read
    edges = _job_datasets(conn, ordered[:cap])

    # keep the nearest jobs, each with all its datasets, within the node cap
    jobs: list[int] = []
    datasets: set[int] = {start} if node.kind == "DATASET" else set()
    for job in ordered:
        new = {e.dataset_id for e in edges.get(job, []) if e.dataset_id not in datasets}
        if len(jobs) + len(datasets) + 1 + len(new) > cap:
            truncated = True
            if not jobs and job == start and node.kind == "JOB":
                # the start job alone is past the cap: it is kept, with the datasets that fit
                room = max(cap - 1 - len(datasets), 0)
                kept = [e for e in edges.get(job, []) if e.dataset_id not in datasets]
                shown = {e.dataset_id for e in kept[:room]}
                edges[job] = [e for e in edges.get(job, []) if e.dataset_id in shown]
                jobs.append(job)
                datasets |= shown
            break
        jobs.append(job)
        datasets |= new
    return {"graph": _graph(conn, jobs, datasets, edges, visible_to), "truncated": truncated}


def _graph(
    conn: Connection,
    jobs: list[int],
    datasets: set[int],
    edges: dict[int, list[_JobEdge]],
    visible_to: VisibleTo = None,
) -> list[LineageNode]:
    io: dict[int, dict[str, list[NodeRef]]] = {}
    for job in jobs:
        io[job] = {"input": [], "output": []}
        for e in edges.get(job, []):
            io[job][e.direction].append({"namespace": e.namespace, "name": e.name})
    job_docs = jobs_by_pk(conn, jobs, full=False, io=io)
    dataset_docs = datasets_by_pk(conn, sorted(datasets), full=False, visible_to=visible_to)
    job_ids = {pk: job_node(doc["namespace"], doc["name"]) for pk, doc in job_docs.items()}
    ds_ids = {pk: dataset_node(doc["namespace"], doc["name"]) for pk, doc in dataset_docs.items()}
    # edges as (origin, destination) tuples (cheap to sort); one dict per edge, shared by both ends
    pairs: list[tuple[str, str, Confidence]] = []
    for job in jobs:
        job_id = job_ids[job]
        for e in edges.get(job, ()):
            ds_id = ds_ids[e.dataset_id]
            ends = (ds_id, job_id) if e.direction == "input" else (job_id, ds_id)
            pairs.append((*ends, e.confidence))
    pairs.sort(key=itemgetter(0, 1))
    in_edges: dict[str, list[LineageEdge]] = defaultdict(list)
    out_edges: dict[str, list[LineageEdge]] = defaultdict(list)
    for origin, destination, known_as in pairs:
        edge: LineageEdge = {"origin": origin, "destination": destination, **known_as}
        out_edges[origin].append(edge)
        in_edges[destination].append(edge)
    nodes: list[tuple[str, str, JobData | DatasetData]]
    nodes = [(job_ids[pk], "JOB", job_docs[pk]) for pk in jobs]
    nodes += [(ds_ids[pk], "DATASET", doc) for pk, doc in dataset_docs.items()]
    nodes.sort(key=itemgetter(0))
    return [
        {
            "id": nid,
            "type": kind,
            "data": data,
            "inEdges": in_edges.get(nid, []),
            "outEdges": out_edges.get(nid, []),
        }
        for nid, kind, data in nodes
    ]
