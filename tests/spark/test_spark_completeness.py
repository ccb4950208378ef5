"""The capture states how complete each action's lineage is (issue 31 §2): the
`plumbline_completeness` run facet, `complete` or `partial` with one reason per thing the walk
could not see into; one real Spark write per capture reason, on the session's Spark line. The same
facet on START and on the end (so the store's edges do not flip between them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark

FACET = "plumbline_completeness"


def _stated(captured: Any) -> tuple[str, list[str]]:
    """The facet of the last action's events (START and end must agree)."""
    actions = captured.actions()
    facets = [e["run"]["facets"][FACET] for e in actions if e["outputs"]]
    assert facets, [e["eventType"] for e in actions]
    assert all(f == facets[-1] for f in facets), facets
    return facets[-1]["completeness"], facets[-1]["reasons"]


@pytest.fixture()
def source(spark: Any, workdir: Path) -> Any:
    path = str(workdir / "source")
    spark.createDataFrame(
        [(1, "a", 2.0), (2, "b", 3.0)], "id int, name string, amount double"
    ).write.parquet(path)
    return spark.read.parquet(path)


def test_a_plain_write_is_complete(source: Any, captured: Any, workdir: Path) -> None:
    captured.mark()
    source.select("id", (F.col("amount") * 2).alias("twice")).write.parquet(str(workdir / "out"))
    assert _stated(captured) == ("complete", [])


def test_a_python_udf_makes_it_partial(source: Any, captured: Any, workdir: Path) -> None:
    double = F.udf(lambda v: v * 2.0, "double")
    captured.mark()
    source.select("id", double("amount").alias("twice")).write.parquet(str(workdir / "out"))
    completeness, reasons = _stated(captured)
    assert completeness == "partial"
    assert reasons == ["pythonUdf: <lambda> (inputs assumed from its arguments)"]


def test_a_dataframe_made_from_an_rdd_makes_it_partial(
    spark: Any, source: Any, captured: Any, workdir: Path
) -> None:
    frame = spark.createDataFrame(
        source.rdd.map(lambda r: (r.id, r.amount * 2)), "id int, twice double"
    )
    captured.mark()
    frame.write.parquet(str(workdir / "out"))
    completeness, reasons = _stated(captured)
    assert completeness == "partial"
    assert reasons == ["rdd: a DataFrame made from an RDD (its columns come from code)"]


def test_a_node_without_a_handler_makes_it_partial(
    spark: Any, source: Any, captured: Any, workdir: Path
) -> None:
    source.createOrReplaceTempView("completeness_source")
    frame = spark.sql(
        "SELECT TRANSFORM(id, name) USING 'cat' AS (a string, b string) FROM completeness_source"
    )
    captured.mark()
    frame.write.parquet(str(workdir / "out"))
    completeness, reasons = _stated(captured)
    assert completeness == "partial"
    assert reasons == ["unhandledNode: ScriptTransformation"]


def test_map_in_pandas_columns_come_from_python_code(
    source: Any, captured: Any, workdir: Path
) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")

    def double(batches: Any) -> Any:
        for frame in batches:
            yield frame.assign(amount=frame["amount"] * 2)

    frame = source.select("id", "amount").mapInPandas(double, "id int, amount double")
    captured.mark()
    frame.write.parquet(str(workdir / "out"))
    completeness, reasons = _stated(captured)
    assert completeness == "partial"
    assert reasons == ["pythonUdf: MapInPandas (its output columns come from Python code)"]
    end = captured.actions()[-1]
    # its output columns are new: no lineage is claimed for them
    assert (
        "columnLineage" not in end["outputs"][0]["facets"]
        or not end["outputs"][0]["facets"]["columnLineage"]["fields"]
    )
