"""``/classifications/{tag}`` (issue 32 §1): where a classification is, origin vs propagated with
the path, and who reads it; declassifying a column for a tag (who: the token's name; why: the
body's ``reason``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body

from plumbline.server.api.models import Classification, Dataset, Declassification
from plumbline.server.api.routing import (
    Limit,
    Offset,
    ReadAccess,
    Reader,
    TheStore,
    WriteAccess,
    make_router,
)
from plumbline.store.read import classifications, datasets, records
from plumbline.store.write import tagging

router = make_router("Classifications")
FIELD = "/namespaces/{namespace}/datasets/{dataset}/fields/{field}/declassifications/{tag}"


@router.get(
    "/classifications/{tag}",
    response_model=Classification,
    summary="Every column and dataset carrying a tag, and the jobs reading them",
    description="Columns declared with the tag or reached by it along column lineage (one page, "
    "by namespace, dataset, field), dataset-level tags, and the jobs reading datasets with such "
    "columns with their latest runs. A namespace-limited token sees the columns of datasets it "
    "may read.",
)
def get_classification(
    *, tag: str, conn: Reader, limit: Limit = 100, offset: Offset = 0, principal: ReadAccess
) -> records.Classification:
    return classifications.classification(conn, tag, limit, offset, principal.namespaces)


@router.put(
    FIELD,
    response_model=Dataset,
    summary="Declassify a column for a tag: the tag stops spreading there",
)
def declassify_field(
    *,
    namespace: str,
    dataset: str,
    field: str,
    tag: str,
    body: Annotated[Declassification, Body()],
    store: TheStore,
    principal: WriteAccess,
) -> records.Dataset:
    principal.check_namespace(namespace)
    with store.writing() as conn:
        who = principal.name or "anonymous"
        tagging.declassify(conn, namespace, dataset, field, tag, by=who, reason=body.reason)
        return datasets.get_dataset(conn, namespace, dataset)


@router.delete(FIELD, response_model=Dataset, summary="Undo a column's declassification")
def undo_declassification(
    *, namespace: str, dataset: str, field: str, tag: str, store: TheStore, principal: WriteAccess
) -> records.Dataset:
    principal.check_namespace(namespace)
    with store.writing() as conn:
        tagging.declassify(
            conn, namespace, dataset, field, tag, by="", reason="", declassified=False
        )
        return datasets.get_dataset(conn, namespace, dataset)
