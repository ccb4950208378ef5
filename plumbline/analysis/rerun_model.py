"""The typed result of a rerun plan and its JSON document (a contract: schedulers and the web UI
read these keys, so they only ever grow)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from plumbline.analysis.doc import JsonDoc
from plumbline.analysis.pruned import PrunedRun
from plumbline.store import iso


class VersionUse(NamedTuple):
    """A version a run read or wrote; ``affected``: it derives from the bad version(s)."""

    namespace: str
    name: str
    version: str | None
    affected: bool
    source: str | None = None  # inputs: where the link came from (datasetVersion, catalog, …)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "namespace": self.namespace,
            "name": self.name,
            "version": self.version,
            "affected": self.affected,
        }
        if self.source is not None:
            doc["versionSource"] = self.source
        return doc


class JobRef(NamedTuple):
    namespace: str
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "name": self.name}


# named tuples, with their documents written out: a plan over ten thousand jobs makes ~60,000 of
# these, and a frozen dataclass (or a document built by reflection) costs several times as much


class RunToRedo(NamedTuple):
    """A run that read an affected version: what it read and wrote."""

    id: str
    state: str
    started_at: datetime | None
    ended_at: datetime | None
    parent_run_id: str | None
    parent_job: JobRef | None
    reads: tuple[VersionUse, ...]
    writes: tuple[VersionUse, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "startedAt": iso(self.started_at),
            "endedAt": iso(self.ended_at),
            "parentRunId": self.parent_run_id,
            "parentJob": self.parent_job.to_json() if self.parent_job else None,
            "reads": [v.to_json() for v in self.reads],
            "writes": [v.to_json() for v in self.writes],
        }


class RerunStep(NamedTuple):
    """One job to rerun, after every step it reads from; ``in_cycle``: its jobs read each other,
    so the order among them was chosen by time."""

    order: int
    job: JobRef
    parent_job: JobRef | None
    runs: tuple[RunToRedo, ...]
    after: tuple[int, ...]  # the orders of the steps it reads from
    in_cycle: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "order": self.order,
            "job": self.job.to_json(),
            "parentJob": self.parent_job.to_json() if self.parent_job else None,
            "after": list(self.after),
            "inCycle": self.in_cycle,
            "runs": [r.to_json() for r in self.runs],
        }


@dataclass(frozen=True)
class BadVersion(JsonDoc):
    namespace: str
    name: str
    version: str
    created_at: datetime | None
    run_id: str | None


@dataclass(frozen=True)
class RerunPlan:
    """The runs to redo, by job, in an order that respects what reads what."""

    source: dict[str, Any]  # what was asked: nodeId and since/version, or runId
    bad_versions: tuple[BadVersion, ...]
    steps: tuple[RerunStep, ...]
    affected_versions: int
    hidden_steps: int
    # runs db prune removed that may have read affected data (their reads are no longer stored)
    pruned: tuple[PrunedRun, ...] = ()

    def groups(self) -> list[dict[str, Any]]:
        """Steps by parent job (an Airflow task, a dbt model, a Spark application), in order."""
        out: dict[JobRef | None, list[int]] = {}
        for step in self.steps:
            out.setdefault(step.parent_job, []).append(step.order)
        return [
            {"parentJob": parent.to_json() if parent else None, "steps": orders}
            for parent, orders in out.items()
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "badVersions": [v.to_json() for v in self.bad_versions],
            "steps": [s.to_json() for s in self.steps],
            "groups": self.groups(),
            "affectedVersions": self.affected_versions,
            "hiddenSteps": self.hidden_steps,
            "prunedRuns": [p.to_json() for p in self.pruned],
        }
