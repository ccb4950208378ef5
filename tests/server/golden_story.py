"""Golden OpenLineage events for the read-API tests (hand-written from the 2-0-2 spec) and a helper
that posts them to a live server. Imported by the read-API tests.

The story: an application run `shop_etl` with two child jobs.
  file:/data/raw/orders --clean_orders--> file:/data/clean/orders --daily_report--> file:/data/report/daily
`clean_orders` completes; `daily_report` fails. Column lineage: clean.id <- raw.id (IDENTITY),
clean.amount <- raw.amount (IDENTITY), raw.status filters all of clean (INDIRECT FILTER),
daily.total <- clean.amount (AGGREGATION).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
PRODUCER = "https://github.com/plumbline/tests"
FACET = "https://openlineage.io/spec/facets/1-0-0/{}.json"
JOB_NS = "shop"
DS_NS = "file"
RAW, CLEAN, DAILY = "/data/raw/orders", "/data/clean/orders", "/data/report/daily"


def _facet(name: str, **body: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": FACET.format(name), **body}


def _schema(*fields: tuple[str, str]) -> dict[str, Any]:
    return _facet(
        "SchemaDatasetFacet",
        fields=[{"name": n, "type": t, "description": f"the {n}"} for n, t in fields],
    )


def _input(name: str, value: str, transformation: str, subtype: str) -> dict[str, Any]:
    return {
        "namespace": DS_NS,
        "name": name,
        "field": value,
        "transformations": [{"type": transformation, "subtype": subtype}],
    }


class Story:
    """Run ids and event times of one posting of the golden events."""

    def __init__(self, start: datetime | None = None) -> None:
        self.t0 = start or datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)
        self.app_run = str(uuid.uuid4())
        self.clean_run = str(uuid.uuid4())
        self.report_run = str(uuid.uuid4())

    def _event(
        self, event_type: str, minutes: int, run_id: str, job: str, **parts: Any
    ) -> dict[str, Any]:
        run_facets: dict[str, Any] = {
            "parent": _facet(
                "ParentRunFacet",
                run={"runId": self.app_run},
                job={"namespace": JOB_NS, "name": "shop_etl"},
            )
        }
        run_facets.update(parts.pop("run_facets", {}))
        return {
            "eventType": event_type,
            "eventTime": (self.t0 + timedelta(minutes=minutes)).isoformat(),
            "run": {"runId": run_id, "facets": run_facets},
            "job": {
                "namespace": JOB_NS,
                "name": job,
                "facets": {
                    "jobType": _facet(
                        "JobTypeJobFacet",
                        processingType="BATCH",
                        integration="SPARK",
                        jobType="JOB",
                    )
                },
            },
            "producer": PRODUCER,
            "schemaURL": SCHEMA_URL,
            **parts,
        }

    def events(self) -> list[dict[str, Any]]:
        raw = {
            "namespace": DS_NS,
            "name": RAW,
            "facets": {
                "schema": _schema(("id", "long"), ("amount", "double"), ("status", "string"))
            },
        }
        clean = {
            "namespace": DS_NS,
            "name": CLEAN,
            "facets": {
                "schema": _schema(("id", "long"), ("amount", "double")),
                "columnLineage": _facet(
                    "ColumnLineageDatasetFacet",
                    fields={
                        "id": {"inputFields": [_input(RAW, "id", "DIRECT", "IDENTITY")]},
                        "amount": {"inputFields": [_input(RAW, "amount", "DIRECT", "IDENTITY")]},
                    },
                    dataset=[_input(RAW, "status", "INDIRECT", "FILTER")],
                ),
            },
            "outputFacets": {
                "outputStatistics": _facet(
                    "OutputStatisticsOutputDatasetFacet", rowCount=42, size=4096
                )
            },
        }
        daily = {
            "namespace": DS_NS,
            "name": DAILY,
            "facets": {
                "schema": _schema(("day", "date"), ("total", "double")),
                "columnLineage": _facet(
                    "ColumnLineageDatasetFacet",
                    fields={
                        "total": {"inputFields": [_input(CLEAN, "amount", "DIRECT", "AGGREGATION")]}
                    },
                ),
            },
        }
        clean_input = {"namespace": DS_NS, "name": CLEAN, "facets": clean["facets"]}
        error = _facet(
            "ErrorMessageRunFacet",
            message="division by zero",
            programmingLanguage="python",
            stackTrace="Traceback: ...",
        )
        return [
            self._event(
                "START", 0, self.clean_run, "shop_etl.clean_orders", inputs=[raw], outputs=[clean]
            ),
            self._event(
                "COMPLETE",
                1,
                self.clean_run,
                "shop_etl.clean_orders",
                inputs=[raw],
                outputs=[clean],
            ),
            self._event(
                "START",
                2,
                self.report_run,
                "shop_etl.daily_report",
                inputs=[clean_input],
                outputs=[daily],
            ),
            self._event(
                "FAIL",
                3,
                self.report_run,
                "shop_etl.daily_report",
                inputs=[clean_input],
                outputs=[daily],
                run_facets={"errorMessage": error},
            ),
        ]

    def drift_events(self) -> list[dict[str, Any]]:
        """Two later runs of a landing job that writes the raw orders, the second with `amount`
        retyped: a schema-drift alert (posted only by the tests that need an alert). The first
        write is what the second drifts from: a schema only readers declared is not a version's."""
        job = "shop_etl.land_orders"

        def landed(amount_type: str) -> dict[str, Any]:
            fields = (("id", "long"), ("amount", amount_type), ("status", "string"))
            return {"namespace": DS_NS, "name": RAW, "facets": {"schema": _schema(*fields)}}

        return [
            self._event("COMPLETE", 38, str(uuid.uuid4()), job, outputs=[landed("double")]),
            self._event("COMPLETE", 40, str(uuid.uuid4()), job, outputs=[landed("string")]),
        ]

    def post(self, base_url: str) -> None:
        """Post the events, one request each, and insist that each was stored."""
        with httpx.Client(base_url=base_url, timeout=30) as client:
            for event in self.events():
                response = client.post("/api/v1/lineage", json=event)
                assert response.status_code == 201, response.text
