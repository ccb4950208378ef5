"""A dataset's version as of a time, for a run reading it: the newest version made by then
(``created_at``, ties by id) by a run that completed (or by no run), other than the reader
(:mod:`plumbline.store.write.input_versions` says why)."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import dataset_versions, runs


def version_as_of(
    dataset_id: sa.ColumnElement[Any], at: sa.ColumnElement[Any], reader: sa.ColumnElement[Any]
) -> sa.ScalarSelect[Any]:
    """The id of the dataset's version as of ``at``, for the run ``reader`` (a scalar subquery)."""
    dv, writer = dataset_versions, runs.alias("writer")
    return (
        sa.select(dv.c.id)
        .select_from(dv.outerjoin(writer, writer.c.uuid == dv.c.run_uuid))
        .where(
            dv.c.dataset_id == dataset_id,
            dv.c.created_at <= at,
            sa.or_(
                writer.c.id.is_(None),
                sa.and_(writer.c.current_state == "COMPLETE", writer.c.id != reader),
            ),
        )
        .order_by(dv.c.created_at.desc(), dv.c.id.desc())
        .limit(1)
        .scalar_subquery()
    )


# version_as_of for many (dataset, read time, reader) at once: one statement, the rows as arrays
# (PostgreSQL) or a JSON array (SQLite); the same conditions as version_as_of
_PICK = """(SELECT dv.id FROM dataset_versions dv LEFT JOIN runs wr ON wr.uuid = dv.run_uuid
             WHERE dv.dataset_id = {d} AND dv.created_at <= {t}
               AND (wr.id IS NULL OR (wr.current_state = 'COMPLETE' AND wr.id <> {r}))
             ORDER BY dv.created_at DESC, dv.id DESC LIMIT 1)"""
_MANY = {
    "postgresql": sa.text(
        f"SELECT w.n, {_PICK.format(d='w.d', t='w.t', r='w.r')}"  # noqa: S608
        " FROM unnest(CAST(:ds AS BIGINT[]), CAST(:ts AS TIMESTAMPTZ[]), CAST(:rs AS BIGINT[]))"
        " WITH ORDINALITY AS w(d, t, r, n)"
    ),
    "sqlite": sa.text(
        "SELECT CAST(j.key AS INTEGER) + 1, "  # noqa: S608
        + _PICK.format(
            d="json_extract(j.value, '$[0]')",
            t="json_extract(j.value, '$[1]')",
            r="json_extract(j.value, '$[2]')",
        )
        + " FROM json_each(:rows) j"
    ),
}


def versions_as_of(connection: Connection, wanted: list[tuple[int, Any, int]]) -> list[int | None]:
    """The version as of each (dataset id, aware read time, reading run id), as the store stands,
    in one statement: :func:`version_as_of` for many at once."""
    if not wanted:
        return []
    if connection.dialect.name == "sqlite":
        rows = [
            [d, t.astimezone(UTC).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f"), r]
            for d, t, r in wanted
        ]  # SQLAlchemy's own SQLite time format, as stored
        params: dict[str, Any] = {"rows": json.dumps(rows)}
        statement = _MANY["sqlite"]
    else:
        params = {
            "ds": [d for d, _, _ in wanted],
            "ts": [t for _, t, _ in wanted],
            "rs": [r for _, _, r in wanted],
        }
        statement = _MANY["postgresql"]
    by_n = {int(n): v for n, v in connection.execute(statement, params)}
    return [by_n[n] for n in range(1, len(wanted) + 1)]
