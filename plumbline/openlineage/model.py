"""Pydantic models of the OpenLineage events (spec 2-0-2): RunEvent, DatasetEvent, JobEvent.

Unknown fields are kept (``extra="allow"``); JSON types are strict (a number is not a string).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from plumbline.openlineage.facets import (
    DatasetFacets,
    InputDatasetFacets,
    JobFacets,
    OutputDatasetFacets,
    RunFacets,
)
from plumbline.openlineage.types import DateTimeStr, UuidStr

EventType = Literal["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"]
TERMINAL_STATES = frozenset({"COMPLETE", "ABORT", "FAIL"})


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)


class Run(_Wire):
    run_id: UuidStr = Field(alias="runId")
    facets: RunFacets | None = None


class Job(_Wire):
    namespace: str
    name: str
    facets: JobFacets | None = None


class Dataset(_Wire):
    namespace: str
    name: str
    facets: DatasetFacets | None = None


class StaticDataset(Dataset):
    """A dataset in a DatasetEvent."""


class InputDataset(Dataset):
    input_facets: InputDatasetFacets | None = Field(default=None, alias="inputFacets")


class OutputDataset(Dataset):
    output_facets: OutputDatasetFacets | None = Field(default=None, alias="outputFacets")


class BaseEvent(_Wire):
    event_time: DateTimeStr = Field(alias="eventTime")
    producer: str
    # required by the spec; tolerated when absent, as Marquez does
    schema_url: str | None = Field(default=None, alias="schemaURL")


class RunEvent(BaseEvent):
    event_type: EventType | None = Field(default=None, alias="eventType")
    run: Run
    job: Job
    inputs: list[InputDataset] | None = None
    outputs: list[OutputDataset] | None = None


class DatasetEvent(BaseEvent):
    dataset: StaticDataset

    @model_validator(mode="before")
    @classmethod
    def _not_a_run(cls, data: object) -> object:
        if isinstance(data, dict) and "job" in data and "run" in data:
            raise ValueError("a DatasetEvent must not carry both job and run")
        return data


class JobEvent(BaseEvent):
    job: Job
    inputs: list[InputDataset] | None = None
    outputs: list[OutputDataset] | None = None

    @model_validator(mode="before")
    @classmethod
    def _not_a_run(cls, data: object) -> object:
        if isinstance(data, dict) and "run" in data:
            raise ValueError("a JobEvent must not carry a run")
        return data


Event = RunEvent | DatasetEvent | JobEvent
