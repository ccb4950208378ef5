"""Column lineage (the ``columnLineage`` facet): field->field and field->dataset edges, upserted once
per distinct (output, input, transformation type, subtype).

An edge keeps when it was first and last seen. ``last_seen`` moves on only when an event comes
in a later hour than the one stored (it is within an hour of the latest event), so the many
events of one hour leave the row as it is. Edges the writer's cache knows to be stored so are
not sent at all.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage import ParsedEvent, RunEvent
from plumbline.openlineage.facets import InputField
from plumbline.store.schema import (
    column_dataset_edges,
    column_lineage_edges,
    dataset_fields,
)
from plumbline.store.write.cache import (
    EdgeConfidence,
    EdgeKey,
    EdgeSeen,
    FieldKey,
    LineageSeen,
    confidence_after,
)
from plumbline.store.write.column_shapes import Edge
from plumbline.store.write.confidence import confidence_changed, confidence_update
from plumbline.store.write.context import Batch, as_utc
from plumbline.store.write.upsert import (
    execute_many,
    greatest,
    hour_of,
    insert_ignore,
    least,
    select_in,
)

Transformation = tuple[str, str, str | None, bool]  # (type, subtype, description, masking)


def _transformations(
    input_field: InputField, deprecated_type: str | None, deprecated_description: str | None
) -> list[Transformation]:
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
    """The edge rows of one write that the store may not hold yet, ready to upsert."""

    fields: list[dict[str, Any]] = field(default_factory=list)  # column_lineage_edges
    datasets: list[dict[str, Any]] = field(default_factory=list)  # column_dataset_edges


@dataclass
class _Edge:
    first_seen: datetime
    last_seen: datetime
    description: str | None
    masking: bool
    confidence: EdgeConfidence  # the newest report's (spans come in no particular order)

    def add(self, time: datetime, description: str | None, masking: bool) -> None:
        if time < self.first_seen:
            self.first_seen = time
        if time > self.last_seen:
            self.last_seen = time
        self.description = description or self.description
        self.masking = masking or self.masking

    def reported(self, last: datetime, confidence: EdgeConfidence) -> None:
        """A report of the edge whose span ends at ``last``: the newest says how it is known."""
        if last >= self.last_seen:
            self.confidence = confidence_after(self.confidence, confidence)
        elif self.confidence[1] is None and confidence[1] is not None:
            self.confidence = (self.confidence[0], confidence[1], confidence[2])


# (output, input field, type, subtype) with output a FieldKey ('f' edges) or a dataset id ('d')
_Found = dict[tuple[Any, FieldKey, str, str], _Edge]


def _collect(batch: Batch) -> tuple[_Found, _Found]:
    """Every field->field and field->dataset edge the events carry, merged per distinct edge.

    Events whose bytes repeat share their facet objects (see the parse cache): the edges of one
    facet object written for one output are collected once, over the span of its appearances."""
    field_edges: _Found = {}
    dataset_edges: _Found = {}

    def add(
        store: _Found,
        key: Any,
        first: datetime,
        last: datetime,
        t: Transformation,
        confidence: EdgeConfidence,
    ) -> None:
        edge = store.get(key)
        if edge is None:  # the common case, and ~60 per facet: kept cheap
            store[key] = _Edge(first, last, t[2] or None, t[3], confidence)
        else:
            edge.reported(last, confidence)
            edge.add(first, t[2], t[3])
            edge.add(last, t[2], t[3])

    for output_id, lineage, first, last, confidence in _lineage_spans(batch):
        if _known(batch, output_id, lineage, first, last, confidence):
            continue  # the same facet object, already stored for this output and this hour
        for output_name, output_field in lineage.fields.items():
            output = (output_id, output_name)
            for input_field in output_field["inputFields"]:
                source = (
                    batch.dataset_ids[(input_field["namespace"], input_field["name"])],
                    input_field["field"],
                )
                for t in _transformations(
                    input_field,
                    output_field.get("transformationType"),
                    output_field.get("transformationDescription"),
                ):
                    add(field_edges, (output, source, t[0], t[1]), first, last, t, confidence)
        for input_field in lineage.dataset or []:
            source = (
                batch.dataset_ids[(input_field["namespace"], input_field["name"])],
                input_field["field"],
            )
            for t in _transformations(input_field, None, None):
                add(dataset_edges, (output_id, source, t[0], t[1]), first, last, t, confidence)
    return field_edges, dataset_edges


def edge_confidence(batch: Batch, parsed: ParsedEvent) -> EdgeConfidence:
    """How an event knows its edges, hashable (reasons as a tuple)."""
    source, completeness, reasons = batch.confidence(parsed)
    return (source, completeness, tuple(reasons) if reasons is not None else None)


def _lineage_spans(
    batch: Batch,
) -> list[tuple[int, Any, datetime, datetime, EdgeConfidence]]:
    """(output dataset id, columnLineage facet object, first and last event time, how the events
    know it) per distinct output, facet object and confidence of the batch."""
    spans: dict[tuple[int, int, EdgeConfidence], list[Any]] = {}
    for appearance in batch.appearances:
        facets = appearance.dataset.facets
        lineage = facets.column_lineage if facets is not None else None
        if lineage is None or lineage.deleted:
            continue
        time = as_utc(appearance.time)
        assert time is not None
        output_id = batch.dataset_ids[appearance.key]
        confidence = edge_confidence(batch, appearance.event)
        span = spans.get((output_id, id(lineage), confidence))
        if span is None:
            spans[(output_id, id(lineage), confidence)] = [output_id, lineage, time, time]
        elif time < span[2]:
            span[2] = time
        elif time > span[3]:
            span[3] = time
    return [
        (output_id, lineage, first, last, confidence)
        for (_, _, confidence), (output_id, lineage, first, last) in spans.items()
    ]


def _input_names(lineage: Any) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(lineage.dataset_names))


def _known(
    batch: Batch,
    output_id: int,
    lineage: Any,
    first: datetime,
    last: datetime,
    confidence: EdgeConfidence,
) -> bool:
    """Whether every edge of this facet object is stored for this output over this span, as
    known as this. If not, its edges are written, and the write teaches the cache so."""
    key = (output_id, id(lineage))
    seen = batch.cache.lineages.get(key)
    if seen is not None and seen.lineage is not lineage:
        seen = None  # another object, since freed, had this id
    names = seen.names if seen is not None else _input_names(lineage)
    input_ids = tuple(batch.dataset_ids[name] for name in names)
    if (
        seen is not None
        and seen.covers(input_ids, first, confidence)
        and seen.covers(input_ids, last, confidence)
    ):
        return True
    stored = confidence_after(seen.confidence if seen is not None else None, confidence)
    written = LineageSeen(lineage, names, input_ids, first, last, stored)
    pending = batch.learned.lineages.get(key)
    batch.learned.lineages[key] = written if pending is None else pending.widened(written)
    return False


def prepare_edges(connection: Connection, batch: Batch) -> EdgeRows:
    """The events' column-lineage edges the store may not hold as they are, merged, with the
    fields they name created if missing."""
    field_edges, dataset_edges = _collect(batch)
    if not field_edges and not dataset_edges:
        return EdgeRows()
    needed: set[FieldKey] = set()
    for out_field, in_field, _, _ in field_edges:
        needed.update((out_field, in_field))
    needed.update(in_field for _, in_field, _, _ in dataset_edges)
    field_ids = ensure_fields(connection, batch, needed)

    known, learned = batch.cache.edges, batch.learned.edges
    rows = EdgeRows()
    for tag, found, target, output_column in (
        ("f", field_edges, rows.fields, "output_field_id"),
        ("d", dataset_edges, rows.datasets, "output_dataset_id"),
    ):
        for (output, in_field, kind, subtype), edge in found.items():
            output_id = field_ids[output] if tag == "f" else output
            key: EdgeKey = (tag, output_id, field_ids[in_field], kind, subtype)
            seen = known.get(key)
            if seen is not None and seen.covers(
                edge.first_seen, edge.last_seen, edge.description, edge.masking, edge.confidence
            ):
                continue
            # an older report than the one the cache knows leaves the stored confidence unknown
            newest = seen is None or edge.last_seen >= seen.last_seen
            learned[key] = EdgeSeen(
                edge.first_seen,
                edge.last_seen,
                edge.description,
                edge.masking,
                confidence_after(seen.confidence if seen else None, edge.confidence)
                if newest
                else None,
            )
            source, completeness, reasons = edge.confidence
            target.append(
                {
                    output_column: output_id,
                    "input_field_id": key[2],
                    "transformation_type": kind,
                    "transformation_subtype": subtype,
                    "first_seen": edge.first_seen,
                    "last_seen": edge.last_seen,
                    "description": edge.description,
                    "masking": edge.masking,
                    "edge_source": source,
                    "completeness": completeness,
                    "completeness_reasons": list(reasons) if reasons is not None else None,
                }
            )
    return rows


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


def run_edges(connection: Connection, batch: Batch) -> dict[int, set[Edge]]:
    """The column edges each run of the batch carried (run id -> its edges): the history behind
    the ``plumbline_column_lineage`` view, stored per shape (:mod:`.column_shapes`). Output
    field id 0: the input field shapes the whole output dataset."""
    carried: dict[tuple[int, int, int], Any] = {}  # (run, output, facet object) -> facet
    for appearance in batch.appearances:
        facets = appearance.dataset.facets
        lineage = facets.column_lineage if facets is not None else None
        if lineage is None or lineage.deleted or not isinstance(appearance.event.event, RunEvent):
            continue
        run_id = batch.run_ids.get(appearance.event.run_id or "")
        if run_id is not None:
            output_id = batch.dataset_ids[appearance.key]
            carried.setdefault((run_id, output_id, id(lineage)), lineage)
    found: set[tuple[int, int, FieldKey | None, FieldKey, str, str]] = set()
    for (run_id, output_id, _), lineage in carried.items():
        for output_name, output_field in lineage.fields.items():
            for input_field in output_field["inputFields"]:
                source = (
                    batch.dataset_ids[(input_field["namespace"], input_field["name"])],
                    input_field["field"],
                )
                for t in _transformations(
                    input_field,
                    output_field.get("transformationType"),
                    output_field.get("transformationDescription"),
                ):
                    found.add((run_id, output_id, (output_id, output_name), source, t[0], t[1]))
        for input_field in lineage.dataset or []:
            source = (
                batch.dataset_ids[(input_field["namespace"], input_field["name"])],
                input_field["field"],
            )
            for t in _transformations(input_field, None, None):
                found.add((run_id, output_id, None, source, t[0], t[1]))
    if not found:
        return {}
    needed: set[FieldKey] = {key[3] for key in found}
    needed.update(key[2] for key in found if key[2] is not None)
    field_ids = ensure_fields(connection, batch, needed)
    edges: dict[int, set[Edge]] = {}
    for run_id, output_id, output, source, kind, subtype in found:
        output_field_id = field_ids[output] if output is not None else 0
        edge = (output_id, output_field_id, field_ids[source], kind, subtype)
        edges.setdefault(run_id, set()).add(edge)
    return edges


_FIELD_IDS = sa.select(dataset_fields.c.dataset_id, dataset_fields.c.name, dataset_fields.c.id)


def ensure_fields(
    connection: Connection, batch: Batch, needed: set[FieldKey]
) -> dict[FieldKey, int]:
    """Ids of the named fields, creating the ones no schema has announced yet (untyped, not
    ``in_schema``: the end of an edge, not listed among the dataset's fields)."""
    known = batch.cache.field_ids
    found = {key: field_id for key in needed if (field_id := known.get(key)) is not None}
    if len(found) == len(needed):
        return found
    statement, columns = _FIELD_IDS, [dataset_fields.c.dataset_id, dataset_fields.c.name]
    looked_up = {
        (r.dataset_id, r.name): r.id
        for r in select_in(connection, statement, columns, needed - found.keys())
    }
    missing = sorted(needed - found.keys() - looked_up.keys())
    if missing:
        insert_ignore(
            connection,
            dataset_fields,
            [
                {"dataset_id": ds, "name": name, "created_at": batch.now, "updated_at": batch.now}
                for ds, name in missing
            ],
        )
        looked_up.update(
            {
                (r.dataset_id, r.name): r.id
                for r in select_in(connection, statement, columns, missing)
            }
        )
    batch.learned.field_ids.update(looked_up)
    return found | looked_up


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
                "description": sa.func.coalesce(excluded.description, table.c.description),
                "masking": excluded.masking,
                **confidence_update(table, excluded),
            },
            # nothing new (times within the known span, same description and masking): the row
            # stays as it is, no new row version
            where=sa.or_(
                excluded.first_seen < table.c.first_seen,
                hour_of(connection, excluded.last_seen) > hour_of(connection, table.c.last_seen),
                excluded.masking != table.c.masking,
                sa.and_(
                    excluded.description.is_not(None),
                    excluded.description.is_distinct_from(table.c.description),
                ),
                confidence_changed(table, excluded),
            ),
        )

    execute_many(connection, table, rows, conflict)
