"""Real Spark applications that write event logs, one per codec, for the extraction tests.

Run as `python eventlog_jobs.py WORKDIR`: one JVM runs the applications one after another (a
SparkContext each, since the event log's settings are the context's). `plain` is also captured
live (file transport, `WORKDIR/live.jsonl`), writes the source data and runs every job shape, a
failing write included; the other applications run one job each, reading plain's source. Logs go to `WORKDIR/logs`, data to `WORKDIR/data`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyspark.sql import SparkSession

# name -> extra Spark settings of its application
APPLICATIONS: dict[str, dict[str, str]] = {
    "plain": {"spark.eventLog.compress": "false"},
    "zstd": {"spark.eventLog.compress": "true", "spark.eventLog.compression.codec": "zstd"},
    "lz4": {"spark.eventLog.compress": "true", "spark.eventLog.compression.codec": "lz4"},
    "lzf": {"spark.eventLog.compress": "true", "spark.eventLog.compression.codec": "lzf"},
    "snappy": {"spark.eventLog.compress": "true", "spark.eventLog.compression.codec": "snappy"},
    "rolling": {
        "spark.eventLog.compress": "true",
        "spark.eventLog.compression.codec": "zstd",
        "spark.eventLog.rolling.enabled": "true",
        "spark.eventLog.rolling.maxFileSize": "10m",
    },
}


def session(name: str, work: Path) -> SparkSession:
    builder = (
        SparkSession.builder.master("local[1]")
        .appName(f"EventLog{name.capitalize()}")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", str(work / "logs"))
    )
    if name != "rolling":  # Spark 4 rolls event logs by default
        builder = builder.config("spark.eventLog.rolling.enabled", "false")
    for key, value in APPLICATIONS[name].items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run(name: str, work: Path) -> None:
    spark = session(name, work)
    data = work / "data" / name
    if name == "plain":
        import plumbline.spark

        plumbline.spark.enable(spark, transport="file", path=str(work / "live.jsonl"))
    source = work / "data" / "plain" / "source"  # written once: the others only read it
    if name == "plain":
        rows = spark.createDataFrame(
            [(1, "a", 2.0), (2, "b", 3.0)], "id int, name string, v double"
        )
        rows.write.mode("overwrite").parquet(str(source))
    rows = spark.read.parquet(str(source))
    rows.where("id > 0").selectExpr("id", "upper(name) AS label", "v * 2 AS doubled").write.mode(
        "overwrite"
    ).parquet(str(data / "projected"))
    if name == "plain":
        rows.groupBy("name").agg({"v": "sum"}).write.mode("overwrite").json(str(data / "totals"))
        rows.select("id", "name").write.saveAsTable("plain_table")
        rows.rollup("name").agg({"v": "max"}).write.mode("overwrite").parquet(
            str(data / "rolled_up")  # an Expand under the aggregate
        )
        rows.selectExpr("id", "explode(array(name, upper(name))) AS spelled").write.mode(
            "overwrite"
        ).parquet(str(data / "exploded"))  # a Generate
        try:  # a failing write: the executor raises, the execution ends with an error
            rows.selectExpr("id", "IF(id > 0, raise_error('boom'), name) AS broken").write.mode(
                "overwrite"
            ).parquet(str(data / "broken"))
        except Exception:
            pass
    spark.stop()


if __name__ == "__main__":
    workdir = Path(sys.argv[1])
    (workdir / "logs").mkdir(parents=True, exist_ok=True)
    for application in sys.argv[2:] or list(APPLICATIONS):
        run(application, workdir)
