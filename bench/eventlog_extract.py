"""Event-log extraction speed: MB of log per second, local[2] / local[1], against one Python process,
the reader's peak memory as one log grows 10x, and `--follow`'s incremental reader (the log appended
1 MiB at a time, read on after each append) against the batch reader of the finished log.

    .venv/bin/python bench/eventlog_extract.py [--seed LOG] [--logs 4] [--scale 100]

The seed is a real event log (by default made by running tests/eventlogs/eventlog_jobs.py's `plain`
application); the corpus repeats its SQL executions `--scale` times per log (execution ids shifted) in
`--logs` logs, uncompressed and zstd. Prints medians of 3 runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from plumbline.eventlogs.files import find_logs  # noqa: E402
from plumbline.eventlogs.job import run_extraction  # noqa: E402
from plumbline.eventlogs.task import Target, extract_log  # noqa: E402


def seed_log(work: Path) -> Path:
    subprocess.run(
        [sys.executable, str(ROOT / "tests/eventlogs/eventlog_jobs.py"), str(work), "plain"],
        check=True,
        capture_output=True,
    )
    return next(p for p in (work / "logs").iterdir() if "." not in p.name)


def scaled(seed: Path, target: Path, scale: int, compress: bool) -> int:
    """`seed` with its SQL executions repeated `scale` times (ids shifted), optionally zstd;
    returns its size decompressed."""
    lines = seed.read_text().splitlines()
    head = [line for line in lines if '"SparkListenerApplicationEnd"' not in line]
    tail = [line for line in lines if '"SparkListenerApplicationEnd"' in line]
    body = [line for line in head if "org.apache.spark.sql" in line or "SparkListenerTask" in line]
    out: list[str] = list(head)
    for copy in range(1, scale):
        for line in body:
            event = json.loads(line)
            for key in ("executionId", "rootExecutionId"):
                if key in event:
                    event[key] = int(event[key]) + copy * 1000
            out.append(json.dumps(event))
    text = ("\n".join(out + tail) + "\n").encode()
    if compress:
        import zstandard

        target.with_name(target.name + ".zstd").write_bytes(
            zstandard.ZstdCompressor().compress(text)
        )
    else:
        target.write_bytes(text)
    return len(text)


def median_seconds(action: object, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def peak_memory_mb(log: Path, out: Path) -> float:
    """Peak RSS of a fresh process extracting one log (the reader alone, no Spark)."""
    code = (
        "import resource, sys; sys.path.insert(0, sys.argv[3]);"
        "from plumbline.eventlogs.files import find_logs;"
        "from plumbline.eventlogs.task import Target, extract_log;"
        "logs, _ = find_logs([sys.argv[1]]); r = extract_log(logs[0], Target(out=sys.argv[2]));"
        "assert r.status == 'ok', r;"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(log), str(out), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(done.stdout.strip())


def spark_seconds(corpus: Path, out: Path, cores: int) -> float:
    """Median wall time of the extraction job on local[cores] (after one warm-up run)."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .config("spark.ui.enabled", "false")
        .config("spark.pyspark.python", sys.executable)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        run_extraction([str(corpus)], Target(out=str(out)), spark=spark)  # warm the workers
        return median_seconds(
            lambda: run_extraction([str(corpus)], Target(out=str(out)), spark=spark)
        )
    finally:
        spark.stop()


def measure(codec: str, seed: Path, work: Path, count: int, scale: int) -> None:
    corpus = work / f"corpus-{codec}"
    corpus.mkdir()
    raw = sum(
        scaled(seed, corpus / f"local-{index:04d}", scale, codec == "zstd")
        for index in range(count)
    )
    logs, _ = find_logs([str(corpus)])
    megabytes, raw_mb = sum(log.size for log in logs) / 1e6, raw / 1e6
    out = work / f"out-{codec}"

    def single() -> None:
        for log in logs:
            assert extract_log(log, Target(out=str(out))).status == "ok"

    python = median_seconds(single)
    one, two = spark_seconds(corpus, out, 1), spark_seconds(corpus, out, 2)
    events = sum(len(p.read_text().splitlines()) for p in out.glob("*.jsonl"))
    print(
        f"{codec:>5}: {len(logs)} logs, {megabytes:.1f} MB on disk ({raw_mb:.1f} MB decompressed),"
        f" {events} OpenLineage events | MB/s decompressed (on disk):"
        f" python 1 process {raw_mb / python:.1f} ({megabytes / python:.2f}), {events / python:.0f} events/s"
        f" | spark local[1] {raw_mb / one:.1f} ({megabytes / one:.2f})"
        f" | local[2] {raw_mb / two:.1f} ({megabytes / two:.2f})"
        f" | local[2]/local[1] {one / two:.2f}x | local[1]/python {python / one:.2f}x"
    )


def follow_vs_batch(log: Path, work: Path) -> tuple[float, float]:
    """Median seconds of `--follow`'s reader over `log` growing 1 MiB per poll (events written to a
    folder), and of the batch reader (`extract_log`) over the finished log."""
    from plumbline.eventlogs.files import EventLog
    from plumbline.eventlogs.follow import Tail, _Delivery

    data, piece = log.read_bytes(), 1 << 20
    growing = work / f"follow-{log.name}.inprogress"
    delivery = _Delivery(Target(out=str(work / "follow-out")))

    def follow() -> None:
        growing.write_bytes(b"")
        (work / "follow-out").mkdir(exist_ok=True)
        for old in (work / "follow-out").glob("*"):
            old.unlink()
        tail = Tail(str(growing), None, set())
        for start in range(0, len(data), piece):
            with growing.open("ab") as stream:
                stream.write(data[start : start + piece])
            tail.poll(EventLog(str(growing), [str(growing)], True, start + piece))
            delivery.send(tail.key, tail.take())
        tail.poll(EventLog(str(growing), [str(growing)], False, len(data)))
        delivery.send(tail.key, tail.take())
        assert tail.done and tail.result.status == "ok", tail.result

    def batch() -> None:
        (found,), _ = find_logs([str(log)])
        assert extract_log(found, Target(out=str(work / "batch-out"))).status == "ok"

    return median_seconds(follow), median_seconds(batch)


def main() -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=Path)
    parser.add_argument("--logs", type=int, default=4)
    parser.add_argument("--scale", type=int, default=100)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="plumbline-bench-eventlogs-"))
    seed = args.seed or seed_log(work)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    for codec in ("none", "zstd"):
        measure(codec, seed, work, args.logs, args.scale)
    small, large = work / "mem-1x", work / "mem-10x"
    raw_small = scaled(seed, small, args.scale, True) / 1e6
    raw_large = scaled(seed, large, args.scale * 10, True) / 1e6
    one = peak_memory_mb(small.with_name(small.name + ".zstd"), work / "mem-out")
    ten = peak_memory_mb(large.with_name(large.name + ".zstd"), work / "mem-out")
    print(
        f"peak RSS of the reader (zstd logs): {one:.0f} MB for a log of {raw_small:.1f} MB"
        f" decompressed, {ten:.0f} MB for {raw_large:.1f} MB (10x): ratio {ten / one:.2f}"
    )
    for name in (small.name, small.name + ".zstd"):
        scaled(seed, small, args.scale, False)
        tailed, whole = follow_vs_batch(work / name, work)
        print(
            f"follow ({name}, {raw_small:.1f} MB decompressed, appended 1 MiB per poll):"
            f" {raw_small / tailed:.1f} MB/s | batch reader {raw_small / whole:.1f} MB/s"
            f" | follow / batch time {tailed / whole:.2f}x"
        )
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    main()
