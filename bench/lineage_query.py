"""Lineage query latency: p50/p95 of ``GET /api/v1/lineage`` at depth 5 and 20, over HTTP, on SQLite
and PostgreSQL side by side, with the number of nodes each answer holds.

The graph is synthetic and built with bulk inserts straight into the store's tables (a fast path: no
events, no server), then the real server (``python -m plumbline serve``, a separate process) answers
the queries. Shape (default size): 100,000 datasets in 50 layers of 2,000; 250,000 jobs, each reading 3
datasets of one layer and writing 1 of the next (the events' shape: 3 inputs, 1 output), so
1,000,000 job-dataset edges. Jobs read near the dataset they write (offsets ±1..±3), as pipelines
have locality; every dataset is written by ~2.5 jobs and read by ~7.5.

    .venv/bin/python bench/lineage_query.py            # full size (a few minutes)
    .venv/bin/python bench/lineage_query.py --small    # 50x smaller, a quick check
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from plumbline.store import schema as s  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.migrate import upgrade  # noqa: E402

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
NS = "bench"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Shape:
    layers: int
    width: int
    jobs: int

    @property
    def datasets(self) -> int:
        return self.layers * self.width


FULL = Shape(layers=50, width=2000, jobs=250_000)
SMALL = Shape(layers=20, width=100, jobs=5_000)


def graph_rows(
    shape: Shape,
) -> tuple[list[tuple[int, str]], list[tuple[int, str]], list[tuple[int, int, str]]]:
    """(dataset id, name), (job id, name) and (job id, dataset id, direction) rows; ids from 1."""
    datasets = [
        (layer * shape.width + pos + 1, f"ds_{layer}_{pos}")
        for layer in range(shape.layers)
        for pos in range(shape.width)
    ]
    jobs, edges = [], []
    transitions = shape.layers - 1
    for k in range(shape.jobs):
        layer, i = k % transitions, k // transitions
        out_pos = i % shape.width
        spread = 1 + (i // shape.width) % 3
        job_id = k + 1
        jobs.append((job_id, f"job_{layer + 1}_{i}"))
        for offset in (-spread, 0, spread):
            in_pos = (out_pos + offset) % shape.width
            edges.append((job_id, layer * shape.width + in_pos + 1, "input"))
        edges.append((job_id, (layer + 1) * shape.width + out_pos + 1, "output"))
    return datasets, jobs, edges


def load(engine: sa.Engine, shape: Shape) -> None:
    """Bulk-insert the graph: COPY on PostgreSQL, executemany in one transaction on SQLite."""
    datasets, jobs, edges = graph_rows(shape)
    with engine.begin() as conn:
        ns_id = conn.execute(
            sa.insert(s.namespaces)
            .values(name=NS, created_at=NOW, updated_at=NOW)
            .returning(s.namespaces.c.id)
        ).scalar_one()
    dataset_rows = [(i, str(uuid.uuid4()), ns_id, n, n, NOW, NOW) for i, n in datasets]
    job_rows = [(i, str(uuid.uuid4()), ns_id, n, NOW, NOW) for i, n in jobs]
    edge_rows = [(j, d, direction, NOW, NOW, 1) for j, d, direction in edges]
    tables = [
        (
            "datasets",
            "id, uuid, namespace_id, name, physical_name, created_at, updated_at",
            dataset_rows,
        ),
        ("jobs", "id, uuid, namespace_id, name, created_at, updated_at", job_rows),
        (
            "job_dataset_edges",
            "job_id, dataset_id, direction, first_seen, last_seen, run_count",
            edge_rows,
        ),
    ]
    if engine.dialect.name == "postgresql":
        raw = engine.raw_connection()
        try:
            with raw.cursor() as cursor:  # type: ignore[attr-defined]
                for table, columns, rows in tables:
                    with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                        for row in rows:
                            copy.write_row(row)
                for table in ("datasets", "jobs"):
                    restart = f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"  # noqa: S608, E501 - constants
                    cursor.execute(restart)
            raw.commit()
        finally:
            raw.close()
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(sa.text("VACUUM ANALYZE"))
    else:
        raw = engine.raw_connection()
        try:
            cursor = raw.cursor()
            for table, columns, rows in tables:
                marks = ", ".join("?" for _ in columns.split(","))
                stamp = NOW.strftime("%Y-%m-%d %H:%M:%S.%f")
                fixed = [tuple(stamp if v is NOW else v for v in row) for row in rows]
                insert = f"INSERT INTO {table} ({columns}) VALUES ({marks})"  # noqa: S608 - constants
                cursor.executemany(insert, fixed)
            raw.commit()
            cursor.execute("ANALYZE")
            raw.commit()
        finally:
            raw.close()


class Server:
    """``python -m plumbline serve --db URL --port 0`` in a child process."""

    def __init__(self, db_url: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "plumbline", "serve", "--db", db_url, "--port", "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline().strip()
        prefix = "plumbline serving on "
        if not first.startswith(prefix):
            self.stop()
            raise RuntimeError(f"server did not start: {first!r}")
        self.url = first[len(prefix) :]
        for _ in range(300):
            try:
                if httpx.get(f"{self.url}/api/v1/health").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server not healthy")

    def cpu_seconds(self) -> float:
        """CPU time the server process has used (user + system), from /proc."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@dataclass
class Result:
    backend: str
    depth: int
    latencies_ms: list[float]
    nodes: list[int]
    truncated: int
    server_cpu_ms: float = 0.0

    def row(self) -> str:
        lat = sorted(self.latencies_ms)
        p50 = statistics.median(lat)
        p95 = lat[min(len(lat) - 1, int(round(0.95 * len(lat))) - 1)]
        return (
            f"| {self.backend} | {self.depth} | {len(lat)} | {p50:.1f} | {p95:.1f} | "
            f"{int(statistics.median(self.nodes))} | {max(self.nodes)} | "
            f"{100 * self.truncated / len(lat):.0f}% | {self.server_cpu_ms:.1f} |"
        )


def start_nodes(shape: Shape, count: int, seed: int) -> list[str]:
    """Random datasets and jobs from the middle layers (half each)."""
    rng = random.Random(seed)
    nodes = []
    for n in range(count):
        layer = rng.randrange(shape.layers // 4, 3 * shape.layers // 4)
        if n % 2 == 0:
            nodes.append(f"dataset:{NS}:ds_{layer}_{rng.randrange(shape.width)}")
        else:
            per_transition = shape.jobs // (shape.layers - 1)
            nodes.append(f"job:{NS}:job_{layer}_{rng.randrange(per_transition)}")
    return nodes


def measure(backend: str, server: Server, shape: Shape, depth: int, count: int) -> Result:
    result = Result(backend, depth, [], [], 0)
    with httpx.Client(base_url=server.url, timeout=120) as client:
        for warm in start_nodes(shape, 5, seed=99):
            client.get("/api/v1/lineage", params={"nodeId": warm, "depth": depth})
        cpu_before = server.cpu_seconds()
        for node in start_nodes(shape, count, seed=depth):
            began = time.perf_counter()
            response = client.get("/api/v1/lineage", params={"nodeId": node, "depth": depth})
            elapsed = (time.perf_counter() - began) * 1000
            response.raise_for_status()
            body = response.json()
            result.latencies_ms.append(elapsed)
            result.nodes.append(len(body["graph"]))
            result.truncated += bool(body["truncated"])
        result.server_cpu_ms = (server.cpu_seconds() - cpu_before) * 1000 / count
    return result


def pg_database() -> tuple[str, sa.Engine]:
    name = f"plumbline_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return name, admin


def drop_pg(name: str) -> None:
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def run_backend(backend: str, url: str, shape: Shape, queries: dict[int, int]) -> list[Result]:
    engine = create_store_engine(url)
    upgrade(engine)
    began = time.perf_counter()
    load(engine, shape)
    engine.dispose()
    print(f"{backend}: loaded in {time.perf_counter() - began:.1f} s", flush=True)
    server = Server(url)
    try:
        return [measure(backend, server, shape, d, n) for d, n in queries.items()]
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="50x smaller graph, fewer queries")
    parser.add_argument("--queries", type=int, default=200, help="queries per depth (default 200)")
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    queries = {5: args.queries, 20: max(args.queries // 4, 10)}
    edges = shape.jobs * 4
    print(
        f"graph: {shape.datasets:,} datasets, {shape.jobs:,} jobs, {edges:,} job-dataset edges; "
        f"queries per depth: {queries}",
        flush=True,
    )
    results: list[Result] = []
    with tempfile.TemporaryDirectory() as tmp:
        results += run_backend("SQLite", f"sqlite:///{tmp}/bench.db", shape, queries)
    name, _ = pg_database()
    try:
        pg_url = sa.make_url(PG_ADMIN).set(database=name).render_as_string(False)
        results += run_backend("PostgreSQL", pg_url, shape, queries)
    finally:
        drop_pg(name)
    print()
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        "| backend | depth | queries | p50 ms | p95 ms | nodes (median) | nodes (max) | truncated "
        "| server CPU ms/query |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for result in sorted(results, key=lambda r: (r.depth, r.backend)):
        print(result.row())
    target = [r for r in results if r.depth == 5]
    for r in target:
        p95 = sorted(r.latencies_ms)[int(round(0.95 * len(r.latencies_ms))) - 1]
        verdict = "meets" if p95 <= 100 else "misses"
        print(f"{r.backend}: depth-5 p95 {p95:.1f} ms {verdict} the 100 ms target")


if __name__ == "__main__":
    main()
