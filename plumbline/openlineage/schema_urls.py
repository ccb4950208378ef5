"""The schema URLs plumbline writes into events and facets: the one table of them.

The capture (``plumbline.spark``) and the server's catalog enrichment both import it; it lives in
the wire model because the capture must not import the server. Versions are the ``$id``s of the
official schemas (spec 2-0-2).
"""

from __future__ import annotations

SPEC = "https://openlineage.io/spec"
RUN_EVENT_SCHEMA_URL = f"{SPEC}/2-0-2/OpenLineage.json#/$defs/RunEvent"
# for facets the spec has no schema of (like the JVM agent's custom facets)
RUN_FACET_SCHEMA_URL = f"{SPEC}/2-0-2/OpenLineage.json#/$defs/RunFacet"

# facet schema name -> its version
FACET_VERSIONS = {
    "CatalogDatasetFacet": "1-1-0",
    "ColumnLineageDatasetFacet": "1-2-0",
    "DatasetVersionDatasetFacet": "1-0-1",
    "DatasourceDatasetFacet": "1-0-1",
    "ErrorMessageRunFacet": "1-0-1",
    "InputStatisticsInputDatasetFacet": "1-0-0",
    "JobTypeJobFacet": "2-0-4",
    "LifecycleStateChangeDatasetFacet": "1-0-1",
    "OutputStatisticsOutputDatasetFacet": "1-0-2",
    "ParentRunFacet": "1-2-0",
    "ProcessingEngineRunFacet": "1-1-1",
    "SQLJobFacet": "1-1-0",
    "SchemaDatasetFacet": "1-2-0",
    "StorageDatasetFacet": "1-0-1",
    "SymlinksDatasetFacet": "1-0-1",
}

# plumbline's own facet (no standard facet has a catalog table's stable identity); its schema is
# shipped in the package next to the code that writes it
CATALOG_TABLE_FACET_SCHEMA_URL = (
    "https://github.com/plumbline/plumbline/blob/main/plumbline/server/catalog/"
    "CatalogTableDatasetFacet.json#/$defs/CatalogTableDatasetFacet"
)


def facet_schema_url(kind: str) -> str:
    """The ``_schemaURL`` of the official facet ``kind`` (e.g. ``SchemaDatasetFacet``)."""
    return f"{SPEC}/facets/{FACET_VERSIONS[kind]}/{kind}.json#/$defs/{kind}"


# plumbline's run facet stating how complete an action's lineage is (`plumbline_completeness`)
COMPLETENESS_FACET_SCHEMA_URL = (
    "https://github.com/plumbline/plumbline/blob/main/plumbline/spark/"
    "CompletenessRunFacet.json#/$defs/CompletenessRunFacet"
)

# plumbline's run facet of where the plan and the execution disagree (`plumbline_observedDeviations`)
DEVIATIONS_FACET_SCHEMA_URL = (
    "https://github.com/plumbline/plumbline/blob/main/plumbline/spark/"
    "ObservedDeviationsRunFacet.json#/$defs/ObservedDeviationsRunFacet"
)

# plumbline's run facet marking lineage extracted from a Spark event log (`plumbline_extraction`)
EXTRACTION_FACET_SCHEMA_URL = (
    "https://github.com/plumbline/plumbline/blob/main/plumbline/eventlogs/"
    "EventLogExtractionRunFacet.json#/$defs/EventLogExtractionRunFacet"
)
