"""The Apache Paimon job of tests/formats/test_paimon.py: every write, read and maintenance
procedure the capture knows on Paimon tables of a filesystem catalog (`pc`), in one SparkSession,
captured to a file (and recorded in a Spark event log under WORKDIR/eventlog).

    python paimon_job.py WORKDIR EVENTS_FILE

Each step writes a table of its own (named after the step) so the test finds its events by name;
WORKDIR/snapshots.json records the snapshot ids the job saw, for the test to compare with.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: runtime_jars
from runtime_jars import runtime_jars  # noqa: E402

from plumbline.spark import enable  # noqa: E402


def session(work: Path) -> SparkSession:
    (work / "eventlog").mkdir(exist_ok=True)
    return (
        SparkSession.builder.master("local[2]")
        .appName("paimonJob")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.jars", runtime_jars("paimon"))
        .config(
            "spark.sql.extensions",
            "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions",
        )
        .config("spark.sql.catalog.pc", "org.apache.paimon.spark.SparkCatalog")
        .config("spark.sql.catalog.pc.warehouse", str(work / "paimon"))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work}")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", str(work / "eventlog"))
        .getOrCreate()
    )


def snapshots(spark: SparkSession, table: str) -> list[int]:
    query = f"SELECT snapshot_id FROM pc.db.`{table}$snapshots` ORDER BY snapshot_id"  # noqa: S608
    return [int(r.snapshot_id) for r in spark.sql(query).collect()]


def main(work: Path, events: Path) -> None:
    spark = session(work)
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
    sql("CREATE DATABASE pc.db")

    # create, append, saveAsTable, writeTo, CTAS, schema evolution
    sql(
        "CREATE TABLE pc.db.target (id int, name string, amount double) "
        "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')"
    )
    sql("INSERT INTO pc.db.target VALUES (1, 'old', 1.0), (5, 'keep', 5.0), (6, 'gone', 6.0)")
    raw.write.format("paimon").saveAsTable("pc.db.saved")
    sql("CREATE TABLE pc.db.ctas AS SELECT id, upper(name) AS name FROM pc.db.saved")
    raw.writeTo("pc.db.written").create()
    raw.writeTo("pc.db.written").append()
    sql("ALTER TABLE pc.db.written ADD COLUMNS (note string)")  # schema evolution
    raw.withColumn("note", raw.name).writeTo("pc.db.written").append()
    seen["written"] = snapshots(spark, "written")

    # partitions: INSERT, INSERT OVERWRITE … PARTITION (static), overwritePartitions() (dynamic)
    sql("CREATE TABLE pc.db.parts (id int, amount double, region string) PARTITIONED BY (region)")
    sql("INSERT INTO pc.db.parts SELECT id, amount, region FROM pc.db.saved")
    sql(
        "INSERT OVERWRITE pc.db.parts PARTITION (region = 'x') "
        "SELECT id, amount FROM pc.db.saved WHERE region = 'x'"
    )
    raw.select("id", "amount", "region").writeTo("pc.db.parts").overwritePartitions()
    seen["parts"] = snapshots(spark, "parts")

    # time travel: scan.snapshot-id, VERSION AS OF, scan.timestamp-millis; a system table
    target = snapshots(spark, "target")
    handle.flush(60)
    time.sleep(0.05)
    stamp = int(time.time() * 1000)
    time.sleep(0.05)
    sql("INSERT INTO pc.db.target VALUES (7, 'late', 7.0)")
    old = spark.read.option("scan.snapshot-id", str(target[0])).table("pc.db.target")
    old.select("id", "amount").writeTo("pc.db.from_snapshot").create()
    at = spark.read.option("scan.timestamp-millis", str(stamp)).table("pc.db.target")
    at.select("id", "name").writeTo("pc.db.from_time").create()
    travel = f"SELECT id FROM pc.db.target VERSION AS OF {target[0]}"  # noqa: S608
    sql(f"CREATE TABLE pc.db.from_version AS {travel}")
    sql(
        "CREATE TABLE pc.db.from_history AS "
        "SELECT snapshot_id, commit_kind FROM pc.db.`target$snapshots`"
    )

    # tags
    sql(f"CALL pc.sys.create_tag(table => 'db.target', tag => 'first', snapshot => {target[0]})")
    sql("CREATE TABLE pc.db.from_tag AS SELECT id FROM pc.db.target VERSION AS OF 'first'")
    seen["target_before_dml"] = snapshots(spark, "target")

    # row-level DML
    changes = spark.createDataFrame(
        [(1, "new", 100.0), (2, "add", 200.0)], "id int, name string, amount double"
    )
    changes.writeTo("pc.db.changes").create()
    sql(
        "MERGE INTO pc.db.target t USING pc.db.changes s ON t.id = s.id "
        "WHEN MATCHED AND s.amount > 50 THEN UPDATE SET amount = s.amount * 2, name = s.name "
        "WHEN NOT MATCHED AND s.id > 0 THEN INSERT (id, name, amount) "
        "VALUES (s.id, upper(s.name), s.amount)"
    )
    sql("UPDATE pc.db.target SET amount = amount + 1 WHERE name = 'keep'")
    sql("DELETE FROM pc.db.target WHERE amount > 150")
    seen["target_after_dml"] = snapshots(spark, "target")

    # maintenance procedures (an append first, for the compaction to have files to merge)
    sql("INSERT INTO pc.db.target VALUES (9, 'nine', 9.0)")
    sql("CALL pc.sys.compact(table => 'db.target')")
    seen["compacted"] = snapshots(spark, "target")
    seen["rollback_to"] = seen["target_before_dml"][-1]  # type: ignore[index]
    sql(f"CALL pc.sys.rollback(table => 'db.target', version => '{seen['rollback_to']}')")
    sql("CALL pc.sys.expire_snapshots(table => 'db.target', retain_max => 100)")
    seen["target"] = snapshots(spark, "target")
    handle.flush(60)
    (work / "snapshots.json").write_text(json.dumps(seen))
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
