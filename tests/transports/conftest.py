from __future__ import annotations

from collections.abc import Iterator

import pytest

# Imported by file name: `tests` itself is shadowed by a `tests` package that marquez-python installs.
from ol_test_server import LineageServer, dead_port, running_server


@pytest.fixture
def server() -> Iterator[LineageServer]:
    with running_server() as s:
        yield s


@pytest.fixture
def refused_url() -> Iterator[str]:
    with dead_port() as url:
        yield url
