"""Lineage health tests build pipelines with the store tests' event helpers."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from plumbline.analysis.health import complete_alerts
from plumbline.store.write import writer_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))  # model_mirror


@pytest.fixture
def store(engine: Engine) -> Iterator[Engine]:
    """The store with alerts completed as a server completes them."""
    normalizer = writer_for(engine).normalizer
    normalizer.on_alerts = complete_alerts
    yield engine
    normalizer.on_alerts = None
