"""The limits an event must keep to be accepted: what both store backends can hold, checked at the
door so that an accepted event always reaches the lineage tables.

An event past a limit is rejected on its own (``rejected``, with the field and the reason), never
failing the events sent with it. The limits (docs/reference.md, "Limits of an event"):

- nesting: at most :data:`MAX_NESTING` levels of objects and arrays (the event itself is level 1);
- strings: no NUL character (``\\u0000``, which PostgreSQL cannot store) in any value or key, and at
  most :data:`MAX_STRING` characters each;
- names: namespaces at most :data:`MAX_NAMESPACE` characters, job and dataset names at most
  :data:`MAX_NAME`, field names (a nested field's dotted path) at most :data:`MAX_FIELD`, and
  the short names the store keeps in columns of their own (a field's type, a dataset version, a
  symlink's type, a transformation's type and subtype, an error's language) their column's size;
- date-times (``eventTime``, ``nominalTime``): from :data:`MIN_TIME` to before :data:`MAX_TIME`,
  in UTC (a time zone offset must not carry it out of the years both backends store);
- numbers, anywhere: integers within 64 bits (``-2**63`` to ``2**63 - 1``), other numbers within a
  64-bit float's range (``1e400`` reads as infinity, which neither JSON column can hold);
- namespaces: not empty (an empty one is not addressable by any path);
- stream batches (the ``streamBatches`` run facet): at most :data:`MAX_STREAM_BATCHES` batches
  per event, :data:`MAX_BATCH_SOURCES` sources and as many sinks per batch, and
  :data:`MAX_BATCH_PARTITIONS` Kafka partitions per source;
- statistics (``rowCount``, ``size``, ``fileCount``): whole numbers that fit in 64 bits; a
  ``rowCount`` is not negative.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from plumbline.openlineage.errors import Violation

MAX_NESTING = 100
MAX_STRING = 1_048_576
MAX_NAMESPACE = 1024
MAX_NAME = 2048
MAX_FIELD = 1024
MIN_TIME = datetime(1900, 1, 1, tzinfo=UTC)
MAX_TIME = datetime(9999, 1, 1, tzinfo=UTC)
_INT64 = (-(2**63), 2**63 - 1)
# short names kept in sized columns: the schema's sizes (plumbline/store/schema.py)
FIELD_TYPE, VERSION, SYMLINK_TYPE, TRANSFORMATION_TYPE, TRANSFORMATION_SUBTYPE = (
    255,
    255,
    64,
    16,
    32,
)
ERROR_LANGUAGE = 64
MAX_STREAM_BATCHES = 1000  # batches in one event's streamBatches facet (the capture sends <= 100)
MAX_BATCH_SOURCES = 100  # sources, and sinks, of one batch
MAX_BATCH_PARTITIONS = 1000  # Kafka partitions listed per source (the capture lists <= 1000)

Path = tuple[int | str, ...]
EMPTY_NAMESPACE = "must not be empty (a namespace names where jobs and datasets live)"


def document_violations(document: Any, base_depth: int = 1) -> Iterator[tuple[Path, str]]:
    """Nesting, NUL and string-size violations anywhere in a decoded JSON document, with their
    paths (relative to the document). ``base_depth``: the level of the document itself."""
    stack: list[tuple[Path, Any, int]] = [((), document, base_depth)]
    while stack:
        path, value, depth = stack.pop()
        if isinstance(value, str):
            yield from _string_violations(path, value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            reason = number_violation(value)
            if reason is not None:
                yield path, reason
        elif isinstance(value, dict):
            if depth > MAX_NESTING:
                yield path[:4], f"is nested deeper than {MAX_NESTING} levels"
                return
            for key, item in value.items():
                yield from _string_violations((*path, key), key, what="its name")
                stack.append(((*path, key), item, depth + 1))
        elif isinstance(value, list):
            if depth > MAX_NESTING:
                yield path[:4], f"is nested deeper than {MAX_NESTING} levels"
                return
            stack.extend(((*path, i), item, depth + 1) for i, item in enumerate(value))


_NOT_BRACKETS = bytes(set(range(256)) - set(b"{}[]"))
# a number of 19 digits or more, or with a positive exponent of 3 digits: every number past 64
# bits or a float's range matches (so do a few strings and harmless numbers: a closer look)
_BIG_NUMBER = re.compile(
    rb"(?:^|[:,\[])\s*-?(?:[0-9]{19}|[0-9]+(?:\.[0-9]*)?[eE]\+?0*[1-9][0-9]{2})"
)
NUMBER_MESSAGE = (
    "is a number the store cannot hold: integers must fit in 64 bits "
    "(-9223372036854775808 to 9223372036854775807), other numbers in a 64-bit float "
    "(at most about 1.8e308)"
)


def number_violation(value: int | float) -> str | None:
    """Why a JSON number cannot be stored (an integer past 64 bits, a float that read as
    infinity), or None."""
    if isinstance(value, int):
        return None if _INT64[0] <= value <= _INT64[1] else NUMBER_MESSAGE
    return None if math.isfinite(value) else NUMBER_MESSAGE


def surely_within(data: bytes, base_depth: int = 1) -> bool:
    """A quick check on a JSON document's bytes, at C speed: True when it surely keeps the
    nesting, NUL, string-size and number limits (False: walk it with
    :func:`document_violations`)."""
    if b"\\u0000" in data or len(data) > MAX_STRING or _BIG_NUMBER.search(data):
        return False
    # brackets inside strings are counted too: they only make the check give up more often (a
    # string's unpaired bracket unbalances the sequence) or bound the depth less tightly
    brackets = data.translate(None, _NOT_BRACKETS)
    passes = 0
    while brackets:
        shorter = brackets.replace(b"{}", b"").replace(b"[]", b"")
        if len(shorter) == len(brackets):
            return False  # unbalanced: the walk decides
        brackets, passes = shorter, passes + 1
        # a pass removes one or two levels: 2 * passes bounds the depth
        if base_depth - 1 + 2 * passes > MAX_NESTING:
            return False
    return True


def _string_violations(path: Path, text: str, what: str = "it") -> Iterator[tuple[Path, str]]:
    if "\x00" in text:
        yield path, f"holds a NUL character (\\u0000) in {what}, which the store cannot hold"
    if len(text) > MAX_STRING:
        yield path, f"{what} is longer than {MAX_STRING} characters"


def nesting_depth_error() -> Violation:
    """The violation of a document too deep to decode at all."""
    return Violation(None, f"the event is nested deeper than {MAX_NESTING} levels")


def time_violation(value: datetime) -> str | None:
    """Why a date-time is out of the stored range, or None."""
    try:
        utc = value.astimezone(UTC)
    except OverflowError:
        utc = None
    if utc is None or not MIN_TIME <= utc < MAX_TIME:
        return (
            f"must be from {MIN_TIME:%Y-%m-%d} to before {MAX_TIME:%Y-%m-%d} in UTC "
            "(the years the store holds)"
        )
    return None


def event_violations(
    raw: dict[str, Any], event_time: datetime, *, generic: bool = True
) -> list[tuple[Path, str]]:
    """Every limit a decoded, valid event breaks, by path (empty: it keeps them all);
    ``generic=False``: the nesting and string limits already checked."""
    found = list(document_violations(raw)) if generic else []
    reason = time_violation(event_time)
    if reason is not None:
        found.append((("eventTime",), reason))
    for key in ("run", "job", "dataset"):
        if key in raw:
            found.extend(((key, *path), why) for path, why in part_violations(key, raw[key]))
    for key in ("inputs", "outputs"):
        for index, dataset in enumerate(_list(raw.get(key))):
            found.extend(((key, index, *p), why) for p, why in part_violations(key, dataset))
    return found


def part_violations(slot: str, part: Any) -> list[tuple[Path, str]]:
    """The named limits (names, short names, times, statistics) of one part of an event: its
    ``run``, ``job``, ``dataset``, or one element of its ``inputs`` or ``outputs``."""
    found: list[tuple[Path, str]] = []

    def text(path: Path, value: Any, limit: int) -> None:
        if isinstance(value, str) and len(value) > limit:
            found.append((path, f"is longer than {limit} characters"))

    def names(path: Path, holder: Any) -> None:
        if isinstance(holder, dict):
            namespace = holder.get("namespace")
            if namespace == "":
                found.append(((*path, "namespace"), EMPTY_NAMESPACE))
            text((*path, "namespace"), namespace, MAX_NAMESPACE)
            text((*path, "name"), holder.get("name"), MAX_NAME)

    if slot == "job":
        names((), part)
    elif slot == "run":
        facets = _get(part, "facets")
        names(("facets", "parent", "job"), _get(facets, "parent", "job"))
        names(("facets", "parent", "root", "job"), _get(facets, "parent", "root", "job"))
        language = _get(facets, "errorMessage", "programmingLanguage")
        text(("facets", "errorMessage", "programmingLanguage"), language, ERROR_LANGUAGE)
        for key in ("nominalStartTime", "nominalEndTime"):
            value = _get(facets, "nominalTime", key)
            _nominal_time(found, ("facets", "nominalTime", key), value)
        _stream_batches(found, ("facets", "streamBatches"), _get(facets, "streamBatches"))
    else:
        _dataset(found, (), part, text, names)
    return found


def _nominal_time(found: list[tuple[Path, str]], path: Path, value: Any) -> None:
    if not isinstance(value, str):
        return
    try:
        parsed = datetime.fromisoformat(value.replace("z", "Z").replace(" ", "T"))
    except ValueError:
        return  # the model has said what is wrong with it
    if parsed.tzinfo is not None:
        reason = time_violation(parsed)
        if reason is not None:
            found.append((path, reason))


def _stream_batches(found: list[tuple[Path, str]], path: Path, facet: Any) -> None:
    """The bounds of a ``streamBatches`` run facet (what one event may ask the store to keep)."""
    batches = _get(facet, "batches")
    if not isinstance(batches, list):
        return
    if len(batches) > MAX_STREAM_BATCHES:
        found.append(((*path, "batches"), f"has more than {MAX_STREAM_BATCHES} batches"))
        return
    for index, item in enumerate(batches):
        if not isinstance(item, dict):
            continue
        for key in ("sources", "sinks"):
            if len(_list(item.get(key))) > MAX_BATCH_SOURCES:
                where = (*path, "batches", index, key)
                found.append((where, f"has more than {MAX_BATCH_SOURCES} entries"))
        for number, source in enumerate(_list(item.get("sources"))):
            partitions = _get(source, "partitions")
            if isinstance(partitions, list) and len(partitions) > MAX_BATCH_PARTITIONS:
                where = (*path, "batches", index, "sources", number, "partitions")
                found.append((where, f"has more than {MAX_BATCH_PARTITIONS} partitions"))


def _dataset(
    found: list[tuple[Path, str]], path: Path, dataset: Any, text: Any, names: Any
) -> None:
    if not isinstance(dataset, dict):
        return
    names(path, dataset)
    facets = dataset.get("facets")
    if isinstance(facets, dict):
        here = (*path, "facets")
        for index, identifier in enumerate(_list(_get(facets, "symlinks", "identifiers"))):
            names((*here, "symlinks", "identifiers", index), identifier)
            if isinstance(identifier, dict):
                text(
                    (*here, "symlinks", "identifiers", index, "type"),
                    identifier.get("type"),
                    SYMLINK_TYPE,
                )
        names(
            (*here, "lifecycleStateChange", "previousIdentifier"),
            _get(facets, "lifecycleStateChange", "previousIdentifier"),
        )
        text(
            (*here, "version", "datasetVersion"), _get(facets, "version", "datasetVersion"), VERSION
        )
        text((*here, "dataSource", "name"), _get(facets, "dataSource", "name"), MAX_NAMESPACE)
        _schema_fields(found, (*here, "schema", "fields"), _get(facets, "schema", "fields"), "")
        _column_lineage(found, (*here, "columnLineage"), facets.get("columnLineage"), text)
        _statistics(found, (*here, "outputStatistics"), facets.get("outputStatistics"))
    for key, facet in (("inputFacets", "inputStatistics"), ("outputFacets", "outputStatistics")):
        _statistics(found, (*path, key, facet), _get(dataset, key, facet))


def _schema_fields(found: list[tuple[Path, str]], path: Path, fields: Any, prefix: str) -> None:
    for index, item in enumerate(_list(fields)):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        name = prefix + item["name"]
        if len(name) > MAX_FIELD:
            found.append(
                (
                    (*path, index, "name"),
                    f"names a field (with its parents, dotted) longer than {MAX_FIELD} characters",
                )
            )
        field_type = item.get("type")
        if isinstance(field_type, str) and len(field_type) > FIELD_TYPE:
            found.append(((*path, index, "type"), f"is longer than {FIELD_TYPE} characters"))
        _schema_fields(found, (*path, index, "fields"), item.get("fields"), name + ".")


def _column_lineage(found: list[tuple[Path, str]], path: Path, facet: Any, text: Any) -> None:
    """Names in a columnLineage facet (often most of an event: the loop is kept tight)."""
    if not isinstance(facet, dict):
        return
    outputs = facet.get("fields")
    groups: list[tuple[Path, Any]] = [((*path, "dataset"), facet.get("dataset"))]
    if isinstance(outputs, dict):
        for name, output in outputs.items():
            if isinstance(name, str) and len(name) > MAX_FIELD:
                where = (*path, "fields", name[:40] + "…")
                found.append((where, f"names a field longer than {MAX_FIELD} characters"))
            if isinstance(output, dict):
                groups.append(((*path, "fields", name, "inputFields"), output.get("inputFields")))
    for where, items in groups:
        if not isinstance(items, list):
            continue
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            namespace, name, field = item.get("namespace"), item.get("name"), item.get("field")
            if namespace == "":
                found.append(((*where, index, "namespace"), EMPTY_NAMESPACE))
            if (
                (isinstance(namespace, str) and len(namespace) > MAX_NAMESPACE)
                or (isinstance(name, str) and len(name) > MAX_NAME)
                or (isinstance(field, str) and len(field) > MAX_FIELD)
            ):
                text((*where, index, "namespace"), namespace, MAX_NAMESPACE)
                text((*where, index, "name"), name, MAX_NAME)
                text((*where, index, "field"), field, MAX_FIELD)
            transformations = item.get("transformations")
            if not isinstance(transformations, list):
                continue
            for number, transformation in enumerate(transformations):
                if not isinstance(transformation, dict):
                    continue
                kind, subtype = transformation.get("type"), transformation.get("subtype")
                if (isinstance(kind, str) and len(kind) > TRANSFORMATION_TYPE) or (
                    isinstance(subtype, str) and len(subtype) > TRANSFORMATION_SUBTYPE
                ):
                    at = (*where, index, "transformations", number)
                    text((*at, "type"), kind, TRANSFORMATION_TYPE)
                    text((*at, "subtype"), subtype, TRANSFORMATION_SUBTYPE)


def _statistics(found: list[tuple[Path, str]], path: Path, facet: Any) -> None:
    if not isinstance(facet, dict):
        return
    for key in ("rowCount", "size", "fileCount"):
        value = facet.get(key)
        if isinstance(value, int) and not _INT64[0] <= value <= _INT64[1]:
            found.append(((*path, key), "does not fit in 64 bits"))
        elif key == "rowCount" and isinstance(value, int) and value < 0:
            found.append(((*path, key), "must not be negative (a count of rows)"))


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
