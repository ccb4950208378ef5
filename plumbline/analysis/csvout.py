"""CSV renderings of the analyses (a header row, then one row per node or step)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from plumbline.analysis.model import ImpactResult
from plumbline.analysis.rerun_model import RerunPlan

IMPACT_COLUMNS = (
    "distance",
    "type",
    "id",
    "namespace",
    "name",
    "field",
    "lastRunId",
    "lastRunState",
    "lastRunEndedAt",
    "lastVersion",
    "lastVersionCreatedAt",
    "indirectOnly",
    "path",
)


def to_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """``rows`` under ``header`` as CSV text (``None`` as an empty cell)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    return out.getvalue()


def impact_csv(result: ImpactResult) -> str:
    """One row per listed node, nearest first; ``path`` joined with `` > `` (``(hidden)`` for a
    node the caller may not read)."""
    rows = []
    for node in result.nodes:
        doc = node.to_json()
        run = doc.get("lastRun") or {}
        version = doc.get("lastVersion") or {}
        indirect = doc.get("indirectOnly")
        rows.append(
            (
                node.distance,
                node.type,
                node.id,
                node.namespace,
                node.name,
                node.field,
                run.get("id"),
                run.get("state"),
                run.get("endedAt"),
                version.get("version"),
                version.get("createdAt"),
                None if indirect is None else str(indirect).lower(),
                " > ".join(p or "(hidden)" for p in node.path),
            )
        )
    return to_csv(IMPACT_COLUMNS, rows)


RERUN_COLUMNS = (
    "order",
    "namespace",
    "job",
    "parentNamespace",
    "parentJob",
    "after",
    "runs",
    "runIds",
    "affectedReads",
)


def rerun_csv(plan: RerunPlan) -> str:
    """One row per step, in order: the job, its parent job, the steps it waits for, the runs to
    redo (space-separated ids) and the affected versions they read (``NS:NAME#VERSION``)."""
    rows = []
    for step in plan.steps:
        reads = sorted(
            {
                f"{r.namespace}:{r.name}#{r.version}"
                for run in step.runs
                for r in run.reads
                if r.affected
            }
        )
        rows.append(
            (
                step.order,
                step.job.namespace,
                step.job.name,
                step.parent_job.namespace if step.parent_job else None,
                step.parent_job.name if step.parent_job else None,
                " ".join(str(a) for a in step.after),
                len(step.runs),
                " ".join(run.id for run in step.runs),
                " ".join(reads),
            )
        )
    return to_csv(RERUN_COLUMNS, rows)
