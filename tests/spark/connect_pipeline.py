"""A small pipeline run the same way on a classic session and through Spark Connect.

`python connect_pipeline.py REMOTE ROOT [--enable]` connects with
`SparkSession.builder.remote(REMOTE)` (`sc://host:port`, or `local[2]` for pyspark's in-process
server), runs `pipeline` with its data under ROOT and stops the session. With `--enable` it first
calls `plumbline.spark.enable(spark, transport="file", path=ROOT/events.jsonl)` and prints
`enable: <handle or None>`.
"""

from __future__ import annotations

import sys
from typing import Any


def pipeline(spark: Any, root: str) -> None:
    """Three writing actions: generated rows, a filtered aggregate, a join."""
    from pyspark.sql import functions as F

    spark.range(12).selectExpr(
        "id", "CAST(id % 3 AS STRING) AS customer", "id * 2.5 AS amount"
    ).write.mode("overwrite").parquet(f"{root}/orders")
    orders = spark.read.parquet(f"{root}/orders")
    totals = (
        orders.where(F.col("amount") > 5)
        .groupBy("customer")
        .agg(F.sum("amount").alias("total"), F.count("id").alias("orders"))
    )
    totals.write.mode("overwrite").parquet(f"{root}/totals")
    spark.read.parquet(f"{root}/totals").join(orders, "customer").select(
        "id", "customer", (F.col("amount") / F.col("total")).alias("share")
    ).write.mode("overwrite").parquet(f"{root}/shares")


def main(remote: str, root: str, enable: bool) -> None:
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.remote(remote)
    if remote.startswith("local"):
        builder = builder.appName("plumblineTests").config("spark.ui.enabled", "false")
    spark = builder.getOrCreate()
    if enable:
        from plumbline.spark import enable as enable_capture

        handle = enable_capture(
            spark, transport="file", path=f"{root}/events.jsonl", namespace="tests"
        )
        print(f"enable: {handle}", flush=True)
    pipeline(spark, root)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--enable" in sys.argv[3:])
