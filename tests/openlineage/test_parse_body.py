"""parse_body (the fast path) decides exactly as the slow path (json + parse_event) did: the same
models, raw documents, canonical JSON and digests for valid events, the same errors for invalid ones,
with the piece cache cold and warm."""

from __future__ import annotations

import copy
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from broken_events import BROKEN
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openlineage_spec_examples import examples, minimal_run_event
from spec_files import SPEC_DIR

from plumbline.openlineage import (
    EventValidationError,
    ParsedEvent,
    parse_body,
    parse_event,
)
from plumbline.openlineage.canonical import stdlib_canonical_json
from plumbline.openlineage.decode import MalformedBodyError, decode_json, split_batch
from plumbline.openlineage.fast import CACHE, fast_parse_event

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = json.loads((ROOT / "tests" / "golden" / "events" / "shop_pipeline.json").read_text())
BASE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
FACET = {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s.json"}


def slow_outcomes(body: bytes) -> tuple[list[ParsedEvent | EventValidationError], bool]:
    """What ingestion decided before parse_body: json.loads, then parse_event per event."""
    documents, is_batch = split_batch(decode_json(body))
    outcomes: list[ParsedEvent | EventValidationError] = []
    for document in documents:
        try:
            outcomes.append(parse_event(document))
        except EventValidationError as exc:
            outcomes.append(exc)
    return outcomes, is_batch


def assert_same(body: bytes) -> list[ParsedEvent | EventValidationError]:
    """parse_body(body) decides as the slow path, cold and warm; returns the outcomes."""
    expected, is_batch = slow_outcomes(body)
    CACHE.clear()
    for _ in ("cold", "warm"):
        parsed = parse_body(body)
        assert parsed.is_batch == is_batch
        assert len(parsed.outcomes) == len(parsed.sent) == len(expected)
        for got, want in zip(parsed.outcomes, expected, strict=True):
            if isinstance(want, EventValidationError):
                assert isinstance(got, EventValidationError)
                assert got.violations == want.violations
                continue
            assert isinstance(got, ParsedEvent), got.violations
            assert got.kind == want.kind
            assert got.event == want.event
            assert got.event.model_dump(by_alias=True) == want.event.model_dump(by_alias=True)
            assert got.event.model_fields_set == want.event.model_fields_set
            assert got.raw == want.raw
            assert list(got.raw) == list(want.raw)  # key order as sent
            assert got.canonical == want.canonical
            assert got.digest == want.digest
            assert got.event_time == want.event_time
    return parsed.outcomes


def _body(document: Any) -> bytes:
    return json.dumps(document).encode()


def test_golden_events_as_a_batch_and_one_by_one() -> None:
    assert_same(_body(GOLDEN))
    for event in GOLDEN:
        assert_same(_body(event))


def test_golden_run_events_take_the_fast_path() -> None:
    # otherwise the tests above would compare the slow path with itself
    run_events = [e for e in GOLDEN if "run" in e]
    assert run_events
    for event in run_events:
        assert fast_parse_event(_body(event)) is not None


@pytest.mark.parametrize("example", examples(SPEC_DIR), ids=lambda e: e.id)
def test_spec_example(example: Any) -> None:
    body = _body(example.wrapped())
    assert_same(body)
    assert fast_parse_event(body) is not None


def test_full_spec_event() -> None:
    body = (SPEC_DIR / "tests" / "example_full_event.json").read_bytes()
    assert_same(body)
    assert fast_parse_event(body) is not None


def _bad_events() -> list[tuple[str, Any]]:
    bad: list[tuple[str, Any]] = []
    for name, mutate, _, _ in BROKEN:
        event = minimal_run_event()
        mutate(event)
        bad.append((name, event))

    event = minimal_run_event()
    event["schemaURL"] = f"{BASE}#/$defs/BaseEvent"
    bad.append(("unknown kind", event))
    event = minimal_run_event()
    event["schemaURL"] = f"{BASE}#/$defs/DatasetEvent"
    event["dataset"] = {"namespace": "a", "name": "b"}
    bad.append(("dataset event with job and run", event))
    event = minimal_run_event()
    event["schemaURL"] = f"{BASE}#/$defs/JobEvent"
    bad.append(("job event with run", event))
    event = minimal_run_event()
    event["eventType"] = "DONE"
    event["outputs"][0]["facets"] = {
        "schema": {**FACET, "fields": [{"name": "a"}, {"name": "b"}, {"name": 3}]},
        "my.vendor": {"no": "base"},
    }
    bad.append(("every problem", event))
    event = minimal_run_event()
    event["eventTime"] = "2024-05-01T10:00:00"
    bad.append(("time without zone", event))
    event = minimal_run_event()
    event["schemaURL"] = 5
    bad.append(("schemaURL a number", event))
    event = minimal_run_event()
    event["run"] = None
    bad.append(("run null", event))
    event = minimal_run_event()
    del event["job"]
    bad.append(("no job", event))
    event = minimal_run_event()
    event["outputs"] = [{"namespace": "n", "name": "o"}, 7]
    bad.append(("output not an object", event))
    bad += [("an array", [1]), ("a number", 1), ("a string", "event"), ("null", None)]
    return bad


BAD = _bad_events()


@pytest.mark.parametrize("document", [b[1] for b in BAD], ids=[b[0] for b in BAD])
def test_invalid_event_has_the_same_errors(document: Any) -> None:
    [outcome] = assert_same(_body(document))
    assert isinstance(outcome, EventValidationError)


def test_invalid_events_in_a_batch_are_named_by_index() -> None:
    batch = [minimal_run_event()] + [b[1] for b in BAD] + [minimal_run_event()]
    outcomes = assert_same(_body(batch))
    assert isinstance(outcomes[0], ParsedEvent) and isinstance(outcomes[-1], ParsedEvent)
    assert all(isinstance(o, EventValidationError) for o in outcomes[1:-1])


def test_valid_variants_decide_the_same() -> None:
    without = minimal_run_event()
    del without["eventType"], without["schemaURL"], without["inputs"]
    nulls = minimal_run_event()
    nulls["inputs"] = None
    nulls["eventType"] = None
    extras = minimal_run_event()
    extras["customTopLevel"] = {"kept": [1, 2.5, None, True, "é"]}
    extras["x-big"] = 2**63 - 1
    python_names = minimal_run_event()
    python_names["event_type"] = python_names.pop("eventType")  # populate_by_name
    job_event = minimal_run_event()
    del job_event["run"]
    job_event["schemaURL"] = f"{BASE}#/$defs/JobEvent"
    dataset_event = {
        "eventTime": "2024-05-01T10:00:00Z",
        "producer": "p",
        "schemaURL": f"{BASE}#/$defs/DatasetEvent",
        "dataset": {"namespace": "n", "name": "d"},
    }
    for event in (without, nulls, extras, python_names, job_event, dataset_event):
        [outcome] = assert_same(_body(event))
        assert isinstance(outcome, ParsedEvent)


def test_duplicate_keys_keep_the_last_value_as_json_does() -> None:
    body = (
        b'{"eventType":"START","eventTime":"2024-05-01T10:00:00Z","producer":"p",'
        b'"run":{"runId":"3f5e83fa-3480-44ff-99c5-ff943904e5e8","runId":"3f5e83fa-3480-44ff-99c5-ff943904e5e9"},'
        b'"job":{"namespace":"n","name":"j"},"eventType":"COMPLETE"}'
    )
    [outcome] = assert_same(body)
    assert isinstance(outcome, ParsedEvent)
    assert outcome.run_id == "3f5e83fa-3480-44ff-99c5-ff943904e5e9"
    assert outcome.event.event_type == "COMPLETE"  # type: ignore[union-attr]


def test_floats_and_big_integers_keep_the_canonical_json_of_json_dumps() -> None:
    event = minimal_run_event()
    event["run"]["facets"] = {
        "custom": {**FACET, "ratio": 1e-05, "big": 1e16, "huge": 2**63 - 1, "neg": -(2**63)}
    }
    event["outputs"][0]["outputFacets"] = {"outputStatistics": {**FACET, "rowCount": 2**63 - 1}}
    body = _body(event)
    [outcome] = assert_same(body)
    assert isinstance(outcome, ParsedEvent)
    assert b'"ratio":1e-05' in outcome.canonical and str(-(2**63)).encode() in outcome.canonical
    assert outcome.canonical == stdlib_canonical_json(event)


@pytest.mark.parametrize(
    "number", [str(2**64 + 1), str(-(2**63) - 1), "1e400", "-1e400", "1e309", "1" + "0" * 400]
)
def test_a_number_the_store_cannot_hold_rejects_the_event_naming_it(number: str) -> None:
    event = minimal_run_event()
    event["run"]["facets"] = {"custom": {**FACET, "v": "__n__"}}
    body = _body(event).replace(b'"__n__"', number.encode())
    [outcome] = assert_same(body)
    assert isinstance(outcome, EventValidationError)
    assert [v.field for v in outcome.violations] == ["run.facets.custom.v"]
    assert "number the store cannot hold" in outcome.violations[0].message


def test_a_lone_surrogate_is_a_422_naming_the_field() -> None:
    event = minimal_run_event()
    event["job"]["namespace"] = "bad\ud800"
    [outcome] = assert_same(_body(event))
    assert isinstance(outcome, EventValidationError)
    assert [v.field for v in outcome.violations] == ["job.namespace"]
    assert "lone surrogate" in outcome.violations[0].message
    # the same as raw (invalid) UTF-8 bytes, which json.loads reads with surrogatepass
    raw_bytes = _body(minimal_run_event()).replace(b'"wrapper"', b'"wr\xed\xa0\x80"')
    [outcome] = assert_same(raw_bytes)
    assert isinstance(outcome, EventValidationError)
    assert [v.field for v in outcome.violations] == ["job.name"]


def test_a_second_event_reusing_a_remembered_piece_is_its_own() -> None:
    CACHE.clear()
    first, second = minimal_run_event(), minimal_run_event("3f5e83fa-3480-44ff-99c5-ff943904e5e9")
    schema = {**FACET, "fields": [{"name": f"c{i}", "type": "int"} for i in range(30)]}
    for event in (first, second):
        event["outputs"][0]["facets"] = {"schema": copy.deepcopy(schema)}
    second["eventTime"] = "2024-05-01T11:00:00Z"
    a = fast_parse_event(_body(first))
    entries = len(CACHE)
    b = fast_parse_event(_body(second))
    assert a is not None and b is not None
    assert len(CACHE) == entries + 1  # only the new run was validated: the rest came from the cache
    assert b.event.outputs == a.event.outputs  # type: ignore[union-attr]
    assert (a.run_id, b.run_id) == (first["run"]["runId"], second["run"]["runId"])
    assert (a.raw, b.raw) == (first, second)
    assert a.digest != b.digest
    assert b.canonical == stdlib_canonical_json(second)
    # each event has its own top level and lists: changing one leaves the other (and the cache) be
    b.raw["outputs"].append({"namespace": "x", "name": "y"})
    b.event.outputs.clear()  # type: ignore[union-attr]
    b.raw["eventType"] = "FAIL"
    c = fast_parse_event(_body(first))
    assert c is not None and c.raw == first and a.raw == first
    assert c.event == a.event and len(c.event.outputs) == 1  # type: ignore[union-attr, arg-type]


def test_a_batch_is_split_into_each_events_bytes() -> None:
    tricky = minimal_run_event()
    tricky["job"]["facets"] = {
        "custom": {**FACET, "text": '] }, [ {"a": "]"', "nested": [[1, [2, []]], {"]": "["}]}
    }
    plain = json.dumps(minimal_run_event(), indent=2).encode()
    elements = [plain, json.dumps(tricky, ensure_ascii=False).encode(), b"[1, [2]]", b'"]["']
    body = b" \n[\t" + b" ,\r\n  ".join(elements) + b"\n] \n"
    parsed = parse_body(body)
    assert parsed.is_batch and parsed.sent == elements
    assert_same(body)
    assert [type(o) for o in parsed.outcomes] == [
        ParsedEvent,
        ParsedEvent,
        EventValidationError,
        EventValidationError,
    ]
    assert parsed.outcomes[1].raw == tricky  # type: ignore[union-attr]


def test_a_single_event_is_sent_as_the_body() -> None:
    body = b"\n  " + json.dumps(minimal_run_event(), indent=1).encode() + b"\n"
    parsed = parse_body(body)
    assert (parsed.is_batch, parsed.sent) == (False, [body])


def test_an_empty_batch_is_malformed() -> None:
    for body in (b"[]", b" [ \n ] "):
        with pytest.raises(MalformedBodyError, match="the batch is empty"):
            parse_body(body)


@pytest.mark.parametrize(
    "body",
    [
        b"{oops}",
        b"",
        b"   ",
        b'[{"a": tru}]',
        b"[1,]",
        b"[1] x",
        b'{"a": 1} x',
        b'{"a": NaN}',
        b"[Infinity]",
        b"\xff\xfe{",
        b'[{"a": "\xff"}]',
        b'{"a": "\xff"}',
        b'{"a": "x\x01y"}',
        b'[{"a": 1}',
    ],
)
def test_malformed_bodies_have_the_same_message(body: bytes) -> None:
    with pytest.raises(MalformedBodyError) as slow:
        decode_json(body)
    with pytest.raises(MalformedBodyError) as fast:
        parse_body(body)
    assert str(fast.value) == str(slow.value)


def test_bodies_only_json_reads_take_the_slow_path() -> None:
    event = minimal_run_event()
    for body in (
        b"\xef\xbb\xbf" + _body([event]),  # a UTF-8 byte-order mark
        json.dumps([event]).encode("utf-16"),
        json.dumps(event).encode("utf-32"),
    ):
        [outcome] = assert_same(body)
        assert isinstance(outcome, ParsedEvent)


# --- differential: random changes to valid events, sent in random spellings -------------------

_TEXT = st.text(max_size=8)  # lone surrogates included
_KEYS = st.one_of(_TEXT, st.sampled_from(["_producer", "_schemaURL", "name"]))


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.lists(children, max_size=3), st.dictionaries(_KEYS, children, max_size=3))


_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        _TEXT,
        st.sampled_from(["2024-05-01T10:00:00Z", "3f5e83fa-3480-44ff-99c5-ff943904e5e8", "START"]),
    ),
    _containers,
    max_leaves=8,
)
_PATHS = [
    ("extra",),
    ("eventType",),
    ("eventTime",),
    ("producer",),
    ("schemaURL",),
    ("run",),
    ("run", "runId"),
    ("run", "facets"),
    ("run", "facets", "custom"),
    ("run", "facets", "custom", "value"),
    ("job", "name"),
    ("job", "facets", "sql"),
    ("inputs",),
    ("inputs", 0, "name"),
    ("outputs", 0, "facets", "schema", "fields"),
    ("outputs", 0, "facets", "custom", "_producer"),
    ("outputs", 0, "outputFacets", "outputStatistics", "rowCount"),
]


def _change(event: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target: Any = event
    for part in path[:-1]:
        target = target.setdefault(part, {}) if isinstance(target, dict) else target[part]
    target[path[-1]] = value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(range(len(GOLDEN) + 1)),
    changes=st.lists(st.tuples(st.sampled_from(_PATHS), _VALUES), max_size=3),
    ascii_only=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
    batch=st.booleans(),
)
def test_random_events_decide_as_the_slow_path(
    base: int, changes: list[tuple[Any, Any]], ascii_only: bool, indent: int | None, batch: bool
) -> None:
    event = copy.deepcopy(GOLDEN[base]) if base < len(GOLDEN) else minimal_run_event()
    for path, value in changes:
        try:
            _change(event, path, copy.deepcopy(value))
        except (TypeError, IndexError, KeyError):
            pass  # the path goes through something else now: this change is skipped
    document = [event, minimal_run_event()] if batch else event
    text = json.dumps(document, ensure_ascii=ascii_only, indent=indent)
    assert_same(text.encode("utf-8", "surrogatepass"))


def test_threads_and_evictions_leave_results_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    # a cache far too small for the events: pieces are evicted while other threads use them
    monkeypatch.setattr(CACHE, "max_entries", 5)
    CACHE.clear()
    events = []
    for i in range(40):
        event = minimal_run_event(f"3f5e83fa-3480-44ff-99c5-{i:012d}")
        event["outputs"][0]["name"] = f"out_{i % 7}"
        event["outputs"][0]["facets"] = {"schema": {**FACET, "fields": [{"name": f"c{i % 3}"}]}}
        events.append(event)
    bodies = [_body(events[i : i + 5]) for i in range(0, len(events), 5)] * 4
    expected = {body: slow_outcomes(body)[0] for body in bodies}
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(parse_body, bodies))
    assert len(CACHE) <= 5
    for body, parsed in zip(bodies, results, strict=True):
        for got, want in zip(parsed.outcomes, expected[body], strict=True):
            assert isinstance(got, ParsedEvent) and isinstance(want, ParsedEvent)
            assert (got.event, got.raw, got.canonical) == (want.event, want.raw, want.canonical)


def _dataset_event(facet_value: Any) -> dict[str, Any]:
    return {
        "eventTime": "2024-03-01T12:00:00Z",
        "producer": "https://example.com/p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": {
            "namespace": "ns",
            "name": "d",
            "facets": {
                "custom": {
                    "_producer": "https://example.com/p",
                    "_schemaURL": "https://example.com/s",
                    "v": facet_value,
                }
            },
        },
    }


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    ("value", "words"),
    [("a\u0000b", "NUL character"), (_nested(150), "nested deeper than"), ("ok", None)],
)
def test_the_slow_path_keeps_the_limits_when_it_checks_bytes_first(
    value: Any, words: str | None
) -> None:
    """DatasetEvents take the slow path; their bytes are checked before any walk of the limits."""
    event = _dataset_event(value)
    for body in (json.dumps(event).encode(), json.dumps([event, event]).encode()):
        outcomes = parse_body(body).outcomes
        for outcome in outcomes:
            if words is None:
                assert isinstance(outcome, ParsedEvent)
            else:
                assert isinstance(outcome, EventValidationError)
                assert any(words in v.message for v in outcome.violations), outcome.violations
