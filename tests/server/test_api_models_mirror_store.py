"""The read API's response models mirror the store's typed records (:mod:`plumbline.store.read.records`):
the same fields, so that what the store returns is what ``/openapi.json`` documents."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from plumbline.server.api import models
from plumbline.store.read import records

PAIRS: list[tuple[type, type[BaseModel]]] = [
    (records.SearchResult, models.SearchResult),
    (records.SearchPage, models.SearchResultList),
    (records.EventPage, models.LineageEventList),
    (records.NodeRef, models.DatasetId),
    (records.NodeRef, models.JobId),
    (records.VersionRef, models.JobVersionId),
    (records.VersionRef, models.IoDatasetVersionId),
    (records.Namespace, models.Namespace),
    (records.NamespacePage, models.NamespaceList),
    (records.Source, models.Source),
    (records.SourcePage, models.SourceList),
    (records.Tag, models.Tag),
    (records.TagPage, models.TagList),
    (records.DatasetField, models.DatasetField),
    (records.ColumnLineageInput, models.DatasetColumnLineageInput),
    (records.ColumnLineage, models.DatasetColumnLineage),
    (records.DatasetData, models.DatasetData),
    (records.Dataset, models.Dataset),
    (records.DatasetPage, models.DatasetList),
    (records.IoDatasetVersion, models.IoDatasetVersion),
    (records.Run, models.Run),
    (records.RunFacets, models.RunFacets),
    (records.RunPage, models.RunList),
    (records.RunMatch, models.RunMatch),
    (records.RunMatches, models.RunMatchList),
    (records.SchemaFieldType, models.SchemaFieldType),
    (records.SchemaFieldRetyped, models.SchemaFieldRetyped),
    (records.SchemaChanges, models.SchemaChanges),
    (records.DatasetVersion, models.DatasetVersion),
    (records.DatasetVersionPage, models.DatasetVersionList),
    (records.JobFields, models.JobFields),
    (records.JobData, models.JobData),
    (records.Job, models.Job),
    (records.JobPage, models.JobList),
    (records.JobVersion, models.JobVersion),
    (records.JobVersionPage, models.JobVersionList),
    (records.Edge, models.Edge),
    (records.LineageNode, models.LineageNode),
    (records.LineageGraph, models.LineageGraph),
    (records.Transformation, models.Transformation),
    (records.ColumnLineageInputField, models.ColumnLineageInputField),
    (records.ColumnLineageNodeData, models.ColumnLineageNodeData),
    (records.ColumnLineageNode, models.ColumnLineageNode),
    (records.ColumnLineageGraph, models.ColumnLineageGraph),
    (records.VersionRef, models.JobSummary),
    (records.RunSummary, models.RunSummary),
    (records.DatasetSummary, models.DatasetSummary),
    (records.UpstreamRun, models.UpstreamRun),
    (records.UpstreamRunLineage, models.UpstreamRunLineage),
    (records.LineageMetric, models.LineageMetric),
    (records.IntervalMetric, models.IntervalMetric),
]


@pytest.mark.parametrize(("record", "model"), PAIRS, ids=lambda t: t.__name__)
def test_model_has_the_records_fields(record: type, model: type[BaseModel]) -> None:
    keys = record.__required_keys__ | record.__optional_keys__  # type: ignore[attr-defined]
    assert set(model.model_fields) == set(keys)


def test_every_record_is_mirrored() -> None:
    defined = {
        value
        for value in vars(records).values()
        if isinstance(value, type) and value.__module__ == records.__name__
    }
    assert defined == {record for record, _ in PAIRS}
