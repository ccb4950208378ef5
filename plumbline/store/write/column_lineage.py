"""Column lineage (the ``columnLineage`` facet): field->field and field->dataset edges, upserted once
per distinct (output, input, transformation type, subtype); ``seen_count`` counts the events that
carried the edge."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage.facets import InputField
from plumbline.store.schema import column_dataset_edges, column_lineage_edges, dataset_fields
from plumbline.store.write.context import Batch, as_utc
from plumbline.store.write.upsert import (
    execute_many,
    greatest,
    insert_ignore,
    least,
    select_in,
)

FieldKey = tuple[int, str]  # (dataset_id, field name)


def _transformations(
    input_field: InputField, deprecated_type: str | None, deprecated_description: str | None
) -> list[tuple[str, str, str | None, bool]]:
    """(type, subtype, description, masking) per transformation; older producers sent none."""
    transformations = input_field.get("transformations")
    if transformations:
        return [
            (t["type"], t.get("subtype", ""), t.get("description"), bool(t.get("masking")))
            for t in transformations
        ]
    return [("", deprecated_type or "", deprecated_description, deprecated_type == "MASKED")]


@dataclass
class EdgeRows:
    """The edge rows of one write, ready to upsert."""

    fields: list[dict[str, Any]]  # column_lineage_edges
    datasets: list[dict[str, Any]]  # column_dataset_edges


def write_edges(connection: Connection, rows: EdgeRows) -> None:
    """Upsert the edges (no result is read: fit for a pipeline)."""
    if rows.fields:
        _upsert(
            connection,
            column_lineage_edges,
            ["output_field_id", "input_field_id", "transformation_type", "transformation_subtype"],
            rows.fields,
        )
    if rows.datasets:
        _upsert(
            connection,
            column_dataset_edges,
            [
                "output_dataset_id",
                "input_field_id",
                "transformation_type",
                "transformation_subtype",
            ],
            rows.datasets,
        )


def prepare_edges(connection: Connection, batch: Batch) -> EdgeRows:
    """The events' column-lineage edges, merged, with the fields they name created if missing."""
    field_edges: dict[tuple[FieldKey, FieldKey, str, str], dict[str, Any]] = {}
    dataset_edges: dict[tuple[int, FieldKey, str, str], dict[str, Any]] = {}

    def add(
        store: dict[Any, dict[str, Any]],
        key: Any,
        time: datetime,
        description: str | None,
        masking: bool,
    ) -> None:
        edge = store.get(key)
        if edge is None:  # the common case, and ~60 per event: kept cheap
            store[key] = {
                "first_seen": time,
                "last_seen": time,
                "seen_count": 1,
                "description": description or None,
                "masking": masking,
            }
            return
        if time < edge["first_seen"]:
            edge["first_seen"] = time
        if time > edge["last_seen"]:
            edge["last_seen"] = time
        edge["seen_count"] += 1
        edge["description"] = description or edge["description"]
        edge["masking"] = masking or edge["masking"]

    for appearance in batch.appearances:
        facets = appearance.dataset.facets
        lineage = facets.column_lineage if facets is not None else None
        if lineage is None or lineage.deleted:
            continue
        time = as_utc(appearance.time)
        assert time is not None
        output_id = batch.dataset_ids[appearance.key]
        for output_name, output_field in lineage.fields.items():
            for input_field in output_field["inputFields"]:
                source = (
                    batch.dataset_ids[(input_field["namespace"], input_field["name"])],
                    input_field["field"],
                )
                for kind, subtype, description, masking in _transformations(
                    input_field,
                    output_field.get("transformationType"),
                    output_field.get("transformationDescription"),
                ):
                    add(
                        field_edges,
                        ((output_id, output_name), source, kind, subtype),
                        time,
                        description,
                        masking,
                    )
        for input_field in lineage.dataset or []:
            source = (
                batch.dataset_ids[(input_field["namespace"], input_field["name"])],
                input_field["field"],
            )
            for kind, subtype, description, masking in _transformations(input_field, None, None):
                add(dataset_edges, (output_id, source, kind, subtype), time, description, masking)
    if not field_edges and not dataset_edges:
        return EdgeRows([], [])

    needed: set[FieldKey] = set()
    for out_field, in_field, _, _ in field_edges:
        needed.update((out_field, in_field))
    needed.update(in_field for _, in_field, _, _ in dataset_edges)
    field_ids = ensure_fields(connection, batch, needed)

    return EdgeRows(
        fields=[
            {
                "output_field_id": field_ids[out_field],
                "input_field_id": field_ids[in_field],
                "transformation_type": kind,
                "transformation_subtype": subtype,
                **edge,
            }
            for (out_field, in_field, kind, subtype), edge in field_edges.items()
        ],
        datasets=[
            {
                "output_dataset_id": output_id,
                "input_field_id": field_ids[in_field],
                "transformation_type": kind,
                "transformation_subtype": subtype,
                **edge,
            }
            for (output_id, in_field, kind, subtype), edge in dataset_edges.items()
        ],
    )


def ensure_fields(
    connection: Connection, batch: Batch, needed: set[FieldKey]
) -> dict[FieldKey, int]:
    """Ids of the named fields, creating (untyped) the ones no schema has announced yet."""
    statement = sa.select(dataset_fields.c.dataset_id, dataset_fields.c.name, dataset_fields.c.id)
    columns = [dataset_fields.c.dataset_id, dataset_fields.c.name]
    found = {
        (r.dataset_id, r.name): r.id for r in select_in(connection, statement, columns, needed)
    }
    missing = sorted(needed - found.keys())
    if missing:
        insert_ignore(
            connection,
            dataset_fields,
            [
                {"dataset_id": ds, "name": name, "created_at": batch.now, "updated_at": batch.now}
                for ds, name in missing
            ],
        )
        found.update(
            {
                (r.dataset_id, r.name): r.id
                for r in select_in(connection, statement, columns, missing)
            }
        )
    return found


def _upsert(
    connection: Connection, table: sa.Table, key: list[str], rows: list[dict[str, Any]]
) -> None:
    rows.sort(key=operator.itemgetter(*key))

    def conflict(statement: Any) -> Any:
        excluded = statement.excluded
        return statement.on_conflict_do_update(
            index_elements=key,
            set_={
                "first_seen": least(connection, table.c.first_seen, excluded.first_seen),
                "last_seen": greatest(connection, table.c.last_seen, excluded.last_seen),
                "seen_count": table.c.seen_count + excluded.seen_count,
                "description": sa.func.coalesce(excluded.description, table.c.description),
                "masking": excluded.masking,
            },
        )

    execute_many(connection, table, rows, conflict)
