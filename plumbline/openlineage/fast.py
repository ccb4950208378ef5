"""Validate a RunEvent from its JSON bytes, reusing what earlier events already validated.

Most of an event's bytes are its run, job and datasets, and a job sends the same dataset bytes (its
schema and column lineage facets) run after run. The event is split at the top level without
decoding (``dict[str, msgspec.Raw]``); each piece is validated with the models of
:mod:`plumbline.openlineage.model`, and what validates is remembered by its bytes. The event model
is then assembled from the validated pieces.

Anything unusual makes :func:`fast_parse_event` answer None, and the caller takes the slow path
(:func:`plumbline.openlineage.parse.parse_event` on the decoded event), which alone decides errors.
The remembered models and dicts are shared by every event that holds the same bytes: never mutate
``ParsedEvent.raw`` or ``ParsedEvent.event`` below their top level.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any, NamedTuple

import msgspec
import orjson
from pydantic import BaseModel, ValidationError, create_model

from plumbline.openlineage import limits
from plumbline.openlineage.canonical import canonical_json_of_floatless, stdlib_canonical_json
from plumbline.openlineage.errors import EventValidationError
from plumbline.openlineage.memo import BoundedLRU
from plumbline.openlineage.model import InputDataset, Job, OutputDataset, Run, RunEvent
from plumbline.openlineage.parse import ParsedEvent, event_kind
from plumbline.openlineage.types import parse_datetime

# the pieces of a RunEvent validated on their own: a top-level key -> the model of it (or of each
# element of its array), as RunEvent declares them
_OBJECTS: dict[str, type[BaseModel]] = {"run": Run, "job": Job}
_ARRAYS: dict[str, type[BaseModel]] = {"inputs": InputDataset, "outputs": OutputDataset}
_PIECES = _OBJECTS.keys() | _ARRAYS.keys()
# RunEvent without its pieces: the same fields, aliases, validators and configuration
_Head = create_model(  # type: ignore[call-overload]
    "RunEventHead",
    __config__=RunEvent.model_config,
    **{n: (f.annotation, f) for n, f in RunEvent.model_fields.items() if n not in _PIECES},
)
# keys an unknown top-level field cannot have here: a field's other spelling, model_construct's own
_FIELD_KEYS = {"_fields_set", *RunEvent.model_fields} | {
    f.alias for f in RunEvent.model_fields.values() if f.alias
}
# the slow path alone is exact if RunEvent changes: other piece types, or validators across fields
# (they would not run on pieces validated apart)
_ENABLED = {n: f.annotation for n, f in RunEvent.model_fields.items() if n in _PIECES} == {
    "run": Run,
    "job": Job,
    "inputs": list[InputDataset] | None,
    "outputs": list[OutputDataset] | None,
} and not (
    RunEvent.__pydantic_decorators__.model_validators
    or RunEvent.__pydantic_decorators__.field_validators
)

# the memory a remembered piece takes, as a multiple of its JSON size (dicts, strings, models)
_MEMORY_PER_BYTE = 12
CACHE = BoundedLRU["_Piece"](max_entries=100_000, max_size=64 * 1024 * 1024)

_TOP_LEVEL = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ARRAY = msgspec.json.Decoder(list[msgspec.Raw])
_floats = threading.local()


def _float(text: str) -> float:
    _floats.seen = True
    return float(text)


_VALUE = msgspec.json.Decoder(float_hook=_float)


class _Piece(NamedTuple):
    model: Any  # the validated model (a list of them for an array)
    document: Any  # the decoded JSON
    canonical: bytes  # its canonical JSON
    within_limits: bool = True  # keeps plumbline.openlineage.limits (else: the slow path says why)


class _Unusual(Exception):
    """Something the fast path leaves to the slow one."""


def fast_parse_event(data: bytes | msgspec.Raw) -> ParsedEvent | None:
    """The valid RunEvent in ``data`` (one JSON object), or None to take the slow path."""
    if not _ENABLED:
        return None
    try:
        return _parse(data)
    except (
        msgspec.DecodeError,
        UnicodeDecodeError,
        ValidationError,
        EventValidationError,
        RecursionError,
        _Unusual,
    ):
        return None


def _parse(data: bytes | msgspec.Raw) -> ParsedEvent:
    top = _TOP_LEVEL.decode(data)
    raw: dict[str, Any] = {}
    head: dict[str, Any] = {}
    pieces: dict[str, Any] = {}
    canonical_parts: dict[str, bytes] = {}  # key -> the canonical JSON of its value
    for key, value in top.items():
        if key in _OBJECTS or key in _ARRAYS:
            if key in _OBJECTS:
                piece = _piece(key, _OBJECTS[key], value)
            else:
                piece = _array(key, _ARRAYS[key], value)
            pieces[key], raw[key], canonical_parts[key] = piece[:3]
            if not piece.within_limits:
                raise _Unusual  # the slow path says which limit
        else:
            raw[key] = head[key] = decoded = _decode(value)
            canonical_parts[key] = _canonical(decoded)
            if not limits.surely_within(bytes(value), 2) and (
                next(limits.document_violations(decoded, base_depth=2), None) is not None
            ):
                raise _Unusual
    if event_kind(dict.fromkeys(top) | head) != "RunEvent":
        raise _Unusual
    validated = _Head.model_validate(head)
    extra = validated.model_extra or {}
    if "run" not in pieces or "job" not in pieces or not _FIELD_KEYS.isdisjoint(extra):
        raise _Unusual  # errors to report, or an unknown key that names a field another way
    event_time = parse_datetime(validated.event_time)
    if limits.time_violation(event_time) is not None:
        raise _Unusual
    # the fields set are the fields sent and the unknown keys
    values = {name: getattr(validated, name) for name in validated.model_fields_set}
    event = RunEvent.model_construct(
        _fields_set=validated.model_fields_set | pieces.keys(), **values, **pieces
    )
    # json.dumps(sort_keys=True) of an object is its sorted members' canonical JSON, joined
    members = (orjson.dumps(key) + b":" + canonical_parts[key] for key in sorted(canonical_parts))
    canonical = b"{" + b",".join(members) + b"}"
    return ParsedEvent(
        kind="RunEvent",
        event=event,
        raw=raw,
        canonical=canonical,
        digest=hashlib.sha256(canonical).hexdigest(),
        event_time=event_time,
    )


def _decode(data: bytes | msgspec.Raw) -> Any:
    """The decoded JSON; notes in ``_floats.seen`` whether it holds a float."""
    _floats.seen = False
    return _VALUE.decode(data)


def _canonical(document: Any) -> bytes:
    """The canonical JSON of what :func:`_decode` just decoded."""
    return (
        stdlib_canonical_json(document) if _floats.seen else canonical_json_of_floatless(document)
    )


def _piece(slot: str, model: type[BaseModel], data: msgspec.Raw) -> _Piece:
    key = (slot, bytes(data))
    piece = CACHE.get(key)
    if piece is None:
        document = _decode(key[1])
        canonical = _canonical(document)
        within = _within_limits(slot, document, key[1])
        piece = _Piece(model.model_validate(document), document, canonical, within)
        CACHE.put(key, piece, len(key[1]) * _MEMORY_PER_BYTE)
    return piece


def _within_limits(slot: str, document: Any, data: bytes) -> bool:
    """Whether a piece keeps the limits, at its level in the event (remembered with it)."""
    depth = 2 if slot in _OBJECTS else 3  # the event is level 1; an array's elements level 3
    if not limits.surely_within(data, depth) and (
        next(limits.document_violations(document, base_depth=depth), None) is not None
    ):
        return False
    return not limits.part_violations(slot, document)


def _array(slot: str, model: type[BaseModel], data: msgspec.Raw) -> _Piece:
    """An array of pieces: remembered whole (a job's inputs and outputs rarely change), and by
    element (they may come in other combinations)."""
    key = (slot + "[]", bytes(data))
    if key[1] == b"null":
        return _Piece(None, None, b"null")
    whole = CACHE.get(key)
    if whole is None:
        try:
            elements = _ARRAY.decode(data)
        except msgspec.ValidationError:
            raise _Unusual from None  # not an array: the slow path names the field
        pieces = [_piece(slot, model, element) for element in elements]
        whole = _Piece(
            [p.model for p in pieces],
            [p.document for p in pieces],
            b"[" + b",".join(p.canonical for p in pieces) + b"]",
            all(p.within_limits for p in pieces),
        )
        CACHE.put(key, whole, len(key[1]))  # its elements are counted in their own entries
    # new lists: the event's own, so that the shared ones cannot be changed through it
    return _Piece(list(whole.model), list(whole.document), whole.canonical, whole.within_limits)
