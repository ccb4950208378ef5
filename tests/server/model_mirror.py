"""Whether a real answer mirrors its response model field for field.

An analysis route answers its result's hand-written ``to_json()`` as it is (``GraphResponse``:
FastAPI neither filters nor fills it), so the model in ``server/api/*_models.py`` only documents
it. Schema validation catches an undocumented key and a missing required one; :class:`Walk` also
catches a documented field
no answer ever carries, and tells which models the answers exercised (:class:`Walk`).
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, Union

from pydantic import BaseModel

from plumbline.server.api import analysis_models as _impact_and_rerun
from plumbline.server.api import health_models as _health
from plumbline.server.api import run_analysis_models as _run_analysis

# the modules of the analysis routes' response models (results written by a to_json)
ANALYSIS_MODEL_MODULES = {m.__name__ for m in (_impact_and_rerun, _health, _run_analysis)}


def analysis_models() -> set[type[BaseModel]]:
    """Every response model the analysis model modules define."""
    return {
        value
        for module in (_impact_and_rerun, _health, _run_analysis)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == module.__name__
    }


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation may hold directly (through Optional / Union)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    return []


class Walk:
    """What answers hold, model by model: objects that break their model (a key it does not
    document, a required field missing) and, per model, the union of the keys its objects
    carried (a documented field no answer ever carries is dead or mis-spelled)."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.keys: dict[type[BaseModel], set[str]] = {}

    def answer(self, body: Any, model: type[BaseModel], where: str = "$") -> None:
        self._check(body, model, where)

    def unproduced(self) -> dict[str, set[str]]:
        """Per model seen, its fields that no object carried."""
        return {
            model.__name__: missing
            for model, keys in self.keys.items()
            if (missing := set(_fields(model)) - keys)
        }

    def _check(self, value: Any, annotation: Any, where: str) -> None:
        if value is None or annotation is Any:
            return
        origin = typing.get_origin(annotation)
        if origin is Literal:
            return
        if origin in (Union, types.UnionType):
            models = _models_in(annotation)
            if isinstance(value, dict) and len(models) == 1:
                self._check(value, models[0], where)
            elif isinstance(value, list):
                for arg in typing.get_args(annotation):
                    if typing.get_origin(arg) in (list, tuple):
                        self._check(value, arg, where)
            return
        if origin in (list, tuple, set, frozenset) and isinstance(value, list):
            (item, *_) = typing.get_args(annotation) or (Any,)
            for index, element in enumerate(value):
                self._check(element, item, f"{where}[{index}]")
            return
        if origin is dict and isinstance(value, dict):
            _, item = typing.get_args(annotation) or (Any, Any)
            for key, element in value.items():
                self._check(element, item, f"{where}[{key!r}]")
            return
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            self._object(value, annotation, where)

    def _object(self, value: Any, model: type[BaseModel], where: str) -> None:
        if not isinstance(value, dict):
            self.found.append(f"{where}: {type(value).__name__}, not a {model.__name__} object")
            return
        fields = _fields(model)
        required = {key for key, field in fields.items() if field.is_required()}
        missing, extra = required - set(value), set(value) - set(fields)
        if missing or extra:
            self.found.append(
                f"{where} ({model.__name__}): missing {sorted(missing)}, "
                f"undocumented {sorted(extra)}"
            )
        self.keys.setdefault(model, set()).update(set(value) & set(fields))
        for key, field in fields.items():
            if key in value:
                self._check(value[key], field.annotation, f"{where}.{key}")


def _fields(model: type[BaseModel]) -> dict[str, Any]:
    return {(field.alias or name): field for name, field in model.model_fields.items()}


def models_reachable(model: type[BaseModel]) -> set[type[BaseModel]]:
    """Every model ``model``'s fields lead to, at any depth (``model`` included)."""
    reached: set[type[BaseModel]] = set()
    todo = [model]
    while todo:
        current = todo.pop()
        if current in reached:
            continue
        reached.add(current)
        for field in current.model_fields.values():
            todo.extend(_nested(field.annotation))
    return reached


def _nested(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _nested(arg)]


def response_models() -> dict[tuple[str, str], Any]:
    """The response model of each read-API operation, by (method, path template)."""
    from fastapi.routing import APIRoute

    from plumbline.server.api import routers

    return {
        (method, route.path_format): route.response_model
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in route.methods
    }


def assert_mirrors(body: Any, path: str, method: str = "GET") -> Walk:
    """``body``, the answer of ``method path`` (a path template), keeps to its response model at
    every depth (see :class:`Walk`); the walk, for what else a test wants of it."""
    walk = Walk()
    walk.answer(body, response_models()[(method, path)], f"{method} {path} $")
    assert walk.found == [], "an answer that breaks its model:\n" + "\n".join(walk.found)
    return walk
