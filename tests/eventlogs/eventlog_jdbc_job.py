"""A Spark application writing JDBC and DataSource V2 tables, with its event log and its live
capture: `python eventlog_jdbc_job.py WORKDIR DATABASE CLASSES` (a PostgreSQL database on
127.0.0.1; CLASSES: the compiled TruncatingJDBCTableCatalog.java).

It writes through the JDBC source twice, first with Spark's default redaction (the URL is
`*********(redacted)` in the log), then with `spark.sql.redaction.options.regex` set to
`(?i)password` (the log shows the URL); then through a V2 JDBC catalog (`plpg`, set when the
session starts, so the log's environment holds its URL): CREATE, append, overwrite, INSERT; then
creates a table in a JDBC catalog whose tables can be truncated (`plt`, same database) and runs
the V2 `TruncateTable` command on it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

JAR = "/usr/share/java/postgresql.jar"  # Debian's libpostgresql-jdbc-java


def main(work: Path, database: str, classes: str) -> None:
    url = f"jdbc:postgresql://127.0.0.1:5432/{database}"
    (work / "logs").mkdir(parents=True, exist_ok=True)
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("EventLogJdbc")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", str(work / "logs"))
        .config("spark.eventLog.rolling.enabled", "false")
        .config("spark.jars", JAR)
        .config(
            "spark.sql.catalog.plpg",
            "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog",
        )
        .config("spark.sql.catalog.plpg.url", url)
        .config("spark.sql.catalog.plpg.driver", "org.postgresql.Driver")
        .config("spark.sql.catalog.plpg.user", "postgres")
        .config("spark.driver.extraClassPath", classes)
        .config("spark.sql.catalog.plt", "TruncatingJDBCTableCatalog")
        .config("spark.sql.catalog.plt.url", url)
        .config("spark.sql.catalog.plt.driver", "org.postgresql.Driver")
        .config("spark.sql.catalog.plt.user", "postgres")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    import plumbline.spark

    plumbline.spark.enable(spark, transport="file", path=str(work / "live.jsonl"))
    source = str(work / "source")
    rows = spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id long, name string")
    rows.coalesce(1).write.mode("overwrite").parquet(source)
    frame = spark.read.parquet(source)

    def jdbc(table: str) -> None:
        (
            frame.write.format("jdbc")
            .option("url", url)
            .option("driver", "org.postgresql.Driver")
            .option("dbtable", table)
            .option("user", "postgres")
            .mode("overwrite")
            .save()
        )

    jdbc("redacted_v1")
    spark.conf.set("spark.sql.redaction.options.regex", "(?i)password")
    jdbc("visible_v1")
    frame.writeTo("plpg.public.table_v2").create()  # CreateTableAsSelect
    frame.writeTo("plpg.public.table_v2").append()  # AppendData
    frame.writeTo("plpg.public.table_v2").overwrite(F.lit(True))  # OverwriteByExpression
    frame.createOrReplaceTempView("source")
    spark.sql("INSERT INTO plpg.public.table_v2 SELECT id + 10, upper(name) FROM source")
    frame.writeTo("plt.public.table_trunc").create()
    spark.sql("TRUNCATE TABLE plt.public.table_trunc")  # TruncateTable (V2)
    left = spark.table("plt.public.table_trunc").count()
    assert left == 0, f"{left} rows left after TRUNCATE"
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
