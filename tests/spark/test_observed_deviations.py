"""Designed vs observed (issue 31 §3): the capture states where an action's plan and its
execution metrics disagree in the `plumbline_observedDeviations` run facet of its COMPLETE event.
Real Spark writes on the session's Spark line (Delta's all-null columns: tests/formats)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark

FACET = "plumbline_observedDeviations"


def _ends(captured: Any) -> list[dict[str, Any]]:
    return [e for e in captured.actions() if e["eventType"] == "COMPLETE" and e["outputs"]]


@pytest.fixture()
def source(spark: Any, workdir: Path) -> str:
    path = str(workdir / "source")
    spark.createDataFrame([(1, "a"), (2, "b")], "id int, p string").write.partitionBy("p").parquet(
        path
    )
    return path


def test_an_input_pruned_away_and_an_empty_output_are_deviations(
    spark: Any, source: str, captured: Any, workdir: Path
) -> None:
    captured.mark()
    out = workdir / "none"
    spark.read.parquet(source).where("p = 'zzz'").write.parquet(str(out))
    (end,) = _ends(captured)
    found = end["run"]["facets"][FACET]["deviations"]
    assert [(d["kind"], d["name"]) for d in found] == [
        ("unreadInput", source),
        ("emptyOutput", str(out)),
    ]
    assert "0 rows" in found[0]["detail"] and "0 files" in found[0]["detail"]
    assert found[1]["detail"] == "the run wrote 0 rows"
    # the facet is the end's only: a START knows no metrics
    starts = [e for e in captured.actions() if e["eventType"] == "START" and e["outputs"]]
    assert starts and all(FACET not in e["run"]["facets"] for e in starts)


def test_a_run_that_reads_and_writes_rows_has_none(
    spark: Any, source: str, captured: Any, workdir: Path
) -> None:
    captured.mark()
    spark.read.parquet(source).where("p = 'a'").write.parquet(str(workdir / "some"))
    (end,) = _ends(captured)
    assert FACET not in end["run"]["facets"]
