"""Overhead of the Spark capture: the same multi-action pipeline with and without capture.

Runs `--pairs` interleaved pairs (order alternating inside each pair) on one local SparkSession
and prints the median ratio of wall times (with / without) and its spread, the same for CPU time
(driver JVM + Python, Linux only; it includes the capture's work that finishes after the
pipeline), the CPU time of the capture's side alone (see `CpuMeter`: the least noisy figure on a
shared machine), and the load average before and after.

    .venv/bin/python bench/capture_overhead.py [--pairs 10] [--rows 9000000] [--warmup 2]

The default size gives actions of about 2 s each on a quiet 2-core machine (the issue's "actions
of a second or more"); with fewer rows fixed per-action costs weigh more and the spread grows.
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
    """Three writing actions (about 2 s each at the default size), and one read-back."""
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


class CpuMeter:
    """CPU seconds used so far (Linux /proc): in all, and on the capture's side only.

    "All" is this Python process plus the driver JVM (which runs the local executors too).
    "Side" leaves the job's own threads out, so it is far less noisy than wall time on a shared
    machine: Python threads other than the main one (capture worker, emitter, py4j callbacks and
    object releases) plus the JVM's py4j threads other than the main thread's and its listener
    bus threads. Without capture it measures Spark's and py4j's own background work.
    """

    def __init__(self, spark: SparkSession) -> None:
        jvm = spark.sparkContext._jvm
        self._tick = os.sysconf("SC_CLK_TCK")
        self._pid: int | None = int(jvm.java.lang.ProcessHandle.current().pid())
        self._main = str(jvm.java.lang.Thread.currentThread().getName())[:15]
        if not Path(f"/proc/{self._pid}/task").is_dir():
            self._pid = None

    def _jvm(self) -> tuple[float, float]:
        total = side = 0.0
        if self._pid is None:
            return total, side
        # the whole process's CPU, ended threads' included (a sum over the live threads dropped
        # the executor threads that ended between two samples: negative differences)
        stat = Path(f"/proc/{self._pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        total = (int(fields[11]) + int(fields[12])) / self._tick
        for task in Path(f"/proc/{self._pid}/task").iterdir():
            try:
                stat = (task / "stat").read_text()
            except OSError:
                continue  # the thread ended
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            seconds = (int(fields[11]) + int(fields[12])) / self._tick
            py4j = name.startswith("Thread-") and name[7:].isdigit() and name != self._main
            if py4j or name.startswith("spark-listener"):
                side += seconds
        return total, side

    def sample(self) -> tuple[float, float]:
        """(all CPU, capture-side CPU) in seconds."""
        jvm_total, jvm_side = self._jvm()
        python = time.process_time()
        return python + jvm_total, python - time.thread_time() + jvm_side

    @property
    def available(self) -> bool:
        """Whether the JVM's CPU time can be read."""
        return self._pid is not None


def timed(
    spark: SparkSession, rows: int, work: Path, capture: bool, events: Path, meter: CpuMeter
) -> tuple[float, float, float]:
    """Wall time of the pipeline, and CPU time (all, capture side) until its events are out."""
    handle = enable(spark, transport="file", path=str(events)) if capture else None
    cpu, side = meter.sample()
    started = time.perf_counter()
    pipeline(spark, rows, work)
    elapsed = time.perf_counter() - started
    if handle is not None:
        handle.flush(timeout=60)
    cpu_after, side_after = meter.sample()
    if handle is not None:
        COSTS.append(handle.stats())
        handle.disable(timeout=60)  # delivery happens after the timed part, as in a real job
    return elapsed, cpu_after - cpu, side_after - side


def spread(values: list[float]) -> str:
    """`median (IQR q1-q3, min, max)` of ratios."""
    q1, _, q3 = statistics.quantiles(values, n=4)
    return (
        f"{statistics.median(values):.3f} (IQR {q1:.3f}-{q3:.3f}, min {min(values):.3f}, "
        f"max {max(values):.3f}, {len(values)} pairs)"
    )


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="at least 2")
    parser.add_argument("--rows", type=int, default=9_000_000)
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
    meter = CpuMeter(spark)
    work = Path(tempfile.mkdtemp(prefix="plumbline-bench-"))
    try:
        for capture in (False, True) * args.warmup:  # JIT and caches warm
            timed(spark, args.rows, work, capture, work / "warmup.jsonl", meter)
        COSTS.clear()
        load_before = os.getloadavg()
        ratios, cpu_ratios, cpu_extra = [], [], []
        side: dict[bool, list[float]] = {False: [], True: []}
        wall: dict[bool, list[float]] = {False: [], True: []}
        for pair in range(args.pairs):
            order = (False, True) if pair % 2 == 0 else (True, False)
            runs = {
                c: timed(spark, args.rows, work, c, work / "events.jsonl", meter) for c in order
            }
            for capture, (elapsed, _, side_cpu) in runs.items():
                wall[capture].append(elapsed)
                side[capture].append(side_cpu)
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
        if meter.available:
            print(
                f"median CPU-time ratio (JVM + Python): {spread(cpu_ratios)}; difference per "
                f"pipeline {statistics.median(cpu_extra) * 1000:.0f} ms (median)"
            )
            extra = [w - wo for w, wo in zip(side[True], side[False], strict=True)]
            q1, _, q3 = statistics.quantiles(extra, n=4)
            print(
                f"capture-side CPU per pipeline (median): without {_ms(side[False])} ms, "
                f"with {_ms(side[True])} ms; difference {statistics.median(extra) * 1000:.0f} ms "
                f"(IQR {q1 * 1000:.0f}-{q3 * 1000:.0f})"
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
