"""Typed models of the standard OpenLineage facets (spec 2-0-2) and of the facet maps.

Every facet is an object with ``_producer`` and ``_schemaURL`` (the spec's ``BaseFacet``). Facets
plumbline knows are checked field by field; any other facet is kept as it is. Field names follow the
wire format exactly (aliases where they clash with Python or pydantic names).
"""

from __future__ import annotations

import functools
from typing import Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from plumbline.openlineage.types import DateTimeStr, UuidStr


class _Wire(BaseModel):
    """A JSON object of the spec: strict JSON types, unknown fields kept."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)


class BaseFacet(_Wire):
    """The spec's ``BaseFacet``: every facet says who produced it and which schema it follows."""

    producer: str = Field(alias="_producer")
    schema_url: str = Field(alias="_schemaURL")


class DeletableFacet(BaseFacet):
    """Dataset and job facets may be sent as ``{"_deleted": true}`` to remove them."""

    deleted: bool | None = Field(default=None, alias="_deleted")


# --- dataset facets ---------------------------------------------------------------------------


class SchemaField(_Wire):
    name: str
    type: str | None = None
    description: str | None = None
    ordinal_position: int | None = None
    fields: list[SchemaField] | None = None


class SchemaDatasetFacet(DeletableFacet):
    fields: list[SchemaField] | None = None


class SymlinkIdentifier(_Wire):
    namespace: str
    name: str
    type: str


class SymlinksDatasetFacet(DeletableFacet):
    identifiers: list[SymlinkIdentifier] | None = None


class DatasetVersionDatasetFacet(DeletableFacet):
    dataset_version: str = Field(alias="datasetVersion")


class PreviousIdentifier(_Wire):
    name: str
    namespace: str


class LifecycleStateChangeDatasetFacet(DeletableFacet):
    lifecycle_state_change: Literal[
        "ALTER", "CREATE", "DROP", "OVERWRITE", "RENAME", "TRUNCATE"
    ] = Field(alias="lifecycleStateChange")
    previous_identifier: PreviousIdentifier | None = Field(default=None, alias="previousIdentifier")


class DatasourceDatasetFacet(DeletableFacet):
    name: str | None = None
    uri: str | None = None


# Column lineage is most of a big event: its parts are validated as TypedDicts (plain dicts, about
# three times faster than models), keyed by their wire names.
_WIRE_DICT = ConfigDict(extra="allow", strict=True)


class Transformation(TypedDict):
    __pydantic_config__ = _WIRE_DICT  # type: ignore[misc]
    type: str
    subtype: NotRequired[str]
    description: NotRequired[str]
    masking: NotRequired[bool]


class InputField(TypedDict):
    __pydantic_config__ = _WIRE_DICT  # type: ignore[misc]
    namespace: str
    name: str
    field: str
    transformations: NotRequired[list[Transformation]]


class ColumnLineageOutputField(TypedDict):
    __pydantic_config__ = _WIRE_DICT  # type: ignore[misc]
    inputFields: list[InputField]
    transformationDescription: NotRequired[str]
    transformationType: NotRequired[str]


class ColumnLineageDatasetFacet(DeletableFacet):
    fields: dict[str, ColumnLineageOutputField]
    dataset: list[InputField] | None = None

    @functools.cached_property
    def dataset_names(self) -> frozenset[tuple[str, str]]:
        """(namespace, name) of every dataset the facet's input fields belong to. Computed
        once per facet object: parsing shares one object between events sending the same
        facet, so a job's runs pay for it once."""
        names = {
            (f["namespace"], f["name"]) for o in self.fields.values() for f in o["inputFields"]
        }
        names.update((f["namespace"], f["name"]) for f in self.dataset or [])
        return frozenset(names)


class DocumentationFacet(DeletableFacet):
    description: str
    content_type: str | None = Field(default=None, alias="contentType")


class Owner(_Wire):
    name: str
    type: str | None = None


class OwnershipFacet(DeletableFacet):
    owners: list[Owner] | None = None


class StorageDatasetFacet(DeletableFacet):
    storage_layer: str = Field(alias="storageLayer")
    file_format: str | None = Field(default=None, alias="fileFormat")


class DatasetTypeDatasetFacet(DeletableFacet):
    dataset_type: str = Field(alias="datasetType")
    sub_type: str | None = Field(default=None, alias="subType")


class Tag(_Wire):
    key: str
    value: str
    source: str | None = None
    field: str | None = None


class TagsFacet(DeletableFacet):
    tags: list[Tag] | None = None


class DatasetFacets(_Wire):
    """A dataset's ``facets`` map."""

    __pydantic_extra__: dict[str, BaseFacet]

    schema_: SchemaDatasetFacet | None = Field(default=None, alias="schema")
    symlinks: SymlinksDatasetFacet | None = None
    version: DatasetVersionDatasetFacet | None = None
    lifecycle_state_change: LifecycleStateChangeDatasetFacet | None = Field(
        default=None, alias="lifecycleStateChange"
    )
    data_source: DatasourceDatasetFacet | None = Field(default=None, alias="dataSource")
    column_lineage: ColumnLineageDatasetFacet | None = Field(default=None, alias="columnLineage")
    documentation: DocumentationFacet | None = None
    ownership: OwnershipFacet | None = None
    storage: StorageDatasetFacet | None = None
    dataset_type: DatasetTypeDatasetFacet | None = Field(default=None, alias="datasetType")
    tags: TagsFacet | None = None
    # the older place of output statistics (before outputFacets existed)
    output_statistics: OutputStatisticsFacet | None = Field(default=None, alias="outputStatistics")


# --- input / output facets --------------------------------------------------------------------


class InputStatisticsFacet(BaseFacet):
    row_count: int | None = Field(default=None, alias="rowCount")
    size: int | None = None
    file_count: int | None = Field(default=None, alias="fileCount")


class OutputStatisticsFacet(BaseFacet):
    row_count: int | None = Field(default=None, alias="rowCount")
    size: int | None = None
    file_count: int | None = Field(default=None, alias="fileCount")


class InputDatasetFacets(_Wire):
    """An input's ``inputFacets`` map."""

    __pydantic_extra__: dict[str, BaseFacet]

    input_statistics: InputStatisticsFacet | None = Field(default=None, alias="inputStatistics")


class OutputDatasetFacets(_Wire):
    """An output's ``outputFacets`` map."""

    __pydantic_extra__: dict[str, BaseFacet]

    output_statistics: OutputStatisticsFacet | None = Field(default=None, alias="outputStatistics")


# --- run facets -------------------------------------------------------------------------------


class ParentRun(_Wire):
    run_id: UuidStr = Field(alias="runId")
    facets: dict[str, BaseFacet] | None = None


class ParentJob(_Wire):
    namespace: str
    name: str
    facets: dict[str, BaseFacet] | None = None


class RootRef(_Wire):
    run: ParentRun
    job: ParentJob


class ParentRunFacet(BaseFacet):
    run: ParentRun
    job: ParentJob
    root: RootRef | None = None


class NominalTimeRunFacet(BaseFacet):
    nominal_start_time: DateTimeStr = Field(alias="nominalStartTime")
    nominal_end_time: DateTimeStr | None = Field(default=None, alias="nominalEndTime")


class ErrorMessageRunFacet(BaseFacet):
    message: str
    programming_language: str = Field(alias="programmingLanguage")
    stack_trace: str | None = Field(default=None, alias="stackTrace")


class ProcessingEngineRunFacet(BaseFacet):
    version: str
    name: str | None = None
    openlineage_adapter_version: str | None = Field(default=None, alias="openlineageAdapterVersion")


class ExternalQueryRunFacet(BaseFacet):
    external_query_id: str = Field(alias="externalQueryId")
    source: str


class EnvironmentVariable(_Wire):
    name: str
    value: str


class EnvironmentVariablesRunFacet(BaseFacet):
    environment_variables: list[EnvironmentVariable] = Field(alias="environmentVariables")


class RunFacets(_Wire):
    """A run's ``facets`` map."""

    __pydantic_extra__: dict[str, BaseFacet]

    parent: ParentRunFacet | None = None
    nominal_time: NominalTimeRunFacet | None = Field(default=None, alias="nominalTime")
    error_message: ErrorMessageRunFacet | None = Field(default=None, alias="errorMessage")
    processing_engine: ProcessingEngineRunFacet | None = None
    external_query: ExternalQueryRunFacet | None = Field(default=None, alias="externalQuery")
    environment_variables: EnvironmentVariablesRunFacet | None = Field(
        default=None, alias="environmentVariables"
    )
    tags: TagsFacet | None = None


# --- job facets -------------------------------------------------------------------------------


class SQLJobFacet(DeletableFacet):
    query: str
    dialect: str | None = None


class JobTypeJobFacet(DeletableFacet):
    processing_type: str = Field(alias="processingType")
    integration: str
    job_type: str | None = Field(default=None, alias="jobType")


class SourceCodeJobFacet(DeletableFacet):
    language: str
    source_code: str = Field(alias="sourceCode")


class SourceCodeLocationJobFacet(DeletableFacet):
    type: str
    url: str
    repo_url: str | None = Field(default=None, alias="repoUrl")
    path: str | None = None
    version: str | None = None
    tag: str | None = None
    branch: str | None = None


class JobFacets(_Wire):
    """A job's ``facets`` map."""

    __pydantic_extra__: dict[str, DeletableFacet]

    sql: SQLJobFacet | None = None
    job_type: JobTypeJobFacet | None = Field(default=None, alias="jobType")
    documentation: DocumentationFacet | None = None
    source_code: SourceCodeJobFacet | None = Field(default=None, alias="sourceCode")
    source_code_location: SourceCodeLocationJobFacet | None = Field(
        default=None, alias="sourceCodeLocation"
    )
    ownership: OwnershipFacet | None = None
    tags: TagsFacet | None = None


def raw_facets(facets: BaseModel | None) -> dict[str, Any]:
    """The facet map as sent (wire names, unknown fields kept), for storage."""
    if facets is None:
        return {}
    return facets.model_dump(by_alias=True, exclude_unset=True)


SchemaField.model_rebuild()
DatasetFacets.model_rebuild()
