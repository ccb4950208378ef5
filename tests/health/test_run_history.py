"""The writer's cache of each job's recent ended runs (what change alerts compare a run with), on
both backends: after every write, what it holds and would use is what the store holds; another
writer's runs make it read the store again."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from pipeline import DS, NS, alerts_of, day, raw, run_id
from sqlalchemy.engine import Engine
from store_summary import dataset, ingest

from plumbline.openlineage import parse_event
from plumbline.store.schema import jobs, namespaces
from plumbline.store.write import run_history, writer_for
from plumbline.store.write.cache import EndedRun
from plumbline.store.write.writer import StoreWriter


def _job_ids(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(jobs.c.name, jobs.c.id, jobs.c.latest_run_uuid)
            .join(namespaces, namespaces.c.id == jobs.c.namespace_id)
            .where(namespaces.c.name == NS)
        )
        return {row.name: row.id for row in rows}


def _latest(engine: Engine, job: int) -> str | None:
    with engine.connect() as conn:
        found: str | None = conn.execute(
            sa.select(jobs.c.latest_run_uuid).where(jobs.c.id == job)
        ).scalar_one()
        return found


def _view(runs: Any) -> list[tuple[Any, ...]]:
    return [(r.uuid, r.state, r.at, r.started_at, r.ended_at, sorted(r.io), r.rows) for r in runs]


def _stored(engine: Engine, job: int, depth: int) -> list[EndedRun]:
    with engine.connect() as conn:
        return run_history._read(conn, {job: depth}).get(job, [])


def assert_cache_is_the_store(engine: Engine) -> int:
    """Every entry a write would use holds the store's newest ended runs of its job (all of them
    when it says it is complete); how many entries there are."""
    cache = writer_for(engine).cache
    used = 0
    for job in _job_ids(engine).values():
        entry = cache.histories.get(job)
        if entry is None or entry.latest_run != _latest(engine, job):
            continue
        used += 1
        stored = _stored(engine, job, 10_000 if entry.complete else len(entry.runs))
        assert _view(entry.runs) == _view(stored)
    return used


def late(n: int, hour: int, **load: Any) -> list[dict[str, Any]]:
    """Hour ``hour``'s load run under run number ``n`` (its report run left out)."""
    events = day(hour, **load)[:2]
    return [{**e, "run": {**e["run"], "runId": run_id(n)}} for e in events]


def test_the_cached_histories_are_the_stores_after_every_write(store: Engine) -> None:
    fx = [raw(), dataset(DS, "fx")]
    writes = [[e for h in range(s, s + 10) for e in day(h)] for s in range(0, 50, 10)]
    writes += [day(50, inputs=fx), day(51, rows=50), day(52, state="FAIL", error="boom")]
    writes += [day(53)[:1], day(53)[1:]]  # a START, then its end with the report run
    # ended runs ordered among older ones: within what the cache holds (hours 14-53), then
    # below it (the store is read again), then older than every run
    writes += [late(900, 51, rows=7), late(901, 15, rows=7), late(902, -5)]
    # a late event of an ended run the cache does not hold (901) moves it to the top
    # a late event of an ended run the cache does not hold moves it to the top: alone (901's
    # START, later than its end), then with runs of the job that end (902's)
    writes += [late(901, 54, rows=7)[:1], day(55), late(902, 56)[:1] + day(57)]
    for events in writes:
        ingest(store, events)
        assert_cache_is_the_store(store)
    assert assert_cache_is_the_store(store) == 2  # both jobs' histories are cached and used
    # a run ended late is checked against the 20 before it when it is among the job's newest
    # (900); one older than those (901: the newest 21 are read when the cache cannot serve) is not
    volume = [a["runId"] for a in alerts_of(store, "volume-anomaly")]
    assert sorted(volume) == [run_id(2 * 51 + 1), run_id(900)]
    assert {a["kind"] for a in alerts_of(store)} == {
        "new-edge",
        "volume-anomaly",
        "failure-after-success",
    }


def test_a_run_that_another_writer_stored_is_not_missed(store: Engine) -> None:
    for hour in range(6):
        ingest(store, day(hour))
    # another process's writer: its failure is stored, this writer's cache never saw it
    other = StoreWriter(store)
    other.normalizer.on_alerts = writer_for(store).normalizer.on_alerts
    other.write([parse_event(e) for e in day(6, state="FAIL", error="boom")])
    assert [a["kind"] for a in alerts_of(store)] == ["failure-after-success"]
    # a second failure follows a failure: nothing (a stale history would see six successes)
    ingest(store, day(7, state="FAIL", error="boom again"))
    assert [a["kind"] for a in alerts_of(store)] == ["failure-after-success"]
    assert assert_cache_is_the_store(store) == 2


def test_a_jobs_history_is_read_without_the_other_jobs_runs_on_postgres(
    pg_engine: Engine,
) -> None:
    """Reading one job's last runs touches that job's runs, not the whole runs table nor the
    cutoff once per run (issue 30: the plain join did both, a cost growing with the store). The
    counters are this transaction's own (``pg_stat_xact_user_tables``)."""
    from store_summary import run_event

    events = []
    for n in range(80):
        job = "a" if n % 2 else "b"
        uuid = f"00000000-0000-4000-8000-{n:012d}"
        for step, kind in enumerate(("START", "COMPLETE")):
            at = f"2024-01-01T{n // 60:02d}:{n % 60:02d}:{step:02d}Z"
            events.append(run_event(uuid, kind, at, job=job, outputs=[dataset("w", job)]))
    ingest(pg_engine, events)
    read_runs = sa.text(
        "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)"
        " FROM pg_stat_xact_user_tables WHERE relname = 'runs'"
    )
    with pg_engine.connect() as conn:
        job = conn.execute(sa.select(jobs.c.id).where(jobs.c.name == "a")).scalar_one()
        before = conn.execute(read_runs).scalar_one()
        history = run_history._read(conn, {job: 3})[job]
        read = conn.execute(read_runs).scalar_one() - before
    assert [r.uuid[-2:] for r in history] == ["79", "77", "75"]
    # job a's 40 runs for its cutoff (at most) and its 3 newest: never the 80 of both jobs
    assert read <= 45, read
