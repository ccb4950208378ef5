"""Request bodies to JSON documents: size limits (also after decompression), gzip, JSON, batches."""

from __future__ import annotations

import json
import zlib
from typing import Any

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


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode_json(body: bytes) -> Any:
    """Parse JSON (UTF-8); :class:`MalformedBodyError` says where it breaks."""
    try:
        return json.loads(body, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise MalformedBodyError(
            f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedBodyError(f"the body is not valid JSON: {exc}") from None


def split_batch(document: Any) -> tuple[list[Any], bool]:
    """(events, is_batch): a JSON array is a batch of events, anything else one event."""
    if isinstance(document, list):
        if not document:
            raise MalformedBodyError("the batch is empty: send at least one event")
        return document, True
    return [document], False
