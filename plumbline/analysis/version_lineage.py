"""Version (snapshot) lineage: the exact input versions an output version was made from,
transitively (upstream), or the output versions made from an input version (downstream).

One hop: a version -> the run that wrote it -> the versions that run read (upstream); a version ->
the runs that read it -> the versions they wrote (downstream). Which version a run read is the
link the store records for each run input, with where it came from (``versionSource``: the
input's ``version`` facet, catalog enrichment's snapshot id, or the version as of the run's event
time). An input read before any version of it was known is listed with ``version`` null. A version
whose writer was pruned says so (``writerPruned``) and the walk stops there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.analysis.impact import check_depth
from plumbline.analysis.pruned import PrunedRun, pruned_by_id
from plumbline.store import InvalidArgumentError, VisibleTo, iso
from plumbline.store.read.impact import readable_datasets
from plumbline.store.read.versions import (
    RunVersion,
    find_version,
    readers_of,
    run_versions,
    versions_by_id,
    writers_of,
)

DIRECTIONS = ("upstream", "downstream")


@dataclass(frozen=True)
class VersionNode:
    """A dataset version reached ``distance`` runs away from the start."""

    namespace: str
    name: str
    version: str | None  # its uuid (the read API's version id); None: read before any was known
    dataset_version: str | None  # the `version` facet's datasetVersion, else the writer's id
    distance: int
    run_id: str | None  # the run that wrote this version
    created_at: datetime | None
    via_run_id: str | None  # the run linking it to the level before (reader up, writer down)
    version_source: str | None  # upstream: how that run's input was linked to this version
    writer_pruned: PrunedRun | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "version": self.version,
            "datasetVersion": self.dataset_version,
            "distance": self.distance,
            "runId": self.run_id,
            "createdAt": iso(self.created_at),
            "viaRunId": self.via_run_id,
            "versionSource": self.version_source,
            "writerPruned": self.writer_pruned.to_json() if self.writer_pruned else None,
        }


@dataclass(frozen=True)
class VersionLineage:
    """The versions ``direction`` of a start version, nearest first (the start at 0)."""

    direction: str
    depth: int
    versions: tuple[VersionNode, ...]
    truncated: bool
    hidden: int  # versions reached that the caller may not read

    def to_json(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "depth": self.depth,
            "versions": [v.to_json() for v in self.versions],
            "truncated": self.truncated,
            "hiddenVersions": self.hidden,
        }


def version_lineage(
    conn: Connection,
    namespace: str,
    name: str,
    version: str,
    *,
    direction: str = "upstream",
    depth: int | None = None,
    max_nodes: int = 2000,
    visible_to: VisibleTo = None,
) -> VersionLineage:
    """The versions upstream (made from) or downstream (used by) of ``namespace/name@version``,
    within ``depth`` runs (default and cap: 50), at most ``max_nodes`` of them."""
    if direction not in DIRECTIONS:
        raise InvalidArgumentError(f"direction must be upstream or downstream, got {direction!r}")
    depth = check_depth(depth)
    start = find_version(conn, namespace, name, version, visible_to)
    upstream = direction == "upstream"
    nodes: dict[Any, VersionNode] = {}
    datasets: dict[Any, int] = {}
    writer_pruned = _pruned_writers(conn, {start.id: start.run_uuid})
    nodes[start.id] = VersionNode(
        start.namespace,
        start.name,
        start.uuid,
        start.version,
        0,
        start.run_uuid,
        start.created_at,
        None,
        None,
        writer_pruned.get(start.id),
    )
    datasets[start.id] = start.dataset_id
    frontier = [start.id] if start.id not in writer_pruned or not upstream else []
    truncated = False
    for distance in range(1, depth + 1):
        if not frontier:
            break
        found = _hop(conn, frontier, upstream)
        fresh = [link for link in found if _key(link) not in nodes]
        made = versions_by_id(conn, [link.version_id for link in fresh if link.version_id])
        pruned = _pruned_writers(conn, {v.id: v.run_uuid for v in made.values()})
        frontier = []
        for link in fresh:
            key = _key(link)
            if key in nodes:
                continue
            if len(nodes) >= max(max_nodes, 1):
                truncated = True
                break
            ref = made.get(link.version_id) if link.version_id else None
            nodes[key] = VersionNode(
                link.namespace,
                link.name,
                link.version_uuid,
                link.version,
                distance,
                link.produced_by,
                ref.created_at if ref else None,
                link.run_uuid,
                link.version_source if upstream else None,
                pruned.get(link.version_id) if link.version_id else None,
            )
            datasets[key] = link.dataset_id
            if link.version_id is not None and link.version_id not in pruned:
                frontier.append(link.version_id)
        if truncated:
            break
    readable = readable_datasets(conn, sorted(set(datasets.values())), visible_to)
    listed = [n for k, n in nodes.items() if datasets[k] in readable]
    listed.sort(key=lambda n: (n.distance, n.namespace, n.name, n.dataset_version or ""))
    return VersionLineage(direction, depth, tuple(listed), truncated, len(nodes) - len(listed))


def _key(link: RunVersion) -> Any:
    """A version by id; an unversioned input by its run and dataset."""
    return (
        link.version_id if link.version_id is not None else ("none", link.run_id, link.dataset_id)
    )


def _hop(conn: Connection, version_ids: list[int], upstream: bool) -> list[RunVersion]:
    """The versions one run away: the inputs of their writers, or the outputs of their readers."""
    runs = writers_of(conn, version_ids) if upstream else readers_of(conn, version_ids)
    wanted = "input" if upstream else "output"
    return [
        v for v in run_versions(conn, sorted({r.run_id for r in runs})) if v.direction == wanted
    ]


def _pruned_writers(conn: Connection, writers: dict[int, str | None]) -> dict[int, PrunedRun]:
    """The versions (by id) whose writing run was pruned."""
    pruned = pruned_by_id(conn, [u for u in writers.values() if u])
    return {vid: pruned[u] for vid, u in writers.items() if u and u in pruned}
