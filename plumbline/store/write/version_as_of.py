"""A dataset's version as of a time, for a run reading it: the newest version made by then
(``created_at``, ties by id) by a run that completed (or by no run), other than the reader
(:mod:`plumbline.store.write.input_versions` says why)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import dataset_versions, run_io, runs


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


_AS_OF_CHUNK = 50  # scalar subqueries per statement (SQLite allows 500 compound terms)


def versions_as_of(connection: Connection, wanted: list[tuple[int, Any, int]]) -> list[int | None]:
    """The version as of each (dataset id, read time, reading run id), as the store stands
    (one statement per 50)."""
    found: list[int | None] = []
    for start in range(0, len(wanted), _AS_OF_CHUNK):
        part = wanted[start : start + _AS_OF_CHUNK]
        statement = sa.union_all(
            *(
                sa.select(
                    sa.literal(n, sa.Integer).label("n"),
                    version_as_of(
                        sa.literal(dataset_id, run_io.c.dataset_id.type),
                        sa.literal(read_at, run_io.c.read_at.type),
                        sa.literal(run_id, run_io.c.run_id.type),
                    ).label("v"),
                )
                for n, (dataset_id, read_at, run_id) in enumerate(part)
            )
        )
        by_n = {int(n): v for n, v in connection.execute(statement)}
        found.extend(by_n[n] for n in range(len(part)))
    return found
