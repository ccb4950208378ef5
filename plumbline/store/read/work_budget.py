"""The work budget of one analysis read (issue 28 item 5): the rows it may read from the store.

Walks stop at the node cap (nodes visited); what they then read about the nodes (edges, runs,
versions, facts) is counted here, in rows. An analysis route runs its analysis inside
:func:`work_budget`; the reads that can return many rows go through :func:`read_rows`, which
asks the database for no more rows than the budget has left (``LIMIT``, so neither the database
nor this process holds more) and charges what came back. Once spent, every later read returns
nothing more, the analysis answers with what it has, and the route says so (:meth:`WorkBudget.mark`:
``truncated`` true, ``truncatedReason`` ``"work budget"``). Outside a budget (the CLI on a
store, tests, other routes) :func:`read_rows` reads everything, as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

# rows one analysis read may read (ServerSettings.max_analysis_rows)
DEFAULT_MAX_ANALYSIS_ROWS = 500_000

NODE_CAP = "node cap"
WORK_BUDGET = "work budget"


@dataclass
class WorkBudget:
    """Rows an analysis may still read, and whether a read was cut short for lack of them."""

    rows: int
    read: int = 0
    spent: bool = False

    @property
    def left(self) -> int:
        return max(self.rows - self.read, 0)

    def mark(self, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer`` with ``truncated`` and ``truncatedReason`` (``"work budget"`` when this
        budget cut a read short, else ``"node cap"`` when the answer says it was truncated,
        else null): the one shape every analysis answer has."""
        if self.spent:
            answer["truncated"], answer["truncatedReason"] = True, WORK_BUDGET
        else:
            truncated = bool(answer.get("truncated"))
            answer["truncated"] = truncated
            answer["truncatedReason"] = answer.get("truncatedReason") or (
                NODE_CAP if truncated else None
            )
        return answer


_CURRENT: ContextVar[WorkBudget | None] = ContextVar("plumbline_work_budget", default=None)


@contextmanager
def work_budget(rows: int) -> Iterator[WorkBudget]:
    """Run the reads of this block (in this thread) within a budget of ``rows``."""
    budget = WorkBudget(rows=max(rows, 1))
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def budget_spent() -> bool:
    """Whether the current budget (if any) has cut a read short."""
    budget = _CURRENT.get()
    return budget is not None and budget.spent


def read_rows(
    conn: Connection,
    statement: sa.Select[Any] | sa.CompoundSelect[Any],
    params: Mapping[str, Any] | None = None,
) -> Sequence[Any]:
    """The rows of ``statement``: all of them outside a budget; within one, at most the rows it
    has left (the rest never read), charged to it. ``statement`` must carry no LIMIT of its own."""
    budget = _CURRENT.get()
    if budget is None:
        return conn.execute(statement, dict(params or {})).all()
    if budget.spent:
        return []
    rows = conn.execute(statement.limit(budget.left + 1), dict(params or {})).all()
    if len(rows) > budget.left:
        rows = rows[: budget.left]
        budget.spent = True
    budget.read += len(rows)
    return rows
