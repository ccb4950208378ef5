"""Ingestion cost as the store grows: 3,000 and 30,000 events (300,000 with ``--huge``), both backends.

The events are ``bench/ingest.py``'s (3 inputs + 1 output, 20 fields with column lineage from each
input, START and COMPLETE per run, 200 jobs of a layered graph running again and again), built a
batch at a time from per-job templates (300,000 events would not fit in memory as dicts). For each
backend and size, on a fresh store:

- throughput until normalized: batches of 100 events posted to the real server (``python -m
  plumbline serve``, one process, ``--clients`` concurrent clients); the clock stops when the
  normalizer has written every event into the lineage tables (``--mode direct``: the store's
  write path in this process, batches of 100, no server);
- CPU per event, server and database apart: the server process's CPU and, on a local PostgreSQL,
  the CPU of the database's backend processes (autovacuum workers included), both from ``/proc``
  (backends are sampled during the run, so connections opened later count too). SQLite runs in
  the server's process: its CPU is the server's;
- disk growth by table (PostgreSQL ``pg_total_relation_size``, SQLite ``dbstat``; both with
  indexes), live rows, dead tuples, rows updated (HOT updates apart), inserted and read (index
  fetches and sequential scans) per table (``pg_stat_user_tables``, read after the server's
  connections closed so that their statistics are flushed). SQLite keeps no such counters:
  ``--mode direct`` counts the rows each UPDATE statement changed, per table (the updates of an
  upsert, ``INSERT ... ON CONFLICT DO UPDATE``, are not told apart from its inserts: not counted);
- the baseline: a raw insert of the same events (one row per event holding its JSON, batches of
  100, one transaction per batch) into the same database, in the same run, right after; printed
  as plumbline's throughput over the raw insert's.

A summary line per size follows, so that growth is visible at a glance.

    .venv/bin/python bench/ingest_scale.py                                   # 3,000 and 30,000
    .venv/bin/python bench/ingest_scale.py --huge                            # and 300,000
    .venv/bin/python bench/ingest_scale.py --sizes 3000 --backend postgresql --mode direct
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ingest import (  # noqa: E402
    FIELDS,
    LAYERS,
    PG_ADMIN,
    PRODUCER,
    RUN_EVENT,
    WIDTH,
    _cpu_seconds,
    _dataset_name,
    _facet,
    _load,
    fresh_database,
    server_process,
)

from plumbline.openlineage.body import parse_body  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.schema import metadata  # noqa: E402
from plumbline.store.write import writer_for  # noqa: E402

try:
    from plumbline.server.gc_schedule import schedule_full_collections  # noqa: E402
except ImportError:  # an older checkout (A/B runs)
    schedule_full_collections = None  # type: ignore[assignment]

TABLES = [table.name for table in metadata.sorted_tables]
RUN, TIME = "@@run@@", "@@time@@"
START = datetime(2026, 1, 1, tzinfo=UTC)


class EventSource:
    """``bench/ingest.py``'s events (same order, same content), as JSON text built from one
    template per job and event type: event ``i`` costs two string replacements."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.jobs = [(layer, index) for layer in range(LAYERS - 1) for index in range(WIDTH)]
        self.templates = [self._templates(layer, index) for layer, index in self.jobs]
        self.run_ids = [str(uuid.uuid4()) for _ in range(count // 2)]

    def _templates(self, layer: int, index: int) -> tuple[str, str]:
        schema = _facet(fields=[{"name": f, "type": "double"} for f in FIELDS])
        inputs = [_dataset_name(layer, index + offset) for offset in (-1, 0, 1)]
        output = _dataset_name(layer + 1, index)
        lineage = _facet(
            fields={
                f: {
                    "inputFields": [
                        {
                            "namespace": "bench",
                            "name": i,
                            "field": f,
                            "transformations": [{"type": "DIRECT", "subtype": "TRANSFORMATION"}],
                        }
                        for i in inputs
                    ]
                }
                for f in FIELDS
            }
        )
        found = []
        for event_type in ("START", "COMPLETE"):
            event = {
                "eventType": event_type,
                "eventTime": TIME,
                "producer": PRODUCER,
                "schemaURL": RUN_EVENT,
                "run": {"runId": RUN},
                "job": {"namespace": "bench", "name": f"job_{layer}_{index:03d}"},
                "inputs": [{"namespace": "bench", "name": i} for i in inputs],
                "outputs": [
                    {
                        "namespace": "bench",
                        "name": output,
                        "facets": {"schema": schema, "columnLineage": lineage},
                    }
                ],
            }
            found.append(json.dumps(event))
        return found[0], found[1]

    def event(self, i: int) -> str:
        run, step = divmod(i, 2)
        text = self.templates[run % len(self.jobs)][step]
        moment = (START + timedelta(seconds=2 * run + step)).isoformat()
        return text.replace(RUN, self.run_ids[run]).replace(TIME, moment)

    def batch(self, start: int, size: int = 100) -> list[str]:
        return [self.event(i) for i in range(start, min(start + size, self.count))]


class BackendCpu:
    """CPU seconds of a local PostgreSQL database's backend processes, sampled from ``/proc`` by a
    thread (so that connections opened during the run count); ``exclude``: backends to leave out
    (the benchmark's own). On another host or SQLite: always None."""

    def __init__(self, db_url: str) -> None:
        url = sa.make_url(db_url)
        self.database = url.database
        self.local = url.get_backend_name() == "postgresql" and url.host in (
            "127.0.0.1",
            "localhost",
        )
        self.exclude: set[int] = set()
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _pids(self, connection: sa.Connection) -> list[int]:
        rows = connection.execute(
            sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :name"),
            {"name": self.database},
        ).scalars()
        return [pid for pid in rows if pid not in self.exclude]

    def _sample(self, connection: sa.Connection, first: bool) -> None:
        for pid in self._pids(connection):
            seconds = _cpu_seconds([pid])
            if first:
                self.first[pid] = seconds
            self.last[pid] = seconds

    def start(self) -> None:
        if not self.local:
            return
        admin = sa.create_engine(PG_ADMIN)
        with admin.connect() as connection:
            self._sample(connection, True)

        def loop() -> None:
            with admin.connect() as connection:
                while not self._stop.wait(0.2):
                    self._sample(connection, False)
                    connection.commit()
            admin.dispose()

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> float | None:
        """CPU seconds used by the backends since start()."""
        if not self.local or self._thread is None:
            return None
        self._stop.set()
        self._thread.join()
        return sum(value - self.first.get(pid, 0.0) for pid, value in self.last.items())


def process_cpu(pid: int) -> float:
    return _cpu_seconds([pid])


@dataclass
class TableFigures:
    rows: int
    bytes: int
    dead: int | None = None
    updated: int | None = None
    hot: int | None = None
    inserted: int | None = None
    read: int | None = None  # tuples read: by index scans (fetched) and sequential scans


@dataclass
class Result:
    backend: str
    size: int
    mode: str
    rate: float = 0.0
    answered: float = 0.0
    server_ms: float = 0.0
    db_ms: float | None = None
    raw_rate: float = 0.0
    tables: dict[str, TableFigures] = field(default_factory=dict)
    empty: dict[str, int] = field(default_factory=dict)
    file_bytes: int = 0

    @property
    def grown(self) -> int:
        return sum(t.bytes - self.empty.get(name, 0) for name, t in self.tables.items())


def table_bytes(engine: sa.Engine) -> dict[str, int]:
    """table -> bytes with its indexes."""
    found = {}
    with engine.connect() as connection:
        for table in TABLES:
            if engine.dialect.name == "sqlite":
                size = connection.execute(
                    sa.text(
                        "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN "
                        "(SELECT name FROM sqlite_master WHERE tbl_name = :table)"
                    ),
                    {"table": table},
                ).scalar_one()
            else:
                size = connection.execute(
                    sa.text("SELECT pg_total_relation_size(CAST(:table AS regclass))"),
                    {"table": table},
                ).scalar_one()
            found[table] = int(size)
    return found


def backends_gone(db_url: str, timeout: float = 30.0) -> None:
    """Wait until no backend serves the database (PostgreSQL flushes a backend's table
    statistics when it exits), then a moment for the statistics to be readable."""
    url = sa.make_url(db_url)
    if url.get_backend_name() != "postgresql":
        return
    admin = sa.create_engine(PG_ADMIN)
    deadline = time.monotonic() + timeout
    with admin.connect() as connection:
        while time.monotonic() < deadline:
            left = connection.execute(
                sa.text("SELECT count(*) FROM pg_stat_activity WHERE datname = :name"),
                {"name": url.database},
            ).scalar_one()
            connection.commit()
            if not left:
                break
            time.sleep(0.2)
    admin.dispose()
    time.sleep(0.5)


def table_figures(db_url: str, updates: dict[str, int] | None = None) -> dict[str, TableFigures]:
    """Rows, bytes and (PostgreSQL) dead tuples, updates and inserts per store table."""
    engine = create_store_engine(db_url)
    sizes = table_bytes(engine)
    found: dict[str, TableFigures] = {}
    with engine.connect() as connection:
        stats = {}
        if engine.dialect.name == "postgresql":
            stats = {
                row.relname: row
                for row in connection.execute(
                    sa.text(
                        "SELECT relname, n_live_tup, n_dead_tup, n_tup_upd, n_tup_hot_upd, "
                        "n_tup_ins, coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) AS read "
                        "FROM pg_stat_user_tables"
                    )
                )
            }
        for table in TABLES:
            rows = connection.execute(
                sa.select(sa.func.count()).select_from(sa.table(table))
            ).scalar_one()
            figures = TableFigures(rows=rows, bytes=sizes[table])
            if table in stats:
                row = stats[table]
                figures.dead, figures.updated = row.n_dead_tup, row.n_tup_upd
                figures.hot, figures.inserted = row.n_tup_hot_upd, row.n_tup_ins
                figures.read = row.read
            elif updates is not None:
                figures.updated = updates.get(table, 0)
            found[table] = figures
    engine.dispose()
    return found


def wait_normalized(db_url: str, exclude: set[int]) -> None:
    """Until no pending event is left; this connection's backend is added to ``exclude`` (its
    polling is the benchmark's cost, not the store's)."""
    engine = create_store_engine(db_url)
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "postgresql":
                exclude.add(connection.execute(sa.text("SELECT pg_backend_pid()")).scalar_one())
            while True:
                left = connection.execute(
                    sa.text("SELECT count(*) FROM pending_events WHERE failed_at IS NULL")
                ).scalar_one()
                connection.commit()
                if not left:
                    return
                time.sleep(0.1)
    finally:
        engine.dispose()


def post_batches(url: str, source: EventSource, clients: int) -> float:
    """Post every batch of 100 (clients take the next batch in turn, each on one kept-alive
    connection); returns the wall time."""
    address = urllib.parse.urlsplit(url)
    failures: list[str] = []
    lock = threading.Lock()
    starts = iter(range(0, source.count, 100))

    def client() -> None:
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=600)
        try:
            while True:
                with lock:
                    start = next(starts, None)
                if start is None:
                    return
                body = ("[" + ",".join(source.batch(start)) + "]").encode()
                headers = {"Content-Type": "application/json"}
                connection.request(
                    "POST",
                    "/api/v1/lineage",
                    body=body,
                    headers={"Content-Type": "application/json"},
                )
                response = connection.getresponse()
                text = response.read()
                while response.status == 503:  # the ingestion memory budget: retry, as told
                    time.sleep(float(response.getheader("Retry-After") or 1))
                    # the server may close the connection after a 503 (it has not read the
                    # body): a retry on it was a broken pipe that ended this client and lost
                    # its batch; close() makes the next request open a new connection
                    connection.close()
                    connection.request("POST", "/api/v1/lineage", body=body, headers=headers)
                    response = connection.getresponse()
                    text = response.read()
                if response.status != 201:
                    failures.append(f"{response.status} {text[:200]!r}")
        except Exception as error:  # a client that dies must fail the run, not lose batches
            failures.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError(f"{len(failures)} requests failed, e.g. {failures[0]}")
    return time.perf_counter() - started


def over_http(db_url: str, source: EventSource, clients: int, result: Result) -> None:
    cpu = BackendCpu(db_url)
    with server_process(db_url) as (url, process):
        time.sleep(0.5)
        cpu.start()
        server_start = process_cpu(process.pid)
        started = time.perf_counter()
        answered = post_batches(url, source, clients)
        wait_normalized(db_url, cpu.exclude)
        elapsed = time.perf_counter() - started
        server_seconds = process_cpu(process.pid) - server_start
        db_seconds = cpu.stop()
    result.rate, result.answered = source.count / elapsed, source.count / answered
    result.server_ms = 1000 * server_seconds / source.count
    result.db_ms = None if db_seconds is None else 1000 * db_seconds / source.count


class UpdateCounter:
    """Rows changed by UPDATE statements per table, from each cursor's rowcount (SQLite keeps no
    per-table counters)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.rows: dict[str, int] = {}
        sa.event.listen(engine, "after_cursor_execute", self._after)

    def _after(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        text = statement.lstrip()
        if text[:6].upper() == "UPDATE" and cursor.rowcount and cursor.rowcount > 0:
            table = text.split(None, 2)[1].strip('"')
            self.rows[table] = self.rows.get(table, 0) + cursor.rowcount


def direct(db_url: str, source: EventSource, result: Result) -> dict[str, int]:
    """The store's write path in this process, batches of 100 (parsing outside the CPU figure)."""
    if schedule_full_collections is not None:
        schedule_full_collections()
    engine = create_store_engine(db_url)
    counter = UpdateCounter(engine)
    writer = writer_for(engine)
    cpu = BackendCpu(db_url)
    with engine.connect() as connection:  # one pooled connection exists before sampling
        connection.execute(sa.text("SELECT 1"))
    cpu.start()
    python = 0.0
    started = time.perf_counter()
    for start in range(0, source.count, 100):
        parsed = parse_body(("[" + ",".join(source.batch(start)) + "]").encode()).outcomes
        before = time.process_time()
        writer.write(parsed)  # type: ignore[arg-type]
        python += time.process_time() - before
    elapsed = time.perf_counter() - started
    db_seconds = cpu.stop()
    engine.dispose()
    result.rate = result.answered = source.count / elapsed
    result.server_ms = 1000 * python / source.count
    result.db_ms = None if db_seconds is None else 1000 * db_seconds / source.count
    return counter.rows


def raw_insert(db_url: str, source: EventSource) -> float:
    """The baseline: one row per event holding its JSON, batches of 100, one transaction per batch,
    into the same database; events/s (the table is dropped afterwards)."""
    engine = create_store_engine(db_url)
    kind = "json" if engine.dialect.name == "postgresql" else "text"
    key = "bigserial PRIMARY KEY" if kind == "json" else "INTEGER PRIMARY KEY"
    with engine.begin() as connection:
        connection.execute(sa.text(f"CREATE TABLE bench_raw_events (id {key}, body {kind})"))
    insert = sa.text("INSERT INTO bench_raw_events (body) VALUES (:body)")
    elapsed = 0.0
    for start in range(0, source.count, 100):
        rows = [{"body": text} for text in source.batch(start)]
        started = time.perf_counter()
        with engine.begin() as connection:
            connection.execute(insert, rows)
        elapsed += time.perf_counter() - started
    with engine.begin() as connection:
        connection.execute(sa.text("DROP TABLE bench_raw_events"))
    engine.dispose()
    return source.count / elapsed


def measure(backend: str, size: int, mode: str, clients: int) -> Result:
    source = EventSource(size)
    result = Result(backend, size, mode)
    with fresh_database(backend) as db_url:
        engine = create_store_engine(db_url)
        result.empty = table_bytes(engine)
        engine.dispose()
        before = _load()
        updates = None
        if mode == "http":
            over_http(db_url, source, clients, result)
        else:
            updates = direct(db_url, source, result)
        backends_gone(db_url)  # closed backends have flushed their statistics
        result.tables = table_figures(db_url, updates)
        if backend == "sqlite":
            path = Path(sa.make_url(db_url).database or "")
            result.file_bytes = sum(
                p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists()
            )
        result.raw_rate = raw_insert(db_url, source)
        runs = result.tables["runs"].rows
        assert runs == size // 2, f"{runs} runs stored, {size // 2} expected"
        report(result, before)
    return result


def report(result: Result, load_before: str) -> None:
    db = "" if result.db_ms is None else f" + database {result.db_ms:.2f} ms"
    total = result.server_ms + (result.db_ms or 0.0)
    who = "server" if result.mode == "http" else "python"
    print(
        f"\n{result.backend} {result.size:,} events ({result.mode}): {result.rate:.0f} ev/s until "
        f"normalized ({result.answered:.0f} ev/s answered); raw insert {result.raw_rate:.0f} ev/s, "
        f"ratio {result.rate / result.raw_rate:.2f}; CPU per event {who} {result.server_ms:.2f} ms"
        f"{db} = {total:.2f} ms; disk +{result.grown / 2**20:.1f} MiB (load {load_before} -> "
        f"{_load()})"
    )
    if result.file_bytes:
        print(f"  SQLite files (database + WAL): {result.file_bytes / 2**20:.1f} MiB")
    print(
        f"  {'table':<26}{'rows':>10}{'+KiB':>10}{'dead':>10}{'updated':>10}{'(HOT)':>10}"
        f"{'inserted':>10}{'read':>11}"
    )
    shown = sorted(result.tables.items(), key=lambda item: -item[1].bytes)
    for name, t in shown:
        grown = t.bytes - result.empty.get(name, 0)
        if not t.rows and not grown and not t.updated:
            continue

        def cell(value: int | None) -> str:
            return f"{'-' if value is None else value:>10}"

        print(
            f"  {name:<26}{t.rows:>10}{grown // 1024:>10}{cell(t.dead)}{cell(t.updated)}"
            f"{cell(t.hot)}{cell(t.inserted)}{cell(t.read):>11}"
        )


def summary(results: list[Result]) -> None:
    print(
        f"\n{'backend':<12}{'mode':<8}{'events':>9}{'ev/s':>8}{'/raw':>7}{'server ms':>11}"
        f"{'db ms':>8}{'total ms':>10}{'+MiB':>8}{'dead':>9}{'updated':>10}{'read/event':>12}"
    )
    for r in results:
        dead = sum(t.dead or 0 for t in r.tables.values())
        updated = sum(t.updated or 0 for t in r.tables.values())
        read = sum(t.read or 0 for t in r.tables.values()) / r.size
        db = "-" if r.db_ms is None else f"{r.db_ms:.2f}"
        print(
            f"{r.backend:<12}{r.mode:<8}{r.size:>9,}{r.rate:>8.0f}{r.rate / r.raw_rate:>7.2f}"
            f"{r.server_ms:>11.2f}{db:>8}{r.server_ms + (r.db_ms or 0):>10.2f}"
            f"{r.grown / 2**20:>8.1f}{dead:>9}{updated:>10}{read:>12.0f}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", type=int, action="append", help="events per measurement (default 3000, 30000)"
    )
    parser.add_argument("--huge", action="store_true", help="also 300,000 events")
    parser.add_argument(
        "--backend", choices=("sqlite", "postgresql"), action="append", help="default both"
    )
    parser.add_argument(
        "--mode",
        choices=("http", "direct"),
        default="http",
        help="http: the real server (default); direct: the store's write path in this process",
    )
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    args = parser.parse_args(argv)
    sizes = list(args.sizes or (3000, 30000)) + ([300_000] if args.huge else [])
    results = []
    for size in sizes:
        for backend in args.backend or ("sqlite", "postgresql"):
            results.append(measure(backend, size, args.mode, args.clients))
    summary(results)


if __name__ == "__main__":
    main()
