"""`create_app(settings)` depends on its settings only: the environment is read at the edges (the
command line's options, :func:`build_settings`), never by the server itself."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from plumbline.server import OutboxPolicy, ServerSettings, create_app
from plumbline.server.forwarding import outbox_policy
from plumbline.store import default_db_url, writer_for

HOSTILE_ENVIRONMENT = {
    "PLUMBLINE_DB": "postgresql+psycopg://nobody@127.0.0.1:1/nowhere",
    "PLUMBLINE_WRITER_THREADS": "0",
    "PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "many",
    "PLUMBLINE_OUTBOX_BASE_DELAY": "never",
}


def test_the_environment_changes_nothing(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in HOSTILE_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    policy = OutboxPolicy(max_attempts=2, base_delay_s=0.5)
    settings = ServerSettings(db_url=db_url, outbox=policy, writer_threads=3)
    app = create_app(settings)
    try:
        engine = app.state.store.engine
        assert app.state.settings is settings
        assert engine.url.render_as_string(False) == sa.make_url(db_url).render_as_string(False)
        assert outbox_policy(app) is policy
        sqlite = engine.dialect.name == "sqlite"
        assert len(writer_for(engine)._lanes) == (1 if sqlite else 3)  # SQLite: one writer
    finally:
        app.state.store.dispose()
    assert default_db_url() != HOSTILE_ENVIRONMENT["PLUMBLINE_DB"]


def test_defaults_when_the_settings_say_nothing(db_url: str) -> None:
    app = create_app(ServerSettings(db_url=db_url))
    try:
        engine = app.state.store.engine
        assert outbox_policy(app) == OutboxPolicy()
        assert len(writer_for(engine)._lanes) == (1 if engine.dialect.name == "sqlite" else 2)
    finally:
        app.state.store.dispose()
