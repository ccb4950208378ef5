"""The access log: one line per request (method, path, status, time, token name), on by default,
off with a setting (``plumbline serve --no-access-log``)."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from ingest_helpers import event, post

from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

LINE = re.compile(r'^127\.0\.0\.1 "(\w+) (\S+)" (\d{3}) \d+\.\dms token=(\S+)$')


def _lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, str, str]]:
    found = []
    for record in caplog.records:
        if record.name == "plumbline.access":
            match = LINE.match(record.getMessage())
            assert match, record.getMessage()
            found.append(match.groups())
    return found


def test_one_line_per_request_with_the_token_name(
    make_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    server = make_server(auth="required")
    engine = create_store_engine(server.db_url)
    token = create_token(engine, "ingest-bot", "write")
    engine.dispose()
    caplog.set_level(logging.INFO, logger="plumbline.access")
    response = post(
        server.url, event(str(uuid.uuid4())), headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 201
    httpx.get(f"{server.url}/api/v1/namespaces", timeout=30)  # no token: 401
    httpx.get(f"{server.url}/api/v1/datasets%0Aforged", timeout=30)
    lines = _lines(caplog)
    assert ("POST", "/api/v1/lineage", "201", "ingest-bot") in lines
    assert ("GET", "/api/v1/namespaces", "401", "-") in lines
    assert any(path == "/api/v1/datasets%0Aforged" for _, path, _, _ in lines)  # one line
    assert token not in caplog.text


def test_no_access_log_when_turned_off(make_server: Any, caplog: pytest.LogCaptureFixture) -> None:
    server = make_server(access_log=False)
    caplog.set_level(logging.INFO, logger="plumbline.access")
    assert httpx.get(f"{server.url}/api/v1/namespaces", timeout=30).status_code == 200
    assert _lines(caplog) == []


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("flag", [[], ["--no-access-log"]])
def test_plumbline_serve_writes_it_to_stderr(db_url: str, flag: list[str], tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "plumbline", "serve", "--db", db_url, "--port", "0", *flag],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip().removeprefix("plumbline serving on ")
        assert httpx.get(f"{url}/api/v1/health", timeout=30).status_code == 200
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    logged = [line for line in stderr.splitlines() if '"GET /api/v1/health" 200' in line]
    assert len(logged) == (0 if flag else 1), stderr
