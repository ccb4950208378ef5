"""Confidence on every edge (issue 31 §2): each dataset and column edge says who reported it
(``edgeSource``), how complete its producer said its lineage is (``completeness`` with reasons) and
when it was last confirmed, in the lineage and column-lineage reads and in ``/impact``'s
``minConfidence``; on both backends, through the real write path."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from store_summary import column_lineage, dataset, facet, ingest, run_event

from plumbline.analysis.impact import impact
from plumbline.store.read.column_lineage import get_column_lineage
from plumbline.store.read.errors import InvalidArgumentError
from plumbline.store.read.lineage import get_lineage

CAPTURE = "https://github.com/plumbline/plumbline/tree/0.1.0/plumbline/spark"
DBT = "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/integration/dbt"


def _stated(completeness: str, *reasons: str) -> dict[str, Any]:
    return facet(completeness=completeness, reasons=list(reasons))


def _run(
    job: str,
    source: str,
    target: str,
    time: str,
    *,
    producer: str = CAPTURE,
    event_type: str = "COMPLETE",
    run_id: str | None = None,
    **run_facets: Any,
) -> dict[str, Any]:
    lineage = column_lineage({"v": [("ns", source, "v", "DIRECT", "TRANSFORMATION")]})
    event = run_event(
        run_id or str(uuid.uuid4()),
        event_type,
        time,
        job=job,
        namespace="ns",
        inputs=[dataset("ns", source)],
        outputs=[dataset("ns", target, columnLineage=lineage)],
        **run_facets,
    )
    event["producer"] = producer
    return event


def _pipeline() -> list[dict[str, Any]]:
    """raw -> clean (capture, complete) -> scored (capture, partial: a Python UDF) -> mart (dbt,
    states nothing)."""
    return [
        _run(
            "clean",
            "raw",
            "clean",
            "2024-01-01T00:00:01Z",
            plumbline_completeness=_stated("complete"),
        ),
        _run(
            "score",
            "clean",
            "scored",
            "2024-01-01T00:00:02Z",
            plumbline_completeness=_stated("partial", "pythonUdf: score"),
        ),
        _run("model", "scored", "mart", "2024-01-01T00:00:03Z", producer=DBT),
    ]


def _edge(graph: dict[str, Any], origin: str, destination: str) -> dict[str, Any]:
    for node in graph["graph"]:
        for edge in node["outEdges"]:
            if (edge["origin"], edge["destination"]) == (origin, destination):
                return dict(edge)
    raise AssertionError(f"no edge {origin} -> {destination}")


def _known(edge: dict[str, Any]) -> tuple[Any, ...]:
    return (edge["edgeSource"], edge["completeness"], edge["completenessReasons"])


def test_lineage_edges_say_how_they_are_known(engine: Engine) -> None:
    ingest(engine, _pipeline())
    with engine.connect() as conn:
        graph = get_lineage(conn, "dataset:ns:clean", 5, 100)
    assert _known(_edge(graph, "dataset:ns:raw", "job:ns:clean")) == ("capture", "complete", [])
    assert _edge(graph, "job:ns:clean", "dataset:ns:clean")["lastSeen"] == "2024-01-01T00:00:01Z"
    assert _known(_edge(graph, "job:ns:score", "dataset:ns:scored")) == (
        "capture",
        "partial",
        ["pythonUdf: score"],
    )
    assert _known(_edge(graph, "job:ns:model", "dataset:ns:mart")) == (
        "producer:dbt",
        "inferred",
        ["unattested: producer:dbt does not state how complete its lineage is"],
    )


def test_column_edges_say_how_they_are_known(engine: Engine) -> None:
    ingest(engine, _pipeline())
    with engine.connect() as conn:
        graph = get_column_lineage(conn, "datasetField:ns:mart:v", 5, False, 100)
    inputs = {
        node["id"]: node["data"]["inputFields"][0]
        for node in graph["graph"]
        if node["data"]["inputFields"]
    }
    assert {k: _known(v) for k, v in inputs.items()} == {
        "datasetField:ns:clean:v": ("capture", "complete", []),
        "datasetField:ns:scored:v": ("capture", "partial", ["pythonUdf: score"]),
        "datasetField:ns:mart:v": (
            "producer:dbt",
            "inferred",
            ["unattested: producer:dbt does not state how complete its lineage is"],
        ),
    }
    assert inputs["datasetField:ns:scored:v"]["lastSeen"] == "2024-01-01T00:00:02Z"


def test_the_newest_report_wins_and_an_unstated_one_keeps_the_completeness(
    engine: Engine,
) -> None:
    ingest(engine, _pipeline())
    run = str(uuid.uuid4())
    # a START that states nothing, then a COMPLETE from event-log extraction that says partial,
    # in the same hour as the first report (the writer's cache must not hide the change)
    ingest(
        engine,
        [_run("clean", "raw", "clean", "2024-01-01T00:10:00Z", event_type="START", run_id=run)],
    )
    with engine.connect() as conn:
        edge = _edge(get_lineage(conn, "job:ns:clean", 0, 100), "job:ns:clean", "dataset:ns:clean")
    assert _known(edge) == ("capture", "complete", [])
    assert edge["lastSeen"] == "2024-01-01T00:10:00Z"
    ingest(
        engine,
        [
            _run(
                "clean",
                "raw",
                "clean",
                "2024-01-01T00:10:05Z",
                run_id=run,
                plumbline_extraction=facet(source="eventLog"),
                plumbline_completeness=_stated("partial", "truncatedPlan: 2 plan nodes cut short"),
            )
        ],
    )
    # an older report (by event time) changes nothing
    ingest(engine, [_run("clean", "raw", "clean", "2024-01-01T00:05:00Z", producer=DBT)])
    with engine.connect() as conn:
        graph = get_lineage(conn, "job:ns:clean", 0, 100)
        columns = get_column_lineage(conn, "datasetField:ns:clean:v", 1, False, 100)
    expected = ("eventLog", "partial", ["truncatedPlan: 2 plan nodes cut short"])
    assert _known(_edge(graph, "job:ns:clean", "dataset:ns:clean")) == expected
    assert _known(_edge(graph, "dataset:ns:raw", "job:ns:clean")) == expected
    clean = next(n for n in columns["graph"] if n["id"] == "datasetField:ns:clean:v")
    assert _known(clean["data"]["inputFields"][0]) == expected


def _ids(result: Any) -> list[str]:
    return [n.id for n in result.nodes]


def test_impact_keeps_only_paths_as_complete_as_asked(engine: Engine) -> None:
    ingest(engine, _pipeline())
    with engine.connect() as conn:
        every = impact(conn, "dataset:ns:raw")
        partial = impact(conn, "dataset:ns:raw", min_confidence="partial")
        complete = impact(conn, "dataset:ns:raw", min_confidence="complete")
        fields = impact(conn, "datasetField:ns:raw:v", min_confidence="partial")
        with pytest.raises(InvalidArgumentError, match="minConfidence"):
            impact(conn, "dataset:ns:raw", min_confidence="inferred")
    assert _ids(every)[-2:] == ["job:ns:model", "dataset:ns:mart"]
    assert {e.completeness for e in every.edges} == {"complete", "partial", "inferred"}
    assert _ids(partial) == [
        "dataset:ns:raw",
        "job:ns:clean",
        "dataset:ns:clean",
        "job:ns:score",
        "dataset:ns:scored",
    ]
    assert _ids(complete) == ["dataset:ns:raw", "job:ns:clean", "dataset:ns:clean"]
    assert _ids(fields) == [
        "datasetField:ns:raw:v",
        "datasetField:ns:clean:v",
        "datasetField:ns:scored:v",
    ]
    assert {e.origin: e.to_json()["completeness"] for e in fields.edges} == {
        "datasetField:ns:raw:v": "complete",
        "datasetField:ns:clean:v": "partial",
    }


def test_the_lineage_sql_tables_say_how_edges_are_known(engine: Engine, tmp_path: Any) -> None:
    import pyarrow.dataset as ds

    from plumbline.export import export_tables
    from plumbline.store import Store
    from plumbline.store.read.sql_tables import table_rows

    ingest(engine, _pipeline())
    with engine.connect() as conn:
        tables = table_rows(conn, "table_lineage_edges")
        columns = table_rows(conn, "column_lineage_edges")
    expected_tables = {
        ("raw", "clean"): ("capture", "complete"),
        ("clean", "scored"): ("capture", "partial"),
        ("scored", "mart"): ("producer:dbt", "inferred"),
    }
    assert {
        (r["source_name"], r["target_name"]): (r["edge_source"], r["completeness"]) for r in tables
    } == expected_tables
    assert {
        (r["source_name"], r["target_name"]): (r["edge_source"], r["completeness"]) for r in columns
    } == expected_tables
    export_tables(Store(engine), tmp_path / "export")
    for table, rows in (("table_lineage_edges", tables), ("column_lineage_edges", columns)):
        exported = ds.dataset(tmp_path / "export" / table, format="parquet").to_table()
        assert sorted(
            (r["source_name"], r["edge_source"], r["completeness"]) for r in exported.to_pylist()
        ) == sorted((r["source_name"], r["edge_source"], r["completeness"]) for r in rows)


DECLARE = """
namespace = "ns"

[[declare]]
from = { dataset = "crm", column = "v" }
to = { dataset = "clean", column = "v" }
job = "nightly_copy"

[[declare]]
from = "raw"
to = "clean"
job = "clean"
"""


def test_declared_edges_are_inferred_and_never_hide_an_observed_one(engine: Engine) -> None:
    from plumbline.expectations.declare import declared_events
    from plumbline.expectations.rules import parse_toml_text

    ingest(engine, _pipeline())
    events = declared_events(parse_toml_text(DECLARE), now=datetime(2024, 1, 2, tzinfo=UTC))
    ingest(engine, events)
    declared = (
        "declared",
        "inferred",
        ["declared: in an expectations file, not observed"],
    )
    with engine.connect() as conn:
        graph = get_lineage(conn, "dataset:ns:clean", 0, 100)
        columns = get_column_lineage(conn, "datasetField:ns:clean:v", 1, False, 100)
    assert _known(_edge(graph, "dataset:ns:crm", "job:ns:nightly_copy")) == declared
    assert _known(_edge(graph, "job:ns:nightly_copy", "dataset:ns:clean")) == declared
    # raw -> clean was captured (complete): a later declaration leaves it as it was known
    assert _known(_edge(graph, "dataset:ns:raw", "job:ns:clean")) == ("capture", "complete", [])
    clean = next(n for n in columns["graph"] if n["id"] == "datasetField:ns:clean:v")
    by_source = {f["dataset"]: _known(f) for f in clean["data"]["inputFields"]}
    assert by_source == {"crm": declared, "raw": ("capture", "complete", [])}
