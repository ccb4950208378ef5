"""The one table of schema URLs agrees with the schemas' own ``$id``s (official and plumbline's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plumbline.openlineage.schema_urls import (
    CATALOG_TABLE_FACET_SCHEMA_URL,
    FACET_VERSIONS,
    RUN_EVENT_SCHEMA_URL,
    RUN_FACET_SCHEMA_URL,
    facet_schema_url,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("kind", sorted(FACET_VERSIONS))
def test_facet_schema_url_is_the_official_id(spec_dir: Path, kind: str) -> None:
    schema = json.loads((spec_dir / "facets" / f"{kind}.json").read_text())
    assert facet_schema_url(kind) == f"{schema['$id']}#/$defs/{kind}"
    assert kind in schema["$defs"]


def test_event_schema_urls_name_definitions_of_the_spec(spec_dir: Path) -> None:
    spec = json.loads((spec_dir / "OpenLineage.json").read_text())
    for url in (RUN_EVENT_SCHEMA_URL, RUN_FACET_SCHEMA_URL):
        document, _, fragment = url.partition("#/$defs/")
        assert document == spec["$id"]
        assert fragment in spec["$defs"]


def test_plumblines_own_facet_points_at_the_schema_it_ships() -> None:
    shipped = ROOT / "plumbline" / "server" / "catalog" / "CatalogTableDatasetFacet.json"
    schema = json.loads(shipped.read_text())
    assert CATALOG_TABLE_FACET_SCHEMA_URL == f"{schema['$id']}#/$defs/CatalogTableDatasetFacet"
    assert "CatalogTableDatasetFacet" in schema["$defs"]
