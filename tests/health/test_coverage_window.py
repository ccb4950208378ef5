"""Coverage's window is one of event time for every measure (edges, runs, events), never of
receipt, on both backends: everything here is received now, its event times are in 2024."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from pipeline import DS, NS, day, hour_time
from sqlalchemy.engine import Engine
from store_summary import dataset, ingest, run_event

from plumbline.store.read.coverage import coverage
from plumbline.store.write.normalizer import NormalizeError

OLD, NEW = "2024-04-01T00:00:00Z", "2024-05-01T10:00:00Z"  # before and after hour_time(0)


def _uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _fails(engine: Engine, event: dict[str, Any]) -> None:
    """Store ``event``, which fails normalization (kept, marked failed)."""
    with pytest.raises(NormalizeError):
        ingest(engine, [event])


def test_every_measure_counts_by_event_time(engine: Engine) -> None:
    # in the window (event times from 2024-05-01 on): the steady pipeline's six hours (24
    # events), a run left unfinished, an event that fails normalization (its run id is the
    # first job's)
    for hour in range(6):
        ingest(engine, day(hour))
    ingest(engine, [run_event(_uuid(900), "START", NEW, job="stuck", namespace="other")])
    ingest(engine, [run_event(_uuid(901), "START", NEW, job="first", namespace="other")])
    _fails(engine, run_event(_uuid(901), "COMPLETE", NEW, job="second", namespace="other"))
    # before it, received just as recently: an unfinished run, a failed event, an input read
    ingest(engine, [run_event(_uuid(902), "START", OLD, job="old-stuck", namespace="other")])
    ingest(engine, [run_event(_uuid(903), "START", OLD, job="first", namespace="other")])
    _fails(engine, run_event(_uuid(903), "COMPLETE", OLD, job="second", namespace="other"))
    legacy = [dataset(DS, "legacy")]
    ingest(engine, [run_event(_uuid(904), "COMPLETE", OLD, job="old", namespace=NS, inputs=legacy)])

    with engine.connect() as conn:
        found = coverage(conn, hour_time(0))
        later = coverage(conn, datetime(2025, 1, 1, tzinfo=UTC))
    other = found["other"]
    assert (other["unfinishedRuns"], other["_jobsWithUnfinishedRuns"]) == (2, ["first", "stuck"])
    assert (other["failedEventRuns"], other["failedEvents"]) == (1, 1)
    assert found[DS]["_unproducedInputs"] == ["raw"]  # not legacy, read only in April
    events = {ns: sum(m["producers"].values()) for ns, m in found.items() if "producers" in m}
    assert events == {NS: 24, "other": 3}  # not the three April events
    # a window after every event time: nothing, though every event was received after it
    assert all(
        not measures.get(key)
        for measures in later.values()
        for key in ("unfinishedRuns", "failedEvents", "unproducedInputs", "producers", "outputs")
    )
