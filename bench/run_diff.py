"""Run diff latency over HTTP, SQLite and PostgreSQL side by side: p50/p95 of
``GET /api/v1/jobs/runs/{id}/diff`` (a run against its job's last COMPLETE run before it), with
``GET /api/v1/jobs/runs/{id}/root-cause`` (depth 2) and version lineage (upstream, depth 5) as
companions.

The graph and history are ``bench/impact_query.py``'s (``bench/lineage_query.py``'s graph:
100,000 datasets, 250,000 jobs, 1,000,000 job-dataset edges; plus ``--rounds`` runs of every job
with exact run inputs and a version per output). The runs measured (from the last round) and the
runs they are compared with also get their raw START and COMPLETE events (schema and column
lineage facets on every input and output), since a diff reads each run's column lineage there.

    .venv/bin/python bench/run_diff.py             # full size (many minutes per backend)
    .venv/bin/python bench/run_diff.py --small     # 50x smaller, a quick check
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from impact_query import PG_ADMIN, load_history, p95, run_uuid  # noqa: E402
from lineage_query import FULL, NS, SMALL, Server, Shape, drop_pg, load, pg_database  # noqa: E402

from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.migrate import upgrade  # noqa: E402

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
PRODUCER = "https://example.com/bench"


def _facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": "https://openlineage.io/spec/facets/x", **fields}


def add_raw_events(engine: sa.Engine, run_uuids: list[str]) -> int:
    """START and COMPLETE raw events for these runs, naming what run_io says they read and wrote,
    with a schema facet on each dataset and column lineage (c0, c1 from each input) on outputs."""
    io = sa.text(
        "SELECT r.uuid, r.started_at, r.ended_at, j.name AS job, io.direction, d.name AS dataset "
        "FROM runs r JOIN jobs j ON j.id = r.job_id JOIN run_io io ON io.run_id = r.id "
        "JOIN datasets d ON d.id = io.dataset_id WHERE r.uuid IN :uuids"
    ).bindparams(sa.bindparam("uuids", expanding=True))
    shape: dict[str, dict[str, Any]] = {}
    with engine.connect() as conn:
        for row in conn.execute(io, {"uuids": run_uuids}):
            run = shape.setdefault(
                row.uuid,
                {
                    "start": row.started_at,
                    "end": row.ended_at,
                    "job": row.job,
                    "input": [],
                    "output": [],
                },
            )
            run[row.direction].append(row.dataset)
    schema = _facet(fields=[{"name": "c0", "type": "long"}, {"name": "c1", "type": "string"}])
    rows = []
    now = datetime.now(UTC)
    for uuid, run in shape.items():
        inputs = [{"namespace": NS, "name": n, "facets": {"schema": schema}} for n in run["input"]]
        lineage = _facet(
            fields={
                c: {"inputFields": [
                    {"namespace": NS, "name": n, "field": c,
                     "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}]}
                    for n in run["input"]
                ]}
                for c in ("c0", "c1")
            }
        )  # fmt: skip
        outputs = [
            {"namespace": NS, "name": n, "facets": {"schema": schema, "columnLineage": lineage}}
            for n in run["output"]
        ]
        for event_type, at in (("START", run["start"]), ("COMPLETE", run["end"])):
            when = at if isinstance(at, datetime) else datetime.fromisoformat(str(at))
            when = when.replace(tzinfo=UTC) if when.tzinfo is None else when
            payload = {
                "eventType": event_type,
                "eventTime": when.isoformat().replace("+00:00", "Z"),
                "run": {"runId": uuid, "facets": {}},
                "job": {"namespace": NS, "name": run["job"]},
                "inputs": inputs,
                "outputs": outputs,
                "producer": PRODUCER,
                "schemaURL": RUN_EVENT,
            }
            text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
            rows.append(
                {
                    "kind": "RunEvent",
                    "event_type": event_type,
                    "event_time": when,
                    "run_uuid": uuid,
                    "job_namespace": NS,
                    "job_name": run["job"],
                    "producer": PRODUCER,
                    "digest": hashlib.sha256(text.encode()).hexdigest(),
                    "payload": payload,
                    "received_at": now,
                }
            )
    from plumbline.store.schema import lineage_events  # noqa: PLC0415 - a bench, not the product

    with engine.begin() as conn:
        conn.execute(sa.insert(lineage_events), rows)
    return len(rows)


def measure(
    server: Server, client: httpx.Client, paths: list[tuple[str, dict[str, Any]]]
) -> dict[str, Any]:
    for path, params in paths[:3]:
        client.get(path, params=params)
    cpu = server.cpu_seconds()
    latencies, sizes = [], []
    for path, params in paths:
        began = time.perf_counter()
        response = client.get(path, params=params)
        latencies.append((time.perf_counter() - began) * 1000)
        response.raise_for_status()
        body = response.json()
        sizes.append(len(body.get("inputs", body.get("upstream", body.get("versions", [])))))
    return {
        "n": len(latencies),
        "p50": statistics.median(latencies),
        "p95": p95(latencies),
        "size_median": int(statistics.median(sizes)),
        "cpu_ms": (server.cpu_seconds() - cpu) * 1000 / len(paths),
    }


def run_backend(
    backend: str, url: str, shape: Shape, rounds: int, queries: int, root: Path = ROOT
) -> list[tuple[str, dict[str, Any]]]:
    engine = create_store_engine(url)
    upgrade(engine)
    with engine.connect() as conn:
        loaded = conn.execute(sa.text("SELECT count(*) FROM runs")).scalar_one() > 0
    if not loaded:
        began = time.perf_counter()
        load(engine, shape)
        load_history(engine, shape, rounds)
        print(f"{backend}: graph and history loaded in {time.perf_counter() - began:.1f} s",
              flush=True)  # fmt: skip
    rng = random.Random(16)
    last = [(rounds - 1) * shape.jobs + rng.randrange(1, shape.jobs + 1) for _ in range(queries)]
    measured = [run_uuid(n) for n in last]
    baselines = [run_uuid(n - shape.jobs) for n in last]
    with engine.connect() as conn:
        has_events = conn.execute(sa.text("SELECT count(*) FROM lineage_events")).scalar_one()
    if not has_events:
        events = add_raw_events(engine, measured + baselines)
        print(f"{backend}: {events} raw events added", flush=True)
    with engine.connect() as conn:
        outputs = conn.execute(
            sa.text(
                "SELECT d.name, v.uuid FROM dataset_versions v JOIN datasets d ON d.id = v.dataset_id"
                " WHERE v.run_uuid IN :uuids"
            ).bindparams(sa.bindparam("uuids", expanding=True)),
            {"uuids": measured},
        ).all()
    breakdown = statement_times(engine, measured[:20]) if root == ROOT else []
    engine.dispose()
    server = Server(url, root)
    results = []
    try:
        with httpx.Client(base_url=server.url, timeout=300) as client:
            diffs = [(f"/api/v1/jobs/runs/{u}/diff", {}) for u in measured]
            results.append(("run diff", measure(server, client, diffs)))
            body = client.get(diffs[0][0]).json()
            assert body["against"]["id"] == baselines[0], body["against"]
            assert body["columnLineage"]["available"], body["columnLineage"]
            causes = [(f"/api/v1/jobs/runs/{u}/root-cause", {"depth": 2}) for u in measured]
            results.append(
                ("root cause depth 2", measure(server, client, causes[: max(queries // 4, 5)]))
            )
            lineage = [
                (
                    f"/api/v1/namespaces/{NS}/datasets/{name}/versions/{version}/lineage",
                    {"depth": 5},
                )
                for name, version in outputs
            ]
            results.append(
                (
                    "version lineage up, depth 5",
                    measure(server, client, lineage[: max(queries // 4, 5)]),
                )
            )
    finally:
        server.stop()
    print(f"{backend}: time per statement of 20 diffs in this process (no HTTP):")
    for line in breakdown:
        print(f"  {line}")
    return results


def statement_times(engine: sa.Engine, run_ids: list[str]) -> list[str]:
    """Where an in-process diff spends its time, statement by statement (total ms, calls)."""
    from plumbline.analysis.run_diff import diff_runs  # noqa: PLC0415

    times: dict[str, list[float]] = {}

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        conn.info["began"] = time.perf_counter()

    def after(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        key = " ".join(statement.split())[:100]
        times.setdefault(key, []).append((time.perf_counter() - conn.info["began"]) * 1000)

    sa.event.listen(engine, "before_cursor_execute", before)
    sa.event.listen(engine, "after_cursor_execute", after)
    try:
        with engine.connect() as conn:
            began = time.perf_counter()
            for run_id in run_ids:
                diff_runs(conn, run_id)
            total = (time.perf_counter() - began) * 1000 / max(len(run_ids), 1)
    finally:
        sa.event.remove(engine, "before_cursor_execute", before)
        sa.event.remove(engine, "after_cursor_execute", after)
    lines = [f"{total:.1f} ms per diff"]
    for key, values in sorted(times.items(), key=lambda kv: -sum(kv[1])):
        lines.append(f"{sum(values):8.1f} ms {len(values):4d} calls  {key}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="50x smaller graph")
    parser.add_argument("--queries", type=int, default=100, help="diffs to measure")
    parser.add_argument("--rounds", type=int, default=3, help="runs per job (one round a day)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), help="only this backend")
    parser.add_argument(
        "--db",
        help="measure on this database, loading the graph only when it has no runs yet, and keep "
        "it (for measuring again after a change; bench/impact_query.py --db --rounds 3 loads the "
        "same graph)",
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT,
        help="serve from this checkout of plumbline (an A/B against another commit)",
    )  # fmt: skip
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    print(
        f"graph: {shape.datasets:,} datasets, {shape.jobs:,} jobs; {args.rounds} runs per job "
        f"({shape.jobs * args.rounds:,} runs)",
        flush=True,
    )
    all_results: list[tuple[str, str, dict[str, Any]]] = []
    if args.db:
        label = "PostgreSQL" if args.db.startswith("postgresql") else "SQLite"
        for name, r in run_backend(label, args.db, shape, args.rounds, args.queries, args.root):
            all_results.append((label, name, r))
    if args.db is None and args.backend in (None, "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            for name, r in run_backend(
                "SQLite", f"sqlite:///{tmp}/bench.db", shape, args.rounds, args.queries
            ):
                all_results.append(("SQLite", name, r))
    if args.db is None and args.backend in (None, "postgresql"):
        name_db, _ = pg_database()
        try:
            url = sa.make_url(PG_ADMIN).set(database=name_db).render_as_string(False)
            for name, r in run_backend("PostgreSQL", url, shape, args.rounds, args.queries):
                all_results.append(("PostgreSQL", name, r))
        finally:
            drop_pg(name_db)
    print()
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        "| backend | query | n | p50 ms | p95 ms | inputs / runs / versions (median) "
        "| server CPU ms/query |"
    )
    print("|---|---|---|---|---|---|---|")
    for backend, name, r in all_results:
        print(
            f"| {backend} | {name} | {r['n']} | {r['p50']:.1f} | {r['p95']:.1f} | "
            f"{r['size_median']} | {r['cpu_ms']:.1f} |"
        )


if __name__ == "__main__":
    main()
