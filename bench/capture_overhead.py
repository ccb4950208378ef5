"""Overhead of the Spark capture: the same multi-action pipeline with and without capture.

Runs `--pairs` interleaved pairs (order alternating inside each pair) on one local SparkSession
and prints the median ratio of wall times (with / without) and its spread, the same for CPU time
(driver JVM + Python, Linux only: less noisy than wall time on a shared machine, and it includes
the capture's work that finishes after the pipeline), and the load average before and after.

    .venv/bin/python bench/capture_overhead.py [--pairs 10] [--rows 3000000] [--warmup 2]
"""

from __future__ import annotations

import argparse
import logging
import os
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


def cpu_seconds(jvm_pid: int | None) -> float:
    """CPU time used so far by this Python process and the driver JVM (if readable)."""
    total = time.process_time()
    if jvm_pid is not None:
        try:
            stat = Path(f"/proc/{jvm_pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError):
            pass
    return total


def timed(
    spark: SparkSession, rows: int, work: Path, capture: bool, events: Path, jvm_pid: int | None
) -> tuple[float, float]:
    """Wall time of the pipeline, and CPU time until the capture delivered what it saw."""
    handle = enable(spark, transport="file", path=str(events)) if capture else None
    cpu = cpu_seconds(jvm_pid)
    started = time.perf_counter()
    pipeline(spark, rows, work)
    elapsed = time.perf_counter() - started
    if handle is not None:
        handle.flush(timeout=60)
    cpu = cpu_seconds(jvm_pid) - cpu
    if handle is not None:
        COSTS.append(handle.stats())
        handle.disable(timeout=60)  # delivery happens after the timed part, as in a real job
    return elapsed, cpu


def spread(values: list[float]) -> str:
    """`median (IQR q1-q3, min, max)` of ratios."""
    q1, _, q3 = statistics.quantiles(values, n=4)
    return (
        f"{statistics.median(values):.3f} (IQR {q1:.3f}-{q3:.3f}, min {min(values):.3f}, "
        f"max {max(values):.3f}, {len(values)} pairs)"
    )


def _jvm_pid(spark: SparkSession) -> int | None:
    try:
        pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    except Exception:
        return None
    return pid if Path(f"/proc/{pid}/stat").exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="at least 2")
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--warmup", type=int, default=2, help="untimed pairs first")
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
    jvm_pid = _jvm_pid(spark)
    work = Path(tempfile.mkdtemp(prefix="plumbline-bench-"))
    try:
        for capture in (False, True) * args.warmup:  # JIT and caches warm
            timed(spark, args.rows, work, capture, work / "warmup.jsonl", jvm_pid)
        COSTS.clear()
        load_before = os.getloadavg()
        ratios, cpu_ratios, cpu_extra = [], [], []
        wall: dict[bool, list[float]] = {False: [], True: []}
        for pair in range(args.pairs):
            order = (False, True) if pair % 2 == 0 else (True, False)
            runs = {
                c: timed(spark, args.rows, work, c, work / "events.jsonl", jvm_pid) for c in order
            }
            for capture, (elapsed, _) in runs.items():
                wall[capture].append(elapsed)
            ratios.append(runs[True][0] / runs[False][0])
            cpu_ratios.append(runs[True][1] / runs[False][1])
            cpu_extra.append(runs[True][1] - runs[False][1])
            print(
                f"pair {pair + 1:2d}: without {runs[False][0]:6.2f}s  with {runs[True][0]:6.2f}s  "
                f"ratio {ratios[-1]:.3f}   cpu {runs[False][1]:6.2f}s / {runs[True][1]:6.2f}s  "
                f"ratio {cpu_ratios[-1]:.3f}"
            )
        load_after = os.getloadavg()
        events = sum(1 for _ in (work / "events.jsonl").open())
        print(
            f"pipeline median: without {statistics.median(wall[False]):.2f}s, "
            f"with {statistics.median(wall[True]):.2f}s ({events} events captured)"
        )
        print(f"median ratio with/without: {spread(ratios)}")
        if jvm_pid is not None:
            print(
                f"median CPU-time ratio (JVM + Python): {spread(cpu_ratios)}; capture CPU per "
                f"pipeline {statistics.median(cpu_extra) * 1000:.0f} ms (median of differences)"
            )
        worker = statistics.median(c["worker_seconds"] for c in COSTS)
        callbacks = statistics.median(c["listener_callbacks"] for c in COSTS)
        print(
            f"capture cost per pipeline (median): worker {worker * 1000:.0f} ms "
            f"({worker / statistics.median(wall[True]):.1%} of its wall time), "
            f"{callbacks:.0f} listener callbacks into Python"
        )
        print(
            "load average (1/5/15 min): before "
            + "/".join(f"{v:.2f}" for v in load_before)
            + ", after "
            + "/".join(f"{v:.2f}" for v in load_after)
        )
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
