"""Request bodies: gzip and deflate, size limits before and after decompression, JSON errors."""

from __future__ import annotations

import gzip
import zlib

import pytest

from plumbline.openlineage.decode import (
    BodyTooLargeError,
    MalformedBodyError,
    UnsupportedEncodingError,
    decode_json,
    decompress,
    split_batch,
)


def test_identity_body_is_returned_as_is() -> None:
    assert decompress(b'{"a":1}', None, 100) == b'{"a":1}'
    assert decompress(b'{"a":1}', "identity", 100) == b'{"a":1}'


def test_identity_body_over_the_limit() -> None:
    with pytest.raises(BodyTooLargeError):
        decompress(b"x" * 101, None, 100)


def test_gzip_and_deflate() -> None:
    body = b'[{"a": 1}]' * 50
    assert decompress(gzip.compress(body), "gzip", 10_000) == body
    assert decompress(zlib.compress(body), "deflate", 10_000) == body


def test_concatenated_gzip_members() -> None:
    assert decompress(gzip.compress(b"[1,") + gzip.compress(b"2]"), "gzip", 100) == b"[1,2]"


def test_gzip_bomb_stops_at_the_limit() -> None:
    bomb = gzip.compress(b"\x00" * 50_000_000)  # about 50 KB that inflates to 50 MB
    assert len(bomb) < 100_000
    with pytest.raises(BodyTooLargeError, match="decompresses to more than the limit of 1000000"):
        decompress(bomb, "gzip", 1_000_000)


def test_exactly_at_the_limit_is_accepted() -> None:
    body = b"y" * 1000
    assert decompress(gzip.compress(body), "gzip", 1000) == body


def test_broken_and_truncated_gzip() -> None:
    with pytest.raises(MalformedBodyError, match="not valid gzip"):
        decompress(b"this is not gzip", "gzip", 1000)
    with pytest.raises(MalformedBodyError, match="truncated"):
        decompress(gzip.compress(b'{"a": 1}' * 100)[:-12], "gzip", 10_000)


def test_unsupported_encoding() -> None:
    with pytest.raises(UnsupportedEncodingError, match="br"):
        decompress(b"...", "br", 1000)


def test_json_errors_say_where() -> None:
    with pytest.raises(MalformedBodyError, match="line 1 column 2"):
        decode_json(b"{oops}")
    with pytest.raises(MalformedBodyError, match="NaN"):
        decode_json(b'{"a": NaN}')
    with pytest.raises(MalformedBodyError):
        decode_json(b"\xff\xfe{")


def test_batches() -> None:
    assert split_batch([{"a": 1}, {"b": 2}]) == ([{"a": 1}, {"b": 2}], True)
    assert split_batch({"a": 1}) == ([{"a": 1}], False)
    with pytest.raises(MalformedBodyError, match="empty"):
        split_batch([])
