"""Export of the lineage SQL tables (issue 18) on the benchmark graph, and Spark SQL over it.

The graph and history are ``bench/impact_query.py``'s (``bench/lineage_query.py``'s graph:
100,000 datasets, 250,000 jobs, 1,000,000 job-dataset edges, 2 fields per dataset; one round of
runs: 250,000 runs, 1,000,000 run inputs/outputs), plus the column-lineage history those runs
carried (each run's 6 field edges into its output, 1.5 million history rows; stored per column
shape since schema 0018: one shape per job, each run referencing its job's), all
bulk-loaded. Measured, each with ``plumbline export`` run as a child process (wall time and its
peak RSS):

1. a full export to Parquet (targets: <= 60 s, <= 1 GiB);
2. an incremental export after 1,000 new events (500 runs of existing jobs, START and COMPLETE
   with column lineage, written through the store's writer) (target: <= 2 s);
3. Spark SQL in local[2]: an aggregate over the exported column edges (target: <= 10 s), first
   run and median of 3.

    .venv/bin/python bench/export_tables.py              # full size, SQLite (many minutes)
    .venv/bin/python bench/export_tables.py --small      # 50x smaller, a quick check
    .venv/bin/python bench/export_tables.py --backend postgres
    .venv/bin/python bench/export_tables.py --db /tmp/bench.db --build-only   # build once, keep
    .venv/bin/python bench/export_tables.py --db /tmp/bench.db --before DIR   # old code beside
    .venv/bin/python bench/export_tables.py --db /tmp/bench.db --verify   # + incremental == full
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from impact_query import history_rows, load_history  # noqa: E402
from lineage_query import (  # noqa: E402
    FULL,
    NOW,
    NS,
    PG_ADMIN,
    SMALL,
    Shape,
    drop_pg,
    graph_rows,
    load,
)  # fmt: skip

from plumbline.openlineage import parse_event  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.migrate import upgrade  # noqa: E402
from plumbline.store.write import writer_for  # noqa: E402
from plumbline.store.write.column_shapes import digest  # noqa: E402

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
PRODUCER = "https://example.com/bench"


def _bulk(engine: sa.Engine, table: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    """Rows into ``table`` at once: COPY on PostgreSQL, executemany on SQLite."""
    names = ", ".join(columns)
    raw = engine.raw_connection()
    try:
        if engine.dialect.name == "postgresql":
            with raw.cursor() as cursor:  # type: ignore[attr-defined]
                with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
        else:
            cursor = raw.cursor()
            marks = ", ".join("?" for _ in columns)
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)  # noqa: S608
        raw.commit()
    finally:
        raw.close()


def load_column_history(engine: sa.Engine, shape: Shape) -> int:
    """The column-lineage history: every run carried the field edges into its job's output (one
    column shape per job, schema 0018). Returns the history's rows (runs x their edges)."""
    _datasets, _jobs, edges, _fields = graph_rows(shape)
    inputs: dict[int, list[int]] = defaultdict(list)
    output: dict[int, int] = {}
    for job, dataset, direction in edges:
        (inputs[job].append(dataset) if direction == "input" else output.__setitem__(job, dataset))
    runs = history_rows(shape, 1)["runs"]
    now = datetime.now(UTC)
    shapes: dict[int, tuple[int, list[tuple[Any, ...]]]] = {}  # job -> (shape id, edges)
    run_shapes = []
    total = 0
    for run_pk, _uuid, job, *_ in runs:
        if job not in shapes:
            out = output[job]
            job_edges = sorted(
                {
                    (out, (out - 1) * shape.fields + f + 1, (dataset - 1) * shape.fields + f + 1,
                     "DIRECT", "IDENTITY")
                    for dataset in inputs[job]
                    for f in range(shape.fields)
                }
            )  # fmt: skip
            shapes[job] = (len(shapes) + 1, job_edges)
        shape_id, job_edges = shapes[job]
        run_shapes.append((run_pk, shape_id))
        total += len(job_edges)
    _bulk(
        engine,
        "column_lineage_shapes",
        ["id", "digest", "edge_count", "created_at"],
        [(i, digest(e), len(e), now) for i, e in shapes.values()],
    )
    _bulk(
        engine,
        "column_lineage_shape_edges",
        ["shape_id", "output_dataset_id", "output_field_id", "input_field_id",
         "transformation_type", "transformation_subtype"],
        [(i, *edge) for i, e in shapes.values() for edge in e],
    )  # fmt: skip
    _bulk(engine, "run_column_shapes", ["run_id", "shape_id"], sorted(run_shapes))
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "SELECT setval(pg_get_serial_sequence('column_lineage_shapes', 'id'),"
                    " (SELECT MAX(id) FROM column_lineage_shapes))"
                )
            )
    return total


def new_events(shape: Shape, count: int) -> list[dict[str, Any]]:
    """``count`` events: START and COMPLETE of ``count / 2`` new runs of existing jobs, a day
    after the loaded round, naming their inputs and output with column lineage."""
    _datasets, jobs, edges, _fields = graph_rows(shape)
    names = dict(_datasets)
    inputs: dict[int, list[int]] = defaultdict(list)
    output: dict[int, int] = {}
    for job, dataset, direction in edges:
        (inputs[job].append(dataset) if direction == "input" else output.__setitem__(job, dataset))
    events = []
    day = NOW + timedelta(days=3)
    for n, (job, job_name) in enumerate(jobs[: count // 2]):
        lineage = {
            f"c{f}": {"inputFields": [
                {"namespace": NS, "name": names[d], "field": f"c{f}",
                 "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}]}
                for d in inputs[job]
            ]}
            for f in range(shape.fields)
        }  # fmt: skip
        out = {
            "namespace": NS,
            "name": names[output[job]],
            "facets": {
                "columnLineage": {"_producer": PRODUCER, "_schemaURL": RUN_EVENT, "fields": lineage}
            },
        }
        ins = [{"namespace": NS, "name": names[d]} for d in inputs[job]]
        run = f"00000000-0000-4000-9000-{n:012d}"
        for kind, second in (("START", 0), ("COMPLETE", 30)):
            events.append({
                "eventType": kind, "eventTime": (day + timedelta(seconds=n + second)).isoformat(),
                "producer": PRODUCER, "schemaURL": RUN_EVENT, "run": {"runId": run},
                "job": {"namespace": NS, "name": job_name}, "inputs": ins, "outputs": [out],
            })  # fmt: skip
    return events


def export(db_url: str, out: Path, code: Path = ROOT) -> tuple[float, float, float, str]:
    """``plumbline export`` as a child process, from the checkout ``code``: wall seconds, its
    own CPU seconds (user + system: on SQLite the SQL's too; less inflated by a loaded machine
    than wall time), its own peak RSS in MiB, its output. The child runs under ``/usr/bin/time``:
    a process forked from this one would inherit this one's peak RSS (the graph's rows) as its
    own starting high-water mark."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    command = [sys.executable, "-m", "plumbline", "export", "--db", db_url, "--out", str(out)]
    began = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S %M", *command, "--quiet"],
        cwd=code, env=env, capture_output=True, text=True,
    )  # fmt: skip
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"plumbline export failed: {done.stdout}{done.stderr[-2000:]}")
    _elapsed, user, system, peak_kib = done.stderr.strip().splitlines()[-1].split()
    return wall, float(user) + float(system), int(peak_kib) / 1024, done.stdout


def spark_aggregate(out: Path) -> tuple[float, list[float], int]:
    """An aggregate over the exported column edges in local[2]: first run, then 3 more."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from plumbline.spark import lineage_tables

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    lineage_tables(spark, out)
    query = (
        "SELECT source_name, COUNT(*) AS edges, SUM(run_count) AS runs,"
        " COUNT(DISTINCT entity_id) AS jobs FROM plumbline.column_lineage_edges"
        " GROUP BY source_name ORDER BY runs DESC, source_name LIMIT 20"
    )
    began = time.perf_counter()
    spark.sql(query).collect()
    first = time.perf_counter() - began
    again = []
    for _ in range(3):
        began = time.perf_counter()
        spark.sql(query).collect()
        again.append(time.perf_counter() - began)
    rows = spark.sql("SELECT COUNT(*) FROM plumbline.column_lineage_edges").collect()[0][0]
    spark.stop()
    return first, again, int(rows)


def is_built(engine: sa.Engine) -> bool:
    """Whether the store already holds the bench graph and history (a kept ``--db``)."""
    with engine.connect() as conn:
        try:
            return bool(conn.execute(sa.text("SELECT 1 FROM run_column_shapes LIMIT 1")).first())
        except sa.exc.DBAPIError:
            return False


def analyze_column_history(engine: sa.Engine) -> None:
    """Statistics of the column history, as the graph's loader gives its tables (it analyzes
    before this history is loaded): a store has them once autovacuum (off on the test server)
    or an operator ran; without them PostgreSQL plans a scan of all 1.5 million rows for a
    read of a few runs' rows. Done once: a kept store built before this keeps them."""
    postgres = engine.dialect.name == "postgresql"
    found = (
        "SELECT 1 FROM pg_stats WHERE tablename = 'run_column_shapes'"
        if postgres
        else "SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1' AND EXISTS"
        " (SELECT 1 FROM sqlite_stat1 WHERE tbl = 'run_column_shapes')"
    )
    tables = ("run_column_shapes", "column_lineage_shapes", "column_lineage_shape_edges")
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if conn.execute(sa.text(found)).first() is None:
            for table in tables:
                conn.execute(sa.text(f"{'VACUUM ' if postgres else ''}ANALYZE {table}"))


def build(engine: sa.Engine, shape: Shape, label: str) -> None:
    """Migrate and bulk-load the graph, the run history and the column history."""
    upgrade(engine)
    began = time.perf_counter()
    load(engine, shape)
    load_history(engine, shape, 1)
    history = load_column_history(engine, shape)
    analyze_column_history(engine)
    print(f"{label}: loaded in {time.perf_counter() - began:.1f} s"
          f" ({shape.jobs} jobs, {history} column history rows)", flush=True)  # fmt: skip


def pg_url(name: str) -> str:
    return sa.make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False)


def pg_admin(statement: str) -> None:
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(statement))
    admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="a 50x smaller graph")
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="after the incremental export, a full export of the same store into another folder:"
        " every file must hold the same rows (read with pyarrow, sorted), file by file",
    )
    parser.add_argument(
        "--db",
        help="keep the loaded bench store here for repeated runs (SQLite: a file path;"
        " PostgreSQL: a database name); built when it does not hold the bench data yet."
        " Each run works on a copy, so the kept store stays as built.",
    )
    parser.add_argument("--build-only", action="store_true", help="build --db, measure nothing")
    parser.add_argument(
        "--before",
        type=Path,
        help="a checkout of the code to compare with (e.g. `git archive main | tar -x -C DIR`):"
        " the same full and incremental exports run with it after this checkout's, on their own"
        " copy of the store",
    )
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    if args.db:
        kept = pg_url(args.db) if args.backend == "postgres" else f"sqlite:///{args.db}"
        if args.backend == "postgres" and not pg_exists(args.db):
            pg_admin(f'CREATE DATABASE "{args.db}"')
        engine = create_store_engine(kept)
        if not is_built(engine):
            build(engine, shape, args.backend)
        analyze_column_history(engine)  # a store kept from before the loader did
        engine.dispose()
        if args.build_only:
            return
    work = Path(tempfile.mkdtemp(prefix="plumbline-export-bench-"))
    runs = [("after", ROOT)] + ([("before", args.before)] if args.before else [])
    figures = {}
    try:
        for label, code in runs:
            db_url, pg_name = copy_store(args, shape, work / label)
            engine = create_store_engine(db_url)
            try:
                print(f"--- {label}: code at {code}", flush=True)
                figures[label] = measure(engine, db_url, shape, work / label, code)
                if args.verify:
                    verify(db_url, work / label, code)
            finally:
                engine.dispose()
                if pg_name:
                    drop_pg(pg_name)
        if args.before:
            print("\n| what | before | after | after / before |\n| --- | --- | --- | --- |")
            for what in figures["after"]:
                old, new = figures["before"][what], figures["after"][what]
                print(f"| {what} | {old:.1f} | {new:.1f} | {new / old:.3f} |")
        if not args.no_spark:
            first, again, rows = spark_aggregate(work / "after" / "export")
            print(
                f"spark local[2] aggregate over {rows} column edges: first {first:.1f} s, then"
                f" median {statistics.median(again):.1f} s of {len(again)}"
                f" (load {os.getloadavg()[0]:.1f})"
            )
        print(f"load average: {os.getloadavg()} on {os.cpu_count()} cores")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def copy_store(args: argparse.Namespace, shape: Shape, work: Path) -> tuple[str, str | None]:
    """A store to measure on: a copy of the kept ``--db``, or a fresh one built here."""
    work.mkdir(parents=True)
    if args.backend == "postgres":
        pg_name = f"{args.db or 'export_bench'}_run_{uuid.uuid4().hex[:6]}"
        template = f' TEMPLATE "{args.db}"' if args.db else ""
        pg_admin(f'CREATE DATABASE "{pg_name}"{template}')
        db_url = pg_url(pg_name)
    else:
        pg_name, db_url = None, f"sqlite:///{work / 'store.db'}"
        if args.db:
            shutil.copyfile(args.db, work / "store.db")
    if not args.db:
        engine = create_store_engine(db_url)
        build(engine, shape, args.backend)
        engine.dispose()
    return db_url, pg_name


def pg_exists(name: str) -> bool:
    admin = sa.create_engine(PG_ADMIN)
    with admin.connect() as conn:
        found = conn.execute(
            sa.text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}
        ).first()
    admin.dispose()
    return found is not None


def verify(db_url: str, work: Path, code: Path) -> None:
    """A full export of the store beside the incrementally updated one: the same files, each
    with the same rows (sorted: rows within a patched file are in no particular order)."""
    import pyarrow.parquet as pq

    full = work / "full"
    export(db_url, full, code)
    incremental = work / "export"

    def files(root: Path) -> set[Path]:
        return {p.relative_to(root) for p in root.rglob("part-*")}

    names = files(incremental)
    if names != files(full):
        raise SystemExit(f"verify: different files: {sorted(names ^ files(full))[:10]}")
    differ = []
    for name in sorted(names):
        if (incremental / name).read_bytes() == (full / name).read_bytes():
            continue
        tables = [pq.read_table(root / name) for root in (incremental, full)]
        keys = [(column, "ascending") for column in tables[0].column_names]
        if not tables[0].sort_by(keys).equals(tables[1].sort_by(keys)):
            differ.append(str(name))
    print(
        f"verify: incremental vs full export, {len(names)} files:"
        f" {'identical rows' if not differ else f'{len(differ)} differ: {differ[:10]}'}",
        flush=True,
    )
    if differ:
        raise SystemExit(1)


def measure(
    engine: sa.Engine, db_url: str, shape: Shape, work: Path, code: Path
) -> dict[str, float]:
    """The full export, 1,000 new events, then the incremental export, with the code at
    ``code``; the figures by name."""
    out = work / "export"
    wall, cpu, rss, said = export(db_url, out, code)
    print(
        f"full export: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss:.0f} MiB"
        f" (load {os.getloadavg()[0]:.1f})"
    )
    print(said, flush=True)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
    print(f"export size: {size:.0f} MiB")
    events = [parse_event(e) for e in new_events(shape, 1000)]
    began = time.perf_counter()
    writer_for(engine).write(events)
    print(f"1,000 new events written in {time.perf_counter() - began:.1f} s")
    again, again_cpu, again_rss, said = export(db_url, out, code)
    print(
        f"incremental export: {again:.1f} s wall, {again_cpu:.1f} s CPU, peak RSS"
        f" {again_rss:.0f} MiB (load {os.getloadavg()[0]:.1f})"
    )
    print(said, flush=True)
    return {
        "full export, s wall": wall,
        "full export, s CPU": cpu,
        "full export, peak RSS MiB": rss,
        "incremental export, s wall": again,
        "incremental export, s CPU": again_cpu,
        "incremental export, peak RSS MiB": again_rss,
    }


if __name__ == "__main__":
    main()
