"""Event logs use the capture through one surface, and Catalyst's class names live in one module.

`plumbline.eventlogs` may import `plumbline.spark.surface` only (its docstring says what event-log
extraction may use); every Spark class name plumbline matches on or builds nodes of is declared in
`plumbline/spark/vocabulary.py`, nowhere else in `plumbline.spark` and `plumbline.eventlogs`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from plumbline.spark import vocabulary

ROOT = Path(__file__).resolve().parents[2] / "plumbline"
CAMEL = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+$")  # two capitals at least: a class
# CamelCase strings that are no Spark class: JSON keys of a log's events and of an object store's
# listing, a key of a formatted plan description
NOT_CLASSES = {"JobFailed", "LastModified", "ReadSchema"}


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).glob("*.py"))


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names]
    return found


def test_eventlogs_import_the_capture_through_its_surface_only() -> None:
    reached = {
        (path.name, name)
        for path in _modules("eventlogs")
        for name in _imports(path)
        if name.startswith("plumbline.spark")
        and name != "plumbline.spark"
        and not name.startswith("plumbline.spark.surface")
    }
    assert reached == set(), f"eventlogs reach into plumbline.spark: {sorted(reached)}"
    assert any("plumbline.spark.surface" in _imports(path) for path in _modules("eventlogs")), (
        "the check found no import at all: is it reading the right files?"
    )


def _vocabulary_names() -> set[str]:
    """Every class name (and name prefix) vocabulary.py declares."""
    found: set[str] = set(vocabulary.OUTPUT_COMMANDS)
    for name, value in vars(vocabulary).items():
        if name.startswith("__"):
            continue
        items = value if isinstance(value, (frozenset, set, tuple, dict)) else [value]
        found.update(item for item in items if isinstance(item, str))
    # SaveMode values (Overwrite, Append...) are no class names
    return {name for name in found if name[:1].isupper()} - vocabulary.SAVE_MODES


def _own_names() -> set[str]:
    """Classes and exported names of plumbline itself (forward references, `__all__`)."""
    names: set[str] = set()
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names.update(n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
        for node in ast.walk(tree):  # type aliases named in `__all__`
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                names.update(ast.literal_eval(node.value))
    return names


def _string_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_class_names_are_declared_in_the_vocabulary_only() -> None:
    declared, own = _vocabulary_names(), _own_names()
    stray = []
    for path in _modules("spark") + _modules("eventlogs"):
        if path.name == "vocabulary.py":
            continue
        for line, text in _string_literals(path):
            if text in declared:
                stray.append(f"{path.name}:{line}: {text!r} (declared in vocabulary.py)")
            elif (
                CAMEL.match(text)
                and text not in own | NOT_CLASSES
                and not text.startswith(("SparkListener", "Plumbline"))  # events, own Java
                and not text.endswith("Facet")  # OpenLineage facets
            ):
                stray.append(f"{path.name}:{line}: {text!r}")
    assert stray == [], "class names outside vocabulary.py:\n" + "\n".join(stray)


def test_the_check_sees_a_stray_class_name(tmp_path: Path) -> None:
    path = tmp_path / "stray.py"
    path.write_text('"""doc: SortMergeJoin"""\nJOINS = {"SortMergeJoin", "Join"}\n')
    texts = {text for _, text in _string_literals(path)}
    assert texts == {"SortMergeJoin", "Join"}
    assert texts <= _vocabulary_names()
