"""Fixtures for the demo's tests: the shared SparkSession with the demo's runtime settings."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def spark(spark: Any) -> Iterator[Any]:
    """The session-wide SparkSession, configured as the demo configures its own for this module.

    The demo needs strict (ANSI) casts and dynamic partition overwrite; other test folders must not
    inherit them, so the previous values come back afterwards.
    """
    from plumbline.demo.session import RUNTIME_CONF, configure

    previous = {key: spark.conf.get(key, None) for key in RUNTIME_CONF}
    configure(spark)
    yield spark
    for key, value in previous.items():
        if value is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, value)
