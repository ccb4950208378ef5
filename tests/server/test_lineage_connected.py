"""`GET /api/v1/lineage` over HTTP from posted OpenLineage events: the connected graph within the
depth, as Marquez answers (its LineageDao walks jobs sharing any dataset), siblings included."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from ingest_helpers import event, post

# job: (inputs, outputs); `load_b` is a sibling of `load_a` (both read `src`), `backfill` writes
# what `load_b` writes, `report` reads `load_a`'s output
JOBS = {
    "load_a": (["src"], ["a"]),
    "load_b": (["src"], ["b"]),
    "backfill": (["archive"], ["b"]),
    "report": (["a"], ["report"]),
}


def _post_jobs(url: str) -> None:
    body = []
    for job, (inputs, outputs) in JOBS.items():
        body.append(
            event(
                str(uuid.uuid4()),
                job=job,
                namespace="sib",
                inputs=[{"namespace": "db", "name": name} for name in inputs],
                outputs=[{"namespace": "db", "name": name} for name in outputs],
            )
        )
    assert post(url, body).status_code == 201


def _ids(url: str, node: str, depth: int) -> list[str]:
    response = httpx.get(
        f"{url}/api/v1/lineage", params={"nodeId": node, "depth": depth}, timeout=30
    )
    assert response.status_code == 200, response.text
    return sorted(n["id"] for n in response.json()["graph"])


def test_siblings_are_in_the_graph(live_server: Any) -> None:
    _post_jobs(live_server.url)
    assert _ids(live_server.url, "job:sib:load_a", 0) == [
        "dataset:db:a",
        "dataset:db:src",
        "job:sib:load_a",
    ]
    assert _ids(live_server.url, "job:sib:load_a", 1) == [
        "dataset:db:a",
        "dataset:db:b",
        "dataset:db:report",
        "dataset:db:src",
        "job:sib:load_a",
        "job:sib:load_b",
        "job:sib:report",
    ]
    assert _ids(live_server.url, "job:sib:load_a", 2) == [
        "dataset:db:a",
        "dataset:db:archive",
        "dataset:db:b",
        "dataset:db:report",
        "dataset:db:src",
        "job:sib:backfill",
        "job:sib:load_a",
        "job:sib:load_b",
        "job:sib:report",
    ]


def test_depth_0_of_a_job_past_the_node_cap_keeps_the_job(make_server: Any) -> None:
    # issue 28 item 9: a job with more datasets than the cap answered an empty graph
    server = make_server(max_graph_nodes=10)
    inputs = [{"namespace": "db", "name": f"in_{i:03}"} for i in range(30)]
    body = event(str(uuid.uuid4()), job="wide", namespace="wide", inputs=inputs)
    assert post(server.url, body).status_code == 201
    for depth in (0, 1):
        answer = httpx.get(
            f"{server.url}/api/v1/lineage",
            params={"nodeId": "job:wide:wide", "depth": depth},
            timeout=30,
        ).json()
        ids = {node["id"] for node in answer["graph"]}
        assert "job:wide:wide" in ids, answer
        assert answer["truncated"] is True and len(ids) <= 10, ids
        edges = {(e["origin"], e["destination"]) for n in answer["graph"] for e in n["inEdges"]}
        assert edges and all(a in ids and b in ids for a, b in edges), edges
