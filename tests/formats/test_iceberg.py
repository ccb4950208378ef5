"""Apache Iceberg tables, captured for real: one Spark session with a Hadoop catalog and a JDBC
catalog (on the tests' PostgreSQL) runs every step of iceberg_job.py in a subprocess, and the tests
read its events: output names and symlinks, lifecycle changes, Iceberg's own snapshot ids (written
and read: time travel, tags, branches), MERGE / UPDATE / DELETE column lineage, maintenance
procedures, a commit that conflicts; then the events go to a real server and the snapshot ids
come out of `snapshot_lineage`, the PIP-5 recipes, run diff and the rerun plan.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from spark_job_runs import dataset_version, lifecycle, lineage_by_tail, needs_jars, run_job

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.postgres]

JOB = Path(__file__).with_name("iceberg_job.py")
APP = "iceberg_job"
PG_ADMIN_URL = os.environ.get(
    "PLUMBLINE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture(scope="module")
def jdbc_url() -> Iterator[str]:
    """A PostgreSQL database of its own for the JDBC catalog, dropped after the module."""
    name = f"plumbline_iceberg_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.make_url(PG_ADMIN_URL)
    yield f"jdbc:postgresql://{url.host}:{url.port or 5432}/{name}"
    with admin.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, jdbc_url: str) -> dict[str, Any]:
    """The job's events, folder and the snapshot ids it saw (one subprocess for the module)."""
    needs_jars("iceberg", "no Apache Iceberg release pinned for this Spark line")
    work = tmp_path_factory.mktemp("iceberg")
    events, stderr = run_job(JOB, work, jdbc_url)
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


def _hadoop(run: dict[str, Any], output: dict[str, Any], table: str) -> None:
    warehouse = run["work"] / "hadoop"
    assert (output["namespace"], output["name"]) == ("file", str(warehouse / "db" / table))
    (symlink,) = output["facets"]["symlinks"]["identifiers"]
    assert symlink == {"namespace": f"file:{warehouse}", "name": f"db.{table}", "type": "TABLE"}
    assert output["facets"]["storage"]["fileFormat"] == "iceberg"


def _snapshot(run: dict[str, Any], output: dict[str, Any]) -> str:
    """The output's version, checked to be a snapshot id of its table the job saw."""
    version = dataset_version(output)
    assert version is not None and int(version) > 0
    return version


def test_create_append_saveastable_ctas_rtas_writeto(run: dict[str, Any]) -> None:
    (create,) = _ends(run, "create_table", "db_target")
    _hadoop(run, create["outputs"][0], "target")
    assert (dataset_version(create["outputs"][0]), lifecycle(create["outputs"][0])) == (
        None,
        "CREATE",
    )
    first = _ends(run, "append_data", "db_target")[0]
    assert dataset_version(first["outputs"][0]) == str(run["seen"]["target"][0])
    (saved,) = _ends(run, "create_table_as_select", "db_saved")
    _hadoop(run, saved["outputs"][0], "saved")
    assert lifecycle(saved["outputs"][0]) == "CREATE"
    saved_snapshot = _snapshot(run, saved["outputs"][0])
    (ctas,) = _ends(run, "create_table_as_select", "db_ctas")
    (rtas,) = _ends(run, "replace_table_as_select", "db_ctas")
    assert [lifecycle(e["outputs"][0]) for e in (ctas, rtas)] == ["CREATE", "OVERWRITE"]
    assert _snapshot(run, ctas["outputs"][0]) != _snapshot(run, rtas["outputs"][0])
    assert _reads(ctas) == _reads(rtas) == [("saved", saved_snapshot)]
    assert lineage_by_tail(ctas["outputs"][0])["name"] == {"saved.name": {"DIRECT:TRANSFORMATION"}}
    assert lineage_by_tail(rtas["outputs"][0])["name"] == {"saved.name": {"DIRECT:IDENTITY"}}
    (created,) = _ends(run, "create_table_as_select", "db_written")
    appended, evolved = _ends(run, "append_data", "db_written")
    versions = [_snapshot(run, e["outputs"][0]) for e in (created, appended, evolved)]
    assert len(set(versions)) == 3
    fields = [f["name"] for f in evolved["outputs"][0]["facets"]["schema"]["fields"]]
    assert fields == ["id", "name", "amount", "region", "note"]  # merge-schema added `note`
    assert lineage_by_tail(evolved["outputs"][0])["note"] == {"orders.name": {"DIRECT:IDENTITY"}}


def test_partition_overwrites_static_and_dynamic_and_a_conflicting_commit(
    run: dict[str, Any],
) -> None:
    ends = [
        e for e in run["events"]
        if e["eventType"] in ("COMPLETE", "FAIL") and e["job"]["name"].endswith(".db_parts")
        and ".execute_create_table." not in e["job"]["name"]
    ]  # fmt: skip
    rows = [
        (e["job"]["name"].split(".")[1], e["eventType"], lifecycle(e["outputs"][0])) for e in ends
    ]
    assert rows == [
        ("execute_append_data", "COMPLETE", None),
        ("execute_overwrite_by_expression", "COMPLETE", "OVERWRITE"),  # INSERT OVERWRITE … PARTITION
        ("execute_overwrite_partitions_dynamic", "COMPLETE", "OVERWRITE"),
        ("execute_append_data", "COMPLETE", None),
        ("execute_overwrite_by_expression", "FAIL", "OVERWRITE"),  # the conflict
    ]  # fmt: skip
    assert [dataset_version(e["outputs"][0]) for e in ends] == [
        *map(str, run["seen"]["parts"]),
        None,
    ]
    assert run["seen"]["conflict"] != "committed"
    failed = ends[-1]
    assert "ValidationException" in failed["run"]["facets"]["errorMessage"]["message"]
    _hadoop(run, ends[2]["outputs"][0], "parts")
    assert lineage_by_tail(ends[2]["outputs"][0])["region"] == {
        "orders.region": {"DIRECT:IDENTITY"}
    }


def test_reads_carry_the_snapshot_they_scanned(run: dict[str, Any]) -> None:
    seen = run["seen"]
    first = str(seen["target"][0])
    for table in ("from_snapshot", "from_time", "from_version", "from_tag"):
        (event,) = _ends(run, "create_table_as_select", f"db_{table}")
        assert _reads(event) == [("target", first)], table
    (branch,) = _ends(run, "create_table_as_select", "db_from_branch")
    assert _reads(branch) == [("target", str(seen["dev"]))]
    # the branch write: a snapshot of the table on branch dev
    branch_write = _ends(run, "append_data", "db_target")[-1]
    assert dataset_version(branch_write["outputs"][0]) == str(seen["dev"])
    (history,) = _ends(run, "create_table_as_select", "db_from_history")
    (read,) = history["inputs"]
    assert read["name"] == str(run["work"] / "hadoop" / "db" / "target") + "#snapshots"
    assert dataset_version(read) is None
    assert lineage_by_tail(history["outputs"][0])["operation"] == {
        "target#snapshots.operation": {"DIRECT:IDENTITY"}
    }


def test_merge_update_delete_lineage_and_snapshots(run: dict[str, Any]) -> None:
    seen = run["seen"]
    (merge,) = _ends(run, "merge_into_table", "db_target")
    (update,) = _ends(run, "update_table", "db_target")
    (delete,) = _ends(run, "delete_from_table", "db_target")
    _hadoop(run, merge["outputs"][0], "target")
    merged, updated, deleted = (str(s) for s in seen["target_after_dml"][-3:])
    (changes,) = _ends(run, "create_table_as_select", "db_changes")
    assert _reads(merge) == sorted(
        [
            ("target", str(seen["main_before_merge"])),
            ("changes", dataset_version(changes["outputs"][0])),
        ]
    )
    assert [(_reads(e), dataset_version(e["outputs"][0])) for e in (merge, update, delete)] == [
        (_reads(merge), merged), ([("target", merged)], updated), ([("target", updated)], deleted),
    ]  # fmt: skip
    assert all(lifecycle(e["outputs"][0]) is None for e in (merge, update, delete))
    assert lineage_by_tail(merge["outputs"][0]) == {
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
    assert [f["name"] for f in merge["outputs"][0]["facets"]["schema"]["fields"]] == [
        "id",
        "name",
        "amount",
    ]  # fmt: skip  (no `_file`: Iceberg's metadata columns are not the table's)
    assert lineage_by_tail(update["outputs"][0]) == {
        "id": {"target.id": {"DIRECT:IDENTITY"}},
        "name": {"target.name": {"DIRECT:IDENTITY"}},
        "amount": {
            "target.amount": {"DIRECT:TRANSFORMATION"},
            "target.name": {"INDIRECT:CONDITIONAL"},
        },
    }
    assert lineage_by_tail(delete["outputs"][0])["*"] == {"target.amount": {"INDIRECT:FILTER"}}


def test_maintenance_procedures_are_named_runs_without_inventedlineage_by_tail(
    run: dict[str, Any],
) -> None:
    seen = run["seen"]
    (rewrite,) = _ends(run, "rewrite_data_files_procedure", "db_target")
    (expire,) = _ends(run, "expire_snapshots_procedure", "db_target")
    (rollback,) = _ends(run, "rollback_to_snapshot_procedure", "db_target")
    for event in (rewrite, expire, rollback):
        _hadoop(run, event["outputs"][0], "target")
        assert "columnLineage" not in event["outputs"][0]["facets"]
    assert rewrite["inputs"] == expire["inputs"] == []
    assert [lifecycle(e["outputs"][0]) for e in (rewrite, expire)] == [None, None]
    # compaction commits a snapshot of its own; expiring snapshots makes none
    assert dataset_version(rewrite["outputs"][0]) == str(seen["target"][-1])
    assert dataset_version(expire["outputs"][0]) is None
    # a rollback makes no snapshot (it sets the current one): a new version named by its run,
    # whose input is the table at the snapshot it restores
    (restored,) = rollback["inputs"]
    assert (restored["name"], dataset_version(restored)) == (
        rollback["outputs"][0]["name"], str(seen["rollback_to"]),
    )  # fmt: skip
    assert lifecycle(rollback["outputs"][0]) == "OVERWRITE"
    assert dataset_version(rollback["outputs"][0]) is None
    # a procedure plumbline does not know: no run, one log line, the job went on
    assert not [e for e in run["events"] if "ancestors_of" in e["job"]["name"]]
    assert run["stderr"].count("does not know the procedure AncestorsOfProcedure") == 1


def test_truncate_empties_the_table_in_a_snapshot_of_its_own(run: dict[str, Any]) -> None:
    (truncate,) = _ends(run, "truncate_table", "db_emptied")
    assert truncate["eventType"] == "COMPLETE" and truncate["inputs"] == []
    (output,) = truncate["outputs"]
    _hadoop(run, output, "emptied")
    assert lifecycle(output) == "TRUNCATE"
    assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["id", "name"]
    inserted, emptied = run["seen"]["emptied"][-2:]
    assert dataset_version(output) == str(emptied) != str(inserted)


def test_jdbc_catalog_tables(run: dict[str, Any]) -> None:
    seen = run["seen"]
    (created,) = _ends(run, "create_table_as_select", "db_orders")
    (appended,) = _ends(run, "append_data", "db_orders")
    (totals,) = _ends(run, "create_table_as_select", "db_totals")
    output = totals["outputs"][0]
    assert (output["namespace"], output["name"]) == (
        "file",
        str(run["work"] / "jdbc" / "db" / "totals"),
    )
    (symlink,) = output["facets"]["symlinks"]["identifiers"]
    assert symlink["name"] == "db.totals" and symlink["namespace"].startswith("jdbc:postgresql://")
    assert [dataset_version(e["outputs"][0]) for e in (created, appended)] == [
        str(s) for s in seen["jdbc_orders"]
    ]
    assert dataset_version(output) == str(seen["jdbc_totals"][0])
    assert _reads(totals) == [("orders", str(seen["jdbc_orders"][-1]))]
    assert lineage_by_tail(output)["total"] == {"orders.amount": {"DIRECT:AGGREGATION"}}


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
    target = str(run["work"] / "hadoop" / "db" / "target")
    merged = str(seen["target_after_dml"][-3])
    before = str(seen["main_before_merge"])
    engine = create_store_engine(live_server.db_url)
    try:
        with engine.connect() as conn:
            rows = table_rows(conn, "snapshot_lineage")
            upstream = recipes()["Which snapshots of its sources produced a snapshot"]
            upstream = upstream.replace("/warehouse/clean", target).replace(
                "00000000-0000-4000-8000-000000000002", merged
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
    (changes,) = _ends(run, "create_table_as_select", "db_changes")
    changes_snapshot = dataset_version(changes["outputs"][0])
    assert {
        ("execute_merge_into_table", merged, "target", before),
        ("execute_merge_into_table", merged, "changes", changes_snapshot),
        ("execute_update_table", str(seen["target_after_dml"][-2]), "target", merged),
        ("execute_rollback_to_snapshot_procedure", None, "target", before),
    } <= pairs
    assert sorted(s[2] for s in sources) == sorted([before, changes_snapshot])
    # the snapshots made from the one before the MERGE: the MERGE's (the rollback makes none)
    assert (target, merged) in made
    # run diff: the appends to `written`, the second one evolving the schema
    last = _ends(run, "append_data", "db_written")[-1]
    diff = httpx.get(f"{live_server.url}/api/v1/jobs/runs/{last['run']['runId']}/diff", timeout=60)
    assert diff.status_code == 200, diff.text
    (output,) = diff.json()["outputs"]
    versions = [dataset_version(e["outputs"][0]) for e in _ends(run, "append_data", "db_written")]
    assert output["version"] == {"before": versions[0], "after": versions[1]}
    # rerun plan from the table's first snapshot: every read of it, time travel included
    plan = httpx.get(
        f"{live_server.url}/api/v1/rerun-plan",
        params={"nodeId": f"dataset:file:{target}", "version": str(seen["target"][0])},
        timeout=60,
    )
    assert plan.status_code == 200, plan.text
    body = plan.json()
    assert body["badVersions"][0]["version"] == str(seen["target"][0])
    jobs = {s["job"]["name"].split(".")[-1] for s in body["steps"]}
    assert {"db_from_snapshot", "db_from_time", "db_from_version", "db_from_tag"} <= jobs


def test_event_log_extraction_names_appends_as_live_capture(run: dict[str, Any]) -> None:
    """The job's own Spark event log, extracted: an append to a table of the Hadoop catalog
    (`IcebergWrite(table=hc.db.written)`) gives the dataset, symlink and column lineage live
    capture gave, with no version (the log holds none); a CTAS is not named here (two Iceberg
    catalogs of the same class: the log's `SparkCatalog@hash` does not say which)."""
    from plumbline.eventlogs.application import ApplicationLog

    (path,) = (run["work"] / "eventlog").iterdir()
    app, logged = ApplicationLog(str(path)), []
    for line in path.read_text().splitlines():
        logged += app.feed(json.loads(line))
    ends = [e for e in logged if e["eventType"] == "COMPLETE" and e.get("outputs")]
    extracted = [e for e in ends if e["job"]["name"] == f"{APP}.execute_append_data.db_written"]
    live = _ends(run, "append_data", "db_written")
    assert len(extracted) == len(live) == 2
    for got, want in zip(extracted, live, strict=True):
        output, found = want["outputs"][0], got["outputs"][0]
        assert (found["namespace"], found["name"]) == (output["namespace"], output["name"])
        assert found["facets"]["symlinks"] == output["facets"]["symlinks"]
        assert lineage_by_tail(found) == lineage_by_tail(output)
        assert dataset_version(found) is None and dataset_version(output) is not None
    assert not [e for e in ends if e["job"]["name"].endswith("create_table_as_select.db_saved")]
