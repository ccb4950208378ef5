"""Wide outputs: column lineage for every column, past Spark's `maxToStringFields` (25)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import functions as F

from plumbline.spark.lineage import output_names
from plumbline.spark.plan import Node

pytestmark = pytest.mark.spark

WIDTH = 300


@pytest.mark.slow
def test_a_300_column_write_has_lineage_for_every_column(
    spark: Any, captured: Any, workdir: Path
) -> None:
    source, out = str(workdir / "wide"), str(workdir / "wide_out")
    spark.range(2).select(*[F.col("id").alias(f"c{i}") for i in range(WIDTH)]).write.parquet(source)
    captured.mark()
    frame = spark.read.parquet(source)
    frame.select(*[(F.col(f"c{i}") + 1).alias(f"o{i}") for i in range(WIDTH)]).write.parquet(out)
    end = captured.actions()[-1]
    assert end["eventType"] == "COMPLETE"
    facets = end["outputs"][0]["facets"]
    assert len(facets["schema"]["fields"]) == WIDTH
    fields = facets["columnLineage"]["fields"]
    assert sorted(fields) == sorted(f"o{i}" for i in range(WIDTH))
    for i in (0, 24, 25, 299):
        (entry,) = fields[f"o{i}"]["inputFields"]
        assert (entry["name"], entry["field"]) == (source, f"c{i}")
        assert entry["transformations"] == [{"type": "DIRECT", "subtype": "TRANSFORMATION"}]


def test_a_cut_short_column_list_is_not_taken_as_the_names() -> None:
    cut = Node(
        "InsertIntoHadoopFsRelationCommand", {"outputColumnNames": "[a, b, ... 3 more fields]"}
    )
    assert output_names(cut) is None
    whole = Node("InsertIntoHadoopFsRelationCommand", {"outputColumnNames": "[a, b]"})
    assert output_names(whole) == ["a", "b"]
    read = Node("InsertIntoHadoopFsRelationCommand", {"outputColumnNames": ["a", "b", "c"]})
    assert output_names(read) == ["a", "b", "c"]
