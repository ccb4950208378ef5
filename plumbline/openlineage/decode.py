"""Request bodies to JSON documents: size limits (also after decompression), gzip, JSON, batches."""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

import msgspec

from plumbline.openlineage.errors import OpenLineageError

# wbits for zlib: 16 + MAX_WBITS reads gzip, MAX_WBITS reads zlib (HTTP's 'deflate')
_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


class BodyTooLargeError(OpenLineageError):
    """The body (or what it decompresses to) is over the size limit."""


class MalformedBodyError(OpenLineageError):
    """The body is not valid JSON, or not valid compressed data."""


class UnsupportedEncodingError(OpenLineageError):
    """A ``Content-Encoding`` other than identity, gzip or deflate."""


def decompress(body: bytes, encoding: str | None, limit: int) -> bytes:
    """``body`` decoded per ``Content-Encoding``, stopping as soon as it would exceed ``limit``.

    Decompresses incrementally, so a small compressed body that inflates to gigabytes (a "zip
    bomb") costs at most ``limit`` bytes of memory.
    """
    encoding = (encoding or "identity").strip().lower()
    if encoding in ("", "identity"):
        if len(body) > limit:
            raise BodyTooLargeError(f"the body is over the limit of {limit} bytes")
        return body
    if encoding not in _WBITS:
        raise UnsupportedEncodingError(f"unsupported Content-Encoding {encoding!r} (use gzip)")
    out = bytearray()
    data = body
    decompressor = zlib.decompressobj(wbits=_WBITS[encoding])
    try:
        while True:
            chunk = decompressor.decompress(data, limit + 1 - len(out))
            out += chunk
            if len(out) > limit:
                raise BodyTooLargeError(
                    f"the body decompresses to more than the limit of {limit} bytes"
                )
            if decompressor.eof:
                rest = decompressor.unused_data
                if encoding != "deflate" and rest.strip(b"\x00"):
                    decompressor = zlib.decompressobj(wbits=_WBITS[encoding])  # next gzip member
                    data = rest
                    continue
                return bytes(out)
            data = decompressor.unconsumed_tail
            if not data and not chunk:
                raise MalformedBodyError(f"the {encoding} body is truncated")
    except zlib.error as exc:
        raise MalformedBodyError(f"the body is not valid {encoding} data: {exc}") from None


class TooDeepError(MalformedBodyError):
    """Valid JSON nested too deep for the decoder (an event past the nesting limit)."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode_json(body: bytes) -> Any:
    """Parse JSON (UTF-8); :class:`MalformedBodyError` says where it breaks, by byte offset."""
    try:
        return json.loads(body, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        where = _byte_offset(body, exc.doc, exc.pos)
        raise MalformedBodyError(
            f"the body is not valid JSON: {exc.msg} at byte {where} "
            f"(line {exc.lineno} column {exc.colno})"
        ) from None
    except UnicodeDecodeError as exc:
        raise MalformedBodyError(
            f"the body is not valid JSON: it is not {exc.encoding.upper()} "
            f"({exc.reason} at byte {exc.start})"
        ) from None
    except ValueError as exc:  # NaN, Infinity, -Infinity: json does not say where
        offset = _msgspec_offset(body)
        at = f" at byte {offset}" if offset is not None else ""
        raise MalformedBodyError(f"the body is not valid JSON: {exc}{at}") from None
    except RecursionError:
        raise TooDeepError("the JSON is nested too deep to decode") from None


def _byte_offset(body: bytes, text: str, position: int) -> int:
    """The byte of ``body`` that character ``position`` of its decoded ``text`` starts at (a
    byte-order mark counts: ``encode`` writes the one ``decode`` dropped)."""
    return len(text[:position].encode(json.detect_encoding(body), "surrogatepass"))


_BYTE = re.compile(r"\(byte (\d+)\)")


def _msgspec_offset(body: bytes) -> int | None:
    """Where msgspec's decoder finds the body malformed (it says by byte), if it does."""
    try:
        msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        found = _BYTE.search(str(exc))
        if found is None:
            return None
        where = int(found.group(1))
        return where - 1 if body[where - 1 : where] == b"-" else where  # -Infinity's sign
    return None


# a JSON string (escapes included) or one of the characters that shape an array's elements
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},]', re.S)


def split_array(body: bytes) -> list[bytes]:
    """The elements of a JSON array as their own bytes, however deep they nest (no recursion:
    the fallback when the decoder's own splitter gives up on depth). Each element is checked when
    decoded on its own; this only needs the brackets to balance."""
    text = body.strip()
    if text[:1] != b"[" or text[-1:] != b"]":
        raise MalformedBodyError("the body is not valid JSON: not an array")
    elements: list[bytes] = []
    depth, start = 0, 1
    for token in _TOKENS.finditer(text):
        char = token.group()[:1]
        if char in b"[{":
            depth += 1
        elif char in b"]}":
            depth -= 1
            if depth == 0:
                if token.end() != len(text):
                    raise MalformedBodyError("the body is not valid JSON: data after the array")
                elements.append(text[start : token.start()])
        elif char == b"," and depth == 1:
            elements.append(text[start : token.start()])
            start = token.end()
        if depth < 0:
            break
    if depth != 0:
        raise MalformedBodyError("the body is not valid JSON: unbalanced brackets")
    elements = [element.strip() for element in elements]
    if elements == [b""]:
        raise MalformedBodyError("the batch is empty: send at least one event")
    if any(not element for element in elements):
        raise MalformedBodyError("the body is not valid JSON: an empty array element")
    return elements


_STRING_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_STRUCTURE = bytes(set(range(256)) - set(b"{}[],"))
_INNERMOST = re.compile(rb"\{[^{}\[\]]*\}|\[[^{}\[\]]*\]")


def count_elements(body: bytes) -> int:
    """How many elements the JSON array ``body`` has, without building them (C-speed passes:
    strings dropped, then the innermost groups, level by level); at most ``body.count(b",") + 1``
    (that bound when the brackets do not balance: the decoder then refuses the body)."""
    bound = body.count(b",") + 1
    shape = _STRING_TOKEN.sub(b"", body).translate(None, _NOT_STRUCTURE)
    if shape[:1] != b"[" or shape[-1:] != b"]":
        return bound
    shape = shape[1:-1]
    while True:
        shorter = _INNERMOST.sub(b"", shape)
        if len(shorter) == len(shape):
            break
        shape = shorter
    if shape.translate(None, b",") != b"":  # unbalanced: the decoder refuses it anyway
        return bound
    return shape.count(b",") + 1


def split_batch(document: Any) -> tuple[list[Any], bool]:
    """(events, is_batch): a JSON array is a batch of events, anything else one event."""
    if isinstance(document, list):
        if not document:
            raise MalformedBodyError("the batch is empty: send at least one event")
        return document, True
    return [document], False
