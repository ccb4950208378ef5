"""Jobs: ``/namespaces/{namespace}/jobs…`` (versions, runs, soft delete, tags) and the
cross-namespace ``/jobs``."""

from __future__ import annotations

from typing import Annotated, get_args

from fastapi import Query
from pydantic import StringConstraints

from plumbline.server.api.factories import add_soft_delete_route, add_tag_routes
from plumbline.server.api.models import (
    Job,
    JobList,
    JobVersion,
    JobVersionList,
    RunList,
    RunState,
)
from plumbline.server.api.routing import (
    Limit,
    Offset,
    ReadAccess,
    Reader,
    comma_list_pattern,
    make_router,
)
from plumbline.store import job_pk
from plumbline.store.read import jobs, records, runs
from plumbline.store.write import hiding, tagging

router = make_router("Jobs")
BASE = "/namespaces/{namespace}/jobs"
RunStates = Annotated[str, StringConstraints(pattern=comma_list_pattern(get_args(RunState)))]
LastRunStates = Annotated[
    list[RunStates] | None,
    Query(
        description="Only jobs whose latest run is in one of these states (repeat or comma-separate)"
    ),
]


@router.get("/jobs", response_model=JobList, summary="List the jobs of every namespace")
def list_all_jobs(
    *,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    lastRunStates: LastRunStates = None,
    principal: ReadAccess,
) -> records.JobPage:
    states = [state for value in lastRunStates or () for state in value.split(",") if state]
    return jobs.list_jobs(conn, None, limit, offset, states, principal.namespaces)


@router.get(BASE, response_model=JobList, summary="List the jobs of a namespace")
def list_jobs(
    *,
    namespace: str,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    lastRunStates: LastRunStates = None,
    principal: ReadAccess,
) -> records.JobPage:
    principal.check_namespace(namespace)
    states = [state for value in lastRunStates or () for state in value.split(",") if state]
    return jobs.list_jobs(conn, namespace, limit, offset, states)


@router.get(BASE + "/{job}/versions", response_model=JobVersionList, summary="List job versions")
def list_job_versions(
    *,
    namespace: str,
    job: str,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> records.JobVersionPage:
    principal.check_namespace(namespace)
    return jobs.list_job_versions(conn, namespace, job, limit, offset)


@router.get(
    BASE + "/{job}/versions/{version}", response_model=JobVersion, summary="Get a job version"
)
def get_job_version(
    *,
    namespace: str,
    job: str,
    version: str,
    conn: Reader,
    principal: ReadAccess,
) -> records.JobVersion:
    principal.check_namespace(namespace)
    return jobs.get_job_version(conn, namespace, job, version)


@router.get(BASE + "/{job}/runs", response_model=RunList, summary="List the runs of a job")
def list_runs(
    *,
    namespace: str,
    job: str,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> records.RunPage:
    principal.check_namespace(namespace)
    return runs.list_job_runs(conn, job_pk(conn, namespace, job), limit, offset)


@router.get(BASE + "/{job}", response_model=Job, summary="Get a job")
def get_job(*, namespace: str, job: str, conn: Reader, principal: ReadAccess) -> records.Job:
    principal.check_namespace(namespace)
    return jobs.get_job(conn, namespace, job)


add_soft_delete_route(
    router,
    BASE + "/{job}",
    names=("namespace", "job"),
    thing="job",
    summary="Soft delete a job",
    response_model=Job,
    hide=hiding.hide_job,
)
add_tag_routes(
    router,
    BASE + "/{job}/tags/{tag}",
    names=("namespace", "job"),
    thing="job",
    response_model=Job,
    tagger=tagging.tag_job,
    answer=jobs.get_job,
)
