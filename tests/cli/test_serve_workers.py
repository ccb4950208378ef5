"""`plumbline serve --workers N`: several server processes on one port, stopped together."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from server_process import Gateway
from sqlalchemy.engine import Engine

PRODUCER = "https://github.com/example/plumbline-tests"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def _event(index: int) -> bytes:
    return json.dumps(
        {
            "eventType": "COMPLETE",
            "eventTime": f"2024-01-01T00:00:{index % 60:02d}Z",
            "producer": PRODUCER,
            "schemaURL": RUN_EVENT,
            "run": {"runId": str(uuid.uuid4())},
            "job": {"namespace": "workers", "name": f"job_{index % 5}"},
            "inputs": [{"namespace": "workers", "name": "source"}],
            "outputs": [{"namespace": "workers", "name": f"table_{index % 5}"}],
        }
    ).encode()


def _children(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # the parent's pid
            found.add(int(stat.parent.name))
    return found


@pytest.fixture
def two_workers(pg_engine: Engine) -> Iterator[tuple[Gateway, set[int]]]:
    """`plumbline serve --workers 2` on a fresh PostgreSQL store, and its workers' pids."""
    url = pg_engine.url.render_as_string(hide_password=False)
    gateway = Gateway(["--db", url, "--port", "0", "--workers", "2"], dict(os.environ))
    gateway.start()
    try:
        assert gateway.process is not None
        deadline = time.monotonic() + 30
        while len(workers := _children(gateway.process.pid)) < 2:
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)
        yield gateway, workers
    finally:
        gateway.stop()


def test_workers_share_the_port_store_every_event_and_stop_together(
    two_workers: tuple[Gateway, set[int]], pg_engine: Engine
) -> None:
    gateway, workers = two_workers

    def post(index: int) -> int:
        # a connection per request, so that requests spread over the workers
        return httpx.post(
            f"{gateway.url}/api/v1/lineage",
            content=_event(index),
            headers={"Content-Type": "application/json"},
        ).status_code

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(post, range(60)))
    assert statuses == [201] * 60
    with pg_engine.connect() as connection:
        stored = connection.execute(sa.text("SELECT count(*) FROM lineage_events"))
        assert stored.scalar_one() == 60

    assert gateway.process is not None
    gateway.process.send_signal(signal.SIGTERM)
    assert gateway.process.wait(timeout=30) == 0
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


def test_a_worker_that_dies_stops_the_server(two_workers: tuple[Gateway, set[int]]) -> None:
    gateway, workers = two_workers
    os.kill(min(workers), signal.SIGKILL)
    assert gateway.process is not None
    assert gateway.process.wait(timeout=30) == 1
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


def test_workers_on_sqlite_are_refused_with_a_clear_message(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            *(sys.executable, "-m", "plumbline", "serve", "--port", "0", "--workers", "2"),
            *("--db", f"sqlite:///{tmp_path / 'store.db'}"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "--workers above 1 needs PostgreSQL" in result.stderr


def test_a_bad_writer_thread_count_is_refused_before_the_store_is_touched(pg_url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "plumbline", "serve", "--db", pg_url, "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLUMBLINE_WRITER_THREADS": "0"},
    )
    assert result.returncode != 0
    assert "PLUMBLINE_WRITER_THREADS must be a whole number of at least 1" in result.stderr
    engine = sa.create_engine(pg_url)
    with engine.connect() as connection:
        assert sa.inspect(connection).get_table_names() == []  # not migrated
    engine.dispose()
