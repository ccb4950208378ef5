"""The ``[classifications]`` table of the server's config file (issue 32 §1)::

[classifications]
indirect = ["JOIN"]            # INDIRECT subtypes that propagate too (default: none)

[[classifications.rules]]      # classify a column the moment it appears
tag = "pii.email"
column = ".*e_?mail.*"         # regular expression, full match, case-insensitive
namespace = "postgres://*"     # glob (default "*")
value = "email"                # optional tag value
"""

from __future__ import annotations

from typing import Any

from plumbline.store.write.classification_rules import ClassificationRules, ColumnRule

_KEYS = frozenset({"indirect", "rules"})
_RULE_KEYS = frozenset({"tag", "column", "namespace", "value"})


def classification_settings(table: Any) -> ClassificationRules:
    """:class:`ClassificationRules` from the table; ValueError with the reason."""
    if not isinstance(table, dict):
        raise ValueError("[classifications] must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise ValueError(
            f"unknown [classifications] key(s) {', '.join(sorted(unknown))} "
            f"(known: {', '.join(sorted(_KEYS))})"
        )
    indirect = table.get("indirect", [])
    if not isinstance(indirect, list) or not all(isinstance(v, str) for v in indirect):
        raise ValueError("[classifications] indirect must be a list of INDIRECT subtypes")
    raw_rules = table.get("rules", [])
    if not isinstance(raw_rules, list):
        raise ValueError("[classifications] rules must be an array of tables")
    rules = []
    for raw in raw_rules:
        if not isinstance(raw, dict) or set(raw) - _RULE_KEYS:
            raise ValueError(
                f"[[classifications.rules]] takes the keys {', '.join(sorted(_RULE_KEYS))}"
            )
        if not all(isinstance(v, str) for v in raw.values()) or not {"tag", "column"} <= set(raw):
            raise ValueError("[[classifications.rules]] needs tag and column, all strings")
        rules.append(ColumnRule(**raw))
    return ClassificationRules(indirect=frozenset(indirect), rules=tuple(rules))
