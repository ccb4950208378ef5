"""The store owns its units of work: outside ``plumbline/store`` no module opens a connection,
begins a transaction, makes an engine or branches on the database's dialect.

Other packages hold a :class:`plumbline.store.Store` (``app.state.store`` in the server) and ask it
for a unit of work (``store.reading()``, ``store.writing()``, ``store.snapshot()``,
``store.read(fn)``, ``store.write(fn)``); whatever differs between SQLite and PostgreSQL is
decided inside the store. The companion of ``tests/test_sql_ownership.py`` (the store owns SQL).
"""

from __future__ import annotations

import ast

from store_fence import STORE, violations_outside_store

# methods that open a connection or a transaction, or set its isolation: the store's to call
UNIT_METHODS = {"begin", "begin_nested", "connect", "execution_options"}
# store functions that decide by dialect or make an engine: the handle hides them
STORE_ONLY = {"create_store_engine", "is_sqlite", "get_backend_name"}


def _violations(source: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, name)):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in UNIT_METHODS:
                found.append(f"{where}: .{node.func.attr}() (ask the Store for a unit of work)")
        if isinstance(node, ast.Attribute):
            if node.attr == "dialect":
                found.append(f"{where}: .dialect (the store decides by dialect)")
            elif node.attr == "engine" and isinstance(node.value, ast.Attribute):
                if node.value.attr == "state":
                    found.append(f"{where}: app.state.engine (use app.state.store)")
            elif node.attr in STORE_ONLY:
                found.append(f"{where}: .{node.attr}")
        if isinstance(node, ast.Name) and node.id in STORE_ONLY:
            found.append(f"{where}: {node.id}")
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in STORE_ONLY:
                    found.append(f"{where}: import {alias.name}")
    return found


def test_units_of_work_belong_to_the_store() -> None:
    found = violations_outside_store(_violations)
    assert found == [], "units of work belong to plumbline/store:\n" + "\n".join(found)


def test_the_store_itself_is_where_they_are() -> None:
    """The scan is not vacuous: the store's own modules do all of it."""
    handle = (STORE / "handle.py").read_text(encoding="utf-8")
    kinds = {v.split(": ", 1)[1].split(" ")[0] for v in _violations(handle, "handle.py")}
    assert {".begin()", ".connect()", ".execution_options()", ".dialect"} <= kinds


def test_the_scan_catches_connections_transactions_and_dialects() -> None:
    probe = (
        "from plumbline.store import create_store_engine, is_sqlite\n"
        "def f(request, engine, conn) -> None:\n"
        "    with request.app.state.engine.connect() as c:\n"
        "        pass\n"
        "    with engine.begin() as c:\n"
        "        pass\n"
        "    if conn.dialect.name == 'postgresql':\n"
        "        conn.execution_options(isolation_level='AUTOCOMMIT')\n"
        "    with request.app.state.store.reading() as c:\n"  # the way: not flagged
        "        pass\n"
    )
    assert sorted(v.split(": ", 1)[1] for v in _violations(probe, "probe.py")) == sorted(
        [
            "import create_store_engine",
            "import is_sqlite",
            ".connect() (ask the Store for a unit of work)",
            ".begin() (ask the Store for a unit of work)",
            ".execution_options() (ask the Store for a unit of work)",
            "app.state.engine (use app.state.store)",
            ".dialect (the store decides by dialect)",
        ]
    )
