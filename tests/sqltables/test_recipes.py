"""Every recipe of docs/sql-recipes.md runs on the store's views, SQLite and PostgreSQL, and
answers what the scenario's pipeline says."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from recipes import EXPECTED, recipes
from scenario import build, stream_events
from sqlalchemy.engine import Engine
from store_summary import ingest


def test_the_page_lists_every_recipe() -> None:
    assert list(recipes()) == list(EXPECTED)


@pytest.fixture
def built(engine: Engine) -> Engine:
    build(engine)
    ingest(engine, stream_events())
    return engine


@pytest.mark.parametrize("title", list(EXPECTED))
def test_recipe_on_the_store(built: Engine, title: str) -> None:
    with built.connect() as conn:
        rows = [tuple(row) for row in conn.execute(sa.text(recipes()[title]))]
    assert rows == EXPECTED[title]
