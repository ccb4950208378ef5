"""Producers' ``tags`` dataset facets (OpenLineage ``TagsDatasetFacet``): each ``{key, value,
field?}`` tags the dataset, or its column ``field``, with tag ``key`` (created if unknown) and its
value, as the tag routes do; a column's new tag is a classification, spread downstream
(:mod:`plumbline.store.write.classify`). Tags are only added, never removed, by events.

Bounds: at most :data:`MAX_TAGS` entries of one dataset's facet are read; an entry whose key or
value is longer than 255 characters, or that is not shaped as the spec says, is skipped.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.write import classify
from plumbline.store.write.column_lineage import ensure_fields
from plumbline.store.write.context import Batch
from plumbline.store.write.upsert import select_in

MAX_TAGS = 1000
_LONGEST = 255

_FIELD_TAGS = sa.select(s.dataset_field_tags.c.field_id, s.dataset_field_tags.c.tag_id)
_DATASET_TAGS = sa.select(s.dataset_tags.c.dataset_id, s.dataset_tags.c.tag_id)


def _entries(facets: Any) -> list[tuple[str, str, str | None]]:
    facet = facets.get("tags") if isinstance(facets, dict) else None
    items = facet.get("tags") if isinstance(facet, dict) else None
    if not isinstance(items, list):
        return []
    found = []
    for item in items[:MAX_TAGS]:
        if not isinstance(item, dict):
            continue
        key, value, field = item.get("key"), item.get("value"), item.get("field")
        if not (isinstance(key, str) and isinstance(value, str)) or not key:
            continue
        if len(key) > _LONGEST or len(value) > _LONGEST:
            continue
        if field is not None and (not isinstance(field, str) or not field or len(field) > 1024):
            continue
        found.append((key, value, field))
    return found


def declare_facet_tags(connection: Connection, batch: Batch) -> None:
    """Store the tags the batch's ``tags`` dataset facets name (nothing to do without one)."""
    wanted: dict[tuple[int, str | None, str], str] = {}  # (dataset, field, key) -> value
    for appearance in batch.appearances:
        entries = _entries(appearance.raw.get("facets"))
        if entries:
            dataset_id = batch.dataset_ids[appearance.key]
            for key, value, field in entries:
                wanted[(dataset_id, field, key)] = value
    if not wanted:
        return
    tag_ids = classify.tag_ids(connection, (key for _, _, key in wanted))
    field_ids = ensure_fields(
        connection, batch, {(ds, field) for ds, field, _ in wanted if field is not None}
    )
    now = datetime.now(UTC)
    on_datasets = {(ds, tag_ids[key]): v for (ds, field, key), v in wanted.items() if field is None}
    on_fields = {
        (field_ids[(ds, field)], tag_ids[key]): v
        for (ds, field, key), v in wanted.items()
        if field is not None
    }
    if on_datasets:
        held = {
            (r.dataset_id, r.tag_id)
            for r in select_in(
                connection,
                _DATASET_TAGS,
                [s.dataset_tags.c.dataset_id],
                {ds for ds, _ in on_datasets},
            )
        }
        rows = [
            {"dataset_id": ds, "tag_id": tag, "tag_value": v, "tagged_at": now}
            for (ds, tag), v in sorted(on_datasets.items())
            if (ds, tag) not in held
        ]
        if rows:
            connection.execute(sa.insert(s.dataset_tags), rows)
    if on_fields:
        held = {
            (r.field_id, r.tag_id)
            for r in select_in(
                connection,
                _FIELD_TAGS,
                [s.dataset_field_tags.c.field_id],
                {f for f, _ in on_fields},
            )
        }
        new = {key: v for key, v in sorted(on_fields.items()) if key not in held}
        if new:
            connection.execute(
                sa.insert(s.dataset_field_tags),
                [
                    {"field_id": f, "tag_id": tag, "tag_value": v, "tagged_at": now}
                    for (f, tag), v in new.items()
                ],
            )
            by_tag: dict[int, dict[int, classify.Mark]] = {}
            for (f, tag), v in new.items():
                by_tag.setdefault(tag, {})[f] = classify.Mark(v, "tag", f)
            for tag, marks in sorted(by_tag.items()):
                classify.declare(connection, tag, marks)
