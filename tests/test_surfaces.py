"""plumbline's package surfaces stay deliberate (as httpx checks its ``__all__``).

- ``plumbline.store`` and ``plumbline.server`` export a curated ``__all__``; every name in it
  exists, and the lazy map behind it agrees with the names mypy sees.
- Other packages import only those surfaces: ``plumbline.store`` (and the ``__all__`` of
  ``plumbline.store.read`` and ``plumbline.store.write``), ``plumbline.server``; a module listed
  in one of them is public except for its names with a leading underscore.
- The environment is read only at the edges (the command line, settings builders).
- Every exception plumbline raises on purpose derives from :class:`PlumblineError`, and the tree
  drawn in ``plumbline/errors.py``'s docstring lists every one of them (as httpx's
  ``_exceptions.py`` does).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from plumbline.errors import PlumblineError

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "plumbline"

# surface module -> the package whose internals it stands for
SURFACES = {
    "plumbline.store": "plumbline.store",
    "plumbline.store.read": "plumbline.store",
    "plumbline.store.write": "plumbline.store",
    "plumbline.server": "plumbline.server",
}
LAZY_SURFACES = ["plumbline.store", "plumbline.server"]

# modules that may read the process environment: the edges, where settings are built
ENVIRONMENT_EDGES = {
    "plumbline/cli",  # the command line (options with envvar=…)
    "plumbline/server/config.py",  # build_settings: the server's settings
    "plumbline/spark/settings.py",  # the capture's settings (arguments, Spark conf, environment)
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(PACKAGE.rglob("*.py"))]


@pytest.mark.parametrize("surface", list(SURFACES))
def test_every_name_in_all_exists(surface: str) -> None:
    module = importlib.import_module(surface)
    for name in module.__all__:
        try:
            value = getattr(module, name)
        except AttributeError:
            value = importlib.import_module(f"{surface}.{name}")  # a public submodule
        assert value is not None, f"{surface}.{name}"


@pytest.mark.parametrize("surface", LAZY_SURFACES)
def test_lazy_exports_match_what_type_checkers_see(surface: str) -> None:
    """``_EXPORTS`` (what runs), the ``TYPE_CHECKING`` imports (what mypy sees) and ``__all__``
    name the same things, each from the same module."""
    module = importlib.import_module(surface)
    tree = ast.parse(Path(module.__file__ or "").read_text())
    seen: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                for alias in statement.names:
                    source = statement.module
                    if source == surface:  # `from plumbline.store import read`: a submodule
                        source = f"{surface}.{alias.name}"
                    seen[alias.asname or alias.name] = source
    assert seen == module._EXPORTS
    assert set(module.__all__) == set(module._EXPORTS)


def _public_modules() -> set[str]:
    """Modules listed in a surface's ``__all__`` (``plumbline.store.tokens``, …)."""
    modules = set()
    for surface in SURFACES:
        for name in importlib.import_module(surface).__all__:
            if importlib.util.find_spec(f"{surface}.{name}") is not None:
                modules.add(f"{surface}.{name}")
    return modules


def _surface_violations(target: str, names: list[str] | None, public_modules: set[str]) -> str:
    """Why importing ``names`` from ``target`` leaves the surface ('' when it does not)."""
    if names is None:  # `import plumbline.store.x`
        return "" if target in SURFACES or target in public_modules else "is internal"
    if target in SURFACES:
        public = set(importlib.import_module(target).__all__)
        hidden = [name for name in names if name not in public]
        return f"{', '.join(hidden)} not in {target}.__all__" if hidden else ""
    if target in public_modules:
        private = [name for name in names if name.startswith("_")]
        return f"{', '.join(private)} private to {target}" if private else ""
    return "is internal"


def test_other_packages_import_only_the_surfaces() -> None:
    public_modules = _public_modules()
    violations = []
    for path, tree in _sources():
        importer = _module_name(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [(node.module, [alias.name for alias in node.names])]
            else:
                continue
            for target, names in targets:
                owner = next(
                    (
                        p
                        for p in set(SURFACES.values())
                        if target == p or target.startswith(p + ".")
                    ),
                    None,
                )
                if owner is None or importer == owner or importer.startswith(owner + "."):
                    continue
                problem = _surface_violations(target, names, public_modules)
                if problem:
                    violations.append(f"{path.relative_to(ROOT)}:{node.lineno}: {target} {problem}")
    assert violations == [], (
        "import from the package's surface (add a name or module to its __all__, and to _EXPORTS "
        "in plumbline/store/__init__.py or plumbline/server/__init__.py, if other packages need it)"
    )


def _reads_environment(tree: ast.Module) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv"):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            if {alias.name for alias in node.names} & {"environ", "getenv"}:
                lines.append(node.lineno)
    return lines


def test_the_environment_is_read_only_at_the_edges() -> None:
    readers = []
    for path, tree in _sources():
        relative = path.relative_to(ROOT).as_posix()
        if any(relative == edge or relative.startswith(edge + "/") for edge in ENVIRONMENT_EDGES):
            continue
        readers += [f"{relative}:{line}" for line in _reads_environment(tree)]
    assert readers == [], "read the environment in a settings builder and pass settings in"


def test_every_exception_class_joins_the_plumbline_tree() -> None:
    """A class deriving straight from a built-in exception must be PlumblineError itself or
    private (a leading underscore: control flow that never leaves its module)."""
    builtin = {"Exception", "ValueError", "RuntimeError", "LookupError", "KeyError", "TypeError"}
    roots = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            bases = {ast.unparse(base) for base in node.bases}
            if bases and bases <= builtin and node.name != "PlumblineError":
                roots.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert roots == []


@pytest.mark.parametrize(
    "error",
    [
        "plumbline.openlineage.errors:OpenLineageError",
        "plumbline.transports.errors:TransportError",
        "plumbline.spark.errors:CaptureError",
        "plumbline.store.errors:StoreError",
        "plumbline.server.config:ConfigError",
        "plumbline.server.tokens:TokenError",
        "plumbline.server.catalog.errors:CatalogError",
        "plumbline.server.errors:APIError",
        "plumbline.demo.errors:DemoError",
        "plumbline.export.errors:ExportError",
        "plumbline.eventlogs.errors:EventLogError",
    ],
)
def test_package_errors_are_plumbline_errors(error: str) -> None:
    module, name = error.split(":")
    assert issubclass(getattr(importlib.import_module(module), name), PlumblineError)


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every public exception class defined in the package (each module imported: the walk sees
    namespace packages such as plumbline.eventlogs, which pkgutil does not)."""
    found: dict[str, type[BaseException]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "store" / "migrations" / "env.py":
            continue  # alembic's script, run by alembic only (it raises no exception of its own)
        name = _module_name(path)
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == name
                and not value.__name__.startswith("_")
            ):
                found[value.__name__] = value
    return found


_TREE_LINE = re.compile(r"^(?P<indent> *)\* (?P<name>\w+) \((?P<module>[\w.]+)\)")


def test_the_error_tree_in_errors_py_lists_every_exception_class() -> None:
    """Each PlumblineError subclass is drawn in the tree of plumbline/errors.py, under its parent
    and with its module; each other exception class is named as outside the tree on purpose."""
    import plumbline.errors

    doc = plumbline.errors.__doc__ or ""
    classes = _exception_classes()
    drawn: dict[str, tuple[str | None, str]] = {}  # name -> (parent, module)
    parents: list[str] = []
    for line in doc.splitlines():
        match = _TREE_LINE.match(line)
        if match is None:
            continue
        depth = len(match["indent"]) // 2
        parents[depth:] = [match["name"]]
        drawn[match["name"]] = (parents[depth - 1] if depth else None, match["module"])
    inside = {name for name, cls in classes.items() if issubclass(cls, PlumblineError)}
    assert sorted(inside - set(drawn)) == [], "exception classes missing from the tree"
    assert sorted(set(drawn) - inside) == [], "the tree draws classes that do not exist"
    wrong = []
    for name, (parent, module) in drawn.items():
        cls = classes[name]
        if cls.__module__ != module:
            wrong.append(f"{name}: defined in {cls.__module__}, drawn in {module}")
        if parent is not None and classes[parent] not in cls.__bases__:
            wrong.append(f"{name}: drawn under {parent}, derives from {cls.__bases__}")
    assert wrong == []
    outside = doc.split("Outside the tree on purpose:", 1)[-1]
    for name in sorted(set(classes) - inside):
        assert f"{name} ({classes[name].__module__})" in outside, f"{name} is not in the doc"


def test_tests_import_helper_modules_not_other_tests() -> None:
    """Helpers several tests share live in helper modules (``tests/store/builder.py``…), never in a
    ``test_*.py`` file (its name would say it holds tests) or a ``conftest.py`` (pytest loads those
    itself; fixtures are used by name, not imported)."""
    imports = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] + [alias.name for alias in node.names] * (
                    node.level > 0 and not node.module
                )
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            names = [module.split(".")[-1] for module in modules]
            if any(name.startswith("test_") or name == "conftest" for name in names):
                imports.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert imports == []
