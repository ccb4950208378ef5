"""The store owns all SQL: no module outside ``plumbline/store`` builds or runs a statement.

Other packages may hold a ``Connection`` or ``Engine`` (as a type, to pass to the store's functions)
and catch ``sqlalchemy.exc`` errors; everything else of SQLAlchemy (``select``, ``text``, tables,
columns) and the store's schema stays inside the store. One owner of SQL execution, as datasette has.
"""

from __future__ import annotations

import ast

from store_fence import violations_outside_store

# what may be imported from SQLAlchemy outside the store: handles and errors, never statements
ALLOWED = {"sqlalchemy.engine": {"Connection", "Engine"}, "sqlalchemy.exc": None}
SCHEMA_MODULES = {"plumbline.store.schema"}


def _violations(source: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, name)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sqlalchemy" or alias.name in SCHEMA_MODULES:
                    found.append(f"{where}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            module = node.module
            names = {alias.name for alias in node.names}
            if module == "plumbline.store" and "schema" in names or module in SCHEMA_MODULES:
                found.append(f"{where}: from {module} import {', '.join(sorted(names))}")
            elif module.split(".")[0] == "sqlalchemy":
                allowed = ALLOWED.get(module, set())
                if allowed is not None and not names <= allowed:
                    found.append(f"{where}: from {module} import {', '.join(sorted(names))}")
    return found


def test_no_sql_outside_the_store() -> None:
    found = violations_outside_store(_violations)
    assert found == [], "SQL belongs in plumbline/store:\n" + "\n".join(found)


def test_the_scan_catches_statements_and_tables() -> None:
    probe = (
        "import sqlalchemy as sa\n"
        "from sqlalchemy import text\n"
        "from sqlalchemy.engine import Connection, make_url\n"
        "from sqlalchemy.exc import OperationalError\n"
        "from plumbline.store.schema import outbox\n"
        "from plumbline.store import schema\n"
        "def f(engine: Connection) -> None:\n"
        "    from sqlalchemy.sql import select\n"
    )
    assert [v.split(": ", 1)[1] for v in _violations(probe, "probe.py")] == [
        "import sqlalchemy",
        "from sqlalchemy import text",
        "from sqlalchemy.engine import Connection, make_url",
        "from plumbline.store.schema import outbox",
        "from plumbline.store import schema",
        "from sqlalchemy.sql import select",
    ]
