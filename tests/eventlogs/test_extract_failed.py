"""A failed application, captured live then extracted from its event log (issue 27 §2): the
extraction ends the application FAIL, names the jobs in the namespace live capture used (the
`spark.plumbline.namespace` that `plumbline run --namespace` records in the Spark conf), and the
store keeps live capture's FAILED, counting the conflict, on both backends and both Spark lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from plumbline.eventlogs.job import run_extraction
from plumbline.eventlogs.task import Target

pytestmark = [pytest.mark.spark, pytest.mark.slow]

APP = Path(__file__).with_name("failing_app.py")
NS, JOB = "shop", "failing_readings"
CONFLICTS = "plumbline_lineage_conflicts_total"


def _conflicts(url: str) -> float:
    text = httpx.get(f"{url}/metrics", timeout=30).text
    line = next(
        line for line in text.splitlines() if line.startswith(f'{CONFLICTS}{{kind="weaker_source')
    )
    return float(line.rsplit(" ", 1)[1])


def _app_runs(url: str, namespace: str = NS) -> list[dict[str, Any]]:
    found = httpx.get(f"{url}/api/v1/namespaces/{namespace}/jobs/{JOB}/runs", timeout=30)
    assert found.status_code == 200, found.text
    return list(found.json()["runs"])


def _live(work: Path, url: str) -> None:
    """Run the failing application under `plumbline run --namespace shop`, posting live."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    command = [sys.executable, "-c", "from plumbline.cli import main; main()", "run",
               "--namespace", NS, "--url", url, str(APP), str(work)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 1, done.stderr[-3000:]


def test_extraction_of_a_failed_app_keeps_it_failed(
    live_server: Any, spark: Any, tmp_path: Path
) -> None:
    _live(tmp_path, live_server.url)
    [live] = _app_runs(live_server.url)
    assert live["state"] == "FAILED"
    before = _conflicts(live_server.url)
    logs = [p for p in (tmp_path / "logs").iterdir() if not p.name.endswith(".inprogress")]
    assert len(logs) == 1, logs  # the log ended normally
    out = tmp_path / "out"
    report = run_extraction([str(logs[0])], Target(out=str(out)), spark=spark)
    assert not report.failed
    extracted = [json.loads(line) for path in out.glob("*.jsonl") for line in path.open()]
    app_end = [e for e in extracted if e["job"]["name"] == JOB and e["eventType"] != "START"]
    assert [e["eventType"] for e in app_end] == ["FAIL"]  # not COMPLETE: a job failed
    assert {e["job"]["namespace"] for e in extracted} == {NS}  # as live capture named them
    assert "errorMessage" in app_end[0]["run"]["facets"]
    # posted to the store that captured it live: the run stays FAILED, even when the extraction
    # is changed to say COMPLETE (a weaker source never downgrades live capture)
    for event in app_end:
        event["eventType"] = "COMPLETE"
        del event["run"]["facets"]["errorMessage"]
    posted = httpx.post(f"{live_server.url}/api/v1/lineage", json=extracted, timeout=60)
    assert posted.status_code == 201, posted.text
    [after] = _app_runs(live_server.url)
    assert (after["id"], after["state"]) == (live["id"], "FAILED")
    assert _conflicts(live_server.url) == before + 1
    names = httpx.get(f"{live_server.url}/api/v1/namespaces/default/jobs", timeout=30)
    assert names.status_code == 404 or names.json()["jobs"] == []
