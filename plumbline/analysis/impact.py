"""Impact (downstream) and where a node comes from (upstream), from a dataset, a job or a field.

Distances count edges: from a dataset, the jobs reading it are at 1 and the datasets they write at
2; from a job, its outputs are at 1. From a field (column mode) they count field-to-field hops.

The walk itself is the store's recursive SQL (:func:`walks.job_walk`, :func:`walks.field_walk`); it
gives the set of nodes within the depth, then one query fetches the edges among them and a
breadth-first pass here gives each node its distance and one shortest path (ties broken by node id,
so answers are stable). A namespace-limited caller's walk covers everything; the answer lists only
what the caller may read and counts the rest (``hidden_nodes``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from sqlalchemy.engine import Connection

from plumbline.analysis.model import (
    ImpactEdge,
    ImpactNode,
    ImpactResult,
    LastRun,
    LastVersion,
    Transformation,
)
from plumbline.openlineage.confidence import RANK, at_least, completeness_of
from plumbline.store import (
    InvalidArgumentError,
    NodeId,
    NotFoundError,
    VisibleTo,
    dataset_node,
    dataset_pk,
    field_node,
    field_walk,
    job_node,
    job_pk,
    job_walk,
    resolve_node_id,
)
from plumbline.store.read import impact as q

MAX_DEPTH = 50
DIRECTIONS = ("downstream", "upstream")
NODE_TYPES = ("DATASET", "JOB", "DATASET_FIELD")
MIN_CONFIDENCE = ("partial", "complete")  # what minConfidence accepts (inferred: every edge)

K = TypeVar("K", bound=Hashable)


def check_depth(depth: int | None) -> int:
    """``depth`` itself, or the cap when None; :class:`InvalidArgumentError` outside 0..cap."""
    if depth is None:
        return MAX_DEPTH
    if depth < 0:
        raise InvalidArgumentError(f"depth must be >= 0, got {depth}")
    if depth > MAX_DEPTH:
        raise InvalidArgumentError(f"depth {depth} is above the cap of {MAX_DEPTH}")
    return depth


def impact(
    conn: Connection,
    node_id: str,
    *,
    direction: str = "downstream",
    depth: int | None = None,
    max_nodes: int = 2000,
    namespaces: Iterable[str] | None = None,
    types: Iterable[str] | None = None,
    since: datetime | None = None,
    min_confidence: str | None = None,
    visible_to: VisibleTo = None,
) -> ImpactResult:
    """Everything ``direction`` of ``node_id`` within ``depth`` edges (default and cap: 50).

    ``namespaces``/``types`` keep only nodes of those namespaces / node types in the answer (the
    walk still goes through the others); ``since`` takes only edges seen since then;
    ``min_confidence`` (``partial`` or ``complete``) only edges at least that complete, so a node
    reached through a less complete edge only is not listed. At most
    ``max_nodes`` nodes are walked, the nearest first; ``truncated`` says the cap cut the answer.
    """
    if direction not in DIRECTIONS:
        raise InvalidArgumentError(f"direction must be downstream or upstream, got {direction!r}")
    depth = check_depth(depth)
    if min_confidence is not None and min_confidence not in MIN_CONFIDENCE:
        raise InvalidArgumentError(
            f"minConfidence must be partial or complete, got {min_confidence!r}"
        )
    kinds = None if types is None else set(types)
    if kinds is not None and not kinds <= set(NODE_TYPES):
        bad = sorted(kinds - set(NODE_TYPES))
        raise InvalidArgumentError(
            f"unknown node type {bad[0]!r}: expected DATASET, JOB or DATASET_FIELD"
        )
    node = resolve_node_id(conn, node_id)
    downstream = direction == "downstream"
    cap = max(max_nodes, 1)
    keep = _kept(min_confidence)
    if node.kind == "DATASET_FIELD":
        graph = _field_graph(conn, node, downstream, depth, cap, since, visible_to, keep)
    else:
        graph = _table_graph(conn, node, downstream, depth, cap, since, visible_to, keep)
    return graph.result(
        node_id=str(node).split("#", 1)[0],
        direction=direction,
        depth=depth,
        cap=cap,
        namespaces=None if namespaces is None else set(namespaces),
        types=kinds,
    )


def _kept(minimum: str | None) -> Callable[[str | None], bool]:
    """Which stored completeness an edge must have to be walked."""
    if minimum is None:
        return lambda _: True
    return lambda completeness: at_least(completeness, minimum)


class _Graph:
    """The walked subgraph: node documents by key, edges, the start, and who may read what."""

    def __init__(self, mode: str, start: Hashable, truncated: bool) -> None:
        self.mode = mode
        self.start = start
        self.truncated = truncated
        self.docs: dict[Hashable, ImpactNode] = {}
        self.readable: set[Hashable] = set()
        self.edges: list[ImpactEdge] = []
        self.keys: dict[str, Hashable] = {}

    def result(
        self,
        *,
        node_id: str,
        direction: str,
        depth: int,
        cap: int,
        namespaces: set[str] | None,
        types: set[str] | None,
    ) -> ImpactResult:
        ordered = sorted(self.docs.values(), key=lambda n: (n.distance, n.type, n.id))
        truncated = self.truncated or len(ordered) > cap + 1
        ordered = ordered[: cap + 1]  # the start and at most ``cap`` nodes
        readable_ids = {self.docs[k].id for k in self.readable if k in self.docs}
        hidden = sum(1 for n in ordered if n.id not in readable_ids)
        listed = []
        for n in ordered:
            if n.id not in readable_ids:
                continue
            if n.distance > 0 and namespaces is not None and n.namespace not in namespaces:
                continue
            if n.distance > 0 and types is not None and n.type not in types:
                continue
            path = tuple(p if p in readable_ids else None for p in n.path)
            listed.append(_replace_path(n, path))
        shown = {n.id for n in listed}
        edges = sorted(
            (e for e in self.edges if e.origin in shown and e.destination in shown),
            key=lambda e: (e.origin, e.destination),
        )
        return ImpactResult(
            node_id=node_id,
            direction=direction,
            mode=self.mode,
            depth=depth,
            nodes=tuple(listed),
            edges=tuple(edges),
            truncated=truncated,
            hidden_nodes=hidden,
        )


def _replace_path(node: ImpactNode, path: tuple[str | None, ...]) -> ImpactNode:
    return node if path == node.path else replace(node, path=path)


def _bfs(start: K, neighbours: dict[K, list[K]], depth: int) -> dict[K, int]:
    """The distance of every node within ``depth`` hops of ``start``."""
    distance = {start: 0}
    frontier = [start]
    level = 0
    while frontier and level < depth:
        level += 1
        found = []
        for here in frontier:
            for there in neighbours.get(here, ()):
                if there not in distance:
                    distance[there] = level
                    found.append(there)
        frontier = found
    return distance


def _parents(
    distance: dict[K, int], neighbours: dict[K, list[K]], order: Callable[[K], str]
) -> dict[K, K]:
    """One parent per reached node: among its nearest predecessors, the smallest by ``order``."""
    parent: dict[K, K] = {}
    for here, d in distance.items():
        for there in neighbours.get(here, ()):
            if distance.get(there) == d + 1:
                current = parent.get(there)
                if current is None or order(here) < order(current):
                    parent[there] = here
    return parent


def _path(node: K, parent: dict[K, K]) -> list[K]:
    path = [node]
    while path[-1] in parent:
        path.append(parent[path[-1]])
    path.reverse()
    return path


def _table_graph(
    conn: Connection,
    node: NodeId,
    downstream: bool,
    depth: int,
    cap: int,
    since: datetime | None,
    visible_to: VisibleTo,
    keep: Callable[[str | None], bool],
) -> _Graph:
    """Datasets and jobs ``depth`` edges around a dataset or a job."""
    if node.kind == "JOB":
        start_pk = job_pk(conn, node.namespace, node.name, visible_to=visible_to)
        start: tuple[str, int] = ("J", start_pk)
        job_depth = depth // 2  # jobs at even distances: 2, 4, …
    else:
        start_pk = dataset_pk(conn, node.namespace, node.name, visible_to=visible_to)
        start = ("D", start_pk)
        job_depth = (depth - 1) // 2  # jobs at odd distances: 1, 3, …
    jobs: dict[int, int] = {}
    truncated = False
    if depth > 0:
        walk = job_walk(
            conn,
            node.kind,
            start_pk,
            downstream=downstream,
            max_depth=job_depth,
            cap=cap,
            since=since,
        )
        jobs, truncated = walk.depths, walk.truncated
    if node.kind == "JOB":
        jobs.setdefault(start_pk, 0)
    edges = q.job_edges(conn, sorted(jobs), since) if jobs else []
    edges = [e for e in edges if keep(e.completeness)]

    # data flows input dataset -> job -> output dataset; walk it forwards or backwards
    neighbours: dict[tuple[str, int], list[tuple[str, int]]] = defaultdict(list)
    for e in edges:
        dataset, job = ("D", e.dataset_id), ("J", e.job_id)
        forwards = e.direction == "input"
        origin, destination = (dataset, job) if forwards else (job, dataset)
        if downstream:
            neighbours[origin].append(destination)
        else:
            neighbours[destination].append(origin)
    distance = _bfs(start, neighbours, depth)
    reached_jobs = sorted(pk for kind, pk in distance if kind == "J")
    reached_datasets = sorted(pk for kind, pk in distance if kind == "D")
    jobs_info = q.job_summaries(conn, reached_jobs)
    datasets_info = q.dataset_summaries(conn, reached_datasets)
    text: dict[tuple[str, int], str] = {}
    for pk, j in jobs_info.items():
        text[("J", pk)] = job_node(j.namespace, j.name)
    for pk, d in datasets_info.items():
        text[("D", pk)] = dataset_node(d.namespace, d.name)
    parent = _parents(distance, neighbours, text.__getitem__)

    graph = _Graph("table", start, truncated)
    for key, dist in distance.items():
        path = tuple(text[k] for k in _path(key, parent))
        kind, pk = key
        if kind == "J":
            j = jobs_info[pk]
            last_run = (
                LastRun(j.last_run_id, j.last_run_state, j.last_run_started_at, j.last_run_ended_at)
                if j.last_run_id
                else None
            )
            graph.docs[key] = ImpactNode(
                text[key], "JOB", j.namespace, j.name, dist, path, last_run=last_run
            )
        else:
            d = datasets_info[pk]
            version = (
                LastVersion(d.version, d.version_created_at, d.version_run_id)
                if d.version is not None
                else None
            )
            graph.docs[key] = ImpactNode(
                text[key], "DATASET", d.namespace, d.name, dist, path, last_version=version
            )
    graph.readable = {("J", pk) for pk in q.readable_jobs(conn, reached_jobs, visible_to)}
    graph.readable |= {("D", pk) for pk in q.readable_datasets(conn, reached_datasets, visible_to)}
    for e in edges:
        dataset, job = ("D", e.dataset_id), ("J", e.job_id)
        if dataset in distance and job in distance:
            pair = (dataset, job) if e.direction == "input" else (job, dataset)
            known = completeness_of(e.completeness)
            graph.edges.append(ImpactEdge(text[pair[0]], text[pair[1]], completeness=known))
    return graph


def _field_graph(
    conn: Connection,
    node: NodeId,
    downstream: bool,
    depth: int,
    cap: int,
    since: datetime | None,
    visible_to: VisibleTo,
    keep: Callable[[str | None], bool],
) -> _Graph:
    """Fields ``depth`` hops along column lineage from one field."""
    dataset = dataset_pk(conn, node.namespace, node.name, visible_to=visible_to)
    start = q.field_pk(conn, dataset, node.field or "")
    if start is None:
        raise NotFoundError(
            f"field {node.field!r} not found in dataset {node.name!r} of namespace "
            f"{node.namespace!r}"
        )
    walk = field_walk(
        conn, "DATASET_FIELD", start, downstream=downstream, max_depth=depth, cap=cap, since=since
    )
    fields = set(walk.depths) | {start}
    info = q.field_summaries(conn, sorted(fields))
    edges = [
        e
        for e in q.field_edges_among(conn, sorted(fields), since)
        if e.input_field_id in info and e.output_field_id in info and keep(e.completeness)
    ]
    text = {pk: field_node(f.namespace, f.dataset, f.field) for pk, f in info.items()}
    by_pair: dict[tuple[int, int], set[Transformation]] = defaultdict(set)
    best: dict[tuple[int, int], str] = {}
    for e in edges:
        pair = (e.input_field_id, e.output_field_id)
        by_pair[pair].add(Transformation(e.type, e.subtype))
        known = completeness_of(e.completeness)
        if pair not in best or RANK[known] > RANK[best[pair]]:
            best[pair] = known
    neighbours: dict[int, list[int]] = defaultdict(list)
    direct: dict[int, list[int]] = defaultdict(list)
    for (source, target), kinds in by_pair.items():
        here, there = (source, target) if downstream else (target, source)
        neighbours[here].append(there)
        if any(t.type == "DIRECT" for t in kinds):
            direct[here].append(there)
    distance = _bfs(start, neighbours, depth)
    parent = _parents(distance, neighbours, text.__getitem__)
    through_direct = _bfs(start, direct, len(info))

    datasets = q.dataset_summaries(conn, sorted({f.dataset_id for f in info.values()}))
    graph = _Graph("column", start, walk.truncated)
    for pk, dist in distance.items():
        hops = _path(pk, parent)
        pairs = zip(hops, hops[1:], strict=False)
        transformations = tuple(
            tuple(
                sorted(by_pair[(a, b) if downstream else (b, a)], key=lambda t: (t.type, t.subtype))
            )
            for a, b in pairs
        )
        f = info[pk]
        d = datasets.get(f.dataset_id)
        version = (
            LastVersion(d.version, d.version_created_at, d.version_run_id)
            if d is not None and d.version is not None
            else None
        )
        graph.docs[pk] = ImpactNode(
            text[pk],
            "DATASET_FIELD",
            f.namespace,
            f.dataset,
            dist,
            tuple(text[h] for h in hops),
            field=f.field,
            field_type=f.type,
            last_version=version,
            path_transformations=transformations,
            indirect_only=pk not in through_direct,
        )
    readable = q.readable_datasets(conn, sorted(datasets), visible_to)
    graph.readable = {pk for pk in distance if info[pk].dataset_id in readable}
    for (source, target), kinds in by_pair.items():
        if source in distance and target in distance:
            ordered = tuple(sorted(kinds, key=lambda t: (t.type, t.subtype)))
            known = best[(source, target)]
            graph.edges.append(ImpactEdge(text[source], text[target], ordered, known))
    return graph
