"""The capture's SparkListener on a real SparkContext: what reaches Python, and its removal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from plumbline.spark.listener import CaptureWorker, SqlExecutionListener, register, unregister

pytestmark = pytest.mark.spark


class _Recorder:
    """A listener with its worker, recording the executions it was told about."""

    def __init__(self, spark: Any) -> None:
        from pyspark.java_gateway import ensure_callback_server_started

        ensure_callback_server_started(spark.sparkContext._gateway)
        self.started: list[int] = []
        self.ended: list[int] = []
        self.worker = CaptureWorker()
        self.listener = SqlExecutionListener(
            spark.sparkContext._jvm,
            lambda execution_id, root_id, qe, when: self.started.append(execution_id),
            lambda execution_id, qe, failure, when: self.ended.append(execution_id),
            self.worker,
        )

    def settle(self, spark: Any) -> None:
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(60_000)
        assert self.worker.drain(60)


def _listeners(spark: Any) -> Any:
    return spark.sparkContext._jsc.sc().listenerBus().listeners()


def _job(spark: Any, target: Path) -> None:
    """An action with several tasks, stages and blocks (each an event on the listener bus)."""
    spark.range(2000).repartition(3).write.mode("overwrite").parquet(str(target))


def test_filtered_listener_is_called_for_sql_executions_only(spark: Any, tmp_path: Path) -> None:
    recorder = _Recorder(spark)
    registered = register(spark.sparkContext, recorder.listener)
    try:
        assert "PlumblineSqlExecutionForwarder" in str(registered.getClass().getName())
        _job(spark, tmp_path / "out")
        recorder.settle(spark)
    finally:
        unregister(spark.sparkContext, registered)
        recorder.worker.stop()
    assert recorder.started and sorted(recorder.started) == sorted(recorder.ended)
    # one Python call per execution start and end, none for the job's tasks and stages
    assert recorder.listener.callbacks == len(recorder.started) + len(recorder.ended)
    assert not _listeners(spark).contains(registered)


@pytest.mark.parametrize("filtered", [True, False])
def test_unregistered_listener_hears_nothing_more(
    spark: Any, tmp_path: Path, filtered: bool
) -> None:
    spark.range(1).collect()  # listeners that Spark adds on a session's first query are in
    recorder, neighbour = _Recorder(spark), _Recorder(spark)
    # a listener ahead of it on the bus: removal compares them (Java equals, through py4j)
    ahead = register(spark.sparkContext, neighbour.listener, filtered=False)
    before = _listeners(spark).size()
    registered = register(spark.sparkContext, recorder.listener, filtered=filtered)
    try:
        assert _listeners(spark).size() == before + 1
        _job(spark, tmp_path / "first")
        recorder.settle(spark)
    finally:
        unregister(spark.sparkContext, registered)
    assert _listeners(spark).size() == before
    unregister(spark.sparkContext, ahead)
    neighbour.worker.stop()
    assert _listeners(spark).size() == before - 1
    heard = recorder.listener.callbacks
    if not filtered:  # unfiltered, Python hears every task and stage event as well
        assert heard > len(recorder.started) + len(recorder.ended)
    _job(spark, tmp_path / "second")
    recorder.settle(spark)
    recorder.worker.stop()
    assert recorder.started and recorder.listener.callbacks == heard
