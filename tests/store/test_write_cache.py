"""The writer's cache of what the store holds: repeated events skip work, and the store ends up
exactly as without it, with rolled-back writes and other writers on the same database."""

from __future__ import annotations

import json
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import column_lineage, dataset, facet, run_event, summary

from plumbline.openlineage import parse_event
from plumbline.store.engine import create_store_engine
from plumbline.store.write.writer import StoreWriter

LINEAGE = column_lineage({"id": [("ns", "in", "id", "DIRECT", "IDENTITY")]})


def _event(time: str, **facets: object) -> dict:
    out = dataset("ns", "out", columnLineage=LINEAGE, **facets)
    return run_event(
        str(uuid.uuid4()), "COMPLETE", time, inputs=[dataset("ns", "in")], outputs=[out]
    )


def _write(writer: StoreWriter, *documents: dict) -> None:
    writer.write([parse_event(document) for document in documents])


def _edge_span(engine: Engine) -> list[str]:
    [edge] = summary(engine)["column_edges"]
    return edge[-2:]


def test_last_seen_moves_on_hour_by_hour_and_first_seen_goes_back(engine: Engine) -> None:
    writer = StoreWriter(engine)
    _write(writer, _event("2024-01-01T10:05:00Z"))
    _write(writer, _event("2024-01-01T10:50:00Z"))  # the same hour: the row stays as it is
    assert _edge_span(engine) == ["2024-01-01T10:05:00Z", "2024-01-01T10:05:00Z"]
    _write(writer, _event("2024-01-01T11:20:00Z"))
    assert _edge_span(engine) == ["2024-01-01T10:05:00Z", "2024-01-01T11:20:00Z"]
    _write(writer, _event("2024-01-01T09:59:00Z"))  # late, and earlier than anything seen
    assert _edge_span(engine) == ["2024-01-01T09:59:00Z", "2024-01-01T11:20:00Z"]


def test_events_within_the_hour_write_no_new_row_version(pg_engine: Engine) -> None:
    writer = StoreWriter(pg_engine)
    _write(writer, _event("2024-01-01T10:05:00Z"))

    def row_version() -> str:
        with pg_engine.connect() as connection:
            return connection.execute(
                sa.text("SELECT xmin::text FROM column_lineage_edges")
            ).scalar_one()

    before = row_version()
    _write(StoreWriter(pg_engine), _event("2024-01-01T10:06:00Z"))  # a writer with no cache
    _write(writer, _event("2024-01-01T10:07:00Z"))  # a writer whose cache knows the edge
    assert row_version() == before
    _write(writer, _event("2024-01-01T11:00:00Z"))
    assert row_version() != before


def test_a_write_that_rolls_back_teaches_the_cache_nothing(engine: Engine) -> None:
    writer = StoreWriter(engine)
    first = [parse_event(_event("2024-01-01T10:00:00Z", schema=facet(fields=[{"name": "id"}])))]

    def fail(connection: object, events: object) -> None:
        raise RuntimeError("the transaction goes back")

    with pytest.raises(RuntimeError):
        writer.write(first, on_stored=fail)
    assert summary(engine)["column_edges"] == []
    writer.write(first)  # the same fields and edges: they must be written now
    state = summary(engine)
    assert [edge[0][2] for edge in state["column_edges"]] == ["id"]
    assert state["counts"]["lineage_events"] == 1


def test_two_writers_on_one_database_keep_the_widest_span(db_url: str) -> None:
    one, other = create_store_engine(db_url), create_store_engine(db_url)
    try:
        first, second = StoreWriter(one), StoreWriter(other)
        _write(first, _event("2024-01-01T01:00:00Z"))
        _write(second, _event("2024-01-01T03:00:00Z"))
        _write(first, _event("2024-01-01T02:00:00Z"))  # `first` knows 01:00 only: it sends it
        assert _edge_span(one) == ["2024-01-01T01:00:00Z", "2024-01-01T03:00:00Z"]
        _write(second, _event("2024-01-01T00:30:00Z"))
        _write(first, _event("2024-01-01T00:45:00Z"))  # inside the stored span: nothing moves
        assert _edge_span(one) == ["2024-01-01T00:30:00Z", "2024-01-01T03:00:00Z"]
    finally:
        one.dispose()
        other.dispose()


def test_facets_changed_by_another_writer_are_read_back_not_overwritten(db_url: str) -> None:
    one, other = create_store_engine(db_url), create_store_engine(db_url)
    try:
        first, second = StoreWriter(one), StoreWriter(other)
        owner = facet(owners=[{"name": "team-a"}])
        _write(first, _event("2024-01-01T01:00:00Z", ownership=owner))
        docs = facet(description="orders, cleaned")
        _write(second, _event("2024-01-01T02:00:00Z", documentation=docs))
        # `first` holds the facets it wrote; the store's digest tells it they changed since
        quality = facet(rowCount=3, columnMetrics={})
        _write(first, _event("2024-01-01T03:00:00Z", dataQualityMetrics=quality))
        with one.connect() as connection:
            facets = connection.execute(
                sa.text("SELECT facets FROM datasets WHERE name = 'out'")
            ).scalar_one()
        names = set(facets if isinstance(facets, dict) else json.loads(facets))
        assert {"ownership", "documentation", "dataQualityMetrics", "columnLineage"} <= names
    finally:
        one.dispose()
        other.dispose()


def test_the_cache_stays_within_its_bytes_and_the_store_is_as_without_it(db_url: str) -> None:
    """Bounded by estimated bytes (facets, lineages, fields, edges each take their share), a small
    cache drops entries as it learns new ones; what is stored does not depend on it."""
    from plumbline.store.write.cache import WriteCache

    def events(n: int) -> list[dict]:
        made = []
        for i in range(n):
            columns = {
                f"c{k}": [("ns", f"in{i}", f"c{k}", "DIRECT", "IDENTITY")] for k in range(20)
            }
            out = dataset("ns", f"out{i}", columnLineage=column_lineage(columns))
            made.append(
                run_event(
                    str(uuid.uuid4()),
                    "COMPLETE",
                    "2024-01-01T10:00:00Z",
                    inputs=[dataset("ns", f"in{i}")],
                    outputs=[out],
                )
            )
        return made

    documents = events(60)
    small = StoreWriter(create_store_engine(db_url))
    small.cache = small.normalizer.cache = WriteCache(max_bytes=64 * 1024)
    sizes = []
    for start in range(0, len(documents), 10):
        _write(small, *documents[start : start + 10])
        sizes.append(small.cache.size)
    assert 0 < max(sizes) <= 64 * 1024
    assert len(small.cache.lineages) < 60 and len(small.cache.field_ids) < 60 * 40
    _write(small, *documents)  # again, with most entries dropped: the same store
    bounded = summary(small.engine)
    small.engine.dispose()
    assert len(bounded["column_edges"]) == 60 * 20  # every edge once, none lost to the drops
