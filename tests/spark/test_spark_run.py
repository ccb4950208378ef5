"""`plumbline run SCRIPT`: an unchanged PySpark script, captured to a file and to a live server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession
    from job_settings import APP_NAME  # a module next to the script, as with `python job.py`

    out = sys.argv[1]
    spark = (SparkSession.builder.master("local[2]").appName(APP_NAME)
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.createDataFrame([(1, "a"), (2, "b")], "id long, v string").write.parquet(out + "/raw")
    spark.read.parquet(out + "/raw").groupBy("v").count().write.parquet(out + "/report")
    assert __name__ == "__main__"
    sys.exit(int(sys.argv[2]))
    """
)


def _run(
    tmp_path: Path, *options: str, exit_code: int = 0, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    (tmp_path / "job_settings.py").write_text('APP_NAME = "nightlyReport"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLUMBLINE_")}
    env.update(extra_env)
    command = [sys.executable, "-m", "plumbline", "run", *options, str(script)]
    return subprocess.run(
        [*command, str(tmp_path / "data"), str(exit_code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_run_script_to_file_keeps_exit_code(tmp_path: Path) -> None:
    events_path = tmp_path / "events.jsonl"
    result = _run(tmp_path, "--transport", "file", "--path", str(events_path), exit_code=3)
    assert result.returncode == 3, result.stderr[-2000:]
    events = [json.loads(line) for line in events_path.read_text().splitlines()]
    summary = [(e["eventType"], e["job"]["name"]) for e in events]
    assert summary == [
        ("START", "nightly_report"),
        ("START", "nightly_report.execute_insert_into_hadoop_fs_relation_command.raw"),
        ("COMPLETE", "nightly_report.execute_insert_into_hadoop_fs_relation_command.raw"),
        ("START", "nightly_report.execute_insert_into_hadoop_fs_relation_command.report"),
        ("COMPLETE", "nightly_report.execute_insert_into_hadoop_fs_relation_command.report"),
        ("FAIL", "nightly_report"),  # the script exited with 3
    ]
    error = events[-1]["run"]["facets"]["errorMessage"]  # the failed application says why
    assert (error["message"], error["programmingLanguage"]) == (
        "the script exited with status 3",
        "PYTHON",
    )
    report = events[4]
    assert report["inputs"][0]["name"] == str(tmp_path / "data" / "raw")
    assert report["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 2
    assert {e["job"]["namespace"] for e in events} == {"default"}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_run_script_posts_to_live_server(tmp_path: Path, live_server: Any) -> None:
    result = _run(tmp_path, "--url", live_server.url, "--namespace", "nightly")
    assert result.returncode == 0, result.stderr[-2000:]
    report = f"dataset:file:{tmp_path / 'data' / 'report'}"
    response = httpx.get(
        f"{live_server.url}/api/v1/lineage", params={"nodeId": report, "depth": 5}, timeout=30
    )
    assert response.status_code == 200, response.text
    ids = {node["id"] for node in response.json()["graph"]}
    assert {
        report,
        f"dataset:file:{tmp_path / 'data' / 'raw'}",
        "job:nightly:nightly_report.execute_insert_into_hadoop_fs_relation_command.report",
        "job:nightly:nightly_report.execute_insert_into_hadoop_fs_relation_command.raw",
    } <= ids


def test_unreachable_server_spills_and_job_succeeds(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data_home = tmp_path / "xdg"
    result = _run(tmp_path, "--url", f"http://127.0.0.1:{port}", XDG_DATA_HOME=str(data_home))
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "data" / "report").is_dir()
    spilled = sorted((data_home / "plumbline" / "spill").glob("*.jsonl"))
    events = [json.loads(line) for path in spilled for line in path.read_text().splitlines()]
    assert sorted((e["eventType"], e["job"]["name"]) for e in events) == sorted(
        [
            ("START", "nightly_report"),
            ("START", "nightly_report.execute_insert_into_hadoop_fs_relation_command.raw"),
            ("COMPLETE", "nightly_report.execute_insert_into_hadoop_fs_relation_command.raw"),
            ("START", "nightly_report.execute_insert_into_hadoop_fs_relation_command.report"),
            ("COMPLETE", "nightly_report.execute_insert_into_hadoop_fs_relation_command.report"),
            ("COMPLETE", "nightly_report"),
        ]
    )
