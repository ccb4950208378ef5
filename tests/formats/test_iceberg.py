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
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from runtime_jars import ROOT, runtime_jar_paths

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
    try:
        runtime_jar_paths("iceberg")
    except LookupError as exc:
        pytest.skip(f"no Apache Iceberg release pinned for this Spark line: {exc}")
    work = tmp_path_factory.mktemp("iceberg")
    events = work / "events.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, str(JOB), str(work), str(events), jdbc_url],
        capture_output=True, text=True, timeout=900, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = events.read_text().splitlines()
    return {
        "work": work,
        "events": [json.loads(line) for line in lines if line],
        "seen": json.loads((work / "snapshots.json").read_text()),
        "stderr": done.stderr,
    }


def _ends(run: dict[str, Any], command: str, output_suffix: str) -> list[dict[str, Any]]:
    """COMPLETE / FAIL events of `<app>.execute_<command>.<output_suffix>`, in order."""
    name = f"{APP}.execute_{command}.{output_suffix}"
    return [
        e for e in run["events"] if e["job"]["name"] == name and e["eventType"] in ("COMPLETE", "FAIL")
    ]  # fmt: skip


def _version(dataset: dict[str, Any]) -> str | None:
    return dataset["facets"].get("version", {}).get("datasetVersion")


def _lifecycle(dataset: dict[str, Any]) -> str | None:
    return dataset["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange")


def _reads(event: dict[str, Any]) -> list[tuple[str, str | None]]:
    return sorted((i["name"].rsplit("/", 1)[-1], _version(i)) for i in event["inputs"])


def _lineage(dataset: dict[str, Any]) -> dict[str, dict[str, set[str]]]:
    """{output field: {"<input name tail>.<field>": {"DIRECT:IDENTITY", ...}}}, plus "*" for the
    dataset-wide dependencies."""
    facet = dataset["facets"].get("columnLineage")
    if facet is None:
        return {}

    def edges(fields: list[dict[str, Any]]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for f in fields:
            key = f"{f['name'].rsplit('/', 1)[-1]}.{f['field']}"
            found.setdefault(key, set()).update(
                f"{t['type']}:{t['subtype']}" for t in f["transformations"]
            )
        return found

    result = {k: edges(v["inputFields"]) for k, v in facet["fields"].items()}
    if facet.get("dataset"):
        result["*"] = edges(facet["dataset"])
    return result


def _hadoop(run: dict[str, Any], output: dict[str, Any], table: str) -> None:
    warehouse = run["work"] / "hadoop"
    assert (output["namespace"], output["name"]) == ("file", str(warehouse / "db" / table))
    (symlink,) = output["facets"]["symlinks"]["identifiers"]
    assert symlink == {"namespace": f"file:{warehouse}", "name": f"db.{table}", "type": "TABLE"}
    assert output["facets"]["storage"]["fileFormat"] == "iceberg"


def _snapshot(run: dict[str, Any], output: dict[str, Any]) -> str:
    """The output's version, checked to be a snapshot id of its table the job saw."""
    version = _version(output)
    assert version is not None and int(version) > 0
    return version


def test_create_append_saveastable_ctas_rtas_writeto(run: dict[str, Any]) -> None:
    (create,) = _ends(run, "create_table", "db_target")
    _hadoop(run, create["outputs"][0], "target")
    assert (_version(create["outputs"][0]), _lifecycle(create["outputs"][0])) == (None, "CREATE")
    first = _ends(run, "append_data", "db_target")[0]
    assert _version(first["outputs"][0]) == str(run["seen"]["target"][0])
    (saved,) = _ends(run, "create_table_as_select", "db_saved")
    _hadoop(run, saved["outputs"][0], "saved")
    assert _lifecycle(saved["outputs"][0]) == "CREATE"
    saved_snapshot = _snapshot(run, saved["outputs"][0])
    (ctas,) = _ends(run, "create_table_as_select", "db_ctas")
    (rtas,) = _ends(run, "replace_table_as_select", "db_ctas")
    assert [_lifecycle(e["outputs"][0]) for e in (ctas, rtas)] == ["CREATE", "OVERWRITE"]
    assert _snapshot(run, ctas["outputs"][0]) != _snapshot(run, rtas["outputs"][0])
    assert _reads(ctas) == _reads(rtas) == [("saved", saved_snapshot)]
    assert _lineage(ctas["outputs"][0])["name"] == {"saved.name": {"DIRECT:TRANSFORMATION"}}
    assert _lineage(rtas["outputs"][0])["name"] == {"saved.name": {"DIRECT:IDENTITY"}}
    (created,) = _ends(run, "create_table_as_select", "db_written")
    appended, evolved = _ends(run, "append_data", "db_written")
    versions = [_snapshot(run, e["outputs"][0]) for e in (created, appended, evolved)]
    assert len(set(versions)) == 3
    fields = [f["name"] for f in evolved["outputs"][0]["facets"]["schema"]["fields"]]
    assert fields == ["id", "name", "amount", "region", "note"]  # merge-schema added `note`
    assert _lineage(evolved["outputs"][0])["note"] == {"orders.name": {"DIRECT:IDENTITY"}}


def test_partition_overwrites_static_and_dynamic_and_a_conflicting_commit(
    run: dict[str, Any],
) -> None:
    ends = [
        e for e in run["events"]
        if e["eventType"] in ("COMPLETE", "FAIL") and e["job"]["name"].endswith(".db_parts")
        and ".execute_create_table." not in e["job"]["name"]
    ]  # fmt: skip
    rows = [
        (e["job"]["name"].split(".")[1], e["eventType"], _lifecycle(e["outputs"][0])) for e in ends
    ]
    assert rows == [
        ("execute_append_data", "COMPLETE", None),
        ("execute_overwrite_by_expression", "COMPLETE", "OVERWRITE"),  # INSERT OVERWRITE … PARTITION
        ("execute_overwrite_partitions_dynamic", "COMPLETE", "OVERWRITE"),
        ("execute_append_data", "COMPLETE", None),
        ("execute_overwrite_by_expression", "FAIL", "OVERWRITE"),  # the conflict
    ]  # fmt: skip
    assert [_version(e["outputs"][0]) for e in ends] == [*map(str, run["seen"]["parts"]), None]
    assert run["seen"]["conflict"] != "committed"
    failed = ends[-1]
    assert "ValidationException" in failed["run"]["facets"]["errorMessage"]["message"]
    _hadoop(run, ends[2]["outputs"][0], "parts")
    assert _lineage(ends[2]["outputs"][0])["region"] == {"orders.region": {"DIRECT:IDENTITY"}}


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
    assert _version(branch_write["outputs"][0]) == str(seen["dev"])
    (history,) = _ends(run, "create_table_as_select", "db_from_history")
    (read,) = history["inputs"]
    assert read["name"] == str(run["work"] / "hadoop" / "db" / "target") + "#snapshots"
    assert _version(read) is None
    assert _lineage(history["outputs"][0])["operation"] == {
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
        [("target", str(seen["main_before_merge"])), ("changes", _version(changes["outputs"][0]))]
    )
    assert [(_reads(e), _version(e["outputs"][0])) for e in (merge, update, delete)] == [
        (_reads(merge), merged), ([("target", merged)], updated), ([("target", updated)], deleted),
    ]  # fmt: skip
    assert all(_lifecycle(e["outputs"][0]) is None for e in (merge, update, delete))
    assert _lineage(merge["outputs"][0]) == {
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
    assert _lineage(update["outputs"][0]) == {
        "id": {"target.id": {"DIRECT:IDENTITY"}},
        "name": {"target.name": {"DIRECT:IDENTITY"}},
        "amount": {
            "target.amount": {"DIRECT:TRANSFORMATION"},
            "target.name": {"INDIRECT:CONDITIONAL"},
        },
    }
    assert _lineage(delete["outputs"][0])["*"] == {"target.amount": {"INDIRECT:FILTER"}}


def test_maintenance_procedures_are_named_runs_without_invented_lineage(
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
    assert [_lifecycle(e["outputs"][0]) for e in (rewrite, expire)] == [None, None]
    # compaction commits a snapshot of its own; expiring snapshots makes none
    assert _version(rewrite["outputs"][0]) == str(seen["target"][-1])
    assert _version(expire["outputs"][0]) is None
    # a rollback makes no snapshot (it sets the current one): a new version named by its run,
    # whose input is the table at the snapshot it restores
    (restored,) = rollback["inputs"]
    assert (restored["name"], _version(restored)) == (
        rollback["outputs"][0]["name"], str(seen["rollback_to"]),
    )  # fmt: skip
    assert _lifecycle(rollback["outputs"][0]) == "OVERWRITE"
    assert _version(rollback["outputs"][0]) is None
    # a procedure plumbline does not know: no run, one log line, the job went on
    assert not [e for e in run["events"] if "ancestors_of" in e["job"]["name"]]
    assert run["stderr"].count("does not know the procedure AncestorsOfProcedure") == 1


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
    assert [_version(e["outputs"][0]) for e in (created, appended)] == [
        str(s) for s in seen["jdbc_orders"]
    ]
    assert _version(output) == str(seen["jdbc_totals"][0])
    assert _reads(totals) == [("orders", str(seen["jdbc_orders"][-1]))]
    assert _lineage(output)["total"] == {"orders.amount": {"DIRECT:AGGREGATION"}}


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
    changes_snapshot = _version(changes["outputs"][0])
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
    versions = [_version(e["outputs"][0]) for e in _ends(run, "append_data", "db_written")]
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
