"""A request body to validated events: split a batch into each event's own bytes, validate each.

The body is split without building Python objects (``list[msgspec.Raw]``), so a batch's events can
be forwarded exactly as received. Each event goes through the fast path
(:mod:`plumbline.openlineage.fast`) and, when that declines, through :func:`parse_event` on the
decoded event, which alone decides what is rejected and how the errors read. When the splitter and
:mod:`json` disagree about a body (UTF-16, a byte-order mark, an escaped lone surrogate), the whole
body takes the slow path, as it did before the fast path existed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgspec

from plumbline.openlineage.decode import (
    MalformedBodyError,
    TooDeepError,
    decode_json,
    split_array,
    split_batch,
)
from plumbline.openlineage.errors import EventValidationError
from plumbline.openlineage.fast import fast_parse_event
from plumbline.openlineage.limits import nesting_depth_error
from plumbline.openlineage.parse import ParsedEvent, parse_event

_BATCH = msgspec.json.Decoder(list[msgspec.Raw])
_JSON_WHITESPACE = b" \t\n\r"

Outcome = ParsedEvent | EventValidationError


@dataclass(frozen=True)
class ParsedBody:
    """Per event of a body, in order: the parsed event or why it is rejected, and its own bytes."""

    outcomes: list[Outcome]
    sent: list[bytes]  # each event's JSON: the body itself for a single event
    is_batch: bool


def parse_body(body: bytes) -> ParsedBody:
    """Validate the events of a (decompressed) body: one JSON object, or an array of them.

    Raises :class:`MalformedBodyError` when the body is not JSON or is an empty array.
    """
    split = split_body(body)
    if split is None:
        return _parse_decoded(body)
    if not split.is_batch:
        # one event (or what json reads otherwise: a byte-order mark, UTF-16): not checked first,
        # the fast path decodes all of it or declines
        parsed = fast_parse_event(body)
        return ParsedBody([parsed], [body], False) if parsed else _parse_decoded(body)
    return ParsedBody([parse_element(data) for data in split.sent], split.sent, True)


@dataclass(frozen=True)
class SplitBody:
    """A body's events as their own bytes, before any is parsed: ingestion parses a batch
    event by event (:func:`parse_element` each) and stores it in one transaction; the store's
    normalizer then lets the events go a group at a time."""

    sent: list[bytes]
    is_batch: bool


def split_body(body: bytes) -> SplitBody | None:
    """The events of a body as bytes: an array's elements, or the body as one event. None when
    the whole body must take the slow path (:func:`parse_body` then decodes it at once): the
    splitter cannot read it, or an element is not UTF-8 (json refuses the whole body then).

    Raises :class:`MalformedBodyError` for an empty array.
    """
    if body.lstrip(_JSON_WHITESPACE)[:1] != b"[":
        return SplitBody([body], False)
    try:
        sent = [bytes(element) for element in _BATCH.decode(body)]
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    except RecursionError:  # an element nested too deep for the splitter: split without it
        sent = split_array(body)
    split_batch(sent)  # the same error as before for an empty batch
    if not all(data.isascii() or _is_utf8(data) for data in sent):
        return None
    return SplitBody(sent, True)


def parse_element(data: bytes) -> Outcome:
    """One element of a batch, parsed: the event, or why it is rejected. Raises
    :class:`MalformedBodyError` for bytes json does not read (not for :func:`split_body`'s)."""
    parsed = fast_parse_event(data)
    if parsed is not None:
        return parsed
    try:
        document = decode_json(data)
    except TooDeepError:  # this event alone is rejected, its neighbours go on
        return EventValidationError([nesting_depth_error()])
    return _slow(document, data)


_KEYS = msgspec.json.Decoder(dict[str, msgspec.Raw])


def surely_rejected(data: bytes) -> bool:
    """True when an element of a batch surely breaks the spec, told without validating it: it
    is not a JSON object, or it has no ``eventTime`` or no ``producer`` (every event kind needs
    both). False decides nothing: :func:`parse_element` does."""
    try:
        keys = _KEYS.decode(data)
    except msgspec.ValidationError:
        return True  # valid JSON, not an object
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return False
    return "producer" not in keys or ("eventTime" not in keys and "event_time" not in keys)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8", "surrogatepass")  # as json.loads reads bytes
    except UnicodeDecodeError:
        return False
    return True


def _parse_decoded(body: bytes) -> ParsedBody:
    """The slow path for a whole body: decoded by :mod:`json`, each event re-encoded to forward."""
    try:
        decoded = decode_json(body)
    except TooDeepError:
        if body.lstrip(_JSON_WHITESPACE)[:1] == b"[":
            raise MalformedBodyError("the body is not valid JSON: nested too deep") from None
        return ParsedBody([EventValidationError([nesting_depth_error()])], [body], False)
    documents, is_batch = split_batch(decoded)
    # a single event's UTF-8 bytes (no byte-order mark, not UTF-16) can spare the limits' walk
    utf8 = not is_batch and body.lstrip(_JSON_WHITESPACE)[:1] == b"{"
    outcomes = [_slow(document, body if utf8 else None) for document in documents]
    sent = [_compact(d) for d in documents] if is_batch else [body]
    return ParsedBody(outcomes, sent, is_batch)


def _slow(document: Any, sent: bytes | None = None) -> Outcome:
    try:
        return parse_event(document, sent)
    except EventValidationError as exc:
        return exc


def _compact(document: Any) -> bytes:
    try:
        return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    except UnicodeEncodeError:
        # a lone surrogate (the event is rejected anyway): escaped, still valid JSON
        return json.dumps(document, separators=(",", ":")).encode()
