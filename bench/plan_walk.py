"""Reading a wide, deep plan: a 300-column output built in 100 steps, walked for column lineage.

Builds the plan on a local SparkSession (nothing is executed): a 300-column parquet source, then
`--steps` steps that each recompute a tenth of the columns (`withColumns`), then a parquet write
command's analyzed plan. Reads it three ways, interleaved, and times as medians of `--repeats`:

- toJSON: the JVM's `toJSON()` (and its transfer to Python), then `plan.parse_plan`;
- flat: `plan_reader.read_plan` (the compiled compact reader, then `plan.parse_compact`), the
  reader of sessions 8-9;
- chain: `plan_reader.read_plan(collapse=True)`, what the capture reads (projection chains
  collapsed into `ProjectChain` nodes, their lineage worked out JVM-side);
- walk: column lineage of every output column (`lineage.column_lineage`), on each tree;
- capture: read + walk (what the capture spends on the plan; the issue's target is <= 50 ms).

Wall times on a shared, loaded machine measure the load as much as the code, so each is also
measured as CPU time: the JVM thread's (`ThreadMXBean`, around the read) plus the Python
thread's (`time.thread_time`), read and walk apart; the fastest capture of each way is printed too.

All three trees must give the same lineage (checked). The reader's one-time compile is printed apart.

    .venv/bin/python bench/plan_walk.py [--columns 300] [--steps 100] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
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
from plumbline.spark.plan_reader import read_plan, reader_for  # noqa: E402

WAYS = ("toJSON", "flat", "chain")


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
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--ways",
        default=",".join(WAYS),
        help="which reads to time (comma-separated; the toJSON one makes 11 MB of JVM garbage)",
    )
    args = parser.parse_args()
    ways = [way for way in args.ways.split(",") if way]
    if not ways or set(ways) - set(WAYS):
        sys.exit(f"--ways: a comma-separated choice of {', '.join(WAYS)}")
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    began = time.perf_counter()
    if reader_for(spark._jvm) is None:
        sys.exit("the compact reader did not compile (see the log line above)")
    compiled = time.perf_counter() - began

    def source_of(leaf: Any, column: str) -> Any:
        return {("src", column): {(DIRECT, IDENTITY)}}

    with tempfile.TemporaryDirectory() as tmp:
        analyzed = wide_plan(spark, args.columns, args.steps, Path(tmp))
        reader = reader_for(spark._jvm)
        sizes = {
            "toJSON": len(str(analyzed.toJSON())),
            "flat": len(str(reader.compactJson(analyzed, False))),
            "chain": len(str(reader.compactJson(analyzed, True))),
        }
        parts = ("read", "walk", "capture", "read cpu", "walk cpu", "capture cpu")
        times: dict[str, dict[str, list[float]]] = {
            way: {part: [] for part in parts} for way in ways
        }
        # the reference lineage: the node-for-node tree's (untimed)
        reference = column_lineage(parse_plan(str(analyzed.toJSON())), source_of)
        threads = spark._jvm.java.lang.management.ManagementFactory.getThreadMXBean()
        answers = {}
        for _ in range(args.repeats):
            for way in ways:
                # the JVM CPU probes (a py4j round trip each) bracket the timed read, outside it
                jvm_began = threads.getCurrentThreadCpuTime()
                began, began_cpu = time.perf_counter(), time.thread_time()
                if way == "toJSON":
                    root = parse_plan(str(analyzed.toJSON()))
                else:
                    root = read_plan(spark._jvm, analyzed, collapse=way == "chain")
                read, read_cpu = time.perf_counter(), time.thread_time()
                jvm_cpu = (threads.getCurrentThreadCpuTime() - jvm_began) / 1e9
                answers[way] = column_lineage(root, source_of)
                walked, walked_cpu = time.perf_counter(), time.thread_time()
                for part, value in zip(
                    parts,
                    (
                        read - began,
                        walked - read,
                        walked - began,
                        read_cpu - began_cpu + jvm_cpu,
                        walked_cpu - read_cpu,
                        walked_cpu - began_cpu + jvm_cpu,
                    ),
                    strict=True,
                ):
                    times[way][part].append(value)
    version = spark.version
    spark.stop()
    same = all(
        (answers[way].columns, answers[way].dataset) == (reference.columns, reference.dataset)
        for way in ways
    )
    both = "flat" in ways and "chain" in ways
    print(f"spark {version}, {args.columns} columns, {args.steps} steps, load {_load()}")
    print("plan text: " + ", ".join(f"{way} {sizes[way] / 1e6:.3f} MB" for way in WAYS))
    print(f"reader compile (once per JVM): {compiled * 1000:.0f} ms")
    print(f"columns with lineage: {len(reference.columns)}; same lineage all ways: {same}")
    print(
        f"{'median ms':11s}" + "".join(f"{w:>10s}" for w in ways) + ("  flat/chain" if both else "")
    )
    for part in parts:
        medians = {way: statistics.median(times[way][part]) * 1000 for way in ways}
        ratio = f"{medians['flat'] / medians['chain']:11.1f}x" if both else ""
        print(f"{part:11s}" + "".join(f"{m:10.1f}" for m in medians.values()) + ratio)
    best = [min(times[way]["capture"]) * 1000 for way in ways]
    print(
        f"{'capture min':11s}" + "".join(f"{m:10.1f}" for m in best) + "  (the least loaded read)"
    )
    if not same:
        sys.exit("the reads gave different lineage")


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
