"""Forward-target credentials are kept once, in the settings, never in outbox rows (issue 15
item 6), on both backends: new rows name the target without them, and the migration rewrites
rows written before."""

from __future__ import annotations

import json
import uuid

import httpx
import sqlalchemy as sa
from downstream_server import Downstream

from plumbline.server.settings import ForwardTarget
from plumbline.store import outbox as queue
from plumbline.store.engine import create_store_engine
from plumbline.store.migrate import upgrade
from plumbline.store.schema import outbox

SECRETS = ("s3cret", "tok123")


def _credentialed(url: str) -> str:
    return url.replace("http://", "http://alice:s3cret@") + "/api/v1/lineage?api_key=tok123"


def _targets(engine: sa.Engine) -> set[str]:
    with engine.connect() as connection:
        return set(connection.execute(sa.select(outbox.c.target)).scalars())


def test_rows_name_the_target_without_its_credentials(make_server, downstream: Downstream) -> None:
    url = _credentialed(downstream.url)
    server = make_server(forward=(ForwardTarget(url=url),))
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2024-03-01T12:00:00Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "ns", "name": "j"},
    }
    assert httpx.post(server.lineage_url, json=event, timeout=30).status_code == 201
    downstream.wait_for(lambda d: len(d.received) == 1)
    [received] = downstream.received
    assert received.path == "/api/v1/lineage?api_key=tok123"  # delivered with them
    assert received.headers["authorization"].startswith("Basic ")
    assert json.loads(received.body) == event
    targets = _targets(server.app.state.store.engine)
    assert targets == {downstream.url + "/api/v1/lineage?api_key=***"}
    status = httpx.get(f"{server.url}/api/v1/forwarding", timeout=30).json()
    assert [t["configured"] for t in status["targets"]] == [True]


def test_the_migration_takes_credentials_out_of_old_rows(db_url: str) -> None:
    from alembic import command

    from plumbline.store.migrate import _alembic_config

    engine = create_store_engine(db_url)
    upgrade(engine)
    command.downgrade(_alembic_config(engine), "0012")
    old = _credentialed("http://127.0.0.1:9")
    with engine.begin() as connection:
        queue.enqueue_rows(connection, [old, "http://127.0.0.1:9/plain"], [(b"{}", None)])
    upgrade(engine)
    assert _targets(engine) == {
        "http://127.0.0.1:9/api/v1/lineage?api_key=***",
        "http://127.0.0.1:9/plain",
    }
    engine.dispose()
