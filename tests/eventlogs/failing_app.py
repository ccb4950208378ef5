"""A real Spark application whose job fails, for the extraction-vs-live tests (issue 27).

Run as `plumbline run --namespace NS ... failing_app.py WORKDIR`: it writes a parquet file with a
string column ``temp_c``, then reads it back with a declared schema saying ``temp_c DOUBLE`` and
writes the result, which fails in the executors (the parquet column cannot be read as a double).
The script ends the capture as failed (the handle `plumbline run` enabled, with the error), stops
Spark and exits 1: live capture ends the application FAILED, and the event log (in WORKDIR/logs)
ends normally (an application end event, not `.inprogress`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyspark.sql import SparkSession


def main(work: Path) -> None:
    (work / "logs").mkdir(parents=True, exist_ok=True)
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("FailingReadings")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", str(work / "logs"))
        .config("spark.eventLog.rolling.enabled", "false")
        .config("spark.eventLog.compress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("OFF")
    source, out = str(work / "data" / "readings"), str(work / "data" / "clean")
    rows = spark.createDataFrame([(1, "20.5"), (2, "21.0")], "id INT, temp_c STRING")
    rows.write.mode("overwrite").parquet(source)
    declared = spark.read.schema("id INT, temp_c DOUBLE").parquet(source)
    try:
        declared.write.mode("overwrite").parquet(out)  # fails: temp_c is a string in the file
    except Exception as exc:
        import plumbline.spark

        handle = plumbline.spark.enable(spark)  # the capture `plumbline run` enabled
        if handle is not None:
            handle.disable(error=exc)
        spark.stop()
        raise SystemExit(1) from None
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
