"""Reading a wide, deep plan: a 300-column output built in 100 steps, walked for column lineage.

Builds the plan on a local SparkSession (nothing is executed): a 300-column parquet source, then
`--steps` steps that each recompute a tenth of the columns (`withColumns`), then a parquet write
command's analyzed plan. Times, as medians of `--repeats` runs:

- json: the JVM's `toJSON()` of the analyzed plan and its transfer to Python;
- parse: `plan.parse_plan` of that text;
- walk: column lineage of every output column (`lineage.column_lineage`);
- capture: the three together (what the capture spends on the plan; target <= 50 ms).

    .venv/bin/python bench/plan_walk.py [--columns 300] [--steps 100] [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from plumbline.spark.lineage import DIRECT, IDENTITY, column_lineage  # noqa: E402
from plumbline.spark.plan import parse_plan  # noqa: E402


def wide_plan(spark: SparkSession, columns: int, steps: int, work: Path) -> Any:
    """The analyzed plan of writing a `columns`-wide frame built in `steps` steps (not run)."""
    source = str(work / "source")
    spark.range(1).select(*[F.col("id").alias(f"c{i}") for i in range(columns)]).write.parquet(
        source
    )
    frame = spark.read.parquet(source)
    for step in range(steps):
        changed = range(step % 10, columns, 10)
        frame = frame.withColumns({f"c{i}": F.col(f"c{i}") + step for i in changed})
    frame.createOrReplaceTempView("plumbline_wide")
    target = work / "out"
    text = f"INSERT OVERWRITE DIRECTORY '{target}' USING parquet SELECT * FROM plumbline_wide"  # noqa: S608
    state = spark._jsparkSession.sessionState()
    return state.analyzer().execute(state.sqlParser().parsePlan(text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=300)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as tmp:
        analyzed = wide_plan(spark, args.columns, args.steps, Path(tmp))
        times: dict[str, list[float]] = {"json": [], "parse": [], "walk": [], "capture": []}
        for _ in range(args.repeats):
            began = time.perf_counter()
            text = str(analyzed.toJSON())
            got_json = time.perf_counter()
            root = parse_plan(text)
            parsed = time.perf_counter()
            result = column_lineage(
                root, lambda leaf, column: {("src", column): {(DIRECT, IDENTITY)}}
            )
            walked = time.perf_counter()
            times["json"].append(got_json - began)
            times["parse"].append(parsed - got_json)
            times["walk"].append(walked - parsed)
            times["capture"].append(walked - began)
    spark.stop()
    print(
        f"spark {spark.version}, {args.columns} columns, {args.steps} steps, plan JSON {len(text) / 1e6:.1f} MB"
    )
    print(f"columns with lineage: {len(result.columns)}")
    for name, values in times.items():
        print(
            f"{name:8s} median {statistics.median(values) * 1000:7.1f} ms  (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})"
        )


if __name__ == "__main__":
    main()
