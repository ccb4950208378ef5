"""Datasets: symlink aliases, versions, schema history, facets, fields named only by lineage."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import column_lineage, dataset, facet, ingest, run_event, summary

WAREHOUSE = "hive://metastore"


T1 = "2024-01-01T00:00:01Z"  # the events' time, as the edges' first and last seen


def _symlinks(*names: str) -> dict:
    return facet(identifiers=[{"namespace": WAREHOUSE, "name": n, "type": "TABLE"} for n in names])


def _datasets(engine: Engine) -> dict[tuple[str, str], dict]:
    return {tuple(d["dataset"]): d for d in summary(engine)["datasets"]}


def _run(second: int) -> str:
    return str(uuid.UUID(int=second + 100, version=4))


def test_a_dataset_named_by_its_alias_is_the_same_dataset(engine: Engine) -> None:
    ingest(
        engine,
        [
            run_event(
                _run(1),
                "COMPLETE",
                "2024-01-01T00:00:01Z",
                job="w",
                outputs=[dataset("file", "/wh/sales", symlinks=_symlinks("db.sales"))],
            )
        ],
    )
    ingest(
        engine,
        [
            run_event(
                _run(2),
                "COMPLETE",
                "2024-01-01T00:00:02Z",
                job="r",
                inputs=[dataset(WAREHOUSE, "db.sales")],
            )
        ],
    )
    datasets = _datasets(engine)
    assert list(datasets) == [("file", "/wh/sales")]
    assert datasets[("file", "/wh/sales")]["symlinks"] == [[WAREHOUSE, "db.sales", "TABLE"]]
    assert [e[:3] for e in summary(engine)["job_edges"]] == [
        ["tests:r", ["file", "/wh/sales"], "input"],
        ["tests:w", ["file", "/wh/sales"], "output"],
    ]


def test_an_alias_never_steals_another_datasets_name(engine: Engine) -> None:
    ingest(
        engine,
        [
            run_event(
                _run(1),
                "COMPLETE",
                "2024-01-01T00:00:01Z",
                job="a",
                outputs=[dataset(WAREHOUSE, "db.sales")],
            )
        ],
    )
    ingest(
        engine,
        [
            run_event(
                _run(2),
                "COMPLETE",
                "2024-01-01T00:00:02Z",
                job="b",
                outputs=[dataset("file", "/other", symlinks=_symlinks("db.orders"))],
            )
        ],
    )
    # /wh/sales claims db.sales, which is already a dataset: it resolves to it instead of stealing
    ingest(
        engine,
        [
            run_event(
                _run(3),
                "COMPLETE",
                "2024-01-01T00:00:03Z",
                job="c",
                outputs=[dataset("file", "/wh/sales", symlinks=_symlinks("db.sales"))],
            )
        ],
    )
    datasets = _datasets(engine)
    assert sorted(datasets) == [("file", "/other"), (WAREHOUSE, "db.sales")]
    assert datasets[(WAREHOUSE, "db.sales")]["symlinks"] == [["file", "/wh/sales", None]]
    assert datasets[("file", "/other")]["symlinks"] == [[WAREHOUSE, "db.orders", "TABLE"]]
    # a name whose symlink is another dataset's alias is that dataset too (and becomes an alias)
    ingest(
        engine,
        [
            run_event(
                _run(4),
                "COMPLETE",
                "2024-01-01T00:00:04Z",
                job="d",
                outputs=[dataset("file", "/third", symlinks=_symlinks("db.orders"))],
            )
        ],
    )
    datasets = _datasets(engine)
    assert sorted(datasets) == [("file", "/other"), (WAREHOUSE, "db.sales")]
    assert datasets[("file", "/other")]["symlinks"] == [
        ["file", "/third", None],
        [WAREHOUSE, "db.orders", "TABLE"],
    ]


@pytest.mark.parametrize("first", ["catalog name", "location"])
def test_names_linked_in_one_write_make_the_datasets_of_writes_one_by_one(
    engine: Engine, first: str
) -> None:
    """A table named by its catalog name and by its location (with a symlink to the catalog
    name), both new and normalized in one write: the name used first (by event time, not by
    position) is the dataset's, the other its alias, as when the events come one by one."""
    by_catalog_name = dataset(WAREHOUSE, "db.sales")
    by_location = dataset("file", "/wh/sales", symlinks=_symlinks("db.sales"))
    earlier, later = (
        (by_catalog_name, by_location)
        if first == "catalog name"
        else (by_location, by_catalog_name)
    )
    ingest(
        engine,
        [  # the later event first: the order that counts is the events' time
            run_event(_run(2), "COMPLETE", "2024-01-01T00:00:02Z", job="r", inputs=[later]),
            run_event(_run(1), "COMPLETE", "2024-01-01T00:00:01Z", job="w", outputs=[earlier]),
        ],
    )
    datasets = _datasets(engine)
    if first == "catalog name":
        assert list(datasets) == [(WAREHOUSE, "db.sales")]
        assert datasets[(WAREHOUSE, "db.sales")]["symlinks"] == [["file", "/wh/sales", None]]
        name = [WAREHOUSE, "db.sales"]
    else:
        assert list(datasets) == [("file", "/wh/sales")]
        assert datasets[("file", "/wh/sales")]["symlinks"] == [[WAREHOUSE, "db.sales", "TABLE"]]
        name = ["file", "/wh/sales"]
    assert [e[:3] for e in summary(engine)["job_edges"]] == [
        ["tests:r", name, "input"],
        ["tests:w", name, "output"],
    ]


def test_version_facet_and_schema_history(engine: Engine) -> None:
    def schema(*names: str) -> dict:
        return facet(fields=[{"name": n, "type": "int"} for n in names])

    def write(second: int, version: str | None, *fields: str) -> None:
        facets = {"schema": schema(*fields)}
        if version:
            facets["version"] = facet(datasetVersion=version)
        ingest(
            engine,
            [
                run_event(
                    _run(second),
                    "COMPLETE",
                    f"2024-01-01T00:00:{second:02d}Z",
                    outputs=[dataset("ns", "t", **facets)],
                )
            ],
        )

    write(1, "v1", "a")
    write(2, "v2", "a", "b")
    write(3, "v3", "a")  # back to the first schema: no new schema version
    write(4, None, "a", "b")
    t = _datasets(engine)[("ns", "t")]
    assert t["versions"] == [
        [_run(4), _run(4), None, 2],
        ["v1", _run(1), None, 1],
        ["v2", _run(2), None, 2],
        ["v3", _run(3), None, 1],
    ]
    assert (t["current_version"], t["current_schema_fields"]) == (_run(4), 2)
    # fields that left the schema stay (they are nodes of past column lineage)
    assert [f[0] for f in t["fields"]] == ["a", "b"]
    assert summary(engine)["counts"]["schema_versions"] == 2


def test_deleted_facet_is_removed(engine: Engine) -> None:
    doc = facet(description="first")
    ingest(
        engine,
        [
            run_event(
                _run(1),
                "COMPLETE",
                "2024-01-01T00:00:01Z",
                outputs=[
                    dataset("ns", "t", documentation=doc, storage=facet(storageLayer="iceberg"))
                ],
            )
        ],
    )
    assert _datasets(engine)[("ns", "t")]["facets"] == ["documentation", "storage"]
    ingest(
        engine,
        [
            run_event(
                _run(2),
                "COMPLETE",
                "2024-01-01T00:00:02Z",
                outputs=[dataset("ns", "t", storage={**facet(storageLayer="x"), "_deleted": True})],
            )
        ],
    )
    assert _datasets(engine)[("ns", "t")]["facets"] == ["documentation"]


def test_lineage_creates_the_fields_and_datasets_it_names(engine: Engine) -> None:
    lineage = column_lineage({"x": [("src", "never_seen", "y", "DIRECT", "IDENTITY")]})
    ingest(
        engine,
        [
            run_event(
                _run(1),
                "COMPLETE",
                "2024-01-01T00:00:01Z",
                outputs=[dataset("ns", "t", columnLineage=lineage)],
            )
        ],
    )
    datasets = _datasets(engine)
    assert sorted(datasets) == [("ns", "t"), ("src", "never_seen")]
    assert datasets[("src", "never_seen")]["fields"] == [["y", None, None]]
    assert datasets[("ns", "t")]["fields"] == [["x", None, None]]
    assert summary(engine)["column_edges"] == [
        [["ns", "t", "x"], ["src", "never_seen", "y"], "DIRECT", "IDENTITY", None, False, T1, T1]
    ]


def test_older_column_lineage_without_transformations(engine: Engine) -> None:
    lineage = facet(
        fields={
            "x": {
                "inputFields": [{"namespace": "ns", "name": "src", "field": "y"}],
                "transformationType": "MASKED",
                "transformationDescription": "sha2(y)",
            }
        }
    )
    ingest(
        engine,
        [
            run_event(
                _run(1),
                "COMPLETE",
                "2024-01-01T00:00:01Z",
                outputs=[dataset("ns", "t", columnLineage=lineage)],
            )
        ],
    )
    assert summary(engine)["column_edges"] == [
        [["ns", "t", "x"], ["ns", "src", "y"], "", "MASKED", "sha2(y)", True, T1, T1]
    ]


def test_statistics_from_output_facets_and_the_older_dataset_facet(engine: Engine) -> None:
    new_style = dataset("ns", "a")
    new_style["outputFacets"] = {"outputStatistics": facet(rowCount=7, size=70)}
    old_style = dataset("ns", "b", outputStatistics=facet(rowCount=3, size=30, fileCount=1))
    ingest(
        engine,
        [run_event(_run(1), "COMPLETE", "2024-01-01T00:00:01Z", outputs=[new_style, old_style])],
    )
    assert [(row[1][1], row[4]) for row in summary(engine)["run_io"]] == [
        ("a", [7, 70, None]),
        ("b", [3, 30, 1]),
    ]


def test_dataset_event_with_version_sets_the_current_version(engine: Engine) -> None:
    event = {
        "eventTime": "2024-01-01T00:00:00Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {
            "namespace": "s3://bucket",
            "name": "events",
            "facets": {"version": facet(datasetVersion="42")},
        },
    }
    ingest(engine, [event])
    d = _datasets(engine)[("s3://bucket", "events")]
    assert (d["versions"], d["current_version"], d["source"]) == (
        [["42", None, None, None]],
        "42",
        "s3://bucket",
    )
    assert summary(engine)["sources"] == [["s3://bucket", "S3", "s3://bucket"]]


def test_soft_deleted_dataset_job_and_namespace_come_back_with_new_events(engine: Engine) -> None:
    tables = [sa.table(name, sa.column("is_hidden")) for name in ("datasets", "jobs", "namespaces")]
    ingest(
        engine,
        [
            run_event(
                _run(1), "COMPLETE", "2024-01-01T00:00:01Z", job="w", outputs=[dataset("ns", "t")]
            )
        ],
    )
    with engine.begin() as connection:
        for table in tables:
            connection.execute(table.update().values(is_hidden=True))
    ingest(
        engine,
        [
            run_event(
                _run(2), "COMPLETE", "2024-01-01T00:00:02Z", job="w", outputs=[dataset("ns", "t")]
            )
        ],
    )
    with engine.connect() as connection:
        hidden = {
            table.name: connection.execute(
                sa.select(sa.func.count()).select_from(table).where(table.c.is_hidden == sa.true())
            ).scalar_one()
            for table in tables
        }
    assert hidden == {"datasets": 0, "jobs": 0, "namespaces": 0}


def _identity(table_uuid: str, identifier: str) -> dict:
    # the facet catalog enrichment adds (plumbline.server.catalog); the store reads only these keys
    return facet(catalog="lake", tableUuid=table_uuid, identifier=identifier)


def test_a_known_catalog_identity_under_a_new_name_renames_the_dataset(engine: Engine) -> None:
    table_uuid = str(uuid.uuid4())
    old = dataset(WAREHOUSE, "db.orders", plumbline_catalogTable=_identity(table_uuid, "db.orders"))
    new = dataset(
        WAREHOUSE, "db.orders_v2", plumbline_catalogTable=_identity(table_uuid, "db.orders_v2")
    )
    ingest(engine, [run_event(_run(1), "COMPLETE", "2024-01-01T00:00:01Z", job="w", outputs=[old])])
    ingest(engine, [run_event(_run(2), "COMPLETE", "2024-01-01T00:00:02Z", job="r", inputs=[new])])
    # a late event under the old name still lands on the one dataset
    ingest(engine, [run_event(_run(3), "COMPLETE", "2024-01-01T00:00:03Z", job="x", inputs=[old])])
    datasets = _datasets(engine)
    assert list(datasets) == [(WAREHOUSE, "db.orders_v2")]
    assert datasets[(WAREHOUSE, "db.orders_v2")]["symlinks"] == [[WAREHOUSE, "db.orders", None]]
    assert [e[:3] for e in summary(engine)["job_edges"]] == [
        ["tests:r", [WAREHOUSE, "db.orders_v2"], "input"],
        ["tests:w", [WAREHOUSE, "db.orders_v2"], "output"],
        ["tests:x", [WAREHOUSE, "db.orders_v2"], "input"],
    ]
    with engine.connect() as connection:
        stable_ids = connection.execute(sa.text("SELECT name, stable_id FROM datasets")).all()
    assert [tuple(row) for row in stable_ids] == [("db.orders_v2", f"lake:{table_uuid}")]


def test_a_different_catalog_identity_is_a_different_dataset(engine: Engine) -> None:
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    a = dataset(WAREHOUSE, "db.a", plumbline_catalogTable=_identity(first, "db.a"))
    b = dataset(WAREHOUSE, "db.b", plumbline_catalogTable=_identity(second, "db.b"))
    ingest(
        engine, [run_event(_run(1), "COMPLETE", "2024-01-01T00:00:01Z", job="w", outputs=[a, b])]
    )
    plain = dataset(WAREHOUSE, "db.c")  # no identity: never matched to another dataset
    ingest(
        engine, [run_event(_run(2), "COMPLETE", "2024-01-01T00:00:02Z", job="r", inputs=[plain])]
    )
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT name, stable_id FROM datasets ORDER BY name")
        ).all()
    assert [tuple(row) for row in rows] == [
        ("db.a", f"lake:{first}"),
        ("db.b", f"lake:{second}"),
        ("db.c", None),
    ]


@pytest.mark.parametrize("order", ["in order", "late older run"])
def test_the_newest_run_output_is_the_current_version(engine: Engine, order: str) -> None:
    older, newer = _run(1), _run(2)
    events = {
        older: run_event(older, "COMPLETE", "2024-01-01T01:00:00Z", outputs=[dataset("ns", "t")]),
        newer: run_event(newer, "COMPLETE", "2024-01-01T02:00:00Z", outputs=[dataset("ns", "t")]),
    }
    arrival = [older, newer] if order == "in order" else [newer, older]
    for run_id in arrival:
        ingest(engine, [events[run_id]])  # one write each: the order is the arrival order
    with engine.connect() as connection:
        current, modified, versions = connection.execute(
            sa.text(
                "SELECT v.version, d.last_modified_at,"
                " (SELECT count(*) FROM dataset_versions WHERE dataset_id = d.id)"
                " FROM datasets d JOIN dataset_versions v ON v.id = d.current_version_id"
                " WHERE d.name = 't'"
            )
        ).one()
    assert (current, versions) == (newer, 2)  # the older run's output is history
    assert str(modified).startswith("2024-01-01 02:00:00")
