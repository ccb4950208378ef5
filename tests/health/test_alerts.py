"""Change alerts from real event sequences, on both backends: each kind from the steady pipeline
with one thing changed, and none from the steady pipeline repeated 100 times (issue 19)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pipeline import DS, NS, alerts_of, day, hour_time, orders, raw, run_id
from sqlalchemy.engine import Engine
from store_summary import dataset, ingest

from plumbline.store.write import writer_for
from plumbline.store.write.alert_rules import AlertRules
from plumbline.store.write.freshness import check_freshness

STEADY_HOURS = 6


def steady(engine: Engine, hours: int = STEADY_HOURS) -> None:
    for hour in range(hours):
        ingest(engine, day(hour))


def only(engine: Engine, kind: str) -> dict[str, Any]:
    """The one alert there is, which must be of ``kind`` (prints what there is otherwise)."""
    found = alerts_of(engine)
    assert [a["kind"] for a in found] == [kind], found
    return found[0]


def test_no_alert_on_a_steady_pipeline_repeated_100_times(store: Engine) -> None:
    for start in range(0, 100, 10):  # ten hours per write, as a backlog would group them
        ingest(store, [e for hour in range(start, start + 10) for e in day(hour)])
    with store.begin() as conn:
        freshness = check_freshness(conn, AlertRules(), hour_time(100) + timedelta(minutes=30))
    assert freshness == []
    assert alerts_of(store) == []


def test_a_new_input_is_a_new_edge_with_its_blast_radius(store: Engine) -> None:
    steady(store)
    ingest(store, day(STEADY_HOURS, inputs=[raw(), dataset(DS, "fx")]))
    alert = only(store, "new-edge")
    assert alert["subject"] == f"job:{NS}:load"
    assert alert["runId"] == run_id(2 * STEADY_HOURS + 1)
    assert alert["details"] == {"direction": "input", "dataset": f"dataset:{DS}:fx"}
    radius = alert["blastRadius"]
    assert (radius["datasets"], radius["jobs"]) == (2, 1)  # orders, report; the report job
    assert {n["id"] for n in radius["nodes"]} == {
        f"dataset:{DS}:orders",
        f"job:{NS}:report",
        f"dataset:{DS}:report",
    }


def test_a_new_edge_whose_start_and_end_arrive_in_two_writes(store: Engine) -> None:
    steady(store)
    start, end, *report = day(STEADY_HOURS, inputs=[raw(), dataset(DS, "fx")])
    ingest(store, [start])
    ingest(store, [end, *report])
    alert = only(store, "new-edge")
    assert alert["details"] == {"direction": "input", "dataset": f"dataset:{DS}:fx"}


def test_the_first_runs_of_a_new_job_raise_nothing(store: Engine) -> None:
    ingest(store, day(0))
    assert alerts_of(store) == []


def test_an_input_no_longer_read_is_a_stopped_edge_after_n_runs(store: Engine) -> None:
    both = [raw(), dataset(DS, "fx")]
    for hour in range(STEADY_HOURS):
        ingest(store, day(hour, inputs=both))
    for hour in range(STEADY_HOURS, STEADY_HOURS + 2):
        ingest(store, day(hour))
    assert alerts_of(store, "stopped-edge") == []  # two runs without: not yet (N = 3)
    ingest(store, day(STEADY_HOURS + 2))
    alert = only(store, "stopped-edge")
    assert alert["subject"] == f"job:{NS}:load"
    assert alert["details"]["dataset"] == f"dataset:{DS}:fx"
    assert alert["details"]["lastReadBy"] == run_id(2 * (STEADY_HOURS - 1) + 1)
    ingest(store, day(STEADY_HOURS + 3))
    assert len(alerts_of(store)) == 1  # once


def test_a_removed_and_a_retyped_field_are_schema_drift_naming_derived_columns(
    store: Engine,
) -> None:
    steady(store)
    ingest(store, day(STEADY_HOURS, outputs=[orders({"id": "string", "price": "double",
                                                      "sku": "string"})]))  # fmt: skip
    alert = only(store, "schema-drift")
    assert alert["subject"] == f"dataset:{DS}:orders"
    details = alert["details"]
    assert details["added"] == [{"name": "sku", "type": "string"}]
    assert details["removed"] == [{"name": "qty", "type": "int"}]
    assert details["retyped"] == [{"name": "price", "before": "decimal(10,2)", "after": "double"}]
    assert details["affectedColumns"] == [
        {"from": "qty", "nodeId": f"datasetField:{DS}:report:items"},
        {"from": "price", "nodeId": f"datasetField:{DS}:report:total"},
    ]
    assert alert["blastRadius"]["jobs"] == 1  # report reads orders


def test_a_row_count_far_outside_the_history_is_a_volume_anomaly(store: Engine) -> None:
    steady(store)
    ingest(store, day(STEADY_HOURS, rows=50))
    alert = only(store, "volume-anomaly")
    assert alert["subject"] == f"dataset:{DS}:orders"
    assert alert["details"]["rows"] == 50
    assert alert["details"]["job"] == f"job:{NS}:load"
    assert alert["details"]["lower"] > 50 and alert["details"]["history"] == STEADY_HOURS


def test_a_run_far_longer_than_its_history_is_a_duration_anomaly(store: Engine) -> None:
    steady(store)
    ingest(store, day(STEADY_HOURS, minutes=55))
    alert = only(store, "duration-anomaly")
    assert alert["subject"] == f"job:{NS}:load"
    assert alert["details"]["seconds"] == 55 * 60


def test_too_little_history_says_nothing(store: Engine) -> None:
    steady(store, 3)
    ingest(store, day(3, rows=50, minutes=55))
    assert alerts_of(store) == []


def test_a_failure_after_successes_carries_the_run_diff(store: Engine) -> None:
    steady(store)
    ingest(store, day(STEADY_HOURS, state="FAIL", inputs=[raw(), dataset(DS, "fx")],
                      error="Traceback\nValueError: price 12,50 is not a number"))  # fmt: skip
    alert = {a["kind"]: a for a in alerts_of(store)}["failure-after-success"]
    assert alert["subject"] == f"job:{NS}:load"
    assert alert["details"]["successes"] == STEADY_HOURS
    assert alert["details"]["previousRunId"] == run_id(2 * (STEADY_HOURS - 1) + 1)
    diff = alert["details"]["runDiff"]
    assert diff["against"] == run_id(2 * (STEADY_HOURS - 1) + 1)
    assert diff["errorSummary"] == "ValueError: price 12,50 is not a number"
    assert diff["inputsAdded"] == [{"namespace": DS, "name": "fx"}]


def test_a_dataset_not_written_within_its_usual_interval_is_stale_once(store: Engine) -> None:
    steady(store)
    with store.begin() as conn:
        assert check_freshness(conn, AlertRules(), hour_time(STEADY_HOURS + 1)) == []
        late = hour_time(STEADY_HOURS + 4)
        assert len(check_freshness(conn, AlertRules(), late)) == 2  # orders and report
        assert check_freshness(conn, AlertRules(), late + timedelta(hours=1)) == []  # once
    subjects = sorted(a["subject"] for a in alerts_of(store, "freshness"))
    assert subjects == [f"dataset:{DS}:orders", f"dataset:{DS}:report"]


def test_detection_off_finds_nothing(store: Engine) -> None:
    normalizer = writer_for(store).normalizer
    normalizer.alert_rules = AlertRules(enabled=False)
    try:
        steady(store)
        ingest(store, day(STEADY_HOURS, rows=50, inputs=[raw(), dataset(DS, "fx")]))
    finally:
        normalizer.alert_rules = AlertRules()
    assert alerts_of(store) == []
