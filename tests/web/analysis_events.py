"""Crafted lineage for the analysis views (impact, run diff, root cause, version lineage).

A diamond: ``/d/src`` is read by ``diamond.left`` and ``diamond.right``, whose outputs
``diamond.join`` reads to write ``/d/sink``; ``/d/src`` also fans out to 12 ``fan.jNN`` jobs.
Day 1 every job completes. Day 2 ``diamond.left`` writes ``/d/left`` again without its ``amount``
column (12 rows instead of 10) and ``diamond.join`` then fails on it.
"""

from __future__ import annotations

from typing import Any

from .lineage_events import dataset, event, facet, field_input

SRC = "/d/src"
LEFT = "/d/left"
RIGHT = "/d/right"
SINK = "/d/sink"
LEFT_JOB = "diamond.left"
RIGHT_JOB = "diamond.right"
JOIN_JOB = "diamond.join"
FAN = 12
FAN_JOBS = [f"fan.j{i:02d}" for i in range(FAN)]

LEFT_RUNS = ["0194c000-0000-7000-8000-0000000a0001", "0194c000-0000-7000-8000-0000000a0002"]
RIGHT_RUN = "0194c000-0000-7000-8000-0000000b0001"
JOIN_RUNS = ["0194c000-0000-7000-8000-0000000c0001", "0194c000-0000-7000-8000-0000000c0002"]
ERROR = "[UNRESOLVED_COLUMN] A column with name `amount` cannot be resolved."

SRC_FIELDS = [("id", "long"), ("amount", "double")]
LEFT_V1 = [("id", "long"), ("amount", "double")]
LEFT_V2 = [("id", "long")]
RIGHT_FIELDS = [("id", "long"), ("country", "string")]
SINK_FIELDS = [("country", "string"), ("total", "double")]


def _stats(ds: dict[str, Any], rows: int) -> dict[str, Any]:
    ds["outputFacets"] = {
        "outputStatistics": facet(
            "OutputStatisticsOutputDatasetFacet", "1-0-2", rowCount=rows, size=rows * 100
        )
    }
    return ds


def _lineage(fields: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return facet(
        "ColumnLineageDatasetFacet",
        "1-2-0",
        fields={k: {"inputFields": v} for k, v in fields.items()},
    )


def _left_out(fields: list[tuple[str, str]], rows: int) -> dict[str, Any]:
    lineage = {"id": [field_input(SRC, "id", "DIRECT", "IDENTITY")]}
    if any(n == "amount" for n, _ in fields):
        lineage["amount"] = [field_input(SRC, "amount", "DIRECT", "IDENTITY")]
    return _stats(dataset(LEFT, fields, columnLineage=_lineage(lineage)), rows)


def _read(name: str, fields: list[tuple[str, str]], rows: int) -> dict[str, Any]:
    ds = dataset(name, fields)
    ds["inputFacets"] = {
        "inputStatistics": facet(
            "InputStatisticsInputDatasetFacet", "1-0-0", rowCount=rows, size=rows * 100
        )
    }
    return ds


def _sink_out(rows: int) -> dict[str, Any]:
    lineage = {
        "country": [field_input(RIGHT, "country", "DIRECT", "IDENTITY")],
        "total": [field_input(LEFT, "amount", "DIRECT", "AGGREGATION")],
    }
    return _stats(dataset(SINK, SINK_FIELDS, columnLineage=_lineage(lineage)), rows)


def _run(
    job: str, run_id: str, day: int, minute: int, inputs: list, outputs: list, *, fail: str = ""
) -> list[dict[str, Any]]:
    t0 = f"2026-03-{day:02d}T08:{minute:02d}:00.000Z"
    t1 = f"2026-03-{day:02d}T08:{minute:02d}:{30 if fail else 20}.000Z"
    facets = (
        {
            "errorMessage": facet(
                "ErrorMessageRunFacet", "1-0-1", message=fail, programmingLanguage="python"
            )
        }
        if fail
        else {}
    )
    return [
        event(
            "START",
            t0,
            job,
            run_id,
            inputs=inputs,
            outputs=[{"namespace": o["namespace"], "name": o["name"]} for o in outputs],
        ),
        event(
            "FAIL" if fail else "COMPLETE",
            t1,
            job,
            run_id,
            inputs=inputs,
            outputs=[] if fail else outputs,
            run_facets=facets,
        ),
    ]


def events() -> list[dict[str, Any]]:
    """The diamond's two days and the fan-out, in the order a producer would send them."""
    src = dataset(SRC, SRC_FIELDS)
    right = dataset(RIGHT, RIGHT_FIELDS)
    out: list[dict[str, Any]] = []
    out += _run(LEFT_JOB, LEFT_RUNS[0], 1, 0, [src], [_left_out(LEFT_V1, 10)])
    out += _run(RIGHT_JOB, RIGHT_RUN, 1, 1, [src], [_stats(dataset(RIGHT, RIGHT_FIELDS), 3)])
    out += _run(JOIN_JOB, JOIN_RUNS[0], 1, 2, [_read(LEFT, LEFT_V1, 10), right], [_sink_out(3)])
    for i, job in enumerate(FAN_JOBS):
        out += _run(
            job,
            f"0194c000-0000-7000-8000-0000000f{i:04d}",
            1,
            10 + i,
            [src],
            [dataset(f"/d/fan/o{i:02d}", [("id", "long")])],
        )
    out += _run(LEFT_JOB, LEFT_RUNS[1], 2, 0, [src], [_left_out(LEFT_V2, 12)])
    out += _run(
        JOIN_JOB, JOIN_RUNS[1], 2, 2, [_read(LEFT, LEFT_V2, 12), right], [_sink_out(0)], fail=ERROR
    )
    return out
