"""Normalizing a wide event is linear (issue 28 item 9): the statements one event with N inputs
costs grow with the chunks its lookups and writes are cut into, never with N itself (a lookup or
write per input would make the work quadratic in a request's size: one 50,000-input event took
15-23 s). Counted, not timed (``bench/wide_event.py`` times it): every statement the write sends,
at the driver's cursor on PostgreSQL (the write path runs some statements on psycopg directly)
and through SQLAlchemy on SQLite."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import counts, dataset, run_event

from plumbline.openlineage.parse import parse_event
from plumbline.store.write.normalize import normalize

SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json"
SYMLINKS = "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json"
PRODUCER = "https://example.com/producer"


def _wide(inputs: int, prefix: str, day: int) -> dict[str, Any]:
    facets = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA,
            "fields": [{"name": "id", "type": "bigint"}],
        },
    }
    return run_event(
        str(uuid.uuid4()),
        "COMPLETE",
        f"2024-01-0{day}T00:00:00Z",
        job=f"{prefix}_wide",
        inputs=[
            dataset(
                "lake",
                f"{prefix}_{i}",
                **facets,
                symlinks={
                    "_producer": PRODUCER,
                    "_schemaURL": SYMLINKS,
                    "identifiers": [{"namespace": "hive", "name": f"{prefix}.t{i}", "type": "T"}],
                },
            )
            for i in range(inputs)
        ],
        outputs=[dataset("lake", f"{prefix}_out")],
    )


def _statements(engine: Engine, event: dict[str, Any]) -> int:
    """The statements normalizing ``event`` (in one transaction) sends to the database."""
    parsed = parse_event(event)
    sent = 0
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            driver = connection.connection.driver_connection
            assert isinstance(driver, psycopg.Connection)

            class Counting(psycopg.Cursor[Any]):
                def execute(self, *args: Any, **kwargs: Any) -> Any:
                    nonlocal sent
                    sent += 1
                    return super().execute(*args, **kwargs)

                def executemany(self, *args: Any, **kwargs: Any) -> Any:
                    nonlocal sent
                    sent += 1
                    return super().executemany(*args, **kwargs)

            default = driver.cursor_factory
            driver.cursor_factory = Counting
            try:
                normalize(connection, [parsed])
            finally:
                driver.cursor_factory = default
        else:

            def count(*_args: Any) -> None:
                nonlocal sent
                sent += 1

            sa.event.listen(connection, "before_cursor_execute", count)
            try:
                normalize(connection, [parsed])
            finally:
                sa.event.remove(connection, "before_cursor_execute", count)
    return sent


def test_a_wide_event_costs_statements_per_chunk_not_per_input(engine: Engine) -> None:
    small, large = 200, 6000
    # a first run (every dataset, field and symlink new), then a second run of the same job
    first = [_statements(engine, _wide(n, f"w{n}", 1)) for n in (small, large)]
    second = [_statements(engine, _wide(n, f"w{n}", 2)) for n in (small, large)]
    # the work was done: every input is a dataset (and its output, twice the runs)
    assert counts(engine)["datasets"] == small + large + 2
    # 30x the inputs: a few more statements for the extra chunks (a few thousand keys each),
    # not 30x (a statement per input would add 5,800 and more; 38-42 and 24-34 measured)
    for few, many in (first, second):
        assert many - few <= 20, (first, second)
