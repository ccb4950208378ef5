"""Root cause of a run (``GET /jobs/runs/{id}/root-cause``, ``plumbline root-cause``): the
upstream runs that produced the exact versions it read, transitively, each with its state and
what changed in it (its own diff against its job's last COMPLETE run before it); the run's own
changes too. Suspects first (failed runs, runs whose job, inputs or output schemas changed), each
group nearest first.

The walk is the store's :func:`walks.upstream_run_walk`, the one ``/runlineage/upstream`` takes.
A version read whose writer was pruned is named (``prunedRuns``), never silently left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.analysis.impact import check_depth
from plumbline.analysis.pruned import PrunedRun, pruned_by_id
from plumbline.analysis.run_diff import RunDiff, RunSide, Suspect, compare, facts_of_run
from plumbline.store import (
    InvalidArgumentError,
    NotFoundError,
    VisibleTo,
    dataset_pk,
    job_pk,
    resolve_node_id,
    upstream_run_walk,
)
from plumbline.store.read.run_facts import (
    RunFacts,
    last_run_in_state,
    previous_runs,
    runs_events,
    runs_facts,
)
from plumbline.store.read.versions import current_version, run_versions

FAILED = ("FAIL", "ABORT")
# The work budget of one root cause: the upstream runs it compares (each with its job's last
# COMPLETE run before it, reading both runs' raw events), nearest first. A walk reaching more is
# answered for these, with truncated true and truncatedReason "work budget".
MAX_COMPARED_RUNS = 500
# what in a diff makes an upstream run a suspect (a mere change of size does not)
_STRONG = ("jobChanged", "outputChanged", "observedDeviation")


@dataclass(frozen=True)
class Produced:
    """A version an upstream run wrote that a run of the walk read."""

    namespace: str
    name: str
    version: str | None

    def to_json(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "name": self.name, "version": self.version}


@dataclass(frozen=True)
class UpstreamRun:
    """A run upstream of the start, ``distance`` runs away."""

    distance: int
    run: RunSide
    suspect: bool
    # failed, jobChanged, outputChanged, observedDeviation (its plan and execution disagreed
    # where they did not before: issue 31 §3), inputChanged
    reasons: tuple[str, ...]
    against: str | None  # the run its changes are measured against
    changes: tuple[Suspect, ...]
    produced: tuple[Produced, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "distance": self.distance,
            "run": self.run.to_json(),
            "state": self.run.state,
            "suspect": self.suspect,
            "reasons": list(self.reasons),
            "against": self.against,
            "changes": [c.to_json() for c in self.changes],
            "produced": [p.to_json() for p in self.produced],
        }


@dataclass(frozen=True)
class RootCause:
    """The run, what changed in it, and the runs upstream of it (suspects first)."""

    run: RunSide
    against: str | None
    changes: tuple[Suspect, ...]
    upstream: tuple[UpstreamRun, ...]
    pruned: tuple[PrunedRun, ...]
    truncated: bool
    truncated_reason: str | None = None  # "node cap" or "work budget" when truncated

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run.to_json(),
            "against": self.against,
            "changes": [c.to_json() for c in self.changes],
            "upstream": [u.to_json() for u in self.upstream],
            "prunedRuns": [p.to_json() for p in self.pruned],
            "truncated": self.truncated,
            "truncatedReason": self.truncated_reason,
        }


def run_of_node(
    conn: Connection,
    node_id: str,
    *,
    failed: bool,
    visible_to: VisibleTo = None,
    jobs_only: bool = False,
) -> str:
    """The run a node stands for: a job's last failed run (``failed``) or latest run; the run
    that wrote a dataset's current version. :class:`NotFoundError` when there is none."""
    node = resolve_node_id(conn, node_id)
    if jobs_only and node.kind != "JOB":
        raise InvalidArgumentError(f"expected job:NS:NAME, got {node_id!r}")
    if node.kind == "JOB":
        job = job_pk(conn, node.namespace, node.name, visible_to=visible_to)
        states = FAILED if failed else ("COMPLETE", "FAIL", "ABORT", "START", "RUNNING")
        found = last_run_in_state(conn, job, states)
        if found is None:
            what = "failed run" if failed else "run"
            raise NotFoundError(f"job {node.namespace}:{node.name} has no {what}")
        return found
    if node.kind == "DATASET":
        dataset = dataset_pk(conn, node.namespace, node.name, visible_to=visible_to)
        version = current_version(conn, dataset)
        if version is None or version.run_uuid is None:
            raise NotFoundError(
                f"dataset {node.namespace}:{node.name} has no current version written by a run"
            )
        return version.run_uuid
    raise InvalidArgumentError(f"expected job:NS:NAME or dataset:NS:NAME, got {node_id!r}")


def root_cause(
    conn: Connection,
    run_id: str,
    *,
    depth: int | None = None,
    max_nodes: int = 2000,
    visible_to: VisibleTo = None,
) -> RootCause:
    """The root cause of run ``run_id`` (see the module's docstring)."""
    depth = check_depth(depth)
    start = facts_of_run(conn, run_id, visible_to)
    walk = upstream_run_walk(
        conn, start.id, max_depth=depth, cap=max(max_nodes, 1), visible_to=visible_to
    )
    reason = "node cap" if walk.truncated else None
    depths = walk.depths
    if len(depths) > MAX_COMPARED_RUNS + 1:  # the start and the nearest runs within the budget
        nearest = sorted(depths, key=lambda pk: (pk != start.id, depths[pk], pk))
        depths = {pk: depths[pk] for pk in nearest[: MAX_COMPARED_RUNS + 1]}
        reason = "work budget"
    facts = runs_facts(conn, list(depths))
    by_uuid = {f.uuid: f for f in facts.values()}
    produced: dict[str, set[Produced]] = {}
    missing: set[str] = set()
    for link in run_versions(conn, list(depths)):
        if link.direction != "input" or link.produced_by is None:
            continue
        if link.produced_by in by_uuid:
            produced.setdefault(link.produced_by, set()).add(
                Produced(link.namespace, link.name, link.version)
            )
        else:
            missing.add(link.produced_by)
    pruned = pruned_by_id(conn, sorted(missing))
    diffs = _diffs(conn, {**facts, start.id: start})
    own = diffs[start.id]
    upstream = [
        _upstream(diffs[pk], facts[pk], depths[pk], produced.get(facts[pk].uuid, set()))
        for pk in depths
        if pk != start.id and pk in facts
    ]
    upstream.sort(key=lambda u: (not u.suspect, u.distance, u.run.id))
    return RootCause(
        run=own.run,
        against=own.against.id if own.against else None,
        changes=own.suspects,
        upstream=tuple(upstream),
        pruned=tuple(sorted(pruned.values(), key=lambda p: p.id)),
        truncated=reason is not None,
        truncated_reason=reason,
    )


def _diffs(conn: Connection, facts: dict[int, RunFacts]) -> dict[int, RunDiff]:
    """Each run's diff against its job's last COMPLETE run before it, read for all the runs at
    once (their previous runs, those runs' facts, every run's raw events: three statements)."""
    previous = previous_runs(conn, list(facts))
    others = {**facts, **runs_facts(conn, [p for p in set(previous.values()) if p not in facts])}
    events = runs_events(conn, [f.uuid for f in others.values()])
    out = {}
    for pk, run in facts.items():
        other = others.get(previous[pk]) if pk in previous else None
        reason = "lastCompleteBefore" if other else "noEarlierCompleteRun"
        out[pk] = compare(run, other, reason, events)
    return out


def _upstream(diff: RunDiff, run: RunFacts, distance: int, produced: set[Produced]) -> UpstreamRun:
    reasons = []
    if run.state in FAILED:
        reasons.append("failed")
    kinds = {s.kind for s in diff.suspects}
    reasons += [k for k in _STRONG if k in kinds]
    # a new version of an input is what every run of a pipeline reads: not a reason by itself;
    # a run with no earlier COMPLETE run of its job has nothing to have changed from
    if diff.against is not None and any(
        i.status != "kept" or i.schema_changes for i in diff.inputs
    ):
        reasons.append("inputChanged")
    return UpstreamRun(
        distance=distance,
        run=diff.run,
        suspect=bool(reasons),
        reasons=tuple(reasons),
        against=diff.against.id if diff.against else None,
        changes=tuple(s for s in diff.suspects if s.kind != "error"),
        produced=tuple(sorted(produced, key=lambda p: (p.namespace, p.name, p.version or ""))),
    )
