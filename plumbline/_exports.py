"""Lazy re-exports for a package's public surface (PEP 562).

A package's ``__init__`` lists its public names in ``__all__`` and maps each to the module that
defines it; a name is imported on first use, so that importing one light module of a package (or
running ``plumbline --help``) does not import all of it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping


def load_export(package: str, exports: Mapping[str, str], name: str) -> object:
    """The public ``name`` of ``package``: a submodule when ``exports[name]`` is
    ``package.name``, else the attribute ``name`` of the module ``exports[name]``."""
    module_name = exports.get(name)
    if module_name is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if module_name == f"{package}.{name}" else getattr(module, name)
    setattr(sys.modules[package], name, value)  # later lookups skip __getattr__
    return value
