"""Spark Connect (pyspark 4): a Connect client's jobs are captured where the driver runs.

A real `plumbline connect-server` and real Connect clients in their own processes (a Connect client
in the test process would switch pyspark there into Connect mode for the other tests).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from connect_pipeline import pipeline
from pyspark import __version__ as pyspark_version

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).with_name("connect_pipeline.py")
APP = "plumblineTests"  # tests/conftest.py's SPARK_APP_NAME: the same job names as the classic run
APP_JOB = "plumbline_tests"  # the application's own job

pytestmark = [
    pytest.mark.spark,
    pytest.mark.slow,
    pytest.mark.skipif(
        int(pyspark_version.split(".")[0]) < 4,
        reason=f"Spark Connect is for pyspark 4 (pyspark {pyspark_version}'s wheel has no "
        "Connect server jar)",
    ),
]


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYSPARK_PYTHON=sys.executable)
    for key in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_LOCAL_REMOTE"):
        env.pop(key, None)
    return env


def _python(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


class ConnectServer:
    """`plumbline connect-server --port 0` writing its events to a file."""

    def __init__(self, workdir: Path) -> None:
        self.events = workdir / "server-events.jsonl"
        command = [
            sys.executable, "-m", "plumbline", "connect-server", "--port", "0",
            "--app-name", APP, "--transport", "file", "--path", str(self.events),
            "--namespace", "tests", "--master", "local[2]",
            "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=2",
            "--conf", f"spark.sql.warehouse.dir={workdir / 'warehouse'}",
            "--conf", f"spark.driver.extraJavaOptions=-Dderby.system.home={workdir}",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        self.first_line = self.process.stdout.readline().strip()  # blocks until it serves
        assert self.first_line.startswith("plumbline connect server on sc://"), (
            self.first_line + self.process.stderr.read()[-3000:]  # type: ignore[union-attr]
        )
        self.url = self.first_line.rsplit(" ", 1)[-1]

    def stop(self) -> str:
        """SIGTERM, as a service manager would; returns what it logged."""
        self.process.send_signal(signal.SIGTERM)
        _, stderr = self.process.communicate(timeout=120)
        assert self.process.returncode == 0, stderr[-3000:]
        return stderr


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConnectServer]:
    started = ConnectServer(tmp_path_factory.mktemp("connect"))
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _summary(events: list[dict[str, Any]], root: str) -> list[Any]:
    """What each action's COMPLETE says, with the data folder `root` taken out of names."""

    def name(dataset: dict[str, Any]) -> str:
        return str(dataset["name"]).replace(root, "ROOT")

    summary = []
    for event in events:
        if event["eventType"] != "COMPLETE" or event["job"]["name"] == APP_JOB:
            continue
        (output,) = event["outputs"]
        if root not in output["name"]:  # another test's action
            continue
        lineage = output["facets"].get("columnLineage", {})
        summary.append(
            (
                event["job"]["name"],
                sorted(name(d) for d in event["inputs"]),
                name(output),
                [f["name"] for f in output["facets"]["schema"]["fields"]],
                output["outputFacets"]["outputStatistics"]["rowCount"],
                {
                    column: sorted(
                        (name(f), f["field"], t["type"], t["subtype"])
                        for f in entry["inputFields"]
                        for t in f["transformations"]
                    )
                    for column, entry in lineage.get("fields", {}).items()
                },
                sorted(
                    (name(f), f["field"], t["subtype"])
                    for f in lineage.get("dataset", [])
                    for t in f["transformations"]
                ),
            )
        )
    return summary


@pytest.fixture
def classic_summary(spark: Any, captured: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The pipeline on the classic test session, as the capture described it."""
    root = tmp_path_factory.mktemp("classic")
    pipeline(spark, str(root))
    return _summary(captured.events(), str(root))


@pytest.mark.timeout(1500)  # two Connect clients, one under `plumbline run`
def test_enable_on_a_connect_client_says_what_to_do(server: ConnectServer, tmp_path: Path) -> None:
    result = _python(str(CLIENT), server.url, str(tmp_path), "--enable")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "enable: None" in result.stdout
    lines = [line for line in result.stderr.splitlines() if "Spark Connect client" in line]
    assert len(lines) == 1, result.stderr[-3000:]
    assert "plumbline connect-server" in lines[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "events.jsonl").exists()
    # `plumbline run` on a Connect client: the same one line, the script's own exit code
    script = _python("-m", "plumbline", "run", "--transport", "console", str(CLIENT),
                     server.url, str(tmp_path / "run"))  # fmt: skip
    assert script.returncode == 0, script.stderr[-3000:]
    assert script.stderr.count("is a Spark Connect client") == 1, script.stderr[-3000:]
    assert "Traceback" not in script.stderr


def test_connect_server_captures_its_clients_like_classic_pyspark(
    server: ConnectServer, classic_summary: Any, tmp_path: Path
) -> None:
    result = _python(str(CLIENT), server.url, str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    server.stop()  # SIGTERM: what the capture holds is delivered before Spark stops
    events = _read(server.events)
    summary = _summary(events, str(tmp_path))
    assert len(summary) == 3
    assert summary == classic_summary
    # the application's own run starts and completes around its clients' actions
    app = [e["eventType"] for e in events if e["job"]["name"] == APP_JOB]
    assert app == ["START", "COMPLETE"]


def test_an_in_process_connect_server_is_captured_like_classic(
    classic_summary: Any, tmp_path: Path
) -> None:
    """`SparkSession.builder.remote("local[2]")` under `plumbline run`: the classic session
    pyspark starts in the script's process for its Connect server is captured."""
    events_file = tmp_path / "run-events.jsonl"
    result = _python(
        "-m", "plumbline", "run", "--transport", "file", "--path", str(events_file),
        "--namespace", "tests", str(CLIENT), "local[2]", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert _summary(_read(events_file), str(tmp_path)) == classic_summary
