"""Lineage query latency: p50/p95 of ``GET /api/v1/lineage`` at depth 5 and 20, over HTTP, on SQLite
and PostgreSQL side by side, with the number of nodes each answer holds.

The graph is synthetic and built with bulk inserts straight into the store's tables (a fast path: no
events, no server), then the real server (``python -m plumbline serve``, a separate process) answers
the queries. Shape (default size): 100,000 datasets in 50 layers of 2,000; 250,000 jobs, each reading 3
datasets of one layer and writing 1 of the next (the events' shape: 3 inputs, 1 output), so
1,000,000 job-dataset edges. Jobs read near the dataset they write (offsets ±1..±3), as pipelines
have locality; every dataset is written by ~2.5 jobs and read by ~7.5. Every dataset has 2 fields,
and each job maps field ``cN`` of each of its inputs to field ``cN`` of its output (column lineage, about
1.2 million field edges), so ``GET /api/v1/column-lineage`` is measured at depth 5 on the same graph.

``--compare ROOT`` starts a second server from another checkout (e.g. a ``git worktree`` of an older
commit) on the same database and sends every query to both, alternating which goes first: an A/B
comparison under the same load, query by query.

    .venv/bin/python bench/lineage_query.py            # full size (a few minutes)
    .venv/bin/python bench/lineage_query.py --small    # 50x smaller, a quick check
    .venv/bin/python bench/lineage_query.py --compare /tmp/base   # this code vs /tmp/base's
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
from dataclasses import dataclass, field
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
    fields: int = 2

    @property
    def datasets(self) -> int:
        return self.layers * self.width


FULL = Shape(layers=50, width=2000, jobs=250_000)
SMALL = Shape(layers=20, width=100, jobs=5_000)


Rows = list[tuple[int, ...]]


def graph_rows(shape: Shape) -> tuple[list[tuple[int, str]], list[tuple[int, str]], Rows, Rows]:
    """(dataset id, name), (job id, name), (job id, dataset id, direction) and (output field id,
    input field id) rows; ids from 1, field ``f`` of dataset ``d`` has id ``(d - 1) * fields + f + 1``.
    """
    datasets = [
        (layer * shape.width + pos + 1, f"ds_{layer}_{pos}")
        for layer in range(shape.layers)
        for pos in range(shape.width)
    ]
    jobs, edges, field_edges = [], [], set()
    transitions = shape.layers - 1
    for k in range(shape.jobs):
        layer, i = k % transitions, k // transitions
        out_pos = i % shape.width
        spread = 1 + (i // shape.width) % 3
        job_id = k + 1
        jobs.append((job_id, f"job_{layer + 1}_{i}"))
        output = (layer + 1) * shape.width + out_pos + 1
        for offset in (-spread, 0, spread):
            in_pos = (out_pos + offset) % shape.width
            dataset = layer * shape.width + in_pos + 1
            edges.append((job_id, dataset, "input"))
            for f in range(shape.fields):
                field_edges.add(
                    ((output - 1) * shape.fields + f + 1, (dataset - 1) * shape.fields + f + 1)
                )
        edges.append((job_id, output, "output"))
    return datasets, jobs, edges, sorted(field_edges)


def load(engine: sa.Engine, shape: Shape) -> None:
    """Bulk-insert the graph: COPY on PostgreSQL, executemany in one transaction on SQLite."""
    datasets, jobs, edges, field_edges = graph_rows(shape)
    with engine.begin() as conn:
        ns_id = conn.execute(
            sa.insert(s.namespaces)
            .values(name=NS, created_at=NOW, updated_at=NOW)
            .returning(s.namespaces.c.id)
        ).scalar_one()
    dataset_rows = [(i, str(uuid.uuid4()), ns_id, n, n, NOW, NOW) for i, n in datasets]
    job_rows = [(i, str(uuid.uuid4()), ns_id, n, NOW, NOW) for i, n in jobs]
    edge_rows = [(j, d, direction, NOW, NOW, 1) for j, d, direction in edges]
    field_rows = [
        ((i - 1) * shape.fields + f + 1, i, f"c{f}", "string", NOW, NOW)
        for i, _ in datasets
        for f in range(shape.fields)
    ]
    column_rows = [(o, i, "DIRECT", "IDENTITY", False, NOW, NOW) for o, i in field_edges]
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
        ("dataset_fields", "id, dataset_id, name, type, created_at, updated_at", field_rows),
        (
            "column_lineage_edges",
            "output_field_id, input_field_id, transformation_type, transformation_subtype, "
            "masking, first_seen, last_seen",
            column_rows,
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
                for table in ("datasets", "jobs", "dataset_fields"):
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
    """``python -m plumbline serve --db URL --port 0`` in a child process, run from the checkout
    ``root`` (so that checkout's ``plumbline`` serves)."""

    def __init__(self, db_url: str, root: Path = ROOT) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "plumbline", "serve", "--db", db_url, "--port", "0"],
            cwd=root,
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
    code: str
    backend: str
    endpoint: str
    depth: int
    latencies_ms: list[float] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)
    truncated: int = 0
    server_cpu_ms: float = 0.0

    def p95(self) -> float:
        lat = sorted(self.latencies_ms)
        return lat[min(len(lat) - 1, int(round(0.95 * len(lat))) - 1)]

    def row(self) -> str:
        p50 = statistics.median(self.latencies_ms)
        return (
            f"| {self.code} | {self.backend} | {self.endpoint} | {self.depth} | "
            f"{len(self.latencies_ms)} | {p50:.1f} | {self.p95():.1f} | "
            f"{int(statistics.median(self.nodes))} | {max(self.nodes)} | "
            f"{100 * self.truncated / len(self.latencies_ms):.0f}% | {self.server_cpu_ms:.1f} |"
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


def measure(
    backend: str, servers: dict[str, Server], shape: Shape, endpoint: str, depth: int, count: int
) -> tuple[list[Result], int]:
    """``count`` queries of ``endpoint`` at ``depth``, each sent to every server (the order rotating
    from query to query); the results per server, and how many answers differed between servers."""
    path = f"/api/v1/{endpoint}"
    results = {code: Result(code, backend, endpoint, depth) for code in servers}
    clients = {code: httpx.Client(base_url=s.url, timeout=120) for code, s in servers.items()}
    differing = 0
    try:
        for client in clients.values():
            for warm in start_nodes(shape, 5, seed=99):
                client.get(path, params={"nodeId": warm, "depth": depth})
        cpu_before = {code: s.cpu_seconds() for code, s in servers.items()}
        codes = list(servers)
        for n, node in enumerate(start_nodes(shape, count, seed=depth)):
            bodies = set()
            for code in codes[n % len(codes) :] + codes[: n % len(codes)]:
                began = time.perf_counter()
                response = clients[code].get(path, params={"nodeId": node, "depth": depth})
                elapsed = (time.perf_counter() - began) * 1000
                response.raise_for_status()
                bodies.add(response.content)
                body = response.json()
                result = results[code]
                result.latencies_ms.append(elapsed)
                result.nodes.append(len(body["graph"]))
                result.truncated += bool(body["truncated"])
            differing += len(bodies) > 1
        for code, server in servers.items():
            used = server.cpu_seconds() - cpu_before[code]
            results[code].server_cpu_ms = used * 1000 / count
    finally:
        for client in clients.values():
            client.close()
    return list(results.values()), differing


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


def run_backend(
    backend: str,
    url: str,
    shape: Shape,
    queries: dict[tuple[str, int], int],
    roots: dict[str, Path],
) -> list[Result]:
    engine = create_store_engine(url)
    upgrade(engine)
    began = time.perf_counter()
    load(engine, shape)
    engine.dispose()
    print(f"{backend}: loaded in {time.perf_counter() - began:.1f} s", flush=True)
    servers: dict[str, Server] = {}
    try:
        for code, root in roots.items():
            servers[code] = Server(url, root)
        results = []
        for (endpoint, depth), count in queries.items():
            measured, differing = measure(backend, servers, shape, endpoint, depth, count)
            results += measured
            if len(servers) > 1:
                print(
                    f"{backend} {endpoint} depth {depth}: {differing} of {count} answers differed"
                )
        return results
    finally:
        for server in servers.values():
            server.stop()


def code_label(root: Path) -> str:
    """The checkout's commit (short), with ``+`` when its work tree has changes."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=False
        ).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or root.name
    return commit + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="50x smaller graph, fewer queries")
    parser.add_argument("--queries", type=int, default=200, help="queries per depth (default 200)")
    parser.add_argument(
        "--compare", type=Path, metavar="ROOT", help="also serve from this checkout (A/B)"
    )
    parser.add_argument(
        "--backend", choices=("sqlite", "postgresql"), help="only this backend (default: both)"
    )
    parser.add_argument(
        "--column-queries",
        type=int,
        help="column-lineage queries at depth 5 (default: half of --queries; 0: none)",
    )
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    queries = {("lineage", 5): args.queries, ("lineage", 20): max(args.queries // 4, 10)}
    columns = max(args.queries // 2, 10) if args.column_queries is None else args.column_queries
    if columns > 0:
        queries[("column-lineage", 5)] = columns
    roots = {code_label(ROOT): ROOT}
    if args.compare:
        roots[code_label(args.compare)] = args.compare.resolve()
    print(
        f"graph: {shape.datasets:,} datasets ({shape.fields} fields each), {shape.jobs:,} jobs, "
        f"{shape.jobs * 4:,} job-dataset edges; queries: {queries}; code: {list(roots)}",
        flush=True,
    )
    results: list[Result] = []
    if args.backend in (None, "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            results += run_backend("SQLite", f"sqlite:///{tmp}/bench.db", shape, queries, roots)
    if args.backend in (None, "postgresql"):
        name, _ = pg_database()
        try:
            pg_url = sa.make_url(PG_ADMIN).set(database=name).render_as_string(False)
            results += run_backend("PostgreSQL", pg_url, shape, queries, roots)
        finally:
            drop_pg(name)
    print()
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        "| code | backend | endpoint | depth | queries | p50 ms | p95 ms | nodes (median) "
        "| nodes (max) | truncated | server CPU ms/query |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for result in sorted(results, key=lambda r: (r.endpoint, r.depth, r.backend, r.code)):
        print(result.row())
    for r in results:
        if r.endpoint == "lineage" and r.depth == 5:
            verdict = "meets" if r.p95() <= 100 else "misses"
            print(f"{r.code} {r.backend}: depth-5 p95 {r.p95():.1f} ms {verdict} the 100 ms target")


if __name__ == "__main__":
    main()
