"""A Spark application the `--follow` tests tail while it runs: `python follow_app.py WORK NAME`.

NAME is an application of eventlog_jobs.py (`plain`, `zstd`, `rolling`...), whose event-log
settings it takes. It writes `projected_1`, then creates WORK/step1 and waits (up to 5 minutes)
for WORK/go, so the test can see that execution's lineage while the application still runs;
then it writes `projected_2` and ends. `rolling` first runs a job with a 3.5 MB description
(Spark counts the parts' size before compression), so its log rolls to a new part while it is followed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from eventlog_jobs import session


def main(work: Path, name: str) -> None:
    spark = session(name, work)
    source = work / "data" / "source"
    rows = spark.createDataFrame([(1, "a", 2.0), (2, "b", 3.0)], "id int, name string, v double")
    rows.write.mode("overwrite").parquet(str(source))
    frame = spark.read.parquet(str(source)).selectExpr("id", "upper(name) AS label", "v * 2 AS d")
    frame.write.mode("overwrite").parquet(str(work / "data" / "projected_1"))
    (work / "step1").touch()
    waited = time.monotonic()
    while not (work / "go").exists():
        if time.monotonic() - waited > 300:
            raise SystemExit("no go from the test")
        time.sleep(0.1)
    if name == "rolling":  # events larger than the 10 MiB parts: the log rolls
        spark.sparkContext.setJobDescription("x" * 3_500_000)
        spark.read.parquet(str(source)).count()
        spark.sparkContext.setJobDescription(None)  # type: ignore[arg-type]
    frame.where("id > 1").write.mode("overwrite").parquet(str(work / "data" / "projected_2"))
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
