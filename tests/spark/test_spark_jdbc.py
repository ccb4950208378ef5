"""JDBC tables as outputs and inputs, against the local PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.spark,
    pytest.mark.postgres,
]

URL = "jdbc:postgresql://127.0.0.1:5432/test"
# The driver comes from Debian's libpostgresql-jdbc-java (scripts/setup.sh --test installs it) and is
# put on the shared session's classpath by tests/conftest.py; without it this test fails, never skips.


def _jdbc(io: Any) -> Any:
    return (
        io.format("jdbc")
        .option("url", URL)
        .option("driver", "org.postgresql.Driver")
        .option("dbtable", "plumbline_spark_orders")
        .option("user", "postgres")
        .option("password", "not-a-real-secret")
    )


def test_jdbc_output_and_input(spark: Any, captured: Any, workdir: Path) -> None:
    df = spark.createDataFrame([(1, 2.5), (2, 3.5), (3, 4.5)], "id long, amount double")
    _jdbc(df.write.mode("overwrite")).save()
    out = str(workdir / "from_pg")
    _jdbc(spark.read).load().selectExpr("id", "amount * 2 AS doubled").write.parquet(out)
    events = captured.actions()
    assert "not-a-real-secret" not in json.dumps(events)
    write_end, read_end = [e for e in events if e["eventType"] == "COMPLETE"]
    (output,) = write_end["outputs"]
    assert (output["namespace"], output["name"]) == (
        "postgres://127.0.0.1:5432",
        "test.public.plumbline_spark_orders",
    )
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["id", "amount"]
    (source,) = read_end["inputs"]
    assert (source["namespace"], source["name"]) == (output["namespace"], output["name"])
    assert source["inputFacets"]["inputStatistics"]["rowCount"] == 3
    fields = read_end["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert fields["doubled"]["inputFields"] == [
        {
            "namespace": "postgres://127.0.0.1:5432",
            "name": "test.public.plumbline_spark_orders",
            "field": "amount",
            "transformations": [{"type": "DIRECT", "subtype": "TRANSFORMATION"}],
        }
    ]
