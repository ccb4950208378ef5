"""What classifications follow (issue 32 §1), one value object the server builds from its config
(``[classifications]``): which INDIRECT column edges propagate a tag, and the rules that classify
a column the moment it appears (a column-name pattern, a namespace pattern).

The rules belong to an engine (:func:`use_rules`): every unit of work on that engine's
connections, the writer's and the routes', propagates with the same rules.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from sqlalchemy.engine import Connection, Engine

INDIRECT_SUBTYPES = frozenset({"JOIN", "GROUP_BY", "FILTER", "SORT", "WINDOW", "CONDITIONAL"})


@dataclass(frozen=True)
class ColumnRule:
    """Classify as ``tag`` (``value``) every column whose name fully matches ``column`` (a
    regular expression, case-insensitive) in a namespace matching ``namespace`` (a glob)."""

    tag: str
    column: str
    namespace: str = "*"
    value: str = ""
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.tag or len(self.tag) > 255:
            raise ValueError("a rule's tag must be 1 to 255 characters")
        if len(self.column) > 1000 or len(self.namespace) > 1000:
            raise ValueError("a rule's patterns must be at most 1000 characters")
        try:
            object.__setattr__(self, "pattern", re.compile(self.column, re.IGNORECASE))
        except re.error as exc:
            raise ValueError(f"rule column pattern {self.column!r}: {exc}") from exc

    def matches(self, namespace: str, column: str) -> bool:
        """Whether the rule classifies ``column`` of a dataset in ``namespace``."""
        return fnmatchcase(namespace, self.namespace) and self.pattern.fullmatch(column) is not None


@dataclass(frozen=True)
class ClassificationRules:
    """``indirect``: the INDIRECT subtypes whose edges propagate too (DIRECT edges always do, but
    those marked ``masking``); ``rules``: the column rules (at most 1000)."""

    indirect: frozenset[str] = frozenset()
    rules: tuple[ColumnRule, ...] = ()

    def __post_init__(self) -> None:
        unknown = set(self.indirect) - INDIRECT_SUBTYPES
        if unknown:
            raise ValueError(
                f"indirect: unknown subtypes {sorted(unknown)}; known: {sorted(INDIRECT_SUBTYPES)}"
            )
        if len(self.rules) > 1000:
            raise ValueError("at most 1000 classification rules")

    def propagates(self, kind: str, subtype: str, masking: bool) -> bool:
        """Whether an edge of this transformation carries a classification downstream."""
        if masking:
            return False
        if kind in ("DIRECT", ""):  # "": an older producer's edge, no transformation given
            return True
        return kind == "INDIRECT" and subtype in self.indirect


DEFAULT = ClassificationRules()
_BY_ENGINE: weakref.WeakKeyDictionary[Engine, ClassificationRules] = weakref.WeakKeyDictionary()


def use_rules(engine: Engine, rules: ClassificationRules) -> None:
    """Propagate with ``rules`` on every connection of ``engine`` (the server's config)."""
    _BY_ENGINE[engine] = rules


def rules_of(connection: Connection) -> ClassificationRules:
    """The rules of ``connection``'s engine (:data:`DEFAULT` unless set)."""
    return _BY_ENGINE.get(connection.engine, DEFAULT)
