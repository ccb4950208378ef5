"""Peak memory of analysis reads (issue 28 item 5): the server's peak RSS while 8 clients ask at
once for the root cause of a run at the end of a 4,950-node graph (``GET
/api/v1/jobs/runs/{id}/root-cause?depth=50``), this checkout beside another (``--before``);
with ``--route all`` (or one ``--route NAME`` at a time), the same for every analysis route in
turn (the heaviest question each can be asked of this graph, see ``ROUTES``), each printed with
the documented bound: its peak over the RSS before must stay under the analysis memory budget
(``ANALYSIS_MEMORY_BYTES``, 512 MiB).

The graph: ``--layers`` (49) layers of ``--width`` (50) jobs; job i of layer l reads datasets i,
i+1 and i+2 of layer l and writes dataset i of layer l+1 (2,450 jobs, 2,500 datasets: 4,950
nodes), each dataset with a 5-field schema and column lineage, one COMPLETE run per job, posted
layer by layer so every run reads the versions the layer before wrote. The server is the real one
(``python -m plumbline serve``, its own process, default settings) on a fresh database. Its peak
RSS (``VmHWM``, reset through ``/proc/PID/clear_refs``) is printed over its RSS before the reads,
and absolute. Clients honour ``503`` + ``Retry-After`` (the analysis memory budget) and ask again
until answered 200; the figures say how many 503s that took.

    .venv/bin/python bench/analysis_memory.py                                  # this checkout
    git worktree add /tmp/plumbline-before <commit>
    .venv/bin/python bench/analysis_memory.py --before /tmp/plumbline-before --backend postgresql
    .venv/bin/python bench/analysis_memory.py --route all --backend postgresql
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from ingest import fresh_database, server_process, wait_normalized  # noqa: E402
from ingest_memory import _reset_peak, _status  # noqa: E402

MIB = 1024 * 1024
PRODUCER = "https://example.com/bench"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json"
COLUMNS = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
FIELDS = [f"c{i}" for i in range(5)]


def _dataset(layer: int, i: int, inputs: list[int]) -> dict:
    facets: dict = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA,
            "fields": [{"name": f, "type": "int"} for f in FIELDS],
        }
    }
    if inputs:
        facets["columnLineage"] = {
            "_producer": PRODUCER,
            "_schemaURL": COLUMNS,
            "fields": {
                f: {
                    "inputFields": [
                        {"namespace": "bench", "name": f"d{layer - 1}_{j}", "field": f}
                        for j in inputs
                    ]
                }
                for f in FIELDS
            },
        }
    return {"namespace": "bench", "name": f"d{layer}_{i}", "facets": facets}


def graph_events(layers: int, width: int) -> tuple[list[list[dict]], str]:
    """The events layer by layer (layer 0 writes the first datasets from nothing) and the run id
    of the last layer's first job."""
    batches: list[list[dict]] = []
    last = ""
    for layer in range(layers):
        batch = []
        for i in range(width):
            inputs = [(i + k) % width for k in range(3)]
            run = str(uuid.uuid4())
            last = run if i == 0 else last
            for kind, minute in (("START", 0), ("COMPLETE", 1)):
                batch.append(
                    {
                        "eventType": kind,
                        "eventTime": f"2026-01-{1 + layer // 24:02d}T{layer % 24:02d}:{minute:02d}:00Z",
                        "run": {"runId": run},
                        "job": {"namespace": "bench", "name": f"j{layer}_{i}"},
                        "inputs": [{"namespace": "bench", "name": f"d{layer}_{j}"} for j in inputs],
                        "outputs": [_dataset(layer + 1, i, inputs)],
                        "producer": PRODUCER,
                        "schemaURL": RUN_EVENT,
                    }
                )
        batches.append(batch)
    return batches, last


def fire(url: str, path: str, at_once: int) -> tuple[list[int], int, float]:
    """``at_once`` clients GET ``path`` together, each until 200: (statuses, 503s, seconds)."""
    statuses = [0] * at_once
    refusals = [0] * at_once
    start = threading.Barrier(at_once)

    def client(k: int) -> None:
        with httpx.Client(base_url=url, timeout=600) as http:
            start.wait()
            while True:
                response = http.get(path)
                if response.status_code != 503:
                    statuses[k] = response.status_code
                    return
                refusals[k] += 1
                time.sleep(float(response.headers.get("retry-after", "1")))

    began = time.monotonic()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(at_once)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses, sum(refusals), time.monotonic() - began


# route name -> its path for the graph's last run, end dataset and an early dataset's version
ROUTES = {
    "root-cause": "/api/v1/jobs/runs/{run}/root-cause?depth=50",
    "root-cause by node": "/api/v1/root-cause?nodeId=dataset:bench:{end}&depth=50",
    "lineage": "/api/v1/lineage?nodeId=dataset:bench:{end}&depth=100",
    "column-lineage": "/api/v1/column-lineage?nodeId=dataset:bench:{end}&depth=100",
    "runlineage upstream": "/api/v1/runlineage/upstream?runId={run}&depth=100",
    "impact": "/api/v1/impact?nodeId=dataset:bench:d0_0",
    "rerun-plan": "/api/v1/rerun-plan?nodeId=dataset:bench:d1_0&version={version}",
    "run diff": "/api/v1/jobs/runs/{run}/diff",
    "job diff": "/api/v1/diff?nodeId=job:bench:{job}",
    "version lineage": "/api/v1/namespaces/bench/datasets/{end}/versions/{end_version}/lineage"
    "?depth=50",
}


def measure_routes(
    backend: str, layers: int, width: int, at_once: int, routes: list[str]
) -> list[dict]:
    """This checkout: 8 at once of each route in ``routes`` on one graph, one after another."""
    from plumbline.server.read_budget import ANALYSIS_MEMORY_BYTES

    batches, last = graph_events(layers, width)
    out = []
    with fresh_database(backend) as db_url, server_process(db_url) as (url, process):
        pid = process.pid
        with httpx.Client(base_url=url, timeout=600) as http:
            _post_layers(http, db_url, batches)
            end = f"d{layers}_0"
            names = {
                "run": last,
                "end": end,
                "job": f"j{layers - 1}_0",
                "version": http.get("/api/v1/namespaces/bench/datasets/d1_0/versions").json()[
                    "versions"
                ][0]["version"],
                "end_version": http.get(f"/api/v1/namespaces/bench/datasets/{end}/versions").json()[
                    "versions"
                ][0]["version"],
            }
            for route in routes:
                path = ROUTES[route].format(**names)
                one = http.get(path)
                assert one.status_code == 200, (route, one.text[:300])
                body = one.json()
                time.sleep(1)
                before = _status(pid, "VmRSS")
                _reset_peak(pid)
                statuses, refusals, seconds = fire(url, path, at_once)
                peak = _status(pid, "VmHWM")
                out.append(
                    {
                        "backend": backend,
                        "route": route,
                        "answer bytes": len(one.content),
                        "truncated": [body.get("truncated"), body.get("truncatedReason")],
                        "statuses": sorted(set(statuses)),
                        "503s": refusals,
                        "seconds": round(seconds, 1),
                        "rss before MiB": round(before / MIB),
                        "peak MiB": round(peak / MIB),
                        "peak over before MiB": round((peak - before) / MIB),
                        "bound MiB": round(ANALYSIS_MEMORY_BYTES / MIB),
                        "under bound": peak - before < ANALYSIS_MEMORY_BYTES,
                        "load": round(os.getloadavg()[0], 1),
                    }
                )
                print(json.dumps(out[-1]), flush=True)
    return out


def _post_layers(http: httpx.Client, db_url: str, batches: list) -> None:
    """Post the graph layer by layer, each normalized before the next (it reads the versions the
    layer before wrote)."""
    for batch in batches:
        response = http.post(
            "/api/v1/lineage",
            content=json.dumps(batch),
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 201, response.text[:300]
        wait_normalized(db_url)


def measure(tree: Path, backend: str, layers: int, width: int, at_once: int) -> dict:
    batches, last = graph_events(layers, width)
    with fresh_database(backend) as db_url, server_process(db_url, tree=tree) as (url, process):
        pid = process.pid
        with httpx.Client(base_url=url, timeout=600) as http:
            _post_layers(http, db_url, batches)
            path = f"/api/v1/jobs/runs/{last}/root-cause?depth=50"
            one = http.get(path)
            assert one.status_code == 200, one.text[:300]
            nodes = len(one.text)
        time.sleep(1)
        before = _status(pid, "VmRSS")
        _reset_peak(pid)
        statuses, refusals, seconds = fire(url, path, at_once)
        peak = _status(pid, "VmHWM")
        after = _status(pid, "VmRSS")
    return {
        "tree": str(tree),
        "backend": backend,
        "graph nodes": layers * width + (layers + 1) * width,
        "answer bytes": nodes,
        "statuses": sorted(set(statuses)),
        "503s": refusals,
        "seconds": round(seconds, 1),
        "rss before MiB": round(before / MIB),
        "peak MiB": round(peak / MIB),
        "peak over before MiB": round((peak - before) / MIB),
        "rss after MiB": round(after / MIB),
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--before", type=Path, help="another checkout to measure first")
    parser.add_argument("--layers", type=int, default=49)
    parser.add_argument("--width", type=int, default=50)
    parser.add_argument("--at-once", type=int, default=8)
    parser.add_argument(
        "--route",
        action="append",
        choices=[*ROUTES, "all"],
        help="measure these analysis routes (this checkout) instead of root cause A/B",
    )
    args = parser.parse_args()
    if args.route:
        routes = list(ROUTES) if "all" in args.route else args.route
        measure_routes(args.backend, args.layers, args.width, args.at_once, routes)
        return
    trees = ([args.before] if args.before else []) + [ROOT]
    for tree in trees:
        print(
            json.dumps(measure(tree, args.backend, args.layers, args.width, args.at_once)),
            flush=True,
        )


if __name__ == "__main__":
    main()
