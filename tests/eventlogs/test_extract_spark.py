"""Extraction from the event logs of real Spark applications (every codec, rolling, a failed
write, bad logs), compared with the same application captured live."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from plumbline.cli import main
from plumbline.eventlogs.job import run_extraction
from plumbline.eventlogs.task import Target

pytestmark = [pytest.mark.spark, pytest.mark.slow]

JOBS = Path(__file__).with_name("eventlog_jobs.py")
WRITE = "execute_insert_into_hadoop_fs_relation_command"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logs (and the live capture) of eventlog_jobs.py's applications."""
    work = tmp_path_factory.mktemp("eventlogs")
    done = subprocess.run(
        [sys.executable, str(JOBS), str(work)], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return work


@pytest.fixture(scope="module")
def extracted(workdir: Path, spark: Any) -> dict[str, list[dict[str, Any]]]:
    """The CLI's output for the logs folder: the events of each application, by its name."""
    out = workdir / "out"
    result = CliRunner().invoke(
        main, ["extract-eventlogs", str(workdir / "logs"), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    by_app: dict[str, list[dict[str, Any]]] = {}
    for path in out.glob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        app = next(e["job"]["name"] for e in lines if "." not in e["job"]["name"])
        by_app[app.removeprefix("event_log_")] = lines
    return by_app


def ended(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The COMPLETE or FAIL event of each action, by job name."""
    return {
        e["job"]["name"]: e
        for e in events
        if e["eventType"] in ("COMPLETE", "FAIL") and "." in e["job"]["name"]
    }


def datasets(entries: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(d["namespace"], d["name"]) for d in entries}


def column_lineage(event: dict[str, Any]) -> dict[str, set[tuple[str, str]]]:
    """Each output column's input fields (dataset name, field)."""
    facet = event["outputs"][0]["facets"].get("columnLineage", {})
    return {
        column: {(f["name"], f["field"]) for f in entry["inputFields"]}
        for column, entry in facet.get("fields", {}).items()
    }


@pytest.mark.parametrize("app", ["zstd", "lz4", "lzf", "snappy", "rolling", "plain"])
def test_each_codec_gives_the_projection_s_lineage(
    app: str, workdir: Path, extracted: dict[str, list[dict[str, Any]]]
) -> None:
    job = f"event_log_{app}.{WRITE}.projected"
    event = ended(extracted[app])[job]
    data, source = workdir / "data" / app, str(workdir / "data" / "plain" / "source")
    assert event["eventType"] == "COMPLETE"
    assert datasets(event["inputs"]) == {("file", source)}
    assert datasets(event["outputs"]) == {("file", str(data / "projected"))}
    assert column_lineage(event) == {
        "id": {(source, "id")},
        "label": {(source, "name")},
        "doubled": {(source, "v")},
    }
    assert event["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 2
    assert event["inputs"][0]["inputFacets"]["inputStatistics"]["rowCount"] == 2
    facet = event["run"]["facets"]["plumbline_extraction"]
    assert facet["source"] == "eventLog" and facet["truncatedPlanNodes"] == 0


def test_extraction_equals_live_capture(
    workdir: Path, extracted: dict[str, list[dict[str, Any]]]
) -> None:
    live_events = [json.loads(line) for line in (workdir / "live.jsonl").read_text().splitlines()]
    live, found = ended(live_events), ended(extracted["plain"])
    assert sorted(found) == sorted(live)
    for job, event in live.items():
        mine = found[job]
        assert (mine["eventType"], mine["run"]["runId"]) == (
            event["eventType"],
            event["run"]["runId"],
        ), job
        assert datasets(mine["inputs"]) == datasets(event["inputs"]), job
        assert datasets(mine["outputs"]) == datasets(event["outputs"]), job
        assert column_lineage(mine) == column_lineage(event), job
        parent = mine["run"]["facets"]["parent"]
        assert parent == event["run"]["facets"]["parent"], job


def test_a_failed_write_is_a_fail_event_with_its_error(
    extracted: dict[str, list[dict[str, Any]]],
) -> None:
    event = ended(extracted["plain"])[f"event_log_plain.{WRITE}.broken"]
    assert event["eventType"] == "FAIL"
    error = event["run"]["facets"]["errorMessage"]
    assert "boom" in error["message"] + error["stackTrace"]  # 3.5: in the cause; 4.x: first line


def _bad_logs(workdir: Path, folder: Path) -> dict[str, str]:
    """Copies of the plain log, cut, corrupted and still running, next to a good one."""
    folder.mkdir()
    plain = next(
        p for p in (workdir / "logs").iterdir() if p.name.startswith("local-") and "." not in p.name
    )
    data = plain.read_bytes()
    shutil.copy(plain, folder / plain.name)
    (folder / "local-1-truncated").write_bytes(data[: len(data) // 2])
    (folder / "local-2.lz4").write_bytes(bytes(range(200)))
    (folder / "local-3.gz").write_bytes(data[:100])
    (folder / "local-4.inprogress").write_bytes(data)
    return {
        "local-1-truncated": "truncated",
        "local-2.lz4": "corrupt",
        "local-3.gz": "unknown event log codec",
    }


def test_bad_logs_are_reported_one_by_one(workdir: Path, spark: Any, tmp_path: Path) -> None:
    expected = _bad_logs(workdir, tmp_path / "logs")
    result = CliRunner().invoke(
        main, ["extract-eventlogs", str(tmp_path / "logs"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 1
    for name, reason in expected.items():
        line = next(line for line in result.output.splitlines() if name in line)
        assert line.startswith("failed:") and reason in line, line
    assert any(
        line.startswith("skipped:") and "local-4.inprogress" in line
        for line in result.output.splitlines()
    )
    produced = {p.name for p in (tmp_path / "out").glob("*.jsonl")}
    assert produced == {
        f"{name}.jsonl"
        for name in (
            "local-1-truncated",
            *[
                p.name
                for p in (workdir / "logs").iterdir()
                if p.name.startswith("local-") and "." not in p.name
            ],
        )
    }


def _server_state(url: str) -> dict[str, list[str]]:
    """Each job of the default namespace with its run ids, read back over HTTP."""
    state: dict[str, list[str]] = {}
    with httpx.Client(base_url=f"{url}/api/v1", timeout=30) as client:
        jobs = client.get("/namespaces/default/jobs", params={"limit": 1000}).json()["jobs"]
        for job in jobs:
            runs = client.get(
                f"/namespaces/default/jobs/{job['name']}/runs", params={"limit": 1000}
            )
            state[job["name"]] = sorted(r["id"] for r in runs.json()["runs"])
    return state


def test_live_and_extracted_make_one_run_and_reruns_add_nothing(
    workdir: Path, spark: Any, live_server: Any
) -> None:
    from plumbline.transports import HttpTransport, TransportConfig
    from plumbline.transports.replay import Replayer, read_lines

    transport = HttpTransport(TransportConfig(type="http", url=live_server.url))
    assert Replayer(transport).replay(read_lines(workdir / "live.jsonl")).ok
    transport.close()
    live_only = _server_state(live_server.url)
    plain = [
        p for p in (workdir / "logs").iterdir() if p.name.startswith("local-") and "." not in p.name
    ]
    for _ in range(2):
        report = run_extraction([str(plain[0])], Target(url=live_server.url), spark=spark)
        assert not report.failed and report.total("sent") > 0
        assert _server_state(live_server.url) == live_only


def test_progress_is_written_while_the_job_runs(workdir: Path, spark: Any, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "extract-eventlogs",
            str(workdir / "logs"),
            "--out",
            str(tmp_path / "out"),
            "--progress",
            "0.05",
        ],
    )
    assert result.exit_code == 0, result.output
    logs = len(list((workdir / "logs").iterdir()))
    found = [
        re.match(r"progress: (\d+)/(\d+) logs, (\d+) executions, (\d+) events", line)
        for line in result.stderr.splitlines()
    ]
    counts = [tuple(int(g) for g in m.groups()) for m in found if m is not None]
    assert len(counts) >= 2 and all(total == logs for _, total, _, _ in counts)
    assert counts[0][0] < logs  # a line while the tasks were still reading
    assert counts == sorted(counts) and counts[-1][0] == logs
    sent = sum(len(p.read_text().splitlines()) for p in (tmp_path / "out").glob("*.jsonl"))
    assert counts[-1][3] == sent
