"""How an upsert keeps an edge's confidence (issue 31 §2): the newest report wins.

An edge row holds who reported it most recently (``edge_source``) and the completeness that
report stated (``completeness``, ``completeness_reasons``); an event that states no completeness
leaves the stored one as it is. Older events (by ``last_seen``) change neither. The expressions
bind nothing (``execute_many``'s statements bind only rows).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from plumbline.openlineage.confidence import DECLARED

COLUMNS = ("edge_source", "completeness", "completeness_reasons")


def _newer(table: sa.Table, excluded: Any) -> Any:
    """A newer report, unless it only declares an edge something observed (a declared edge
    never hides how an observed one is known)."""
    declared: sa.ColumnClause[str] = sa.literal_column(f"'{DECLARED}'")
    return sa.and_(
        excluded.last_seen >= table.c.last_seen,
        sa.or_(
            excluded.edge_source != declared,
            table.c.edge_source.is_(None),
            table.c.edge_source == declared,
        ),
    )


def confidence_update(table: sa.Table, excluded: Any) -> dict[str, Any]:
    """The ``SET`` of an edge upsert's confidence columns."""
    newer = _newer(table, excluded)
    stated = sa.and_(newer, excluded.completeness.is_not(None))
    return {
        "edge_source": sa.case((newer, excluded.edge_source), else_=table.c.edge_source),
        "completeness": sa.case((stated, excluded.completeness), else_=table.c.completeness),
        "completeness_reasons": sa.case(
            (stated, excluded.completeness_reasons), else_=table.c.completeness_reasons
        ),
    }


def confidence_changed(table: sa.Table, excluded: Any) -> Any:
    """Whether the upsert changes the stored confidence (part of its ``WHERE``)."""
    return sa.and_(
        _newer(table, excluded),
        sa.or_(
            excluded.edge_source.is_distinct_from(table.c.edge_source),
            sa.and_(
                excluded.completeness.is_not(None),
                sa.or_(
                    excluded.completeness.is_distinct_from(table.c.completeness),
                    excluded.completeness_reasons.is_distinct_from(table.c.completeness_reasons),
                ),
            ),
        ),
    )
