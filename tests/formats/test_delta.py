"""Delta Lake tables, captured for real: one Spark session with Delta's catalog runs every step of
delta_job.py in a subprocess (its jars and catalog stay out of the shared test session), and the
tests read its events: output names, lifecycle changes, Delta's own versions (written and read,
time travel included), MERGE / UPDATE / DELETE column lineage, maintenance runs; then the events
go to a real server and the versions come out of `snapshot_lineage` and run diff.

Delta has no release that runs on Spark 4.3 (docs/reference.md): on that line the tests skip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from spark_job_runs import dataset_version, lifecycle, lineage_by_tail, needs_jars, run_job

pytestmark = [pytest.mark.spark, pytest.mark.slow]

JOB = Path(__file__).with_name("delta_job.py")
APP = "delta_job"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The job's events and folder (one subprocess for the whole module)."""
    needs_jars("delta", "no Delta Lake release for this Spark line")
    work = tmp_path_factory.mktemp("delta")
    events, _stderr = run_job(JOB, work)
    return {"work": work, "events": events}


def _ends(run: dict[str, Any], command: str, output_suffix: str) -> list[dict[str, Any]]:
    """COMPLETE events of `<app>.execute_<command>.<output_suffix>`, in order."""
    name = f"{APP}.execute_{command}.{output_suffix}"
    return [e for e in run["events"] if e["job"]["name"] == name and e["eventType"] == "COMPLETE"]


def _table(run: dict[str, Any], output: dict[str, Any], table: str) -> None:
    warehouse = run["work"] / "warehouse"
    assert (output["namespace"], output["name"]) == ("file", str(warehouse / table))
    (symlink,) = output["facets"]["symlinks"]["identifiers"]
    assert symlink == {
        "namespace": f"file:{warehouse}",
        "name": f"default.{table}",
        "type": "TABLE",
    }


def test_catalog_writes_saveastable_ctas_writeto(run: dict[str, Any]) -> None:
    (saved,) = _ends(run, "create_table_as_select", "default_saved")
    _table(run, saved["outputs"][0], "saved")
    assert (dataset_version(saved["outputs"][0]), lifecycle(saved["outputs"][0])) == ("0", "CREATE")
    (ctas,) = _ends(run, "create_table_as_select", "default_ctas")
    assert (dataset_version(ctas["outputs"][0]), lifecycle(ctas["outputs"][0])) == ("0", "CREATE")
    assert lineage_by_tail(ctas["outputs"][0])["name"] == {"saved.name": {"DIRECT:TRANSFORMATION"}}
    assert [(i["name"].rsplit("/", 1)[-1], dataset_version(i)) for i in ctas["inputs"]] == [
        ("saved", "0")
    ]
    (created,) = _ends(run, "create_table_as_select", "default_written")
    (appended,) = _ends(run, "append_data", "default_written")
    _table(run, appended["outputs"][0], "written")
    assert [(dataset_version(e["outputs"][0]), lifecycle(e["outputs"][0])) for e in (created, appended)] == [
        ("0", "CREATE"), ("1", None),
    ]  # fmt: skip


def test_partition_overwrites_static_and_dynamic(run: dict[str, Any]) -> None:
    ends = [
        e for e in run["events"]
        if e["eventType"] == "COMPLETE" and e["job"]["name"].endswith(".default_parts")
        and e["outputs"] and "columnLineage" in e["outputs"][0]["facets"]
    ]  # fmt: skip
    commands = [e["job"]["name"].split(".")[1] for e in ends]
    # INSERT, INSERT OVERWRITE … PARTITION (static), overwritePartitions() (Delta runs it as its own
    # DeltaDynamicPartitionOverwriteCommand)
    assert commands == [
        "execute_append_data",
        "execute_overwrite_by_expression",
        "execute_delta_dynamic_partition_overwrite_command",
    ]
    rows = [(dataset_version(e["outputs"][0]), lifecycle(e["outputs"][0])) for e in ends]
    assert rows == [("1", None), ("2", "OVERWRITE"), ("3", "OVERWRITE")]
    _table(run, ends[-1]["outputs"][0], "parts")
    assert lineage_by_tail(ends[-1]["outputs"][0])["region"] == {
        "orders.region": {"DIRECT:IDENTITY"}
    }


def test_merge_lineage_through_every_clause(run: dict[str, Any]) -> None:
    (merge,) = _ends(run, "merge_into_command", "default_target")
    (output,) = merge["outputs"]
    _table(run, output, "target")
    assert dataset_version(output) == "2"
    assert sorted((i["name"].rsplit("/", 1)[-1], dataset_version(i)) for i in merge["inputs"]) == [
        ("changes", "0"), ("target", "1"),
    ]  # fmt: skip
    assert lineage_by_tail(output) == {
        "id": {"target.id": {"DIRECT:IDENTITY"}, "changes.id": {"DIRECT:IDENTITY", "INDIRECT:CONDITIONAL"}},
        "name": {
            "target.name": {"DIRECT:IDENTITY", "DIRECT:TRANSFORMATION"},
            "changes.label": {"DIRECT:IDENTITY", "DIRECT:TRANSFORMATION"},
            "changes.price": {"INDIRECT:CONDITIONAL"},
            "changes.id": {"INDIRECT:CONDITIONAL"},
        },
        "amount": {
            "target.amount": {"DIRECT:IDENTITY"},
            "changes.price": {"DIRECT:IDENTITY", "DIRECT:TRANSFORMATION", "INDIRECT:CONDITIONAL"},
            "changes.id": {"INDIRECT:CONDITIONAL"},
        },
        "*": {"target.id": {"INDIRECT:JOIN", "INDIRECT:FILTER"}, "changes.id": {"INDIRECT:JOIN"}},
    }  # fmt: skip


def test_create_table_ddl_is_a_created_delta_table(run: dict[str, Any]) -> None:
    (create,) = _ends(run, "create_table", "default_target")
    (output,) = create["outputs"]
    _table(run, output, "target")
    assert (dataset_version(output), lifecycle(output)) == ("0", "CREATE")
    assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["id", "name", "amount"]


def test_update_and_delete_read_and_write_the_target(run: dict[str, Any]) -> None:
    (update,) = _ends(run, "update_command", "default_target")
    (delete,) = _ends(run, "delete_command", "default_target")
    versions = [
        ([dataset_version(i) for i in e["inputs"]], dataset_version(e["outputs"][0]))
        for e in (update, delete)
    ]
    assert versions == [(["2"], "3"), (["3"], "4")]
    assert lineage_by_tail(update["outputs"][0]) == {
        "id": {"target.id": {"DIRECT:IDENTITY"}},
        "name": {"target.name": {"DIRECT:IDENTITY"}},
        "amount": {
            "target.amount": {"DIRECT:IDENTITY", "DIRECT:TRANSFORMATION"},
            "target.name": {"INDIRECT:CONDITIONAL"},
        },
    }
    assert lineage_by_tail(delete["outputs"][0])["*"] == {"target.amount": {"INDIRECT:FILTER"}}


def test_maintenance_commands_are_named_runs_without_inventedlineage_by_tail(
    run: dict[str, Any],
) -> None:
    (optimize,) = _ends(run, "optimize_table_command", "default_target")
    (restore,) = _ends(run, "restore_table_command", "default_target")
    (vacuum,) = _ends(run, "vacuum_table_command", "default_target")
    for event in (optimize, vacuum):
        assert event["inputs"] == []
        assert "columnLineage" not in event["outputs"][0]["facets"]
        assert lifecycle(event["outputs"][0]) is None
    (restored,) = restore["inputs"]
    assert (restored["name"], dataset_version(restored)) == (restore["outputs"][0]["name"], "1")
    assert lifecycle(restore["outputs"][0]) == "OVERWRITE"
    assert int(dataset_version(restore["outputs"][0]) or 0) > 4  # a new version after the DELETE's
    assert "columnLineage" not in restore["outputs"][0]["facets"]


def test_versions_reach_snapshot_lineage_and_run_diff(
    run: dict[str, Any], live_server: Any
) -> None:
    from plumbline.store import create_store_engine
    from plumbline.store.read.sql_tables import table_rows

    response = httpx.post(live_server.lineage_url, json=run["events"], timeout=60)
    assert response.status_code in (200, 201), response.text
    live_server.settle()
    engine = create_store_engine(live_server.db_url)
    try:
        with engine.connect() as conn:
            rows = table_rows(conn, "snapshot_lineage")
    finally:
        engine.dispose()
    target = str(run["work"] / "warehouse" / "target")
    pairs = {
        (r["entity_name"].split(".")[1], r["target_snapshot_id"], r["source_name"].rsplit("/", 1)[-1],
         r["source_snapshot_id"])
        for r in rows if r["target_name"] == target and r["source_name"]
    }  # fmt: skip
    (restore,) = _ends(run, "restore_table_command", "default_target")
    assert {
        ("execute_merge_into_command", "2", "target", "1"),
        ("execute_merge_into_command", "2", "changes", "0"),
        ("execute_update_command", "3", "target", "2"),
        ("execute_restore_table_command", dataset_version(restore["outputs"][0]), "target", "1"),
    } <= pairs
    # run diff: the last append to the path table against the schema-evolving one before it
    last = _ends(run, "save_into_data_source_command", "path_table")[-1]
    diff = httpx.get(f"{live_server.url}/api/v1/jobs/runs/{last['run']['runId']}/diff", timeout=60)
    assert diff.status_code == 200, diff.text
    (output,) = diff.json()["outputs"]
    assert output["version"] == {"before": "3", "after": "4"}


def test_a_column_null_in_every_written_row_is_a_deviation(run: dict[str, Any]) -> None:
    """Issue 31 §3: Delta keeps per-file null counts; a written column null in all of them is an
    allNullColumn deviation of the write's run (the column with values is not)."""
    (end,) = _ends(run, "save_into_data_source_command", "null_note")
    found = end["run"]["facets"]["plumbline_observedDeviations"]["deviations"]
    assert [(d["kind"], d["name"], d.get("field")) for d in found] == [
        ("allNullColumn", str(run["work"] / "null_note"), "note")
    ]
    assert found[0]["detail"] == "null in every row written (delta statistics)"
    (full,) = _ends(run, "save_into_data_source_command", "from_version_1")
    assert "plumbline_observedDeviations" not in full["run"]["facets"]
