"""Events built with the official openlineage-python client go through plumbline's transports unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from ol_test_server import LineageServer
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import schema_dataset, sql_job
from openlineage.client.serde import Serde
from spec_files import SPEC_DIR

from plumbline.transports import (
    AsyncEmitter,
    EmitterStats,
    FileTransport,
    TransportConfig,
    create_transport,
)

SPEC = SPEC_DIR / "OpenLineage.json"


def _client_event() -> dict:
    event = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime="2026-11-21T10:00:00.000Z",
        run=Run(runId="0190a0a0-0000-7000-8000-0000000000aa"),
        job=Job(
            namespace="interop",
            name="daily_orders",
            facets={"sql": sql_job.SQLJobFacet(query="INSERT INTO out SELECT * FROM orders")},
        ),
        producer="https://github.com/OpenLineage/OpenLineage/tree/1.x/client/python",
        inputs=[InputDataset(namespace="file", name="/data/orders")],
        outputs=[
            OutputDataset(
                namespace="file",
                name="/data/out",
                facets={
                    "schema": schema_dataset.SchemaDatasetFacet(
                        fields=[schema_dataset.SchemaDatasetFacetFields(name="id", type="long")]
                    )
                },
            )
        ],
    )
    return Serde.to_dict(event)


def test_client_event_through_http_transport(server: LineageServer) -> None:
    event = _client_event()
    jsonschema.validate(event, json.loads(SPEC.read_text()))  # a spec-valid input
    transport = create_transport(TransportConfig(type="http", url=server.url, compression="gzip"))
    transport.emit(event)
    transport.close()
    assert server.received[0].body == event
    assert server.received[0].body["schemaURL"].endswith("#/$defs/RunEvent")
    assert server.received[0].body["outputs"][0]["facets"]["schema"]["fields"] == [
        {"name": "id", "type": "long", "fields": []}
    ]


def test_client_event_through_emitter_and_file_round_trip(tmp_path: Path) -> None:
    event = _client_event()
    path = tmp_path / "events.jsonl"
    emitter = AsyncEmitter(FileTransport(path), spill_path=tmp_path / "spill.jsonl")
    emitter.submit(event)
    assert emitter.close() is True
    assert emitter.stats == EmitterStats(submitted=1, sent=1)
    (line,) = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(line) == event
    jsonschema.validate(json.loads(line), json.loads(SPEC.read_text()))
