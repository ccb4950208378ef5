"""The official `openlineage-python` client (HTTP transport, with and without gzip) posts to a live
plumbline server, and what it sent ends up in the store."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from ingest_helpers import count
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import (
    DatasetEvent,
    InputDataset,
    Job,
    JobEvent,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
    StaticDataset,
)
from openlineage.client.facet_v2 import (
    column_lineage_dataset,
    output_statistics_output_dataset,
    parent_run,
    schema_dataset,
    sql_job,
)
from openlineage.client.transport.http import HttpCompression, HttpConfig, HttpTransport

from plumbline.store.engine import create_store_engine

PRODUCER = "https://github.com/example/plumbline-tests"


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _events(run_id: str, parent_id: str) -> list[Any]:
    schema = schema_dataset.SchemaDatasetFacet(
        fields=[
            schema_dataset.SchemaDatasetFacetFields(name="id", type="long"),
            schema_dataset.SchemaDatasetFacetFields(name="total", type="double"),
        ]
    )
    lineage = column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={
            "id": column_lineage_dataset.Fields(
                inputFields=[
                    column_lineage_dataset.InputField(
                        "pg",
                        "orders",
                        "id",
                        [column_lineage_dataset.Transformation("DIRECT", "IDENTITY")],
                    )
                ]
            ),
            "total": column_lineage_dataset.Fields(
                inputFields=[
                    column_lineage_dataset.InputField(
                        "pg",
                        "orders",
                        "amount",
                        [column_lineage_dataset.Transformation("DIRECT", "AGGREGATION")],
                    )
                ]
            ),
        },
        dataset=[
            column_lineage_dataset.InputField(
                "pg",
                "orders",
                "status",
                [column_lineage_dataset.Transformation("INDIRECT", "FILTER")],
            )
        ],
    )
    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId=parent_id), job=parent_run.Job(namespace="client", name="app")
    )
    job = Job(
        namespace="client",
        name="app.totals",
        facets={"sql": sql_job.SQLJobFacet(query="select id, sum(amount) from orders")},
    )
    inputs = [InputDataset(namespace="pg", name="orders")]
    outputs = [
        OutputDataset(
            namespace="pg",
            name="totals",
            facets={"schema": schema, "columnLineage": lineage},
            outputFacets={
                "outputStatistics": output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                    rowCount=12, size=340
                )
            },
        )
    ]
    run = Run(runId=run_id, facets={"parent": parent})
    return [
        RunEvent(
            eventType=RunState.START,
            eventTime=_now(),
            run=run,
            job=job,
            producer=PRODUCER,
            inputs=inputs,
            outputs=outputs,
        ),
        RunEvent(
            eventType=RunState.COMPLETE,
            eventTime=_now(),
            run=run,
            job=job,
            producer=PRODUCER,
            inputs=inputs,
            outputs=outputs,
        ),
        DatasetEvent(
            eventTime=_now(),
            producer=PRODUCER,
            dataset=StaticDataset(namespace="pg", name="customers"),
        ),
        JobEvent(
            eventTime=_now(),
            producer=PRODUCER,
            job=Job(namespace="client", name="static"),
            inputs=[InputDataset(namespace="pg", name="customers")],
            outputs=[],
        ),
    ]


@pytest.mark.parametrize("compression", [None, HttpCompression.GZIP], ids=["plain", "gzip"])
def test_official_client_events_are_stored(
    live_server: Any, compression: HttpCompression | None
) -> None:
    client = OpenLineageClient(
        transport=HttpTransport(HttpConfig(url=live_server.url, compression=compression))
    )
    run_id, parent_id = str(uuid.uuid4()), str(uuid.uuid4())
    for event in _events(run_id, parent_id):
        client.emit(event)  # raises on any non-2xx answer

    live_server.settle()
    assert count(live_server.db_url, "lineage_events") == 4
    engine = create_store_engine(live_server.db_url)
    try:
        with engine.connect() as connection:
            run = connection.execute(
                sa.text("SELECT current_state, parent_run_uuid FROM runs WHERE uuid = :uuid"),
                {"uuid": run_id},
            ).one()
            io = connection.execute(
                sa.text("SELECT direction, row_count, byte_count FROM run_io ORDER BY direction")
            ).all()
            edges = connection.execute(
                sa.text(
                    "SELECT o.name, i.name, e.transformation_subtype FROM column_lineage_edges e "
                    "JOIN dataset_fields o ON o.id = e.output_field_id "
                    "JOIN dataset_fields i ON i.id = e.input_field_id ORDER BY o.name"
                )
            ).all()
            kinds = connection.execute(
                sa.text("SELECT kind, count(*) FROM lineage_events GROUP BY kind ORDER BY kind")
            ).all()
    finally:
        engine.dispose()
    assert tuple(run) == ("COMPLETE", parent_id)
    assert [tuple(row) for row in io] == [("input", None, None), ("output", 12, 340)]
    assert [tuple(row) for row in edges] == [
        ("id", "id", "IDENTITY"),
        ("total", "amount", "AGGREGATION"),
    ]
    assert [tuple(row) for row in kinds] == [("DatasetEvent", 1), ("JobEvent", 1), ("RunEvent", 2)]
