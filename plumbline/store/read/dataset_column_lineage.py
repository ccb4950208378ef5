"""A dataset document's ``columnLineage``: each of its fields' input fields, as Marquez's
``ColumnLineageService.enrichWithColumnLineage`` gives them (Marquez's web UI reads it to mark the
datasets and fields that have column lineage and to link them to the column-level graph)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.records import ColumnLineage, ColumnLineageInput
from plumbline.store.read.transformations import field_summary
from plumbline.store.read.visibility import VisibleTo, visible_datasets


def _edges(visible_to: VisibleTo) -> sa.CompoundSelect[Any]:
    """The edges into the fields of the bound ``ids`` datasets, with both ends' names: the
    ``fields`` edges, and each dataset-wide dependency (the facet's ``dataset`` list: joins,
    filters, grouping, sorting) as an input of every field of the dataset it shapes. Each kind
    of edge is looked up by its own index (a union of all edges would be read whole)."""
    branches = []
    for edges in (s.column_lineage_edges, s.column_dataset_edges):
        out_f, in_f = s.dataset_fields.alias("out_field"), s.dataset_fields.alias("in_field")
        in_d, in_n = s.datasets.alias("in_dataset"), s.namespaces.alias("in_ns")
        if edges is s.column_lineage_edges:
            to_output = out_f.c.id == edges.c.output_field_id
            wanted = in_ids(out_f.c.dataset_id)
        else:
            to_output = out_f.c.dataset_id == edges.c.output_dataset_id
            wanted = in_ids(edges.c.output_dataset_id)
        branch = (
            sa.select(
                out_f.c.dataset_id,
                out_f.c.id,
                out_f.c.name,
                in_n.c.name,
                in_d.c.name,
                in_f.c.name,
                edges.c.transformation_type,
                edges.c.transformation_subtype,
                edges.c.description,
            )
            .select_from(edges)
            .join(out_f, to_output)
            .join(in_f, in_f.c.id == edges.c.input_field_id)
            .join(in_d, in_d.c.id == in_f.c.dataset_id)
            .join(in_n, in_n.c.id == in_d.c.namespace_id)
            .where(wanted)
        )
        if visible_to is not None:
            branch = branch.where(visible_datasets(in_d.c.id, visible_to))
        branches.append(branch)
    return sa.union_all(*branches)


def column_lineage_by_dataset(
    conn: Connection, ids: Sequence[int], visible_to: VisibleTo = None
) -> dict[int, list[ColumnLineage]]:
    """``{dataset id: [{"name", "inputFields", "transformationDescription",
    "transformationType"}, …]}`` for the datasets that have column lineage (others are absent, so
    their ``columnLineage`` stays null as in Marquez). One input per input field: the edge whose
    (type, subtype) sorts first, so a DIRECT edge wins over an INDIRECT one. A namespace-limited
    caller gets only the input fields of datasets it may see."""
    if not ids:
        return {}
    statement = _edges(visible_to)
    # (dataset, field id, field name) -> (namespace, dataset, field) -> (type, subtype, description)
    chosen: dict[tuple[int, int, str], dict[tuple[str, str, str], tuple[str, str, str | None]]]
    chosen = defaultdict(dict)
    for dataset, field_id, field, in_ns, in_ds, in_field, type_, subtype, desc in conn.execute(
        statement, {"ids": sorted(set(ids))}
    ).all():
        inputs = chosen[(dataset, field_id, field)]
        key = (in_ns, in_ds, in_field)
        if key not in inputs or (type_, subtype) < inputs[key][:2]:
            inputs[key] = (type_, subtype, desc)
    out: dict[int, list[ColumnLineage]] = defaultdict(list)
    for (dataset, _, field), inputs in sorted(chosen.items(), key=lambda kv: kv[0][:2]):
        input_fields: list[ColumnLineageInput] = [
            {
                "namespace": ns,
                "dataset": ds,
                "field": name,
                "transformationDescription": desc,
                "transformationType": type_ or None,
            }
            for (ns, ds, name), (type_, _, desc) in sorted(inputs.items())
        ]
        summary = field_summary((t, d) for (t, _, d) in inputs.values())
        out[dataset].append(
            {
                "name": field,
                "inputFields": input_fields,
                # Marquez's deprecated field-level values, summarized from every input
                "transformationType": summary[0],
                "transformationDescription": summary[1],
            }
        )
    return dict(out)
