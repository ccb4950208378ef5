"""Ingestion throughput of ``POST /api/v1/lineage`` over HTTP, on SQLite and PostgreSQL side by side.

Synthetic but realistic events (the shape of a Spark action): 3 inputs, 1 output with a 20-field
schema and column lineage for every field (each from the same field of all 3 inputs: 60 field
edges per event), START and COMPLETE per run, jobs laid out as a layered graph with fan-in and
fan-out of 3, the same jobs running again and again. Bodies are serialized before the clock starts.

For each backend, on a fresh database each time:
- http single: one event per request, 8 concurrent clients;
- http batch:  100 events per request, 8 concurrent clients (``--batch-clients``; sessions up
               to 3 used 2);
- direct:      the baseline, the same events written by the store's write path in batches of
               100 with no server in between (the batch bodies parsed as the server parses
               them, before the clock starts; full garbage collections on the server's
               timer, plumbline.server.gc_schedule); it also
               prints the CPU time per event of this process and (local PostgreSQL) of the
               database's backend processes, a figure that moves far less with the machine's load.
Throughput counts until every event is in the lineage tables: the server answers once events are
stored raw, and the clock stops when its normalizer has written them all (both rates are
printed). The server is the real one (``python -m plumbline serve``, a separate process). PostgreSQL is
measured over HTTP twice: with one server process and with ``--pg-workers`` (default 2, the
machine's cores) processes (``plumbline serve --workers N``).

    .venv/bin/python bench/ingest.py              # 4,000 events per measurement
    .venv/bin/python bench/ingest.py --events 1000
    .venv/bin/python bench/ingest.py --events 2000 --backend postgresql
    .venv/bin/python bench/ingest.py --backend postgresql --mode http_batch --mode direct
    .venv/bin/python bench/ingest.py --backend postgresql --batch-clients 2 --pg-workers 1
    .venv/bin/python bench/ingest.py --alerts-ab 3 --events 2000   # detection off/on, side by side

The load average (``os.getloadavg``) is printed before and after each measurement: on a shared
machine, compare code versions side by side in one session (interleaved), not across sessions.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from plumbline.openlineage import ParsedEvent  # noqa: E402
from plumbline.openlineage.body import parse_body  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.migrate import upgrade  # noqa: E402
from plumbline.store.write import writer_for  # noqa: E402

try:  # an older checkout (A/B runs) has no change alerts
    from plumbline.store.write.alert_rules import AlertRules  # noqa: E402
except ImportError:
    AlertRules = None  # type: ignore[assignment,misc]

try:  # the direct mode runs its writer with the garbage collection a server process has
    from plumbline.server.gc_schedule import schedule_full_collections  # noqa: E402
except ImportError:  # an older checkout (A/B runs): CPython's own schedule, as its server had
    schedule_full_collections = None  # type: ignore[assignment]

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PRODUCER = "https://github.com/example/plumbline-bench"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
FIELDS = [f"field_{i:02d}" for i in range(20)]
LAYERS, WIDTH = 6, 40  # 240 datasets, 200 jobs (each reads 3 of layer k, writes 1 of layer k+1)


def _facet(**fields: Any) -> dict[str, Any]:
    return {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/X.json",
        **fields,
    }


def _dataset_name(layer: int, index: int) -> str:
    return f"warehouse.layer_{layer}.table_{index % WIDTH:03d}"


def make_events(count: int) -> list[dict[str, Any]]:
    """``count`` events: START and COMPLETE of count/2 runs over the jobs of the layered graph."""
    schema = _facet(fields=[{"name": f, "type": "double"} for f in FIELDS])
    start = datetime(2026, 1, 1, tzinfo=UTC)
    events = []
    jobs = [(layer, index) for layer in range(LAYERS - 1) for index in range(WIDTH)]
    for run in range(count // 2):
        layer, index = jobs[run % len(jobs)]
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
        run_id = str(uuid.uuid4())
        for step, event_type in enumerate(("START", "COMPLETE")):
            events.append(
                {
                    "eventType": event_type,
                    "eventTime": (start + timedelta(seconds=2 * run + step)).isoformat(),
                    "producer": PRODUCER,
                    "schemaURL": RUN_EVENT,
                    "run": {"runId": run_id},
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
            )
    return events


@contextmanager
def fresh_database(backend: str, *, migrate: bool = True) -> Iterator[str]:
    """An empty store database, dropped afterwards; migrated by this checkout unless ``migrate``
    is False (then the server of the version measured migrates it itself)."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as directory:
            url = f"sqlite:///{directory}/bench.db"
            if migrate:
                engine = create_store_engine(url)
                upgrade(engine)
                engine.dispose()
            yield url
        return
    prefix = os.environ.get("PLUMBLINE_BENCH_DB_PREFIX", "plumbline")  # whose database it is
    name = f"{prefix}_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.make_url(PG_ADMIN).set(database=name).render_as_string(False)
    try:
        if migrate:
            engine = create_store_engine(url)
            upgrade(engine)
            engine.dispose()
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def server_process(
    db_url: str, workers: int = 1, tree: Path = ROOT
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The real server of source tree ``tree`` in its own process(es): (base URL, process)."""
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "plumbline", "serve", "--db", db_url, "--port", "0"),
            # only when needed, so that this file also measures older checkouts (A/B)
            *(("--workers", str(workers)) if workers > 1 else ()),
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        url = line.removeprefix("plumbline serving on ")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/api/v1/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        yield url, process
    finally:
        process.terminate()
        process.wait(30)


@contextmanager
def server(db_url: str, workers: int = 1) -> Iterator[str]:
    """The real server of this checkout in its own process(es); yields its base URL."""
    with server_process(db_url, workers) as (url, _process):
        yield url


def post_all(url: str, bodies: list[bytes], clients: int) -> float:
    """Post every body (clients share the list round-robin, each on one kept-alive connection);
    returns the wall time. The clients use the standard library's ``http.client``: the
    benchmark's own CPU is taken from the same 2 cores as the server's, and httpx cost about
    three times as much per request (1.2 ms against 0.4 ms, session 5)."""
    failures: list[str] = []
    address = urllib.parse.urlsplit(url)

    def client(offset: int) -> None:
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=300)
        try:
            for body in bodies[offset::clients]:
                connection.request(
                    "POST",
                    "/api/v1/lineage",
                    body=body,
                    headers={"Content-Type": "application/json"},
                )
                response = connection.getresponse()
                text = response.read()
                if response.status != 201:
                    failures.append(f"{response.status} {text[:200]!r}")
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{len(failures)} requests failed, e.g. {failures[0]}")
    return elapsed


def wait_normalized(db_url: str) -> None:
    """Wait until the server has normalized every accepted event (no pending rows left; older
    code, without the table, normalized before answering)."""
    engine = create_store_engine(db_url)
    try:
        with engine.connect() as connection:
            if not sa.inspect(connection).has_table("pending_events"):
                return
        while True:
            with engine.connect() as connection:
                left = connection.execute(
                    sa.text("SELECT count(*) FROM pending_events WHERE failed_at IS NULL")
                ).scalar_one()
            if not left:
                return
            time.sleep(0.005)
    finally:
        engine.dispose()


def normalized_runs(db_url: str) -> int:
    """Runs in the lineage tables whose START and COMPLETE were both normalized."""
    engine = create_store_engine(db_url)
    with engine.connect() as connection:
        done = connection.execute(
            sa.text("SELECT count(*) FROM runs WHERE current_state = 'COMPLETE'")
        ).scalar_one()
    engine.dispose()
    return done


def stored_events(db_url: str) -> int:
    engine = create_store_engine(db_url)
    with engine.connect() as connection:
        stored = connection.execute(sa.text("SELECT count(*) FROM lineage_events")).scalar_one()
    engine.dispose()
    return stored


MODES = ("http_single", "http_batch", "direct")


def _load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def measure(
    backend: str,
    events: list[dict[str, Any]],
    modes: tuple[str, ...] = MODES,
    direct_batch: int = 100,
    workers: int = 1,
    batch_clients: int = 8,
) -> dict[str, float]:
    """events/s for single HTTP, batched HTTP and the direct baseline on ``backend``."""
    singles = [json.dumps(e).encode() for e in events]
    batches = [json.dumps(events[i : i + 100]).encode() for i in range(0, len(events), 100)]
    results = {mode: float("nan") for mode in MODES}
    for mode, bodies, clients in (
        ("http_single", singles, 8),
        ("http_batch", batches, batch_clients),
    ):
        if mode not in modes:
            continue
        with fresh_database(backend) as db_url, server(db_url, workers) as url:
            before = _load()
            started = time.perf_counter()
            answered = post_all(url, bodies, clients)
            wait_normalized(db_url)  # the clock stops once every event is in the lineage tables
            elapsed = time.perf_counter() - started
            print(
                f"  {backend} {mode} ({workers} server process{'es' if workers > 1 else ''}): "
                f"{len(events) / elapsed:.0f} ev/s normalized, {len(events) / answered:.0f} ev/s "
                f"answered (load {before} -> {_load()})"
            )
            assert stored_events(db_url) == len(events)
            assert normalized_runs(db_url) == len(events) // 2
            results[mode] = len(events) / elapsed
    if "direct" not in modes:
        return results
    if schedule_full_collections is not None:
        schedule_full_collections()
    rate, _, _ = direct_write(backend, batches, len(events), direct_batch)
    results["direct"] = rate
    return results


def direct_write(
    backend: str, batches: list[bytes], count: int, direct_batch: int, alerts: bool = True
) -> tuple[float, float, float | None]:
    """The direct baseline: (events/s, CPU ms per event of this process, of the database's
    backends or None). ``alerts`` False: change alert detection off (AlertRules(enabled=False))."""
    with fresh_database(backend) as db_url:
        # parsed as the server parses a batch body (repeated pieces shared), before the clock
        parsed = [event for body in batches for event in parse_body(body).outcomes]
        assert all(isinstance(event, ParsedEvent) for event in parsed)
        engine = create_store_engine(db_url)
        writer = writer_for(engine)
        if not alerts and AlertRules is not None:
            writer.normalizer.alert_rules = AlertRules(enabled=False)
        before = _load()
        started = time.perf_counter()
        writer.write(parsed[:direct_batch])
        # CPU from the second write on: this process (all threads) and the database's backends
        cpu_start, backends = time.process_time(), _backends(db_url)
        db_start = _cpu_seconds(backends)
        for i in range(direct_batch, len(parsed), direct_batch):
            writer.write(parsed[i : i + direct_batch])
        rate = count / (time.perf_counter() - started)
        measured = len(parsed) - direct_batch
        python_ms = 1000 * (time.process_time() - cpu_start) / max(1, measured)
        db_ms = (
            None if not backends else 1000 * (_cpu_seconds(backends) - db_start) / max(1, measured)
        )
        db = "" if db_ms is None else f", postgres {db_ms:.2f} ms"
        detection = "" if alerts else ", alerts off"
        print(
            f"  {backend} direct (batches of {direct_batch}{detection}): {rate:.0f} ev/s "
            f"(load {before} -> {_load()}); CPU per event: python {python_ms:.2f} ms{db}"
        )
        engine.dispose()
        assert stored_events(db_url) == count
    return rate, python_ms, db_ms


def alerts_ab(backend: str, events: list[dict[str, Any]], pairs: int, direct_batch: int) -> None:
    """Change alert detection off and on, interleaved (the order alternates), in the direct mode:
    the CPU per event of each pair side by side and the median ratios on/off."""
    batches = [json.dumps(events[i : i + 100]).encode() for i in range(0, len(events), 100)]
    if schedule_full_collections is not None:
        schedule_full_collections()
    python_ratios, total_ratios = [], []
    for pair in range(pairs):
        order = (False, True) if pair % 2 == 0 else (True, False)
        got = {on: direct_write(backend, batches, len(events), direct_batch, on) for on in order}
        (_, off_py, off_db), (_, on_py, on_db) = got[False], got[True]
        off_total, on_total = off_py + (off_db or 0.0), on_py + (on_db or 0.0)
        python_ratios.append(on_py / off_py)
        total_ratios.append(on_total / off_total)
        print(
            f"  pair {pair + 1}: CPU ms/event off {off_total:.3f} on {on_total:.3f} "
            f"(python {off_py:.3f} -> {on_py:.3f}) ratio {on_total / off_total:.3f}"
        )
    print(
        f"{backend} (batches of {direct_batch}): alerts on/off CPU per event, median of "
        f"{pairs} pairs: total {statistics.median(total_ratios):.3f}, python "
        f"{statistics.median(python_ratios):.3f} (load now {_load()})"
    )


def _backends(db_url: str) -> list[int]:
    """PostgreSQL backend processes serving ``db_url`` when they run on this machine, else []."""
    url = sa.make_url(db_url)
    if url.get_backend_name() != "postgresql" or url.host not in ("127.0.0.1", "localhost"):
        return []
    admin = sa.create_engine(PG_ADMIN)
    with admin.connect() as connection:
        pids = connection.execute(
            sa.text("SELECT pid FROM pg_stat_activity WHERE datname = :name"),
            {"name": url.database},
        ).scalars()
        found = [pid for pid in pids if Path(f"/proc/{pid}/stat").exists()]
    admin.dispose()
    return found


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes so far (from /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--events", type=int, default=4000, help="events per measurement (default 4000)"
    )
    parser.add_argument(
        "--backend",
        choices=("sqlite", "postgresql"),
        action="append",
        help="measure only this backend (repeatable; default both)",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        action="append",
        help="measure only this way of writing (repeatable; default all three)",
    )
    parser.add_argument(
        "--direct-batch",
        type=int,
        default=100,
        help="events per write in the direct mode (default 100; 4 is like 8 single-event clients)",
    )
    parser.add_argument(
        "--batch-clients",
        type=int,
        default=8,
        help="concurrent clients posting batches (default 8, as for single events)",
    )
    parser.add_argument(
        "--pg-workers",
        type=int,
        default=2,
        help="also measure PostgreSQL over HTTP with this many server processes "
        "(`plumbline serve --workers N`; default 2, 1 to skip)",
    )
    parser.add_argument(
        "--alerts-ab",
        type=int,
        metavar="PAIRS",
        help="instead: the direct mode with change alert detection off and on, PAIRS interleaved "
        "pairs per backend, CPU per event side by side (issue 19's <= 10%% budget)",
    )
    args = parser.parse_args()
    events = make_events(args.events)
    if args.alerts_ab:
        for backend in args.backend or ("sqlite", "postgresql"):
            alerts_ab(backend, events, args.alerts_ab, args.direct_batch)
        return
    size = sum(len(json.dumps(e)) for e in events) / len(events)
    print(f"{len(events)} events per measurement, {size / 1024:.1f} KiB each on average")
    rows: dict[str, dict[str, float]] = {}
    modes = tuple(args.mode or MODES)
    for backend in args.backend or ("sqlite", "postgresql"):
        rows[backend] = measure(
            backend, events, modes, args.direct_batch, batch_clients=args.batch_clients
        )
        if backend == "postgresql" and args.pg_workers > 1:
            http_modes = tuple(m for m in modes if m != "direct")
            if http_modes:  # the same server with more processes; the baseline is the same
                several = measure(
                    backend,
                    events,
                    http_modes,
                    workers=args.pg_workers,
                    batch_clients=args.batch_clients,
                )
                several["direct"] = rows[backend]["direct"]
                rows[f"{backend} x{args.pg_workers}"] = several
    print()
    print(
        f"{'backend (server processes)':<28}{'http single (8 clients)':>26}"
        f"{f'http batch 100 ({args.batch_clients} clients)':>29}{'direct (no server)':>21}"
        f"{'batch/direct':>15}{'single/direct':>15}"
    )
    for backend, r in rows.items():
        label = backend if " x" in backend else f"{backend} x1"
        print(
            f"{label:<28}{r['http_single']:>20.0f} ev/s{r['http_batch']:>23.0f} ev/s"
            f"{r['direct']:>15.0f} ev/s"
            f"{r['http_batch'] / r['direct']:>15.2f}{r['http_single'] / r['direct']:>15.2f}"
        )


if __name__ == "__main__":
    main()
