"""The demo's SparkSession: small, local, strict."""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import SparkSession

APP_NAME = "plumbline_demo"

#: Runtime settings the pipeline relies on; applied to any session the demo is given.
RUNTIME_CONF = {
    # strict casts: a malformed price fails the job instead of silently becoming NULL
    "spark.sql.ansi.enabled": "true",
    # `overwrite` + `partitionBy` replaces only the partitions written, so reruns are idempotent
    "spark.sql.sources.partitionOverwriteMode": "dynamic",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "2",
}


def configure(spark: SparkSession) -> SparkSession:
    """Apply the runtime settings the demo pipeline needs to an existing session."""
    for key, value in RUNTIME_CONF.items():
        spark.conf.set(key, value)
    return spark


def build_session(warehouse: Path, app_name: str = APP_NAME) -> SparkSession:
    """A local[2] session whose managed tables live under `warehouse`."""
    spark = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")  # it would scribble over rich's display
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return configure(spark)
