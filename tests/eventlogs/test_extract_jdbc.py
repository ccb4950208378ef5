"""JDBC and DataSource V2 writes extracted from a real application's event log, compared with the
same application captured live; a JDBC write whose URL Spark redacted is reported, not dropped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from plumbline.cli import main

pytestmark = [pytest.mark.spark, pytest.mark.postgres, pytest.mark.slow]

JOB = Path(__file__).with_name("eventlog_jdbc_job.py")
CATALOG = Path(__file__).with_name("TruncatingJDBCTableCatalog.java")
SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    """A database of this module's own on the local PostgreSQL, dropped afterwards."""
    name = f"plumbline_eventlogs_{os.getpid()}"
    engine = sa.create_engine(f"{SERVER}/postgres", isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    yield name
    with engine.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, database: str) -> Path:
    work = tmp_path_factory.mktemp("eventlogs_jdbc")
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    compiled = subprocess.run(
        ["javac", "-nowarn", "-cp", f"{jars}/*", "-d", str(work / "classes"), str(CATALOG)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr[-3000:]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, str(JOB), str(work), database, str(work / "classes")],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return work


def _ends(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each action's COMPLETE or FAIL events by job name, in order."""
    found: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        if event["eventType"] in ("COMPLETE", "FAIL") and "." in event["job"]["name"]:
            found.setdefault(event["job"]["name"], []).append(event)
    return found


def _datasets(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((d["namespace"], d["name"]) for d in entries)


def _lineage(event: dict[str, Any]) -> dict[str, set[tuple[str, str, str]]]:
    fields = event["outputs"][0]["facets"].get("columnLineage", {}).get("fields", {})
    return {
        column: {
            (f["name"], f["field"], f["transformations"][0]["subtype"]) for f in v["inputFields"]
        }
        for column, v in fields.items()
    }


def _extract(workdir: Path, out: Path) -> tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]:
    """extract-eventlogs on the job's log: the command's result, its events, the live ones."""
    result = CliRunner().invoke(
        main, ["extract-eventlogs", str(workdir / "logs"), "--out", str(out), "--progress", "0"]
    )
    assert result.exit_code == 0, result.output
    (log_file,) = out.glob("*.jsonl")
    extracted = [json.loads(line) for line in log_file.read_text().splitlines()]
    live = [json.loads(line) for line in (workdir / "live.jsonl").read_text().splitlines()]
    return result, extracted, live


def test_v2_and_jdbc_writes_are_named_as_live_capture_names_them(
    workdir: Path, database: str, spark: Any, tmp_path: Path
) -> None:
    result, extracted, live = _extract(workdir, tmp_path / "out")
    pg, table = "postgres://127.0.0.1:5432", f"{database}.public"
    mine, theirs = _ends(extracted), _ends(live)
    expected = {
        name
        for name in theirs
        if "drop_table" not in name and not name.endswith("redacted_v1")  # DDL; the redacted one
    }
    assert set(mine) == expected, (sorted(mine), sorted(theirs))
    assert any(name.endswith("visible_v1") for name in mine)
    assert sum(name.endswith("_table_v2") for name in mine) == 3  # create, append, overwrite
    assert len(mine[f"event_log_jdbc.execute_append_data.{table.replace('.', '_')}_table_v2"]) == 2
    for name, events in mine.items():
        for ours, live_event in zip(events, theirs[name], strict=True):
            assert ours["run"]["runId"] == live_event["run"]["runId"], name
            assert _datasets(ours["outputs"]) == _datasets(live_event["outputs"]), name
            assert _datasets(ours["inputs"]) == _datasets(live_event["inputs"]), name
            assert _lineage(ours) == _lineage(live_event), name
            lifecycle = [o["facets"].get("lifecycleStateChange") for o in ours["outputs"]]
            assert lifecycle == [
                o["facets"].get("lifecycleStateChange") for o in live_event["outputs"]
            ]
    v2 = mine[f"event_log_jdbc.execute_create_table_as_select.{table.replace('.', '_')}_table_v2"]
    assert _datasets(v2[0]["outputs"]) == [(pg, f"{table}.table_v2")]
    # the redacted write: said so on the application's COMPLETE and in the report, not dropped
    app_end = next(
        e
        for e in extracted
        if e["job"]["name"] == "event_log_jdbc" and e["eventType"] == "COMPLETE"
    )
    (unnamed,) = app_end["run"]["facets"]["plumbline_extraction"]["unnamedWrites"]
    assert unnamed["command"] == "SaveIntoDataSourceCommand"
    assert "redacted_v1" in unnamed["reason"] and "redacted" in unnamed["reason"]
    warning = next(line for line in result.output.splitlines() if line.startswith("warning:"))
    assert "1 write(s) without an output" in warning and "redacted_v1" in warning


def test_a_v2_truncate_is_the_table_emptied_live_and_from_the_log(
    workdir: Path, database: str, tmp_path: Path
) -> None:
    """The V2 `TruncateTable` command (a JDBC catalog's table that can be truncated): live capture
    and extract-eventlogs give one run, the table in the catalog's database, TRUNCATE, its columns."""
    _, extracted, live = _extract(workdir, tmp_path / "out")
    name = f"event_log_jdbc.execute_truncate_table.{database}_public_table_trunc"
    (ours,), (theirs,) = _ends(extracted)[name], _ends(live)[name]
    for event in (ours, theirs):
        assert event["eventType"] == "COMPLETE"
        assert event["inputs"] == []
        (output,) = event["outputs"]
        assert (output["namespace"], output["name"]) == (
            "postgres://127.0.0.1:5432",
            f"{database}.public.table_trunc",
        )
        assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "TRUNCATE"
        assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["id", "name"]
    assert ours["run"]["runId"] == theirs["run"]["runId"]
