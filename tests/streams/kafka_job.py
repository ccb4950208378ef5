"""The Kafka job of tests/streams/test_kafka.py: batch and streaming reads and writes of a real
broker (the tests' `kafka_broker`), in one SparkSession with the Kafka connector, captured to a file.

    python kafka_job.py WORKDIR EVENTS_FILE BOOTSTRAP BROKER_FOLDER

Every stream runs with `trigger(availableNow=True)` over a few records. What Spark itself reports
of each query (its progress: sources' offsets and row counts; its exception) goes to
`WORKDIR/report.json`, so the tests compare the events with Spark's own account.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: runtime_jars, kafka_broker
from kafka_broker import broker_jars, run_tool  # noqa: E402
from runtime_jars import runtime_jar_paths  # noqa: E402

from plumbline.spark import enable  # noqa: E402

ORDER = "id int, amount double"


def session(work: Path) -> tuple[SparkSession, bool]:
    """The session, and whether Delta Lake runs on this line (its jars are pinned for it)."""
    jars = runtime_jar_paths("kafka")
    try:
        jars += runtime_jar_paths("delta")
        delta = True
    except LookupError:
        delta = False
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("kafkaJob")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.jars", ",".join(str(x) for x in jars))
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(work / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={work}")
    )
    if delta:
        builder = builder.config(
            "spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension"
        ).config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"
        )
    return builder.getOrCreate(), delta


def _progress(query: Any) -> list[dict[str, Any]]:
    """Spark's progress reports of a query (dicts on 3.5, objects with `.json` on 4.x)."""
    return [json.loads(p.json) if hasattr(p, "json") else p for p in query.recentProgress]


class Job:
    def __init__(self, spark: SparkSession, work: Path, bootstrap: str, broker: Path) -> None:
        self.spark, self.work, self.bootstrap, self.broker = spark, work, bootstrap, broker
        self.classpath = ":".join(str(x) for x in broker_jars())
        self.report: dict[str, Any] = {}

    def tool(self, *args: str) -> str:
        return run_tool(self.bootstrap, self.broker, self.classpath, *args)

    def source(self, servers: str | None = None, **options: str) -> DataFrame:
        reader = (
            self.spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", servers or self.bootstrap)
            .option("startingOffsets", "earliest")
        )
        for key, value in options.items():
            reader = reader.option(key, value)
        return reader.load()

    def run(self, name: str, writer: Any, start: Any = None) -> None:
        """Start a query (`writer` with its checkpoint), wait for its end, report it."""
        writer = writer.queryName(name).option(
            "checkpointLocation", str(self.work / "checkpoints" / name)
        )
        query = writer.trigger(availableNow=True).start(*([start] if start else []))
        error = None
        try:
            query.awaitTermination(300)
        except Exception as exc:  # the job's own failure, reported as Spark raised it
            error = f"{type(exc).__name__}: {exc}"
        self.report.setdefault(name, []).append(
            {"runId": str(query.runId), "progress": _progress(query), "error": error}
        )

    def produce(self, rows: DataFrame, topic: str) -> None:
        """A batch write of `rows` (JSON values keyed by id) to `topic`."""
        value = F.to_json(F.struct("id", "amount")).alias("value")
        (rows.select(F.col("id").cast("string").alias("key"), value).write.format("kafka")
            .option("kafka.bootstrap.servers", self.bootstrap).option("topic", topic).save())  # fmt: skip

    def parsed(self, frame: DataFrame) -> DataFrame:
        return frame.select(
            F.from_json(F.col("value").cast("string"), ORDER).alias("o"), "topic"
        ).select("o.id", "o.amount", "topic")


def main(work: Path, events: Path, bootstrap: str, broker: Path) -> None:
    spark, delta = session(work)
    spark.sparkContext.setLogLevel("ERROR")
    handle = enable(spark, transport="file", path=str(events), namespace="streams")
    assert handle is not None
    job = Job(spark, work, bootstrap, broker)
    job.report["delta"] = delta
    orders = spark.createDataFrame([(i, i * 10.0) for i in range(1, 7)], ORDER)

    # batch write and read
    for topic, rows in (("orders", orders), ("pay-a", orders.limit(3)), ("pay-b", orders.limit(2))):
        job.produce(rows, topic)
    handle.flush(60)
    batch = spark.read.format("kafka").option("kafka.bootstrap.servers", bootstrap)
    batch = batch.option("subscribe", "orders").option("startingOffsets", "earliest").load()
    job.parsed(batch).write.parquet(str(work / "batch_orders"))

    # Kafka -> Kafka
    upper = job.source(subscribe="orders").select(
        "key", F.upper(F.col("value").cast("string")).alias("value")
    )
    job.run("to_kafka", upper.writeStream.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap).option("topic", "orders_upper"))  # fmt: skip
    # Kafka -> Parquet
    job.run("to_files", job.parsed(job.source(subscribe="orders")).writeStream.format("parquet"),
            str(work / "stream_orders"))  # fmt: skip
    # Kafka -> Delta
    if delta:
        job.run("to_delta", job.parsed(job.source(subscribe="orders")).writeStream.format("delta"),
                str(work / "delta_orders"))  # fmt: skip

    # foreachBatch to two tables
    def two_tables(frame: DataFrame, batch_id: int) -> None:
        frame.write.mode("append").parquet(str(work / "fb_all"))
        frame.where("amount > 20").select("id").write.mode("append").parquet(str(work / "fb_big"))

    fb = job.parsed(job.source(subscribe="orders")).writeStream.foreachBatch(two_tables)
    job.run("foreach_batch", fb)

    # subscribePattern: the topics it matched
    job.run("pattern", job.parsed(job.source(subscribePattern="pay-.*")).writeStream.format("parquet"),
            str(work / "pattern_out"))  # fmt: skip

    # a running pattern stream (processing-time trigger) that meets a new topic: RUNNING, then
    # COMPLETE at stop()
    job.produce(orders.limit(2), "evt-a")
    growing = job.parsed(job.source(subscribePattern="evt-.*")).writeStream.format("parquet")
    growing = growing.queryName("growing").trigger(processingTime="500 milliseconds")
    query = growing.option("checkpointLocation", str(work / "checkpoints" / "growing")).start(
        str(work / "growing_out")
    )
    query.processAllAvailable()
    job.produce(orders.limit(1), "evt-b")
    deadline = time.monotonic() + 120
    # until a batch has read evt-b's record (a batch may first see the new topic empty, offset 0)
    while time.monotonic() < deadline and not any(
        (p["sources"][0]["endOffset"] or {}).get("evt-b", {}).get("0") == 1
        for p in _progress(query)
    ):
        time.sleep(0.5)
    query.stop()
    job.report["growing"] = [
        {"runId": str(query.runId), "progress": _progress(query), "error": None}
    ]

    # a sink broker that is down: the query fails with Kafka's error
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{s.getsockname()[1]}"
    job.run("dead_sink", job.source(subscribe="orders").select("key", "value").writeStream
            .format("kafka").option("kafka.bootstrap.servers", dead).option("topic", "nowhere")
            .option("kafka.max.block.ms", "3000").option("kafka.request.timeout.ms", "2000")
            .option("kafka.delivery.timeout.ms", "3000"))  # fmt: skip
    # a source broker that is down
    down = job.source(servers=dead, subscribe="orders", **{
        "kafka.default.api.timeout.ms": "3000", "kafka.request.timeout.ms": "2000",
        "fetchOffset.numRetries": "1", "fetchOffset.retryIntervalMs": "10",
    })  # fmt: skip
    job.run("dead_source", job.parsed(down).writeStream.format("parquet"), str(work / "dead_out"))

    # a topic reset under a query with failOnDataLoss=false: offsets go backwards
    job.tool("create", "resettable", "1")
    job.tool(
        "produce", "resettable", *(f"{i}={json.dumps({'id': i, 'amount': 1.0})}" for i in range(5))
    )
    reset = job.source(subscribe="resettable", failOnDataLoss="false")
    job.run("reset", job.parsed(reset).writeStream.format("parquet"), str(work / "reset_out"))
    job.tool("delete", "resettable")
    job.tool("create", "resettable", "1")
    job.tool(
        "produce", "resettable", *(f"{i}={json.dumps({'id': i, 'amount': 2.0})}" for i in (7, 8))
    )
    reset = job.source(subscribe="resettable", failOnDataLoss="false")
    job.run("reset", job.parsed(reset).writeStream.format("parquet"), str(work / "reset_out"))
    job.report["reset_rows"] = sorted(
        r.id for r in spark.read.parquet(str(work / "reset_out")).collect()
    )

    handle.flush(60)
    (work / "report.json").write_text(json.dumps(job.report, indent=1, default=str))
    spark.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
