"""The Apache Iceberg job of tests/formats/test_iceberg.py: every write, read and maintenance
procedure the capture knows on Iceberg tables of a Hadoop catalog (`hc`) and a JDBC catalog on
PostgreSQL (`jc`), in one SparkSession, captured to a file (and recorded in a Spark event log
under WORKDIR/eventlog).

    python iceberg_job.py WORKDIR EVENTS_FILE JDBC_URL

Each step writes a table of its own (named after the step) so the test finds its events by name;
WORKDIR/snapshots.json records the snapshot ids the job saw, for the test to compare with.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: runtime_jars
from runtime_jars import runtime_jars  # noqa: E402

from plumbline.spark import enable  # noqa: E402

JDBC_JAR = "/usr/share/java/postgresql.jar"  # Debian's libpostgresql-jdbc-java


def session(work: Path, jdbc_url: str) -> SparkSession:
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("icebergJob")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.jars", f"{runtime_jars('iceberg')},{JDBC_JAR}")
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        )
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work}")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", str(work / "eventlog"))
    )
    (work / "eventlog").mkdir(exist_ok=True)
    catalogs = {
        "hc": {"type": "hadoop", "warehouse": str(work / "hadoop")},
        "jc": {
            "type": "jdbc",
            "uri": jdbc_url,
            "jdbc.user": "postgres",
            "warehouse": str(work / "jdbc"),
        },
    }
    for name, settings in catalogs.items():
        builder = builder.config(
            f"spark.sql.catalog.{name}", "org.apache.iceberg.spark.SparkCatalog"
        )
        for key, value in settings.items():
            builder = builder.config(f"spark.sql.catalog.{name}.{key}", value)
    return builder.getOrCreate()


def snapshots(spark: SparkSession, table: str) -> list[int]:
    query = f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at"  # noqa: S608
    rows = spark.sql(query).collect()
    return [int(r.snapshot_id) for r in rows]


def head(spark: SparkSession, table: str, ref: str = "main") -> int:
    """The snapshot a branch or tag of `table` points at."""
    query = f"SELECT snapshot_id FROM {table}.refs WHERE name = '{ref}'"  # noqa: S608
    rows = spark.sql(query).collect()
    return int(rows[0].snapshot_id)


def main(work: Path, events: Path, jdbc_url: str) -> None:
    spark = session(work, jdbc_url)
    spark.sparkContext.setLogLevel("ERROR")
    handle = enable(spark, transport="file", path=str(events), namespace="formats")
    assert handle is not None
    sql = spark.sql
    seen: dict[str, object] = {}
    orders = spark.createDataFrame(
        [(1, "a", 10.0, "x"), (2, "b", 20.0, "y"), (3, "c", 30.0, "x")],
        "id int, name string, amount double, region string",
    )
    orders.write.parquet(str(work / "orders"))  # a plain file input
    raw = spark.read.parquet(str(work / "orders"))

    # create, append, saveAsTable, writeTo, CTAS / RTAS, schema evolution
    sql("CREATE TABLE hc.db.target (id int, name string, amount double) USING iceberg")
    sql("INSERT INTO hc.db.target VALUES (1, 'old', 1.0), (5, 'keep', 5.0), (6, 'gone', 6.0)")
    raw.write.format("iceberg").saveAsTable("hc.db.saved")
    sql("CREATE TABLE hc.db.ctas USING iceberg AS SELECT id, upper(name) AS name FROM hc.db.saved")
    sql(
        "CREATE OR REPLACE TABLE hc.db.ctas USING iceberg AS SELECT id, name, amount FROM hc.db.saved"
    )
    raw.writeTo("hc.db.written").using("iceberg").create()
    raw.writeTo("hc.db.written").append()
    sql("ALTER TABLE hc.db.written SET TBLPROPERTIES ('write.spark.accept-any-schema' = 'true')")
    raw.withColumn("note", raw.name).writeTo("hc.db.written").option(
        "merge-schema", "true"
    ).append()

    # partitions: INSERT, INSERT OVERWRITE … PARTITION (static), overwritePartitions() (dynamic)
    sql(
        "CREATE TABLE hc.db.parts (id int, amount double, region string) USING iceberg "
        "PARTITIONED BY (region)"
    )
    sql("INSERT INTO hc.db.parts SELECT id, amount, region FROM hc.db.saved")
    sql(
        "INSERT OVERWRITE hc.db.parts PARTITION (region = 'x') "
        "SELECT id, amount FROM hc.db.saved WHERE region = 'x'"
    )
    raw.select("id", "amount", "region").writeTo("hc.db.parts").overwritePartitions()

    # a commit that conflicts: an overwrite validated from an older snapshot, serializable
    before = snapshots(spark, "hc.db.parts")[-1]
    sql("INSERT INTO hc.db.parts VALUES (9, 9.0, 'x')")
    try:
        (raw.select("id", "amount", "region").writeTo("hc.db.parts")
            .option("validate-from-snapshot-id", str(before))
            .option("isolation-level", "serializable")
            .overwrite(F.col("region") == "x"))  # fmt: skip
        seen["conflict"] = "committed"
    except Exception as exc:
        seen["conflict"] = type(exc).__name__
    seen["parts"] = snapshots(spark, "hc.db.parts")

    # time travel: snapshot-id, as-of-timestamp, VERSION AS OF; a metadata table
    target = snapshots(spark, "hc.db.target")
    handle.flush(60)
    time.sleep(0.05)
    stamp = int(time.time() * 1000)
    time.sleep(0.05)
    sql("INSERT INTO hc.db.target VALUES (7, 'late', 7.0)")
    old = spark.read.option("snapshot-id", str(target[0])).table("hc.db.target")
    old.select("id", "amount").writeTo("hc.db.from_snapshot").using("iceberg").create()
    at = spark.read.option("as-of-timestamp", str(stamp)).table("hc.db.target")
    at.select("id", "name").writeTo("hc.db.from_time").using("iceberg").create()
    travel = f"SELECT id FROM hc.db.target VERSION AS OF {target[0]}"  # noqa: S608
    sql(f"CREATE TABLE hc.db.from_version USING iceberg AS {travel}")
    sql(
        "CREATE TABLE hc.db.from_history USING iceberg AS "
        "SELECT snapshot_id, operation FROM hc.db.target.snapshots"
    )

    # branches and tags
    sql("ALTER TABLE hc.db.target CREATE TAG first AS OF VERSION " + str(target[0]))
    sql("ALTER TABLE hc.db.target CREATE BRANCH dev")
    sql("INSERT INTO hc.db.target.branch_dev VALUES (8, 'dev', 8.0)")
    sql(
        "CREATE TABLE hc.db.from_tag USING iceberg AS SELECT id FROM hc.db.target VERSION AS OF 'first'"
    )
    dev = spark.read.option("branch", "dev").table("hc.db.target")
    dev.select("id", "name").writeTo("hc.db.from_branch").using("iceberg").create()
    seen["target_before_merge"] = snapshots(spark, "hc.db.target")
    seen["main_before_merge"] = head(spark, "hc.db.target")
    seen["dev"] = head(spark, "hc.db.target", "dev")

    # row-level DML
    changes = spark.createDataFrame(
        [(1, "new", 100.0), (2, "add", 200.0)], "id int, label string, price double"
    )
    changes.writeTo("hc.db.changes").using("iceberg").create()
    sql(
        "MERGE INTO hc.db.target t USING hc.db.changes s ON t.id = s.id "
        "WHEN MATCHED AND s.price > 50 THEN UPDATE SET t.amount = s.price * 2, t.name = s.label "
        "WHEN NOT MATCHED AND s.id > 0 THEN INSERT (id, name, amount) VALUES (s.id, upper(s.label), s.price) "
        "WHEN NOT MATCHED BY SOURCE AND t.id = 6 THEN DELETE "
        "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.name = concat(t.name, '!')"
    )
    sql("UPDATE hc.db.target SET amount = amount + 1 WHERE name = 'keep!'")
    sql("DELETE FROM hc.db.target WHERE amount > 150")
    seen["target_after_dml"] = snapshots(spark, "hc.db.target")

    # maintenance procedures; one the capture does not know
    sql(
        "CALL hc.system.rewrite_data_files(table => 'db.target', options => map('rewrite-all', 'true'))"
    )
    seen["rollback_to"] = seen["main_before_merge"]
    sql(f"CALL hc.system.rollback_to_snapshot('db.target', {seen['rollback_to']})")
    sql("CALL hc.system.expire_snapshots(table => 'db.target', retain_last => 100)")
    sql("CALL hc.system.ancestors_of('db.target')").collect()

    # the JDBC catalog on PostgreSQL
    raw.writeTo("jc.db.orders").using("iceberg").create()
    raw.writeTo("jc.db.orders").append()
    sql(
        "CREATE TABLE jc.db.totals USING iceberg AS SELECT region, sum(amount) AS total FROM jc.db.orders GROUP BY region"
    )
    # TRUNCATE TABLE (Spark's V2 TruncateTable): Iceberg deletes every row in a snapshot
    sql("CREATE TABLE hc.db.emptied (id int, name string) USING iceberg")
    sql("INSERT INTO hc.db.emptied VALUES (1, 'a'), (2, 'b')")
    sql("TRUNCATE TABLE hc.db.emptied")
    seen["emptied"] = snapshots(spark, "hc.db.emptied")
    seen["jdbc_orders"] = snapshots(spark, "jc.db.orders")
    seen["jdbc_totals"] = snapshots(spark, "jc.db.totals")
    seen["target"] = snapshots(spark, "hc.db.target")
    handle.flush(60)
    (work / "snapshots.json").write_text(json.dumps(seen))
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
