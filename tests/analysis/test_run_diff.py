"""Run diff on crafted runs, both backends: inputs added and removed, versions, schema changes,
counts, the job's code and engine, run facets, duration, column lineage, the error; the default
run to compare with, another run asked for, unknown and pruned runs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from run_events import DS, NS, orders_out, raw, run, run_id, sql
from sqlalchemy.engine import Engine
from store_summary import dataset, ingest

from plumbline.analysis.run_diff import diff_runs
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError
from plumbline.store.schema import lineage_events
from plumbline.store.write.prune import prune


def _diff(engine: Engine, run: int, against: int | None = None) -> dict:
    with engine.connect() as conn:
        other = run_id(against) if against is not None else None
        return diff_runs(conn, run_id(run), other).to_json()


@pytest.fixture
def runs(engine: Engine) -> Engine:
    """load: run 1 COMPLETE; run 2 COMPLETE (more rows); run 3 FAIL with a new SQL, Spark 4,
    another shuffle setting, a schema change in raw (price: double, id removed, sku added), an
    extra input, one column lineage edge fewer; run 4 another job."""
    ingest(
        engine,
        run(1, "load", 0, inputs=[raw()], outputs=[orders_out()], job_facets=sql("select 1")),
    )
    ingest(engine, run(2, "load", 60, inputs=[raw(rows=12, size=120)], outputs=[orders_out(rows=12)],
                       job_facets=sql("select 1"), minutes=10))  # fmt: skip
    ingest(
        engine,
        run(
            3, "load", 120, state="FAIL", minutes=1, spark="4.0.0",
            inputs=[raw(rows=0, size=130, sku="string", price="double"), dataset(DS, "fx")],
            outputs=[orders_out(rows=0, id="string")],
            job_facets=sql("select 2"),
            properties={"spark.master": "local[2]", "spark.sql.shuffle.partitions": "8"},
            error="Traceback\nValueError: price 12,50 is not a number",
        ),
    )  # fmt: skip
    ingest(engine, run(4, "other", 0, inputs=[raw()]))
    return engine


def test_a_failed_run_against_the_last_complete_run_before_it(runs: Engine) -> None:
    diff = _diff(runs, 3)
    assert (diff["run"]["id"], diff["against"]["id"]) == (run_id(3), run_id(2))
    assert diff["againstReason"] == "lastCompleteBefore"
    assert diff["run"]["state"] == "FAILED" and diff["against"]["state"] == "COMPLETED"
    assert diff["inputsAdded"] == [{"namespace": DS, "name": "fx"}]
    assert diff["inputsRemoved"] == []
    by_name = {i["name"]: i for i in diff["inputs"]}
    assert by_name["fx"]["status"] == "added"
    raw_diff = by_name["raw"]
    assert raw_diff["status"] == "kept" and raw_diff["schemaKnown"] is True
    assert raw_diff["schemaChanges"] == [
        {"field": "sku", "change": "added", "typeBefore": None, "typeAfter": "string"},
        {"field": "price", "change": "typeChanged", "typeBefore": "string", "typeAfter": "double"},
        {"field": "id", "change": "removed", "typeBefore": "string", "typeAfter": None},
    ]
    assert raw_diff["rowCount"] == {"before": 12, "after": 0}
    assert raw_diff["byteCount"] == {"before": 120, "after": 130}
    orders = diff["outputs"][0]
    assert orders["versionChanged"] is True
    assert orders["version"] == {"before": run_id(2), "after": run_id(3)}
    assert [c["field"] for c in orders["schemaChanges"]] == ["price"]
    assert diff["jobVersionChanged"] is True
    assert [c["facet"] for c in diff["jobFacetChanges"]] == ["sql"]
    assert diff["sparkVersion"] == {"before": "spark 3.5.1", "after": "spark 4.0.0"}
    changes = {c["facet"]: c for c in diff["runFacetChanges"]}
    assert set(changes) == {"processing_engine", "spark_properties"}
    assert changes["spark_properties"]["keys"] == [
        {"key": "spark.sql.shuffle.partitions", "before": None, "after": "8"}
    ]
    assert diff["durationMs"] == {"before": 600_000, "after": 60_000}
    lineage = diff["columnLineage"]
    assert lineage["available"] is True and lineage["added"] == []
    assert [e["output"]["field"] for e in lineage["removed"]] == ["price"]
    assert diff["error"].startswith("Traceback")
    assert diff["errorSummary"] == "ValueError: price 12,50 is not a number"
    kinds = [s["kind"] for s in diff["suspects"]]
    assert kinds[0] == "jobChanged" and kinds[-1] == "error"
    assert kinds.index("inputChanged") < kinds.index("runFacetsChanged")


def test_nothing_changed_between_two_like_runs_but_the_counts(runs: Engine) -> None:
    diff = _diff(runs, 2)
    assert diff["against"]["id"] == run_id(1)
    assert diff["jobVersionChanged"] is False
    assert diff["jobFacetChanges"] == [] and diff["runFacetChanges"] == []
    assert diff["inputs"][0]["schemaChanges"] == [] and diff["inputs"][0]["statisticsChanged"]
    assert diff["columnLineage"] == {"available": True, "reason": None, "added": [], "removed": []}
    assert [s["kind"] for s in diff["suspects"]] == ["inputChanged"]


def test_the_first_run_and_a_run_asked_for(runs: Engine) -> None:
    first = _diff(runs, 1)
    assert first["against"] is None and first["againstReason"] == "noEarlierCompleteRun"
    assert first["jobVersionChanged"] is None
    assert {i["status"] for i in first["inputs"]} == {"added"}
    assert first["suspects"] == []  # nothing to compare with: "added" explains nothing
    asked = _diff(runs, 3, against=1)
    assert asked["againstReason"] == "requested" and asked["against"]["id"] == run_id(1)
    assert asked["inputs"][1]["rowCount"] == {"before": 10, "after": 0}


def test_a_failed_run_that_wrote_nothing_is_not_a_job_change(runs: Engine) -> None:
    """Run 5 fails before naming its output: same code, same engine. Its job version differs (it
    hashes the outputs too) but its job did not change, and its missing output is the symptom."""
    ingest(runs, run(5, "load", 180, state="FAIL", inputs=[raw(rows=12, size=120)],
                     job_facets=sql("select 1"), error="Traceback\nOSError: disk full"))  # fmt: skip
    diff = _diff(runs, 5)
    assert diff["against"]["id"] == run_id(2) and diff["run"]["state"] == "FAILED"
    assert diff["jobVersion"]["after"] != diff["jobVersion"]["before"]
    assert diff["jobVersionChanged"] is False
    assert diff["outputs"][0]["status"] == "removed"
    assert [s["kind"] for s in diff["suspects"]] == ["error"]


def test_unknown_runs_and_runs_of_other_jobs(runs: Engine) -> None:
    with runs.connect() as conn:
        with pytest.raises(NotFoundError, match="run '00000000-0000-4000-8000-000000000099'"):
            diff_runs(conn, run_id(99))
        with pytest.raises(NotFoundError, match=run_id(98)):
            diff_runs(conn, run_id(3), run_id(98))
        with pytest.raises(InvalidArgumentError, match="is a run of job shop:other"):
            diff_runs(conn, run_id(3), run_id(4))


def test_pruned_history_is_named_not_skipped(runs: Engine) -> None:
    """Run 2 (the run 3 would be compared with) pruned: run 3 is compared with run 1, and the
    answer names run 2 and when it was pruned; asking for run 2 says it was pruned; with the raw
    events gone, column lineage says it cannot be compared."""
    deleted = prune(runs, datetime(2024, 5, 1, 1, 15, tzinfo=UTC))
    assert deleted["runs"] == 2  # runs 1 and 2 ended before 01:15; 3 and 4 are their jobs' latest
    diff = _diff(runs, 3)
    assert diff["against"] is None and diff["againstReason"] == "noEarlierCompleteRun"
    assert [p["id"] for p in diff["prunedRuns"]] == [run_id(2), run_id(1)]
    assert all(p["prunedAt"] and p["state"] == "COMPLETED" for p in diff["prunedRuns"])
    with runs.connect() as conn, pytest.raises(NotFoundError, match="was pruned at"):
        diff_runs(conn, run_id(3), run_id(2))


def test_column_lineage_says_so_when_raw_events_are_gone(runs: Engine) -> None:
    with runs.begin() as conn:  # as pruning raw events by when they were received leaves runs
        conn.execute(sa.delete(lineage_events).where(lineage_events.c.run_uuid == run_id(2)))
    lineage = _diff(runs, 3)["columnLineage"]
    assert lineage["available"] is False
    assert lineage["reason"] == f"the raw events of run(s) {run_id(2)} were pruned (db prune)"
    assert NS == "shop"


def test_what_the_failure_caused_is_apart_from_what_changed_before_it(runs: Engine) -> None:
    """Run 3 failed: its read of raw counts 0 rows (12 before) and its write of orders is empty;
    those are the failure's symptoms, listed apart, not changes that could explain it; what
    did change before it ran (raw's schema, the SQL) stays a suspect (issue 27 §4)."""
    diff = _diff(runs, 3)
    by_name = {i["name"]: i for i in diff["inputs"]}
    assert by_name["raw"]["rowCount"] == {"before": 12, "after": 0}  # still shown as it is
    assert by_name["raw"]["causedByFailure"] == ["rowCount"]
    assert by_name["raw"]["statisticsChanged"] is True  # bytes 120 -> 130 changed before
    assert diff["outputs"][0]["causedByFailure"] == ["rowCount", "byteCount"]
    assert diff["causedByFailure"] == [
        {"kind": "inputRead", "subject": f"{DS}:raw", "detail": "rows 12 -> 0"},
        {"kind": "outputWritten", "subject": f"{DS}:orders", "detail": "rows 12 -> 0; bytes 120 -> 0"},
    ]  # fmt: skip
    details = " ".join(s["detail"] for s in diff["suspects"])
    assert "rows 12 -> 0" not in details and "bytes 120 -> 0" not in details
    raw_suspect = next(s for s in diff["suspects"] if s["subject"] == f"{DS}:raw")
    assert raw_suspect["detail"].startswith("schema: ")  # the real change, still first
    kinds = [s["kind"] for s in diff["suspects"]]
    assert kinds[0] == "jobChanged" and kinds[-1] == "error"


def test_a_completed_run_has_no_failure_effects(runs: Engine) -> None:
    diff = _diff(runs, 2)
    assert diff["causedByFailure"] == []
    assert all(i["causedByFailure"] == [] for i in diff["inputs"] + diff["outputs"])
