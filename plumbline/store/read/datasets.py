"""Datasets and dataset versions in Marquez's shapes (``Dataset``, ``DatasetVersion``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import cache
from typing import Any, Literal, cast, overload

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage.schema_diff import diff_schemas
from plumbline.store import schema as s
from plumbline.store.read.common import (
    count,
    dataset_pk,
    iso,
    json_obj,
    namespace_row,
    tag_names_by_owner,
)
from plumbline.store.read.dataset_column_lineage import column_lineage_by_dataset
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.records import (
    Dataset,
    DatasetData,
    DatasetField,
    DatasetPage,
    DatasetVersion,
    DatasetVersionPage,
    SchemaChanges,
)
from plumbline.store.read.runs import runs_by_uuid
from plumbline.store.read.screen import blank, readable_among, screen_facets
from plumbline.store.read.visibility import VisibleTo, visible_datasets

_FIELD_TAGS = (
    sa.select(s.dataset_field_tags.c.field_id, s.tags.c.name)
    .join(s.tags, s.tags.c.id == s.dataset_field_tags.c.tag_id)
    .join(s.dataset_fields, s.dataset_fields.c.id == s.dataset_field_tags.c.field_id)
    .where(in_ids(s.dataset_fields.c.dataset_id))
    .order_by(s.tags.c.name)
)
_FIELDS = (
    sa.select(
        s.dataset_fields.c.id,
        s.dataset_fields.c.dataset_id,
        s.dataset_fields.c.name,
        s.dataset_fields.c.type,
        s.dataset_fields.c.description,
    )
    # a field only column lineage names is an edge's end, not a field of the dataset (as Marquez)
    .where(in_ids(s.dataset_fields.c.dataset_id), s.dataset_fields.c.in_schema == sa.true())
    .order_by(s.dataset_fields.c.dataset_id, s.dataset_fields.c.id)
)


def _fields_by_dataset(conn: Connection, ids: Sequence[int]) -> dict[int, list[DatasetField]]:
    tags: dict[int, list[str]] = defaultdict(list)
    fields: dict[int, list[DatasetField]] = defaultdict(list)
    for field, tag in conn.execute(_FIELD_TAGS, {"ids": ids}).all():
        tags[field].append(tag)
    for field, dataset, name, type_, description in conn.execute(_FIELDS, {"ids": ids}).all():
        fields[dataset].append(
            {"name": name, "type": type_, "tags": tags.get(field, []), "description": description}
        )
    return fields


@cache
def _datasets_query(full: bool) -> sa.Select[Any]:
    """Dataset rows, unpacked by position (a ``Row``'s attribute access costs ~1 µs: too slow for
    hundreds of graph nodes); facets, the heaviest column, only for full documents."""
    d, n, src, dv = s.datasets, s.namespaces, s.sources, s.dataset_versions
    return (
        sa.select(
            d.c.id,
            d.c.type,
            d.c.name,
            d.c.physical_name,
            d.c.created_at,
            d.c.updated_at,
            d.c.last_modified_at,
            d.c.description,
            d.c.is_hidden,
            n.c.name,
            src.c.name,
            dv.c.uuid,
            dv.c.lifecycle_state,
            *([d.c.facets] if full else []),
        )
        .join(n, n.c.id == d.c.namespace_id)
        .outerjoin(src, src.c.id == d.c.source_id)
        .outerjoin(dv, dv.c.id == d.c.current_version_id)
        .where(in_ids(d.c.id))
    )


@overload
def datasets_by_pk(
    conn: Connection,
    ids: Sequence[int],
    *,
    full: Literal[True] = True,
    visible_to: VisibleTo = None,
) -> dict[int, Dataset]: ...
@overload
def datasets_by_pk(
    conn: Connection, ids: Sequence[int], *, full: Literal[False], visible_to: VisibleTo = None
) -> dict[int, DatasetData]: ...
def datasets_by_pk(
    conn: Connection, ids: Sequence[int], *, full: bool = True, visible_to: VisibleTo = None
) -> dict[int, Dataset] | dict[int, DatasetData]:
    """Marquez ``Dataset`` documents (``full=False``: the lighter ``DatasetData`` of graph nodes);
    for a limited caller (``visible_to``) without the contents it may not read (:mod:`.screen`)."""
    wanted = sorted(set(ids))
    out: dict[int, Any] = {}  # Dataset or DatasetData, as ``full`` says
    for (
        pk,
        type_,
        name,
        physical_name,
        created_at,
        updated_at,
        last_modified_at,
        description,
        is_hidden,
        namespace,
        source,
        version_uuid,
        lifecycle_state,
        *facets,
    ) in conn.execute(_datasets_query(full), {"ids": wanted}).all():
        doc: dict[str, Any] = {
            "id": {"namespace": namespace, "name": name},
            "type": type_,
            "name": name,
            "physicalName": physical_name,
            "createdAt": iso(created_at),
            "updatedAt": iso(updated_at),
            "namespace": namespace,
            "sourceName": source or namespace,
            "fields": [],
            "tags": [],
            "lastModifiedAt": iso(last_modified_at),
            "lastLifecycleState": lifecycle_state,
            "description": description,
        }
        if full:
            doc.update(
                {
                    "currentVersion": version_uuid,
                    "columnLineage": None,
                    "facets": json_obj(facets[0]),
                    "deleted": bool(is_hidden),
                }
            )
        out[pk] = doc
    fields = _fields_by_dataset(conn, wanted)
    tags = tag_names_by_owner(conn, s.dataset_tags.c.dataset_id, wanted)
    for pk, doc in out.items():
        doc["fields"] = fields.get(pk, [])
        doc["tags"] = tags.get(pk, [])
    if visible_to is not None:
        readable = readable_among(conn, wanted, visible_to)
        for pk, doc in out.items():
            if pk not in readable:
                blank(doc)
        screen_facets(conn, [doc for pk, doc in out.items() if pk in readable], visible_to)
    return out


def _with_column_lineage(
    conn: Connection, docs: dict[int, Dataset], visible_to: VisibleTo
) -> dict[int, Dataset]:
    """``docs`` with their ``columnLineage`` (not of those whose contents are left out)."""
    lineage = column_lineage_by_dataset(conn, list(docs), visible_to)
    readable = readable_among(conn, list(docs), visible_to)
    for pk, doc in docs.items():
        if pk in readable:
            doc["columnLineage"] = lineage.get(pk)
    return docs


def get_dataset(
    conn: Connection, namespace: str, name: str, visible_to: VisibleTo = None
) -> Dataset:
    """``GET /namespaces/{namespace}/datasets/{dataset}``."""
    pk = dataset_pk(conn, namespace, name, visible_to=visible_to)
    docs = datasets_by_pk(conn, [pk], visible_to=visible_to)
    return _with_column_lineage(conn, docs, visible_to)[pk]


def list_datasets(
    conn: Connection, namespace: str, limit: int, offset: int, visible_to: VisibleTo = None
) -> DatasetPage:
    """``GET /namespaces/{namespace}/datasets``: ``{"totalCount", "datasets"}``, by name."""
    ns = namespace_row(conn, namespace, visible_to=visible_to)
    d = s.datasets
    base = sa.select(d.c.id).where(
        d.c.namespace_id == ns.id,
        d.c.is_hidden == sa.false(),
        visible_datasets(d.c.id, visible_to),
    )
    total = count(conn, base)
    ids = list(conn.execute(base.order_by(d.c.name).limit(limit).offset(offset)).scalars())
    docs = _with_column_lineage(conn, datasets_by_pk(conn, ids, visible_to=visible_to), visible_to)
    return {"totalCount": total, "datasets": [docs[i] for i in ids]}


def _version_docs(
    conn: Connection,
    rows: Sequence[sa.Row[Any]],
    visible_to: VisibleTo,
    before: Sequence[sa.Row[Any] | None],
) -> list[DatasetVersion]:
    """Version documents of `rows`, each with its schema changes since `before[i]` (the version
    before it in time, None for the first)."""
    if not rows:
        return []
    dataset_docs = datasets_by_pk(conn, [rows[0].dataset_id], visible_to=visible_to)
    base = dataset_docs[rows[0].dataset_id]
    readable = bool(readable_among(conn, [rows[0].dataset_id], visible_to))
    # a version written by a job the caller may not see keeps createdByRun null
    runs = runs_by_uuid(conn, [row.run_uuid for row in rows if row.run_uuid], visible_to)
    docs: list[DatasetVersion] = []
    for row, previous in zip(rows, before, strict=True):
        fields: list[DatasetField] = [
            {
                "name": cast(str, field.get("name")),  # a schema field's name is required
                "type": field.get("type"),
                "tags": [],
                "description": field.get("description"),
            }
            for field in (row.schema_fields or [])
            if isinstance(field, dict)
        ]
        docs.append(
            {
                "id": base["id"],
                "type": base["type"],
                "name": base["name"],
                "physicalName": base["physicalName"],
                "createdAt": iso(row.created_at),
                "version": row.uuid,
                "namespace": base["namespace"],
                "sourceName": base["sourceName"],
                "fields": fields,
                "tags": base["tags"],
                "lifecycleState": row.lifecycle_state,
                "description": base["description"],
                "currentSchemaVersion": None,
                "createdByRun": runs.get(row.run_uuid) if row.run_uuid else None,
                "facets": json_obj(row.facets),
                # plumbline addition: the `version` facet's value (or the producing run's id)
                "datasetVersion": row.version,
                "schemaChanges": (
                    None
                    if previous is None
                    else cast(
                        SchemaChanges,
                        diff_schemas(previous.schema_fields, row.schema_fields).to_json(),
                    )
                ),
            }
        )
        if not readable:
            blank(cast(dict[str, Any], docs[-1]))
    return docs


def _versions_query(dataset: int) -> sa.Select[Any]:
    dv, sv = s.dataset_versions, s.schema_versions
    return (
        sa.select(dv, sv.c.fields.label("schema_fields"))
        .outerjoin(sv, sv.c.id == dv.c.schema_version_id)
        .where(dv.c.dataset_id == dataset)
    )


def list_dataset_versions(
    conn: Connection,
    namespace: str,
    name: str,
    limit: int,
    offset: int,
    visible_to: VisibleTo = None,
) -> DatasetVersionPage:
    """``GET …/datasets/{dataset}/versions``: ``{"totalCount", "versions"}``, newest first."""
    pk = dataset_pk(conn, namespace, name, visible_to=visible_to)
    dv = s.dataset_versions
    total = count(conn, sa.select(dv.c.id).where(dv.c.dataset_id == pk))
    query = _versions_query(pk).order_by(dv.c.created_at.desc(), dv.c.id.desc())
    # one more row than asked: the version before the page's oldest, to diff its schema against
    rows = conn.execute(query.limit(limit + 1).offset(offset)).all()
    page = rows[:limit]
    before = [rows[i + 1] if i + 1 < len(rows) else None for i in range(len(page))]
    return {"totalCount": total, "versions": _version_docs(conn, page, visible_to, before)}


def get_dataset_version(
    conn: Connection, namespace: str, name: str, version: str, visible_to: VisibleTo = None
) -> DatasetVersion:
    """``GET …/datasets/{dataset}/versions/{version}`` (the version's uuid or its version string)."""
    pk = dataset_pk(conn, namespace, name, visible_to=visible_to)
    dv = s.dataset_versions
    query = _versions_query(pk).where(sa.or_(dv.c.uuid == version, dv.c.version == version))
    rows = conn.execute(query.limit(1)).all()
    if not rows:
        raise NotFoundError(f"version {version!r} of dataset {name!r} not found")
    return _version_docs(conn, rows, visible_to, [_version_before(conn, pk, rows[0])])[0]


def _version_before(conn: Connection, dataset: int, row: sa.Row[Any]) -> sa.Row[Any] | None:
    """The dataset's version just before `row` in the versions' order (created_at, id)."""
    dv = s.dataset_versions
    earlier = sa.or_(
        dv.c.created_at < row.created_at,
        sa.and_(dv.c.created_at == row.created_at, dv.c.id < row.id),
    )
    query = _versions_query(dataset).where(earlier)
    return conn.execute(query.order_by(dv.c.created_at.desc(), dv.c.id.desc()).limit(1)).first()
