"""``GET /column-lineage``: the field-level lineage graph (Marquez's ``DATASET_FIELD`` nodes).

Start fields: one field (``datasetField:…``), every field of a dataset (``dataset:…``), or every field
of the datasets a job writes (``job:…``). The walk (:func:`walks.field_walk`) goes upstream always and
downstream when ``withDownstream`` is true; depth counts field-to-field hops.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import dataset_pk, job_pk
from plumbline.store.read.confidence import confidence
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.nodeids import field_node, resolve_node_id
from plumbline.store.read.records import ColumnLineageGraph, ColumnLineageNode
from plumbline.store.read.screen import readable_among
from plumbline.store.read.transformations import field_summary
from plumbline.store.read.visibility import VisibleTo
from plumbline.store.read.walks import direct_field_edges, field_walk, whole_dataset_field_edges
from plumbline.store.read.work_budget import read_rows

DEFAULT_DEPTH = 20


def _start(conn: Connection, node_id: str, visible_to: VisibleTo) -> tuple[str, int]:
    """The kind and id of the walk's start: a field, a dataset or a job."""
    node = resolve_node_id(conn, node_id)
    if node.kind == "JOB":
        return "JOB", job_pk(conn, node.namespace, node.name, visible_to=visible_to)
    dataset = dataset_pk(conn, node.namespace, node.name, visible_to=visible_to)
    if node.kind == "DATASET":
        return "DATASET", dataset
    f = s.dataset_fields
    field = conn.execute(
        sa.select(f.c.id).where(f.c.dataset_id == dataset, f.c.name == node.field)
    ).scalar()
    if field is None:
        raise NotFoundError(f"field {node.field!r} not found in dataset {node.name!r}")
    return "DATASET_FIELD", int(field)


def get_column_lineage(
    conn: Connection,
    node_id: str,
    depth: int,
    with_downstream: bool,
    max_nodes: int,
    visible_to: VisibleTo = None,
) -> ColumnLineageGraph:
    """``{"graph": [node…], "truncated": bool}`` around ``node_id``, at most ``max_nodes`` fields.

    A namespace-limited caller (``visible_to``) walks only through fields of datasets it may see.
    """
    if depth < 0:
        raise InvalidArgumentError("depth must be >= 0")
    kind, start = _start(conn, node_id, visible_to)
    cap = max(max_nodes, 1)
    directions = (False, True) if with_downstream else (False,)
    walks = [
        field_walk(
            conn, kind, start, downstream=down, max_depth=depth, cap=cap, visible_to=visible_to
        )
        for down in directions
    ]
    depths: dict[int, int] = {}
    for walk in walks:
        for field, d in walk.depths.items():
            depths[field] = min(d, depths.get(field, d))
    ordered = sorted(depths, key=lambda field: (depths[field], field))
    truncated = any(w.truncated for w in walks) or len(ordered) > cap
    kept = set(ordered[:cap])
    if visible_to is not None:
        kept = _readable_fields(conn, kept, visible_to)
    return {"graph": _graph(conn, kept), "truncated": truncated}


_FIELD_DATASETS = sa.select(s.dataset_fields.c.id, s.dataset_fields.c.dataset_id).where(
    in_ids(s.dataset_fields.c.id)
)


def _readable_fields(conn: Connection, ids: set[int], visible_to: VisibleTo) -> set[int]:
    """Those of the fields ``ids`` of a dataset the caller may read, and those of another dataset
    it sees that feed one of them (the caller's own lineage names them)."""
    dataset_of = dict(conn.execute(_FIELD_DATASETS, {"ids": sorted(ids)}).all())
    readable = readable_among(conn, sorted(set(dataset_of.values())), visible_to)
    kept = {field for field, dataset in dataset_of.items() if dataset in readable}
    feeding = {
        source
        for _, source, *_ in read_rows(conn, _edges_into(), {"ids": sorted(kept)})
        if source in ids
    }
    return kept | feeding


_FIELDS = (
    sa.select(
        s.dataset_fields.c.id,
        s.dataset_fields.c.name,
        s.dataset_fields.c.type,
        s.datasets.c.name,
        s.namespaces.c.name,
        s.dataset_versions.c.uuid,
    )
    .join(s.datasets, s.datasets.c.id == s.dataset_fields.c.dataset_id)
    .join(s.namespaces, s.namespaces.c.id == s.datasets.c.namespace_id)
    .outerjoin(s.dataset_versions, s.dataset_versions.c.id == s.datasets.c.current_version_id)
    .where(in_ids(s.dataset_fields.c.id))
)


def _fields(conn: Connection, ids: set[int]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for pk, name, type_, dataset, namespace, version in conn.execute(
        _FIELDS, {"ids": sorted(ids)}
    ).all():
        out[pk] = {
            "namespace": namespace,
            "dataset": dataset,
            "datasetVersion": version,
            "field": name,
            "fieldType": type_,
        }
    return out


@cache
def _edges_into() -> sa.CompoundSelect[Any]:
    """The field edges whose output is one of the bound ``ids``, filtered in each branch."""
    direct, whole = direct_field_edges(), whole_dataset_field_edges()
    return sa.union_all(
        direct.where(in_ids(s.column_lineage_edges.c.output_field_id)),
        whole.where(in_ids(s.dataset_fields.c.id)),
    )


def _graph(conn: Connection, ids: set[int]) -> list[ColumnLineageNode]:
    fields = _fields(conn, ids)
    # output field -> (input field, transformation); rows unpacked by position (attribute access
    # on a Row costs ~1 µs)
    inputs: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for output, source, type_, subtype, description, masking, *known in read_rows(
        conn, _edges_into(), {"ids": sorted(ids)}
    ):
        if source in fields:
            transformation = {
                "type": type_,
                "subtype": subtype,
                "description": description,
                "masking": bool(masking),
                "_known": known,  # (last seen, source, completeness, reasons), taken out below
            }
            inputs[output].append((source, transformation))
    node_ids = {
        pk: field_node(f["namespace"], f["dataset"], f["field"]) for pk, f in fields.items()
    }
    in_edges: dict[str, set[str]] = defaultdict(set)
    out_edges: dict[str, set[str]] = defaultdict(set)
    nodes: list[dict[str, Any]] = []
    for pk, field in fields.items():
        grouped: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for source, transformation in inputs.get(pk, []):
            grouped[source].append(transformation)
            in_edges[node_ids[pk]].add(node_ids[source])
            out_edges[node_ids[source]].add(node_ids[pk])
        input_fields = []
        for source, transformations in sorted(grouped.items(), key=lambda kv: node_ids[kv[0]]):
            transformations.sort(key=lambda t: (t["type"], t["subtype"]))
            src = fields[source]
            known = [t.pop("_known") for t in transformations]
            last_seen, edge_source, completeness, reasons = max(
                known, key=lambda k: (k[0] is not None, k[0] or 0)
            )
            input_fields.append(
                {
                    "namespace": src["namespace"],
                    "dataset": src["dataset"],
                    "datasetVersion": src["datasetVersion"],
                    "field": src["field"],
                    "transformationDescription": transformations[0]["description"],
                    "transformationType": transformations[0]["type"],
                    "transformations": transformations,
                    **confidence(edge_source, completeness, reasons, last_seen),
                }
            )
        data = dict(field)
        data["transformationType"], data["transformationDescription"] = field_summary(
            (t["type"], t["description"])
            for _, transformations in grouped.items()
            for t in transformations
        )
        data["inputFields"] = input_fields
        nodes.append({"id": node_ids[pk], "type": "DATASET_FIELD", "data": data})
    for node in nodes:
        nid: str = node["id"]
        node["inEdges"] = [{"origin": o, "destination": nid} for o in sorted(in_edges.get(nid, ()))]
        node["outEdges"] = [
            {"origin": nid, "destination": d} for d in sorted(out_edges.get(nid, ()))
        ]
    nodes.sort(key=lambda n: n["id"])
    return cast(list[ColumnLineageNode], nodes)  # each node is complete now
