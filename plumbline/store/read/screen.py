"""What of a dataset a namespace-limited caller may read (see :mod:`.visibility`).

A dataset the caller sees but may not read (its jobs only read it) keeps its name, namespace,
type and times; its fields, facets, description, source, tags and current version are left out. A
dataset it may read keeps its contents, except the inputs its ``columnLineage`` facet names that
the caller may not see.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.visibility import (
    VisibleTo,
    readable_dataset_ids,
    visible_dataset_ids,
)

_BLANK: dict[str, Any] = {
    "fields": [],
    "tags": [],
    "description": None,
    "facets": {},
    "currentVersion": None,
    "columnLineage": None,
    "schemaChanges": None,
}


def readable_among(conn: Connection, ids: Sequence[int], visible_to: VisibleTo) -> set[int]:
    """Those of ``ids`` whose contents the caller may read (all of them when unlimited)."""
    if visible_to is None:
        return set(ids)
    d = s.datasets
    query = sa.select(d.c.id).where(in_ids(d.c.id), d.c.id.in_(readable_dataset_ids(visible_to)))
    return set(conn.execute(query, {"ids": list(ids)}).scalars())


def visible_names(
    conn: Connection, names: Iterable[tuple[str, str]], visible_to: VisibleTo
) -> set[tuple[str, str]]:
    """Those of the (namespace, name) pairs naming a dataset the caller may see."""
    wanted = set(names)
    if visible_to is None or not wanted:
        return wanted
    d, n = s.datasets, s.namespaces
    query = (
        sa.select(n.c.name, d.c.name)
        .join(n, n.c.id == d.c.namespace_id)
        .where(
            n.c.name.in_(sorted({ns for ns, _ in wanted})),
            d.c.name.in_(sorted({name for _, name in wanted})),
            d.c.id.in_(visible_dataset_ids(visible_to)),
        )
    )
    return {(ns, name) for ns, name in conn.execute(query).all()} & wanted


def blank(doc: dict[str, Any]) -> None:
    """Leave out what may not be read of a dataset (or version) document, in place."""
    for key, value in _BLANK.items():
        if key in doc:
            doc[key] = value.copy() if isinstance(value, list | dict) else value
    if "sourceName" in doc:
        doc["sourceName"] = doc["namespace"]
    if "physicalName" in doc:
        doc["physicalName"] = doc["name"]


def _named(input_field: Any) -> tuple[str, str] | None:
    if isinstance(input_field, Mapping):
        return str(input_field.get("namespace", "")), str(input_field.get("name", ""))
    return None


def _lineage_inputs(facet: Mapping[str, Any]) -> list[Any]:
    found: list[Any] = list(facet.get("dataset") or []) if isinstance(facet, Mapping) else []
    fields = facet.get("fields") if isinstance(facet, Mapping) else None
    for output in (fields or {}).values() if isinstance(fields, Mapping) else []:
        if isinstance(output, Mapping) and isinstance(output.get("inputFields"), list):
            found += output["inputFields"]
    return found


def screen_facets(conn: Connection, docs: Iterable[dict[str, Any]], visible_to: VisibleTo) -> None:
    """Drop, in place, the inputs each document's ``columnLineage`` facet names that the caller
    may not see (and the outputs left without inputs)."""
    if visible_to is None:
        return
    lineages = [
        (doc, facet)
        for doc in docs
        if isinstance(doc.get("facets"), dict)
        and isinstance(facet := doc["facets"].get("columnLineage"), Mapping)
    ]
    named = {n for _, facet in lineages for i in _lineage_inputs(facet) if (n := _named(i))}
    if not named:
        return
    seen = visible_names(conn, named, visible_to)
    for doc, facet in lineages:
        doc["facets"] = {**doc["facets"], "columnLineage": _kept(facet, seen)}


def _kept(facet: Mapping[str, Any], seen: set[tuple[str, str]]) -> dict[str, Any]:
    def keep(items: Any) -> list[Any]:
        return [i for i in items or [] if _named(i) in seen]

    kept = dict(facet)
    if "dataset" in kept:
        kept["dataset"] = keep(kept["dataset"])
    fields = kept.get("fields")
    if isinstance(fields, Mapping):
        out: dict[str, Any] = {}
        for name, output in fields.items():
            inputs = keep(output.get("inputFields")) if isinstance(output, Mapping) else []
            if inputs:
                out[name] = {**output, "inputFields": inputs}
        kept["fields"] = out
    return kept


def visible_node_ids(conn: Connection, ids: Iterable[str], visible_to: VisibleTo) -> set[str]:
    """Those of the node ids (``job:``, ``dataset:``, ``datasetField:``; no version) the caller
    may see: jobs of its namespaces, datasets (and their fields) it may see."""
    wanted = set(ids)
    if visible_to is None:
        return wanted
    split: dict[str, tuple[str, str]] = {}  # id -> (kind, the rest)
    candidates: set[str] = set()
    for text in wanted:
        kind, sep, rest = text.partition(":")
        if sep and kind in ("job", "dataset", "datasetField"):
            split[text] = (kind, rest)
            candidates.update(rest[:i] for i, char in enumerate(rest) if char == ":" and i > 0)
    known = set(
        conn.execute(
            sa.select(s.namespaces.c.name).where(s.namespaces.c.name.in_(sorted(candidates)))
        ).scalars()
    )
    jobs: set[str] = set()
    datasets: dict[str, tuple[str, str]] = {}
    for text, (kind, rest) in split.items():
        matching = [c for c in known if rest.startswith(c + ":")]
        if not matching:
            continue
        namespace = max(matching, key=len)
        name = rest[len(namespace) + 1 :]
        if kind == "job":
            if namespace in visible_to:
                jobs.add(text)
            continue
        if kind == "datasetField":
            name = name.rpartition(":")[0]
        datasets[text] = (namespace, name)
    seen = visible_names(conn, datasets.values(), visible_to)
    return jobs | {text for text, pair in datasets.items() if pair in seen}


def existing_fields(
    conn: Connection, refs: Iterable[tuple[str, str, str]]
) -> set[tuple[str, str, str]]:
    """Those of the (namespace, dataset, field) triples naming a field the store holds."""
    wanted = set(refs)
    if not wanted:
        return set()
    d, n, f = s.datasets, s.namespaces, s.dataset_fields
    query = (
        sa.select(n.c.name, d.c.name, f.c.name)
        .join(d, d.c.id == f.c.dataset_id)
        .join(n, n.c.id == d.c.namespace_id)
        .where(
            n.c.name.in_(sorted({r[0] for r in wanted})),
            d.c.name.in_(sorted({r[1] for r in wanted})),
            f.c.name.in_(sorted({r[2] for r in wanted})),
        )
    )
    return {(ns, name, field) for ns, name, field in conn.execute(query).all()} & wanted
