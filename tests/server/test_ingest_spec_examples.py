"""Real-world input: every example document of the OpenLineage spec, wrapped in an event, is accepted
by a live server and stored (facets kept as sent)."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from ingest_helpers import post

from plumbline.store.engine import create_store_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "openlineage"))
from openlineage_spec_examples import examples  # noqa: E402


def test_every_spec_example_is_accepted_and_kept(live_server: Any, spec_dir: Path) -> None:
    found = examples(spec_dir)
    events = []
    for index, example in enumerate(found):
        event = example.wrapped()
        event["run"]["runId"] = str(uuid.UUID(int=index + 1, version=4))
        events.append(event)
    events.append(json.loads((spec_dir / "tests" / "example_full_event.json").read_text()))
    response = post(live_server.url, events, gzipped=True)
    assert response.status_code == 201
    assert response.json()["rejected"] == []
    assert response.json()["stored"] == len(found) + 1

    engine = create_store_engine(live_server.db_url)
    try:
        with engine.connect() as connection:
            payloads = [
                p if isinstance(p, dict) else json.loads(p)
                for p in connection.execute(sa.text("SELECT payload FROM lineage_events")).scalars()
            ]
    finally:
        engine.dispose()

    def canonical(document: Any) -> str:
        return json.dumps(document, sort_keys=True)

    assert sorted(payloads, key=canonical) == sorted(events, key=canonical)
