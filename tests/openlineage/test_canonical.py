"""canonical_json (orjson) writes exactly the bytes of json.dumps(sort_keys=True, compact,
ensure_ascii=False), on which the digests already stored depend."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plumbline.openlineage.canonical import (
    canonical_json,
    canonical_json_of_floatless,
    holds_float,
    stdlib_canonical_json,
    unencodable_path,
)
from plumbline.openlineage.memo import BoundedLRU


def reference(document: Any) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# text over all of Unicode but lone surrogates: controls, DEL, U+2028, non-BMP, non-ASCII keys
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
KEYS = st.one_of(TEXT, st.sampled_from(["a", "A", "_a", "é", "e\u0301", "😀", "\uffff", "z", ""]))
INTS = st.one_of(
    st.integers(-(2**63), 2**64 - 1),
    st.integers(-(2**80), 2**80),  # beyond 64 bits orjson refuses: json.dumps writes them
    st.sampled_from([0, -1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1]),
)
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e-05, 1e16, 1e22, 0.1, -0.0, 5e-324, 1.7976931348623157e308, 123.456]),
)


def documents(scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=5), st.dictionaries(KEYS, children, max_size=5)
        ),
        max_leaves=30,
    )


WITHOUT_FLOATS = documents(st.one_of(st.none(), st.booleans(), INTS, TEXT))
WITH_FLOATS = documents(st.one_of(st.none(), st.booleans(), INTS, TEXT, FLOATS))


@settings(max_examples=500, deadline=None)
@given(WITHOUT_FLOATS)
def test_byte_identical_without_floats(document: Any) -> None:
    expected = reference(document)
    assert canonical_json(document) == expected
    assert canonical_json_of_floatless(document) == expected


@settings(max_examples=500, deadline=None)
@given(WITH_FLOATS)
def test_byte_identical_with_floats(document: Any) -> None:
    assert canonical_json(document) == reference(document)


@settings(max_examples=200, deadline=None)
@given(WITH_FLOATS)
def test_round_trip_through_json_text(document: Any) -> None:
    # what ingestion does: the document comes from JSON text, possibly escaped
    decoded = json.loads(json.dumps(document, ensure_ascii=True))
    assert canonical_json(decoded) == reference(decoded)


def test_where_orjson_and_json_differ() -> None:
    assert canonical_json([1e-05, 1e16]) == b"[1e-05,1e+16]"
    assert canonical_json({"n": 2**64}) == b'{"n":18446744073709551616}'
    assert canonical_json({"z": 1, "é": 2, "Z": 3, "😀": 4, "\uffff": 5}) == reference(
        {"z": 1, "é": 2, "Z": 3, "😀": 4, "\uffff": 5}
    )
    assert canonical_json({"c": '\x00\x1f\x7f\u2028"\\/\n'}) == (
        b'{"c":"\\u0000\\u001f\x7f\xe2\x80\xa8\\"\\\\/\\n"}'
    )
    # strings that look like floats are not floats
    assert canonical_json({"v": "1.5e3", "n": 3}) == b'{"n":3,"v":"1.5e3"}'
    assert not holds_float({"v": "1.5e3", "n": [3, {"x": True}]})
    assert holds_float({"v": [{"x": 0.5}]})


def test_deep_nesting_beyond_orjson() -> None:
    document: Any = 1
    for _ in range(300):
        document = [{"k": document}]
    assert canonical_json(document) == reference(document)


def test_lone_surrogates_raise_and_are_found() -> None:
    document = {"a": [1, {"ok": "x", "bad\ud800": 2}], "b": "\udfff"}
    with pytest.raises(UnicodeEncodeError):
        canonical_json(document)
    with pytest.raises(UnicodeEncodeError):
        stdlib_canonical_json(document)
    assert unencodable_path(document) == ("a", 1, "bad\ud800")
    assert unencodable_path({"a": ["fine", "x\udc00"]}) == ("a", 1)
    assert unencodable_path({"a": ["fine"]}) is None


def test_lru_keeps_within_its_bounds() -> None:
    cache: BoundedLRU[str] = BoundedLRU(max_entries=3, max_size=100)
    for key in "abc":
        cache.put(key, key.upper(), 10)
    assert cache.get("a") == "A"  # now the most recent
    cache.put("d", "D", 10)  # 4 entries: the least recent ('b') goes
    assert (cache.get("b"), cache.get("a"), len(cache)) == (None, "A", 3)
    cache.put("big", "BIG", 85)  # 115 counted: the least recent go until within 100
    assert cache.size <= 100 and cache.get("big") == "BIG"
    assert cache.get("c") is None and cache.get("d") is None
    cache.put("huge", "HUGE", 101)  # larger than the whole cache: not kept
    assert cache.get("huge") is None and cache.get("big") == "BIG"
    cache.put("big", "BIG2", 20)  # replacing counts the new size only
    assert (cache.get("big"), cache.size) == ("BIG2", 20 + 10)
