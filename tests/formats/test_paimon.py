"""Apache Paimon tables, captured for real: one Spark session with a Paimon filesystem catalog runs
every step of paimon_job.py in a subprocess, and the tests read its events: output names and
symlinks, lifecycle changes, Paimon's own snapshot ids (written and read: time travel, tags),
MERGE / UPDATE / DELETE column lineage, maintenance procedures; then the events go to a real
server and the snapshot ids come out of `snapshot_lineage`, the PIP-5 recipes, run diff and the
rerun plan.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from spark_job_runs import dataset_version, lifecycle, lineage_by_tail, needs_jars, run_job

pytestmark = [pytest.mark.spark, pytest.mark.slow]

JOB = Path(__file__).with_name("paimon_job.py")
APP = "paimon_job"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The job's events, folder and the snapshot ids it saw (one subprocess for the module)."""
    needs_jars("paimon", "no Apache Paimon release pinned for this Spark line")
    work = tmp_path_factory.mktemp("paimon")
    events, stderr = run_job(JOB, work)
    return {
        "work": work,
        "events": events,
        "seen": json.loads((work / "snapshots.json").read_text()),
        "stderr": stderr,
    }


def _ends(run: dict[str, Any], command: str, output_suffix: str) -> list[dict[str, Any]]:
    """COMPLETE / FAIL events of `<app>.execute_<command>.<output_suffix>`, in order."""
    name = f"{APP}.execute_{command}.{output_suffix}"
    return [
        e for e in run["events"] if e["job"]["name"] == name and e["eventType"] in ("COMPLETE", "FAIL")
    ]  # fmt: skip


def _reads(event: dict[str, Any]) -> list[tuple[str, str | None]]:
    return sorted((i["name"].rsplit("/", 1)[-1], dataset_version(i)) for i in event["inputs"])


def _table(run: dict[str, Any], output: dict[str, Any], table: str) -> None:
    warehouse = run["work"] / "paimon"
    assert (output["namespace"], output["name"]) == ("file", str(warehouse / "db.db" / table))
    (symlink,) = output["facets"]["symlinks"]["identifiers"]
    assert symlink == {"namespace": f"file:{warehouse}", "name": f"db.{table}", "type": "TABLE"}
    assert output["facets"]["storage"]["fileFormat"] == "paimon"


def test_create_append_saveastable_ctas_writeto_and_schema_evolution(run: dict[str, Any]) -> None:
    (first,) = _ends(run, "append_data", "db_target")[:1]
    _table(run, first["outputs"][0], "target")
    assert dataset_version(first["outputs"][0]) == "1"
    (saved,) = _ends(run, "create_table_as_select", "db_saved")  # saveAsTable
    _table(run, saved["outputs"][0], "saved")
    assert (lifecycle(saved["outputs"][0]), dataset_version(saved["outputs"][0])) == ("CREATE", "1")
    (ctas,) = _ends(run, "create_table_as_select", "db_ctas")
    assert _reads(ctas) == [("saved", "1")]
    assert lineage_by_tail(ctas["outputs"][0])["name"] == {"saved.name": {"DIRECT:TRANSFORMATION"}}
    (created,) = _ends(run, "create_table_as_select", "db_written")  # writeTo().create()
    appended, evolved = _ends(run, "append_data", "db_written")
    versions = [dataset_version(e["outputs"][0]) for e in (created, appended, evolved)]
    assert versions == [str(s) for s in run["seen"]["written"]]
    assert lifecycle(created["outputs"][0]) == "CREATE"
    fields = [f["name"] for f in evolved["outputs"][0]["facets"]["schema"]["fields"]]
    assert fields == ["id", "name", "amount", "region", "note"]  # ALTER TABLE … ADD COLUMNS
    assert lineage_by_tail(evolved["outputs"][0])["note"] == {"orders.name": {"DIRECT:IDENTITY"}}


def test_partition_overwrites_static_and_dynamic(run: dict[str, Any]) -> None:
    ends = [
        e for e in run["events"]
        if e["eventType"] in ("COMPLETE", "FAIL") and e["job"]["name"].endswith(".db_parts")
    ]  # fmt: skip
    rows = [
        (e["job"]["name"].split(".")[1], e["eventType"], lifecycle(e["outputs"][0])) for e in ends
    ]
    assert rows == [
        ("execute_append_data", "COMPLETE", None),
        ("execute_overwrite_by_expression", "COMPLETE", "OVERWRITE"),  # INSERT OVERWRITE … PARTITION
        ("execute_paimon_dynamic_partition_overwrite_command", "COMPLETE", "OVERWRITE"),
    ]  # fmt: skip
    assert [dataset_version(e["outputs"][0]) for e in ends] == [
        str(s) for s in run["seen"]["parts"]
    ]
    _table(run, ends[2]["outputs"][0], "parts")
    assert lineage_by_tail(ends[2]["outputs"][0])["region"] == {
        "orders.region": {"DIRECT:IDENTITY"}
    }
    # a known command: no "does not know" line for it
    assert "PaimonDynamicPartitionOverwriteCommand" not in run["stderr"]


def test_reads_carry_the_snapshot_they_scanned(run: dict[str, Any]) -> None:
    first = str(run["seen"]["target_before_dml"][0])
    for table in ("from_snapshot", "from_time", "from_version", "from_tag"):
        (event,) = _ends(run, "create_table_as_select", f"db_{table}")
        assert _reads(event) == [("target", first)], table
    (history,) = _ends(run, "create_table_as_select", "db_from_history")
    (read,) = history["inputs"]
    assert read["name"] == str(run["work"] / "paimon" / "db.db" / "target") + "#snapshots"
    assert dataset_version(read) is None
    assert lineage_by_tail(history["outputs"][0])["commit_kind"] == {
        "target#snapshots.commit_kind": {"DIRECT:IDENTITY"}
    }


def test_merge_update_delete_lineage_and_snapshots(run: dict[str, Any]) -> None:
    seen = run["seen"]
    (merge,) = _ends(run, "merge_into_paimon_table", "db_target")
    (update,) = _ends(run, "update_paimon_table_command", "db_target")
    (delete,) = _ends(run, "delete_from_paimon_table_command", "db_target")
    _table(run, merge["outputs"][0], "target")
    before = str(seen["target_before_dml"][-1])
    merged, updated = dataset_version(merge["outputs"][0]), dataset_version(update["outputs"][0])
    assert int(before) < int(merged or 0) < int(updated or 0)
    assert _reads(merge) == [("changes", "1"), ("target", before)]
    assert _reads(update) == [("target", merged)]
    assert _reads(delete) == [("target", updated)]
    # a DELETE on a primary-key table commits its change and then a compaction: the newest
    assert dataset_version(delete["outputs"][0]) == str(seen["target_after_dml"][-1])
    assert all(lifecycle(e["outputs"][0]) is None for e in (merge, update, delete))
    assert lineage_by_tail(merge["outputs"][0]) == {
        "id": {"target.id": {"DIRECT:IDENTITY"}, "changes.id": {"DIRECT:IDENTITY", "INDIRECT:CONDITIONAL"}},
        "name": {
            "target.name": {"DIRECT:IDENTITY"},
            "changes.name": {"DIRECT:IDENTITY", "DIRECT:TRANSFORMATION"},
            "changes.amount": {"INDIRECT:CONDITIONAL"},
            "changes.id": {"INDIRECT:CONDITIONAL"},
        },
        "amount": {
            "target.amount": {"DIRECT:IDENTITY"},
            "changes.amount": {"DIRECT:IDENTITY", "DIRECT:TRANSFORMATION", "INDIRECT:CONDITIONAL"},
            "changes.id": {"INDIRECT:CONDITIONAL"},
        },
        "*": {"target.id": {"INDIRECT:JOIN"}, "changes.id": {"INDIRECT:JOIN"}},
    }  # fmt: skip
    assert lineage_by_tail(update["outputs"][0]) == {
        "id": {"target.id": {"DIRECT:IDENTITY"}},
        "name": {"target.name": {"DIRECT:IDENTITY"}},
        "amount": {  # the rows the condition leaves keep their amount, as Delta's UPDATE
            "target.amount": {"DIRECT:IDENTITY", "DIRECT:TRANSFORMATION"},
            "target.name": {"INDIRECT:CONDITIONAL"},
        },
    }
    assert lineage_by_tail(delete["outputs"][0])["*"] == {"target.amount": {"INDIRECT:FILTER"}}


def test_maintenance_procedures_are_named_runs_without_invented_lineage(
    run: dict[str, Any],
) -> None:
    seen = run["seen"]
    (compact,) = _ends(run, "compact_procedure", "db_target")
    (expire,) = _ends(run, "expire_snapshots_procedure", "db_target")
    (rollback,) = _ends(run, "rollback_procedure", "db_target")
    for event in (compact, expire, rollback):
        _table(run, event["outputs"][0], "target")
        assert "columnLineage" not in event["outputs"][0]["facets"]
    assert compact["inputs"] == expire["inputs"] == []
    assert [lifecycle(e["outputs"][0]) for e in (compact, expire)] == [None, None]
    # compaction commits a snapshot of its own; expiring snapshots makes none
    assert dataset_version(compact["outputs"][0]) == str(seen["compacted"][-1])
    assert dataset_version(expire["outputs"][0]) is None
    # a rollback makes no snapshot (it drops the later ones): a new version named by its run,
    # whose input is the table at the snapshot it restores
    (restored,) = rollback["inputs"]
    assert (restored["name"], dataset_version(restored)) == (
        rollback["outputs"][0]["name"], str(seen["rollback_to"]),
    )  # fmt: skip
    assert lifecycle(rollback["outputs"][0]) == "OVERWRITE"
    assert dataset_version(rollback["outputs"][0]) is None
    assert seen["target"][-1] == seen["rollback_to"]
    # a procedure plumbline does not know (a tag): no run, a log line, the job went on
    assert not [e for e in run["events"] if "create_tag" in e["job"]["name"]]
    assert "does not know the procedure CreateTagProcedure" in run["stderr"]


def test_snapshots_reach_snapshot_lineage_recipes_run_diff_and_rerun_plans(
    run: dict[str, Any], live_server: Any
) -> None:
    from plumbline.store import create_store_engine
    from plumbline.store.read.sql_tables import table_rows

    for folder in ("sqltables", "store"):  # the recipes' page reader (and what it imports)
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / folder))
    from recipes import recipes

    response = httpx.post(live_server.lineage_url, json=run["events"], timeout=60)
    assert response.status_code in (200, 201), response.text
    live_server.settle()
    seen = run["seen"]
    target = str(run["work"] / "paimon" / "db.db" / "target")
    (merge,) = _ends(run, "merge_into_paimon_table", "db_target")
    merged = dataset_version(merge["outputs"][0])
    before = str(seen["target_before_dml"][-1])
    engine = create_store_engine(live_server.db_url)
    try:
        with engine.connect() as conn:
            rows = table_rows(conn, "snapshot_lineage")
            upstream = recipes()["Which snapshots of its sources produced a snapshot"]
            upstream = upstream.replace("/warehouse/clean", target).replace(
                "00000000-0000-4000-8000-000000000002", str(merged)
            )
            sources = [tuple(r) for r in conn.execute(sa.text(upstream))]
            downstream = recipes()["Which snapshots came from a bad snapshot"]
            downstream = downstream.replace("/data/raw", target).replace("snap-11", before)
            made = {(r[1], r[2]) for r in conn.execute(sa.text(downstream))}
    finally:
        engine.dispose()
    pairs = {
        (r["entity_name"].split(".")[1], r["target_snapshot_id"], r["source_name"].rsplit("/", 1)[-1],
         r["source_snapshot_id"])
        for r in rows if r["target_name"] == target and r["source_name"]
    }  # fmt: skip
    (update,) = _ends(run, "update_paimon_table_command", "db_target")
    assert {
        ("execute_merge_into_paimon_table", merged, "target", before),
        ("execute_merge_into_paimon_table", merged, "changes", "1"),
        ("execute_update_paimon_table_command", dataset_version(update["outputs"][0]), "target", merged),
        ("execute_rollback_procedure", None, "target", str(seen["rollback_to"])),
    } <= pairs  # fmt: skip
    assert sorted(s[2] for s in sources) == sorted([before, "1"])
    assert (target, merged) in made  # the MERGE's snapshot came from the one before it
    # run diff: the appends to `written`, the second one evolving the schema
    appends = _ends(run, "append_data", "db_written")
    diff = httpx.get(
        f"{live_server.url}/api/v1/jobs/runs/{appends[-1]['run']['runId']}/diff", timeout=60
    )
    assert diff.status_code == 200, diff.text
    (output,) = diff.json()["outputs"]
    versions = [dataset_version(e["outputs"][0]) for e in appends]
    assert output["version"] == {"before": versions[0], "after": versions[1]}
    # rerun plan from the table's first snapshot: every read of it, time travel included
    plan = httpx.get(
        f"{live_server.url}/api/v1/rerun-plan",
        params={"nodeId": f"dataset:file:{target}", "version": "1"},
        timeout=60,
    )
    assert plan.status_code == 200, plan.text
    body = plan.json()
    assert body["badVersions"][0]["version"] == "1"
    jobs = {s["job"]["name"].split(".")[-1] for s in body["steps"]}
    assert {"db_from_snapshot", "db_from_time", "db_from_version", "db_from_tag"} <= jobs


def test_event_log_extraction_names_created_tables_as_live_capture(run: dict[str, Any]) -> None:
    """The job's own Spark event log, extracted: a CTAS / saveAsTable / writeTo().create() into
    the Paimon catalog gives the dataset, symlink, lifecycle and column lineage live capture gave,
    with no version (the log holds none); an append to an existing Paimon table is not named (the
    log prints the table as `SparkTable(…FileStoreTable@hash)`)."""
    from plumbline.eventlogs.application import ApplicationLog

    (path,) = (run["work"] / "eventlog").iterdir()
    app, logged = ApplicationLog(str(path)), []
    for line in path.read_text().splitlines():
        logged += app.feed(json.loads(line))
    ends = {
        e["job"]["name"]: e for e in logged if e["eventType"] == "COMPLETE" and e.get("outputs")
    }
    for table in ("saved", "written"):
        (live,) = _ends(run, "create_table_as_select", f"db_{table}")
        extracted = ends[live["job"]["name"]]["outputs"][0]
        output = live["outputs"][0]
        assert (extracted["namespace"], extracted["name"]) == (output["namespace"], output["name"])
        facets = extracted["facets"]
        assert facets["symlinks"] == output["facets"]["symlinks"], table
        assert lifecycle(extracted) == "CREATE"
        assert lineage_by_tail(extracted) == lineage_by_tail(output), table
        assert dataset_version(extracted) is None
        assert dataset_version(output) is not None
    assert f"{APP}.execute_append_data.db_target" not in ends
