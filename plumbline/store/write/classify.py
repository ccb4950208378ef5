"""Classifications that follow column lineage (issue 32 §1): declared tags spread downstream.

A column is *declared* with a tag by a field tag (the Marquez routes, the CLI, the UI, a
producer's ``tags`` dataset facet: ``dataset_field_tags``) or by a config rule
(:class:`~plumbline.store.write.classification_rules.ColumnRule`); the tag then *propagates*
along column edges that carry it (DIRECT, not masking; INDIRECT subtypes the config names),
through every hop, breadth first, and stops at a column declassified for that tag
(``field_declassifications``). ``column_classifications`` holds the result, one row per
(column, tag) with its origin column and the link it came by (the previous column and that
edge's transformation): following the links gives the path.

Kept up to date incrementally: new edges spread the tags their input columns carry
(:func:`edges_added`), a new declaration spreads from its column (:func:`declare`); a removal
(untag, declassification, edges gone) recomputes the tags concerned (:func:`recompute`). The
incremental result holds the same (column, tag, origin) rows as a full recompute; a path may
differ from the full recompute's shortest one, but is always a path of propagating edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.gcpause import gc_paused
from plumbline.store.write.classification_rules import ClassificationRules, rules_of
from plumbline.store.write.context import Batch
from plumbline.store.write.upsert import select_in

_e, _f, _d, _n = s.column_lineage_edges, s.dataset_fields, s.datasets, s.namespaces
_cc, _dc = s.column_classifications, s.field_declassifications

# the edges leaving some input fields
_EDGES_OUT = sa.select(
    _e.c.input_field_id,
    _e.c.output_field_id,
    _e.c.transformation_type,
    _e.c.transformation_subtype,
    _e.c.masking,
)
_ROWS = sa.select(_cc)  # filtered by column (select_in), then by tag here: one statement to compile
_FIELD_NAMES = (
    sa.select(_f.c.id, _n.c.name.label("namespace"), _d.c.name.label("dataset"), _f.c.name)
    .select_from(_f)
    .join(_d, _d.c.id == _f.c.dataset_id)
    .join(_n, _n.c.id == _d.c.namespace_id)
)


@dataclass(frozen=True)
class Mark:
    """A tag on a column: its value, who declared it at the origin, the origin column, and the
    link it came by (the previous column, that edge's type and subtype; none when declared)."""

    value: str
    declared_by: str  # 'tag' | 'rule'
    origin: int
    via: int | None = None
    via_type: str = ""
    via_subtype: str = ""
    hops: int = 0


def _blocked(connection: Connection, tag_id: int) -> set[int]:
    """Columns declassified for the tag."""
    rows = connection.execute(sa.select(_dc.c.field_id).where(_dc.c.tag_id == tag_id))
    return {r.field_id for r in rows}


def _carrying(connection: Connection, tag_id: int, field_ids: Iterable[int]) -> set[int]:
    """Which of ``field_ids`` carry the tag already."""
    return {r.field_id for r in _rows(connection, field_ids) if r.tag_id == tag_id}


def _rows(connection: Connection, field_ids: Iterable[int]) -> list[Any]:
    """The classifications of these columns, every tag."""
    return select_in(connection, _ROWS, [_cc.c.field_id], sorted(set(field_ids)))


def _spread(
    connection: Connection,
    rules: ClassificationRules,
    tag_id: int,
    start: dict[int, Mark],
    blocked: set[int],
    *,
    fresh: bool = False,
) -> dict[int, Mark]:
    """The columns the tag reaches from ``start`` that do not carry it yet (breadth first, one
    query per hop; ties go to the lowest output, then input id). ``fresh``: only ``start``
    carries the tag (a full recompute), so the store need not be asked which others do."""
    found: dict[int, Mark] = {}
    frontier = start
    with gc_paused():  # many small objects, no cycles: the collector's scans would find nothing
        while frontier:
            frontier = _step(connection, rules, tag_id, start, blocked, found, frontier, fresh)
    return found


def _step(
    connection: Connection,
    rules: ClassificationRules,
    tag_id: int,
    start: dict[int, Mark],
    blocked: set[int],
    found: dict[int, Mark],
    frontier: dict[int, Mark],
    fresh: bool,
) -> dict[int, Mark]:
    """One hop of :func:`_spread`: the columns newly reached from ``frontier``."""
    rows = select_in(connection, _EDGES_OUT, [_e.c.input_field_id], sorted(frontier))
    rows.sort(
        key=lambda r: (
            r.output_field_id,
            r.input_field_id,
            r.transformation_type,
            r.transformation_subtype,
        )
    )
    candidates = {
        r.output_field_id
        for r in rows
        if rules.propagates(r.transformation_type, r.transformation_subtype, r.masking)
    }
    unknown = candidates - found.keys() - blocked - start.keys()
    taken = set() if fresh else _carrying(connection, tag_id, sorted(unknown))
    reached: dict[int, Mark] = {}
    for r in rows:
        out = r.output_field_id
        if (
            out not in candidates
            or out in blocked
            or out in taken
            or out in found
            or out in reached
            or out in start
            or not rules.propagates(r.transformation_type, r.transformation_subtype, r.masking)
        ):
            continue
        source = frontier[r.input_field_id]
        reached[out] = Mark(
            source.value,
            source.declared_by,
            source.origin,
            r.input_field_id,
            r.transformation_type,
            r.transformation_subtype,
            source.hops + 1,
        )
    found.update(reached)
    return reached


def _write(connection: Connection, tag_id: int, marks: dict[int, Mark], origin: str) -> None:
    if not marks:
        return
    now = datetime.now(UTC)
    with gc_paused():
        rows = [
            {
                "field_id": field_id,
                "tag_id": tag_id,
                "tag_value": mark.value,
                "origin": origin,
                "declared_by": mark.declared_by,
                "origin_field_id": mark.origin,
                "via_field_id": mark.via,
                "via_type": mark.via_type,
                "via_subtype": mark.via_subtype,
                "hops": mark.hops,
                "updated_at": now,
            }
            for field_id, mark in sorted(marks.items())
        ]
        connection.execute(sa.insert(_cc), rows)


def tag_ids(connection: Connection, names: Iterable[str]) -> dict[str, int]:
    """Ids of the tags named, creating those not defined yet."""
    t = s.tags
    wanted = sorted(set(names))
    if not wanted:
        return {}
    rows = connection.execute(sa.select(t.c.name, t.c.id).where(t.c.name.in_(wanted))).all()
    found = {r.name: r.id for r in rows}
    missing = [name for name in wanted if name not in found]
    if missing:
        now = datetime.now(UTC)
        connection.execute(
            sa.insert(t), [{"name": n, "created_at": now, "updated_at": now} for n in missing]
        )
        rows = connection.execute(sa.select(t.c.name, t.c.id).where(t.c.name.in_(missing))).all()
        found.update({r.name: r.id for r in rows})
    return found


def _rule_matches(
    connection: Connection, rules: ClassificationRules, dataset_ids: Sequence[int] | None
) -> dict[int, dict[int, str]]:
    """tag id -> column -> value of the columns the config rules classify, among
    the columns of ``dataset_ids`` (None: of every dataset)."""
    if not rules.rules:
        return {}
    if dataset_ids is None:
        rows = connection.execute(_FIELD_NAMES).all()
    else:
        rows = select_in(connection, _FIELD_NAMES, [_f.c.dataset_id], sorted(set(dataset_ids)))
    ids = tag_ids(connection, (rule.tag for rule in rules.rules))
    matched: dict[int, dict[int, str]] = {}
    for r in sorted(rows, key=lambda r: r.id):
        for rule in rules.rules:
            if rule.matches(r.namespace, r.name):
                matched.setdefault(ids[rule.tag], {}).setdefault(r.id, rule.value)
    return matched


def _declared(
    connection: Connection, rules: ClassificationRules, tag_id: int, blocked: set[int]
) -> dict[int, Mark]:
    """Every column declared with the tag: field tags first, then the config rules."""
    ft = s.dataset_field_tags
    rows = connection.execute(
        sa.select(ft.c.field_id, ft.c.tag_value).where(ft.c.tag_id == tag_id)
    ).all()
    values = {r.field_id: r.tag_value or "" for r in rows if r.field_id not in blocked}
    marks = {f: Mark(v, "tag", f) for f, v in values.items()}
    for field_id, value in _rule_matches(connection, rules, None).get(tag_id, {}).items():
        if field_id not in blocked and field_id not in marks:
            marks[field_id] = Mark(value, "rule", field_id)
    return marks


def recompute(connection: Connection, tags: Iterable[int] | None = None) -> None:
    """Compute the classifications of ``tags`` (ids; None: every tag) from scratch."""
    rules = rules_of(connection)
    if tags is None:
        ft = s.dataset_field_tags
        found = set(connection.execute(sa.select(ft.c.tag_id).distinct()).scalars())
        found |= set(connection.execute(sa.select(_cc.c.tag_id).distinct()).scalars())
        found |= set(tag_ids(connection, (rule.tag for rule in rules.rules)).values())
        tags = found
    for tag_id in sorted(set(tags)):
        connection.execute(sa.delete(_cc).where(_cc.c.tag_id == tag_id))
        blocked = _blocked(connection, tag_id)
        declared = _declared(connection, rules, tag_id, blocked)
        _write(connection, tag_id, declared, "declared")
        spread = _spread(connection, rules, tag_id, declared, blocked, fresh=True)
        _write(connection, tag_id, spread, "propagated")


def recompute_if_empty(connection: Connection) -> bool:
    """A full recompute when nothing is classified yet but something may be (field tags, config
    rules): a store migrated from before classifications. Whether it ran."""
    if connection.execute(sa.select(_cc.c.field_id).limit(1)).first() is not None:
        return False
    tagged = connection.execute(sa.select(s.dataset_field_tags.c.field_id).limit(1)).first()
    if tagged is None and not rules_of(connection).rules:
        return False
    recompute(connection)
    return True


def declare(connection: Connection, tag_id: int, marks: dict[int, Mark]) -> None:
    """New declarations of a tag (``marks``: column -> its mark): written and spread downstream
    (declaring a column the tag reached already recomputes the tag)."""
    blocked = _blocked(connection, tag_id)
    marks = {f: m for f, m in marks.items() if f not in blocked}
    if not marks:
        return
    held = {r.field_id: r.origin for r in _rows(connection, marks) if r.tag_id == tag_id}
    marks = {f: m for f, m in marks.items() if held.get(f) != "declared"}
    if any(f in held for f in marks):
        # a column the tag reached becomes its origin: what flowed on from it changes origin
        recompute(connection, [tag_id])
        return
    _write(connection, tag_id, marks, "declared")
    rules = rules_of(connection)
    _write(connection, tag_id, _spread(connection, rules, tag_id, marks, blocked), "propagated")


def _marks_of(connection: Connection, tag_id: int, field_ids: Iterable[int]) -> dict[int, Mark]:
    return {
        r.field_id: Mark(
            r.tag_value,
            r.declared_by,
            r.origin_field_id,
            r.via_field_id,
            r.via_type,
            r.via_subtype,
            r.hops,
        )
        for r in _rows(connection, field_ids)
        if r.tag_id == tag_id
    }


def edges_added(connection: Connection, edges: Sequence[dict[str, Any]]) -> None:
    """Spread the tags the input columns of new column edges (``column_lineage_edges`` rows:
    ``input_field_id``, ``output_field_id``…) carry: one query when they carry none."""
    rules = rules_of(connection)
    inputs = sorted(
        {
            e["input_field_id"]
            for e in edges
            if rules.propagates(e["transformation_type"], e["transformation_subtype"], e["masking"])
        }
    )
    if not inputs:
        return
    carried: dict[int, set[int]] = {}
    for r in _rows(connection, inputs):
        carried.setdefault(r.tag_id, set()).add(r.field_id)
    for tag_id, field_ids in sorted(carried.items()):
        start = _marks_of(connection, tag_id, sorted(field_ids))
        blocked = _blocked(connection, tag_id)
        _write(connection, tag_id, _spread(connection, rules, tag_id, start, blocked), "propagated")


def datasets_changed(connection: Connection, dataset_ids: Sequence[int]) -> None:
    """Classify by the config rules the columns of these datasets (new or changed schemas)."""
    rules = rules_of(connection)
    if not rules.rules or not dataset_ids:
        return
    for tag_id, matched in sorted(_rule_matches(connection, rules, dataset_ids).items()):
        marks = {f: Mark(v, "rule", f) for f, v in matched.items()}
        declare(connection, tag_id, marks)


def batch_written(connection: Connection, batch: Batch, edges: Sequence[dict[str, Any]]) -> None:
    """After a write: the config rules classify the columns of the datasets whose schema or
    columns it wrote, and the tags spread along its new column edges."""
    if rules_of(connection).rules:
        changed = {batch.dataset_ids[batch.appearances[i].key] for i in batch.schema_ids}
        changed |= {dataset_id for dataset_id, _ in batch.learned.field_ids}
        datasets_changed(connection, sorted(changed))
    if edges:
        edges_added(connection, edges)


def edges_removed(connection: Connection, input_field_ids: Iterable[int]) -> None:
    """Recompute the tags that column edges leaving these columns may have carried."""
    tags = {r.tag_id for r in _rows(connection, input_field_ids)}
    if tags:
        recompute(connection, tags)


def field_tag_changed(connection: Connection, field_id: int, tag_id: int, added: bool) -> None:
    """A field tag was added (spread it) or removed (recompute the tag)."""
    if added:
        value = connection.execute(
            sa.select(s.dataset_field_tags.c.tag_value).where(
                s.dataset_field_tags.c.field_id == field_id,
                s.dataset_field_tags.c.tag_id == tag_id,
            )
        ).scalar()
        declare(connection, tag_id, {field_id: Mark(value or "", "tag", field_id)})
    else:
        recompute(connection, [tag_id])


def set_declassified(
    connection: Connection,
    field_id: int,
    tag_id: int,
    *,
    by: str,
    reason: str,
    declassified: bool = True,
) -> None:
    """Declassify a column for a tag (who, why), or undo it; the tag is recomputed."""
    where = sa.and_(_dc.c.field_id == field_id, _dc.c.tag_id == tag_id)
    connection.execute(sa.delete(_dc).where(where))
    if declassified:
        connection.execute(
            sa.insert(_dc).values(
                field_id=field_id,
                tag_id=tag_id,
                declassified_by=by,
                reason=reason,
                declassified_at=datetime.now(UTC),
            )
        )
    recompute(connection, [tag_id])
