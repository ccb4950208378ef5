"""Impact and rerun-plan latency over HTTP, SQLite and PostgreSQL side by side: p50/p95 of
``GET /api/v1/impact`` at depth 10 (datasets and jobs) and from a field at depth 5 (column mode),
and ``GET /api/v1/rerun-plan`` from a version whose downstream covers thousands of jobs.

The graph is ``bench/lineage_query.py``'s (default: 100,000 datasets in 50 layers, 250,000 jobs,
1,000,000 job-dataset edges, 2 fields per dataset with column lineage), bulk-loaded the same way,
plus a history: ``--rounds`` runs of every job (default 2, one round a day, layer by layer), each
reading the versions its inputs had in that round (exact ``run_io`` links, as the store makes them)
and writing a new version of its output. So 500,000 runs, 2,000,000 run inputs/outputs and ~500,000
dataset versions at full size. The rerun plan starts from the last round's version of a dataset in
each layer of ``--plan-layers`` and must cover every run of that round downstream of it.

    .venv/bin/python bench/impact_query.py             # full size (many minutes per backend)
    .venv/bin/python bench/impact_query.py --small     # 50x smaller, a quick check
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from lineage_query import (  # noqa: E402
    FULL,
    NOW,
    NS,
    SMALL,
    Server,
    Shape,
    drop_pg,
    graph_rows,
    load,
    pg_database,
)

from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.migrate import upgrade  # noqa: E402

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def run_uuid(n: int) -> str:
    return str(uuid.UUID(int=n))


def history_rows(shape: Shape, rounds: int) -> dict[str, list[tuple[Any, ...]]]:
    """runs, dataset_versions and run_io rows (ids from 1), and each dataset's current version."""
    _datasets, jobs, edges, _fields = graph_rows(shape)
    inputs: dict[int, list[int]] = defaultdict(list)
    output: dict[int, int] = {}
    for job, dataset, direction in edges:
        if direction == "input":
            inputs[job].append(dataset)
        else:
            output[job] = dataset
    layer_of_job = {job: (job - 1) % (shape.layers - 1) for job, _ in jobs}
    by_layer: dict[int, list[int]] = defaultdict(list)
    for job, _ in jobs:
        by_layer[layer_of_job[job]].append(job)
    runs, versions, io = [], [], []
    current: dict[int, int] = {}
    last_run: dict[int, str] = {}
    run_pk = version_pk = io_pk = 0
    for r in range(rounds):
        day = NOW + timedelta(days=r)
        latest: dict[int, int] = {}  # dataset -> its version in this round
        for pos in range(shape.width):  # sources: a version a day, written by no run
            version_pk += 1
            versions.append((version_pk, str(uuid.uuid4()), pos + 1, f"src-{r}", None, day))
            latest[pos + 1] = version_pk
        for layer in range(shape.layers - 1):
            for job in by_layer[layer]:
                run_pk += 1
                started = day + timedelta(minutes=layer, microseconds=job)
                ended = started + timedelta(seconds=30)
                rid = run_uuid(run_pk)
                runs.append((run_pk, rid, job, "COMPLETE", started, ended, started, ended))
                for dataset in inputs[job]:
                    io_pk += 1
                    io.append((io_pk, run_pk, dataset, latest.get(dataset), "input", started))
                version_pk += 1
                versions.append((version_pk, str(uuid.uuid4()), output[job], rid, rid, ended))
                io_pk += 1
                io.append((io_pk, run_pk, output[job], version_pk, "output", ended))
                # jobs read one layer and write the next: none of this layer reads it
                latest[output[job]] = version_pk
                last_run[job] = rid
        current = latest
    return {
        "runs": runs,
        "versions": versions,
        "io": io,
        "current": sorted(current.items()),
        "latest_run": sorted(last_run.items()),
    }


def load_history(engine: sa.Engine, shape: Shape, rounds: int) -> None:
    rows = history_rows(shape, rounds)
    tables = [
        (
            "runs",
            "id, uuid, job_id, current_state, started_at, ended_at, created_at, updated_at",
            rows["runs"],
        ),
        (
            "dataset_versions",
            "id, uuid, dataset_id, version, run_uuid, created_at",
            rows["versions"],
        ),
        (
            "run_io",
            "id, run_id, dataset_id, dataset_version_id, direction, created_at",
            rows["io"],
        ),
    ]
    if engine.dialect.name == "postgresql":
        raw = engine.raw_connection()
        try:
            with raw.cursor() as cursor:  # type: ignore[attr-defined]
                for table, columns, data in tables:
                    with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                        for row in data:
                            copy.write_row(row)
                cursor.execute("CREATE TEMP TABLE cur (d BIGINT, v BIGINT)")
                with cursor.copy("COPY cur (d, v) FROM STDIN") as copy:
                    for row in rows["current"]:
                        copy.write_row(row)
                cursor.execute(
                    "UPDATE datasets SET current_version_id = cur.v FROM cur WHERE datasets.id = cur.d"
                )
                cursor.execute("CREATE TEMP TABLE lr (j BIGINT, u TEXT)")
                with cursor.copy("COPY lr (j, u) FROM STDIN") as copy:
                    for row in rows["latest_run"]:
                        copy.write_row(row)
                cursor.execute(
                    "UPDATE jobs SET latest_run_uuid = lr.u FROM lr WHERE jobs.id = lr.j"
                )
                for table in ("runs", "dataset_versions", "run_io"):
                    cursor.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "  # noqa: S608
                        f"(SELECT max(id) FROM {table}))"
                    )
            raw.commit()
        finally:
            raw.close()
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(sa.text("VACUUM ANALYZE"))
        return
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()

        def stamp(value: Any) -> Any:
            return value.strftime("%Y-%m-%d %H:%M:%S.%f") if hasattr(value, "strftime") else value

        for table, columns, data in tables:
            marks = ", ".join("?" for _ in columns.split(","))
            insert = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608
            cursor.executemany(insert, [tuple(stamp(v) for v in row) for row in data])
        cursor.executemany(
            "UPDATE datasets SET current_version_id = ? WHERE id = ?",
            [(v, d) for d, v in rows["current"]],
        )
        cursor.executemany(
            "UPDATE jobs SET latest_run_uuid = ? WHERE id = ?",
            [(u, j) for j, u in rows["latest_run"]],
        )
        raw.commit()
        cursor.execute("ANALYZE")
        raw.commit()
    finally:
        raw.close()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * len(ordered))) - 1)]


def impact_starts(shape: Shape, count: int, seed: int, fields: bool) -> list[str]:
    rng = random.Random(seed)
    per_transition = shape.jobs // (shape.layers - 1)
    out = []
    for n in range(count):
        layer = rng.randrange(shape.layers // 4, 3 * shape.layers // 4)
        if fields:
            out.append(f"datasetField:{NS}:ds_{layer}_{rng.randrange(shape.width)}:c0")
        elif n % 2 == 0:
            out.append(f"dataset:{NS}:ds_{layer}_{rng.randrange(shape.width)}")
        else:
            out.append(f"job:{NS}:job_{layer}_{rng.randrange(per_transition)}")
    return out


def measure(
    server: Server, client: httpx.Client, path: str, params: list[dict[str, Any]]
) -> dict[str, Any]:
    for warm in params[:3]:
        client.get(path, params=warm)
    cpu = server.cpu_seconds()
    latencies, sizes, truncated = [], [], 0
    for p in params:
        began = time.perf_counter()
        response = client.get(path, params=p)
        latencies.append((time.perf_counter() - began) * 1000)
        response.raise_for_status()
        body = response.json()
        sizes.append(len(body.get("nodes", body.get("steps", []))))
        truncated += bool(body.get("truncated"))
    return {
        "n": len(latencies),
        "p50": statistics.median(latencies),
        "p95": p95(latencies),
        "size_median": int(statistics.median(sizes)),
        "size_max": max(sizes),
        "truncated": truncated,
        "cpu_ms": (server.cpu_seconds() - cpu) * 1000 / len(params),
    }


def run_backend(
    backend: str,
    url: str,
    shape: Shape,
    rounds: int,
    queries: int,
    plan_layers: list[int],
    only: str | None = None,
    root: Path = ROOT,
) -> list[tuple[str, dict[str, Any]]]:
    engine = create_store_engine(url)
    upgrade(engine)
    with engine.connect() as conn:
        loaded = conn.execute(sa.text("SELECT count(*) FROM runs")).scalar_one() > 0
    if not loaded:
        began = time.perf_counter()
        load(engine, shape)
        print(f"{backend}: graph loaded in {time.perf_counter() - began:.1f} s", flush=True)
        began = time.perf_counter()
        load_history(engine, shape, rounds)
        print(f"{backend}: history loaded in {time.perf_counter() - began:.1f} s", flush=True)
    engine.dispose()
    server = Server(url, root)
    results = []
    try:
        with httpx.Client(base_url=server.url, timeout=300) as client:
            path = "/api/v1/impact"
            table = [
                {"nodeId": node, "depth": 10}
                for node in impact_starts(shape, queries, seed=10, fields=False)
            ]
            wanted = lambda name: only is None or only in name  # noqa: E731
            if wanted("impact depth 10"):
                results.append(("impact depth 10", measure(server, client, path, table)))
            up = [{**p, "direction": "upstream"} for p in table[: max(queries // 2, 5)]]
            if wanted("impact upstream depth 10"):
                results.append(("impact upstream depth 10", measure(server, client, path, up)))
            column = [
                {"nodeId": node, "depth": 5}
                for node in impact_starts(shape, queries, seed=5, fields=True)
            ]
            if wanted("column impact depth 5"):
                results.append(("column impact depth 5", measure(server, client, path, column)))
            rng = random.Random(7)
            for layer in plan_layers:
                plans = [
                    {
                        "nodeId": f"dataset:{NS}:ds_{layer}_{rng.randrange(shape.width)}",
                        "since": (NOW + timedelta(days=rounds - 1)).isoformat(),
                    }
                    for _ in range(max(queries // 20, 5))
                ]
                name = f"rerun plan from layer {layer}"
                if wanted(name):
                    results.append((name, measure(server, client, "/api/v1/rerun-plan", plans)))
    finally:
        server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="50x smaller graph")
    parser.add_argument("--queries", type=int, default=100, help="impact queries per kind")
    parser.add_argument("--rounds", type=int, default=2, help="runs per job (one round a day)")
    parser.add_argument(
        "--plan-layers",
        help="layers of the rerun plans' datasets, comma-separated (default: a fifth and half in)",
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), help="only this backend")
    parser.add_argument(
        "--db",
        help="measure on this database (with --backend), loading the graph only when it has no "
        "runs yet, and keep it (for measuring again after a change)",
    )
    parser.add_argument(
        "--only", help="measure only the queries whose name contains this (e.g. 'rerun')"
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT,
        help="serve from this checkout of plumbline (an A/B against another commit)",
    )  # fmt: skip
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    plan_layers = (
        [int(x) for x in args.plan_layers.split(",")]
        if args.plan_layers
        else [shape.layers // 5, shape.layers // 2]
    )
    print(
        f"graph: {shape.datasets:,} datasets, {shape.jobs:,} jobs, {shape.jobs * 4:,} job-dataset "
        f"edges; {args.rounds} runs per job ({shape.jobs * args.rounds:,} runs, "
        f"{shape.jobs * args.rounds * 4:,} run inputs/outputs); rerun plans from layers {plan_layers}",
        flush=True,
    )
    all_results: list[tuple[str, str, dict[str, Any]]] = []
    if args.db:
        label = "PostgreSQL" if args.db.startswith("postgresql") else "SQLite"
        for name, r in run_backend(
            label, args.db, shape, args.rounds, args.queries, plan_layers, args.only, args.root
        ):
            all_results.append((label, name, r))
    if args.db is None and args.backend in (None, "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            for name, r in run_backend(
                "SQLite",
                f"sqlite:///{tmp}/bench.db",
                shape,
                args.rounds,
                args.queries,
                plan_layers,
                args.only,
            ):
                all_results.append(("SQLite", name, r))
    if args.db is None and args.backend in (None, "postgresql"):
        name_db, _ = pg_database()
        try:
            url = sa.make_url(PG_ADMIN).set(database=name_db).render_as_string(False)
            for name, r in run_backend(
                "PostgreSQL", url, shape, args.rounds, args.queries, plan_layers, args.only
            ):
                all_results.append(("PostgreSQL", name, r))
        finally:
            drop_pg(name_db)
    print()
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        "| backend | query | n | p50 ms | p95 ms | nodes or steps (median) | (max) | truncated "
        "| server CPU ms/query |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for backend, name, r in all_results:
        print(
            f"| {backend} | {name} | {r['n']} | {r['p50']:.1f} | {r['p95']:.1f} | "
            f"{r['size_median']} | {r['size_max']} | {r['truncated']} | {r['cpu_ms']:.1f} |"
        )


if __name__ == "__main__":
    main()
