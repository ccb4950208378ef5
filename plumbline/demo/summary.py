"""Count what the demo left in the lineage store, asking the server's read API over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

PAGE = 100


@dataclass(frozen=True)
class LineageSummary:
    """What the server knows about the demo's datasets and jobs."""

    datasets: int
    jobs: int
    runs: int
    failed_runs: int
    column_edges: int
    #: ids of the failed runs, oldest first
    failed_run_ids: tuple[str, ...] = ()


def _pages(client: httpx.Client, path: str, key: str) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        response = client.get(path, params={"limit": PAGE, "offset": offset})
        response.raise_for_status()
        items = response.json()[key]
        yield from items
        if len(items) < PAGE:
            return
        offset += PAGE


def _column_edges(client: httpx.Client, namespace: str, name: str) -> set[tuple[str, str]]:
    """Field-to-field edges ending in the dataset's fields (its direct column lineage)."""
    response = client.get(
        "/api/v1/column-lineage",
        params={"nodeId": f"dataset:{namespace}:{name}", "depth": 1, "withDownstream": "false"},
    )
    response.raise_for_status()
    prefix = f"datasetField:{namespace}:{name}:"
    edges = set()
    for node in response.json()["graph"]:
        for edge in node.get("inEdges", []):
            if edge["destination"].startswith(prefix):
                edges.add((edge["origin"], edge["destination"]))
    return edges


def fetch_summary(
    base_url: str, job_namespace: str, data_root: Path, timeout: float = 30.0
) -> LineageSummary:
    """Datasets under `data_root` (namespace `file`) and the jobs and runs of `job_namespace`."""
    root = str(data_root)
    with httpx.Client(base_url=base_url, timeout=timeout) as client:
        datasets = [
            d
            for d in _pages(client, "/api/v1/namespaces/file/datasets", "datasets")
            if d["name"] == root or d["name"].startswith(root + "/")
        ]
        jobs = list(_pages(client, f"/api/v1/namespaces/{job_namespace}/jobs", "jobs"))
        runs = [
            run
            for job in jobs
            for run in _pages(
                client, f"/api/v1/namespaces/{job_namespace}/jobs/{job['name']}/runs", "runs"
            )
        ]
        edges: set[tuple[str, str]] = set()
        for dataset in datasets:
            edges |= _column_edges(client, "file", dataset["name"])
    failed = sorted(
        (run for run in runs if run["state"] == "FAILED"), key=lambda run: str(run["createdAt"])
    )
    return LineageSummary(
        datasets=len(datasets),
        jobs=len(jobs),
        runs=len(runs),
        failed_runs=len(failed),
        column_edges=len(edges),
        failed_run_ids=tuple(str(run["id"]) for run in failed),
    )
