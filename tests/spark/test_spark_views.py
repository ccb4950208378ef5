"""Column lineage through persistent views and cached tables: the view's own casts are not the
user's transformations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark


@pytest.fixture
def source(spark: Any) -> Iterator[str]:
    """A catalog table (views may not read temporary views or paths given as text)."""
    rows = spark.createDataFrame([(1, "ann", 2.0)], "id long, name string, amount double")
    rows.write.saveAsTable("plumbline_vw_people")
    yield "plumbline_vw_people"
    spark.sql("DROP VIEW IF EXISTS plumbline_people_view")
    spark.sql("UNCACHE TABLE IF EXISTS plumbline_people_cached")
    spark.sql("DROP VIEW IF EXISTS plumbline_people_cached")
    spark.sql("DROP TABLE IF EXISTS plumbline_vw_people")


def _lineage(captured: Any) -> dict[str, list[tuple[str, str, str]]]:
    end = captured.actions()[-1]
    assert end["eventType"] == "COMPLETE"
    fields = end["outputs"][0]["facets"]["columnLineage"]["fields"]
    return {
        column: [
            (Path(f["name"]).name, f["field"], t["subtype"])
            for f in value["inputFields"]
            for t in f["transformations"]
        ]
        for column, value in fields.items()
    }


def test_a_column_read_through_a_persistent_view_is_identity(
    spark: Any, captured: Any, source: str, workdir: Path
) -> None:
    spark.sql(
        "CREATE VIEW plumbline_people_view AS "
        "SELECT id, name, amount * 2 AS doubled, CAST(id AS string) AS code FROM plumbline_vw_people"
    )
    captured.mark()
    spark.table("plumbline_people_view").write.parquet(str(workdir / "out"))
    assert _lineage(captured) == {
        "id": [("plumbline_vw_people", "id", "IDENTITY")],
        "name": [("plumbline_vw_people", "name", "IDENTITY")],
        "doubled": [("plumbline_vw_people", "amount", "TRANSFORMATION")],
        "code": [
            ("plumbline_vw_people", "id", "TRANSFORMATION")
        ],  # the view's query casts it: the user's
    }


def test_a_column_read_through_a_cached_table_is_identity(
    spark: Any, captured: Any, source: str, workdir: Path
) -> None:
    spark.sql("CACHE TABLE plumbline_people_cached AS SELECT id, name FROM plumbline_vw_people")
    captured.mark()
    spark.sql("SELECT name, id + 1 AS next FROM plumbline_people_cached").write.parquet(
        str(workdir / "out")
    )
    assert _lineage(captured) == {
        "name": [("plumbline_vw_people", "name", "IDENTITY")],
        "next": [("plumbline_vw_people", "id", "TRANSFORMATION")],
    }
