"""The same random graph (cycles included) on SQLite and on PostgreSQL gives the same lineage and
column-lineage answers for every start node, depth and cap."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from builder import StoreBuilder

from plumbline.store.engine import create_store_engine
from plumbline.store.migrate import upgrade
from plumbline.store.read.column_lineage import get_column_lineage
from plumbline.store.read.lineage import get_lineage

DATASETS = [f"d{i}" for i in range(30)]
FIELDS = ("a", "b")


def build(engine: sa.Engine, seed: int) -> None:
    rng = random.Random(seed)
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        seen: set[tuple[Any, ...]] = set()
        for ds in DATASETS:
            b.dataset("g", ds, FIELDS)
        for j in range(25):
            inputs = tuple(rng.sample(DATASETS, rng.randint(1, 3)))
            outputs = tuple(rng.sample([d for d in DATASETS if d not in inputs], rng.randint(1, 2)))
            b.job("g", f"j{j}", inputs, outputs)
            for out in outputs:
                for field in FIELDS:
                    source = (rng.choice(inputs), rng.choice(FIELDS))
                    if (source, out, field) not in seen:
                        seen.add((source, out, field))
                        b.column_edge("g", source, (out, field))
            if j % 5 == 0 and (inputs[0], outputs[0]) not in seen:
                seen.add((inputs[0], outputs[0]))
                b.dataset_dependency("g", (inputs[0], "a"), outputs[0])


def shape(graph: dict[str, Any]) -> tuple[Any, ...]:
    """What must agree: node ids and types, edges, and the cut flag (not uuids or times)."""
    return (
        graph["truncated"],
        [
            (
                n["id"],
                n["type"],
                [tuple(e.values()) for e in n["inEdges"]],
                [tuple(e.values()) for e in n["outEdges"]],
            )
            for n in graph["graph"]
        ],
    )


@pytest.mark.postgres
def test_sqlite_and_postgres_agree_on_every_walk(pg_url: str, tmp_path: Path) -> None:
    engines = [create_store_engine(f"sqlite:///{tmp_path / 'g.db'}"), create_store_engine(pg_url)]
    for engine in engines:
        upgrade(engine)
        build(engine, seed=7)
    starts = [f"dataset:g:{d}" for d in DATASETS] + [f"job:g:j{j}" for j in range(25)]
    answers: list[list[Any]] = []
    for engine in engines:
        with engine.connect() as conn:
            answers.append(
                [
                    shape(get_lineage(conn, start, depth, cap))
                    for start in starts
                    for depth in (0, 1, 3)
                    for cap in (6, 1000)
                ]
                + [
                    shape(get_column_lineage(conn, f"datasetField:g:{d}:a", depth, down, cap))
                    for d in DATASETS[:10]
                    for depth in (1, 4)
                    for down in (False, True)
                    for cap in (3, 1000)
                ]
            )
        engine.dispose()
    sqlite_answers, postgres_answers = answers
    assert len(sqlite_answers) == 55 * 6 + 10 * 8
    for left, right in zip(sqlite_answers, postgres_answers, strict=True):
        assert left == right
    # the random graph is not trivial: some walks are cut, some graphs are large
    assert any(truncated for truncated, _ in sqlite_answers)
    assert max(len(nodes) for _, nodes in sqlite_answers) > 20
