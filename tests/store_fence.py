"""What the store's fences scan: every module of the package outside ``plumbline/store``, each
read once and handed to a test's own rule (tests/test_sql_ownership.py, tests/test_store_units.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import plumbline

PACKAGE = Path(plumbline.__file__).parent
STORE = PACKAGE / "store"


def violations_outside_store(rule: Callable[[str, str], list[str]]) -> list[str]:
    """``rule(source, where)`` over every module outside the store; what it found."""
    modules = [p for p in sorted(PACKAGE.rglob("*.py")) if STORE not in p.parents]
    assert len(modules) > 50  # the scan really sees the package
    return [
        violation
        for path in modules
        for violation in rule(
            path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent))
        )
    ]
