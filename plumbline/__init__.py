"""plumbline: data lineage for Spark pipelines, spoken in OpenLineage."""

__version__ = "0.1.0"

__all__ = ["__version__"]
