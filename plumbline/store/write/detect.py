"""Change alerts found as events are normalized (issue 19), at the end of a write, in its
transaction: schema drift from the schemas the write replaced; new and stopped edges, volume and
duration anomalies and failures after successes from the runs the write ended, against each job's
recent history (:mod:`.run_history`: from the writer's cache, else one statement for all the
write's jobs). A write that ends no run and changes no
schema runs no statement here.

Alerts are stored once (:mod:`.alerts`); their blast radius is attached after the write commits
(:mod:`plumbline.analysis.health`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage import deviations
from plumbline.openlineage.schema_diff import diff_schemas
from plumbline.store.read.nodeids import dataset_node, field_node, job_node
from plumbline.store.schema import (
    column_lineage_edges,
    dataset_fields,
    datasets,
    job_dataset_edges,
    jobs,
    namespaces,
    schema_versions,
)
from plumbline.store.write import run_history
from plumbline.store.write.alert_rules import AlertRules
from plumbline.store.write.alerts import NewAlert, insert_alerts
from plumbline.store.write.cache import EndedRun
from plumbline.store.write.context import Batch

MAD_SCALE = 1.4826  # MAD to a standard deviation, for normal data


def detect(connection: Connection, batch: Batch, rules: AlertRules) -> list[int]:
    """Find and store the alerts this write causes; the ids of the new ones."""
    if not rules.enabled:
        return []
    detected = {batch.run_state[run_id].job_id for run_id in batch.ended_runs}
    run_history.carry(batch, detected)
    if not (batch.ended_runs or batch.schema_changes):
        return []
    found: list[NewAlert] = []
    if batch.schema_changes:
        found.extend(_schema_drift(connection, batch))
    if batch.ended_runs:
        found.extend(_run_alerts(connection, batch, rules))
        found.extend(_observed_deviations(batch))
    return insert_alerts(connection, found, batch.now)


# ---------------------------------------------------------------- designed vs observed


def _observed_deviations(batch: Batch) -> list[NewAlert]:
    """One ``observed-deviation`` alert per deviation a run's end states in the
    ``plumbline_observedDeviations`` run facet (issue 31 §3): its subject is the dataset (the
    field of an ``allNullColumn``); re-sent events find it stored already."""
    found: list[NewAlert] = []
    for parsed in batch.run_events():
        run = parsed.raw.get("run")
        items = deviations.run_deviations(run.get("facets") if isinstance(run, dict) else None)
        if not items:
            continue
        job_key = batch.job_key(parsed)
        for item in items:
            namespace, name, field = item["namespace"], item["name"], item.get("field")
            subject = field_node(namespace, name, field) if field else dataset_node(namespace, name)
            details = {"deviation": item["kind"], "detail": item["detail"]}
            if job_key is not None:
                details["job"] = job_node(*job_key)
            found.append(
                NewAlert(
                    deviations.ALERT_KIND,
                    namespace,
                    subject,
                    f"{parsed.run_id}:{item['kind']}",
                    parsed.run_id,
                    details,
                )
            )
    return found


# ---------------------------------------------------------------- schema drift


def _schema_drift(connection: Connection, batch: Batch) -> list[NewAlert]:
    ids = {sv for _, old, new, _ in batch.schema_changes for sv in (old, new)}
    stored = {
        row.id: (row.fingerprint, row.fields)
        for row in connection.execute(
            sa.select(
                schema_versions.c.id, schema_versions.c.fingerprint, schema_versions.c.fields
            ).where(schema_versions.c.id.in_(sorted(ids)))
        )
    }
    found: list[NewAlert] = []
    for dataset_id, old, new, run_uuid in batch.schema_changes:
        diff = diff_schemas(stored[old][1], stored[new][1])
        if diff.same:
            continue  # the same fields (descriptions, order or a type's spelling changed)
        added, removed = sorted(diff.added), sorted(diff.removed)
        retyped = sorted(diff.retyped, key=lambda r: r.name)
        namespace, name = batch.dataset_state[dataset_id].key
        found.append(
            NewAlert(
                kind="schema-drift",
                namespace=namespace,
                subject=dataset_node(namespace, name),
                occurrence=f"{stored[old][0]}>{stored[new][0]}:{run_uuid or ''}",
                run_uuid=run_uuid,
                details={
                    "added": [{"name": n, "type": t} for n, t in added],
                    "removed": [{"name": n, "type": t} for n, t in removed],
                    "retyped": [
                        {"name": r.name, "before": r.before, "after": r.after} for r in retyped
                    ],
                    "affectedColumns": _derived_columns(
                        connection, dataset_id, [n for n, _ in removed] + [r.name for r in retyped]
                    ),
                },
            )
        )
    return found


def _derived_columns(
    connection: Connection, dataset_id: int, names: list[str]
) -> list[dict[str, str]]:
    """The downstream columns that derive (column lineage, one hop) from these fields."""
    if not names:
        return []
    source = dataset_fields.alias("source")
    target = dataset_fields.alias("target")
    rows = connection.execute(
        sa.select(
            source.c.name.label("from_field"),
            namespaces.c.name.label("ns"),
            datasets.c.name.label("dataset"),
            target.c.name.label("field"),
        )
        .select_from(column_lineage_edges)
        .join(source, source.c.id == column_lineage_edges.c.input_field_id)
        .join(target, target.c.id == column_lineage_edges.c.output_field_id)
        .join(datasets, datasets.c.id == target.c.dataset_id)
        .join(namespaces, namespaces.c.id == datasets.c.namespace_id)
        .where(source.c.dataset_id == dataset_id, source.c.name.in_(names))
        .distinct()
        .order_by("ns", "dataset", "field", "from_field")
        .limit(1000)
    )
    return [
        {"from": row.from_field, "nodeId": field_node(row.ns, row.dataset, row.field)}
        for row in rows
    ]


# ---------------------------------------------------------------- run alerts


def _run_alerts(connection: Connection, batch: Batch, rules: AlertRules) -> list[NewAlert]:
    ended = [batch.run_state[run_id] for run_id in sorted(batch.ended_runs)]
    per_job: dict[int, int] = {}
    for state in ended:
        per_job[state.job_id] = per_job.get(state.job_id, 0) + 1
    depth = {job: rules.history_runs + count for job, count in per_job.items()}
    history = run_history.histories(connection, batch, depth, rules.history_runs)
    job_names = _job_names(connection, batch, set(per_job))
    found: list[NewAlert] = []
    edge_candidates: list[tuple[EndedRun, int, str]] = []
    # newest first, no two runs of a job in the same place: what is before a run is after it
    positions = {job: {r.id: i for i, r in enumerate(runs)} for job, runs in history.items()}
    for state in ended:
        at = positions.get(state.job_id, {}).get(state.id)
        if at is None:
            continue  # not ended after all (a late event of another state won)
        runs_of_job = history[state.job_id]
        run, before = runs_of_job[at], runs_of_job[at + 1 : at + 1 + rules.history_runs]
        job_ns, job_name = job_names[state.job_id]
        context = _Context(run, before, job_ns, job_node(job_ns, job_name), rules)
        found.extend(context.failure_after_success())
        found.extend(context.duration_anomaly())
        found.extend(context.volume_anomalies())
        found.extend(context.stopped_edges())
        edge_candidates.extend((run, d, direction) for d, direction in context.unseen_edges())
    found.extend(_new_edges(connection, batch, edge_candidates, job_names))
    names = _dataset_names(
        connection, {a.details["_dataset"] for a in found if "_dataset" in a.details}
    )
    return [_named(alert, names) for alert in found]


@dataclass
class _Context:
    run: EndedRun
    before: list[EndedRun]  # the job's ended runs before it, newest first
    namespace: str
    job: str  # the job's node id
    rules: AlertRules

    def _alert(
        self, kind: str, occurrence: str, details: dict[str, Any], subject: str | None = None
    ) -> NewAlert:
        return NewAlert(
            kind, self.namespace, subject or self.job, occurrence, self.run.uuid, details
        )

    def failure_after_success(self) -> list[NewAlert]:
        if self.run.state != "FAIL":
            return []
        successes = 0
        for earlier in self.before:
            if earlier.state != "COMPLETE":
                break
            successes += 1
        if successes < self.rules.failure_after_successes:
            return []
        details = {
            "successes": successes,
            "previousRunId": self.before[0].uuid,
            "error": (self.run.error or "")[:1000] or None,
        }
        return [self._alert("failure-after-success", self.run.uuid, details)]

    @cached_property
    def _complete_before(self) -> list[EndedRun]:
        return [r for r in self.before if r.state == "COMPLETE"]

    def duration_anomaly(self) -> list[NewAlert]:
        seconds = self.run.seconds
        if self.run.state != "COMPLETE" or seconds is None:
            return []
        past = [s for r in self._complete_before if (s := r.seconds) is not None]
        verdict = _outside(seconds, past, self.rules, floor=1.0)
        if verdict is None:
            return []
        return [self._alert("duration-anomaly", self.run.uuid, {"seconds": seconds, **verdict})]

    def volume_anomalies(self) -> list[NewAlert]:
        if self.run.state != "COMPLETE":
            return []
        found = []
        for dataset_id, count in sorted(self.run.rows.items()):
            past = [r.rows[dataset_id] for r in self._complete_before if dataset_id in r.rows]
            verdict = _outside(float(count), [float(p) for p in past], self.rules, floor=1.0)
            if verdict is not None:
                details = {"rows": count, **verdict, "_dataset": dataset_id}
                found.append(
                    self._alert("volume-anomaly", f"{self.run.uuid}:{dataset_id}", details)
                )
        return found

    def stopped_edges(self) -> list[NewAlert]:
        """Inputs read by the N+1-th last COMPLETE run and every run before it (at least N), read
        by none of the last N (this run among them): they fire once, at the N-th run without."""
        n = self.rules.stopped_after_runs
        if self.run.state != "COMPLETE":
            return []
        complete = [self.run, *self._complete_before]
        if len(complete) < 2 * n:
            return []
        recent, last_reader, older = complete[:n], complete[n], complete[n:]
        found = []
        for dataset_id, direction in sorted(last_reader.io):
            if direction != "input":
                continue
            if any((dataset_id, "input") in r.io for r in recent):
                continue
            streak = 0
            for r in older:
                if (dataset_id, "input") not in r.io:
                    break
                streak += 1
            if streak < n:
                continue
            details = {
                "direction": "input",
                "runsWithout": n,
                "lastReadBy": last_reader.uuid,
                "_dataset": dataset_id,
            }
            found.append(self._alert("stopped-edge", f"{dataset_id}:{last_reader.uuid}", details))
        return found

    def unseen_edges(self) -> list[tuple[int, str]]:
        """What this run read or wrote that none of the job's recent runs did (candidates for a
        new edge: the job had runs before, none of which touched it lately)."""
        if not self.before:
            return []
        seen = set().union(*(r.io for r in self.before))
        return sorted(self.run.io - seen)


def _outside(
    value: float, past: list[float], rules: AlertRules, floor: float
) -> dict[str, Any] | None:
    """Robust statistics: ``value`` against median +- k * spread; None when inside, or with too
    little history to speak."""
    if len(past) < rules.min_history:
        return None
    median = statistics.median(past)
    mad = statistics.median([abs(p - median) for p in past])
    spread = max(MAD_SCALE * mad, rules.rel_floor * abs(median), floor)
    low, high = median - rules.mad_factor * spread, median + rules.mad_factor * spread
    if low <= value <= high:
        return None
    return {"median": median, "mad": mad, "lower": low, "upper": high, "history": len(past)}


def _new_edges(
    connection: Connection,
    batch: Batch,
    candidates: list[tuple[EndedRun, int, str]],
    job_names: dict[int, tuple[str, str]],
) -> list[NewAlert]:
    """Candidates whose job<->dataset edge has no run but the candidates: never touched before."""
    if not candidates:
        return []
    keys = sorted({(run.job_id, d, direction) for run, d, direction in candidates})
    counts = {
        (row.job_id, row.dataset_id, row.direction): row.run_count
        for row in connection.execute(
            sa.select(
                job_dataset_edges.c.job_id,
                job_dataset_edges.c.dataset_id,
                job_dataset_edges.c.direction,
                job_dataset_edges.c.run_count,
            ).where(
                sa.tuple_(
                    job_dataset_edges.c.job_id,
                    job_dataset_edges.c.dataset_id,
                    job_dataset_edges.c.direction,
                ).in_(keys)
            )
        )
    }
    # each run is counted once in an edge's run_count, whichever write added it (a START in an
    # earlier write, say): more runs than the candidates themselves means older runs touched it
    candidate_runs: dict[tuple[int, int, str], set[int]] = {}
    for run, dataset_id, direction in candidates:
        candidate_runs.setdefault((run.job_id, dataset_id, direction), set()).add(run.id)
    found = []
    for run, dataset_id, direction in candidates:
        key = (run.job_id, dataset_id, direction)
        if counts.get(key, 0) > len(candidate_runs[key]):
            continue  # other runs of the job touched it
        ns, name = job_names[run.job_id]
        details = {"direction": direction, "_dataset": dataset_id}
        found.append(
            NewAlert(
                "new-edge", ns, job_node(ns, name), f"{dataset_id}:{direction}", run.uuid, details
            )
        )
    return found


def _job_names(connection: Connection, batch: Batch, ids: set[int]) -> dict[int, tuple[str, str]]:
    names = {job_id: key for key, job_id in batch.job_ids.items() if job_id in ids}
    missing = sorted(ids - names.keys())
    if missing:
        rows = connection.execute(
            sa.select(jobs.c.id, namespaces.c.name.label("ns"), jobs.c.name)
            .join(namespaces, namespaces.c.id == jobs.c.namespace_id)
            .where(jobs.c.id.in_(missing))
        )
        names.update({row.id: (row.ns, row.name) for row in rows})
    return names


def _dataset_names(connection: Connection, ids: set[int]) -> dict[int, tuple[str, str]]:
    if not ids:
        return {}
    rows = connection.execute(
        sa.select(datasets.c.id, namespaces.c.name.label("ns"), datasets.c.name)
        .join(namespaces, namespaces.c.id == datasets.c.namespace_id)
        .where(datasets.c.id.in_(sorted(ids)))
    )
    return {row.id: (row.ns, row.name) for row in rows}


def _named(alert: NewAlert, names: dict[int, tuple[str, str]]) -> NewAlert:
    """An alert about a dataset names it: a volume anomaly is the dataset's (its namespace and
    node id are the alert's), an edge's alert keeps the job as subject and names the dataset."""
    details = dict(alert.details)
    dataset_id = details.pop("_dataset", None)
    if dataset_id is None or dataset_id not in names:
        return alert
    ns, name = names[dataset_id]
    details["dataset"] = dataset_node(ns, name)
    if alert.kind == "volume-anomaly":
        details["job"] = alert.subject
        return replace(alert, namespace=ns, subject=dataset_node(ns, name), details=details)
    return replace(alert, details=details)
