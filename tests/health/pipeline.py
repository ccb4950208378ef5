"""A steady two-job pipeline, hour after hour: ``load`` reads ``raw`` and writes ``orders``;
``report`` reads ``orders`` and writes ``report`` (column lineage on every field). Each helper
returns a run's START and terminal events; ``hour`` spaces the runs, small jitter in rows and
durations as real days have."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from store_summary import column_lineage, dataset, facet, run_event

from plumbline.store.read import alerts as alert_reads

NS = "shop"
DS = "warehouse"
START = datetime(2024, 5, 1, tzinfo=UTC)
ORDERS = {"id": "string", "price": "decimal(10,2)", "qty": "int"}


def run_id(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _at(hour: int, minutes: float) -> str:
    return (START + timedelta(hours=hour, minutes=minutes)).isoformat().replace("+00:00", "Z")


def _schema(fields: dict[str, str]) -> dict[str, Any]:
    return facet(fields=[{"name": k, "type": v} for k, v in fields.items()])


def orders(fields: dict[str, str] | None = None) -> dict[str, Any]:
    columns = fields or ORDERS
    lineage = column_lineage({n: [(DS, "raw", n, "DIRECT", "IDENTITY")] for n in columns})
    return dataset(DS, "orders", schema=_schema(columns), columnLineage=lineage)


def report_out() -> dict[str, Any]:
    lineage = column_lineage(
        {"total": [(DS, "orders", "price", "DIRECT", "AGGREGATION")],
         "items": [(DS, "orders", "qty", "DIRECT", "AGGREGATION")]}
    )  # fmt: skip
    return dataset(DS, "report", schema=_schema({"total": "double", "items": "long"}),
                   columnLineage=lineage)  # fmt: skip


def job_run(
    n: int,
    job: str,
    hour: int,
    inputs: list[dict[str, Any]],
    outputs: list[dict[str, Any]],
    *,
    rows: int | None = None,
    minutes: float | None = None,
    state: str = "COMPLETE",
    error: str | None = None,
) -> list[dict[str, Any]]:
    """Run ``n`` of ``job`` starting at ``hour``; ``rows`` written (default ~1000), lasting
    ``minutes`` (default ~5), both with a little jitter."""
    rows = rows if rows is not None else 1000 + (n * 37) % 40
    minutes = minutes if minutes is not None else 5 + ((n * 13) % 10) / 10
    outs = [{**o, "outputFacets": {"outputStatistics": facet(rowCount=rows, size=rows * 10)}}
            for o in outputs]  # fmt: skip
    events = [run_event(run_id(n), "START", _at(hour, 0), job=job, namespace=NS, inputs=inputs,
                        outputs=outs)]  # fmt: skip
    facets = {"errorMessage": facet(message=error, programmingLanguage="python")} if error else {}
    events.append(run_event(run_id(n), state, _at(hour, minutes), job=job, namespace=NS,
                            inputs=inputs, outputs=outs, **facets))  # fmt: skip
    return events


def raw() -> dict[str, Any]:
    return dataset(DS, "raw")


def day(hour: int, **load: Any) -> list[dict[str, Any]]:
    """One hour of the pipeline: load (run 2*hour+1), then report (run 2*hour+2). ``load`` options
    go to the load run (inputs, outputs, rows, minutes, state, error)."""
    inputs = load.pop("inputs", [raw()])
    outputs = load.pop("outputs", [orders()])
    return job_run(2 * hour + 1, "load", hour, inputs, outputs, **load) + job_run(
        2 * hour + 2, "report", hour, [dataset(DS, "orders")], [report_out()], minutes=None
    )


def hour_time(hour: int) -> datetime:
    return START + timedelta(hours=hour)


def alerts_of(engine: Engine, kind: str | None = None) -> list[dict[str, Any]]:
    """The stored alerts (of ``kind`` when given), as the alerts route lists them."""
    with engine.connect() as conn:
        return alert_reads.list_alerts(conn, kinds=[kind] if kind else None, limit=1000)
