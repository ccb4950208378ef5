"""The Delta Lake job of tests/formats/test_delta.py: every write, read and maintenance command the
capture knows on Delta tables, in one SparkSession with Delta's catalog, captured to a file.

    python delta_job.py WORKDIR EVENTS_FILE

Each step writes a table of its own (named after the step) so the test finds its events by name.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from pyspark.sql import SparkSession

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: runtime_jars
from runtime_jars import runtime_jars  # noqa: E402

from plumbline.spark import enable  # noqa: E402


def session(work: Path) -> SparkSession:
    return (
        SparkSession.builder.master("local[2]")
        .appName("deltaJob")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.jars", runtime_jars("delta"))
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"
        )
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work}")
        .getOrCreate()
    )


def main(work: Path, events: Path) -> None:
    spark = session(work)
    spark.sparkContext.setLogLevel("ERROR")
    handle = enable(spark, transport="file", path=str(events), namespace="formats")
    assert handle is not None
    sql = spark.sql
    orders = spark.createDataFrame(
        [(1, "a", 10.0, "x"), (2, "b", 20.0, "y"), (3, "c", 30.0, "x")],
        "id int, name string, amount double, region string",
    )
    orders.write.parquet(str(work / "orders"))  # a plain file input
    raw = spark.read.parquet(str(work / "orders"))

    path = str(work / "path_table")
    raw.write.format("delta").save(path)  # v0 CREATE
    raw.write.format("delta").mode("append").save(path)  # v1
    raw.write.format("delta").mode("overwrite").save(path)  # v2 OVERWRITE
    (raw.withColumn("note", raw.name).write.format("delta").mode("append")
        .option("mergeSchema", "true").save(path))  # v3: schema evolution  # fmt: skip
    handle.flush(60)
    after_v3 = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    time.sleep(1.2)
    raw.write.format("delta").mode("append").option("mergeSchema", "true").save(path)  # v4

    # designed vs observed: a column the plan writes that every row has null (Delta's stats)
    raw.selectExpr("id", "CAST(NULL AS STRING) AS note").write.format("delta").save(
        str(work / "null_note")
    )

    # time travel reads into a path table of their own each
    old = spark.read.format("delta").option("versionAsOf", 1).load(path)
    old.select("id", "amount").write.format("delta").save(str(work / "from_version_1"))
    at = spark.read.format("delta").option("timestampAsOf", after_v3).load(path)
    at.select("id", "name").write.format("delta").save(str(work / "from_time_v3"))

    # catalog tables: saveAsTable, CTAS, RTAS, writeTo, INSERT, partitions
    raw.write.format("delta").saveAsTable("saved")  # CreateTableAsSelect
    sql("CREATE TABLE ctas USING delta AS SELECT id, upper(name) AS name FROM saved")
    # no RTAS: Delta 3.3.2 on Spark 3.5.8 refuses `CREATE OR REPLACE TABLE … AS SELECT` of a table
    # in the session catalog ("does not support truncate in batch mode"), capture on or off
    raw.writeTo("written").using("delta").create()
    raw.writeTo("written").append()
    sql(
        "CREATE TABLE parts (id int, amount double, region string) USING delta PARTITIONED BY (region)"
    )
    sql("INSERT INTO parts SELECT id, amount, region FROM saved")
    sql(
        "INSERT OVERWRITE parts PARTITION (region = 'x') SELECT id, amount FROM saved WHERE region = 'x'"
    )
    raw.select("id", "amount", "region").writeTo("parts").overwritePartitions()

    # row-level DML
    sql("CREATE TABLE target (id int, name string, amount double) USING delta")
    sql("INSERT INTO target VALUES (1, 'old', 1.0), (5, 'keep', 5.0), (6, 'gone', 6.0)")
    changes = spark.createDataFrame(
        [(1, "new", 100.0), (2, "add", 200.0)], "id int, label string, price double"
    )
    changes.write.format("delta").saveAsTable("changes")
    sql(
        "MERGE INTO target t USING changes s ON t.id = s.id "
        "WHEN MATCHED AND s.price > 50 THEN UPDATE SET t.amount = s.price * 2, t.name = s.label "
        "WHEN NOT MATCHED AND s.id > 0 THEN INSERT (id, name, amount) VALUES (s.id, upper(s.label), s.price) "
        "WHEN NOT MATCHED BY SOURCE AND t.id = 6 THEN DELETE "
        "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.name = concat(t.name, '!')"
    )
    sql("UPDATE target SET amount = amount + 1 WHERE name = 'keep!'")
    sql("DELETE FROM target WHERE amount > 150")

    # maintenance
    sql("OPTIMIZE target")
    sql("RESTORE TABLE target TO VERSION AS OF 1")
    sql("VACUUM target")
    handle.flush(60)
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
