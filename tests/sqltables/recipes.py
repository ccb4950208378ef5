"""The SQL recipes of docs/sql-recipes.md, read from the page, and what each answers on the
scenario's pipeline (shared by the store and Spark tests)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scenario import run_uuid

PAGE = Path(__file__).resolve().parents[2] / "docs" / "sql-recipes.md"
RECURSIVE = "Everything upstream of a table, any number of hops"


def recipes() -> dict[str, str]:
    """{title: SQL} in page order."""
    found = re.findall(r"^### (.+?)\n.*?```sql\n(.*?)```", PAGE.read_text(), re.S | re.M)
    return {title.strip(): sql.strip() for title, sql in found}


EXPECTED: dict[str, list[tuple[Any, ...]]] = {
    "What feeds this table": [("file", "/data/raw", "clean")],
    "What reads this column": [("/warehouse/clean", "total", "AGGREGATION", "clean")],
    "Jobs that wrote to a table they never wrote before, this week": [
        ("pipeline", "audit", "file", "/audit")
    ],
    "Tables without a known producer": [
        ("postgres://db:5432", "shop.public.customers", "shop.public.customers")
    ],
    "Runs that read snapshot X": [
        (run_uuid(2), "pipeline", "clean", "COMPLETE"),
        (run_uuid(4), "pipeline", "clean", "COMPLETE"),
    ],
    "Which snapshots of its sources produced a snapshot": [
        ("file", "/data/raw", "snap-11", "snap-11")
    ],
    "Which snapshots came from a bad snapshot": [
        ("file", "/warehouse/clean", None, run_uuid(2), run_uuid(2)),
        ("file", "/warehouse/clean", None, run_uuid(4), run_uuid(4)),
    ],
    "Which Kafka offsets ended up in a table version": [
        ("orders", 0, 500, 1200, 1),
        ("orders", 3, 900, 1600, 1),
    ],
    "Which table versions hold the records of a partition's offsets": [
        ("file", "/lake/orders", "57", 1),
        ("file", "/lake/orders", "58", 2),
    ],
    "The most depended-on tables": [
        ("file", "/warehouse/clean", 2, 2),
        ("file", "/data/raw", 1, 2),
        ("postgres://db:5432", "shop.public.customers", 1, 1),
    ],
    RECURSIVE: [("file", "/warehouse/clean", 1), ("file", "/data/raw", 2)],
}


def for_spark(sql: str, database: str = "plumbline") -> str:
    """A recipe with the store's view names as Spark tables (``plumbline_x`` -> ``db.x``)."""
    return re.sub(r"\bplumbline_(\w+)", rf"{database}.\1", sql)
