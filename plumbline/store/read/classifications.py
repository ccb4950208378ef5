"""Classifications (issue 32 §1): where a tag is (``GET /classifications/{tag}``) and who reads it;
computed by :mod:`plumbline.store.write.classify`."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import iso
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.records import (
    Classification,
    ClassificationReader,
    ClassifiedColumn,
    ClassifiedDataset,
)
from plumbline.store.read.visibility import VisibleTo, readable_dataset_ids

_cc, _f, _d, _n, _t = s.column_classifications, s.dataset_fields, s.datasets, s.namespaces, s.tags


def _readable(dataset_id: Any, visible_to: VisibleTo) -> Any:
    return sa.true() if visible_to is None else dataset_id.in_(readable_dataset_ids(visible_to))


def _hop(hop: dict[str, str], visible_to: VisibleTo) -> dict[str, str]:
    """A path's hop; one in a namespace a limited caller may not see keeps only its kind."""
    if visible_to is None or hop.get("namespace") in visible_to:
        return hop
    return {k: v for k, v in hop.items() if k in ("type", "subtype")} | {"hidden": "true"}


def classification(
    conn: Connection, tag: str, limit: int, offset: int, visible_to: VisibleTo = None
) -> Classification:
    """The columns (one page, by namespace, dataset and field) and datasets carrying ``tag``,
    and the jobs reading datasets with such columns, with their latest runs."""
    tag_id = conn.execute(sa.select(_t.c.id).where(_t.c.name == tag)).scalar()
    if tag_id is None:
        raise NotFoundError(f"tag {tag!r} not found")
    base = (
        sa.select(
            _n.c.name.label("namespace"),
            _d.c.name.label("dataset"),
            _d.c.id.label("dataset_id"),
            _f.c.name.label("field"),
            _cc.c.tag_value,
            _cc.c.origin,
            _cc.c.declared_by,
            _cc.c.field_id,
        )
        .select_from(_cc)
        .join(_f, _f.c.id == _cc.c.field_id)
        .join(_d, _d.c.id == _f.c.dataset_id)
        .join(_n, _n.c.id == _d.c.namespace_id)
        .where(_cc.c.tag_id == tag_id, _d.c.is_hidden == sa.false(), _readable(_d.c.id, visible_to))
    )
    total = conn.execute(sa.select(sa.func.count()).select_from(base.subquery())).scalar_one()
    rows = conn.execute(
        base.order_by(_n.c.name, _d.c.name, _f.c.name).limit(limit).offset(offset)
    ).all()
    found = paths(conn, tag_id, [r.field_id for r in rows])
    columns: list[ClassifiedColumn] = [
        {
            "namespace": r.namespace,
            "dataset": r.dataset,
            "field": r.field,
            "value": r.tag_value,
            "origin": r.origin,
            "declaredBy": r.declared_by,
            "path": [_hop(h, visible_to) for h in found[r.field_id]],
        }
        for r in rows
    ]
    return {
        "tag": tag,
        "columns": columns,
        "datasets": _datasets(conn, tag_id, visible_to),
        "readers": _readers(conn, tag_id, visible_to),
        "totalCount": int(total),
    }


_CHUNK = 5000
_LINKS = sa.select(_cc.c.field_id, _cc.c.via_field_id, _cc.c.via_type, _cc.c.via_subtype)
_NAMES = (
    sa.select(_f.c.id, _n.c.name.label("namespace"), _d.c.name.label("dataset"), _f.c.name)
    .select_from(_f)
    .join(_d, _d.c.id == _f.c.dataset_id)
    .join(_n, _n.c.id == _d.c.namespace_id)
)


def _chunked(conn: Connection, statement: Any, column: Any, ids: list[int]) -> list[Any]:
    rows: list[Any] = []
    for start in range(0, len(ids), _CHUNK):
        rows.extend(conn.execute(statement.where(column.in_(ids[start : start + _CHUNK]))).all())
    return rows


def paths(conn: Connection, tag_id: int, field_ids: list[int]) -> dict[int, list[dict[str, str]]]:
    """The path each of ``field_ids`` got the tag by, from its origin column: hops of namespace,
    name, field, and (after the first) the edge's type and subtype; the links followed back."""
    links: dict[int, tuple[int | None, str, str]] = {}
    pending = sorted(set(field_ids))
    while pending:
        rows = _chunked(conn, _LINKS.where(_cc.c.tag_id == tag_id), _cc.c.field_id, pending)
        for r in rows:
            links[r.field_id] = (r.via_field_id, r.via_type, r.via_subtype)
        pending = sorted(
            {r.via_field_id for r in rows if r.via_field_id is not None} - links.keys()
        )
    names = {
        r.id: {"namespace": r.namespace, "name": r.dataset, "field": r.name}
        for r in _chunked(conn, _NAMES, _f.c.id, sorted(links))
    }
    found: dict[int, list[dict[str, str]]] = {}
    for field_id in field_ids:
        hops: list[dict[str, str]] = []
        at: int | None = field_id
        while at is not None and at in links and len(hops) <= len(links):
            via, kind, subtype = links[at]
            hop = dict(names.get(at, {}))
            if via is not None:
                hop |= {"type": kind, "subtype": subtype}
            hops.append(hop)
            at = via
        found[field_id] = hops[::-1]
    return found


def _datasets(conn: Connection, tag_id: int, visible_to: VisibleTo) -> list[ClassifiedDataset]:
    dt = s.dataset_tags
    rows = conn.execute(
        sa.select(_n.c.name.label("namespace"), _d.c.name.label("dataset"), dt.c.tag_value)
        .select_from(dt)
        .join(_d, _d.c.id == dt.c.dataset_id)
        .join(_n, _n.c.id == _d.c.namespace_id)
        .where(dt.c.tag_id == tag_id, _d.c.is_hidden == sa.false(), _readable(_d.c.id, visible_to))
        .order_by(_n.c.name, _d.c.name)
    ).all()
    return [{"namespace": r.namespace, "dataset": r.dataset, "value": r.tag_value} for r in rows]


MAX_READERS = 1000


def _readers(conn: Connection, tag_id: int, visible_to: VisibleTo) -> list[ClassificationReader]:
    """Jobs with an input edge on a dataset holding a column that carries the tag (at most
    :data:`MAX_READERS`, by namespace and name)."""
    e, j, jn, r = s.job_dataset_edges, s.jobs, s.namespaces.alias("job_ns"), s.runs
    rows = conn.execute(
        sa.select(
            jn.c.name.label("job_ns"),
            j.c.name.label("job"),
            _n.c.name.label("namespace"),
            _d.c.name.label("dataset"),
            _f.c.name.label("field"),
            r.c.uuid,
            r.c.current_state,
            r.c.ended_at,
        )
        .select_from(_cc)
        .join(_f, _f.c.id == _cc.c.field_id)
        .join(_d, _d.c.id == _f.c.dataset_id)
        .join(_n, _n.c.id == _d.c.namespace_id)
        .join(e, sa.and_(e.c.dataset_id == _d.c.id, e.c.direction == "input"))
        .join(j, j.c.id == e.c.job_id)
        .join(jn, jn.c.id == j.c.namespace_id)
        .outerjoin(r, r.c.uuid == j.c.latest_run_uuid)
        .where(
            _cc.c.tag_id == tag_id,
            j.c.is_hidden == sa.false(),
            _readable(_d.c.id, visible_to),
            sa.true() if visible_to is None else jn.c.name.in_(sorted(visible_to)),
        )
        .order_by(jn.c.name, j.c.name, _n.c.name, _d.c.name, _f.c.name)
    ).all()
    readers: dict[tuple[str, str], ClassificationReader] = {}
    for row in rows:
        key = (row.job_ns, row.job)
        if key not in readers:
            if len(readers) == MAX_READERS:
                break
            readers[key] = {
                "namespace": row.job_ns,
                "job": row.job,
                "reads": [],
                "latestRunId": row.uuid,
                "latestRunState": row.current_state,
                "latestRunEndedAt": iso(row.ended_at),
            }
        readers[key]["reads"].append(f"{row.namespace}/{row.dataset}.{row.field}")
    return list(readers.values())
