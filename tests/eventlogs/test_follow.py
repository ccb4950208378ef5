"""`extract-eventlogs --follow` tailing the log of a real Spark application while it runs
(uncompressed, zstd, rolling zstd): each execution's events appear as it ends, once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from plumbline.eventlogs.job import run_extraction
from plumbline.eventlogs.task import Target

pytestmark = [pytest.mark.spark, pytest.mark.slow]

APP = Path(__file__).with_name("follow_app.py")
WRITE = "execute_insert_into_hadoop_fs_relation_command"


def _events(folder: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


def _wait(condition: Callable[[], bool], what: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _ended(folder: Path, job_tail: str) -> bool:
    return any(
        e["eventType"] == "COMPLETE" and e["job"]["name"].endswith(job_tail)
        for e in _events(folder)
    )


def _running(logs: Path) -> bool:
    """The application's log says it is still running (a .inprogress file or status)."""
    return any(p.name.endswith(".inprogress") for p in logs.rglob("*"))


def _summary(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (
            e["eventType"],
            e["run"]["runId"],
            e["job"]["name"],
            sorted((d["namespace"], d["name"]) for d in e.get("inputs", [])),
            sorted((d["namespace"], d["name"]) for d in e.get("outputs", [])),
        )
        for e in events
    ]


@pytest.mark.parametrize("app", ["plain", "zstd", "rolling"])
def test_follow_emits_each_execution_as_it_ends(app: str, tmp_path: Path, spark: Any) -> None:
    logs, out = tmp_path / "logs", tmp_path / "out"
    logs.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-m", "plumbline", "extract-eventlogs", str(logs), "--out", str(out)]

    def start_follower() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*command, "--follow", "--poll-interval", "0.3", "--progress", "1"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    follower = start_follower()
    application = subprocess.Popen(
        [sys.executable, str(APP), str(tmp_path), app],
        env=env,
        cwd=APP.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait(lambda: (tmp_path / "step1").exists() or application.poll() is not None, "step1")
        assert application.poll() is None, application.stderr.read() if application.stderr else ""
        # the application waits for "go": its first write's lineage arrives while it runs
        _wait(lambda: _ended(out, f"{WRITE}.projected_1"), "projected_1 from the follower", 60)
        assert _running(logs) and application.poll() is None
        assert not _ended(out, f"{WRITE}.projected_2")
        # stopped and started again, it reads the log from its start but skips what it wrote
        follower.send_signal(signal.SIGTERM)
        stdout, stderr = follower.communicate(timeout=60)
        assert follower.returncode == 0, stdout + stderr
        assert "still running when --follow stopped" in stdout
        follower = start_follower()
        (tmp_path / "go").touch()
        assert application.wait(300) == 0
        _wait(lambda: _ended(out, f"{WRITE}.projected_2"), "projected_2 from the follower", 60)
        _wait(
            lambda: any(
                e["eventType"] == "COMPLETE" and "." not in e["job"]["name"] for e in _events(out)
            ),
            "the application's COMPLETE",
            60,
        )
    finally:
        if application.poll() is None:
            application.kill()
        follower.send_signal(signal.SIGTERM)
        stdout, stderr = follower.communicate(timeout=60)
    assert follower.returncode == 0, stdout + stderr
    assert "progress:" in stderr
    if app == "rolling":
        (folder,) = logs.iterdir()
        assert len(list(folder.glob("events_*"))) > 1  # it rolled while followed
    followed = _events(out)
    keys = [(e["run"]["runId"], e["eventType"]) for e in followed]
    assert len(keys) == len(set(keys))  # nothing twice
    # the same events as extracting the finished log afterwards
    batch = tmp_path / "batch"
    report = run_extraction([str(logs)], Target(out=str(batch)), spark=spark)
    assert not report.failed
    assert _summary(followed) == _summary(_events(batch))
    assert {e["job"]["name"].rsplit(".", 1)[-1] for e in followed if "." in e["job"]["name"]} >= {
        "projected_1",
        "projected_2",
    }
