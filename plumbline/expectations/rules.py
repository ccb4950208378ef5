"""The expectations rule language (issue 31 §1): typed rules and their parser, from TOML (a file)
or from JSON (the API's body), one schema for both.

A file::

    namespace = "shop"                      # default namespace of every reference below

    [[reach]]                               # X must reach Y (through any number of hops)
    from = "raw_orders"                     # a dataset of the default namespace, or a table:
    to = { namespace = "bi", dataset = "daily_revenue" }

    [[reach]]                               # column -> column, optionally by a transformation
    from = { dataset = "raw_orders", column = "amount" }
    to = { dataset = "orders", column = "amount_eur" }
    transformation = "DIRECT/TRANSFORMATION"    # TYPE or TYPE/SUBTYPE, every hop of one path

    [[never_reach]]                         # X must never reach anything in namespace N
    from = { namespace = "raw", dataset = "customers", column = "email" }
    namespace = "analytics"

    [[job]]                                 # job reads / writes
    job = "clean_orders"
    reads = ["raw_orders"]
    writes = ["orders"]

    [[fresh]]                               # the producing run of a dataset's current version
    dataset = "orders"
    within = "26h"                          # s, m, h, d, w

    [[declare]]                             # edges a user declares (edge source "declared")
    from = { dataset = "crm_export", column = "id" }
    to = { dataset = "customers", column = "customer_id" }
    job = "nightly_copy"                    # optional
    transformation = "DIRECT/IDENTITY"      # optional

Every rule may carry ``name`` (a label for reports). A malformed file is an
:class:`ExpectationsError` naming the file and line; a JSON body's names the rule's path
(``reach[1].to``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from plumbline.errors import PlumblineError

TRANSFORMATION_TYPES = ("DIRECT", "INDIRECT")
SECTIONS = ("reach", "never_reach", "job", "fresh", "declare")
MAX_RULES = 1000  # rules in one file or body, all sections together
_SPAN = re.compile(r"^(\d{1,6})([smhdw])$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class ExpectationsError(PlumblineError, ValueError):
    """A malformed expectations file or body; ``where`` is ``FILE:LINE`` or a rule's path."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass(frozen=True)
class Ref:
    """A dataset, or one of its columns when ``column`` is set."""

    namespace: str
    dataset: str
    column: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """What references sort by (a dataset before its columns)."""
        return (self.namespace, self.dataset, self.column or "")

    @property
    def node_id(self) -> str:
        base = f"{self.namespace}:{self.dataset}"
        return f"datasetField:{base}:{self.column}" if self.column else f"dataset:{base}"

    def to_json(self) -> dict[str, str]:
        out = {"namespace": self.namespace, "dataset": self.dataset}
        if self.column:
            out["column"] = self.column
        return out


@dataclass(frozen=True)
class JobRef:
    namespace: str
    name: str

    @property
    def node_id(self) -> str:
        return f"job:{self.namespace}:{self.name}"


@dataclass(frozen=True)
class Transformation:
    """``DIRECT`` or ``INDIRECT``, with an optional subtype (``AGGREGATION``, ``JOIN``, …)."""

    type: str
    subtype: str | None = None

    def __str__(self) -> str:
        return f"{self.type}/{self.subtype}" if self.subtype else self.type

    def matches(self, type_: str, subtype: str) -> bool:
        return type_ == self.type and (self.subtype is None or subtype == self.subtype)


@dataclass(frozen=True)
class Reach:
    """``source`` must reach ``target`` (datasets through jobs, or columns along column lineage;
    with ``transformation``, along one path whose every hop carries it)."""

    source: Ref
    target: Ref
    transformation: Transformation | None = None
    name: str | None = None

    def describe(self) -> str:
        via = f" by {self.transformation}" if self.transformation else ""
        return f"{self.source.node_id} must reach {self.target.node_id}{via}"


@dataclass(frozen=True)
class NeverReach:
    """``source`` must never reach any dataset (or column) of ``namespace``, through any hop."""

    source: Ref
    namespace: str
    name: str | None = None

    def describe(self) -> str:
        return f"{self.source.node_id} must never reach namespace {self.namespace!r}"


@dataclass(frozen=True)
class JobEdge:
    """``job`` must read (``direction`` ``input``) or write (``output``) ``dataset``."""

    job: JobRef
    dataset: Ref
    direction: str
    name: str | None = None

    def describe(self) -> str:
        verb = "read" if self.direction == "input" else "write"
        return f"{self.job.node_id} must {verb} {self.dataset.node_id}"


@dataclass(frozen=True)
class Fresh:
    """The run that produced ``dataset``'s current version ran within ``within`` of now."""

    dataset: Ref
    within: timedelta
    text: str  # as written (``26h``)
    name: str | None = None

    def describe(self) -> str:
        return f"{self.dataset.node_id} must be produced within {self.text}"


@dataclass(frozen=True)
class DeclaredEdge:
    """An edge a user declares: dataset -> dataset or column -> column, optionally by ``job`` and
    with a ``transformation``. Edge source ``declared`` (issue 31 §2)."""

    source: Ref
    target: Ref
    job: JobRef | None = None
    transformation: Transformation | None = None
    name: str | None = None


Rule = Reach | NeverReach | JobEdge | Fresh


@dataclass(frozen=True)
class Expectations:
    """Everything one file or body says: the rules to check and the declared edges."""

    reach: tuple[Reach, ...] = ()
    never_reach: tuple[NeverReach, ...] = ()
    jobs: tuple[JobEdge, ...] = ()
    fresh: tuple[Fresh, ...] = ()
    declare: tuple[DeclaredEdge, ...] = ()
    namespace: str | None = None
    rules: tuple[Rule, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", (*self.reach, *self.never_reach, *self.jobs, *self.fresh))


def parse_span(text: str) -> timedelta:
    """``30m``, ``24h``, ``7d``, ``2w`` as a timedelta; ValueError otherwise."""
    match = _SPAN.match(text.strip())
    if not match:
        raise ValueError(f"expected a span such as 30m, 24h, 7d or 2w, got {text!r}")
    return timedelta(**{_UNITS[match.group(2).lower()]: int(match.group(1))})


def parse_transformation(text: str) -> Transformation:
    kind, _, subtype = text.strip().upper().partition("/")
    if kind not in TRANSFORMATION_TYPES:
        raise ValueError(
            f"transformation {text!r}: expected DIRECT or INDIRECT, optionally /SUBTYPE"
        )
    return Transformation(kind, subtype or None)


Locate = Callable[[str, int], str]  # (section, index) -> where the rule is written


class _Parser:
    def __init__(self, data: Mapping[str, Any], locate: Locate) -> None:
        self.data = data
        self.locate = locate
        self.default = data.get("namespace")
        self.where = "?"

    def fail(self, message: str) -> ExpectationsError:
        return ExpectationsError(self.where, message)

    def text(self, rule: Mapping[str, Any], key: str, required: bool = True) -> str | None:
        value = rule.get(key)
        if value is None:
            if required:
                raise self.fail(f"{key!r} is required")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{key!r} must be a non-empty string")
        return value

    def namespace(self, value: Any, key: str) -> str:
        namespace = value if value is not None else self.default
        if not isinstance(namespace, str) or not namespace:
            raise self.fail(f"{key}: no namespace (give one, or a top-level namespace)")
        return namespace

    def ref(self, value: Any, key: str) -> Ref:
        if isinstance(value, str) and value:
            return Ref(self.namespace(None, key), value)
        if not isinstance(value, Mapping):
            raise self.fail(
                f"{key!r} must be a dataset name or a table {{namespace, dataset, column}}"
            )
        unknown = set(value) - {"namespace", "dataset", "column"}
        if unknown:
            raise self.fail(f"{key}: unknown key {sorted(unknown)[0]!r}")
        dataset = self.text(value, "dataset")
        column = self.text(value, "column", required=False)
        assert dataset is not None
        return Ref(self.namespace(value.get("namespace"), key), dataset, column)

    def job(self, value: Any, key: str) -> JobRef:
        if isinstance(value, str) and value:
            return JobRef(self.namespace(None, key), value)
        if isinstance(value, Mapping) and isinstance(value.get("name"), str) and value["name"]:
            return JobRef(self.namespace(value.get("namespace"), key), value["name"])
        raise self.fail(f"{key!r} must be a job name or a table {{namespace, name}}")

    def transformation(self, rule: Mapping[str, Any]) -> Transformation | None:
        text = self.text(rule, "transformation", required=False)
        if text is None:
            return None
        try:
            return parse_transformation(text)
        except ValueError as exc:
            raise self.fail(str(exc)) from None

    def pair(self, rule: Mapping[str, Any]) -> tuple[Ref, Ref, Transformation | None]:
        source, target = self.ref(rule.get("from"), "from"), self.ref(rule.get("to"), "to")
        if (source.column is None) != (target.column is None):
            raise self.fail("'from' and 'to' must both be datasets or both be columns")
        transformation = self.transformation(rule)
        if transformation is not None and source.column is None:
            raise self.fail("'transformation' applies to column -> column rules only")
        return source, target, transformation

    def rules(self, section: str, allowed: set[str]) -> list[tuple[Mapping[str, Any], str | None]]:
        entries = self.data.get(section, [])
        if not isinstance(entries, list):
            raise ExpectationsError(
                self.locate(section, 0), f"{section!r} must be an array of tables"
            )
        out = []
        for index, rule in enumerate(entries):
            self.where = self.locate(section, index)
            if not isinstance(rule, Mapping):
                raise self.fail(f"a {section} rule must be a table")
            unknown = set(rule) - allowed - {"name"}
            if unknown:
                raise self.fail(f"unknown key {sorted(unknown)[0]!r} in a {section} rule")
            out.append((rule, self.text(rule, "name", required=False)))
        return out

    def parse(self) -> Expectations:
        unknown = set(self.data) - {*SECTIONS, "namespace", "version"}
        if unknown:
            raise ExpectationsError(self.locate("", 0), f"unknown section {sorted(unknown)[0]!r}")
        if self.default is not None and (not isinstance(self.default, str) or not self.default):
            raise ExpectationsError(self.locate("", 0), "'namespace' must be a non-empty string")
        reach = [
            Reach(*self.pair(rule), name=name)
            for rule, name in self.rules("reach", {"from", "to", "transformation"})
        ]
        never = []
        for rule, name in self.rules("never_reach", {"from", "namespace"}):
            namespace = self.text(rule, "namespace")
            assert namespace is not None
            never.append(NeverReach(self.ref(rule.get("from"), "from"), namespace, name))
        jobs = []
        for rule, name in self.rules("job", {"job", "reads", "writes"}):
            job = self.job(rule.get("job"), "job")
            if not rule.get("reads") and not rule.get("writes"):
                raise self.fail("a job rule needs 'reads' or 'writes'")
            for key, direction in (("reads", "input"), ("writes", "output")):
                listed = rule.get(key) or []
                if not isinstance(listed, list):
                    raise self.fail(f"{key!r} must be a list of datasets")
                for item in listed:
                    ref = self.ref(item, key)
                    if ref.column:
                        raise self.fail(f"{key}: a job reads and writes datasets, not columns")
                    jobs.append(JobEdge(job, ref, direction, name))
        fresh = []
        for rule, name in self.rules("fresh", {"dataset", "within"}):
            ref = self.ref(rule.get("dataset"), "dataset")
            within = self.text(rule, "within")
            assert within is not None
            try:
                span = parse_span(within)
            except ValueError as exc:
                raise self.fail(f"within: {exc}") from None
            fresh.append(Fresh(ref, span, within.strip(), name))
        declare = []
        for rule, name in self.rules("declare", {"from", "to", "job", "transformation"}):
            source, target, transformation = self.pair(rule)
            by = self.job(rule["job"], "job") if rule.get("job") is not None else None
            declare.append(DeclaredEdge(source, target, by, transformation, name))
        found = Expectations(
            tuple(reach), tuple(never), tuple(jobs), tuple(fresh), tuple(declare), self.default
        )
        if len(found.rules) + len(found.declare) > MAX_RULES:
            raise ExpectationsError(self.locate("", 0), f"more than {MAX_RULES} rules")
        return found


def parse_mapping(data: Mapping[str, Any], locate: Locate | None = None) -> Expectations:
    """The expectations a JSON body (or a loaded TOML file) holds; :class:`ExpectationsError`
    naming the rule (``reach[1]``, or what ``locate`` says) when one is malformed."""
    if not isinstance(data, Mapping):
        raise ExpectationsError("body", "expectations must be an object")
    return _Parser(data, locate or _json_path).parse()


def _json_path(section: str, index: int) -> str:
    return f"{section}[{index}]" if section else "body"


def _toml_locator(path: str, text: str) -> Locate:
    """Where the ``index``-th ``[[section]]`` of ``text`` starts, as ``path:line``."""
    lines = text.splitlines()

    def locate(section: str, index: int) -> str:
        if section:
            header = re.compile(rf"^\s*\[\[\s*{re.escape(section)}\s*\]\]")
            found = [n for n, line in enumerate(lines, 1) if header.match(line)]
            if index < len(found):
                return f"{path}:{found[index]}"
            inline = re.compile(rf"^\s*{re.escape(section)}\s*=")
            for n, line in enumerate(lines, 1):
                if inline.match(line):
                    return f"{path}:{n}"
        return f"{path}:1"

    return locate


def parse_toml_text(text: str, path: str = "<expectations>") -> Expectations:
    """The expectations of TOML ``text`` (read from ``path``, named in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        match = re.search(r"\(at line (\d+)", str(exc)) if line is None else None
        line = line or (int(match.group(1)) if match else 1)
        message = getattr(exc, "msg", None) or re.sub(r"\s*\(at line.*\)$", "", str(exc))
        raise ExpectationsError(f"{path}:{line}", f"invalid TOML: {message}") from None
    return parse_mapping(data, _toml_locator(path, text))


def load(path: str | Path) -> Expectations:
    """The expectations file at ``path``; :class:`ExpectationsError` naming it when it cannot be
    read or is malformed."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ExpectationsError(name, f"cannot read: {exc}") from None
    return parse_toml_text(text, name)


def to_json(expectations: Expectations) -> dict[str, Any]:
    """The JSON body of ``POST /api/v1/expectations/check`` saying what ``expectations`` say
    (every reference with its namespace, so the body stands alone)."""

    def named(doc: dict[str, Any], name: str | None) -> dict[str, Any]:
        return {**doc, "name": name} if name else doc

    def job(ref: JobRef) -> dict[str, str]:
        return {"namespace": ref.namespace, "name": ref.name}

    def pair(source: Ref, target: Ref, t: Transformation | None) -> dict[str, Any]:
        doc: dict[str, Any] = {"from": source.to_json(), "to": target.to_json()}
        if t is not None:
            doc["transformation"] = str(t)
        return doc

    body: dict[str, Any] = {
        "reach": [
            named(pair(r.source, r.target, r.transformation), r.name) for r in expectations.reach
        ],
        "never_reach": [
            named({"from": r.source.to_json(), "namespace": r.namespace}, r.name)
            for r in expectations.never_reach
        ],
        "job": [
            named(
                {
                    "job": job(r.job),
                    ("reads" if r.direction == "input" else "writes"): [r.dataset.to_json()],
                },
                r.name,
            )
            for r in expectations.jobs
        ],
        "fresh": [
            named({"dataset": r.dataset.to_json(), "within": r.text}, r.name)
            for r in expectations.fresh
        ],
        "declare": [
            named(
                {
                    **pair(d.source, d.target, d.transformation),
                    **({"job": job(d.job)} if d.job else {}),
                },
                d.name,
            )
            for d in expectations.declare
        ],
    }
    if expectations.namespace:
        body["namespace"] = expectations.namespace
    return {k: v for k, v in body.items() if v}
