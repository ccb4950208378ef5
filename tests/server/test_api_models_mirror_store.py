"""The read API's response models mirror what answers hold. The Marquez-style routes' models mirror
the store's typed records (:mod:`plumbline.store.read.records`) field for field. The analysis
routes answer their results' ``to_json()`` as it is: their models (``server/api/*_models.py``)
are tied to those answers by :mod:`model_mirror`'s walk, run on real answers by
``test_api_openapi`` (every field carried, every model exercised), ``test_api_impact``,
``test_api_run_analysis`` and ``tests/health/test_health_http``; here, that the walk catches what
it must and that no analysis model is left outside every route's answer."""

from __future__ import annotations

import pytest
from model_mirror import ANALYSIS_MODEL_MODULES, Walk, analysis_models, response_models
from pydantic import BaseModel

from plumbline.server.api import failed_runs, models, stream_batches
from plumbline.server.api.run_analysis_models import RootCause, RunSide
from plumbline.store.read import failed_runs as failed_run_records
from plumbline.store.read import records
from plumbline.store.read import stream_batches as stream_batch_records

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
    (records.Classification, models.Classification),
    (records.ClassifiedColumn, models.ClassifiedColumn),
    (records.ClassifiedDataset, models.ClassifiedDataset),
    (records.ClassificationReader, models.ClassificationReader),
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
    (records.Confidence, models.Confidence),
    (records.LineageEdge, models.LineageEdge),
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
    (failed_run_records.FailedRun, failed_runs.FailedRun),
    (failed_run_records.FailedRunPage, failed_runs.FailedRunList),
    (stream_batch_records.StreamBatchPartition, stream_batches.StreamBatchPartition),
    (stream_batch_records.StreamBatchSource, stream_batches.StreamBatchSource),
    (stream_batch_records.StreamBatchSink, stream_batches.StreamBatchSink),
    (stream_batch_records.StreamBatch, stream_batches.StreamBatch),
    (stream_batch_records.StreamBatchPage, stream_batches.StreamBatchList),
]


@pytest.mark.parametrize(("record", "model"), PAIRS, ids=lambda t: t.__name__)
def test_model_has_the_records_fields(record: type, model: type[BaseModel]) -> None:
    keys = record.__required_keys__ | record.__optional_keys__  # type: ignore[attr-defined]
    assert set(model.model_fields) == set(keys)


def test_every_record_is_mirrored() -> None:
    """Every typed record a module of ``plumbline.store.read`` defines (``records``, and those a
    route answers from elsewhere, such as ``failed_runs``) has its response model here."""
    import importlib
    import pkgutil
    from typing import is_typeddict

    import plumbline.store.read as read

    defined = set()
    for info in pkgutil.iter_modules(read.__path__):
        module = importlib.import_module(f"{read.__name__}.{info.name}")
        defined |= {
            value
            for value in vars(module).values()
            if is_typeddict(value) and value.__module__ == module.__name__
        }
    assert records.RunSummary in defined  # the scan sees the records module
    assert defined == {record for record, _ in PAIRS}


def test_every_analysis_model_is_part_of_a_routes_answer() -> None:
    answered = {
        model
        for model in response_models().values()
        if getattr(model, "__module__", None) in ANALYSIS_MODEL_MODULES
    }
    reachable = set().union(*(_reachable(model) for model in answered))
    assert {m.__name__ for m in analysis_models()} - {m.__name__ for m in reachable} == set()


def _reachable(model: type[BaseModel]) -> set[type[BaseModel]]:
    from model_mirror import models_reachable

    return models_reachable(model)


SIDE = {
    "id": "r1",
    "job": {"namespace": "ns", "name": "j"},
    "state": "COMPLETED",
    "startedAt": None,
    "endedAt": None,
    "durationMs": None,
    "jobVersion": None,
    "errorMessage": None,
}


def test_the_walk_accepts_an_answer_that_mirrors_its_model() -> None:
    walk = Walk()
    walk.answer(SIDE, RunSide)
    assert walk.found == [] and walk.unproduced() == {}


def test_the_walk_catches_undocumented_missing_and_never_carried_fields() -> None:
    walk = Walk()
    nested = {"run": {**SIDE, "jobVersion": None, "extra": 1}, "against": None}
    walk.answer({k: v for k, v in nested.items()}, RootCause)
    assert any("(RunSide): missing [], undocumented ['extra']" in f for f in walk.found)
    assert any("(RootCause): missing [" in f for f in walk.found)  # its required fields
    walk = Walk()
    walk.answer({k: v for k, v in SIDE.items() if k != "state"}, RunSide)
    assert walk.found == ["$ (RunSide): missing ['state'], undocumented []"]
    assert walk.unproduced() == {"RunSide": {"state"}}
