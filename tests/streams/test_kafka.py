"""Kafka for real: kafka_job.py reads and writes the tests' broker (`kafka_broker`) in one Spark
session with the Kafka connector (a subprocess: its jars stay out of the shared test session),
batch and streaming, and the tests read its events beside what Spark itself reported of each query
(`report.json`: progress with the sources' offsets and row counts, the query's exception).

On Spark 4.3 the connector is spark-sql-kafka-0-10_2.13 4.2.0 (no 4.3 release was served); it
runs there. Kafka -> Delta runs where Delta Lake has a release for the line (3.5).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kafka_broker import KafkaBroker
from spark_job_runs import needs_jars, run_job

pytestmark = [pytest.mark.spark, pytest.mark.slow]

JOB = Path(__file__).with_name("kafka_job.py")
APP = "kafka_job"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, kafka_broker: KafkaBroker) -> dict[str, Any]:
    """The job's events, Spark's report and the broker (one subprocess for the whole module)."""
    needs_jars("kafka", "no Kafka connector for this Spark line")
    work = tmp_path_factory.mktemp("kafka_job")
    events, stderr = run_job(JOB, work, kafka_broker.bootstrap, str(kafka_broker.folder))
    return {
        "work": work,
        "events": events,
        "report": json.loads((work / "report.json").read_text()),
        "ns": kafka_broker.namespace,
        "stderr": stderr,
    }


def _stream(run: dict[str, Any], query: str, index: int = 0) -> list[dict[str, Any]]:
    """The events of one run of a streaming query, found by the run id Spark reported."""
    run_id = run["report"][query][index]["runId"]
    return [e for e in run["events"] if e["run"]["runId"] == run_id]


def _names(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(d["namespace"], d["name"]) for d in datasets]


def _lineage(dataset: dict[str, Any]) -> dict[str, set[tuple[str, str, str]]]:
    """{output field: {(input name, input field, subtype)}}."""
    fields = dataset["facets"]["columnLineage"]["fields"]
    return {
        name: {
            (f["name"], f["field"], t["subtype"])
            for f in v["inputFields"]
            for t in f["transformations"]
        }
        for name, v in fields.items()
    }


def _one_run(events: list[dict[str, Any]], end: str = "COMPLETE") -> dict[str, Any]:
    """A stream's events: START first, `end` last, every one a STREAMING job; the last one."""
    kinds = [e["eventType"] for e in events]
    assert kinds[0] == "START" and kinds[-1] == end and set(kinds[1:-1]) <= {"RUNNING"}, kinds
    for event in events:
        assert event["job"]["facets"]["jobType"]["processingType"] == "STREAMING"
    return events[-1]


def _rows_read(dataset: dict[str, Any]) -> int | None:
    """The rowCount of an input's inputStatistics facet (None: no statistics)."""
    return dataset.get("inputFacets", {}).get("inputStatistics", {}).get("rowCount")


def _source_rows(run: dict[str, Any], query: str, index: int = 0) -> list[tuple[Any, Any, int]]:
    """(startOffset, endOffset, numInputRows) of every batch Spark reported for the query."""
    return [
        (s["startOffset"], s["endOffset"], s["numInputRows"])
        for p in run["report"][query][index]["progress"]
        for s in p["sources"]
    ]


def test_batch_writes_and_reads_name_their_topics(run: dict[str, Any]) -> None:
    ns = run["ns"]
    writes = [
        e for e in run["events"] if e["eventType"] == "COMPLETE"
        and e["job"]["name"].startswith(f"{APP}.execute_save_into_data_source_command.")
    ]  # fmt: skip
    assert [_names(e["outputs"]) for e in writes] == [
        [(ns, "orders")], [(ns, "pay-a")], [(ns, "pay-b")], [(ns, "evt-a")], [(ns, "evt-b")],
    ]  # fmt: skip
    (read,) = [
        e for e in run["events"] if e["eventType"] == "COMPLETE"
        and e["job"]["name"] == f"{APP}.execute_insert_into_hadoop_fs_relation_command.batch_orders"
    ]  # fmt: skip
    assert _names(read["inputs"]) == [(ns, "orders")]
    assert _lineage(read["outputs"][0]) == {
        "id": {("orders", "value", "TRANSFORMATION")},
        "amount": {("orders", "value", "TRANSFORMATION")},
        "topic": {("orders", "topic", "IDENTITY")},
    }


def test_kafka_to_kafka_is_one_streaming_run(run: dict[str, Any]) -> None:
    ns = run["ns"]
    end = _one_run(_stream(run, "to_kafka"))
    assert end["job"]["name"] == f"{APP}.execute_write_to_micro_batch_data_source.orders_upper"
    assert _names(end["inputs"]) == [(ns, "orders")]
    assert _names(end["outputs"]) == [(ns, "orders_upper")]
    assert _lineage(end["outputs"][0]) == {
        "key": {("orders", "key", "IDENTITY")},
        "value": {("orders", "value", "TRANSFORMATION")},
    }
    assert _source_rows(run, "to_kafka") == [(None, {"orders": {"0": 6}}, 6)]
    assert _rows_read(end["inputs"][0]) == 6  # the micro-batch scan's rows, as Spark counts them


def test_kafka_to_files_names_the_folder(run: dict[str, Any]) -> None:
    end = _one_run(_stream(run, "to_files"))
    assert _names(end["inputs"]) == [(run["ns"], "orders")]
    assert _names(end["outputs"]) == [("file", str(run["work"] / "stream_orders"))]
    assert _lineage(end["outputs"][0])["amount"] == {("orders", "value", "TRANSFORMATION")}


def test_kafka_to_delta_names_the_delta_table(run: dict[str, Any]) -> None:
    if not run["report"]["delta"]:
        pytest.skip("no Delta Lake release for this Spark line (docs/reference.md)")
    end = _one_run(_stream(run, "to_delta"))
    assert end["job"]["name"] == f"{APP}.execute_write_to_micro_batch_data_source_v1.delta_orders"
    (output,) = end["outputs"]
    assert (output["namespace"], output["name"]) == ("file", str(run["work"] / "delta_orders"))
    assert output["facets"]["storage"]["fileFormat"] == "delta"
    assert _names(end["inputs"]) == [(run["ns"], "orders")]
    assert _lineage(output)["id"] == {("orders", "value", "TRANSFORMATION")}


def test_foreach_batch_writes_every_table_from_the_topic(run: dict[str, Any]) -> None:
    end = _one_run(_stream(run, "foreach_batch"))
    assert end["job"]["name"] == f"{APP}.execute_insert_into_hadoop_fs_relation_command.fb_all"
    assert _names(end["inputs"]) == [(run["ns"], "orders")]
    work = run["work"]
    assert _names(end["outputs"]) == [
        ("file", str(work / "fb_all")),
        ("file", str(work / "fb_big")),
    ]


def test_subscribe_pattern_names_the_topics_it_read(run: dict[str, Any]) -> None:
    end = _one_run(_stream(run, "pattern"))
    assert _names(end["inputs"]) == [(run["ns"], "pay-a"), (run["ns"], "pay-b")]
    assert _source_rows(run, "pattern") == [(None, {"pay-a": {"0": 3}, "pay-b": {"0": 2}}, 5)]
    assert _lineage(end["outputs"][0])["topic"] == {
        ("pay-a", "topic", "IDENTITY"), ("pay-b", "topic", "IDENTITY"),
    }  # fmt: skip


def test_a_pattern_stream_that_meets_a_new_topic_says_so_while_running(run: dict[str, Any]) -> None:
    """processingTime trigger: the first batch reads evt-a (START); a later one reads the new topic
    evt-b too (RUNNING, with it among the inputs); stop() completes the run."""
    events = _stream(run, "growing")
    end = _one_run(events)
    ns = run["ns"]
    assert _names(events[0]["inputs"]) == [(ns, "evt-a")]
    assert [_names(e["inputs"]) for e in events if e["eventType"] == "RUNNING"][:1] == [
        [(ns, "evt-a"), (ns, "evt-b")]
    ]
    assert _names(end["inputs"]) == [(ns, "evt-a"), (ns, "evt-b")]
    ends = [p["sources"][0]["endOffset"] for p in run["report"]["growing"][0]["progress"]]
    assert {"evt-a": {"0": 2}, "evt-b": {"0": 1}} in ends


def test_a_sink_broker_that_is_down_fails_the_run_with_kafkas_error(run: dict[str, Any]) -> None:
    (reported,) = run["report"]["dead_sink"]
    assert "StreamingQueryException" in reported["error"]  # the job saw Spark's own exception
    end = _one_run(_stream(run, "dead_sink"), end="FAIL")
    message = end["run"]["facets"]["errorMessage"]["message"]
    assert "org.apache.kafka.common.errors.TimeoutException: Topic nowhere not present" in message
    (output,) = end["outputs"]
    assert output["name"] == "nowhere" and output["namespace"] != run["ns"]
    assert _names(end["inputs"]) == [(run["ns"], "orders")]


def test_a_source_broker_that_is_down_fails_the_run_with_kafkas_error(run: dict[str, Any]) -> None:
    """Spark fails the query before it plans a micro-batch: the job sees Spark's own exception
    (Kafka's TimeoutException), and the run is named after the query's own plan, START then FAIL."""
    (reported,) = run["report"]["dead_source"]
    assert "TimeoutException: Timed out waiting for a node assignment" in reported["error"]
    assert reported["progress"] == []
    end = _one_run(_stream(run, "dead_source"), end="FAIL")
    assert end["job"]["name"] == f"{APP}.execute_write_to_micro_batch_data_source_v1.dead_out"
    (source,) = end["inputs"]
    assert source["name"] == "orders" and source["namespace"] != run["ns"]
    assert _names(end["outputs"]) == [("file", str(run["work"] / "dead_out"))]
    message = end["run"]["facets"]["errorMessage"]["message"]
    assert "TimeoutException: Timed out waiting for a node assignment" in message


def test_a_reset_topic_goes_backwards_as_spark_reports_it(run: dict[str, Any]) -> None:
    """failOnDataLoss=false: after the topic is deleted and made again, Spark's next batch runs
    from offset 5 to 2 and reads nothing (the new records 7 and 8 are skipped); the run still
    completes, naming the topic, and claims no more than Spark read."""
    assert _source_rows(run, "reset", 0) == [(None, {"resettable": {"0": 5}}, 5)]
    assert _source_rows(run, "reset", 1) == [
        ({"resettable": {"0": 5}}, {"resettable": {"0": 2}}, 0)
    ]
    assert run["report"]["reset_rows"] == [0, 1, 2, 3, 4]
    for index, rows in ((0, 5), (1, 0)):
        end = _one_run(_stream(run, "reset", index))
        assert _names(end["inputs"]) == [(run["ns"], "resettable")]
        assert _rows_read(end["inputs"][0]) == rows
        assert end["outputs"][0]["name"] == str(run["work"] / "reset_out")
    assert run["report"]["reset"][0]["runId"] != run["report"]["reset"][1]["runId"]


def _delta_versions_by_batch(table: Path) -> dict[int, str]:
    """Delta's own record of its streaming sink: each commit's ``txn`` action names the batch id
    (its ``version``) the commit holds; {batch id: Delta version}."""
    found: dict[int, str] = {}
    for commit in sorted((table / "_delta_log").glob("*.json")):
        for line in commit.read_text().splitlines():
            txn = json.loads(line).get("txn")
            if txn is not None:
                found[int(txn["version"])] = str(int(commit.stem))
    return found


def test_kafka_offsets_to_delta_versions_through_api_cli_and_sql(
    run: dict[str, Any], live_server: Any
) -> None:
    """Issue 26 §2 end to end: the Kafka -> Delta stream's captured events posted to a live server
    (both stores) answer "which Kafka offsets ended up in Delta version V" by the API, the CLI and
    the SQL table, in agreement with Spark's progress and Delta's log."""
    if not run["report"]["delta"]:
        pytest.skip("no Delta Lake release for this Spark line (docs/reference.md)")
    import subprocess
    import sys

    import httpx
    import sqlalchemy as sa

    events = _stream(run, "to_delta")
    run_id = events[0]["run"]["runId"]
    posted = httpx.post(f"{live_server.url}/api/v1/lineage", json=events, timeout=60)
    assert posted.status_code == 201, posted.text
    body = httpx.get(f"{live_server.url}/api/v1/jobs/runs/{run_id}/batches", timeout=60).json()
    table = run["work"] / "delta_orders"
    committed = _delta_versions_by_batch(table)
    progress = {p["batchId"]: p for p in run["report"]["to_delta"][0]["progress"]}
    assert body["totalCount"] == len(committed) > 0
    for batch in body["batches"]:
        assert batch["sinks"] == [
            {"namespace": "file", "name": str(table), "version": committed[batch["batchId"]]}
        ]
        (source,) = batch["sources"]
        assert source["namespace"] == run["ns"]
        (spark_source,) = progress[batch["batchId"]]["sources"]
        assert {
            (p["topic"], str(p["partition"])): p["endOffset"] for p in source["partitions"]
        } == {
            (topic, partition): end
            for topic, ends in spark_source["endOffset"].items()
            for partition, end in ends.items()
        }
    last = body["batches"][-1]
    version = last["sinks"][0]["version"]
    expected = sorted(
        (p["topic"], p["partition"], p["startOffset"], p["endOffset"])
        for p in last["sources"][0]["partitions"]
    )
    with sa.create_engine(live_server.db_url).connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT source_name, source_partition, source_start_offset, source_end_offset"
                " FROM plumbline_stream_batch_lineage"
                " WHERE target_name = :table AND target_version = :version"
                " AND source_partition IS NOT NULL ORDER BY 1, 2"
            ),
            {"table": str(table), "version": version},
        ).all()
    assert [tuple(r) for r in rows] == expected
    done = subprocess.run(
        [sys.executable, "-m", "plumbline", "batches", run_id, "--url", live_server.url],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    topic, partition, start, end = expected[0]
    assert f"{topic}[{partition}] {start}-{end}" in done.stdout
    assert f"file:{table} version {version}" in done.stdout
