"""Row locks of the write path: a write locks what it changes, not what it only reads.

Two writes that share an input dataset (the usual shape of a pipeline: many jobs read one
table) must run side by side on PostgreSQL. The tests hold one write's transaction open and run
the other with a short ``lock_timeout``: a lock wait fails it.
"""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from store_summary import dataset, facet, ingest, run_event

from plumbline.openlineage import parse_event
from plumbline.store.write.normalize import normalize

SCHEMA = facet(fields=[{"name": "v", "type": "int"}])


def _run(job: str, time: str, inputs: list[str], output: str) -> dict:
    return run_event(
        str(uuid.uuid4()),
        "COMPLETE",
        time,
        job=job,
        inputs=[dataset("ns", name) for name in inputs],
        outputs=[dataset("ns", output, schema=SCHEMA)],
    )


def _normalize_without_waiting(connection: sa.Connection, document: dict) -> None:
    """Write ``document`` in ``connection``'s transaction, failing at the first lock wait."""
    connection.execute(sa.text("SET LOCAL lock_timeout = '1s'"))
    normalize(connection, [parse_event(document)])


@pytest.fixture
def pipeline(pg_engine: Engine) -> Engine:
    """``shared`` exists and has been read by two jobs, each writing its own table."""
    ingest(
        pg_engine,
        [
            _run("load", "2024-01-01T00:00:00Z", [], "shared"),
            _run("job_a", "2024-01-01T00:00:01Z", ["shared"], "table_a"),
            _run("job_b", "2024-01-01T00:00:02Z", ["shared"], "table_b"),
        ],
    )
    return pg_engine


def test_a_write_only_reading_a_dataset_does_not_wait_for_its_writer(pipeline: Engine) -> None:
    # the writer of `shared` holds its row lock (and a new version of it) until it commits
    with pipeline.connect() as holder, pipeline.connect() as reader:
        with holder.begin():
            normalize(holder, [parse_event(_run("load", "2024-01-01T01:00:00Z", [], "shared"))])
            with reader.begin():
                _normalize_without_waiting(
                    reader, _run("job_b", "2024-01-01T01:00:01Z", ["shared"], "table_b")
                )
    with pipeline.connect() as connection:
        runs = connection.execute(sa.text("SELECT count(*) FROM runs")).scalar_one()
    assert runs == 5


def test_a_write_changing_a_locked_dataset_waits_for_it(pipeline: Engine) -> None:
    """The counterpart: two writes of the same dataset do wait (so the test above can fail)."""
    with pipeline.connect() as holder, pipeline.connect() as other:
        with holder.begin():
            normalize(holder, [parse_event(_run("load", "2024-01-01T01:00:00Z", [], "shared"))])
            with pytest.raises(DBAPIError) as raised, other.begin():
                _normalize_without_waiting(
                    other, _run("load_again", "2024-01-01T01:00:01Z", [], "shared")
                )
    assert getattr(raised.value.orig, "sqlstate", None) == "55P03"  # lock_not_available


def test_a_job_reading_the_table_another_job_is_writing_does_not_wait(pipeline: Engine) -> None:
    """Reading a dataset records the version read (a foreign key to the dataset and to the
    version): that takes no lock a concurrent writer of the dataset holds."""
    with pipeline.connect() as holder, pipeline.connect() as reader:
        with holder.begin():
            normalize(
                holder,
                [parse_event(_run("job_a", "2024-01-01T01:00:00Z", ["shared"], "table_a"))],
            )
            with reader.begin():
                _normalize_without_waiting(
                    reader, _run("job_c", "2024-01-01T01:00:01Z", ["table_a"], "table_c")
                )


def test_a_soft_deleted_dataset_only_read_comes_back(engine: Engine) -> None:
    """A dataset read without facets is not locked, unless the write brings it back."""
    ingest(engine, [_run("load", "2024-01-01T00:00:00Z", [], "shared")])
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE datasets SET is_hidden = :t"), {"t": True})
    ingest(engine, [_run("job_a", "2024-01-01T00:00:01Z", ["shared"], "table_a")])
    with engine.connect() as connection:
        hidden = connection.execute(
            sa.text("SELECT name FROM datasets WHERE is_hidden = :t"), {"t": True}
        ).all()
    assert hidden == []
