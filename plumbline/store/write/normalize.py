"""Normalize a request's events into the store, in one transaction, one table at a time.

Steps run in a fixed table order and touch keys in sorted order, so concurrent PostgreSQL writers
take row locks in the same order (no deadlock cycles); each step writes all its rows at once.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection

from plumbline.openlineage import ParsedEvent
from plumbline.store.write import (
    classify,
    column_lineage,
    column_shapes,
    datasets,
    input_versions,
    jobs,
    runs,
    stream_batches,
    tag_facets,
)
from plumbline.store.write.alert_rules import AlertRules
from plumbline.store.write.cache import CacheUpdate, WriteCache
from plumbline.store.write.conflicts import Conflict
from plumbline.store.write.context import Batch
from plumbline.store.write.detect import detect
from plumbline.store.write.namespaces import ensure_namespaces, ensure_sources, unhide_namespaces
from plumbline.store.write.upsert import pipelined

DEFAULT_RULES = AlertRules()


def normalize(
    connection: Connection,
    events: list[ParsedEvent],
    cache: WriteCache | None = None,
    conflicts: list[Conflict] | None = None,
    rules: AlertRules | None = None,
    alerts: list[int] | None = None,
) -> CacheUpdate:
    """Write what ``events`` (new, valid events) say into the lineage tables.

    ``cache`` is what the writer knows the store holds; the result is what this write teaches
    it, to be learned once the transaction has committed. ``conflicts`` receives the conflicts
    the write resolved by a rule, to report once it has committed; ``alerts`` the ids of the
    change alerts it found (``rules``: :class:`AlertRules` defaults), to complete once committed.
    """
    if not events:
        return CacheUpdate()
    batch = Batch.of(events, cache)
    # read-only lookups first, so that all namespaces are created in one sorted statement
    plan = datasets.plan_datasets(connection, batch, datasets.lineage_refs(batch))
    job_keys = jobs.job_keys(batch)
    ensure_namespaces(
        connection,
        batch,
        {ns for ns, _ in plan.missing}
        | {ns for ns, _ in plan.renamed.values()}
        | {ns for ns, _ in job_keys},
        known={ns for ns, _ in plan.resolved},  # to tell, at the end, which are hidden
    )
    ensure_sources(connection, batch, plan.sources(batch))
    datasets.find_stored_outputs(connection, batch)
    datasets.create_datasets(connection, batch, plan)
    datasets.write_schemas(connection, batch)
    jobs.resolve_jobs(connection, batch)
    jobs.apply_job_facets(batch)
    job_versions = jobs.write_job_versions(connection, batch)
    # new runs are inserted with their state (job version included): one write per new run
    runs.resolve_runs(connection, batch, job_versions)
    datasets.write_versions(connection, batch)
    runs.write_run_io(connection, batch)
    runs.write_run_states(connection, batch, job_versions)
    edges = column_lineage.prepare_edges(connection, batch)
    run_shapes = column_shapes.resolve_shapes(
        connection, batch, column_lineage.run_edges(connection, batch)
    )
    # the rest only writes: one round trip on PostgreSQL instead of one per statement
    with pipelined(connection):
        runs.update_runs(connection, batch)
        jobs.write_job_edges(connection, batch)
        column_lineage.write_edges(connection, edges)
        column_shapes.write_run_shapes(connection, run_shapes)
        datasets.update_datasets(connection, batch)
        jobs.update_jobs(connection, batch)
        unhide_namespaces(connection, batch)
    stream_batches.write_stream_batches(connection, batch)  # needs the runs' ids
    input_versions.link_input_versions(connection, batch)  # needs the runs' states written
    # classifications (issue 32 §1): producers' tags facets, config rules, spread along new edges
    tag_facets.declare_facet_tags(connection, batch)
    classify.batch_written(connection, batch, edges.fields)
    found = detect(connection, batch, rules or DEFAULT_RULES)  # needs everything written
    if alerts is not None:
        alerts.extend(found)
    if conflicts is not None:
        conflicts.extend(batch.conflicts)
    return batch.learned
