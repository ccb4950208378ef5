"""A store recorded by the code of one revision, to hold later code to the same answers (issue 30:
the column-lineage history moved from one row per run and column edge to shared shapes).

``tests/store/data/recorded_store_0017.json`` was written by ``python tests/store/recorded_store.py``
at main 7544ea2 (store revision 0017, ``run_column_lineage`` holding one row per run and column
edge). It holds:

- ``dump``: every table's rows as that code wrote them for :func:`batches`, which
  :func:`load` puts into a store migrated to 0017 (either backend);
- ``answers``: what the lineage SQL tables (every ``plumbline_*`` view) and the analyses
  (table and column lineage walks) answered on that store, then after ``db prune``.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sqltables"))

from scenario import events as pipeline_events  # noqa: E402
from scenario import later_events  # noqa: E402
from store_summary import column_lineage, dataset, ingest, load_golden, run_event  # noqa: E402

from plumbline.lineage_tables import TABLES  # noqa: E402
from plumbline.store.read.column_lineage import get_column_lineage  # noqa: E402
from plumbline.store.read.lineage import get_lineage  # noqa: E402
from plumbline.store.read.sql_tables import table_rows  # noqa: E402

RECORDED = Path(__file__).with_name("data") / "recorded_store_0017.json"
PRUNE_BEFORE = datetime(2024, 1, 2, tzinfo=UTC)
# what a store makes up itself (uuid4 ids, its own clock): differs between two stores written
# from the same events, not between a recorded store and its migration
STORE_MADE = {"entity_id", "job_id", "dataset_id", "parent_job_id", "created_at", "updated_at"}


def _drifting() -> list[list[dict[str, Any]]]:
    """A run whose START names one column edge and whose COMPLETE, in a later request, names
    another and the first again; a run with two outputs; a run whose facet repeats a field."""
    src = ("file", "/drift/src")
    one = column_lineage({"a": [(*src, "x", "DIRECT", "IDENTITY")]})
    two = column_lineage(
        {"a": [(*src, "x", "DIRECT", "IDENTITY")], "b": [(*src, "y", "DIRECT", "TRANSFORMATION")]},
        [(*src, "z", "INDIRECT", "SORT")],
    )
    out = ("file", "/drift/out")
    other = ("file", "/drift/other")
    run_a, run_b = "00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000b1"
    return [
        [
            run_event(run_a, "START", "2024-01-01T12:00:00Z", job="drift",
                      inputs=[dataset(*src)], outputs=[dataset(*out, columnLineage=one)]),
        ],
        [
            run_event(run_a, "COMPLETE", "2024-01-01T12:00:09Z", job="drift",
                      inputs=[dataset(*src)], outputs=[dataset(*out, columnLineage=two)]),
            run_event(run_b, "START", "2024-01-02T12:00:00Z", job="fan",
                      inputs=[dataset(*src)],
                      outputs=[dataset(*out, columnLineage=one), dataset(*other, columnLineage=two)]),
            run_event(run_b, "COMPLETE", "2024-01-02T12:00:03Z", job="fan",
                      inputs=[dataset(*src)], outputs=[dataset(*out, columnLineage=one)]),
        ],
        [
            run_event("00000000-0000-4000-8000-0000000000a2", "COMPLETE",
                      "2024-01-02T13:00:00Z", job="drift",
                      inputs=[dataset(*src)], outputs=[dataset(*out, columnLineage=one)]),
        ],
    ]  # fmt: skip


def batches() -> list[list[dict[str, Any]]]:
    """The requests the recorded store was written from, in order."""
    return [pipeline_events(), later_events(), load_golden("shop_pipeline.json"), *_drifting()]


def write(engine: Engine) -> None:
    """Write :func:`batches` into a migrated store, one request each."""
    for documents in batches():
        ingest(engine, documents)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        return {"hex": bytes(value).hex()}
    if isinstance(value, dict | list):
        return json.loads(json.dumps(value, default=str))
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _sortable(row: list[Any]) -> tuple[tuple[bool, str], ...]:
    return tuple((v is not None, json.dumps(v, sort_keys=True)) for v in row)


# what the lineage tables gained after the recording (0017): the recorded answers hold neither,
# so the store is read, whatever its revision, for the tables and columns it had then
ADDED_SINCE_RECORDING = {"stream_batch_lineage"}
COLUMNS_ADDED_SINCE_RECORDING = {"edge_source", "completeness"}


def views(engine: Engine, *, with_store_made: bool = True) -> dict[str, list[list[Any]]]:
    """Every lineage table's rows (as its ``plumbline_*`` view holds them, in the columns it had
    when the store was recorded), sorted."""
    found: dict[str, list[list[Any]]] = {}
    with engine.connect() as conn:
        for table, columns in TABLES.items():
            if table in ADDED_SINCE_RECORDING:
                continue
            names = [
                n
                for n, _ in columns
                if (with_store_made or n not in STORE_MADE)
                and n not in COLUMNS_ADDED_SINCE_RECORDING
            ]
            rows = [[_plain(row[n]) for n in names] for row in table_rows(conn, table, names)]
            found[table] = sorted(rows, key=_sortable)
    return found


_WALKS = [
    ("dataset:file:/warehouse/clean", False),
    ("dataset:file:/drift/out", False),
    ("datasetField:file:/warehouse/clean:total", True),
    ("datasetField:file:/drift/out:b", True),
    ("datasetField:file:/drift/src:x", True),
]


def _named(graph: Any) -> Any:
    """A lineage answer without the store's own ids and clock: node ids and edges, sorted."""
    nodes = []
    for node in graph["graph"]:
        edges = sorted(
            (e["origin"], e["destination"])
            for e in node.get("inEdges", []) + node.get("outEdges", [])
        )
        nodes.append([node["id"], node["type"], edges])
    return {"graph": sorted(nodes), "truncated": graph["truncated"]}


def analyses(engine: Engine) -> dict[str, Any]:
    """The table and column lineage walks around a few nodes, by name."""
    answers: dict[str, Any] = {}
    with engine.connect() as conn:
        for node_id, columns in _WALKS:
            graph = (
                get_column_lineage(conn, node_id, 5, True, 1000)
                if columns
                else get_lineage(conn, node_id, 5, 1000)
            )
            answers[node_id] = _named(graph)
    return answers


def answers(engine: Engine, *, with_store_made: bool = True) -> dict[str, Any]:
    found = {
        "views": views(engine, with_store_made=with_store_made),
        "analyses": analyses(engine),
    }
    return json.loads(json.dumps(found))  # as recorded: lists, not tuples


def dump(engine: Engine) -> dict[str, Any]:
    """Every table's rows, in key order, JSON-safe."""
    found: dict[str, Any] = {}
    with engine.connect() as conn:
        reflected = sa.MetaData()
        reflected.reflect(conn)
        for table in reflected.sorted_tables:
            if table.name == "alembic_version":
                continue
            order = list(table.primary_key.columns) or list(table.columns)
            rows = conn.execute(sa.select(table).order_by(*order)).all()
            found[table.name] = {
                "columns": [c.name for c in table.columns],
                "rows": [[_plain(v) for v in row] for row in rows],
            }
    return found


def _value(column: sa.Column[Any], value: Any) -> Any:
    if value is None:
        return None
    kind = column.type
    if isinstance(value, dict) and set(value) == {"hex"}:
        return bytes.fromhex(value["hex"])
    if isinstance(kind, sa.Boolean):
        return bool(value)
    if isinstance(kind, sa.DateTime):
        return datetime.fromisoformat(value)
    if isinstance(kind, sa.JSON):
        return value
    if isinstance(value, dict | list):  # JSON held as text
        return json.dumps(value)
    return value


def load(engine: Engine, recorded: dict[str, Any]) -> None:
    """Put the recorded rows into a store migrated to the recorded revision (ids kept)."""
    with engine.begin() as conn:
        reflected = sa.MetaData()
        reflected.reflect(conn)
        for table in reflected.sorted_tables:
            part = recorded.get(table.name)
            if not part or not part["rows"]:
                continue
            columns = [table.c[name] for name in part["columns"]]
            rows = [
                {c.name: _value(c, v) for c, v in zip(columns, row, strict=True)}
                for row in part["rows"]
            ]
            conn.execute(table.insert(), rows)
            if engine.dialect.name == "postgresql" and "id" in table.c:
                conn.execute(
                    sa.text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'),"  # noqa: S608
                        f" (SELECT MAX(id) FROM {table.name}))"
                    )
                )


def record(path: Path = RECORDED) -> None:
    """Write the recorded store with the code at hand (run once, by hand)."""
    import tempfile

    from plumbline.store.engine import create_store_engine
    from plumbline.store.migrate import current_revision, upgrade
    from plumbline.store.write.prune import prune

    with tempfile.TemporaryDirectory() as tmp:
        engine = create_store_engine(f"sqlite:///{tmp}/store.db")
        upgrade(engine)
        write(engine)
        recorded = {
            "revision": current_revision(engine),
            "dump": dump(engine),
            "answers": answers(engine),
        }
        prune(engine, PRUNE_BEFORE)
        recorded["pruned"] = answers(engine)
        engine.dispose()
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(recorded, indent=None, sort_keys=True) + "\n")


if __name__ == "__main__":
    record()
