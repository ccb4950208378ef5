"""``/namespaces/{namespace}/datasets…``: datasets, their versions, soft delete, tags.

Reads follow the token's visibility: a namespace-limited token reads the datasets its namespaces'
jobs read or write, whatever their namespace, and gets 404 (never 403, so nothing leaks whether a
dataset exists) for the others. Writes (tags, delete) still need the dataset's namespace itself.
"""

from __future__ import annotations

from plumbline.server.api.factories import add_soft_delete_route, add_tag_routes
from plumbline.server.api.models import Dataset, DatasetList, DatasetVersion, DatasetVersionList
from plumbline.server.api.routing import (
    Limit,
    Offset,
    ReadAccess,
    Reader,
    make_router,
)
from plumbline.store.read import datasets, records
from plumbline.store.write import hiding, tagging

router = make_router("Datasets")
BASE = "/namespaces/{namespace}/datasets"
VISIBILITY = (
    "A namespace-limited token sees the datasets its namespaces' jobs read or write (and those of "
    "its own namespaces); any other dataset answers 404, as if missing."
)


@router.get(
    BASE,
    response_model=DatasetList,
    summary="List the datasets of a namespace",
    description=VISIBILITY,
)
def list_datasets(
    *,
    namespace: str,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> records.DatasetPage:
    return datasets.list_datasets(conn, namespace, limit, offset, principal.namespaces)


@router.get(
    BASE + "/{dataset}/versions",
    response_model=DatasetVersionList,
    summary="List the versions of a dataset, newest first",
    description=VISIBILITY,
)
def list_dataset_versions(
    *,
    namespace: str,
    dataset: str,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> records.DatasetVersionPage:
    return datasets.list_dataset_versions(
        conn, namespace, dataset, limit, offset, principal.namespaces
    )


@router.get(
    BASE + "/{dataset}/versions/{version}",
    response_model=DatasetVersion,
    summary="Get one version of a dataset (by version uuid or version string)",
    description=VISIBILITY,
)
def get_dataset_version(
    *,
    namespace: str,
    dataset: str,
    version: str,
    conn: Reader,
    principal: ReadAccess,
) -> records.DatasetVersion:
    return datasets.get_dataset_version(conn, namespace, dataset, version, principal.namespaces)


@router.get(
    BASE + "/{dataset}", response_model=Dataset, summary="Get a dataset", description=VISIBILITY
)
def get_dataset(
    *, namespace: str, dataset: str, conn: Reader, principal: ReadAccess
) -> records.Dataset:
    return datasets.get_dataset(conn, namespace, dataset, principal.namespaces)


add_soft_delete_route(
    router,
    BASE + "/{dataset}",
    names=("namespace", "dataset"),
    thing="dataset",
    summary="Soft delete a dataset",
    response_model=Dataset,
    hide=hiding.hide_dataset,
)
add_tag_routes(
    router,
    BASE + "/{dataset}/tags/{tag}",
    names=("namespace", "dataset"),
    thing="dataset",
    response_model=Dataset,
    tagger=tagging.tag_dataset,
    answer=datasets.get_dataset,
)
add_tag_routes(
    router,
    BASE + "/{dataset}/fields/{field}/tags/{tag}",
    names=("namespace", "dataset", "field"),
    thing="field",
    response_model=Dataset,
    tagger=tagging.tag_field,
    answer=datasets.get_dataset,
)
