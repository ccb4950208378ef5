from __future__ import annotations

from collections.abc import Iterator

import pytest

# Imported by file name (see tests/transports/conftest.py: `tests` is shadowed by marquez-python).
from gateway_downstream import Downstream, running_downstream


@pytest.fixture
def downstream() -> Iterator[Downstream]:
    """A recording OpenLineage endpoint that accepts everything (until told to fail)."""
    with running_downstream() as state:
        yield state
