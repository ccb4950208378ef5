"""Baselines (issue 31 §1): a namespace's lineage per job, saved, and what changed since.

A baseline is JSON: each job of the namespace with the datasets it reads and writes and the column
edges into what it writes (``from`` a column, ``to`` a column or, for a whole-dataset dependency,
the dataset), each edge with its transformations. :func:`diff` lists per job the edges and column
edges added, removed, or changed in type (the same two ends, other transformations): "we moved
from Spark 3.5 to 4.x, did our lineage change?". :func:`starter` writes the starter expectations
file of ``plumbline expect init`` from one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.errors import PlumblineError
from plumbline.expectations.rules import MAX_RULES, Ref
from plumbline.store import VisibleTo
from plumbline.store.read import baseline as q

FORMAT = 1  # the ``plumblineBaseline`` version of the file
Pair = tuple[Ref, Ref]


def _pair_key(pair: Pair) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    return pair[0].key, pair[1].key


class BaselineError(PlumblineError, ValueError):
    """A file that is not a baseline (named, with the reason)."""


@dataclass(frozen=True)
class JobLineage:
    reads: tuple[Ref, ...] = ()
    writes: tuple[Ref, ...] = ()
    columns: Mapping[Pair, tuple[str, ...]] = field(default_factory=dict)  # -> TYPE/SUBTYPE

    def to_json(self) -> dict[str, Any]:
        return {
            "reads": [r.to_json() for r in self.reads],
            "writes": [r.to_json() for r in self.writes],
            "columnEdges": [
                {"from": a.to_json(), "to": b.to_json(), "transformations": list(t)}
                for (a, b), t in sorted(self.columns.items(), key=lambda i: _pair_key(i[0]))
            ],
        }


@dataclass(frozen=True)
class Baseline:
    namespace: str
    taken_at: str
    jobs: Mapping[str, JobLineage]

    def to_json(self) -> dict[str, Any]:
        return {
            "plumblineBaseline": FORMAT,
            "namespace": self.namespace,
            "takenAt": self.taken_at,
            "jobs": {name: job.to_json() for name, job in sorted(self.jobs.items())},
        }


def take(
    conn: Connection,
    namespace: str,
    *,
    since: datetime | None = None,
    now: datetime | None = None,
    visible_to: VisibleTo = None,
) -> Baseline:
    """The lineage of ``namespace``'s jobs as the store holds it now; ``since``: only edges seen
    at or after then (the store keeps every edge it ever saw: an edge a job no longer shows is
    told apart by when it was last seen; column edges are kept to the hour)."""
    reads: dict[str, set[Ref]] = defaultdict(set)
    writes: dict[str, set[Ref]] = defaultdict(set)
    for edge in q.job_dataset_edges(conn, namespace, since):
        listed = reads if edge.direction == "input" else writes
        listed[edge.job].add(Ref(edge.namespace, edge.dataset))
    columns: dict[str, dict[Pair, set[str]]] = defaultdict(lambda: defaultdict(set))
    for c in q.job_column_edges(conn, namespace, since, visible_to):
        source = Ref(c.input_namespace, c.input_dataset, c.input_field)
        target = Ref(c.output_namespace, c.output_dataset, c.output_field)
        kind = f"{c.type}/{c.subtype}" if c.subtype else c.type or "?"
        columns[c.job][(source, target)].add(kind)
    jobs = {
        name: JobLineage(
            tuple(sorted(reads[name], key=lambda r: r.key)),
            tuple(sorted(writes[name], key=lambda r: r.key)),
            {
                pair: tuple(sorted(t))
                for pair, t in sorted(columns[name].items(), key=lambda i: _pair_key(i[0]))
            },
        )
        for name in sorted(set(reads) | set(writes) | set(columns))
    }
    at = (now or datetime.now(UTC)).isoformat().replace("+00:00", "Z")
    return Baseline(namespace, at, jobs)


def _ref(doc: Mapping[str, Any]) -> Ref:
    return Ref(str(doc["namespace"]), str(doc["dataset"]), doc.get("column"))


def from_json(doc: Any, name: str = "baseline") -> Baseline:
    """The baseline a saved document holds; :class:`BaselineError` naming ``name`` otherwise."""
    if not isinstance(doc, Mapping) or doc.get("plumblineBaseline") != FORMAT:
        raise BaselineError(f"{name}: not a plumbline baseline (plumblineBaseline {FORMAT})")
    try:
        jobs = {
            str(job): JobLineage(
                tuple(_ref(r) for r in body["reads"]),
                tuple(_ref(r) for r in body["writes"]),
                {
                    (_ref(e["from"]), _ref(e["to"])): tuple(e["transformations"])
                    for e in body["columnEdges"]
                },
            )
            for job, body in doc["jobs"].items()
        }
        return Baseline(str(doc["namespace"]), str(doc["takenAt"]), jobs)
    except (AttributeError, KeyError, TypeError) as exc:
        raise BaselineError(
            f"{name}: not a plumbline baseline ({type(exc).__name__}: {exc})"
        ) from None


def load(path: str) -> Baseline:
    """The baseline file at ``path``."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError) as exc:
        raise BaselineError(f"{path}: cannot read: {exc}") from None
    return from_json(doc, path)


@dataclass(frozen=True)
class JobChanges:
    """What changed in one job's lineage, as lines: dataset edges (``reads dataset:…``) and column
    edges added or removed, and column edges whose transformations changed."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def to_json(self) -> dict[str, list[str]]:
        return {
            "added": list(self.added),
            "removed": list(self.removed),
            "changed": list(self.changed),
        }


def _edges(job: JobLineage) -> set[str]:
    return {f"reads {d.node_id}" for d in job.reads} | {f"writes {d.node_id}" for d in job.writes}


def _column(pair: Pair) -> str:
    return f"column {pair[0].node_id} -> {pair[1].node_id}"


def diff(before: Baseline, after: Baseline) -> dict[str, JobChanges]:
    """Per job (of either), what changed from ``before`` to ``after``; jobs without change are
    left out."""
    out: dict[str, JobChanges] = {}
    for name in sorted(set(before.jobs) | set(after.jobs)):
        old, new = before.jobs.get(name, JobLineage()), after.jobs.get(name, JobLineage())
        added = sorted(_edges(new) - _edges(old))
        removed = sorted(_edges(old) - _edges(new))
        changed = []
        for pair in sorted(set(old.columns) | set(new.columns), key=_pair_key):
            if pair not in old.columns:
                added.append(f"{_column(pair)} ({', '.join(new.columns[pair])})")
            elif pair not in new.columns:
                removed.append(f"{_column(pair)} ({', '.join(old.columns[pair])})")
            elif old.columns[pair] != new.columns[pair]:
                changed.append(
                    f"{_column(pair)}: {', '.join(old.columns[pair])} -> "
                    f"{', '.join(new.columns[pair])}"
                )
        changes = JobChanges(tuple(added), tuple(removed), tuple(changed))
        if changes:
            out[name] = changes
    return out


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


def _written(ref: Ref, namespace: str) -> str:
    """A reference as the starter file writes it: a bare dataset name in the file's namespace,
    else an inline table."""
    if ref.column is None and ref.namespace == namespace:
        return _toml(ref.dataset)
    parts = [] if ref.namespace == namespace else [f"namespace = {_toml(ref.namespace)}"]
    parts.append(f"dataset = {_toml(ref.dataset)}")
    if ref.column is not None:
        parts.append(f"column = {_toml(ref.column)}")
    return "{ " + ", ".join(parts) + " }"


def _preferred(transformations: tuple[str, ...]) -> str:
    """The transformation a starter rule asks for: the first DIRECT one, else the first."""
    return next((t for t in transformations if t.startswith("DIRECT")), transformations[0])


def starter(baseline: Baseline) -> str:
    """A starter expectations file (TOML) from a baseline: each job's reads and writes, each
    column edge into what the jobs write as a ``reach`` rule with its transformation (whole-dataset
    dependencies left out; at most :data:`MAX_RULES` rules), and commented ``fresh`` and
    ``never_reach`` examples."""
    ns = baseline.namespace
    lines = [
        f"# Expectations of namespace {ns}, from its lineage at {baseline.taken_at}",
        "# (`plumbline expect init`). Keep what must hold, delete the rest; check with",
        '# `plumbline check --expect FILE`. Reference: docs/reference.md, "Expectations and baselines".',
        "",
        f"namespace = {_toml(ns)}",
    ]
    rules = 0
    written: list[Ref] = []
    for name, job in sorted(baseline.jobs.items()):
        if not job.reads and not job.writes:
            continue
        lines += ["", "[[job]]", f"job = {_toml(name)}"]
        for key, refs in (("reads", job.reads), ("writes", job.writes)):
            if refs:
                lines.append(f"{key} = [{', '.join(_written(r, ns) for r in refs)}]")
                rules += len(refs)
        written += [r for r in job.writes if r not in written]
    reach = sorted(
        {
            (pair, _preferred(t))
            for job in baseline.jobs.values()
            for pair, t in job.columns.items()
            if pair[1].column is not None and pair[0] != pair[1]
        },
        key=lambda item: (_pair_key(item[0]), item[1]),
    )
    room = max(MAX_RULES - rules, 0)
    for (source, target), transformation in reach[:room]:
        lines += [
            "",
            "[[reach]]",
            f"from = {_written(source, ns)}",
            f"to = {_written(target, ns)}",
            f"transformation = {_toml(transformation)}",
        ]
    if len(reach) > room:
        lines += [
            "",
            f"# {len(reach) - room} more column edges left out (at most {MAX_RULES} rules)",
        ]
    for ref in written:
        lines += ["", "# [[fresh]]", f"# dataset = {_written(ref, ns)}", '# within = "26h"']
    lines += [
        "",
        "# [[never_reach]]",
        '# from = { dataset = "…", column = "…" }',
        '# namespace = "…"',
        "",
    ]
    return "\n".join(lines)
