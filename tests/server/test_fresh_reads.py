"""Ingestion answers once events are stored; reads still see every event accepted before them.

A transaction holding PostgreSQL's EXCLUSIVE lock on ``jobs`` stops the normalizer (it locks job
rows) but neither ingestion (raw rows only) nor plain reads: the test can then watch a read wait.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import httpx
import pytest
import sqlalchemy as sa
from ingest_helpers import event
from sqlalchemy.engine import Engine
from table_locks import table_locked

from plumbline.server import fresh_reads
from plumbline.server.app import create_app
from plumbline.server.runner import BackgroundServer
from plumbline.server.settings import ServerSettings

JOB_URL = "/api/v1/namespaces/http-tests/jobs/held"


@pytest.fixture
def server(pg_engine: Engine) -> Iterator[str]:
    url = pg_engine.url.render_as_string(hide_password=False)
    with BackgroundServer(create_app(ServerSettings(db_url=url, port=0))) as background:
        assert background.url is not None
        yield background.url


@pytest.fixture
def normalization_held(pg_engine: Engine) -> Iterator[threading.Event]:
    """Normalization is blocked until the event yielded is set (the lock is then released)."""
    with table_locked(pg_engine, "jobs") as release:
        yield release


def test_ingestion_answers_before_normalization_and_reads_wait_for_it(
    server: str, pg_engine: Engine, normalization_held: threading.Event
) -> None:
    answer = httpx.post(f"{server}/api/v1/lineage", json=event(str(uuid.uuid4()), job="held"))
    assert answer.status_code == 201, answer.text
    assert answer.json()["stored"] == 1

    read: dict[str, httpx.Response] = {}
    reader = threading.Thread(
        target=lambda: read.setdefault("job", httpx.get(f"{server}{JOB_URL}", timeout=60))
    )
    reader.start()
    reader.join(timeout=1.0)
    assert reader.is_alive(), "the read answered while its event was still pending"

    with pg_engine.begin() as connection:  # the job really is not in the lineage tables yet
        assert connection.execute(sa.text("SELECT count(*) FROM jobs")).scalar_one() == 0
    normalization_held.set()
    reader.join(timeout=30)
    assert not reader.is_alive()
    assert read["job"].status_code == 200, read["job"].text
    assert read["job"].json()["name"] == "held"
    assert "plumbline-pending-events" not in read["job"].headers


def test_a_read_that_waited_too_long_says_what_it_may_miss(
    server: str, normalization_held: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fresh_reads, "READ_WAIT_SECONDS", 0.3)
    answer = httpx.post(f"{server}/api/v1/lineage", json=event(str(uuid.uuid4()), job="held"))
    assert answer.status_code == 201, answer.text

    read = httpx.get(f"{server}{JOB_URL}", timeout=30)
    assert read.status_code == 404  # not normalized yet, and the answer says so
    assert read.headers["plumbline-pending-events"] == "1"
    metrics = httpx.get(f"{server}/metrics").text
    assert "plumbline_normalize_pending 1.0" in metrics
    assert "plumbline_normalize_failed 0.0" in metrics

    normalization_held.set()
    for _ in range(100):  # once normalized, the same read finds it without the header
        read = httpx.get(f"{server}{JOB_URL}", timeout=30)
        if read.status_code == 200:
            break
    assert read.status_code == 200
    assert "plumbline-pending-events" not in read.headers
    assert "plumbline_normalize_pending 0.0" in httpx.get(f"{server}/metrics").text
