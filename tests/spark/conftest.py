"""One local SparkSession for the whole test session, captured to a JSON Lines file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def events_file(spark_workdir: Path) -> Path:
    return spark_workdir / "events.jsonl"


@pytest.fixture(scope="session")
def handle(spark: Any, events_file: Path) -> Any:
    from plumbline.spark import enable

    captured = enable(spark, transport="file", path=str(events_file), namespace="tests")
    assert captured is not None
    return captured


class Captured:
    """Events the capture wrote since the test started."""

    def __init__(self, handle: Any, path: Path) -> None:
        self.handle = handle
        self.path = path
        self.offset = path.stat().st_size if path.exists() else 0

    def mark(self) -> None:
        """Forget everything captured so far (after delivering it)."""
        assert self.handle.flush(60)
        self.offset = self.path.stat().st_size if self.path.exists() else 0

    def events(self) -> list[dict[str, Any]]:
        """All events since the start of the test (after flushing the capture)."""
        assert self.handle.flush(60)
        if not self.path.exists():
            return []
        with self.path.open("rb") as stream:
            stream.seek(self.offset)
            return [json.loads(line) for line in stream.read().decode().splitlines() if line]

    def actions(self) -> list[dict[str, Any]]:
        """Events of actions (the application's own events left out)."""
        app = self.handle.app.job_name
        return [e for e in self.events() if e["job"]["name"] != app]


@pytest.fixture()
def captured(handle: Any, events_file: Path) -> Captured:
    captured = Captured(handle, events_file)
    captured.mark()
    return captured


@pytest.fixture()
def workdir(tmp_path: Path) -> Path:
    return tmp_path
