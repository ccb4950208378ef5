"""Rerun plans: given bad dataset versions, the downstream runs that consumed them (transitively,
through the versions those runs wrote), grouped by job, in an order that never puts a job before
one it reads from.

The bad versions are a dataset's version (``version``), its versions made since a time
(``since``), the versions a job's runs wrote since a time, or what one run wrote (``run_id``). The
walk follows the exact input version of each run (``run_io``, see
:mod:`plumbline.store.read.versions`): a run that read an older version, or never read an affected
one, is not in the plan. The walk is one recursive statement; two more read the affected runs and
what they read and wrote (:mod:`plumbline.store.read.rerun`).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.analysis.pruned import PrunedRun, pruned_by_id
from plumbline.analysis.rerun_model import (
    BadVersion,
    JobRef,
    RerunPlan,
    RerunStep,
    RunToRedo,
    VersionUse,
)
from plumbline.store import (
    InvalidArgumentError,
    VisibleTo,
    dataset_pk,
    iso,
    job_pk,
    resolve_node_id,
)
from plumbline.store.read import rerun as q
from plumbline.store.read.impact import readable_jobs
from plumbline.store.read.runs import run_pk_by_uuid
from plumbline.store.read.versions import (
    downstream_reads,
    find_version,
    run_versions,
    versions_by_id,
    versions_since,
)


def rerun_plan(
    conn: Connection,
    *,
    node_id: str | None = None,
    since: datetime | None = None,
    version: str | None = None,
    run_id: str | None = None,
    visible_to: VisibleTo = None,
) -> RerunPlan:
    """The plan for one of: ``node_id`` (a dataset) with ``version`` or ``since``, ``node_id`` (a
    job) with ``since``, or ``run_id``. :class:`InvalidArgumentError` for any other combination."""
    seeds, source = _seeds(conn, node_id, since, version, run_id, visible_to)
    read: dict[int, set[int]] = defaultdict(set)  # run -> affected versions it read
    for run, version_id in downstream_reads(conn, sorted(seeds)):
        read[run].add(version_id)
    affected = sorted(read)
    io = q.runs_io(conn, affected)
    bad = set(seeds) | {
        rv.version_id
        for rvs in io.values()
        for rv in rvs
        if rv.direction == "output" and rv.version_id is not None
    }
    runs = q.run_summaries(conn, affected)
    seed_refs = versions_by_id(conn, sorted(seeds))
    bad_versions = tuple(
        BadVersion(v.namespace, v.name, v.version, v.created_at, v.run_uuid)
        for v in sorted(
            seed_refs.values(), key=lambda v: (v.namespace, v.name, iso(v.created_at) or "", v.id)
        )
    )
    steps = _steps(runs, io, read, bad)
    readable = readable_jobs(conn, sorted({r.job_id for r in runs.values()}), visible_to)
    shown = [step for step, job_id in steps if job_id in readable]
    final = tuple(shown) if len(shown) == len(steps) else _renumbered(shown)
    # runs pruned since the bad data appeared, of jobs reading an affected dataset: what they read
    # is gone, so they are named rather than silently left out
    affected_datasets = {v.dataset_id for v in seed_refs.values()} | {
        rv.dataset_id for rvs in io.values() for rv in rvs if rv.direction == "output"
    }
    start = since or min((v.created_at for v in seed_refs.values() if v.created_at), default=None)
    pruned: tuple[PrunedRun, ...] = ()
    if start is not None:
        uuids = q.pruned_readers_since(conn, sorted(affected_datasets), start)
        found = pruned_by_id(conn, uuids)
        pruned = tuple(p for _, p in sorted(found.items()) if _readable_job(p, visible_to))
    return RerunPlan(
        source=source,
        bad_versions=bad_versions,
        steps=final,
        affected_versions=len(bad),
        hidden_steps=len(steps) - len(shown),
        pruned=pruned,
    )


def _renumbered(shown: list[RerunStep]) -> tuple[RerunStep, ...]:
    """The steps a caller may see, numbered 1, 2, … again (``after`` keeps only those)."""
    renumber = {step.order: n for n, step in enumerate(shown, start=1)}
    return tuple(
        step._replace(
            order=renumber[step.order],
            after=tuple(renumber[a] for a in step.after if a in renumber),
        )
        for step in shown
    )


def _readable_job(run: PrunedRun, visible_to: VisibleTo) -> bool:
    return visible_to is None or run.namespace in visible_to


def _seeds(
    conn: Connection,
    node_id: str | None,
    since: datetime | None,
    version: str | None,
    run_id: str | None,
    visible_to: VisibleTo,
) -> tuple[set[int], dict[str, Any]]:
    """The bad versions' ids, and the question as asked (echoed in the answer)."""
    if run_id is not None:
        if node_id is not None or since is not None or version is not None:
            raise InvalidArgumentError("runId goes alone: not with nodeId, since or version")
        run = run_pk_by_uuid(conn, run_id, visible_to)
        written = {
            rv.version_id
            for rv in run_versions(conn, [run])
            if rv.direction == "output" and rv.version_id is not None
        }
        return written, {"runId": run_id}
    if node_id is None:
        raise InvalidArgumentError("give nodeId (with since or version) or runId")
    if (since is None) == (version is None):
        raise InvalidArgumentError("give nodeId with exactly one of since and version")
    node = resolve_node_id(conn, node_id)
    source: dict[str, Any] = {"nodeId": str(node).split("#", 1)[0]}
    if node.kind == "DATASET_FIELD":
        raise InvalidArgumentError(
            "a rerun plan starts from a dataset, a job or a run, not a field"
        )
    if node.kind == "JOB":
        if since is None:
            raise InvalidArgumentError("a job's rerun plan needs since (the versions it wrote)")
        job = job_pk(conn, node.namespace, node.name, visible_to=visible_to)
        source["since"] = iso(since)
        return set(q.versions_written_since(conn, job, since)), source
    if version is not None:
        found = find_version(conn, node.namespace, node.name, version, visible_to)
        source["version"] = version
        return {found.id}, source
    assert since is not None
    dataset = dataset_pk(conn, node.namespace, node.name, visible_to=visible_to)
    source["since"] = iso(since)
    return {v.id for v in versions_since(conn, dataset, since)}, source


def _most_common(parents: Iterable[JobRef | None]) -> JobRef | None:
    """The parent job most runs share (the first seen on a tie); None when none has one."""
    counts: dict[JobRef, int] = {}
    for parent in parents:
        if parent is not None:
            counts[parent] = counts.get(parent, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else None


def _uses(
    rows: list[q.RunIo], bad: set[int]
) -> tuple[tuple[VersionUse, ...], tuple[VersionUse, ...]]:
    """What a run read and wrote, each marked affected when it derives from the bad versions."""
    reads, writes = [], []
    for rv in rows:
        affected = rv.version_id is not None and rv.version_id in bad
        if rv.direction == "input":
            reads.append(VersionUse(rv.namespace, rv.name, rv.version, affected, rv.version_source))
        else:
            writes.append(VersionUse(rv.namespace, rv.name, rv.version, affected))
    return tuple(reads), tuple(writes)


def _steps(
    runs: dict[int, q.RunRow],
    io: dict[int, list[q.RunIo]],
    read: dict[int, set[int]],
    bad: set[int],
) -> list[tuple[RerunStep, int]]:
    """Steps (with their job ids) in topological order of the jobs: a job comes after every job
    whose affected run wrote a version it read; in a cycle the earliest run goes first."""
    by_job: dict[int, list[q.RunRow]] = defaultdict(list)
    for run in runs.values():
        by_job[run.job_id].append(run)
    job_of_run = {run.uuid: run.job_id for run in runs.values()}
    reads_from: dict[int, set[int]] = defaultdict(set)  # job -> jobs it read affected data of
    for pk, run in runs.items():
        affected_reads = read[pk]
        for rv in io.get(pk, ()):
            if rv.direction == "input" and rv.version_id in affected_reads and rv.produced_by:
                producer = job_of_run.get(rv.produced_by)
                if producer is not None and producer != run.job_id:
                    reads_from[run.job_id].add(producer)
    for job_runs in by_job.values():
        job_runs.sort(key=lambda r: (r.started_at is None, r.started_at or datetime.min, r.uuid))

    keys = {
        job: (runs_[0].started_at is None, iso(runs_[0].started_at) or "", runs_[0].namespace)
        + (runs_[0].job,)
        for job, runs_ in by_job.items()
    }
    key = keys.__getitem__

    waiting = {job: set(reads_from[job]) for job in by_job}
    readers_of_job: dict[int, set[int]] = defaultdict(set)
    for job, producers in waiting.items():
        for producer in producers:
            readers_of_job[producer].add(job)
    ready = [(key(job), job) for job, producers in waiting.items() if not producers]
    heapq.heapify(ready)
    order: dict[int, int] = {}
    cyclic: set[int] = set()
    while len(order) < len(by_job):
        if not ready:  # a cycle: take its earliest job
            job = min((j for j in by_job if j not in order), key=key)
            cyclic.add(job)
        else:
            _, job = heapq.heappop(ready)
            if job in order:
                continue
        order[job] = len(order) + 1
        for reader in readers_of_job[job]:
            waiting[reader].discard(job)
            if not waiting[reader] and reader not in order:
                heapq.heappush(ready, (key(reader), reader))

    steps = []
    for job, number in sorted(order.items(), key=lambda item: item[1]):
        job_runs = by_job[job]
        redo = []
        for run in job_runs:
            reads, writes = _uses(io.get(run.id, []), bad)
            parent_job = (
                JobRef(run.parent_namespace, run.parent_job)
                if run.parent_namespace and run.parent_job
                else None
            )
            redo.append(
                RunToRedo(
                    run.uuid,
                    run.state,
                    run.started_at,
                    run.ended_at,
                    run.parent_run_uuid,
                    parent_job,
                    reads,
                    writes,
                )  # fmt: skip
            )
        parent = _most_common(r.parent_job for r in redo)
        first = job_runs[0]
        after = tuple(sorted(order[p] for p in reads_from[job] if order[p] < number))
        steps.append(
            (
                RerunStep(
                    number,
                    JobRef(first.namespace, first.job),
                    parent,
                    tuple(redo),
                    after,
                    job in cyclic,
                ),  # fmt: skip
                job,
            )
        )
    return steps
