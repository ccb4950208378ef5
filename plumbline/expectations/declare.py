"""Declared edges as lineage (issue 31 §2): an expectations file's ``declare`` section becomes
OpenLineage JobEvents (no run: nothing is versioned or counted as run) whose producer is
plumbline's expectations, so the store keeps them with edge source ``declared`` and completeness
``inferred`` (reason ``declared``). A declared edge never hides how an observed one is known: the
store keeps an observed edge's source (``plumbline.store.write.confidence``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from plumbline import __version__
from plumbline.expectations.rules import DeclaredEdge, Expectations, JobRef

PRODUCER = f"https://github.com/plumbline/plumbline/tree/{__version__}/plumbline/expectations"
JOB_EVENT_SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent"
COLUMN_LINEAGE_SCHEMA_URL = (
    "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
    "#/$defs/ColumnLineageDatasetFacet"
)


def _job(edge: DeclaredEdge) -> JobRef:
    """The declared job, else one named after the target: ``declared.<dataset>``."""
    return edge.job or JobRef(edge.target.namespace, f"declared.{edge.target.dataset}")


def declared_events(
    expectations: Expectations, now: datetime | None = None
) -> list[dict[str, Any]]:
    """One JobEvent per job of the declared edges: its inputs, its outputs and their column
    lineage (a column edge's transformation as declared, DIRECT IDENTITY when none is)."""
    when = (now or datetime.now(UTC)).isoformat().replace("+00:00", "Z")
    jobs: dict[tuple[str, str], dict[str, Any]] = {}
    for edge in expectations.declare:
        job = _job(edge)
        event = jobs.setdefault(
            (job.namespace, job.name),
            {
                "eventTime": when,
                "producer": PRODUCER,
                "schemaURL": JOB_EVENT_SCHEMA_URL,
                "job": {"namespace": job.namespace, "name": job.name},
                "inputs": [],
                "outputs": [],
            },
        )
        source = {"namespace": edge.source.namespace, "name": edge.source.dataset}
        if source not in event["inputs"]:
            event["inputs"].append(source)
        key = (edge.target.namespace, edge.target.dataset)
        output = next((o for o in event["outputs"] if (o["namespace"], o["name"]) == key), None)
        if output is None:
            output = {"namespace": key[0], "name": key[1]}
            event["outputs"].append(output)
        if edge.source.column and edge.target.column:
            facets = output.setdefault("facets", {})
            lineage = facets.setdefault(
                "columnLineage",
                {"_producer": PRODUCER, "_schemaURL": COLUMN_LINEAGE_SCHEMA_URL, "fields": {}},
            )
            kind = edge.transformation
            transformation = {
                "type": kind.type if kind else "DIRECT",
                "subtype": (kind.subtype or "") if kind else "IDENTITY",
            }
            field = lineage["fields"].setdefault(edge.target.column, {"inputFields": []})
            field["inputFields"].append(
                {**source, "field": edge.source.column, "transformations": [transformation]}
            )
    return list(jobs.values())
