"""Golden events in, expected store out: the same state whether the events come as one batch, one
by one in arrival order, or twice (idempotency), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.engine import Engine
from store_summary import GOLDEN_DIR, ingest, load_golden, official_check, summary

EVENTS = "shop_pipeline.json"
EXPECTED = json.loads((GOLDEN_DIR / "shop_pipeline.expected.json").read_text())


def _assert_matches_expected(engine: Engine) -> None:
    actual = summary(engine)
    for section, expected in EXPECTED.items():
        assert actual[section] == expected, f"section {section!r} differs"


def test_golden_events_follow_the_official_schema(spec_dir: Path) -> None:
    assert official_check(spec_dir, load_golden(EVENTS)) == []


def test_golden_events_as_one_batch(engine: Engine) -> None:
    result = ingest(engine, load_golden(EVENTS))
    assert (len(result.stored), result.duplicates) == (9, 1)
    _assert_matches_expected(engine)


def test_golden_events_one_by_one_in_arrival_order(engine: Engine) -> None:
    stored = [len(ingest(engine, [event]).stored) for event in load_golden(EVENTS)]
    assert stored == [1, 1, 1, 1, 1, 1, 1, 1, 1, 0]  # the last one repeats the third
    _assert_matches_expected(engine)


def test_golden_events_twice_change_nothing(engine: Engine) -> None:
    ingest(engine, load_golden(EVENTS))
    first = summary(engine)
    again = ingest(engine, load_golden(EVENTS))
    assert (len(again.stored), again.duplicates) == (0, 10)
    for event in load_golden(EVENTS):
        ingest(engine, [event])
    assert summary(engine) == first
