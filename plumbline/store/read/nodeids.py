"""Marquez node ids: ``dataset:NS:NAME``, ``job:NS:NAME``, ``datasetField:NS:NAME:FIELD``, each
optionally followed by ``#VERSION``.

Namespaces often contain ``:`` themselves (``postgres://host:5432``), so the split between namespace and
name cannot be read off the text alone: :func:`resolve_node_id` picks the longest prefix that names an
existing namespace.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError

KINDS = {"dataset": "DATASET", "job": "JOB", "datasetField": "DATASET_FIELD"}


@dataclass(frozen=True)
class NodeId:
    """A parsed node id; ``kind`` is ``DATASET``, ``JOB`` or ``DATASET_FIELD``."""

    kind: str
    namespace: str
    name: str
    field: str | None = None
    version: str | None = None

    def __str__(self) -> str:
        return format_node_id(self.kind, self.namespace, self.name, self.field, self.version)


def format_node_id(
    kind: str, namespace: str, name: str, field: str | None = None, version: str | None = None
) -> str:
    """The node id text of a dataset, job or dataset field."""
    prefix = {"DATASET": "dataset", "JOB": "job", "DATASET_FIELD": "datasetField"}[kind]
    text = f"{prefix}:{namespace}:{name}"
    if field is not None:
        text += f":{field}"
    if version:
        text += f"#{version}"
    return text


def dataset_node(namespace: str, name: str) -> str:
    return f"dataset:{namespace}:{name}"


def job_node(namespace: str, name: str) -> str:
    return f"job:{namespace}:{name}"


def field_node(namespace: str, name: str, field: str) -> str:
    return f"datasetField:{namespace}:{name}:{field}"


def _split(text: str) -> tuple[str, str, str | None]:
    prefix, sep, rest = text.partition(":")
    if not sep or prefix not in KINDS or not rest:
        raise InvalidArgumentError(
            f"invalid nodeId {text!r}: expected dataset:NS:NAME, job:NS:NAME or "
            "datasetField:NS:NAME:FIELD"
        )
    version = None
    if "#" in rest:
        rest, _, version = rest.rpartition("#")
        version = version or None
    return KINDS[prefix], rest, version


def resolve_node_id(conn: Connection, text: str) -> NodeId:
    """Parse ``text``, choosing the namespace among the stored ones (the longest that fits)."""
    kind, rest, version = _split(text)
    candidates = [rest[:i] for i, char in enumerate(rest) if char == ":" and i > 0]
    if not candidates:
        raise InvalidArgumentError(f"invalid nodeId {text!r}: no name after the namespace")
    known = set(
        conn.execute(
            sa.select(s.namespaces.c.name).where(s.namespaces.c.name.in_(candidates))
        ).scalars()
    )
    matching = [c for c in candidates if c in known]
    if not matching:
        raise NotFoundError(f"no namespace of nodeId {text!r} exists")
    namespace = max(matching, key=len)
    name = rest[len(namespace) + 1 :]
    field = None
    if kind == "DATASET_FIELD":
        name, sep, field = name.rpartition(":")
        if not sep or not name or not field:
            raise InvalidArgumentError(
                f"invalid nodeId {text!r}: expected datasetField:NS:NAME:FIELD"
            )
    if not name:
        raise InvalidArgumentError(f"invalid nodeId {text!r}: empty name")
    return NodeId(kind=kind, namespace=namespace, name=name, field=field, version=version)
