"""Request and response models of ``POST /api/v1/expectations/check`` (issue 31 §1): the same
rules an expectations file holds (:mod:`plumbline.expectations.rules`), as JSON."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, StrictInt

from plumbline.expectations.rules import MAX_RULES
from plumbline.openlineage.limits import MAX_NAMESPACE
from plumbline.server.api.models import Model, TruncatedReason

MAX_NAME = 4096  # a dataset, column or job name; a rule's label
Name = Field(min_length=1, max_length=MAX_NAME)


class DatasetRef(Model):
    namespace: str | None = Field(
        default=None, min_length=1, max_length=MAX_NAMESPACE, description="default: the body's"
    )
    dataset: str = Name
    column: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)


class JobRef(Model):
    namespace: str | None = Field(default=None, min_length=1, max_length=MAX_NAMESPACE)
    name: str = Name


Ref = DatasetRef | str  # a string: a dataset of the body's namespace
AJob = JobRef | str
Label = Field(default=None, max_length=MAX_NAME, description="a label for reports")
Transformation = Field(
    default=None,
    max_length=64,
    description="DIRECT or INDIRECT, optionally /SUBTYPE (DIRECT/AGGREGATION): every hop of one "
    "path must carry it (column rules only)",
)


class _Rule(Model):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ReachRule(_Rule):
    source: Ref = Field(alias="from")
    to: Ref
    transformation: str | None = Transformation
    name: str | None = Label


class NeverReachRule(_Rule):
    source: Ref = Field(alias="from")
    namespace: str = Field(min_length=1, max_length=MAX_NAMESPACE)
    name: str | None = Label


class JobRule(_Rule):
    job: AJob
    reads: list[Ref] | None = Field(default=None, max_length=MAX_RULES)
    writes: list[Ref] | None = Field(default=None, max_length=MAX_RULES)
    name: str | None = Label


class FreshRule(_Rule):
    dataset: Ref
    within: str = Field(max_length=16, description="30m, 24h, 7d, 2w")
    name: str | None = Label


class DeclaredEdge(_Rule):
    source: Ref = Field(alias="from")
    to: Ref
    job: AJob | None = None
    transformation: str | None = Transformation
    name: str | None = Label


Rules = Field(default=None, max_length=MAX_RULES)


class Expectations(_Rule):
    """An expectations file's content as JSON (the ``plumbline check --expect`` file's schema)."""

    version: StrictInt | None = Field(
        default=None, ge=1, description="the file format's version (1)"
    )
    namespace: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAMESPACE,
        description="the namespace of every reference that names none",
    )
    reach: list[ReachRule] | None = Rules
    never_reach: list[NeverReachRule] | None = Rules
    job: list[JobRule] | None = Rules
    fresh: list[FreshRule] | None = Rules
    declare: list[DeclaredEdge] | None = Rules


class Outcome(Model):
    kind: Literal["reach", "never_reach", "job", "fresh"]
    name: str | None
    status: Literal["holds", "broken", "unknown", "undecided"] = Field(
        description="unknown: the rule names a dataset, column, job or namespace the server does "
        "not know (a failure, never true); undecided: the walk was cut before it could tell"
    )
    expected: str
    seen: str
    runId: str | None = Field(description="the run that last showed it")
    path: list[str | None] = Field(description="the path found (start first), the evidence")


class ExpectationsCheck(Model):
    outcomes: list[Outcome] = Field(description="one per rule, in the body's order")
    holds: int
    broken: int = Field(description="broken or unknown")
    undecided: int
    declared: int = Field(description="declared edges the body holds (validated, not checked)")
    truncated: bool
    truncatedReason: TruncatedReason = None


class BaselineRef(Model):
    namespace: str
    dataset: str
    column: str | None = Field(default=None, description="absent: the dataset itself")


class BaselineColumnEdge(_Rule):
    source: BaselineRef = Field(alias="from")
    to: BaselineRef = Field(description="a column, or the dataset (a whole-dataset dependency)")
    transformations: list[str] = Field(description="TYPE/SUBTYPE, sorted")


class BaselineJob(Model):
    reads: list[BaselineRef]
    writes: list[BaselineRef]
    columnEdges: list[BaselineColumnEdge] = Field(
        description="the column edges into the datasets the job writes"
    )


class Baseline(Model):
    """A namespace's lineage per job: what ``plumbline baseline save`` writes."""

    plumblineBaseline: int = Field(description="the format's version (1)")
    namespace: str
    takenAt: str
    jobs: dict[str, BaselineJob]
    truncated: bool
    truncatedReason: TruncatedReason = None
