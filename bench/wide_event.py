"""Normalization time of one wide event (issue 28 item 9): one COMPLETE event of a job with
5,000 and then 50,000 inputs, posted to the real server (``python -m plumbline serve``, its own
process) on a fresh database, timed from the POST until the event is in the lineage tables. Each
size is posted twice (a first run, whose datasets are all new, then a second run of the same
job over the same, now known, datasets). Linear work makes the 50,000-input time about 10x the
5,000-input one; quadratic lookups would make it about 100x. Each measurement is repeated
(``--repeat``, a fresh database each time) and the medians and their ratio are printed per
backend. ``--facets`` gives each input a 1-field schema and a symlink (then the 50,000-input
body passes the 10 MiB request limit: use ``--sizes 2000 20000``).

    .venv/bin/python bench/wide_event.py                       # both backends, names only
    .venv/bin/python bench/wide_event.py --backend sqlite --facets --sizes 2000 20000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from ingest import fresh_database, server_process, wait_normalized  # noqa: E402

PRODUCER = "https://example.com/bench"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json"
SYMLINKS = "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json"


def _input(i: int, facets: bool) -> dict[str, Any]:
    dataset: dict[str, Any] = {"namespace": "lake", "name": f"warehouse.db.input_{i:06d}"}
    if facets:
        dataset["facets"] = {
            "schema": {
                "_producer": PRODUCER,
                "_schemaURL": SCHEMA,
                "fields": [{"name": "id", "type": "bigint"}],
            },
            "symlinks": {
                "_producer": PRODUCER,
                "_schemaURL": SYMLINKS,
                "identifiers": [{"namespace": "hive", "name": f"db.input_{i}", "type": "TABLE"}],
            },
        }
    return dataset


def wide_event(inputs: int, day: int, facets: bool) -> bytes:
    """One COMPLETE event of job ``wide`` reading ``inputs`` datasets."""
    return json.dumps(
        {
            "eventType": "COMPLETE",
            "eventTime": f"2026-01-{day:02d}T00:00:00Z",
            "run": {"runId": str(uuid.uuid4())},
            "job": {"namespace": "bench", "name": "wide"},
            "inputs": [_input(i, facets) for i in range(inputs)],
            "outputs": [{"namespace": "lake", "name": "wide_out"}],
            "producer": PRODUCER,
            "schemaURL": RUN_EVENT,
        }
    ).encode()


def measure(backend: str, inputs: int, facets: bool) -> list[float]:
    """Seconds from POST to normalized, for the first and the second run of the job."""
    seconds = []
    with fresh_database(backend) as db_url, server_process(db_url) as (url, _process):
        for day in (1, 2):
            body = wide_event(inputs, day, facets)
            began = time.perf_counter()
            answer = httpx.post(
                f"{url}/api/v1/lineage",
                content=body,
                headers={"Content-Type": "application/json"},
                timeout=600,
            )
            assert answer.status_code == 201, answer.text[:300]
            wait_normalized(db_url)
            seconds.append(time.perf_counter() - began)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), action="append")
    parser.add_argument("--sizes", type=int, nargs=2, default=(5000, 50000))
    parser.add_argument("--facets", action="store_true", help="a schema and a symlink per input")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    small, large = args.sizes
    for backend in args.backend or ["sqlite", "postgresql"]:
        load = os.getloadavg()[0]
        runs: dict[int, list[list[float]]] = {small: [], large: []}
        for _ in range(args.repeat):  # interleaved, so both sizes see the same load
            for size in (small, large):
                runs[size].append(measure(backend, size, args.facets))
        times = {
            size: [statistics.median(r[k] for r in runs[size]) for k in (0, 1)]
            for size in (small, large)
        }
        print(
            json.dumps(
                {
                    "backend": backend,
                    "facets": args.facets,
                    **{
                        f"{size} inputs median s (first, second run)": [
                            round(t, 2) for t in times[size]
                        ]
                        for size in (small, large)
                    },
                    "median ratio (first, second run)": [
                        round(times[large][k] / times[small][k], 1) for k in (0, 1)
                    ],
                    "load": f"{load:.1f}-{os.getloadavg()[0]:.1f}",
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
