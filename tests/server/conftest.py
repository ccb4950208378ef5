"""Fixtures of the read-API tests: the golden story posted to a live server, and an HTTP client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from golden_story import Story


@pytest.fixture
def story(live_server: Any) -> Story:
    posted = Story()
    posted.post(live_server.url)
    return posted


@pytest.fixture
def http(live_server: Any) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url + "/api/v1", timeout=30) as client:
        yield client
