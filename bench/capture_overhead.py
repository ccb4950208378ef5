"""Overhead of the Spark capture: the same multi-action pipeline with and without capture.

Runs `--pairs` interleaved pairs (order alternating inside each pair) on one local SparkSession
and prints the median ratio of wall times (with / without) and its spread.

    .venv/bin/python bench/capture_overhead.py [--pairs 10] [--rows 3000000]
"""

from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from plumbline.spark import enable


def pipeline(spark: SparkSession, rows: int, work: Path) -> None:
    """Three writing actions of about a second each, and one read-back."""
    base = spark.range(rows).select(
        F.col("id"),
        (F.col("id") % 97).alias("k"),
        F.sha2(F.col("id").cast("string"), 256).alias("h"),
    )
    base.write.mode("overwrite").parquet(str(work / "base"))
    facts = spark.read.parquet(str(work / "base"))
    facts.groupBy("k").agg(F.count("*").alias("n"), F.max("h").alias("mx")).write.mode(
        "overwrite"
    ).parquet(str(work / "agg"))
    keys = spark.read.parquet(str(work / "agg"))
    facts.join(keys, "k").where(F.col("id") % 5 == 0).select("id", "k", "n").write.mode(
        "overwrite"
    ).parquet(str(work / "joined"))


COSTS: list[dict[str, float]] = []


def timed(spark: SparkSession, rows: int, work: Path, capture: bool, events: Path) -> float:
    handle = enable(spark, transport="file", path=str(events)) if capture else None
    started = time.perf_counter()
    pipeline(spark, rows, work)
    elapsed = time.perf_counter() - started
    if handle is not None:
        handle.flush(timeout=60)
        COSTS.append(handle.stats())
        handle.disable(timeout=60)  # delivery happens after the timed part, as in a real job
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="at least 2")
    parser.add_argument("--rows", type=int, default=3_000_000)
    args = parser.parse_args()
    if args.pairs < 2:
        parser.error("--pairs must be at least 2")
    logging.basicConfig(level=logging.ERROR)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("plumblineCaptureOverhead")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    work = Path(tempfile.mkdtemp(prefix="plumbline-bench-"))
    try:
        timed(spark, args.rows, work, False, work / "warmup.jsonl")  # JIT and caches warm
        timed(spark, args.rows, work, True, work / "warmup.jsonl")
        COSTS.clear()
        ratios, without, with_ = [], [], []
        for pair in range(args.pairs):
            order = (False, True) if pair % 2 == 0 else (True, False)
            times = {c: timed(spark, args.rows, work, c, work / "events.jsonl") for c in order}
            without.append(times[False])
            with_.append(times[True])
            ratios.append(times[True] / times[False])
            print(
                f"pair {pair + 1:2d}: without {times[False]:6.2f}s  with {times[True]:6.2f}s  "
                f"ratio {ratios[-1]:.3f}"
            )
        events = sum(1 for _ in (work / "events.jsonl").open())
        quartiles = statistics.quantiles(ratios, n=4)
        print(
            f"pipeline median: without {statistics.median(without):.2f}s, "
            f"with {statistics.median(with_):.2f}s ({events} events captured)"
        )
        print(
            f"median ratio with/without: {statistics.median(ratios):.3f} "
            f"(IQR {quartiles[0]:.3f}-{quartiles[2]:.3f}, min {min(ratios):.3f}, "
            f"max {max(ratios):.3f}, {len(ratios)} pairs)"
        )
        worker = statistics.median(c["worker_seconds"] for c in COSTS)
        callbacks = statistics.median(c["listener_callbacks"] for c in COSTS)
        print(
            f"capture cost per pipeline (median): worker {worker * 1000:.0f} ms "
            f"({worker / statistics.median(with_):.1%} of its wall time), "
            f"{callbacks:.0f} listener callbacks"
        )
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
