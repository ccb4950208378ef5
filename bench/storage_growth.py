"""Storage growth: rows and bytes of every store table after the same job runs again and again.

One job (3 inputs, 1 output, 20 fields with column lineage from each input: the shape of
``bench/ingest.py``) runs ``--repeats`` times; each run sends START and COMPLETE. The events go
through the store's write path directly (no HTTP: this measures what is kept, not how fast), in
batches of 100, on SQLite and PostgreSQL side by side. Edge tables must not grow after the first
run; runs, run states, run inputs/outputs, dataset versions and raw events grow (and can be pruned).

    .venv/bin/python bench/storage_growth.py                   # 100,000 repeats
    .venv/bin/python bench/storage_growth.py --repeats 2000
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ingest import fresh_database, make_events  # noqa: E402

from plumbline.openlineage import parse_event  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.schema import metadata  # noqa: E402
from plumbline.store.write import writer_for  # noqa: E402

EDGE_TABLES = ("job_dataset_edges", "column_lineage_edges", "column_dataset_edges")
TABLES = [table.name for table in metadata.sorted_tables]


def run_events(template: list[dict[str, Any]], repeat: int) -> list[dict[str, Any]]:
    """The template run (START, COMPLETE) again, with a new run id and later times."""
    run_id = str(uuid.uuid4())
    events = copy.deepcopy(template)
    for step, event in enumerate(events):
        event["run"]["runId"] = run_id
        event["eventTime"] = (
            datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=2 * repeat + step)
        ).isoformat()
    return events


def table_sizes(engine: sa.Engine) -> dict[str, tuple[int, int]]:
    """table -> (rows, bytes with its indexes)."""
    sizes = {}
    with engine.connect() as connection:
        sqlite = engine.dialect.name == "sqlite"
        for table in TABLES:
            rows = connection.execute(
                sa.select(sa.func.count()).select_from(sa.table(table))
            ).scalar_one()
            if sqlite:
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
            sizes[table] = (rows, size)
    return sizes


def grow(
    backend: str, repeats: int
) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]], float]:
    """Sizes after the first run and after all ``repeats``, and the seconds it took."""
    template = make_events(2)  # one run of one job: START and COMPLETE
    with fresh_database(backend) as db_url:
        engine = create_store_engine(db_url)
        writer = writer_for(engine)
        writer.write([parse_event(e) for e in run_events(template, 0)])
        first = table_sizes(engine)
        started = time.perf_counter()
        pending: list[dict[str, Any]] = []
        for repeat in range(1, repeats):
            pending += run_events(template, repeat)
            if len(pending) >= 100 or repeat == repeats - 1:
                writer.write([parse_event(e) for e in pending])
                pending = []
        elapsed = time.perf_counter() - started
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(sa.text("VACUUM ANALYZE"))
        last = table_sizes(engine)
        engine.dispose()
    return first, last, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repeats", type=int, default=100_000, help="runs of the job (default 100,000)"
    )
    args = parser.parse_args()
    results = {backend: grow(backend, args.repeats) for backend in ("sqlite", "postgresql")}
    print(
        f"{args.repeats} runs of one job ({2 * args.repeats} events), rows and KiB per table after 1 run -> after all"
    )
    header = f"{'table':<22}" + "".join(f"{b + ' rows':>26}{b + ' KiB':>24}" for b in results)
    print(header)
    for table in TABLES:
        line = f"{table:<22}"
        for first, last, _ in results.values():
            line += f"{first[table][0]:>12} -> {last[table][0]:>9}{first[table][1] // 1024:>10} -> {last[table][1] // 1024:>10}"
        print(line)
    for backend, (first, last, elapsed) in results.items():
        grown = [t for t in EDGE_TABLES if last[t][0] != first[t][0]]
        verdict = "edge tables did not grow" if not grown else f"EDGE TABLES GREW: {grown}"
        print(
            f"{backend}: {verdict}; {2 * (args.repeats - 1) / elapsed:.0f} events/s while growing"
        )


if __name__ == "__main__":
    main()
