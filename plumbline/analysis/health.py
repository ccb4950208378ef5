"""Lineage health (issue 19): alerts' blast radius and run diff, and the coverage report.

The store finds alerts as it normalizes (:mod:`plumbline.store.write.detect`) and by the
freshness check; right after the write that found them commits, :func:`complete_alerts` attaches
what lies downstream of each alert's subject (impact analysis, at detection time) and, for a
failure after successes, the run diff's summary.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.analysis.impact import impact
from plumbline.analysis.run_diff import diff_runs
from plumbline.store import ReadError, VisibleTo
from plumbline.store.read import alerts as alert_reads
from plumbline.store.read import coverage as coverage_reads
from plumbline.store.write import alerts as alert_writes

logger = logging.getLogger(__name__)

BLAST_NODES = 2000  # nodes walked for a blast radius
LISTED = 100  # nodes listed in it (all are counted)


def blast_radius(conn: Connection, subject: str, max_nodes: int = BLAST_NODES) -> dict[str, Any]:
    """What lies downstream of ``subject`` (a node id): datasets and jobs counted and listed
    (nearest first), and whether the walk was cut."""
    try:
        result = impact(conn, subject, direction="downstream", max_nodes=max_nodes)
    except ReadError as exc:  # the subject is gone (pruned, renamed): nothing downstream known
        return {
            "datasets": 0,
            "jobs": 0,
            "fields": 0,
            "nodes": [],
            "truncated": False,
            "error": str(exc),
        }
    reached = [n for n in result.nodes if n.distance > 0]
    return {
        "datasets": sum(1 for n in reached if n.type == "DATASET"),
        "jobs": sum(1 for n in reached if n.type == "JOB"),
        "fields": sum(1 for n in reached if n.type == "DATASET_FIELD"),
        "nodes": [{"id": n.id, "type": n.type, "distance": n.distance} for n in reached[:LISTED]],
        "truncated": result.truncated or len(reached) > LISTED,
        "error": None,
    }


def run_diff_summary(conn: Connection, run_id: str) -> dict[str, Any] | None:
    """The run diff of a failed run against the job's last COMPLETE run, in short."""
    try:
        diff = diff_runs(conn, run_id).to_json()
    except ReadError:
        return None
    return {
        "against": (diff["against"] or {}).get("id"),
        "errorSummary": diff["errorSummary"],
        "inputsAdded": diff["inputsAdded"],
        "inputsRemoved": diff["inputsRemoved"],
        "jobVersionChanged": diff["jobVersionChanged"],
        "changed": [
            {"namespace": io["namespace"], "name": io["name"], "status": io["status"]}
            for io in diff["inputs"] + diff["outputs"]
            if io["status"] != "unchanged"
        ][:20],
        "suspects": diff["suspects"][:5],
    }


def complete_alerts(conn: Connection, ids: list[int]) -> None:
    """Attach each alert's blast radius (and a failure's run diff summary), on ``conn`` (in a
    transaction the caller commits)."""
    for alert in alert_reads.alerts_by_id(conn, ids):
        if alert["blastRadius"] is not None:
            continue
        details = None
        if alert["kind"] == "failure-after-success" and alert["runId"]:
            details = {**alert["details"], "runDiff": run_diff_summary(conn, alert["runId"])}
        alert_writes.set_blast_radius(
            conn, alert["id"], blast_radius(conn, alert["subject"]), details
        )


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


_COUNTS = (
    "unproducedInputs",
    "outputs",
    "outputsWithoutSchema",
    "outputsWithoutColumnLineage",
    "outputFields",
    "outputFieldsWithLineage",
    "jobsWithUnfinishedRuns",
    "unfinishedRuns",
    "failedEventRuns",
    "failedEvents",
)


def _entry(measures: dict[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = {key: measures.get(key, 0) for key in _COUNTS}
    doc["columnLineageShare"] = _share(doc["outputFieldsWithLineage"], doc["outputFields"])
    doc["producers"] = [
        {"producer": uri, "events": n}
        for uri, n in sorted((measures.get("producers") or {}).items(), key=lambda i: (-i[1], i[0]))
    ]
    doc["examples"] = {
        key[1:]: value for key, value in sorted(measures.items()) if key.startswith("_")
    }
    return doc


def coverage_report(
    conn: Connection, since: datetime, namespace: str | None = None, visible_to: VisibleTo = None
) -> dict[str, Any]:
    """Coverage overall and per namespace (one namespace only when ``namespace`` is given)."""
    measures = coverage_reads.coverage(conn, since, visible_to)
    if namespace is not None:
        measures = {ns: m for ns, m in measures.items() if ns == namespace}
    overall: dict[str, Any] = {}
    for per_ns in measures.values():
        for key, value in per_ns.items():
            if key.startswith("_"):
                continue
            if key == "producers":
                merged = overall.setdefault("producers", {})
                for uri, n in value.items():
                    merged[uri] = merged.get(uri, 0) + n
            else:
                overall[key] = overall.get(key, 0) + value
    return {
        "since": since.isoformat().replace("+00:00", "Z"),
        "overall": {k: v for k, v in _entry(overall).items() if k != "examples"},
        "namespaces": [{"namespace": ns, **_entry(m)} for ns, m in sorted(measures.items()) if ns],
    }
