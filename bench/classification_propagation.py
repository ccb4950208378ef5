"""Classification propagation (issue 32 §1): on ``bench/lineage_query.py``'s graph (full size:
1.2 million column edges over 100,000 datasets in 50 layers), one source column of the first
layer is tagged and the tag is computed from scratch (:func:`classify.recompute`; it reaches a
cone of columns through 49 hops); then the incremental update one new event causes: three new
column edges out of tagged columns (:func:`classify.edges_added`, as the write path calls it),
and one event whose edges leave untagged columns (the common case: one query). Medians of
``--repeat`` runs, each rolled back; SQLite and/or PostgreSQL.

    .venv/bin/python bench/classification_propagation.py            # full size
    .venv/bin/python bench/classification_propagation.py --small    # 50x smaller
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from lineage_query import FULL, NOW, PG_ADMIN, SMALL, Shape, drop_pg, load, pg_database  # noqa: E402

from plumbline.store import schema as s  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402
from plumbline.store.migrate import upgrade  # noqa: E402
from plumbline.store.write import classify, tagging  # noqa: E402


def _timed(engine: sa.Engine, repeat: int, work: Callable[[sa.Connection], None]) -> list[float]:
    """Milliseconds of ``work`` in a transaction rolled back after each run."""
    times = []
    for _ in range(repeat):
        with engine.connect() as conn:
            transaction = conn.begin()
            started = time.perf_counter()
            work(conn)
            times.append((time.perf_counter() - started) * 1000)
            transaction.rollback()
    return times


def run(engine: sa.Engine, shape: Shape, repeat: int, label: str) -> None:
    upgrade(engine)
    started = time.perf_counter()
    load(engine, shape)
    print(f"{label}: graph loaded in {time.perf_counter() - started:.0f} s", flush=True)
    with engine.begin() as conn:
        tagging.put_tag(conn, "pii", None)
        tag = conn.execute(sa.select(s.tags.c.id).where(s.tags.c.name == "pii")).scalar_one()
        source = 1  # field c0 of ds_0_0
        conn.execute(
            sa.insert(s.dataset_field_tags).values(field_id=source, tag_id=tag, tagged_at=NOW)
        )
        edges = conn.execute(
            sa.select(sa.func.count()).select_from(s.column_lineage_edges)
        ).scalar()

    reached = 0

    def full(conn: sa.Connection) -> None:
        nonlocal reached
        classify.recompute(conn, [tag])
        reached = conn.execute(
            sa.select(sa.func.count()).select_from(s.column_classifications)
        ).scalar_one()

    full_ms = _timed(engine, repeat, full)
    print(f"{label}: {edges:,} column edges; one tagged column reaches {reached:,} columns")
    print(
        f"{label}: full propagation        median {statistics.median(full_ms):8.1f} ms  "
        f"(runs: {', '.join(f'{t:.0f}' for t in full_ms)})"
    )

    with engine.begin() as conn:  # kept: the incremental runs start from it
        classify.recompute(conn, [tag])
        f = s.dataset_fields
        carried = (
            conn.execute(
                sa.select(s.column_classifications.c.field_id)
                .order_by(s.column_classifications.c.hops.desc())
                .limit(3)
            )
            .scalars()
            .all()
        )
        dataset = conn.execute(sa.select(f.c.dataset_id).where(f.c.id == carried[0])).scalar_one()
        new_field = conn.execute(
            sa.insert(f)
            .values(dataset_id=dataset, name="bench_new", created_at=NOW, updated_at=NOW)
            .returning(f.c.id)
        ).scalar_one()
        untagged = (
            conn.execute(
                sa.select(f.c.id)
                .where(f.c.id.not_in(sa.select(s.column_classifications.c.field_id)))
                .order_by(f.c.id.desc())
                .limit(3)
            )
            .scalars()
            .all()
        )

    def event(inputs: list[int]) -> Callable[[sa.Connection], None]:
        rows = [
            {
                "output_field_id": new_field,
                "input_field_id": i,
                "transformation_type": "DIRECT",
                "transformation_subtype": "IDENTITY",
                "masking": False,
                "first_seen": NOW,
                "last_seen": NOW,
            }
            for i in inputs
        ]

        def work(conn: sa.Connection) -> None:
            conn.execute(sa.insert(s.column_lineage_edges), rows)
            started = time.perf_counter()
            classify.edges_added(conn, rows)
            spent.append((time.perf_counter() - started) * 1000)

        return work

    for name, inputs in (("tagged inputs", carried), ("untagged inputs", untagged)):
        spent: list[float] = []
        _timed(engine, repeat, event(list(inputs)))
        print(
            f"{label}: one event, 3 new edges, {name:<16} median {statistics.median(spent):6.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    args = parser.parse_args()
    shape = SMALL if args.small else FULL
    if args.backend in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            engine = create_store_engine(f"sqlite:///{tmp}/bench.db")
            run(engine, shape, args.repeat, "sqlite")
            engine.dispose()
    if args.backend in ("postgres", "both"):
        name, admin = pg_database()  # a fresh database; ``admin`` is the server's admin engine
        admin.dispose()
        engine = create_store_engine(f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}")
        try:
            run(engine, shape, args.repeat, "postgres")
        finally:
            engine.dispose()
            drop_pg(name)


if __name__ == "__main__":
    main()
