"""The Marquez-compatible read API: one module per resource, each exposing ``router``."""

from fastapi import APIRouter

from plumbline.server.api import (
    alerts,
    classifications,
    coverage,
    datasets,
    events,
    expectations,
    failed_runs,
    impact,
    jobs,
    lineage,
    namespaces,
    rerun,
    run_analysis,
    runs,
    search,
    sources,
    stats,
    stream_batches,
    tags,
)

routers: list[APIRouter] = [
    namespaces.router,
    sources.router,
    datasets.router,
    jobs.router,
    runs.router,
    failed_runs.router,
    stream_batches.router,
    lineage.router,
    impact.router,
    rerun.router,
    run_analysis.router,
    events.router,
    search.router,
    tags.router,
    classifications.router,
    stats.router,
    alerts.router,
    coverage.router,
    expectations.router,
]
