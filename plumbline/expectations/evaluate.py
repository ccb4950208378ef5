"""Checking expectations against the store's lineage (issue 31 §1).

Each rule gives one :class:`Outcome`: ``holds``, ``broken``, ``unknown`` (it names a dataset,
column, job or namespace the store does not know: broken too, never silently true) or
``undecided`` (the walk was cut by the node cap or the work budget, or went through nodes the
caller may not read, before it could tell). Reach rules use the impact walk
(:func:`plumbline.analysis.impact.impact`), so they share its node cap, work budget and
namespace-limited view; the path found is the evidence.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.analysis.impact import impact
from plumbline.analysis.model import ImpactNode, ImpactResult
from plumbline.expectations.rules import (
    Expectations,
    Fresh,
    JobEdge,
    NeverReach,
    Reach,
    Ref,
    Rule,
    Transformation,
)
from plumbline.store import (
    InvalidArgumentError,
    NotFoundError,
    VisibleTo,
    budget_spent,
    dataset_pk,
    job_pk,
)
from plumbline.store.read import impact as q
from plumbline.store.read import namespaces

HOLDS, BROKEN, UNKNOWN, UNDECIDED = "holds", "broken", "unknown", "undecided"
STATUSES = (HOLDS, BROKEN, UNKNOWN, UNDECIDED)
KINDS = {Reach: "reach", NeverReach: "never_reach", JobEdge: "job", Fresh: "fresh"}


@dataclass(frozen=True)
class Outcome:
    """One rule's verdict: what was expected, what was seen, the run that last showed it and the
    path (node ids, the start first) that is its evidence."""

    kind: str
    name: str | None
    status: str
    expected: str
    seen: str
    run_id: str | None = None
    path: tuple[str | None, ...] = ()

    @property
    def failed(self) -> bool:
        return self.status in (BROKEN, UNKNOWN)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "status": self.status,
            "expected": self.expected,
            "seen": self.seen,
            "runId": self.run_id,
            "path": list(self.path),
        }


def check(
    conn: Connection,
    expectations: Expectations,
    *,
    max_nodes: int = 2000,
    visible_to: VisibleTo = None,
    now: datetime | None = None,
) -> list[Outcome]:
    """The outcome of every rule of ``expectations``: by section (reach, never_reach, job, fresh),
    each in the order it lists them."""
    at = now or datetime.now(UTC)
    return [
        check_rule(conn, rule, max_nodes=max_nodes, visible_to=visible_to, now=at)
        for rule in expectations.rules
    ]


def check_rule(
    conn: Connection,
    rule: Rule,
    *,
    max_nodes: int = 2000,
    visible_to: VisibleTo = None,
    now: datetime | None = None,
) -> Outcome:
    """One rule's outcome (an unknown name is ``unknown``)."""
    kind = KINDS[type(rule)]
    try:
        if isinstance(rule, Reach):
            status, seen, run, path = _reach(conn, rule, max_nodes, visible_to)
        elif isinstance(rule, NeverReach):
            status, seen, run, path = _never_reach(conn, rule, max_nodes, visible_to)
        elif isinstance(rule, JobEdge):
            status, seen, run, path = _job_edge(conn, rule, visible_to)
        else:
            status, seen, run, path = _fresh(conn, rule, now or datetime.now(UTC), visible_to)
    except (NotFoundError, InvalidArgumentError) as exc:
        status, seen, run, path = UNKNOWN, f"unknown: {exc}", None, ()
    return Outcome(kind, rule.name, status, rule.describe(), seen, run, path)


_Verdict = tuple[str, str, str | None, tuple[str | None, ...]]


def _require(conn: Connection, ref: Ref, visible_to: VisibleTo) -> int:
    """The dataset's id; NotFoundError naming the dataset or the column when either is unknown."""
    pk = dataset_pk(conn, ref.namespace, ref.dataset, visible_to=visible_to)
    if ref.column is not None and q.field_pk(conn, pk, ref.column) is None:
        raise NotFoundError(
            f"column {ref.column!r} not found in dataset {ref.dataset!r} of namespace "
            f"{ref.namespace!r}"
        )
    return pk


def _run_on(result: ImpactResult, node: ImpactNode) -> str | None:
    """The run that last showed the path to ``node``: the last job's last run along a table path,
    else the run that wrote the current version of ``node``'s dataset."""
    by_id = {n.id: n for n in result.nodes}
    for step in reversed(node.path):
        found = by_id.get(step) if step else None
        if found is not None and found.last_run is not None:
            return found.last_run.id
    return node.last_version.run_id if node.last_version is not None else None


def _cut(result: ImpactResult) -> bool:
    return result.truncated or result.hidden_nodes > 0 or budget_spent()


def _walk(conn: Connection, ref: Ref, max_nodes: int, visible_to: VisibleTo) -> ImpactResult:
    return impact(conn, ref.node_id, max_nodes=max_nodes, visible_to=visible_to)


def _reach(conn: Connection, rule: Reach, max_nodes: int, visible_to: VisibleTo) -> _Verdict:
    _require(conn, rule.source, visible_to)
    target_pk = _require(conn, rule.target, visible_to)
    result = _walk(conn, rule.source, max_nodes, visible_to)
    target = rule.target.node_id
    node = next((n for n in result.nodes if n.id == target and n.distance > 0), None)
    if node is not None and rule.transformation is not None:
        path = _path_by(result, rule.source.node_id, target, rule.transformation)
        if path is None:
            kinds = _transformations_into(result, target)
            return (
                BROKEN,
                f"reached, but by no path of {rule.transformation} hops "
                f"(into {target}: {kinds or 'none'})",
                _run_on(result, node),
                node.path,
            )
        return (
            HOLDS,
            f"reached by {rule.transformation} in {len(path) - 1} hop(s)",
            _run_on(result, node),
            path,
        )
    if node is not None:
        return HOLDS, f"reached in {node.distance} hop(s)", _run_on(result, node), node.path
    if _cut(result):
        return UNDECIDED, _cut_reason(result), None, ()
    reached = sum(1 for n in result.nodes if n.distance > 0 and n.type != "JOB")
    # the run whose lineage shows it as it is: the one that wrote the target's current version
    written = q.dataset_summaries(conn, [target_pk]).get(target_pk)
    return (
        BROKEN,
        f"no path: {rule.source.node_id} reaches {reached} other node(s), not it",
        written.version_run_id if written is not None else None,
        (),
    )


def _transformations_into(result: ImpactResult, target: str) -> str:
    kinds = sorted(
        {
            f"{t.type}/{t.subtype}" if t.subtype else t.type
            for e in result.edges
            if e.destination == target
            for t in e.transformations
        }
    )
    return ", ".join(kinds)


def _path_by(
    result: ImpactResult, source: str, target: str, wanted: Transformation
) -> tuple[str, ...] | None:
    """A shortest path from ``source`` to ``target`` whose every edge carries ``wanted``."""
    forward: dict[str, list[str]] = defaultdict(list)
    for edge in result.edges:
        if any(wanted.matches(t.type, t.subtype) for t in edge.transformations):
            forward[edge.origin].append(edge.destination)
    parent: dict[str, str] = {}
    queue, seen = deque([source]), {source}
    while queue:
        here = queue.popleft()
        if here == target:
            path = [here]
            while path[-1] in parent:
                path.append(parent[path[-1]])
            return tuple(reversed(path))
        for there in sorted(forward.get(here, ())):
            if there not in seen:
                seen.add(there)
                parent[there] = here
                queue.append(there)
    return None


def _cut_reason(result: ImpactResult) -> str:
    if budget_spent():
        return "cannot tell: the walk reached the work budget"
    if result.truncated:
        return "cannot tell: the walk reached the node cap"
    return f"cannot tell: the walk went through {result.hidden_nodes} node(s) you may not read"


def _never_reach(
    conn: Connection, rule: NeverReach, max_nodes: int, visible_to: VisibleTo
) -> _Verdict:
    _require(conn, rule.source, visible_to)
    namespaces.get_namespace(conn, rule.namespace, visible_to)  # a typo is unknown, never true
    result = _walk(conn, rule.source, max_nodes, visible_to)
    hits = [
        n
        for n in result.nodes
        if n.distance > 0 and n.type != "JOB" and n.namespace == rule.namespace
    ]
    if hits:
        first = hits[0]  # the nearest (nodes come by distance, then type and id)
        more = f" and {len(hits) - 1} more" if len(hits) > 1 else ""
        return (
            BROKEN,
            f"reaches {first.id} in {first.distance} hop(s){more}",
            _run_on(result, first),
            first.path,
        )
    if _cut(result):
        return UNDECIDED, _cut_reason(result), None, ()
    return (
        HOLDS,
        f"reaches nothing in {rule.namespace!r} ({len(result.nodes) - 1} node(s) walked)",
        None,
        (),
    )


def _names(conn: Connection, ids: Iterable[int]) -> list[str]:
    summaries = q.dataset_summaries(conn, sorted(set(ids)))
    return sorted(f"dataset:{d.namespace}:{d.name}" for d in summaries.values())


def _job_edge(conn: Connection, rule: JobEdge, visible_to: VisibleTo) -> _Verdict:
    job = job_pk(conn, rule.job.namespace, rule.job.name, visible_to=visible_to)
    dataset = _require(conn, rule.dataset, visible_to)
    edges = [e for e in q.job_edges(conn, [job]) if e.direction == rule.direction]
    last = q.job_summaries(conn, [job]).get(job)
    run = last.last_run_id if last is not None else None
    verb = "reads" if rule.direction == "input" else "writes"
    if any(e.dataset_id == dataset for e in edges):
        return (
            HOLDS,
            f"{verb} it",
            run,
            (rule.dataset.node_id, rule.job.node_id)
            if rule.direction == "input"
            else (rule.job.node_id, rule.dataset.node_id),
        )
    listed = _names(conn, (e.dataset_id for e in edges))
    return BROKEN, f"{verb} {', '.join(listed) if listed else 'nothing'}", run, ()


def _fresh(conn: Connection, rule: Fresh, now: datetime, visible_to: VisibleTo) -> _Verdict:
    pk = _require(conn, rule.dataset, visible_to)
    summary = q.dataset_summaries(conn, [pk]).get(pk)
    if summary is None or summary.version_created_at is None or summary.version_run_id is None:
        return BROKEN, "no run has produced a version of it", None, ()
    age = now - summary.version_created_at
    when = summary.version_created_at.isoformat().replace("+00:00", "Z")
    if age <= rule.within:
        return HOLDS, f"produced at {when}", summary.version_run_id, ()
    return BROKEN, f"last produced at {when}, {_span(age)} ago", summary.version_run_id, ()


def _span(age: timedelta) -> str:
    """``2d3h``, ``5h12m``, ``40m``, ``12s``: the two largest units of an age."""
    seconds = max(int(age.total_seconds()), 0)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [(days, "d"), (hours, "h"), (minutes, "m"), (seconds, "s")]
    first = next((i for i, (n, _) in enumerate(parts) if n), 3)
    return "".join(f"{n}{unit}" for n, unit in parts[first : first + 2] if n) or "0s"
