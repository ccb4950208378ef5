"""The typed results of the analyses, and their JSON documents (the API's contract: the web UI and
schedulers read these keys, so they only ever grow)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from plumbline.analysis.doc import JsonDoc


@dataclass(frozen=True)
class Transformation(JsonDoc):
    """A column-lineage transformation (``DIRECT``/``INDIRECT`` and its subtype)."""

    type: str
    subtype: str


@dataclass(frozen=True)
class LastRun(JsonDoc):
    """A job's latest run (by event time)."""

    id: str
    state: str | None
    started_at: datetime | None
    ended_at: datetime | None


@dataclass(frozen=True)
class LastVersion(JsonDoc):
    """A dataset's current version: what it is, when it was written and by which run."""

    version: str
    created_at: datetime | None
    run_id: str | None


@dataclass(frozen=True)
class ImpactNode:
    """A node an impact walk reached, ``distance`` edges from the start by ``path`` (one shortest
    path, start first; ``None`` stands for a node the caller may not read)."""

    id: str
    type: str  # DATASET | JOB | DATASET_FIELD
    namespace: str
    name: str
    distance: int
    path: tuple[str | None, ...]
    field: str | None = None
    field_type: str | None = None
    last_run: LastRun | None = None
    last_version: LastVersion | None = None
    # column mode: the transformations of each hop of ``path``, and whether every path from the
    # start to this field crosses an INDIRECT edge
    path_transformations: tuple[tuple[Transformation, ...], ...] | None = None
    indirect_only: bool | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "namespace": self.namespace,
            "name": self.name,
            "distance": self.distance,
            "path": list(self.path),
        }
        if self.type == "JOB":
            doc["lastRun"] = self.last_run.to_json() if self.last_run else None
        else:
            doc["lastVersion"] = self.last_version.to_json() if self.last_version else None
        if self.type == "DATASET_FIELD":
            doc["field"] = self.field
            doc["fieldType"] = self.field_type
            doc["pathTransformations"] = [
                [t.to_json() for t in hop] for hop in self.path_transformations or ()
            ]
            doc["indirectOnly"] = self.indirect_only
        return doc


@dataclass(frozen=True)
class ImpactEdge:
    """An edge between two listed nodes, in the direction data flows."""

    origin: str
    destination: str
    transformations: tuple[Transformation, ...] = ()
    completeness: str = "inferred"  # how complete its producer said it is (issue 31 §2)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "origin": self.origin,
            "destination": self.destination,
            "completeness": self.completeness,
        }
        if self.transformations:
            doc["transformations"] = [t.to_json() for t in self.transformations]
        return doc


@dataclass(frozen=True)
class ImpactResult:
    """What lies downstream (impact) or upstream (where it comes from) of a node."""

    node_id: str
    direction: str  # downstream | upstream
    mode: str  # table | column
    depth: int
    nodes: tuple[ImpactNode, ...]  # by distance, then type, then id; the start first
    edges: tuple[ImpactEdge, ...]
    truncated: bool
    hidden_nodes: int  # reached, but the caller may not read them

    def levels(self) -> list[dict[str, Any]]:
        """Node ids grouped by distance (the start at 0)."""
        out: list[dict[str, Any]] = []
        for node in self.nodes:
            if not out or out[-1]["distance"] != node.distance:
                out.append({"distance": node.distance, "nodes": []})
            out[-1]["nodes"].append(node.id)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "nodeId": self.node_id,
            "direction": self.direction,
            "mode": self.mode,
            "depth": self.depth,
            "nodes": [n.to_json() for n in self.nodes],
            "edges": [e.to_json() for e in self.edges],
            "levels": self.levels(),
            "truncated": self.truncated,
            "hiddenNodes": self.hidden_nodes,
        }
