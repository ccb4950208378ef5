"""Tags: create one or set its description (``PUT /tags/{tag}``), tag or untag datasets, dataset
fields and jobs."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import dataset_pk, job_pk
from plumbline.store.read.errors import NotFoundError
from plumbline.store.write import classify


def put_tag(conn: Connection, name: str, description: str | None) -> None:
    """Create tag ``name`` or update its description."""
    t = s.tags
    now = datetime.now(UTC)
    existing = conn.execute(sa.select(t.c.id).where(t.c.name == name)).scalar()
    if existing is None:
        conn.execute(
            sa.insert(t).values(name=name, description=description, created_at=now, updated_at=now)
        )
    else:
        conn.execute(
            sa.update(t).where(t.c.id == existing).values(description=description, updated_at=now)
        )


def _tag_id(conn: Connection, name: str, *, create: bool) -> int:
    t = s.tags
    pk = conn.execute(sa.select(t.c.id).where(t.c.name == name)).scalar()
    if pk is None:
        if not create:
            raise NotFoundError(f"tag {name!r} not found")
        put_tag(conn, name, None)
        pk = conn.execute(sa.select(t.c.id).where(t.c.name == name)).scalar_one()
    return int(pk)


def _field_pk(conn: Connection, dataset: int, field: str) -> int:
    f = s.dataset_fields
    pk = conn.execute(
        sa.select(f.c.id).where(f.c.dataset_id == dataset, f.c.name == field)
    ).scalar()
    if pk is None:
        raise NotFoundError(f"field {field!r} not found")
    return int(pk)


def _link(
    conn: Connection,
    table: sa.Table,
    key: str,
    owner: int,
    tag: int,
    *,
    add: bool,
    value: str | None = None,
) -> bool:
    """Add or remove the link; whether it changed."""
    where = sa.and_(table.c[key] == owner, table.c.tag_id == tag)
    exists = conn.execute(sa.select(sa.literal(1)).select_from(table).where(where)).first()
    if add and exists is None:
        now = datetime.now(UTC)
        row = {key: owner, "tag_id": tag, "tagged_at": now}
        conn.execute(sa.insert(table).values(row if value is None else {**row, "tag_value": value}))
        return True
    if not add and exists is not None:
        conn.execute(sa.delete(table).where(where))
        return True
    return False


def tag_dataset(conn: Connection, namespace: str, name: str, tag: str, *, add: bool = True) -> None:
    """Add (or remove) ``tag`` on a dataset; adding creates an unknown tag, as Marquez does."""
    pk = dataset_pk(conn, namespace, name)
    _link(conn, s.dataset_tags, "dataset_id", pk, _tag_id(conn, tag, create=add), add=add)


def tag_field(
    conn: Connection, namespace: str, name: str, field: str, tag: str, *, add: bool = True
) -> None:
    """Add (or remove) ``tag`` on one field of a dataset: a classification, spread downstream
    along column lineage (:mod:`plumbline.store.write.classify`)."""
    field_pk = _field_pk(conn, dataset_pk(conn, namespace, name), field)
    tag_pk = _tag_id(conn, tag, create=add)
    if _link(conn, s.dataset_field_tags, "field_id", field_pk, tag_pk, add=add):
        classify.field_tag_changed(conn, field_pk, tag_pk, add)


def declassify(
    conn: Connection,
    namespace: str,
    name: str,
    field: str,
    tag: str,
    *,
    by: str,
    reason: str,
    declassified: bool = True,
) -> None:
    """Mark one field of a dataset declassified for ``tag`` (``by`` whom, ``reason``), or undo it:
    the tag stops spreading there."""
    field_pk = _field_pk(conn, dataset_pk(conn, namespace, name), field)
    tag_pk = _tag_id(conn, tag, create=False)
    classify.set_declassified(
        conn, field_pk, tag_pk, by=by, reason=reason, declassified=declassified
    )


def tag_job(conn: Connection, namespace: str, name: str, tag: str, *, add: bool = True) -> None:
    """Add (or remove) ``tag`` on a job."""
    pk = job_pk(conn, namespace, name)
    _link(conn, s.job_tags, "job_id", pk, _tag_id(conn, tag, create=add), add=add)
